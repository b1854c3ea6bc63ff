// Buggy twin of atomic-blocksum: the element index is transposed
// (threadIdx.x * blocks + blockIdx.x), so each block sums a strided
// slice of the input instead of its own row.
#include "../common/harness.h"

__global__ void blocksum_atomic(const float *in, float *out, int n)
{
	atomicAdd(&out[blockIdx.x], in[threadIdx.x * gridDim.x + blockIdx.x]);
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
