// Optimized: one thread per column, lane 5 of each block doing the
// unrolled rows of its column: 64 stores under one guard (tid.x == 5)
// that no corner thread of dcheck's order meets, so its path-condition
// coverage asks the solver once for all 64.  Equal to the reference.
#include "../common/harness.h"

__global__ void triple_cols(const float *a, float *out, int cols)
{
	if (threadIdx.x != 5)
		return;
	int c = blockIdx.x;
#pragma unroll
	for (int r = 0; r < 64; r++)
		out[r * cols + c] = a[r * cols + c] * 3.0f;
}

int main()
{
	const int rows = 64, cols = 32, n = rows * cols;
	float *a = device_random(n, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	triple_cols<<<cols, 64>>>(a, out, cols);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
