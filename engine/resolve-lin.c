/*
 * resolve-lin.c: affine views of store addresses over the thread
 * coordinates, so that resolve-inv.c can invert most writes without a
 * solver, and the split of write domains into thread and data parts.
 *
 * A bitvector node of width w is tracked as an exact integer form I with
 * value == I mod 2^w.  Sums, negations and products by constants keep
 * that true whatever the wrap-around; a zero/sign extension, a truncation
 * and the final 64-bit address need the value itself, which is I minus a
 * multiple of 2^w when I's range over the geometry fits one window.
 */
#include "engine/resolve-impl.h"

#include <string.h>

#define DEPTH_MAX 64

typedef __int128 i128;

static bool fits64(i128 v)
{
	return v >= INT64_MIN && v <= INT64_MAX;
}

static void lin_range(const struct lin *l, const uint64_t n[6], i128 *lo, i128 *hi)
{
	*lo = *hi = l->c0;
	for (int i = 0; i < 6; i++) {
		i128 span = (i128)l->c[i] * (i128)(n[i] ? n[i] - 1 : 0);
		if (span < 0)
			*lo += span;
		else
			*hi += span;
	}
}

/* Makes l the value of a width-w node read unsigned (or signed). */
static bool lin_window(struct lin *l, const uint64_t n[6], unsigned w, bool sgn)
{
	i128 lo, hi, m = (i128)1 << w, base = sgn ? -(m / 2) : 0;
	lin_range(l, n, &lo, &hi);
	i128 a = lo - base, k = a >= 0 ? a / m : -((-a + m - 1) / m);
	if (hi - base >= (k + 1) * m)
		return false;
	i128 c0 = (i128)l->c0 - k * m;
	if (!fits64(c0))
		return false;
	l->c0 = (int64_t)c0;
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

static bool lin_scale(struct lin *l, i128 k)
{
	i128 c0 = (i128)l->c0 * k;
	if (!fits64(c0))
		return false;
	l->c0 = (int64_t)c0;
	for (int i = 0; i < 6; i++) {
		i128 c = (i128)l->c[i] * k;
		if (!fits64(c))
			return false;
		l->c[i] = (int64_t)c;
	}
	return true;
}

static bool lin_add(struct lin *a, const struct lin *b, int sign)
{
	i128 c0 = (i128)a->c0 + sign * (i128)b->c0;
	if (!fits64(c0))
		return false;
	a->c0 = (int64_t)c0;
	for (int i = 0; i < 6; i++) {
		i128 c = (i128)a->c[i] + sign * (i128)b->c[i];
		if (!fits64(c))
			return false;
		a->c[i] = (int64_t)c;
	}
	return true;
}

static bool lin_of(const struct expr *e, const uint64_t n[6], struct lin *l, unsigned depth);

/* x / d and x % d, d a positive constant, where x's value over the whole
 * geometry lies in one window [q d, q d + d - 1] with q >= 0: the
 * quotient is the constant q, the remainder x - q d (exact: x >= 0, so
 * signed and unsigned division agree).  i / (H * W) with i = tid.x +
 * 512 k, tid.x < 512 and 512 dividing H * W, is one of these. */
static bool lin_divrem(const struct expr *e, const uint64_t n[6], struct lin *l, unsigned depth)
{
	unsigned w = SORT_WIDTH(e->sort);
	bool sgn = e->op == EOP_SDIV || e->op == EOP_SREM;
	if (e->nargs != 2 || e->args[1]->op != EOP_BV)
		return false;
	int64_t d = sgn ? sx(e->args[1]->u, w) : (int64_t)e->args[1]->u;
	if (d <= 0 || (!sgn && w == 64 && e->args[1]->u > INT64_MAX))
		return false;
	struct lin x;
	if (!lin_of(e->args[0], n, &x, depth + 1) || !lin_window(&x, n, w, sgn))
		return false;
	i128 lo, hi;
	lin_range(&x, n, &lo, &hi);
	if (lo < 0 || lo / d != hi / d)
		return false;
	i128 q = lo / d;
	if (e->op == EOP_UDIV || e->op == EOP_SDIV) {
		memset(l, 0, sizeof *l);
		l->c0 = (int64_t)q;
		return true;
	}
	i128 c0 = (i128)x.c0 - q * d;
	if (!fits64(c0))
		return false;
	*l = x;
	l->c0 = (int64_t)c0;
	return true;
}

static bool lin_of(const struct expr *e, const uint64_t n[6], struct lin *l, unsigned depth)
{
	unsigned w = SORT_WIDTH(e->sort);
	struct lin t;
	memset(l, 0, sizeof *l);
	if (depth > DEPTH_MAX || SORT_KIND(e->sort) != SK_BV || w == 0 || w > 64)
		return false;
	switch (e->op) {
	case EOP_BV:
		l->c0 = sx(e->u, w);
		return true;
	case EOP_TID:
	case EOP_CTAID:
		if (e->u > 2)
			return false;
		l->c[(e->op == EOP_CTAID ? 3 : 0) + e->u] = 1;
		return true;
	case EOP_ADD:
	case EOP_SUB:
		for (unsigned i = 0; i < e->nargs; i++) {
			if (!lin_of(e->args[i], n, &t, depth + 1) ||
			    !lin_add(l, &t, e->op == EOP_SUB && i > 0 ? -1 : 1))
				return false;
		}
		return true;
	case EOP_NEG:
		return lin_of(e->args[0], n, l, depth + 1) && lin_scale(l, -1);
	case EOP_MUL:
		if (e->nargs != 2)
			return false;
		for (int i = 0; i < 2; i++)
			if (e->args[i]->op == EOP_BV)
				return lin_of(e->args[1 - i], n, l, depth + 1) &&
				       lin_scale(l, sx(e->args[i]->u, w));
		return false;
	case EOP_SHL:
		if (e->args[1]->op != EOP_BV || e->args[1]->u >= w || e->args[1]->u > 62)
			return false;
		return lin_of(e->args[0], n, l, depth + 1) && lin_scale(l, (i128)1 << e->args[1]->u);
	case EOP_ZEXT:
	case EOP_SEXT:
		return lin_of(e->args[0], n, l, depth + 1) &&
		       lin_window(l, n, SORT_WIDTH(e->args[0]->sort), e->op == EOP_SEXT);
	case EOP_EXTRACT:
		return e->u == 0 && lin_of(e->args[0], n, l, depth + 1) && lin_window(l, n, w, false);
	case EOP_UDIV: case EOP_SDIV: case EOP_UREM: case EOP_SREM:
		return lin_divrem(e, n, l, depth);
	default:
		return false;
	}
}

bool lin_of_addr(const struct expr *addr, const uint64_t n[6], struct lin *out)
{
	return addr->sort == SORT_BV(64) && lin_of(addr, n, out, 0) && lin_window(out, n, 64, false);
}

void split_dom(struct ectx *cx, const struct expr *dom,
               const struct expr **dom_t, const struct expr **dom_d)
{
	const struct expr *const *a = &dom;
	unsigned n = 1;
	if (dom->op == EOP_LAND) {
		a = dom->args;
		n = dom->nargs;
	}
	const struct expr *t = e_bool(cx, true), *d = NULL;
	for (unsigned i = 0; i < n; i++) {
		if (e_has_data(a[i]))
			d = d ? e_and(cx, d, a[i]) : a[i];
		else
			t = e_and(cx, t, a[i]);
	}
	*dom_t = t;
	*dom_d = d;
}
