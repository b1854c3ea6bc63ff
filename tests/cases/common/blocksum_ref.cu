// Reference: out[b] = sum of in[b*n .. b*n+n-1], one thread per block
// (n = 128, 4 blocks); the optimized twins reduce in shared memory.
#include "harness.h"

__global__ void blocksum(const float *in, float *out, int n)
{
	float s = 0.0f;
	for (int i = 0; i < n; i++)
		s += in[blockIdx.x * n + i];
	out[blockIdx.x] = s;
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	blocksum<<<blocks, 1>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
