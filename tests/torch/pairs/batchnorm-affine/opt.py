# The same folded into one scale and shift per channel: equal.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm2d(c)

    def forward(self, x):
        scale = self.bn.weight * torch.rsqrt(self.bn.running_var + 1e-5)
        shift = self.bn.bias - self.bn.running_mean * scale
        return x * scale.view(1, -1, 1, 1) + shift.view(1, -1, 1, 1)


def get_inputs():
    return [torch.randn(2, 3, 2, 2)]


def get_init_inputs():
    return [3]
