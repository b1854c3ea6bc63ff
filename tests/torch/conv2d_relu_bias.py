# A KernelBench-style reference: convolution, ReLU, add a bias.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, cout, k, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return torch.relu(self.conv(x)) + self.bias


def get_inputs():
    return [torch.randn(2, 3, 8, 8)]


def get_init_inputs():
    return [3, 4, 3, (4, 1, 1)]
