// Buggy twin of atomic-global-block: thread 0 starts the accumulator at
// the row's first element instead of zero, and then adds that element
// again with the others: out[b] counts in[b*n] twice.
#include "../common/harness.h"

__global__ void blocksum_zero_atomic(const float *in, float *out, int n)
{
	if (threadIdx.x == 0)
		out[blockIdx.x] = in[blockIdx.x * n];
	__syncthreads();
	atomicAdd(&out[blockIdx.x], in[blockIdx.x * n + threadIdx.x]);
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	blocksum_zero_atomic<<<blocks, n>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
