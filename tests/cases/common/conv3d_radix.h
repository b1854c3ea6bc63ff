/*
 * conv3d_radix.h: the sizes of the conv3d-radix pairs, a valid 3-D
 * convolution (N, CI, D, H, W) -> (N, CO, OD, OH, OW) with a kernel of
 * 3x5x7 taps.  Small by default; tests/t/5010 defines CO, D, H and W
 * first to run the pair at level-1 60_conv_standard_3D's sizes.
 */
#ifndef DIRIGO_TEST_CONV3D_RADIX_H
#define DIRIGO_TEST_CONV3D_RADIX_H

#define N 2
#define CI 1
#ifndef CO
#define CO 8
#define D 12
#define H 12
#define W 12
#endif
#define KD 3
#define KH 5
#define KW 7
#define OD (D - KD + 1)
#define OH (H - KH + 1)
#define OW (W - KW + 1)

#endif
