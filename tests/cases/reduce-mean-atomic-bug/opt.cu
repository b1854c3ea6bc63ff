// The buggy twin of reduce-mean-atomic: each partial sum is divided by the
// number of threads launched (1024) instead of n (1000).
// The mean of n = 1000 floats with 4 blocks of 256 threads: each block
// reduces its elements in shared memory, then thread 0 adds the block's
// sum divided by n to the zeroed output (atomicAdd).
#include "../common/harness.h"

#define THREADS 256

__global__ void mean_blocks(const float *x, float *out, int n)
{
	__shared__ float part[THREADS];
	int tid = threadIdx.x, i = blockIdx.x * THREADS + tid;
	part[tid] = i < n ? x[i] : 0.0f;
	__syncthreads();
	for (int s = THREADS / 2; s > 0; s >>= 1) {
		if (tid < s)
			part[tid] += part[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		atomicAdd(out, part[0] / (float)(blockDim.x * gridDim.x));
}

int main()
{
	const int n = 1000;
	float *x = device_random(n, 21), *out;
	CHECK(cudaMalloc(&out, sizeof(float)));
	CHECK(cudaMemset(out, 0, sizeof(float)));
	mean_blocks<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, 1);
	return 0;
}
