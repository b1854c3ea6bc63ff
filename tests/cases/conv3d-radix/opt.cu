// Optimized, as level-1 60_conv_standard_3D's kernel: one thread per
// output element of a flat grid of 256-thread blocks, each coordinate of
// (n, co, od, oh, ow) taken straight from the flat index by a size
// (kernel arguments): index % OW, index / OW % OH, index / (OW*OH) % OD,
// n = index / (OW*OH*OD*CO), co = index / (OW*OH*OD) - n*CO.  Equal.
// The input offset is bounded by the affine prover only once each
// remainder x - d*(x/d) is seen as the remainder variable in [0, d-1] (a
// sum of digits); before, its elimination over five quotient variables
// outgrew its rows and the bounds went to the solver, which gave up at
// the real program's sizes (5010): the launch was unsupported.
#include "../common/harness.h"

#include "../common/conv3d_radix.h"
#ifndef ROWS
#define ROWS H
#endif

__global__ void conv3d_radix(const float *in, const float *wt, const float *bias, float *out,
                             int n_, int co_, int od_, int oh_, int ow_)
{
	int index = blockIdx.x * blockDim.x + threadIdx.x;
	if (index >= n_ * co_ * od_ * oh_ * ow_)
		return;
	int ow = index % ow_;
	int oh = (index / ow_) % oh_;
	int od = (index / (ow_ * oh_)) % od_;
	int n = index / (ow_ * oh_ * od_ * co_);
	int co = index / (ow_ * oh_ * od_) - n * co_;
	float s = bias[co];
	for (int ci = 0; ci < CI; ci++)
		for (int kd = 0; kd < KD; kd++)
			for (int kh = 0; kh < KH; kh++)
				for (int kw = 0; kw < KW; kw++)
					s += in[(((n * CI + ci) * D + od + kd) * ROWS + oh + kh) * W + ow + kw] *
					     wt[(((co * CI + ci) * KD + kd) * KH + kh) * KW + kw];
	out[index] = s;
}

int main()
{
	float *in = device_random(N * CI * D * H * W, 51), *wt = device_random(CO * CI * KD * KH * KW, 52);
	float *bias = device_random(CO, 53), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N * CO * OD * OH * OW));
	int total = N * CO * OD * OH * OW;
	conv3d_radix<<<(total + 255) / 256, 256>>>(in, wt, bias, out, N, CO, OD, OH, OW);
	CHECK(cudaGetLastError());
	fetch(out, N * CO * OD * OH * OW);
	return 0;
}
