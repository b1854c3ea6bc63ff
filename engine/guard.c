/*
 * guard.c: a divisor's zero guard, split off (guard.h).
 *
 * Node ids are dense in creation order, so the walks keep their marks in
 * arrays indexed by id, sized by the context's node count before the
 * walk; nodes made while rebuilding are never looked up.
 */
#include "engine/guard.h"

#include <stdlib.h>
#include <string.h>

#include "libcommon/arena.h"

typedef VEC(const struct expr *) exprvec;

/* s when c is s == 0 or 0 == s (s real), else NULL. */
static const struct expr *zero_test(const struct expr *c)
{
	if (c->op != EOP_EQ || c->nargs != 2 || c->args[0]->sort != SORT_REAL)
		return NULL;
	for (int i = 0; i < 2; i++) {
		const struct expr *k = c->args[i];
		if (k->op == EOP_REAL && k->d == 0 && c->args[1 - i]->op != EOP_REAL)
			return c->args[1 - i];
	}
	return NULL;
}

/* The divisor an ite guards, and which arm it takes where the divisor is
 * not 0 (1: then, 2: else); NULL when x is no such ite. */
static const struct expr *guarded(const struct expr *x, int *arm)
{
	if (x->op != EOP_ITE || x->sort != SORT_REAL)
		return NULL;
	const struct expr *c = x->args[0], *s;
	if ((s = zero_test(c))) {
		*arm = 2;
		return s;
	}
	if (c->op == EOP_LNOT && (s = zero_test(c->args[0]))) {
		*arm = 1;
		return s;
	}
	return NULL;
}

/* Marks in den the divisors of ref that it divides by whatever the
 * inputs: the second operands of its divisions outside any ite's arms
 * (seen: the nodes visited). */
static void divisors(const struct expr *ref, unsigned char *seen, unsigned char *den, size_t n)
{
	exprvec st = { 0 };
	VEC_PUSH(st, ref);
	while (st.len) {
		const struct expr *x = st.items[--st.len];
		if (x->id >= n || seen[x->id])
			continue;
		seen[x->id] = 1;
		if (x->op == EOP_FDIV && x->args[1]->id < n && x->args[1]->op != EOP_REAL)
			den[x->args[1]->id] = 1;
		unsigned k = x->op == EOP_ITE ? 1 : x->nargs;
		for (unsigned i = 0; i < k; i++)
			VEC_PUSH(st, x->args[i]);
	}
	VEC_FREE(st);
}

/* The first guard of opt (depth first) on one of ref's divisors. */
static const struct expr *find_guard(const struct expr *opt, unsigned char *seen, const unsigned char *den,
                                     size_t n, int *arm)
{
	exprvec st = { 0 };
	const struct expr *g = NULL, *s;
	VEC_PUSH(st, opt);
	while (st.len && !g) {
		const struct expr *x = st.items[--st.len];
		if (x->id >= n || seen[x->id])
			continue;
		seen[x->id] = 1;
		if ((s = guarded(x, arm)) && s->id < n && den[s->id]) {
			g = x;
			break;
		}
		for (unsigned i = x->nargs; i-- > 0;)
			VEC_PUSH(st, x->args[i]);
	}
	VEC_FREE(st);
	return g;
}

/* x rebuilt with arguments a; NULL for an op this file does not rebuild
 * (none of them is on a real value's path in practice). */
static const struct expr *remake(struct ectx *cx, const struct expr *x, const struct expr *const *a)
{
	switch (x->op) {
	case EOP_FADD: case EOP_FMUL: case EOP_FSUB: case EOP_FNEG: case EOP_FDIV:
	case EOP_FMIN: case EOP_FMAX: case EOP_FABS: case EOP_ITE: case EOP_EQ:
	case EOP_FLT: case EOP_FLE: case EOP_LAND: case EOP_LOR: case EOP_LNOT:
		return e_op(cx, (enum eop)x->op, x->sort, 0, x->nargs, a);
	case EOP_FUN:
		return e_fun(cx, (enum efun)x->u, x->nargs, a);
	default:
		return NULL;
	}
}

/* root with node from replaced by to; NULL where a node on the way
 * cannot be rebuilt.  memo: n entries, zeroed. */
static const struct expr *replace(struct ectx *cx, const struct expr *root, const struct expr *from,
                                  const struct expr *to, const struct expr **memo, size_t n)
{
	exprvec st = { 0 };
	const struct expr *a[E_MAX_ARGS];
	bool ok = true;
	VEC_PUSH(st, root);
	while (st.len && ok) {
		const struct expr *x = st.items[st.len - 1];
		if (x->id >= n || memo[x->id]) {
			st.len--;
			continue;
		}
		if (x == from || x->nargs == 0) {
			memo[x->id] = x == from ? to : x;
			st.len--;
			continue;
		}
		bool ready = true;
		for (unsigned i = 0; i < x->nargs; i++)
			if (x->args[i]->id < n && !memo[x->args[i]->id]) {
				VEC_PUSH(st, x->args[i]);
				ready = false;
			}
		if (!ready)
			continue;
		st.len--;
		bool changed = false;
		for (unsigned i = 0; i < x->nargs; i++) {
			a[i] = x->args[i]->id < n ? memo[x->args[i]->id] : x->args[i];
			changed = changed || a[i] != x->args[i];
		}
		memo[x->id] = changed ? remake(cx, x, a) : x;
		ok = memo[x->id] != NULL;
	}
	VEC_FREE(st);
	return ok ? memo[root->id] : NULL;
}

const struct expr *guard_unguarded(struct ectx *cx, const struct expr *ref, const struct expr *opt,
                                   const struct expr **guard)
{
	size_t n = ectx_count(cx);
	if (ref->id >= n || opt->id >= n)
		return NULL;
	unsigned char *seen = xcalloc(n, 1), *den = xcalloc(n, 1);
	divisors(ref, seen, den, n);
	memset(seen, 0, n);
	int arm = 0;
	const struct expr *g = find_guard(opt, seen, den, n, &arm), *r = NULL;
	if (g) {
		const struct expr **memo = xcalloc(n, sizeof *memo);
		r = replace(cx, opt, g, g->args[arm], memo, n);
		free(memo);
	}
	free(seen);
	free(den);
	*guard = g;
	return r;
}
