# Attention weights scaled by 1/sqrt(d), d = 96, multiplied in.  opt.py
# divides by sqrt(96) instead: as floats the two scales are neighbours,
# 0.102062076 against 0.102062069 (canon.h, canon_close), and dcheck
# takes them as one constant.
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.d = d

    def forward(self, q, k):
        s = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(self.d))
        return torch.softmax(s, dim=-1)


def get_inputs():
    return [torch.randn(2, 4, 96), torch.randn(2, 4, 96)]


def get_init_inputs():
    return [96]
