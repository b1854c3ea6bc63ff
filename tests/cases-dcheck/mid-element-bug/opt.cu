// Bug at one location in 65536, away from every corner: element 40000 is
// computed by another store.  Path-condition coverage asks the solver for
// a thread of that store's domain.
#include "../../cases/common/harness.h"

__global__ void affine(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i == 40000)
		y[i] = 2.0f * x[i] - 1.0f;
	else if (i < n)
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
