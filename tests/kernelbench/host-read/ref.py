# A reference that reads a computed value on the host (written for dirigo's
# tests): y.tolist() needs the values of x * 2, which a trace by shape does
# not compute, so dtrace-cuda --kernelbench traces it again, computing.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = x * 2.0
        rows = y.tolist()
        assert len(rows) == x.shape[0]
        return y


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
