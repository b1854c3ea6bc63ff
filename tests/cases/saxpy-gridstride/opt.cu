// Optimized: a fixed grid of 4 blocks walks the array with a grid-stride loop.
#include "../common/harness.h"

__global__ void saxpy_gs(float a, const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		out[i] = fmaf(a, x[i], y[i]);
}

int main()
{
	const int n = 3000;
	float *x = device_random(n, 3), *y = device_random(n, 4), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	saxpy_gs<<<4, 128>>>(2.5f, x, y, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
