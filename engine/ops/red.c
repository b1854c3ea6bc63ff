/*
 * red.c: reductions (sum, mean, max, min, prod, logsumexp, var, std,
 * norms), the indices of the extremes (argmax, argmin) and ops along
 * one dimension (softmax, log_softmax, cumsum, cumprod).
 *
 * Attributes: v[0] the reduced dimensions (as a mask in i[1]), i[0]
 * keepdim, i[2] the correction of var/std, s[0] the norm's p.
 *
 * argmax and argmin return the index of the first extreme in row-major
 * order of the reduced elements (torch documents the first occurrence;
 * reals have no NaN), counted along the dimension, or over the flattened
 * tensor without one.  The indices of max.dim and min.dim stay without a
 * formula: torch does not promise which of equal extremes they name.
 */
#include "engine/ops/ops-impl.h"

#include <math.h>

enum {
	R_SUM, R_MEAN, R_AMAX, R_AMIN, R_MAX_DIM, R_MIN_DIM, R_PROD, R_LSE, R_VAR, R_STD,
	R_NORM, R_ARGMAX, R_ARGMIN, D_SOFTMAX, D_LOGSOFTMAX, D_CUMSUM, D_CUMPROD
};

#define RD(n, k) { "aten::" n, red_bind, red_elem, k, false }
const struct op_def red_defs[] = {
	RD("sum.dim_IntList", R_SUM), RD("sum", R_SUM), RD("mean.dim", R_MEAN), RD("mean", R_MEAN),
	RD("amax", R_AMAX), RD("amin", R_AMIN), RD("max.dim", R_MAX_DIM), RD("min.dim", R_MIN_DIM),
	RD("max", R_AMAX), RD("min", R_AMIN), RD("prod.dim_int", R_PROD), RD("prod", R_PROD),
	RD("logsumexp", R_LSE), RD("var.dim", R_VAR), RD("var.correction", R_VAR), RD("var", R_VAR),
	RD("std.dim", R_STD), RD("std.correction", R_STD), RD("std", R_STD),
	RD("norm.ScalarOpt_dim", R_NORM), RD("norm.Scalar", R_NORM),
	RD("linalg_vector_norm", R_NORM), RD("argmax", R_ARGMAX), RD("argmin", R_ARGMIN),
	RD("_softmax", D_SOFTMAX), RD("softmax.int", D_SOFTMAX),
	RD("_log_softmax", D_LOGSOFTMAX), RD("log_softmax.int", D_LOGSOFTMAX),
	RD("cumsum", D_CUMSUM), RD("cumprod", D_CUMPROD),
	{ NULL, NULL, NULL, 0, false }
};

bool red_bind(struct bind *b, int kind)
{
	struct op_inst *in = b->in;
	struct op_attrs *at = &in->at;
	at->kind = kind;
	at->opnd[0] = b_opnd(b, "self");
	if (at->opnd[0] < 0)
		return bind_fail(b, "no tensor 'self'");
	const struct op_shape *x = &in->in[at->opnd[0]];
	int64_t dims[OP_MAX_DIMS];
	unsigned nd = b_ints(b, "dim", dims, OP_MAX_DIMS);
	if (kind >= D_SOFTMAX) {
		int d = nd == 1 ? dim_wrap(dims[0], x->ndim) : -1;
		if (d < 0)
			return bind_fail(b, "bad 'dim'");
		at->i[1] = d;
		in->nres = 1;
		in->res[0] = *x;
		in->res_formula[0] = 0;
		return true;
	}
	uint64_t mask = 0;
	if (nd == 0)                       /* None or []: all dimensions */
		mask = x->ndim ? (1ull << x->ndim) - 1 : 0;
	for (unsigned i = 0; i < nd; i++) {
		int d = dim_wrap(dims[i], x->ndim);
		if (d < 0)
			return bind_fail(b, "dim %lld is out of range", (long long)dims[i]);
		if (x->ndim)
			mask |= 1ull << d;
	}
	at->i[1] = (int64_t)mask;
	at->i[0] = b_int(b, "keepdim", 0);
	if (kind == R_VAR || kind == R_STD) {
		const struct torch_arg *c = b_arg(b, "correction");
		if (c && c->kind == TARG_INT)
			at->i[2] = c->i;
		else if (c && c->kind == TARG_FLOAT)
			at->i[2] = (int64_t)c->f;
		else
			at->i[2] = b_int(b, "unbiased", 1) ? 1 : 0;
	}
	if (kind == R_NORM) {
		at->s[0] = b_num(b, "p", 2, NULL);
		if (b_arg(b, "ord"))
			at->s[0] = b_num(b, "ord", 2, NULL);
	}
	struct op_shape r = { 0, { 0 } };
	for (unsigned i = 0; i < x->ndim; i++)
		if (!(mask >> i & 1))
			r.dim[r.ndim++] = x->dim[i];
		else if (at->i[0])
			r.dim[r.ndim++] = 1;
	in->nres = kind == R_MAX_DIM || kind == R_MIN_DIM ? 2 : 1;
	in->res[0] = r;
	in->res[1] = r;
	in->res_formula[0] = 0;      /* indices (result 1) have no formula */
	return true;
}

/* Visits the input elements that reduce into output idx: calls fn with each
 * flat index of operand k, in row-major order. */
struct walk {
	int64_t xi[OP_MAX_DIMS];
	int64_t cnt;
};

static void start(const struct op_inst *in, const int64_t *idx, struct walk *w)
{
	const struct op_shape *x = &in->in[in->at.opnd[0]];
	uint64_t mask = (uint64_t)in->at.i[1];
	unsigned o = 0;
	w->cnt = 1;
	for (unsigned i = 0; i < x->ndim; i++) {
		if (mask >> i & 1) {
			w->xi[i] = 0;
			w->cnt *= x->dim[i];
			if (in->at.i[0])
				o++;
		} else {
			w->xi[i] = idx[o++];
		}
	}
}

static void next(const struct op_inst *in, struct walk *w)
{
	const struct op_shape *x = &in->in[in->at.opnd[0]];
	uint64_t mask = (uint64_t)in->at.i[1];
	for (unsigned i = x->ndim; i-- > 0;) {
		if (!(mask >> i & 1))
			continue;
		if (++w->xi[i] < x->dim[i])
			return;
		w->xi[i] = 0;
	}
}

static V along(struct alg *A, const int64_t *idx, int64_t j)
{
	const struct op_inst *in = A->in;
	const struct op_shape *x = &in->in[in->at.opnd[0]];
	int64_t xi[OP_MAX_DIMS];
	for (unsigned i = 0; i < x->ndim; i++)
		xi[i] = idx[i];
	if (x->ndim)
		xi[in->at.i[1]] = j;
	return a_in(A, (unsigned)in->at.opnd[0], ix_ravel(xi, x));
}

V red_elem(struct alg *A, unsigned r, const int64_t *idx)
{
	const struct op_inst *in = A->in;
	const struct op_attrs *at = &in->at;
	const struct op_shape *x = &in->in[at->opnd[0]];
	unsigned k = (unsigned)at->opnd[0];
	(void)r;
	if (at->kind >= D_SOFTMAX) {
		int64_t n = x->ndim ? x->dim[at->i[1]] : 1, me = x->ndim ? idx[at->i[1]] : 0;
		if (at->kind == D_CUMSUM || at->kind == D_CUMPROD) {
			V acc = along(A, idx, 0);
			for (int64_t j = 1; j <= me; j++)
				acc = at->kind == D_CUMSUM ? a_add(A, acc, along(A, idx, j))
				                           : a_mul(A, acc, along(A, idx, j));
			return acc;
		}
		V m = along(A, idx, 0);
		for (int64_t j = 1; j < n; j++)
			m = a_max(A, m, along(A, idx, j));
		struct a_sum s;
		a_sum_init(&s);
		for (int64_t j = 0; j < n; j++)
			a_sum_add(A, &s, a_fun(A, EF_EXP, a_sub(A, along(A, idx, j), m)));
		V sum = a_sum_end(A, &s);
		V xm = a_sub(A, along(A, idx, me), m);
		if (at->kind == D_SOFTMAX)
			return a_div(A, a_fun(A, EF_EXP, xm), sum);
		return a_sub(A, xm, a_fun(A, EF_LOG, sum));
	}
	struct walk w;
	start(in, idx, &w);
	int64_t n = w.cnt;
	if (at->kind == R_AMAX || at->kind == R_AMIN || at->kind == R_MAX_DIM ||
	    at->kind == R_MIN_DIM || at->kind == R_PROD) {
		V acc = a_in(A, k, ix_ravel(w.xi, x));
		for (int64_t j = 1; j < n; j++) {
			next(in, &w);
			V v = a_in(A, k, ix_ravel(w.xi, x));
			acc = at->kind == R_PROD ? a_mul(A, acc, v) :
			      at->kind == R_AMAX || at->kind == R_MAX_DIM ? a_max(A, acc, v) : a_min(A, acc, v);
		}
		return acc;
	}
	if (at->kind == R_ARGMAX || at->kind == R_ARGMIN) {
		/* the first extreme wins: only a strictly better element moves it */
		V best = a_in(A, k, ix_ravel(w.xi, x)), pos = a_k(A, 0);
		for (int64_t j = 1; j < n; j++) {
			next(in, &w);
			V v = a_in(A, k, ix_ravel(w.xi, x));
			V jv = a_k(A, (double)j);
			if (at->kind == R_ARGMAX) {
				pos = a_lt(A, best, v, jv, pos);
				best = a_lt(A, best, v, v, best);
			} else {
				pos = a_lt(A, v, best, jv, pos);
				best = a_lt(A, v, best, v, best);
			}
		}
		return pos;
	}
	if (at->kind == R_LSE) {
		V m = a_in(A, k, ix_ravel(w.xi, x));
		for (int64_t j = 1; j < n; j++) {
			next(in, &w);
			m = a_max(A, m, a_in(A, k, ix_ravel(w.xi, x)));
		}
		start(in, idx, &w);
		struct a_sum s;
		a_sum_init(&s);
		for (int64_t j = 0; j < n; j++, next(in, &w))
			a_sum_add(A, &s, a_fun(A, EF_EXP, a_sub(A, a_in(A, k, ix_ravel(w.xi, x)), m)));
		return a_add(A, m, a_fun(A, EF_LOG, a_sum_end(A, &s)));
	}
	if (at->kind == R_NORM) {
		double p = at->s[0];
		struct a_sum s;
		a_sum_init(&s);
		V mx = a_k(A, 0);
		for (int64_t j = 0; j < n; j++, next(in, &w)) {
			V v = a_in(A, k, ix_ravel(w.xi, x));
			if (isinf(p))
				mx = a_max(A, mx, a_abs(A, v));
			else if (p == 2)
				a_sum_add(A, &s, a_mul(A, v, v));
			else if (p == 1)
				a_sum_add(A, &s, a_abs(A, v));
			else
				a_sum_add(A, &s, a_pow(A, a_abs(A, v), a_k(A, p)));
		}
		if (isinf(p))
			return mx;
		V t = a_sum_end(A, &s);
		return p == 2 ? a_fun(A, EF_SQRT, t) : p == 1 ? t : a_pow(A, t, a_k(A, 1 / p));
	}
	struct a_sum s;
	a_sum_init(&s);
	for (int64_t j = 0; j < n; j++, next(in, &w))
		a_sum_add(A, &s, a_in(A, k, ix_ravel(w.xi, x)));
	V sum = a_sum_end(A, &s);
	if (at->kind == R_SUM)
		return sum;
	V mean = a_div(A, sum, a_k(A, (double)n));
	if (at->kind == R_MEAN)
		return mean;
	start(in, idx, &w);
	a_sum_init(&s);
	for (int64_t j = 0; j < n; j++, next(in, &w)) {
		V d = a_sub(A, a_in(A, k, ix_ravel(w.xi, x)), mean);
		a_sum_add(A, &s, a_mul(A, d, d));
	}
	V var = a_div(A, a_sum_end(A, &s), a_k(A, (double)(n - at->i[2])));
	return at->kind == R_STD ? a_fun(A, EF_SQRT, var) : var;
}
