/*
 * operand.c: reading and writing instruction operands of a bundle:
 * registers, immediates, special registers (%tid, %ctaid, %ntid, %nctaid,
 * %laneid, %warpid), and the coercions between sorts that PTX's untyped
 * .b registers need (a .b32 register may hold a real; constant bits are
 * reinterpreted; a LOAD leaf is re-read with the other element type).
 *
 * Infinite float constants (-inf as the start of a max reduction) have
 * no real value: they are undefined reals with a tag of their own, which
 * max/min absorb and comparisons order (instr.c); any other use of them
 * stays undefined, and an undefined value reaching a store, an address
 * or a branch is unsupported.  NaN constants are unsupported.
 */
#include "dexec.h"

#include <math.h>
#include <string.h>

/* The operand-width rule: registers and operands are at most 64 bits wide
 * (expressions are); a wider type (.b128) has no sort (0), and every
 * reader and writer of such an operand says so instead of building one. */
sort_t dx_sort_of(enum ptx_type t)
{
	if (t == PT_PRED)
		return SORT_BOOL;
	if (ptx_type_is_float(t))
		return SORT_REAL;
	unsigned bits = ptx_type_bits(t);
	if (bits > 64)
		return 0;
	return SORT_BV(bits ? bits : 32);
}

static bool sort_fits(sort_t s)
{
	return s == SORT_BOOL || s == SORT_REAL ||
	       (SORT_KIND(s) == SK_BV && SORT_WIDTH(s) >= 1 && SORT_WIDTH(s) <= 64);
}

/* Half precision bits to a double (finite values only). */
static double half_to_double(uint64_t h)
{
	int e = (int)((h >> 10) & 0x1f);
	double m = (double)(h & 0x3ff);
	double v = e == 0 ? ldexp(m, -24) : ldexp(m + 1024, e - 25);
	return (h & 0x8000) ? -v : v;
}

const struct expr *dx_real_bits(struct dx_launch *L, const struct ptx_instr *in,
                                uint64_t bits, unsigned width)
{
	double d;
	if (width == 32) {
		uint32_t u = (uint32_t)bits;
		float f;
		memcpy(&f, &u, sizeof f);
		d = f;
	} else if (width == 64) {
		memcpy(&d, &bits, sizeof d);
	} else if (width == 16) {
		if (((bits >> 10) & 0x1f) == 0x1f)
			d = NAN;
		else
			d = half_to_double(bits & 0xffff);
	} else {
		dx_unsupported(L, in, "float constant", "a %u-bit float constant", width);
		return NULL;
	}
	if (isinf(d))
		return e_undef_tag(L->cx, SORT_REAL, d > 0 ? DX_UNDEF_PINF : DX_UNDEF_NINF);
	if (isnan(d)) {
		dx_unsupported(L, in, "non-finite float constant", "a float constant NaN has no real value");
		return NULL;
	}
	return e_real(L->cx, d);
}

static uint64_t real_bits(double d, unsigned width)
{
	if (width == 32) {
		float f = (float)d;
		uint32_t u;
		memcpy(&u, &f, sizeof u);
		return u;
	}
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

static enum etype et_like(bool is_float, unsigned bytes)
{
	switch (bytes) {
	case 2: return is_float ? ET_F16 : ET_U16;
	case 4: return is_float ? ET_F32 : ET_U32;
	case 8: return is_float ? ET_F64 : ET_U64;
	default: return ET_NONE;
	}
}

/* The bits of real e as float type ft, or the float of bits e: exact
 * where an idiom shows the meaning (expr-bits.c), an opaque value tagged
 * with instruction in otherwise. */
static const struct expr *reinterp(struct dx_launch *L, const struct ptx_instr *in,
                                   const struct expr *e, enum etype ft, const char *what)
{
	const struct expr *r = NULL;
	if (in && ft != ET_NONE)
		r = e_reinterp(L->cx, dx_opaque_tag(L, in, what), e, ft);
	if (!r)
		dx_unsupported(L, in, "bit reinterpretation", "reinterpreting the bits of %s",
		               e->sort == SORT_REAL ? "a float as an integer" : "an integer as a float");
	return r;
}

const struct expr *dx_coerce(struct dx_launch *L, const struct ptx_instr *in,
                             const struct expr *e, sort_t want)
{
	struct ectx *cx = L->cx;
	sort_t have = e->sort;
	if (have == want)
		return e;
	if (!sort_fits(want)) {
		dx_unsupported(L, in, "operand width", "an operand wider than 64 bits");
		return NULL;
	}
	unsigned hk = SORT_KIND(have), wk = SORT_KIND(want);
	if (e_is_inf(e, 0) && wk == SK_BV && (SORT_WIDTH(want) == 32 || SORT_WIDTH(want) == 64)) {
		bool neg = e_is_inf(e, -1);   /* the bits of an infinity */
		uint64_t bits = SORT_WIDTH(want) == 32 ? (neg ? 0xff800000u : 0x7f800000u)
		                                       : (neg ? 0xfff0000000000000ull : 0x7ff0000000000000ull);
		return e_bv(cx, bits, SORT_WIDTH(want));
	}
	if (e->op == EOP_UNDEF)
		return e_undef(cx, want);
	if (hk == SK_BV && wk == SK_BV)
		return e_resize(cx, e, SORT_WIDTH(want), false);
	if (hk == SK_BOOL && wk == SK_BV)
		return e_op1(cx, EOP_BOOL2BV, want, 0, e);
	if (hk == SK_BV && wk == SK_BOOL)
		return e_not(cx, e_op2(cx, EOP_EQ, e, e_bv(cx, 0, SORT_WIDTH(have))));
	if (hk == SK_BV && wk == SK_REAL) {
		unsigned w = SORT_WIDTH(have);
		if (e->op == EOP_BV)
			return dx_real_bits(L, in, e->u, w);
		if (e->op == EOP_LOAD && !etype_is_float(e->et)) {
			enum etype t = et_like(true, etype_size(e->et));
			if (t != ET_NONE && etype_size(e->et) * 8 == w)
				return e_load(cx, e->space, t, e->args[0]);
		}
		return reinterp(L, in, e, et_like(true, w / 8), "bit reinterpretation");
	}
	if (hk == SK_REAL && wk == SK_BV) {
		unsigned w = SORT_WIDTH(want);
		if (e->op == EOP_REAL && (w == 32 || w == 64))
			return e_bv(cx, real_bits(e->d, w), w);
		/* the bits of a float load stay tied to the float read (not an
		 * integer load: that would resolve as an integer input) */
		return reinterp(L, in, e, et_like(true, w / 8), "bit reinterpretation");
	}
	dx_unsupported(L, in, "operand sort", "an operand of the wrong kind");
	return NULL;
}

/* The linear thread index within the block (tid.x when the block is 1D). */
static const struct expr *linear_tid(struct dx_launch *L)
{
	struct ectx *cx = L->cx;
	const struct expr *x = e_tid(cx, 0);
	if (L->geom.ntid[1] == 1 && L->geom.ntid[2] == 1)
		return x;
	const struct expr *y = e_tid(cx, 1), *z = e_tid(cx, 2);
	const struct expr *nx = e_bv(cx, L->geom.ntid[0], 32);
	const struct expr *ny = e_bv(cx, L->geom.ntid[1], 32);
	/* x + nx * (y + ny * z) */
	const struct expr *yz = e_op2(cx, EOP_ADD, y, e_op2(cx, EOP_MUL, ny, z));
	return e_op2(cx, EOP_ADD, x, e_op2(cx, EOP_MUL, nx, yz));
}

static const struct expr *sreg(struct dx_launch *L, const struct ptx_instr *in, const char *name)
{
	struct ectx *cx = L->cx;
	if (name[0] == '%')
		name++;
	const char *dot = strchr(name, '.');
	size_t n = dot ? (size_t)(dot - name) : strlen(name);
	int dim = -1;
	if (dot && dot[1] && !dot[2])
		dim = dot[1] == 'x' ? 0 : dot[1] == 'y' ? 1 : dot[1] == 'z' ? 2 : -1;
#define IS(s) (n == strlen(s) && strncmp(name, s, n) == 0)
	if (dim >= 0 && IS("tid"))
		return e_tid(cx, (unsigned)dim);
	if (dim >= 0 && IS("ctaid"))
		return e_ctaid(cx, (unsigned)dim);
	if (dim >= 0 && IS("ntid"))
		return e_bv(cx, L->geom.ntid[dim], 32);
	if (dim >= 0 && IS("nctaid"))
		return e_bv(cx, L->geom.nctaid[dim], 32);
	if (!dot && IS("laneid"))
		return e_op2(cx, EOP_AND, linear_tid(L), e_bv(cx, 31, 32));
	if (!dot && IS("warpid"))
		return e_op2(cx, EOP_LSHR, linear_tid(L), e_bv(cx, 5, 32));
	if (!dot && IS("nwarpid")) {
		uint64_t t = (uint64_t)L->geom.ntid[0] * L->geom.ntid[1] * L->geom.ntid[2];
		return e_bv(cx, (t + 31) / 32, 32);
	}
	if (!dot && n > 9 && !strncmp(name, "lanemask_", 9)) {
		const struct expr *lane = e_op2(cx, EOP_AND, linear_tid(L), e_bv(cx, 31, 32));
		const struct expr *bit = e_op2(cx, EOP_SHL, e_bv(cx, 1, 32), lane);
		const struct expr *lt = e_op2(cx, EOP_SUB, bit, e_bv(cx, 1, 32));
		const struct expr *le = e_op2(cx, EOP_OR, lt, bit);
		const char *k = name + 9;
		if (!strcmp(k, "eq")) return bit;
		if (!strcmp(k, "lt")) return lt;
		if (!strcmp(k, "le")) return le;
		if (!strcmp(k, "gt")) return e_op1(cx, EOP_NOT, SORT_BV(32), 0, le);
		if (!strcmp(k, "ge")) return e_op1(cx, EOP_NOT, SORT_BV(32), 0, lt);
	}
	if (!dot && IS("dynamic_smem_size"))
		return e_bv(cx, L->l->shmem, 32);
#undef IS
	/* %clock, %smid, %globaltimer, ...: no value in the model */
	return dx_opaque_sreg(L, in, name);
}

const struct expr *dx_get_raw(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                              const struct ptx_operand *op)
{
	struct ectx *cx = L->cx;
	switch (op->kind) {
	case PO_REG: {
		if (op->reg < 0 || (unsigned)op->reg >= L->fn->nregs) {
			dx_unsupported(L, in, "register", "register '%s' is not declared", op->name);
			return NULL;
		}
		const struct expr *v = b->regs[op->reg];
		if (!v) {
			sort_t rs = dx_sort_of(L->fn->regs[op->reg].type);
			if (!rs) {
				dx_unsupported(L, in, "operand width", "register '%s' is wider than 64 bits", op->name);
				return NULL;
			}
			v = e_undef(cx, rs);
		}
		if (op->neg) {
			if (v->sort != SORT_BOOL) {
				dx_unsupported(L, in, "operand", "'!' on a register that is not a predicate");
				return NULL;
			}
			v = e_not(cx, v);
		}
		return v;
	}
	case PO_SREG:
		return sreg(L, in, op->name);
	case PO_IMM:
		return e_bv(cx, (uint64_t)op->imm, 64);
	case PO_FIMM:
		return dx_real_bits(L, in, op->bits, op->fwidth);
	case PO_SYM: {
		if (!strcmp(op->name, "WARP_SZ"))      /* PTX's predefined constant: warpSize */
			return e_bv(cx, 32, 32);
		for (unsigned i = 0; i < L->fn->nvars; i++)
			if (strcmp(L->fn->vars[i].name, op->name) == 0)
				return e_var(cx, DX_SYMVAR(DX_FNVAR | i), SORT_BV(64));
		for (unsigned i = 0; i < L->mod->nvars; i++)
			if (strcmp(L->mod->vars[i].name, op->name) == 0)
				return e_var(cx, DX_SYMVAR(i), SORT_BV(64));
		dx_unsupported(L, in, "symbol operand", "the address of '%s'", op->name);
		return NULL;
	}
	default:
		dx_unsupported(L, in, "operand", "an operand of this kind");
		return NULL;
	}
}

const struct expr *dx_get(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                          const struct ptx_operand *op, sort_t want)
{
	struct ectx *cx = L->cx;
	if (!sort_fits(want)) {
		dx_unsupported(L, in, "operand width", "an operand wider than 64 bits");
		return NULL;
	}
	if (op->kind == PO_IMM) {
		if (SORT_KIND(want) == SK_BV)
			return e_bv(cx, (uint64_t)op->imm, SORT_WIDTH(want));
		if (want == SORT_REAL)
			return e_real(cx, (double)op->imm);
		return e_bool(cx, op->imm != 0);
	}
	if (op->kind == PO_FIMM && SORT_KIND(want) == SK_BV)
		return e_bv(cx, op->bits, SORT_WIDTH(want));
	if (op->kind == PO_VEC && SORT_KIND(want) == SK_BV) {
		/* {lo, ..., hi} packed into one bitvector */
		unsigned n = op->nelems, w = SORT_WIDTH(want);
		if (n == 0 || w % n) {
			dx_unsupported(L, in, "vector operand", "a vector operand of %u elements", n);
			return NULL;
		}
		const struct expr *acc = NULL;
		for (unsigned i = 0; i < n; i++) {
			const struct expr *e = dx_get(L, b, in, &op->elems[i], SORT_BV(w / n));
			if (!e)
				return NULL;
			acc = acc ? e_op(cx, EOP_CONCAT, SORT_BV(SORT_WIDTH(acc->sort) + w / n), 0, 2,
			                 (const struct expr *[]){ e, acc }) : e;
		}
		return acc;
	}
	const struct expr *e = dx_get_raw(L, b, in, op);
	return e ? dx_coerce(L, in, e, want) : NULL;
}

int dx_set(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
           const struct ptx_operand *op, const struct expr *v)
{
	if (op->kind == PO_SINK)
		return 0;
	if (op->kind == PO_VEC && SORT_KIND(v->sort) == SK_BV) {
		/* unpack: {lo, ..., hi} = v */
		unsigned n = op->nelems, w = SORT_WIDTH(v->sort);
		if (n == 0 || w % n)
			return dx_unsupported(L, in, "vector operand", "a vector operand of %u elements", n);
		for (unsigned i = 0; i < n; i++) {
			const struct expr *e = e_op1(L->cx, EOP_EXTRACT, SORT_BV(w / n), i * (w / n), v);
			if (dx_set(L, b, in, &op->elems[i], e) < 0)
				return -1;
		}
		return 0;
	}
	if (op->kind != PO_REG || op->reg < 0 || (unsigned)op->reg >= L->fn->nregs)
		return dx_unsupported(L, in, "destination", "a destination that is not a register");
	sort_t rs = dx_sort_of(L->fn->regs[op->reg].type);
	if (!rs)
		return dx_unsupported(L, in, "operand width", "register '%s' is wider than 64 bits", op->name);
	if (SORT_KIND(rs) == SK_BV && SORT_KIND(v->sort) == SK_BV && rs != v->sort)
		v = e_resize(L->cx, v, SORT_WIDTH(rs), false);
	b->regs[op->reg] = v;
	return 0;
}

const struct ptx_var *dx_var(struct dx_launch *L, uint32_t index)
{
	if (index & DX_FNVAR)
		return &L->fn->vars[index & ~DX_FNVAR];
	return &L->mod->vars[index];
}
