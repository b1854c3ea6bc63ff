// Buggy twin of norm-tree: the second tree stops one step early
// (k > 1), so the variance misses s[1]: every output of a row is wrong
// where the deviations of its second half are not negligible.
#include "../common/harness.h"

enum { ROWS = 4, COLS = 256 };

__global__ void layer_norm_tree(const float *x, float *out, int cols)
{
	__shared__ float s[COLS];
	int t = threadIdx.x, r = blockIdx.x;
	float v = x[r * cols + t];
	s[t] = v;
	__syncthreads();
	for (int k = COLS / 2; k > 0; k >>= 1) {
		if (t < k)
			s[t] += s[t + k];
		__syncthreads();
	}
	float mean = s[0] / cols;
	__syncthreads();
	float d = v - mean;
	s[t] = d * d;
	__syncthreads();
	for (int k = COLS / 2; k > 1; k >>= 1) {
		if (t < k)
			s[t] += s[t + k];
		__syncthreads();
	}
	float var = s[0] / cols;
	out[r * cols + t] = d * rsqrtf(var + 1e-5f);
}

int main()
{
	float *x = device_random(ROWS * COLS, 41), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * ROWS * COLS));
	layer_norm_tree<<<ROWS, COLS>>>(x, out, COLS);
	CHECK(cudaGetLastError());
	fetch(out, ROWS * COLS);
	return 0;
}
