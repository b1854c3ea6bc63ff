# A small VGG-style network: conv -> relu -> conv -> relu -> pool ->
# linear.  opt.py writes the first relu as a clamp and shares the rest, so
# the two programs end with the same ops (dmerge --tails cuts there).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, c, k, hw, classes):
        super().__init__()
        self.conv1 = nn.Conv2d(c, k, 3, padding=1)
        self.conv2 = nn.Conv2d(k, k, 3, padding=1)
        self.fc = nn.Linear(k * (hw // 2) ** 2, classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2, 2)
        return self.fc(torch.flatten(x, 1))


def get_inputs():
    return [torch.randn(2, 3, 8, 8)]


def get_init_inputs():
    return [3, 4, 8, 5]
