// Reference: per row of a 64 x 32 matrix, the maximum (fmaxf) and the
// index of its first occurrence (a select per element).
#include "../common/harness.h"

__global__ void rowmax(const float *x, float *m_out, int *at_out, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	float m = x[r * cols];
	int at = 0;
	for (int j = 1; j < cols; j++) {
		float v = x[r * cols + j];
		at = v > m ? j : at;
		m = fmaxf(m, v);
	}
	m_out[r] = m;
	at_out[r] = at;
}

int main()
{
	const int rows = 64, cols = 32;
	float *x = device_random(rows * cols, 61), *m;
	int *at;
	CHECK(cudaMalloc(&m, sizeof(float) * rows));
	CHECK(cudaMalloc(&at, sizeof(int) * rows));
	rowmax<<<rows / 32, 32>>>(x, m, at, cols);
	CHECK(cudaGetLastError());
	fetch(m, rows);
	int h[rows];
	CHECK(cudaMemcpy(h, at, sizeof h, cudaMemcpyDeviceToHost));
	printf("first index %d\n", h[0]);
	return 0;
}
