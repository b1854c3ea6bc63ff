/*
 * convt2d_stride.h: the sizes of the convt2d-stride pairs, a grouped
 * transposed 2-D convolution with strides (2, 3), padding (1, 2) and
 * dilation (2, 1), (N, CI, H, W) -> (N, CO, OH, OW), a kernel of 3x5 taps
 * (as level-1 75_conv_transposed_2D's; N, CI, CO, H and W may be given
 * before, as 5010 does with 75's sizes).
 */
#ifndef DIRIGO_TEST_CONVT2D_STRIDE_H
#define DIRIGO_TEST_CONVT2D_STRIDE_H

#ifndef N
#define N 2
#endif
#ifndef CI
#define CI 4
#endif
#ifndef CO
#define CO 8
#endif
#define GROUPS 2
#define CIG (CI / GROUPS)
#define COG (CO / GROUPS)
#ifndef H
#define H 6
#endif
#ifndef W
#define W 8
#endif
#define KH 3
#define KW 5
#define SH 2
#define SW 3
#define PH 1
#define PW 2
#define DH 2
#define DW 1
#define OH ((H - 1) * SH - 2 * PH + DH * (KH - 1) + 1)
#define OW ((W - 1) * SW - 2 * PW + DW * (KW - 1) + 1)

#endif
