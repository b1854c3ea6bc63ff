#include "../opaque-partial/ref.cu"
