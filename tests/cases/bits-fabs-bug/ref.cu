#include "../common/fabs_ref.cu"
