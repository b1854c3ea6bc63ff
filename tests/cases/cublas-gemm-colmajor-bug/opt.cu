// The cublas-gemm product with the layout forgotten at the output: both
// operands are transposed into cuBLAS's column-major view correctly (op T
// on the row-major buffers), but C is then written column-major, with
// leading dimension M, where the caller reads it row-major.  Every element
// off the diagonal of the index map is wrong.
// build-flags: -lcublas
#include <cublas_v2.h>
#include "../common/harness.h"
#include "../common/cublas_gemm.h"

int main()
{
	float *a = device_random(M * K, 91), *b = device_random(K * N, 92), *c;
	CHECK(cudaMalloc(&c, sizeof(float) * M * N));
	cublasHandle_t h;
	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
		return 1;
	const float alpha = 1.0f, beta = 0.0f;
	if (cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_T, M, N, K, &alpha, a, K, b, N, &beta, c, M) !=
	    CUBLAS_STATUS_SUCCESS)
		return 1;
	cublasDestroy(h);
	fetch(c, M * N);
	return 0;
}
