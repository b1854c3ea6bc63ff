// Bug: atomicMin on the keys where the reference takes the maximum.
#include <cfloat>
#include "../common/harness.h"

__device__ __forceinline__ int fkey(float f)
{
	int i = __float_as_int(f);
	return i >= 0 ? i : i ^ 0x7fffffff;
}

__device__ __forceinline__ float funkey(int i)
{
	return __int_as_float(i >= 0 ? i : i ^ 0x7fffffff);
}

__global__ void init(int *m, int rows)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < rows)
		m[r] = fkey(FLT_MAX);
}

__global__ void keymax(const float *x, int *m, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols)
		atomicMin(&m[i / cols], fkey(x[i]));
}

__global__ void decode(const int *m, float *out, int rows)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < rows)
		out[r] = funkey(m[r]);
}

int main()
{
	const int rows = 64, cols = 8;
	float *x = device_random(rows * cols, 6), *out;
	int *m;
	CHECK(cudaMalloc(&m, sizeof(int) * rows));
	CHECK(cudaMalloc(&out, sizeof(float) * rows));
	init<<<1, rows>>>(m, rows);
	keymax<<<rows * cols / 128, 128>>>(x, m, rows, cols);
	decode<<<1, rows>>>(m, out, rows);
	CHECK(cudaGetLastError());
	fetch(out, rows);
	return 0;
}
