# The running example of the paper (KernelBench level 2, task 36, written
# anew for dirigo's tests at a small size): a transposed convolution, the
# minimum over channels, the sum over the height, GELU, plus a bias.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding,
                 output_padding, bias_shape):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                 stride, padding, output_padding)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = self.conv_transpose(x)
        x = torch.min(x, dim=1, keepdim=True)[0]    # over channels
        x = torch.sum(x, dim=2, keepdim=True)       # over the height
        x = torch.nn.functional.gelu(x)
        return x + self.bias


batch_size = 2
in_channels = 3
out_channels = 4
height, width = 32, 4           # the transposed convolution doubles both
kernel_size = 3
stride = 2
padding = 1
output_padding = 1
bias_shape = (out_channels, 1, 1)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, output_padding, bias_shape]
