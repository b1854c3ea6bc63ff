// Reference: the maximum of each row of an 8 x 64 matrix, one block a row,
// by a tree in shared memory with fmaxf.
#include "../common/harness.h"

#define BLOCK 64

__global__ void rowmax(const float *x, float *out, int cols)
{
	__shared__ float s[BLOCK];
	int t = threadIdx.x;
	s[t] = x[blockIdx.x * cols + t];
	__syncthreads();
	for (int k = BLOCK / 2; k > 0; k >>= 1) {
		if (t < k)
			s[t] = fmaxf(s[t], s[t + k]);
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = s[0];
}

int main()
{
	const int rows = 8, cols = 64;
	float *x = device_random(rows * cols, 81), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * rows));
	rowmax<<<rows, BLOCK>>>(x, out, cols);
	CHECK(cudaGetLastError());
	fetch(out, rows);
	return 0;
}
