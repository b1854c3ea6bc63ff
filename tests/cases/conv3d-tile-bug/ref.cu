#include "../common/conv3d_ref.cu"
