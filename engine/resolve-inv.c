/*
 * resolve-inv.c: inverting one write of a launch at one location: which
 * threads store to exactly [off, off+rsize)?
 *
 * Fast path: the address is affine (resolve-lin.c): c0 + sum c_i x_i with
 * 0 <= x_i < n_i is a small integer problem, solved exactly by a bounded
 * depth-first search (a mixed-radix address, 4*(256*ctaid.x + tid.x), has
 * one candidate per level; a 2-D grid overhanging its matrix has a few;
 * coordinates absent from the address are enumerated).  Every candidate is
 * checked by evaluating the address and the domain.  Addresses near off
 * that would overlap the read partially are tried the same way.  When the
 * search exceeds max_enum nodes, or the address is not affine, the write's
 * table of addresses by thread answers (resolve-enum.c) where the query
 * has tables and the geometry is small enough; else the solver is asked.
 */
#include "engine/resolve-impl.h"

#include <stdio.h>
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
#define STOP 1

/* Depth-first search over the coordinates, largest coefficient first: at
 * each level the remaining sum R must lie within what the smaller
 * coefficients can still make, and be a multiple of their gcd, so only the
 * few feasible values are tried.  Every complete assignment is checked by
 * evaluating the address and the thread part of the domain. */
struct dfs {
	const struct inv_query *q;
	int ord[6], nv;
	int64_t c[6];
	bool flip[6];
	i128 maxrest[7];
	int64_t grest[7];
	uint64_t x[6];
	uint64_t a, nodes;
	uint32_t (*tids)[3], (*ctaids)[3];
	int found, max;
	struct resolve_info *acc;
};

static int dfs_leaf(struct dfs *d)
{
	const struct inv_query *q = d->q;
	uint32_t x[6];
	for (int i = 0; i < 6; i++)
		x[i] = (uint32_t)(d->flip[i] ? q->n[i] - 1 - d->x[i] : d->x[i]);
	uint64_t got;
	if (!eval_addr(q->addr, x, &got) || got != d->a)
		return NOT_FAST;             /* the affine view was wrong: ask the solver */
	int dt = eval_bool(q->dom_t, x);
	if (dt < 0)
		return NOT_FAST;
	if (!dt)
		return 0;
	if (!fits(q, d->a))
		return overlap_fail(q, d->a, d->acc);
	if (d->found >= d->max)
		return STOP;
	store(d->tids, d->ctaids, d->found++, x);
	return 0;
}

static int dfs(struct dfs *d, int k, i128 rem)
{
	if (++d->nodes > d->q->max_enum)
		return NOT_FAST;
	if (k == d->nv)
		return rem == 0 ? dfs_leaf(d) : 0;
	if (rem < 0 || rem > d->maxrest[k] || (d->grest[k] && rem % d->grest[k]))
		return 0;
	int i = d->ord[k];
	i128 c = d->c[i], lo = 0, hi = (i128)d->q->n[i] - 1;
	if (c) {
		i128 need = rem - d->maxrest[k + 1];
		if (need > 0)
			lo = (need + c - 1) / c;
		if (rem / c < hi)
			hi = rem / c;
	}
	for (i128 v = lo; v <= hi; v++) {
		d->x[i] = (uint64_t)v;
		int r = dfs(d, k + 1, rem - c * v);
		if (r)
			return r;
	}
	d->x[i] = 0;
	return 0;
}

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static int inv_fast(const struct inv_query *q, uint32_t tids[][3], uint32_t ctaids[][3],
                    int max, struct resolve_info *acc)
{
	if (!q->lin)
		return NOT_FAST;
	struct dfs d;
	memset(&d, 0, sizeof d);
	d.q = q;
	d.tids = tids;
	d.ctaids = ctaids;
	d.max = max;
	d.acc = acc;
	i128 c0 = q->lin->c0;
	for (int i = 0; i < 6; i++) {
		if (q->n[i] == 0)
			return 0;                    /* an empty launch writes nothing */
		d.c[i] = q->lin->c[i];
		if (q->n[i] == 1)
			continue;
		if (d.c[i] < 0) {
			if (d.c[i] == INT64_MIN)
				return NOT_FAST;
			c0 += (i128)d.c[i] * (i128)(q->n[i] - 1);
			d.c[i] = -d.c[i];
			d.flip[i] = true;
		}
		int k = d.nv++;
		while (k > 0 && d.c[d.ord[k - 1]] < d.c[i]) {
			d.ord[k] = d.ord[k - 1];
			k--;
		}
		d.ord[k] = i;
	}
	for (int k = d.nv - 1; k >= 0; k--) {
		int i = d.ord[k];
		d.maxrest[k] = d.maxrest[k + 1] + (i128)d.c[i] * (i128)(q->n[i] - 1);
		d.grest[k] = gcd64(d.c[i], d.grest[k + 1]);
	}
	uint64_t lo = q->off >= q->wsize - 1 ? q->off - (q->wsize - 1) : 0;
	uint64_t hi = q->off + q->rsize - 1;
	for (uint64_t a = lo; a <= hi; a++) {
		d.a = a;
		memset(d.x, 0, sizeof d.x);
		int r = dfs(&d, 0, (i128)a - c0);
		if (r == STOP)
			continue;
		if (r)
			return r;
	}
	return d.found;
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
		g = gcd64(q->lin->c[i] < 0 ? -q->lin->c[i] : q->lin->c[i], g);
	}
	i128 d = ((i128)q->lin->c0 - (i128)q->off) % s;
	return g % s == 0 && d == 0;
}

static int gave_up(const struct inv_query *q, struct resolve_info *acc, enum smt_result r)
{
	if (r == SMT_TIMEOUT) {
		if (!(acc->flags & RI_TIMEOUT))
			snprintf(acc->doing, sizeof acc->doing, "the budget ran out inverting a store of launch %u "
			         "at offset %llu with the solver", q->launch, (unsigned long long)q->off);
		acc->flags |= RI_TIMEOUT;
		return -1;
	}
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
	if (r == SMT_UNKNOWN || r == SMT_TIMEOUT)
		return gave_up(q, acc, r);
	if (r == SMT_SAT) {
		if (!fits(q, q->off))
			return overlap_fail(q, q->off, acc);
		if (max > found) {
			memcpy(tids[found], t1, sizeof t1);
			memcpy(ctaids[found++], c1, sizeof c1);
		}
		r = smt_thread_sat_except(q->smt, q->geom, cond, t1, c1, t2, c2);
		if (r == SMT_UNKNOWN || r == SMT_TIMEOUT)
			return gave_up(q, acc, r);
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
		if (r == SMT_UNKNOWN || r == SMT_TIMEOUT)
			return gave_up(q, acc, r);
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
	if (k == NOT_FAST && q->tabs) {
		int t = inv_table(q, tids, ctaids, max, acc);
		if (t != INV_UNTABLED)
			return t;
	}
	return k != NOT_FAST ? k : inv_solver(q, tids, ctaids, max, acc);
}

int inv_overlap_fail(const struct inv_query *q, uint64_t a, struct resolve_info *acc)
{
	return overlap_fail(q, a, acc);
}
