# A gather whose indices come from float data (the buggy twin of
# gather-argmax).  opt.py triples where this doubles, so the location
# must be resolved through the gather, whose indices dirigo cannot
# follow into data: unsupported, naming the op, never a guess.
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
