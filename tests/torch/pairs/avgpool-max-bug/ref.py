# 2x2 max pooling after a ReLU: the reference.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.max_pool2d(torch.relu(x), kernel_size=2)


def get_inputs():
    return [torch.randn(1, 2, 4, 6)]


def get_init_inputs():
    return []
