// Reference: the exact GELU, x/2 (1 + erf(x / sqrt 2)), one element a
// thread.
#include "../common/harness.h"

__global__ void gelu(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
	}
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 71), *y;
	CHECK(cudaMalloc(&y, sizeof(float) * n));
	gelu<<<n / 128, 128>>>(x, y, n);
	CHECK(cudaGetLastError());
	fetch(y, n);
	return 0;
}
