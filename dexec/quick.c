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
 * (empty for every value of them); anything else (data, undefined
 * values) is left to the solver.
 */
#include "dexec.h"

#include <string.h>

#define ENUM_MAX     8192u        /* points tried exhaustively */
#define BNB_LEAF     256u         /* boxes this small are tried point by point */
#define BNB_BOXES    96u          /* boxes the branch and bound may split */
#define SAMPLES      96u          /* pseudo-random points after the corners */
#define NODES_MAX    4096u        /* larger conditions go to the solver */

enum { NCOORD = DX_NCOORD };

struct dx_qprog {
	const struct expr **node;    /* topological order, the root last */
	uint32_t *args;              /* node i's argument indices from args + at[i] */
	uint32_t *at;
	uint32_t n, nargs;
	bool uses[NCOORD];
	struct evalue *vals;         /* per node, for one point */
};
#define qprog dx_qprog

struct idslot { uint32_t id, ix; };

static bool coord_of(const struct expr *e, unsigned *k)
{
	if ((e->op == EOP_TID || e->op == EOP_CTAID) && e->u < 3) {
		*k = (e->op == EOP_CTAID ? 3 : 0) + (unsigned)e->u;
		return true;
	}
	if (e->op == EOP_VAR && DX_IS_T2VAR(e->u) && (e->u & 0xff) < 3) {
		*k = 6 + (unsigned)(e->u & 0xff);
		return true;
	}
	return false;
}

/* Compiles e; false if it has more than NODES_MAX nodes or a leaf that is
 * not a constant or a coordinate. */
static bool compile(const struct expr *e, struct qprog *p)
{
	size_t cap = 64;
	struct idslot *tab = xcalloc(cap, sizeof *tab);
	size_t len = 0;
	VEC(const struct expr *) stack = { 0 };
	VEC(const struct expr *) order = { 0 };
	bool ok = true;
	memset(p, 0, sizeof *p);
	VEC_PUSH(stack, e);
	/* iterative post-order; tab maps id + 1 -> index + 1 in order */
	while (stack.len && ok) {
		const struct expr *x = stack.items[stack.len - 1];
		size_t h = (x->id * 0x9e3779b9u) & (cap - 1);
		while (tab[h].id && tab[h].id != x->id + 1)
			h = (h + 1) & (cap - 1);
		if (tab[h].id) {
			stack.len--;
			continue;
		}
		bool ready = true;
		for (unsigned i = 0; i < x->nargs; i++) {
			const struct expr *a = x->args[i];
			size_t g = (a->id * 0x9e3779b9u) & (cap - 1);
			while (tab[g].id && tab[g].id != a->id + 1)
				g = (g + 1) & (cap - 1);
			if (!tab[g].id) {
				VEC_PUSH(stack, a);
				ready = false;
			}
		}
		if (!ready)
			continue;
		stack.len--;
		unsigned k;
		if (x->nargs == 0 && !e_is_const(x) && !coord_of(x, &k)) {
			ok = false;
			break;
		}
		if (x->op == EOP_LOAD || order.len >= NODES_MAX) {
			ok = false;
			break;
		}
		if (coord_of(x, &k))
			p->uses[k] = true;
		tab[h] = (struct idslot){ x->id + 1, (uint32_t)order.len };
		VEC_PUSH(order, x);
		p->nargs += x->nargs;
		if (2 * (++len) > cap) {
			size_t ncap = 2 * cap;
			struct idslot *nt = xcalloc(ncap, sizeof *nt);
			for (size_t i = 0; i < cap; i++)
				if (tab[i].id) {
					size_t g = ((tab[i].id - 1) * 0x9e3779b9u) & (ncap - 1);
					while (nt[g].id)
						g = (g + 1) & (ncap - 1);
					nt[g] = tab[i];
				}
			free(tab);
			tab = nt;
			cap = ncap;
		}
	}
	if (ok) {
		p->n = (uint32_t)order.len;
		p->vals = xcalloc(p->n + 1, sizeof *p->vals);
		p->node = order.items;
		order.items = NULL;
		p->at = xcalloc(p->n + 1, sizeof *p->at);
		p->args = xcalloc(p->nargs + 1, sizeof *p->args);
		uint32_t a = 0;
		for (uint32_t i = 0; i < p->n; i++) {
			const struct expr *x = p->node[i];
			p->at[i] = a;
			for (unsigned j = 0; j < x->nargs; j++) {
				const struct expr *y = x->args[j];
				size_t g = (y->id * 0x9e3779b9u) & (cap - 1);
				while (tab[g].id != y->id + 1)
					g = (g + 1) & (cap - 1);
				p->args[a++] = tab[g].ix;
			}
		}
	}
	free(tab);
	VEC_FREE(stack);
	VEC_FREE(order);
	return ok;
}

static void qprog_free(struct qprog *p)
{
	free(p->node);
	free(p->args);
	free(p->at);
	free(p->vals);
}

struct dx_qprog *dx_qprog_new(const struct expr *e)
{
	struct dx_qprog *p = xmalloc(sizeof *p);
	if (!(e->flags & (EXPR_F_DATA | EXPR_F_UNDEF)) && compile(e, p))
		return p;
	qprog_free(p);
	free(p);
	return NULL;
}

bool dx_qprog_uses(const struct dx_qprog *p, unsigned k)
{
	return k < NCOORD && p->uses[k];
}

void dx_qprog_free(struct dx_qprog *p)
{
	if (p) {
		qprog_free(p);
		free(p);
	}
}

static bool point_val(const struct expr *leaf, struct evalue *out, void *user)
{
	const uint32_t *x = user;
	unsigned k;
	if (!coord_of(leaf, &k))
		return false;
	memset(out, 0, sizeof *out);
	out->u = x[k];
	return true;
}

const struct evalue *dx_qprog_run(struct dx_qprog *p, const uint32_t x[DX_NCOORD])
{
	const struct evalue *av[E_MAX_ARGS];
	struct evalue *vals = p->vals;
	for (uint32_t i = 0; i < p->n; i++) {
		const struct expr *e = p->node[i];
		for (unsigned j = 0; j < e->nargs; j++)
			av[j] = &vals[p->args[p->at[i] + j]];
		if (!e_eval_node(e, EM_EXACT, point_val, (void *)x, av, &vals[i]))
			return NULL;
	}
	const struct evalue *r = &vals[p->n - 1];
	return r->undef ? NULL : r;
}

/* The condition at point x: 1 true, 0 false, -1 unknown (undefined). */
static int holds(struct qprog *p, const uint32_t x[NCOORD])
{
	const struct evalue *r = dx_qprog_run(p, x);
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
	struct qprog *p;
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

int dx_quick_sat(struct dx_launch *L, const struct expr *cond, uint32_t tid[3], uint32_t ctaid[3])
{
	if (cond->flags & (EXPR_F_DATA | EXPR_F_UNDEF))
		return -1;
	struct qprog p;
	if (!compile(cond, &p)) {
		/* free variables (a pointer argument tested against null): no
		 * point can be tried, but emptiness for every value of them is
		 * still the prover's to show */
		qprog_free(&p);
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
		if (p.uses[6 + d] && !bounds_t2(cond, d, n[6 + d]))
			goto out;
	uint64_t space = 1;
	unsigned dims[NCOORD], nd = 0;
	for (unsigned k = 0; k < NCOORD; k++) {
		if (!n[k]) {
			res = SMT_UNSAT;
			goto out;
		}
		if (p.uses[k] && n[k] > 1) {
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
	struct bnb b = { &p, NULL, dims, nd, BNB_BOXES };
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
		if (holds(&p, x) == 1)
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
	qprog_free(&p);
	return res;
}
