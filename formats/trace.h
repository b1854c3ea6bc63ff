/*
 * trace.h: records of a trace stream (dirigo-trace(5)), written by
 * dtrace-cuda and read by dmerge.  This file and trace.c are the only code
 * that knows the trace layouts; see the man page for the meaning of fields.
 *
 * Writers: trace_write_X(w, rec) appends one whole record.
 * Readers: trace_read_X(rec, a, out) decodes a record whose "t" is X into
 * *out, copying strings and bytes into arena a; false (after rec_error
 * messages naming the bad fields) when a field is missing or mistyped.
 * Unknown fields are ignored.
 */
#ifndef DIRIGO_FORMATS_TRACE_H
#define DIRIGO_FORMATS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcommon/stream.h"

#define TRACE_STREAM_KIND "trace"
#define TRACE_NO_BUF UINT32_MAX

struct trace_module {              /* "module": one PTX module */
	uint32_t module;
	const char *ptx;               /* NUL-terminated PTX text */
	size_t ptxlen;
	const char *hash;              /* FNV-1a 64 of the text, 16 hex digits */
	uint32_t arch;                 /* 90 for compute_90 */
};

enum trace_alloc_kind { TA_DEVICE, TA_MANAGED, TA_HOST, TA_SYMBOL };

struct trace_alloc {               /* "alloc": a buffer comes to life */
	uint32_t buf;
	uint64_t bytes;
	enum trace_alloc_kind kind;
	uint32_t module;               /* TA_SYMBOL only */
	const char *symbol;            /* TA_SYMBOL only, else NULL */
};

struct trace_free {                /* "free" */
	uint32_t buf;
};

enum trace_copy_dir { TC_H2D, TC_D2H, TC_D2D };

/* A copy or memset names a buffer of the program's own (buf) or, in
 * traces that mix torch ops with kernels, the torch storage it reaches
 * (storage); exactly one of them is not TRACE_NO_BUF.  Likewise src_buf
 * and src_storage for the source of a d2d copy. */
struct trace_copy {                /* "copy" */
	enum trace_copy_dir dir;
	uint32_t buf;                  /* destination (h2d, d2d) or source (d2h) */
	uint32_t storage;              /* the same, a torch storage */
	uint64_t off, bytes;
	const void *data;              /* h2d: the bytes, or NULL when not kept */
	size_t ndata;
	const char *hash;              /* h2d: FNV-1a 64 of the bytes, else NULL */
	uint32_t src_buf;              /* d2d only, else TRACE_NO_BUF */
	uint32_t src_storage;          /* d2d only: the source is a torch storage */
	uint64_t src_off;
};

struct trace_memset {              /* "memset" */
	uint32_t buf;
	uint32_t storage;              /* in place of buf: a torch storage */
	uint64_t off, bytes;
	uint8_t value;
};

struct trace_arg {                 /* one kernel parameter of a launch */
	const char *param;             /* PTX parameter name */
	uint32_t size;
	const void *raw;               /* size bytes as passed */
	uint32_t buf;                  /* TRACE_NO_BUF unless it points into one */
	uint64_t off;                  /* with buf or storage: the byte offset */
	bool in_storage;               /* it points into a torch storage (and */
	uint32_t storage;              /* then buf is TRACE_NO_BUF): its id */
};

struct trace_launch {              /* "launch" */
	uint32_t launch, module;
	const char *kernel;            /* mangled .entry name */
	uint64_t grid[3], block[3], shmem;
	struct trace_arg *args;
	uint32_t nargs;
};

struct trace_end {                 /* "end": the program's exit status */
	int64_t status;
};

const char *trace_alloc_kind_name(enum trace_alloc_kind k);
const char *trace_copy_dir_name(enum trace_copy_dir d);

/* The header record of a trace stream named name (NULL: unnamed). */
void trace_write_header(struct stream_out *w, const char *name);
void trace_write_module(struct stream_out *w, const struct trace_module *r);
void trace_write_alloc(struct stream_out *w, const struct trace_alloc *r);
void trace_write_free(struct stream_out *w, const struct trace_free *r);
void trace_write_copy(struct stream_out *w, const struct trace_copy *r);
void trace_write_memset(struct stream_out *w, const struct trace_memset *r);
void trace_write_launch(struct stream_out *w, const struct trace_launch *r);
void trace_write_end(struct stream_out *w, const struct trace_end *r);
/* The "tunsupported" record (dirigo-trace(5)): what the program did that
 * no record describes exactly.  The torch recorder writes it for an op
 * (torch_write_unsupported), the runtime for a library call (op names the
 * call, e.g. "cublasSgemm").  Here, so that the runtime need not link the
 * torch records. */
void trace_write_unsupported(struct stream_out *w, const char *op, const char *message);

bool trace_read_module(const struct record *rec, struct arena *a, struct trace_module *r);
bool trace_read_alloc(const struct record *rec, struct arena *a, struct trace_alloc *r);
bool trace_read_free(const struct record *rec, struct arena *a, struct trace_free *r);
bool trace_read_copy(const struct record *rec, struct arena *a, struct trace_copy *r);
bool trace_read_memset(const struct record *rec, struct arena *a, struct trace_memset *r);
bool trace_read_launch(const struct record *rec, struct arena *a, struct trace_launch *r);
bool trace_read_end(const struct record *rec, struct arena *a, struct trace_end *r);

/* FNV-1a 64 of n bytes as 16 lowercase hex digits into hex[17]. */
void trace_hash_hex(const void *p, size_t n, char hex[17]);

#endif
