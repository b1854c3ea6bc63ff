# The columns shifted the wrong way: +2 where the reference shifts by -2.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.roll(torch.roll(x * 2, -3, 1), 2, 2)


def get_inputs():
    return [torch.randn(2, 8, 8, 3)]


def get_init_inputs():
    return []
