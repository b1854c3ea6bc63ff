# The running example, optimized (our own re-creation of the AI CUDA
# Engineer's solution shape): the transposed convolution, GELU and the bias
# stay in torch; the minimum over channels and the sum over the height are
# one kernel, a block per (column, image), a shared-memory tree reduction
# finished by a warp shuffle.  The bug: the tree stops at s > 32, one step
# early, so the warp sums 32 of the 64 partial sums left.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <ATen/cuda/CUDAContext.h>

__global__ void min_sum_kernel(const float *__restrict__ x, float *__restrict__ out,
                               int C, int H, int W)
{
    extern __shared__ float part[];
    const int w = blockIdx.x, n = blockIdx.y;
    const unsigned t = threadIdx.x, nT = blockDim.x;
    float v = 0.0f;
    for (int h = t; h < H; h += nT) {
        const float *p = x + ((size_t)n * C * H + h) * W + w;
        float m = p[0];
        for (int c = 1; c < C; ++c)
            m = fminf(m, p[(size_t)c * H * W]);
        v += m;
    }
    part[t] = v;
    __syncthreads();
    for (unsigned s = nT / 2; s > 32; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    if (t < 32) {
        float sum = part[t];
        for (int off = 16; off > 0; off >>= 1)
            sum += __shfl_down_sync(0xffffffff, sum, off);
        if (t == 0)
            out[n * W + w] = sum;
    }
}

torch::Tensor min_sum(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.dim() == 4, "x must be NCHW");
    x = x.contiguous();
    const int N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    auto out = torch::empty({N, 1, 1, W}, x.options());
    const int threads = 128;
    min_sum_kernel<<<dim3(W, N), threads, threads * sizeof(float),
                     at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), C, H, W);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

cpp_source = "torch::Tensor min_sum(torch::Tensor x);"

min_sum_ext = load_inline(name="running_example_bug", cpp_sources=cpp_source,
                          cuda_sources=cuda_source, functions=["min_sum"],
                          extra_cuda_cflags=["-O3"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding,
                 output_padding, bias_shape):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                 stride, padding, output_padding)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = self.conv_transpose(x)
        x = min_sum_ext.min_sum(x)
        x = torch.nn.functional.gelu(x)
        return x + self.bias
