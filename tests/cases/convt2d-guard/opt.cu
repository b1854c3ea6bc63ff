// Optimized, as level-1 65_conv_transposed_2D's kernel: one thread per
// output element of a flat grid of 256-thread blocks, its (n, co, oh, ow)
// unravelled from the index by "%=" and "/=" by the sizes (kernel
// arguments), the group of co by a division by the channels per group,
// each tap's input (oh - kh, ow - kw) guarded by the input's bounds.
// Equal.  The guarded reads are in bounds only with the guard's rows; at
// 65's sizes a projection over every quotient variable of the index
// outgrew the affine prover's rows and the solver gave up (the launch was
// unsupported): tests/unit/test-exec-quick.c (test_transposed) holds that
// form.  Here, small, the pair checks the guarded form end to end.
#include "../common/harness.h"
#include "../common/convt2d_guard.h"
#ifndef ROW_PAST
#define ROW_PAST(ih, h) ((ih) >= (h))
#endif

__global__ void convt2d_flat(const float *in, const float *wt, const float *bias, float *out,
                             int n_, int ci_, int h_, int w_, int co_, int kh_, int kw_, int groups,
                             int oh_, int ow_)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	if (idx >= n_ * co_ * oh_ * ow_)
		return;
	int n = idx;
	int ow = n % ow_;
	n /= ow_;
	int oh = n % oh_;
	n /= oh_;
	int co = n % co_;
	n /= co_;
	int co_per_group = co_ / groups, ci_per_group = ci_ / groups;
	int g = co / co_per_group, cog = co % co_per_group;
	float s = bias[co];
	for (int kh = 0; kh < kh_; kh++) {
		int ih = oh - kh;
		if (ih < 0 || ROW_PAST(ih, h_))
			continue;
		for (int kw = 0; kw < kw_; kw++) {
			int iw = ow - kw;
			if (iw < 0 || iw >= w_)
				continue;
			for (int c = 0; c < ci_per_group; c++) {
				int ci = g * ci_per_group + c;
				s += in[((n * ci_ + ci) * h_ + ih) * w_ + iw] *
				     wt[(ci * co_per_group + cog) * kh_ * kw_ + kh * kw_ + kw];
			}
		}
	}
	out[idx] = s;
}

int main()
{
	float *in = device_random(N * CI * H * W, 61), *wt = device_random(CI * CO * KH * KW, 62);
	float *bias = device_random(CO, 63), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N * CO * OH * OW));
	int total = N * CO * OH * OW;
	convt2d_flat<<<(total + 255) / 256, 256>>>(in, wt, bias, out, N, CI, H, W, CO, KH, KW, 1, OH, OW);
	CHECK(cudaGetLastError());
	fetch(out, N * CO * OH * OW);
	return 0;
}
