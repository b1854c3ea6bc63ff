// Reference: C = A B for N x N matrices (N = 20), one thread per output,
// the dot product in order.
#include "harness.h"

__global__ void matmul(const float *A, const float *B, float *C, int N)
{
	int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < N && c < N) {
		float s = 0.0f;
		for (int k = 0; k < N; k++)
			s += A[r * N + k] * B[k * N + c];
		C[r * N + c] = s;
	}
}

int main()
{
	const int N = 20;
	float *A = device_random(N * N, 3), *B = device_random(N * N, 4), *C;
	CHECK(cudaMalloc(&C, sizeof(float) * N * N));
	matmul<<<dim3(3, 3), dim3(8, 8)>>>(A, B, C, N);
	CHECK(cudaGetLastError());
	fetch(C, N * N);
	return 0;
}
