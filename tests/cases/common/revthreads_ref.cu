// Reference: out[i] = 2 * in[REV(i)], where REV reverses the threads of
// each block (4 blocks of 128 threads): thread t of block b takes element
// blockDim.x - 1 - t of the block.
#include "harness.h"

__global__ void revthreads(const float *in, float *out)
{
	unsigned t = threadIdx.x, b = blockIdx.x;
	out[b * blockDim.x + t] = 2.0f * in[b * blockDim.x + blockDim.x - 1 - t];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 9), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n * blocks));
	revthreads<<<blocks, n>>>(in, out);
	CHECK(cudaGetLastError());
	fetch(out, n * blocks);
	return 0;
}
