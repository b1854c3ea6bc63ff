# A KernelBench-style reference: 2d batch normalisation (training mode).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm2d(c)

    def forward(self, x):
        return self.bn(x)


def get_inputs():
    return [torch.randn(4, 3, 5, 5)]


def get_init_inputs():
    return [3]
