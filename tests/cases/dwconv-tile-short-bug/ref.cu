#include "../dwconv-tile/ref.cu"
