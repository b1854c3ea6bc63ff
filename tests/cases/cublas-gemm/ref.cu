// Reference for the cublas-gemm pairs: a row-major matrix product, one
// thread per element of C, the products summed in order of k.
#include "../common/harness.h"
#include "../common/cublas_gemm.h"

__global__ void matmul_ref(const float *a, const float *b, float *c, int m, int n, int k)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= m || col >= n)
		return;
	float acc = 0.0f;
	for (int p = 0; p < k; p++)
		acc += a[row * k + p] * b[p * n + col];
	c[row * n + col] = acc;
}

int main()
{
	float *a = device_random(M * K, 91), *b = device_random(K * N, 92), *c;
	CHECK(cudaMalloc(&c, sizeof(float) * M * N));
	matmul_ref<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(a, b, c, M, N, K);
	CHECK(cudaGetLastError());
	fetch(c, M * N);
	return 0;
}
