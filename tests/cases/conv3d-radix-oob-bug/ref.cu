#include "../conv3d-radix/ref.cu"
