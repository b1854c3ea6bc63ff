// out[b*8 + k] = twice the bin sum of row b, in two passes over one
// shared array: zero the bins, barrier, every thread adds its element
// into bin t % 8 atomically, barrier, read the bins; then store what was
// read back into the bins (a plain store after the atomics), barrier, add
// the row in again, barrier, read.  Each mix of plain stores and atomics
// on a bin is ordered by a barrier.
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
		bins[t] = first;
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
