# conv2d, then a per-channel bias added: the reference.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, cout, k):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k)
        self.bias = nn.Parameter(torch.randn(cout, 1, 1))

    def forward(self, x):
        return self.conv(x) + self.bias


def get_inputs():
    return [torch.randn(1, 2, 5, 5)]


def get_init_inputs():
    return [2, 3, 3]
