# A model whose configuration is held in integer buffers, as level-3
# MobileNetV2 holds each block's stride: a stride read with int() (an
# .item()) and a permutation gathered by an index table.  Integer
# parameters and buffers, and buffers of one number, are constants of the
# trace (dirigo-trace(5), tinput), so neither is data-dependent.
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
        y = x[:, ::int(self.step)]
        return y * self.table[self.index] * float(self.scale)


def get_inputs():
    return [torch.randn(4, 16)]


def get_init_inputs():
    return []
