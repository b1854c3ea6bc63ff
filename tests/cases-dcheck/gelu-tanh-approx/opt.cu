// Optimized: GELU by its tanh approximation.  Equal to the reference under
// the gelu-tanh axiom (on by default); with --axioms none and a tolerance
// tighter than the approximation's error (about 2e-4), buggy.
#include "../../cases/common/harness.h"

__global__ void gelu_tanh(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
	}
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 31), *y;
	CHECK(cudaMalloc(&y, sizeof(float) * n));
	gelu_tanh<<<n / 256, 256>>>(x, y, n);
	CHECK(cudaGetLastError());
	fetch(y, n);
	return 0;
}
