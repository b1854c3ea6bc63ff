// Bug at one location in 65536: the last thread of the last block adds
// 0.5 too much.  The heuristic order checks that corner among the first
// locations; the sequential order reaches it last.
#include "../../cases/common/harness.h"

__global__ void affine(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = 2.0f * x[i] + 1.0f;
		if (blockIdx.x == gridDim.x - 1 && threadIdx.x == blockDim.x - 1)
			v += 0.5f;
		y[i] = v;
	}
}

int main()
{
	const int n = 65536;
	float *x = device_random(n, 7), *y;
	CHECK(cudaMalloc(&y, sizeof(float) * n));
	affine<<<n / 256, 256>>>(x, y, n);
	CHECK(cudaGetLastError());
	fetch(y, n);
	return 0;
}
