// Reference: leaky ReLU with slope 0.01.
#include "../common/harness.h"

__global__ void leaky(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = x[i] > 0.0f ? x[i] : 0.01f * x[i];
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 11), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	leaky<<<n / 128, 128>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
