// Reference: out[r] = 3 a[r] for 64 rows of 32, each row by one block.
#include "../common/harness.h"

__global__ void triple(const float *a, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 3.0f * a[i];
}

int main()
{
	const int rows = 64, cols = 32, n = rows * cols;
	float *a = device_random(n, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	triple<<<rows, cols>>>(a, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
