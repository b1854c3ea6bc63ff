#include "../common/softmax_ref.cu"
