# The same gather with int32 indices, as index_select, the scale after.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.tensor([[3., 0.], [1., 1.], [2., 0.]]))

    def forward(self, x):
        return torch.index_select(x, 1, self.table.int().view(-1)) * 2


def get_inputs():
    return [torch.randn(5, 4)]


def get_init_inputs():
    return []
