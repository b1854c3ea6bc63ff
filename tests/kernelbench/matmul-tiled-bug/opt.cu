// The buggy twin of matmul-tiled: the number of tiles is N / TILE, rounded
// down, so the partial last tile (k = 16..19 of N = 20) is never added.
// C = A B with 8 x 8 shared-memory tiles (padded against bank
// conflicts), loaded by a block of 8 x 4 threads, two elements each:
// element i of a tile goes to row i / 8, column i % 8, so the shared
// store addresses are not affine in the thread index.  Each thread
// computes two outputs.  The last tile is partial (N = 20): loads past N
// read 0.
#include <torch/extension.h>

#define TILE 8
#define BX 8
#define BY 4

__global__ void matmul_tiled(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int N)
{
    __shared__ float sA[TILE][TILE + 1];
    __shared__ float sB[TILE][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * TILE, col = blockIdx.x * TILE + tx;
    int lin = ty * BX + tx;
    float acc0 = 0.0f, acc1 = 0.0f;
    int tiles = N / TILE;
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

torch::Tensor forward(torch::Tensor A, torch::Tensor B)
{
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "inputs must be CUDA tensors");
    int N = A.size(0);
    auto C = torch::empty({N, N}, A.options());
    dim3 block(BX, BY), grid((N + TILE - 1) / TILE, (N + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), N);
    return C;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("forward", &forward, "tiled matrix product");
}
