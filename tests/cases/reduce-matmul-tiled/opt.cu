// C = A B with 8 x 8 shared-memory tiles (rows padded to 9), loaded by
// a block of 8 x 4 threads, two elements each: element i of a tile goes
// to row i / 8, column i % 8, so the shared store addresses are not
// affine in the thread index (dcheck inverts them by tables).  Each thread
// computes two outputs; the last tile is partial (N = 20) and loads past N
// read 0.
#include "../common/harness.h"

#define TILE 8
#define BX 8
#define BY 4

__global__ void matmul_tiled(const float *A, const float *B, float *C, int N)
{
	__shared__ float sA[TILE][TILE + 1];
	__shared__ float sB[TILE][TILE + 1];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row0 = blockIdx.y * TILE, col = blockIdx.x * TILE + tx;
	int lin = ty * BX + tx;
	float acc0 = 0.0f, acc1 = 0.0f;
	int tiles = (N + TILE - 1) / TILE;
	for (int t = 0; t < tiles; t++) {
		for (int i = lin; i < TILE * TILE; i += BX * BY) {
			int r = i / TILE, c = i % TILE;
			int ar = row0 + r, ac = t * TILE + c;
			sA[r][c] = ar < N && ac < N ? A[ar * N + ac] : 0.0f;
			int br = t * TILE + r, bc = blockIdx.x * TILE + c;
			sB[r][c] = br < N && bc < N ? B[br * N + bc] : 0.0f;
		}
		__syncthreads();
		for (int k = 0; k < TILE; k++) {
			acc0 += sA[ty][k] * sB[k][tx];
			acc1 += sA[ty + BY][k] * sB[k][tx];
		}
		__syncthreads();
	}
	if (row0 + ty < N && col < N)
		C[(row0 + ty) * N + col] = acc0;
	if (row0 + ty + BY < N && col < N)
		C[(row0 + ty + BY) * N + col] = acc1;
}

int main()
{
	const int N = 20;
	float *A = device_random(N * N, 3), *B = device_random(N * N, 4), *C;
	CHECK(cudaMalloc(&C, sizeof(float) * N * N));
	dim3 grid((N + TILE - 1) / TILE, (N + TILE - 1) / TILE);
	matmul_tiled<<<grid, dim3(BX, BY)>>>(A, B, C, N);
	CHECK(cudaGetLastError());
	fetch(C, N * N);
	return 0;
}
