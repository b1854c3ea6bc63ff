#include "../cublas-gemm/ref.cu"
