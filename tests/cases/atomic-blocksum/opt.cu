// out[b] = sum of in[b*n .. b*n+n-1]: every thread of block b adds its
// element with atomicAdd into the zeroed accumulator out[b].
#include "../common/harness.h"

__global__ void blocksum_atomic(const float *in, float *out, int n)
{
	atomicAdd(&out[blockIdx.x], in[blockIdx.x * n + threadIdx.x]);
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	CHECK(cudaMemset(out, 0, sizeof(float) * blocks));
	blocksum_atomic<<<blocks, n>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
