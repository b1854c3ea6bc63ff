# The inverted-mask where with the mask's arms swapped: the exponentials
# kept above the diagonal and zeros on and below it.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        mask = torch.tril(torch.ones(8, 8, dtype=torch.bool))
        return torch.where(mask, torch.zeros_like(x), torch.exp(x))


def get_inputs():
    return [torch.randn(2, 8, 8)]


def get_init_inputs():
    return []
