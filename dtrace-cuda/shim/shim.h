/*
 * shim.h: internals of the CUDA runtime shim (libdirigo-cudart.so), which
 * dtrace-cuda LD_PRELOADs into a program built with nvcc -cudart shared.
 * Every event that matters to dirigo is written as a trace record
 * (formats/trace.h) to the file descriptor named by $DIRIGO_TRACE_FD.
 *
 * Two layers: recording (the records, the tables of modules, kernels and
 * buffers; shared by both modes) and execution, what is done with the call,
 * chosen at load time by $DIRIGO_CUDART_MODE:
 *
 *   record   (default) the record-only runtime: no GPU, device memory is
 *            host memory, kernels are not run (memory.c, launch.c,
 *            device.c carry the calls out themselves);
 *   forward  the shim sits over the real libcudart.so.13 (or .12), loaded
 *            as the program's own dependency; every call is recorded, then
 *            handed to the real function (forward.c, REAL below).  Device
 *            memory is real device memory: h2d data is read from the host
 *            source, and calls made by torch's own libraries (forward.c,
 *            shim_enter) are passed through unrecorded.
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

#include "libcommon/arena.h"
#include "libcommon/fatbin.h"
#include "libcommon/ptx/ptx.h"
#include "libcommon/stream.h"
#include "formats/trace.h"

/* Functions of the CUDA ABI that the library exports. */
#define SHIM_EXPORT __attribute__((visibility("default")))

#define SHIM_FILL 0xFF        /* fresh device memory holds this byte */
#define SHIM_ALIGN 256        /* cudaMalloc alignment */

struct shim_module {
	const void *fatbin;       /* the fatbinary registered */
	void **handle;            /* what the program holds: the module itself,
	                             or (forward) the real runtime's handle */
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
	const void *kernel;       /* what __cudaGetKernel gave: the function
	                             itself, or (forward) the real handle */
	char *name;               /* mangled .entry name */
	struct shim_module *mod;
	const struct ptx_func *pf;   /* found on first launch */
	unsigned refused;         /* launches refused for their configuration */
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
	void *mem;                /* its device memory (record: a host buffer;
	                             forward: found when the module is used) */
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
	uint32_t next_event;            /* launches, copies, memsets on storages */
	VEC(struct shim_store) stores;  /* torch storages, sorted by base */
	VEC(struct shim_written) written;  /* storages launched on, not yet taken */
	int suppress;                   /* > 0: a torch op runs; record nothing */
};

/* A storage that event `event` (a launch that received a pointer into it,
 * a copy or memset into it) wrote: one new version of it (the rule of
 * dirigo-trace(5), section STORAGE VERSIONS). */
struct shim_written {
	uint32_t id, event;
};

/* Set by shim_enter() for the call in progress on this thread: it comes
 * from torch's own libraries (forward mode); record nothing for it. */
extern _Thread_local bool shim_quiet;

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
/* Prints "dtrace-cuda: PROG: warning: " and the message; the program goes on. */
void shim_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A call the runtime cannot record exactly (a library call, blas.c):
 * writes a "tunsupported" record naming call, prints "dtrace-cuda: PROG:
 * unsupported: CALL: message" and ends the process with status 3, which
 * dtrace-cuda reports as unsupported.  Takes the lock: call it without. */
_Noreturn void shim_unsupported(const char *call, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Buffers. */
struct shim_buf *shim_buf_add(uintptr_t base, uint64_t bytes, enum trace_alloc_kind kind,
                              void *mem, uint32_t module, const char *symbol);
/* The live buffer holding address p, or NULL. */
struct shim_buf *shim_buf_find(uintptr_t p);
void shim_buf_remove(struct shim_buf *b);

/* Torch storages registered by the recorder (torch.c). */
struct shim_store *shim_store_find(uintptr_t p);
/* Notes that event `event` (shim.next_event when it began) may have
 * written storage id: once per event, however many of a launch's
 * arguments point there. */
void shim_store_written(uint32_t id, uint32_t event);

/* Modules: looks up the PTX, writes the "module" record and the "alloc"
 * records of its variables the first time; fatal if there is no PTX. */
void shim_module_use(struct shim_module *m);
struct shim_func *shim_func_find(const void *host);
struct shim_var *shim_var_find(const void *host);

/* Records a launch of f (a kernel of the program's, or one of dirigo's
 * own, blas.c); record mode also checks it as the real runtime would.
 * Returns an error for the program, or cudaSuccess.  Forward mode only
 * records: the caller makes the real call. */
cudaError_t shim_launch(struct shim_func *f, dim3 grid, dim3 block, void **args, size_t shmem);

/* Records managed buffers the host has changed since last recorded. */
void shim_sync_managed(void);

/* The per-thread last error: set returns e for chaining. */
cudaError_t shim_error(cudaError_t e);

/* ---- execution modes (forward.c) ------------------------------------------ */

/* True when calls go to the real runtime ($DIRIGO_CUDART_MODE=forward). */
bool shim_forward(void);

/* shim_forward(), and first makes sure (once) that the real runtime can use
 * a device: fatal with the runtime's error otherwise.  Calls that need a
 * device test this; registration, which runs in constructors, does not. */
bool shim_forward_device(void);

/* The real runtime's function name; fatal when the real runtime cannot be
 * loaded or lacks it.  Use REAL(fn), which looks it up once per call site. */
void *shim_real_sym(const char *name);
#define REAL(fn) REAL_BY(shim_real_sym, fn)
/* fn as lookup(name) finds it, looked up once per call site. */
#define REAL_BY(lookup, fn) ((__typeof__(&fn))({                               \
	static void *slot_;                                                    \
	void *p_ = __atomic_load_n(&slot_, __ATOMIC_ACQUIRE);                  \
	if (!p_) {                                                             \
		p_ = lookup(#fn);                                              \
		__atomic_store_n(&slot_, p_, __ATOMIC_RELEASE);                \
	}                                                                      \
	p_; }))

/* The whole call goes to the real runtime in forward mode. */
#define FORWARD(fn, ...) do {                                                  \
	if (shim_forward_device())                                             \
		return REAL(fn)(__VA_ARGS__);                                  \
} while (0)

/* To be called first by every exported function that records: notes on
 * this thread whether the caller (its return address) is in one of torch's
 * own libraries (forward mode), which makes shim_out() NULL and buffers
 * allocated hidden for the call.  Never quiet in record mode. */
#define SHIM_ENTER() shim_enter(__builtin_return_address(0))
void shim_enter(const void *caller);

#endif
