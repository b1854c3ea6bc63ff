#include "../common/concatlin_ref.cu"
