/*
 * expr-eval.c: concrete semantics of expressions, shared by constant
 * folding (x_bv_fold) and by e_eval.
 *
 * Bitvectors: exact modular arithmetic of the node's width, division by
 * zero as in SMT-LIB (x udiv 0 = all ones, x urem 0 = x, and the signed
 * forms defined from those), shift counts >= width give 0 or the sign fill.
 * Reals: rounded after every operation to the chosen precision.
 */
#include "libcommon/expr-impl.h"

#include <math.h>
#include <stdlib.h>

static uint64_t udiv0(uint64_t a, uint64_t b, uint64_t m)
{
	return b ? a / b : m;
}

static uint64_t urem0(uint64_t a, uint64_t b)
{
	return b ? a % b : a;
}

static uint64_t mulhi(uint64_t a, uint64_t b, unsigned w, bool sgn)
{
	if (sgn) {
		__int128 p = (__int128)bv_sx(a, w) * (__int128)bv_sx(b, w);
		return (uint64_t)(unsigned __int128)(p >> w);
	}
	unsigned __int128 p = (unsigned __int128)a * b;
	return (uint64_t)(p >> w);
}

bool x_bv_fold(enum eop op, unsigned w, uint64_t aux, unsigned n,
               const uint64_t *a, const unsigned *aw, uint64_t *out)
{
	uint64_t m = bv_mask(w), x = n > 0 ? a[0] & bv_mask(aw[0]) : 0;
	uint64_t y = n > 1 ? a[1] & bv_mask(aw[1]) : 0, r;
	bool nx = n > 0 && bv_neg_bit(x, aw[0]), ny = n > 1 && bv_neg_bit(y, aw[1]);
	switch (op) {
	case EOP_ADD:
		r = 0;
		for (unsigned i = 0; i < n; i++)
			r += a[i];
		break;
	case EOP_SUB: r = x - y; break;
	case EOP_MUL: r = x * y; break;
	case EOP_NEG: r = -x; break;
	case EOP_UDIV: r = udiv0(x, y, m); break;
	case EOP_UREM: r = urem0(x, y); break;
	case EOP_SDIV: {
		uint64_t ax = nx ? -x & m : x, ay = ny ? -y & m : y;
		uint64_t q = udiv0(ax, ay, m);
		r = nx != ny ? -q : q;
		break;
	}
	case EOP_SREM: {
		uint64_t ax = nx ? -x & m : x, ay = ny ? -y & m : y;
		uint64_t q = urem0(ax, ay);
		r = nx ? -q : q;
		break;
	}
	case EOP_MULHI_U: r = mulhi(x, y, w, false); break;
	case EOP_MULHI_S: r = mulhi(x, y, w, true); break;
	case EOP_SHL: r = y >= w ? 0 : x << y; break;
	case EOP_LSHR: r = y >= w ? 0 : x >> y; break;
	case EOP_ASHR: {
		int64_t s = bv_sx(x, w);
		r = (uint64_t)(y >= w ? (s < 0 ? -1 : 0) : s >> y);
		break;
	}
	case EOP_AND: r = x & y; break;
	case EOP_OR: r = x | y; break;
	case EOP_XOR: r = x ^ y; break;
	case EOP_NOT: r = ~x; break;
	case EOP_UMIN: r = x < y ? x : y; break;
	case EOP_UMAX: r = x > y ? x : y; break;
	case EOP_SMIN: r = bv_sx(x, w) < bv_sx(y, w) ? x : y; break;
	case EOP_SMAX: r = bv_sx(x, w) > bv_sx(y, w) ? x : y; break;
	case EOP_ZEXT: r = x; break;
	case EOP_SEXT: r = (uint64_t)bv_sx(x, aw[0]); break;
	case EOP_EXTRACT: r = x >> aux; break;
	case EOP_CONCAT: r = aw[1] >= 64 ? y : (x << aw[1]) | y; break;
	case EOP_POPC: r = (uint64_t)__builtin_popcountll(x); break;
	case EOP_CLZ: r = x ? (uint64_t)(__builtin_clzll(x) - (64 - aw[0])) : aw[0]; break;
	case EOP_BREV:
		r = 0;
		for (unsigned i = 0; i < w; i++)
			if ((x >> i) & 1)
				r |= (uint64_t)1 << (w - 1 - i);
		break;
	/* comparisons: w is the argument width, the result 0/1 */
	case EOP_EQ: *out = x == y; return true;
	case EOP_ULT: *out = x < y; return true;
	case EOP_ULE: *out = x <= y; return true;
	case EOP_SLT: *out = bv_sx(x, w) < bv_sx(y, w); return true;
	case EOP_SLE: *out = bv_sx(x, w) <= bv_sx(y, w); return true;
	default:
		return false;
	}
	*out = r & m;
	return true;
}

uint64_t x_r2bv(long double r, enum rmode mode, unsigned w, bool is_signed)
{
	if (isnan(r))
		return 0;
	switch (mode) {
	case RM_RZ: r = truncl(r); break;
	case RM_RM: r = floorl(r); break;
	case RM_RP: r = ceill(r); break;
	default: {
		long double f = floorl(r), d = r - f;
		if (d > 0.5L || (d == 0.5L && fmodl(f, 2) != 0))
			f += 1;
		r = f;
		break;
	}
	}
	if (is_signed) {
		long double lo = -ldexpl(1, (int)w - 1), hi = ldexpl(1, (int)w - 1) - 1;
		if (r <= lo)
			return ((uint64_t)1 << (w - 1));
		if (r >= hi)
			return bv_mask(w) >> 1;
		return (uint64_t)(int64_t)r & bv_mask(w);
	}
	if (r <= 0)
		return 0;
	if (r >= ldexpl(1, (int)w) - 1)
		return bv_mask(w);
	return (uint64_t)r;
}

/* ---- e_eval ---------------------------------------------------------------------- */

static long double rnd(enum emode m, long double x)
{
	switch (m) {
	case EM_F32: return (float)x;
	case EM_F64: return (double)x;
	default: return x;
	}
}

/* One IEEE operation in the precision of the mode (not in long double and
 * then rounded, which could round twice). */
static long double arith(enum emode m, char op, long double a, long double b)
{
	if (m == EM_F32) {
		float x = (float)a, y = (float)b;
		return op == '+' ? x + y : op == '*' ? x * y : op == '-' ? x - y : x / y;
	}
	if (m == EM_F64) {
		double x = (double)a, y = (double)b;
		return op == '+' ? x + y : op == '*' ? x * y : op == '-' ? x - y : x / y;
	}
	return op == '+' ? a + b : op == '*' ? a * b : op == '-' ? a - b : a / b;
}

long double efun_eval(enum efun f, enum emode m, long double x, long double y)
{
	if (m == EM_F32) {
		float a = (float)x, b = (float)y;
		switch (f) {
		case EF_SQRT: return sqrtf(a);
		case EF_RSQRT: return 1.0f / sqrtf(a);
		case EF_RCP_APPROX: return 1.0f / a;
		case EF_EXP: return expf(a);
		case EF_EXP2: return exp2f(a);
		case EF_LOG: return logf(a);
		case EF_LOG2: return log2f(a);
		case EF_LOG1P: return log1pf(a);
		case EF_TANH: return tanhf(a);
		case EF_ERF: return erff(a);
		case EF_POW: return powf(a, b);
		case EF_SIN: return sinf(a);
		case EF_COS: return cosf(a);
		case EF_SIGMOID: return 1.0f / (1.0f + expf(-a));
		case EF_FLOOR: return floorf(a);
		case EF_CEIL: return ceilf(a);
		case EF_TRUNC: return truncf(a);
		case EF_RINT: return nearbyintf(a);
		default: return NAN;
		}
	}
	if (m == EM_F64) {
		double a = (double)x, b = (double)y;
		switch (f) {
		case EF_SQRT: return sqrt(a);
		case EF_RSQRT: return 1.0 / sqrt(a);
		case EF_RCP_APPROX: return 1.0 / a;
		case EF_EXP: return exp(a);
		case EF_EXP2: return exp2(a);
		case EF_LOG: return log(a);
		case EF_LOG2: return log2(a);
		case EF_LOG1P: return log1p(a);
		case EF_TANH: return tanh(a);
		case EF_ERF: return erf(a);
		case EF_POW: return pow(a, b);
		case EF_SIN: return sin(a);
		case EF_COS: return cos(a);
		case EF_SIGMOID: return 1.0 / (1.0 + exp(-a));
		case EF_FLOOR: return floor(a);
		case EF_CEIL: return ceil(a);
		case EF_TRUNC: return trunc(a);
		case EF_RINT: return nearbyint(a);
		default: return NAN;
		}
	}
	switch (f) {
	case EF_SQRT: return sqrtl(x);
	case EF_RSQRT: return 1.0L / sqrtl(x);
	case EF_RCP_APPROX: return 1.0L / x;
	case EF_EXP: return expl(x);
	case EF_EXP2: return exp2l(x);
	case EF_LOG: return logl(x);
	case EF_LOG2: return log2l(x);
	case EF_LOG1P: return log1pl(x);
	case EF_TANH: return tanhl(x);
	case EF_ERF: return erfl(x);
	case EF_POW: return powl(x, y);
	case EF_SIN: return sinl(x);
	case EF_COS: return cosl(x);
	case EF_SIGMOID: return 1.0L / (1.0L + expl(-x));
	case EF_FLOOR: return floorl(x);
	case EF_CEIL: return ceill(x);
	case EF_TRUNC: return truncl(x);
	case EF_RINT: return nearbyintl(x);
	default: return NAN;
	}
}

/* Value of node x given the values of its arguments; false if unknown. */
static bool eval_node(const struct expr *x, enum emode mode, e_leaf_val_fn fn, void *user,
                      const struct evalue *const *av, struct evalue *out)
{
	memset(out, 0, sizeof *out);
	for (unsigned i = 0; i < x->nargs && x->op != EOP_LOAD; i++)
		if (av[i]->undef && x->op != EOP_ITE)
			out->undef = true;
	unsigned w = SORT_WIDTH(x->sort);
	switch (x->op) {
	case EOP_BOOL: out->b = x->u; return true;
	case EOP_BV: out->u = x->u; return true;
	case EOP_REAL: out->r = rnd(mode, x_real(x)); return true;
	case EOP_UNDEF:
		if (fn && fn(x, out, user))
			return true;
		memset(out, 0, sizeof *out);
		out->undef = true;
		return true;
	case EOP_TID: case EOP_CTAID: case EOP_ELEM: case EOP_INPUT: case EOP_VAR: case EOP_LOAD: {
		bool undef = out->undef;
		if (!fn || !fn(x, out, user))
			return false;
		out->undef |= undef;
		if (x->sort == SORT_REAL)
			out->r = rnd(mode, out->r);
		else if (SORT_KIND(x->sort) == SK_BV)
			out->u &= bv_mask(w);
		return true;
	}
	case EOP_EQ:
		if (x->args[0]->sort == SORT_REAL)
			out->b = av[0]->r == av[1]->r;
		else if (x->args[0]->sort == SORT_BOOL)
			out->b = av[0]->b == av[1]->b;
		else
			out->b = av[0]->u == av[1]->u;
		return true;
	case EOP_ULT: case EOP_ULE: case EOP_SLT: case EOP_SLE: {
		uint64_t v[2] = { av[0]->u, av[1]->u }, r;
		unsigned aw[2];
		aw[0] = aw[1] = SORT_WIDTH(x->args[0]->sort);
		x_bv_fold((enum eop)x->op, aw[0], 0, 2, v, aw, &r);
		out->b = r;
		return true;
	}
	case EOP_FLT: out->b = av[0]->r < av[1]->r; return true;
	case EOP_FLE: out->b = av[0]->r <= av[1]->r; return true;
	case EOP_LAND:
		out->b = true;
		for (unsigned i = 0; i < x->nargs; i++)
			out->b &= av[i]->b;
		return true;
	case EOP_LOR:
		out->b = false;
		for (unsigned i = 0; i < x->nargs; i++)
			out->b |= av[i]->b;
		return true;
	case EOP_LNOT: out->b = !av[0]->b; return true;
	case EOP_ITE:
		*out = av[0]->b ? *av[1] : *av[2];
		out->undef |= av[0]->undef;
		return true;
	case EOP_FADD: {
		long double s = av[0]->r;
		for (unsigned i = 1; i < x->nargs; i++)
			s = arith(mode, '+', s, av[i]->r);
		out->r = s;
		return true;
	}
	case EOP_FMUL: {
		long double p = av[0]->r;
		for (unsigned i = 1; i < x->nargs; i++)
			p = arith(mode, '*', p, av[i]->r);
		out->r = p;
		return true;
	}
	case EOP_FSUB: out->r = arith(mode, '-', av[0]->r, av[1]->r); return true;
	case EOP_FNEG: out->r = -av[0]->r; return true;
	case EOP_FDIV: out->r = arith(mode, '/', av[0]->r, av[1]->r); return true;
	case EOP_FMIN: out->r = fminl(av[0]->r, av[1]->r); return true;
	case EOP_FMAX: out->r = fmaxl(av[0]->r, av[1]->r); return true;
	case EOP_FABS: out->r = fabsl(av[0]->r); return true;
	case EOP_FUN:
		out->r = rnd(mode, efun_eval((enum efun)x->u, mode, av[0]->r, x->nargs > 1 ? av[1]->r : 0));
		return true;
	case EOP_S2R:
		out->r = rnd(mode, (long double)bv_sx(av[0]->u, SORT_WIDTH(x->args[0]->sort)));
		return true;
	case EOP_U2R: out->r = rnd(mode, (long double)av[0]->u); return true;
	case EOP_R2S: case EOP_R2U:
		out->u = x_r2bv(av[0]->r, (enum rmode)x->u, w, x->op == EOP_R2S);
		return true;
	case EOP_BOOL2BV: out->u = av[0]->b; return true;
	case EOP_OPAQUE: return false;      /* no exact meaning: unknown */
	default: {
		uint64_t v[E_MAX_ARGS];
		unsigned aw[E_MAX_ARGS];
		for (unsigned i = 0; i < x->nargs; i++) {
			v[i] = av[i]->u;
			aw[i] = SORT_WIDTH(x->args[i]->sort);
		}
		return x_bv_fold((enum eop)x->op, w, x->u, x->nargs, v, aw, &out->u);
	}
	}
}

bool e_eval_node(const struct expr *x, enum emode mode, e_leaf_val_fn fn, void *user,
                 const struct evalue *const *av, struct evalue *out)
{
	return eval_node(x, mode, fn, user, av, out);
}

bool e_eval(const struct expr *e, enum emode mode, e_leaf_val_fn fn, void *user, struct evalue *out)
{
	struct idmap memo;   /* id -> index into vals */
	idmap_init(&memo);
	VEC(struct evalue) vals = { 0 };
	VEC(const struct expr *) stack = { 0 };
	const struct evalue *av[E_MAX_ARGS];
	bool ok = true;
	VEC_PUSH(stack, e);
	while (stack.len && ok) {
		const struct expr *x = stack.items[stack.len - 1];
		if (idmap_get(&memo, x->id)) {
			stack.len--;
			continue;
		}
		bool ready = true;
		/* a LOAD's address is the leaf function's business */
		unsigned nargs = x->op == EOP_LOAD ? 0 : x->nargs;
		for (unsigned i = 0; i < nargs; i++)
			if (!idmap_get(&memo, x->args[i]->id)) {
				VEC_PUSH(stack, x->args[i]);
				ready = false;
			}
		if (!ready)
			continue;
		stack.len--;
		for (unsigned i = 0; i < nargs; i++)
			av[i] = &vals.items[*idmap_get(&memo, x->args[i]->id)];
		struct evalue v;
		if (!eval_node(x, mode, fn, user, av, &v)) {
			ok = false;
			break;
		}
		VEC_PUSH(vals, v);
		idmap_put(&memo, x->id, vals.len - 1);
	}
	if (ok)
		*out = vals.items[*idmap_get(&memo, e->id)];
	VEC_FREE(stack);
	VEC_FREE(vals);
	idmap_free(&memo);
	return ok;
}
