// The same with 8 x 8 shared tiles, as an upper-triangular matmul of the
// AI CUDA Engineer does it (KernelBench level 1, task 14): the tile loop
// starts at the tile of the row, runs while the tile starts at or before
// the column (bx - by + 1 tiles, a trip count per block pair), and each
// of the 8 terms of a tile is added under a test of k against row and
// column, which branches on threadIdx: dexec runs those arms without
// splitting the threads.  Threads below the diagonal leave before the
// first barrier (they count as arrived); C is zeroed first.
#include "../common/harness.h"

#define TILE 8

__global__ void matmul_triu_tiled(const float *A, const float *B, float *C, int N)
{
	__shared__ float As[TILE][TILE + 1];
	__shared__ float Bs[TILE][TILE + 1];
	int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
	if (row < N && col < N && row <= col) {
		float sum = 0.0f;
		for (int t = row / TILE * TILE; t <= col; t += TILE) {
			As[threadIdx.y][threadIdx.x] = t + threadIdx.x < N ? A[row * N + t + threadIdx.x] : 0.0f;
			Bs[threadIdx.y][threadIdx.x] = t + threadIdx.y < N ? B[(t + threadIdx.y) * N + col] : 0.0f;
			__syncthreads();
			for (int k = 0; k < TILE; k++) {
				int g = t + k;
				if (g >= row && g <= col)
					sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];
			}
			__syncthreads();
		}
		C[row * N + col] = sum;
	}
}

int main()
{
	const int N = 40;
	float *A = device_random(N * N, 3), *B = device_random(N * N, 4), *C;
	CHECK(cudaMalloc(&C, sizeof(float) * N * N));
	CHECK(cudaMemset(C, 0, sizeof(float) * N * N));
	matmul_triu_tiled<<<dim3(5, 5), dim3(TILE, TILE)>>>(A, B, C, N);
	CHECK(cudaGetLastError());
	fetch(C, N * N);
	return 0;
}
