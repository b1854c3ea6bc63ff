// Reference of the heuristic pairs: y = 2x + 1 over 65536 elements, 256
// blocks of 256 threads.
#include "../cases/common/harness.h"

__global__ void affine(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i] + 1.0f;
}

int main()
{
	const int n = 65536;
	float *x = device_random(n, 7), *y;
	CHECK(cudaMalloc(&y, sizeof(float) * n));
	affine<<<n / 256, 256>>>(x, y, n);
	CHECK(cudaGetLastError());
	fetch(y, n);
	return 0;
}
