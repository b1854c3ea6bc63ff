# The running example with a bug: only the upper half of the height is
# summed (twice, so that typical inputs still look plausible).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, cin, cout, k, stride, padding, output_padding):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(cin, cout, k, stride=stride, padding=padding,
                                                 output_padding=output_padding)
        self.bias = nn.Parameter(torch.randn(1, 1, 1))

    def forward(self, x):
        x = self.conv_transpose(x)
        x = torch.min(x, dim=1, keepdim=True)[0]
        h = x.shape[2] // 2
        x = 2.0 * torch.sum(x[:, :, :h, :], dim=2, keepdim=True)
        x = F.gelu(x)
        return x + self.bias


def get_inputs():
    return [torch.randn(1, 2, 3, 3)]


def get_init_inputs():
    return [2, 3, 3, 2, 1, 1]
