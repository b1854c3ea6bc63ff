// Fixed twin of vecadd-oob-bug: the bound is i < n.
#include "../common/harness.h"

__global__ void vecadd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

int main()
{
	const int n = 1000;
	float *a = device_random(n, 1), *b = device_random(n, 2), *c;
	CHECK(cudaMalloc(&c, sizeof(float) * n));
	vecadd<<<(n + 255) / 256, 256>>>(a, b, c, n);
	CHECK(cudaGetLastError());
	fetch(c, n);
	return 0;
}
