// Reference: softplus log(1 + e^x) with log1pf and expf.
#include "../common/harness.h"

__global__ void softplus(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = log1pf(expf(x[i]));
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 41), *y;
	CHECK(cudaMalloc(&y, sizeof(float) * n));
	softplus<<<n / 128, 128>>>(x, y, n);
	CHECK(cudaGetLastError());
	fetch(y, n);
	return 0;
}
