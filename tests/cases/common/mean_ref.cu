// Reference: the mean of n = 1000 floats, by one thread.
#include "harness.h"

__global__ void mean(const float *x, float *out, int n)
{
	float s = 0.0f;
	for (int i = 0; i < n; i++)
		s += x[i];
	out[0] = s / (float)n;
}

int main()
{
	const int n = 1000;
	float *x = device_random(n, 21), *out;
	CHECK(cudaMalloc(&out, sizeof(float)));
	mean<<<1, 1>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, 1);
	return 0;
}
