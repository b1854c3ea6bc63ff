// vadd.cu: c = a + b on 1000 floats: cudaMalloc, two h2d copies, one
// launch, one d2h copy (a test program for dtrace-cuda).
#include <cstdio>

__global__ void vadd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

int main()
{
	const int n = 1000;
	static float ha[n], hb[n], hc[n];
	for (int i = 0; i < n; i++) {
		ha[i] = i;
		hb[i] = 2 * i;
	}
	float *a, *b, *c;
	cudaMalloc(&a, n * sizeof(float));
	cudaMalloc(&b, n * sizeof(float));
	cudaMalloc(&c, n * sizeof(float));
	cudaMemcpy(a, ha, n * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(b, hb, n * sizeof(float), cudaMemcpyHostToDevice);
	vadd<<<(n + 255) / 256, 256>>>(a, b, c, n);
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess) {
		fprintf(stderr, "launch: %s\n", cudaGetErrorString(e));
		return 1;
	}
	cudaDeviceSynchronize();
	cudaMemcpy(hc, c, n * sizeof(float), cudaMemcpyDeviceToHost);
	cudaFree(a);
	cudaFree(b);
	cudaFree(c);
	printf("vadd done\n");
	return 0;
}
