// Reference: softmax over each row of a rows x cols matrix (4 x 100), one
// thread per row: the maximum, the sum of exp(x - max), then each element.
#include "harness.h"

__global__ void softmax(const float *x, float *y, int rows, int cols)
{
	int r = threadIdx.x;
	if (r >= rows)
		return;
	const float *xr = x + r * cols;
	float m = xr[0];
	for (int i = 1; i < cols; i++)
		m = fmaxf(m, xr[i]);
	float s = 0.0f;
	for (int i = 0; i < cols; i++)
		s += expf(xr[i] - m);
	for (int i = 0; i < cols; i++)
		y[r * cols + i] = expf(xr[i] - m) / s;
}

int main()
{
	const int rows = 4, cols = 100;
	float *x = device_random(rows * cols, 9), *y;
	CHECK(cudaMalloc(&y, sizeof(float) * rows * cols));
	softmax<<<1, 32>>>(x, y, rows, cols);
	CHECK(cudaGetLastError());
	fetch(y, rows * cols);
	return 0;
}
