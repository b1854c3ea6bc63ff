/*
 * expr-impl.h: internals shared by the files that implement expr.h
 * (expr.c: context, interning, queries, substitution; expr-simp.c: the
 * simplifying constructors; expr-eval.c: folding and evaluation;
 * expr-print.c: text; expr-prog.c: compiled evaluation).  Nothing outside
 * those files includes it.
 */
#ifndef DIRIGO_EXPR_IMPL_H
#define DIRIGO_EXPR_IMPL_H

#include <stdint.h>
#include <string.h>

#include "libcommon/expr.h"

struct ectx {
	struct arena arena;
	const struct expr **tab;   /* open addressing, linear probing */
	uint32_t *htab;            /* hashes of tab's nodes: probes stay in cache */
	size_t cap, count;         /* cap is a power of two; load <= 1/2 */
	uint32_t cxid;
	bool (*float_mem)(uint32_t space, void *user);   /* ectx_set_float_mem */
	void *float_mem_user;
	/* the sums mk_fadd made without a constant, with their number of
	 * terms (expr-simp.c, sum_append): open addressing on the node */
	struct sum_rec { const struct expr *e; size_t n; } *sums;
	size_t sums_cap, sums_len;
};

/* The one place nodes are made: returns the existing node equal to the
 * description, or a new one.  No simplification, no checks. */
const struct expr *x_intern(struct ectx *cx, enum eop op, sort_t sort, unsigned et,
                            uint32_t space, uint64_t u, uint64_t off,
                            unsigned n, const struct expr *const *args);

static inline uint64_t bv_mask(unsigned w)
{
	return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

/* Value v of width w as a signed 64-bit number. */
static inline int64_t bv_sx(uint64_t v, unsigned w)
{
	if (w >= 64)
		return (int64_t)v;
	uint64_t m = (uint64_t)1 << (w - 1);
	v &= bv_mask(w);
	return (int64_t)((v ^ m) - m);
}

static inline bool bv_neg_bit(uint64_t v, unsigned w)
{
	return (v >> (w - 1)) & 1;
}

static inline double x_real(const struct expr *e)
{
	return e->d;
}

/* Bitvector operation on constants.  w is the result width (for
 * comparisons: the argument width, result 0/1), a[] the argument values,
 * aw[] their widths.  Returns false for ops that are not bitvector ops. */
bool x_bv_fold(enum eop op, unsigned w, uint64_t aux, unsigned n,
               const uint64_t *a, const unsigned *aw, uint64_t *out);

/* Real to integer conversion with saturation (NaN gives 0). */
uint64_t x_r2bv(long double r, enum rmode m, unsigned w, bool is_signed);

/* expr-bits.c: opaque values and the float bit idioms.  x_opaque builds an
 * OPAQUE node (fold: F of a constant may fold, see expr-bits.c); the
 * others return the node an idiom makes of op(a, b) or ite(c, t, f), or
 * NULL when none applies (the caller builds the node as usual). */
const struct expr *x_opaque(struct ectx *cx, sort_t s, uint64_t aux, unsigned n,
                            const struct expr *const *args, bool fold);
const struct expr *x_bits_bv(struct ectx *cx, enum eop op, sort_t s, const struct expr *a,
                             const struct expr *b);
const struct expr *x_bits_cmp(struct ectx *cx, enum eop op, const struct expr *a, const struct expr *b);
const struct expr *x_bits_ite(struct ectx *cx, const struct expr *c, const struct expr *t,
                              const struct expr *f);

/* A small map from node id to a 64-bit value, for per-call memos. */
struct idmap {
	uint32_t *keys;          /* id + 1; 0 is empty */
	uint64_t *vals;
	size_t cap, len;
	uint32_t kbuf[64];
	uint64_t vbuf[64];
};
void idmap_init(struct idmap *m);
void idmap_free(struct idmap *m);
uint64_t *idmap_get(struct idmap *m, uint32_t id);     /* NULL if absent */
void idmap_put(struct idmap *m, uint32_t id, uint64_t v);

#endif
