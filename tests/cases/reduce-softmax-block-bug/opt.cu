// The buggy twin of reduce-softmax-block: the sum tree starts at a quarter
// of the block, so the partial sums of threads 64..127 are never added.
// Softmax over rows with one block of 128 threads per row: strided
// per-thread maxima and sums, each reduced by a tree in shared memory.
// With 100 columns, threads 100..127 have no element: their partial
// maximum stays -inf, which the max tree absorbs.
#include "../common/harness.h"

#define THREADS 128

__global__ void softmax_rows(const float *x, float *y, int cols)
{
	__shared__ float red[THREADS];
	const float *xr = x + blockIdx.x * cols;
	float *yr = y + blockIdx.x * cols;
	int tid = threadIdx.x;
	float m = -INFINITY;
	for (int i = tid; i < cols; i += THREADS)
		m = fmaxf(m, xr[i]);
	red[tid] = m;
	__syncthreads();
	for (int s = THREADS / 2; s > 0; s >>= 1) {
		if (tid < s)
			red[tid] = fmaxf(red[tid], red[tid + s]);
		__syncthreads();
	}
	float rmax = red[0];
	__syncthreads();
	float sum = 0.0f;
	for (int i = tid; i < cols; i += THREADS)
		sum += expf(xr[i] - rmax);
	red[tid] = sum;
	__syncthreads();
	for (int s = THREADS / 4; s > 0; s >>= 1) {
		if (tid < s)
			red[tid] += red[tid + s];
		__syncthreads();
	}
	float rsum = red[0];
	for (int i = tid; i < cols; i += THREADS)
		yr[i] = expf(xr[i] - rmax) / rsum;
}

int main()
{
	const int rows = 4, cols = 100;
	float *x = device_random(rows * cols, 9), *y;
	CHECK(cudaMalloc(&y, sizeof(float) * rows * cols));
	softmax_rows<<<rows, THREADS>>>(x, y, cols);
	CHECK(cudaGetLastError());
	fetch(y, rows * cols);
	return 0;
}
