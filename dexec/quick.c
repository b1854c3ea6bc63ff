/*
 * quick.c: thread conditions decided without the solver (dx_sat asks here
 * first).  A condition over the thread coordinates (tid, ctaid, and the
 * second thread of a pair query) is a small program: its DAG is compiled
 * once into a node list and evaluated at many points, node by node, with
 * the evaluator's own semantics (e_eval_node), so an answer here is the
 * answer the solver would give:
 *
 *   - when the coordinates the condition mentions span few points (a
 *     condition over tid alone: at most a block), every point is tried:
 *     an exact answer, and the first satisfying thread in order as the
 *     witness; past BNB_LEAF points the affine prover is asked first, as
 *     emptiness (an access in bounds) is the common answer;
 *   - else the affine prover (affine.c) may show that no thread satisfies
 *     it (bounds of accesses, halves of a split that are empty);
 *   - else a fixed set of sample points (the corners of the coordinate box
 *     and a few deterministic pseudo-random points) may show one that does;
 *   - else a branch and bound over boxes of the coordinates: boxes the
 *     prover shows empty are dropped, small ones tried point by point, the
 *     rest halved, up to a fixed number of boxes (a witness in a narrow
 *     region, as the one thread that wrote a shared element, or emptiness
 *     by cases).
 *
 * A condition over free variables as well is only given to the prover
 * (empty for every value of them), unless a conjunct "v == c" fixes each
 * (a pointer argument tested against null): then it is tried with c for
 * v.  Anything else (data, undefined values) is left to the solver.
 */
#include "dexec.h"

#include <string.h>

#define ENUM_MAX     8192u        /* points tried exhaustively */
#define BNB_LEAF     256u         /* boxes this small are tried point by point */
#define BNB_BOXES    96u          /* boxes the branch and bound may split */
#define SAMPLES      96u          /* pseudo-random points after the corners */
#define NODES_MAX    4096u        /* larger conditions go to the solver */
#define NODES_SMALL_GRID (1u << 15)  /* ... unless the grid has at most ENUM_MAX
                                       threads (a select over a table of 4096
                                       labels): then every point, at most
                                       2^28 node evaluations */

enum { NCOORD = DX_NCOORD };

static bool coord_of(const struct expr *e, unsigned *k)
{
	int t = eprog_thread_slot(e, NULL);
	if (t >= 0) {
		*k = (unsigned)t;
		return true;
	}
	if (e->op == EOP_VAR && DX_IS_T2VAR(e->u) && (e->u & 0xff) < 3) {
		*k = 6 + (unsigned)(e->u & 0xff);
		return true;
	}
	return false;
}

static int coord_slot(const struct expr *e, void *user)
{
	unsigned k;
	(void)user;
	return coord_of(e, &k) ? (int)k : -1;
}

struct eprog *dx_qprog_new(const struct expr *e)
{
	return eprog_new(e, coord_slot, NULL, NODES_MAX);
}

/* The condition at point x: 1 true, 0 false, -1 unknown (undefined). */
static int holds(struct eprog *p, const uint32_t x[NCOORD])
{
	const struct evalue *r = eprog_run(p, x);
	return r ? r->b : -1;
}

/* Is bound (a conjunct of cond) "var < n" for the second thread's dim d? */
static bool bounds_t2(const struct expr *cond, unsigned d, uint32_t n)
{
	const struct expr *const *c = &cond;
	unsigned nc = 1;
	if (cond->op == EOP_LAND) {
		c = cond->args;
		nc = cond->nargs;
	}
	for (unsigned i = 0; i < nc; i++) {
		const struct expr *x = c[i];
		unsigned k;
		if (x->op == EOP_ULT && coord_of(x->args[0], &k) && k == 6 + d &&
		    x->args[1]->op == EOP_BV && x->args[1]->u <= n)
			return true;
	}
	return false;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* Branch and bound over boxes of the coordinates: a box the affine
 * prover shows empty is dropped, a small one is tried point by point, a
 * large one is halved along its widest coordinate.  Returns SMT_SAT with
 * the point in x, SMT_UNSAT, or -1 when the node budget ran out. */
struct bnb {
	struct eprog *p;
	struct dx_affine *a;
	const unsigned *dims;
	unsigned nd;
	unsigned budget;             /* boxes left to look at */
};

static int enum_box(struct bnb *b, const uint32_t lo[NCOORD], const uint32_t hi[NCOORD], uint32_t x[NCOORD])
{
	uint64_t space = 1;
	for (unsigned j = 0; j < b->nd; j++)
		space *= (uint64_t)(hi[b->dims[j]] - lo[b->dims[j]]) + 1;
	for (uint64_t i = 0; i < space; i++) {
		uint64_t r = i;
		for (unsigned j = 0; j < b->nd; j++) {
			unsigned k = b->dims[j];
			uint64_t n = (uint64_t)(hi[k] - lo[k]) + 1;
			x[k] = lo[k] + (uint32_t)(r % n);
			r /= n;
		}
		int v = holds(b->p, x);
		if (v < 0)
			return -1;
		if (v)
			return SMT_SAT;
	}
	return SMT_UNSAT;
}

static int bnb(struct bnb *b, uint32_t lo[NCOORD], uint32_t hi[NCOORD], uint32_t x[NCOORD])
{
	uint64_t space = 1;
	unsigned wide = 0;
	uint64_t wmax = 0;
	for (unsigned j = 0; j < b->nd; j++) {
		unsigned k = b->dims[j];
		uint64_t n = (uint64_t)(hi[k] - lo[k]) + 1;
		space = space * n > (1ull << 40) ? (1ull << 40) : space * n;
		if (n > wmax) {
			wmax = n;
			wide = k;
		}
	}
	if (space <= BNB_LEAF)
		return enum_box(b, lo, hi, x);
	if (!b->budget)
		return -1;
	b->budget--;
	if (dx_affine_empty(b->a, lo, hi))
		return SMT_UNSAT;
	uint32_t mid = lo[wide] + (uint32_t)((wmax - 1) / 2), save = hi[wide];
	hi[wide] = mid;
	int r1 = bnb(b, lo, hi, x);
	hi[wide] = save;
	if (r1 == SMT_SAT)
		return r1;
	uint32_t slo = lo[wide];
	lo[wide] = mid + 1;
	int r2 = bnb(b, lo, hi, x);
	lo[wide] = slo;
	if (r2 == SMT_SAT)
		return r2;
	return r1 == SMT_UNSAT && r2 == SMT_UNSAT ? SMT_UNSAT : -1;
}

/* Free variables that a conjunct "v == c" of a condition fixes (a
 * pointer argument tested against null on the path: bias ? ... : 0). */
#define FIXED_MAX 8
struct fixed { const struct expr *var[FIXED_MAX], *val[FIXED_MAX]; unsigned n; };

static const struct expr *fix_var(struct ectx *cx, const struct expr *leaf, void *user)
{
	const struct fixed *f = user;
	(void)cx;
	for (unsigned i = 0; i < f->n; i++)
		if (leaf == f->var[i])
			return f->val[i];
	return NULL;
}

/* cond with each free variable that one of its conjuncts "v == c" fixes
 * put as c: for the variable, there is a value that satisfies cond just
 * where c does, so the same threads satisfy both, and cond can be tried
 * point by point.  NULL when no variable is fixed so. */
static const struct expr *fix_free(struct ectx *cx, const struct expr *cond)
{
	const struct expr *const *c = &cond;
	unsigned nc = 1;
	struct fixed f = { .n = 0 };
	if (cond->op == EOP_LAND) {
		c = cond->args;
		nc = cond->nargs;
	}
	for (unsigned i = 0; i < nc && f.n < FIXED_MAX; i++) {
		const struct expr *x = c[i];
		if (x->op != EOP_EQ || x->nargs != 2)
			continue;
		for (int s = 0; s < 2; s++) {
			const struct expr *v = x->args[s], *k = x->args[1 - s];
			unsigned slot;
			if (v->op == EOP_VAR && !coord_of(v, &slot) && k->op == EOP_BV && !fix_var(cx, v, &f)) {
				f.var[f.n] = v;
				f.val[f.n++] = k;
				break;
			}
		}
	}
	return f.n ? e_subst(cx, cond, fix_var, &f) : NULL;
}

int dx_quick_sat(struct dx_launch *L, const struct expr *cond, uint32_t tid[3], uint32_t ctaid[3])
{
	if (cond->flags & (EXPR_F_DATA | EXPR_F_UNDEF))
		return -1;
	uint64_t grid = 1;
	for (unsigned d = 0; d < 3; d++)
		grid *= (uint64_t)L->geom.ntid[d] * L->geom.nctaid[d];
	struct eprog *p = grid <= ENUM_MAX ? eprog_new(cond, coord_slot, NULL, NODES_SMALL_GRID)
	                                   : dx_qprog_new(cond);
	if (!p) {
		const struct expr *fixed = fix_free(L->cx, cond);
		if (fixed && fixed != cond)
			return dx_quick_sat(L, fixed, tid, ctaid);
		/* free variables (a pointer argument tested against null): no
		 * point can be tried, but emptiness for every value of them is
		 * still the prover's to show */
		struct dx_affine *aff = dx_affine_new(L, cond);
		bool empty = dx_affine_empty(aff, NULL, NULL);
		dx_affine_free(aff);
		return empty ? SMT_UNSAT : -1;
	}
	uint32_t n[NCOORD];
	for (unsigned d = 0; d < 3; d++) {
		n[d] = L->geom.ntid[d];
		n[3 + d] = L->geom.nctaid[d];
		n[6 + d] = L->geom.ntid[d];
	}
	int res = -1;
	struct dx_affine *aff = NULL;
	for (unsigned d = 0; d < 3; d++)
		if (eprog_uses(p, 6 + d) && !bounds_t2(cond, d, n[6 + d]))
			goto out;
	uint64_t space = 1;
	unsigned dims[NCOORD], nd = 0;
	for (unsigned k = 0; k < NCOORD; k++) {
		if (!n[k]) {
			res = SMT_UNSAT;
			goto out;
		}
		if (eprog_uses(p, k) && n[k] > 1) {
			dims[nd++] = k;
			space = space * n[k] > (1ull << 40) ? (1ull << 40) : space * n[k];
		}
	}
	uint32_t x[NCOORD], lo[NCOORD], hi[NCOORD];
	memset(x, 0, sizeof x);
	for (unsigned k = 0; k < NCOORD; k++) {
		lo[k] = 0;
		hi[k] = n[k] - 1;
	}
	struct bnb b = { p, NULL, dims, nd, BNB_BOXES };
	if (space > BNB_LEAF && space <= ENUM_MAX) {
		/* a bounds check of every load of a long loop over a whole block
		 * (a norm's 4096 strided loads, 1024 threads): emptiness shown by
		 * the prover is the answer enumeration would give, at the cost of
		 * one elimination instead of a pass over every thread */
		aff = dx_affine_new(L, cond);
		if (dx_affine_empty(aff, NULL, NULL)) {
			res = SMT_UNSAT;
			goto done;
		}
	}
	if (space <= ENUM_MAX) {
		/* every point, the first coordinate fastest: tid.x, tid.y, ... */
		res = enum_box(&b, lo, hi, x);
		goto done;
	}
	aff = dx_affine_new(L, cond);
	if (dx_affine_empty(aff, NULL, NULL)) {
		res = SMT_UNSAT;
		goto done;
	}
	/* corners (each coordinate at its least or greatest value), then
	 * pseudo-random points seeded by the condition */
	uint64_t corners = nd < 10 ? 1ull << nd : 1024;
	for (uint64_t i = 0; i < corners + SAMPLES && res < 0; i++) {
		for (unsigned j = 0; j < nd; j++) {
			unsigned k = dims[j];
			if (i < corners)
				x[k] = (i >> j) & 1 ? n[k] - 1 : 0;
			else
				x[k] = (uint32_t)(mix(cond->hash * 0x9e3779b97f4a7c15ull + i * 16 + j) % n[k]);
		}
		if (holds(p, x) == 1)
			res = SMT_SAT;
	}
	if (res < 0 && aff) {
		b.a = aff;
		memset(x, 0, sizeof x);
		res = bnb(&b, lo, hi, x);
	}
done:
	if (res == SMT_SAT) {
		if (tid)
			memcpy(tid, x, 3 * sizeof *x);
		if (ctaid)
			memcpy(ctaid, x + 3, 3 * sizeof *x);
	}
out:
	dx_affine_free(aff);
	eprog_free(p);
	return res;
}
