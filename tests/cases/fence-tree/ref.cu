#include "../common/blocksum_ref.cu"
