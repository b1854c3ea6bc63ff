/*
 * convt2d_guard.h: the sizes of the convt2d-guard pairs, a transposed 2-D
 * convolution with stride 1 and no padding, (N, CI, H, W) -> (N, CO,
 * H+KH-1, W+KW-1), a kernel of 3x5 taps (as level-1
 * 65_conv_transposed_2D's, whose sizes are larger).
 */
#ifndef DIRIGO_TEST_CONVT2D_GUARD_H
#define DIRIGO_TEST_CONVT2D_GUARD_H

#define N 2
#define CI 4
#define CO 8
#define H 10
#define W 12
#define KH 3
#define KW 5
#define OH (H + KH - 1)
#define OW (W + KW - 1)

#endif
