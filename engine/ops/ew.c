/*
 * ew.c: elementwise ops: activations, unary math, broadcasting binary ops
 * with tensors or scalars, comparisons (as 1/0), where (and masked_fill, a where), clamp;
 * tensors of one value shaped like an operand (zeros_like, ones_like,
 * full_like, fill), and logical_not, 1 where the operand is 0, else 0
 * (bitwise_not is not: bools are recorded as u8, and ~ of a u8 is not
 * logic).
 *
 * Attributes: opnd[0..2] the tensor operands (self, other, third);
 * s[0..3] scalars (the scalar operand, alpha, min/max, slope, beta, ...).
 */
#include "engine/ops/ops-impl.h"

#include <math.h>
#include <string.h>

enum {
	/* unary: operand self */
	U_RELU, U_LEAKY, U_GELU, U_SIGMOID, U_TANH, U_SOFTPLUS, U_MISH, U_SILU,
	U_HARDSWISH, U_HARDSIGMOID, U_HARDTANH, U_ELU, U_SELU, U_CELU, U_CLAMP,
	U_CLAMP_MIN, U_CLAMP_MAX, U_NEG, U_ABS, U_EXP, U_EXPM1, U_LOG, U_LOG2,
	U_LOG1P, U_SQRT, U_RSQRT, U_RECIP, U_ERF, U_SIN, U_COS, U_FLOOR, U_CEIL,
	U_TRUNC, U_ROUND, U_SIGN, U_SQUARE, U_LOGSIGMOID, U_RELU6, U_GELU_TANH_UNUSED,
	U_FILL, U_NOT,
	/* binary: self and other (tensor or scalar) */
	B_ADD, B_SUB, B_RSUB, B_MUL, B_DIV, B_POW, B_POW_SCALAR, B_MAXIMUM,
	B_MINIMUM, B_GT, B_GE, B_LT, B_LE, B_EQ, B_NE, B_XLOGY,
	/* ternary */
	T_WHERE, T_MASKED_FILL, T_ADDCMUL, T_ADDCDIV, T_LERP, T_CLAMP_T,
};

#define UN(n, k) { "aten::" n, ew_bind, ew_elem, k, false }
const struct op_def ew_defs[] = {
	UN("relu", U_RELU), UN("leaky_relu", U_LEAKY), UN("gelu", U_GELU),
	UN("sigmoid", U_SIGMOID), UN("tanh", U_TANH), UN("softplus", U_SOFTPLUS),
	UN("mish", U_MISH), UN("silu", U_SILU), UN("hardswish", U_HARDSWISH),
	UN("hardsigmoid", U_HARDSIGMOID), UN("hardtanh", U_HARDTANH), UN("elu", U_ELU),
	UN("selu", U_SELU), UN("celu", U_CELU), UN("clamp", U_CLAMP),
	UN("clamp.Tensor", T_CLAMP_T), UN("clip", U_CLAMP),
	UN("clamp_min", U_CLAMP_MIN), UN("clamp_max", U_CLAMP_MAX), UN("neg", U_NEG),
	UN("abs", U_ABS), UN("exp", U_EXP), UN("expm1", U_EXPM1), UN("log", U_LOG),
	UN("log2", U_LOG2), UN("log1p", U_LOG1P), UN("sqrt", U_SQRT), UN("rsqrt", U_RSQRT),
	UN("reciprocal", U_RECIP), UN("erf", U_ERF), UN("sin", U_SIN), UN("cos", U_COS),
	UN("floor", U_FLOOR), UN("ceil", U_CEIL), UN("trunc", U_TRUNC), UN("round", U_ROUND),
	UN("sign", U_SIGN), UN("square", U_SQUARE), UN("log_sigmoid_forward", U_LOGSIGMOID),
	UN("relu6", U_RELU6),
	UN("zeros_like", U_FILL), UN("ones_like", U_FILL), UN("full_like", U_FILL),
	UN("fill.Scalar", U_FILL), UN("logical_not", U_NOT),
	UN("add.Tensor", B_ADD), UN("add.Scalar", B_ADD), UN("sub.Tensor", B_SUB),
	UN("sub.Scalar", B_SUB), UN("rsub.Tensor", B_RSUB), UN("rsub.Scalar", B_RSUB),
	UN("mul.Tensor", B_MUL), UN("mul.Scalar", B_MUL), UN("div.Tensor", B_DIV),
	UN("div.Scalar", B_DIV), UN("div.Tensor_mode", B_DIV), UN("div.Scalar_mode", B_DIV),
	UN("pow.Tensor_Tensor", B_POW), UN("pow.Tensor_Scalar", B_POW),
	UN("pow.Scalar", B_POW_SCALAR), UN("maximum", B_MAXIMUM), UN("minimum", B_MINIMUM),
	UN("gt.Tensor", B_GT), UN("gt.Scalar", B_GT), UN("ge.Tensor", B_GE), UN("ge.Scalar", B_GE),
	UN("lt.Tensor", B_LT), UN("lt.Scalar", B_LT), UN("le.Tensor", B_LE), UN("le.Scalar", B_LE),
	UN("eq.Tensor", B_EQ), UN("eq.Scalar", B_EQ), UN("ne.Tensor", B_NE), UN("ne.Scalar", B_NE),
	UN("xlogy.Tensor", B_XLOGY),
	UN("where.self", T_WHERE), UN("masked_fill.Scalar", T_MASKED_FILL),
	UN("masked_fill.Tensor", T_MASKED_FILL), UN("addcmul", T_ADDCMUL), UN("addcdiv", T_ADDCDIV),
	UN("lerp.Scalar", T_LERP), UN("lerp.Tensor", T_LERP),
	{ NULL, NULL, NULL, 0, false }
};

/* s[] slots */
enum { S_OTHER, S_ALPHA, S_A, S_B, S_C, S_MODE };

/* A tensor operand or a number: the operand's role slot gets its operand,
 * else s[slot] the number. */
static void operand_or_scalar(struct bind *b, const char *name, int role, int slot, double dflt)
{
	struct op_attrs *at = &b->in->at;
	at->opnd[role] = b_opnd(b, name);
	if (at->opnd[role] < 0)
		at->s[slot] = b_num(b, name, dflt, &at->has[slot]);
}

/* One kind for one formula, so that value numbering (vnum.h) sees one op:
 * clamp(x, min=0) and clamp_min(x, 0) are relu(x), max(x, 0); clamp(x,
 * a, b) and relu6(x) are hardtanh(x, a, b), min(max(x, a), b).  The
 * formulas are the same expressions, so nothing changes but the kind. */
static void canon_clamp(struct op_attrs *at)
{
	bool scalar = at->opnd[1] < 0 && at->opnd[2] < 0;
	if (at->kind == U_CLAMP_MIN && scalar && at->has[S_A] && at->s[S_A] == 0) {
		at->kind = U_RELU;
	} else if (at->kind == U_CLAMP && at->has[S_A] && !at->has[S_B] && at->s[S_A] == 0) {
		at->kind = U_RELU;
	} else if (at->kind == U_CLAMP && at->has[S_A] && at->has[S_B]) {
		at->kind = U_HARDTANH;
	} else if (at->kind == U_RELU6) {
		at->kind = U_HARDTANH;
		at->s[S_A] = 0;
		at->s[S_B] = 6;
	} else {
		return;
	}
	if (at->kind == U_RELU)
		at->s[S_A] = 0;
	at->has[S_A] = at->has[S_B] = false;
}

bool ew_bind(struct bind *b, int kind)
{
	struct op_inst *in = b->in;
	struct op_attrs *at = &in->at;
	at->kind = kind;
	if (kind == B_POW_SCALAR) {          /* pow(Scalar self, Tensor exponent) */
		at->s[S_OTHER] = b_num(b, "self", 0, NULL);
		at->opnd[1] = b_opnd(b, "exponent");
	} else if (kind == T_WHERE) {
		at->opnd[0] = b_opnd(b, "condition");
		operand_or_scalar(b, "self", 1, S_A, 0);
		operand_or_scalar(b, "other", 2, S_B, 0);
	} else if (kind == T_MASKED_FILL) {
		/* where(mask, value, self) */
		at->kind = T_WHERE;
		at->opnd[0] = b_opnd(b, "mask");
		operand_or_scalar(b, "value", 1, S_A, 0);
		operand_or_scalar(b, "self", 2, S_B, 0);
	} else if (kind == T_ADDCMUL || kind == T_ADDCDIV) {
		at->opnd[0] = b_opnd(b, "self");
		at->opnd[1] = b_opnd(b, "tensor1");
		at->opnd[2] = b_opnd(b, "tensor2");
		at->s[S_ALPHA] = b_num(b, "value", 1, NULL);
	} else if (kind == T_LERP) {
		at->opnd[0] = b_opnd(b, "self");
		at->opnd[1] = b_opnd(b, "end");
		operand_or_scalar(b, "weight", 2, S_A, 0);
	} else if (kind == T_CLAMP_T) {
		at->opnd[0] = b_opnd(b, "self");
		at->opnd[1] = b_opnd(b, "min");
		at->opnd[2] = b_opnd(b, "max");
	} else {
		at->opnd[0] = b_opnd(b, "self");
		if (kind >= B_ADD) {
			operand_or_scalar(b, kind == B_POW ? "exponent" : "other", 1, S_OTHER, 0);
			at->s[S_ALPHA] = b_num(b, "alpha", 1, NULL);
		}
	}
	switch (kind) {
	case U_LEAKY: at->s[S_A] = b_num(b, "negative_slope", 0.01, NULL); break;
	case U_GELU: at->i[0] = strcmp(b_str(b, "approximate", "none"), "tanh") == 0; break;
	case U_SOFTPLUS:
		at->s[S_A] = b_num(b, "beta", 1, NULL);
		at->s[S_B] = b_num(b, "threshold", 20, NULL);
		break;
	case U_HARDTANH:
		at->s[S_A] = b_num(b, "min_val", -1, NULL);
		at->s[S_B] = b_num(b, "max_val", 1, NULL);
		break;
	case U_ELU:
		at->s[S_A] = b_num(b, "alpha", 1, NULL);
		at->s[S_B] = b_num(b, "scale", 1, NULL);
		at->s[S_C] = b_num(b, "input_scale", 1, NULL);
		break;
	case U_SELU:
		at->s[S_A] = 1.6732632423543772848170429916717;
		at->s[S_B] = 1.0507009873554804934193349852946;
		at->s[S_C] = 1;
		at->kind = U_ELU;
		break;
	case U_CELU:
		at->s[S_A] = b_num(b, "alpha", 1, NULL);
		at->s[S_B] = 1;
		at->s[S_C] = 1 / at->s[S_A];
		at->kind = U_ELU;
		break;
	case U_CLAMP:
		at->s[S_A] = b_num(b, "min", 0, &at->has[S_A]);
		at->s[S_B] = b_num(b, "max", 0, &at->has[S_B]);
		break;
	case U_CLAMP_MIN: case U_CLAMP_MAX:
		operand_or_scalar(b, kind == U_CLAMP_MIN ? "min" : "max", 1, S_A, 0);
		break;
	case U_FILL: {
		const char *n = b->call->op;
		at->s[S_A] = strstr(n, "zeros") ? 0 : strstr(n, "ones") ? 1 :
		             b_num(b, strstr(n, "full") ? "fill_value" : "value", 0, NULL);
		break;
	}
	case U_ROUND:
		if (b_int(b, "decimals", 0) != 0)
			return bind_fail(b, "round with decimals is not modelled");
		break;
	case B_DIV: {
		const char *m = b_str(b, "rounding_mode", NULL);
		at->i[0] = !m ? 0 : strcmp(m, "trunc") == 0 ? 1 : strcmp(m, "floor") == 0 ? 2 : -1;
		if (at->i[0] < 0)
			return bind_fail(b, "rounding_mode '%s' is unknown", m);
		break;
	}
	default: break;
	}
	/* scalars as torch computes with them (f32(1e-5) on f32 tensors) */
	for (int i = 0; i < 6; i++)
		at->s[i] = b_scalar_round(b, at->s[i]);
	canon_clamp(at);
	/* The result: the broadcast of the tensor operands. */
	struct op_shape r = { 0, { 0 } };
	bool any = false;
	for (int i = 0; i < 3; i++) {
		if (at->opnd[i] < 0)
			continue;
		if (!shape_bcast(&r, &in->in[at->opnd[i]], &r))
			return bind_fail(b, "shapes do not broadcast");
		any = true;
	}
	if (!any)
		return bind_fail(b, "no tensor operand");
	in->nres = 1;
	in->res[0] = r;
	in->res_formula[0] = 0;
	return true;
}

/* Operand role i at output coordinates idx, or its scalar. */
static V arg(struct alg *A, const int64_t *idx, int role, int slot)
{
	const struct op_inst *in = A->in;
	int k = in->at.opnd[role];
	if (k < 0)
		return a_k(A, in->at.s[slot]);
	return a_in(A, (unsigned)k, ix_bcast(idx, in->res[0].ndim, &in->in[k]));
}

/* softplus with torch's threshold: beta*x > threshold ? x : log1p(exp(beta*x))/beta. */
static V softplus(struct alg *A, V x, double beta, double threshold)
{
	V bx = beta == 1 ? x : a_mul(A, a_k(A, beta), x);
	V sp = a_fun(A, EF_LOG1P, a_fun(A, EF_EXP, bx));
	if (beta != 1)
		sp = a_div(A, sp, a_k(A, beta));
	return a_lt(A, a_k(A, threshold), bx, x, sp);
}

static V unary(struct alg *A, int kind, const struct op_attrs *at, V x)
{
	V zero = a_k(A, 0), one = a_k(A, 1);
	switch (kind) {
	case U_RELU: return a_max(A, x, zero);
	case U_RELU6: return a_min(A, a_max(A, x, zero), a_k(A, 6));
	case U_LEAKY: return a_lt(A, zero, x, x, a_mul(A, x, a_k(A, at->s[S_A])));
	case U_GELU:
		if (at->i[0]) {      /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
			V x3 = a_mul(A, a_mul(A, x, x), x);
			V in = a_mul(A, a_k(A, 0.7978845608028654),
			             a_add(A, x, a_mul(A, a_k(A, 0.044715), x3)));
			return a_mul(A, a_mul(A, a_k(A, 0.5), x), a_add(A, one, a_fun(A, EF_TANH, in)));
		}
		/* 0.5 x (1 + erf(x / sqrt 2)) */
		return a_mul(A, a_mul(A, a_k(A, 0.5), x),
		             a_add(A, one, a_fun(A, EF_ERF, a_mul(A, x, a_k(A, 0.7071067811865476)))));
	case U_SIGMOID: return a_fun(A, EF_SIGMOID, x);
	case U_TANH: return a_fun(A, EF_TANH, x);
	case U_SOFTPLUS: return softplus(A, x, at->s[S_A], at->s[S_B]);
	case U_MISH: return a_mul(A, x, a_fun(A, EF_TANH, softplus(A, x, 1, 20)));
	case U_SILU: return a_mul(A, x, a_fun(A, EF_SIGMOID, x));
	case U_HARDSIGMOID:
		return a_div(A, a_min(A, a_max(A, a_add(A, x, a_k(A, 3)), zero), a_k(A, 6)), a_k(A, 6));
	case U_HARDSWISH:
		return a_div(A, a_mul(A, x, a_min(A, a_max(A, a_add(A, x, a_k(A, 3)), zero), a_k(A, 6))),
		             a_k(A, 6));
	case U_HARDTANH: return a_min(A, a_max(A, x, a_k(A, at->s[S_A])), a_k(A, at->s[S_B]));
	case U_ELU: {     /* x > 0 ? scale x : scale alpha (exp(x input_scale) - 1) */
		V pos = at->s[S_B] == 1 ? x : a_mul(A, a_k(A, at->s[S_B]), x);
		V xs = at->s[S_C] == 1 ? x : a_mul(A, x, a_k(A, at->s[S_C]));
		V neg = a_mul(A, a_k(A, at->s[S_B] * at->s[S_A]), a_sub(A, a_fun(A, EF_EXP, xs), one));
		return a_lt(A, zero, x, pos, neg);
	}
	case U_CLAMP: {
		V r = x;
		if (at->has[S_A])
			r = a_max(A, r, a_k(A, at->s[S_A]));
		if (at->has[S_B])
			r = a_min(A, r, a_k(A, at->s[S_B]));
		return r;
	}
	case U_NEG: return a_neg(A, x);
	case U_ABS: return a_abs(A, x);
	case U_EXP: return a_fun(A, EF_EXP, x);
	case U_EXPM1: return a_sub(A, a_fun(A, EF_EXP, x), one);
	case U_LOG: return a_fun(A, EF_LOG, x);
	case U_LOG2: return a_fun(A, EF_LOG2, x);
	case U_LOG1P: return a_fun(A, EF_LOG1P, x);
	case U_SQRT: return a_fun(A, EF_SQRT, x);
	case U_RSQRT: return a_fun(A, EF_RSQRT, x);
	case U_RECIP: return a_div(A, one, x);
	case U_ERF: return a_fun(A, EF_ERF, x);
	case U_SIN: return a_fun(A, EF_SIN, x);
	case U_COS: return a_fun(A, EF_COS, x);
	case U_FLOOR: return a_fun(A, EF_FLOOR, x);
	case U_CEIL: return a_fun(A, EF_CEIL, x);
	case U_TRUNC: return a_fun(A, EF_TRUNC, x);
	case U_ROUND: return a_fun(A, EF_RINT, x);
	case U_SIGN: return a_lt(A, zero, x, one, a_lt(A, x, zero, a_k(A, -1), zero));
	case U_SQUARE: return a_mul(A, x, x);
	case U_NOT: return a_eqz(A, x, one, zero);
	case U_LOGSIGMOID:   /* -softplus(-x), as min(x,0) - log1p(exp(-|x|)) */
		return a_sub(A, a_min(A, x, zero),
		             a_fun(A, EF_LOG1P, a_fun(A, EF_EXP, a_neg(A, a_abs(A, x)))));
	default: return x;
	}
}

/* x ** y; small integral constant exponents as products (as torch does). */
static V power(struct alg *A, V x, V y, int yk, double yv)
{
	if (yk < 0 && yv == floor(yv) && fabs(yv) <= 4) {
		int n = (int)fabs(yv);
		V r = n == 0 ? a_k(A, 1) : x;
		for (int i = 1; i < n; i++)
			r = a_mul(A, r, x);
		return yv < 0 ? a_div(A, a_k(A, 1), r) : r;
	}
	if (yk < 0 && yv == 0.5)
		return a_fun(A, EF_SQRT, x);
	return a_pow(A, x, y);
}

V ew_elem(struct alg *A, unsigned r, const int64_t *idx)
{
	const struct op_attrs *at = &A->in->at;
	V zero = a_k(A, 0), one = a_k(A, 1);
	(void)r;
	if (at->kind == U_FILL)          /* the operand's shape, not its values */
		return a_k(A, at->s[S_A]);
	if (at->kind < B_ADD) {
		V x = arg(A, idx, 0, S_OTHER);
		if (at->kind == U_CLAMP_MIN)
			return a_max(A, x, arg(A, idx, 1, S_A));
		if (at->kind == U_CLAMP_MAX)
			return a_min(A, x, arg(A, idx, 1, S_A));
		return unary(A, at->kind, at, x);
	}
	switch (at->kind) {
	case T_WHERE: {
		V c = a_in(A, (unsigned)at->opnd[0], ix_bcast(idx, A->in->res[0].ndim,
		                                               &A->in->in[at->opnd[0]]));
		return a_eqz(A, c, arg(A, idx, 2, S_B), arg(A, idx, 1, S_A));
	}
	case T_ADDCMUL: case T_ADDCDIV: {
		V t1 = arg(A, idx, 1, 0), t2 = arg(A, idx, 2, 0);
		V p = at->kind == T_ADDCMUL ? a_mul(A, t1, t2) : a_div(A, t1, t2);
		if (at->s[S_ALPHA] != 1)
			p = a_mul(A, a_k(A, at->s[S_ALPHA]), p);
		return a_add(A, arg(A, idx, 0, 0), p);
	}
	case T_LERP: {
		V s = arg(A, idx, 0, 0), e = arg(A, idx, 1, 0), w = arg(A, idx, 2, S_A);
		return a_add(A, s, a_mul(A, w, a_sub(A, e, s)));
	}
	case T_CLAMP_T: {
		V x = arg(A, idx, 0, 0);
		if (at->opnd[1] >= 0)
			x = a_max(A, x, arg(A, idx, 1, 0));
		if (at->opnd[2] >= 0)
			x = a_min(A, x, arg(A, idx, 2, 0));
		return x;
	}
	case B_POW_SCALAR:
		return a_pow(A, a_k(A, at->s[S_OTHER]), arg(A, idx, 1, 0));
	default: break;
	}
	V x = arg(A, idx, 0, 0), y = arg(A, idx, 1, S_OTHER);
	V ay = at->s[S_ALPHA] == 1 ? y : a_mul(A, a_k(A, at->s[S_ALPHA]), y);
	switch (at->kind) {
	case B_ADD: return a_add(A, x, ay);
	case B_SUB: return a_sub(A, x, ay);
	case B_RSUB: return a_sub(A, y, at->s[S_ALPHA] == 1 ? x : a_mul(A, a_k(A, at->s[S_ALPHA]), x));
	case B_MUL: return a_mul(A, x, y);
	case B_DIV: {
		V q = a_div(A, x, y);
		return at->i[0] == 1 ? a_fun(A, EF_TRUNC, q) : at->i[0] == 2 ? a_fun(A, EF_FLOOR, q) : q;
	}
	case B_POW: return power(A, x, y, at->opnd[1], at->s[S_OTHER]);
	case B_MAXIMUM: return a_max(A, x, y);
	case B_MINIMUM: return a_min(A, x, y);
	case B_GT: return a_lt(A, y, x, one, zero);
	case B_GE: return a_le(A, y, x, one, zero);
	case B_LT: return a_lt(A, x, y, one, zero);
	case B_LE: return a_le(A, x, y, one, zero);
	case B_EQ: return a_eqz(A, a_sub(A, x, y), one, zero);
	case B_NE: return a_eqz(A, a_sub(A, x, y), zero, one);
	case B_XLOGY: return a_eqz(A, x, zero, a_mul(A, x, a_fun(A, EF_LOG, y)));
	default: return x;
	}
}
