/*
 * rollup.c: transcendental rollup (paper 4.1).  Before execution, each
 * occurrence of one of nvcc's idioms (idioms.c) in the function is
 * replaced by one pseudo-instruction `dirigo.fun %o, EF, %x` computing the
 * mathematical function, and the idiom's other instructions by nops, so
 * that the bit tricks and data-dependent branches inside never run.
 *
 * Matching is by data flow, not by instruction order.  Each template
 * instruction is matched (opcode, modifiers but .ftz, every operand, up to
 * the order of the operands of a float add/mul/fma) to a program
 * instruction that reads the program register bound to one of its inputs;
 * template registers bind one-to-one to program registers, and a template
 * constant matches an equal immediate or a register whose only definition
 * is a mov of that constant.  The program may place the instructions in
 * any order that keeps the idiom's data flow: within one of the
 * template's basic blocks, two instructions that touch one register, one
 * of them writing it, keep their order; the blocks keep theirs, split by
 * the template's branches and labels, which must map to program branches
 * and targets.  So an idiom interleaved with other code, or unrolled
 * (four copies side by side in a float4 loop), is found; and the join of
 * an idiom's internal branch (the two ranges of erff) may be reached
 * through unconditional branches (where it is also the join of an
 * enclosing branch on data).
 *
 * A match counts only if, over the window from its first instruction to
 * its last: the other instructions neither write a register the idiom
 * binds nor read one but its inputs, are no branches, and none depends on
 * one of the idiom's branches (when those become nops everything left in
 * the window runs unconditionally) unless it is a constant mov; no branch
 * from outside lands inside; every register the idiom computes besides its
 * result is read by the idiom alone (so that removing it changes nothing
 * else); for expf, whose result is the product of %o and the scale %s,
 * every reader of either multiplies the two, after the idiom (then %o
 * becomes exp(x) and %s becomes 1).  The pseudo-instruction takes the
 * window's last place.  What does not match stays as it is, and its bit
 * reinterpretations make the launch unsupported: never wrong math.
 */
#include "dexec.h"

#include <string.h>

extern const char dx_idiom_ptx[];

struct idiom {
	const char *name;            /* the .func in idioms.c */
	enum efun fn;
	bool neg;                    /* fn(-x) */
	const char *x, *y, *o, *s;   /* input(s), result, scale (NULL: none) */
};

static const struct idiom idioms[] = {
	{ "exp", EF_EXP, false, "%x", NULL, "%o", "%s" },
	{ "tanh", EF_TANH, false, "%x", NULL, "%o", NULL },
	{ "log", EF_LOG, false, "%x", NULL, "%o", NULL },
	{ "erf", EF_ERF, false, "%x", NULL, "%o", NULL },
	{ "log1p", EF_LOG1P, false, "%x", NULL, "%o", NULL },
	{ "exp_fast", EF_EXP, false, "%x", NULL, "%o", NULL },
	{ "exp_fast_neg", EF_EXP, true, "%x", NULL, "%o", NULL },
	{ "log_fast", EF_LOG, false, "%x", NULL, "%o", NULL },
	{ "pow_fast", EF_POW, false, "%x", "%y", "%o", NULL },
};
#define NIDIOMS (sizeof idioms / sizeof idioms[0])
#define MAX_STEPS 4096               /* search steps per starting instruction */

/* What the function does with each register. */
struct use {
	unsigned *ndefs, *nreads;
	int *cdef;                   /* the instruction of a constant's only def, or -1 */
	unsigned *rofs, *rlist, *nr; /* the nr[r] readers of register r from rlist[rofs[r]] */
	unsigned *last;              /* scratch: the last reader listed */
};

struct tmpl {
	const struct idiom *id;
	const struct ptx_func *t;
	int x, y, o, s;              /* template register indices, -1 if none */
	unsigned *blk;               /* instruction -> basic block of the template */
	bool *order;                 /* [i * n + j], i < j: j must follow i in the program */
	bool *branch;                /* instruction is a bra */
};

struct lab { unsigned t, p, at; };   /* template target, program target, program branch */

struct match {
	const struct ptx_func *f;    /* the program */
	const struct tmpl *T;
	const struct use *u;
	int *tb, *pb;                /* template reg -> program reg + 1, and back */
	int *trail; unsigned ntrail;
	unsigned *pos;               /* template instr -> program instr */
	struct lab *lab; unsigned nlab;
	bool *matched, *kill, *done; /* per program instruction */
	unsigned *cnt;               /* per program register, scratch */
	unsigned lo, hi;             /* the window: first and last matched instruction */
	unsigned steps;
};

/* ---- reads and writes ------------------------------------------------------ */

static bool no_dest(const char *op)
{
	static const char *const tab[] = { "st", "bra", "ret", "exit", "bar", "barrier", "membar", "fence",
	                                   "red", "prefetch", "trap", "call", DX_OP_STL, DX_OP_NOP, NULL };
	for (unsigned i = 0; tab[i]; i++)
		if (!strcmp(op, tab[i]))
			return true;
	return false;
}

typedef void (*reg_fn)(void *user, int reg, bool write);

static void op_regs(const struct ptx_operand *o, bool write, reg_fn fn, void *user)
{
	if ((o->kind == PO_REG || (o->kind == PO_ADDR && !o->base_is_sym && o->name)) && o->reg >= 0)
		fn(user, o->reg, write && o->kind == PO_REG);
	for (unsigned i = 0; i < o->nelems; i++)
		op_regs(&o->elems[i], write && o->kind != PO_ADDR, fn, user);
}

/* Calls fn for every register in reads and writes of in. */
static void instr_regs(const struct ptx_instr *in, reg_fn fn, void *user)
{
	if (in->guard && in->guard_reg >= 0)
		fn(user, in->guard_reg, false);
	bool d = !no_dest(in->opcode);
	for (unsigned i = 0; i < in->nops; i++)
		op_regs(&in->ops[i], d && i == 0, fn, user);
}

static void count(void *user, int reg, bool write)
{
	struct use *u = user;
	if (write)
		u->ndefs[reg]++;
	else
		u->nreads[reg]++;
}

/* Lists the distinct readers of each register. */
struct fill { struct use *u; unsigned at; };

static void fill_reader(void *user, int reg, bool write)
{
	struct fill *c = user;
	struct use *u = c->u;
	if (write || u->last[reg] == c->at)
		return;                  /* read twice by one instruction: one reader */
	u->last[reg] = c->at;
	u->rlist[u->rofs[reg] + u->nr[reg]++] = c->at;
}

static bool is_const_mov(const struct ptx_instr *in)
{
	return !strcmp(in->opcode, "mov") && !in->guard && in->nops == 2 && in->ops[0].kind == PO_REG &&
	       in->ops[0].reg >= 0 && (in->ops[1].kind == PO_IMM || in->ops[1].kind == PO_FIMM);
}

static bool is_nop(const struct ptx_instr *in)
{
	return !strcmp(in->opcode, DX_OP_NOP);
}

static void analyse(const struct ptx_func *f, struct use *u)
{
	memset(u->ndefs, 0, f->nregs * sizeof *u->ndefs);
	memset(u->nreads, 0, f->nregs * sizeof *u->nreads);
	for (unsigned i = 0; i < f->ninstrs; i++)
		instr_regs(&f->instrs[i], count, u);
	/* readers: room for every read, then the distinct ones listed */
	for (unsigned r = 0; r < f->nregs; r++) {
		u->cdef[r] = -1;
		u->rofs[r + 1] = u->rofs[r] + u->nreads[r];
		u->nr[r] = 0;
		u->last[r] = UINT32_MAX;
	}
	struct fill c = { u, 0 };
	for (unsigned i = 0; u->rlist && i < f->ninstrs; i++) {
		c.at = i;
		instr_regs(&f->instrs[i], fill_reader, &c);
	}
	for (unsigned i = 0; i < f->ninstrs; i++) {
		const struct ptx_instr *in = &f->instrs[i];
		if (is_const_mov(in) && u->ndefs[in->ops[0].reg] == 1)
			u->cdef[in->ops[0].reg] = (int)i;
	}
}

/* ---- matching one instruction ------------------------------------------------ */

static bool tbind(struct match *M, int t, int p)
{
	if (t < 0 || p < 0)
		return false;
	if (M->tb[t])
		return M->tb[t] == p + 1;
	if (M->pb[p])
		return false;
	M->tb[t] = p + 1;
	M->pb[p] = t + 1;
	M->trail[M->ntrail++] = t;
	return true;
}

static void unbind_to(struct match *M, unsigned mark)
{
	while (M->ntrail > mark) {
		int t = M->trail[--M->ntrail];
		M->pb[M->tb[t] - 1] = 0;
		M->tb[t] = 0;
	}
}

/* The constant value of program operand o, if it has one. */
static bool const_of(const struct match *M, const struct ptx_operand *o, uint64_t *v)
{
	if (o->kind == PO_REG && o->reg >= 0 && M->u->cdef[o->reg] >= 0)
		o = &M->f->instrs[M->u->cdef[o->reg]].ops[1];
	if (o->kind == PO_IMM) {
		*v = (uint64_t)o->imm;
		return true;
	}
	if (o->kind == PO_FIMM) {
		*v = o->bits;
		return true;
	}
	return false;
}

static bool match_op(struct match *M, const struct ptx_operand *t, const struct ptx_operand *p)
{
	uint64_t v;
	switch (t->kind) {
	case PO_REG:
		return p->kind == PO_REG && t->neg == p->neg && tbind(M, t->reg, p->reg);
	case PO_IMM:
		return const_of(M, p, &v) && (uint32_t)v == (uint32_t)t->imm && (v >> 32 == 0 || v == (uint64_t)t->imm);
	case PO_FIMM:
		return const_of(M, p, &v) && v == t->bits;
	case PO_SINK:
		return p->kind == PO_SINK;
	case PO_LABEL:
		if (p->kind != PO_LABEL || p->imm < 0)
			return false;
		M->lab[M->nlab].t = (unsigned)t->imm;
		M->lab[M->nlab].p = (unsigned)p->imm;
		M->nlab++;
		return true;
	case PO_PAIR:
	case PO_VEC:
		if (p->kind != t->kind || p->nelems != t->nelems)
			return false;
		for (unsigned i = 0; i < t->nelems; i++)
			if (!match_op(M, &t->elems[i], &p->elems[i]))
				return false;
		return true;
	default:
		return false;
	}
}

static bool same_mods(const struct ptx_instr *t, const struct ptx_instr *p)
{
	unsigned i = 0, j = 0;
	for (;;) {
		while (i < t->nmods && !strcmp(t->mods[i], "ftz"))
			i++;
		while (j < p->nmods && !strcmp(p->mods[j], "ftz"))
			j++;
		if (i == t->nmods || j == p->nmods)
			return i == t->nmods && j == p->nmods;
		if (strcmp(t->mods[i++], p->mods[j++]))
			return false;
	}
}

static bool commutes(const struct ptx_instr *t)
{
	return ptx_type_is_float(t->type) &&
	       (!strcmp(t->opcode, "add") || !strcmp(t->opcode, "mul") || !strcmp(t->opcode, "fma"));
}

static bool match_ops(struct match *M, const struct ptx_instr *t, const struct ptx_instr *p, bool swap)
{
	for (unsigned k = 0; k < t->nops; k++) {
		unsigned pk = swap && (k == 1 || k == 2) ? 3 - k : k;
		if (!match_op(M, &t->ops[k], &p->ops[pk]))
			return false;
	}
	return true;
}

/* Matches t to p under the bindings so far, adding bindings (undone on
 * failure). */
static bool match_instr(struct match *M, const struct ptx_instr *t, const struct ptx_instr *p)
{
	if (strcmp(t->opcode, p->opcode) || !same_mods(t, p) || t->nops != p->nops ||
	    !t->guard != !p->guard || t->guard_neg != p->guard_neg)
		return false;
	unsigned mark = M->ntrail, nlab = M->nlab;
	if (t->guard && !tbind(M, t->guard_reg, p->guard_reg))
		return false;
	unsigned mark2 = M->ntrail;
	if (match_ops(M, t, p, false))
		return true;
	unbind_to(M, mark2);
	M->nlab = nlab;
	if (commutes(t) && t->nops >= 3 && match_ops(M, t, p, true))
		return true;
	unbind_to(M, mark);
	M->nlab = nlab;
	return false;
}

/* ---- the search ----------------------------------------------------------------- */

struct anchor { const struct match *M; int best; unsigned n; };

static void pick_anchor(void *user, int reg, bool write)
{
	struct anchor *a = user;
	const struct match *M = a->M;
	if (write || !M->tb[reg])
		return;
	int p = M->tb[reg] - 1;
	unsigned n = M->u->nr[p];
	if (a->best < 0 || n < a->n) {
		a->best = p;
		a->n = n;
	}
}

/* How far from the first matched instruction the others may be. */
static unsigned reach(const struct tmpl *T)
{
	return 4 * T->t->ninstrs + 48;
}

/* May template instruction j be program instruction p, given the places
 * of 0..j-1? */
static bool placeable(const struct match *M, unsigned j, unsigned p)
{
	const struct tmpl *T = M->T;
	unsigned n = T->t->ninstrs;
	if (M->matched[p] || M->done[p] || strcmp(T->t->instrs[j].opcode, M->f->instrs[p].opcode))
		return false;
	unsigned d = p > M->pos[0] ? p - M->pos[0] : M->pos[0] - p;
	if (d > reach(T))
		return false;
	for (unsigned k = 0; k < j; k++)
		if ((T->blk[k] < T->blk[j] || T->order[k * n + j]) && M->pos[k] >= p)
			return false;
	return true;
}

static bool finish(struct match *M);

static bool search(struct match *M, unsigned j)
{
	const struct ptx_func *t = M->T->t;
	if (j == t->ninstrs)
		return finish(M);
	if (++M->steps > MAX_STEPS)
		return false;
	const struct ptx_instr *ti = &t->instrs[j];
	struct anchor a = { M, -1, 0 };
	instr_regs(ti, pick_anchor, &a);
	if (a.best < 0)
		return false;
	const struct use *u = M->u;
	for (unsigned k = u->rofs[a.best]; k < u->rofs[a.best] + u->nr[a.best]; k++) {
		unsigned p = u->rlist[k];
		if (!placeable(M, j, p))
			continue;
		unsigned mark = M->ntrail, nlab = M->nlab;
		if (!match_instr(M, ti, &M->f->instrs[p]))
			continue;
		for (unsigned l = nlab; l < M->nlab; l++)
			M->lab[l].at = p;
		M->pos[j] = p;
		M->matched[p] = true;
		if (search(M, j + 1))
			return true;
		M->matched[p] = false;
		unbind_to(M, mark);
		M->nlab = nlab;
		if (M->steps > MAX_STEPS)
			return false;
	}
	return false;
}

/* ---- checking a whole match ---------------------------------------------------------- */

/* An instruction of the window that is not the idiom's (at p) may read
 * the inputs, and write them before the idiom first reads them (first);
 * no other register the idiom binds. */
struct touch { const struct match *M; unsigned p, first[2]; bool bad; };

static void touches_bound(void *user, int reg, bool write)
{
	struct touch *c = user;
	const struct match *M = c->M;
	int t = M->pb[reg] - 1;
	if (t < 0)
		return;
	int in = t == M->T->x ? 0 : t == M->T->y ? 1 : -1;
	if (in < 0 || (write && c->p > c->first[in]))
		c->bad = true;
}

struct reads_reg { int reg; bool hit; };

static void reads_reg(void *user, int reg, bool write)
{
	struct reads_reg *c = user;
	c->hit |= !write && reg == c->reg;
}

static bool is_control(const char *op)
{
	return !strcmp(op, "bra") || !strcmp(op, "ret") || !strcmp(op, "exit") || !strcmp(op, "call") ||
	       !strcmp(op, "bar") || !strcmp(op, "barrier") || !strcmp(op, "shfl") || !strcmp(op, "vote") ||
	       !strcmp(op, "activemask");
}

/* Does control go from program instruction p to q with nothing run on the
 * way (through nops and unconditional branches)? */
static bool flows_to(const struct ptx_func *f, unsigned p, unsigned q)
{
	for (unsigned hops = 0; hops < 64; hops++) {
		if (p == q)
			return true;
		if (p >= f->ninstrs)
			return false;
		const struct ptx_instr *in = &f->instrs[p];
		if (is_nop(in)) {
			p++;
			continue;
		}
		if (strcmp(in->opcode, "bra") || in->guard || !in->nops || in->ops[0].kind != PO_LABEL ||
		    in->ops[0].imm < 0)
			return false;
		p = (unsigned)in->ops[0].imm;
	}
	return false;
}

/* The template's branches map to program branches whose targets keep the
 * template's blocks apart (a branch to the template's end goes where the
 * window falls through to); nothing outside branches into the window. */
static bool labels_ok(const struct match *M)
{
	const struct tmpl *T = M->T;
	unsigned n = T->t->ninstrs;
	for (unsigned k = 0; k < M->nlab; k++) {
		const struct lab *l = &M->lab[k];
		if (l->p <= l->at)
			return false;
		if (l->t >= n) {
			if (!flows_to(M->f, M->hi + 1, l->p))
				return false;
			continue;
		}
		if (l->p <= M->lo || l->p > M->hi)
			return false;
		for (unsigned j = 0; j < n; j++)
			if ((T->blk[j] < T->blk[l->t]) != (M->pos[j] < l->p))
				return false;
	}
	/* no branch from outside lands strictly inside */
	for (unsigned i = 0; i < M->f->ninstrs; i++) {
		if (i >= M->lo && i <= M->hi)
			continue;
		const struct ptx_instr *in = &M->f->instrs[i];
		for (unsigned k = 0; k < in->nops; k++)
			if (in->ops[k].kind == PO_LABEL && in->ops[k].imm > (int64_t)M->lo &&
			    in->ops[k].imm <= (int64_t)M->hi)
				return false;
	}
	return true;
}

/* Does program instruction p run only on one side of a matched branch? */
static bool dependent(const struct match *M, unsigned p)
{
	for (unsigned k = 0; k < M->nlab; k++) {
		const struct lab *l = &M->lab[k];
		unsigned end = l->t >= M->T->t->ninstrs ? M->hi + 1 : l->p;
		if (p > l->at && p < end)
			return true;
	}
	return false;
}

/* Where the idiom first reads program register reg (UINT32_MAX: never). */
static unsigned first_use(const struct match *M, int reg)
{
	for (unsigned p = M->lo; reg >= 0 && p <= M->hi; p++) {
		struct reads_reg c = { reg, false };
		if (M->matched[p])
			instr_regs(&M->f->instrs[p], reads_reg, &c);
		if (c.hit)
			return p;
	}
	return UINT32_MAX;
}

/* The instructions of the window that are not the idiom's. */
static bool others_ok(const struct match *M)
{
	const struct tmpl *T = M->T;
	unsigned fx = first_use(M, M->tb[T->x] - 1), fy = T->y >= 0 ? first_use(M, M->tb[T->y] - 1) : 0;
	for (unsigned p = M->lo; p <= M->hi; p++) {
		if (M->matched[p])
			continue;
		const struct ptx_instr *in = &M->f->instrs[p];
		if (is_nop(in))
			continue;
		struct touch c = { M, p, { fx, fy }, false };
		instr_regs(in, touches_bound, &c);
		if (c.bad || is_control(in->opcode))
			return false;
		if (is_const_mov(in) && M->u->cdef[in->ops[0].reg] >= 0)
			continue;            /* runs anywhere alike */
		if (dependent(M, p))
			return false;
	}
	return true;
}

struct reads { unsigned *cnt; };

static void count_read(void *user, int reg, bool write)
{
	struct reads *r = user;
	if (!write)
		r->cnt[reg]++;
}

/* Every register the idiom computes, other than its result, is read by
 * the idiom's instructions alone; and constant movs among them whose
 * registers only the idiom reads are marked for removal (kill). */
static bool internal_ok(struct match *M)
{
	const struct ptx_func *f = M->f;
	const struct tmpl *T = M->T;
	unsigned *cnt = M->cnt;
	memset(cnt, 0, f->nregs * sizeof *cnt);
	struct reads r = { cnt };
	for (unsigned i = M->lo; i <= M->hi; i++)
		if (M->matched[i])
			instr_regs(&f->instrs[i], count_read, &r);
	for (unsigned t = 0; t < T->t->nregs; t++) {
		if (!M->tb[t] || (int)t == T->x || (int)t == T->y || (int)t == T->o || (int)t == T->s)
			continue;
		int p = M->tb[t] - 1;
		if (cnt[p] != M->u->nreads[p])
			return false;
	}
	for (unsigned i = M->lo; i <= M->hi; i++) {
		M->kill[i] = false;
		const struct ptx_instr *in = &f->instrs[i];
		if (!M->matched[i] && is_const_mov(in) && M->u->cdef[in->ops[0].reg] == (int)i &&
		    cnt[in->ops[0].reg] == M->u->nreads[in->ops[0].reg])
			M->kill[i] = true;
	}
	return true;
}

/* For expf: does every reader of o or s multiply the two, after the idiom? */
struct prod { int o, s; unsigned ro, rs; };

static void count_prod(void *user, int reg, bool write)
{
	struct prod *c = user;
	if (!write) {
		c->ro += reg == c->o;
		c->rs += reg == c->s;
	}
}

static bool product_ok(const struct match *M)
{
	const struct ptx_func *f = M->f;
	int o = M->tb[M->T->o] - 1, s = M->tb[M->T->s] - 1;
	if (o < 0 || s < 0 || M->u->ndefs[o] != 1 || M->u->ndefs[s] != 1)
		return false;
	for (unsigned i = 0; i < f->ninstrs; i++) {
		const struct ptx_instr *in = &f->instrs[i];
		struct prod c = { o, s, 0, 0 };
		instr_regs(in, count_prod, &c);
		if (!c.ro && !c.rs)
			continue;
		const struct ptx_operand *a = &in->ops[1], *b = &in->ops[2];
		bool mul = (!strcmp(in->opcode, "mul") || !strcmp(in->opcode, "fma")) && ptx_type_is_float(in->type) &&
		           !in->guard && in->nops >= 3 && c.ro == 1 && c.rs == 1 &&
		           a->kind == PO_REG && b->kind == PO_REG &&
		           ((a->reg == o && b->reg == s) || (a->reg == s && b->reg == o));
		if (!mul || i <= M->hi)
			return false;
	}
	return true;
}

static bool finish(struct match *M)
{
	unsigned n = M->T->t->ninstrs;
	M->lo = M->hi = M->pos[0];
	for (unsigned j = 1; j < n; j++) {
		if (M->pos[j] < M->lo)
			M->lo = M->pos[j];
		if (M->pos[j] > M->hi)
			M->hi = M->pos[j];
	}
	return labels_ok(M) && others_ok(M) && internal_ok(M) && (M->T->s < 0 || product_ok(M));
}

/* ---- rewriting ---------------------------------------------------------------------- */

static struct ptx_operand reg_operand(const struct ptx_func *f, int r)
{
	return (struct ptx_operand){ .kind = PO_REG, .name = f->regs[r].name, .reg = r };
}

static void rewrite(struct dx_launch *L, struct match *M)
{
	struct ptx_instr *ins = (struct ptx_instr *)M->f->instrs;
	const struct tmpl *T = M->T;
	for (unsigned i = M->lo; i <= M->hi; i++) {
		if (!M->matched[i] && !M->kill[i])
			continue;
		struct ptx_instr *in = &ins[i];
		in->opcode = DX_OP_NOP;
		in->nmods = 0;
		in->nops = 0;
		in->guard = NULL;
		in->guard_reg = -1;
		in->type = in->type2 = PT_NONE;
		M->done[i] = true;
	}
	/* the result where the window ends: every path through it gets there */
	struct ptx_instr *fn = &ins[M->hi];
	fn->opcode = DX_OP_FUN;
	fn->type = PT_F32;
	unsigned n = T->y >= 0 ? 4 : 3;
	struct ptx_operand *ops = ARENA_NEWN(&L->a, struct ptx_operand, n);
	ops[0] = reg_operand(M->f, M->tb[T->o] - 1);
	ops[1] = (struct ptx_operand){ .kind = PO_IMM, .imm = (int64_t)T->id->fn | (T->id->neg ? 0x100 : 0), .reg = -1 };
	ops[2] = reg_operand(M->f, M->tb[T->x] - 1);
	if (T->y >= 0)
		ops[3] = reg_operand(M->f, M->tb[T->y] - 1);
	fn->ops = ops;
	fn->nops = n;
	if (T->s >= 0) {
		/* the scale becomes 1 (product_ok: only read after the window) */
		int sreg = M->tb[T->s] - 1;
		for (unsigned i = M->lo; i < M->hi; i++) {
			if (!M->matched[i])
				continue;
			struct ptx_instr *in = &ins[i];
			in->opcode = "mov";
			in->mods = ARENA_NEWN(&L->a, const char *, 1);
			in->mods[0] = "f32";
			in->nmods = 1;
			in->type = PT_F32;
			in->ops = ARENA_NEWN(&L->a, struct ptx_operand, 2);
			in->ops[0] = reg_operand(M->f, sreg);
			in->ops[1] = (struct ptx_operand){ .kind = PO_FIMM, .bits = 0x3F800000, .fwidth = 32, .reg = -1 };
			in->nops = 2;
			break;
		}
	}
}

/* ---- the templates -------------------------------------------------------------------- */

static int treg(const struct ptx_func *t, const char *name)
{
	return name ? ptx_find_reg(t, name) : -1;
}

struct access { int reg[8]; bool write[8]; unsigned n; };

static void tmpl_access(void *user, int reg, bool write)
{
	struct access *a = user;
	if (a->n < 8) {
		a->reg[a->n] = reg;
		a->write[a->n++] = write;
	}
}

/* Blocks and the order constraints of template t. */
static void shape(struct dx_launch *L, struct tmpl *T)
{
	const struct ptx_func *t = T->t;
	unsigned n = t->ninstrs;
	bool *starts = ARENA_NEWN(&L->a, bool, n + 1);
	memset(starts, 0, (n + 1) * sizeof *starts);
	T->branch = ARENA_NEWN(&L->a, bool, n);
	for (unsigned j = 0; j < n; j++) {
		const struct ptx_instr *in = &t->instrs[j];
		T->branch[j] = !strcmp(in->opcode, "bra");
		if (T->branch[j]) {
			starts[j + 1] = true;
			if (in->nops && in->ops[0].kind == PO_LABEL && in->ops[0].imm >= 0 && in->ops[0].imm <= (int64_t)n)
				starts[in->ops[0].imm] = true;
		}
	}
	T->blk = ARENA_NEWN(&L->a, unsigned, n);
	for (unsigned j = 0, b = 0; j < n; j++) {
		if (j && starts[j])
			b++;
		T->blk[j] = b;
	}
	struct access *acc = ARENA_NEWN(&L->a, struct access, n);
	for (unsigned j = 0; j < n; j++) {
		acc[j].n = 0;
		instr_regs(&t->instrs[j], tmpl_access, &acc[j]);
	}
	T->order = ARENA_NEWN(&L->a, bool, (size_t)n * n);
	memset(T->order, 0, (size_t)n * n * sizeof *T->order);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++) {
			bool c = T->branch[j] && T->blk[i] == T->blk[j];   /* a branch ends its block */
			for (unsigned a = 0; a < acc[i].n && !c; a++)
				for (unsigned b = 0; b < acc[j].n && !c; b++)
					c = acc[i].reg[a] == acc[j].reg[b] && (acc[i].write[a] || acc[j].write[b]);
			T->order[i * n + j] = c;
		}
}

static bool load_templates(struct dx_launch *L, struct tmpl *T)
{
	char err[128];
	const struct ptx_module *m = ptx_parse(&L->a, dx_idiom_ptx, strlen(dx_idiom_ptx), err, sizeof err);
	if (!m)
		return false;
	for (unsigned i = 0; i < NIDIOMS; i++) {
		const struct ptx_func *t = ptx_find_func(m, idioms[i].name);
		if (!t || !t->ninstrs)
			return false;
		T[i] = (struct tmpl){ &idioms[i], t, treg(t, idioms[i].x), treg(t, idioms[i].y),
		                      treg(t, idioms[i].o), treg(t, idioms[i].s), NULL, NULL, NULL };
		if (T[i].x < 0 || T[i].o < 0 || (idioms[i].y && T[i].y < 0) || (idioms[i].s && T[i].s < 0))
			return false;
		shape(L, &T[i]);
	}
	return true;
}

/* Quick filter: idioms all compute with ex2 or lg2 or reinterpret bits. */
static bool worth_it(const struct ptx_func *f)
{
	for (unsigned i = 0; i < f->ninstrs; i++) {
		const char *op = f->instrs[i].opcode;
		if (!strcmp(op, "ex2") || !strcmp(op, "lg2") || (!strcmp(op, "mov") && f->instrs[i].type == PT_B32))
			return true;
	}
	return false;
}

/* ---- the pass ------------------------------------------------------------------------ */

/* Tries template T with its first instruction at program instruction s. */
static bool try_at(struct match *M, unsigned s)
{
	const struct ptx_instr *t0 = &M->T->t->instrs[0];
	M->nlab = 0;
	M->steps = 0;
	if (M->done[s] || !match_instr(M, t0, &M->f->instrs[s]))
		return false;
	for (unsigned l = 0; l < M->nlab; l++)
		M->lab[l].at = s;
	M->pos[0] = s;
	M->matched[s] = true;
	if (search(M, 1))
		return true;
	M->matched[s] = false;
	unbind_to(M, 0);
	return false;
}

unsigned dx_rollup(struct dx_launch *L, struct dx_func *df)
{
	const struct ptx_func *f = &df->f;
	struct tmpl T[NIDIOMS];
	if (!f->ninstrs || !worth_it(f) || !load_templates(L, T))
		return 0;
	unsigned maxt = 0, maxr = 0;
	for (unsigned i = 0; i < NIDIOMS; i++) {
		if (T[i].t->ninstrs > maxt)
			maxt = T[i].t->ninstrs;
		if (T[i].t->nregs > maxr)
			maxr = T[i].t->nregs;
	}
	size_t n = f->ninstrs, nr = f->nregs ? f->nregs : 1;
	struct use u = { xcalloc(nr, sizeof *u.ndefs), xcalloc(nr, sizeof *u.nreads), xcalloc(nr, sizeof *u.cdef),
	                 xcalloc(nr + 1, sizeof *u.rofs), NULL, xcalloc(nr, sizeof *u.nr),
	                 xcalloc(nr, sizeof *u.last) };
	analyse(f, &u);              /* counts, for the room rlist needs */
	/* rewriting never adds reads: a window's reads become one call's */
	u.rlist = xcalloc(u.rofs[f->nregs] + n + 1, sizeof *u.rlist);
	struct match M = { .f = f, .u = &u };
	M.cnt = xcalloc(nr, sizeof *M.cnt);
	M.tb = xcalloc(maxr + 1, sizeof *M.tb);
	M.pb = xcalloc(nr, sizeof *M.pb);
	M.trail = xcalloc(maxr + 1, sizeof *M.trail);
	M.pos = xcalloc(maxt + 1, sizeof *M.pos);
	M.lab = xcalloc(maxt + 1, sizeof *M.lab);
	M.matched = xcalloc(n, sizeof *M.matched);
	M.kill = xcalloc(n, sizeof *M.kill);
	M.done = xcalloc(n, sizeof *M.done);
	unsigned rolled = 0, before;
	analyse(f, &u);
	/* again while something was rolled up: an idiom whose window holds
	 * another one (nvcc sinks logf's last select past its neighbours)
	 * matches once the other one's branches are gone */
	do {
		before = rolled;
		for (unsigned s = 0; s < n; s++) {
			for (unsigned k = 0; k < NIDIOMS && !M.done[s]; k++) {
				M.T = &T[k];
				if (strcmp(T[k].t->instrs[0].opcode, f->instrs[s].opcode))
					continue;
				if (!try_at(&M, s))
					continue;
				rewrite(L, &M);
				unbind_to(&M, 0);
				memset(M.matched, 0, n * sizeof *M.matched);
				analyse(f, &u);
				rolled++;
			}
		}
	} while (rolled > before);
	free(u.ndefs); free(u.nreads); free(u.cdef); free(u.rofs); free(u.rlist); free(u.nr); free(u.last);
	free(M.tb); free(M.pb); free(M.trail); free(M.pos); free(M.lab);
	free(M.matched); free(M.kill); free(M.done); free(M.cnt);
	return rolled;
}
