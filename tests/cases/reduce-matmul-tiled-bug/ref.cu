#include "../common/matmul_ref.cu"
