// The row-major product by cuBLAS, as AI-written extensions call it:
// cuBLAS is column-major, so C^T = B^T A^T is asked for, with the operands
// swapped and each matrix's row length as its leading dimension.  The
// record-only runtime records the call as a launch of dirigo's own gemm
// kernel (dtrace-cuda/shim/blas.c).
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
	if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b, N, a, K, &beta, c, N) !=
	    CUBLAS_STATUS_SUCCESS)
		return 1;
	cublasDestroy(h);
	fetch(c, M * N);
	return 0;
}
