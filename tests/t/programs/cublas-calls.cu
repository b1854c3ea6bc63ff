// cublas-calls: what the record-only runtime's cuBLAS answers and records
// (dtrace-cuda/shim/blas.c).  Prints the status of each call; with an
// argument "device", last asks for a product whose alpha is in device
// memory, which the runtime cannot record (unsupported, exit 3).
#include <cstdio>
#include <cstring>
#include <cublas_v2.h>
#include <cuda_runtime.h>

int main(int argc, char **argv)
{
	float *a, *b, *c;
	cudaMalloc(&a, 6 * 4 * sizeof(float));
	cudaMalloc(&b, 4 * 5 * sizeof(float));
	cudaMalloc(&c, 6 * 5 * sizeof(float));
	cublasHandle_t h;
	printf("create %s\n", cublasGetStatusName(cublasCreate(&h)));
	cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH);
	cublasMath_t math;
	cublasGetMathMode(h, &math);
	printf("math %d\n", (int)math);
	float one = 1.0f, zero = 0.0f;
	// lda 3 < m 6: refused, nothing recorded
	printf("bad lda %s\n", cublasGetStatusName(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 6, 5, 4,
	                                                        &one, a, 3, b, 4, &zero, c, 6)));
	// alpha 0, beta 1: C stays as it is, nothing recorded
	printf("identity %s\n", cublasGetStatusName(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 6, 5, 4,
	                                                         &zero, a, 6, b, 4, &one, c, 6)));
	// one launch of dirigo_cublas_sgemm
	printf("gemm %s\n", cublasGetStatusName(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 6, 5, 4,
	                                                     &one, a, 6, b, 4, &zero, c, 6)));
	// a second, by cublasGemmEx with float matrices
	printf("gemmex %s\n", cublasGetStatusName(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, 6, 5, 4,
	                                                       &one, a, CUDA_R_32F, 4, b, CUDA_R_32F,
	                                                       4, &zero, c, CUDA_R_32F, 6,
	                                                       CUBLAS_COMPUTE_32F,
	                                                       CUBLAS_GEMM_DEFAULT)));
	if (argc > 1 && strcmp(argv[1], "device") == 0) {
		cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
		cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 6, 5, 4, c, a, 6, b, 4, c + 1, c, 6);
		printf("device pointer mode was recorded\n");
	}
	printf("destroy %s\n", cublasGetStatusName(cublasDestroy(h)));
	float host[30];
	cudaMemcpy(host, c, sizeof host, cudaMemcpyDeviceToHost);
	return 0;
}
