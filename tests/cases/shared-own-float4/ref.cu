#include "../common/quadsum_ref.cu"
