/*
 * memory.c: allocation, copies and memsets.  Each exported function does
 * the call (record mode: on host memory, filled with SHIM_FILL at
 * allocation as real device memory starts uninitialised; forward mode: the
 * real function) and records it with the same functions in both modes:
 * alloc_note, copy_note, set_note.  Forward mode reads h2d data from the
 * host source; device memory is never read.
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

/* Records the allocation *p of size bytes the call just made (e, its
 * result). */
static cudaError_t alloc_note(void **p, size_t size, enum trace_alloc_kind kind, cudaError_t e)
{
	if (e != cudaSuccess || !p || !*p || size == 0)
		return e;
	shim_lock();
	struct shim_buf *b = shim_buf_add((uintptr_t)*p, size, kind, *p, 0, NULL);
	if (kind == TA_MANAGED)
		b->host_hash = hash64(*p, size);
	shim_unlock();
	return e;
}

/* Record mode's allocation: host memory. */
static cudaError_t host_alloc(void **p, size_t size)
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
	*p = mem;
	return cudaSuccess;
}

/* Records the release of p; record mode also checks it and frees the
 * memory.  Forward mode leaves the checks and the freeing to the real
 * runtime, which is then called with e = cudaSuccess. */
static cudaError_t release(void *p, bool host)
{
	if (!p)
		return cudaSuccess;
	shim_lock();
	struct shim_buf *b = shim_buf_find((uintptr_t)p);
	if (!b || b->base != (uintptr_t)p || (b->kind == TA_HOST) != host || !b->mem) {
		shim_unlock();
		if (shim_forward())
			return cudaSuccess;
		return shim_error(host ? cudaErrorInvalidValue : cudaErrorInvalidDevicePointer);
	}
	void *mem = b->mem;
	shim_buf_remove(b);
	shim_unlock();
	if (!shim_forward())
		free(mem);
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	SHIM_ENTER();
	return alloc_note(devPtr, size, TA_DEVICE, shim_forward_device()
	                  ? REAL(cudaMalloc)(devPtr, size) : host_alloc(devPtr, size));
}

SHIM_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
	SHIM_ENTER();
	return alloc_note(devPtr, size, TA_MANAGED, shim_forward_device()
	                  ? REAL(cudaMallocManaged)(devPtr, size, flags) : host_alloc(devPtr, size));
}

SHIM_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	SHIM_ENTER();
	return alloc_note(ptr, size, TA_HOST, shim_forward_device()
	                  ? REAL(cudaMallocHost)(ptr, size) : host_alloc(ptr, size));
}

SHIM_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	SHIM_ENTER();
	return alloc_note(pHost, size, TA_HOST, shim_forward_device()
	                  ? REAL(cudaHostAlloc)(pHost, size, flags) : host_alloc(pHost, size));
}

SHIM_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream)
{
	SHIM_ENTER();
	return alloc_note(devPtr, size, TA_DEVICE, shim_forward_device()
	                  ? REAL(cudaMallocAsync)(devPtr, size, stream) : host_alloc(devPtr, size));
}

SHIM_EXPORT cudaError_t cudaFree(void *devPtr)
{
	SHIM_ENTER();
	cudaError_t e = release(devPtr, false);
	return shim_forward_device() ? REAL(cudaFree)(devPtr) : e;
}

SHIM_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t s)
{
	SHIM_ENTER();
	cudaError_t e = release(devPtr, false);
	return shim_forward_device() ? REAL(cudaFreeAsync)(devPtr, s) : e;
}

SHIM_EXPORT cudaError_t cudaFreeHost(void *ptr)
{
	SHIM_ENTER();
	cudaError_t e = release(ptr, true);
	return shim_forward_device() ? REAL(cudaFreeHost)(ptr) : e;
}

SHIM_EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
	FORWARD(cudaHostGetDevicePointer, pDevice, pHost, flags);
	if (!pDevice)
		return shim_error(cudaErrorInvalidValue);
	*pDevice = pHost;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaMemGetInfo(size_t *free_, size_t *total)
{
	FORWARD(cudaMemGetInfo, free_, total);
	if (free_)
		*free_ = (size_t)72 << 30;
	if (total)
		*total = (size_t)80 << 30;
	return cudaSuccess;
}

/* ---- copies ------------------------------------------------------------- */

/* Whether p is device memory the table does not hold (forward mode: the
 * real runtime's word; memory torch allocated, or allocated by a call the
 * shim does not see). */
static bool unknown_device(const void *p)
{
	if (!shim_forward())
		return false;
	struct cudaPointerAttributes a;
	if (REAL(cudaPointerGetAttributes)(&a, p) != cudaSuccess) {
		REAL(cudaGetLastError)();
		return false;
	}
	return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

/* Where a copy or memset reaches: a device buffer of the program's own,
 * or the memory of a torch tensor (storage; traces that mix torch ops with
 * kernels, where a tensor's memory is device memory whatever the copy's
 * kind says), and the byte offset in it. */
struct place {
	struct shim_buf *b;
	struct shim_store *st;
	uint64_t off;
};

/* Whether [p, p+n) is device memory, with *pl; host (pinned) buffers are
 * not.  Stops the program (forward mode) on device memory the table does
 * not hold, and on a range that runs past the end of a torch storage: the
 * trace could not say what was copied. */
static bool device_place(const void *p, size_t n, struct place *pl)
{
	*pl = (struct place){ NULL, NULL, 0 };
	struct shim_buf *b = shim_buf_find((uintptr_t)p);
	if (b && b->hidden)
		b = NULL;
	struct shim_store *st = !b && shim_out() ? shim_store_find((uintptr_t)p) : NULL;
	if (st) {
		pl->st = st;
		pl->off = (uintptr_t)p - st->base;
		if (pl->off + n > st->bytes)
			shim_fatal("a copy or memset of %zu bytes at byte %llu of the memory of a "
			           "torch tensor (storage %u, %llu bytes) runs past its end", n,
			           (unsigned long long)pl->off, st->id, (unsigned long long)st->bytes);
		return true;
	}
	if (!b && shim_out() && unknown_device(p))
		shim_fatal("a copy or memset of device memory at %p that was not allocated by a "
		           "call dtrace-cuda records (cudaMalloc, cudaMallocManaged, "
		           "cudaMallocAsync, cudaMallocHost, cudaHostAlloc)", p);
	if (!b || b->kind == TA_HOST || (uintptr_t)p - b->base + n > b->bytes)
		return false;
	pl->b = b;
	pl->off = (uintptr_t)p - b->base;
	return true;
}

static void record_h2d(const struct place *d, const void *src, size_t n)
{
	struct stream_out *w = shim_out();
	if (!w)
		return;
	char hash[17];
	trace_hash_hex(src, n, hash);
	struct trace_copy r = { .dir = TC_H2D, .buf = d->b ? d->b->id : TRACE_NO_BUF,
	                        .storage = d->st ? d->st->id : TRACE_NO_BUF, .off = d->off,
	                        .bytes = n, .hash = hash, .src_buf = TRACE_NO_BUF,
	                        .src_storage = TRACE_NO_BUF };
	if (n <= shim.max_data) {
		r.data = src;
		r.ndata = n;
	}
	trace_write_copy(w, &r);
	shim_flush();
	if (d->st)
		shim_store_written(d->st->id, shim.next_event++);
}

/* d2h (d is the source, src NULL) or d2d. */
static void record_copy(enum trace_copy_dir dir, const struct place *d, size_t n,
                        const struct place *src)
{
	struct stream_out *w = shim_out();
	if (!w)
		return;
	struct trace_copy r = { .dir = dir, .buf = d->b ? d->b->id : TRACE_NO_BUF,
	                        .storage = d->st ? d->st->id : TRACE_NO_BUF, .off = d->off,
	                        .bytes = n, .src_buf = TRACE_NO_BUF, .src_storage = TRACE_NO_BUF };
	if (src) {
		r.src_buf = src->b ? src->b->id : TRACE_NO_BUF;
		r.src_storage = src->st ? src->st->id : TRACE_NO_BUF;
		r.src_off = src->off;
	}
	trace_write_copy(w, &r);
	shim_flush();
	if (dir == TC_D2D && d->st)
		shim_store_written(d->st->id, shim.next_event++);
}

/* Records one copy of n bytes; the lock is held.  Directions are checked
 * against the buffer table; cudaMemcpyDefault takes them from it, and the
 * memory of a torch tensor is device memory whatever the kind.  Returns
 * the error of a copy record mode refuses.  Forward mode records only what
 * it recognises and leaves the checks to the real runtime; nothing is
 * looked up when nothing is recorded. */
static cudaError_t copy_note(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	if (n == 0)
		return cudaSuccess;
	if (!dst || !src)
		return shim_forward() ? cudaSuccess : shim_error(cudaErrorInvalidValue);
	if (shim_forward() && !shim_out())
		return cudaSuccess;
	struct place d, s;
	bool hd = device_place(dst, n, &d), hs = device_place(src, n, &s);
	bool dd, sd;
	switch (kind) {
	case cudaMemcpyHostToHost:     dd = false; sd = false; break;
	case cudaMemcpyHostToDevice:   dd = true;  sd = false; break;
	case cudaMemcpyDeviceToHost:   dd = false; sd = true;  break;
	case cudaMemcpyDeviceToDevice: dd = true;  sd = true;  break;
	case cudaMemcpyDefault:        dd = hd; sd = hs; break;
	default:
		return shim_forward() ? cudaSuccess : shim_error(cudaErrorInvalidMemcpyDirection);
	}
	dd = dd || d.st;
	sd = sd || s.st;
	if ((dd && !hd) || (sd && !hs))
		return shim_forward() ? cudaSuccess : shim_error(cudaErrorInvalidValue);
	if (dd && !sd)
		record_h2d(&d, src, n);
	else if (!dd && sd)
		record_copy(TC_D2H, &s, n, NULL);
	else if (dd && sd)
		record_copy(TC_D2D, &d, n, &s);
	return cudaSuccess;
}

/* Record mode's copy: records it, then carries it out. */
static cudaError_t copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	cudaError_t e = copy_note(dst, src, n, kind);
	if (e == cudaSuccess && n)
		memmove(dst, src, n);
	return e;
}

static cudaError_t copy_locked(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                               bool exec)
{
	shim_lock();
	cudaError_t e = exec ? copy(dst, src, n, kind) : copy_note(dst, src, n, kind);
	shim_unlock();
	return e;
}

SHIM_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	SHIM_ENTER();
	bool fwd = shim_forward_device();
	cudaError_t e = copy_locked(dst, src, count, kind, !fwd);
	return fwd ? REAL(cudaMemcpy)(dst, src, count, kind) : e;
}

SHIM_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                        enum cudaMemcpyKind kind, cudaStream_t stream)
{
	SHIM_ENTER();
	bool fwd = shim_forward_device();
	cudaError_t e = copy_locked(dst, src, count, kind, !fwd);
	return fwd ? REAL(cudaMemcpyAsync)(dst, src, count, kind, stream) : e;
}

/* Row by row; each row is one copy record. */
static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                          size_t width, size_t height, enum cudaMemcpyKind kind, bool exec)
{
	if (width > dpitch || width > spitch)
		return exec ? shim_error(cudaErrorInvalidPitchValue) : cudaSuccess;
	shim_lock();
	cudaError_t e = cudaSuccess;
	for (size_t r = 0; r < height && e == cudaSuccess; r++) {
		void *d = (char *)dst + r * dpitch;
		const void *s = (const char *)src + r * spitch;
		e = exec ? copy(d, s, width, kind) : copy_note(d, s, width, kind);
	}
	shim_unlock();
	return e;
}

SHIM_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, enum cudaMemcpyKind kind)
{
	SHIM_ENTER();
	bool fwd = shim_forward_device();
	cudaError_t e = copy2d(dst, dpitch, src, spitch, width, height, kind, !fwd);
	return fwd ? REAL(cudaMemcpy2D)(dst, dpitch, src, spitch, width, height, kind) : e;
}

SHIM_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                          size_t spitch, size_t width, size_t height,
                                          enum cudaMemcpyKind kind, cudaStream_t stream)
{
	SHIM_ENTER();
	bool fwd = shim_forward_device();
	cudaError_t e = copy2d(dst, dpitch, src, spitch, width, height, kind, !fwd);
	return fwd ? REAL(cudaMemcpy2DAsync)(dst, dpitch, src, spitch, width, height, kind, stream)
	           : e;
}

/* ---- memset ------------------------------------------------------------- */

/* Records a memset; record mode checks it and (exec) carries it out. */
static cudaError_t set(void *p, int value, size_t n, bool exec)
{
	if (n == 0)
		return cudaSuccess;
	shim_lock();
	if (!exec && !shim_out()) {
		shim_unlock();
		return cudaSuccess;
	}
	struct place pl;
	if (!device_place(p, n, &pl)) {
		shim_unlock();
		return exec ? shim_error(cudaErrorInvalidValue) : cudaSuccess;
	}
	struct stream_out *w = shim_out();
	if (w) {
		struct trace_memset r = { .buf = pl.b ? pl.b->id : TRACE_NO_BUF,
		                          .storage = pl.st ? pl.st->id : TRACE_NO_BUF, .off = pl.off,
		                          .bytes = n, .value = (uint8_t)value };
		trace_write_memset(w, &r);
		shim_flush();
		if (pl.st)
			shim_store_written(pl.st->id, shim.next_event++);
	}
	if (exec)
		memset(p, (uint8_t)value, n);
	shim_unlock();
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	SHIM_ENTER();
	bool fwd = shim_forward_device();
	cudaError_t e = set(devPtr, value, count, !fwd);
	return fwd ? REAL(cudaMemset)(devPtr, value, count) : e;
}

SHIM_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	SHIM_ENTER();
	bool fwd = shim_forward_device();
	cudaError_t e = set(devPtr, value, count, !fwd);
	return fwd ? REAL(cudaMemsetAsync)(devPtr, value, count, stream) : e;
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

/* Records a copy to (to) or from a variable; record mode also checks it
 * and (exec) carries it out. */
static cudaError_t symbol_copy(bool to, const void *sym, void *host, size_t count, size_t offset,
                               enum cudaMemcpyKind kind, bool exec)
{
	shim_lock();
	if (!exec && !shim_out()) {
		shim_unlock();
		return cudaSuccess;
	}
	struct shim_var *v = symbol(sym);
	cudaError_t e = cudaErrorInvalidSymbol;
	if (v && offset <= v->size && count <= v->size - offset) {
		char *dev = (char *)v->mem + offset;
		if (kind == cudaMemcpyDefault || kind == cudaMemcpyDeviceToDevice ||
		    kind == (to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost)) {
			if (to)
				e = exec ? copy(dev, host, count, kind) : copy_note(dev, host, count, kind);
			else
				e = exec ? copy(host, dev, count, kind) : copy_note(host, dev, count, kind);
		} else {
			e = cudaErrorInvalidMemcpyDirection;
		}
	} else if (v) {
		e = cudaErrorInvalidValue;
	}
	shim_unlock();
	if (!exec)
		return cudaSuccess;
	return e == cudaSuccess ? e : shim_error(e);
}

SHIM_EXPORT cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind)
{
	SHIM_ENTER();
	bool fwd = shim_forward_device();
	cudaError_t e = symbol_copy(true, sym, (void *)src, count, offset, kind, !fwd);
	return fwd ? REAL(cudaMemcpyToSymbol)(sym, src, count, offset, kind) : e;
}

SHIM_EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *sym, const void *src, size_t count,
                                                size_t offset, enum cudaMemcpyKind kind,
                                                cudaStream_t stream)
{
	SHIM_ENTER();
	bool fwd = shim_forward_device();
	cudaError_t e = symbol_copy(true, sym, (void *)src, count, offset, kind, !fwd);
	return fwd ? REAL(cudaMemcpyToSymbolAsync)(sym, src, count, offset, kind, stream) : e;
}

SHIM_EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t count,
                                             size_t offset, enum cudaMemcpyKind kind)
{
	SHIM_ENTER();
	bool fwd = shim_forward_device();
	cudaError_t e = symbol_copy(false, sym, dst, count, offset, kind, !fwd);
	return fwd ? REAL(cudaMemcpyFromSymbol)(dst, sym, count, offset, kind) : e;
}

SHIM_EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t count,
                                                  size_t offset, enum cudaMemcpyKind kind,
                                                  cudaStream_t stream)
{
	SHIM_ENTER();
	bool fwd = shim_forward_device();
	cudaError_t e = symbol_copy(false, sym, dst, count, offset, kind, !fwd);
	return fwd ? REAL(cudaMemcpyFromSymbolAsync)(dst, sym, count, offset, kind, stream) : e;
}

SHIM_EXPORT cudaError_t cudaGetSymbolAddress(void **devPtr, const void *sym)
{
	SHIM_ENTER();
	if (shim_forward_device()) {
		cudaError_t e = REAL(cudaGetSymbolAddress)(devPtr, sym);
		if (e == cudaSuccess) {
			/* the variable's buffer is recorded: it may be a launch argument */
			shim_lock();
			if (shim_out())
				symbol(sym);
			shim_unlock();
		}
		return e;
	}
	shim_lock();
	struct shim_var *v = symbol(sym);
	if (v && devPtr)
		*devPtr = v->mem;
	shim_unlock();
	return v ? cudaSuccess : shim_error(cudaErrorInvalidSymbol);
}

SHIM_EXPORT cudaError_t cudaGetSymbolSize(size_t *size, const void *sym)
{
	FORWARD(cudaGetSymbolSize, size, sym);
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
		struct place pl = { b, NULL, 0 };
		record_h2d(&pl, (const void *)b->base, b->bytes);
	}
}
