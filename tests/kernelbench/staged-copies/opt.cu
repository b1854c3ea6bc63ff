// The optimized program of ref.py (written for dirigo's tests): x is copied
// device-to-device into a cudaMalloc'd buffer, a kernel takes its positive
// part into a second buffer, which is copied into a torch::empty tensor
// that two launches scale in place (by 4, then by 0.5); the result is added
// to a tensor zeroed with cudaMemset.  The scale factor 4 reaches the
// kernel through a host-to-device copy.  Equal to the reference.
#include <torch/extension.h>

__global__ void relu_k(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

__global__ void scale_k(float *y, const float *s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] *= *s;
}

__global__ void scale_by_k(float *y, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] *= s;
}

__global__ void add_k(const float *a, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += a[i];
}

torch::Tensor forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    const int n = x.numel();
    const size_t bytes = n * sizeof(float);
    const int threads = 64, blocks = (n + threads - 1) / threads;
    float *tin, *tout, *dscale;
    cudaMalloc(&tin, bytes);
    cudaMalloc(&tout, bytes);
    cudaMalloc(&dscale, sizeof(float));
    const float four = 4.0f;
    cudaMemcpy(dscale, &four, sizeof four, cudaMemcpyHostToDevice);
    cudaMemcpy(tin, x.data_ptr<float>(), bytes, cudaMemcpyDeviceToDevice);
    relu_k<<<blocks, threads>>>(tin, tout, n);
    auto y = torch::empty_like(x);
    cudaMemcpy(y.data_ptr<float>(), tout, bytes, cudaMemcpyDeviceToDevice);
    scale_k<<<blocks, threads>>>(y.data_ptr<float>(), dscale, n);
    scale_by_k<<<blocks, threads>>>(y.data_ptr<float>(), 0.5f, n);
    auto out = torch::empty_like(x);
    cudaMemset(out.data_ptr<float>(), 0, bytes);
    add_k<<<blocks, threads>>>(y.data_ptr<float>(), out.data_ptr<float>(), n);
    cudaFree(tin);
    cudaFree(tout);
    cudaFree(dscale);
    return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("forward", &forward, "twice the positive part, through staging buffers");
}
