// out[b] = sum of in[b*n .. b*n+n-1] into a buffer nobody zeroed: thread 0
// of block b zeroes out[b], a barrier orders that store before the
// atomicAdd of every thread of the block (only block b touches out[b]).
#include "../common/harness.h"

__global__ void blocksum_zero_atomic(const float *in, float *out, int n)
{
	if (threadIdx.x == 0)
		out[blockIdx.x] = 0.0f;
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
