# Two conv + relu layers.  opt.py writes both relus as a maximum with
# zeros, the last one making the output: dmerge --tails bridges at the
# first and checks the output itself as the last bridge, stopping at the
# first (dmerge(1), "Bridges").
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, c, k):
        super().__init__()
        self.conv1 = nn.Conv2d(c, k, 3, padding=1)
        self.conv2 = nn.Conv2d(k, k, 1)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        return F.relu(self.conv2(x))


def get_inputs():
    return [torch.randn(2, 3, 4, 4)]


def get_init_inputs():
    return [3, 4]
