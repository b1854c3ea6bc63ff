/*
 * launch.c: kernel launches.  A launch is recorded with its kernel, its
 * geometry and each parameter's bytes (the sizes come from the .entry's
 * PTX parameter list); an 8-byte parameter that points into a live buffer
 * also gets that buffer and the offset, or, failing that, the torch storage
 * it points into (torch.c).  Record mode: kernels are not run.  Forward
 * mode: the launch is recorded, then handed to the real runtime.
 */
#include "shim.h"

#include <stdlib.h>
#include <string.h>

#define CONFIG_DEPTH 16

/* __cudaPushCallConfiguration / Pop: per thread, as the stubs use them. */
static _Thread_local struct config {
	dim3 grid, block;
	size_t shmem;
	void *stream;
} configs[CONFIG_DEPTH];
static _Thread_local unsigned nconfigs;

SHIM_EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                 void *stream);
SHIM_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                                   size_t *sharedMem, void *stream);
SHIM_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
SHIM_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                           void **args, size_t sharedMem, cudaStream_t stream);
SHIM_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                                void **args, size_t sharedMem,
                                                cudaStream_t stream);

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, void *stream)
{
	if (nconfigs == CONFIG_DEPTH)
		return 1;
	configs[nconfigs++] = (struct config){ gridDim, blockDim, sharedMem, stream };
	return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       void *stream)
{
	if (nconfigs == 0)
		return shim_error(cudaErrorMissingConfiguration);
	struct config *c = &configs[--nconfigs];
	*gridDim = c->grid;
	*blockDim = c->block;
	*sharedMem = c->shmem;
	memcpy(stream, &c->stream, sizeof c->stream);
	return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
	if (shim_forward_device()) {
		cudaError_t e = REAL(__cudaGetKernel)(kernel, hostFun);
		if (e == cudaSuccess) {
			shim_lock();
			struct shim_func *f = shim_func_find(hostFun);
			if (f)
				f->kernel = *kernel;
			shim_unlock();
		}
		return e;
	}
	shim_lock();
	struct shim_func *f = shim_func_find(hostFun);
	shim_unlock();
	if (!f)
		return shim_error(cudaErrorInvalidDeviceFunction);
	*kernel = (cudaKernel_t)f;
	return cudaSuccess;
}

/* The PTX entry of f, parsing its module on first use. */
static const struct ptx_func *entry_of(struct shim_func *f)
{
	if (f->pf)
		return f->pf;
	struct shim_module *m = f->mod;
	shim_module_use(m);
	if (!m->ir) {
		char err[256];
		m->ir = ptx_parse(&m->arena, m->ptx.text, m->ptx.len, err, sizeof err);
		if (!m->ir)
			shim_fatal("cannot parse the PTX of module %u: %s", m->id, err);
	}
	f->pf = ptx_find_func(m->ir, f->name);
	if (!f->pf || !f->pf->is_entry)
		shim_fatal("kernel '%s' is not an .entry of the PTX of module %u", f->name, m->id);
	return f->pf;
}

static void record_launch(struct shim_func *f, const struct ptx_func *pf, dim3 grid,
                          dim3 block, size_t shmem, void **args)
{
	struct stream_out *w = shim_out();
	if (!w)
		return;
	struct trace_arg *ta = xcalloc(pf->nparams ? pf->nparams : 1, sizeof *ta);
	uint32_t ev = shim.next_event++;
	for (unsigned i = 0; i < pf->nparams; i++) {
		const struct ptx_param *p = &pf->params[i];
		ta[i] = (struct trace_arg){ .param = p->name, .size = p->size, .raw = args[i],
		                            .buf = TRACE_NO_BUF };
		if (p->size == 8) {
			uint64_t v;
			memcpy(&v, args[i], 8);
			struct shim_buf *b = shim_buf_find((uintptr_t)v);
			struct shim_store *s;
			if (b && b->hidden)
				b = NULL;
			/* on a GPU the program's buffers and torch's storages never
			 * overlap, but a storage may lie inside an allocation that
			 * torch made before its calls were known to be its own */
			if (b && shim_forward() && (s = shim_store_find((uintptr_t)v)) &&
			    s->base >= b->base)
				b = NULL;
			if (b) {
				ta[i].buf = b->id;
				ta[i].off = v - b->base;
			} else if ((s = shim_store_find((uintptr_t)v))) {
				ta[i].in_storage = true;
				ta[i].storage = s->id;
				ta[i].off = v - s->base;
				shim_store_written(s->id, ev);
			}
		}
	}
	struct trace_launch r = {
		.launch = shim.next_launch++, .module = f->mod->id, .kernel = f->name,
		.grid = { grid.x, grid.y, grid.z }, .block = { block.x, block.y, block.z },
		.shmem = shmem, .args = ta, .nargs = pf->nparams,
	};
	trace_write_launch(w, &r);
	shim_flush();
	free(ta);
}

cudaError_t shim_launch(struct shim_func *f, dim3 grid, dim3 block, void **args,
                               size_t shmem)
{
	if (shim_forward()) {
		/* the real runtime checks; record what it is given */
		if (!f || shim_quiet)
			return cudaSuccess;
	} else {
		if (!f)
			return shim_error(cudaErrorInvalidDeviceFunction);
		if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 ||
		    block.z == 0 || (uint64_t)block.x * block.y * block.z > 1024) {
			/* as the runtime: the kernel does not run, and what it would
			 * have written stays unwritten; said, since few programs look */
			if (__atomic_fetch_add(&f->refused, 1, __ATOMIC_RELAXED) == 0)   /* once a kernel */
				shim_warn("launch of %s refused (cudaErrorInvalidConfiguration): grid %ux%ux%u, "
				          "block %ux%ux%u = %llu threads (at most 1024, none 0); the kernel does not run",
				          f->name, grid.x, grid.y, grid.z, block.x, block.y, block.z,
				          (unsigned long long)block.x * block.y * block.z);
			return shim_error(cudaErrorInvalidConfiguration);
		}
	}
	shim_lock();
	if (shim_forward() && !shim_out()) {
		/* not recording: the PTX is not needed */
		shim_unlock();
		return cudaSuccess;
	}
	const struct ptx_func *pf = entry_of(f);
	if (pf->nparams && !args) {
		shim_unlock();
		return shim_forward() ? cudaSuccess : shim_error(cudaErrorInvalidValue);
	}
	shim_sync_managed();
	record_launch(f, pf, grid, block, shmem, args);
	shim_unlock();
	return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream)
{
	SHIM_ENTER();
	shim_lock();
	struct shim_func *f = shim_func_find(kernel);
	shim_unlock();
	cudaError_t e = shim_launch(f, gridDim, blockDim, args, sharedMem);
	if (shim_forward_device())
		return REAL(__cudaLaunchKernel)(kernel, gridDim, blockDim, args, sharedMem, stream);
	return e;
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                    void **args, size_t sharedMem, cudaStream_t stream)
{
	SHIM_ENTER();
	shim_lock();
	struct shim_func *f = shim_func_find(kernel);
	shim_unlock();
	cudaError_t e = shim_launch(f, gridDim, blockDim, args, sharedMem);
	if (shim_forward_device())
		return REAL(__cudaLaunchKernel_ptsz)(kernel, gridDim, blockDim, args, sharedMem,
		                                     stream);
	return e;
}

SHIM_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                         void **args, size_t sharedMem, cudaStream_t stream)
{
	SHIM_ENTER();
	shim_lock();
	struct shim_func *f = shim_func_find(func);
	shim_unlock();
	cudaError_t e = shim_launch(f, gridDim, blockDim, args, sharedMem);
	if (shim_forward_device())
		return REAL(cudaLaunchKernel)(func, gridDim, blockDim, args, sharedMem, stream);
	return e;
}

SHIM_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                              void **args, size_t sharedMem, cudaStream_t stream)
{
	SHIM_ENTER();
	shim_lock();
	struct shim_func *f = shim_func_find(func);
	shim_unlock();
	cudaError_t e = shim_launch(f, gridDim, blockDim, args, sharedMem);
	if (shim_forward_device())
		return REAL(cudaLaunchKernel_ptsz)(func, gridDim, blockDim, args, sharedMem, stream);
	return e;
}

/* ---- function attributes ------------------------------------------------- */

SHIM_EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
	FORWARD(cudaFuncGetAttributes, attr, func);
	shim_lock();
	struct shim_func *f = shim_func_find(func);
	shim_unlock();
	if (!f || !attr)
		return shim_error(f ? cudaErrorInvalidValue : cudaErrorInvalidDeviceFunction);
	memset(attr, 0, sizeof *attr);
	attr->maxThreadsPerBlock = 1024;
	attr->numRegs = 32;
	attr->ptxVersion = 90;
	attr->binaryVersion = 90;
	attr->maxDynamicSharedSizeBytes = 48 * 1024;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
	FORWARD(cudaFuncSetAttribute, func, attr, value);
	(void)func; (void)attr; (void)value;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config)
{
	FORWARD(cudaFuncSetCacheConfig, func, config);
	(void)func; (void)config;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                                      const void *func,
                                                                      int blockSize,
                                                                      size_t dynamicSMemSize)
{
	FORWARD(cudaOccupancyMaxActiveBlocksPerMultiprocessor, numBlocks, func, blockSize,
	        dynamicSMemSize);
	(void)func; (void)dynamicSMemSize;
	if (!numBlocks || blockSize <= 0)
		return shim_error(cudaErrorInvalidValue);
	*numBlocks = 2048 / blockSize > 32 ? 32 : 2048 / blockSize;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
	int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned flags)
{
	FORWARD(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, numBlocks, func, blockSize,
	        dynamicSMemSize, flags);
	(void)flags;
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize,
	                                                     dynamicSMemSize);
}
