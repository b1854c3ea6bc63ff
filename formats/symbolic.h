/*
 * symbolic.h: records dexec adds to the stream (dirigo-symbolic(5)).
 *
 * writes       the write set of one launch: (dom, addr, val) triples over
 *              the symbolic thread (TID/CTAID) and LOAD leaves (space = the
 *              value id read, byte offset); addr is a byte offset into the
 *              written value; for one thread, the write with the larger seq
 *              wins.
 * finding      a violation of the CUDA model found while executing a launch
 * unsupported  a launch dexec could not execute (with the reason)
 */
#ifndef DIRIGO_FORMATS_SYMBOLIC_H
#define DIRIGO_FORMATS_SYMBOLIC_H

#include <stdbool.h>
#include <stdint.h>

#include "expr.h"
#include "stream.h"

struct sym_write {
	uint32_t value;              /* the value (buffer version) written */
	const struct expr *dom;      /* bool: which threads perform it */
	const struct expr *addr;     /* bv64: byte offset into the value */
	const struct expr *val;      /* what is written (real or bv) */
	enum etype et;               /* store type: size and interpretation */
	uint32_t seq;                /* program order within a thread */
	uint32_t line;               /* PTX line of the store */
	uint32_t src_line;           /* .cu line, 0 if unknown */
};

struct sym_writes {                  /* "writes" */
	uint32_t launch, prog;
	const char *kernel;
	uint32_t bundles;            /* logical threads after splitting */
	double ms;                   /* execution time */
	struct sym_write *writes;
	uint32_t nwrites;
};

struct sym_finding {                 /* "finding" */
	const char *cls;             /* "oob-global", "uninit-output", ... */
	uint32_t prog, launch;
	const char *kernel;
	uint32_t line;               /* PTX line, 0 if none */
	const char *src_file;        /* NULL if unknown */
	uint32_t src_line;
	bool has_thread;
	uint32_t tid[3], ctaid[3];   /* a witness thread */
	bool has_addr;
	uint32_t value;              /* the value accessed (NO_VALUE if none) */
	int64_t off;                 /* byte offset accessed */
	const char *message;
};

struct sym_unsupported {             /* "unsupported" */
	uint32_t prog, launch;
	const char *kernel;
	uint32_t line;
	const char *what;            /* short: "instruction 'tex'", "data-dependent branch" */
	const char *message;
};

void sym_write_writes(struct stream_out *w, const struct sym_writes *r);
void sym_write_finding(struct stream_out *w, const struct sym_finding *r);
void sym_write_unsupported(struct stream_out *w, const struct sym_unsupported *r);

/* Expressions are rebuilt in cx. */
bool sym_read_writes(const struct record *rec, struct ectx *cx, struct arena *a, struct sym_writes *r);
bool sym_read_finding(const struct record *rec, struct arena *a, struct sym_finding *r);
bool sym_read_unsupported(const struct record *rec, struct arena *a, struct sym_unsupported *r);

#endif
