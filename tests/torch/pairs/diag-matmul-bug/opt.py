# The upper triangle of diag(A) @ B kept by triu, the rest dropped: a bug
# (row i has B's elements left of column i zeroed).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.triu(a.unsqueeze(1) * b)


def get_inputs():
    return [torch.randn(6), torch.randn(6, 5)]


def get_init_inputs():
    return []
