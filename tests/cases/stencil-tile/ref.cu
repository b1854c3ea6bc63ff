#include "../common/stencil_ref.cu"
