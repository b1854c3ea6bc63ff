/*
 * blas.c: the record-only runtime's cuBLAS.  An extension that calls
 * cublasSgemm links against libcublas, whose routines run kernels of their
 * own that no trace could show; here each matrix product the program asks
 * for is recorded as a launch of a kernel of dirigo's, dirigo_cublas_sgemm
 * (blas-kernels.cu), whose PTX is embedded in the runtime and recorded as
 * a module like any other.  So every stage after the tracer sees an
 * ordinary launch: dexec executes it, dcheck inverts its writes, dreplay
 * interprets it.  The layout is cuBLAS's (column-major, leading
 * dimensions, transposes, alpha and beta as host values); cuBLAS's
 * rounding and summation order are not (the stages compare over the
 * reals, as for any kernel).
 *
 * Provided: the handle calls (create, destroy, stream, math, pointer and
 * atomics mode, workspace, version), cublasSgemm, cublasSgemmBatched,
 * cublasSgemmStridedBatched, and cublasGemmEx and
 * cublasGemmStridedBatchedEx with float matrices and float computation.
 * What cannot be recorded exactly (alpha or beta in device memory, other
 * element types) ends the trace as unsupported, naming the call.
 *
 * Forward mode (a GPU): the call is recorded, then made by the real
 * cuBLAS, the one the program loaded or else libcublas.so.13 (.12).
 */
#include "shim.h"

#include <cublas_api.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* blas-kernels.ptx as a C string (made by the build from the .ptx, which
 * `make fixtures` makes from blas-kernels.cu). */
static const char blas_ptx[] =
#include "blas-kernels.ptx.h"
	;

#define GEMM_KERNEL "dirigo_cublas_sgemm"
#define GEMM_TILE 16

/* What a handle points at in record mode: only that it is one of ours. */
struct blas_handle {
	uint32_t magic;
	cudaStream_t stream;
	cublasPointerMode_t pointer_mode;
	cublasMath_t math_mode;
	cublasAtomicsMode_t atomics_mode;
};
#define BLAS_MAGIC 0x626c6173u

static struct shim_module gemm_module;
static struct shim_func gemm_func;

/* ---- forward mode: the real cuBLAS ----------------------------------------- */

static pthread_once_t real_once = PTHREAD_ONCE_INIT;
static void *real_lib;

static void real_open(void)
{
	static const char *const names[] = { "libcublas.so.13", "libcublas.so.12" };
	for (size_t i = 0; i < sizeof names / sizeof *names && !real_lib; i++)
		real_lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	for (size_t i = 0; i < sizeof names / sizeof *names && !real_lib; i++)
		real_lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
}

/* The real cuBLAS's function name; fatal when there is none. */
static void *blas_real_sym(const char *name)
{
	pthread_once(&real_once, real_open);
	void *p = real_lib ? dlsym(real_lib, name) : NULL;
	if (!p)
		shim_fatal("--gpu: no real cuBLAS (libcublas.so.13 or .12) with %s", name);
	return p;
}
#define BLAS_REAL(fn) REAL_BY(blas_real_sym, fn)

/* ---- the handle ------------------------------------------------------------- */

static struct blas_handle *handle_of(cublasHandle_t h)
{
	struct blas_handle *b = (struct blas_handle *)h;
	return b && b->magic == BLAS_MAGIC ? b : NULL;
}

SHIM_EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
	if (shim_forward())
		return BLAS_REAL(cublasCreate_v2)(handle);
	if (!handle)
		return CUBLAS_STATUS_INVALID_VALUE;
	struct blas_handle *b = xcalloc(1, sizeof *b);
	*b = (struct blas_handle){ .magic = BLAS_MAGIC, .pointer_mode = CUBLAS_POINTER_MODE_HOST,
	                           .math_mode = CUBLAS_DEFAULT_MATH,
	                           .atomics_mode = CUBLAS_ATOMICS_NOT_ALLOWED };
	*handle = (cublasHandle_t)b;
	return CUBLAS_STATUS_SUCCESS;
}

SHIM_EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
	if (shim_forward())
		return BLAS_REAL(cublasDestroy_v2)(handle);
	struct blas_handle *b = handle_of(handle);
	if (!b)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	b->magic = 0;
	free(b);
	return CUBLAS_STATUS_SUCCESS;
}

SHIM_EXPORT cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
	if (shim_forward())
		return BLAS_REAL(cublasGetVersion_v2)(handle, version);
	if (!handle_of(handle) || !version)
		return !version ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_NOT_INITIALIZED;
	*version = CUBLAS_VERSION;
	return CUBLAS_STATUS_SUCCESS;
}

/* One setter and one getter of a handle's field. */
#define HANDLE_FIELD(set, get, type, field)                                              \
	SHIM_EXPORT cublasStatus_t set(cublasHandle_t handle, type v)                     \
	{                                                                                 \
		if (shim_forward())                                                       \
			return BLAS_REAL(set)(handle, v);                                 \
		struct blas_handle *b = handle_of(handle);                                \
		if (!b)                                                                   \
			return CUBLAS_STATUS_NOT_INITIALIZED;                             \
		b->field = v;                                                             \
		return CUBLAS_STATUS_SUCCESS;                                             \
	}                                                                                 \
	SHIM_EXPORT cublasStatus_t get(cublasHandle_t handle, type *v)                    \
	{                                                                                 \
		if (shim_forward())                                                       \
			return BLAS_REAL(get)(handle, v);                                 \
		struct blas_handle *b = handle_of(handle);                                \
		if (!b)                                                                   \
			return CUBLAS_STATUS_NOT_INITIALIZED;                             \
		if (!v)                                                                   \
			return CUBLAS_STATUS_INVALID_VALUE;                               \
		*v = b->field;                                                            \
		return CUBLAS_STATUS_SUCCESS;                                             \
	}

HANDLE_FIELD(cublasSetStream_v2, cublasGetStream_v2, cudaStream_t, stream)
HANDLE_FIELD(cublasSetPointerMode_v2, cublasGetPointerMode_v2, cublasPointerMode_t, pointer_mode)
HANDLE_FIELD(cublasSetMathMode, cublasGetMathMode, cublasMath_t, math_mode)
HANDLE_FIELD(cublasSetAtomicsMode, cublasGetAtomicsMode, cublasAtomicsMode_t, atomics_mode)

SHIM_EXPORT cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace,
                                                 size_t bytes)
{
	if (shim_forward())
		return BLAS_REAL(cublasSetWorkspace_v2)(handle, workspace, bytes);
	return handle_of(handle) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

static const struct { cublasStatus_t st; const char *name, *text; } statuses[] = {
	{ CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS", "success" },
	{ CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized" },
	{ CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed" },
	{ CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE", "an invalid numeric value was used as an argument" },
	{ CUBLAS_STATUS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH", "an absent device architectural feature is required" },
	{ CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR", "an access to GPU memory space failed" },
	{ CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED", "the GPU program failed to execute" },
	{ CUBLAS_STATUS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed" },
	{ CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED", "the functionality requested is not supported" },
	{ CUBLAS_STATUS_LICENSE_ERROR, "CUBLAS_STATUS_LICENSE_ERROR", "an error was detected when checking the current licensing" },
};

SHIM_EXPORT const char *cublasGetStatusName(cublasStatus_t status)
{
	for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
		if (statuses[i].st == status)
			return statuses[i].name;
	return "CUBLAS_STATUS_UNKNOWN";
}

SHIM_EXPORT const char *cublasGetStatusString(cublasStatus_t status)
{
	for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
		if (statuses[i].st == status)
			return statuses[i].text;
	return "unknown error";
}

/* ---- matrix products ---------------------------------------------------------- */

/* One product of a batch: the arguments of dirigo_cublas_sgemm. */
struct gemm {
	const char *call;        /* the routine, for messages */
	int transa, transb, m, n, k;
	float alpha, beta;
	const float *a, *b;
	float *c;
	int lda, ldb, ldc;
	long long stride_a, stride_b, stride_c;
	int batch;
};

/* The built-in module and its kernel, made on first use (lock held). */
static struct shim_func *gemm_kernel(void)
{
	if (!gemm_func.name) {
		gemm_module.loaded = true;
		gemm_module.st = FATBIN_OK;
		gemm_module.ptx = (struct fatbin_ptx){ .text = blas_ptx, .len = sizeof blas_ptx - 1,
		                                       .arch = 90, .nptx = 1 };
		gemm_module.handle = (void **)&gemm_module;
		arena_init(&gemm_module.arena);
		gemm_func.name = GEMM_KERNEL;
		gemm_func.mod = &gemm_module;
		gemm_func.kernel = &gemm_func;
	}
	return &gemm_func;
}

/* alpha or beta as a value: host pointer mode only (device memory holds
 * data the trace does not know at this point). */
static float scalar(cublasPointerMode_t mode, const float *p, const char *call,
                    const char *what)
{
	if (mode != CUBLAS_POINTER_MODE_HOST)
		shim_unsupported(call, "%s in device memory (CUBLAS_POINTER_MODE_DEVICE)", what);
	return *p;
}

static bool valid_op(cublasOperation_t op)
{
	return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

/* cuBLAS's own checks of the sizes (the real library's order of tests:
 * the first failing argument decides). */
static cublasStatus_t gemm_check(const struct gemm *g)
{
	int rows_a = g->transa ? g->k : g->m, rows_b = g->transb ? g->n : g->k;
	if (g->m < 0 || g->n < 0 || g->k < 0 || g->batch < 0 ||
	    g->lda < (rows_a > 1 ? rows_a : 1) || g->ldb < (rows_b > 1 ? rows_b : 1) ||
	    g->ldc < (g->m > 1 ? g->m : 1))
		return CUBLAS_STATUS_INVALID_VALUE;
	return CUBLAS_STATUS_SUCCESS;
}

/* Records one launch of dirigo_cublas_sgemm for g (its whole batch). */
static cublasStatus_t gemm_record(const struct gemm *g)
{
	cublasStatus_t st = gemm_check(g);
	if (st != CUBLAS_STATUS_SUCCESS || g->m == 0 || g->n == 0 || g->batch == 0)
		return st;
	if (g->alpha == 0.0f && g->beta == 1.0f)
		return CUBLAS_STATUS_SUCCESS;   /* cuBLAS returns at once */
	uint64_t gx = ((uint64_t)g->m + GEMM_TILE - 1) / GEMM_TILE;
	uint64_t gy = ((uint64_t)g->n + GEMM_TILE - 1) / GEMM_TILE;
	if (gy > 65535 || g->batch > 65535)
		shim_unsupported(g->call, "n = %d, batch = %d: more than 65535 blocks of %d columns",
		                 g->n, g->batch, GEMM_TILE);
	void *args[] = { (void *)&g->transa, (void *)&g->transb, (void *)&g->m, (void *)&g->n,
	                 (void *)&g->k, (void *)&g->alpha, (void *)&g->a, (void *)&g->lda,
	                 (void *)&g->stride_a, (void *)&g->b, (void *)&g->ldb,
	                 (void *)&g->stride_b, (void *)&g->beta, (void *)&g->c, (void *)&g->ldc,
	                 (void *)&g->stride_c };
	shim_lock();
	struct shim_func *f = gemm_kernel();
	shim_unlock();
	cudaError_t e = shim_launch(f, (dim3){ (unsigned)gx, (unsigned)gy, (unsigned)g->batch },
	                            (dim3){ GEMM_TILE, GEMM_TILE, 1 }, args, 0);
	return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

/* Fills the fields common to every product routine; NOT_INITIALIZED or
 * INVALID_VALUE as cuBLAS would say, else SUCCESS (NOT_SUPPORTED: a call
 * not to record, which forward mode still hands on). */
static cublasStatus_t gemm_start(struct gemm *g, const char *call, cublasHandle_t handle,
                                 cublasOperation_t transa, cublasOperation_t transb, int m,
                                 int n, int k, const float *alpha, const float *beta)
{
	/* torch's own calls on a GPU (shim_enter) are only handed on */
	if (shim_forward() && shim_quiet)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	cublasPointerMode_t mode;
	cublasStatus_t st = cublasGetPointerMode_v2(handle, &mode);
	if (st != CUBLAS_STATUS_SUCCESS)
		return st;
	if (!valid_op(transa) || !valid_op(transb) || !alpha || !beta)
		return CUBLAS_STATUS_INVALID_VALUE;
	*g = (struct gemm){ .call = call, .transa = transa != CUBLAS_OP_N,
	                    .transb = transb != CUBLAS_OP_N, .m = m, .n = n, .k = k, .batch = 1,
	                    .alpha = scalar(mode, alpha, call, "alpha"),
	                    .beta = scalar(mode, beta, call, "beta") };
	return CUBLAS_STATUS_SUCCESS;
}

/* The matrices of g: pointers, leading dimensions and batch strides. */
static void gemm_operands(struct gemm *g, const void *a, int lda, long long sa, const void *b,
                          int ldb, long long sb, void *c, int ldc, long long sc, int batch)
{
	g->a = a, g->b = b, g->c = c;
	g->lda = lda, g->ldb = ldb, g->ldc = ldc;
	g->stride_a = sa, g->stride_b = sb, g->stride_c = sc;
	g->batch = batch;
}

SHIM_EXPORT cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                          cublasOperation_t transb, int m, int n, int k,
                                          const float *alpha, const float *A, int lda,
                                          const float *B, int ldb, const float *beta, float *C,
                                          int ldc)
{
	SHIM_ENTER();
	struct gemm g;
	cublasStatus_t st = gemm_start(&g, "cublasSgemm", handle, transa, transb, m, n, k, alpha,
	                               beta);
	if (st == CUBLAS_STATUS_SUCCESS) {
		gemm_operands(&g, A, lda, 0, B, ldb, 0, C, ldc, 0, 1);
		st = gemm_record(&g);
	}
	if (shim_forward())
		return BLAS_REAL(cublasSgemm_v2)(handle, transa, transb, m, n, k, alpha, A, lda, B,
		                                 ldb, beta, C, ldc);
	return st;
}

SHIM_EXPORT cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle,
                                                     cublasOperation_t transa,
                                                     cublasOperation_t transb, int m, int n,
                                                     int k, const float *alpha, const float *A,
                                                     int lda, long long strideA, const float *B,
                                                     int ldb, long long strideB,
                                                     const float *beta, float *C, int ldc,
                                                     long long strideC, int batchCount)
{
	SHIM_ENTER();
	struct gemm g;
	cublasStatus_t st = gemm_start(&g, "cublasSgemmStridedBatched", handle, transa, transb, m,
	                               n, k, alpha, beta);
	if (st == CUBLAS_STATUS_SUCCESS) {
		gemm_operands(&g, A, lda, strideA, B, ldb, strideB, C, ldc, strideC, batchCount);
		st = gemm_record(&g);
	}
	if (shim_forward())
		return BLAS_REAL(cublasSgemmStridedBatched)(handle, transa, transb, m, n, k, alpha, A,
		                                            lda, strideA, B, ldb, strideB, beta, C,
		                                            ldc, strideC, batchCount);
	return st;
}

/* The arrays of pointers are in device memory: host memory in record mode,
 * read here; on a GPU they are copied back first. */
SHIM_EXPORT cublasStatus_t cublasSgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                              cublasOperation_t transb, int m, int n, int k,
                                              const float *alpha, const float *const Aarray[],
                                              int lda, const float *const Barray[], int ldb,
                                              const float *beta, float *const Carray[], int ldc,
                                              int batchCount)
{
	SHIM_ENTER();
	struct gemm g;
	cublasStatus_t st = gemm_start(&g, "cublasSgemmBatched", handle, transa, transb, m, n, k,
	                               alpha, beta);
	if (st == CUBLAS_STATUS_SUCCESS && batchCount < 0)
		st = CUBLAS_STATUS_INVALID_VALUE;
	size_t nb = st == CUBLAS_STATUS_SUCCESS ? (size_t)batchCount : 0;
	const float **ptrs = nb ? xcalloc(3 * nb, sizeof *ptrs) : NULL;
	if (nb && shim_forward()) {
		cudaError_t e = cudaSuccess;
		if ((e = REAL(cudaMemcpy)(ptrs, Aarray, nb * sizeof *ptrs, cudaMemcpyDeviceToHost)) ||
		    (e = REAL(cudaMemcpy)(ptrs + nb, Barray, nb * sizeof *ptrs, cudaMemcpyDeviceToHost)) ||
		    (e = REAL(cudaMemcpy)(ptrs + 2 * nb, Carray, nb * sizeof *ptrs, cudaMemcpyDeviceToHost)))
			shim_fatal("cublasSgemmBatched: cannot read the arrays of matrices: %s",
			           REAL(cudaGetErrorString)(e));
	} else if (nb) {
		memcpy(ptrs, Aarray, nb * sizeof *ptrs);
		memcpy(ptrs + nb, Barray, nb * sizeof *ptrs);
		memcpy(ptrs + 2 * nb, Carray, nb * sizeof *ptrs);
	}
	for (size_t i = 0; i < nb && st == CUBLAS_STATUS_SUCCESS; i++) {
		gemm_operands(&g, ptrs[i], lda, 0, ptrs[nb + i], ldb, 0, (float *)ptrs[2 * nb + i], ldc,
		              0, 1);
		st = gemm_record(&g);
	}
	free(ptrs);
	if (shim_forward())
		return BLAS_REAL(cublasSgemmBatched)(handle, transa, transb, m, n, k, alpha, Aarray,
		                                     lda, Barray, ldb, beta, Carray, ldc, batchCount);
	return st;
}

/* The Ex routines: float matrices and float computation only. */
static void ex_types(const char *call, cudaDataType at, cudaDataType bt, cudaDataType ct,
                     cublasComputeType_t comp)
{
	if (at != CUDA_R_32F || bt != CUDA_R_32F || ct != CUDA_R_32F)
		shim_unsupported(call, "matrices of types %d, %d, %d (only CUDA_R_32F is recorded)",
		                 (int)at, (int)bt, (int)ct);
	switch ((int)comp) {
	case CUBLAS_COMPUTE_32F:
	case CUBLAS_COMPUTE_32F_PEDANTIC:
	case CUBLAS_COMPUTE_32F_FAST_TF32:
	case CUBLAS_COMPUTE_32F_FAST_16F:
	case CUBLAS_COMPUTE_32F_FAST_16BF:
	case CUDA_R_32F:  /* the legacy cudaDataType form */
		return;
	default:
		shim_unsupported(call, "compute type %d (only float computation is recorded)",
		                 (int)comp);
	}
}

SHIM_EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                        cublasOperation_t transb, int m, int n, int k,
                                        const void *alpha, const void *A, cudaDataType Atype,
                                        int lda, const void *B, cudaDataType Btype, int ldb,
                                        const void *beta, void *C, cudaDataType Ctype, int ldc,
                                        cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
	SHIM_ENTER();
	struct gemm g;
	cublasStatus_t st = gemm_start(&g, "cublasGemmEx", handle, transa, transb, m, n, k, alpha,
	                               beta);
	if (st == CUBLAS_STATUS_SUCCESS) {
		ex_types("cublasGemmEx", Atype, Btype, Ctype, computeType);
		gemm_operands(&g, A, lda, 0, B, ldb, 0, C, ldc, 0, 1);
		st = gemm_record(&g);
	}
	if (shim_forward())
		return BLAS_REAL(cublasGemmEx)(handle, transa, transb, m, n, k, alpha, A, Atype, lda,
		                               B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo);
	return st;
}

SHIM_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(
	cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
	int k, const void *alpha, const void *A, cudaDataType Atype, int lda, long long strideA,
	const void *B, cudaDataType Btype, int ldb, long long strideB, const void *beta, void *C,
	cudaDataType Ctype, int ldc, long long strideC, int batchCount,
	cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
	SHIM_ENTER();
	struct gemm g;
	cublasStatus_t st = gemm_start(&g, "cublasGemmStridedBatchedEx", handle, transa, transb, m,
	                               n, k, alpha, beta);
	if (st == CUBLAS_STATUS_SUCCESS) {
		ex_types("cublasGemmStridedBatchedEx", Atype, Btype, Ctype, computeType);
		gemm_operands(&g, A, lda, strideA, B, ldb, strideB, C, ldc, strideC, batchCount);
		st = gemm_record(&g);
	}
	if (shim_forward())
		return BLAS_REAL(cublasGemmStridedBatchedEx)(handle, transa, transb, m, n, k, alpha, A,
		                                             Atype, lda, strideA, B, Btype, ldb,
		                                             strideB, beta, C, Ctype, ldc, strideC,
		                                             batchCount, computeType, algo);
	return st;
}
