/*
 * resolve-impl.h: internals shared by the files that implement resolve.h
 * (resolve.c: values and memo; resolve-inv.c: inverting one write;
 * resolve-lin.c: affine views of addresses; resolve-shared.c: shared
 * memory; resolve-atomic.c: atomics; resolve-slice.c: slices for
 * replay, slice.h).  Nothing else includes it.
 */
#ifndef DIRIGO_RESOLVE_IMPL_H
#define DIRIGO_RESOLVE_IMPL_H

#include "engine/lin.h"       /* struct lin, lin_of_addr (resolve-lin.c) */
#include "engine/resolve.h"

/* Splits a domain into its thread-only conjuncts (*dom_t, true if none)
 * and its data-dependent ones (*dom_d, NULL if none). */
void split_dom(struct ectx *cx, const struct expr *dom,
               const struct expr **dom_t, const struct expr **dom_d);

/* Sets flag and, if no reason is recorded yet, the reason. */
void ri_fail(struct resolve_info *info, unsigned flag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One write inverted at one location: which threads of the launch write
 * (with the thread part of their domain) exactly [off, off+rsize)? */
struct inv_query {
	struct ectx *cx;
	struct smt *smt;                 /* NULL: no solver fallback */
	const struct smt_geom *geom;
	const uint64_t *n;               /* geometry as in lin_of_addr */
	const struct expr *addr, *dom_t;
	const struct lin *lin;           /* NULL if not affine */
	unsigned wsize, rsize;           /* bytes written, bytes read */
	bool same_kind;                  /* write and read types interchangeable */
	uint64_t off;
	uint64_t max_enum;
	uint32_t launch;                 /* for messages */
	struct wtab_cache *tabs;         /* NULL: no enumeration tables */
};

/* Fills up to max threads; returns how many were found (at most max), or
 * -1 after recording in *acc why it cannot be decided (a partial overlap,
 * an element size mismatch, a solver that gave up). */
int invert_write(const struct inv_query *q, uint32_t tids[][3], uint32_t ctaids[][3],
                 int max, struct resolve_info *acc);

/* Enumeration (resolve-enum.c): the write's addresses for every thread
 * of q's geometry, evaluated once per (address, domain, geometry) and
 * kept in q->tabs; answers as invert_write, or INV_UNTABLED when the
 * geometry is too large or an address cannot be evaluated. */
#define INV_UNTABLED (-2)
struct wtab_cache;
struct wtab_cache *wtab_cache_new(void);
void wtab_cache_free(struct wtab_cache *c);          /* NULL ok */
/* Making a table looks at dl (the resolver's deadline) as it goes. */
struct deadline_check;
void wtab_cache_set_deadline(struct wtab_cache *c, struct deadline_check *dl);
int inv_table(const struct inv_query *q, uint32_t tids[][3], uint32_t ctaids[][3],
              int max, struct resolve_info *acc);
/* The shared writes of sw, latest (epoch, warp epoch, program order)
 * first: sw->nshared indices, kept in c. */
const uint32_t *wtab_shared_order(struct wtab_cache *c, const struct sym_writes *sw);
/* resolve-inv.c: the failure for a store at a that overlaps the read
 * other than exactly (or with another element type). */
int inv_overlap_fail(const struct inv_query *q, uint64_t a, struct resolve_info *acc);

/* Shared memory (resolve-shared.c).  The write a reader thread (tid,
 * ctaid) sees through a shared LOAD leaf (space SYM_SHARED_SPACE(launch),
 * constant address packing offset, epoch and warp epoch): the latest
 * write of the same block to exactly those bytes in an earlier epoch, or
 * of the same warp in an earlier warp epoch of the reader's epoch.
 * Returns 1 with *w and the writer's tid in wtid, 0 when no write
 * reaches it (uninitialised shared memory; *launch, *off say where), -1
 * after ri_fail.  tabs: enumeration tables (NULL: none, and the writes
 * are inverted in stream order). */
int shared_writer(const struct sym_state *st, struct ectx *cx, struct smt *smt, uint64_t max_enum,
                  struct wtab_cache *tabs, const struct expr *load, const uint32_t tid[3], const uint32_t ctaid[3],
                  const struct sym_shwrite **w, uint32_t wtid[3], uint32_t *launch, uint64_t *off,
                  struct resolve_info *acc);

/* resolve.c, for resolve-atomic.c: the resolver's expressions and
 * state; x at a thread with its loads resolved (NULL when one is
 * unknown); the contents of value v at off before the launch that
 * defines it (its previous version, or UNDEF with RI_UNINIT); a shared
 * LOAD at a thread from the plain shared writes alone. */
struct ectx *rs_cx(const struct resolver *r);
const struct sym_state *rs_state(const struct resolver *r);
unsigned rs_max_depth(const struct resolver *r);      /* nested resolutions allowed */
const struct expr *rs_at_thread(struct resolver *r, const struct expr *x, const uint32_t tid[3],
                                const uint32_t ctaid[3], unsigned depth, struct resolve_info *acc);
const struct expr *rs_before(struct resolver *r, uint32_t v, uint64_t off, enum etype et,
                             unsigned depth, struct resolve_info *acc);
const struct expr *rs_shared_plain(struct resolver *r, const struct expr *load, const uint32_t tid[3],
                                   const uint32_t ctaid[3], unsigned depth, struct resolve_info *acc);

/* resolve.c: the real a plain write of integer constant bits val (type
 * wet) leaves when read as float et of the same size (nvcc stores 0.0f
 * as st.u32 0); NULL when val is no such constant or not finite. */
const struct expr *rs_bits_as(struct ectx *cx, const struct expr *val, enum etype wet, enum etype et);
/* x, the value a store of type wet left, read as et: x itself, or for
 * integer bits read as a float the real rs_bits_as gives; NULL after
 * ri_fail when x is not a constant. */
const struct expr *rs_read_as(struct ectx *cx, const struct expr *x, enum etype wet, enum etype et,
                              struct resolve_info *acc);
/* resolve.c: shared_writer with the resolver's solver and limits. */
int rs_shared_writer(struct resolver *r, const struct expr *load, const uint32_t tid[3],
                     const uint32_t ctaid[3], const struct sym_shwrite **w, uint32_t wtid[3],
                     struct resolve_info *acc);

/* A plain write of a launch that reaches a location at a thread. */
struct plain_hit {
	uint32_t tid[3], ctaid[3];
	const struct sym_write *w;
	const struct expr *dom_d;        /* the data part of its domain, or NULL */
};

/* resolve.c: the plain writes of value v (defined by a launch) that
 * cover [off, off + size of et) exactly, up to max of them into ph;
 * *all is false when more threads write there than ph holds (or than one
 * write's inversion follows).  The number found, or -1 after ri_fail. */
int rs_plain_hits(struct resolver *r, uint32_t v, uint64_t off, enum etype et, struct plain_hit *ph,
                  size_t max, bool *all, struct resolve_info *acc);

/* Global reads (resolve-global.c): the value a LOAD leaf of
 * SYM_GREAD_SPACE reads for thread (tid, ctaid), from the launch's
 * writes to the read's value: the thread's own earlier stores, those of
 * its block before its barrier epoch, else the contents before the
 * launch.  NULL when unknown (a race: RI_RACE; or the reason in acc). */
const struct expr *rs_global_read(struct resolver *r, const struct expr *load, const uint32_t tid[3],
                                  const uint32_t ctaid[3], unsigned depth, struct resolve_info *acc);

/* Atomics (resolve-atomic.c).  The contents of value v (defined by a
 * launch) at off read as et, if atomics of the launch reach it: the
 * contents before the launch combined with every contribution.  The
 * launch's plain writes that reach the location (ph[0..nph), all of
 * them unless !ph_all) are ordered with the atomics by their barrier
 * epochs when one block makes them all; a plain write and an atomic of
 * different blocks, or of different threads in one epoch, race.
 * Returns 0 when no atomic reaches the location, 1 with *out (NULL when
 * unknown: the reason is in acc), -1 after ri_fail when that cannot be
 * decided. */
int atomic_global(struct resolver *r, uint32_t v, uint64_t off, enum etype et, unsigned depth,
                  struct resolve_info *acc, const struct plain_hit *ph, size_t nph, bool ph_all,
                  const struct expr **out);
/* The same for a shared LOAD leaf read by thread (tid, ctaid): what the
 * block's latest plain store before the read left there, combined with
 * the block's atomics after it, epoch by epoch. */
int atomic_shared(struct resolver *r, const struct expr *load, const uint32_t tid[3],
                  const uint32_t ctaid[3], unsigned depth, struct resolve_info *acc,
                  const struct expr **out);

/* Torch ops (resolve-op.c).  rs_elem: any element, memoised (as
 * resolve_elem, nested at depth).  rop_elem: value v (defined by an op)
 * at off read as et: 1 with *out (NULL when unknown: the reason is in
 * acc), 0 when the op's result does not cover off (the caller goes on
 * with the previous version), -1 after ri_fail.  *rop is the per-resolver
 * state, made on first use, freed by rop_free.  rop_data: a "data" value
 * (a torch constant) at off.  rop_value_etype: the element type of an op
 * result or torch input, ET_NONE if not known. */
struct rop;
const struct expr *rs_elem(struct resolver *r, uint32_t v, uint64_t off, enum etype et,
                           unsigned depth, struct resolve_info *acc);
int rop_elem(struct resolver *r, struct rop **rop, uint32_t v, uint64_t off, enum etype et,
             unsigned depth, struct resolve_info *acc, const struct expr **out);
const struct expr *rop_data(struct resolver *r, const struct obl_value *val, uint64_t off,
                            enum etype et, struct resolve_info *acc);
enum etype rop_value_etype(const struct obligation *o, uint32_t v);
void rop_free(struct rop *rop);

#endif
