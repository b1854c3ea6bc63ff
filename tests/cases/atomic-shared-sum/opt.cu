// out[b] = sum of in[b*n .. b*n+n-1]: the threads of block b add into a
// shared accumulator that thread 0 zeroed before a barrier, and thread 0
// stores it after the next one.
#include "../common/harness.h"

__global__ void blocksum_shared_atomic(const float *in, float *out, int n)
{
	__shared__ float acc;
	if (threadIdx.x == 0)
		acc = 0.0f;
	__syncthreads();
	atomicAdd(&acc, in[blockIdx.x * n + threadIdx.x]);
	__syncthreads();
	if (threadIdx.x == 0)
		out[blockIdx.x] = acc;
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	blocksum_shared_atomic<<<blocks, n>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
