#include "../common/matmul_triu_ref.cu"
