/*
 * expr-bits.c: opaque values and the bit idioms of floats (expr.h,
 * "Opaque values"), for the constructors of expr-simp.c.
 *
 * B(x) is the EOPQ_BITS node of real x (the bits of x as a float type FT
 * of width W), F(k) the EOPQ_FLOAT node of bitvector k; S is the sign bit
 * 1 << (W-1) and M = S - 1.  J(k) = k <s 0 ? k ^ M : k is the involution
 * that makes the signed order of J(B(x)) the order of the reals x (the key
 * of float atomicMax/atomicMin); it needs no node of its own: it is the
 * ite, kept in the canonical form ite(k <s 0, k ^ M, k).
 *
 * Every rewrite holds exactly over the reals, where there is one zero
 * (B(0) is the bits of +0: a rewrite may give +0 where the hardware gives
 * -0) and no NaN or infinity (a bit pattern of one is never a real):
 *   F(B(x)) = x, B(F(k)) = k, F(k & M) = |F(k)|, F(k ^ S) = -F(k),
 *   F(k | S) = -|F(k)|, F(k & S) = 0, copysign by or/xor of a sign,
 *   B(x) & M = B(|x|), B(x) & S = x < 0 ? S : 0, B(x) >> (W-1) (the sign),
 *   sign tests, =, <, <= and min/max of B(x) and of J(B(x)) (the key's
 *   signed order is that of the reals), J(J(k)) = k, and ite of B's.
 * A float load read as an integer is the bits of the load read as that
 * float (exact: the same bytes), so the idioms under F also see through
 * nvcc's habit of loading floats as u32 when only their bits are used; a
 * key J(k) of an integer load is built on the float load only where the
 * context says the memory holds floats (ectx_set_float_mem: host input,
 * whose integer reads would resolve as recorded constants); elsewhere an
 * integer load stays an integer.
 *
 * F of a constant is folded only by e_reinterp (literal bits in a
 * program), not when a node is rebuilt after substitution: there a
 * constant may be the recorded contents of an input read as an integer,
 * and the bits of a float must not become a constant that way.
 */
#include "libcommon/expr-impl.h"

#include <math.h>

/* ---- float types -------------------------------------------------------------- */

struct fmt { unsigned w, ebits, mbits; };

static bool fmt_of(enum etype ft, struct fmt *f)
{
	switch (ft) {
	case ET_F16: *f = (struct fmt){ 16, 5, 10 }; return true;
	case ET_BF16: *f = (struct fmt){ 16, 8, 7 }; return true;
	case ET_F32: *f = (struct fmt){ 32, 8, 23 }; return true;
	case ET_F64: *f = (struct fmt){ 64, 11, 52 }; return true;
	default: return false;
	}
}

static unsigned ft_width(enum etype ft)
{
	struct fmt f;
	return fmt_of(ft, &f) ? f.w : 0;
}

/* The finite value of bits u of type ft; false for infinities and NaNs. */
static bool ft_value(enum etype ft, uint64_t u, double *out)
{
	struct fmt f;
	if (!fmt_of(ft, &f))
		return false;
	u &= bv_mask(f.w);
	uint64_t emax = (1ull << f.ebits) - 1, e = (u >> f.mbits) & emax;
	uint64_t m = u & ((1ull << f.mbits) - 1);
	int bias = (1 << (f.ebits - 1)) - 1;
	if (e == emax)
		return false;
	double a = e == 0 ? ldexp((double)m, 1 - bias - (int)f.mbits)
	                  : ldexp((double)(m | (1ull << f.mbits)), (int)e - bias - (int)f.mbits);
	*out = (u >> (f.w - 1)) & 1 ? -a : a;
	return true;
}

/* The bits of real d as type ft (f32 and f64 round to nearest; f16 and
 * bf16 only when d is exact in them); false if it is not finite there. */
static bool ft_bits(enum etype ft, double d, uint64_t *out)
{
	if (!isfinite(d))
		return false;
	if (d == 0) {
		*out = 0;                /* the real zero is +0 */
		return true;
	}
	if (ft == ET_F32) {
		float x = (float)d;
		uint32_t u;
		if (!isfinite(x))
			return false;
		memcpy(&u, &x, sizeof u);
		*out = u;
		return true;
	}
	if (ft == ET_F64) {
		memcpy(out, &d, sizeof d);
		return true;
	}
	struct fmt f;
	if (!fmt_of(ft, &f))
		return false;
	int bias = (1 << (f.ebits - 1)) - 1, e;
	double a = fabs(d), m = frexp(a, &e);   /* a = m * 2^e, m in [0.5, 1) */
	(void)m;
	int E = e - 1;                           /* a = 1.f * 2^E */
	uint64_t bits;
	if (E > bias)
		return false;
	if (E >= 1 - bias) {
		double frac = ldexp(a, -E) - 1, mm = ldexp(frac, (int)f.mbits);
		if (mm != floor(mm))
			return false;
		bits = ((uint64_t)(E + bias) << f.mbits) | (uint64_t)mm;
	} else {
		double mm = ldexp(a, bias - 1 + (int)f.mbits);
		if (mm != floor(mm) || mm >= ldexp(1, (int)f.mbits))
			return false;
		bits = (uint64_t)mm;
	}
	if (d < 0)
		bits |= 1ull << (f.w - 1);
	*out = bits;
	return true;
}

static inline uint64_t sbit(unsigned w) { return 1ull << (w - 1); }
static inline uint64_t mbits_of(unsigned w) { return sbit(w) - 1; }

/* ---- recognisers ----------------------------------------------------------------- */

static inline bool is_const_bv(const struct expr *e, uint64_t v)
{
	return e->op == EOP_BV && e->u == (v & bv_mask(SORT_WIDTH(e->sort)));
}

/* e = B(x): *x, *ft. */
static bool is_b(const struct expr *e, const struct expr **x, enum etype *ft)
{
	if (e->op != EOP_OPAQUE || EOPQ_KIND(e->u) != EOPQ_BITS)
		return false;
	*x = e->args[0];
	*ft = EOPQ_FT(e->u);
	return true;
}

static bool is_f(const struct expr *e, const struct expr **k, enum etype *ft)
{
	if (e->op != EOP_OPAQUE || EOPQ_KIND(e->u) != EOPQ_FLOAT)
		return false;
	*k = e->args[0];
	*ft = EOPQ_FT(e->u);
	return true;
}

/* An integer load (a LOAD leaf of a non-float type) of width w. */
static bool is_int_load(const struct expr *e, unsigned w)
{
	return e->op == EOP_LOAD && !etype_is_float((enum etype)e->et) && etype_size((enum etype)e->et) * 8 == w;
}

/* The float type of width w that an integer load is read as when its
 * bits are a float's: f32, f64; 16 bits are ambiguous (f16 or bf16). */
static enum etype ft_of_width(unsigned w)
{
	return w == 32 ? ET_F32 : w == 64 ? ET_F64 : ET_NONE;
}

/* op(a, b) is a sign test of *k: k <s 0 (*neg false) or k >=s 0 (*neg true). */
static bool sign_test2(enum eop op, const struct expr *a, const struct expr *b,
                       const struct expr **k, bool *neg)
{
	if ((op != EOP_SLT && op != EOP_SLE) || SORT_KIND(a->sort) != SK_BV)
		return false;
	unsigned w = SORT_WIDTH(a->sort);
	uint64_t z = op == EOP_SLT ? 0 : bv_mask(w);         /* a < 0, a <= -1 */
	if (b->op == EOP_BV && b->u == z && a->op != EOP_BV) {
		*k = a;
		*neg = false;
		return true;
	}
	z = op == EOP_SLT ? bv_mask(w) : 0;                   /* -1 < b, 0 <= b */
	if (a->op == EOP_BV && a->u == z && b->op != EOP_BV) {
		*k = b;
		*neg = true;
		return true;
	}
	return false;
}

static bool is_j(const struct expr *e, const struct expr **k);

/* Is c a sign test of k (*neg: k >=s 0)?  Also when k = B(x) and the test
 * already became x < 0 (or 0 <= x). */
static bool key_cond(const struct expr *c, const struct expr *k, bool *neg)
{
	const struct expr *t, *x;
	enum etype ft;
	if (c->nargs == 2 && sign_test2((enum eop)c->op, c->args[0], c->args[1], &t, neg) && t == k)
		return true;
	if (is_j(k, &t))          /* J keeps the sign: a test of J(t) is one of t */
		return key_cond(c, t, neg);
	if (!is_b(k, &x, &ft) || c->nargs != 2)
		return false;
	const struct expr *a = c->args[0], *b = c->args[1];
	if (c->op == EOP_FLT && a == x && b->op == EOP_REAL && b->d == 0) {
		*neg = false;
		return true;
	}
	if (c->op == EOP_FLE && b == x && a->op == EOP_REAL && a->d == 0) {
		*neg = true;
		return true;
	}
	return false;
}

/* e = J(k) in its canonical form ite(k <s 0, k ^ M, k). */
static bool is_j(const struct expr *e, const struct expr **k)
{
	if (e->op != EOP_ITE || SORT_KIND(e->sort) != SK_BV)
		return false;
	const struct expr *x = e->args[2], *t = e->args[1];
	bool neg;
	if (t->op != EOP_XOR || t->args[0] != x || !is_const_bv(t->args[1], mbits_of(SORT_WIDTH(e->sort))) ||
	    !key_cond(e->args[0], x, &neg) || neg)
		return false;
	*k = x;
	return true;
}

/* e = J(B(x)): the signed order-preserving key of real x. */
static bool is_key(const struct expr *e, const struct expr **x, enum etype *ft)
{
	const struct expr *k;
	return is_j(e, &k) && is_b(k, x, ft);
}

static bool real_nonneg(const struct expr *x)
{
	return x->op == EOP_FABS || (x->op == EOP_REAL && x->d >= 0);
}

/* ---- builders ---------------------------------------------------------------------- */

static const struct expr *mk_b(struct ectx *cx, uint64_t tag, enum etype ft, const struct expr *x)
{
	return e_op1(cx, EOP_OPAQUE, SORT_BV(ft_width(ft)), EOPQ(EOPQ_BITS, ft, tag), x);
}

static const struct expr *lt0(struct ectx *cx, const struct expr *x)
{
	return e_op2(cx, EOP_FLT, x, e_real(cx, 0));
}

static const struct expr *fneg(struct ectx *cx, const struct expr *x)
{
	return e_op1(cx, EOP_FNEG, SORT_REAL, 0, x);
}

static const struct expr *fabs_(struct ectx *cx, const struct expr *x)
{
	return e_op1(cx, EOP_FABS, SORT_REAL, 0, x);
}

/* J(k), canonical, without running the recogniser on itself. */
static const struct expr *mk_j(struct ectx *cx, const struct expr *k)
{
	unsigned w = SORT_WIDTH(k->sort);
	const struct expr *c = e_op2(cx, EOP_SLT, k, e_bv(cx, 0, w));
	const struct expr *t = e_op2(cx, EOP_XOR, k, e_bv(cx, mbits_of(w), w));
	if (c->op == EOP_BOOL)
		return c->u ? t : k;
	if (c->op == EOP_LNOT) {          /* (not expected: sign tests stay positive) */
		const struct expr *v[3] = { c->args[0], k, t };
		return x_intern(cx, EOP_ITE, k->sort, 0, 0, 0, 0, 3, v);
	}
	const struct expr *v[3] = { c, t, k };
	return x_intern(cx, EOP_ITE, k->sort, 0, 0, 0, 0, 3, v);
}

static const struct expr *mk_key(struct ectx *cx, uint64_t tag, enum etype ft, const struct expr *x)
{
	return mk_j(cx, mk_b(cx, tag, ft, x));
}

/* J of a constant */
static uint64_t j_const(uint64_t c, unsigned w)
{
	return (c & sbit(w)) ? c ^ mbits_of(w) : c;
}

/* ---- F(k): the float of bits k ------------------------------------------------------- */

#define DEC_DEPTH 12

/* The real whose bits as ft are k, when an idiom shows it; NULL if none. */
static const struct expr *dec(struct ectx *cx, const struct expr *k, enum etype ft, bool fold, unsigned depth)
{
	unsigned w = ft_width(ft);
	uint64_t S = sbit(w), M = mbits_of(w);
	const struct expr *x;
	enum etype xt;
	if (depth > DEC_DEPTH || SORT_WIDTH(k->sort) != w)
		return NULL;
	if (is_b(k, &x, &xt))
		return xt == ft ? x : NULL;
	if (is_int_load(k, w))
		return e_load(cx, k->space, ft, k->args[0]);
	if (k->op == EOP_BV) {
		double d;
		return fold && ft_value(ft, k->u, &d) ? e_real(cx, d) : NULL;
	}
	if (k->op == EOP_ITE) {
		const struct expr *t = dec(cx, k->args[1], ft, fold, depth + 1);
		const struct expr *f = t ? dec(cx, k->args[2], ft, fold, depth + 1) : NULL;
		return f ? e_ite(cx, k->args[0], t, f) : NULL;
	}
	if (k->op != EOP_AND && k->op != EOP_OR && k->op != EOP_XOR)
		return NULL;
	const struct expr *a = k->args[0], *b = k->args[1];
	if (b->op == EOP_BV) {
		if (k->op == EOP_AND && b->u == S)
			return e_real(cx, 0);             /* +0 or -0 */
		if (!(k->op == EOP_AND && b->u == M) && !(k->op != EOP_AND && b->u == S))
			return NULL;
		if (!(x = dec(cx, a, ft, fold, depth + 1)))
			return NULL;
		if (k->op == EOP_AND)
			return fabs_(cx, x);
		return k->op == EOP_XOR ? fneg(cx, x) : fneg(cx, fabs_(cx, x));
	}
	/* a value combined with a sign: (x & M) | s, x ^ s, s = y & S or ite(c, S, 0) */
	for (int i = 0; i < 2; i++) {
		const struct expr *v = i ? b : a, *s = i ? a : b, *cond = NULL;
		const struct expr *y;
		if (s->op == EOP_AND && is_const_bv(s->args[1], S)) {
			if (!(y = dec(cx, s->args[0], ft, fold, depth + 1)))
				continue;
			cond = lt0(cx, y);
		} else if (s->op == EOP_ITE && is_const_bv(s->args[1], S) && is_const_bv(s->args[2], 0)) {
			cond = s->args[0];
		} else {
			continue;
		}
		if (!(x = dec(cx, v, ft, fold, depth + 1)))
			continue;
		if (k->op == EOP_OR && !real_nonneg(x))
			continue;                         /* or with a sign needs a clear sign */
		if (k->op == EOP_AND)
			continue;
		return e_ite(cx, cond, fneg(cx, x), x);
	}
	return NULL;
}

/* ---- the constructor of OPAQUE nodes ---------------------------------------------------- */

const struct expr *x_opaque(struct ectx *cx, sort_t s, uint64_t aux, unsigned n,
                            const struct expr *const *args, bool fold)
{
	enum eopq_kind kind = EOPQ_KIND(aux);
	enum etype ft = EOPQ_FT(aux);
	const struct expr *a = n ? args[0] : NULL, *x;
	enum etype xt;
	if (kind == EOPQ_BITS) {
		if (is_f(a, &x, &xt) && xt == ft)
			return x;                                 /* B(F(k)) = k */
		uint64_t u;
		if (a->op == EOP_REAL && ft_bits(ft, x_real(a), &u))
			return e_bv(cx, u, SORT_WIDTH(s));
	} else if (kind == EOPQ_FLOAT) {
		if ((x = dec(cx, a, ft, fold, 0)))
			return x;
	}
	return x_intern(cx, EOP_OPAQUE, s, 0, 0, aux, 0, n, args);
}

const struct expr *e_opaque(struct ectx *cx, uint64_t tag, sort_t sort, unsigned n,
                            const struct expr *const *args)
{
	return e_op(cx, EOP_OPAQUE, sort, EOPQ(EOPQ_FN, 0, tag), n, args);
}

const struct expr *e_reinterp(struct ectx *cx, uint64_t tag, const struct expr *a, enum etype ft)
{
	unsigned w = ft_width(ft);
	if (!w)
		return NULL;
	if (a->sort == SORT_REAL)
		return mk_b(cx, tag, ft, a);
	if (a->sort != SORT_BV(w))
		return NULL;
	uint64_t aux = EOPQ(EOPQ_FLOAT, ft, tag);
	const char *err = e_op_check(EOP_OPAQUE, SORT_REAL, aux, 1, &a);
	if (err)
		return NULL;
	return x_opaque(cx, SORT_REAL, aux, 1, &a, true);
}

/* ---- bitvector operators on bits -------------------------------------------------------- */

/* min/max of two keys J(B(x)), J(B(y)) or of a key and a constant. */
static const struct expr *key_minmax(struct ectx *cx, enum eop op, const struct expr *a, const struct expr *b)
{
	const struct expr *x, *y;
	enum etype ft, yt;
	if (!is_key(a, &x, &ft))
		return NULL;
	bool max = op == EOP_SMAX;
	uint64_t tag = EOPQ_TAGOF(a->args[2]->u);
	if (is_key(b, &y, &yt))
		return yt == ft ? mk_key(cx, tag, ft, e_op2(cx, max ? EOP_FMAX : EOP_FMIN, x, y)) : NULL;
	if (b->op != EOP_BV)
		return NULL;
	unsigned w = ft_width(ft);
	uint64_t kb = j_const(b->u, w);
	double v;
	if (ft_value(ft, kb, &v)) {
		if (kb == sbit(w))
			return NULL;                  /* the key of -0: no real of its own */
		return mk_key(cx, tag, ft, e_op2(cx, max ? EOP_FMAX : EOP_FMIN, x, e_real(cx, v)));
	}
	/* an infinity or NaN pattern: above every key of a real, or below */
	bool above = !(b->u & sbit(w));
	return (above == max) ? b : a;
}

const struct expr *x_bits_bv(struct ectx *cx, enum eop op, sort_t s, const struct expr *a,
                             const struct expr *b)
{
	const struct expr *x;
	enum etype ft;
	unsigned w = SORT_WIDTH(s);
	uint64_t S = sbit(w), M = mbits_of(w);
	switch (op) {
	case EOP_SMAX: case EOP_SMIN: {
		const struct expr *r = key_minmax(cx, op, a, b);
		if (!r)
			r = key_minmax(cx, op, b, a);
		if (r)
			return r;
		const struct expr *y;
		enum etype yt;
		if (is_b(a, &x, &ft) && is_b(b, &y, &yt) && ft == yt) {
			/* through the comparison: ite(a < b, b, a) for max */
			const struct expr *lt = e_op2(cx, EOP_SLT, a, b);
			return op == EOP_SMAX ? e_ite(cx, lt, b, a) : e_ite(cx, lt, a, b);
		}
		return NULL;
	}
	case EOP_UMAX: case EOP_UMIN: {
		const struct expr *y;
		enum etype yt;
		if (is_b(a, &x, &ft) && is_b(b, &y, &yt) && ft == yt) {
			const struct expr *lt = e_op2(cx, EOP_ULT, a, b);
			return op == EOP_UMAX ? e_ite(cx, lt, b, a) : e_ite(cx, lt, a, b);
		}
		return NULL;
	}
	case EOP_LSHR: case EOP_ASHR:
		if (!is_b(a, &x, &ft) || b->op != EOP_BV || b->u != w - 1)
			return NULL;
		return e_ite(cx, lt0(cx, x), e_bv(cx, op == EOP_LSHR ? 1 : bv_mask(w), w), e_bv(cx, 0, w));
	case EOP_AND: case EOP_OR: case EOP_XOR:
		break;
	default:
		return NULL;
	}
	uint64_t tag;
	/* constants come last (mk_bv_arith's order) */
	if (is_b(a, &x, &ft) && b->op == EOP_BV) {
		tag = EOPQ_TAGOF(a->u);
		if (op == EOP_AND && b->u == M)
			return mk_b(cx, tag, ft, fabs_(cx, x));
		if (op == EOP_AND && b->u == S)
			return e_ite(cx, lt0(cx, x), b, e_bv(cx, 0, w));
		if (op == EOP_XOR && b->u == S)
			return mk_b(cx, tag, ft, fneg(cx, x));
		if (op == EOP_OR && b->u == S)
			return mk_b(cx, tag, ft, fneg(cx, fabs_(cx, x)));
		return NULL;
	}
	if (op == EOP_AND)
		return NULL;
	/* a real's bits combined with a sign ite(c, S, 0): copysign, sign flip */
	for (int i = 0; i < 2; i++) {
		const struct expr *v = i ? b : a, *sg = i ? a : b;
		if (!is_b(v, &x, &ft) || sg->op != EOP_ITE || !is_const_bv(sg->args[1], S) ||
		    !is_const_bv(sg->args[2], 0))
			continue;
		if (op == EOP_OR && !real_nonneg(x))
			continue;
		return mk_b(cx, EOPQ_TAGOF(v->u), ft, e_ite(cx, sg->args[0], fneg(cx, x), x));
	}
	return NULL;
}

/* ---- comparisons ---------------------------------------------------------------------- */

/* Signed (or unsigned) x-bits < y-bits (or <=) over the reals x, y. */
static const struct expr *bits_order(struct ectx *cx, bool is_signed, bool le,
                                     const struct expr *x, const struct expr *y)
{
	const struct expr *nx = lt0(cx, x), *ny = lt0(cx, y);
	enum eop o = le ? EOP_FLE : EOP_FLT;
	const struct expr *yx = e_op2(cx, o, y, x), *xy = e_op2(cx, o, x, y);
	/* both negative: the larger magnitude has the larger bits */
	if (is_signed)   /* negatives below positives */
		return e_ite(cx, nx, e_or(cx, e_not(cx, ny), yx), e_and(cx, e_not(cx, ny), xy));
	return e_ite(cx, nx, e_and(cx, ny, yx), e_or(cx, ny, xy));
}

/* A constant as B(v) when its bits are a real's (not -0, no infinity). */
static bool const_real(enum etype ft, const struct expr *c, double *v)
{
	unsigned w = ft_width(ft);
	return c->op == EOP_BV && c->u != sbit(w) && ft_value(ft, c->u, v);
}

/* key(x) < c or key(x) <= c (flip: c < key(x), c <= key(x)) */
static const struct expr *key_vs_const(struct ectx *cx, bool le, bool flip, const struct expr *x,
                                       enum etype ft, const struct expr *c)
{
	unsigned w = ft_width(ft);
	uint64_t k = j_const(c->u, w);
	double v;
	if (k == sbit(w)) {
		/* c = -1 is the key of -0: key(x) < -1 and key(x) <= -1 iff x < 0 */
		const struct expr *n = lt0(cx, x);
		return flip ? e_not(cx, n) : n;
	}
	if (!ft_value(ft, k, &v)) {
		bool above = !(c->u & sbit(w));     /* c is above every key of a real */
		return e_bool(cx, above != flip);
	}
	const struct expr *r = e_real(cx, v);
	enum eop o = le ? EOP_FLE : EOP_FLT;
	return flip ? e_op2(cx, o, r, x) : e_op2(cx, o, x, r);
}

const struct expr *x_bits_cmp(struct ectx *cx, enum eop op, const struct expr *a, const struct expr *b)
{
	if (SORT_KIND(a->sort) != SK_BV || (a->op != EOP_OPAQUE && a->op != EOP_ITE &&
	                                    b->op != EOP_OPAQUE && b->op != EOP_ITE))
		return NULL;
	const struct expr *x, *y, *k;
	enum etype ft, yt;
	unsigned w = SORT_WIDTH(a->sort);
	/* sign tests */
	bool neg;
	if (sign_test2(op, a, b, &k, &neg)) {
		const struct expr *inner;
		if (is_b(k, &x, &ft))
			return neg ? e_op2(cx, EOP_FLE, e_real(cx, 0), x) : lt0(cx, x);
		if (is_j(k, &inner)) {
			const struct expr *r = e_op2(cx, EOP_SLT, inner, e_bv(cx, 0, w));
			return neg ? e_not(cx, r) : r;
		}
	}
	if (op == EOP_EQ) {
		const struct expr *p, *q;
		if (is_j(a, &p) && is_j(b, &q))
			return e_op2(cx, EOP_EQ, p, q);
		if (is_b(a, &x, &ft) && is_b(b, &y, &yt) && ft == yt)
			return e_op2(cx, EOP_EQ, x, y);
		for (int i = 0; i < 2; i++) {
			const struct expr *v = i ? b : a, *c = i ? a : b;
			double d;
			if (c->op != EOP_BV)
				continue;
			if (is_j(v, &p))
				return e_op2(cx, EOP_EQ, p, e_bv(cx, j_const(c->u, w), w));
			if (is_b(v, &x, &ft))
				return const_real(ft, c, &d) ? e_op2(cx, EOP_EQ, x, e_real(cx, d)) : e_bool(cx, false);
		}
		return NULL;
	}
	bool le = op == EOP_SLE || op == EOP_ULE, sg = op == EOP_SLT || op == EOP_SLE;
	if (sg) {
		if (is_key(a, &x, &ft) && is_key(b, &y, &yt) && ft == yt)
			return e_op2(cx, le ? EOP_FLE : EOP_FLT, x, y);
		if (is_key(a, &x, &ft) && b->op == EOP_BV)
			return key_vs_const(cx, le, false, x, ft, b);
		if (is_key(b, &y, &yt) && a->op == EOP_BV)
			return key_vs_const(cx, le, true, y, yt, a);
	}
	double d;
	if (is_b(a, &x, &ft) && is_b(b, &y, &yt) && ft == yt)
		return bits_order(cx, sg, le, x, y);
	if (is_b(a, &x, &ft) && const_real(ft, b, &d))
		return bits_order(cx, sg, le, x, e_real(cx, d));
	if (is_b(b, &y, &yt) && const_real(yt, a, &d))
		return bits_order(cx, sg, le, e_real(cx, d), y);
	return NULL;
}

/* ---- ite --------------------------------------------------------------------------------- */

const struct expr *x_bits_ite(struct ectx *cx, const struct expr *c, const struct expr *t,
                              const struct expr *f)
{
	if (SORT_KIND(t->sort) != SK_BV)
		return NULL;
	const struct expr *x, *y, *k;
	enum etype ft, yt;
	if (is_b(t, &x, &ft) && is_b(f, &y, &yt) && ft == yt)
		return mk_b(cx, EOPQ_TAGOF(t->u), ft, e_ite(cx, c, x, y));
	/* J(k) = ite(k <s 0, k ^ M, k), in any of its spellings */
	bool neg;
	k = f;
	if (!key_cond(c, k, &neg)) {
		k = t;
		if (!key_cond(c, k, &neg))
			return NULL;
	}
	if (neg) {
		const struct expr *s = t; t = f; f = s;
	}
	unsigned w = SORT_WIDTH(t->sort);
	if (f != k || t->op != EOP_XOR || t->args[0] != k || !is_const_bv(t->args[1], mbits_of(w)))
		return NULL;
	const struct expr *inner;
	if (is_j(k, &inner))
		return inner;                                 /* J(J(k)) = k */
	enum etype lt = ft_of_width(w);
	if (is_int_load(k, w) && lt != ET_NONE && cx->float_mem && cx->float_mem(k->space, cx->float_mem_user))
		return mk_key(cx, 0, lt, e_load(cx, k->space, lt, k->args[0]));   /* a float's key */
	return mk_j(cx, k);
}
