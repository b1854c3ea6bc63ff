// The optimized program of ref.py (written for dirigo's tests): the two
// halves of the output are computed by one kernel each, launched on two
// streams from torch's pool, with the stream API an extension uses: the
// current stream and a stream guard, an event that orders the second
// stream after the first, stream synchronize, and a stream of its own made
// with cudaStreamCreate for the second half.  ONE_SHORT (opt-bug.cu) makes
// the second half start one element late: one output element is never
// written.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#ifndef ONE_SHORT
#define ONE_SHORT 0
#endif

__global__ void affine(const float *__restrict__ x, float *__restrict__ y, float scale,
                       int begin, int end)
{
    int i = begin + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < end)
        y[i] = x[i] * scale + 1.0f;
}

static void launch(const torch::Tensor &x, torch::Tensor &y, double scale, int begin, int end,
                   cudaStream_t s)
{
    const int threads = 64, blocks = (end - begin + threads - 1) / threads;
    affine<<<blocks, threads, 0, s>>>(x.data_ptr<float>(), y.data_ptr<float>(), (float)scale,
                                      begin, end);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
}

torch::Tensor forward(torch::Tensor x, double scale)
{
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    x = x.contiguous();
    auto y = torch::empty_like(x);
    const int n = x.numel(), half = n / 2;

    c10::cuda::CUDAStream first = at::cuda::getStreamFromPool();
    c10::cuda::CUDAStream high = at::cuda::getStreamFromPool(true);
    TORCH_CHECK(first != at::cuda::getDefaultCUDAStream(), "a pool stream is not the default one");
    TORCH_CHECK(high.priority() <= first.priority(), "stream priorities");
    {
        at::cuda::CUDAStreamGuard guard(first);
        TORCH_CHECK(at::cuda::getCurrentCUDAStream() == first, "the guard sets the current stream");
        launch(x, y, scale, 0, half, at::cuda::getCurrentCUDAStream(x.device().index()));
    }
    TORCH_CHECK(at::cuda::getCurrentCUDAStream() == at::cuda::getDefaultCUDAStream(),
                "the guard puts the current stream back");
    at::cuda::CUDAEvent done;
    done.record(first);
    cudaStream_t own;
    C10_CUDA_CHECK(cudaStreamCreate(&own));
    c10::cuda::CUDAStream second = c10::cuda::getStreamFromExternal(own, 0);
    TORCH_CHECK(second.stream() == own, "an external stream keeps its handle");
    done.block(second);
    launch(x, y, scale, half + ONE_SHORT, n, second.stream());
    cudaEvent_t joined;
    C10_CUDA_CHECK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    C10_CUDA_CHECK(cudaEventRecord(joined, own));
    C10_CUDA_CHECK(cudaStreamWaitEvent(at::cuda::getCurrentCUDAStream(), joined, 0));
    TORCH_CHECK(second.query(), "the second stream has finished");
    first.synchronize();
    C10_CUDA_CHECK(cudaStreamSynchronize(own));
    C10_CUDA_CHECK(cudaEventDestroy(joined));
    C10_CUDA_CHECK(cudaStreamDestroy(own));
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("forward", &forward, "x * scale + 1 on two streams");
}
