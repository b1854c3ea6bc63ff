# Two outputs: a scaled positive part, and the same under dropout in
# training mode (random): the reference.  dirigo checks the first output
# and leaves the locations of the second unknown, naming the random op.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        y = torch.relu(x) * 2.0
        return y, self.drop(y)


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
