// Reference: each thread writes its lane and warp index with the literal 32.
#include "../common/harness.h"

__global__ void lanes(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = x[i] * (float)(threadIdx.x % 32) + (float)(threadIdx.x / 32);
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 8), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	lanes<<<n / 256, 256>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
