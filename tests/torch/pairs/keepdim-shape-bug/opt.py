# Column sums of shape (1, 6) where the reference returns row sums of
# shape (6,): the same element count, so a shape-mismatch finding and the
# values compared in row-major order, which differ (the wrong dimension).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return (x * 0.5).sum(dim=0, keepdim=True)


def get_inputs():
    return [torch.randn(6, 6)]


def get_init_inputs():
    return []
