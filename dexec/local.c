/*
 * local.c: per-thread local memory (.local variables, nvcc's
 * __local_depot with %SPL), kept in registers: each .local variable gets
 * one slot register per 4-byte word, so that bundles split, merge under
 * predicates and copy local memory exactly as they do registers.
 *
 * An access must be the variable's address plus an offset that is a
 * constant once simplified (a loop index is, after the loop has run that
 * far); a thread-dependent or data-dependent offset, an access through a
 * generic address (cvta.local), and accesses of 1 or 2 bytes are
 * unsupported.  A slot holds the 4- or 8-byte value last stored at its
 * word; an 8-byte value marks the word after it, and a load that would
 * read part of a value (or a value partly overwritten) is unsupported.
 */
#include "dexec.h"

#include <string.h>

#define MAX_WORDS 4096u              /* slot registers per launch */
#define TAG_HI     0xD10C001ull      /* the upper word of an 8-byte value */
#define TAG_OPAQUE 0xD10C002ull      /* a value partly overwritten */

int dx_local_prepare(struct dx_launch *L, struct dx_func *df)
{
	struct ptx_func *f = &df->f;
	df->slot = arena_alloc(&L->a, (f->nvars + 1) * sizeof *df->slot);
	unsigned words = 0, nlocal = 0;
	for (unsigned i = 0; i < f->nvars; i++) {
		df->slot[i] = UINT32_MAX;
		if (f->vars[i].space == PS_LOCAL && f->vars[i].size && words + (f->vars[i].size + 3) / 4 <= MAX_WORDS) {
			words += (f->vars[i].size + 3) / 4;
			nlocal++;
		}
	}
	bool any = false;
	struct ptx_instr *ins = (struct ptx_instr *)f->instrs;
	for (unsigned i = 0; i < f->ninstrs; i++) {
		bool ld = !strcmp(ins[i].opcode, "ld"), st = !strcmp(ins[i].opcode, "st");
		if ((ld || st) && ptx_instr_space(&ins[i]) == PS_LOCAL) {
			ins[i].opcode = ld ? DX_OP_LDL : DX_OP_STL;
			any = true;
		}
	}
	if (!any || !nlocal)
		return 0;
	/* the slot registers, appended in one go */
	struct ptx_reg *r = arena_alloc(&L->a, (f->nregs + words) * sizeof *r);
	memcpy(r, f->regs, f->nregs * sizeof *r);
	unsigned n = f->nregs;
	for (unsigned i = 0; i < f->nvars; i++) {
		const struct ptx_var *v = &f->vars[i];
		if (v->space != PS_LOCAL || !v->size || n - f->nregs + (v->size + 3) / 4 > words)
			continue;
		df->slot[i] = n;
		for (unsigned w = 0; w < (v->size + 3) / 4; w++)
			r[n++] = (struct ptx_reg){ arena_printf(&L->a, "%%dirigo.%s.w%u", v->name, w), PT_B32, 1 };
	}
	f->regs = r;
	f->nregs = n;
	return 0;
}

static bool is_tag(const struct expr *e, uint64_t tag)
{
	return e && e->op == EOP_UNDEF && e->sort == SORT_BOOL && e->u == tag;
}

/* The slot register of the byte offset off of the variable addr points
 * into, for an access of size bytes; -1 after dx_unsupported. */
static long slot_of(struct dx_launch *L, const struct ptx_instr *in, const struct expr *addr, unsigned size,
                    unsigned *lo, unsigned *limit)
{
	const struct dx_func *df = dx_func_of(L->fn);
	uint64_t k;
	struct affine_term t[2];
	int n = e_affine(addr, &k, t, 2);
	if (n != 1 || t[0].coef != 1 || t[0].term->op != EOP_VAR || !DX_IS_SYMVAR(t[0].term->u) ||
	    !(DX_SYMVAR_INDEX(t[0].term->u) & DX_FNVAR)) {
		if (e_has_data(addr))
			return dx_unsupported(L, in, "local memory", "a local access at an offset that depends on data");
		if (e_has_thread(addr))
			return dx_unsupported(L, in, "local memory",
			                      "a local access at an offset that depends on the thread");
		return dx_unsupported(L, in, "local memory", "a local access outside a .local variable");
	}
	uint32_t vi = DX_SYMVAR_INDEX(t[0].term->u) & ~DX_FNVAR;
	const struct ptx_var *v = &L->fn->vars[vi];
	if (v->space != PS_LOCAL || df->slot[vi] == UINT32_MAX)
		return dx_unsupported(L, in, "local memory", "a local access to '%s', which is not a local "
		                      "variable of at most %u words", v->name, MAX_WORDS);
	int64_t off = (int64_t)k;
	if (off < 0 || (uint64_t)off + size > v->size || off % 4)
		return dx_unsupported(L, in, "local memory", "a local access at byte %lld of the %u-byte '%s'",
		                      (long long)off, v->size, v->name);
	*lo = df->slot[vi];
	*limit = df->slot[vi] + (v->size + 3) / 4;
	return (long)(df->slot[vi] + (uint64_t)off / 4);
}

static int load_word(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                     const struct ptx_operand *d, long s, unsigned limit, unsigned esz)
{
	const struct expr *v = b->regs[s];
	const struct expr *next = (unsigned long)s + 1 < limit ? b->regs[s + 1] : NULL;
	bool wide = is_tag(next, TAG_HI);
	if (is_tag(v, TAG_HI) || is_tag(v, TAG_OPAQUE) || (esz == 8) != wide)
		return dx_unsupported(L, in, "local memory", "a local load of part of a value stored with another size");
	sort_t want = dx_sort_of(in->type);
	if (!v)
		v = e_undef(L->cx, want);
	bool untyped = in->type >= PT_B8 && in->type <= PT_B64;
	if (v->sort != want && !(untyped && v->sort == SORT_REAL) && !(v = dx_coerce(L, in, v, want)))
		return -1;
	return dx_set(L, b, in, d, v);
}

static void overwrite(struct dx_bundle *b, struct ectx *cx, long s, unsigned n, unsigned first, unsigned limit)
{
	/* a value this store cuts in two becomes opaque */
	if (s > (long)first && is_tag(b->regs[s], TAG_HI))
		b->regs[s - 1] = e_undef_tag(cx, SORT_BOOL, TAG_OPAQUE);
	if ((unsigned long)(s + n) < limit && is_tag(b->regs[s + n], TAG_HI))
		b->regs[s + n] = e_undef_tag(cx, SORT_BOOL, TAG_OPAQUE);
}

int dx_local_access(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in, bool store)
{
	struct ectx *cx = L->cx;
	unsigned n = ptx_instr_vec(in), esz = ptx_type_bits(in->type) / 8;
	const struct ptx_operand *a = &in->ops[store ? 0 : 1], *v = &in->ops[store ? 1 : 0];
	if (in->nops != 2 || a->kind != PO_ADDR || !a->name)
		return dx_unsupported(L, in, "local memory", "a local access without a [base+offset] address");
	if (esz != 4 && esz != 8)
		return dx_unsupported(L, in, "local memory", "a local access of %u bytes", esz);
	if ((v->kind == PO_VEC) != (n > 1) || (v->kind == PO_VEC && v->nelems != n))
		return dx_unsupported(L, in, "local memory", "a local access whose operands do not match its type");
	struct ptx_operand base = { .kind = a->base_is_sym ? PO_SYM : PO_REG, .name = a->name, .reg = a->reg };
	const struct expr *p = a->base_is_sym ? dx_get_raw(L, b, in, &base) : dx_get(L, b, in, &base, SORT_BV(64));
	if (!p)
		return -1;
	p = e_op2(cx, EOP_ADD, p, e_bv(cx, (uint64_t)a->imm, 64));
	unsigned lo = 0, limit = 0;
	long s0 = slot_of(L, in, p, n * esz, &lo, &limit);
	if (s0 < 0)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		const struct ptx_operand *e = v->kind == PO_VEC ? &v->elems[i] : v;
		long s = s0 + (long)(i * esz / 4);
		if (e->kind == PO_SINK)
			continue;
		if (!store) {
			if (load_word(L, b, in, e, s, limit, esz) < 0)
				return -1;
			continue;
		}
		const struct expr *x = NULL;
		if (e->kind == PO_REG && in->type >= PT_B8 && in->type <= PT_B64) {
			x = dx_get_raw(L, b, in, e);
			if (x && x->sort != SORT_REAL)
				x = NULL;
		}
		if (!x && !(x = dx_get(L, b, in, e, dx_sort_of(in->type))))
			return -1;
		overwrite(b, cx, s, esz / 4, lo, limit);
		b->regs[s] = x;
		if (esz == 8)
			b->regs[s + 1] = e_undef_tag(cx, SORT_BOOL, TAG_HI);
	}
	return 0;
}
