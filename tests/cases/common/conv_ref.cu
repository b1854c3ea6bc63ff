// Reference for the conv-radix pairs: a 3x3 convolution with padding 1
// (N, CI, H, W) -> (N, CO, H, W) plus a bias, one block per (image,
// output channel), one thread per output pixel.
#include "harness.h"

#define N 2
#define CI 8
#define CO 16
#define H 24
#define W 24
#define K 3

__global__ void conv_ref(const float *in, const float *wt, const float *bias, float *out)
{
	int n = blockIdx.x / CO, co = blockIdx.x % CO;
	int h = threadIdx.x / W, w = threadIdx.x % W;
	float s = bias[co];
	for (int ci = 0; ci < CI; ci++)
		for (int kh = 0; kh < K; kh++)
			for (int kw = 0; kw < K; kw++) {
				int y = h - 1 + kh, x = w - 1 + kw;
				if (y >= 0 && y < H && x >= 0 && x < W)
					s += in[((n * CI + ci) * H + y) * W + x] * wt[((co * CI + ci) * K + kh) * K + kw];
			}
	out[((n * CO + co) * H + h) * W + w] = s;
}

int main()
{
	float *in = device_random(N * CI * H * W, 31), *wt = device_random(CO * CI * K * K, 32);
	float *bias = device_random(CO, 33), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N * CO * H * W));
	conv_ref<<<N * CO, H * W>>>(in, wt, bias, out);
	CHECK(cudaGetLastError());
	fetch(out, N * CO * H * W);
	return 0;
}
