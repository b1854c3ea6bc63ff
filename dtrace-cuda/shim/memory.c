/*
 * memory.c: allocation, copies and memsets of the record-only runtime.
 * Device memory is host memory filled with SHIM_FILL (real device memory
 * starts uninitialised); every operation on it is recorded.
 */
#include "shim.h"

#include <stdlib.h>
#include <string.h>

/* ---- allocation ---------------------------------------------------------- */

static uint64_t hash64(const void *p, size_t n)
{
	char hex[17];
	trace_hash_hex(p, n, hex);
	return strtoull(hex, NULL, 16);
}

static cudaError_t alloc(void **p, size_t size, enum trace_alloc_kind kind)
{
	if (!p)
		return shim_error(cudaErrorInvalidValue);
	*p = NULL;
	if (size == 0)
		return cudaSuccess;
	size_t rounded = (size + SHIM_ALIGN - 1) / SHIM_ALIGN * SHIM_ALIGN;
	void *mem = aligned_alloc(SHIM_ALIGN, rounded);
	if (!mem)
		return shim_error(cudaErrorMemoryAllocation);
	memset(mem, SHIM_FILL, rounded);
	shim_lock();
	struct shim_buf *b = shim_buf_add((uintptr_t)mem, size, kind, mem, 0, NULL);
	if (kind == TA_MANAGED)
		b->host_hash = hash64(mem, size);
	shim_unlock();
	*p = mem;
	return cudaSuccess;
}

static cudaError_t release(void *p, bool host)
{
	if (!p)
		return cudaSuccess;
	shim_lock();
	struct shim_buf *b = shim_buf_find((uintptr_t)p);
	if (!b || b->base != (uintptr_t)p || (b->kind == TA_HOST) != host || !b->mem) {
		shim_unlock();
		return shim_error(host ? cudaErrorInvalidValue : cudaErrorInvalidDevicePointer);
	}
	void *mem = b->mem;
	shim_buf_remove(b);
	shim_unlock();
	free(mem);
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	return alloc(devPtr, size, TA_DEVICE);
}

SHIM_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
	(void)flags;
	return alloc(devPtr, size, TA_MANAGED);
}

SHIM_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	return alloc(ptr, size, TA_HOST);
}

SHIM_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	(void)flags;
	return alloc(pHost, size, TA_HOST);
}

SHIM_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream)
{
	(void)stream;
	return alloc(devPtr, size, TA_DEVICE);
}

SHIM_EXPORT cudaError_t cudaFree(void *devPtr) { return release(devPtr, false); }
SHIM_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t s) { (void)s; return release(devPtr, false); }
SHIM_EXPORT cudaError_t cudaFreeHost(void *ptr) { return release(ptr, true); }

SHIM_EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
	(void)flags;
	if (!pDevice)
		return shim_error(cudaErrorInvalidValue);
	*pDevice = pHost;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaMemGetInfo(size_t *free_, size_t *total)
{
	if (free_)
		*free_ = (size_t)72 << 30;
	if (total)
		*total = (size_t)80 << 30;
	return cudaSuccess;
}

/* ---- copies ------------------------------------------------------------- */

/* The device buffer holding [p, p+n), or NULL; host (pinned) buffers are
 * not device memory. */
static struct shim_buf *device_range(const void *p, size_t n)
{
	struct shim_buf *b = shim_buf_find((uintptr_t)p);
	if (b && b->hidden)
		b = NULL;
	if (!b && shim_out() && shim_store_find((uintptr_t)p))
		shim_fatal("a copy or memset of the memory of a torch tensor (storage %u) "
		           "cannot be traced yet; make the tensor with a torch op instead",
		           shim_store_find((uintptr_t)p)->id);
	if (!b || b->kind == TA_HOST || (uintptr_t)p - b->base + n > b->bytes)
		return NULL;
	return b;
}

static void record_h2d(struct shim_buf *b, uint64_t off, const void *src, size_t n)
{
	struct stream_out *w = shim_out();
	if (!w)
		return;
	char hash[17];
	trace_hash_hex(src, n, hash);
	struct trace_copy r = { .dir = TC_H2D, .buf = b->id, .off = off, .bytes = n,
	                        .hash = hash, .src_buf = TRACE_NO_BUF };
	if (n <= shim.max_data) {
		r.data = src;
		r.ndata = n;
	}
	trace_write_copy(w, &r);
	shim_flush();
}

static void record_copy(enum trace_copy_dir dir, struct shim_buf *b, uint64_t off, size_t n,
                        struct shim_buf *src, uint64_t src_off)
{
	struct stream_out *w = shim_out();
	if (!w)
		return;
	struct trace_copy r = { .dir = dir, .buf = b->id, .off = off, .bytes = n,
	                        .src_buf = src ? src->id : TRACE_NO_BUF, .src_off = src_off };
	trace_write_copy(w, &r);
	shim_flush();
}

/* One copy of n bytes; the lock is held.  Directions are checked against
 * the buffer table; cudaMemcpyDefault takes them from it. */
static cudaError_t copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	if (n == 0)
		return cudaSuccess;
	if (!dst || !src)
		return shim_error(cudaErrorInvalidValue);
	struct shim_buf *d = device_range(dst, n), *s = device_range(src, n);
	bool dd, sd;
	switch (kind) {
	case cudaMemcpyHostToHost:     dd = false; sd = false; break;
	case cudaMemcpyHostToDevice:   dd = true;  sd = false; break;
	case cudaMemcpyDeviceToHost:   dd = false; sd = true;  break;
	case cudaMemcpyDeviceToDevice: dd = true;  sd = true;  break;
	case cudaMemcpyDefault:        dd = d != NULL; sd = s != NULL; break;
	default: return shim_error(cudaErrorInvalidMemcpyDirection);
	}
	if ((dd && !d) || (sd && !s))
		return shim_error(cudaErrorInvalidValue);
	uint64_t doff = dd ? (uintptr_t)dst - d->base : 0, soff = sd ? (uintptr_t)src - s->base : 0;
	if (dd && !sd)
		record_h2d(d, doff, src, n);
	else if (!dd && sd)
		record_copy(TC_D2H, s, soff, n, NULL, 0);
	else if (dd && sd)
		record_copy(TC_D2D, d, doff, n, s, soff);
	memmove(dst, src, n);
	return cudaSuccess;
}

static cudaError_t copy_locked(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	shim_lock();
	cudaError_t e = copy(dst, src, n, kind);
	shim_unlock();
	return e;
}

SHIM_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	return copy_locked(dst, src, count, kind);
}

SHIM_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                        enum cudaMemcpyKind kind, cudaStream_t stream)
{
	(void)stream;
	return copy_locked(dst, src, count, kind);
}

/* Row by row; each row is one copy record. */
static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                          size_t width, size_t height, enum cudaMemcpyKind kind)
{
	if (width > dpitch || width > spitch)
		return shim_error(cudaErrorInvalidPitchValue);
	shim_lock();
	cudaError_t e = cudaSuccess;
	for (size_t r = 0; r < height && e == cudaSuccess; r++)
		e = copy((char *)dst + r * dpitch, (const char *)src + r * spitch, width, kind);
	shim_unlock();
	return e;
}

SHIM_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, enum cudaMemcpyKind kind)
{
	return copy2d(dst, dpitch, src, spitch, width, height, kind);
}

SHIM_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                          size_t spitch, size_t width, size_t height,
                                          enum cudaMemcpyKind kind, cudaStream_t stream)
{
	(void)stream;
	return copy2d(dst, dpitch, src, spitch, width, height, kind);
}

/* ---- memset ------------------------------------------------------------- */

static cudaError_t set(void *p, int value, size_t n)
{
	if (n == 0)
		return cudaSuccess;
	shim_lock();
	struct shim_buf *b = device_range(p, n);
	if (!b) {
		shim_unlock();
		return shim_error(cudaErrorInvalidValue);
	}
	struct stream_out *w = shim_out();
	if (w) {
		struct trace_memset r = { .buf = b->id, .off = (uintptr_t)p - b->base, .bytes = n,
		                          .value = (uint8_t)value };
		trace_write_memset(w, &r);
		shim_flush();
	}
	memset(p, (uint8_t)value, n);
	shim_unlock();
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	return set(devPtr, value, count);
}

SHIM_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	(void)stream;
	return set(devPtr, value, count);
}

/* ---- symbols ------------------------------------------------------------ */

/* The variable registered for symbol, recorded; NULL if unknown. */
static struct shim_var *symbol(const void *sym)
{
	struct shim_var *v = shim_var_find(sym);
	if (v)
		shim_module_use(v->mod);
	return v;
}

SHIM_EXPORT cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind)
{
	shim_lock();
	struct shim_var *v = symbol(sym);
	cudaError_t e = cudaErrorInvalidSymbol;
	if (v && offset <= v->size && count <= v->size - offset) {
		if (kind == cudaMemcpyDefault || kind == cudaMemcpyHostToDevice ||
		    kind == cudaMemcpyDeviceToDevice)
			e = copy((char *)v->mem + offset, src, count, kind);
		else
			e = cudaErrorInvalidMemcpyDirection;
	} else if (v) {
		e = cudaErrorInvalidValue;
	}
	shim_unlock();
	return e == cudaSuccess ? e : shim_error(e);
}

SHIM_EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *sym, const void *src, size_t count,
                                                size_t offset, enum cudaMemcpyKind kind,
                                                cudaStream_t stream)
{
	(void)stream;
	return cudaMemcpyToSymbol(sym, src, count, offset, kind);
}

SHIM_EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t count,
                                             size_t offset, enum cudaMemcpyKind kind)
{
	shim_lock();
	struct shim_var *v = symbol(sym);
	cudaError_t e = cudaErrorInvalidSymbol;
	if (v && offset <= v->size && count <= v->size - offset) {
		if (kind == cudaMemcpyDefault || kind == cudaMemcpyDeviceToHost ||
		    kind == cudaMemcpyDeviceToDevice)
			e = copy(dst, (char *)v->mem + offset, count, kind);
		else
			e = cudaErrorInvalidMemcpyDirection;
	} else if (v) {
		e = cudaErrorInvalidValue;
	}
	shim_unlock();
	return e == cudaSuccess ? e : shim_error(e);
}

SHIM_EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t count,
                                                  size_t offset, enum cudaMemcpyKind kind,
                                                  cudaStream_t stream)
{
	(void)stream;
	return cudaMemcpyFromSymbol(dst, sym, count, offset, kind);
}

SHIM_EXPORT cudaError_t cudaGetSymbolAddress(void **devPtr, const void *sym)
{
	shim_lock();
	struct shim_var *v = symbol(sym);
	if (v && devPtr)
		*devPtr = v->mem;
	shim_unlock();
	return v ? cudaSuccess : shim_error(cudaErrorInvalidSymbol);
}

SHIM_EXPORT cudaError_t cudaGetSymbolSize(size_t *size, const void *sym)
{
	shim_lock();
	struct shim_var *v = shim_var_find(sym);
	if (v && size)
		*size = v->size;
	shim_unlock();
	return v ? cudaSuccess : shim_error(cudaErrorInvalidSymbol);
}

/* ---- managed memory ------------------------------------------------------ */

void shim_sync_managed(void)
{
	for (size_t i = 0; i < shim.bufs.len; i++) {
		struct shim_buf *b = &shim.bufs.items[i];
		if (b->kind != TA_MANAGED)
			continue;
		uint64_t h = hash64((const void *)b->base, b->bytes);
		if (h == b->host_hash)
			continue;
		b->host_hash = h;
		record_h2d(b, 0, (const void *)b->base, b->bytes);
	}
}
