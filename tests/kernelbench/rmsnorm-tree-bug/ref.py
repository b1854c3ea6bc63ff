# RMS normalisation over the features (written for dirigo's tests, in
# the AI CUDA Engineer form of KernelBench level 1 task 36): the
# reference divides by sqrt(mean(x^2) + eps), eps a Python float that
# torch adds in float32.
import torch
import torch.nn as nn


def module_fn(x, eps):
    rms = torch.sqrt(torch.mean(x**2, dim=1, keepdim=True) + eps)
    return x / rms


class Model(nn.Module):
    def __init__(self, num_features, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x, fn=module_fn):
        return fn(x, self.eps)


batch_size = 2
features = 16
dim1 = 2
dim2 = 4
eps = 1e-5


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features, eps]
