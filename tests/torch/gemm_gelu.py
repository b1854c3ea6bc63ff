# A KernelBench-style reference: linear layer, scale, GELU.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, fin, fout, scale):
        super().__init__()
        self.gemm = nn.Linear(fin, fout)
        self.scale = scale

    def forward(self, x):
        return F.gelu(self.gemm(x) * self.scale)


def get_inputs():
    return [torch.randn(4, 16)]


def get_init_inputs():
    return [16, 8, 0.5]
