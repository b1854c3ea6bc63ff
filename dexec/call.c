/*
 * call.c: device-function calls, executed by inlining them into the
 * kernel before execution, each call with its own register frame.
 *
 * nvcc passes arguments and results through .param variables of a "call
 * sequence": st.param [param0+off] before the call, ld.param [retval0+off]
 * after it, and the callee reads ld.param [f_param_0+off] and writes
 * st.param [func_retval0+off].  Each (frame, parameter name, offset,
 * size) becomes a slot register, and every such st.param/ld.param a mov
 * into or out of it; the callee's body is copied with fresh registers,
 * its labels renumbered, its .local variables renamed, and ret turned
 * into a branch to the end of the copy.  Unsupported: recursion, calls
 * through a pointer, predicated calls, callees without a body (vprintf),
 * a parameter read with another size or offset than it was written.
 */
#include "dexec.h"

#include <stdio.h>
#include <string.h>

#define MAX_DEPTH   16
#define MAX_INSTRS  1000000u

struct slot { unsigned frame; const char *name; int64_t off; unsigned size; int reg; };
struct rename { const char *from, *to; };

struct inl {
	struct dx_launch *L;
	struct dx_func *df;
	VEC(struct ptx_instr) out;
	VEC(struct ptx_reg) regs;
	VEC(struct ptx_var) vars;
	VEC(struct ptx_label) labels;
	VEC(struct slot) slots;
	const struct ptx_func *stack[MAX_DEPTH];
	unsigned depth, frames;
};

/* One function being copied: g's registers start at base; its parameters
 * are the caller's argument names args[], its results rets[]. */
struct frame {
	const struct ptx_func *g;
	unsigned id, caller;         /* frame numbers (for slots) */
	int base;
	const struct ptx_operand *args, *rets;   /* the call's lists (callee frames) */
	unsigned nargs, nrets;
	struct rename *ren; unsigned nren;       /* .local variables renamed */
};

static int fail(struct inl *I, const struct ptx_instr *in, const char *fmt, const char *name)
{
	return dx_unsupported(I->L, in, "function call", fmt, name);
}

static const char *renamed(const struct frame *F, const char *name)
{
	for (unsigned i = 0; name && i < F->nren; i++)
		if (!strcmp(F->ren[i].from, name))
			return F->ren[i].to;
	return name;
}

static void copy_op(struct inl *I, const struct frame *F, struct ptx_operand *d, const struct ptx_operand *s)
{
	*d = *s;
	if (s->reg >= 0 && (s->kind == PO_REG || (s->kind == PO_ADDR && !s->base_is_sym)))
		d->reg = s->reg + F->base;
	if (s->kind == PO_SYM || (s->kind == PO_ADDR && s->base_is_sym))
		d->name = renamed(F, s->name);
	if (s->nelems) {
		struct ptx_operand *e = ARENA_NEWN(&I->L->a, struct ptx_operand, s->nelems);
		for (unsigned i = 0; i < s->nelems; i++)
			copy_op(I, F, &e[i], &s->elems[i]);
		d->elems = e;
	}
}

static struct ptx_instr copy_instr(struct inl *I, const struct frame *F, const struct ptx_instr *s)
{
	struct ptx_instr d = *s;
	if (s->guard_reg >= 0)
		d.guard_reg = s->guard_reg + F->base;
	struct ptx_operand *ops = ARENA_NEWN(&I->L->a, struct ptx_operand, s->nops ? s->nops : 1);
	for (unsigned i = 0; i < s->nops; i++)
		copy_op(I, F, &ops[i], &s->ops[i]);
	d.ops = ops;
	return d;
}

static int emit(struct inl *I, const struct ptx_instr *in)
{
	if (I->out.len >= MAX_INSTRS)
		return dx_unsupported(I->L, in, "function call", "more than %u instructions after inlining calls",
		                      MAX_INSTRS);
	VEC_PUSH(I->out, *in);
	return 0;
}

/* ---- parameter slots ------------------------------------------------------ */

static int slot_reg(struct inl *I, unsigned frame, const char *name, int64_t off, unsigned size,
                    enum ptx_type t, bool create)
{
	for (size_t i = 0; i < I->slots.len; i++) {
		const struct slot *s = &I->slots.items[i];
		if (s->frame == frame && !strcmp(s->name, name) && s->off == off && s->size == size)
			return s->reg;
	}
	if (!create)
		return -1;
	struct ptx_reg r = { arena_printf(&I->L->a, "%%dirigo.%s.f%u+%lld", name, frame, (long long)off), t, 1 };
	VEC_PUSH(I->regs, r);
	struct slot s = { frame, name, off, size, (int)I->regs.len - 1 };
	VEC_PUSH(I->slots, s);
	return s.reg;
}

static struct ptx_instr make_mov(struct inl *I, const struct ptx_instr *like, enum ptx_type t,
                                 struct ptx_operand d, struct ptx_operand s)
{
	struct ptx_instr m = *like;
	m.opcode = "mov";
	m.mods = ARENA_NEWN(&I->L->a, const char *, 1);
	m.mods[0] = ptx_type_name(t);
	m.nmods = 1;
	m.type = t;
	m.type2 = PT_NONE;
	m.ops = ARENA_NEWN(&I->L->a, struct ptx_operand, 2);
	m.ops[0] = d;
	m.ops[1] = s;
	m.nops = 2;
	return m;
}

static struct ptx_operand reg_op(struct inl *I, int reg)
{
	return (struct ptx_operand){ .kind = PO_REG, .name = I->regs.items[reg].name, .reg = reg };
}

/* Which slot name a parameter symbol of frame F stands for: a call
 * sequence .param of F itself (frame F), or one of F's own parameters or
 * results (the caller's names, caller frame).  NULL: not a call parameter. */
static const char *param_slot(const struct frame *F, const char *sym, unsigned *frame, bool *is_kernel)
{
	*is_kernel = false;
	for (unsigned i = 0; i < F->g->nvars; i++)
		if (F->g->vars[i].space == PS_PARAM && !strcmp(F->g->vars[i].name, sym)) {
			*frame = F->id;
			return sym;
		}
	if (F->g->is_entry) {
		*is_kernel = true;
		return NULL;
	}
	for (unsigned i = 0; i < F->g->nparams; i++)
		if (!strcmp(F->g->params[i].name, sym) && i < F->nargs && F->args[i].kind == PO_SYM) {
			*frame = F->caller;
			return F->args[i].name;
		}
	for (unsigned i = 0; i < F->g->nrets; i++)
		if (!strcmp(F->g->rets[i].name, sym) && i < F->nrets && F->rets[i].kind == PO_SYM) {
			*frame = F->caller;
			return F->rets[i].name;
		}
	return NULL;
}

/* st.param / ld.param of a call parameter: one mov per element. */
static int param_move(struct inl *I, const struct frame *F, const struct ptx_instr *in, bool store)
{
	const struct ptx_operand *a = &in->ops[store ? 0 : 1], *v = &in->ops[store ? 1 : 0];
	if (in->nops != 2 || a->kind != PO_ADDR || !a->base_is_sym)
		return fail(I, in, "a parameter access through a register in a call to or from '%s'", F->g->name);
	unsigned frame;
	bool is_kernel;
	const char *name = param_slot(F, a->name, &frame, &is_kernel);
	if (!name)
		return fail(I, in, "a parameter '%s' that is not an argument or result of a call", a->name);
	unsigned n = ptx_instr_vec(in), esz = ptx_type_bits(in->type) / 8;
	if (esz == 0 || (v->kind == PO_VEC) != (n > 1) || (v->kind == PO_VEC && v->nelems != n))
		return fail(I, in, "a call parameter access of an unexpected shape (%s)", a->name);
	for (unsigned i = 0; i < n; i++) {
		const struct ptx_operand *e = v->kind == PO_VEC ? &v->elems[i] : v;
		if (e->kind == PO_SINK)
			continue;
		int64_t off = a->imm + (int64_t)(i * esz);
		int r = slot_reg(I, frame, name, off, esz, in->type, store);
		if (r < 0)
			return fail(I, in, "a call parameter '%s' read with another offset or size than it was written",
			            name);
		struct ptx_operand x;
		copy_op(I, F, &x, e);
		struct ptx_instr m = store ? make_mov(I, in, in->type, reg_op(I, r), x)
		                           : make_mov(I, in, in->type, x, reg_op(I, r));
		if (in->guard_reg >= 0)
			m.guard_reg = in->guard_reg + F->base;
		if (emit(I, &m) < 0)
			return -1;
	}
	return 0;
}

/* ---- bodies --------------------------------------------------------------- */

static int body(struct inl *I, struct frame *F);

static int call(struct inl *I, const struct frame *F, const struct ptx_instr *in)
{
	const struct ptx_operand *rets = NULL, *args = NULL, *callee = NULL;
	for (unsigned i = 0; i < in->nops; i++) {
		const struct ptx_operand *o = &in->ops[i];
		if (o->kind == PO_SYM && !callee)
			callee = o;
		else if (o->kind == PO_PARAMLIST && !callee)
			rets = o;
		else if (o->kind == PO_PARAMLIST && !args)
			args = o;
		else
			return fail(I, in, "a call through a pointer or with a prototype (%s)", F->g->name);
	}
	if (!callee)
		return fail(I, in, "a call without a function name (in '%s')", F->g->name);
	if (in->guard)
		return fail(I, in, "a predicated call of '%s'", callee->name);
	const struct ptx_func *g = ptx_find_func(I->L->mod, callee->name);
	if (!g || !g->has_body || g->is_entry)
		return fail(I, in, "a call of '%s', which has no body in the module", callee->name);
	for (unsigned i = 0; i < I->depth; i++)
		if (I->stack[i] == g)
			return fail(I, in, "a recursive call of '%s'", g->name);
	if (I->depth >= MAX_DEPTH)
		return fail(I, in, "calls nested too deeply (at '%s')", g->name);
	struct frame C = { g, ++I->frames, F->id, (int)I->regs.len,
	                   args ? args->elems : NULL, rets ? rets->elems : NULL,
	                   args ? args->nelems : 0, rets ? rets->nelems : 0, NULL, 0 };
	for (unsigned i = 0; i < g->nregs; i++) {
		struct ptx_reg r = g->regs[i];
		r.name = arena_printf(&I->L->a, "%s.f%u", r.name, C.id);
		VEC_PUSH(I->regs, r);
	}
	C.ren = ARENA_NEWN(&I->L->a, struct rename, g->nvars + 1);
	for (unsigned i = 0; i < g->nvars; i++) {
		if (g->vars[i].space == PS_PARAM)
			continue;
		struct ptx_var v = g->vars[i];
		v.name = arena_printf(&I->L->a, "%s.f%u", v.name, C.id);
		C.ren[C.nren++] = (struct rename){ g->vars[i].name, v.name };
		VEC_PUSH(I->vars, v);
	}
	I->stack[I->depth++] = g;
	int r = body(I, &C);
	I->depth--;
	return r;
}

static int body(struct inl *I, struct frame *F)
{
	const struct ptx_func *g = F->g;
	unsigned *pos = xcalloc(g->ninstrs + 1, sizeof *pos);
	VEC(size_t) mine = { 0 };     /* emitted branches of this frame, to patch */
	int r = 0;
	for (unsigned i = 0; i < g->ninstrs && r >= 0; i++) {
		const struct ptx_instr *in = &g->instrs[i];
		pos[i] = (unsigned)I->out.len;
		enum ptx_space sp = ptx_instr_space(in);
		if (!strcmp(in->opcode, "call")) {
			r = call(I, F, in);
		} else if ((!strcmp(in->opcode, "st") || !strcmp(in->opcode, "ld")) && sp == PS_PARAM) {
			bool kernel_param = false;
			unsigned fr;
			if (!strcmp(in->opcode, "ld") && in->nops == 2 && in->ops[1].kind == PO_ADDR &&
			    in->ops[1].base_is_sym && !param_slot(F, in->ops[1].name, &fr, &kernel_param) && kernel_param) {
				struct ptx_instr c = copy_instr(I, F, in);
				r = emit(I, &c);
			} else {
				r = param_move(I, F, in, in->opcode[0] == 's');
			}
		} else if (!strcmp(in->opcode, "ret") && !g->is_entry) {
			struct ptx_instr b = copy_instr(I, F, in);
			b.opcode = "bra";
			b.mods = ARENA_NEWN(&I->L->a, const char *, 1);
			b.mods[0] = "uni";
			b.nmods = 1;
			b.type = b.type2 = PT_NONE;
			b.ops = ARENA_NEWN(&I->L->a, struct ptx_operand, 1);
			b.ops[0] = (struct ptx_operand){ .kind = PO_LABEL, .name = "%dirigo.ret", .imm = g->ninstrs, .reg = -1 };
			b.nops = 1;
			VEC_PUSH(mine, I->out.len);
			r = emit(I, &b);
		} else {
			struct ptx_instr c = copy_instr(I, F, in);
			for (unsigned k = 0; k < c.nops; k++)
				if (c.ops[k].kind == PO_LABEL) {
					VEC_PUSH(mine, I->out.len);
					break;
				}
			r = emit(I, &c);
		}
	}
	pos[g->ninstrs] = (unsigned)I->out.len;
	for (size_t k = 0; r >= 0 && k < mine.len; k++) {
		struct ptx_instr *in = &I->out.items[mine.items[k]];
		for (unsigned j = 0; j < in->nops; j++) {
			struct ptx_operand *o = &in->ops[j];
			if (o->kind != PO_LABEL)
				continue;
			int t = o->imm >= 0 && (uint64_t)o->imm <= g->ninstrs ? (int)o->imm
			                                                      : ptx_label_target(g, o->name);
			if (t < 0) {
				r = fail(I, in, "a branch without a label target in '%s'", g->name);
				break;
			}
			o->imm = pos[t];
		}
	}
	for (unsigned i = 0; r >= 0 && i < g->nlabels; i++) {
		struct ptx_label lb = { g->labels[i].name, pos[g->labels[i].instr] };
		if (!g->is_entry)
			lb.name = arena_printf(&I->L->a, "%s.f%u", lb.name, F->id);
		VEC_PUSH(I->labels, lb);
	}
	VEC_FREE(mine);
	free(pos);
	return r;
}

static bool has_call(const struct ptx_func *f)
{
	for (unsigned i = 0; i < f->ninstrs; i++)
		if (!strcmp(f->instrs[i].opcode, "call"))
			return true;
	return false;
}

int dx_inline_calls(struct dx_launch *L, struct dx_func *df)
{
	const struct ptx_func *k = &df->f;
	if (!has_call(k))
		return 0;
	struct inl I = { .L = L, .df = df };
	for (unsigned i = 0; i < k->nregs; i++)
		VEC_PUSH(I.regs, k->regs[i]);
	for (unsigned i = 0; i < k->nvars; i++)
		VEC_PUSH(I.vars, k->vars[i]);
	struct frame F = { k, 0, 0, 0, NULL, NULL, 0, 0, NULL, 0 };
	I.stack[I.depth++] = k;
	int r = body(&I, &F);
	if (r >= 0) {
		struct ptx_func *f = &df->f;
		f->instrs = arena_memdup(&L->a, I.out.items, I.out.len * sizeof *I.out.items);
		f->ninstrs = (unsigned)I.out.len;
		f->regs = arena_memdup(&L->a, I.regs.items, I.regs.len * sizeof *I.regs.items);
		f->nregs = (unsigned)I.regs.len;
		f->vars = arena_memdup(&L->a, I.vars.items, I.vars.len * sizeof *I.vars.items);
		f->nvars = (unsigned)I.vars.len;
		f->labels = arena_memdup(&L->a, I.labels.items, I.labels.len * sizeof *I.labels.items);
		f->nlabels = (unsigned)I.labels.len;
	}
	VEC_FREE(I.out);
	VEC_FREE(I.regs);
	VEC_FREE(I.vars);
	VEC_FREE(I.labels);
	VEC_FREE(I.slots);
	return r < 0 ? -1 : 0;
}
