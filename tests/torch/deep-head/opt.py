# The deep network of tests/torch/deep/ref.py with its linear layer
# written as a product and a separate add (mm, then add; the reference
# has one addmm): every convolution is the reference's, the head is not.
# Value numbering cannot call the outputs equal, and each location's
# full expression is the whole network; dcheck stops resolution at the
# features both programs compute alike and shows each location equal
# for every value they hold (tests/t/6500-value-numbering.sh).
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
        return torch.flatten(x, 1) @ self.fc.weight.t() + self.fc.bias


def get_inputs():
    return [torch.randn(2, 3, 24, 24)]


def get_init_inputs():
    return []
