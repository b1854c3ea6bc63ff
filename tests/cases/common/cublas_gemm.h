// Sizes of the cublas-gemm pairs: C = A B with A M x K and B K x N,
// row-major as torch keeps them; all three different, so that a mixed-up
// leading dimension or a transposed result shows.
#define M 48
#define K 40
#define N 64
