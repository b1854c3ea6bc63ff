// The optimized program of ref.py in the AI CUDA Engineer form: one
// extension source with forward() taking what module_fn takes.  It uses
// the CUDA-only host APIs that dirigo's CPU build rewrites or stubs (the
// is_cuda() check, the device guard, the current stream).
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")

__global__ void scale_bias_relu(const float *__restrict__ x, const float *__restrict__ bias,
                                float *__restrict__ y, float scale, int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) {
        float v = x[i] * scale + bias[i % cols];
        y[i] = v > 0.0f ? v : 0.0f;
    }
}

torch::Tensor forward(torch::Tensor x, torch::Tensor bias, double scale)
{
    CHECK_CUDA(x);
    CHECK_CUDA(bias);
    CHECK_CONTIGUOUS(x);
    const at::cuda::OptionalCUDAGuard device_guard(device_of(x));
    auto y = torch::empty_like(x);
    const int rows = x.size(0), cols = x.size(1);
    const int threads = 64, blocks = (rows * cols + threads - 1) / threads;
    scale_bias_relu<<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(), (float)scale,
        rows, cols);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("forward", &forward, "scale, bias, relu");
}
