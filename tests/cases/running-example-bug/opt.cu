// Bug (the paper's): the tree loop stops at s > 32, so the last step (64
// partial sums to 32) is skipped and the warp sums only half the column.
// Running example (paper section 2, figure 2), the optimized program: one
// fused kernel, one block per (n, w); each thread takes the minimum over C
// of one row h, a shared-memory tree reduction halves the partial sums
// down to 32, and a warp shuffle reduction finishes the sum.
#include "../common/harness.h"

enum { N = 2, C = 16, H = 64, W = 32, NT = 128 };

__global__ void fused_min_sum_act_bias(const float *M, const float *bias, float *out,
                                       int c_dim, int h_dim, int w_dim)
{
	__shared__ float sdata[NT];
	int w = blockIdx.x, n = blockIdx.y;
	unsigned t = threadIdx.x;
	float v = 0.0f;
	if (t < (unsigned)h_dim) {
		v = M[((n * c_dim) * h_dim + t) * w_dim + w];
		for (int c = 1; c < c_dim; c++)
			v = fminf(v, M[((n * c_dim + c) * h_dim + t) * w_dim + w]);
	}
	sdata[t] = v;
	__syncthreads();
	for (unsigned s = NT / 2; s > 32; s >>= 1) {
		if (t < s)
			sdata[t] += sdata[t + s];
		__syncthreads();
	}
	if (t < 32) {
		float x = sdata[t];
		for (int off = 16; off > 0; off >>= 1)
			x += __shfl_down_sync(0xffffffffu, x, off);
		if (t == 0) {
			float g = fmaxf(x, 0.0f);
			for (int c = 0; c < c_dim; c++)
				out[(n * c_dim + c) * w_dim + w] = g + bias[c];
		}
	}
}

int main()
{
	float *M = device_random(N * C * H * W, 36), *bias = device_random(C, 37), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N * C * W));
	fused_min_sum_act_bias<<<dim3(W, N), NT>>>(M, bias, out, C, H, W);
	CHECK(cudaGetLastError());
	fetch(out, N * C * W);
	return 0;
}
