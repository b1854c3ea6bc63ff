// Optimized layer norm, the pattern of real softmax, logsumexp and norm
// kernels: one block per row, a shared-memory sum tree for the mean whose
// result every thread reads back, then a second tree over the squared
// deviations (each leaf depends on the first tree's result) for the
// variance.  Equal to the reference over the reals (sums reassociate).
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
	for (int k = COLS / 2; k > 0; k >>= 1) {
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
