#include "../common/rowsum_ref.cu"
