#include "../common/saxpy_ref.cu"
