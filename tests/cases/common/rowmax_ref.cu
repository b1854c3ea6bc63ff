// Reference: the maximum of each row of x (rows x cols), one thread per row.
#include <cfloat>
#include "harness.h"

__global__ void rowmax(const float *x, float *out, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float m = -FLT_MAX;
	for (int j = 0; j < cols; j++)
		m = fmaxf(m, x[r * cols + j]);
	out[r] = m;
}

int main()
{
	const int rows = 64, cols = 8;
	float *x = device_random(rows * cols, 6), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * rows));
	rowmax<<<1, rows>>>(x, out, rows, cols);
	CHECK(cudaGetLastError());
	fetch(out, rows);
	return 0;
}
