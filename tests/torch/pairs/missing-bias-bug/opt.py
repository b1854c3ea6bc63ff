# The bias forgotten: a bug.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, fin, fout):
        super().__init__()
        self.gemm = nn.Linear(fin, fout)

    def forward(self, x):
        return torch.tanh(torch.mm(x, self.gemm.weight.t()))


def get_inputs():
    return [torch.randn(3, 5)]


def get_init_inputs():
    return [5, 4]
