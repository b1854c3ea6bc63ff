// A small extension without torch's headers, for the builder's tests
// (tests/t/6300-ext-build.sh): a kernel, an internal device variable (its
// PTX name carries the module id), a binding.  SCALE makes variants that
// share the same headers (the test makes them with sed).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <vector>

#ifndef SCALE
#define SCALE 2.0f
#endif

namespace {
__device__ float scale = SCALE;
}

__global__ void twice(float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = scale * i;
}

int launch(long p, int n)
{
    twice<<<(n + 31) / 32, 32>>>(reinterpret_cast<float *>(p), n);
    return (int)cudaGetLastError();
}

std::vector<int> ones(int n) { return std::vector<int>(n, 1); }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("launch", &launch);
    m.def("ones", &ones);
}
