// Optimized, as level-1 75_conv_transposed_2D's kernel: blocks of 32
// output channels by 8 flattened output positions, the bias of the tile
// in shared memory, and only the taps that land on a whole input row
// visited: the first found by a search over the stride's residues, the
// next a stride / gcd(stride, dilation) later, up to min(kernel_h,
// (oh + pad) / dilation + 1), so that (oh + pad - kh * dilation) / stride
// is never negative.  Equal.  Seeing that the input row is within the
// input takes the min and a signed division of a value that is negative
// for other threads; without them each tap's bounds went to the solver,
// which gave up at 75's sizes (the launch was unsupported).
// tests/unit/test-exec-quick.c (test_trunc_min) holds that form.
#include "../common/harness.h"
#include "../common/convt2d_stride.h"

#define TILE_OC 32
#define TILE_SP 8

__device__ int imin(int a, int b) { return a < b ? a : b; }

#ifndef KH_END
#define KH_END(kh_, bound) imin(kh_, bound)
#endif

__device__ int gcd(int a, int b)
{
	while (b != 0) {
		int t = b;
		b = a % b;
		a = t;
	}
	return a;
}

__global__ void convt2d_tiled(const float *x, const float *wt, const float *bias, float *out, int ci_,
                              int h_, int w_, int co_, int oh_, int ow_, int kh_, int kw_, int sh, int sw,
                              int ph, int pw, int dh, int dw, int groups)
{
	int oc = blockIdx.x * TILE_OC + threadIdx.x;
	int sp = blockIdx.y * TILE_SP + threadIdx.y;
	int n = blockIdx.z;
	if (oc >= co_ || sp >= oh_ * ow_)
		return;
	int oh = sp / ow_, ow = sp % ow_;
	__shared__ float s_bias[TILE_OC];
	if (threadIdx.y == 0)
		s_bias[threadIdx.x] = bias[oc];
	__syncthreads();
	float acc = s_bias[threadIdx.x];
	int ch = oh + ph, cw = ow + pw;
	int okh = -1, okw = -1;
	for (int k = 0; k < sh; k++)
		if ((k * dh) % sh == ch % sh) {
			okh = k;
			break;
		}
	for (int k = 0; k < sw; k++)
		if ((k * dw) % sw == cw % sw) {
			okw = k;
			break;
		}
	int skh = sh / gcd(sh, dh), skw = sw / gcd(sw, dw);
	int kh_end = KH_END(kh_, ch / dh + 1), kw_end = imin(kw_, cw / dw + 1);
	int cog = co_ / groups, cig = ci_ / groups, g = oc / cog;
	for (int kh = okh; kh >= 0 && kh < kh_end; kh += skh) {
		int ih = (ch - kh * dh) / sh;
		if (ih < 0 || ih >= h_)
			continue;
		for (int kw = okw; kw >= 0 && kw < kw_end; kw += skw) {
			int iw = (cw - kw * dw) / sw;
			if (iw < 0 || iw >= w_)
				continue;
			for (int c = g * cig; c < (g + 1) * cig; c++)
				acc += x[((n * ci_ + c) * h_ + ih) * w_ + iw] *
				       wt[((c * cog + oc - g * cog) * kh_ + kh) * kw_ + kw];
		}
	}
	out[((n * co_ + oc) * oh_ + oh) * ow_ + ow] = acc;
}

int main()
{
	float *x = device_random(N * CI * H * W, 81), *wt = device_random(CI * COG * KH * KW, 82);
	float *bias = device_random(CO, 83), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N * CO * OH * OW));
	dim3 grid((CO + TILE_OC - 1) / TILE_OC, (OH * OW + TILE_SP - 1) / TILE_SP, N);
	convt2d_tiled<<<grid, dim3(TILE_OC, TILE_SP)>>>(x, wt, bias, out, CI, H, W, CO, OH, OW, KH, KW, SH, SW,
	                                                 PH, PW, DH, DW, GROUPS);
	CHECK(cudaGetLastError());
	fetch(out, N * CO * OH * OW);
	return 0;
}
