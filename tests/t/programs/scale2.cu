// scale2.cu: a __constant__ array set with cudaMemcpyToSymbol, a
// cudaMemset, and two kernels, the second reading the first's output at an
// offset (a test program for dtrace-cuda).
#include <cstdio>

__constant__ float coef[4];

__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * coef[0] + coef[1];
}

__global__ void shift(const float *x, float *y, int n, float by)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] + by;
}

int main()
{
	const int n = 64;
	float *x, *y;
	const float k[4] = { 2, 1, 0, 0 };
	cudaMalloc(&x, 2 * n * sizeof(float));
	cudaMalloc(&y, n * sizeof(float));
	cudaMemset(x, 0, 2 * n * sizeof(float));
	cudaMemcpyToSymbol(coef, k, sizeof k);
	scale<<<dim3(2, 1, 1), dim3(32, 1, 1)>>>(x, n);
	shift<<<1, 64, 128>>>(x + n / 2, y, n, 0.5f);
	float hy[n];
	cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost);
	printf("scale2 done\n");
	return 0;
}
