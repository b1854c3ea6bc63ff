# The product of two lower triangular matrices (written for dirigo's
# tests, in the form of KernelBench level 1 task 15): get_inputs() makes
# A and B lower triangular with torch.tril, and opt.cu relies on it,
# summing only the terms that are not zero there (k from col to row).
# For all A and B the two differ; on the inputs get_inputs() can make
# they agree, and that is what dirigo checks (dtrace-cuda(1), "Inputs").
import torch
import torch.nn as nn


def module_fn(A, B):
    return torch.tril(torch.matmul(A, B))


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B, fn=module_fn):
        return fn(A, B)


N = 12


def get_inputs():
    A = torch.tril(torch.randn(N, N))
    B = torch.tril(torch.randn(N, N))
    return [A, B]


def get_init_inputs():
    return []
