# A deep pure-op network (six 3x3 convolutions with relu, a linear layer
# over all the features): every output element depends on every input,
# through far more elements than one location's expression may hold.
# tests/t/6500-value-numbering.sh: value numbering decides it whole; the
# location-by-location check must end within its budget (unknown or
# timeout), never run away.
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
        return self.fc(torch.flatten(x, 1))


def get_inputs():
    return [torch.randn(2, 3, 24, 24)]


def get_init_inputs():
    return []
