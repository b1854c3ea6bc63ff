#include "../common/revcopy_ref.cu"
