// A small extension that calls cuBLAS, without torch's headers, for the
// builder's tests (tests/t/6300-ext-build.sh): cublasSgemm comes from the
// record-only runtime when traced (dtrace-cuda/shim/blas.c), so a build,
// which runs without it, must not need the name bound at import.
#include <cublas_v2.h>
#include <pybind11/pybind11.h>

int gemm(long a, long b, long c, int n)
{
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return -1;
    const float one = 1.0f, zero = 0.0f;
    int st = (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                              reinterpret_cast<const float *>(b), n,
                              reinterpret_cast<const float *>(a), n, &zero,
                              reinterpret_cast<float *>(c), n);
    cublasDestroy(h);
    return st;
}

int ones() { return 1; }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("gemm", &gemm);
    m.def("ones", &ones);
}
