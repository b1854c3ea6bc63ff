#include "../convt2d-stride/ref.cu"
