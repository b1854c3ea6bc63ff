/*
 * expr-prog.c: one expression evaluated at many points.  Its DAG is
 * compiled once into a node list in topological order; each run gives
 * the leaves their values from a point (an array of slots, as a thread's
 * coordinates) and evaluates node by node with e_eval_node, so the
 * answers are e_eval's without its per-call memo.  dexec's quick
 * decisions (every thread of a condition tried) and the engine's write
 * tables (a store's address at every thread) run their conditions and
 * addresses this way.
 */
#include "libcommon/expr-impl.h"

#include <stdlib.h>
#include <string.h>

#define SLOTS_MAX 16u

struct eprog {
	const struct expr **node;    /* topological order, the root last */
	uint32_t *args;              /* node i's argument indices from args + at[i] */
	uint32_t *at;
	uint8_t *slot;               /* per node: its slot + 1, or 0 */
	uint16_t *deps;              /* per node: the slots it depends on, one bit each */
	uint32_t n, nargs;
	bool uses[SLOTS_MAX];
	struct evalue *vals;         /* per node, for one point */
	bool valid;                  /* vals hold the point last, every node */
	uint32_t last[SLOTS_MAX];
};

static void prog_free(struct eprog *p)
{
	free(p->node);
	free(p->args);
	free(p->at);
	free(p->slot);
	free(p->deps);
	free(p->vals);
	free(p);
}

struct eprog *eprog_new(const struct expr *e, eprog_slot_fn slot, void *user, uint32_t max_nodes)
{
	if (e->flags & (EXPR_F_DATA | EXPR_F_UNDEF))
		return NULL;
	struct idmap ix;             /* node id -> its index in order */
	idmap_init(&ix);
	VEC(const struct expr *) stack = { 0 };
	VEC(const struct expr *) order = { 0 };
	VEC(uint8_t) slots = { 0 };
	struct eprog *p = xcalloc(1, sizeof *p);
	bool ok = true;
	VEC_PUSH(stack, e);
	/* iterative post-order */
	while (stack.len && ok) {
		const struct expr *x = stack.items[stack.len - 1];
		if (idmap_get(&ix, x->id)) {
			stack.len--;
			continue;
		}
		bool ready = true;
		for (unsigned i = 0; i < x->nargs; i++)
			if (!idmap_get(&ix, x->args[i]->id)) {
				VEC_PUSH(stack, x->args[i]);
				ready = false;
			}
		if (!ready)
			continue;
		stack.len--;
		int k = x->nargs == 0 && !e_is_const(x) ? slot(x, user) : -1;
		if ((x->nargs == 0 && !e_is_const(x) && (k < 0 || (unsigned)k >= SLOTS_MAX)) ||
		    x->op == EOP_LOAD || order.len >= max_nodes) {
			ok = false;
			break;
		}
		if (k >= 0)
			p->uses[k] = true;
		idmap_put(&ix, x->id, order.len);
		VEC_PUSH(order, x);
		VEC_PUSH(slots, (uint8_t)(k + 1));
		p->nargs += x->nargs;
	}
	if (ok) {
		p->n = (uint32_t)order.len;
		p->vals = xcalloc(p->n + 1, sizeof *p->vals);
		p->node = order.items;
		p->slot = slots.items;
		order.items = NULL;
		slots.items = NULL;
		p->at = xcalloc(p->n + 1, sizeof *p->at);
		p->args = xcalloc(p->nargs + 1, sizeof *p->args);
		p->deps = xcalloc(p->n + 1, sizeof *p->deps);
		uint32_t a = 0;
		for (uint32_t i = 0; i < p->n; i++) {
			const struct expr *x = p->node[i];
			p->at[i] = a;
			if (p->slot[i])
				p->deps[i] = (uint16_t)(1u << (p->slot[i] - 1));
			for (unsigned j = 0; j < x->nargs; j++) {
				uint32_t at = (uint32_t)*idmap_get(&ix, x->args[j]->id);
				p->args[a++] = at;
				p->deps[i] |= p->deps[at];
			}
		}
	}
	idmap_free(&ix);
	VEC_FREE(stack);
	VEC_FREE(order);
	VEC_FREE(slots);
	if (!ok) {
		prog_free(p);
		return NULL;
	}
	return p;
}

int eprog_thread_slot(const struct expr *leaf, void *user)
{
	(void)user;
	if ((leaf->op != EOP_TID && leaf->op != EOP_CTAID) || leaf->u > 2)
		return -1;
	return (leaf->op == EOP_CTAID ? 3 : 0) + (int)leaf->u;
}

bool eprog_uses(const struct eprog *p, unsigned slot)
{
	return slot < SLOTS_MAX && p->uses[slot];
}

struct point { const struct eprog *p; const uint32_t *x; uint32_t i; };

static bool point_val(const struct expr *leaf, struct evalue *out, void *user)
{
	const struct point *pt = user;
	(void)leaf;
	unsigned k = pt->p->slot[pt->i];
	if (!k)
		return false;
	memset(out, 0, sizeof *out);
	out->u = pt->x[k - 1];
	return true;
}

/* Only the nodes that depend on a slot whose value changed since the
 * last run are computed again: points taken in order (a block's threads,
 * the first coordinate fastest) recompute the part of a block, or of a
 * row, once. */
const struct evalue *eprog_run(struct eprog *p, const uint32_t *x)
{
	const struct evalue *av[E_MAX_ARGS];
	struct evalue *vals = p->vals;
	struct point pt = { p, x, 0 };
	uint32_t changed = 0;
	for (unsigned k = 0; k < SLOTS_MAX; k++)
		if (p->uses[k] && (!p->valid || p->last[k] != x[k])) {
			changed |= 1u << k;
			p->last[k] = x[k];
		}
	bool all = !p->valid;
	p->valid = false;
	for (uint32_t i = 0; i < p->n; i++) {
		if (!all && !(p->deps[i] & changed))
			continue;
		const struct expr *e = p->node[i];
		for (unsigned j = 0; j < e->nargs; j++)
			av[j] = &vals[p->args[p->at[i] + j]];
		pt.i = i;
		if (!e_eval_node(e, EM_EXACT, point_val, &pt, av, &vals[i]))
			return NULL;
	}
	p->valid = true;
	const struct evalue *r = &vals[p->n - 1];
	return r->undef ? NULL : r;
}

void eprog_free(struct eprog *p)
{
	if (p)
		prog_free(p);
}
