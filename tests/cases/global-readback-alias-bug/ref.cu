#include "../common/sqadd_ref.cu"
