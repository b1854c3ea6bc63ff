// Bug: a block of 20 threads (not a multiple of 32) shuffles: lanes 0..19
// read lanes up to 35, beyond the block, which gives undefined values.
#include "../common/harness.h"

__global__ void warpsum_shfl(const float *in, float *out, int n)
{
	unsigned t = threadIdx.x;
	float v = in[blockIdx.x * n + t];
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xfffffu, v, off);
	if (t == 0)
		out[blockIdx.x] = v;
}

int main()
{
	const int n = 20, blocks = 4;
	float *in = device_random(n * blocks, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	warpsum_shfl<<<blocks, 20>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
