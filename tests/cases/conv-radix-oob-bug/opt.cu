// Optimized, as level-1 56_conv_standard_2D's kernel: one thread per
// output element of a flat grid, its (n, co, h, w) found by division and
// remainder by the sizes (kernel arguments), the input channels in chunks
// of 4, the taps guarded by the padding.  The bug: the guard lets the
// last row through (y <= h_), so the last image reads one row past the
// end of the input: an out-of-bounds read, found without the solver.
#include "../common/harness.h"

#define N 2
#define CI 8
#define CO 16
#define H 24
#define W 24
#define K 3

__global__ void conv_flat(const float *in, const float *wt, const float *bias, float *out,
                          int n_, int ci_, int co_, int h_, int w_)
{
	int index = blockIdx.x * blockDim.x + threadIdx.x;
	if (index >= n_ * co_ * h_ * w_)
		return;
	int w = index % w_;
	int t = index / w_;
	int h = t % h_;
	t /= h_;
	int co = t % co_;
	int n = t / co_;
	float s = bias[co];
	for (int ci = 0; ci < ci_; ci += 4)
#pragma unroll
		for (int kh = 0; kh < K; kh++)
#pragma unroll
			for (int kw = 0; kw < K; kw++) {
				int y = h - 1 + kh, x = w - 1 + kw;
				if (y >= 0 && y <= h_ && x >= 0 && x < w_) {
					int ib = ((n * ci_ + ci) * h_ + y) * w_ + x;
					int wb = ((co * ci_ + ci) * K + kh) * K + kw;
#pragma unroll
					for (int j = 0; j < 4; j++)
						s += in[ib + j * h_ * w_] * wt[wb + j * K * K];
				}
			}
	out[index] = s;
}

int main()
{
	float *in = device_random(N * CI * H * W, 31), *wt = device_random(CO * CI * K * K, 32);
	float *bias = device_random(CO, 33), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N * CO * H * W));
	int total = N * CO * H * W;
	conv_flat<<<(total + 255) / 256, 256>>>(in, wt, bias, out, N, CI, CO, H, W);
	CHECK(cudaGetLastError());
	fetch(out, N * CO * H * W);
	return 0;
}
