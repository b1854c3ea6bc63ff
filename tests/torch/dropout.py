# Dropout in training mode: a random op (its result a fresh input).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(x) * 2


def get_inputs():
    return [torch.randn(4, 4)]


def get_init_inputs():
    return []
