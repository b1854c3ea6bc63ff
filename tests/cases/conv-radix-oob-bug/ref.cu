#include "../common/conv_ref.cu"
