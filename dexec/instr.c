/*
 * instr.c: the meaning of PTX's arithmetic, logic, comparison and
 * conversion instructions as expressions (paper 3.3.1): integers are
 * bitvectors, floats are reals (rounding modifiers, .ftz and .approx do
 * not change a real result; .sat clamps to [0, 1]), predicates are bools.
 *
 * Modelling gap: reals have no NaN, so the unordered comparisons (equ,
 * ltu, ...) are the ordered ones, setp.nan is false and setp.num is true.
 * Infinite constants (operand.c) are absorbed by max/min and ordered by
 * comparisons; any other arithmetic on them is unsupported.
 *
 * Also here: the pseudo-instructions of the pre-passes (dirigo.fun of the
 * rollup, nops, local memory) and the bit-field and carry instructions
 * (bfind bfe bfi prmt mul24 mad24 add.cc addc sub.cc subc testp).
 */
#include "dexec.h"

#include <string.h>

#define MODS(...) ((const char *const[]){ __VA_ARGS__, NULL })

struct ctx {
	struct dx_launch *L;
	struct dx_bundle *b;
	const struct ptx_instr *in;
	struct ectx *cx;
};

static const struct expr *arg(struct ctx *c, unsigned i, sort_t s)
{
	if (i >= c->in->nops) {
		dx_unsupported(c->L, c->in, "operands", "an instruction with too few operands");
		return NULL;
	}
	return dx_get(c->L, c->b, c->in, &c->in->ops[i], s);
}

static int set(struct ctx *c, const struct expr *v)
{
	if (!v)
		return -1;
	return dx_set(c->L, c->b, c->in, &c->in->ops[0], v);
}

/* An instruction (or variant) without exact meaning here: its results are
 * opaque values of its operands (opaque.c). */
static int opaque(struct ctx *c)
{
	return dx_opaque_instr(c->L, c->b, c->in,
	                       arena_printf(&c->L->a, "instruction '%s'", dx_instr_name(c->L, c->in)));
}

static const struct expr *clamp01(struct ectx *cx, const struct expr *v)
{
	const struct expr *lo = e_op2(cx, EOP_FMAX, v, e_real(cx, 0));
	return e_op2(cx, EOP_FMIN, lo, e_real(cx, 1));
}

static bool is_btype(enum ptx_type t)
{
	return t >= PT_B8 && t <= PT_B128;
}

/* An operand of an untyped (.bN) move or select: a real stays real. */
static const struct expr *arg_b(struct ctx *c, unsigned i, enum ptx_type t)
{
	if (i < c->in->nops && is_btype(t) && c->in->ops[i].kind == PO_REG) {
		const struct expr *e = dx_get_raw(c->L, c->b, c->in, &c->in->ops[i]);
		if (e && e->sort == SORT_REAL && (ptx_type_bits(t) == 32 || ptx_type_bits(t) == 64))
			return e;
	}
	return arg(c, i, dx_sort_of(t));
}

/* ---- comparisons -------------------------------------------------------- */

/* A comparison with an infinite constant: -inf < every real < +inf. */
static const struct expr *compare_inf(struct ctx *c, const char *m, const struct expr *a,
                                      const struct expr *b)
{
	if (e_has_undef(a) && !e_is_inf(a, 0)) {
		dx_unsupported(c->L, c->in, "non-finite float constant", "a comparison of an undefined value");
		return NULL;
	}
	if (e_has_undef(b) && !e_is_inf(b, 0)) {
		dx_unsupported(c->L, c->in, "non-finite float constant", "a comparison of an undefined value");
		return NULL;
	}
	int ra = e_is_inf(a, -1) ? -1 : e_is_inf(a, 1) ? 1 : 0;
	int rb = e_is_inf(b, -1) ? -1 : e_is_inf(b, 1) ? 1 : 0;
	int cmp = ra < rb ? -1 : ra > rb ? 1 : 0;    /* ra == rb: both the same infinity */
	size_t n = strlen(m);
	char base[4] = "";
	memcpy(base, m, n >= 3 && m[2] == 'u' ? 2 : n < 3 ? n : 3);
	bool v;
	if (!strcmp(base, "eq")) v = cmp == 0;
	else if (!strcmp(base, "ne")) v = cmp != 0;
	else if (!strcmp(base, "lt")) v = cmp < 0;
	else if (!strcmp(base, "le")) v = cmp <= 0;
	else if (!strcmp(base, "gt")) v = cmp > 0;
	else if (!strcmp(base, "ge")) v = cmp >= 0;
	else if (!strcmp(base, "num")) v = true;
	else if (!strcmp(base, "nan")) v = false;
	else {
		dx_unsupported(c->L, c->in, "non-finite float constant", "comparison '%s' with an infinity", m);
		return NULL;
	}
	return e_bool(c->cx, v);
}

/* Whether e is the address of a buffer of the trace with at least one
 * byte, or of a module variable: never null (a tensor passed as a null
 * pointer is the constant 0, and only an empty tensor may have none). */
static bool nonnull_base(struct ctx *c, const struct expr *e)
{
	if (e->op != EOP_VAR)
		return false;
	if (DX_IS_SYMVAR(e->u))
		return true;
	if (!EVAR_IS_BASE(e->u))
		return false;
	uint32_t v = EVAR_BASE_VALUE(e->u);
	return v < c->L->o->values.len && c->L->o->values.items[v].bytes > 0;
}

/* a == b, false where one side is such an address and the other 0
 * (`bias ? bias[c] : 0`: decided, not a condition on a free pointer). */
static const struct expr *equal(struct ctx *c, const struct expr *a, const struct expr *b)
{
	bool za = a->op == EOP_BV && !a->u, zb = b->op == EOP_BV && !b->u;
	if ((zb && nonnull_base(c, a)) || (za && nonnull_base(c, b)))
		return e_bool(c->cx, false);
	return e_op2(c->cx, EOP_EQ, a, b);
}

static const struct expr *compare(struct ctx *c, enum ptx_type t,
                                  const struct expr *a, const struct expr *b)
{
	struct ectx *cx = c->cx;
	const char *m = ptx_instr_mod_of(c->in, MODS("eq", "ne", "lt", "le", "gt", "ge",
	                                              "lo", "ls", "hi", "hs", "equ", "neu",
	                                              "ltu", "leu", "gtu", "geu", "num", "nan"));
	if (!m) {
		dx_unsupported(c->L, c->in, "comparison", "a comparison without an operator");
		return NULL;
	}
	if (ptx_type_is_float(t) && (e_is_inf(a, 0) || e_is_inf(b, 0)))
		return compare_inf(c, m, a, b);
	if (!strcmp(m, "eq") || !strcmp(m, "equ"))
		return equal(c, a, b);
	if (!strcmp(m, "ne") || !strcmp(m, "neu"))
		return e_not(cx, equal(c, a, b));
	if (ptx_type_is_float(t)) {
		if (!strcmp(m, "num"))
			return e_bool(cx, true);
		if (!strcmp(m, "nan"))
			return e_bool(cx, false);
		if (!strcmp(m, "lt") || !strcmp(m, "ltu")) return e_op2(cx, EOP_FLT, a, b);
		if (!strcmp(m, "le") || !strcmp(m, "leu")) return e_op2(cx, EOP_FLE, a, b);
		if (!strcmp(m, "gt") || !strcmp(m, "gtu")) return e_op2(cx, EOP_FLT, b, a);
		if (!strcmp(m, "ge") || !strcmp(m, "geu")) return e_op2(cx, EOP_FLE, b, a);
	} else {
		bool s = ptx_type_is_signed(t);
		enum eop lt = s ? EOP_SLT : EOP_ULT, le = s ? EOP_SLE : EOP_ULE;
		if (!strcmp(m, "lt")) return e_op2(cx, lt, a, b);
		if (!strcmp(m, "le")) return e_op2(cx, le, a, b);
		if (!strcmp(m, "gt")) return e_op2(cx, lt, b, a);
		if (!strcmp(m, "ge")) return e_op2(cx, le, b, a);
		if (!strcmp(m, "lo")) return e_op2(cx, EOP_ULT, a, b);
		if (!strcmp(m, "ls")) return e_op2(cx, EOP_ULE, a, b);
		if (!strcmp(m, "hi")) return e_op2(cx, EOP_ULT, b, a);
		if (!strcmp(m, "hs")) return e_op2(cx, EOP_ULE, b, a);
	}
	dx_unsupported(c->L, c->in, "comparison", "comparison '%s' on .%s", m, ptx_type_name(t));
	return NULL;
}

/* r combined with predicate operand i (setp/set .and/.or/.xor), if any. */
static const struct expr *combine(struct ctx *c, const struct expr *r, unsigned i)
{
	const char *m = ptx_instr_mod_of(c->in, MODS("and", "or", "xor"));
	if (!m)
		return r;
	const struct expr *p = arg(c, i, SORT_BOOL);
	if (!p)
		return NULL;
	if (!strcmp(m, "and"))
		return e_and(c->cx, r, p);
	if (!strcmp(m, "or"))
		return e_or(c->cx, r, p);
	return e_not(c->cx, e_op2(c->cx, EOP_EQ, r, p));
}

static int do_setp(struct ctx *c, enum ptx_type t)
{
	sort_t s = dx_sort_of(t);
	const struct expr *a = arg(c, 1, s), *b = a ? arg(c, 2, s) : NULL;
	const struct expr *r = b ? compare(c, t, a, b) : NULL;
	if (!r)
		return -1;
	const struct ptx_operand *d = &c->in->ops[0];
	const struct expr *p = combine(c, r, 3);
	if (!p)
		return -1;
	if (d->kind != PO_PAIR)
		return set(c, p);
	const struct expr *q = combine(c, e_not(c->cx, r), 3);
	if (!q || dx_set(c->L, c->b, c->in, &d->elems[0], p) < 0)
		return -1;
	return dx_set(c->L, c->b, c->in, &d->elems[1], q);
}

static int do_set(struct ctx *c)
{
	enum ptx_type st = c->in->type, dt = c->in->type2;
	sort_t s = dx_sort_of(st);
	const struct expr *a = arg(c, 1, s), *b = a ? arg(c, 2, s) : NULL;
	const struct expr *r = b ? compare(c, st, a, b) : NULL;
	if (r)
		r = combine(c, r, 3);
	if (!r)
		return -1;
	if (ptx_type_is_float(dt))
		return set(c, e_ite(c->cx, r, e_real(c->cx, 1), e_real(c->cx, 0)));
	unsigned w = ptx_type_bits(dt);
	return set(c, e_ite(c->cx, r, e_bv(c->cx, ~0ull, w), e_bv(c->cx, 0, w)));
}

/* ---- conversions ---------------------------------------------------------- */

static int irnd_mode(const struct ptx_instr *in, int dflt)
{
	const char *m = ptx_instr_mod_of(in, MODS("rni", "rzi", "rmi", "rpi"));
	if (!m)
		return dflt;
	return m[1] == 'n' ? RM_RN : m[1] == 'z' ? RM_RZ : m[1] == 'm' ? RM_RM : RM_RP;
}

/* Clamp bitvector v (of source type st) to the range of type dt. */
static const struct expr *int_sat(struct ectx *cx, const struct expr *v, enum ptx_type st,
                                  enum ptx_type dt)
{
	bool ss = ptx_type_is_signed(st), ds = ptx_type_is_signed(dt);
	unsigned dw = ptx_type_bits(dt);
	const struct expr *x = e_resize(cx, v, 64, ss);
	uint64_t hi = ds ? (1ull << (dw - 1)) - 1 : dw >= 64 ? ~0ull : (1ull << dw) - 1;
	if (ss) {
		uint64_t lo = ds ? (uint64_t)-(int64_t)(1ull << (dw - 1)) : 0;
		if (!(ds && dw >= 64))
			x = e_op2(cx, EOP_SMAX, x, e_bv(cx, lo, 64));
		if (!(ds && dw >= 64) && !(!ds && dw >= 64))
			x = e_op2(cx, EOP_SMIN, x, e_bv(cx, hi, 64));
	} else {
		x = e_op2(cx, EOP_UMIN, x, e_bv(cx, hi, 64));
	}
	return e_resize(cx, x, dw, false);
}

static int do_cvt(struct ctx *c)
{
	struct ectx *cx = c->cx;
	enum ptx_type st = c->in->type, dt = c->in->type2;
	if (dt == PT_NONE || st == PT_PRED || dt == PT_PRED)
		return dx_unsupported(c->L, c->in, "instruction 'cvt'", "a cvt without two types");
	bool sf = ptx_type_is_float(st), df = ptx_type_is_float(dt);
	bool sat = ptx_has_mod(c->in, "sat");
	const struct expr *v;
	const struct expr *raw = c->in->nops > 1 && c->in->ops[1].kind == PO_REG
	                         ? dx_get_raw(c->L, c->b, c->in, &c->in->ops[1]) : NULL;
	if (raw && (st == PT_F16 || st == PT_BF16) && raw->sort == SORT_BV(16) &&
	    (raw->op != EOP_BV || st == PT_BF16))
		/* half bits in a .b16 register, read as the half type the cvt names */
		v = e_reinterp(c->cx, dx_opaque_tag(c->L, c->in, "bit reinterpretation"), raw,
		               st == PT_F16 ? ET_F16 : ET_BF16);
	else
		v = arg(c, 1, dx_sort_of(st));
	if (!v)
		return -1;
	if (!sf && !df) {
		if (sat)
			return set(c, int_sat(cx, v, st, dt));
		return set(c, e_resize(cx, v, ptx_type_bits(dt), ptx_type_is_signed(st)));
	}
	if (!sf && df) {
		v = e_op1(cx, ptx_type_is_signed(st) ? EOP_S2R : EOP_U2R, SORT_REAL, 0, v);
		return set(c, sat ? clamp01(cx, v) : v);
	}
	if (sf && !df) {
		enum eop op = ptx_type_is_signed(dt) ? EOP_R2S : EOP_R2U;
		return set(c, e_op1(cx, op, SORT_BV(ptx_type_bits(dt)), (uint64_t)irnd_mode(c->in, RM_RZ), v));
	}
	int rm = irnd_mode(c->in, -1);
	if (rm >= 0) {
		static const enum efun f[] = { [RM_RN] = EF_RINT, [RM_RZ] = EF_TRUNC,
		                               [RM_RM] = EF_FLOOR, [RM_RP] = EF_CEIL };
		v = e_fun(cx, f[rm], 1, &v);
	}
	return set(c, sat ? clamp01(cx, v) : v);
}

/* ---- arithmetic ------------------------------------------------------------- */

/* How deep max and min look into selects for an infinite arm
 * (e_fminmax_inf). */
#define ITE_INF_DEPTH 4

static int float_op(struct ctx *c, enum dx_op op)
{
	struct ectx *cx = c->cx;
	const struct expr *a = arg(c, 1, SORT_REAL), *b = NULL, *d = NULL, *r = NULL;
	if (!a)
		return -1;
	bool binary = op == DO_ADD || op == DO_SUB || op == DO_MUL || op == DO_DIV ||
	              op == DO_MIN || op == DO_MAX || op == DO_COPYSIGN || op == DO_MAD || op == DO_FMA;
	if (binary && !(b = arg(c, 2, SORT_REAL)))
		return -1;
	if ((op == DO_MAD || op == DO_FMA) && !(d = arg(c, 3, SORT_REAL)))
		return -1;
	enum efun fn = EF__COUNT;
	if (op == DO_MAX || op == DO_MIN)
		return set(c, e_fminmax_inf(cx, op == DO_MAX ? EOP_FMAX : EOP_FMIN, a, b, ITE_INF_DEPTH));
	if (e_is_inf(a, 0) || e_is_inf(b, 0) || e_is_inf(d, 0)) {
		if (op == DO_NEG) {
			r = e_undef_tag(cx, SORT_REAL, e_is_inf(a, -1) ? DX_UNDEF_PINF : DX_UNDEF_NINF);
		} else if (op == DO_ABS) {
			r = e_undef_tag(cx, SORT_REAL, DX_UNDEF_PINF);
		} else {
			return dx_unsupported(c->L, c->in, "non-finite float constant",
			                      "arithmetic ('%s') on an infinite float constant", c->in->opcode);
		}
		return set(c, r);
	}
	switch (op) {
	case DO_ADD: r = e_op2(cx, EOP_FADD, a, b); break;
	case DO_SUB: r = e_op2(cx, EOP_FSUB, a, b); break;
	case DO_MUL: r = e_op2(cx, EOP_FMUL, a, b); break;
	case DO_DIV: r = e_op2(cx, EOP_FDIV, a, b); break;
	case DO_MAD:
	case DO_FMA: r = e_op2(cx, EOP_FADD, e_op2(cx, EOP_FMUL, a, b), d); break;
	case DO_NEG: r = e_op1(cx, EOP_FNEG, SORT_REAL, 0, a); break;
	case DO_ABS: r = e_op1(cx, EOP_FABS, SORT_REAL, 0, a); break;
	case DO_RCP: r = e_op2(cx, EOP_FDIV, e_real(cx, 1), a); break;
	case DO_COPYSIGN: {
		/* copysign d, a, b: |b| with the sign of a */
		const struct expr *m = e_op1(cx, EOP_FABS, SORT_REAL, 0, b);
		r = e_ite(cx, e_op2(cx, EOP_FLT, a, e_real(cx, 0)), e_op1(cx, EOP_FNEG, SORT_REAL, 0, m), m);
		break;
	}
	case DO_SQRT: fn = EF_SQRT; break;
	case DO_RSQRT: fn = EF_RSQRT; break;
	case DO_EX2: fn = EF_EXP2; break;
	case DO_LG2: fn = EF_LOG2; break;
	case DO_TANH: fn = EF_TANH; break;
	case DO_SIN: fn = EF_SIN; break;
	case DO_COS: fn = EF_COS; break;
	default:
		return opaque(c);
	}
	if (fn != EF__COUNT)
		r = e_fun(cx, fn, 1, &a);
	if (ptx_has_mod(c->in, "sat"))
		r = clamp01(cx, r);
	return set(c, r);
}

static const struct expr *mul_wide(struct ctx *c, const struct expr *a, const struct expr *b, bool s)
{
	unsigned w = 2 * SORT_WIDTH(a->sort);
	return e_op2(c->cx, EOP_MUL, e_resize(c->cx, a, w, s), e_resize(c->cx, b, w, s));
}

static int carry_op(struct ctx *c, int op, enum ptx_type t);

static int int_op(struct ctx *c, enum dx_op op, enum ptx_type t)
{
	struct ectx *cx = c->cx;
	unsigned w = ptx_type_bits(t);
	bool s = ptx_type_is_signed(t);
	sort_t st = SORT_BV(w);
	if (ptx_has_mod(c->in, "cc") && (op == DO_ADD || op == DO_SUB))
		return carry_op(c, op, t);
	if (ptx_has_mod(c->in, "cc"))
		return dx_unsupported(c->L, c->in, "instruction",
		                      "instruction '%s' with .cc on integers", c->in->opcode);
	if (ptx_instr_mod_of(c->in, MODS("sat", "relu")))
		return opaque(c);
	bool hi = ptx_has_mod(c->in, "hi"), wide = ptx_has_mod(c->in, "wide");
	/* the operand-width rule: .wide doubles the width, which must fit 64 bits */
	if (wide && 2 * w > 64)
		return dx_unsupported(c->L, c->in, "operand width", "'%s' makes a %u-bit product",
		                      dx_instr_name(c->L, c->in), 2 * w);
	const struct expr *a = arg(c, 1, st), *b = NULL, *d = NULL, *r = NULL;
	if (!a)
		return -1;
	bool unary = op == DO_NEG || op == DO_ABS || op == DO_NOT || op == DO_CNOT ||
	             op == DO_POPC || op == DO_CLZ || op == DO_BREV;
	if (!unary && !(b = arg(c, 2, (op == DO_SHL || op == DO_SHR) ? SORT_BV(32) : st)))
		return -1;
	if (op == DO_MAD && !(d = arg(c, 3, wide ? SORT_BV(2 * w) : st)))
		return -1;
	switch (op) {
	case DO_ADD: r = e_op2(cx, EOP_ADD, a, b); break;
	case DO_SUB: r = e_op2(cx, EOP_SUB, a, b); break;
	case DO_MUL:
	case DO_MAD:
		if (wide)
			r = mul_wide(c, a, b, s);
		else if (hi)
			r = e_op2(cx, s ? EOP_MULHI_S : EOP_MULHI_U, a, b);
		else
			r = e_op2(cx, EOP_MUL, a, b);
		if (op == DO_MAD)
			r = e_op2(cx, EOP_ADD, r, d);
		break;
	case DO_DIV: r = e_op2(cx, s ? EOP_SDIV : EOP_UDIV, a, b); break;
	case DO_REM: r = e_op2(cx, s ? EOP_SREM : EOP_UREM, a, b); break;
	case DO_SHL: r = e_op2(cx, EOP_SHL, a, e_resize(cx, b, w, false)); break;
	case DO_SHR: r = e_op2(cx, s ? EOP_ASHR : EOP_LSHR, a, e_resize(cx, b, w, false)); break;
	case DO_AND: r = e_op2(cx, EOP_AND, a, b); break;
	case DO_OR: r = e_op2(cx, EOP_OR, a, b); break;
	case DO_XOR: r = e_op2(cx, EOP_XOR, a, b); break;
	case DO_NOT: r = e_op1(cx, EOP_NOT, st, 0, a); break;
	case DO_CNOT:
		r = e_ite(cx, e_op2(cx, EOP_EQ, a, e_bv(cx, 0, w)), e_bv(cx, 1, w), e_bv(cx, 0, w));
		break;
	case DO_MIN: r = e_op2(cx, s ? EOP_SMIN : EOP_UMIN, a, b); break;
	case DO_MAX: r = e_op2(cx, s ? EOP_SMAX : EOP_UMAX, a, b); break;
	case DO_NEG: r = e_op1(cx, EOP_NEG, st, 0, a); break;
	case DO_ABS:
		r = e_ite(cx, e_op2(cx, EOP_SLT, a, e_bv(cx, 0, w)), e_op1(cx, EOP_NEG, st, 0, a), a);
		break;
	case DO_POPC: r = e_resize(cx, e_op1(cx, EOP_POPC, st, 0, a), 32, false); break;
	case DO_CLZ: r = e_resize(cx, e_op1(cx, EOP_CLZ, st, 0, a), 32, false); break;
	case DO_BREV: r = e_op1(cx, EOP_BREV, st, 0, a); break;
	default:
		return opaque(c);
	}
	return set(c, r);
}

static int pred_op(struct ctx *c, enum dx_op op)
{
	struct ectx *cx = c->cx;
	const struct expr *a = arg(c, 1, SORT_BOOL), *b = NULL;
	if (!a)
		return -1;
	if (op != DO_NOT && op != DO_CNOT && !(b = arg(c, 2, SORT_BOOL)))
		return -1;
	switch (op) {
	case DO_AND: return set(c, e_and(cx, a, b));
	case DO_OR: return set(c, e_or(cx, a, b));
	case DO_XOR: return set(c, e_not(cx, e_op2(cx, EOP_EQ, a, b)));
	case DO_NOT:
	case DO_CNOT: return set(c, e_not(cx, a));
	default:
		return opaque(c);
	}
}

static int do_mov(struct ctx *c, enum ptx_type t)
{
	if (c->in->nops != 2)
		return dx_unsupported(c->L, c->in, "instruction 'mov'", "a mov without two operands");
	const struct ptx_operand *d = &c->in->ops[0], *s = &c->in->ops[1];
	if (d->kind == PO_VEC || s->kind == PO_VEC)
		return set(c, arg(c, 1, SORT_BV(ptx_type_bits(t))));
	const struct expr *v;
	if (s->kind == PO_REG || s->kind == PO_SREG || s->kind == PO_SYM)
		v = dx_get_raw(c->L, c->b, c->in, s);
	else
		v = arg(c, 1, dx_sort_of(t));
	if (!v)
		return -1;
	if (d->kind == PO_REG && d->reg >= 0) {
		sort_t rs = dx_sort_of(c->L->fn->regs[d->reg].type);
		/* a float register receives a real; an integer one may keep a real */
		if (rs == SORT_REAL || SORT_KIND(rs) == SK_BOOL || SORT_KIND(v->sort) != SK_REAL)
			v = dx_coerce(c->L, c->in, v, rs);
	}
	return set(c, v);
}

/* ---- pseudo-instructions, bit fields, carries ------------------------------ */

int dx_decode_ext(const char *opcode)
{
	static const struct { const char *name; int op; } tab[] = {
		{ DX_OP_FUN, DO_FUN }, { DX_OP_NOP, DO_NOP }, { DX_OP_LDL, DO_LDL }, { DX_OP_STL, DO_STL },
		{ "bfind", DO_BFIND }, { "bfe", DO_BFE }, { "bfi", DO_BFI }, { "prmt", DO_PRMT },
		{ "mul24", DO_MUL24 }, { "mad24", DO_MAD24 }, { "addc", DO_ADDC }, { "subc", DO_SUBC },
		{ "testp", DO_TESTP }, { "membar", DO_FENCE }, { "fence", DO_FENCE },
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (!strcmp(tab[i].name, opcode))
			return tab[i].op;
	return DO_OTHER;
}

/* dirigo.fun d, EF | neg << 8, x[, y] (rollup.c) */
static int do_fun(struct ctx *c)
{
	if (c->in->nops < 3 || c->in->ops[1].kind != PO_IMM)
		return dx_unsupported(c->L, c->in, "instruction", "a malformed rolled-up function");
	enum efun f = (enum efun)(c->in->ops[1].imm & 0xff);
	bool neg = c->in->ops[1].imm & 0x100;
	const struct expr *a[2] = { arg(c, 2, SORT_REAL), NULL };
	if (!a[0] || (c->in->nops > 3 && !(a[1] = arg(c, 3, SORT_REAL))))
		return -1;
	if (e_is_inf(a[0], 0) || (a[1] && e_is_inf(a[1], 0)))
		return dx_unsupported(c->L, c->in, "non-finite float constant",
		                      "%s of an infinite float constant", efun_name(f));
	if (neg)
		a[0] = e_op1(c->cx, EOP_FNEG, SORT_REAL, 0, a[0]);
	return set(c, e_fun(c->cx, f, c->in->nops > 3 ? 2 : 1, a));
}

/* A constant operand as a number; -1 after dx_unsupported, -2 when it is
 * not a constant (the caller makes the result opaque). */
static int64_t const_arg(struct ctx *c, unsigned i)
{
	const struct expr *e = arg(c, i, SORT_BV(32));
	if (!e)
		return -1;
	if (e->op != EOP_BV)
		return -2;
	return (int64_t)e->u;
}

static int do_bfind(struct ctx *c, enum ptx_type t)
{
	struct ectx *cx = c->cx;
	unsigned w = ptx_type_bits(t);
	const struct expr *a = arg(c, 1, SORT_BV(w));
	if (!a)
		return -1;
	if (ptx_type_is_signed(t))     /* the highest bit unlike the sign */
		a = e_ite(cx, e_op2(cx, EOP_SLT, a, e_bv(cx, 0, w)), e_op1(cx, EOP_NOT, SORT_BV(w), 0, a), a);
	const struct expr *clz = e_resize(cx, e_op1(cx, EOP_CLZ, SORT_BV(w), 0, a), 32, false);
	const struct expr *pos = ptx_has_mod(c->in, "shiftamt") ? clz
	                         : e_op2(cx, EOP_SUB, e_bv(cx, w - 1, 32), clz);
	const struct expr *none = e_op2(cx, EOP_EQ, a, e_bv(cx, 0, w));
	return set(c, e_ite(cx, none, e_bv(cx, 0xffffffffu, 32), pos));
}

static int do_bfe(struct ctx *c, enum ptx_type t)
{
	unsigned w = ptx_type_bits(t);
	const struct expr *a = arg(c, 1, SORT_BV(w));
	int64_t pos = a ? const_arg(c, 2) : -1, len = pos >= 0 ? const_arg(c, 3) : pos;
	if (len == -2)
		return opaque(c);
	if (len < 0)
		return -1;
	pos &= 0xff;
	len &= 0xff;
	if (len == 0 || pos + len > w)
		return opaque(c);         /* PTX clamps; rare enough to leave opaque */
	const struct expr *x = e_op1(c->cx, EOP_EXTRACT, SORT_BV((unsigned)len), (uint64_t)pos, a);
	return set(c, e_resize(c->cx, x, w, ptx_type_is_signed(t)));
}

static int do_bfi(struct ctx *c, enum ptx_type t)
{
	struct ectx *cx = c->cx;
	unsigned w = ptx_type_bits(t);
	const struct expr *a = arg(c, 1, SORT_BV(w)), *b = a ? arg(c, 2, SORT_BV(w)) : NULL;
	int64_t pos = b ? const_arg(c, 3) : -1, len = pos >= 0 ? const_arg(c, 4) : pos;
	if (len == -2)
		return opaque(c);
	if (len < 0)
		return -1;
	pos &= 0xff;
	len &= 0xff;
	if (pos >= w)
		return set(c, b);
	if (pos + len > w)
		len = w - pos;
	uint64_t ones = len >= 64 ? ~0ull : (1ull << len) - 1, mask = ones << pos;
	const struct expr *keep = e_op2(cx, EOP_AND, b, e_bv(cx, ~mask, w));
	const struct expr *ins = e_op2(cx, EOP_AND, e_op2(cx, EOP_SHL, a, e_bv(cx, (uint64_t)pos, w)),
	                               e_bv(cx, mask, w));
	return set(c, e_op2(cx, EOP_OR, keep, ins));
}

static int do_prmt(struct ctx *c)
{
	struct ectx *cx = c->cx;
	if (ptx_instr_mod_of(c->in, MODS("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")))
		return opaque(c);
	const struct expr *a = arg(c, 1, SORT_BV(32)), *b = a ? arg(c, 2, SORT_BV(32)) : NULL;
	int64_t sel = b ? const_arg(c, 3) : -1;
	if (sel == -2)
		return opaque(c);
	if (sel < 0)
		return -1;
	const struct expr *src = e_op(cx, EOP_CONCAT, SORT_BV(64), 0, 2, (const struct expr *[]){ b, a });
	const struct expr *r = NULL;
	for (unsigned k = 0; k < 4; k++) {
		unsigned n = (unsigned)(sel >> (4 * k)) & 0xf;
		const struct expr *byte;
		if (n & 8)      /* replicate the sign of the byte */
			byte = e_resize(cx, e_op1(cx, EOP_EXTRACT, SORT_BV(1), 8 * (n & 7) + 7, src), 8, true);
		else
			byte = e_op1(cx, EOP_EXTRACT, SORT_BV(8), 8 * (n & 7), src);
		r = r ? e_op(cx, EOP_CONCAT, SORT_BV(8 * (k + 1)), 0, 2, (const struct expr *[]){ byte, r }) : byte;
	}
	return set(c, r);
}

static int do_mul24(struct ctx *c, enum ptx_type t, bool mad)
{
	struct ectx *cx = c->cx;
	bool s = ptx_type_is_signed(t), hi = ptx_has_mod(c->in, "hi");
	if (ptx_type_bits(t) != 32 || ptx_has_mod(c->in, "sat"))
		return opaque(c);
	const struct expr *a = arg(c, 1, SORT_BV(32)), *b = a ? arg(c, 2, SORT_BV(32)) : NULL;
	const struct expr *d = b && mad ? arg(c, 3, SORT_BV(32)) : NULL;
	if (!b || (mad && !d))
		return -1;
	a = e_resize(cx, e_resize(cx, a, 24, false), 64, s);
	b = e_resize(cx, e_resize(cx, b, 24, false), 64, s);
	const struct expr *p = e_op2(cx, EOP_MUL, a, b);
	p = e_op1(cx, EOP_EXTRACT, SORT_BV(32), hi ? 16 : 0, p);
	return set(c, mad ? e_op2(cx, EOP_ADD, p, d) : p);
}

/* add.cc sub.cc addc subc (and addc.cc subc.cc): the carry flag is a
 * register of its own (prepare.c); subtraction's flag is the borrow. */
static int carry_op(struct ctx *c, int op, enum ptx_type t)
{
	struct ectx *cx = c->cx;
	int cc = dx_func_of(c->L->fn)->cc_reg;
	unsigned w = ptx_type_bits(t);
	if (cc < 0 || (w != 32 && w != 64) || ptx_has_mod(c->in, "sat"))
		return dx_unsupported(c->L, c->in, "instruction", "'%s' on .%s", dx_instr_name(c->L, c->in),
		                      ptx_type_name(t));
	const struct expr *a = arg(c, 1, SORT_BV(w)), *b = a ? arg(c, 2, SORT_BV(w)) : NULL;
	if (!b)
		return -1;
	const struct expr *cin = e_bool(cx, false);
	if (op == DO_ADDC || op == DO_SUBC) {
		cin = c->b->regs[cc];
		if (!cin)
			cin = e_undef(cx, SORT_BOOL);
	}
	const struct expr *one = e_op1(cx, EOP_BOOL2BV, SORT_BV(w), 0, cin), *r, *cout;
	if (op == DO_ADD || op == DO_ADDC) {
		const struct expr *s1 = e_op2(cx, EOP_ADD, a, b);
		r = e_op2(cx, EOP_ADD, s1, one);
		cout = e_or(cx, e_op2(cx, EOP_ULT, s1, a), e_op2(cx, EOP_ULT, r, s1));
	} else {
		r = e_op2(cx, EOP_SUB, e_op2(cx, EOP_SUB, a, b), one);
		cout = e_or(cx, e_op2(cx, EOP_ULT, a, b), e_and(cx, e_op2(cx, EOP_EQ, a, b), cin));
	}
	if (set(c, r) < 0)
		return -1;
	if (ptx_has_mod(c->in, "cc"))
		c->b->regs[cc] = cout;
	return 0;
}

static int do_testp(struct ctx *c, enum ptx_type t)
{
	const char *m = ptx_instr_mod_of(c->in, MODS("finite", "infinite", "number", "notanumber"));
	const struct expr *a = arg(c, 1, dx_sort_of(t));
	if (!a)
		return -1;
	if (!m || !ptx_type_is_float(t))
		return opaque(c);
	bool inf = e_is_inf(a, 0);
	if (!inf && e_has_undef(a))
		return set(c, e_undef(c->cx, SORT_BOOL));
	bool v = !strcmp(m, "finite") ? !inf : !strcmp(m, "infinite") ? inf : !strcmp(m, "number");
	return set(c, e_bool(c->cx, v));
}

/* membar.{cta,gl,sys} and fence.{sc,acq_rel}.SCOPE order one thread's own
 * memory accesses as others see them.  A bundle already performs its
 * accesses in program order, and values are never carried between threads
 * but through barriers, so a fence changes no value here.  What a fence
 * can change is whether two threads' accesses race (a flag protocol over
 * fences orders them): so a kernel with a fence has its race findings
 * made unsupported instead (dx_finding).  Other fences (fence.proxy.*,
 * fence.mbarrier_init) belong to async copies dirigo does not model. */
static bool one_of(const char *s, const char *const *tab)
{
	for (unsigned j = 0; tab[j]; j++)
		if (!strcmp(s, tab[j]))
			return true;
	return false;
}

static int do_fence(struct ctx *c)
{
	static const char *const membar_scope[] = { "cta", "gl", "sys", NULL };
	static const char *const fence_sem[] = { "sc", "acq_rel", NULL };
	static const char *const fence_scope[] = { "cta", "cluster", "gpu", "sys", NULL };
	const struct ptx_instr *in = c->in;
	bool ok = in->nops == 0 &&
	          (!strcmp(in->opcode, "membar")
	           ? in->nmods == 1 && one_of(in->mods[0], membar_scope)
	           : in->nmods == 2 && one_of(in->mods[0], fence_sem) && one_of(in->mods[1], fence_scope));
	if (!ok)
		return dx_unsupported(c->L, in, arena_printf(&c->L->a, "instruction '%s'", dx_instr_name(c->L, in)),
		                      NULL);
	return 0;
}

static int ext_op(struct ctx *c, int op)
{
	enum ptx_type t = c->in->type;
	switch (op) {
	case DO_NOP: return 0;
	case DO_FENCE: return do_fence(c);
	case DO_FUN: return do_fun(c);
	case DO_LDL: return dx_local_access(c->L, c->b, c->in, false);
	case DO_STL: return dx_local_access(c->L, c->b, c->in, true);
	default: break;
	}
	if (c->in->nops < 2)
		return dx_unsupported(c->L, c->in, "operands", "an instruction with too few operands");
	if (t == PT_NONE || t == PT_PRED || (ptx_type_is_float(t) && op != DO_TESTP))
		return opaque(c);
	switch (op) {
	case DO_BFIND: return do_bfind(c, t);
	case DO_BFE: return do_bfe(c, t);
	case DO_BFI: return do_bfi(c, t);
	case DO_PRMT: return do_prmt(c);
	case DO_MUL24: return do_mul24(c, t, false);
	case DO_MAD24: return do_mul24(c, t, true);
	case DO_ADDC: case DO_SUBC: return carry_op(c, op, t);
	case DO_TESTP: return do_testp(c, t);
	default:
		return opaque(c);
	}
}

/* lop3.b32 d, a, b, c, lut: the bitwise function whose truth table is lut */
static int do_lop3(struct ctx *c)
{
	struct ectx *cx = c->cx;
	if (c->in->nops != 5 || c->in->ops[4].kind != PO_IMM)
		return opaque(c);
	const struct expr *x[3];
	for (unsigned i = 0; i < 3; i++)
		if (!(x[i] = arg(c, i + 1, SORT_BV(32))))
			return -1;
	unsigned lut = (unsigned)c->in->ops[4].imm & 0xff;
	const struct expr *r = e_bv(cx, 0, 32), *ones = e_bv(cx, 0xffffffffu, 32);
	/* bit (a << 2 | b << 1 | c) of lut, with a = 0xF0, b = 0xCC, c = 0xAA */
	for (unsigned m = 0; m < 8; m++) {
		if (!(lut & (1u << m)))
			continue;
		const struct expr *t = ones;
		for (unsigned i = 0; i < 3; i++) {
			bool bit = (m >> (2 - i)) & 1;
			t = e_op2(cx, EOP_AND, t, bit ? x[i] : e_op1(cx, EOP_NOT, SORT_BV(32), 0, x[i]));
		}
		r = e_op2(cx, EOP_OR, r, t);
	}
	return set(c, r);
}

/* shf.{l,r}.{wrap,clamp}.b32 d, a, b, n: the funnel shift of b:a */
static int do_shf(struct ctx *c)
{
	struct ectx *cx = c->cx;
	bool left = ptx_has_mod(c->in, "l"), wrap = ptx_has_mod(c->in, "wrap");
	if (c->in->nops != 4 || (!left && !ptx_has_mod(c->in, "r")) || (!wrap && !ptx_has_mod(c->in, "clamp")))
		return opaque(c);
	const struct expr *a = arg(c, 1, SORT_BV(32)), *b = a ? arg(c, 2, SORT_BV(32)) : NULL;
	const struct expr *n = b ? arg(c, 3, SORT_BV(32)) : NULL;
	if (!n)
		return -1;
	n = wrap ? e_op2(cx, EOP_AND, n, e_bv(cx, 31, 32)) : e_op2(cx, EOP_UMIN, n, e_bv(cx, 32, 32));
	const struct expr *ba = e_op(cx, EOP_CONCAT, SORT_BV(64), 0, 2, (const struct expr *[]){ b, a });
	const struct expr *n64 = e_resize(cx, n, 64, false);
	if (left)
		return set(c, e_op1(cx, EOP_EXTRACT, SORT_BV(32), 32, e_op2(cx, EOP_SHL, ba, n64)));
	return set(c, e_op1(cx, EOP_EXTRACT, SORT_BV(32), 0, e_op2(cx, EOP_LSHR, ba, n64)));
}

/* slct.dtype.s32 d, a, b, c (or .f32 c): d = c >= 0 ? a : b */
static int do_slct(struct ctx *c)
{
	struct ectx *cx = c->cx;
	enum ptx_type dt = c->in->type2, ct = c->in->type;
	if (c->in->nops != 4 || dt == PT_NONE || (ct != PT_S32 && ct != PT_F32))
		return opaque(c);
	sort_t s = dx_sort_of(dt);
	const struct expr *a = arg(c, 1, s), *b = a ? arg(c, 2, s) : NULL;
	const struct expr *k = b ? arg(c, 3, dx_sort_of(ct)) : NULL;
	if (!k)
		return -1;
	const struct expr *ge = ct == PT_S32 ? e_op2(cx, EOP_SLE, e_bv(cx, 0, 32), k)
	                                     : e_op2(cx, EOP_FLE, e_real(cx, 0), k);
	return set(c, e_ite(cx, ge, a, b));
}

/* An opcode dx_decode does not know: exact where it is simple, else opaque
 * when it is a pure function of its operands (opaque.c decides). */
static int other_op(struct ctx *c)
{
	const char *op = c->in->opcode;
	if (!strcmp(op, "lop3") && c->in->type == PT_B32)
		return do_lop3(c);
	if (!strcmp(op, "shf") && c->in->type == PT_B32)
		return do_shf(c);
	if (!strcmp(op, "slct"))
		return do_slct(c);
	return opaque(c);
}

int dx_alu(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in, enum dx_op op)
{
	struct ctx c = { L, b, in, L->cx };
	enum ptx_type t = in->type;
	if ((int)op >= (int)DO__COUNT)
		return ext_op(&c, (int)op);
	if (op == DO_OTHER)
		return other_op(&c);
	if (in->nops == 0)
		return dx_unsupported(L, in, "instruction", "instruction '%s' without operands", in->opcode);
	if (t == PT_B128)
		return dx_unsupported(L, in, "operand width", "instruction '%s' on 128-bit values",
		                      dx_instr_name(L, in));
	if (t == PT_F16X2 || t == PT_BF16X2 || t == PT_TF32)
		return opaque(&c);
	switch (op) {
	case DO_MOV: return do_mov(&c, t);
	case DO_CVTA: return set(&c, arg(&c, 1, SORT_BV(64)));
	case DO_CVT: return do_cvt(&c);
	case DO_SETP: return do_setp(&c, t);
	case DO_SET: return do_set(&c);
	case DO_SELP: {
		const struct expr *x = arg_b(&c, 1, t);
		const struct expr *y = x ? arg_b(&c, 2, t) : NULL;
		if (y && x->sort != y->sort)
			y = dx_coerce(L, in, y, x->sort);
		const struct expr *p = y ? arg(&c, 3, SORT_BOOL) : NULL;
		return p ? set(&c, e_ite(L->cx, p, x, y)) : -1;
	}
	default:
		break;
	}
	if (t == PT_PRED)
		return pred_op(&c, op);
	if (ptx_type_is_float(t))
		return float_op(&c, op);
	if (t == PT_NONE)
		return dx_unsupported(L, in, "instruction", "instruction '%s' without a type", in->opcode);
	return int_op(&c, op, t);
}
