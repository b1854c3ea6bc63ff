// Reference: two kernels: y = x * s, then out = max(y + bias[i % C], 0).
#include "../common/harness.h"

__global__ void scale(const float *x, float *y, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] * s;
}

__global__ void bias_relu(const float *y, const float *bias, float *out, int n, int channels)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = fmaxf(y[i] + bias[i % channels], 0.0f);
}

int main()
{
	const int n = 2048, channels = 16;
	float *x = device_random(n, 9), *bias = device_random(channels, 10), *y, *out;
	CHECK(cudaMalloc(&y, sizeof(float) * n));
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	scale<<<n / 256, 256>>>(x, y, 0.5f, n);
	bias_relu<<<n / 256, 256>>>(y, bias, out, n, channels);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
