// opt.cu with its bug: the second half starts one element late.
#define ONE_SHORT 1
#include "opt.cu"
