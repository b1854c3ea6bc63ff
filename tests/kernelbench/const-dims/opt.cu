// Row sums, one block per row, the row in tiles of 16 through shared
// memory.  The column count and the number of tiles live in __constant__
// memory, written by forward() with cudaMemcpyToSymbol: the tile loop's
// exit and the bounds branch (whose arms reach a barrier) read them, so
// they are known only when dexec reads a __constant__ the host wrote as
// the bytes it wrote.  Correct.
#include <torch/extension.h>

#define TILE 16

__constant__ int d_cols;
__constant__ int d_tiles;

__global__ void rowsum_tiled(const float *a, float *out)
{
    __shared__ float tile[TILE];
    int r = blockIdx.x, tid = threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < d_tiles; t++) {
        int c = t * TILE + tid;
        if (c < d_cols)
            tile[tid] = a[r * d_cols + c];
        else
            tile[tid] = 0.0f;
        __syncthreads();
        if (tid == 0)
            for (int k = 0; k < TILE; k++)
                acc += tile[k];
        __syncthreads();
    }
    if (tid == 0)
        out[r] = acc;
}

torch::Tensor forward(torch::Tensor A)
{
    TORCH_CHECK(A.is_cuda(), "input must be a CUDA tensor");
    int rows = A.size(0), cols = A.size(1);
    int tiles = (cols + TILE - 1) / TILE;
    cudaMemcpyToSymbol(d_cols, &cols, sizeof cols);
    cudaMemcpyToSymbol(d_tiles, &tiles, sizeof tiles);
    auto out = torch::empty({rows}, A.options());
    rowsum_tiled<<<rows, TILE>>>(A.data_ptr<float>(), out.data_ptr<float>());
    return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("forward", &forward, "row sums in tiles");
}
