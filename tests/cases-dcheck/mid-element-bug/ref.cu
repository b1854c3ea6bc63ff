#include "../common-ref.cu"
