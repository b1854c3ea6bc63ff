/*
 * expr-simp.c: the simplifying constructors of expr.h (e_op and friends).
 *
 * Every rewrite here must hold exactly: over bitvectors modulo 2^w and over
 * the mathematical reals (no floating-point reasoning).  So real constants
 * are folded only when the double result is exact, and nothing assumes a
 * divisor is non-zero.  Bitvector sums are kept as canonical affine sums
 * (see expr.h), which makes equal addresses one node and lets differences
 * of addresses fold to constants.
 */
#include "libcommon/expr-impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const struct expr *intern_op(struct ectx *cx, enum eop op, sort_t sort, uint64_t aux,
                                    unsigned n, const struct expr *const *args)
{
	return x_intern(cx, op, sort, 0, 0, aux, 0, n, args);
}

static const struct expr *intern2(struct ectx *cx, enum eop op, sort_t sort,
                                  const struct expr *a, const struct expr *b)
{
	const struct expr *v[2] = { a, b };
	return x_intern(cx, op, sort, 0, 0, 0, 0, 2, v);
}

static const struct expr *intern1(struct ectx *cx, enum eop op, sort_t sort, uint64_t aux,
                                  const struct expr *a)
{
	return x_intern(cx, op, sort, 0, 0, aux, 0, 1, &a);
}

static inline bool is_bv(const struct expr *e) { return e->op == EOP_BV; }
static inline bool is_real(const struct expr *e) { return e->op == EOP_REAL; }
static inline unsigned wid(const struct expr *e) { return SORT_WIDTH(e->sort); }

static int cmp_id(const void *a, const void *b)
{
	uint32_t x = (*(const struct expr *const *)a)->id;
	uint32_t y = (*(const struct expr *const *)b)->id;
	return x < y ? -1 : x > y;
}

/* v[0..n) made of at most RUNS_MAX sorted runs (ends[i]: where run i
 * ends), merged left to right through a buffer: O(n * runs). */
#define RUNS_MAX 8
static void merge_runs(const struct expr **v, size_t n, const size_t *ends, size_t runs)
{
	const struct expr **t = xmalloc(n * sizeof *t);
	for (size_t r = 1; r < runs; r++) {
		size_t a = 0, am = ends[r - 1], b = am, bm = ends[r], k = 0;
		while (a < am && b < bm)
			t[k++] = v[b]->id < v[a]->id ? v[b++] : v[a++];
		while (a < am)
			t[k++] = v[a++];
		while (b < bm)
			t[k++] = v[b++];
		memcpy(v, t, k * sizeof *t);
	}
	free(t);
}

static void sort_by_id(const struct expr **v, size_t n)
{
	/* a long sum grown one term at a time (a loop's accumulator)
	 * flattens into a few sorted runs (its chunks): merged, not sorted */
	size_t ends[RUNS_MAX], runs = 0;
	for (size_t i = 1; i <= n && runs < RUNS_MAX; i++)
		if (i == n || v[i - 1]->id > v[i]->id)
			ends[runs++] = i;
	if (n >= 16 && runs && ends[runs - 1] == n) {
		if (runs > 1)
			merge_runs(v, n, ends, runs);
		return;
	}
	if (n < 16) {
		for (size_t i = 1; i < n; i++) {
			const struct expr *x = v[i];
			size_t j = i;
			for (; j > 0 && v[j - 1]->id > x->id; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
	} else {
		qsort(v, n, sizeof *v, cmp_id);
	}
}

/* An n-ary node of op over args (already in order), with an optional
 * constant last; groups the arguments into nested nodes of the same op
 * when there are more than E_MAX_ARGS. */
static const struct expr *nary(struct ectx *cx, enum eop op, sort_t sort,
                               const struct expr **args, size_t n, const struct expr *tail)
{
	while (n + (tail != NULL) > E_MAX_ARGS) {
		/* fixed chunks, so that appending a newest argument (the usual
		 * reduction) changes only the last chunk */
		size_t per = E_MAX_ARGS, k = 0;
		for (size_t i = 0; i < n; i += per) {
			size_t m = n - i < per ? n - i : per;
			args[k++] = m == 1 ? args[i] : intern_op(cx, op, sort, 0, (unsigned)m, args + i);
		}
		n = k;
	}
	if (tail)
		args[n++] = tail;
	return intern_op(cx, op, sort, 0, (unsigned)n, args);
}

/* ---- bitvector affine sums -------------------------------------------------- */

struct term { const struct expr *t; uint64_t c; };

struct aff {
	unsigned w;
	uint64_t k;
	struct term *v;
	size_t n, cap;
	struct term buf[16];
};

static void aff_init(struct aff *a, unsigned w)
{
	a->w = w;
	a->k = 0;
	a->v = a->buf;
	a->n = 0;
	a->cap = 16;
}

static void aff_free(struct aff *a)
{
	if (a->v != a->buf)
		free(a->v);
}

static void aff_push(struct aff *a, const struct expr *t, uint64_t c)
{
	if (a->n == a->cap) {
		a->cap *= 2;
		if (a->v == a->buf) {
			a->v = xmalloc(a->cap * sizeof *a->v);
			memcpy(a->v, a->buf, sizeof a->buf);
		} else {
			a->v = xrealloc(a->v, a->cap * sizeof *a->v);
		}
	}
	a->v[a->n++] = (struct term){ t, c };
}

/* a += c * e */
static void aff_add(struct aff *a, const struct expr *e, uint64_t c)
{
	c &= bv_mask(a->w);
	if (!c)
		return;
	if (is_bv(e))
		a->k += c * e->u;
	else if (e->op == EOP_ADD)
		for (unsigned i = 0; i < e->nargs; i++)
			aff_add(a, e->args[i], c);
	else if (e->op == EOP_MUL && is_bv(e->args[1]))
		aff_push(a, e->args[0], c * e->args[1]->u);
	else
		aff_push(a, e, c);
}

static int cmp_term(const void *x, const void *y)
{
	uint32_t a = ((const struct term *)x)->t->id, b = ((const struct term *)y)->t->id;
	return a < b ? -1 : a > b;
}

/* Sorts, merges equal terms, drops zero coefficients. */
static void aff_norm(struct aff *a)
{
	uint64_t m = bv_mask(a->w);
	if (a->n < 16) {
		for (size_t i = 1; i < a->n; i++) {
			struct term x = a->v[i];
			size_t j = i;
			for (; j > 0 && a->v[j - 1].t->id > x.t->id; j--)
				a->v[j] = a->v[j - 1];
			a->v[j] = x;
		}
	} else {
		qsort(a->v, a->n, sizeof *a->v, cmp_term);
	}
	size_t k = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (k && a->v[k - 1].t == a->v[i].t)
			a->v[k - 1].c += a->v[i].c;
		else
			a->v[k++] = a->v[i];
	}
	size_t j = 0;
	for (size_t i = 0; i < k; i++) {
		a->v[i].c &= m;
		if (a->v[i].c)
			a->v[j++] = a->v[i];
	}
	a->n = j;
	a->k &= m;
}

static const struct expr *mk_bv_arith(struct ectx *cx, enum eop op, sort_t s,
                                      const struct expr *a, const struct expr *b);

/* c*(y % m) + c*m*(y / m) is c*y (y = m*(y/m) + y%m holds for both the
 * unsigned and the truncating signed pair, modulo 2^w): the coordinates
 * of a tile, ow = i % W, oh = (i / W) % H, od = i / (W*H), put back
 * together as ow + W*oh + W*H*od, are i again, so an offset built from
 * them is affine in i (with the nesting rule of division below).  True
 * when a pair was folded. */
#define RECOMBINE_MAX 8

static bool aff_recombine(struct ectx *cx, struct aff *a)
{
	uint64_t msk = bv_mask(a->w);
	for (size_t i = 0; i < a->n; i++) {
		const struct expr *t = a->v[i].t;
		if ((t->op != EOP_UREM && t->op != EOP_SREM) || !is_bv(t->args[1]) || !t->args[1]->u)
			continue;
		const struct expr *q = mk_bv_arith(cx, t->op == EOP_UREM ? EOP_UDIV : EOP_SDIV, t->sort,
		                                   t->args[0], t->args[1]);
		uint64_t want = (a->v[i].c * t->args[1]->u) & msk;
		for (size_t j = 0; j < a->n; j++) {
			if (a->v[j].t != q || a->v[j].c != want)
				continue;
			uint64_t c = a->v[i].c;
			a->v[i].c = a->v[j].c = 0;
			aff_add(a, t->args[0], c);
			aff_norm(a);
			return true;
		}
	}
	return false;
}

static const struct expr *aff_build(struct ectx *cx, struct aff *a)
{
	aff_norm(a);
	for (int k = 0; k < RECOMBINE_MAX && aff_recombine(cx, a); k++)
		;
	sort_t s = SORT_BV(a->w);
	if (a->n == 0)
		return e_bv(cx, a->k, a->w);
	const struct expr *sbuf[32], **args = a->n + 1 <= 32 ? sbuf : xmalloc((a->n + 1) * sizeof *args);
	for (size_t i = 0; i < a->n; i++)
		args[i] = a->v[i].c == 1 ? a->v[i].t
		        : intern2(cx, EOP_MUL, s, a->v[i].t, e_bv(cx, a->v[i].c, a->w));
	const struct expr *r;
	if (a->n == 1 && a->k == 0)
		r = args[0];
	else
		r = nary(cx, EOP_ADD, s, args, a->n, a->k ? e_bv(cx, a->k, a->w) : NULL);
	if (args != sbuf)
		free(args);
	return r;
}

int e_affine(const struct expr *e, uint64_t *konst, struct affine_term *terms, int max)
{
	if (SORT_KIND(e->sort) != SK_BV)
		return -1;
	struct aff a;
	aff_init(&a, wid(e));
	aff_add(&a, e, 1);
	aff_norm(&a);
	int n = a.n > (size_t)max ? -1 : (int)a.n;
	if (n >= 0)
		for (int i = 0; i < n; i++)
			terms[i] = (struct affine_term){ a.v[i].t, a.v[i].c };
	*konst = a.k;
	aff_free(&a);
	return n;
}

/* ---- argument checks --------------------------------------------------------- */

static bool all_sort(unsigned n, const struct expr *const *args, sort_t s)
{
	for (unsigned i = 0; i < n; i++)
		if (args[i]->sort != s)
			return false;
	return true;
}

static bool sort_valid(sort_t s)
{
	switch (SORT_KIND(s)) {
	case SK_BOOL: case SK_REAL: return SORT_WIDTH(s) == 0;
	case SK_BV: return SORT_WIDTH(s) >= 1 && SORT_WIDTH(s) <= 64;
	}
	return false;
}

/* Result sort of op, or 0 with *err set. */
static sort_t result_sort(enum eop op, sort_t sort, uint64_t aux, unsigned n,
                          const struct expr *const *args, const char **err)
{
#define FAIL(msg) do { *err = (msg); return 0; } while (0)
#define NARGS(k) do { if (n != (k)) FAIL("wrong number of arguments"); } while (0)
	if ((unsigned)op >= EOP__COUNT)
		FAIL("unknown operator");
	if (op <= EOP_VAR)
		FAIL("a leaf has no arguments");
	if (n > E_MAX_ARGS)
		FAIL("too many arguments");
	for (unsigned i = 0; i < n; i++)
		if (!args[i])
			FAIL("missing argument");
	sort_t a0 = n ? args[0]->sort : 0;
	bool bv0 = n && SORT_KIND(a0) == SK_BV;
	switch (op) {
	case EOP_ADD:
		if (n < 1)
			FAIL("wrong number of arguments");
		if (!bv0 || !all_sort(n, args, a0))
			FAIL("arguments must be bitvectors of one width");
		return a0;
	case EOP_SUB: case EOP_MUL: case EOP_UDIV: case EOP_SDIV: case EOP_UREM:
	case EOP_SREM: case EOP_MULHI_U: case EOP_MULHI_S: case EOP_AND: case EOP_OR:
	case EOP_XOR: case EOP_UMIN: case EOP_UMAX: case EOP_SMIN: case EOP_SMAX:
		NARGS(2);
		if (!bv0 || !all_sort(n, args, a0))
			FAIL("arguments must be bitvectors of one width");
		return a0;
	case EOP_NEG: case EOP_NOT: case EOP_BREV:
		NARGS(1);
		if (!bv0)
			FAIL("argument must be a bitvector");
		return a0;
	case EOP_SHL: case EOP_LSHR: case EOP_ASHR:
		NARGS(2);
		if (!bv0 || SORT_KIND(args[1]->sort) != SK_BV)
			FAIL("arguments must be bitvectors");
		return a0;
	case EOP_ZEXT: case EOP_SEXT:
		NARGS(1);
		if (!bv0)
			FAIL("argument must be a bitvector");
		if (SORT_KIND(sort) != SK_BV || SORT_WIDTH(sort) < SORT_WIDTH(a0) || SORT_WIDTH(sort) > 64)
			FAIL("result must be a bitvector at least as wide as the argument");
		return sort;
	case EOP_EXTRACT:
		NARGS(1);
		if (!bv0)
			FAIL("argument must be a bitvector");
		if (SORT_KIND(sort) != SK_BV || SORT_WIDTH(sort) < 1 ||
		    aux >= 64 || aux + SORT_WIDTH(sort) > SORT_WIDTH(a0))
			FAIL("extracted bits out of range");
		return sort;
	case EOP_CONCAT:
		NARGS(2);
		if (!bv0 || SORT_KIND(args[1]->sort) != SK_BV)
			FAIL("arguments must be bitvectors");
		if (SORT_WIDTH(a0) + SORT_WIDTH(args[1]->sort) > 64)
			FAIL("result wider than 64 bits");
		return SORT_BV(SORT_WIDTH(a0) + SORT_WIDTH(args[1]->sort));
	case EOP_POPC: case EOP_CLZ:
		NARGS(1);
		if (!bv0)
			FAIL("argument must be a bitvector");
		if (sort == 0)
			return a0;
		if (SORT_KIND(sort) != SK_BV || SORT_WIDTH(sort) < 1 || SORT_WIDTH(sort) > 64)
			FAIL("result must be a bitvector");
		return sort;
	case EOP_EQ:
		NARGS(2);
		if (a0 != args[1]->sort)
			FAIL("arguments must have one sort");
		return SORT_BOOL;
	case EOP_ULT: case EOP_ULE: case EOP_SLT: case EOP_SLE:
		NARGS(2);
		if (!bv0 || a0 != args[1]->sort)
			FAIL("arguments must be bitvectors of one width");
		return SORT_BOOL;
	case EOP_FLT: case EOP_FLE:
		NARGS(2);
		if (!all_sort(2, args, SORT_REAL))
			FAIL("arguments must be reals");
		return SORT_BOOL;
	case EOP_LAND: case EOP_LOR:
		if (n < 1)
			FAIL("wrong number of arguments");
		if (!all_sort(n, args, SORT_BOOL))
			FAIL("arguments must be bools");
		return SORT_BOOL;
	case EOP_LNOT:
		NARGS(1);
		if (a0 != SORT_BOOL)
			FAIL("argument must be a bool");
		return SORT_BOOL;
	case EOP_ITE:
		NARGS(3);
		if (a0 != SORT_BOOL)
			FAIL("condition must be a bool");
		if (args[1]->sort != args[2]->sort)
			FAIL("arms must have one sort");
		return args[1]->sort;
	case EOP_FADD: case EOP_FMUL:
		if (n < 1)
			FAIL("wrong number of arguments");
		if (!all_sort(n, args, SORT_REAL))
			FAIL("arguments must be reals");
		return SORT_REAL;
	case EOP_FSUB: case EOP_FDIV: case EOP_FMIN: case EOP_FMAX:
		NARGS(2);
		if (!all_sort(n, args, SORT_REAL))
			FAIL("arguments must be reals");
		return SORT_REAL;
	case EOP_FNEG: case EOP_FABS:
		NARGS(1);
		if (a0 != SORT_REAL)
			FAIL("argument must be a real");
		return SORT_REAL;
	case EOP_FUN:
		if (aux >= EF__COUNT)
			FAIL("unknown function");
		NARGS(aux == EF_POW ? 2u : 1u);
		if (!all_sort(n, args, SORT_REAL))
			FAIL("arguments must be reals");
		return SORT_REAL;
	case EOP_S2R: case EOP_U2R:
		NARGS(1);
		if (!bv0)
			FAIL("argument must be a bitvector");
		return SORT_REAL;
	case EOP_R2S: case EOP_R2U:
		NARGS(1);
		if (a0 != SORT_REAL)
			FAIL("argument must be a real");
		if (aux > RM_RP)
			FAIL("unknown rounding mode");
		if (SORT_KIND(sort) != SK_BV || SORT_WIDTH(sort) < 1 || SORT_WIDTH(sort) > 64)
			FAIL("result must be a bitvector");
		return sort;
	case EOP_BOOL2BV:
		NARGS(1);
		if (a0 != SORT_BOOL)
			FAIL("argument must be a bool");
		if (SORT_KIND(sort) != SK_BV || SORT_WIDTH(sort) < 1 || SORT_WIDTH(sort) > 64)
			FAIL("result must be a bitvector");
		return sort;
	case EOP_OPAQUE: {
		if (!sort_valid(sort))
			FAIL("an opaque value needs its sort");
		enum eopq_kind k = EOPQ_KIND(aux);
		if (k == EOPQ_FN) {
			if (EOPQ_FT(aux) != ET_NONE)
				FAIL("a function has no float type");
			return sort;
		}
		if (k != EOPQ_BITS && k != EOPQ_FLOAT)
			FAIL("unknown kind of opaque value");
		enum etype ft = EOPQ_FT(aux);
		if (ft != ET_F16 && ft != ET_BF16 && ft != ET_F32 && ft != ET_F64)
			FAIL("a reinterpretation needs a float type");
		NARGS(1);
		sort_t bits = SORT_BV(8 * etype_size(ft));
		if (k == EOPQ_BITS ? (a0 != SORT_REAL || sort != bits) : (a0 != bits || sort != SORT_REAL))
			FAIL("a reinterpretation is between a real and the bits of its float type");
		return sort;
	}
	default:
		FAIL("unknown operator");
	}
#undef FAIL
#undef NARGS
}

const char *e_op_check(enum eop op, sort_t sort, uint64_t aux,
                       unsigned n, const struct expr *const *args)
{
	const char *err = NULL;
	sort_t s = result_sort(op, sort, aux, n, args, &err);
	if (!s)
		return err;
	if (sort && sort != s)
		return "result sort does not match the operator";
	return NULL;
}

/* ---- exact real arithmetic on doubles --------------------------------------- */

static bool real_add(double a, double b, double *r)
{
	if (!isfinite(a) || !isfinite(b))
		return false;
	double s = a + b, bb = s - a, err = (a - (s - bb)) + (b - bb);
	if (!isfinite(s) || err != 0)
		return false;
	*r = s;
	return true;
}

static bool real_mul(double a, double b, double *r)
{
	if (!isfinite(a) || !isfinite(b))
		return false;
	double p = a * b;
	if (!isfinite(p) || (p != 0 && fabs(p) < 0x1p-960) || (p == 0 && a != 0 && b != 0))
		return false;
	if (fma(a, b, -p) != 0)
		return false;
	*r = p;
	return true;
}

static bool real_div(double a, double b, double *r)
{
	if (!isfinite(a) || !isfinite(b) || b == 0)
		return false;
	double q = a / b;
	if (!isfinite(q) || (q != 0 && fabs(q) < 0x1p-960) || (q == 0 && a != 0))
		return false;
	if (fma(q, b, -a) != 0)
		return false;
	*r = q;
	return true;
}

/* ---- the simplifiers, by family ---------------------------------------------- */

static const struct expr *mk_bv_arith(struct ectx *cx, enum eop op, sort_t s,
                                      const struct expr *a, const struct expr *b)
{
	unsigned w = SORT_WIDTH(s);
	uint64_t m = bv_mask(w);
	struct aff af;
	const struct expr *r;
	switch (op) {
	case EOP_SUB:
		aff_init(&af, w);
		aff_add(&af, a, 1);
		aff_add(&af, b, m);
		r = aff_build(cx, &af);
		aff_free(&af);
		return r;
	case EOP_NEG:
		aff_init(&af, w);
		aff_add(&af, a, m);
		r = aff_build(cx, &af);
		aff_free(&af);
		return r;
	case EOP_MUL:
		if (is_bv(a) && !is_bv(b)) {
			const struct expr *t = a; a = b; b = t;
		}
		if (is_bv(b)) {
			aff_init(&af, w);
			aff_add(&af, a, b->u);
			r = aff_build(cx, &af);
			aff_free(&af);
			return r;
		}
		if (a->id > b->id) {
			const struct expr *t = a; a = b; b = t;
		}
		return intern2(cx, EOP_MUL, s, a, b);
	case EOP_SHL:
		if (is_bv(b)) {
			if (b->u >= w)
				return e_bv(cx, 0, w);
			aff_init(&af, w);
			aff_add(&af, a, (uint64_t)1 << b->u);
			r = aff_build(cx, &af);
			aff_free(&af);
			return r;
		}
		if (is_bv(a) && a->u == 0)
			return a;
		return intern2(cx, op, s, a, b);
	case EOP_LSHR: case EOP_ASHR:
		if ((r = x_bits_bv(cx, op, s, a, b)))
			return r;
		if (is_bv(b)) {
			if (b->u == 0)
				return a;
			if (b->u >= w) {
				if (op == EOP_LSHR)
					return e_bv(cx, 0, w);
				if (b->u != w - 1 || wid(b) != w)
					return mk_bv_arith(cx, op, s, a, e_bv(cx, w - 1, w));
			}
		}
		if (is_bv(a) && (a->u == 0 || (op == EOP_ASHR && a->u == m)))
			return a;
		return intern2(cx, op, s, a, b);
	case EOP_UDIV: case EOP_SDIV:
		if (is_bv(b) && b->u == 1)
			return a;
		if (a->op == op && is_bv(a->args[1]) && is_bv(b)) {
			/* (y / c1) / c2 = y / (c1*c2), floor or truncation alike,
			 * for positive divisors whose product fits */
			uint64_t c1 = a->args[1]->u, c2 = b->u, lim = op == EOP_UDIV ? m : m >> 1, p;
			if (c1 && c2 && !__builtin_mul_overflow(c1, c2, &p) && p <= lim)
				return mk_bv_arith(cx, op, s, a->args[0], e_bv(cx, p, w));
		}
		return intern2(cx, op, s, a, b);
	case EOP_UREM: case EOP_SREM:
		if (is_bv(b) && b->u == 1)
			return e_bv(cx, 0, w);
		return intern2(cx, op, s, a, b);
	case EOP_MULHI_U: case EOP_MULHI_S:
		if ((is_bv(a) && a->u == 0) || (is_bv(b) && b->u == 0))
			return e_bv(cx, 0, w);
		if (a->id > b->id) {
			const struct expr *t = a; a = b; b = t;
		}
		return intern2(cx, op, s, a, b);
	case EOP_AND: case EOP_OR: case EOP_XOR:
	case EOP_UMIN: case EOP_UMAX: case EOP_SMIN: case EOP_SMAX:
		/* commutative: constant last, else by id */
		if (is_bv(a) || (!is_bv(b) && a->id > b->id)) {
			const struct expr *t = a; a = b; b = t;
		}
		if (a == b)
			return op == EOP_XOR ? e_bv(cx, 0, w) : a;
		if ((a->op == EOP_OPAQUE || a->op == EOP_ITE || b->op == EOP_OPAQUE || b->op == EOP_ITE) &&
		    (r = x_bits_bv(cx, op, s, a, b)))
			return r;
		if (is_bv(b)) {
			uint64_t c = b->u, smin = (uint64_t)1 << (w - 1), smax = smin - 1;
			switch (op) {
			case EOP_AND:
				if (c == 0) return b;
				if (c == m) return a;
				break;
			case EOP_OR:
				if (c == 0) return a;
				if (c == m) return b;
				break;
			case EOP_XOR:
				if (c == 0) return a;
				break;
			case EOP_UMIN:
				if (c == 0) return b;
				if (c == m) return a;
				break;
			case EOP_UMAX:
				if (c == 0) return a;
				if (c == m) return b;
				break;
			case EOP_SMIN:
				if (c == smin) return b;
				if (c == smax) return a;
				break;
			case EOP_SMAX:
				if (c == smin) return a;
				if (c == smax) return b;
				break;
			default:
				break;
			}
		}
		return intern2(cx, op, s, a, b);
	default:
		return intern2(cx, op, s, a, b);
	}
}

static const struct expr *mk_add(struct ectx *cx, sort_t s, unsigned n, const struct expr *const *args)
{
	struct aff af;
	aff_init(&af, SORT_WIDTH(s));
	for (unsigned i = 0; i < n; i++)
		aff_add(&af, args[i], 1);
	const struct expr *r = aff_build(cx, &af);
	aff_free(&af);
	return r;
}

static const struct expr *mk_extract(struct ectx *cx, sort_t s, unsigned lo, const struct expr *a);

static const struct expr *mk_ext(struct ectx *cx, enum eop op, sort_t s, const struct expr *a)
{
	if (a->sort == s)
		return a;
	if (a->op == EOP_ZEXT || (op == EOP_SEXT && a->op == EOP_SEXT))
		return intern1(cx, (enum eop)a->op, s, 0, a->args[0]);
	return intern1(cx, op, s, 0, a);
}

/* Low w bits of an affine sum: the sum of the low bits of its terms. */
static const struct expr *truncate_affine(struct ectx *cx, unsigned w, const struct expr *a)
{
	struct aff in, out;
	aff_init(&in, wid(a));
	aff_add(&in, a, 1);
	aff_norm(&in);
	const struct expr *r = NULL;
	if (in.n <= 32) {
		aff_init(&out, w);
		out.k = in.k;
		for (size_t i = 0; i < in.n; i++)
			aff_add(&out, mk_extract(cx, SORT_BV(w), 0, in.v[i].t), in.v[i].c);
		r = aff_build(cx, &out);
		aff_free(&out);
	}
	aff_free(&in);
	return r;
}

static const struct expr *mk_extract(struct ectx *cx, sort_t s, unsigned lo, const struct expr *a)
{
	unsigned w = SORT_WIDTH(s), wa = wid(a);
	if (lo == 0 && w == wa)
		return a;
	if (is_bv(a))
		return e_bv(cx, a->u >> lo, w);
	switch (a->op) {
	case EOP_EXTRACT:
		return mk_extract(cx, s, lo + (unsigned)a->u, a->args[0]);
	case EOP_ZEXT: case EOP_SEXT: {
		unsigned wi = wid(a->args[0]);
		if (lo + w <= wi)
			return mk_extract(cx, s, lo, a->args[0]);
		if (a->op == EOP_ZEXT && lo >= wi)
			return e_bv(cx, 0, w);
		if (a->op == EOP_ZEXT && lo == 0)
			return mk_ext(cx, EOP_ZEXT, s, a->args[0]);
		if (a->op == EOP_SEXT && lo == 0)
			return mk_ext(cx, EOP_SEXT, s, a->args[0]);
		break;
	}
	case EOP_CONCAT: {
		unsigned wl = wid(a->args[1]);
		if (lo + w <= wl)
			return mk_extract(cx, s, lo, a->args[1]);
		if (lo >= wl)
			return mk_extract(cx, s, lo - wl, a->args[0]);
		break;
	}
	case EOP_ADD: case EOP_MUL:
		if (lo == 0 && (a->op == EOP_ADD || is_bv(a->args[1]))) {
			const struct expr *r = truncate_affine(cx, w, a);
			if (r)
				return r;
		}
		break;
	case EOP_BOOL2BV:
		if (lo == 0)
			return intern1(cx, EOP_BOOL2BV, s, 0, a->args[0]);
		return e_bv(cx, 0, w);
	default:
		break;
	}
	if (lo == 0 && a->op == EOP_MUL && !is_bv(a->args[1])) {
		/* the low bits of a product are the product of the low bits */
		const struct expr *x = mk_extract(cx, s, 0, a->args[0]);
		const struct expr *y = mk_extract(cx, s, 0, a->args[1]);
		return mk_bv_arith(cx, EOP_MUL, s, x, y);
	}
	switch (a->op) {
	default:
		break;
	}
	return intern1(cx, EOP_EXTRACT, s, lo, a);
}

/* ---- booleans ------------------------------------------------------------------ */

static const struct expr *mk_not(struct ectx *cx, const struct expr *a)
{
	if (a->op == EOP_BOOL)
		return e_bool(cx, !a->u);
	if (a->op == EOP_LNOT)
		return a->args[0];
	return intern1(cx, EOP_LNOT, SORT_BOOL, 0, a);
}

static bool has_id(const struct expr *const *v, size_t n, const struct expr *x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid] == x)
			return true;
		if (v[mid]->id < x->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

typedef VEC(const struct expr *) exprvec;

static void flatten(const struct expr *e, enum eop op, exprvec *out)
{
	if (e->op == op)
		for (unsigned i = 0; i < e->nargs; i++)
			flatten(e->args[i], op, out);
	else
		VEC_PUSH(*out, e);
}

static const struct expr *mk_andor(struct ectx *cx, enum eop op, unsigned n, const struct expr *const *args)
{
	bool unit = op == EOP_LAND;   /* the neutral element */
	exprvec v = { 0 };
	for (unsigned i = 0; i < n; i++)
		flatten(args[i], op, &v);
	size_t k = 0;
	const struct expr *r = NULL;
	for (size_t i = 0; i < v.len; i++) {
		const struct expr *x = v.items[i];
		if (x->op == EOP_BOOL) {
			if ((bool)x->u != unit) {
				r = x;
				goto out;
			}
			continue;
		}
		v.items[k++] = x;
	}
	sort_by_id(v.items, k);
	size_t j = 0;
	for (size_t i = 0; i < k; i++)
		if (!j || v.items[j - 1] != v.items[i])
			v.items[j++] = v.items[i];
	for (size_t i = 0; i < j; i++)
		if (v.items[i]->op == EOP_LNOT && has_id(v.items, j, v.items[i]->args[0])) {
			r = e_bool(cx, !unit);
			goto out;
		}
	if (j == 0)
		r = e_bool(cx, unit);
	else if (j == 1)
		r = v.items[0];
	else
		r = nary(cx, op, SORT_BOOL, v.items, j, NULL);
out:
	VEC_FREE(v);
	return r;
}

const struct expr *e_not(struct ectx *cx, const struct expr *b)
{
	return e_op1(cx, EOP_LNOT, SORT_BOOL, 0, b);
}

const struct expr *e_and(struct ectx *cx, const struct expr *a, const struct expr *b)
{
	return e_op2(cx, EOP_LAND, a, b);
}

const struct expr *e_or(struct ectx *cx, const struct expr *a, const struct expr *b)
{
	return e_op2(cx, EOP_LOR, a, b);
}

static const struct expr *mk_ite(struct ectx *cx, const struct expr *c,
                                 const struct expr *t, const struct expr *f)
{
	if (c->op == EOP_BOOL)
		return c->u ? t : f;
	if (t == f)
		return t;
	if (c->op == EOP_LNOT) {
		const struct expr *x = t;
		c = c->args[0];
		t = f;
		f = x;
	}
	/* the float bit idioms first: the key J(J(k)) nests an ite on one condition */
	const struct expr *bits = x_bits_ite(cx, c, t, f);
	if (bits)
		return bits;
	if (t->op == EOP_ITE && t->args[0] == c)
		return mk_ite(cx, c, t->args[1], f);
	if (f->op == EOP_ITE && f->args[0] == c)
		return mk_ite(cx, c, t, f->args[2]);
	if (t->sort == SORT_BOOL) {
		const struct expr *v[2];
		if (t->op == EOP_BOOL && f->op == EOP_BOOL)
			return t->u ? c : mk_not(cx, c);
		if (t->op == EOP_BOOL) {
			v[0] = t->u ? c : mk_not(cx, c);
			v[1] = f;
			return mk_andor(cx, t->u ? EOP_LOR : EOP_LAND, 2, v);
		}
		if (f->op == EOP_BOOL) {
			v[0] = f->u ? mk_not(cx, c) : c;
			v[1] = t;
			return mk_andor(cx, f->u ? EOP_LOR : EOP_LAND, 2, v);
		}
	}
	const struct expr *v[3] = { c, t, f };
	return x_intern(cx, EOP_ITE, t->sort, 0, 0, 0, 0, 3, v);
}

const struct expr *e_ite(struct ectx *cx, const struct expr *c, const struct expr *t, const struct expr *f)
{
	const struct expr *v[3] = { c, t, f };
	return e_op(cx, EOP_ITE, 0, 0, 3, v);
}

/* ---- comparisons -------------------------------------------------------------- */

static const struct expr *mk_cmp(struct ectx *cx, enum eop op, const struct expr *a, const struct expr *b);

/* The sign bit of a | b is set where either operand's is, that of a & b
 * where both are: a sign test of an OR or AND of two values (nvcc folds
 * "od >= 0 && oh >= 0" into (od | oh) > -1) becomes sign tests of the
 * operands, which linear reasoning reads.  NULL where op(a, b) is no
 * such test. */
static const struct expr *sign_of_bits(struct ectx *cx, enum eop op, const struct expr *a,
                                       const struct expr *b)
{
	unsigned w = wid(a);
	uint64_t m = bv_mask(w);
	const struct expr *x;
	bool neg;
	if (op == EOP_SLT && is_bv(b) && b->u == 0)
		x = a, neg = true;
	else if (op == EOP_SLE && is_bv(b) && b->u == m)
		x = a, neg = true;
	else if (op == EOP_SLT && is_bv(a) && a->u == m)
		x = b, neg = false;
	else if (op == EOP_SLE && is_bv(a) && a->u == 0)
		x = b, neg = false;
	else
		return NULL;
	if ((x->op != EOP_OR && x->op != EOP_AND) || x->nargs != 2)
		return NULL;
	const struct expr *t[2];
	for (int i = 0; i < 2; i++)
		t[i] = neg ? mk_cmp(cx, EOP_SLT, x->args[i], e_bv(cx, 0, w))
		           : mk_cmp(cx, EOP_SLT, e_bv(cx, m, w), x->args[i]);
	bool both = (x->op == EOP_OR) != neg;
	return both ? e_and(cx, t[0], t[1]) : e_or(cx, t[0], t[1]);
}

static bool is_const_leaf(const struct expr *e)
{
	return e->op == EOP_BOOL || is_bv(e) || is_real(e);
}

/* e an ite of two constants (a flag stored as 1 or 0 and read back). */
static bool is_const_ite(const struct expr *e)
{
	return e->op == EOP_ITE && is_const_leaf(e->args[1]) && is_const_leaf(e->args[2]);
}

static const struct expr *mk_cmp(struct ectx *cx, enum eop op, const struct expr *a, const struct expr *b)
{
	if (a == b)
		return e_bool(cx, op == EOP_EQ || op == EOP_ULE || op == EOP_SLE || op == EOP_FLE);
	/* (c ? k1 : k2) against a constant k: c ? k1 op k : k2 op k, folded */
	if (is_const_ite(a) && is_const_leaf(b))
		return mk_ite(cx, a->args[0], mk_cmp(cx, op, a->args[1], b), mk_cmp(cx, op, a->args[2], b));
	if (is_const_leaf(a) && is_const_ite(b))
		return mk_ite(cx, b->args[0], mk_cmp(cx, op, a, b->args[1]), mk_cmp(cx, op, a, b->args[2]));
	if (SORT_KIND(a->sort) == SK_REAL) {
		if (is_real(a) && is_real(b)) {
			double x = x_real(a), y = x_real(b);
			return e_bool(cx, op == EOP_EQ ? x == y : op == EOP_FLT ? x < y : x <= y);
		}
	} else if (a->sort == SORT_BOOL) {
		/* op is EQ: iff */
		if (b->op == EOP_BOOL) {
			const struct expr *t = a; a = b; b = t;
		}
		if (a->op == EOP_BOOL)
			return a->u ? b : mk_not(cx, b);
	} else {
		unsigned w = wid(a);
		if (is_bv(a) && is_bv(b)) {
			uint64_t va[2] = { a->u, b->u }, r;
			unsigned aw[2] = { w, w };
			x_bv_fold(op, w, 0, 2, va, aw, &r);
			return e_bool(cx, r);
		}
		if (op == EOP_EQ) {
			/* equal iff the difference is zero; fold a constant difference */
			struct aff af;
			aff_init(&af, w);
			aff_add(&af, a, 1);
			aff_add(&af, b, bv_mask(w));
			aff_norm(&af);
			bool konst = af.n == 0;
			uint64_t k = af.k;
			aff_free(&af);
			if (konst)
				return e_bool(cx, k == 0);
		}
		if (op == EOP_ULT && is_bv(b) && b->u == 0)
			return e_bool(cx, false);
		if (op == EOP_ULE && is_bv(a) && a->u == 0)
			return e_bool(cx, true);
		if (op == EOP_ULE && is_bv(b) && b->u == bv_mask(w))
			return e_bool(cx, true);
		const struct expr *r = x_bits_cmp(cx, op, a, b);
		if (r)
			return r;
		if ((op == EOP_SLT || op == EOP_SLE) && (r = sign_of_bits(cx, op, a, b)))
			return r;
	}
	if (op == EOP_EQ && a->id > b->id) {
		const struct expr *t = a; a = b; b = t;
	}
	return intern2(cx, op, SORT_BOOL, a, b);
}

/* ---- reals ----------------------------------------------------------------------- */

static const struct expr *mk_fneg(struct ectx *cx, const struct expr *a);

/* Index of a not-yet-removed occurrence of x in v (sorted by id), or n. */
static size_t find_live(const struct expr *const *v, const bool *dead, size_t n, const struct expr *x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid]->id < x->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && v[lo] == x; lo++)
		if (!dead[lo])
			return lo;
	return n;
}

/* Sorted terms, then the constants that could not be folded exactly
 * (sorted), then the folded constant if not neutral. */
static const struct expr *finish_nary(struct ectx *cx, enum eop op, exprvec *v, size_t k,
                                      exprvec *konst, double acc, double neutral)
{
	sort_by_id(konst->items, konst->len);
	for (size_t i = 0; i < konst->len; i++)
		v->items[k++] = konst->items[i];
	const struct expr *tail = acc != neutral ? e_real(cx, acc) : NULL;
	if (k == 0)
		return tail ? tail : e_real(cx, neutral);
	if (k == 1 && !tail)
		return v->items[0];
	VEC_PUSH(*v, NULL);   /* room for the tail */
	return nary(cx, op, SORT_REAL, v->items, k, tail);
}

/* Moves the constants of v to konst (sorted by id, so that folding order,
 * and with it which constants stay unfolded, is canonical); returns the
 * number of non-constants left at the front of v. */
static size_t split_consts(exprvec *v, exprvec *konst)
{
	size_t k = 0;
	for (size_t i = 0; i < v->len; i++) {
		if (is_real(v->items[i]))
			VEC_PUSH(*konst, v->items[i]);
		else
			v->items[k++] = v->items[i];
	}
	sort_by_id(konst->items, konst->len);
	return k;
}

/* The tagged infinity of sign s (-1, +1). */
static const struct expr *inf_of(struct ectx *cx, int s)
{
	return e_undef_tag(cx, SORT_REAL, s < 0 ? E_UNDEF_NINF : E_UNDEF_PINF);
}

/* -1 or +1 when e is a tagged infinity of that sign, else 0. */
static int inf_sign(const struct expr *e)
{
	return e_is_inf(e, -1) ? -1 : e_is_inf(e, 1) ? 1 : 0;
}

/* f of a tagged infinity where IEEE arithmetic gives a number (e^-inf is
 * 0, sigmoid and tanh saturate), so that a masked_fill(-inf) before an
 * exp or a softmax leaves no infinity behind; NULL elsewhere. */
static const struct expr *fun_of_inf(struct ectx *cx, enum efun f, const struct expr *a)
{
	int s = inf_sign(a);
	if (!s)
		return NULL;
	switch (f) {
	case EF_EXP: case EF_EXP2: return s < 0 ? e_real(cx, 0) : NULL;
	case EF_SIGMOID: return e_real(cx, s < 0 ? 0 : 1);
	case EF_TANH: case EF_ERF: return e_real(cx, s);
	default: return NULL;
	}
}

/* A sum or product over a tagged infinity: -inf + x is -inf for every
 * (finite: a real) x, and so is -inf * c for a constant c > 0; the sign
 * of such a product follows c.  NULL when the result is not an infinity
 * of one sign (-inf + inf, inf * 0, inf * x with x not a constant, an
 * argument otherwise undefined). */
static const struct expr *nary_of_inf(struct ectx *cx, enum eop op, unsigned n,
                                      const struct expr *const *args)
{
	int s = 0;
	bool any = false;
	for (unsigned i = 0; i < n; i++) {
		const struct expr *x = args[i];
		int xs = inf_sign(x);
		if (xs) {
			if (any && op == EOP_FADD && xs != s)
				return NULL;
			s = any && op == EOP_FMUL ? s * xs : xs;
			any = true;
		} else if (x->flags & EXPR_F_UNDEF) {
			return NULL;
		}
	}
	if (!any)
		return NULL;
	if (op == EOP_FMUL)
		for (unsigned i = 0; i < n; i++) {
			if (inf_sign(args[i]))
				continue;
			if (!is_real(args[i]) || x_real(args[i]) == 0)
				return NULL;
			if (x_real(args[i]) < 0)
				s = -s;
		}
	return inf_of(cx, s);
}

/* ---- a long sum grown one term at a time ------------------------------------- */

/* A loop's accumulator (acc + a*b, 131,072 times over a matmul's K) made
 * by the full path below costs the whole sum at every step: its terms
 * flattened, checked for order, chunked and interned again.  A sum that
 * mk_fadd made without a constant is recorded with its number of terms
 * n: its terms are sorted by id, none cancels another, and it is nary()
 * over them.  Adding a term x newer than every one of them (a
 * non-constant, not a negation, not a sum) leaves them in order, cancels
 * nothing, folds nothing: the full path's result is nary() over the same
 * terms and x, which differs from the sum only in the last chunk of each
 * level.  sum_append makes just those chunks: the same node, in time
 * proportional to a chunk and the levels. */

#define SUM_MIN 16               /* shorter sums take the full path */

static size_t sum_slot(const struct ectx *cx, const struct expr *e)
{
	return ((size_t)e->id * 0x9e3779b97f4a7c15ull >> 7) & (cx->sums_cap - 1);
}

/* The number of terms of sum e, or 0 when it is not recorded. */
static size_t sum_terms(const struct ectx *cx, const struct expr *e)
{
	if (!cx->sums_cap)
		return 0;
	for (size_t i = sum_slot(cx, e);; i = (i + 1) & (cx->sums_cap - 1)) {
		if (cx->sums[i].e == e)
			return cx->sums[i].n;
		if (!cx->sums[i].e)
			return 0;
	}
}

static void sum_record(struct ectx *cx, const struct expr *e, size_t n)
{
	if (2 * (cx->sums_len + 1) > cx->sums_cap) {
		struct sum_rec *old = cx->sums;
		size_t ocap = cx->sums_cap;
		cx->sums_cap = ocap ? 2 * ocap : 1024;
		cx->sums = xcalloc(cx->sums_cap, sizeof *cx->sums);
		for (size_t i = 0; i < ocap; i++)
			if (old[i].e) {
				size_t j = sum_slot(cx, old[i].e);
				while (cx->sums[j].e)
					j = (j + 1) & (cx->sums_cap - 1);
				cx->sums[j] = old[i];
			}
		free(old);
	}
	size_t i = sum_slot(cx, e);
	while (cx->sums[i].e && cx->sums[i].e != e)
		i = (i + 1) & (cx->sums_cap - 1);
	if (!cx->sums[i].e)
		cx->sums_len++;
	cx->sums[i] = (struct sum_rec){ e, n };
}

#define SUM_LEVELS 16

/* nary() over the n terms of the recorded sum s and x after them, from
 * s's last chunks; NULL where s is not shaped as nary() makes it. */
static const struct expr *sum_append(struct ectx *cx, const struct expr *s, size_t n, const struct expr *x)
{
	enum { CH = E_MAX_ARGS };
	size_t sz[SUM_LEVELS];          /* items of each level; level h is s's arguments */
	const struct expr *last[SUM_LEVELS];   /* the last item of each level */
	int h = 0;
	sz[0] = n;
	while (sz[h] > CH) {
		if (h + 1 >= SUM_LEVELS - 1)
			return NULL;
		sz[h + 1] = (sz[h] + CH - 1) / CH;
		h++;
	}
	if (s->op != EOP_FADD || s->nargs != sz[h])
		return NULL;
	last[h] = s->args[sz[h] - 1];
	for (int j = h; j > 0; j--) {
		size_t m = sz[j - 1] - CH * (sz[j] - 1);      /* the last chunk's items */
		if (m == 1) {
			last[j - 1] = last[j];
		} else {
			if (last[j]->op != EOP_FADD || last[j]->nargs != m)
				return NULL;
			last[j - 1] = last[j]->args[m - 1];
		}
	}
	if (last[0]->op == EOP_FADD || last[0]->id >= x->id)
		return NULL;
	/* level by level: x appended to level 0; then each level's last item
	 * replaced (the last chunk grew) or one appended (a chunk of x alone) */
	const struct expr *args[CH + 1], *item = x;
	bool append = true;
	for (int j = 0; j < h; j++) {
		size_t m = sz[j] - CH * (sz[j + 1] - 1);
		if (append && m == CH)
			continue;                /* item is a chunk of its own */
		unsigned k = 0;
		if (m == 1)
			args[k++] = last[j];
		else
			for (unsigned i = 0; i < m; i++)
				args[k++] = last[j + 1]->args[i];
		if (append)
			args[k++] = item;
		else
			args[k - 1] = item;
		if (k == 1) {
			append = false;          /* a chunk of one is its item */
			continue;
		}
		item = intern_op(cx, EOP_FADD, SORT_REAL, 0, k, args);
		append = false;
	}
	if (append && sz[h] == CH) {
		/* the top level full: s is the first chunk of a new one */
		args[0] = s;
		args[1] = item;
		return intern_op(cx, EOP_FADD, SORT_REAL, 0, 2, args);
	}
	memcpy(args, s->args, sz[h] * sizeof *args);
	if (append)
		args[sz[h]] = item;
	else
		args[sz[h] - 1] = item;
	return intern_op(cx, EOP_FADD, SORT_REAL, 0, (unsigned)(sz[h] + append), args);
}

static const struct expr *mk_fadd(struct ectx *cx, unsigned n, const struct expr *const *args)
{
	for (unsigned i = 0; i < 2 && n == 2; i++) {
		const struct expr *s = args[i], *x = args[1 - i], *r;
		size_t terms;
		if (s->op == EOP_FADD && x->op != EOP_FADD && x->op != EOP_FNEG && !is_real(x) &&
		    !inf_sign(x) && (terms = sum_terms(cx, s)) &&
		    (r = sum_append(cx, s, terms, x))) {
			sum_record(cx, r, terms + 1);
			return r;
		}
	}
	const struct expr *inf = nary_of_inf(cx, EOP_FADD, n, args);
	if (inf)
		return inf;
	exprvec v = { 0 }, konst = { 0 };
	for (unsigned i = 0; i < n; i++)
		flatten(args[i], EOP_FADD, &v);
	size_t k = split_consts(&v, &konst);
	double acc = 0;
	size_t nk = 0;
	for (size_t i = 0; i < konst.len; i++) {
		double r;
		if (real_add(acc, x_real(konst.items[i]), &r))
			acc = r;
		else
			konst.items[nk++] = konst.items[i];
	}
	konst.len = nk;
	sort_by_id(v.items, k);
	/* x + -x cancels */
	bool *dead = NULL;
	for (size_t i = 0; i < k; i++) {
		if (v.items[i]->op != EOP_FNEG)
			continue;
		if (!dead)
			dead = xcalloc(k, sizeof *dead);
		if (dead[i])
			continue;
		size_t p = find_live(v.items, dead, k, v.items[i]->args[0]);
		if (p < k)
			dead[i] = dead[p] = true;
	}
	if (dead) {
		size_t j = 0;
		for (size_t i = 0; i < k; i++)
			if (!dead[i])
				v.items[j++] = v.items[i];
		k = j;
		free(dead);
	}
	bool plain = !konst.len && acc == 0;
	const struct expr *r = finish_nary(cx, EOP_FADD, &v, k, &konst, acc, 0);
	if (plain && k >= SUM_MIN && r->op == EOP_FADD)
		sum_record(cx, r, k);
	VEC_FREE(v);
	VEC_FREE(konst);
	return r;
}

static const struct expr *mk_fmul(struct ectx *cx, unsigned n, const struct expr *const *args)
{
	const struct expr *inf = nary_of_inf(cx, EOP_FMUL, n, args);
	if (inf)
		return inf;
	bool has_inf = false;   /* inf * 0 is no number: the x * 0 rule stays off */
	for (unsigned i = 0; i < n; i++)
		has_inf |= inf_sign(args[i]) != 0;
	exprvec v = { 0 }, konst = { 0 };
	bool neg = false;
	for (unsigned i = 0; i < n; i++) {
		const struct expr *x = args[i];
		while (x->op == EOP_FNEG) {
			neg = !neg;
			x = x->args[0];
		}
		if (x->op == EOP_FMUL)
			flatten(x, EOP_FMUL, &v);
		else
			VEC_PUSH(v, x);
	}
	size_t k = split_consts(&v, &konst);
	double acc = 1;
	size_t nk = 0;
	const struct expr *r;
	for (size_t i = 0; i < konst.len; i++) {
		double p, x = x_real(konst.items[i]);
		if (x == 0 && !has_inf) {
			r = konst.items[i];   /* x * 0 = 0 for every real x (not inf) */
			goto out;
		}
		if (real_mul(acc, x, &p))
			acc = p;
		else
			konst.items[nk++] = konst.items[i];
	}
	konst.len = nk;
	if (neg)
		acc = -acc;
	sort_by_id(v.items, k);
	if (acc == -1 && k + konst.len > 0) {
		r = mk_fneg(cx, finish_nary(cx, EOP_FMUL, &v, k, &konst, 1, 1));
		goto out;
	}
	r = finish_nary(cx, EOP_FMUL, &v, k, &konst, acc, 1);
out:
	VEC_FREE(v);
	VEC_FREE(konst);
	return r;
}

static const struct expr *mk_fneg(struct ectx *cx, const struct expr *a)
{
	if (is_real(a))
		return e_real(cx, -x_real(a));
	if (inf_sign(a))
		return inf_of(cx, -inf_sign(a));
	if (a->op == EOP_FNEG)
		return a->args[0];
	if (a->op == EOP_FMUL && is_real(a->args[a->nargs - 1])) {
		/* absorb the sign into the constant */
		const struct expr *m1 = e_real(cx, -1);
		const struct expr *v[2] = { a, m1 };
		return mk_fmul(cx, 2, v);
	}
	return intern1(cx, EOP_FNEG, SORT_REAL, 0, a);
}

static const struct expr *mk_fdiv(struct ectx *cx, const struct expr *a, const struct expr *b)
{
	double r;
	if (is_real(b)) {
		double y = x_real(b);
		if (is_real(a) && real_div(x_real(a), y, &r))
			return e_real(cx, r);
		if (y == 1)
			return a;
		if (y == -1)
			return mk_fneg(cx, a);
		if (real_div(1, y, &r)) {
			/* an exact reciprocal (a power of two): multiply */
			const struct expr *v[2] = { a, e_real(cx, r) };
			return mk_fmul(cx, 2, v);
		}
	}
	if (is_real(a) && x_real(a) == 0 && is_real(b) && x_real(b) != 0)
		return a;
	return intern2(cx, EOP_FDIV, SORT_REAL, a, b);
}

static const struct expr *mk_fminmax(struct ectx *cx, enum eop op, const struct expr *a, const struct expr *b)
{
	if (a == b)
		return a;
	if (is_real(a) && is_real(b)) {
		double x = x_real(a), y = x_real(b);
		if (isfinite(x) && isfinite(y))
			return op == EOP_FMIN ? (x <= y ? a : b) : (x >= y ? a : b);
	}
	if (a->id > b->id) {
		const struct expr *t = a; a = b; b = t;
	}
	return intern2(cx, op, SORT_REAL, a, b);
}

static bool has_inf_arm(const struct expr *e, unsigned depth)
{
	if (e_is_inf(e, 0))
		return true;
	return depth && e->op == EOP_ITE &&
	       (has_inf_arm(e->args[1], depth - 1) || has_inf_arm(e->args[2], depth - 1));
}

const struct expr *e_fminmax_inf(struct ectx *cx, enum eop op, const struct expr *a,
                                 const struct expr *b, unsigned depth)
{
	int absorb = op == EOP_FMAX ? -1 : 1;
	if (e_is_inf(a, absorb))
		return b;
	if (e_is_inf(b, absorb))
		return a;
	if (e_is_inf(a, 0))
		return a;
	if (e_is_inf(b, 0))
		return b;
	if (depth && a->op == EOP_ITE && has_inf_arm(a, depth))
		return e_ite(cx, a->args[0], e_fminmax_inf(cx, op, a->args[1], b, depth - 1),
		             e_fminmax_inf(cx, op, a->args[2], b, depth - 1));
	if (depth && b->op == EOP_ITE && has_inf_arm(b, depth))
		return e_ite(cx, b->args[0], e_fminmax_inf(cx, op, a, b->args[1], depth - 1),
		             e_fminmax_inf(cx, op, a, b->args[2], depth - 1));
	return e_op2(cx, op, a, b);
}

static const struct expr *mk_fabs(struct ectx *cx, const struct expr *a)
{
	if (is_real(a))
		return e_real(cx, fabs(x_real(a)));
	if (a->op == EOP_FNEG)
		a = a->args[0];
	if (a->op == EOP_FABS)
		return a;
	return intern1(cx, EOP_FABS, SORT_REAL, 0, a);
}

static const struct expr *mk_fun(struct ectx *cx, enum efun f, unsigned n, const struct expr *const *args)
{
	const struct expr *r;
	if (n == 1 && (r = fun_of_inf(cx, f, args[0])))
		return r;
	if (n == 1 && is_real(args[0]) && isfinite(x_real(args[0]))) {
		double x = x_real(args[0]);
		switch (f) {
		case EF_FLOOR: return e_real(cx, floor(x));
		case EF_CEIL: return e_real(cx, ceil(x));
		case EF_TRUNC: return e_real(cx, trunc(x));
		case EF_RINT: return e_real(cx, nearbyint(x));   /* ties to even */
		default: break;
		}
	}
	if (n == 1 && (f == EF_FLOOR || f == EF_CEIL || f == EF_TRUNC || f == EF_RINT) &&
	    args[0]->op == EOP_FUN && (args[0]->u == EF_FLOOR || args[0]->u == EF_CEIL ||
	                               args[0]->u == EF_TRUNC || args[0]->u == EF_RINT))
		return args[0];   /* already integral */
	return intern_op(cx, EOP_FUN, SORT_REAL, f, n, args);
}

/* ---- conversions ------------------------------------------------------------------ */

static const struct expr *mk_conv(struct ectx *cx, enum eop op, sort_t s, uint64_t aux, const struct expr *a)
{
	/* a conversion of an ite of two constants: the ite of the two
	 * constants converted (a flag stored as 1 or 0 and read back) */
	if (is_const_ite(a) && op != EOP_BOOL2BV) {
		const struct expr *t = mk_conv(cx, op, s, aux, a->args[1]), *f = mk_conv(cx, op, s, aux, a->args[2]);
		if (is_const_leaf(t) && is_const_leaf(f))
			return mk_ite(cx, a->args[0], t, f);
	}
	switch (op) {
	case EOP_S2R: case EOP_U2R:
		if (is_bv(a)) {
			unsigned w = wid(a);
			long double v = op == EOP_S2R ? (long double)bv_sx(a->u, w) : (long double)a->u;
			double d = (double)v;
			if ((long double)d == v)
				return e_real(cx, d);
		}
		if (a->op == EOP_ZEXT && op == EOP_U2R)
			return mk_conv(cx, op, s, aux, a->args[0]);
		if (a->op == EOP_SEXT && op == EOP_S2R)
			return mk_conv(cx, op, s, aux, a->args[0]);
		if (a->op == EOP_ZEXT && op == EOP_S2R)
			return mk_conv(cx, EOP_U2R, s, aux, a->args[0]);
		break;
	case EOP_R2S: case EOP_R2U:
		/* an integer converted to real and back, to at least its width */
		if ((a->op == EOP_S2R || a->op == EOP_U2R) &&
		    wid(a->args[0]) + (op == EOP_R2S && a->op == EOP_U2R) <= SORT_WIDTH(s) &&
		    !(op == EOP_R2U && a->op == EOP_S2R))
			return mk_ext(cx, a->op == EOP_S2R ? EOP_SEXT : EOP_ZEXT, s, a->args[0]);
		if (is_real(a))
			return e_bv(cx, x_r2bv(x_real(a), (enum rmode)aux, SORT_WIDTH(s), op == EOP_R2S), SORT_WIDTH(s));
		break;
	case EOP_BOOL2BV:
		if (a->op == EOP_BOOL)
			return e_bv(cx, a->u, SORT_WIDTH(s));
		break;
	default:
		break;
	}
	return intern1(cx, op, s, aux, a);
}

/* ---- the generic constructor ------------------------------------------------------ */

const struct expr *e_op(struct ectx *cx, enum eop op, sort_t sort, uint64_t aux,
                        unsigned n, const struct expr *const *args)
{
	const char *err = NULL;
	sort_t s = result_sort(op, sort, aux, n, args, &err);
	if (s && sort && sort != s)
		err = "result sort does not match the operator";
	if (!s || err) {
		fprintf(stderr, "e_op(%s): %s\n", eop_name(op), err);
		abort();
	}
	const struct expr *a = n > 0 ? args[0] : NULL, *b = n > 1 ? args[1] : NULL;

	/* constant folding of bitvector ops */
	if (SORT_KIND(s) == SK_BV && op != EOP_ITE && op != EOP_R2S && op != EOP_R2U &&
	    op != EOP_BOOL2BV) {
		bool konst = true;
		for (unsigned i = 0; i < n && konst; i++)
			konst = is_bv(args[i]);
		if (konst && n <= 4) {
			uint64_t v[4], r;
			unsigned aw[4];
			for (unsigned i = 0; i < n; i++) {
				v[i] = args[i]->u;
				aw[i] = wid(args[i]);
			}
			if (x_bv_fold(op, SORT_WIDTH(s), aux, n, v, aw, &r))
				return e_bv(cx, r, SORT_WIDTH(s));
		}
	}

	switch (op) {
	case EOP_ADD:
		return mk_add(cx, s, n, args);
	case EOP_SUB: case EOP_MUL: case EOP_NEG: case EOP_SHL: case EOP_LSHR: case EOP_ASHR:
	case EOP_UDIV: case EOP_SDIV: case EOP_UREM: case EOP_SREM:
	case EOP_MULHI_U: case EOP_MULHI_S:
	case EOP_AND: case EOP_OR: case EOP_XOR:
	case EOP_UMIN: case EOP_UMAX: case EOP_SMIN: case EOP_SMAX:
		return mk_bv_arith(cx, op, s, a, b);
	case EOP_NOT:
		if (a->op == EOP_NOT)
			return a->args[0];
		return intern1(cx, op, s, 0, a);
	case EOP_ZEXT: case EOP_SEXT:
		return mk_ext(cx, op, s, a);
	case EOP_EXTRACT:
		return mk_extract(cx, s, (unsigned)aux, a);
	case EOP_CONCAT:
		return intern2(cx, op, s, a, b);
	case EOP_POPC: case EOP_CLZ: case EOP_BREV:
		if (op == EOP_BREV && a->op == EOP_BREV)
			return a->args[0];
		return intern1(cx, op, s, 0, a);
	case EOP_EQ: case EOP_ULT: case EOP_ULE: case EOP_SLT: case EOP_SLE:
	case EOP_FLT: case EOP_FLE:
		return mk_cmp(cx, op, a, b);
	case EOP_LAND: case EOP_LOR:
		return mk_andor(cx, op, n, args);
	case EOP_LNOT:
		return mk_not(cx, a);
	case EOP_ITE:
		return mk_ite(cx, a, b, args[2]);
	case EOP_FADD:
		return mk_fadd(cx, n, args);
	case EOP_FMUL:
		return mk_fmul(cx, n, args);
	case EOP_FSUB: {
		const struct expr *v[2] = { a, mk_fneg(cx, b) };
		return mk_fadd(cx, 2, v);
	}
	case EOP_FNEG:
		return mk_fneg(cx, a);
	case EOP_FDIV:
		return mk_fdiv(cx, a, b);
	case EOP_FMIN: case EOP_FMAX:
		return mk_fminmax(cx, op, a, b);
	case EOP_FABS:
		return mk_fabs(cx, a);
	case EOP_FUN:
		return mk_fun(cx, (enum efun)aux, n, args);
	case EOP_S2R: case EOP_U2R: case EOP_R2S: case EOP_R2U: case EOP_BOOL2BV:
		return mk_conv(cx, op, s, aux, a);
	case EOP_OPAQUE:
		return x_opaque(cx, s, aux, n, args, false);
	default:
		abort();
	}
}

const struct expr *e_op1(struct ectx *cx, enum eop op, sort_t sort, uint64_t aux, const struct expr *a)
{
	return e_op(cx, op, sort, aux, 1, &a);
}

const struct expr *e_op2(struct ectx *cx, enum eop op, const struct expr *a, const struct expr *b)
{
	const struct expr *v[2] = { a, b };
	return e_op(cx, op, 0, 0, 2, v);
}

const struct expr *e_fun(struct ectx *cx, enum efun f, unsigned n, const struct expr *const *args)
{
	return e_op(cx, EOP_FUN, SORT_REAL, f, n, args);
}

const struct expr *e_resize(struct ectx *cx, const struct expr *a, unsigned width, bool is_signed)
{
	unsigned w = wid(a);
	if (width == w)
		return a;
	if (width < w)
		return e_op1(cx, EOP_EXTRACT, SORT_BV(width), 0, a);
	return e_op1(cx, is_signed ? EOP_SEXT : EOP_ZEXT, SORT_BV(width), 0, a);
}
