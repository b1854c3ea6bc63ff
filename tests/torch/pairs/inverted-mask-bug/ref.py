# A causal mask inverted with ~ before masked_fill, as level-3
# Mamba2ReturnFinalState's segment sums are: the reference.  ~ of a bool
# tensor is recorded as logical_not (bools are u8 in a trace, where ~ is
# not logic; dirigo-trace(5), op).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        mask = torch.tril(torch.ones(8, 8, dtype=torch.bool))
        return torch.exp(x.masked_fill(~mask, -torch.inf))


def get_inputs():
    return [torch.randn(2, 8, 8)]


def get_init_inputs():
    return []
