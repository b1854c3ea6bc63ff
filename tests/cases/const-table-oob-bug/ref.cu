#include "../const-table/ref.cu"
