#include "../softplus-threshold/ref.cu"
