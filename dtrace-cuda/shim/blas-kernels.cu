// blas-kernels.cu: what the record-only runtime's cuBLAS (shim/blas.c)
// records for a call.  Each routine is a launch of one of these kernels,
// whose PTX is embedded in the runtime and recorded as a module of its
// own, so the stages give it semantics as they do any kernel's.
//
// dirigo_cublas_sgemm computes, for one matrix of a batch (blockIdx.z),
//   C = alpha * op(A) * op(B) + beta * C
// in cuBLAS's column-major layout: op(A) is m x k, op(B) k x n, C m x n
// with leading dimension ldc.  One thread per element of C (i down
// blockIdx.x, j down blockIdx.y); the products are summed in order of
// the inner index.  As cuBLAS, C is not read when beta is 0, nor A and B
// when alpha is 0, and alpha and beta are values (the runtime reads them
// in host pointer mode).
extern "C" __global__ void dirigo_cublas_sgemm(int transa, int transb, int m, int n, int k,
                                               float alpha, const float *A, int lda,
                                               long long strideA, const float *B, int ldb,
                                               long long strideB, float beta, float *C,
                                               int ldc, long long strideC)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int j = blockIdx.y * blockDim.y + threadIdx.y;
	if (i >= m || j >= n)
		return;
	const float *a = A + blockIdx.z * strideA;
	const float *b = B + blockIdx.z * strideB;
	float *c = C + blockIdx.z * strideC + i + (long long)j * ldc;
	float acc = 0.0f;
	for (int p = 0; p < k && alpha != 0.0f; p++) {   /* alpha 0: A and B unread */
		float x = transa ? a[p + (long long)i * lda] : a[i + (long long)p * lda];
		float y = transb ? b[j + (long long)p * ldb] : b[p + (long long)j * ldb];
		acc += x * y;
	}
	if (alpha != 1.0f)
		acc *= alpha;
	if (beta != 0.0f)
		acc += beta * *c;
	*c = acc;
}
