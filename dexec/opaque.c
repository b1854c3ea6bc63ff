/*
 * opaque.c: degrade, don't give up.  An instruction or operand dexec has no
 * exact meaning for (an unusual ALU instruction, the bits of a float used
 * as an integer, a special register such as %clock) gives an opaque value
 * (expr.h, "Opaque values"): an uninterpreted function of its operands,
 * tagged with its origin, instead of stopping the launch.  Values may
 * carry it; addresses and branch conditions may not (mem.c, exec.c refuse
 * them, naming the origin), so bounds, races and the split of the threads
 * stay exact, and dcheck decides every location whose value does not
 * depend on it.
 *
 * The origins are the launch's table of opaques (the "opaques" field of
 * its writes record, dirigo-symbolic(5)): kernel, PTX line, .cu line, the
 * instruction as written and why it is opaque.  One entry per instruction
 * (and reason): the instruction's values at equal operands are equal.
 */
#include "dexec.h"

#include <string.h>

/* The text of PTX line `line` of the launch's module, trimmed, in L's arena. */
static const char *ptx_line(struct dx_launch *L, unsigned line)
{
	if (!line || L->l->module >= L->o->modules.len)
		return "";
	const struct obl_module *m = &L->o->modules.items[L->l->module];
	const char *p = m->ptx, *end = m->ptx + m->ptxlen;
	for (unsigned n = 1; n < line && p < end; p++)
		if (*p == '\n')
			n++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const char *q = p;
	while (q < end && *q != '\n' && *q != '\r' && q - p < 120)
		q++;
	char *s = arena_alloc(&L->a, (size_t)(q - p) + 1);
	size_t k = 0;
	for (const char *c = p; c < q; c++)
		s[k++] = *c == '\t' ? ' ' : *c;
	s[k] = 0;
	return s;
}

uint64_t dx_opaque_tag(struct dx_launch *L, const struct ptx_instr *in, const char *what)
{
	for (size_t i = 0; i < L->opaques.len; i++)
		if (L->opaque_ins.items[i] == in && !strcmp(L->opaques.items[i].what, what))
			return SYM_OPAQUE_TAG(L->id, i);
	const char *src = in && in->loc_line && in->loc_file < L->mod->nfiles ? L->mod->files[in->loc_file] : NULL;
	struct sym_opaque o = {
		.line = in ? in->line : 0,
		.src_file = src,
		.src_line = src ? in->loc_line : 0,
		.instr = in ? ptx_line(L, in->line) : "",
		.what = arena_strdup(&L->a, what),
	};
	VEC_PUSH(L->opaques, o);
	VEC_PUSH(L->opaque_ins, in);
	return SYM_OPAQUE_TAG(L->id, L->opaques.len - 1);
}

const char *dx_opaque_name(struct dx_launch *L, const struct expr *e)
{
	const struct expr *o = e_first_opaque(e);
	if (!o)
		return "an opaque value";
	uint64_t tag = EOPQ_TAGOF(o->u);
	uint32_t i = SYM_OPAQUE_INDEX(tag);
	if (!tag || SYM_OPAQUE_LAUNCH(tag) != L->id || i >= L->opaques.len)
		return "the bits of a float used as an integer";
	const struct sym_opaque *q = &L->opaques.items[i];
	const char *slash = q->src_file ? strrchr(q->src_file, '/') : NULL;
	return arena_printf(&L->a, "an opaque value (%s at PTX line %u%s%s%s: %s)", q->what, q->line,
	                    q->src_file ? ", " : "", q->src_file ? (slash ? slash + 1 : q->src_file) : "",
	                    q->src_file ? arena_printf(&L->a, ":%u", q->src_line) : "", q->instr);
}

/* Opcodes whose result is a pure function of their register operands in
 * the thread that runs them: when dexec lacks a variant, an opaque value
 * stands for it.  (Memory, control, warp and barrier instructions are not
 * here: they stay unsupported.) */
static bool pure_opcode(const char *op)
{
	static const char *const pure[] = {
		"add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg",
		"min", "max", "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "bmsk", "szext",
		"dp4a", "dp2a", "lop3", "shf", "shl", "shr", "and", "or", "xor", "not", "cnot", "prmt",
		"copysign", "testp", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "fma",
		"set", "setp", "selp", "slct", "mov", "cvt",
	};
	for (size_t i = 0; i < sizeof pure / sizeof pure[0]; i++)
		if (!strcmp(pure[i], op))
			return true;
	return false;
}

/* The destinations of in: its first operand (a register, a vector of
 * registers or a predicate pair p|q); the rest are sources. */
static unsigned dests(const struct ptx_instr *in, const struct ptx_operand **d)
{
	const struct ptx_operand *o = &in->ops[0];
	if (o->kind == PO_VEC || o->kind == PO_PAIR) {
		for (unsigned i = 0; i < o->nelems && i < 8; i++)
			d[i] = &o->elems[i];
		return o->nelems < 8 ? o->nelems : 8;
	}
	d[0] = o;
	return 1;
}

int dx_opaque_instr(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in, const char *what)
{
	struct ectx *cx = L->cx;
	const char *name = dx_instr_name(L, in);
	if (!pure_opcode(in->opcode) || in->nops < 1 || ptx_has_mod(in, "cc") ||
	    !strcmp(in->opcode, "addc") || !strcmp(in->opcode, "subc") || !strcmp(in->opcode, "madc"))
		return dx_unsupported(L, in, arena_printf(&L->a, "instruction '%s'", name), NULL);
	/* the sources: registers (a vector's elements), immediates */
	const struct expr *args[E_MAX_ARGS];
	unsigned n = 0;
	for (unsigned i = 1; i < in->nops; i++) {
		const struct ptx_operand *o = &in->ops[i];
		unsigned ne = o->kind == PO_VEC ? o->nelems : 1;
		for (unsigned k = 0; k < ne; k++) {
			const struct ptx_operand *e = o->kind == PO_VEC ? &o->elems[k] : o;
			const struct expr *v;
			switch (e->kind) {
			case PO_REG: case PO_SREG:
				v = dx_get_raw(L, b, in, e);
				break;
			case PO_IMM:
				v = e_bv(cx, (uint64_t)e->imm, 64);
				break;
			case PO_FIMM:
				v = e_bv(cx, e->bits, e->fwidth == 64 ? 64 : 32);
				break;
			default:
				return dx_unsupported(L, in, arena_printf(&L->a, "instruction '%s'", name),
				                      "instruction '%s' with an address or label operand", name);
			}
			if (!v)
				return -1;
			if (n == E_MAX_ARGS - 1)
				return dx_unsupported(L, in, arena_printf(&L->a, "instruction '%s'", name),
				                      "instruction '%s' with too many operands", name);
			args[n++] = v;
		}
	}
	const struct ptx_operand *d[8];
	unsigned nd = dests(in, d);
	uint64_t tag = dx_opaque_tag(L, in, what);
	for (unsigned i = 0; i < nd; i++) {
		if (d[i]->kind == PO_SINK)
			continue;
		if (d[i]->kind != PO_REG || d[i]->reg < 0 || (unsigned)d[i]->reg >= L->fn->nregs)
			return dx_unsupported(L, in, "destination", "a destination that is not a register");
		sort_t s = dx_sort_of(L->fn->regs[d[i]->reg].type);
		if (!s)
			return dx_unsupported(L, in, "operand width", "instruction '%s' writes a %u-bit register",
			                      name, ptx_type_bits(L->fn->regs[d[i]->reg].type));
		/* one function per destination: the index is an argument */
		args[n] = e_bv(cx, i, 8);
		const struct expr *v = e_opaque(cx, tag, s, n + (nd > 1), args);
		if (dx_set(L, b, in, d[i], v) < 0)
			return -1;
	}
	return 0;
}

/* Special registers with no value of their own in the model (%clock,
 * %smid, ...): a fresh unknown per read, as a function of the thread and
 * the read's number, so that no two reads are taken to be equal. */
const struct expr *dx_opaque_sreg(struct dx_launch *L, const struct ptx_instr *in, const char *name)
{
	struct ectx *cx = L->cx;
	const struct expr *args[7] = {
		e_tid(cx, 0), e_tid(cx, 1), e_tid(cx, 2), e_ctaid(cx, 0), e_ctaid(cx, 1), e_ctaid(cx, 2),
		e_bv(cx, L->nfresh++, 64),
	};
	uint64_t tag = dx_opaque_tag(L, in, arena_printf(&L->a, "special register '%%%s'", name));
	bool wide = strstr(name, "64") != NULL;
	return e_opaque(cx, tag, SORT_BV(wide ? 64 : 32), 7, args);
}

/* ectx_set_float_mem's oracle: a global value whose bytes come from the
 * host or a torch op (an integer read of it would resolve as recorded
 * contents), not from a kernel's stores (those resolve exactly as they
 * were written) nor from shared memory. */
static bool from_host(uint32_t space, void *user)
{
	const struct dx_launch *L = user;
	const struct obligation *o = L->o;
	for (size_t guard = 0; space < o->values.len && guard <= o->values.len; guard++) {
		const struct obl_value *v = &o->values.items[space];
		switch (v->def) {
		case VD_INPUT: case VD_OP: case VD_DATA:
			return true;
		case VD_COPY:
			space = v->src;
			continue;
		default:
			return false;
		}
	}
	return false;
}

void dx_opaque_init(struct dx_launch *L)
{
	ectx_set_float_mem(L->cx, from_host, L);
}
