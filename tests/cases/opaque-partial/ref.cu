// Reference: the first half of out doubles x, the second half is exp(x).
#include "../common/harness.h"

__global__ void halves(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n / 2)
		out[i] = 2.0f * x[i];
	else if (i < n)
		out[i] = expf(x[i]);
}

int main()
{
	const int n = 256;
	float *x = device_random(n, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	halves<<<n / 128, 128>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
