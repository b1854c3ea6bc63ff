// Reference: out = x * w[i % 8] with the weights computed inline.
#include "../common/harness.h"

__global__ void weigh(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = x[i] * (float)(i % 8 + 1) * 0.5f;
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 9), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	weigh<<<n / 128, 128>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
