/*
 * merge.c: branches on data whose arms rejoin.  A bundle splits on a
 * condition over tid/ctaid (exec.c), but a condition over loaded data has
 * no thread set to split on: the bundle runs both arms in turn instead,
 * the fall-through arm first, then the taken one, and where they rejoin
 * (the immediate post-dominator of the branch) each register becomes
 * ite(cond, taken value, fall-through value).
 *
 * While an arm runs, its data condition (the conjunction of the arm
 * conditions of every enclosing data branch, dx_arm_cond) guards what the
 * arm does to memory: stores become guarded stores (mem.c merges the value
 * with the old one, as for a store predicated on data), and the bounds of
 * every access are checked for the threads that may take the arm (the
 * condition is data: it may hold).  Both arms share the bundle's memory:
 * the second arm sees the first arm's stores, guarded by a condition it
 * excludes, so a location both arms store to ends as ite(cond, b, a).
 * A branch on tid/ctaid inside an arm splits the bundle as usual; each
 * half keeps the arm stack and reaches the join on its own.
 *
 * A branch on tid/ctaid whose arms store nothing and rejoin as above is
 * merged the same way, so that the bundle does not split in two for the
 * rest of the kernel (32 tests of k against ty in a tile loop made 237
 * bundles of one; a transposed convolution's `continue` on each kernel
 * tap out of the input made one bundle per class of border threads, 405
 * of them, each running the whole channel loop): each arm runs with the
 * bundle's domain cut to its threads, which every access there is
 * checked for, and the domain is whole again at the join.  Without
 * stores, neither arm sees the other's memory.  Arms may hold branches
 * of their own (a loop over constants, a nested test of the threads,
 * merged in turn); one that would split the bundle, or a branch on data,
 * takes the bundle back to the outer branch, which then splits as any, as
 * does an arm that leaves an index, pointer or predicate over the threads
 * differing at the join (only data merges: a select over threads in an
 * address or a loop bound is what the prover cannot follow).
 * Arms with branches are merged only where both have threads (an arm
 * with none would run loops for nobody).
 *
 * A data branch is merged only when its arms rejoin without a barrier, a
 * warp operation, an atomic or an exit on the way (each needs the threads
 * that take the arm, which data does not give), and only when it is not a
 * loop's exit: a branch reachable again from its own arms before they
 * rejoin makes the trip count depend on data.  Anything else stays
 * unsupported and says why.  The control-flow graph and post-dominators
 * are computed once per launch, at its first data branch.
 */
#include "dexec.h"

#include <string.h>

/* Why a data branch cannot be merged (see reason_text). */
enum why { W_OK = 1, W_LOOP, W_NOJOIN, W_BARRIER, W_WARP, W_ATOMIC, W_EXIT, W_TARGET,
           W_CROOKED /* an arm stores, or branches (arms_kind) */ };

struct dx_merge {
	unsigned nblk;               /* blocks; block nblk is the exit */
	unsigned *blk;               /* pc -> block */
	unsigned *start;             /* block -> first pc (start[nblk] = ninstrs) */
	int (*succ)[2];              /* block -> successors (-1: none) */
	int *ipdom;                  /* block -> immediate post-dominator, -1 if none */
	unsigned char *why;          /* block -> enum why of its last branch, 0 not yet known */
	unsigned char *arms;         /* block -> what its branch's arms are, for a merge on
	                                threads (ARMS_*, dx_merge_thread_branch) */
	unsigned *why_pc;            /* block -> the instruction that blocks the merge */
	unsigned words;              /* 64-bit words of a register set */
	uint64_t *live;              /* block -> registers live at its start (words each),
	                                NULL until the first join (liveness) */
	uint64_t *named;             /* registers some instruction defines by operand */
};

/* ---- the control-flow graph -------------------------------------------------- */

/* The instruction a branch goes to, or -1. */
static int target_of(const struct ptx_func *fn, const struct ptx_instr *in)
{
	const struct ptx_operand *op = in->nops ? &in->ops[0] : NULL;
	if (op && op->kind == PO_LABEL && op->imm >= 0 && (uint64_t)op->imm <= fn->ninstrs)
		return (int)op->imm;
	return op && op->name ? ptx_label_target(fn, op->name) : -1;
}

static bool ends_block(enum dx_op op)
{
	return op == DO_BRA || op == DO_RET || op == DO_EXIT;
}

/* Immediate post-dominators by the iterative algorithm of Cooper, Harvey
 * and Kennedy on the reversed graph, rooted at the exit. */
static void postdominators(struct dx_merge *m)
{
	unsigned n = m->nblk + 1, exitb = m->nblk;
	/* predecessors, for the depth-first walk of the reversed graph */
	unsigned *npred = xcalloc(n, sizeof *npred), *pofs = xcalloc(n + 1, sizeof *pofs);
	for (unsigned b = 0; b < m->nblk; b++)
		for (int k = 0; k < 2; k++)
			if (m->succ[b][k] >= 0)
				npred[m->succ[b][k]]++;
	for (unsigned b = 0; b < n; b++)
		pofs[b + 1] = pofs[b] + npred[b];
	unsigned *pred = xcalloc(pofs[n] + 1, sizeof *pred), *fill = xcalloc(n, sizeof *fill);
	for (unsigned b = 0; b < m->nblk; b++)
		for (int k = 0; k < 2; k++)
			if (m->succ[b][k] >= 0) {
				unsigned s = (unsigned)m->succ[b][k];
				pred[pofs[s] + fill[s]++] = b;
			}
	/* postorder of the reversed graph from the exit */
	int *po = xcalloc(n, sizeof *po);            /* block -> postorder number, -1 unreached */
	unsigned *order = xcalloc(n, sizeof *order), norder = 0;
	unsigned *stk = xcalloc(n, sizeof *stk), *it = xcalloc(n, sizeof *it), sp = 0;
	bool *seen = xcalloc(n, sizeof *seen);
	for (unsigned b = 0; b < n; b++)
		po[b] = -1;
	stk[sp++] = exitb;
	seen[exitb] = true;
	while (sp) {
		unsigned b = stk[sp - 1];
		if (it[b] < npred[b]) {
			unsigned p = pred[pofs[b] + it[b]++];
			if (!seen[p]) {
				seen[p] = true;
				stk[sp++] = p;
			}
			continue;
		}
		sp--;
		po[b] = (int)norder;
		order[norder++] = b;
	}
	for (unsigned b = 0; b < n; b++)
		m->ipdom[b] = -1;
	m->ipdom[exitb] = (int)exitb;
	for (bool changed = true; changed;) {
		changed = false;
		for (unsigned i = norder - 1; i-- > 0;) {    /* reverse postorder, root excluded */
			unsigned b = order[i];
			int nw = -1;
			for (int k = 0; k < 2; k++) {
				int s = m->succ[b][k];
				if (s < 0 || m->ipdom[s] < 0)
					continue;
				if (nw < 0) {
					nw = s;
					continue;
				}
				int x = s, y = nw;
				while (x != y) {
					while (po[x] < po[y])
						x = m->ipdom[x];
					while (po[y] < po[x])
						y = m->ipdom[y];
				}
				nw = x;
			}
			if (nw != m->ipdom[b]) {
				m->ipdom[b] = nw;
				changed = true;
			}
		}
	}
	free(npred); free(pofs); free(pred); free(fill);
	free(po); free(order); free(stk); free(it); free(seen);
}

static struct dx_merge *merge_new(struct dx_launch *L)
{
	const struct ptx_func *fn = L->fn;
	unsigned ni = fn->ninstrs;
	struct dx_merge *m = xcalloc(1, sizeof *m);
	bool *lead = xcalloc(ni + 1, sizeof *lead);
	lead[0] = true;
	for (unsigned pc = 0; pc < ni; pc++) {
		enum dx_op op = (enum dx_op)L->ops[pc];
		if (op == DO_BRA) {
			int t = target_of(fn, &fn->instrs[pc]);
			if (t >= 0)
				lead[t] = true;
		}
		if (ends_block(op))
			lead[pc + 1] = true;
	}
	m->blk = xcalloc(ni + 1, sizeof *m->blk);
	m->start = xcalloc(ni + 2, sizeof *m->start);
	for (unsigned pc = 0; pc < ni; pc++) {
		if (lead[pc])
			m->start[m->nblk++] = pc;
		m->blk[pc] = m->nblk - 1;
	}
	m->blk[ni] = m->nblk;                        /* falling off the end: the exit */
	m->start[m->nblk] = ni;
	unsigned n = m->nblk + 1;
	m->succ = xcalloc(n, sizeof *m->succ);
	m->ipdom = xcalloc(n, sizeof *m->ipdom);
	m->why = xcalloc(n, sizeof *m->why);
	m->arms = xcalloc(n, sizeof *m->arms);
	m->why_pc = xcalloc(n, sizeof *m->why_pc);
	for (unsigned b = 0; b < n; b++)
		m->succ[b][0] = m->succ[b][1] = -1;
	for (unsigned b = 0; b < m->nblk; b++) {
		unsigned last = m->start[b + 1] - 1;
		const struct ptx_instr *in = &fn->instrs[last];
		enum dx_op op = (enum dx_op)L->ops[last];
		int next = (int)m->blk[last + 1];
		if (op == DO_BRA) {
			int t = target_of(fn, in);
			m->succ[b][0] = t < 0 ? (int)m->nblk : (int)m->blk[t];
			if (in->guard)
				m->succ[b][1] = next;
		} else if (op == DO_RET || op == DO_EXIT) {
			m->succ[b][0] = (int)m->nblk;
			if (in->guard)
				m->succ[b][1] = next;
		} else {
			m->succ[b][0] = next;
		}
	}
	free(lead);
	postdominators(m);
	return m;
}

void dx_merge_free(struct dx_merge *m)
{
	if (!m)
		return;
	free(m->blk);
	free(m->start);
	free(m->succ);
	free(m->ipdom);
	free(m->why);
	free(m->arms);
	free(m->why_pc);
	free(m->live);
	free(m->named);
	free(m);
}

/* ---- liveness ------------------------------------------------------------------ */

/* Registers live where arms rejoin need merging; the others (an address
 * an arm computed for its own loads, a loop counter of an inner loop) are
 * not read again before they are written, so either arm's value will do:
 * merging them would only make ite()s nobody reads, and a differing
 * pointer among them would needlessly undo a merge on threads.  The usual
 * backward analysis over the blocks, kept on the safe side: every
 * register an instruction names counts as read, except the destination
 * of an unguarded instruction known to write operand 0 and nothing else;
 * registers no instruction names as such a destination (the carry flag,
 * the slot registers of .local arrays, read and written behind the
 * operands) are always live. */

static bool writes_first(unsigned op)
{
	switch (op) {
	case DO_OTHER: case DO_ST: case DO_BRA: case DO_RET: case DO_EXIT:
	case DO_BAR: case DO_BARRIER: case DO_RED:
	case DO_NOP: case DO_STL: case DO_FENCE:
		return false;
	default:
		return op < DO_EXT__COUNT;
	}
}

static void set_bit(uint64_t *set, int r)
{
	if (r >= 0)
		set[r / 64] |= 1ull << (r % 64);
}

static void clear_bit(uint64_t *set, int r)
{
	if (r >= 0)
		set[r / 64] &= ~(1ull << (r % 64));
}

/* Adds (or, with kill, removes) every register operand op names. */
static void operand_regs(const struct ptx_operand *op, uint64_t *set, bool kill)
{
	if (op->kind == PO_REG || (op->kind == PO_ADDR && !op->base_is_sym))
		kill ? clear_bit(set, op->reg) : set_bit(set, op->reg);
	if (op->kind != PO_REG)
		for (unsigned i = 0; i < op->nelems; i++)
			operand_regs(&op->elems[i], set, kill);
}

/* live := the registers live before in, given those live after it. */
static void step_back(struct dx_launch *L, unsigned pc, uint64_t *live)
{
	const struct ptx_instr *in = &L->fn->instrs[pc];
	bool def = writes_first(L->ops[pc]) && !in->guard && in->nops;
	if (def)
		operand_regs(&in->ops[0], live, true);
	for (unsigned i = def ? 1 : 0; i < in->nops; i++)
		operand_regs(&in->ops[i], live, false);
	if (in->guard)
		set_bit(live, in->guard_reg);
}

static void liveness(struct dx_launch *L, struct dx_merge *m)
{
	unsigned w = m->words = (L->fn->nregs + 63) / 64 + 1, n = m->nblk + 1;
	m->live = xcalloc((size_t)n * w, sizeof *m->live);
	m->named = xcalloc(w, sizeof *m->named);
	for (unsigned pc = 0; pc < L->fn->ninstrs; pc++) {
		const struct ptx_instr *in = &L->fn->instrs[pc];
		if (writes_first(L->ops[pc]) && in->nops)
			operand_regs(&in->ops[0], m->named, false);
	}
	uint64_t *cur = xcalloc(w, sizeof *cur);
	for (bool changed = true; changed;) {
		changed = false;
		for (unsigned b = m->nblk; b-- > 0;) {
			memset(cur, 0, w * sizeof *cur);
			for (int k = 0; k < 2; k++)
				if (m->succ[b][k] >= 0)
					for (unsigned i = 0; i < w; i++)
						cur[i] |= m->live[(size_t)m->succ[b][k] * w + i];
			for (unsigned pc = m->start[b + 1]; pc-- > m->start[b];)
				step_back(L, pc, cur);
			uint64_t *in = &m->live[(size_t)b * w];
			for (unsigned i = 0; i < w; i++)
				if (cur[i] & ~in[i]) {
					in[i] |= cur[i];
					changed = true;
				}
		}
	}
	free(cur);
}

/* Whether register r may be read after pc (the start of a block) before
 * it is written. */
static bool live_at(struct dx_launch *L, unsigned pc, size_t r)
{
	struct dx_merge *m = L->merge;
	if (!m->live)
		liveness(L, m);
	if (!(m->named[r / 64] >> (r % 64) & 1))
		return true;
	return m->live[(size_t)m->blk[pc] * m->words + r / 64] >> (r % 64) & 1;
}

/* ---- can a branch be merged? ---------------------------------------------------- */

static enum why blocking(enum dx_op op, const struct ptx_instr *in)
{
	switch (op) {
	case DO_BAR:
	case DO_BARRIER:
		return ptx_has_mod(in, "warp") ? W_WARP : W_BARRIER;
	case DO_SHFL:
	case DO_VOTE:
	case DO_ACTIVEMASK:
		return W_WARP;
	case DO_ATOM:
	case DO_RED:
		return W_ATOMIC;
	case DO_RET:
	case DO_EXIT:
		return W_EXIT;
	default:
		return W_OK;
	}
}

/* Walks the blocks the arms of block b's branch reach before its join,
 * asking f of each instruction: W_LOOP or W_NOJOIN when an arm comes back
 * to b or reaches the exit, else f's first answer other than W_OK (its
 * instruction in *wpc), or W_OK. */
typedef enum why (*instr_fn)(struct dx_launch *L, unsigned pc);

static enum why walk_arms(struct dx_launch *L, struct dx_merge *m, unsigned b, instr_fn f, unsigned *wpc)
{
	unsigned n = m->nblk + 1, sp = 0;
	bool *seen = xcalloc(n, sizeof *seen);
	unsigned *stk = xcalloc(n, sizeof *stk);
	enum why w = W_OK;
	seen[m->ipdom[b]] = true;
	for (int k = 0; k < 2; k++)
		if (m->succ[b][k] >= 0 && !seen[m->succ[b][k]]) {
			seen[m->succ[b][k]] = true;
			stk[sp++] = (unsigned)m->succ[b][k];
		}
	while (sp && w == W_OK) {
		unsigned x = stk[--sp];
		if (x == b || x == m->nblk) {
			w = x == b ? W_LOOP : W_NOJOIN;
			break;
		}
		for (unsigned i = m->start[x]; i < m->start[x + 1] && w == W_OK; i++)
			if ((w = f(L, i)) != W_OK)
				*wpc = i;
		for (int k = 0; k < 2; k++) {
			int s = m->succ[x][k];
			if (s >= 0 && !seen[s]) {
				seen[s] = true;
				stk[sp++] = (unsigned)s;
			}
		}
	}
	free(seen);
	free(stk);
	return w;
}

static enum why blocking_at(struct dx_launch *L, unsigned pc)
{
	return blocking((enum dx_op)L->ops[pc], &L->fn->instrs[pc]);
}

/* Why block b's branch (at pc) cannot be merged, W_OK if it can. */
static void classify(struct dx_launch *L, struct dx_merge *m, unsigned b, unsigned pc)
{
	int j = m->ipdom[b];
	int t = target_of(L->fn, &L->fn->instrs[pc]);
	unsigned wpc = pc;
	enum why w;
	if (t < 0)
		w = W_TARGET;
	else if ((unsigned)t <= pc)
		w = W_LOOP;
	else if (j < 0 || (unsigned)j == m->nblk)
		w = W_NOJOIN;
	else
		w = walk_arms(L, m, b, blocking_at, &wpc);
	m->why[b] = (unsigned char)w;
	m->why_pc[b] = wpc;
}

static int refuse(struct dx_launch *L, const struct ptx_instr *in, enum why w, unsigned wpc)
{
	static const char *const what[] = {
		[W_BARRIER] = "a barrier", [W_WARP] = "a warp operation", [W_ATOMIC] = "an atomic",
		[W_EXIT] = "an exit",
	};
	const struct ptx_instr *at = &L->fn->instrs[wpc];
	const char *src = dx_src(L, at);
	switch (w) {
	case W_LOOP:
		return dx_unsupported(L, in, "loop exit depends on data",
		                      "a loop whose exit depends on loaded data");
	case W_NOJOIN:
		return dx_unsupported(L, in, "data-dependent branch",
		                      "a branch on loaded data whose arms do not rejoin");
	case W_TARGET:
		return dx_unsupported(L, in, "indirect branch", "a branch without a label target");
	default:
		return dx_unsupported(L, in, "data-dependent branch",
		                      "a branch on loaded data whose arms reach %s (%s at PTX line %u%s%s) "
		                      "before they rejoin",
		                      what[w], dx_instr_name(L, at), at->line, src ? ", " : "", src ? src : "");
	}
}

static enum why crooked_at(struct dx_launch *L, unsigned pc)
{
	enum dx_op op = (enum dx_op)L->ops[pc];
	return op == DO_ST || (unsigned)op == DO_STL || op == DO_OTHER ? W_CROOKED : W_OK;
}

static enum why branch_at(struct dx_launch *L, unsigned pc)
{
	return (enum dx_op)L->ops[pc] == DO_BRA && L->fn->instrs[pc].guard ? W_CROOKED : W_OK;
}

/* What the arms of block b's branch (forward, rejoining, nothing
 * blocking: classify said W_OK) are, for a branch on threads: ARMS_NO
 * when they store (a store of the first arm would reach the second's
 * loads unguarded), ARMS_STRAIGHT when they have no guarded branch
 * either, ARMS_BRANCHY when they do (loops over constants, tests of
 * other thread conditions): those are merged only where both arms have
 * threads, and a branch in them that would split the bundle takes it
 * back to the outer branch (dx_thread_arm_undo). */
enum { ARMS_UNKNOWN, ARMS_NO, ARMS_STRAIGHT, ARMS_BRANCHY };

static unsigned char arms_kind(struct dx_launch *L, struct dx_merge *m, unsigned b)
{
	unsigned wpc;
	if (walk_arms(L, m, b, crooked_at, &wpc) != W_OK)
		return ARMS_NO;
	return walk_arms(L, m, b, branch_at, &wpc) == W_OK ? ARMS_STRAIGHT : ARMS_BRANCHY;
}

/* ---- running the arms ------------------------------------------------------------- */

const struct expr *dx_arm_cond(const struct dx_bundle *b)
{
	return b->arm ? b->arm->dcond : NULL;
}

static const struct expr **snapshot(struct dx_launch *L, const struct expr *const *regs)
{
	size_t n = L->fn->nregs ? L->fn->nregs : 1;
	const struct expr **s = ARENA_NEWN(&L->a, const struct expr *, n);
	memcpy(s, regs, L->fn->nregs * sizeof *s);
	return s;
}

static const struct expr *and_up(struct dx_launch *L, const struct dx_arm *up, const struct expr *c)
{
	return up ? e_and(L->cx, up->dcond, c) : c;
}

/* Why the branch bundle b is at cannot be merged, W_OK if it can; *blk
 * its block.  The control-flow graph is made at the launch's first ask. */
static enum why mergeable(struct dx_launch *L, const struct dx_bundle *b, unsigned *blk)
{
	if (!L->merge)
		L->merge = merge_new(L);
	struct dx_merge *m = L->merge;
	*blk = m->blk[b->pc];
	if (!m->why[*blk])
		classify(L, m, *blk, b->pc);
	return (enum why)m->why[*blk];
}

int dx_merge_branch(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                    const struct expr *g)
{
	unsigned blk, pc = b->pc;
	enum why w = mergeable(L, b, &blk);
	struct dx_merge *m = L->merge;
	if (w != W_OK)
		return refuse(L, in, w, m->why_pc[blk]);
	struct dx_arm *a = ARENA_NEW(&L->a, struct dx_arm);
	*a = (struct dx_arm){
		.up = b->arm, .join = m->start[m->ipdom[blk]], .other = (unsigned)target_of(L->fn, in),
		.cond = g, .dcond = and_up(L, b->arm, e_not(L->cx, g)), .saved = snapshot(L, b->regs),
		.second = false, .in = in,
	};
	b->arm = a;
	b->pc = pc + 1;                  /* the fall-through arm first */
	return 0;
}

int dx_merge_thread_branch(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                           const struct expr *g, bool both)
{
	unsigned blk, pc = b->pc;
	if (mergeable(L, b, &blk) != W_OK)
		return 0;
	struct dx_merge *m = L->merge;
	if (m->arms[blk] == ARMS_UNKNOWN)
		m->arms[blk] = arms_kind(L, m, blk);
	if (m->arms[blk] != ARMS_STRAIGHT && !(m->arms[blk] == ARMS_BRANCHY && both))
		return 0;
	const struct expr **regs = snapshot(L, b->regs);  /* never written: both may hold it */
	struct dx_arm *a = ARENA_NEW(&L->a, struct dx_arm);
	*a = (struct dx_arm){
		.up = b->arm, .tdom = b->dom, .regs0 = regs, .join = m->start[m->ipdom[blk]],
		.other = (unsigned)target_of(L->fn, in), .cond = g, .dcond = dx_arm_cond(b),
		.saved = regs, .second = false, .in = in,
	};
	b->arm = a;
	b->dom = dx_dom_and(L, a->tdom, e_not(L->cx, g));
	b->pc = pc + 1;                  /* the fall-through arm first */
	return 1;
}

bool dx_thread_arm_undo(struct dx_launch *L, struct dx_bundle *b)
{
	const struct dx_arm *a = b->arm;
	while (a && !a->tdom)
		a = a->up;                   /* (a thread arm has no data arm inside) */
	if (!a)
		return false;
	unsigned pc = (unsigned)(a->in - L->fn->instrs);
	memcpy(b->regs, a->regs0, L->fn->nregs * sizeof *b->regs);
	b->dom = a->tdom;
	b->pc = pc;
	b->arm = a->up;
	L->merge->arms[L->merge->blk[pc]] = ARMS_NO;
	return true;
}

/* Whether a register merged at a join on threads would select between
 * values over the threads themselves, not data: an index, a loop bound,
 * a pointer or a predicate that differs between the arms
 * (kd_start = in_d < 0 ? ... : 0) would put the select into addresses and
 * branch conditions, where the prover cannot follow it; the bundle is
 * better split.  Values of data (a sum the arm added to) merge. */
static bool index_like(const struct expr *e)
{
	return e && SORT_KIND(e->sort) != SK_REAL && !e_has_data(e);
}

/* The bundle reached the join of its innermost branch being merged: on
 * to the taken arm, or both arms done and merged. */
static int join(struct dx_launch *L, struct dx_bundle *b)
{
	const struct dx_arm *a = b->arm;
	size_t n = L->fn->nregs;
	if (!a->second) {
		struct dx_arm *t = ARENA_NEW(&L->a, struct dx_arm);
		*t = *a;
		t->second = true;
		if (a->tdom)
			b->dom = dx_dom_and(L, a->tdom, a->cond);
		else
			t->dcond = and_up(L, a->up, a->cond);
		t->saved = snapshot(L, b->regs);         /* what the fall-through arm left */
		memcpy(b->regs, a->saved, n * sizeof *b->regs);
		b->arm = t;
		b->pc = a->other;
		return 0;
	}
	if (a->tdom)
		for (size_t i = 0; i < n; i++) {
			const struct expr *f = a->saved[i], *t = b->regs[i];
			if (f != t && (index_like(f) || index_like(t)) && live_at(L, a->join, i)) {
				dx_thread_arm_undo(L, b);
				return 0;
			}
		}
	for (size_t i = 0; i < n; i++) {
		const struct expr *f = a->saved[i], *t = b->regs[i];
		if (f == t || !live_at(L, a->join, i))
			continue;                /* (dead: the taken arm's value stays) */
		if (!f)
			f = e_undef(L->cx, t->sort);
		else if (!t)
			t = e_undef(L->cx, f->sort);
		else if (f->sort != t->sort && !(f = dx_coerce(L, a->in, f, t->sort)))
			return -1;
		b->regs[i] = e_ite(L->cx, a->cond, t, f);
	}
	if (a->tdom)
		b->dom = a->tdom;
	b->arm = a->up;
	return 0;
}

int dx_merge_join(struct dx_launch *L, struct dx_bundle *b)
{
	while (b->arm && b->pc == b->arm->join)
		if (join(L, b) < 0)
			return -1;
	return 0;
}
