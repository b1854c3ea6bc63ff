# Bug: the mask is the upper triangle (triu), not the lower: the relu of x
# stays where the reference has 0, and the other way round.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.tril(torch.ones(8, 8)))

    def forward(self, x):
        return torch.relu(x).masked_fill(self.bias.t() == 0, 0.0)


def get_inputs():
    return [torch.randn(2, 8, 8)]


def get_init_inputs():
    return []
