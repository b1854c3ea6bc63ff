#include "../common/norm_ref.cu"
