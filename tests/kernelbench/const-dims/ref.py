# Row sums (written for dirigo's tests, in the AI CUDA Engineer form of
# KernelBench level 1): the reference is torch.sum over dim 1; opt.cu
# keeps the matrix's shape in __constant__ memory, as the real tiled
# kernels of the corpus do.
import torch
import torch.nn as nn


def module_fn(A):
    return torch.sum(A, dim=1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, fn=module_fn):
        return fn(A)


def get_inputs():
    return [torch.randn(40, 33)]


def get_init_inputs():
    return []
