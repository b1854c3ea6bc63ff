#include "../common/biasadd_ref.cu"
