# diag(A) @ B, the form of KernelBench level 1's diagonal matmul: the reference.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.diag(a) @ b


def get_inputs():
    return [torch.randn(6), torch.randn(6, 5)]


def get_init_inputs():
    return []
