// Optimized, wrongly: the shared-memory max tree of rowmax-shared started
// at a quarter of the block, so the second half of each row is never
// compared.  Buggy.
#include "../common/harness.h"

#define BLOCK 64

__global__ void rowmax(const float *x, float *out, int cols)
{
	__shared__ float s[BLOCK];
	int t = threadIdx.x;
	s[t] = x[blockIdx.x * cols + t];
	__syncthreads();
	for (int k = BLOCK / 4; k > 0; k >>= 1) {
		if (t < k)
			s[t] = s[t] > s[t + k] ? s[t] : s[t + k];
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
