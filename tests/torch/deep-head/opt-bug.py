# tests/torch/deep-head/opt.py with the bias subtracted: buggy.  Stopped
# at the features both compute alike, the two differ for some value of
# them; that is no witness, so dcheck goes on to the full expression
# (the whole network), which does not fit the budget: the location is
# undecided, never equal.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(3 if i == 0 else 16, 16, 3, padding=1) for i in range(6)])
        self.fc = nn.Linear(16 * 24 * 24, 10)

    def forward(self, x):
        for c in self.convs:
            x = F.relu(c(x))
        return torch.flatten(x, 1) @ self.fc.weight.t() - self.fc.bias


def get_inputs():
    return [torch.randn(2, 3, 24, 24)]


def get_init_inputs():
    return []
