/*
 * interp-decode.c: turns the PTX IR of a module into the interpreter's
 * compact form (interp-impl.h) for one launch: lays out shared memory,
 * module variables and parameter areas, binds variables to the caller's
 * buffers, and decodes every instruction into opcodes and register slots,
 * so that execution never compares strings.
 *
 * Instructions the interpreter does not know decode to I_UNSUPPORTED and
 * fail only when a thread reaches them.
 */
#include "libcommon/ptx/interp-impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dec {
	struct ictx *c;
	struct program *p;
	const struct ptx_module *m;
	const struct ptx_func *f;
	struct dfunc *df;
	uint64_t *var_addr;            /* per module var: address (shared: shared offset) */
	uint32_t *fvar_off;            /* per var of the current function: offset */
	VEC(uint64_t) consts;
	uint32_t *hash; uint32_t hcap; /* const value -> slot */
	uint32_t nfixed;               /* leading constants that are fixed slots */
	VEC(struct dinst) code;
	VEC(struct dcall) calls;
	char msg[256];
};

static uint32_t align_up(uint32_t x, uint32_t a)
{
	return a > 1 ? (x + a - 1) / a * a : x;
}

/* ---- constant slots ---- */

static uint32_t hash64(uint64_t v)
{
	v ^= v >> 33;
	v *= UINT64_C(0xff51afd7ed558ccd);
	v ^= v >> 33;
	return (uint32_t)v;
}

static uint32_t const_slot(struct dec *D, uint64_t v)
{
	if (D->consts.len * 2 >= D->hcap) {
		uint32_t ncap = D->hcap ? D->hcap * 2 : 64;
		free(D->hash);
		D->hash = xmalloc(ncap * sizeof *D->hash);
		memset(D->hash, 0xff, ncap * sizeof *D->hash);
		D->hcap = ncap;
		for (uint32_t i = D->nfixed; i < D->consts.len; i++) {
			uint32_t h = hash64(D->consts.items[i]) & (ncap - 1);
			while (D->hash[h] != UINT32_MAX)
				h = (h + 1) & (ncap - 1);
			D->hash[h] = i;
		}
	}
	uint32_t h = hash64(v) & (D->hcap - 1);
	while (D->hash[h] != UINT32_MAX) {
		if (D->consts.items[D->hash[h]] == v)
			return D->df->nregs + D->hash[h];
		h = (h + 1) & (D->hcap - 1);
	}
	D->hash[h] = (uint32_t)D->consts.len;
	VEC_PUSH(D->consts, v);
	return D->df->nregs + (uint32_t)(D->consts.len - 1);
}

/* ---- symbols ---- */

enum symkind { SK_NONE, SK_ADDR, SK_LOCAL, SK_KPARAM, SK_FPARAM, SK_FUNC };

struct sym {
	enum symkind kind;
	uint64_t addr;         /* SK_ADDR: address in its space; SK_LOCAL/PARAM: offset */
	enum ptx_space space;
	uint32_t size;
};

static struct sym lookup(struct dec *D, const char *name)
{
	struct sym s = { SK_NONE, 0, PS_NONE, 0 };
	const struct ptx_func *f = D->f;
	for (unsigned i = 0; i < f->nvars; i++) {
		const struct ptx_var *v = &f->vars[i];
		if (strcmp(v->name, name) != 0)
			continue;
		s.space = v->space;
		s.size = v->size;
		s.addr = D->fvar_off[i];
		s.kind = v->space == PS_LOCAL ? SK_LOCAL : v->space == PS_PARAM ? SK_FPARAM : SK_ADDR;
		return s;
	}
	for (unsigned i = 0; i < f->nparams; i++)
		if (strcmp(f->params[i].name, name) == 0) {
			s.space = PS_PARAM;
			s.size = f->params[i].size;
			if (f->is_entry) {
				s.kind = SK_KPARAM;
				s.addr = f->params[i].offset;
			} else {
				s.kind = SK_FPARAM;
				s.addr = D->df->formal_off[i];
			}
			return s;
		}
	for (unsigned i = 0; i < f->nrets; i++)
		if (strcmp(f->rets[i].name, name) == 0) {
			s.space = PS_PARAM;
			s.size = f->rets[i].size;
			s.kind = SK_FPARAM;
			s.addr = D->df->ret_off[i];
			return s;
		}
	for (unsigned i = 0; i < D->m->nvars; i++)
		if (strcmp(D->m->vars[i].name, name) == 0) {
			s.space = D->m->vars[i].space;
			s.size = D->m->vars[i].size;
			s.addr = D->var_addr[i];
			s.kind = s.space == PS_LOCAL ? SK_NONE : SK_ADDR;
			return s;
		}
	for (unsigned i = 0; i < D->m->nfuncs; i++)
		if (strcmp(D->m->funcs[i].name, name) == 0) {
			s.kind = SK_FUNC;
			s.addr = i;
			return s;
		}
	return s;
}

/* ---- operands ---- */

static bool bad(struct dec *D, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool bad(struct dec *D, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(D->msg, sizeof D->msg, fmt, ap);
	va_end(ap);
	return false;
}

/* A source operand read at width w (float literals converted to fw bits
 * when the instruction is a float one: fw 32 or 64, 0 otherwise). */
static bool src(struct dec *D, const struct ptx_operand *o, unsigned fw, uint32_t *slot)
{
	switch (o->kind) {
	case PO_REG:
		if (o->reg < 0)
			return bad(D, "unknown register '%s'", o->name);
		*slot = (uint32_t)o->reg;
		return true;
	case PO_IMM:
		if (fw == 32) {
			float x = (float)o->imm;
			uint32_t b;
			memcpy(&b, &x, 4);
			*slot = const_slot(D, b);
		} else if (fw == 64) {
			double x = (double)o->imm;
			uint64_t b;
			memcpy(&b, &x, 8);
			*slot = const_slot(D, b);
		} else {
			*slot = const_slot(D, (uint64_t)o->imm);
		}
		return true;
	case PO_FIMM: {
		uint64_t b = o->bits;
		if (fw == 32 && o->fwidth == 64) {
			double x;
			memcpy(&x, &b, 8);
			float y = (float)x;
			uint32_t u;
			memcpy(&u, &y, 4);
			b = u;
		} else if (fw == 64 && o->fwidth == 32) {
			uint32_t u = (uint32_t)b;
			float y;
			memcpy(&y, &u, 4);
			double x = y;
			memcpy(&b, &x, 8);
		}
		*slot = const_slot(D, b);
		return true;
	}
	case PO_SYM: {
		if (!strcmp(o->name, "WARP_SZ")) {        /* PTX's predefined constant (warpSize) */
			*slot = const_slot(D, 32);
			return true;
		}
		struct sym s = lookup(D, o->name);
		if (s.kind != SK_ADDR)
			return bad(D, "the address of '%s' is not supported here", o->name);
		*slot = const_slot(D, s.addr);
		return true;
	}
	default:
		return bad(D, "unsupported operand kind");
	}
}

static bool dst(struct dec *D, const struct ptx_operand *o, uint32_t *slot)
{
	if (o->kind == PO_SINK) {
		*slot = D->df->slot_sink;
		return true;
	}
	if (o->kind != PO_REG || o->reg < 0)
		return bad(D, "bad destination operand");
	*slot = (uint32_t)o->reg;
	return true;
}

/* [base+off] for space: sets di->a (base slot) and di->imm; param
 * accesses become I_LDK/I_LDP/I_STP with the offset in imm. */
static bool addr(struct dec *D, const struct ptx_operand *o, struct dinst *di)
{
	if (o->kind != PO_ADDR)
		return bad(D, "expected an address operand");
	di->imm = o->imm;
	if (o->base_is_sym) {
		struct sym s = lookup(D, o->name);
		switch (s.kind) {
		case SK_ADDR:
			di->a = const_slot(D, 0);
			di->imm += (int64_t)s.addr;
			return true;
		case SK_LOCAL:
			di->a = D->df->slot_local;
			di->imm += (int64_t)s.addr;
			return true;
		case SK_KPARAM:
			if (di->op == I_ST || di->op == I_ATOM)
				return bad(D, "write to kernel parameter '%s'", o->name);
			di->op = I_LDK;
			di->imm += (int64_t)s.addr;
			return true;
		case SK_FPARAM:
			if (di->op == I_ATOM)
				return bad(D, "atomic on a parameter");
			di->op = di->op == I_ST ? I_STP : I_LDP;
			di->imm += (int64_t)s.addr;
			return true;
		default:
			return bad(D, "unknown symbol '%s' in an address", o->name);
		}
	}
	if (o->name == NULL || o->reg < 0) {
		if (o->name)
			return bad(D, "unknown register '%s'", o->name);
		di->a = const_slot(D, 0);       /* [imm] */
		return true;
	}
	if (di->space == PS_PARAM)
		return bad(D, "parameter access through a register");
	di->a = (uint32_t)o->reg;
	return true;
}

/* ---- instructions ---- */

static int mod_index(const struct ptx_instr *pi, const char *const *set)
{
	const char *m = ptx_instr_mod_of(pi, set);
	if (!m)
		return -1;
	for (int i = 0; set[i]; i++)
		if (strcmp(set[i], m) == 0)
			return i;
	return -1;
}

static unsigned rnd_of(const struct ptx_instr *pi)
{
	static const char *const r[] = { "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", NULL };
	int i = mod_index(pi, r);
	return i < 0 ? RNONE : (unsigned)i;
}

static const char *const cmp_names[] = { "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi",
	"hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan", NULL };

static unsigned width_of(enum ptx_type t)
{
	return t == PT_PRED ? 1 : ptx_type_bits(t);
}

static bool need(struct dec *D, const struct ptx_instr *pi, unsigned n)
{
	if (pi->nops < n)
		return bad(D, "too few operands");
	return true;
}

/* Sources ops[first..] into a, b, c, e. */
static bool srcs(struct dec *D, const struct ptx_instr *pi, struct dinst *di, unsigned first,
                 unsigned n, unsigned fw)
{
	uint32_t *s[4] = { &di->a, &di->b, &di->c, &di->e };
	if (!need(D, pi, first + n))
		return false;
	for (unsigned i = 0; i < n; i++)
		if (!src(D, &pi->ops[first + i], fw, s[i]))
			return false;
	return true;
}

static bool simple(struct dec *D, const struct ptx_instr *pi, struct dinst *di, enum iop op,
                   unsigned nsrc, unsigned fw)
{
	di->op = (uint8_t)op;
	if (!need(D, pi, 1 + nsrc) || !dst(D, &pi->ops[0], &di->d))
		return false;
	return srcs(D, pi, di, 1, nsrc, fw);
}

static bool dec_float_or_int(struct dec *D, const struct ptx_instr *pi, struct dinst *di,
                             enum iop fop, enum iop iop, unsigned nsrc)
{
	bool fl = ptx_type_is_float(pi->type);
	if (fl && pi->type != PT_F32 && pi->type != PT_F64)
		return bad(D, "%s arithmetic is not supported", ptx_type_name(pi->type));
	return simple(D, pi, di, fl ? fop : iop, nsrc, fl ? di->w : 0);
}

static bool dec_ldst(struct dec *D, const struct ptx_instr *pi, struct dinst *di, bool is_st)
{
	di->op = is_st ? I_ST : I_LD;
	di->space = (uint8_t)ptx_instr_space(pi);
	unsigned vec = ptx_instr_vec(pi);
	if (vec > 4)
		return bad(D, "vectors of %u elements are not supported", vec);
	di->vec = (uint8_t)vec;
	if (di->w < 8)
		return bad(D, "bad type for a memory access");
	di->w2 = (uint8_t)(di->w / 8);
	if (!need(D, pi, 2))
		return false;
	const struct ptx_operand *val = &pi->ops[is_st ? 1 : 0];
	if (!addr(D, &pi->ops[is_st ? 0 : 1], di))
		return false;
	if (vec == 1) {
		if (val->kind == PO_VEC)
			return bad(D, "vector operand without .v2/.v4");
		return is_st ? src(D, val, ptx_type_is_float(pi->type) ? di->w : 0, &di->v[0])
		             : dst(D, val, &di->v[0]);
	}
	if (val->kind != PO_VEC || val->nelems != vec)
		return bad(D, "expected a vector of %u elements", vec);
	for (unsigned i = 0; i < vec; i++) {
		bool ok = is_st ? src(D, &val->elems[i], ptx_type_is_float(pi->type) ? di->w : 0, &di->v[i])
		                : dst(D, &val->elems[i], &di->v[i]);
		if (!ok)
			return false;
	}
	return true;
}

static bool dec_call(struct dec *D, const struct ptx_instr *pi, struct dinst *di)
{
	const struct ptx_operand *rets = NULL, *fn = NULL, *args = NULL;
	unsigned k = 0;
	if (k < pi->nops && pi->ops[k].kind == PO_PARAMLIST)
		rets = &pi->ops[k++];
	if (k < pi->nops)
		fn = &pi->ops[k++];
	if (k < pi->nops && pi->ops[k].kind == PO_PARAMLIST)
		args = &pi->ops[k++];
	if (!fn || fn->kind != PO_SYM)
		return bad(D, "indirect calls are not supported");
	struct sym s = lookup(D, fn->name);
	if (s.kind != SK_FUNC)
		return bad(D, "call of unknown function '%s'", fn->name);
	const struct ptx_func *g = &D->m->funcs[s.addr];
	if (!g->has_body)
		return bad(D, "call of '%s', which has no body", g->name);
	unsigned na = args ? args->nelems : 0, nr = rets ? rets->nelems : 0;
	if (na != g->nparams || nr != g->nrets)
		return bad(D, "call of '%s' with %u arguments and %u returns (expected %u and %u)",
		           g->name, na, nr, g->nparams, g->nrets);
	struct dcall dc = { .func = (uint32_t)s.addr, .nargs = na, .nrets = nr };
	dc.arg_off = xcalloc(na + nr + 1, sizeof(uint32_t));
	dc.arg_size = xcalloc(na + nr + 1, sizeof(uint32_t));
	dc.ret_off = dc.arg_off + na;
	dc.ret_size = dc.arg_size + na;
	for (unsigned i = 0; i < na + nr; i++) {
		const struct ptx_operand *o = i < na ? &args->elems[i] : &rets->elems[i - na];
		struct sym q = o->kind == PO_SYM ? lookup(D, o->name) : (struct sym){ SK_NONE, 0, 0, 0 };
		if (q.kind != SK_FPARAM) {
			free(dc.arg_off);
			free(dc.arg_size);
			return bad(D, "call arguments must be .param variables");
		}
		dc.arg_off[i] = (uint32_t)q.addr;
		dc.arg_size[i] = q.size;
	}
	di->op = I_CALL;
	di->target = (uint32_t)D->calls.len;
	VEC_PUSH(D->calls, dc);
	return true;
}

/* The decoders of the instruction families.  Each returns 1 when it
 * decoded pi into di, 0 when pi is of its family but cannot be decoded
 * (bad() said why), and DEC_OTHER when pi's opcode is not of its family.
 * fw is the width of a float operand (0 for integers), as src() takes it. */
#define DEC_OTHER (-1)
typedef int dec_family(struct dec *D, const struct ptx_instr *pi, struct dinst *di, unsigned fw);

#define IS(s) (strcmp(op, (s)) == 0)

/* Moves: of registers, special registers, vectors, a local's address. */
static int dec_move(struct dec *D, const struct ptx_instr *pi, struct dinst *di, unsigned fw)
{
	const char *op = pi->opcode;
	if (IS("mov")) {
		if (!need(D, pi, 2))
			return false;
		const struct ptx_operand *d = &pi->ops[0], *s = &pi->ops[1];
		if (s->kind == PO_SREG) {
			static const char *const sn[] = { "%tid", "%ntid", "%ctaid", "%nctaid", "%laneid",
				"%warpid", "%nwarpid", "%lanemask_eq", "%lanemask_lt", "%lanemask_le",
				"%lanemask_gt", "%lanemask_ge", "%clock", "%smid", "%dynamic_smem_size",
				"%total_smem_size", "%clock64", "%nsmid", "%gridid", NULL };
			size_t n = strcspn(s->name, ".");
			int k = -1;
			for (int i = 0; sn[i]; i++)
				if (strlen(sn[i]) == n && memcmp(sn[i], s->name, n) == 0)
					k = i;
			if (k < 0)
				return bad(D, "special register '%s' is not supported", s->name);
			static const uint8_t map[] = { S_TID, S_NTID, S_CTAID, S_NCTAID, S_LANEID,
				S_WARPID, S_NWARPID, S_LANEMASK_EQ, S_LANEMASK_LT, S_LANEMASK_LE,
				S_LANEMASK_GT, S_LANEMASK_GE, S_CLOCK, S_ZERO, S_DSMEM, S_TSMEM,
				S_CLOCK, S_ZERO, S_ZERO };
			di->op = I_SREG;
			di->sub = map[k];
			const char *comp = s->name + n;
			di->sub2 = (uint8_t)(comp[0] == '.' ? (comp[1] == 'y' ? 1 : comp[1] == 'z' ? 2 : 0) : 0);
			return dst(D, d, &di->d);
		}
		if (d->kind == PO_VEC || s->kind == PO_VEC) {
			const struct ptx_operand *v = d->kind == PO_VEC ? d : s;
			if (v->nelems < 2 || v->nelems > 4 || di->w % v->nelems)
				return bad(D, "bad vector in mov");
			di->vec = (uint8_t)v->nelems;
			di->w2 = (uint8_t)(di->w / v->nelems);
			for (unsigned i = 0; i < v->nelems; i++)
				if (!(d->kind == PO_VEC ? dst(D, &v->elems[i], &di->v[i])
				                        : src(D, &v->elems[i], 0, &di->v[i])))
					return false;
			if (d->kind == PO_VEC) {
				di->op = I_UNPACK;
				return src(D, s, 0, &di->a);
			}
			di->op = I_PACK;
			return dst(D, d, &di->d);
		}
		if (s->kind == PO_SYM) {
			struct sym q = lookup(D, s->name);
			if (q.kind == SK_LOCAL) {
				di->op = I_ADD;
				di->w = 64;
				di->a = D->df->slot_local;
				di->b = const_slot(D, q.addr);
				return dst(D, d, &di->d);
			}
		}
		return simple(D, pi, di, I_MOV, 1, fw);
	}
	return DEC_OTHER;
}

/* Integer and float arithmetic. */
static int dec_arith(struct dec *D, const struct ptx_instr *pi, struct dinst *di, unsigned fw)
{
	const char *op = pi->opcode;
	(void)fw;
	if (IS("add") || IS("sub")) {
		bool add = IS("add");
		if (!dec_float_or_int(D, pi, di, add ? I_FADD : I_FSUB, add ? I_ADD : I_SUB, 2))
			return false;
		di->d2 = (di->flags & DF_CC) ? D->df->slot_carry : NOREG;
		return true;
	}
	if (IS("addc") || IS("subc")) {
		if (!simple(D, pi, di, IS("addc") ? I_ADDC : I_SUBC, 2, 0))
			return false;
		di->c = D->df->slot_carry;
		di->d2 = (di->flags & DF_CC) ? D->df->slot_carry : D->df->slot_sink;
		return true;
	}
	if (IS("mul") || IS("mad") || IS("fma")) {
		bool mad = !IS("mul");
		if (ptx_type_is_float(pi->type) || IS("fma"))
			return dec_float_or_int(D, pi, di, mad ? I_FFMA : I_FMUL, I_UNSUPPORTED, mad ? 3 : 2);
		enum iop o = ptx_has_mod(pi, "hi") ? (mad ? I_MAD_HI : I_MUL_HI)
		           : ptx_has_mod(pi, "wide") ? (mad ? I_MAD_WIDE : I_MUL_WIDE)
		           : (mad ? I_MAD_LO : I_MUL_LO);
		return simple(D, pi, di, o, mad ? 3 : 2, 0);
	}
	if (IS("mul24") || IS("mad24")) {
		if (ptx_has_mod(pi, "hi"))
			di->flags |= DF_HI;
		return simple(D, pi, di, IS("mul24") ? I_MUL24 : I_MAD24, IS("mul24") ? 2 : 3, 0);
	}
	if (IS("sad"))
		return simple(D, pi, di, I_SAD, 3, 0);
	if (IS("div"))
		return dec_float_or_int(D, pi, di, I_FDIV, I_DIV, 2);
	if (IS("rem"))
		return simple(D, pi, di, I_REM, 2, 0);
	if (IS("abs"))
		return dec_float_or_int(D, pi, di, I_FABS, I_ABS, 1);
	if (IS("neg"))
		return dec_float_or_int(D, pi, di, I_FNEG, I_NEG, 1);
	if (IS("min"))
		return dec_float_or_int(D, pi, di, I_FMIN, I_MIN, 2);
	if (IS("max"))
		return dec_float_or_int(D, pi, di, I_FMAX, I_MAX, 2);
	return DEC_OTHER;
}

/* Bit operations, one table. */
static int dec_bits(struct dec *D, const struct ptx_instr *pi, struct dinst *di, unsigned fw)
{
	const char *op = pi->opcode;
	(void)fw;
	static const struct { const char *name; enum iop op; unsigned n; } ints[] = {
		{ "and", I_AND, 2 }, { "or", I_OR, 2 }, { "xor", I_XOR, 2 }, { "not", I_NOT, 1 },
		{ "cnot", I_CNOT, 1 }, { "shl", I_SHL, 2 }, { "shr", I_SHR, 2 }, { "popc", I_POPC, 1 },
		{ "clz", I_CLZ, 1 }, { "brev", I_BREV, 1 }, { "bfind", I_BFIND, 1 },
		{ "prmt", I_PRMT, 3 }, { "bfe", I_BFE, 3 }, { "bfi", I_BFI, 4 }, { "lop3", I_LOP3, 3 },
		{ "shf", I_SHF, 3 },
	};
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
		if (IS(ints[i].name)) {
			if (IS("bfind") && ptx_has_mod(pi, "shiftamt"))
				di->flags |= DF_HI;
			if (IS("shf")) {
				if (ptx_has_mod(pi, "r"))
					di->flags |= DF_HI;
				di->sub = ptx_has_mod(pi, "clamp");
			}
			if (IS("prmt")) {
				static const char *const pm[] = { "f4e", "b4e", "rc8", "ecl", "ecr", "rc16", NULL };
				di->sub = (uint8_t)(mod_index(pi, pm) + 1);
			}
			if (!simple(D, pi, di, ints[i].op, ints[i].n, 0))
				return false;
			if (IS("lop3")) {
				if (pi->nops < 5 || pi->ops[4].kind != PO_IMM)
					return bad(D, "lop3 needs an immediate table");
				di->imm = pi->ops[4].imm & 0xff;
			}
			return true;
		}
	return DEC_OTHER;
}

/* Float functions (rcp, sqrt, ex2, sin, ...), copysign, testp. */
static int dec_math(struct dec *D, const struct ptx_instr *pi, struct dinst *di, unsigned fw)
{
	const char *op = pi->opcode;
	static const struct { const char *name; enum iop op; } fl1[] = {
		{ "rcp", I_FRCP }, { "sqrt", I_FSQRT }, { "rsqrt", I_FRSQRT }, { "ex2", I_FEX2 },
		{ "lg2", I_FLG2 }, { "sin", I_FSIN }, { "cos", I_FCOS }, { "tanh", I_FTANH },
	};
	for (size_t i = 0; i < sizeof fl1 / sizeof fl1[0]; i++)
		if (IS(fl1[i].name)) {
			if (pi->type != PT_F32 && pi->type != PT_F64)
				return bad(D, "%s.%s is not supported", op, ptx_type_name(pi->type));
			return simple(D, pi, di, fl1[i].op, 1, fw);
		}
	if (IS("copysign"))
		return simple(D, pi, di, I_FCOPYSIGN, 2, fw);
	if (IS("testp")) {
		static const char *const tp[] = { "finite", "infinite", "number", "notanumber",
			"normal", "subnormal", NULL };
		di->sub = (uint8_t)mod_index(pi, tp);
		return simple(D, pi, di, I_TESTP, 1, fw);
	}
	return DEC_OTHER;
}

/* Comparisons and selections. */
static int dec_compare(struct dec *D, const struct ptx_instr *pi, struct dinst *di, unsigned fw)
{
	const char *op = pi->opcode;
	if (IS("setp") || IS("set")) {
		int k = mod_index(pi, cmp_names);
		if (k < 0)
			return bad(D, "%s without a comparison", op);
		di->sub = (uint8_t)k;
		static const char *const bo[] = { "and", "or", "xor", NULL };
		int b = mod_index(pi, bo);
		di->sub2 = (uint8_t)(b + 1);
		bool fl = ptx_type_is_float(pi->type);
		if (fl && pi->type != PT_F32 && pi->type != PT_F64)
			return bad(D, "%s on %s is not supported", op, ptx_type_name(pi->type));
		if (IS("set")) {
			di->op = fl ? I_SET_F : I_SET_I;
			di->w2 = (uint8_t)width_of(pi->type2);   /* destination type */
			if (ptx_type_is_float(pi->type2))
				di->flags |= DF_HI;
		} else {
			di->op = fl ? I_SETP_F : I_SETP_I;
		}
		if (!need(D, pi, 3))
			return false;
		const struct ptx_operand *d = &pi->ops[0];
		di->d2 = NOREG;
		if (d->kind == PO_PAIR) {
			if (!dst(D, &d->elems[0], &di->d) || !dst(D, &d->elems[1], &di->d2))
				return false;
		} else if (!dst(D, d, &di->d)) {
			return false;
		}
		if (!srcs(D, pi, di, 1, 2, fw))
			return false;
		if (b >= 0) {
			if (!need(D, pi, 4) || !src(D, &pi->ops[3], 0, &di->c))
				return false;
			di->sub2 = (uint8_t)((b + 1) | (pi->ops[3].neg ? 4 : 0));
		}
		return true;
	}
	if (IS("selp")) {
		if (!simple(D, pi, di, I_SELP, 3, fw))
			return false;
		if (pi->ops[3].neg)
			di->sub2 = 1;
		return true;
	}
	if (IS("slct")) {
		/* slct.dtype.s32 or .f32: type is the selector's, type2 the data's */
		bool f = pi->type == PT_F32;
		di->w = (uint8_t)width_of(pi->type2);
		return simple(D, pi, di, f ? I_SLCT_F : I_SLCT_I, 3, 0);
	}
	return DEC_OTHER;
}

/* Conversions of type and of address space. */
static int dec_convert(struct dec *D, const struct ptx_instr *pi, struct dinst *di, unsigned fw)
{
	const char *op = pi->opcode;
	(void)fw;
	if (IS("cvt")) {
		/* cvt.dtype.atype: type = atype (last), type2 = dtype */
		di->op = I_CVT;
		di->w = (uint8_t)width_of(pi->type2);
		di->w2 = (uint8_t)width_of(pi->type);
		di->flags &= (uint8_t)~(DF_SIGNED | DF_F64);
		di->sub = (uint8_t)rnd_of(pi);   /* RNONE when none is given */
		if (!need(D, pi, 2) || !dst(D, &pi->ops[0], &di->d))
			return false;
		return src(D, &pi->ops[1], ptx_type_is_float(pi->type) ? width_of(pi->type) : 0, &di->a);
	}
	if (IS("cvta")) {
		di->op = I_CVTA;
		di->space = (uint8_t)ptx_instr_space(pi);
		di->to = ptx_has_mod(pi, "to");
		if (!need(D, pi, 2) || !dst(D, &pi->ops[0], &di->d))
			return false;
		const struct ptx_operand *s = &pi->ops[1];
		if (s->kind == PO_SYM) {
			struct sym q = lookup(D, s->name);
			if (q.kind == SK_LOCAL) {   /* cvta.local %rd, depot */
				di->op = I_ADD;
				di->w = 64;
				di->a = D->df->slot_local;
				di->b = const_slot(D, q.addr + IW_LOCAL);
				return true;
			}
		}
		return src(D, s, 0, &di->a);
	}
	return DEC_OTHER;
}

/* Loads, stores and atomics. */
static int dec_memory(struct dec *D, const struct ptx_instr *pi, struct dinst *di, unsigned fw)
{
	const char *op = pi->opcode;
	if (IS("ld") || IS("ldu"))
		return dec_ldst(D, pi, di, false);
	if (IS("st"))
		return dec_ldst(D, pi, di, true);
	if (IS("atom") || IS("red")) {
		static const char *const ao[] = { "add", "min", "max", "exch", "cas", "inc", "dec",
			"and", "or", "xor", NULL };
		int k = mod_index(pi, ao);
		if (k < 0)
			return bad(D, "%s without a known operation", op);
		bool is_red = IS("red");
		di->op = I_ATOM;
		di->sub = (uint8_t)k;
		di->sub2 = is_red;           /* no result: reads nothing the thread sees */
		di->space = (uint8_t)ptx_instr_space(pi);
		if (ptx_instr_vec(pi) != 1 || (ptx_type_is_float(pi->type) && pi->type != PT_F32 &&
		                               pi->type != PT_F64) || di->w < 32)
			return bad(D, "%s.%s is not supported", op, ptx_type_name(pi->type));
		di->w2 = (uint8_t)(di->w / 8);
		unsigned k0 = 0;
		if (!is_red) {
			if (!need(D, pi, 1) || !dst(D, &pi->ops[0], &di->d))
				return false;
			k0 = 1;
		} else {
			di->d = D->df->slot_sink;
		}
		if (!need(D, pi, k0 + 2) || !addr(D, &pi->ops[k0], di))
			return false;
		if (di->op != I_ATOM)
			return bad(D, "atomic on a parameter");
		if (!src(D, &pi->ops[k0 + 1], fw, &di->b))
			return false;
		if (k == A_CAS && (!need(D, pi, k0 + 3) || !src(D, &pi->ops[k0 + 2], fw, &di->c)))
			return false;
		return true;
	}
	return DEC_OTHER;
}

/* Branches, calls, returns, exit and trap. */
static int dec_control(struct dec *D, const struct ptx_instr *pi, struct dinst *di, unsigned fw)
{
	const char *op = pi->opcode;
	(void)fw;
	if (IS("bra") || IS("brx")) {
		if (IS("brx") || pi->nops < 1 || pi->ops[0].kind != PO_LABEL)
			return bad(D, "indirect branches are not supported");
		di->op = I_BRA;
		di->target = D->df->start + (uint32_t)pi->ops[0].imm;
		return true;
	}
	if (IS("call"))
		return dec_call(D, pi, di);
	if (IS("ret")) {
		di->op = I_RET;
		return true;
	}
	if (IS("exit")) {
		di->op = I_EXIT;
		return true;
	}
	if (IS("trap")) {
		di->op = I_TRAP;
		return true;
	}
	return DEC_OTHER;
}

/* Barriers and the warp collectives. */
static int dec_warp(struct dec *D, const struct ptx_instr *pi, struct dinst *di, unsigned fw)
{
	const char *op = pi->opcode;
	(void)fw;
	if (IS("bar") || IS("barrier")) {
		if (ptx_has_mod(pi, "warp")) {
			di->op = I_WARPSYNC;
			return srcs(D, pi, di, 0, 1, 0);
		}
		if (ptx_has_mod(pi, "arrive")) {
			di->op = I_BAR_ARRIVE;
			return true;
		}
		if (ptx_has_mod(pi, "red")) {
			static const char *const bo[] = { "popc", "and", "or", NULL };
			int k = mod_index(pi, bo);
			if (k < 0)
				return bad(D, "bar.red without an operation");
			di->op = I_BAR_RED;
			di->sub = (uint8_t)k;
			/* bar.red.op.type d, a{, b}, {!}c */
			if (!need(D, pi, 3) || !dst(D, &pi->ops[0], &di->d))
				return false;
			const struct ptx_operand *pc = &pi->ops[pi->nops - 1];
			di->sub2 = pc->neg;
			return src(D, pc, 0, &di->c);
		}
		di->op = I_BAR;
		return true;
	}
	if (IS("shfl")) {
		static const char *const sm[] = { "up", "down", "bfly", "idx", NULL };
		int k = mod_index(pi, sm);
		if (k < 0)
			return bad(D, "shfl without a mode");
		di->op = I_SHFL;
		di->sub = (uint8_t)k;
		bool sync = ptx_has_mod(pi, "sync");
		if (!need(D, pi, sync ? 5 : 4))
			return false;
		const struct ptx_operand *d = &pi->ops[0];
		di->d2 = NOREG;
		if (d->kind == PO_PAIR) {
			if (!dst(D, &d->elems[0], &di->d) || !dst(D, &d->elems[1], &di->d2))
				return false;
		} else if (!dst(D, d, &di->d)) {
			return false;
		}
		if (!srcs(D, pi, di, 1, 3, 0))
			return false;
		if (sync)
			return src(D, &pi->ops[4], 0, &di->e);
		di->e = const_slot(D, 0xffffffffu);
		return true;
	}
	if (IS("vote")) {
		static const char *const vm[] = { "all", "any", "uni", "ballot", NULL };
		int k = mod_index(pi, vm);
		if (k < 0)
			return bad(D, "vote without a mode");
		di->op = I_VOTE;
		di->sub = (uint8_t)k;
		bool sync = ptx_has_mod(pi, "sync");
		if (!need(D, pi, sync ? 3 : 2) || !dst(D, &pi->ops[0], &di->d))
			return false;
		if (!src(D, &pi->ops[1], 0, &di->a))
			return false;
		di->sub2 = pi->ops[1].neg;
		if (sync)
			return src(D, &pi->ops[2], 0, &di->e);
		di->e = const_slot(D, 0xffffffffu);
		return true;
	}
	if (IS("activemask")) {
		di->op = I_ACTIVEMASK;
		return need(D, pi, 1) && dst(D, &pi->ops[0], &di->d);
	}
	return DEC_OTHER;
}

/* Fences and hints, which run as no-ops. */
static int dec_hint(struct dec *D, const struct ptx_instr *pi, struct dinst *di, unsigned fw)
{
	const char *op = pi->opcode;
	(void)fw;
	(void)D;
	if (IS("membar") || IS("fence") || IS("prefetch") || IS("prefetchu") || IS("nanosleep") ||
	    IS("pmevent") || IS("brkpt") || IS("griddepcontrol")) {
		di->op = I_NOP;
		return true;
	}
	return DEC_OTHER;
}

#undef IS

/* Decodes pi into di: the flags every family reads, then its family's
 * decoder. */
static bool dec_instr(struct dec *D, const struct ptx_instr *pi, struct dinst *di)
{
	di->t = (uint8_t)pi->type;
	di->t2 = (uint8_t)pi->type2;
	di->w = (uint8_t)width_of(pi->type);
	unsigned r = rnd_of(pi);
	di->sub = (uint8_t)(r == RNONE ? RN : r);
	if (ptx_has_mod(pi, "ftz"))
		di->flags |= DF_FTZ;
	if (ptx_has_mod(pi, "sat"))
		di->flags |= DF_SAT;
	if (ptx_type_is_signed(pi->type))
		di->flags |= DF_SIGNED;
	if (pi->type == PT_F64)
		di->flags |= DF_F64;
	if (ptx_has_mod(pi, "approx"))
		di->flags |= DF_APPROX;
	if (ptx_has_mod(pi, "cc"))
		di->flags |= DF_CC;
	if (ptx_has_mod(pi, "NaN"))
		di->flags |= DF_NAN;
	unsigned fw = ptx_type_is_float(pi->type) ? di->w : 0;

	static dec_family *const families[] = {
		dec_move, dec_arith, dec_bits, dec_math, dec_compare,
		dec_convert, dec_memory, dec_control, dec_warp, dec_hint,
	};
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
		int k = families[i](D, pi, di, fw);
		if (k != DEC_OTHER)
			return k == 1;
	}
	return bad(D, "unsupported instruction");
}

/* ---- layout ---- */

static bool layout_func(struct dec *D, uint32_t fi)
{
	const struct ptx_func *f = &D->m->funcs[fi];
	struct dfunc *df = &D->p->funcs[fi];
	df->f = f;
	df->nregs = f->nregs;
	free(D->fvar_off);
	D->fvar_off = xcalloc(f->nvars + 1, sizeof(uint32_t));
	uint32_t poff = 0;
	if (!f->is_entry) {
		df->formal_off = xcalloc(f->nparams + f->nrets + 1, sizeof(uint32_t));
		df->ret_off = df->formal_off + f->nparams;
		for (unsigned i = 0; i < f->nparams; i++) {
			poff = align_up(poff, f->params[i].align ? f->params[i].align : 1);
			df->formal_off[i] = poff;
			poff += f->params[i].size;
		}
		for (unsigned i = 0; i < f->nrets; i++) {
			poff = align_up(poff, f->rets[i].align ? f->rets[i].align : 1);
			df->ret_off[i] = poff;
			poff += f->rets[i].size;
		}
	}
	uint32_t loff = 0;
	for (unsigned i = 0; i < f->nvars; i++) {
		const struct ptx_var *v = &f->vars[i];
		uint32_t al = v->align ? v->align : 1;
		/* a name declared again in another { } scope shares the first slot */
		unsigned j = 0;
		while (j < i && strcmp(f->vars[j].name, v->name) != 0)
			j++;
		if (j < i && f->vars[j].space == v->space && f->vars[j].size >= v->size) {
			D->fvar_off[i] = D->fvar_off[j];
			continue;
		}
		switch (v->space) {
		case PS_PARAM:
			poff = align_up(poff, al);
			D->fvar_off[i] = poff;
			poff += v->size;
			break;
		case PS_LOCAL:
			loff = align_up(loff, al);
			D->fvar_off[i] = loff;
			loff += v->size;
			break;
		case PS_SHARED:
			if (v->is_extern) {
				D->fvar_off[i] = 0;            /* the dynamic array */
			} else {
				D->p->shared_size = align_up(D->p->shared_size, al);
				D->fvar_off[i] = D->p->shared_size;
				D->p->shared_size += v->size;
			}
			break;
		default:
			return bad(D, "'%s': variables of this space inside a function are not supported",
			           v->name);
		}
	}
	df->param_size = align_up(poff, 8);
	df->local_size = align_up(loff, 16);
	return true;
}

static bool decode_func(struct dec *D, uint32_t fi)
{
	const struct ptx_func *f = &D->m->funcs[fi];
	struct dfunc *df = &D->p->funcs[fi];
	D->f = f;
	D->df = df;
	if (!layout_func(D, fi))
		return false;
	D->consts.len = 0;
	if (D->hash)
		memset(D->hash, 0xff, D->hcap * sizeof *D->hash);
	df->start = (uint32_t)D->code.len;
	/* fixed slots come right after the registers, before the constants:
	 * reserve them by making them the first constants */
	D->nfixed = 3;
	df->slot_sink = df->nregs;
	df->slot_carry = df->nregs + 1;
	df->slot_local = df->nregs + 2;
	VEC_PUSH(D->consts, 0);
	VEC_PUSH(D->consts, 0);
	VEC_PUSH(D->consts, 0);
	for (unsigned i = 0; i < f->ninstrs; i++) {
		const struct ptx_instr *pi = &f->instrs[i];
		struct dinst di;
		memset(&di, 0, sizeof di);
		di.src = pi;
		di.ins = i;
		di.guard = NOREG;
		di.d = di.d2 = di.a = di.b = di.c = di.e = NOREG;
		if (pi->guard) {
			if (pi->guard_reg < 0) {
				snprintf(D->msg, sizeof D->msg, "unknown guard register");
				di.op = I_UNSUPPORTED;
			} else {
				di.guard = (uint32_t)pi->guard_reg;
				di.guard_neg = pi->guard_neg;
			}
		}
		D->msg[0] = 0;
		if (di.op == I_UNSUPPORTED || !dec_instr(D, pi, &di)) {
			/* fails when a thread reaches it; imm indexes the reason */
			memset(&di, 0, sizeof di);
			di.op = I_UNSUPPORTED;
			di.src = pi;
			di.ins = i;
			di.guard = NOREG;
			di.imm = (int64_t)D->p->nwhy;
			D->p->why = xrealloc(D->p->why, (D->p->nwhy + 1) * sizeof *D->p->why);
			D->p->why[D->p->nwhy++] = xstrdup(D->msg[0] ? D->msg : "unsupported");
		}
		VEC_PUSH(D->code, di);
	}
	/* a function that runs off its end returns */
	struct dinst end;
	memset(&end, 0, sizeof end);
	end.op = I_RET;
	end.guard = NOREG;
	end.src = f->ninstrs ? &f->instrs[f->ninstrs - 1] : NULL;
	end.ins = f->ninstrs;
	VEC_PUSH(D->code, end);
	df->end = (uint32_t)D->code.len;
	df->nslots = df->nregs + (uint32_t)D->consts.len;
	df->consts = xmalloc((D->consts.len + 1) * sizeof(uint64_t));
	memcpy(df->consts, D->consts.items, D->consts.len * sizeof(uint64_t));
	return true;
}

static int cmp_region(const void *a, const void *b)
{
	const struct region *x = a, *y = b;
	return x->base < y->base ? -1 : x->base > y->base;
}

static enum interp_status fail(struct ictx *c, enum interp_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum interp_status fail(struct ictx *c, enum interp_status st, const char *fmt, ...)
{
	if (c->err) {
		memset(c->err, 0, sizeof *c->err);
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->err->msg, sizeof c->err->msg, fmt, ap);
		va_end(ap);
	}
	c->status = st;
	return st;
}

/* Module variables: bound to a buffer, or private storage in IW_VARS;
 * shared ones laid out in shared memory. */
static enum interp_status layout_vars(struct dec *D, const struct interp_mem *mem)
{
	struct program *p = D->p;
	const struct ptx_module *m = D->m;
	D->var_addr = xcalloc(m->nvars + 1, sizeof(uint64_t));
	p->regions = xcalloc(mem->nbufs + m->nvars + 1, sizeof *p->regions);
	for (unsigned i = 0; i < mem->nbufs; i++) {
		const struct interp_buf *b = &mem->bufs[i];
		struct region *r = &p->regions[p->nregions++];
		r->base = b->base;
		r->bytes = b->bytes;
		r->data = b->data;
		r->space = PS_GLOBAL;
		r->name = b->symbol;
		r->valid = b->valid;
		if (b->base + b->bytes < b->base || b->base + b->bytes > IW_VARS)
			return fail(D->c, INTERP_BADARG, "buffer %u at 0x%llx (%llu bytes) outside the "
			            "buffer window", i, (unsigned long long)b->base,
			            (unsigned long long)b->bytes);
	}
	uint64_t voff = 0;
	for (unsigned i = 0; i < m->nvars; i++) {
		const struct ptx_var *v = &m->vars[i];
		uint32_t al = v->align ? v->align : 1;
		if (v->space == PS_SHARED) {
			if (v->is_extern) {
				D->var_addr[i] = 0;
			} else {
				p->shared_size = align_up(p->shared_size, al);
				D->var_addr[i] = p->shared_size;
				p->shared_size += v->size;
			}
			continue;
		}
		if (v->space != PS_GLOBAL && v->space != PS_CONST)
			continue;
		struct region *r = NULL;
		for (unsigned k = 0; k < mem->nbufs; k++)
			if (p->regions[k].name && strcmp(p->regions[k].name, v->name) == 0)
				r = &p->regions[k];
		if (r) {
			if (r->bytes < v->size)
				return fail(D->c, INTERP_BADARG, "buffer for '%s' holds %llu bytes, the "
				            "variable %u", v->name, (unsigned long long)r->bytes, v->size);
			r->space = (uint8_t)v->space;
			D->var_addr[i] = r->base;
			continue;
		}
		r = &p->regions[p->nregions++];
		voff = (voff + 255) & ~(uint64_t)255;
		r->base = IW_VARS + voff;
		r->bytes = v->size ? v->size : 1;
		r->data = xcalloc(r->bytes, 1);
		r->space = (uint8_t)v->space;
		r->name = NULL;          /* owned: freed with the program */
		if (v->init)
			memcpy(r->data, v->init, v->size);
		D->var_addr[i] = r->base;
		voff += r->bytes;
	}
	/* addresses inside initialisers of private variables */
	for (unsigned i = 0; i < m->nvars; i++) {
		const struct ptx_var *v = &m->vars[i];
		if (!v->ninit_syms || (v->space != PS_GLOBAL && v->space != PS_CONST))
			continue;
		struct region *r = NULL;
		for (unsigned k = mem->nbufs; k < p->nregions; k++)
			if (p->regions[k].base == D->var_addr[i])
				r = &p->regions[k];
		if (!r)
			continue;
		for (unsigned k = 0; k < v->ninit_syms; k++) {
			const struct ptx_init_sym *s = &v->init_syms[k];
			uint64_t a = 0;
			for (unsigned j = 0; j < m->nvars; j++)
				if (strcmp(m->vars[j].name, s->sym) == 0)
					a = D->var_addr[j] + (m->vars[j].space == PS_SHARED && s->generic ?
					                      IW_SHARED : 0);
			a += (uint64_t)s->addend;
			if (s->offset + s->size <= r->bytes && s->size <= 8)
				memcpy(r->data + s->offset, &a, s->size);
		}
	}
	qsort(p->regions, p->nregions, sizeof *p->regions, cmp_region);
	for (unsigned i = 1; i < p->nregions; i++)
		if (p->regions[i - 1].base + p->regions[i - 1].bytes > p->regions[i].base)
			return fail(D->c, INTERP_BADARG, "buffers at 0x%llx and 0x%llx overlap",
			            (unsigned long long)p->regions[i - 1].base,
			            (unsigned long long)p->regions[i].base);
	return INTERP_OK;
}

enum interp_status interp_decode(struct ictx *c, const struct ptx_module *m,
                                 const char *entry, const struct interp_mem *mem,
                                 uint32_t shmem, const void *const *args)
{
	struct program *p = c->p;
	memset(p, 0, sizeof *p);
	int ei = -1;
	for (unsigned i = 0; i < m->nfuncs; i++)
		if (m->funcs[i].is_entry && m->funcs[i].has_body && strcmp(m->funcs[i].name, entry) == 0)
			ei = (int)i;
	if (ei < 0)
		return fail(c, INTERP_BADARG, "no entry '%s' in the module", entry);
	p->entry = (uint32_t)ei;
	struct dec D;
	memset(&D, 0, sizeof D);
	D.c = c;
	D.p = p;
	D.m = m;
	p->nfuncs = m->nfuncs;
	p->funcs = xcalloc(m->nfuncs + 1, sizeof *p->funcs);
	/* the dynamic (extern) shared array comes first, static ones after it */
	p->dyn_shared = shmem;
	p->shared_size = align_up(shmem, 16);
	enum interp_status st = layout_vars(&D, mem);
	for (unsigned fi = 0; st == INTERP_OK && fi < m->nfuncs; fi++) {
		if (!m->funcs[fi].has_body)
			continue;
		if (!decode_func(&D, fi))
			st = fail(c, INTERP_UNSUPPORTED, "function '%s': %s", m->funcs[fi].name, D.msg);
	}
	p->code = D.code.items;
	p->ncode = (uint32_t)D.code.len;
	p->calls = D.calls.items;
	p->ncalls = (uint32_t)D.calls.len;
	if (st == INTERP_OK) {
		const struct ptx_func *f = &m->funcs[ei];
		p->kparam_size = f->param_size;
		p->kparams = xcalloc(f->param_size + 8, 1);
		for (unsigned i = 0; i < f->nparams; i++) {
			if (!args || !args[i]) {
				st = fail(c, INTERP_BADARG, "no value for parameter %u of '%s'", i, entry);
				break;
			}
			memcpy(p->kparams + f->params[i].offset, args[i], f->params[i].size);
		}
	}
	free(D.var_addr);
	free(D.fvar_off);
	free(D.hash);
	VEC_FREE(D.consts);
	return st;
}

void interp_program_free(struct program *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->nfuncs; i++) {
		free(p->funcs[i].consts);
		free(p->funcs[i].formal_off);
	}
	free(p->funcs);
	for (uint32_t i = 0; i < p->ncalls; i++) {
		free(p->calls[i].arg_off);
		free(p->calls[i].arg_size);
	}
	free(p->calls);
	free(p->code);
	for (uint32_t i = 0; i < p->nregions; i++)
		if (p->regions[i].base >= IW_VARS)
			free(p->regions[i].data);
	free(p->regions);
	for (uint32_t i = 0; i < p->nwhy; i++)
		free(p->why[i]);
	free(p->why);
	free(p->kparams);
	memset(p, 0, sizeof *p);
}
