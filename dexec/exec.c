/*
 * exec.c: executes one launch (paper 3.3.1-3.3.2).  A worklist of bundles,
 * each run to its end; a branch on a predicate over tid/ctaid splits the
 * bundle into the halves the solver finds non-empty; a branch on data
 * runs both arms and merges them where they rejoin (merge.c).  Predicated
 * non-branch instructions merge their results with ite.  Steps, bundles
 * and time are budgeted; conditions are decided without the solver where
 * evaluation or linear reasoning settles them (quick.c), and answers are
 * memoised per condition (hash-consing makes equal conditions one
 * pointer).
 *
 * A bundle that reaches a barrier or a warp primitive waits; when no
 * bundle can run, the waiting ones are released: a group at one warp
 * instruction first (warp.c), else the block barrier (shared.c).
 */
#include "dexec.h"
#include "libcommon/diag.h"

#include <string.h>

/* ---- solver memo ------------------------------------------------------------ */

struct memo_ent {
	const struct expr *cond;
	enum smt_result r;
	uint32_t tid[3], ctaid[3];
};

struct dx_memo {
	struct memo_ent *tab;
	size_t cap, len;
};

static struct memo_ent *memo_slot(struct dx_memo *m, const struct expr *cond)
{
	size_t i = (size_t)cond->hash & (m->cap - 1);
	while (m->tab[i].cond && m->tab[i].cond != cond)
		i = (i + 1) & (m->cap - 1);
	return &m->tab[i];
}

static void memo_grow(struct dx_memo *m)
{
	struct dx_memo n = { xcalloc(m->cap ? 2 * m->cap : 64, sizeof *n.tab), m->cap ? 2 * m->cap : 64, m->len };
	for (size_t i = 0; i < m->cap; i++)
		if (m->tab[i].cond)
			*memo_slot(&n, m->tab[i].cond) = m->tab[i];
	free(m->tab);
	*m = n;
}

enum smt_result dx_sat(struct dx_launch *L, const struct expr *cond,
                       uint32_t tid[3], uint32_t ctaid[3])
{
	uint32_t zero[3] = { 0, 0, 0 };
	if (e_is_false(cond))
		return SMT_UNSAT;
	if (e_is_true(cond) && !tid)
		return SMT_SAT;
	struct dx_memo *m = L->memo;
	if (2 * (m->len + 1) > m->cap)
		memo_grow(m);
	struct memo_ent *e = memo_slot(m, cond);
	if (!e->cond) {
		if (dx_out_of_time(L))
			return SMT_UNKNOWN;
		int q;
		if (e_is_true(cond)) {
			e->r = SMT_SAT;
		} else if ((q = dx_quick_sat(L, cond, e->tid, e->ctaid)) >= 0) {
			e->r = (enum smt_result)q;
			L->quick++;
		} else {
			L->solver++;
			e->r = smt_thread_sat(L->smt, &L->geom, cond, e->tid, e->ctaid);
			if (e->r == SMT_TIMEOUT) {
				/* not an answer: not kept; callers see "unknown" and stop */
				dx_timeout(L);
				return SMT_UNKNOWN;
			}
			if (e->r == SMT_UNKNOWN)
				note("kernel '%s': the solver gave up on a condition (resource limit)", L->l->kernel);
		}
		e->cond = cond;
		m->len++;
	}
	if (tid)
		memcpy(tid, e->r == SMT_SAT ? e->tid : zero, sizeof e->tid);
	if (ctaid)
		memcpy(ctaid, e->r == SMT_SAT ? e->ctaid : zero, sizeof e->ctaid);
	return e->r;
}

/* ---- opcodes ----------------------------------------------------------------- */

enum dx_op dx_decode(const char *opcode)
{
	static const struct { const char *name; enum dx_op op; } tab[] = {
		{ "mov", DO_MOV }, { "ld", DO_LD }, { "ldu", DO_LDU }, { "st", DO_ST },
		{ "cvta", DO_CVTA }, { "cvt", DO_CVT }, { "add", DO_ADD }, { "sub", DO_SUB },
		{ "mul", DO_MUL }, { "mad", DO_MAD }, { "fma", DO_FMA }, { "div", DO_DIV },
		{ "rem", DO_REM }, { "shl", DO_SHL }, { "shr", DO_SHR }, { "and", DO_AND },
		{ "or", DO_OR }, { "xor", DO_XOR }, { "not", DO_NOT }, { "cnot", DO_CNOT },
		{ "min", DO_MIN }, { "max", DO_MAX }, { "neg", DO_NEG }, { "abs", DO_ABS },
		{ "selp", DO_SELP }, { "setp", DO_SETP }, { "set", DO_SET }, { "rcp", DO_RCP },
		{ "sqrt", DO_SQRT }, { "rsqrt", DO_RSQRT }, { "ex2", DO_EX2 }, { "lg2", DO_LG2 },
		{ "tanh", DO_TANH }, { "sin", DO_SIN }, { "cos", DO_COS },
		{ "copysign", DO_COPYSIGN }, { "popc", DO_POPC }, { "clz", DO_CLZ },
		{ "brev", DO_BREV }, { "bra", DO_BRA }, { "ret", DO_RET }, { "exit", DO_EXIT },
		{ "bar", DO_BAR }, { "barrier", DO_BARRIER }, { "shfl", DO_SHFL }, { "vote", DO_VOTE },
		{ "activemask", DO_ACTIVEMASK }, { "atom", DO_ATOM }, { "red", DO_RED },
		{ DX_OP_RED, DO_RED },
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (strcmp(tab[i].name, opcode) == 0)
			return tab[i].op;
	return (enum dx_op)dx_decode_ext(opcode);   /* instr.c: pseudo and rare ops */
}

/* ---- bundles ------------------------------------------------------------------ */

static struct dx_bundle *bundle_new(struct dx_launch *L, const struct dx_bundle *from)
{
	if (L->nbundles >= L->opts->max_bundles) {
		dx_unsupported(L, NULL, "bundle budget",
		               "more than %u logical threads (bundle budget); raise it or simplify the launch",
		               L->opts->max_bundles);
		return NULL;
	}
	L->nbundles++;
	struct dx_bundle *b = xcalloc(1, sizeof *b);
	size_t n = L->fn->nregs ? L->fn->nregs : 1;
	b->regs = xcalloc(n, sizeof *b->regs);
	if (from) {
		memcpy(b->regs, from->regs, L->fn->nregs * sizeof *b->regs);
		b->dom = from->dom;
		b->pc = from->pc;
		b->stores = from->stores;
		b->seq = from->seq;
		b->epoch = from->epoch;
		b->sub = from->sub;
		b->shstores = from->shstores;
		b->arm = from->arm;
	} else {
		b->dom = e_bool(L->cx, true);
	}
	return b;
}

static void bundle_free(struct dx_bundle *b)
{
	if (b) {
		free(b->regs);
		free(b);
	}
}

/* The value of the instruction's guard (NULL if none). */
static const struct expr *guard_of(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in)
{
	if (!in->guard)
		return NULL;
	struct ptx_operand g = { .kind = PO_REG, .name = in->guard, .reg = in->guard_reg };
	const struct expr *v = dx_get(L, b, in, &g, SORT_BOOL);
	if (v && in->guard_neg)
		v = e_not(L->cx, v);
	return v;
}

enum { STEP_NEXT, STEP_END, STEP_STOP, STEP_WAIT };

/* Is instruction op at in a block barrier (not a warp one)? */
static bool is_block_barrier(const struct ptx_instr *in, enum dx_op op)
{
	return (op == DO_BAR || op == DO_BARRIER) && !ptx_has_mod(in, "warp");
}

static int branch(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                  const struct expr *g)
{
	unsigned target;
	const struct ptx_operand *op = in->nops ? &in->ops[0] : NULL;
	if (!op || op->kind != PO_LABEL || op->imm < 0 || (uint64_t)op->imm > L->fn->ninstrs) {
		int t = op && op->name ? ptx_label_target(L->fn, op->name) : -1;
		if (t < 0) {
			dx_unsupported(L, in, "indirect branch", "a branch without a label target");
			return STEP_STOP;
		}
		target = (unsigned)t;
	} else {
		target = (unsigned)op->imm;
	}
	if (g && !e_has_data(g) && e_has_thread(g))
		g = dx_fold(L, g);
	if (!g || e_is_true(g)) {
		b->pc = target;
		return STEP_NEXT;
	}
	if (e_is_false(g)) {
		b->pc++;
		return STEP_NEXT;
	}
	if (e_has_undef(g)) {
		if (dx_undef_sink(L, in, b->dom, g, "branches on") == 0)
			dx_unsupported(L, in, "undefined branch", "a branch on an undefined value");
		else
			dx_unsupported(L, in, "undefined branch", "a branch on a shuffled undefined value");
		return STEP_STOP;
	}
	if (e_has_opaque(g)) {
		dx_unsupported(L, in, "opaque branch", "a branch on %s", dx_opaque_name(L, g));
		return STEP_STOP;
	}
	if (e_has_data(g)) {
		if (dx_thread_arm_undo(L, b))
			return STEP_NEXT;            /* split at the branch on threads instead */
		return dx_merge_branch(L, b, in, g) < 0 ? STEP_STOP : STEP_NEXT;
	}
	if (dx_merge_thread_branch(L, b, in, g, false))
		return STEP_NEXT;
	const struct expr *taken = dx_dom_and(L, b->dom, g);
	const struct expr *fall = dx_dom_and(L, b->dom, e_not(L->cx, g));
	bool st = dx_sat(L, taken, NULL, NULL) != SMT_UNSAT;
	bool sf = dx_sat(L, fall, NULL, NULL) != SMT_UNSAT;
	if (L->timeout)
		return STEP_STOP;
	if (st && sf) {
		if (dx_merge_thread_branch(L, b, in, g, true) || dx_thread_arm_undo(L, b))
			return STEP_NEXT;        /* merged, or split at the outer branch instead */
		struct dx_bundle *nb = bundle_new(L, b);
		if (!nb)
			return STEP_STOP;
		nb->dom = fall;
		nb->pc = b->pc + 1;
		VEC_PUSH(L->work, nb);
		b->dom = taken;
		b->pc = target;
	} else if (st) {
		b->pc = target;
	} else if (sf) {
		b->pc++;
	} else {
		return STEP_END;     /* no thread left (cannot happen for a live bundle) */
	}
	return STEP_NEXT;
}

/* An access whose address register holds a select between two addresses
 * on a condition over tid/ctaid only (nvcc compiles `k < n ? x[i] : y[j]`
 * to a selp of the two pointers and one load): the bundle splits on the
 * condition as on a branch, each half with the register set to its own
 * arm, and the access runs again in each half.  Addresses stay exact: in
 * a half, the select equals that arm for every thread.  Returns 1 when
 * the bundle changed (step it again), 0 when there is nothing to split,
 * -1 to stop. */
static int split_address(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in)
{
	for (unsigned i = 0; i < in->nops; i++) {
		const struct ptx_operand *op = &in->ops[i];
		if (op->kind != PO_ADDR || op->base_is_sym || op->reg < 0 || (unsigned)op->reg >= L->fn->nregs)
			continue;
		const struct expr *v = b->regs[op->reg];
		if (!v || v->op != EOP_ITE)
			return 0;
		const struct expr *c = v->args[0];
		if (e_has_data(c) || e_has_opaque(c) || e_has_undef(c))
			return 0;    /* not a set of threads: resolve() says why */
		if (dx_thread_arm_undo(L, b))
			return 1;                    /* split at the branch instead */
		const struct expr *taken = e_and(L->cx, b->dom, c);
		const struct expr *fall = e_and(L->cx, b->dom, e_not(L->cx, c));
		enum smt_result rt = dx_sat(L, taken, NULL, NULL), rf = dx_sat(L, fall, NULL, NULL);
		if (L->timeout)
			return -1;
		bool st = rt != SMT_UNSAT, sf = rf != SMT_UNSAT;
		if (st && sf) {
			struct dx_bundle *nb = bundle_new(L, b);
			if (!nb)
				return -1;
			nb->dom = fall;
			nb->regs[op->reg] = v->args[2];
			VEC_PUSH(L->work, nb);
			b->dom = taken;
			b->regs[op->reg] = v->args[1];
		} else if (st) {
			b->regs[op->reg] = v->args[1];
		} else if (sf) {
			b->regs[op->reg] = v->args[2];
		} else {
			return 0;    /* no thread left (cannot happen for a live bundle) */
		}
		return 1;
	}
	return 0;
}

/* Executes instruction in under guard g by running it unguarded and
 * merging every register it changed with its old value. */
static int guarded(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                   enum dx_op op, const struct expr *g)
{
	size_t n = L->fn->nregs;
	memcpy(L->scratch, b->regs, n * sizeof *b->regs);
	int r;
	if (op == DO_LD || op == DO_LDU)
		r = dx_load(L, b, in, g);
	else
		r = dx_alu(L, b, in, op);
	if (r < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (b->regs[i] == L->scratch[i])
			continue;
		const struct expr *old = L->scratch[i];
		const struct expr *nw = b->regs[i];
		if (!old)
			old = e_undef(L->cx, nw->sort);
		else if (old->sort != nw->sort && !(old = dx_coerce(L, in, old, nw->sort)))
			return -1;
		b->regs[i] = e_ite(L->cx, g, nw, old);
	}
	return 0;
}

/* g and the data condition of the arm the bundle runs (merge.c). */
static const struct expr *with_arm(struct dx_launch *L, const struct dx_bundle *b, const struct expr *g)
{
	const struct expr *c = dx_arm_cond(b);
	return !c ? g : g ? e_and(L->cx, g, c) : c;
}

static int step(struct dx_launch *L, struct dx_bundle *b)
{
	if (b->arm && dx_merge_join(L, b) < 0)
		return STEP_STOP;
	if (b->pc >= L->fn->ninstrs)
		return STEP_END;
	const struct ptx_instr *in = &L->fn->instrs[b->pc];
	enum dx_op op = (enum dx_op)L->ops[b->pc];
	L->cur = in;
	if (dx_out_of_time(L))
		return STEP_STOP;
	if (++L->steps > L->opts->budget_steps) {
		dx_unsupported(L, in, "step budget",
		               "the step budget of %llu instruction steps ran out",
		               (unsigned long long)L->opts->budget_steps);
		return STEP_STOP;
	}
	const struct expr *g = guard_of(L, b, in);
	if (in->guard && !g)
		return STEP_STOP;
	if (op == DO_BRA)
		return branch(L, b, in, g);
	if (g && e_is_false(g)) {
		b->pc++;
		return STEP_NEXT;
	}
	if (g && e_is_true(g))
		g = NULL;
	if (g && e_has_undef(g)) {
		dx_unsupported(L, in, "undefined predicate", "an instruction predicated on an undefined value");
		return STEP_STOP;
	}
	int r;
	if (op == DO_LD || op == DO_LDU || op == DO_ST || op == DO_ATOM || op == DO_RED) {
		if ((r = split_address(L, b, in)) < 0)
			return STEP_STOP;
		if (r > 0)
			return STEP_NEXT;     /* the same instruction, on the narrowed bundle */
	}
	switch (op) {
	case DO_RET:
	case DO_EXIT:
		if (g) {
			dx_unsupported(L, in, "predicated exit", "a predicated %s", in->opcode);
			return STEP_STOP;
		}
		return STEP_END;
	case DO_BAR:
	case DO_BARRIER:
	case DO_SHFL:
	case DO_VOTE:
	case DO_ACTIVEMASK:
		if (g) {
			dx_unsupported(L, in, "predicated warp instruction", "a predicated %s",
			               dx_instr_name(L, in));
			return STEP_STOP;
		}
		if (is_block_barrier(in, op) && dx_barrier_check(L, in) < 0)
			return STEP_STOP;
		return STEP_WAIT;      /* the bundle waits for the others (released in run_all) */
	case DO_ST:
		r = dx_store(L, b, in, with_arm(L, b, g));
		break;
	case DO_ATOM:
	case DO_RED:
		r = dx_atomic(L, b, in, g);
		break;
	case DO_LD:
	case DO_LDU:
		r = g ? guarded(L, b, in, op, g) : dx_load(L, b, in, NULL);
		break;
	default:
		r = g ? guarded(L, b, in, op, g) : dx_alu(L, b, in, op);
		break;
	}
	if (r < 0)
		return STEP_STOP;
	b->pc++;
	return STEP_NEXT;
}

/* Decodes every opcode of the kernel once. */
static void decode_all(struct dx_launch *L)
{
	unsigned char *ops = arena_alloc(&L->a, L->fn->ninstrs + 1);
	for (unsigned i = 0; i < L->fn->ninstrs; i++) {
		ops[i] = (unsigned char)dx_decode(L->fn->instrs[i].opcode);
		if (ops[i] == DO_FENCE && !L->fence)
			L->fence = &L->fn->instrs[i];
	}
	L->ops = ops;
}

/* Runs the bundles until none is left: each runs until it ends or waits;
 * when none can run, a group of waiting ones is released. */
static void run_all(struct dx_launch *L)
{
	while (!L->unsup && !L->timeout) {
		L->phase = "executing";
		if (L->work.len) {
			struct dx_bundle *b = L->work.items[--L->work.len];
			int r;
			while ((r = step(L, b)) == STEP_NEXT)
				;
			if (r == STEP_WAIT) {
				VEC_PUSH(L->waiting, b);
				continue;
			}
			/* Threads that exit before their first barrier (the early
			 * 'if (i >= n) return;') count as arrived at every later
			 * one, as on the hardware; exiting after a barrier that
			 * others go on from is divergence (shared.c). */
			if (r == STEP_END && b->epoch > 0)
				VEC_PUSH(L->exited, ((struct dx_exited){ b->dom, NULL }));
			bundle_free(b);
			continue;
		}
		if (!L->waiting.len)
			break;
		int wpc = -1;
		for (size_t i = 0; i < L->waiting.len && wpc < 0; i++) {
			unsigned pc = L->waiting.items[i]->pc;
			if (!is_block_barrier(&L->fn->instrs[pc], (enum dx_op)L->ops[pc]))
				wpc = (int)pc;
		}
		L->cur = &L->fn->instrs[wpc >= 0 ? (unsigned)wpc : L->waiting.items[0]->pc];
		L->phase = wpc >= 0 ? "resolving the warp instruction" :
		           "checking the barrier epoch (races, divergence) of";
		if ((wpc >= 0 ? dx_warp_release(L, (unsigned)wpc) : dx_barrier_release(L)) < 0)
			break;
	}
}

void dx_launch_run(struct dx_launch *L, const struct obligation *o, uint32_t id,
                   const struct ptx_module *mod, const struct ptx_func *fn,
                   const struct dx_opts *opts, struct smt *smt)
{
	memset(L, 0, sizeof *L);
	arena_init(&L->a);
	L->o = o;
	L->l = &o->launches.items[id];
	L->id = id;
	L->mod = mod;
	L->fn = fn;
	L->opts = opts;
	L->smt = smt;
	deadline_check_init(&L->dl, opts->deadline, 256);
	L->phase = "preparing the kernel";
	L->fn = fn = dx_prepare(L, fn);   /* prepare.c: calls inlined, locals, rollup */
	if (!L->unsup)
		dx_atomic_prepare(L, (struct dx_func *)fn);   /* atomic.c: compare-and-swap loops */
	for (int d = 0; d < 3; d++) {
		L->geom.ntid[d] = (uint32_t)L->l->block[d];
		L->geom.nctaid[d] = (uint32_t)L->l->grid[d];
	}
	L->cx = ectx_new();
	dx_opaque_init(L);                /* opaque.c: which loads hold host floats */
	L->memo = xcalloc(1, sizeof *L->memo);
	L->scratch = xcalloc(fn->nregs ? fn->nregs : 1, sizeof *L->scratch);
	decode_all(L);

	if (dx_shared_init(L) < 0)
		return;
	struct dx_bundle *b = bundle_new(L, NULL);
	if (b)
		VEC_PUSH(L->work, b);
	run_all(L);
	L->cur = NULL;
	L->phase = "checking the last barrier epoch for races";
	if (!L->unsup && !L->timeout)
		dx_shared_finish(L);
	L->phase = "checking the atomic updates";
	if (!L->unsup && !L->timeout)
		dx_atomic_finish(L);
	if (!L->unsup)
		dx_gread_finish(L);
	while (L->work.len)
		bundle_free(L->work.items[--L->work.len]);
	while (L->waiting.len)
		bundle_free(L->waiting.items[--L->waiting.len]);
}

void dx_launch_release(struct dx_launch *L)
{
	while (L->work.len)
		bundle_free(L->work.items[--L->work.len]);
	while (L->waiting.len)
		bundle_free(L->waiting.items[--L->waiting.len]);
	VEC_FREE(L->work);
	VEC_FREE(L->waiting);
	VEC_FREE(L->exited);
	VEC_FREE(L->atom_vins);
	VEC_FREE(L->gacc);
	VEC_FREE(L->opaques);
	VEC_FREE(L->opaque_ins);
	dx_shared_free(L->sh);
	dx_ents_memo_free(L->ents);
	dx_race_seen_free(L->rseen);
	dx_merge_free(L->merge);
	dx_gread_free(L->gr);
	VEC_FREE(L->writes);
	VEC_FREE(L->findings);
	if (L->memo) {
		free(L->memo->tab);
		free(L->memo);
	}
	free(L->scratch);
	ectx_free(L->cx);
	arena_release(&L->a);
	memset(L, 0, sizeof *L);
}
