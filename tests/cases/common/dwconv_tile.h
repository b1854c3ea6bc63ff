/*
 * dwconv_tile.h: the sizes of the dwconv-tile pairs, a depthwise 2-D
 * convolution (one filter per channel), 3x3 taps, stride 1, padding 1,
 * (N, C, H, W) -> (N, C, H, W), as level-1 84_conv_depthwise_2D's (whose
 * sizes are larger; N, C, H and W may be given before).
 */
#ifndef DIRIGO_TEST_DWCONV_TILE_H
#define DIRIGO_TEST_DWCONV_TILE_H

#ifndef N
#define N 2
#endif
#ifndef C
#define C 3
#endif
#ifndef H
#define H 40
#endif
#ifndef W
#define W 36
#endif
#define K 3
#define STRIDE 1
#define PAD 1
#define OH ((H + 2 * PAD - K) / STRIDE + 1)
#define OW ((W + 2 * PAD - K) / STRIDE + 1)

#endif
