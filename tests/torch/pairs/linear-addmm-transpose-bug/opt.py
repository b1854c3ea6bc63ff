# addmm over the weight itself, not its transpose (the shapes agree, the
# weight being square): a bug that value numbering must not hide.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.gemm = nn.Linear(n, n)

    def forward(self, x):
        y = torch.addmm(self.gemm.bias, x, self.gemm.weight).relu_()
        return torch._softmax(y, 1, False)


def get_inputs():
    return [torch.randn(4, 6)]


def get_init_inputs():
    return [6]
