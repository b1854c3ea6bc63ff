# A gather whose indices come from float data: the rows of w picked by
# the argmax of each row of x (index.Tensor over a computed index).
# opt.py adds the gather to itself: both programs gather alike, so the
# location is decided at the gather's value, never resolved through it.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n, d))

    def forward(self, x):
        return self.w[torch.argmax(x, dim=1)] * 2.0


def get_inputs():
    return [torch.randn(4, 6)]


def get_init_inputs():
    return [6, 3]
