# The flatten in channels-last order (a permute before the reshape): the
# features reach the first linear layer in another order.  A bug, which
# value numbering must not hide: its graph differs, the check finds it.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc1 = nn.Linear(36, 8)
        self.fc2 = nn.Linear(8, 5)
        self.eval()

    def forward(self, x):
        x = x.to(memory_format=torch.channels_last)
        w = self.conv.weight.to(memory_format=torch.channels_last)
        h = F.conv2d(x, w, self.conv.bias, padding=1)
        h = F.batch_norm(h, self.bn.running_mean, self.bn.running_var, self.bn.weight,
                         self.bn.bias, False, 0.1, self.bn.eps)
        h = torch.relu_(h)
        h = F.max_pool2d(h, 2).permute(0, 2, 3, 1).contiguous()
        h = h.reshape(h.shape[0], -1)
        h = torch.addmm(self.fc1.bias, h, self.fc1.weight.t()).relu_()
        return torch.addmm(self.fc2.bias, h, self.fc2.weight.t())


def get_inputs():
    return [torch.randn(2, 3, 6, 6)]


def get_init_inputs():
    return []
