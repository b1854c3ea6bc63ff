// Reference: out[r][c] = a[r][c] + bias[c] for a rows x cols matrix (the
// bias broadcast over rows), one block per row.
#include "harness.h"

__global__ void biasadd(const float *a, const float *bias, float *out, int cols)
{
	int r = blockIdx.x, c = threadIdx.x;
	out[r * cols + c] = a[r * cols + c] + bias[c];
}

int main()
{
	const int rows = 8, cols = 64;
	float *a = device_random(rows * cols, 11), *bias = device_random(cols, 12), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * rows * cols));
	biasadd<<<rows, cols>>>(a, bias, out, cols);
	CHECK(cudaGetLastError());
	fetch(out, rows * cols);
	return 0;
}
