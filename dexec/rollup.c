/*
 * rollup.c: transcendental rollup (paper 4.1).  Before execution, each
 * occurrence of one of nvcc's idioms (idioms.c) in the function is
 * replaced by one pseudo-instruction `dirigo.fun %o, EF, %x` computing the
 * mathematical function, and the idiom's other instructions by nops, so
 * that the bit tricks and data-dependent branches inside never run.
 *
 * Matching is by data flow, not by text: the idiom's instructions are
 * matched in order (opcode, modifiers but .ftz, every operand), template
 * registers bind one-to-one to program registers, a template constant
 * matches an equal immediate or a register whose only definition is a mov
 * of that constant.  Between matched instructions the program may have
 * constant movs and, in branch-free idioms, unrelated instructions that
 * neither read nor write a bound register.  A match counts only if:
 * branches inside it go where the template's go and none from outside
 * lands inside it; the input is not written inside; every register the
 * idiom computes besides its result is read by the idiom alone (so that
 * removing it changes nothing else); for expf, whose result is the
 * product of %o and the scale %s, every reader of either multiplies the
 * two (then %o becomes exp(x) and %s becomes 1).  What does not match
 * stays as it is, and its bit reinterpretations make the launch
 * unsupported: never wrong math.
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
#define MAX_SKIP 24

/* What the function does with each register. */
struct use {
	unsigned *ndefs, *nreads;
	int *cdef;                   /* the instruction of a constant's only def, or -1 */
};

struct tmpl {
	const struct idiom *id;
	const struct ptx_func *t;
	int x, y, o, s;              /* template register indices, -1 if none */
	bool branchy;
};

struct match {
	const struct ptx_func *f;    /* the program */
	const struct tmpl *T;
	const struct use *u;
	int *tb, *pb;                /* template reg -> program reg + 1, and back */
	int *trail; unsigned ntrail;
	unsigned *pos;               /* template instr -> program instr */
	struct { unsigned t, p; } *lab; unsigned nlab;
	unsigned window_end;
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

static bool is_const_mov(const struct ptx_instr *in)
{
	return !strcmp(in->opcode, "mov") && !in->guard && in->nops == 2 && in->ops[0].kind == PO_REG &&
	       in->ops[0].reg >= 0 && (in->ops[1].kind == PO_IMM || in->ops[1].kind == PO_FIMM);
}

static void analyse(const struct ptx_func *f, struct use *u)
{
	memset(u->ndefs, 0, f->nregs * sizeof *u->ndefs);
	memset(u->nreads, 0, f->nregs * sizeof *u->nreads);
	for (unsigned i = 0; i < f->ninstrs; i++)
		instr_regs(&f->instrs[i], count, u);
	for (unsigned r = 0; r < f->nregs; r++)
		u->cdef[r] = -1;
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

/* ---- skipping and checking ------------------------------------------------------- */

struct touch { const struct match *M; bool bad; };

static void touches_bound(void *user, int reg, bool write)
{
	struct touch *c = user;
	const struct match *M = c->M;
	int t = M->pb[reg] - 1;
	if (t < 0)
		return;
	if (write || (t != M->T->x && t != M->T->y))
		c->bad = true;
}

static bool is_control(const char *op)
{
	return !strcmp(op, "bra") || !strcmp(op, "ret") || !strcmp(op, "exit") || !strcmp(op, "call") ||
	       !strcmp(op, "bar") || !strcmp(op, "barrier") || !strcmp(op, "shfl") || !strcmp(op, "vote") ||
	       !strcmp(op, "activemask");
}

/* May program instruction p lie inside the idiom without being part of it? */
static bool skippable(const struct match *M, const struct ptx_instr *p, unsigned *unrelated)
{
	struct touch c = { M, false };
	instr_regs(p, touches_bound, &c);
	if (c.bad)
		return false;
	if (is_const_mov(p) && M->u->cdef[p->ops[0].reg] >= 0)
		return true;
	if (M->T->branchy || is_control(p->opcode) || ++*unrelated > MAX_SKIP)
		return false;
	return true;
}

struct reads { const struct match *M; unsigned *cnt; };

static void count_read(void *user, int reg, bool write)
{
	struct reads *r = user;
	if (!write)
		r->cnt[reg]++;
}

/* Every register the idiom computes, other than its result, is read by
 * the idiom's instructions alone; and constant movs among them whose
 * registers only the idiom reads are marked for removal (kill). */
static bool internal_ok(struct match *M, unsigned s, bool *matched, bool *kill, unsigned *cnt)
{
	const struct ptx_func *f = M->f;
	const struct tmpl *T = M->T;
	memset(cnt, 0, f->nregs * sizeof *cnt);
	struct reads r = { M, cnt };
	for (unsigned i = s; i < M->window_end; i++)
		if (matched[i])
			instr_regs(&f->instrs[i], count_read, &r);
	for (unsigned t = 0; t < T->t->nregs; t++) {
		if (!M->tb[t] || (int)t == T->x || (int)t == T->y || (int)t == T->o || (int)t == T->s)
			continue;
		int p = M->tb[t] - 1;
		if (cnt[p] != M->u->nreads[p])
			return false;
	}
	for (unsigned i = s; i < M->window_end; i++) {
		kill[i] = false;
		const struct ptx_instr *in = &f->instrs[i];
		if (!matched[i] && is_const_mov(in) && M->u->cdef[in->ops[0].reg] == (int)i &&
		    cnt[in->ops[0].reg] == M->u->nreads[in->ops[0].reg])
			kill[i] = true;
	}
	return true;
}

static bool labels_ok(const struct match *M, unsigned s)
{
	for (unsigned k = 0; k < M->nlab; k++) {
		unsigned tt = M->lab[k].t, pt = M->lab[k].p;
		unsigned want = tt >= M->T->t->ninstrs ? M->window_end : M->pos[tt];
		unsigned lo = tt == 0 ? s : tt >= M->T->t->ninstrs ? M->window_end : M->pos[tt - 1] + 1;
		if (pt < lo || pt > want)
			return false;
	}
	/* no branch from outside lands strictly inside */
	for (unsigned i = 0; i < M->f->ninstrs; i++) {
		if (i >= s && i < M->window_end)
			continue;
		const struct ptx_instr *in = &M->f->instrs[i];
		for (unsigned k = 0; k < in->nops; k++)
			if (in->ops[k].kind == PO_LABEL && in->ops[k].imm > (int64_t)s &&
			    in->ops[k].imm < (int64_t)M->window_end)
				return false;
	}
	return true;
}

/* For expf: does every reader of o or s multiply the two? */
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
		if (!mul)
			return false;
	}
	return true;
}

/* Tries template T at program position s; on success fills matched[]. */
static bool try_at(struct match *M, unsigned s, bool *matched, const bool *done)
{
	const struct ptx_func *f = M->f, *t = M->T->t;
	unsigned p = s, unrelated = 0;
	M->nlab = 0;
	M->window_end = s;
	for (unsigned j = 0; j < t->ninstrs; j++) {
		for (;;) {
			if (p >= f->ninstrs)
				return false;
			if (!done[p] && match_instr(M, &t->instrs[j], &f->instrs[p]))
				break;
			if (j == 0 || !skippable(M, &f->instrs[p], &unrelated))
				return false;
			p++;
		}
		M->pos[j] = p;
		matched[p] = true;
		p++;
		M->window_end = p;
	}
	M->window_end = p;
	return true;
}

/* ---- rewriting ---------------------------------------------------------------------- */

static struct ptx_operand reg_operand(const struct ptx_func *f, int r)
{
	return (struct ptx_operand){ .kind = PO_REG, .name = f->regs[r].name, .reg = r };
}

static void rewrite(struct dx_launch *L, struct match *M, unsigned s, const bool *matched, const bool *kill,
                    bool *done)
{
	struct ptx_instr *ins = (struct ptx_instr *)M->f->instrs;
	const struct tmpl *T = M->T;
	unsigned last = M->pos[T->t->ninstrs - 1];
	for (unsigned i = s; i < M->window_end; i++) {
		if (!matched[i] && !kill[i])
			continue;
		struct ptx_instr *in = &ins[i];
		in->opcode = DX_OP_NOP;
		in->nmods = 0;
		in->nops = 0;
		in->guard = NULL;
		in->guard_reg = -1;
		in->type = in->type2 = PT_NONE;
		done[i] = true;
	}
	struct ptx_instr *fn = &ins[last];
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
		/* the scale becomes 1: mov.f32 %s, 1.0 where it was defined */
		int sreg = M->tb[T->s] - 1;
		for (unsigned i = s; i < M->window_end; i++) {
			if (!matched[i] || i == last)
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

/* ---- the pass ------------------------------------------------------------------------ */

static int treg(const struct ptx_func *t, const char *name)
{
	return name ? ptx_find_reg(t, name) : -1;
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
		                      treg(t, idioms[i].o), treg(t, idioms[i].s), t->nlabels > 0 };
		if (T[i].x < 0 || T[i].o < 0 || (idioms[i].y && T[i].y < 0) || (idioms[i].s && T[i].s < 0))
			return false;
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
	struct use u = { xcalloc(nr, sizeof *u.ndefs), xcalloc(nr, sizeof *u.nreads), xcalloc(nr, sizeof *u.cdef) };
	struct match M = { .f = f, .u = &u };
	M.tb = xcalloc(maxr + 1, sizeof *M.tb);
	M.pb = xcalloc(nr, sizeof *M.pb);
	M.trail = xcalloc(maxr + 1, sizeof *M.trail);
	M.pos = xcalloc(maxt + 1, sizeof *M.pos);
	M.lab = xcalloc(maxt + 1, sizeof *M.lab);
	bool *matched = xcalloc(n, sizeof *matched), *kill = xcalloc(n, sizeof *kill), *done = xcalloc(n, sizeof *done);
	unsigned *cnt = xcalloc(nr, sizeof *cnt), rolled = 0;
	analyse(f, &u);
	for (unsigned s = 0; s < n; s++) {
		for (unsigned k = 0; k < NIDIOMS; k++) {
			M.T = &T[k];
			if (done[s] || strcmp(T[k].t->instrs[0].opcode, f->instrs[s].opcode))
				continue;
			bool ok = try_at(&M, s, matched, done) && labels_ok(&M, s) &&
			          internal_ok(&M, s, matched, kill, cnt) && (T[k].s < 0 || product_ok(&M));
			if (ok) {
				rewrite(L, &M, s, matched, kill, done);
				analyse(f, &u);
				rolled++;
			}
			unbind_to(&M, 0);
			memset(matched + s, 0, (M.window_end - s) * sizeof *matched);
			if (ok)
				break;
		}
	}
	free(u.ndefs); free(u.nreads); free(u.cdef);
	free(M.tb); free(M.pb); free(M.trail); free(M.pos); free(M.lab);
	free(matched); free(kill); free(done); free(cnt);
	return rolled;
}
