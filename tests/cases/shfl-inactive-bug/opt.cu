// Bug: a full-mask shuffle inside a branch that only n < 32 lanes take.
#include "../common/harness.h"

__global__ void warpsum_shfl(const float *in, float *out, int n)
{
	unsigned t = threadIdx.x;
	if (t < (unsigned)n) {
		float v = in[blockIdx.x * n + t];
		for (int off = 16; off > 0; off >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, off);
		if (t == 0)
			out[blockIdx.x] = v;
	}
}

int main()
{
	const int n = 20, blocks = 4;
	float *in = device_random(n * blocks, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	warpsum_shfl<<<blocks, 32>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
