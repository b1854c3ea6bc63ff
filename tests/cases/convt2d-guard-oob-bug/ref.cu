#include "../convt2d-guard/ref.cu"
