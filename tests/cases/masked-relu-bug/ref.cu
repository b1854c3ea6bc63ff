#include "../common/masked_relu_ref.cu"
