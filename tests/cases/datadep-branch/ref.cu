// Reference: halve each value until it is at most 1 (a data-dependent loop).
#include "../common/harness.h"

__global__ void squash(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		while (v > 1.0f)
			v *= 0.5f;
		out[i] = v;
	}
}

int main()
{
	const int n = 256;
	float *x = device_random(n, 12), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	squash<<<2, 128>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
