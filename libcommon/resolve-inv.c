/*
 * resolve-inv.c: inverting one write of a launch at one location: which
 * threads store to exactly [off, off+rsize)?
 *
 * Fast path: the address is affine (resolve-lin.c) with a mixed-radix
 * shape (each coefficient exceeds the span of the smaller ones), so at most
 * one assignment of the coordinates that occur gives an address; it is
 * found digit by digit, coordinates that do not occur are enumerated (up to
 * max_enum threads), and every candidate is checked by evaluating the
 * address and the domain.  Addresses near off that would overlap the read
 * partially are tried the same way.  Otherwise the solver is asked.
 */
#include "resolve-impl.h"

#include <string.h>

typedef __int128 i128;

/* Coordinates for e_eval: TID and CTAID leaves. */
static bool coord_val(const struct expr *leaf, struct evalue *out, void *user)
{
	const uint32_t *x = user;
	if ((leaf->op != EOP_TID && leaf->op != EOP_CTAID) || leaf->u > 2)
		return false;
	memset(out, 0, sizeof *out);
	out->u = x[(leaf->op == EOP_CTAID ? 3 : 0) + leaf->u];
	return true;
}

static int eval_bool(const struct expr *e, const uint32_t x[6])
{
	struct evalue v;
	if (!e_eval(e, EM_EXACT, coord_val, (void *)x, &v) || v.undef)
		return -1;
	return v.b;
}

static bool eval_addr(const struct expr *e, const uint32_t x[6], uint64_t *a)
{
	struct evalue v;
	if (!e_eval(e, EM_EXACT, coord_val, (void *)x, &v) || v.undef)
		return false;
	*a = v.u;
	return true;
}

static void store(uint32_t tids[][3], uint32_t ctaids[][3], int k, const uint32_t x[6])
{
	memcpy(tids[k], x, 3 * sizeof *x);
	memcpy(ctaids[k], x + 3, 3 * sizeof *x);
}

static bool fits(const struct inv_query *q, uint64_t a)
{
	return a == q->off && q->wsize == q->rsize && q->same_kind;
}

static int overlap_fail(const struct inv_query *q, uint64_t a, struct resolve_info *acc)
{
	if (a == q->off && q->wsize == q->rsize)
		ri_fail(acc, RI_UNSUPPORTED, "launch %u stores a different element type at offset %llu than is read",
		        q->launch, (unsigned long long)q->off);
	else
		ri_fail(acc, RI_UNSUPPORTED, "launch %u stores %u bytes at offset %llu, read as %u bytes at %llu",
		        q->launch, q->wsize, (unsigned long long)a, q->rsize, (unsigned long long)q->off);
	return -1;
}

#define NOT_FAST (-2)

static int inv_fast(const struct inv_query *q, uint32_t tids[][3], uint32_t ctaids[][3],
                    int max, struct resolve_info *acc)
{
	if (!q->lin)
		return NOT_FAST;
	struct lin l = *q->lin;
	bool flip[6] = { 0 };
	int act[6], nact = 0, fre[6], nfre = 0;
	i128 prod = 1;
	for (int i = 0; i < 6; i++) {
		if (q->n[i] == 0)
			return 0;                    /* an empty launch writes nothing */
		if (q->n[i] == 1)
			continue;
		if (l.c[i] < 0) {
			i128 c0 = (i128)l.c0 + (i128)l.c[i] * (i128)(q->n[i] - 1);
			if (c0 < INT64_MIN || c0 > INT64_MAX || l.c[i] == INT64_MIN)
				return NOT_FAST;
			l.c0 = (int64_t)c0;
			l.c[i] = -l.c[i];
			flip[i] = true;
		}
		if (l.c[i] == 0) {
			fre[nfre++] = i;
			prod *= q->n[i];
		} else {
			int k = nact++;
			while (k > 0 && l.c[act[k - 1]] > l.c[i]) {
				act[k] = act[k - 1];
				k--;
			}
			act[k] = i;
		}
	}
	if (prod > (i128)q->max_enum)
		return NOT_FAST;
	i128 span = 0;
	int64_t g = 0;
	for (int k = 0; k < nact; k++) {
		int i = act[k];
		if ((i128)l.c[i] <= span)
			return NOT_FAST;             /* not mixed radix: maybe not injective */
		span += (i128)l.c[i] * (i128)(q->n[i] - 1);
		int64_t a = l.c[i], b = g;
		while (b) {
			int64_t t = a % b;
			a = b;
			b = t;
		}
		g = a;
	}
	uint64_t lo = q->off >= q->wsize - 1 ? q->off - (q->wsize - 1) : 0;
	uint64_t hi = q->off + q->rsize - 1;
	int found = 0;
	for (uint64_t a = lo; a <= hi; a++) {
		i128 rem = (i128)a - l.c0;
		if (rem < 0 || (g ? rem % g != 0 : rem != 0))
			continue;
		uint64_t y[6] = { 0 };
		for (int k = nact - 1; k >= 0; k--) {
			int i = act[k];
			i128 d = rem / l.c[i];
			if (d >= (i128)q->n[i])
				break;
			y[i] = (uint64_t)d;
			rem -= d * l.c[i];
		}
		if (rem != 0)
			continue;
		/* enumerate the coordinates that do not occur in the address */
		uint64_t z[6] = { 0 };
		for (;;) {
			uint32_t x[6];
			for (int i = 0; i < 6; i++) {
				uint64_t v = y[i] + z[i];
				x[i] = (uint32_t)(flip[i] ? q->n[i] - 1 - v : v);
			}
			uint64_t got;
			if (!eval_addr(q->addr, x, &got) || got != a)
				return NOT_FAST;     /* the affine view was wrong: ask the solver */
			int dt = eval_bool(q->dom_t, x);
			if (dt < 0)
				return NOT_FAST;
			if (dt) {
				if (!fits(q, a))
					return overlap_fail(q, a, acc);
				if (found < max)
					store(tids, ctaids, found++, x);
				else
					break;
			}
			int k = 0;
			while (k < nfre && ++z[fre[k]] == q->n[fre[k]])
				z[fre[k++]] = 0;
			if (k == nfre)
				break;
		}
	}
	return found;
}

/* Can the write's addresses overlap [off, off+rsize) other than exactly? */
static bool provably_aligned(const struct inv_query *q)
{
	if (!q->lin || q->wsize != q->rsize)
		return false;
	int64_t s = q->wsize, g = 0;
	for (int i = 0; i < 6; i++) {
		if (q->n[i] <= 1)
			continue;
		int64_t a = q->lin->c[i] < 0 ? -q->lin->c[i] : q->lin->c[i], b = g;
		while (b) {
			int64_t t = a % b;
			a = b;
			b = t;
		}
		g = a;
	}
	i128 d = ((i128)q->lin->c0 - (i128)q->off) % s;
	return g % s == 0 && d == 0;
}

static int gave_up(const struct inv_query *q, struct resolve_info *acc)
{
	ri_fail(acc, RI_UNSUPPORTED, "the solver could not invert a store of launch %u at offset %llu",
	        q->launch, (unsigned long long)q->off);
	return -1;
}

static int inv_solver(const struct inv_query *q, uint32_t tids[][3], uint32_t ctaids[][3],
                      int max, struct resolve_info *acc)
{
	struct ectx *cx = q->cx;
	if (!q->smt) {
		ri_fail(acc, RI_UNSUPPORTED, "a store address of launch %u is not affine in the thread coordinates",
		        q->launch);
		return -1;
	}
	const struct expr *at = e_op2(cx, EOP_EQ, q->addr, e_bv(cx, q->off, 64));
	const struct expr *cond = e_and(cx, q->dom_t, at);
	uint32_t t1[3], c1[3], t2[3], c2[3];
	int found = 0;
	enum smt_result r = smt_thread_sat(q->smt, q->geom, cond, t1, c1);
	if (r == SMT_UNKNOWN)
		return gave_up(q, acc);
	if (r == SMT_SAT) {
		if (!fits(q, q->off))
			return overlap_fail(q, q->off, acc);
		if (max > found) {
			memcpy(tids[found], t1, sizeof t1);
			memcpy(ctaids[found++], c1, sizeof c1);
		}
		r = smt_thread_sat_except(q->smt, q->geom, cond, t1, c1, t2, c2);
		if (r == SMT_UNKNOWN)
			return gave_up(q, acc);
		if (r == SMT_SAT && max > found) {
			memcpy(tids[found], t2, sizeof t2);
			memcpy(ctaids[found++], c2, sizeof c2);
		}
	}
	if (!provably_aligned(q)) {
		uint64_t lo = q->off >= q->wsize - 1 ? q->off - (q->wsize - 1) : 0;
		uint64_t width = q->off + q->rsize - lo;
		const struct expr *rel = e_op2(cx, EOP_SUB, q->addr, e_bv(cx, lo, 64));
		const struct expr *near = e_op2(cx, EOP_ULT, rel, e_bv(cx, width, 64));
		const struct expr *c2e = e_and(cx, e_and(cx, q->dom_t, near), e_not(cx, at));
		uint32_t t3[3], c3[3];
		r = smt_thread_sat(q->smt, q->geom, c2e, t3, c3);
		if (r == SMT_UNKNOWN)
			return gave_up(q, acc);
		if (r == SMT_SAT) {
			ri_fail(acc, RI_UNSUPPORTED, "launch %u stores %u bytes overlapping the %u bytes read at offset %llu",
			        q->launch, q->wsize, q->rsize, (unsigned long long)q->off);
			return -1;
		}
	}
	return found;
}

int invert_write(const struct inv_query *q, uint32_t tids[][3], uint32_t ctaids[][3],
                 int max, struct resolve_info *acc)
{
	int k = inv_fast(q, tids, ctaids, max, acc);
	return k != NOT_FAST ? k : inv_solver(q, tids, ctaids, max, acc);
}
