// Reference: out[b] = sum of in[b*n .. b*n+n-1], one thread per block
// (n = 20, 4 blocks); the optimized twins sum with warp shuffles.
#include "harness.h"

__global__ void warpsum(const float *in, float *out, int n)
{
	float s = 0.0f;
	for (int i = 0; i < n; i++)
		s += in[blockIdx.x * n + i];
	out[blockIdx.x] = s;
}

int main()
{
	const int n = 20, blocks = 4;
	float *in = device_random(n * blocks, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	warpsum<<<blocks, 1>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
