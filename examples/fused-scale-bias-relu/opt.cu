// The optimized program: one fused kernel, two elements per thread.
//
// The bug: the channel is computed once, for the first of the two
// elements.  When the second element starts a new channel (HW is odd, so
// this happens at every other channel boundary) it gets the previous
// channel's scale and bias: wrong at 1 location in 66, invisible to a
// random spot check of a few outputs.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define N 4
#define C 8
#define HW 33

__global__ void fused_scale_bias_relu(const float *x, const float *w, const float *b,
                                      float *out, int n)
{
	int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
	int c = (i / HW) % C;
	if (i < n)
		out[i] = fmaxf(fmaf(x[i], w[c], b[c]), 0.0f);
	if (i + 1 < n)
		out[i + 1] = fmaxf(fmaf(x[i + 1], w[c], b[c]), 0.0f);
}

static float *upload(int n, unsigned seed)
{
	float *h = (float *)malloc(n * sizeof(float)), *d;
	for (int i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		h[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
	cudaMalloc(&d, n * sizeof(float));
	cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
	free(h);
	return d;
}

int main()
{
	const int n = N * C * HW;
	float *x = upload(n, 1), *w = upload(C, 2), *b = upload(C, 3), *out;
	cudaMalloc(&out, n * sizeof(float));
	fused_scale_bias_relu<<<(n / 2 + 127) / 128, 128>>>(x, w, b, out, n);
	float *h = (float *)malloc(n * sizeof(float));
	cudaMemcpy(h, out, n * sizeof(float), cudaMemcpyDeviceToHost);
	printf("out[0] = %f\n", h[0]);
	free(h);
	return 0;
}
