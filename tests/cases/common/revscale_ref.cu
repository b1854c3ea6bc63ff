// Reference: out[i] = 2 * in[REV(i)], where REV reverses the order of the
// blocks (4 blocks of 128 threads) and keeps the thread: block b takes the
// elements of block gridDim.x - 1 - b.
#include "harness.h"

__global__ void revscale(const float *in, float *out)
{
	unsigned t = threadIdx.x, b = blockIdx.x, nb = gridDim.x - 1 - b;
	out[b * blockDim.x + t] = 2.0f * in[nb * blockDim.x + t];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n * blocks));
	revscale<<<blocks, n>>>(in, out);
	CHECK(cudaGetLastError());
	fetch(out, n * blocks);
	return 0;
}
