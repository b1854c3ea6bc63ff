# The first output computed as relu(2x), equal; the second under dropout
# as in the reference (random: its locations are unknown).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        y = torch.relu(x * 2.0)
        return y, self.drop(y)


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
