// Reference: sigmoid with expf, then a scale, in two kernels.
#include "../common/harness.h"

__global__ void sigmoid(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 1.0f / (1.0f + expf(-x[i]));
}

__global__ void scale(const float *y, float *out, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = y[i] * s;
}

int main()
{
	const int n = 1024;
	float *x = device_random(n, 21), *y, *out;
	CHECK(cudaMalloc(&y, sizeof(float) * n));
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	sigmoid<<<n / 256, 256>>>(x, y, n);
	scale<<<n / 256, 256>>>(y, out, 3.0f, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
