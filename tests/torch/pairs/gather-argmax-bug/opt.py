# The optimized program of ref.py, with a bug: the gathered rows tripled.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n, d))

    def forward(self, x):
        return self.w[torch.argmax(x, dim=1)] * 3.0


def get_inputs():
    return [torch.randn(4, 6)]


def get_init_inputs():
    return [6, 3]
