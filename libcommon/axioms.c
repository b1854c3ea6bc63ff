/*
 * axioms.c: the table of sound identities and approximation axioms, and
 * the normaliser that applies them (axioms.h).
 *
 * The normaliser works in two passes over the expression DAG, both with
 * explicit stacks (reductions make deep chains):
 *   1. a structural hash of every node, independent of node ids (the
 *      arguments of commutative operators, which constructors order by
 *      id, are combined without regard to order);
 *   2. a copy into the destination context, children visited in the
 *      order of their structural hashes, each rebuilt node rewritten by
 *      the enabled rules until none applies.
 * Constructors order commutative arguments by id, and ids are given in
 * creation order, so visiting in a structural order makes the copy's
 * shape a function of the expression's structure alone.
 */
#include "libcommon/axioms.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- groups ------------------------------------------------------------------ */

static const struct { const char *name; unsigned bit; } groups[] = {
	{ "gelu-tanh", AX_GELU_TANH },
	{ "fast-math", AX_FAST_MATH },
};
#define NGROUPS (sizeof groups / sizeof groups[0])

int ax_parse(const char *s, const char **bad)
{
	unsigned mask = 0;
	const char *p = s;
	for (;;) {
		size_t n = strcspn(p, ",");
		bool known = false;
		if (n == 4 && !strncmp(p, "none", 4)) {
			known = true;
		} else if (n == 3 && !strncmp(p, "all", 3)) {
			mask |= AX_DEFAULT;
			known = true;
		} else {
			for (size_t i = 0; i < NGROUPS; i++)
				if (strlen(groups[i].name) == n && !strncmp(p, groups[i].name, n)) {
					mask |= groups[i].bit;
					known = true;
				}
		}
		if (!known) {
			*bad = p;
			return -1;
		}
		if (!p[n])
			return (int)mask;
		p += n + 1;
	}
}

const char *ax_format(unsigned mask, char *buf, size_t n)
{
	size_t len = 0;
	if (n)
		buf[0] = 0;
	for (size_t i = 0; i < NGROUPS; i++)
		if (mask & groups[i].bit) {
			int k = snprintf(buf + len, n > len ? n - len : 0, "%s%s", len ? "," : "", groups[i].name);
			if (k > 0)
				len += (size_t)k;
		}
	if (!len)
		snprintf(buf, n, "none");
	return buf;
}

/* ---- matching helpers ---------------------------------------------------------- */

static bool is_const(const struct expr *e, double *v)
{
	if (e->op != EOP_REAL)
		return false;
	if (v)
		*v = e->d;
	return true;
}

static bool is_const_eq(const struct expr *e, double v)
{
	double x;
	return is_const(e, &x) && x == v;
}

static bool is_fun(const struct expr *e, enum efun f)
{
	return e->op == EOP_FUN && e->u == (uint64_t)f && e->nargs == 1;
}

static const struct expr *fun1(struct ectx *cx, enum efun f, const struct expr *x)
{
	return e_fun(cx, f, 1, &x);
}

static const struct expr *fmul2(struct ectx *cx, const struct expr *a, const struct expr *b)
{
	return e_op2(cx, EOP_FMUL, a, b);
}

static const struct expr *fneg(struct ectx *cx, const struct expr *a)
{
	return e_op1(cx, EOP_FNEG, SORT_REAL, 0, a);
}

/* An FADD of exactly two arguments, one of them the constant k: the other. */
static const struct expr *plus_const(const struct expr *e, double k)
{
	if (e->op != EOP_FADD || e->nargs != 2)
		return NULL;
	if (is_const_eq(e->args[1], k))
		return e->args[0];
	if (is_const_eq(e->args[0], k))
		return e->args[1];
	return NULL;
}

/* The FMUL e without its constant factor: *c gets the constant (1 when
 * none); NULL unless e is an FMUL with a constant. */
static const struct expr *mul_split(struct ectx *cx, const struct expr *e, double *c)
{
	if (e->op != EOP_FMUL || !is_const(e->args[e->nargs - 1], c))
		return NULL;
	if (e->nargs == 2)
		return e->args[0];
	return e_op(cx, EOP_FMUL, SORT_REAL, 0, e->nargs - 1, e->args);
}

/* A constant that agrees with a simple one to float precision becomes
 * it: integers first, then the float32 value. */
static double snap(double c)
{
	double r = nearbyint(c);
	if (r != 0 && fabs(c - r) <= 1e-6 * fabs(r))
		return r;
	double f = (double)(float)c;
	return fabs(c - f) <= 1e-6 * fabs(c) ? f : c;
}

static bool near(double x, double y, double rel)
{
	return fabs(x - y) <= rel * fabs(y);
}

/* ---- polynomials of degree <= 3 in a few atoms (for the gelu forms) ------------ */

#define PV 6                       /* atoms */
#define PM 96                      /* monomials (84 of degree <= 3 in 6 atoms) */

struct mono { double c; uint8_t e[PV]; };
struct poly { struct mono m[PM]; int n; };
struct atoms { const struct expr *a[PV]; int n; };

static unsigned mono_deg(const struct mono *m)
{
	unsigned d = 0;
	for (int i = 0; i < PV; i++)
		d += m->e[i];
	return d;
}

static bool poly_add_mono(struct poly *p, const struct mono *m)
{
	for (int i = 0; i < p->n; i++)
		if (!memcmp(p->m[i].e, m->e, PV)) {
			p->m[i].c += m->c;
			return true;
		}
	if (p->n == PM)
		return false;
	p->m[p->n++] = *m;
	return true;
}

static bool poly_of(const struct expr *e, struct atoms *at, struct poly *out, unsigned depth)
{
	memset(out, 0, sizeof *out);
	if (depth > 48)
		return false;
	double c;
	if (is_const(e, &c)) {
		out->n = 1;
		out->m[0].c = c;
		return true;
	}
	switch (e->op) {
	case EOP_FADD: {
		struct poly *q = malloc(sizeof *q);
		bool ok = q != NULL;
		for (unsigned i = 0; i < e->nargs && ok; i++) {
			ok = poly_of(e->args[i], at, q, depth + 1);
			for (int j = 0; ok && j < q->n; j++)
				ok = poly_add_mono(out, &q->m[j]);
		}
		free(q);
		return ok;
	}
	case EOP_FNEG:
		if (!poly_of(e->args[0], at, out, depth + 1))
			return false;
		for (int j = 0; j < out->n; j++)
			out->m[j].c = -out->m[j].c;
		return true;
	case EOP_FDIV:
		if (!is_const(e->args[1], &c) || c == 0 || !poly_of(e->args[0], at, out, depth + 1))
			return false;
		for (int j = 0; j < out->n; j++)
			out->m[j].c /= c;
		return true;
	case EOP_FMUL: {
		struct poly *q = malloc(2 * sizeof *q);
		if (!q)
			return false;
		struct poly *acc = &q[1];
		bool ok = true;
		out->n = 1;
		out->m[0].c = 1;
		for (unsigned i = 0; i < e->nargs && ok; i++) {
			ok = poly_of(e->args[i], at, q, depth + 1);
			memset(acc, 0, sizeof *acc);
			for (int a = 0; ok && a < out->n; a++)
				for (int b = 0; ok && b < q->n; b++) {
					struct mono m;
					m.c = out->m[a].c * q->m[b].c;
					for (int k = 0; k < PV; k++)
						m.e[k] = (uint8_t)(out->m[a].e[k] + q->m[b].e[k]);
					ok = mono_deg(&m) <= 3 && poly_add_mono(acc, &m);
				}
			if (ok)
				*out = *acc;
		}
		free(q);
		return ok;
	}
	default:
		break;
	}
	int k = 0;
	while (k < at->n && at->a[k] != e)
		k++;
	if (k == at->n) {
		if (at->n == PV)
			return false;
		at->a[at->n++] = e;
	}
	out->n = 1;
	out->m[0].c = 1;
	out->m[0].e[k] = 1;
	return true;
}

/* The linear form sum w_i a_i, weights snapped, as an expression. */
static const struct expr *linear(struct ectx *cx, const struct atoms *at, const double *w)
{
	const struct expr *terms[PV];
	unsigned n = 0;
	for (int i = 0; i < at->n; i++)
		if (w[i] != 0)
			terms[n++] = w[i] == 1 ? at->a[i] : fmul2(cx, at->a[i], e_real(cx, w[i]));
	if (!n)
		return NULL;
	return n == 1 ? terms[0] : e_op(cx, EOP_FADD, SORT_REAL, 0, n, terms);
}

/* Splits p into its linear coefficients; false if it has other terms than
 * those of degree 1 and (when cubic is non-NULL) 3. */
static bool linear_part(const struct poly *p, const struct atoms *at, double *lin, const struct poly **cubic)
{
	for (int i = 0; i < PV; i++)
		lin[i] = 0;
	for (int j = 0; j < p->n; j++) {
		unsigned d = mono_deg(&p->m[j]);
		if (p->m[j].c == 0)
			continue;
		if (d == 1) {
			for (int i = 0; i < at->n; i++)
				if (p->m[j].e[i])
					lin[i] = p->m[j].c;
		} else if (!(d == 3 && cubic)) {
			return false;
		}
	}
	return true;
}

/* ---- the rules ------------------------------------------------------------------ */

/* a / (1 + exp(y)) = a * sigmoid(-y), and exp(y) / (1 + exp(y)) =
 * sigmoid(y) (silu: x / (1 + exp(-x)) = x * sigmoid(x)) */
static const struct expr *r_sigmoid_exp(struct ectx *cx, const struct expr *e)
{
	if (e->op != EOP_FDIV)
		return NULL;
	const struct expr *ex = plus_const(e->args[1], 1);
	if (!ex || !is_fun(ex, EF_EXP))
		return NULL;
	const struct expr *y = ex->args[0];
	if (e->args[0] == ex)
		return fun1(cx, EF_SIGMOID, y);
	const struct expr *s = fun1(cx, EF_SIGMOID, fneg(cx, y));
	return is_const_eq(e->args[0], 1) ? s : fmul2(cx, e->args[0], s);
}

/* 0.5 * tanh(0.5 * x) + 0.5 = sigmoid(x) */
static const struct expr *r_sigmoid_tanh(struct ectx *cx, const struct expr *e)
{
	const struct expr *m = plus_const(e, 0.5);
	double c, k;
	const struct expr *t;
	if (!m || !(t = mul_split(cx, m, &c)) || c != 0.5 || !is_fun(t, EF_TANH))
		return NULL;
	const struct expr *x = mul_split(cx, t->args[0], &k);
	if (!x || k != 0.5)
		return NULL;
	return fun1(cx, EF_SIGMOID, x);
}

/* (exp(y) - 1) / (exp(y) + 1) = tanh(y/2) */
static const struct expr *r_tanh_exp(struct ectx *cx, const struct expr *e)
{
	if (e->op != EOP_FDIV)
		return NULL;
	const struct expr *a = plus_const(e->args[0], -1), *b = plus_const(e->args[1], 1);
	if (!a || a != b || !is_fun(a, EF_EXP))
		return NULL;
	return fun1(cx, EF_TANH, fmul2(cx, a->args[0], e_real(cx, 0.5)));
}

/* log(1 + y) = log1p(y) (softplus: log(1 + exp(x)) = log1p(exp(x))) */
static const struct expr *r_log1p(struct ectx *cx, const struct expr *e)
{
	if (!is_fun(e, EF_LOG))
		return NULL;
	const struct expr *s = e->args[0];
	if (s->op != EOP_FADD || !is_const_eq(s->args[s->nargs - 1], 1))
		return NULL;
	const struct expr *y = s->nargs == 2 ? s->args[0]
	                     : e_op(cx, EOP_FADD, SORT_REAL, 0, s->nargs - 1, s->args);
	return fun1(cx, EF_LOG1P, y);
}

/* The canonical erf form of gelu: erf(x * (1/sqrt2)), x a linear form. */
static const struct expr *gelu_erf(struct ectx *cx, const struct atoms *at, const double *w)
{
	const struct expr *x = linear(cx, at, w);
	return x ? fun1(cx, EF_ERF, fmul2(cx, x, e_real(cx, M_SQRT1_2))) : NULL;
}

/* gelu-tanh: tanh(k(x + m x^3)), k = sqrt(2/pi), m = 0.044715, is
 * erf(x/sqrt2).  x may be a linear form of several atoms (gelu(a + b)):
 * the linear part is L = k x and the cubic part m L^3 / k^2. */
static const struct expr *r_gelu_tanh(struct ectx *cx, const struct expr *e)
{
	if (!is_fun(e, EF_TANH))
		return NULL;
	const double k = 0.79788456080286535588, m = 0.044715;
	struct atoms at = { { 0 }, 0 };
	struct poly *p = malloc(sizeof *p);
	if (!p)
		return NULL;
	const struct expr *r = NULL;
	double lin[PV];
	const struct poly *cub = p;
	if (!poly_of(e->args[0], &at, p, 0) || !linear_part(p, &at, lin, &cub))
		goto out;
	bool any = false;
	for (int j = 0; j < p->n; j++) {
		if (mono_deg(&p->m[j]) != 3 || p->m[j].c == 0)
			continue;
		/* expected: m/k^2 * multinomial * prod lin_i^e_i */
		double want = m / (k * k) * 6;
		for (int i = 0; i < at.n; i++) {
			for (unsigned q = 0; q < p->m[j].e[i]; q++)
				want *= lin[i];
			want /= p->m[j].e[i] == 3 ? 6 : p->m[j].e[i] == 2 ? 2 : 1;
		}
		if (!near(p->m[j].c, want, 2e-5))
			goto out;
		any = true;
	}
	if (!any)
		goto out;
	/* every cubic monomial of L^3 must be present */
	unsigned nl = 0;
	for (int i = 0; i < at.n; i++)
		nl += lin[i] != 0;
	unsigned ncub = 0;
	for (int j = 0; j < p->n; j++)
		ncub += mono_deg(&p->m[j]) == 3 && p->m[j].c != 0;
	if (ncub != (nl + 2) * (nl + 1) * nl / 6)          /* monomials of L^3 */
		goto out;
	double w[PV];
	for (int i = 0; i < at.n; i++)
		w[i] = lin[i] == 0 ? 0 : snap(lin[i] / k);
	r = gelu_erf(cx, &at, w);
out:
	free(p);
	return r;
}

/* gelu-tanh (the erf side): erf(c x) with c = 1/sqrt2 to float precision,
 * in the same canonical form. */
static const struct expr *r_gelu_erf(struct ectx *cx, const struct expr *e)
{
	if (!is_fun(e, EF_ERF))
		return NULL;
	struct atoms at = { { 0 }, 0 };
	struct poly *p = malloc(sizeof *p);
	if (!p)
		return NULL;
	const struct expr *r = NULL;
	double lin[PV], w[PV];
	if (poly_of(e->args[0], &at, p, 0) && linear_part(p, &at, lin, NULL)) {
		for (int i = 0; i < at.n; i++)
			w[i] = lin[i] == 0 ? 0 : snap(lin[i] * M_SQRT2);
		r = gelu_erf(cx, &at, w);
		if (r == e)
			r = NULL;
	}
	free(p);
	return r;
}

/* fast-math: rcp.approx(x) = 1/x */
static const struct expr *r_rcp(struct ectx *cx, const struct expr *e)
{
	if (!is_fun(e, EF_RCP_APPROX))
		return NULL;
	return e_op2(cx, EOP_FDIV, e_real(cx, 1), e->args[0]);
}

/* fast-math: rsqrt(x) = 1/sqrt(x) */
static const struct expr *r_rsqrt(struct ectx *cx, const struct expr *e)
{
	if (!is_fun(e, EF_RSQRT))
		return NULL;
	return e_op2(cx, EOP_FDIV, e_real(cx, 1), fun1(cx, EF_SQRT, e->args[0]));
}

/* fast-math: exp2(c x) = exp(r x) when c ln2 = r to float precision, r an
 * integer (__expf is ex2.approx(x * log2e)) */
static const struct expr *r_exp2(struct ectx *cx, const struct expr *e)
{
	double c;
	const struct expr *x;
	if (!is_fun(e, EF_EXP2) || !(x = mul_split(cx, e->args[0], &c)))
		return NULL;
	double s = c * M_LN2, r = nearbyint(s);
	if (r == 0 || r == s || !near(s, r, 1e-6))
		return NULL;
	return fun1(cx, EF_EXP, r == 1 ? x : fmul2(cx, x, e_real(cx, r)));
}

/* fast-math: log2(x) * c = log(x) * r when c = r ln2 to float precision,
 * r an integer (__logf is lg2.approx(x) * ln2) */
static const struct expr *r_log2(struct ectx *cx, const struct expr *e)
{
	double c;
	if (e->op != EOP_FMUL || !is_const(e->args[e->nargs - 1], &c))
		return NULL;
	for (unsigned i = 0; i + 1 < e->nargs; i++) {
		if (!is_fun(e->args[i], EF_LOG2))
			continue;
		double s = c / M_LN2, r = nearbyint(s);
		if (r == 0 || r == s || !near(s, r, 1e-6))
			return NULL;
		const struct expr *v[E_MAX_ARGS];
		unsigned n = 0;
		for (unsigned j = 0; j + 1 < e->nargs; j++)
			v[n++] = j == i ? fun1(cx, EF_LOG, e->args[i]->args[0]) : e->args[j];
		v[n++] = e_real(cx, r);
		return e_op(cx, EOP_FMUL, SORT_REAL, 0, n, v);
	}
	return NULL;
}

/* Tried in order at each node: the more specific forms first. */
const struct axiom ax_table[] = {
	{ "tanh-exp", AX_SOUND, "(exp(y)-1)/(exp(y)+1) = tanh(y/2)", r_tanh_exp },
	{ "sigmoid-exp", AX_SOUND, "a/(1+exp(y)) = a*sigmoid(-y), exp(y)/(1+exp(y)) = sigmoid(y)", r_sigmoid_exp },
	{ "sigmoid-tanh", AX_SOUND, "0.5*tanh(0.5x)+0.5 = sigmoid(x)", r_sigmoid_tanh },
	{ "log1p", AX_SOUND, "log(1+y) = log1p(y) (softplus)", r_log1p },
	{ "gelu-tanh", AX_GELU_TANH, "tanh(sqrt(2/pi)(x+0.044715x^3)) = erf(x/sqrt2)", r_gelu_tanh },
	{ "gelu-erf", AX_GELU_TANH, "erf(c x) with c = 1/sqrt2 to float precision = erf(x/sqrt2)", r_gelu_erf },
	{ "rcp-approx", AX_FAST_MATH, "rcp.approx(x) = 1/x", r_rcp },
	{ "rsqrt", AX_FAST_MATH, "rsqrt(x) = 1/sqrt(x)", r_rsqrt },
	{ "exp2-exp", AX_FAST_MATH, "exp2(x*log2e) = exp(x)", r_exp2 },
	{ "log2-log", AX_FAST_MATH, "log2(x)*ln2 = log(x)", r_log2 },
};
const unsigned ax_count = sizeof ax_table / sizeof ax_table[0];

/* ---- the normaliser ------------------------------------------------------------- */

struct ent {
	const struct expr *src;      /* NULL: empty */
	const struct expr *dst;      /* NULL until copied */
	uint64_t h;                  /* structural hash; 0 until computed */
	uint8_t state;               /* pass 1: 1 expanded, 2 done */
};

struct ax_norm {
	struct ectx *cx;
	unsigned mask;
	struct ent *tab;
	size_t cap, len;
	unsigned long fired;
};

struct ax_norm *ax_norm_new(struct ectx *dst, unsigned mask)
{
	struct ax_norm *n = xcalloc(1, sizeof *n);
	n->cx = dst;
	n->mask = mask;
	n->cap = 256;
	n->tab = xcalloc(n->cap, sizeof *n->tab);
	return n;
}

void ax_norm_free(struct ax_norm *n)
{
	if (!n)
		return;
	free(n->tab);
	free(n);
}

unsigned long ax_norm_fired(const struct ax_norm *n)
{
	return n->fired;
}

static size_t slot(const struct ent *tab, size_t cap, const struct expr *e)
{
	uint64_t h = ((uint64_t)e->cxid << 32 | e->id) * 0x9e3779b97f4a7c15ull;
	size_t k = (size_t)(h >> 17) & (cap - 1);
	while (tab[k].src && tab[k].src != e)
		k = (k + 1) & (cap - 1);
	return k;
}

static struct ent *ent_get(struct ax_norm *n, const struct expr *e)
{
	if (2 * (n->len + 1) > n->cap) {
		size_t cap = 2 * n->cap;
		struct ent *tab = xcalloc(cap, sizeof *tab);
		for (size_t i = 0; i < n->cap; i++)
			if (n->tab[i].src)
				tab[slot(tab, cap, n->tab[i].src)] = n->tab[i];
		free(n->tab);
		n->tab = tab;
		n->cap = cap;
	}
	size_t k = slot(n->tab, n->cap, e);
	if (!n->tab[k].src) {
		n->tab[k].src = e;
		n->len++;
	}
	return &n->tab[k];
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static bool commutative(unsigned op)
{
	switch (op) {
	case EOP_ADD: case EOP_MUL: case EOP_AND: case EOP_OR: case EOP_XOR:
	case EOP_UMIN: case EOP_UMAX: case EOP_SMIN: case EOP_SMAX: case EOP_EQ:
	case EOP_LAND: case EOP_LOR: case EOP_FADD: case EOP_FMUL: case EOP_FMIN: case EOP_FMAX:
		return true;
	}
	return false;
}

static uint64_t own_hash(const struct expr *e)
{
	uint64_t u = e->u;
	if (e->op == EOP_REAL)
		memcpy(&u, &e->d, sizeof u);
	uint64_t h = mix((uint64_t)e->op | (uint64_t)e->sort << 16 | (uint64_t)e->et << 32 |
	                 (uint64_t)e->nargs << 40, e->space);
	h = mix(h, u);
	return mix(h, e->off);
}

typedef VEC(const struct expr *) stackv;

/* Pass 1: structural hashes of e and everything below it. */
static void hash_all(struct ax_norm *n, const struct expr *root, stackv *st)
{
	VEC_PUSH(*st, root);
	while (st->len) {
		const struct expr *e = st->items[st->len - 1];
		struct ent *x = ent_get(n, e);
		if (x->state == 2) {
			st->len--;
			continue;
		}
		if (x->state == 0) {
			x->state = 1;
			for (unsigned i = 0; i < e->nargs; i++)
				if (ent_get(n, e->args[i])->state != 2)
					VEC_PUSH(*st, e->args[i]);
			continue;
		}
		st->len--;
		uint64_t h = own_hash(e);
		if (commutative(e->op)) {
			uint64_t sum = 0, xr = 0;
			for (unsigned i = 0; i < e->nargs; i++) {
				uint64_t c = mix(0x51ed270b27ull, ent_get(n, e->args[i])->h);
				sum += c;
				xr ^= c * 0x2545f4914f6cdd1dull;
			}
			h = mix(mix(h, sum), xr);
		} else {
			for (unsigned i = 0; i < e->nargs; i++)
				h = mix(h, ent_get(n, e->args[i])->h);
		}
		x = ent_get(n, e);           /* the table may have grown */
		x->h = h ? h : 1;
		x->state = 2;
	}
}

static const struct expr *rebuild(struct ectx *cx, const struct expr *e, const struct expr *const *a)
{
	switch (e->op) {
	case EOP_BOOL: return e_bool(cx, e->u != 0);
	case EOP_BV: return e_bv(cx, e->u, SORT_WIDTH(e->sort));
	case EOP_REAL: return e_real(cx, e->d);
	case EOP_TID: return e_tid(cx, (unsigned)e->u);
	case EOP_CTAID: return e_ctaid(cx, (unsigned)e->u);
	case EOP_ELEM: return e_elem(cx, e->space, e->off, (enum etype)e->et);
	case EOP_INPUT: return e_input(cx, e->space, e->off, (enum etype)e->et);
	case EOP_LOAD: return e_load(cx, e->space, (enum etype)e->et, a[0]);
	case EOP_UNDEF: return e_undef_tag(cx, e->sort, e->u);
	case EOP_VAR: return e_var(cx, e->u, e->sort);
	default: return e_op(cx, (enum eop)e->op, e->sort, e->u, e->nargs, a);
	}
}

static const struct expr *rewrite(struct ax_norm *n, const struct expr *e)
{
	for (unsigned round = 0; round < 16; round++) {
		const struct expr *r = NULL;
		for (unsigned i = 0; i < ax_count && !r; i++) {
			if (ax_table[i].group && !(ax_table[i].group & n->mask))
				continue;
			r = ax_table[i].apply(n->cx, e);
			if (r == e)
				r = NULL;
		}
		if (!r)
			return e;
		n->fired++;
		/* the rule built r from normalised parts: its new nodes may
		 * match again (rcp(1 + exp(-x)) -> 1/(1 + exp(-x)) -> sigmoid) */
		e = r;
	}
	return e;
}

struct kid { uint64_t h; unsigned i; };

static int kid_cmp(const void *pa, const void *pb)
{
	const struct kid *a = pa, *b = pb;
	if (a->h != b->h)
		return a->h > b->h ? -1 : 1;         /* pushed in reverse: smallest popped first */
	return a->i > b->i ? -1 : a->i < b->i;
}

const struct expr *ax_norm(struct ax_norm *n, const struct expr *root)
{
	stackv st = { 0 };
	struct ent *r = ent_get(n, root);
	if (r->dst)
		return r->dst;
	hash_all(n, root, &st);
	st.len = 0;
	struct kid kids[E_MAX_ARGS];
	VEC_PUSH(st, root);
	while (st.len) {
		const struct expr *e = st.items[st.len - 1];
		struct ent *x = ent_get(n, e);
		if (x->dst) {
			st.len--;
			continue;
		}
		if (x->state == 2) {            /* first visit in pass 2: children first */
			x->state = 3;
			unsigned nk = 0;
			for (unsigned i = 0; i < e->nargs; i++) {
				struct ent *c = ent_get(n, e->args[i]);
				if (!c->dst)
					kids[nk++] = (struct kid){ c->h, i };
			}
			qsort(kids, nk, sizeof *kids, kid_cmp);
			for (unsigned i = 0; i < nk; i++)
				VEC_PUSH(st, e->args[kids[i].i]);
			continue;
		}
		st.len--;
		const struct expr *a[E_MAX_ARGS];
		for (unsigned i = 0; i < e->nargs; i++)
			a[i] = ent_get(n, e->args[i])->dst;
		const struct expr *d = rewrite(n, rebuild(n->cx, e, a));
		ent_get(n, e)->dst = d;
	}
	VEC_FREE(st);
	return ent_get(n, root)->dst;
}
