# conv, batch norm (eval), relu, max pool and two linear layers, the
# reference: a level-3 style network of torch ops only.
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
        h = F.relu(self.bn(self.conv(x)))
        h = F.max_pool2d(h, 2)
        h = torch.flatten(h, 1)
        h = F.relu(self.fc1(h))
        return self.fc2(h)


def get_inputs():
    return [torch.randn(2, 3, 6, 6)]


def get_init_inputs():
    return []
