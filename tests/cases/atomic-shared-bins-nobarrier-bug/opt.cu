// Buggy twin of atomic-shared-bins: no barrier between zeroing the bins
// and the atomic adds, so a thread of another warp may add into a bin
// before thread t < 8 has zeroed it (and its addition is lost): the plain
// store and the atomics of one bin race in one barrier epoch.
#include "../common/harness.h"

__global__ void binsum_shared_atomic(const float *in, float *out, int n)
{
	__shared__ float bins[8];
	unsigned t = threadIdx.x;
	float v = in[blockIdx.x * n + t];
	if (t < 8)
		bins[t] = 0.0f;
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
