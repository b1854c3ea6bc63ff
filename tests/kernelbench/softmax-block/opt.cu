// Softmax with one block of 128 threads per row: strided per-thread
// maxima and sums of exp(x - max), each reduced by a tree in shared
// memory.  With 100 features, threads 100..127 have no element: their
// partial maximum stays -inf, which the max tree absorbs.
#include <torch/extension.h>

#define THREADS 128

__global__ void softmax_rows(const float *__restrict__ x, float *__restrict__ y, int cols)
{
    __shared__ float red[THREADS];
    const float *xr = x + blockIdx.x * cols;
    float *yr = y + blockIdx.x * cols;
    int tid = threadIdx.x;

    float m = -INFINITY;
    for (int i = tid; i < cols; i += THREADS)
        m = fmaxf(m, xr[i]);
    red[tid] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s)
            red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    float rmax = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (int i = tid; i < cols; i += THREADS)
        sum += expf(xr[i] - rmax);
    red[tid] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s)
            red[tid] += red[tid + s];
        __syncthreads();
    }
    float rsum = red[0];

    for (int i = tid; i < cols; i += THREADS)
        yr[i] = expf(xr[i] - rmax) / rsum;
}

torch::Tensor forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda() && x.dim() == 2, "x must be a 2-D CUDA tensor");
    auto y = torch::empty_like(x);
    softmax_rows<<<x.size(0), THREADS>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("forward", &forward, "softmax over rows, block reductions");
}
