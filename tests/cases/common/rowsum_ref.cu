// Reference: out[r] = sum of row r of a rows x cols matrix, one thread per row.
#include "harness.h"

__global__ void rowsum(const float *a, float *out, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < rows) {
		float s = 0.0f;
		for (int c = 0; c < cols; c++)
			s += a[r * cols + c];
		out[r] = s;
	}
}

int main()
{
	const int rows = 40, cols = 33;
	float *a = device_random(rows * cols, 13), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * rows));
	rowsum<<<1, 64>>>(a, out, rows, cols);
	CHECK(cudaGetLastError());
	fetch(out, rows);
	return 0;
}
