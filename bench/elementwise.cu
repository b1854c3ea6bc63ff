// Benchmark program: an elementwise kernel over N floats, one thread per
// element, 256 threads per block.  Built with -DN=... and -DVARIANT=0/1
// (0: the reference, out = a * b + a; 1: the "optimized" form,
// out = a * (b + 1), equal over the reals).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#ifndef N
#define N (1 << 24)
#endif
#ifndef VARIANT
#define VARIANT 0
#endif

__global__ void elementwise(const float *a, const float *b, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
#if VARIANT == 0
		out[i] = a[i] * b[i] + a[i];
#else
		out[i] = a[i] * (b[i] + 1.0f);
#endif
}

int main()
{
	const int n = N;
	float *h = (float *)malloc(sizeof(float) * n), *a, *b, *out;
	for (int i = 0; i < n; i++)
		h[i] = (float)(i % 1000) / 1000.0f;
	cudaMalloc(&a, sizeof(float) * n);
	cudaMalloc(&b, sizeof(float) * n);
	cudaMalloc(&out, sizeof(float) * n);
	cudaMemcpy(a, h, sizeof(float) * n, cudaMemcpyHostToDevice);
	cudaMemcpy(b, h, sizeof(float) * n, cudaMemcpyHostToDevice);
	elementwise<<<(n + 255) / 256, 256>>>(a, b, out, n);
	cudaMemcpy(h, out, sizeof(float) * n, cudaMemcpyDeviceToHost);
	printf("%f\n", h[n - 1]);
	free(h);
	return 0;
}
