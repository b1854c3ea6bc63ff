// Buggy twin of atomic-shared-bins: the second pass zeroes the bins
// instead of storing back what the first pass read, so out holds one bin
// sum, not two.  Every mix of plain stores and atomics is still ordered.
#include "../common/harness.h"

__global__ void binsum_shared_atomic(const float *in, float *out, int n)
{
	__shared__ float bins[8];
	unsigned t = threadIdx.x;
	float v = in[blockIdx.x * n + t];
	if (t < 8)
		bins[t] = 0.0f;
	__syncthreads();
	atomicAdd(&bins[t % 8], v);
	__syncthreads();
	float first = t < 8 ? bins[t] : 0.0f;
	__syncthreads();
	if (t < 8)
		bins[t] = 0.0f * first;
	__syncthreads();
	atomicAdd(&bins[t % 8], v);
	__syncthreads();
	if (t < 8)
		out[blockIdx.x * 8 + t] = bins[t];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * 8 * blocks));
	binsum_shared_atomic<<<blocks, n>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, 8 * blocks);
	return 0;
}
