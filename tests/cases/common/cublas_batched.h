// Sizes of the cublas-batched pairs: for each of BATCH matrices,
// C = A B^T + 0.5 C with A M x K, B N x K and C M x N, row-major.
#define BATCH 3
#define M 24
#define K 20
#define N 32
