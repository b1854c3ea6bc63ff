# Layer normalisation over the last two dimensions (written for dirigo's
# tests, in the AI CUDA Engineer form of KernelBench level 1 task 40):
# the reference is F.layer_norm, whose variance is two-pass, mean of
# (x - mean)^2; opt.cu computes the one-pass E[x^2] - mean^2.
import torch
import torch.nn as nn
import torch.nn.functional as F


def module_fn(x, weight, bias, eps=1e-5):
    normalized_shape = tuple(x.shape[-len(weight.shape):])
    return F.layer_norm(x, normalized_shape=normalized_shape, weight=weight, bias=bias, eps=eps)


class Model(nn.Module):
    def __init__(self, normalized_shape):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))

    def forward(self, x, fn=module_fn):
        return fn(x, self.weight, self.bias)


batch_size = 3
features = 4
dim = 48


def get_inputs():
    return [torch.randn(batch_size, features, dim)]


def get_init_inputs():
    return [(features, dim)]
