# A functional reference in the AI CUDA Engineer form (written for dirigo's
# tests): Model.forward passes its inputs and parameters to fn, module_fn
# by default; the optimized program is the same Model called with fn set
# to the forward() of opt.cu.
import torch
import torch.nn as nn
import torch.nn.functional as F


def module_fn(x, bias, scale):
    return F.relu(x * scale + bias)


class Model(nn.Module):
    def __init__(self, features, scale):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features) * 0.1)
        self.scale = scale

    def forward(self, x, fn=module_fn):
        return fn(x, self.bias, self.scale)


batch_size = 4
features = 40
scale = 0.5


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features, scale]
