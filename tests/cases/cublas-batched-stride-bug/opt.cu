// The cublas-batched product (one cublasSgemmStridedBatched) with a wrong
// batch stride for B.  In cuBLAS's column-major view C^T = B A^T, so B
// (N x K row-major, K x N column-major) is transposed, A is taken as it
// is, and each matrix of the batch is its own size further on.  The bug:
// B is given a stride of 0, as if one B served the whole batch, so every
// matrix of the batch after the first is multiplied by the first B.
// build-flags: -lcublas
#include <cublas_v2.h>
#include "../common/harness.h"
#include "../common/cublas_batched.h"

int main()
{
	float *a = device_random(BATCH * M * K, 21), *b = device_random(BATCH * N * K, 22);
	float *c = device_random(BATCH * M * N, 23);
	cublasHandle_t h;
	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
		return 1;
	const float alpha = 1.0f, beta = 0.5f;
	if (cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, b, K, 0, a, K,
	                              M * K, &beta, c, N, M * N, BATCH) != CUBLAS_STATUS_SUCCESS)
		return 1;
	cublasDestroy(h);
	fetch(c, BATCH * M * N);
	return 0;
}
