// Running example (paper section 2, KernelBench level-2 task 36), the
// reference: after the convolution, M has shape [N, C, H, W]; take the
// minimum over C, sum over H, apply the activation and add the bias:
// out[n][c][w] = act(sum_h min_c M[n][c][h][w]) + bias[c].
// The activation is relu rather than the task's GELU (tanh form), so that
// the pair needs no transcendental rollup.
#include "../common/harness.h"

enum { N = 2, C = 16, H = 64, W = 32 };

// One thread per (n, h, w): grid (H, N), block W.
__global__ void min_over_c(const float *M, float *mn, int c_dim, int h_dim, int w_dim)
{
	int w = threadIdx.x, h = blockIdx.x, n = blockIdx.y;
	float m = M[((n * c_dim) * h_dim + h) * w_dim + w];
	for (int c = 1; c < c_dim; c++)
		m = fminf(m, M[((n * c_dim + c) * h_dim + h) * w_dim + w]);
	mn[(n * h_dim + h) * w_dim + w] = m;
}

// One thread per (n, c, w): grid (C, N), block W.
__global__ void sum_act_bias(const float *mn, const float *bias, float *out, int c_dim, int h_dim, int w_dim)
{
	int w = threadIdx.x, c = blockIdx.x, n = blockIdx.y;
	float s = 0.0f;
	for (int h = 0; h < h_dim; h++)
		s += mn[(n * h_dim + h) * w_dim + w];
	out[(n * c_dim + c) * w_dim + w] = fmaxf(s, 0.0f) + bias[c];
}

int main()
{
	float *M = device_random(N * C * H * W, 36), *bias = device_random(C, 37), *mn, *out;
	CHECK(cudaMalloc(&mn, sizeof(float) * N * H * W));
	CHECK(cudaMalloc(&out, sizeof(float) * N * C * W));
	min_over_c<<<dim3(H, N), W>>>(M, mn, C, H, W);
	CHECK(cudaGetLastError());
	sum_act_bias<<<dim3(C, N), W>>>(mn, bias, out, C, H, W);
	CHECK(cudaGetLastError());
	fetch(out, N * C * W);
	return 0;
}
