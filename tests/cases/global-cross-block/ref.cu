#include "../common/revscale_ref.cu"
