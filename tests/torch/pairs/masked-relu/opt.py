# The same causal mask filled with 0 after the relu: equal, since the relu
# of -inf is 0 (the max distributed over the mask's select).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.tril(torch.ones(8, 8)))

    def forward(self, x):
        return torch.relu(x).masked_fill(self.bias == 0, 0.0)


def get_inputs():
    return [torch.randn(2, 8, 8)]


def get_init_inputs():
    return []
