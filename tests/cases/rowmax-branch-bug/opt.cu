// Optimized, wrongly: the running maximum of rowmax-branch with the update
// on v >= m, so a later equal element moves the index (the first
// occurrence is asked for).  Buggy.
#include "../common/harness.h"

__global__ void rowmax(const float *x, float *m_out, int *at_out, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	float m = x[r * cols];
	at_out[r] = 0;
	for (int j = 1; j < cols; j++) {
		float v = x[r * cols + j];
		if (v >= m) {
			m = v;
			at_out[r] = j;
		}
	}
	m_out[r] = m;
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
