# config-buffers with the table not reversed: buggy, as the gather by the
# index table (a constant of the trace) shows.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(8))
        self.register_buffer("index", torch.tensor([7, 6, 5, 4, 3, 2, 1, 0]))
        self.register_buffer("step", torch.tensor(2))
        self.register_buffer("scale", torch.tensor(0.5))

    def forward(self, x):
        return x[:, 0::2] * (self.table * 0.5)


def get_inputs():
    return [torch.randn(4, 16)]


def get_init_inputs():
    return []
