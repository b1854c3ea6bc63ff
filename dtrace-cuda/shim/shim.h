/*
 * shim.h: internals of the record-only CUDA runtime (libdirigo-cudart.so),
 * which dtrace-cuda LD_PRELOADs into a program built with nvcc -cudart
 * shared.  It implements the CUDA runtime ABI without a GPU: device memory
 * is host memory, kernels are not run, and every event that matters to
 * dirigo is written as a trace record (formats/trace.h) to the file
 * descriptor named by $DIRIGO_TRACE_FD.
 *
 * Global state: the ABI gives the runtime no context argument, so the
 * registered modules, functions, variables and live buffers are one global
 * (struct shim, below) guarded by one mutex; every exported function takes
 * it with shim_lock() and helpers named shim_* expect it held.  The launch
 * configuration stack (__cudaPushCallConfiguration) and the last error are
 * per thread, as in the real runtime.
 */
#ifndef DIRIGO_SHIM_H
#define DIRIGO_SHIM_H

#pragma GCC visibility push(default)
#include <cuda_runtime_api.h>
#pragma GCC visibility pop

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "arena.h"
#include "fatbin.h"
#include "ptx/ptx.h"
#include "stream.h"
#include "trace.h"

/* Functions of the CUDA ABI that the library exports. */
#define SHIM_EXPORT __attribute__((visibility("default")))

#define SHIM_FILL 0xFF        /* fresh device memory holds this byte */
#define SHIM_ALIGN 256        /* cudaMalloc alignment */

struct shim_module {
	const void *fatbin;       /* the fatbinary registered */
	bool loaded;              /* PTX looked for (status in st, err) */
	enum fatbin_status st;
	char err[256];
	struct fatbin_ptx ptx;
	bool emitted;             /* "module" record written; id valid */
	uint32_t id;
	struct ptx_module *ir;    /* parsed on first launch */
	struct arena arena;       /* PTX text and IR */
};

struct shim_func {
	const void *host;         /* host stub address: the launch key */
	char *name;               /* mangled .entry name */
	struct shim_module *mod;
	const struct ptx_func *pf;   /* found on first launch */
};

struct shim_buf {
	uintptr_t base;
	uint64_t bytes;
	uint32_t id;
	enum trace_alloc_kind kind;
	void *mem;                /* what to free; NULL for symbols */
	uint64_t host_hash;       /* managed: content last recorded */
	bool hidden;              /* allocated while suppressed (torch's own):
	                             never recorded, never a launch argument */
};

struct shim_store {           /* a torch storage (see torch.c) */
	uintptr_t base;
	uint64_t bytes;
	uint32_t id;
};

struct shim_var {
	const void *host;         /* host shadow: the symbol key */
	char *name;
	size_t size;
	struct shim_module *mod;
	void *mem;                /* its device memory (a host buffer) */
	bool emitted;             /* buffer recorded and live */
};

struct shim {
	pthread_mutex_t lock;
	bool ready;
	pid_t pid;                /* records only from this process */
	FILE *f;                  /* NULL: not recording */
	struct stream_out *w;
	uint64_t max_data;        /* h2d copies up to this size keep their bytes */
	const char *prog;         /* program name for messages */
	VEC(struct shim_module *) mods;
	VEC(struct shim_func *) funcs;
	VEC(struct shim_var *) vars;
	VEC(struct shim_buf) bufs;   /* live, sorted by base */
	uint32_t next_buf, next_module, next_launch;
	VEC(struct shim_store) stores;  /* torch storages, sorted by base */
	VEC(uint32_t) written;          /* storages launched on, not yet taken */
	int suppress;                   /* > 0: a torch op runs; record nothing */
};

extern struct shim shim;

/* Takes the lock, initialising on first use. */
void shim_lock(void);
void shim_unlock(void);

/* The writer for one record, or NULL when not recording (then skip it). */
struct stream_out *shim_out(void);
/* Writes out the record just ended (records reach the file whole). */
void shim_flush(void);

/* Prints "dtrace-cuda: PROG: message", flushes and ends the process with
 * status 2.  For states the trace cannot describe. */
_Noreturn void shim_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Buffers. */
struct shim_buf *shim_buf_add(uintptr_t base, uint64_t bytes, enum trace_alloc_kind kind,
                              void *mem, uint32_t module, const char *symbol);
/* The live buffer holding address p, or NULL. */
struct shim_buf *shim_buf_find(uintptr_t p);
void shim_buf_remove(struct shim_buf *b);

/* Torch storages registered by the recorder (torch.c). */
struct shim_store *shim_store_find(uintptr_t p);
/* Notes that a launch received a pointer into storage id. */
void shim_store_written(uint32_t id);

/* Modules: looks up the PTX, writes the "module" record and the "alloc"
 * records of its variables the first time; fatal if there is no PTX. */
void shim_module_use(struct shim_module *m);
struct shim_func *shim_func_find(const void *host);
struct shim_var *shim_var_find(const void *host);

/* Records managed buffers the host has changed since last recorded. */
void shim_sync_managed(void);

/* The per-thread last error: set returns e for chaining. */
cudaError_t shim_error(cudaError_t e);

#endif
