# A functional reference in the AI CUDA Engineer form (written for dirigo's
# tests): a small VGG-style network, conv -> relu -> conv -> relu -> pool
# -> linear.  opt.cu replaces only the first convolution with a kernel of
# its own and calls the same torch ops for the rest, so the two programs
# end with the same ops: dmerge checks them at the tensor that tail starts
# from (dmerge(1), "Identical tails").
import torch
import torch.nn as nn
import torch.nn.functional as F


def module_fn(x, w1, b1, w2, b2, fw, fb):
    x = F.relu(F.conv2d(x, w1, b1, padding=1))
    x = F.relu(F.conv2d(x, w2, b2, padding=1))
    x = F.max_pool2d(x, 2, 2)
    return F.linear(torch.flatten(x, 1), fw, fb)


class Model(nn.Module):
    def __init__(self, c, k, hw, classes):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(k, c, 3, 3) * 0.2)
        self.b1 = nn.Parameter(torch.randn(k) * 0.1)
        self.w2 = nn.Parameter(torch.randn(k, k, 3, 3) * 0.2)
        self.b2 = nn.Parameter(torch.randn(k) * 0.1)
        self.fw = nn.Parameter(torch.randn(classes, k * (hw // 2) ** 2) * 0.05)
        self.fb = nn.Parameter(torch.randn(classes) * 0.1)

    def forward(self, x, fn=module_fn):
        return fn(x, self.w1, self.b1, self.w2, self.b2, self.fw, self.fb)


batch_size = 2
channels = 3
filters = 8
hw = 16
classes = 10


def get_inputs():
    return [torch.randn(batch_size, channels, hw, hw)]


def get_init_inputs():
    return [channels, filters, hw, classes]
