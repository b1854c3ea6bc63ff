/*
 * affine.c: thread conditions shown empty by linear reasoning (quick.c
 * asks here before the solver).  Most of dexec's queries are "can a thread
 * of this bundle's domain access past the end of the buffer?", "is this
 * half of a split empty?", whose answer follows from the domain's affine
 * bounds on the coordinates: i < n with i = 256*ctaid.x + tid.x, tile
 * indices split by division and remainder by constants.
 *
 * The condition is put in disjunctive normal form; each conjunction's
 * comparisons become linear constraints over integer variables: the
 * coordinates (bounded by the geometry) and one variable per node that
 * is not affine (a quotient q of x by a constant c, with c*q <= x <=
 * c*q + c-1, which also gives the remainder x - c*q and the masks of
 * low or middle bits; other nodes by their range alone).  A bitvector node is tracked as
 * an integer form congruent to its value; where the value itself is needed
 * (a comparison, an extension, a division) the form's range over the
 * variables' bounds must lie in one window of 2^w values, else the
 * comparison is dropped (a weaker conjunction: still sound for showing
 * emptiness).  A form's range is first narrowed by the division
 * identities x - c*q - r = 0 (and x/a - (d/a)*(x/d) - s = 0 between the
 * quotients of one x whose divisors divide each other): a form expanded
 * along them is a sum of digits, each in its range, as a 5-D index's
 * offset is, with no elimination needed.  Where a projection is still
 * needed, one over only the form's own variables is tried first.  Each
 * conjunction is refuted by Fourier-Motzkin elimination over the
 * integers' real shadow, every derived constraint tightened by
 * the gcd of its coefficients (sound for integers).  Only "empty" is ever
 * concluded; anything else is left to the caller.
 */
#include "dexec.h"

#include <string.h>

typedef __int128 i128;

#define NV          32            /* variables */
#define DNF_MAX     64            /* conjunctions */
#define LITS_MAX    64            /* comparisons per conjunction */
#define ROWS_MAX    30000         /* constraints during elimination */
#define DEPTH_MAX   48
#define BIG         ((i128)1 << 100)
#define IDENT_MAX   24            /* identities kept for narrowing ranges */

struct form { i128 c0; i128 c[NV]; };

/* x <= hi etc.: a constraint sum a_i v_i <= b */
struct row { i128 a[NV]; i128 b; };
typedef VEC(struct row) rows_t;

struct var {
	i128 lo, hi;                 /* bounds */
	const struct expr *node;     /* the node it stands for (aux), or NULL */
	i128 div;                    /* quotient variables: the divisor */
	bool rem;                    /* node % div of a quotient by a product */
};

struct actx {
	struct dx_launch *L;
	struct var v[NV];
	int nv;
	rows_t side;        /* constraints of the aux variables */
	struct ident { struct form t; int q, r; } ident[IDENT_MAX];
	int nident;                  /* equalities among them: x - d*q - r = 0 */
	bool failed;                 /* too many variables */
	const rows_t *rows;          /* the conjunction's rows built so far, or NULL */
	bool empty;                  /* a projection showed the conjunction empty */
	unsigned projections;        /* made in this conjunction */
};

/* ---- forms ---------------------------------------------------------------- */

static bool big(i128 x)
{
	return x > BIG || x < -BIG;
}

static void form_const(struct form *f, i128 k)
{
	memset(f, 0, sizeof *f);
	f->c0 = k;
}

/* k*x, false where it would pass BIG (before it can overflow). */
static bool mul_small(i128 k, i128 x, i128 *out)
{
	i128 ak = k < 0 ? -k : k, ax = x < 0 ? -x : x;
	if (ak < ((i128)1 << 50) && ax < ((i128)1 << 50)) {   /* the product is under BIG: no division */
		*out = k * x;
		return true;
	}
	if (ak && ax && (big(k) || big(x) || ax > BIG / ak))
		return false;
	*out = k * x;
	return true;
}

static bool form_add(struct form *a, const struct form *b, i128 k)
{
	i128 p;
	if (!mul_small(k, b->c0, &p))
		return false;
	a->c0 += p;
	if (big(a->c0))
		return false;
	for (int i = 0; i < NV; i++) {
		if (!mul_small(k, b->c[i], &p))
			return false;
		a->c[i] += p;
		if (big(a->c[i]))
			return false;
	}
	return true;
}

static void range(const struct actx *c, const struct form *f, i128 *lo, i128 *hi)
{
	*lo = *hi = f->c0;
	for (int i = 0; i < c->nv; i++) {
		if (!f->c[i])
			continue;
		i128 a = f->c[i] * c->v[i].lo, b = f->c[i] * c->v[i].hi;
		*lo += a < b ? a : b;
		*hi += a < b ? b : a;
	}
}

/* Records t = x - d*q - r = 0, with q and r the variables at kq and kr
 * (an identity of the variables, true wherever their constraints hold),
 * for narrow_range. */
static void identity(struct actx *c, const struct form *t, int kq, int kr)
{
	if (c->nident < IDENT_MAX)
		c->ident[c->nident++] = (struct ident){ *t, kq, kr };
}

/* f with each dividend x that it holds whole (as k*x) put as k*(d*q + r):
 * a 5-D index's offset that nvcc folded into x + 6*(x/58) + 256*(x/3480)
 * - ... becomes a sum of digits, r58 + 64*r60 + 4096*r62 + ..., each in
 * its range.  Dividends are finer than their quotients, so it ends. */
static void expand(const struct actx *c, struct form *g)
{
	for (int pass = 0; pass < 2 * c->nident; pass++) {
		bool changed = false;
		for (int i = 0; i < c->nident; i++) {
			const struct ident *id = &c->ident[i];
			i128 k = 0;
			bool whole = true;
			for (int v = 0; v < c->nv && whole; v++) {
				if (v == id->q || v == id->r || !id->t.c[v])
					continue;
				if (g->c[v] % id->t.c[v] || (k && g->c[v] / id->t.c[v] != k))
					whole = false;
				else
					k = g->c[v] / id->t.c[v];
			}
			if (!whole || !k)
				continue;
			struct form h = *g;
			if (!form_add(&h, &id->t, -k))
				continue;
			*g = h;
			changed = true;
		}
		if (!changed)
			break;
	}
}

/* The range of f, narrowed by the identities: f - k*t equals f wherever
 * the constraints hold, so its range over the bounds also bounds f.
 * First f expanded into digits (expand); then, step by step, an identity
 * t = x - d*q - r of a quotient turns x - d*q, as nvcc computes a
 * remainder, into r in [0, d-1]: k is chosen to cancel f's term in one of
 * t's variables, kept when the range narrows. */
static void narrow_range(const struct actx *c, struct form *f, i128 *lo, i128 *hi)
{
	range(c, f, lo, hi);
	if (!c->nident)
		return;
	struct form g = *f;
	i128 l, h;
	expand(c, &g);
	range(c, &g, &l, &h);
	if (h - l < *hi - *lo) {
		*f = g;
		*lo = l;
		*hi = h;
	}
	for (int pass = 0; pass < 4; pass++) {
		bool better = false;
		for (int i = 0; i < c->nident; i++) {
			const struct form *t = &c->ident[i].t;
			for (int v = 9; v < c->nv; v++) {
				if (!t->c[v] || !f->c[v] || f->c[v] % t->c[v])
					continue;
				g = *f;
				if (!form_add(&g, t, -(f->c[v] / t->c[v])))
					continue;
				range(c, &g, &l, &h);
				if (h - l < *hi - *lo) {
					*f = g;
					*lo = l;
					*hi = h;
					better = true;
				}
			}
		}
		if (!better)
			break;
	}
}

/* Makes f the value of a width-w node (unsigned, or signed): false when
 * its range spans more than one window. */
static int eliminate(rows_t *rows, int nv, int keep);
static i128 floor_div(i128 a, i128 b);

#define PROJ_MAX 8                /* projections per conjunction */

/* Bounds of f over the conjunction's rows built so far, the variables'
 * constraints and bounds: f as a new variable z, every other variable
 * eliminated (sound for integers: the real shadow's projection, tightened,
 * contains the integer one).  With cheap, only the rows over f's own
 * variables (fewer rows: weaker, still sound, and small where the full
 * elimination outgrows ROWS_MAX).  False when nothing is learnt; c->empty
 * when the rows are infeasible. */
static bool project(struct actx *c, const struct form *f, bool cheap, i128 *lo, i128 *hi)
{
	if (!c->rows || c->nv >= NV || c->projections >= PROJ_MAX)
		return false;
	bool in_f[NV];
	for (int v = 0; v < NV; v++)
		in_f[v] = f->c[v] != 0;
	c->projections++;
	int z = c->nv;
	rows_t r = { 0 };
	struct row x;
	for (size_t i = 0; i < c->rows->len + c->side.len; i++) {
		const struct row *p = i < c->rows->len ? &c->rows->items[i] : &c->side.items[i - c->rows->len];
		bool keep = true;
		for (int v = 0; v < c->nv && cheap && keep; v++)
			keep = !p->a[v] || in_f[v];
		if (keep)
			VEC_PUSH(r, *p);
	}
	for (int v = 0; v < c->nv; v++) {
		if (cheap && !in_f[v])
			continue;
		memset(&x, 0, sizeof x);
		x.a[v] = 1;
		x.b = c->v[v].hi;
		VEC_PUSH(r, x);
		x.a[v] = -1;
		x.b = -c->v[v].lo;
		VEC_PUSH(r, x);
	}
	/* z - f <= 0 and f - z <= 0 */
	memset(&x, 0, sizeof x);
	for (int v = 0; v < NV; v++)
		x.a[v] = -f->c[v];
	x.a[z] = 1;
	x.b = f->c0;
	VEC_PUSH(r, x);
	for (int v = 0; v < NV; v++)
		x.a[v] = -x.a[v];
	x.b = -f->c0;
	VEC_PUSH(r, x);
	int k = eliminate(&r, z + 1, z);
	bool got = false;
	if (k < 0)
		c->empty = true;
	if (k == 0) {
		i128 l = -BIG, h = BIG;
		for (size_t i = 0; i < r.len; i++) {
			const struct row *q = &r.items[i];
			if (q->a[z] > 0 && floor_div(q->b, q->a[z]) < h)
				h = floor_div(q->b, q->a[z]);
			if (q->a[z] < 0 && -floor_div(q->b, -q->a[z]) > l)
				l = -floor_div(q->b, -q->a[z]);
		}
		if (l > -BIG && h < BIG) {
			*lo = l;
			*hi = h;
			got = true;
		}
	}
	VEC_FREE(r);
	return got;
}

/* Does [lo, hi] lie in one window [base + k*m, base + (k+1)*m)?  *k is
 * the window of lo. */
static bool one_window(i128 lo, i128 hi, i128 base, i128 m, i128 *k)
{
	*k = floor_div(lo - base, m);
	return hi - base < (*k + 1) * m;
}

static bool window(struct actx *c, struct form *f, unsigned w, bool sgn)
{
	i128 lo, hi, k, m = (i128)1 << w, base = sgn ? -(m / 2) : 0;
	narrow_range(c, f, &lo, &hi);
	if (!one_window(lo, hi, base, m, &k)) {
		/* the bounds alone are too wide: what the rest of the
		 * conjunction says about f, from the rows over f's own
		 * variables first (small), else from all of them */
		i128 plo, phi;
		bool got = project(c, f, true, &plo, &phi) &&
		           one_window(plo > lo ? plo : lo, phi < hi ? phi : hi, base, m, &k);
		if (!got && !project(c, f, false, &plo, &phi))
			return false;
		if (plo > lo)
			lo = plo;
		if (phi < hi)
			hi = phi;
		if (lo > hi) {
			c->empty = true;
			return false;
		}
		if (!one_window(lo, hi, base, m, &k))
			return false;
	}
	f->c0 -= k * m;
	return true;
}

static int var_of(struct actx *c, i128 lo, i128 hi, const struct expr *node, i128 div, bool rem)
{
	for (int i = 6 + 3; i < c->nv; i++)
		if (node && c->v[i].node == node && c->v[i].div == div && c->v[i].rem == rem)
			return i;

	if (c->nv >= NV) {
		c->failed = true;
		return -1;
	}
	c->v[c->nv] = (struct var){ lo, hi, node, div, rem };
	return c->nv++;
}

static int new_var(struct actx *c, i128 lo, i128 hi, const struct expr *node, i128 div)
{
	return var_of(c, lo, hi, node, div, false);
}

static void side(struct actx *c, const struct form *f, i128 k)
{
	/* f <= k */
	struct row r;
	memset(&r, 0, sizeof r);
	for (int i = 0; i < NV; i++)
		r.a[i] = f->c[i];
	r.b = k - f->c0;
	VEC_PUSH(c->side, r);
}

static bool lin(struct actx *c, const struct expr *e, struct form *f, unsigned depth);

/* The value of e (width w) as a form, unsigned or signed. */
static bool value(struct actx *c, const struct expr *e, struct form *f, bool sgn, unsigned depth)
{
	return lin(c, e, f, depth) && window(c, f, SORT_WIDTH(e->sort), sgn);
}

/* A variable standing for e, with bounds [lo, hi]. */
static bool aff_opaque(struct actx *c, const struct expr *e, struct form *f, i128 lo, i128 hi)
{
	int k = new_var(c, lo, hi, e, 0);
	if (k < 0)
		return false;
	form_const(f, 0);
	f->c[k] = 1;
	return true;
}

static bool quotient(struct actx *c, const struct expr *x, i128 d, bool sgn, struct form *q,
                     struct form *r, struct form *xv, unsigned depth);

/* The variable that f is (1*v), or -1. */
static int only_var(const struct actx *c, const struct form *f)
{
	int k = -1;
	if (f->c0)
		return -1;
	for (int i = 0; i < c->nv; i++) {
		if (!f->c[i])
			continue;
		if (k >= 0 || f->c[i] != 1)
			return -1;
		k = i;
	}
	return k;
}

/* t = 0 (t = x - d*q - r, q and r the variables at kq and kr) as an
 * identity and the two rows t <= 0, -t <= 0 of the variables'
 * constraints; false when a coefficient grows too large. */
static bool equality(struct actx *c, const struct form *t, int kq, int kr)
{
	struct form u;
	form_const(&u, 0);
	if (!form_add(&u, t, -1))
		return false;
	identity(c, t, kq, kr);
	side(c, t, 0);
	side(c, &u, 0);
	return true;
}

/* x - d*q - r = 0, as the two rows of the variables' constraints that
 * make q and r the quotient and remainder of x by d; false when a
 * coefficient grows too large. */
static bool division_rows(struct actx *c, const struct form *xv, i128 d, const struct form *q,
                          const struct form *r)
{
	struct form t = *xv;
	if (!form_add(&t, q, -d) || !form_add(&t, r, -1))
		return false;
	return equality(c, &t, only_var(c, q), only_var(c, r));
}

/* floor(floor(y / a) / d) is floor(y / (a*d)): where x's value xv is
 * exactly a quotient variable of y by a, the quotient of x by d is the
 * variable of y by a*d, so that index / (W*H) and (index / W) / H, as nvcc
 * computes the coordinates of a 3-D tile, are one variable and their
 * offsets cancel.  The remainder x - d*q gets a variable of its own in
 * [0, d-1].  False (nothing made) where x is not such a quotient. */
static bool nested_quotient(struct actx *c, const struct expr *x, i128 d, struct form *q,
                            struct form *r, const struct form *xv, unsigned depth)
{
	int k = -1;
	if (xv->c0)
		return false;
	for (int i = 0; i < c->nv; i++) {
		if (!xv->c[i])
			continue;
		if (k >= 0 || xv->c[i] != 1)
			return false;
		k = i;
	}
	if (k < 0 || !c->v[k].div || c->v[k].rem || !c->v[k].node)
		return false;
	i128 a = c->v[k].div < 0 ? -c->v[k].div : c->v[k].div;
	if (a > BIG / d)
		return false;
	struct form yv, rr;
	if (!quotient(c, c->v[k].node, a * d, c->v[k].div < 0, q, &rr, &yv, depth + 1))
		return false;
	int fresh = c->nv, kr = var_of(c, 0, d - 1, x, d, true);
	if (kr < 0)
		return false;
	form_const(r, 0);
	r->c[kr] = 1;
	return kr != fresh || division_rows(c, xv, d, q, r);
}

/* x / a and x / d with a dividing d, as nvcc computes the coordinates of
 * an index over a 5-D tensor (each straight from the index): x/a is
 * (d/a)*(x/d) + s with s in [0, d/a - 1], since floor(floor(x/a)/(d/a)) =
 * floor(x/d).  Rows (and an identity) that say so for the new quotient
 * variable kq of x by d and every other quotient variable of x whose
 * divisor divides d or is divided by it: the coordinates as digits of one
 * mixed-radix number, so that ((x/215760) - 64*(x/13808640)) / 64 is 0.
 * False when a row cannot be made (too many variables: c->failed). */
static bool chain_rows(struct actx *c, const struct expr *x, i128 d, bool sgn, int kq)
{
	int nv = c->nv;
	for (int i = 9; i < nv; i++) {
		if (i == kq || c->v[i].node != x || c->v[i].rem || !c->v[i].div ||
		    (c->v[i].div < 0) != sgn)
			continue;
		i128 a = c->v[i].div < 0 ? -c->v[i].div : c->v[i].div;
		int lo, hi;
		i128 k;
		if (!(a & (a - 1)) && !(d & (d - 1)))
			continue;                /* shifts: their rows cost the elimination
			                            time, and no program needed them */
		if (a < d && d % a == 0)
			lo = i, hi = kq, k = d / a;
		else if (a > d && a % d == 0)
			lo = kq, hi = i, k = a / d;
		else
			continue;
		int ks = var_of(c, 0, k - 1, NULL, 0, false);
		if (ks < 0)
			return false;
		/* q_lo - k*q_hi - s = 0 */
		struct form t;
		form_const(&t, 0);
		t.c[lo] = 1;
		t.c[hi] = -k;
		t.c[ks] = -1;
		if (!equality(c, &t, hi, ks))
			return false;
	}
	return true;
}

/* The quotient and remainder variables of (node, div, rem), made with
 * bounds [qlo, qhi] and [rlo, rhi] unless they exist (the remainder is
 * the variable after its quotient), as the forms q and r; *made when
 * new (their rows are the caller's).  False when there is no room for
 * both (c->failed). */
static bool qr_vars(struct actx *c, const struct expr *node, i128 div, bool rem, i128 qlo, i128 qhi,
                    i128 rlo, i128 rhi, struct form *q, struct form *r, bool *made)
{
	int nvb = c->nv;
	if (nvb + 2 > NV) {
		for (int i = 9; i < nvb; i++)
			if (c->v[i].node == node && c->v[i].div == div && c->v[i].rem == rem)
				nvb = -1;
		if (nvb >= 0) {
			c->failed = true;
			return false;
		}
		nvb = c->nv;
	}
	int kq = var_of(c, qlo, qhi, node, div, rem);
	if (kq < 0)
		return false;
	int kr = kq == nvb ? new_var(c, rlo, rhi, NULL, 0) : kq + 1;
	if (kr < 0)
		return false;
	form_const(q, 0);
	q->c[kq] = 1;
	form_const(r, 0);
	r->c[kr] = 1;
	*made = kq == nvb;
	return true;
}

/* floor(x / d) and x - d*floor(x / d) for the value of x read unsigned
 * or signed: a quotient variable q and a remainder variable r in [0, d-1]
 * with x = d*q + r (the remainder as a variable of its own keeps forms
 * built from it narrow: x % 32 lies in [0, 31] by its bounds alone). */
static bool quotient(struct actx *c, const struct expr *x, i128 d, bool sgn, struct form *q,
                     struct form *r, struct form *xv, unsigned depth)
{
	if (d <= 0 || !value(c, x, xv, sgn, depth + 1))
		return false;
	if (nested_quotient(c, x, d, q, r, xv, depth))
		return true;
	if (c->failed)
		return false;
	i128 lo, hi;
	struct form xn = *xv;
	narrow_range(c, &xn, &lo, &hi);
	bool made;
	if (!qr_vars(c, x, sgn ? -d : d, false, floor_div(lo, d), floor_div(hi, d), 0, d - 1, q, r, &made))
		return false;
	return !made || (division_rows(c, xv, d, q, r) && chain_rows(c, x, d, sgn, only_var(c, q)));
}

/* trunc(x / d) and x - d*trunc(x / d) (d > 0) for a signed x whose range
 * [lo, hi] reaches below 0, as a transposed convolution's (oh + pad - kh)
 * / stride is: a quotient variable q and a remainder variable r in
 * [-(d-1), d-1] with x = d*q + r.  That r takes x's sign is not said: a
 * relaxation, sound for refuting.  The variables are keyed on the SDIV
 * node (div 0, rem: a kind no other variable has), so x / d and x % d
 * share them. */
static bool trunc_quotient(struct actx *c, const struct expr *x, i128 d, const struct form *xv,
                           i128 lo, i128 hi, struct form *q, struct form *r)
{
	struct ectx *cx = c->L->cx;
	const struct expr *key = e_op2(cx, EOP_SDIV, x, e_bv(cx, (uint64_t)d, SORT_WIDTH(x->sort)));
	bool made;
	if (!qr_vars(c, key, 0, true, lo / d, hi / d, -(d - 1), d - 1, q, r, &made))
		return false;
	return !made || division_rows(c, xv, d, q, r);
}

static bool pow2(uint64_t m, unsigned *k)
{
	if (!m || (m & (m - 1)))
		return false;
	*k = (unsigned)__builtin_ctzll(m);
	return true;
}

static int64_t sx(uint64_t v, unsigned w)
{
	if (w >= 64)
		return (int64_t)v;
	uint64_t m = (uint64_t)1 << (w - 1);
	v &= ((uint64_t)1 << w) - 1;
	return (int64_t)((v ^ m) - m);
}

/* A form congruent to e modulo 2^width(e). */
static bool lin(struct actx *c, const struct expr *e, struct form *f, unsigned depth)
{
	unsigned w = SORT_WIDTH(e->sort), k;
	struct form t, xv;
	if (depth > DEPTH_MAX || SORT_KIND(e->sort) != SK_BV || w == 0 || w > 64 || c->failed)
		return false;
	i128 full = ((i128)1 << w) - 1;
	switch (e->op) {
	case EOP_BV:
		form_const(f, sx(e->u, w));
		return true;
	case EOP_TID:
	case EOP_CTAID:
		if (e->u > 2)
			return false;
		form_const(f, 0);
		f->c[(e->op == EOP_CTAID ? 3 : 0) + e->u] = 1;
		return true;
	case EOP_VAR:
		if (!DX_IS_T2VAR(e->u) || (e->u & 0xff) > 2)
			return aff_opaque(c, e, f, 0, full);
		form_const(f, 0);
		f->c[6 + (e->u & 0xff)] = 1;
		return true;
	case EOP_ADD:
	case EOP_SUB:
		form_const(f, 0);
		for (unsigned i = 0; i < e->nargs; i++)
			if (!lin(c, e->args[i], &t, depth + 1) ||
			    !form_add(f, &t, e->op == EOP_SUB && i > 0 ? -1 : 1))
				return false;
		return true;
	case EOP_NEG:
		form_const(f, 0);
		return lin(c, e->args[0], &t, depth + 1) && form_add(f, &t, -1);
	case EOP_NOT:
		/* ~y = -y - 1 modulo 2^w */
		form_const(f, -1);
		return lin(c, e->args[0], &t, depth + 1) && form_add(f, &t, -1);
	case EOP_MUL:
		if (e->nargs == 2)
			for (int i = 0; i < 2; i++)
				if (e->args[i]->op == EOP_BV) {
					form_const(f, 0);
					return lin(c, e->args[1 - i], &t, depth + 1) &&
					       form_add(f, &t, sx(e->args[i]->u, w));
				}
		break;
	case EOP_SHL:
		if (e->args[1]->op == EOP_BV && e->args[1]->u < w && e->args[1]->u <= 62) {
			form_const(f, 0);
			return lin(c, e->args[0], &t, depth + 1) && form_add(f, &t, (i128)1 << e->args[1]->u);
		}
		break;
	case EOP_ZEXT:
	case EOP_SEXT:
		return value(c, e->args[0], f, e->op == EOP_SEXT, depth + 1);
	case EOP_EXTRACT:
		if (e->u == 0)
			return lin(c, e->args[0], f, depth + 1);
		break;
	case EOP_UDIV:
	case EOP_LSHR:
	case EOP_ASHR:
	case EOP_SDIV:
		if (e->args[1]->op == EOP_BV) {
			uint64_t d = e->args[1]->u;
			bool shift = e->op != EOP_UDIV && e->op != EOP_SDIV, sgn = e->op == EOP_ASHR || e->op == EOP_SDIV;
			if (shift && d >= w)
				break;
			i128 dv = shift ? (i128)1 << d : (i128)d;
			if (e->op == EOP_SDIV) {
				/* truncation = floor only where x >= 0 */
				struct form x;
				i128 lo, hi;
				if ((int64_t)sx(d, w) <= 0 || !value(c, e->args[0], &x, true, depth + 1))
					break;
				range(c, &x, &lo, &hi);
				dv = sx(d, w);
				if (lo < 0) {
					if (trunc_quotient(c, e->args[0], dv, &x, lo, hi, f, &t))
						return true;
					if (c->failed)
						return false;
					break;
				}
			}
			if (dv > 0 && quotient(c, e->args[0], dv, sgn, f, &t, &xv, depth))
				return true;
			if (c->failed)
				return false;
		}
		break;
	case EOP_UREM:
		if (e->args[1]->op == EOP_BV && e->args[1]->u > 0 &&
		    quotient(c, e->args[0], (i128)e->args[1]->u, false, &t, f, &xv, depth))
			return true;
		if (c->failed)
			return false;
		break;
	case EOP_SREM:
		/* truncation = floor where x >= 0 and the divisor is positive */
		if (e->args[1]->op == EOP_BV && sx(e->args[1]->u, w) > 0) {
			struct form x;
			i128 lo, hi;
			if (!value(c, e->args[0], &x, true, depth + 1))
				break;
			range(c, &x, &lo, &hi);
			if (lo >= 0 && quotient(c, e->args[0], sx(e->args[1]->u, w), true, &t, f, &xv, depth))
				return true;
			if (lo < 0 && trunc_quotient(c, e->args[0], sx(e->args[1]->u, w), &x, lo, hi, &t, f))
				return true;
			if (c->failed)
				return false;
		}
		break;
	case EOP_AND:
		for (int i = 0; i < 2 && e->nargs == 2; i++) {
			if (e->args[i]->op != EOP_BV)
				continue;
			uint64_t m = e->args[i]->u & (uint64_t)full;
			const struct expr *x = e->args[1 - i];
			struct form q;
			if (pow2(m + 1, &k)) {
				/* x mod 2^k */
				if (!quotient(c, x, (i128)1 << k, false, &q, f, &xv, depth))
					break;
				return true;
			}
			if (pow2((uint64_t)(((i128)1 << w) - m), &k) && k < w) {
				/* x with its low k bits cleared: x - x mod 2^k */
				if (!quotient(c, x, (i128)1 << k, false, &q, &t, &xv, depth))
					break;
				*f = xv;
				return form_add(f, &t, -1);
			}
			unsigned j;
			if (m && pow2(m & -m, &k) && pow2((m >> k) + 1, &j) && k + j < w) {
				/* bits k to k+j-1 of x, as nvcc masks 16*(i/16) in 32
				 * bits ((i & 0x3ffffff0) * 4): 2^k*(x / 2^k) -
				 * 2^(k+j)*(x / 2^(k+j)), each quotient in its range
				 * (as one variable in [0, 2^w - 1], the mask widened
				 * every form it joined past its window) */
				struct form q2;
				if (!quotient(c, x, (i128)1 << k, false, &q, &t, &xv, depth) ||
				    !quotient(c, x, (i128)1 << (k + j), false, &q2, &t, &xv, depth))
					break;
				form_const(f, 0);
				return form_add(f, &q, (i128)1 << k) && form_add(f, &q2, -((i128)1 << (k + j)));
			}
		}
		if (c->failed)
			return false;
		break;
	default:
		break;
	}
	return aff_opaque(c, e, f, 0, full);
}

/* ---- literals and normal form -------------------------------------------- */

/* One comparison: a OP b over width w, or an unknown (dropped) literal. */
struct lit {
	const struct expr *a, *b;
	enum eop op;                 /* EQ, ULT, ULE, SLT, SLE */
	int fid;                     /* its row in the prune table, or -1 */
};

struct conj { struct lit l[LITS_MAX]; int n; };

/* The literals' rows g <= t, each form exactly the integer a - b (both
 * sides' values in one window), in one context shared by the normal
 * forms of a condition: two literals of one conjunction whose rows are
 * g <= t and -g <= t' with t + t' < 0 contradict each other.  One row
 * per literal (a, b, op), however many levels and alternatives take it
 * (the nodes are hash-consed: a literal is its pointers). */
#define PRUNE_MAX 256
struct prune_row { const struct expr *a, *b; enum eop op; int ok; struct form g; i128 t; };
struct prune {
	struct actx c;
	VEC(struct prune_row) row;
};

struct dnf { struct conj *c; int n; bool overflow; struct ectx *cx; struct dx_launch *L; struct prune *pr; };

static void dnf_free(struct dnf *d)
{
	free(d->c);
	d->c = NULL;
	d->n = 0;
}

/* d := d AND lits of e (negated if neg). */
static void dnf_and(struct dnf *d, const struct expr *e, bool neg);

static void dnf_copy(struct dnf *dst, const struct dnf *src)
{
	dst->n = src->n;
	dst->overflow = src->overflow;
	dst->cx = src->cx;
	dst->L = src->L;
	dst->pr = src->pr;
	dst->c = xmalloc((src->n ? src->n : 1) * sizeof *dst->c);
	memcpy(dst->c, src->c, src->n * sizeof *src->c);
}

static void ctx_init(struct actx *c, struct dx_launch *L, const uint32_t *lo, const uint32_t *hi);

/* a OP b over the whole geometry: 1 always true, 0 never, -1 either. */
static int lit_truth(struct dx_launch *L, const struct expr *a, const struct expr *b, enum eop op)
{
	struct actx c;
	ctx_init(&c, L, NULL, NULL);
	bool sgn = op == EOP_SLT || op == EOP_SLE;
	struct form fa, fb;
	int r = -1;
	if (value(&c, a, &fa, sgn, 0) && value(&c, b, &fb, sgn, 0) && form_add(&fa, &fb, -1)) {
		i128 lo, hi;
		range(&c, &fa, &lo, &hi);
		i128 t = op == EOP_ULT || op == EOP_SLT ? -1 : 0;   /* a - b <= t */
		if (op == EOP_EQ)
			r = lo == 0 && hi == 0 ? 1 : lo > 0 || hi < 0 ? 0 : -1;
		else
			r = hi <= t ? 1 : lo > t ? 0 : -1;
	}
	VEC_FREE(c.side);
	return r;
}

/* The prune row of a OP b, or -1 (EQ, a side without one window, the
 * table full). */
static int prune_row(struct prune *p, const struct expr *a, const struct expr *b, enum eop op)
{
	if (!p || op == EOP_EQ)
		return -1;
	for (size_t i = 0; i < p->row.len; i++)
		if (p->row.items[i].a == a && p->row.items[i].b == b && p->row.items[i].op == op)
			return p->row.items[i].ok ? (int)i : -1;
	if (p->row.len >= PRUNE_MAX)
		return -1;
	bool sgn = op == EOP_SLT || op == EOP_SLE;
	struct prune_row r = { a, b, op, 0, { 0 }, 0 };
	struct form fb;
	r.ok = value(&p->c, a, &r.g, sgn, 0) && value(&p->c, b, &fb, sgn, 0) && form_add(&r.g, &fb, -1);
	if (r.ok) {
		r.t = (op == EOP_ULT || op == EOP_SLT ? -1 : 0) - r.g.c0;
		r.g.c0 = 0;
	}
	VEC_PUSH(p->row, r);
	return r.ok ? (int)p->row.len - 1 : -1;
}

/* Do the rows i and j contradict each other (g <= t and -g <= t')? */
static bool prune_clash(const struct prune *p, int i, int j)
{
	if (i < 0 || j < 0)
		return false;
	const struct prune_row *x = &p->row.items[i], *y = &p->row.items[j];
	if (x->t + y->t >= 0)
		return false;
	for (int v = 0; v < NV; v++)
		if (x->g.c[v] != -y->g.c[v])
			return false;
	return true;
}

static void dnf_lit(struct dnf *d, const struct expr *a, const struct expr *b, enum eop op)
{
	/* a literal no thread can satisfy ends the conjunctions it joins, and
	 * one every thread satisfies adds nothing: the alternatives of a
	 * negated guard that the geometry excludes ("x - 2 >= 256" with x
	 * below 256) do not multiply the normal form */
	int t = d->L ? lit_truth(d->L, a, b, op) : -1;
	if (t == 0) {
		d->n = 0;
		return;
	}
	if (t == 1)
		return;
	/* nor do the alternatives of a guard that another literal of the
	 * conjunction excludes ("h - 1 < 0" beside "h - 4 >= 0") */
	int fid = prune_row(d->pr, a, b, op), k = 0;
	for (int i = 0; i < d->n; i++) {
		bool clash = false;
		for (int j = 0; j < d->c[i].n && fid >= 0 && !clash; j++)
			clash = prune_clash(d->pr, fid, d->c[i].l[j].fid);
		if (clash)
			continue;
		if (d->c[i].n < LITS_MAX)    /* else dropping a literal only weakens */
			d->c[i].l[d->c[i].n++] = (struct lit){ a, b, op, fid };
		if (k != i)
			d->c[k] = d->c[i];
		k++;
	}
	d->n = k;
}

/* d := d OR (d0 AND e') for the alternatives of e. */
static void dnf_or(struct dnf *d, const struct expr *const *alts, unsigned n, bool neg)
{
	struct dnf base;
	dnf_copy(&base, d);
	d->n = 0;
	free(d->c);
	d->c = NULL;
	for (unsigned i = 0; i < n && !d->overflow; i++) {
		struct dnf x;
		dnf_copy(&x, &base);
		dnf_and(&x, alts[i], neg);
		if (x.overflow || d->n + x.n > DNF_MAX) {
			d->overflow = true;
			dnf_free(&x);
			break;
		}
		d->c = xrealloc(d->c, (d->n + x.n + 1) * sizeof *d->c);
		memcpy(d->c + d->n, x.c, x.n * sizeof *x.c);
		d->n += x.n;
		dnf_free(&x);
	}
	dnf_free(&base);
}

/* a op b where a side is a min or max of op's signedness, as the clamps
 * of a loop bound (kh < min(kernel_h, bound)) are: exactly the literals
 * of its operands, all of them or any one.  x < min(y, z) is x < y and x
 * < z; min(y, z) < x is y < x or z < x; max the other way round.  False
 * (nothing done) where neither side is one. */
static bool minmax_lit(struct dnf *d, const struct expr *a, const struct expr *b, enum eop op)
{
	bool sgn = op == EOP_SLT || op == EOP_SLE;
	enum eop mn = sgn ? EOP_SMIN : EOP_UMIN, mx = sgn ? EOP_SMAX : EOP_UMAX;
	for (int side = 0; side < 2; side++) {
		const struct expr *m = side ? a : b;
		if ((m->op != mn && m->op != mx) || m->nargs < 2 || m->nargs > 8)
			continue;
		/* the min on the right or the max on the left: every operand */
		bool all = (m->op == mn) == (side == 0);
		const struct expr *alt[8];
		for (unsigned i = 0; i < m->nargs; i++)
			alt[i] = side ? e_op2(d->cx, op, m->args[i], b) : e_op2(d->cx, op, a, m->args[i]);
		if (all)
			for (unsigned i = 0; i < m->nargs && d->n; i++)
				dnf_and(d, alt[i], false);
		else
			dnf_or(d, alt, m->nargs, false);
		return true;
	}
	return false;
}

static void dnf_and(struct dnf *d, const struct expr *e, bool neg)
{
	if (d->overflow || !d->n)
		return;
	switch (e->op) {
	case EOP_BOOL:
		if (e->u == neg)             /* false */
			d->n = 0;
		return;
	case EOP_LNOT:
		dnf_and(d, e->args[0], !neg);
		return;
	case EOP_LAND:
		if (!neg) {
			for (unsigned i = 0; i < e->nargs && d->n; i++)
				dnf_and(d, e->args[i], false);
		} else {
			dnf_or(d, e->args, e->nargs, true);
		}
		return;
	case EOP_LOR:
		if (neg) {
			for (unsigned i = 0; i < e->nargs && d->n; i++)
				dnf_and(d, e->args[i], true);
		} else {
			dnf_or(d, e->args, e->nargs, false);
		}
		return;
	case EOP_EQ:
		if (SORT_KIND(e->args[0]->sort) != SK_BV)
			return;              /* unknown literal: dropped */
		if (neg) {
			/* a != b: a <u b or b <u a */
			const struct expr *alt[2] = {
				e_op2(d->cx, EOP_ULT, e->args[0], e->args[1]),
				e_op2(d->cx, EOP_ULT, e->args[1], e->args[0]),
			};
			dnf_or(d, alt, 2, false);
			return;
		}
		dnf_lit(d, e->args[0], e->args[1], EOP_EQ);
		return;
	case EOP_ULT: case EOP_ULE: case EOP_SLT: case EOP_SLE: {
		/* not (a < b) = b <= a; not (a <= b) = b < a */
		static const enum eop flip[] = { [EOP_ULT] = EOP_ULE, [EOP_ULE] = EOP_ULT,
		                                 [EOP_SLT] = EOP_SLE, [EOP_SLE] = EOP_SLT };
		const struct expr *a = neg ? e->args[1] : e->args[0], *b = neg ? e->args[0] : e->args[1];
		enum eop op = neg ? flip[e->op] : (enum eop)e->op;
		if (!minmax_lit(d, a, b, op))
			dnf_lit(d, a, b, op);
		return;
	}
	default:
		return;                      /* unknown literal: dropped */
	}
}

/* ---- Fourier-Motzkin ------------------------------------------------------ */

static i128 gcd(i128 a, i128 b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b) {
		i128 t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static i128 floor_div(i128 a, i128 b)
{
	i128 q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Tightens r; returns -1 if it is false, 0 if trivially true, 1 else. */
static int normalise(struct row *r)
{
	i128 g = 0;
	for (int i = 0; i < NV; i++)
		if (r->a[i])
			g = gcd(g, r->a[i]);
	if (!g)
		return r->b >= 0 ? 0 : -1;
	if (g > 1) {
		for (int i = 0; i < NV; i++)
			r->a[i] /= g;
		r->b = floor_div(r->b, g);
	}
	return 1;
}

/* Uses the equalities (a row and its negation) that have a variable with
 * coefficient +-1 to eliminate that variable exactly, as the Omega test
 * does: the real shadow of FM alone loses that the variable is an
 * integer (16*ty + tx = 16*ty' + tx' has rational solutions with
 * tx < tx'); keep (a projection's variable, or -1) is never the one
 * eliminated.  Returns true when an equality is infeasible over the
 * integers (its gcd does not divide its constant). */
static bool substitute(rows_t *rows, int nv, int keep)
{
	for (;;) {
		/* tightened first: 4x - 4y <= 3 and 4y - 4x <= 3 are x = y */
		size_t n = 0;
		for (size_t i = 0; i < rows->len; i++) {
			int s = normalise(&rows->items[i]);
			if (s < 0)
				return true;
			if (s > 0)
				rows->items[n++] = rows->items[i];
		}
		rows->len = n;
		size_t ei = SIZE_MAX, ej = SIZE_MAX;
		int ev = -1;
		for (size_t i = 0; i < rows->len && ev < 0; i++) {
			const struct row *p = &rows->items[i];
			for (size_t j = i + 1; j < rows->len && ev < 0; j++) {
				const struct row *q = &rows->items[j];
				if (q->b != -p->b)
					continue;
				bool opp = true, any = false;
				for (int v = 0; v < nv && opp; v++) {
					opp = q->a[v] == -p->a[v];
					any |= p->a[v] != 0;
				}
				if (!opp || !any)
					continue;
				i128 g = 0;
				for (int v = 0; v < nv; v++)
					g = gcd(g, p->a[v]);
				if (g > 1 && p->b % g != 0)
					return true;
				for (int v = 0; v < nv && ev < 0; v++)
					if (v != keep && (p->a[v] == 1 || p->a[v] == -1)) {
						ei = i;
						ej = j;
						ev = v;
					}
			}
		}
		if (ev < 0)
			return false;
		/* p: sum a_i x_i = b with a_ev = +-1: x_ev = s * (b - sum_{i != ev} a_i x_i) */
		struct row eq = rows->items[ei];
		i128 sgn = eq.a[ev];
		size_t k = 0;
		for (size_t i = 0; i < rows->len; i++) {
			if (i == ei || i == ej)
				continue;
			struct row r = rows->items[i];
			i128 m = r.a[ev];
			if (m) {
				/* r - (m / a_ev) * eq, a_ev = +-1 */
				i128 f = m * sgn;
				bool ok = true;
				for (int v = 0; v < nv; v++) {
					r.a[v] -= f * eq.a[v];
					ok &= !big(r.a[v]);
				}
				r.b -= f * eq.b;
				if (!ok || big(r.b))
					return false;
				r.a[ev] = 0;
			}
			rows->items[k++] = r;
		}
		rows->len = k;
	}
}

/* Fourier-Motzkin elimination of every variable but keep (-1: all):
 * -1 when the rows are infeasible, 0 when the rows left (on keep alone)
 * say what can be said, 1 when it gave up (too many rows). */

/* x * a + y * b into *out; false when a product or the sum would
 * overflow (the coefficients of a derived row past i128). */
static bool comb(i128 x, i128 a, i128 y, i128 b, i128 *out)
{
	i128 u, v;
	return !__builtin_mul_overflow(x, a, &u) && !__builtin_mul_overflow(y, b, &v) &&
	       !__builtin_add_overflow(u, v, out);
}

/* Bounds propagation over the integers: each row sum a_i x_i <= b bounds
 * each of its variables by what the others' bounds leave, rounded to an
 * integer, and the bounds learnt are added as rows.  After substitution
 * this is what the real shadow misses: 3844*q + r <= 238327 with r >= 0
 * gives q <= 61, not 61.9997, so an offset whose largest value needs the
 * quotient's integer bound (the last tap of a 3-D convolution) is shown
 * within its buffer.  -1 when a variable's range became empty. */
#define PROPAGATE_ROUNDS 4

static int propagate(rows_t *rows, int nv)
{
	i128 lo[NV], hi[NV];
	bool changed[NV] = { false };
	for (int v = 0; v < nv; v++)
		lo[v] = -BIG, hi[v] = BIG;
	for (int round = 0; round < PROPAGATE_ROUNDS; round++) {
		bool any = false;
		for (size_t i = 0; i < rows->len; i++) {
			const struct row *r = &rows->items[i];
			/* the least value of sum a_i x_i, and how many terms are unbounded */
			i128 least = 0, term[NV];
			int open = -1, nopen = 0;
			bool wide = false;
			for (int v = 0; v < nv && !wide; v++) {
				term[v] = 0;
				if (!r->a[v])
					continue;
				i128 m = r->a[v] > 0 ? lo[v] : hi[v];
				if (m <= -BIG || m >= BIG) {
					open = v;
					nopen++;
					continue;
				}
				wide = __builtin_mul_overflow(r->a[v], m, &term[v]) || big(term[v]);
				least += wide ? 0 : term[v];   /* |terms| < 2^100 each: no overflow */
				wide = wide || big(least);
			}
			if (wide || nopen > 1 || big(r->b))
				continue;
			for (int v = 0; v < nv; v++) {
				if (!r->a[v] || (nopen == 1 && v != open))
					continue;
				i128 rest = nopen == 0 ? least - term[v] : least;
				i128 room = r->b - rest;   /* a_v x_v <= room */
				if (r->a[v] > 0) {
					i128 h = floor_div(room, r->a[v]);
					if (h < hi[v]) {
						hi[v] = h;
						changed[v] = any = true;
					}
				} else {
					i128 l = -floor_div(room, -r->a[v]);
					if (l > lo[v]) {
						lo[v] = l;
						changed[v] = any = true;
					}
				}
				if (lo[v] > hi[v])
					return -1;
			}
		}
		if (!any)
			break;
	}
	for (int v = 0; v < nv; v++) {
		if (!changed[v])
			continue;
		struct row x;
		memset(&x, 0, sizeof x);
		if (hi[v] < BIG) {
			x.a[v] = 1;
			x.b = hi[v];
			VEC_PUSH(*rows, x);
		}
		if (lo[v] > -BIG) {
			x.a[v] = -1;
			x.b = -lo[v];
			VEC_PUSH(*rows, x);
		}
	}
	return 0;
}

/* Rows by coefficients, then by bound (the tightest first). */
static int cmp_row(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	for (int i = 0; i < NV; i++)
		if (a->a[i] != b->a[i])
			return a->a[i] < b->a[i] ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* Of rows with the same coefficients only the tightest is kept: a.x <= b
 * implies a.x <= b' for every b' >= b.  A loop's bound tested at every
 * iteration (t <= col, t + 16 <= col, ...) leaves one row, not one per
 * iteration, each of which elimination would combine with every other. */
static void dedupe(rows_t *rows)
{
	if (rows->len < 2)
		return;
	qsort(rows->items, rows->len, sizeof *rows->items, cmp_row);
	size_t k = 1;
	for (size_t i = 1; i < rows->len; i++)
		if (memcmp(rows->items[i].a, rows->items[k - 1].a, sizeof rows->items[i].a) != 0)
			rows->items[k++] = rows->items[i];
	rows->len = k;
}

static int eliminate(rows_t *rows, int nv, int keep)
{
	bool done[NV] = { false };
	rows_t next = { 0 };
	if (keep >= 0)
		done[keep] = true;
	if (substitute(rows, nv, keep) || propagate(rows, nv) < 0)
		return -1;
	for (;;) {
		/* drop trivial rows, find contradictions */
		size_t k = 0;
		for (size_t i = 0; i < rows->len; i++) {
			int s = normalise(&rows->items[i]);
			if (s < 0) {
				VEC_FREE(next);
				return -1;
			}
			if (s > 0)
				rows->items[k++] = rows->items[i];
		}
		rows->len = k;
		dedupe(rows);
		/* the variable with the fewest combinations */
		int best = -1;
		size_t bcost = SIZE_MAX;
		for (int v = 0; v < nv; v++) {
			if (done[v])
				continue;
			size_t np = 0, nn = 0;
			for (size_t i = 0; i < rows->len; i++) {
				np += rows->items[i].a[v] > 0;
				nn += rows->items[i].a[v] < 0;
			}
			if (!np && !nn) {
				done[v] = true;
				continue;
			}
			if (np * nn < bcost) {
				bcost = np * nn;
				best = v;
			}
		}
		if (best < 0) {
			VEC_FREE(next);
			return 0;
		}
		if (bcost + rows->len > ROWS_MAX) {
			VEC_FREE(next);
			return 1;
		}
		done[best] = true;
		next.len = 0;
		for (size_t i = 0; i < rows->len; i++) {
			const struct row *p = &rows->items[i];
			if (!p->a[best]) {
				VEC_PUSH(next, *p);
				continue;
			}
			if (p->a[best] < 0)
				continue;
			for (size_t j = 0; j < rows->len; j++) {
				const struct row *q = &rows->items[j];
				if (q->a[best] >= 0)
					continue;
				/* (-q_v) * p + p_v * q eliminates v */
				i128 mp = -q->a[best], mq = p->a[best];
				struct row r;
				bool ok = true;
				for (int t = 0; t < NV && ok; t++)
					ok = comb(mp, p->a[t], mq, q->a[t], &r.a[t]) && !big(r.a[t]);
				/* a row too large to hold is left out: fewer rows
				 * only weaken the system, which stays sound for
				 * showing it empty and for bounding a projection */
				if (!ok || !comb(mp, p->b, mq, q->b, &r.b) || big(r.b))
					continue;
				VEC_PUSH(next, r);
			}
		}
		/* swap */
		struct row *tmp = rows->items;
		size_t cap = rows->cap;
		rows->items = next.items;
		rows->len = next.len;
		rows->cap = next.cap;
		next.items = tmp;
		next.cap = cap;
		next.len = 0;
	}
}

/* Is the system infeasible over the integers (shown by its real shadow)? */
static bool infeasible(rows_t *rows, int nv)
{
	return eliminate(rows, nv, -1) < 0;
}

/* ---- the conjunctions ---------------------------------------------------- */

/* Adds a OP b (a literal of the conjunction) to rows; false if dropped. */
static bool add_lit(struct actx *c, const struct lit *l, rows_t *rows)
{
	bool sgn = l->op == EOP_SLT || l->op == EOP_SLE;
	struct form a, b;
	if (!value(c, l->a, &a, sgn, 0) || !value(c, l->b, &b, sgn, 0) || !form_add(&a, &b, -1))
		return false;
	/* a - b OP 0 */
	struct row r;
	memset(&r, 0, sizeof r);
	for (int i = 0; i < NV; i++)
		r.a[i] = a.c[i];
	r.b = (l->op == EOP_ULT || l->op == EOP_SLT ? -1 : 0) - a.c0;
	VEC_PUSH(*rows, r);
	if (l->op == EOP_EQ) {
		for (int i = 0; i < NV; i++)
			r.a[i] = -a.c[i];
		r.b = a.c0;
		VEC_PUSH(*rows, r);
	}
	return true;
}

static void ctx_init(struct actx *c, struct dx_launch *L, const uint32_t *lo, const uint32_t *hi)
{
	memset(c, 0, sizeof *c);
	c->L = L;
	for (int d = 0; d < 3; d++) {
		c->v[d] = (struct var){ 0, (i128)L->geom.ntid[d] - 1, NULL, 0, false };
		c->v[3 + d] = (struct var){ 0, (i128)L->geom.nctaid[d] - 1, NULL, 0, false };
		/* the second thread: any 32-bit value unless the condition bounds it */
		c->v[6 + d] = (struct var){ 0, ((i128)1 << 32) - 1, NULL, 0, false };
	}
	for (int k = 0; lo && hi && k < 9; k++) {
		if (lo[k] > c->v[k].lo)
			c->v[k].lo = lo[k];
		if (hi[k] < c->v[k].hi)
			c->v[k].hi = hi[k];
	}
	c->nv = 9;
}

/* The rows of a conjunction under the current bounds of the coordinates:
 * its literals, the constraints of the variables they made, the bounds. */
static void build(struct actx *c, const struct conj *cj, rows_t *rows)
{
	c->nv = 9;
	c->side.len = 0;
	c->nident = 0;
	c->failed = false;
	c->projections = 0;
	c->rows = rows;
	for (int i = 0; i < cj->n && !c->empty; i++)
		add_lit(c, &cj->l[i], rows);
	c->rows = NULL;
	for (size_t i = 0; i < c->side.len; i++)
		VEC_PUSH(*rows, c->side.items[i]);
	for (int v = 0; v < c->nv; v++) {
		struct row r;
		memset(&r, 0, sizeof r);
		r.a[v] = 1;
		r.b = c->v[v].hi;
		VEC_PUSH(*rows, r);
		r.a[v] = -1;
		r.b = -c->v[v].lo;
		VEC_PUSH(*rows, r);
	}
}

/* Narrows the coordinates' bounds from the rows on one coordinate alone;
 * true if some bound changed.  *empty when a range became empty. */
static bool narrow(struct actx *c, const rows_t *rows, bool *empty)
{
	bool changed = false;
	for (size_t i = 0; i < rows->len; i++) {
		const struct row *r = &rows->items[i];
		int only = -1, cnt = 0;
		for (int v = 0; v < c->nv; v++)
			if (r->a[v]) {
				only = v;
				cnt++;
			}
		if (cnt != 1 || only >= 9)
			continue;
		if (r->a[only] > 0) {
			i128 hi = floor_div(r->b, r->a[only]);
			if (hi < c->v[only].hi) {
				c->v[only].hi = hi;
				changed = true;
			}
		} else {
			i128 lo = -floor_div(r->b, -r->a[only]);
			if (lo > c->v[only].lo) {
				c->v[only].lo = lo;
				changed = true;
			}
		}
	}
	for (int v = 0; v < 9; v++)
		if (c->v[v].lo > c->v[v].hi)
			*empty = true;
	return changed;
}

/* Is the conjunction empty?  The bounds of single coordinates first (x <
 * 128 narrows the windows of the rest), then the whole system. */
static bool refute(struct dx_launch *L, const struct conj *cj, const uint32_t *lo, const uint32_t *hi)
{
	struct actx c;
	ctx_init(&c, L, lo, hi);
	rows_t rows = { 0 };
	bool empty = false;
	for (int k = 0; k < 9; k++)
		if (c.v[k].lo > c.v[k].hi)
			empty = true;
	for (int round = 0; round < 3 && !empty && !c.empty; round++) {
		rows.len = 0;
		build(&c, cj, &rows);
		if (c.empty || !narrow(&c, &rows, &empty) || empty)
			break;
	}
	if (!empty && !c.empty) {
		rows.len = 0;
		build(&c, cj, &rows);
		empty = c.empty || infeasible(&rows, c.nv);
	}
	empty |= c.empty;
	VEC_FREE(rows);
	VEC_FREE(c.side);
	return empty;
}

/* The alternatives a conjunct of the condition brings to the normal form:
 * 1 for a comparison, more for a disjunction (or a negated conjunction). */
static unsigned width(const struct expr *e, bool neg)
{
	if (e->op == EOP_LNOT)
		return width(e->args[0], !neg);
	if ((e->op == EOP_LOR && !neg) || (e->op == EOP_LAND && neg))
		return e->nargs;
	if (e->op == EOP_EQ && neg)
		return 2;
	return 1;
}

/* Levels of weakening, each a normal form of a subset of the condition's
 * conjuncts (dropping a conjunct only weakens, so showing any level
 * empty shows the condition empty): comparisons alone; with the
 * disjunctions of two alternatives (an access past either end, x != y);
 * all of them.  A bundle's domain often holds negated conjunctions from
 * the splits of other bundles ("not (0 <= h < H and 0 <= w < W)") that
 * multiply the normal form and rarely matter to the query. */
#define LEVELS 3

struct dx_affine {
	struct dx_launch *L;
	struct dnf d[LEVELS];
	bool have[LEVELS];
	struct prune pr;
};

struct dx_affine *dx_affine_new(struct dx_launch *L, const struct expr *cond)
{
	if (cond->flags & (EXPR_F_DATA | EXPR_F_UNDEF))
		return NULL;
	const struct expr *const *c = &cond;
	unsigned nc = 1;
	if (cond->op == EOP_LAND) {
		c = cond->args;
		nc = cond->nargs;
	}
	struct dx_affine *a = xcalloc(1, sizeof *a);
	a->L = L;
	ctx_init(&a->pr.c, L, NULL, NULL);
	unsigned maxw = 0;
	for (unsigned i = 0; i < nc; i++)
		if (width(c[i], false) > maxw)
			maxw = width(c[i], false);
	unsigned lim[LEVELS] = { 1, 2, UINT32_MAX };
	for (int lv = 0; lv < LEVELS; lv++) {
		if (lv > 0 && lim[lv - 1] >= maxw)
			break;                   /* the same as the level before */
		struct dnf *d = &a->d[lv];
		*d = (struct dnf){ xcalloc(1, sizeof *d->c), 1, false, L->cx, L, &a->pr };
		/* the comparisons first: they prune the alternatives after them */
		for (int wide = 0; wide < 2; wide++)
			for (unsigned i = 0; i < nc && d->n && !d->overflow; i++) {
				unsigned w = width(c[i], false);
				if ((w > 1) == wide && w <= lim[lv])
					dnf_and(d, c[i], false);
			}
		if (d->overflow) {
			dnf_free(d);
			break;
		}
		a->have[lv] = true;
	}
	if (!a->have[0]) {
		dx_affine_free(a);
		return NULL;
	}
	return a;
}

bool dx_affine_empty(struct dx_affine *a, const uint32_t *lo, const uint32_t *hi)
{
	for (int lv = 0; a && lv < LEVELS && a->have[lv]; lv++) {
		bool ok = true;
		for (int i = 0; ok && i < a->d[lv].n; i++)
			ok = refute(a->L, &a->d[lv].c[i], lo, hi);
		if (ok)
			return true;
	}
	return false;
}

void dx_affine_free(struct dx_affine *a)
{
	if (a) {
		for (int lv = 0; lv < LEVELS; lv++)
			dnf_free(&a->d[lv]);
		VEC_FREE(a->pr.c.side);
		VEC_FREE(a->pr.row);
		free(a);
	}
}

bool dx_affine_unsat(struct dx_launch *L, const struct expr *cond)
{
	struct dx_affine *a = dx_affine_new(L, cond);
	bool r = dx_affine_empty(a, NULL, NULL);
	dx_affine_free(a);
	return r;
}
