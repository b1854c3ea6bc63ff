#include "../common/mean_ref.cu"
