# The sum over dimension 2 (the same shape): a bug.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return (x * 2.0).sum(dim=2)


def get_inputs():
    return [torch.randn(2, 4, 4)]


def get_init_inputs():
    return []
