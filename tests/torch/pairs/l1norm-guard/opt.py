# The optimized program of ref.py: the row sum guarded against 0.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        s = torch.abs(x).sum(dim=1, keepdim=True)
        s = torch.where(s == 0, torch.full_like(s, 1e-12), s)
        return x / s


def get_inputs():
    return [torch.randn(4, 16)]


def get_init_inputs():
    return []
