# Column sums (6,) where the reference returns row sums (8,): a
# shape-mismatch finding with different element counts; nothing is compared.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return (x * 0.5).sum(dim=0)


def get_inputs():
    return [torch.randn(8, 6)]


def get_init_inputs():
    return []
