// Reference: ELU, alpha (e^x - 1) for x <= 0 and x above, as a select.
#include "../common/harness.h"

__global__ void elu(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = v > 0.0f ? v : 1.5f * (expf(v) - 1.0f);
	}
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 51), *y;
	CHECK(cudaMalloc(&y, sizeof(float) * n));
	elu<<<n / 128, 128>>>(x, y, n);
	CHECK(cudaGetLastError());
	fetch(y, n);
	return 0;
}
