#include "../common/revthreads_ref.cu"
