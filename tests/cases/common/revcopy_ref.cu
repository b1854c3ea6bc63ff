// Reference: out[i] = in[REV(i)], where REV reverses the threads of each
// block (4 blocks of 128 threads).
#include "harness.h"

__global__ void revcopy(const float *in, float *out)
{
	unsigned t = threadIdx.x, b = blockIdx.x;
	out[b * blockDim.x + t] = in[b * blockDim.x + blockDim.x - 1 - t];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 9), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n * blocks));
	revcopy<<<blocks, n>>>(in, out);
	CHECK(cudaGetLastError());
	fetch(out, n * blocks);
	return 0;
}
