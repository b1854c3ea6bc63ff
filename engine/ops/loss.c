/*
 * loss.c: losses of KernelBench level 1: mse, l1, smooth_l1, huber,
 * binary cross-entropy, kl_div, nll (cross-entropy is log_softmax then
 * nll), soft margin.  Reductions: 0 none, 1 mean, 2 sum.
 *
 * Attributes: opnd[0] self, [1] target, [2] weight; i[0] reduction,
 * i[1] ignore_index or log_target; s[0] beta/delta; v[0] the unreduced
 * shape (nv[0] dims).
 */
#include "engine/ops/ops-impl.h"

#include <math.h>

enum { LS_MSE, LS_L1, LS_SMOOTH_L1, LS_HUBER, LS_BCE, LS_KL, LS_SOFT_MARGIN, LS_NLL };

#define LS(n, k) { "aten::" n, loss_bind, loss_elem, k, false }
const struct op_def loss_defs[] = {
	LS("mse_loss", LS_MSE), LS("l1_loss", LS_L1), LS("smooth_l1_loss", LS_SMOOTH_L1),
	LS("huber_loss", LS_HUBER), LS("binary_cross_entropy", LS_BCE), LS("kl_div", LS_KL),
	LS("soft_margin_loss", LS_SOFT_MARGIN), LS("nll_loss_forward", LS_NLL),
	LS("nll_loss", LS_NLL),
	{ NULL, NULL, NULL, 0, false }
};

bool loss_bind(struct bind *b, int kind)
{
	struct op_inst *in = b->in;
	struct op_attrs *at = &in->at;
	at->kind = kind;
	at->opnd[0] = b_opnd(b, "self");
	at->opnd[1] = b_opnd(b, "target");
	at->opnd[2] = b_opnd(b, "weight");
	if (at->opnd[0] < 0 || at->opnd[1] < 0)
		return bind_fail(b, "needs tensors 'self' and 'target'");
	at->i[0] = b_int(b, "reduction", 1);
	if (at->i[0] < 0 || at->i[0] > 2)
		return bind_fail(b, "reduction %lld is unknown", (long long)at->i[0]);
	at->s[0] = b_num(b, kind == LS_HUBER ? "delta" : "beta", 1, NULL);
	at->i[1] = kind == LS_NLL ? b_int(b, "ignore_index", -100) : b_int(b, "log_target", 0);
	const struct op_shape *x = &in->in[at->opnd[0]];
	struct op_shape full;
	if (kind == LS_NLL) {
		if (x->ndim > 2 || x->ndim < 1)
			return bind_fail(b, "input of %u dimensions is not modelled", x->ndim);
		full.ndim = x->ndim - 1;
		full.dim[0] = x->dim[0];
	} else if (!shape_bcast(x, &in->in[at->opnd[1]], &full)) {
		return bind_fail(b, "self and target do not broadcast");
	}
	at->nv[0] = full.ndim;
	for (unsigned i = 0; i < full.ndim; i++)
		at->v[0][i] = full.dim[i];
	struct op_shape scalar = { 0, { 0 } };
	in->res[0] = at->i[0] == 0 ? full : scalar;
	in->res_formula[0] = 0;
	in->nres = 1;
	if (kind == LS_NLL && b->call->nouts > 1) {
		/* torch leaves total_weight 0 when not reducing */
		in->res[1] = scalar;
		in->res_formula[1] = at->i[0] ? 1 : -1;
		in->nres = 2;
	}
	return true;
}

/* The unreduced loss at coordinates idx of the unreduced shape; for nll
 * *w gets the weight of the term. */
static V term(struct alg *A, const int64_t *idx, V *w)
{
	const struct op_inst *in = A->in;
	const struct op_attrs *at = &in->at;
	struct op_shape full = { at->nv[0], { 0 } };
	for (unsigned i = 0; i < full.ndim; i++)
		full.dim[i] = at->v[0][i];
	V zero = a_k(A, 0), one = a_k(A, 1);
	if (at->kind == LS_NLL) {
		const struct op_shape *x = &in->in[at->opnd[0]];
		uint64_t n = x->ndim == 2 ? (uint64_t)idx[0] : 0;
		int64_t t = a_int(A, (unsigned)at->opnd[1], n);
		if (t == at->i[1] || t < 0 || t >= x->dim[x->ndim - 1]) {
			*w = zero;
			return zero;
		}
		*w = at->opnd[2] >= 0 ? a_in(A, (unsigned)at->opnd[2], (uint64_t)t) : one;
		V v = a_in(A, (unsigned)at->opnd[0], n * (uint64_t)x->dim[x->ndim - 1] + (uint64_t)t);
		return a_neg(A, at->opnd[2] >= 0 ? a_mul(A, *w, v) : v);
	}
	*w = one;
	V x = a_in(A, (unsigned)at->opnd[0], ix_bcast(idx, full.ndim, &in->in[at->opnd[0]]));
	V y = a_in(A, (unsigned)at->opnd[1], ix_bcast(idx, full.ndim, &in->in[at->opnd[1]]));
	V d = a_sub(A, x, y), ad = a_abs(A, d), beta = a_k(A, at->s[0]), half = a_k(A, 0.5);
	V l;
	switch (at->kind) {
	case LS_MSE: return a_mul(A, d, d);
	case LS_L1: return ad;
	case LS_SMOOTH_L1:    /* |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta */
		return a_lt(A, ad, beta, a_div(A, a_mul(A, half, a_mul(A, d, d)), beta),
		            a_sub(A, ad, a_k(A, 0.5 * at->s[0])));
	case LS_HUBER:        /* |d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta) */
		return a_lt(A, ad, beta, a_mul(A, half, a_mul(A, d, d)),
		            a_mul(A, beta, a_sub(A, ad, a_k(A, 0.5 * at->s[0]))));
	case LS_BCE: {        /* -(y log x + (1 - y) log(1 - x)), logs clamped at -100 */
		V lx = a_max(A, a_fun(A, EF_LOG, x), a_k(A, -100));
		V l1x = a_max(A, a_fun(A, EF_LOG, a_sub(A, one, x)), a_k(A, -100));
		l = a_neg(A, a_add(A, a_mul(A, y, lx), a_mul(A, a_sub(A, one, y), l1x)));
		if (at->opnd[2] >= 0)
			l = a_mul(A, l, a_in(A, (unsigned)at->opnd[2],
			                     ix_bcast(idx, full.ndim, &in->in[at->opnd[2]])));
		return l;
	}
	case LS_KL:           /* log_target ? exp(y) (y - x) : y (log y - x), 0 where y = 0 */
		if (at->i[1])
			return a_mul(A, a_fun(A, EF_EXP, y), a_sub(A, y, x));
		return a_eqz(A, y, zero, a_mul(A, y, a_sub(A, a_fun(A, EF_LOG, y), x)));
	case LS_SOFT_MARGIN:
		return a_fun(A, EF_LOG1P, a_fun(A, EF_EXP, a_neg(A, a_mul(A, x, y))));
	default: return zero;
	}
}

V loss_elem(struct alg *A, unsigned r, const int64_t *idx)
{
	const struct op_attrs *at = &A->in->at;
	V w;
	if (at->i[0] == 0 && r == 0)
		return term(A, idx, &w);
	struct op_shape full = { at->nv[0], { 0 } };
	for (unsigned i = 0; i < full.ndim; i++)
		full.dim[i] = at->v[0][i];
	uint64_t n = op_shape_numel(&full);
	int64_t fi[OP_MAX_DIMS];
	struct a_sum s, ws;
	a_sum_init(&s);
	a_sum_init(&ws);
	for (uint64_t f = 0; f < n; f++) {
		ix_unravel(f, &full, fi);
		V t = term(A, fi, &w);
		if (r == 0)
			a_sum_add(A, &s, t);
		a_sum_add(A, &ws, w);
	}
	V sum = a_sum_end(A, &s), wsum = a_sum_end(A, &ws);
	if (r == 1)                           /* nll's total weight */
		return wsum;
	if (at->i[0] == 2)
		return sum;
	if (at->kind == LS_NLL)
		return a_div(A, sum, wsum);
	return a_div(A, sum, a_k(A, (double)n));
}
