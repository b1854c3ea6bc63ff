#include "../common/rowmax_ref.cu"
