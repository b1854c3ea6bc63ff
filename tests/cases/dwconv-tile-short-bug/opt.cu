// Optimized, as dwconv-tile (level-1 84_conv_depthwise_2D's kernel).
// The bug: the patch is loaded one row short ((TILE - 1) * stride + k - 1
// rows), so the outputs of a tile's last row read a patch row that no
// thread of the block wrote.
#define PATCH_ROWS(k, stride) ((TILE - 1) * (stride) + (k) - 1)
#include "../dwconv-tile/opt.cu"
