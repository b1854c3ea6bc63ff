// Reference: the upper triangle of A B over the terms between row and
// column (N = 40): C[r][c] = sum of A[r][k] B[k][c] for r <= k <= c, 0
// below the diagonal; one thread an element, the sum in order.
#include "harness.h"

__global__ void matmul_triu(const float *A, const float *B, float *C, int N)
{
	int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= N || c >= N)
		return;
	float s = 0.0f;
	for (int k = r; k <= c; k++)
		s += A[r * N + k] * B[k * N + c];
	C[r * N + c] = s;
}

int main()
{
	const int N = 40;
	float *A = device_random(N * N, 3), *B = device_random(N * N, 4), *C;
	CHECK(cudaMalloc(&C, sizeof(float) * N * N));
	matmul_triu<<<dim3(5, 5), dim3(8, 8)>>>(A, B, C, N);
	CHECK(cudaGetLastError());
	fetch(C, N * N);
	return 0;
}
