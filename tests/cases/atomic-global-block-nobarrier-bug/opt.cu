// Buggy twin of atomic-global-block: without the barrier, another thread
// of the block may add into out[b] before thread 0 zeroes it, and that
// addition is lost: the store and the atomics race.
#include "../common/harness.h"

__global__ void blocksum_zero_atomic(const float *in, float *out, int n)
{
	if (threadIdx.x == 0)
		out[blockIdx.x] = 0.0f;
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
