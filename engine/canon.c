/*
 * canon.c: the canonical form of canon.h.
 *
 * The expression DAG is walked once, children first, with explicit stacks
 * (reductions make chains thousands deep).  Nodes of one kind that only
 * feed one parent of the same kind form a cluster: the linear nodes of a
 * sum (FADD, FNEG, FMUL or FDIV by constants), the FMAX nodes of a max,
 * the FMIN nodes of a min.  Only a cluster's root gets a canonical form
 * of its own, made from the cluster's leaves in one go, so that a chain
 * max(max(max(a, b), c), ...) costs its length, not its length squared.
 * A node with several parents is a root, and a parent reads its canonical
 * form back (parse); the forms are made so that reading one back gives
 * what it was made from, so materialising a node or not changes nothing.
 *
 * Coefficients are exact rationals n / d * 2^e (n, d odd, 128 bits), so
 * that a double constant, its reciprocal and their sums are exact.  A
 * sum is written as its terms grouped by coefficient: terms of
 * coefficient 1 as they are, -1 as -(group), a double c as group * c,
 * any other as group * p / q with p and q doubles.
 */
#include "engine/canon.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/arena.h"
#include "libcommon/u64set.h"

typedef __int128 i128;

/* ---- exact rationals ---------------------------------------------------------- */

/* n / d * 2^e with d > 0 odd and n odd, or n = 0 with d = 1, e = 0. */
struct rat { i128 n, d; int32_t e; };

#define EXP_LIMIT 2200                /* beyond any double and its reciprocal */

static const struct rat R_ZERO = { 0, 1, 0 }, R_ONE = { 1, 1, 0 };

static i128 iabs(i128 x) { return x < 0 ? -x : x; }

static i128 gcd128(i128 a, i128 b)
{
	a = iabs(a);
	b = iabs(b);
	while (b) {
		i128 t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static int ctz128(i128 x)
{
	unsigned __int128 u = (unsigned __int128)x;
	uint64_t lo = (uint64_t)u;
	return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(u >> 64));
}

static bool rat_norm(struct rat *r)
{
	if (r->n == 0) {
		*r = R_ZERO;
		return true;
	}
	int k = ctz128(r->n);
	if (k > 120)
		return false;
	r->n /= (i128)1 << k;             /* exact: n is a multiple of 2^k */
	r->e += k;
	k = ctz128(r->d);
	r->d >>= k;
	r->e -= k;
	i128 g = gcd128(r->n, r->d);
	if (g > 1) {
		r->n /= g;
		r->d /= g;
	}
	return r->e > -EXP_LIMIT && r->e < EXP_LIMIT;
}

static bool rat_eq(const struct rat *a, const struct rat *b)
{
	return a->n == b->n && a->d == b->d && a->e == b->e;
}

static bool rat_is_one(const struct rat *a)
{
	return rat_eq(a, &R_ONE);
}

/* An order on rationals by representation (not by value): a total order
 * that depends on the values alone. */
static int rat_cmp(const struct rat *a, const struct rat *b)
{
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	if (a->d != b->d)
		return a->d < b->d ? -1 : 1;
	return a->e < b->e ? -1 : a->e > b->e;
}

static bool rat_of_double(double x, struct rat *r)
{
	if (!isfinite(x))
		return false;
	if (x == 0) {
		*r = R_ZERO;
		return true;
	}
	int ex;
	double m = frexp(x, &ex);
	r->n = (i128)(int64_t)ldexp(m, 53);   /* exact: 53 bits */
	r->d = 1;
	r->e = ex - 53;
	return rat_norm(r);
}

static bool rat_to_double(const struct rat *r, double *out)
{
	if (r->d != 1 || iabs(r->n) >= ((i128)1 << 53))
		return false;
	double v = ldexp((double)(int64_t)r->n, r->e);
	struct rat back;
	if (!isfinite(v) || (v == 0) != (r->n == 0) || !rat_of_double(v, &back) || !rat_eq(&back, r))
		return false;
	*out = v;
	return true;
}

static bool rat_mul(const struct rat *a, const struct rat *b, struct rat *out)
{
	if (a->n == 0 || b->n == 0) {
		*out = R_ZERO;
		return true;
	}
	i128 g1 = gcd128(a->n, b->d), g2 = gcd128(b->n, a->d);
	struct rat r;
	if (__builtin_mul_overflow(a->n / g1, b->n / g2, &r.n) ||
	    __builtin_mul_overflow(a->d / g2, b->d / g1, &r.d))
		return false;
	r.e = a->e + b->e;
	if (!rat_norm(&r))
		return false;
	*out = r;
	return true;
}

static bool rat_inv(const struct rat *a, struct rat *out)
{
	if (a->n == 0)
		return false;
	struct rat r = { a->n < 0 ? -a->d : a->d, iabs(a->n), -a->e };
	*out = r;
	return true;
}

static bool rat_div(const struct rat *a, const struct rat *b, struct rat *out)
{
	struct rat ib;
	return rat_inv(b, &ib) && rat_mul(a, &ib, out);
}

static bool rat_neg(const struct rat *a, struct rat *out)
{
	*out = *a;
	out->n = -a->n;
	return true;
}

static bool rat_add(const struct rat *a, const struct rat *b, struct rat *out)
{
	if (a->n == 0) {
		*out = *b;
		return true;
	}
	if (b->n == 0) {
		*out = *a;
		return true;
	}
	int32_t e = a->e < b->e ? a->e : b->e;
	int sa = a->e - e, sb = b->e - e;
	if (sa > 120 || sb > 120)
		return false;
	i128 g = gcd128(a->d, b->d), x, y, d;
	if (__builtin_mul_overflow(a->n, (i128)1 << sa, &x) || __builtin_mul_overflow(x, b->d / g, &x) ||
	    __builtin_mul_overflow(b->n, (i128)1 << sb, &y) || __builtin_mul_overflow(y, a->d / g, &y) ||
	    __builtin_add_overflow(x, y, &x) || __builtin_mul_overflow(a->d / g, b->d, &d))
		return false;
	struct rat r = { x, d, e };
	if (!rat_norm(&r))
		return false;
	*out = r;
	return true;
}

/* r rounded to the nearest float (through a double, so a value within
 * a double's rounding of a float tie may round the other way: the same
 * way for the same r), or r itself where the float would be 0 or
 * infinite. */
static struct rat rat_round_float(const struct rat *r)
{
	double v = ldexp((double)r->n / (double)r->d, r->e);
	float f = (float)v;
	struct rat out;
	if (!isfinite(f) || (f == 0) != (r->n == 0) || !rat_of_double(f, &out))
		return *r;
	return out;
}

/* r as p / q with p and q exact doubles. */
static bool rat_split(const struct rat *r, double *p, double *q)
{
	struct rat a = { r->n, 1, r->e > 0 ? r->e : 0 }, b = { r->d, 1, r->e < 0 ? -r->e : 0 };
	return rat_to_double(&a, p) && rat_to_double(&b, q);
}

/* ---- what the walk knows of each node ------------------------------------------------ */

struct info {
	const struct expr *key;           /* NULL: empty slot */
	const struct expr *val;           /* canonical form, NULL until made */
	const struct expr *raw;           /* a cluster's inner node rebuilt (fallback) */
	uint32_t indeg;                   /* references from the nodes seen */
	bool seen, expanded;
};

struct itab {
	struct info *v;
	size_t cap, len;
};

static size_t islot(const struct itab *t, const struct expr *e)
{
	uint64_t h = (uint64_t)e->id * 0x9e3779b97f4a7c15ull;
	size_t k = (size_t)(h >> 20) & (t->cap - 1);
	while (t->v[k].key && t->v[k].key != e)
		k = (k + 1) & (t->cap - 1);
	return k;
}

static struct info *iget(struct itab *t, const struct expr *e)
{
	if (2 * (t->len + 1) > t->cap) {
		struct itab n = { xcalloc(2 * t->cap, sizeof *n.v), 2 * t->cap, t->len };
		for (size_t i = 0; i < t->cap; i++)
			if (t->v[i].key)
				n.v[islot(&n, t->v[i].key)] = t->v[i];
		free(t->v);
		*t = n;
	}
	size_t k = islot(t, e);
	if (!t->v[k].key) {
		t->v[k].key = e;
		t->len++;
	}
	return &t->v[k];
}

/* ---- linear forms: sum of c_i * t_i plus c0 ------------------------------------------- */

struct lterm { const struct expr *t; struct rat c; };

struct lin {
	VEC(struct lterm) v;
	struct rat c0;
	bool fail;                        /* a coefficient could not be computed */
	/* term -> index in v; a slot is live when its gen is the current one */
	const struct expr **hk;
	uint32_t *hi, *hg;
	size_t hcap;
	uint32_t gen;
};

static void lin_clear(struct lin *L)
{
	L->v.len = 0;
	L->c0 = R_ZERO;
	L->fail = false;
	L->gen++;
	if (L->gen == 0) {                /* wrapped: really clear */
		if (L->hg)
			memset(L->hg, 0, L->hcap * sizeof *L->hg);
		L->gen = 1;
	}
}

static void lin_release(struct lin *L)
{
	VEC_FREE(L->v);
	free(L->hk);
	free(L->hi);
	free(L->hg);
}

static size_t lslot(const struct lin *L, const struct expr *t)
{
	uint64_t h = (uint64_t)t->id * 0x9e3779b97f4a7c15ull;
	size_t k = (size_t)(h >> 20) & (L->hcap - 1);
	while (L->hg[k] == L->gen && L->hk[k] != t)
		k = (k + 1) & (L->hcap - 1);
	return k;
}

static void lin_rehash(struct lin *L)
{
	size_t cap = L->hcap ? 2 * L->hcap : 64;
	while (cap < 4 * (L->v.len + 1))
		cap *= 2;
	free(L->hk);
	free(L->hi);
	free(L->hg);
	L->hk = xcalloc(cap, sizeof *L->hk);
	L->hi = xcalloc(cap, sizeof *L->hi);
	L->hg = xcalloc(cap, sizeof *L->hg);
	L->hcap = cap;
	L->gen = 1;
	for (size_t i = 0; i < L->v.len; i++) {
		size_t k = lslot(L, L->v.items[i].t);
		L->hk[k] = L->v.items[i].t;
		L->hi[k] = (uint32_t)i;
		L->hg[k] = L->gen;
	}
}

static void lin_term(struct lin *L, const struct expr *t, const struct rat *c)
{
	if (L->fail || c->n == 0)
		return;
	if (2 * (L->v.len + 1) > L->hcap)
		lin_rehash(L);
	size_t k = lslot(L, t);
	if (L->hg[k] == L->gen) {
		struct lterm *x = &L->v.items[L->hi[k]];
		if (!rat_add(&x->c, c, &x->c))
			L->fail = true;
		return;
	}
	L->hk[k] = t;
	L->hi[k] = (uint32_t)L->v.len;
	L->hg[k] = L->gen;
	VEC_PUSH(L->v, ((struct lterm){ t, *c }));
}

static void lin_const(struct lin *L, const struct rat *c)
{
	if (!L->fail && !rat_add(&L->c0, c, &L->c0))
		L->fail = true;
}

/* ---- the canonicaliser ---------------------------------------------------------------------- */

enum kind { K_LEAF, K_LIN, K_MUL, K_DIV, K_MAX, K_MIN, K_ITE, K_OTHER };

struct nc { const struct expr *e; struct rat c; };   /* a node with a coefficient */
typedef VEC(const struct expr *) exprvec;
typedef VEC(struct nc) ncvec;
/* A term c * (p + q)^2 of a sum whose q other squares of the sum share:
 * expanded, c p^2 + 2 c q p + c q^2 (see cluster_leaves). */
struct sq { const struct expr *p, *q; struct rat c; };
typedef VEC(struct sq) sqvec;

struct canon {
	struct ectx *cx;
	uint64_t max_steps, steps, kept;
	bool over;
	bool as_float;                    /* coefficients rounded to floats (canon_set_float) */
	struct itab t;
	struct lin L, F, S;               /* sums being built; a factor read back; a square group's sum */
	exprvec stack, tmp;
	ncvec work, leaves;
	sqvec sq;                         /* squares of a cluster expanded (cluster_leaves) */
};

struct canon *canon_new(struct ectx *cx, uint64_t max_steps)
{
	struct canon *c = xcalloc(1, sizeof *c);
	c->cx = cx;
	c->max_steps = max_steps;
	c->t.cap = 1024;
	c->t.v = xcalloc(c->t.cap, sizeof *c->t.v);
	return c;
}

void canon_free(struct canon *c)
{
	if (!c)
		return;
	free(c->t.v);
	lin_release(&c->L);
	lin_release(&c->F);
	lin_release(&c->S);
	VEC_FREE(c->sq);
	VEC_FREE(c->stack);
	VEC_FREE(c->tmp);
	VEC_FREE(c->work);
	VEC_FREE(c->leaves);
	free(c);
}

uint64_t canon_steps(const struct canon *c)
{
	return c->steps;
}

uint64_t canon_kept(const struct canon *c)
{
	return c->kept;
}

static bool step(struct canon *c, uint64_t n)
{
	c->steps += n;
	if (c->max_steps && c->steps > c->max_steps)
		c->over = true;
	return !c->over;
}

static bool is_real_const(const struct expr *e) { return e->op == EOP_REAL; }

static unsigned nonconst_args(const struct expr *e)
{
	unsigned k = 0;
	for (unsigned i = 0; i < e->nargs; i++)
		k += !is_real_const(e->args[i]);
	return k;
}

static enum kind kind_of(const struct expr *e)
{
	if (e->op <= EOP_VAR || e->op == EOP_LOAD)
		return K_LEAF;
	switch (e->op) {
	case EOP_FADD: case EOP_FNEG: case EOP_FSUB:
		return K_LIN;
	case EOP_FMUL:
		return nonconst_args(e) <= 1 ? K_LIN : K_MUL;
	case EOP_FDIV:
		if (is_real_const(e->args[1]))
			return e->args[1]->d != 0 ? K_LIN : K_OTHER;
		return K_DIV;
	case EOP_FMAX: return K_MAX;
	case EOP_FMIN: return K_MIN;
	case EOP_ITE: return e->sort == SORT_REAL ? K_ITE : K_OTHER;
	default: return K_OTHER;
	}
}

/* The canonical form of e if made (leaves are their own). */
static const struct expr *done(struct canon *c, const struct expr *e)
{
	if (kind_of(e) == K_LEAF)
		return e;
	return iget(&c->t, e)->val;
}

/* Is e a non-root node of a cluster of kind k? */
static bool inner(struct canon *c, const struct expr *e, enum kind k)
{
	return kind_of(e) == k && iget(&c->t, e)->indeg == 1;
}

/* References counted over everything reachable from root not seen before. */
static void count_refs(struct canon *c, const struct expr *root)
{
	struct info *r = iget(&c->t, root);
	if (r->seen)
		return;
	r->seen = true;
	c->stack.len = 0;
	VEC_PUSH(c->stack, root);
	while (c->stack.len && step(c, 1)) {
		const struct expr *e = c->stack.items[--c->stack.len];
		if (kind_of(e) == K_LEAF)
			continue;
		for (unsigned i = 0; i < e->nargs; i++) {
			struct info *x = iget(&c->t, e->args[i]);
			x->indeg++;
			if (!x->seen) {
				x->seen = true;
				VEC_PUSH(c->stack, e->args[i]);
			}
		}
	}
}

/* ---- reading linear structure ----------------------------------------------------------------- */

/* One linear node x (times k) split into its parts, pushed on w with
 * their coefficients; false when a coefficient overflows. */
static bool lin_split(const struct expr *x, const struct rat *k, ncvec *w, struct lin *L)
{
	struct rat r;
	switch (x->op) {
	case EOP_FADD:
		for (unsigned i = 0; i < x->nargs; i++)
			VEC_PUSH(*w, ((struct nc){ x->args[i], *k }));
		return true;
	case EOP_FSUB:
		VEC_PUSH(*w, ((struct nc){ x->args[0], *k }));
		rat_neg(k, &r);
		VEC_PUSH(*w, ((struct nc){ x->args[1], r }));
		return true;
	case EOP_FNEG:
		rat_neg(k, &r);
		VEC_PUSH(*w, ((struct nc){ x->args[0], r }));
		return true;
	case EOP_FMUL: {
		r = *k;
		const struct expr *only = NULL;
		for (unsigned i = 0; i < x->nargs; i++) {
			struct rat v;
			if (!is_real_const(x->args[i]))
				only = x->args[i];
			else if (!rat_of_double(x->args[i]->d, &v) || !rat_mul(&r, &v, &r))
				return false;
		}
		if (only)
			VEC_PUSH(*w, ((struct nc){ only, r }));
		else
			lin_const(L, &r);
		return true;
	}
	case EOP_FDIV: {
		struct rat q;
		if (!rat_of_double(x->args[1]->d, &q) || !rat_div(k, &q, &r))
			return false;
		VEC_PUSH(*w, ((struct nc){ x->args[0], r }));
		return true;
	}
	default:
		return false;
	}
}

/* A product node without its constants (the node itself when it has none). */
static const struct expr *big_nary(struct canon *c, enum eop op, const struct expr **v, size_t n);

static const struct expr *product_part(struct canon *c, const struct expr *x)
{
	if (nonconst_args(x) == x->nargs)
		return x;
	exprvec f = { 0 };
	for (unsigned i = 0; i < x->nargs; i++)
		if (!is_real_const(x->args[i]))
			VEC_PUSH(f, x->args[i]);
	const struct expr *r = big_nary(c, EOP_FMUL, f.items, f.len);
	VEC_FREE(f);
	return r;
}

/* Adds k * y to L, y a canonical form: its linear structure is read back,
 * everything else is a term. */
static void parse(struct canon *c, struct lin *L, const struct expr *y, const struct rat *k)
{
	ncvec *w = &c->work;
	size_t base = w->len;
	VEC_PUSH(*w, ((struct nc){ y, *k }));
	while (w->len > base && !L->fail && step(c, 1)) {
		struct nc x = w->items[--w->len];
		struct rat v;
		if (is_real_const(x.e)) {
			if (!rat_of_double(x.e->d, &v) || !rat_mul(&x.c, &v, &v))
				L->fail = true;
			else
				lin_const(L, &v);
			continue;
		}
		if (kind_of(x.e) == K_LIN) {
			if (!lin_split(x.e, &x.c, w, L))
				L->fail = true;
			continue;
		}
		if (x.e->op == EOP_FMUL) {            /* a product, maybe with constants */
			struct rat r = x.c;
			for (unsigned i = 0; i < x.e->nargs && !L->fail; i++)
				if (is_real_const(x.e->args[i]) &&
				    (!rat_of_double(x.e->args[i]->d, &v) || !rat_mul(&r, &v, &r)))
					L->fail = true;
			if (!L->fail)
				lin_term(L, product_part(c, x.e), &r);
			continue;
		}
		lin_term(L, x.e, &x.c);
	}
	w->len = base;
}

/* ---- writing canonical forms ------------------------------------------------------------------ */

static int cmp_id(const void *a, const void *b)
{
	uint32_t x = (*(const struct expr *const *)a)->id, y = (*(const struct expr *const *)b)->id;
	return x < y ? -1 : x > y;
}

/* The sum or product of v[0..n) (n >= 1), any n: the constructors sort and
 * chunk; here only groups of at most E_MAX_ARGS are handed to them. */
static const struct expr *big_nary(struct canon *c, enum eop op, const struct expr **v, size_t n)
{
	if (n == 1)
		return v[0];
	if (n <= E_MAX_ARGS)
		return e_op(c->cx, op, SORT_REAL, 0, (unsigned)n, v);
	const struct expr **s = xmalloc(n * sizeof *s);
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_id);
	size_t m = 0;
	for (size_t i = 0; i < n; i += E_MAX_ARGS) {
		size_t k = n - i < E_MAX_ARGS ? n - i : E_MAX_ARGS;
		s[m++] = k == 1 ? s[i] : e_op(c->cx, op, SORT_REAL, 0, (unsigned)k, s + i);
	}
	const struct expr *r = big_nary(c, op, s, m);
	free(s);
	return r;
}

/* g * r, written exactly (r rounded to a float first where the
 * canonicaliser is set so), or NULL. */
static const struct expr *scale(struct canon *c, const struct expr *g, const struct rat *r)
{
	struct ectx *cx = c->cx;
	double d, p, q;
	struct rat m1 = { -1, 1, 0 }, rf;
	if (c->as_float) {
		rf = rat_round_float(r);
		r = &rf;
	}
	if (rat_is_one(r))
		return g;
	if (rat_eq(r, &m1))
		return e_op1(cx, EOP_FNEG, SORT_REAL, 0, g);
	if (rat_to_double(r, &d))
		return e_op2(cx, EOP_FMUL, g, e_real(cx, d));
	if (!rat_split(r, &p, &q))
		return NULL;
	const struct expr *num = p == 1 ? g : p == -1 ? e_op1(cx, EOP_FNEG, SORT_REAL, 0, g)
	                       : e_op2(cx, EOP_FMUL, g, e_real(cx, p));
	return e_op2(cx, EOP_FDIV, num, e_real(cx, q));
}

static const struct expr *constant(struct canon *c, const struct rat *r)
{
	double d, p, q;
	struct rat rf;
	if (c->as_float) {
		rf = rat_round_float(r);
		r = &rf;
	}
	if (rat_to_double(r, &d))
		return e_real(c->cx, d);
	if (!rat_split(r, &p, &q))
		return NULL;
	return e_op2(c->cx, EOP_FDIV, e_real(c->cx, p), e_real(c->cx, q));
}

static int cmp_lterm(const void *pa, const void *pb)
{
	const struct lterm *a = pa, *b = pb;
	int k = rat_cmp(&a->c, &b->c);
	if (k)
		return k;
	return a->t->id < b->t->id ? -1 : a->t->id > b->t->id;
}

/* L written as a canonical sum, or NULL when a coefficient cannot be
 * written exactly.  Reorders L's terms. */
static const struct expr *emit(struct canon *c, struct lin *L)
{
	if (L->fail)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < L->v.len; i++)
		if (L->v.items[i].c.n != 0)
			L->v.items[n++] = L->v.items[i];
	L->v.len = n;                     /* the index is stale now: clear L before reuse */
	if (!step(c, n + 1))
		return NULL;
	if (n == 0)
		return constant(c, &L->c0);
	qsort(L->v.items, n, sizeof *L->v.items, cmp_lterm);
	exprvec top = { 0 }, grp = { 0 };
	const struct expr *r = NULL;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		grp.len = 0;
		while (j < n && rat_eq(&L->v.items[j].c, &L->v.items[i].c))
			VEC_PUSH(grp, L->v.items[j++].t);
		const struct expr *g = scale(c, big_nary(c, EOP_FADD, grp.items, grp.len), &L->v.items[i].c);
		if (!g)
			goto out;
		VEC_PUSH(top, g);
		i = j;
	}
	if (L->c0.n != 0) {
		const struct expr *k = constant(c, &L->c0);
		if (!k)
			goto out;
		VEC_PUSH(top, k);
	}
	r = big_nary(c, EOP_FADD, top.items, top.len);
out:
	VEC_FREE(top);
	VEC_FREE(grp);
	return r;
}

/* ---- clusters ------------------------------------------------------------------------------------ */

/* x = (p + q) * (p + q), the sum of exactly two parts: the form of a
 * squared deviation (v - mean)^2, v - mean being v + (-mean). */
static bool square_of_sum(const struct expr *x, const struct expr **p, const struct expr **q)
{
	if (x->op != EOP_FMUL || x->nargs != 2 || x->args[0] != x->args[1])
		return false;
	const struct expr *d = x->args[0];
	if (d->op != EOP_FADD || d->nargs != 2)
		return false;
	*p = d->args[0];
	*q = d->args[1];
	return true;
}

static int cmp_ptr_id(const void *a, const void *b)
{
	return cmp_id(a, b);
}

/* Moves from c->leaves to c->sq the squares (p_i + q)^2 of which at
 * least two share a part q (the mean of a variance): their sum is
 * expanded exactly, sum c_i p_i^2 + 2 q sum c_i p_i + (sum c_i) q^2, so
 * that the mean's terms are not spread into every deviation (n^2 work)
 * and a two-pass variance, sum (x_i - mean)^2 / n, meets the one-pass
 * form sum x_i^2 / n - mean^2 of the other program.  Squares whose parts
 * no other square shares stay leaves. */
static void pick_squares(struct canon *c)
{
	size_t n = 0;
	const struct expr *p, *q;
	for (size_t i = 0; i < c->leaves.len; i++)
		n += square_of_sum(c->leaves.items[i].e, &p, &q);
	if (n < 2)
		return;
	exprvec parts = { 0 };
	for (size_t i = 0; i < c->leaves.len; i++)
		if (square_of_sum(c->leaves.items[i].e, &p, &q)) {
			VEC_PUSH(parts, p);
			VEC_PUSH(parts, q);
		}
	qsort(parts.items, parts.len, sizeof *parts.items, cmp_ptr_id);
	step(c, parts.len);
	size_t kept = 0;
	for (size_t i = 0; i < c->leaves.len; i++) {
		struct nc x = c->leaves.items[i];
		if (square_of_sum(x.e, &p, &q)) {
			/* how many parts of squares are p, are q: the run of y in
			 * the sorted parts, both ends by binary search (a mean is
			 * the part of every square: counting it one by one would
			 * be n^2) */
			size_t cnt[2] = { 0, 0 };
			for (int j = 0; j < 2; j++) {
				const struct expr *y = j ? q : p;
				size_t lo[2];
				for (int end = 0; end < 2; end++) {
					size_t a = 0, b = parts.len;
					while (a < b) {
						size_t m = (a + b) / 2;
						if (end ? parts.items[m]->id <= y->id : parts.items[m]->id < y->id)
							a = m + 1;
						else
							b = m;
					}
					lo[end] = a;
				}
				cnt[j] = lo[1] - lo[0];
			}
			if (cnt[0] >= 2 || cnt[1] >= 2) {
				bool swap = cnt[0] > cnt[1];    /* the shared part is q */
				VEC_PUSH(c->sq, ((struct sq){ swap ? q : p, swap ? p : q, x.c }));
				continue;
			}
		}
		c->leaves.items[kept++] = x;
	}
	c->leaves.len = kept;
	VEC_FREE(parts);
}

/* The leaves of the cluster rooted at root (kind k), with their
 * coefficients for sums, into c->leaves, and the sum's constants into
 * consts; true when every leaf has its canonical form, else the missing
 * ones are pushed on c->stack.  *ok false when a coefficient overflows. */
static bool cluster_leaves(struct canon *c, const struct expr *root, enum kind k, struct lin *consts,
                           bool *ok)
{
	ncvec *w = &c->work;
	bool all = true;
	*ok = true;
	c->leaves.len = 0;
	c->sq.len = 0;
	w->len = 0;
	VEC_PUSH(*w, ((struct nc){ root, R_ONE }));
	while (w->len && step(c, 1)) {
		struct nc x = w->items[--w->len];
		if (k == K_LIN && is_real_const(x.e)) {
			struct rat v;
			if (!rat_of_double(x.e->d, &v) || !rat_mul(&x.c, &v, &v))
				*ok = false;
			else
				lin_const(consts, &v);
			continue;
		}
		if (x.e == root || inner(c, x.e, k)) {
			if (k != K_LIN) {
				for (unsigned i = 0; i < x.e->nargs; i++)
					VEC_PUSH(*w, ((struct nc){ x.e->args[i], R_ONE }));
			} else if (!lin_split(x.e, &x.c, w, consts)) {
				*ok = false;
			}
			continue;
		}
		VEC_PUSH(c->leaves, x);
	}
	w->len = 0;
	if (k == K_LIN)
		pick_squares(c);
	for (size_t i = 0; i < c->leaves.len; i++)
		if (!done(c, c->leaves.items[i].e)) {
			all = false;
			VEC_PUSH(c->stack, c->leaves.items[i].e);
		}
	for (size_t i = 0; i < c->sq.len; i++)
		for (int j = 0; j < 2; j++) {
			const struct expr *y = j ? c->sq.items[i].q : c->sq.items[i].p;
			if (!done(c, y)) {
				all = false;
				VEC_PUSH(c->stack, y);
			}
		}
	return all;
}

/* The cluster rebuilt as it was, over the canonical forms of its leaves
 * (a sum whose coefficients cannot be written exactly). */
static const struct expr *rebuild_cluster(struct canon *c, const struct expr *root, enum kind k)
{
	exprvec st = { 0 };
	VEC_PUSH(st, root);
	const struct expr *out = NULL;
	while (st.len) {
		const struct expr *x = st.items[st.len - 1];
		bool ready = true;
		for (unsigned i = 0; i < x->nargs; i++) {
			const struct expr *a = x->args[i];
			if (inner(c, a, k) && !iget(&c->t, a)->raw) {
				VEC_PUSH(st, a);
				ready = false;
			}
		}
		if (!ready)
			continue;
		st.len--;
		const struct expr *av[E_MAX_ARGS];
		for (unsigned i = 0; i < x->nargs; i++) {
			const struct expr *a = x->args[i];
			/* a square expanded by pick_squares has no canonical form */
			av[i] = inner(c, a, k) ? iget(&c->t, a)->raw : done(c, a) ? done(c, a) : a;
		}
		const struct expr *r = e_op(c->cx, (enum eop)x->op, x->sort, x->u, x->nargs, av);
		if (x == root)
			out = r;
		else
			iget(&c->t, x)->raw = r;
	}
	VEC_FREE(st);
	return out;
}

/* Adds the elements of the canonical form y of a max (or min) to v. */
static void flatten_minmax(struct canon *c, enum eop op, const struct expr *y, exprvec *v)
{
	size_t base = c->stack.len;
	VEC_PUSH(c->stack, y);
	while (c->stack.len > base && step(c, 1)) {
		const struct expr *x = c->stack.items[--c->stack.len];
		if (x->op == op) {
			VEC_PUSH(c->stack, x->args[0]);
			VEC_PUSH(c->stack, x->args[1]);
		} else {
			VEC_PUSH(*v, x);
		}
	}
	c->stack.len = base;
}

static const struct expr *tree(struct canon *c, enum eop op, const struct expr **v, size_t n)
{
	if (n == 1)
		return v[0];
	size_t h = n / 2;
	return e_op2(c->cx, op, tree(c, op, v, h), tree(c, op, v + h, n - h));
}

/* The most elements of a max (or min) whose selects with an infinite arm
 * are distributed (each such select doubles the work). */
#define MINMAX_ITE_MAX 8

/* max (or min) of the canonical forms v[0..n), canonical. */
static const struct expr *minmax(struct canon *c, enum eop op, const struct expr *const *v, size_t n)
{
	exprvec el = { 0 };
	for (size_t i = 0; i < n; i++)
		flatten_minmax(c, op, v[i], &el);
	uint64_t neutral = op == EOP_FMAX ? E_UNDEF_NINF : E_UNDEF_PINF;
	const struct expr *kbest = NULL, *r = NULL;
	size_t m = 0;
	/* a select with an infinite arm (masked_fill(-inf)) is distributed,
	 * max(c ? -inf : x, y) = c ? max(y) : max(x, y), so the infinity is
	 * absorbed or wins in each arm; the arms are canonical already */
	for (size_t i = 0; i < el.len && el.len <= MINMAX_ITE_MAX; i++) {
		const struct expr *x = el.items[i];
		if (x->op != EOP_ITE || x->sort != SORT_REAL ||
		    !(e_is_inf(x->args[1], 0) || e_is_inf(x->args[2], 0)))
			continue;
		const struct expr *arm[2];
		for (int k = 0; k < 2; k++) {
			el.items[i] = x->args[1 + k];
			arm[k] = minmax(c, op, el.items, el.len);
		}
		r = arm[0] == arm[1] ? arm[0] : e_ite(c->cx, x->args[0], arm[0], arm[1]);
		goto out;
	}
	for (size_t i = 0; i < el.len; i++) {
		const struct expr *x = el.items[i];
		if (e_is_inf(x, op == EOP_FMAX ? -1 : 1))
			continue;
		if (is_real_const(x) && isfinite(x->d)) {
			if (!kbest || (op == EOP_FMAX ? x->d > kbest->d : x->d < kbest->d))
				kbest = x;
			continue;
		}
		el.items[m++] = x;
	}
	if (kbest)
		el.items[m++] = kbest;
	if (m == 0) {
		r = e_undef_tag(c->cx, SORT_REAL, neutral);
		goto out;
	}
	qsort(el.items, m, sizeof *el.items, cmp_id);
	size_t u = 0;
	for (size_t i = 0; i < m; i++)
		if (!u || el.items[u - 1] != el.items[i])
			el.items[u++] = el.items[i];
	step(c, u);
	r = tree(c, op, el.items, u);
out:
	VEC_FREE(el);
	return r;
}

/* ---- products ------------------------------------------------------------------------------------- */

/* Takes the canonical form y into the product (*k, factors): constants
 * and signs into *k, a product's factors one by one, a scaled term's
 * scale into *k, a sum made monic.  False when a coefficient overflows
 * or cannot be written. */
static bool absorb(struct canon *c, const struct expr *y, struct rat *k, exprvec *factors)
{
	struct rat v;
	if (is_real_const(y))
		return rat_of_double(y->d, &v) && rat_mul(k, &v, k);
	if (y->op == EOP_FMUL && nonconst_args(y) >= 2) {
		for (unsigned i = 0; i < y->nargs; i++) {
			const struct expr *a = y->args[i];
			if (is_real_const(a)) {
				if (!rat_of_double(a->d, &v) || !rat_mul(k, &v, k))
					return false;
			} else if (a->op == EOP_FMUL) {
				if (!absorb(c, a, k, factors))   /* a chunk of a long product */
					return false;
			} else {
				VEC_PUSH(*factors, a);
			}
		}
		return true;
	}
	struct lin *F = &c->F;
	lin_clear(F);
	parse(c, F, y, &R_ONE);
	if (F->fail)
		return false;
	size_t nt = 0, first = 0;
	for (size_t i = 0; i < F->v.len; i++)
		if (F->v.items[i].c.n != 0) {
			if (!nt || F->v.items[i].t->id < F->v.items[first].t->id)
				first = i;
			nt++;
		}
	if (nt == 0)
		return rat_mul(k, &F->c0, k);
	if (nt == 1 && F->c0.n == 0) {
		const struct lterm *t = &F->v.items[first];
		if (!rat_mul(k, &t->c, k))
			return false;
		if (t->t->op == EOP_FMUL)
			return absorb(c, t->t, k, factors);
		VEC_PUSH(*factors, t->t);
		return true;
	}
	/* a sum: monic, its first term's coefficient into k */
	struct rat lead = F->v.items[first].c;
	if (!rat_mul(k, &lead, k))
		return false;
	for (size_t i = 0; i < F->v.len; i++)
		if (!rat_div(&F->v.items[i].c, &lead, &F->v.items[i].c))
			return false;
	if (!rat_div(&F->c0, &lead, &F->c0))
		return false;
	const struct expr *s = emit(c, F);
	if (!s)
		return false;
	VEC_PUSH(*factors, s);
	return true;
}

/* Takes 1/y (y canonical, not a constant zero) into the product. */
static bool absorb_recip(struct canon *c, const struct expr *y, struct rat *k, exprvec *factors)
{
	struct rat sub = R_ONE;
	exprvec f = { 0 };
	bool ok = absorb(c, y, &sub, &f);
	if (ok && sub.n == 0)
		ok = false;                   /* 1/0: left as it was */
	if (ok) {
		ok = rat_div(k, &sub, k);
		if (ok && f.len) {
			const struct expr *den = big_nary(c, EOP_FMUL, f.items, f.len);
			VEC_PUSH(*factors, e_op2(c->cx, EOP_FDIV, e_real(c->cx, 1), den));
		}
	}
	VEC_FREE(f);
	return ok;
}

/* The canonical form of a product (FMUL of several non-constants, or
 * FDIV by a non-constant) x whose arguments have canonical forms. */
static const struct expr *product(struct canon *c, const struct expr *x)
{
	struct rat k = R_ONE;
	exprvec factors = { 0 };
	const struct expr *r = NULL;
	bool ok = true;
	if (x->op == EOP_FDIV) {
		ok = absorb(c, done(c, x->args[0]), &k, &factors) &&
		     absorb_recip(c, done(c, x->args[1]), &k, &factors);
	} else {
		for (unsigned i = 0; i < x->nargs && ok; i++)
			ok = absorb(c, done(c, x->args[i]), &k, &factors);
	}
	step(c, factors.len + 1);
	if (ok) {
		struct lin *L = &c->L;
		lin_clear(L);
		if (k.n == 0 || factors.len == 0)
			lin_const(L, &k);
		else if (factors.len == 1)
			parse(c, L, factors.items[0], &k);
		else
			lin_term(L, big_nary(c, EOP_FMUL, factors.items, factors.len), &k);
		r = emit(c, L);
	}
	VEC_FREE(factors);
	return r;
}

/* Adds k * x * y to L, x and y canonical forms. */
static bool add_product(struct canon *c, struct lin *L, const struct expr *x, const struct expr *y,
                        struct rat k)
{
	exprvec factors = { 0 };
	bool ok = absorb(c, x, &k, &factors) && absorb(c, y, &k, &factors);
	step(c, factors.len + 1);
	if (ok) {
		if (k.n == 0 || factors.len == 0)
			lin_const(L, &k);
		else if (factors.len == 1)
			parse(c, L, factors.items[0], &k);
		else
			lin_term(L, big_nary(c, EOP_FMUL, factors.items, factors.len), &k);
	}
	VEC_FREE(factors);
	return ok && !L->fail;
}

static int cmp_sq(const void *pa, const void *pb)
{
	const struct sq *a = pa, *b = pb;
	return a->q->id < b->q->id ? -1 : a->q->id > b->q->id;
}

/* The squares of c->sq (p, q canonical now) into L: for each q, sum c_i
 * p_i^2 + 2 q (sum c_i p_i) + (sum c_i) q^2.  False when a coefficient
 * overflows or cannot be written. */
static bool expand_squares(struct canon *c, struct lin *L)
{
	sqvec *v = &c->sq;
	for (size_t i = 0; i < v->len; i++) {
		v->items[i].p = done(c, v->items[i].p);
		v->items[i].q = done(c, v->items[i].q);
	}
	qsort(v->items, v->len, sizeof *v->items, cmp_sq);
	struct rat two = { 1, 1, 1 };
	for (size_t i = 0; i < v->len;) {
		const struct expr *q = v->items[i].q;
		struct lin *S = &c->S;
		struct rat sum = R_ZERO;
		lin_clear(S);
		size_t j = i;
		for (; j < v->len && v->items[j].q == q; j++) {
			const struct sq *t = &v->items[j];
			if (!add_product(c, L, t->p, t->p, t->c) || !rat_add(&sum, &t->c, &sum))
				return false;
			parse(c, S, t->p, &t->c);
		}
		const struct expr *sp = emit(c, S);
		if (!sp || !add_product(c, L, q, sp, two) || !add_product(c, L, q, q, sum))
			return false;
		i = j;
	}
	return true;
}

/* ---- one node ------------------------------------------------------------------------------------ */

static const struct expr *rebuild(struct canon *c, const struct expr *x)
{
	const struct expr *av[E_MAX_ARGS];
	bool same = true;
	for (unsigned i = 0; i < x->nargs; i++) {
		av[i] = done(c, x->args[i]);
		same &= av[i] == x->args[i];
	}
	return same ? x : e_op(c->cx, (enum eop)x->op, x->sort, x->u, x->nargs, av);
}

/* ite(x < y, y, x) = max(x, y) and its kin; else NULL. */
static const struct expr *ite_minmax(struct canon *c, const struct expr *x)
{
	const struct expr *cond = done(c, x->args[0]), *t = done(c, x->args[1]), *f = done(c, x->args[2]);
	if (cond->op != EOP_FLT && cond->op != EOP_FLE)
		return NULL;
	const struct expr *a = cond->args[0], *b = cond->args[1], *v[2] = { a, b };
	if (t == b && f == a)
		return minmax(c, EOP_FMAX, v, 2);
	if (t == a && f == b)
		return minmax(c, EOP_FMIN, v, 2);
	return NULL;
}

/* The deps of x: true when all have canonical forms (else they are
 * pushed on c->stack). */
static bool deps_done(struct canon *c, const struct expr *x, enum kind k)
{
	bool ok;
	if (k == K_LIN || k == K_MAX || k == K_MIN) {
		lin_clear(&c->F);
		return cluster_leaves(c, x, k, &c->F, &ok);
	}
	bool all = true;
	for (unsigned i = 0; i < x->nargs; i++)
		if (!done(c, x->args[i])) {
			all = false;
			VEC_PUSH(c->stack, x->args[i]);
		}
	return all;
}

/* The canonical form of x, whose deps have theirs. */
static const struct expr *make(struct canon *c, const struct expr *x, enum kind k)
{
	const struct expr *r = NULL;
	bool ok = true;
	switch (k) {
	case K_LIN: {
		struct lin *L = &c->L;
		lin_clear(L);
		cluster_leaves(c, x, k, L, &ok);
		for (size_t i = 0; i < c->leaves.len && ok && !L->fail; i++)
			parse(c, L, done(c, c->leaves.items[i].e), &c->leaves.items[i].c);
		if (ok && !L->fail && c->sq.len)
			ok = expand_squares(c, L);
		if (ok)
			r = emit(c, L);
		if (!r && !c->over) {
			c->kept++;
			r = rebuild_cluster(c, x, k);
		}
		return r;
	}
	case K_MAX: case K_MIN: {
		lin_clear(&c->F);
		cluster_leaves(c, x, k, &c->F, &ok);
		exprvec v = { 0 };
		for (size_t i = 0; i < c->leaves.len; i++)
			VEC_PUSH(v, done(c, c->leaves.items[i].e));
		r = minmax(c, k == K_MAX ? EOP_FMAX : EOP_FMIN, v.items, v.len);
		VEC_FREE(v);
		return r;
	}
	case K_MUL: case K_DIV:
		r = product(c, x);
		if (!r && !c->over) {
			c->kept++;
			r = rebuild(c, x);
		}
		return r;
	case K_ITE:
		r = ite_minmax(c, x);
		return r ? r : rebuild(c, x);
	default:
		return rebuild(c, x);
	}
}

const struct expr *canon(struct canon *c, const struct expr *root)
{
	if (c->over)
		return NULL;
	if (kind_of(root) == K_LEAF)
		return root;
	count_refs(c, root);
	c->stack.len = 0;
	VEC_PUSH(c->stack, root);
	while (c->stack.len && !c->over) {
		const struct expr *x = c->stack.items[c->stack.len - 1];
		if (done(c, x)) {
			c->stack.len--;
			continue;
		}
		enum kind k = kind_of(x);
		struct info *in = iget(&c->t, x);
		if (!in->expanded) {
			in->expanded = true;
			if (!deps_done(c, x, k))
				continue;
		}
		c->stack.len--;
		const struct expr *r = make(c, x, k);
		if (c->over)
			break;
		iget(&c->t, x)->val = r;
	}
	return c->over ? NULL : done(c, root);
}

void canon_set_float(struct canon *c, bool on)
{
	c->as_float = on;
}

bool canon_pair(struct ectx *cx, const struct expr *e[2], uint64_t max_steps, bool as_float)
{
	struct canon *c = canon_new(cx, max_steps);
	c->as_float = as_float;
	/* a canonical form costs a few steps per node; one that costs far
	 * more is blowing up (x_i - mean for every i of a variance spreads
	 * the mean's n terms into each of n sums): give up early */
	count_refs(c, e[0]);
	count_refs(c, e[1]);
	uint64_t lim = CANON_STEPS_PER_NODE * (uint64_t)c->t.len + CANON_STEPS_BASE;
	if (max_steps && lim < max_steps)
		c->max_steps = lim;
	const struct expr *a = canon(c, e[0]);
	const struct expr *b = a ? canon(c, e[1]) : NULL;
	canon_free(c);
	if (!a || !b)
		return false;
	e[0] = a;
	e[1] = b;
	return true;
}

/* ---- equal but for a rounding of constants ----------------------------------------------------- */

/* a and b floats one apart (or equal), of one sign, neither 0. */
static bool floats_adjacent(double a, double b)
{
	float fa = (float)a, fb = (float)b;
	if ((double)fa != a || (double)fb != b || fa == 0 || fb == 0 || (fa < 0) != (fb < 0))
		return false;
	uint32_t ia, ib;
	memcpy(&ia, &fa, sizeof ia);
	memcpy(&ib, &fb, sizeof ib);
	return ia - ib + 1u <= 2u;
}

/* Hashes of nodes' shapes: the node with every real constant taken as
 * the same, and a sum, product, max or min as the multiset of its
 * operands (nested nodes of the same op flattened: however they were cut
 * into nodes); by node id (one context), open addressing. */
struct shape { uint32_t id; uint64_t h, flat; };
struct shapes { struct shape *v; size_t cap, len; };

static bool commutes(const struct expr *x)
{
	return x->op == EOP_FADD || x->op == EOP_FMUL || x->op == EOP_FMAX || x->op == EOP_FMIN;
}

static uint64_t mix(uint64_t h, uint64_t k)
{
	h ^= k + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static size_t shape_home(uint32_t key, size_t cap)
{
	return (size_t)(key * 0x9e3779b97f4a7c15ull >> 24) & (cap - 1);
}

static struct shape *shape_get(struct shapes *m, const struct expr *x)
{
	if (!m->cap)
		return NULL;
	uint32_t key = x->id + 1;
	for (size_t k = shape_home(key, m->cap); m->v[k].id; k = (k + 1) & (m->cap - 1))
		if (m->v[k].id == key)
			return &m->v[k];
	return NULL;
}

static struct shape *shape_add(struct shapes *m, const struct expr *x)
{
	if (2 * (m->len + 1) > m->cap) {
		struct shapes n = { xcalloc(m->cap ? 2 * m->cap : 1024, sizeof *n.v), m->cap ? 2 * m->cap : 1024, 0 };
		for (size_t i = 0; i < m->cap; i++)
			if (m->v[i].id) {
				size_t k = shape_home(m->v[i].id, n.cap);
				while (n.v[k].id)
					k = (k + 1) & (n.cap - 1);
				n.v[k] = m->v[i];
				n.len++;
			}
		free(m->v);
		*m = n;
	}
	uint32_t key = x->id + 1;
	size_t k = shape_home(key, m->cap);
	while (m->v[k].id)
		k = (k + 1) & (m->cap - 1);
	m->v[k].id = key;
	m->len++;
	return &m->v[k];
}

/* The shape of root and of everything under it (memoised in m). */
static const struct shape *shape(struct shapes *m, const struct expr *root)
{
	const struct shape *have = shape_get(m, root);
	if (have)
		return have;
	exprvec st = { 0 };
	VEC_PUSH(st, root);
	while (st.len) {
		const struct expr *x = st.items[st.len - 1];
		if (shape_get(m, x)) {
			st.len--;
			continue;
		}
		bool ready = true;
		for (unsigned i = 0; i < x->nargs; i++)
			if (!shape_get(m, x->args[i])) {
				VEC_PUSH(st, x->args[i]);
				ready = false;
			}
		if (!ready)
			continue;
		st.len--;
		uint64_t h = mix(mix(x->op, x->sort), x->et), flat = 0;
		if (commutes(x)) {
			for (unsigned i = 0; i < x->nargs; i++) {
				const struct shape *a = shape_get(m, x->args[i]);
				flat += x->args[i]->op == x->op ? a->flat : mix(a->h, 1);
			}
			h = mix(h, flat);
		} else {
			h = mix(h, x->nargs);
			if (x->op != EOP_REAL)
				h = mix(mix(mix(h, x->u), x->space), x->off);
			for (unsigned i = 0; i < x->nargs; i++)
				h = mix(h, shape_get(m, x->args[i])->h);
		}
		struct shape *n = shape_add(m, x);
		n->h = h;
		n->flat = flat;
	}
	VEC_FREE(st);
	return shape_get(m, root);
}

struct keyed { uint64_t h; const struct expr *e; };
typedef struct { struct keyed *items; size_t len, cap; } keyedvec;

static int cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	if (a->h != b->h)
		return a->h < b->h ? -1 : 1;
	return a->e->id < b->e->id ? -1 : a->e->id > b->e->id;
}

/* The operands of x, a sum, product, max or min, with nested nodes of
 * its op flattened, in order of their shapes (ties by id). */
static void operands(struct shapes *m, const struct expr *x, exprvec *tmp, keyedvec *out)
{
	out->len = 0;
	tmp->len = 0;
	VEC_PUSH(*tmp, x);
	while (tmp->len) {
		const struct expr *y = tmp->items[--tmp->len];
		for (unsigned i = 0; i < y->nargs; i++) {
			if (y->args[i]->op == x->op)
				VEC_PUSH(*tmp, y->args[i]);
			else
				VEC_PUSH(*out, ((struct keyed){ shape(m, y->args[i])->h, y->args[i] }));
		}
	}
	qsort(out->items, out->len, sizeof *out->items, cmp_keyed);
}

bool canon_close(const struct expr *a, const struct expr *b, uint64_t max_steps, double *ca, double *cb)
{
	struct u64set seen = { 0 };     /* pairs of nodes compared: (x id, y id) + 1 */
	struct shapes sh = { 0 };
	exprvec st = { 0 }, tmp = { 0 };
	keyedvec ox = { 0 }, oy = { 0 };
	bool same = true, found = false;
	uint64_t steps = 0;
	VEC_PUSH(st, a);
	VEC_PUSH(st, b);
	while (st.len && same) {
		const struct expr *y = st.items[--st.len], *x = st.items[--st.len];
		if (x == y || !u64set_add(&seen, ((uint64_t)x->id << 32 | y->id) + 1))
			continue;
		same = ++steps <= max_steps && x->op == y->op && x->sort == y->sort;
		if (!same)
			break;
		if (x->op == EOP_REAL) {
			same = floats_adjacent(x->d, y->d);
			if (same && !found) {
				found = true;
				*ca = x->d;
				*cb = y->d;
			}
		} else if (commutes(x)) {
			/* in id order, which a constant's node changes, and cut
			 * into nodes by that order: flattened, paired by shape */
			operands(&sh, x, &tmp, &ox);
			operands(&sh, y, &tmp, &oy);
			same = ox.len == oy.len;
			for (size_t i = ox.len; same && i-- > 0;) {
				same = ox.items[i].h == oy.items[i].h;
				VEC_PUSH(st, ox.items[i].e);
				VEC_PUSH(st, oy.items[i].e);
			}
		} else {
			/* distinct leaves, or nodes that differ in more than arguments */
			same = x->nargs && x->nargs == y->nargs && x->et == y->et && x->u == y->u &&
			       x->space == y->space && x->off == y->off;
			for (unsigned i = x->nargs; same && i-- > 0;) {
				VEC_PUSH(st, x->args[i]);
				VEC_PUSH(st, y->args[i]);
			}
		}
	}
	VEC_FREE(st);
	VEC_FREE(tmp);
	VEC_FREE(ox);
	VEC_FREE(oy);
	u64set_free(&seen);
	free(sh.v);
	return same && found;
}
