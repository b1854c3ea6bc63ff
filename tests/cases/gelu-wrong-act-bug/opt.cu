// Optimized, wrongly: GELU's tanh replaced by the sigmoid-based SiLU
// x * sigmoid(x) (a different activation).  Buggy.
#include "../common/harness.h"

__global__ void gelu_fast(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = v / (1.0f + expf(-v));
	}
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 31), *y;
	CHECK(cudaMalloc(&y, sizeof(float) * n));
	gelu_fast<<<n / 256, 256>>>(x, y, n);
	CHECK(cudaGetLastError());
	fetch(y, n);
	return 0;
}
