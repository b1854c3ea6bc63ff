# The optimized program of ref.py: the scores divided by sqrt(d).
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.d = d

    def forward(self, q, k):
        s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d)
        return torch.softmax(s, dim=-1)


def get_inputs():
    return [torch.randn(2, 4, 96), torch.randn(2, 4, 96)]


def get_init_inputs():
    return [96]
