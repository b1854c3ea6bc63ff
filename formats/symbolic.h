/*
 * symbolic.h: records dexec adds to the stream (dirigo-symbolic(5)).
 *
 * writes       the write set of one launch: (dom, addr, val) triples over
 *              the symbolic thread (TID/CTAID) and LOAD leaves (space = the
 *              value id read, byte offset); addr is a byte offset into the
 *              written value; for one thread, the write with the larger seq
 *              wins.  Atomic contributions (atom, red) are writes with an
 *              operation (op != SA_NONE): the location ends up holding its
 *              value before the launch combined by op with the val of every
 *              thread whose dom and addr hit it, in any order.  A
 *              write's epoch (barriers passed) orders it against the
 *              others of its block; nothing orders writes of two blocks.
 * finding      a violation of the CUDA model found while executing a launch
 * unsupported  a launch dexec could not execute (with the reason)
 * timeout      a launch dexec did not finish within its budget (what it
 *              was doing when the time ran out; not a verdict)
 */
#ifndef DIRIGO_FORMATS_SYMBOLIC_H
#define DIRIGO_FORMATS_SYMBOLIC_H

#include <stdbool.h>
#include <stdint.h>

#include "libcommon/expr.h"
#include "libcommon/stream.h"

/* The operation of an atomic contribution; SA_NONE for a plain store. */
enum sym_atom_op {
	SA_NONE = 0,
	SA_ADD, SA_MIN, SA_MAX,      /* reals, or bitvectors (signedness from the type) */
	SA_AND, SA_OR, SA_XOR,       /* bitvectors */
	SA_EXCH,                     /* the last one wins: order-dependent unless all agree */
	SA_INC, SA_DEC,              /* atom.inc/dec: val is the bound */
	SA_CAS,                      /* compare cmp, swap in val */
	SA__COUNT
};
const char *sym_atom_name(enum sym_atom_op op);      /* "add", ...; "" for SA_NONE */
enum sym_atom_op sym_atom_parse(const char *name);   /* SA_NONE if unknown */

struct sym_write {
	uint32_t value;              /* the value (buffer version) written */
	const struct expr *dom;      /* bool: which threads perform it */
	const struct expr *addr;     /* bv64: byte offset into the value */
	const struct expr *val;      /* what is written (real or bv) */
	enum etype et;               /* store type: size and interpretation */
	uint32_t seq;                /* program order within a thread */
	uint32_t line;               /* PTX line of the store */
	uint32_t src_line;           /* .cu line, 0 if unknown */
	uint8_t op;                  /* enum sym_atom_op: SA_NONE for a plain store */
	const struct expr *cmp;      /* SA_CAS: the compare operand; else NULL */
	uint32_t epoch;              /* block barriers the thread passed before it (0 in
	                                old streams): orders the stores and atomics of
	                                one block's threads on a location */
};

/* A store to shared memory (paper 3.3.3): addr is a byte offset in the
 * block's shared window; it is seen by the threads of the same block
 * after the barrier that ends its epoch, and by the threads of the same
 * warp after the bar.warp.sync that ends its warp epoch (sub). */
struct sym_shwrite {
	const struct expr *dom, *addr, *val;
	enum etype et;
	uint32_t seq;                /* program order within a thread */
	uint32_t epoch;              /* barriers the writer passed before it */
	uint32_t sub;                /* bar.warp.sync since that barrier */
	uint32_t line, src_line;
	uint8_t op;                  /* enum sym_atom_op (as in sym_write) */
	const struct expr *cmp;
};

/* Loads of shared memory are LOAD leaves whose space names the launch and
 * whose address packs the offset with the reader's (epoch, sub): they read
 * what the block's writes of earlier epochs (and its warp's writes of
 * earlier warp epochs) left at the offset. */
#define SYM_SHARED_SPACE(launch)    (0x80000000u | (uint32_t)(launch))
#define SYM_IS_SHARED_SPACE(space)  (((space) & 0x80000000u) != 0)
#define SYM_SHARED_LAUNCH(space)    ((space) & 0x7fffffffu)
#define SYM_SH_OFF_BITS   24        /* offset: bits 0..23 */
#define SYM_SH_SUB_BITS   16        /* sub: bits 24..39; epoch: bits 40..63 */
#define SYM_SH_EPOCH_MAX  (1u << 24)
#define SYM_SH_CODE(epoch, sub) (((uint64_t)(epoch) << 40) | ((uint64_t)(sub) << 24))

/* Where a launch's opaque values come from (expr.h, "Opaque values"): the
 * value of tag launch << 32 | (i + 1) comes from entry i of the launch's
 * table (tag 0 is no entry: an idiom's own reinterpretation). */
struct sym_opaque {
	uint32_t line;               /* PTX line, 0 if none */
	const char *src_file;        /* NULL if unknown */
	uint32_t src_line;
	const char *instr;           /* the instruction as written: "mov.b32 %r1, %f1;" */
	const char *what;            /* why it has no exact meaning: "bit reinterpretation" */
};
#define SYM_OPAQUE_TAG(launch, i)   (((uint64_t)(launch) << 32) | ((uint64_t)(i) + 1))
#define SYM_OPAQUE_LAUNCH(tag)      ((uint32_t)((tag) >> 32))
#define SYM_OPAQUE_INDEX(tag)       ((uint32_t)(tag) - 1)   /* UINT32_MAX: no entry */
/* A tag no record carries: the reinterpretation dcheck makes of the bits
 * a store of launch `launch` at PTX line `line` wrote with another type
 * than they are read with (engine/resolve.c). */
#define SYM_OPAQUE_STORE(launch, line) (((uint64_t)(launch) << 32) | 0x80000000u | ((line) & 0x7fffffffu))
#define SYM_OPAQUE_IS_STORE(tag)    (((tag) & 0x80000000u) != 0)

/* A load of global memory that the launch itself may have written before
 * it (a buffer it also stores to) is a LOAD leaf whose space names the
 * launch (SYM_GREAD_SPACE) and whose address packs the byte offset (bits
 * 0..39) with the index of an entry of the record's "reads" (bits
 * 40..63): what the reader sees is decided at check time, with the
 * reader's thread concrete, from the launch's writes to the entry's value
 * (engine/resolve-global.c). */
#define SYM_GREAD_SPACE(launch)     (0x40000000u | (uint32_t)(launch))
#define SYM_IS_GREAD_SPACE(space)   (((space) & 0xC0000000u) == 0x40000000u)
#define SYM_GREAD_LAUNCH(space)     ((space) & 0x3fffffffu)
#define SYM_GR_OFF_BITS   40        /* offset: bits 0..39; read index: bits 40..63 */
#define SYM_GR_MAX        (1u << 24)
#define SYM_GR_CODE(idx)  ((uint64_t)(idx) << SYM_GR_OFF_BITS)

/* One entry of "reads": the reader's place in its thread's history. */
struct sym_gread {
	uint32_t value;              /* the value the launch writes (the buffer after it) */
	uint32_t epoch;              /* block barriers the reader passed */
	uint32_t seq;                /* stores the reader made before (program order) */
	uint32_t line, src_line;     /* PTX line (and .cu line, 0 if unknown) of the load */
};

struct sym_writes {                  /* "writes" */
	uint32_t launch, prog;
	const char *kernel;
	uint32_t bundles;            /* logical threads after splitting */
	double ms;                   /* execution time */
	struct sym_write *writes;
	uint32_t nwrites;
	/* optional: shared memory (absent in old streams: none) */
	uint64_t shared_bytes;       /* size of a block's shared window */
	struct sym_shwrite *shared;
	uint32_t nshared;
	/* optional: atomic contributions (absent in old streams: none).  The
	 * reader puts them here, apart from the plain writes; the writer also
	 * takes them from writes/shared (entries with op != SA_NONE), where
	 * dexec keeps them. */
	struct sym_write *atomics;
	uint32_t natomics;
	struct sym_shwrite *shatomics;
	uint32_t nshatomics;
	/* optional: the origins of the opaque values (absent: none) */
	struct sym_opaque *opaques;
	uint32_t nopaques;
	/* optional: global reads resolved at check time (absent: none) */
	struct sym_gread *reads;
	uint32_t nreads;
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
	/* optional: the second thread of a pair (races, divergence) */
	bool has_thread2;
	uint32_t tid2[3], ctaid2[3];
};

struct sym_unsupported {             /* "unsupported" */
	uint32_t prog, launch;
	const char *kernel;
	uint32_t line;
	const char *what;            /* short: "instruction 'tex'", "data-dependent branch" */
	const char *message;
};

struct sym_timeout {                 /* "timeout" */
	uint32_t prog, launch;
	const char *kernel;
	uint32_t line;               /* PTX line it was at, 0 if none */
	const char *doing;           /* short: "executing", "race check", "not started" */
	const char *message;         /* for people: kernel, PTX line, .cu line, what */
};

void sym_write_writes(struct stream_out *w, const struct sym_writes *r);
void sym_write_finding(struct stream_out *w, const struct sym_finding *r);
void sym_write_unsupported(struct stream_out *w, const struct sym_unsupported *r);
void sym_write_timeout(struct stream_out *w, const struct sym_timeout *r);

/* The origin of an opaque node in launch record r, or NULL when its tag
 * names no entry of r (tag 0: an idiom's own reinterpretation). */
const struct sym_opaque *sym_opaque_of(const struct sym_writes *r, const struct expr *e);

/* Relocation of the records dexec wrote for one launch (dexec --cache):
 * the same records for the same launch in another stream, where the
 * launch, its program and its values have other ids.  Value ids from[i]
 * become to[i]; the launch id from_launch (also in shared load spaces and
 * in the tags of opaque nodes) becomes launch; prog becomes prog. */
struct sym_reloc {
	uint32_t launch, prog;
	uint32_t from_launch;
	uint32_t n;
	const uint32_t *from, *to;
};
/* Writes rec (a writes, finding or unsupported record) relocated to w,
 * field order and encodings kept, so that records relocated to their own
 * ids are the same bytes.  False, writing nothing, when rec is of another
 * type, malformed, or names a value or launch outside the map.  w NULL:
 * only the check. */
bool sym_relocate(struct stream_out *w, const struct record *rec, const struct sym_reloc *m);

/* Expressions are rebuilt in cx. */
bool sym_read_writes(const struct record *rec, struct ectx *cx, struct arena *a, struct sym_writes *r);
bool sym_read_finding(const struct record *rec, struct arena *a, struct sym_finding *r);
bool sym_read_unsupported(const struct record *rec, struct arena *a, struct sym_unsupported *r);
bool sym_read_timeout(const struct record *rec, struct arena *a, struct sym_timeout *r);

#endif
