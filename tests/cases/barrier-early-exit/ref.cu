// Reference: out[i] = 2 x[i] + x[i ^ 1], read straight from global memory.
#include "../common/harness.h"

__global__ void pairmix(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 2.0f * x[i] + x[i ^ 1];
}

int main()
{
	const int n = 1000;
	float *x = device_random(n, 21), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	pairmix<<<(n + 127) / 128, 128>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
