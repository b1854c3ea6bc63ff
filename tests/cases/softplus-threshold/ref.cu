// Reference for the softplus-threshold pairs: softplus as torch computes
// it, x itself above the threshold 20, else log(1 + e^x).
#include "../common/harness.h"

__global__ void softplus(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 20.0f ? x[i] : log1pf(expf(x[i]));
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 43), *y;
	CHECK(cudaMalloc(&y, sizeof(float) * n));
	softplus<<<n / 128, 128>>>(x, y, n);
	CHECK(cudaGetLastError());
	fetch(y, n);
	return 0;
}
