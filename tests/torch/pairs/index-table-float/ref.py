# A gather by an index table the model stores as floats (as SwinV2 keeps
# its relative position index) and converts where it indexes: the
# reference, with long indices.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.tensor([[3., 0.], [1., 1.], [2., 0.]]))

    def forward(self, x):
        return x[:, self.table.long().view(-1)] * 2


def get_inputs():
    return [torch.randn(5, 4)]


def get_init_inputs():
    return []
