// Optimized, as convt2d-stride (level-1 75_conv_transposed_2D's kernel).
// The bug: the row taps run to min(kernel_h + 1, ...), one past the
// kernel, so a thread whose first tap is row 0 also takes row 3 of a
// 3-row kernel: the next output channel's first weights, and for the
// last channel a read past the end of the weights, which dexec names.
#define KH_END(kh_, bound) imin((kh_) + 1, bound)
#include "../convt2d-stride/opt.cu"
