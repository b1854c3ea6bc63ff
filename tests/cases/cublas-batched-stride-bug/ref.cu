#include "../cublas-batched/ref.cu"
