#include "../common/warpsum_ref.cu"
