// Reference: out = a * x + y, one thread per element.
#include "harness.h"

__global__ void saxpy(float a, const float *x, const float *y, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = a * x[i] + y[i];
}

int main()
{
	const int n = 3000;
	float *x = device_random(n, 3), *y = device_random(n, 4), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	saxpy<<<(n + 127) / 128, 128>>>(2.5f, x, y, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
