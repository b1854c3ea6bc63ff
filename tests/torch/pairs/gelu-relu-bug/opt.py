# relu instead of GELU: a bug.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, fin, fout):
        super().__init__()
        self.gemm = nn.Linear(fin, fout)

    def forward(self, x):
        return torch.relu(self.gemm(x))


def get_inputs():
    return [torch.randn(3, 4)]


def get_init_inputs():
    return [4, 4]
