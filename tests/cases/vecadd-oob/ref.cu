#include "../common/vecadd_ref.cu"
