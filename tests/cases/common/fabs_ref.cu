// Reference: out = |x|, one thread per element.
#include "harness.h"

__global__ void absval(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = fabsf(x[i]);
}

int main()
{
	const int n = 1000;
	float *x = device_random(n, 3), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	absval<<<(n + 255) / 256, 256>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
