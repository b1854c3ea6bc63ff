# A small network of three conv + relu layers (3x3, then 1x1) and a linear head (the
# buggy twin of bridge-mid).
# opt.py writes the first relu as a maximum with 0.5, a different value
# wherever conv1 is below 0.5 (a confirmed bug without --tails, unknown
# at the first bridge with it).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, c, k, hw, classes):
        super().__init__()
        self.conv1 = nn.Conv2d(c, k, 3, padding=1)
        self.conv2 = nn.Conv2d(k, k, 1)
        self.conv3 = nn.Conv2d(k, k, 1)
        self.fc = nn.Linear(k * hw * hw, classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.relu(self.conv3(x))
        return self.fc(torch.flatten(x, 1))


def get_inputs():
    return [torch.randn(2, 3, 4, 4)]


def get_init_inputs():
    return [3, 4, 4, 5]
