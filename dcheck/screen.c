/*
 * screen.c: numeric screening before the solver (dcheck(1), dirigo(7) DESIGN).  Both
 * expressions are evaluated exactly (long double) at a few seeded random
 * input points and at extreme points; a difference beyond the tolerance is
 * a witness without asking the solver.  Input values are chosen as
 * float32 numbers so that dreplay replays the very same point.
 */
#include "dcheck.h"
#include "libcommon/u64set.h"

#include <math.h>
#include <string.h>

#define RANDOM_POINTS 6

/* ---- input leaves ------------------------------------------------------------ */

const struct expr **input_leaves(const struct expr *a, const struct expr *b,
                                 struct arena *ar, uint32_t *n)
{
	struct u64set s = { 0 };        /* nodes visited, by address */
	VEC(const struct expr *) stack = { 0 };
	VEC(const struct expr *) leaves = { 0 };
	VEC_PUSH(stack, a);
	VEC_PUSH(stack, b);
	while (stack.len) {
		const struct expr *e = stack.items[--stack.len];
		if (!e_has_data(e) || !u64set_add(&s, (uint64_t)(uintptr_t)e))
			continue;
		if (e->op == EOP_INPUT)
			VEC_PUSH(leaves, e);
		for (unsigned i = 0; i < e->nargs; i++)
			VEC_PUSH(stack, e->args[i]);
	}
	const struct expr **out = ARENA_NEWN(ar, const struct expr *, leaves.len + 1);
	if (leaves.len)
		memcpy(out, leaves.items, leaves.len * sizeof *out);
	*n = (uint32_t)leaves.len;
	u64set_free(&s);
	VEC_FREE(stack);
	VEC_FREE(leaves);
	return out;
}

/* ---- points -------------------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The value of an input element at point k: depends only on the seed, the
 * point and the element, so both programs see the same inputs. */
static double point_value(uint64_t seed, unsigned k, const struct expr *leaf)
{
	static const double extreme[] = { 0.0, 1.0, -1.0, 100.0, -100.0 };
	if (k >= RANDOM_POINTS)
		return extreme[(k - RANDOM_POINTS) % (sizeof extreme / sizeof *extreme)];
	uint64_t h = mix(seed ^ mix(k * 0x100000001b3ull ^ mix(leaf->space ^ mix(leaf->off))));
	double u = (double)(h >> 11) / 9007199254740992.0;    /* [0, 1) */
	double scale = k < 4 ? 2.0 : 50.0;
	return (float)((2 * u - 1) * scale);
}

struct point {
	const struct expr **leaves;
	double *vals;
	uint32_t n;
	uint32_t *slot;                  /* hash of leaves: index + 1, 0 empty */
	size_t cap;
};

static size_t slot_of(const struct point *p, const struct expr *e)
{
	size_t k = (e->id * 0x9e3779b1u) & (p->cap - 1);
	while (p->slot[k] && p->leaves[p->slot[k] - 1] != e)
		k = (k + 1) & (p->cap - 1);
	return k;
}

static bool point_leaf(const struct expr *leaf, struct evalue *out, void *user)
{
	const struct point *p = user;
	if (leaf->op != EOP_INPUT)
		return false;
	uint32_t i = p->slot[slot_of(p, leaf)];
	if (!i--)
		return false;
	memset(out, 0, sizeof *out);
	if (etype_is_float((enum etype)leaf->et))
		out->r = p->vals[i];
	else
		out->u = (uint64_t)(int64_t)p->vals[i];
	return true;
}

static bool as_number(const struct expr *e, const struct evalue *v, long double *x)
{
	if (v->undef)
		return false;
	if (SORT_KIND(e->sort) == SK_REAL)
		*x = v->r;
	else if (SORT_KIND(e->sort) == SK_BOOL)
		*x = v->b;
	else
		*x = (long double)v->u;
	return true;
}

bool screen(const struct expr *ref, const struct expr *opt, const struct dcheck_opts *o,
            uint64_t salt, struct arena *a, struct vd_witness *w)
{
	struct point p;
	p.leaves = input_leaves(ref, opt, a, &p.n);
	if (p.n > 4096)
		return false;                   /* large reductions: leave them to the solver */
	p.vals = ARENA_NEWN(a, double, p.n + 1);
	for (p.cap = 16; p.cap < 2 * (size_t)p.n; p.cap *= 2)
		;
	p.slot = ARENA_NEWN(a, uint32_t, p.cap);
	for (uint32_t i = 0; i < p.n; i++)
		p.slot[slot_of(&p, p.leaves[i])] = i + 1;
	bool exact = SORT_KIND(ref->sort) != SK_REAL;
	for (unsigned k = 0; k < RANDOM_POINTS + 5; k++) {
		for (uint32_t i = 0; i < p.n; i++)
			p.vals[i] = point_value(o->seed ^ salt, k, p.leaves[i]);
		struct evalue vr, vo;
		long double xr, xo;
		if (!e_eval(ref, EM_EXACT, point_leaf, &p, &vr) || !e_eval(opt, EM_EXACT, point_leaf, &p, &vo) ||
		    !as_number(ref, &vr, &xr) || !as_number(opt, &vo, &xo))
			return false;
		if (!isfinite(xr) || !isfinite(xo))
			continue;
		long double d = fabsl(xo - xr);
		if (exact ? d == 0 : d <= o->atol + o->rtol * fabsl(xr))
			continue;
		w->inputs = ARENA_NEWN(a, struct vd_input, p.n + 1);
		w->ninputs = p.n;
		for (uint32_t i = 0; i < p.n; i++)
			w->inputs[i] = (struct vd_input){ p.leaves[i]->space, p.leaves[i]->off,
			                                  (enum etype)p.leaves[i]->et, p.vals[i] };
		w->ref = (double)xr;
		w->opt = (double)xo;
		w->how = LH_SCREEN;
		return true;
	}
	return false;
}
