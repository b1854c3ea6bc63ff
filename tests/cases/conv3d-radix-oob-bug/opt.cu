// Optimized, as conv3d-radix (level-1 60_conv_standard_3D's kernel: each
// coordinate straight from the flat index).  The bug: the input's rows
// are strided by H + 1, not H, so the last image reads past the end of
// the input: an out-of-bounds read that dexec names with its thread.
#define ROWS (H + 1)
#include "../conv3d-radix/opt.cu"
