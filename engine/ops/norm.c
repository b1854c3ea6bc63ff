/*
 * norm.c: batch norm (training and eval, with the running statistics it
 * updates), group norm, layer norm.  Instance norm reaches aten as batch
 * norm over a reshaped input.
 *
 * The formulas follow torch's CPU kernels: biased variance for
 * normalising, (x - mean) * rsqrt(var + eps) * weight + bias; running
 * statistics (1 - momentum) * old + momentum * batch (unbiased variance).
 * eps is taken in the compute type (float for f32, f16 and bf16 inputs),
 * as torch's CUDA kernels take it.
 *
 * Attributes: opnd[0] input, [1] weight, [2] bias, [3] running mean,
 * [4] running var; s[0] eps, s[1] momentum; i[0] training, i[1] groups,
 * i[2] first normalised dim (layer norm); kind the family member.
 */
#include "engine/ops/ops-impl.h"

#include <stdlib.h>
#include <string.h>

enum { N_BATCH, N_BATCH_LEGIT, N_BATCH_NOSTATS, N_BATCH_NOTRAIN, N_BATCH_CUDNN, N_BATCH_PLAIN,
       N_GROUP, N_LAYER };
enum { R_OUT, R_MEAN, R_RSTD, R_RUN_MEAN, R_RUN_VAR };

#define NM(n, k) { "aten::" n, norm_bind, norm_elem, k, false }
const struct op_def norm_defs[] = {
	NM("native_batch_norm", N_BATCH), NM("_native_batch_norm_legit", N_BATCH_LEGIT),
	NM("_native_batch_norm_legit.no_stats", N_BATCH_NOSTATS),
	NM("_native_batch_norm_legit_no_training", N_BATCH_NOTRAIN),
	NM("cudnn_batch_norm", N_BATCH_CUDNN), NM("batch_norm", N_BATCH_PLAIN),
	NM("native_group_norm", N_GROUP), NM("native_layer_norm", N_LAYER),
	{ NULL, NULL, NULL, 0, false }
};

bool norm_bind(struct bind *b, int kind)
{
	struct op_inst *in = b->in;
	struct op_attrs *at = &in->at;
	at->kind = kind;
	at->opnd[0] = b_opnd(b, "input");
	at->opnd[1] = b_opnd(b, "weight");
	at->opnd[2] = b_opnd(b, "bias");
	if (at->opnd[0] < 0)
		return bind_fail(b, "no tensor 'input'");
	const struct op_shape *x = &in->in[at->opnd[0]];
	struct op_shape stat = { 1, { 0 } };
	in->res[R_OUT] = *x;
	in->res_formula[R_OUT] = R_OUT;
	if (kind == N_GROUP) {
		at->s[0] = b_num(b, "eps", 1e-5, NULL);
		at->i[1] = b_int(b, "group", 1);
		if (x->ndim < 2 || at->i[1] < 1 || x->dim[1] % at->i[1])
			return bind_fail(b, "channels do not divide into groups");
		stat.ndim = 2;
		stat.dim[0] = x->dim[0];
		stat.dim[1] = at->i[1];
	} else if (kind == N_LAYER) {
		int64_t ns[OP_MAX_DIMS];
		unsigned n = b_ints(b, "normalized_shape", ns, OP_MAX_DIMS);
		if (n > x->ndim)
			return bind_fail(b, "normalized_shape longer than the input");
		at->s[0] = b_num(b, "eps", 1e-5, NULL);
		at->i[2] = x->ndim - n;
		stat = *x;
		for (unsigned i = (unsigned)at->i[2]; i < x->ndim; i++)
			stat.dim[i] = 1;
	} else {
		if (x->ndim < 2)
			return bind_fail(b, "input of fewer than 2 dimensions");
		at->opnd[3] = b_opnd(b, "running_mean");
		at->opnd[4] = b_opnd(b, "running_var");
		at->i[0] = kind == N_BATCH_NOTRAIN ? 0 : kind == N_BATCH_NOSTATS ? 1 : b_int(b, "training", 0);
		at->s[1] = b_num(b, kind == N_BATCH_CUDNN ? "exponential_average_factor" : "momentum", 0.1, NULL);
		at->s[0] = b_num(b, kind == N_BATCH_CUDNN ? "epsilon" : "eps", 1e-5, NULL);
		if (!at->i[0] && (at->opnd[3] < 0 || at->opnd[4] < 0))
			return bind_fail(b, "eval mode without running statistics");
		stat.dim[0] = x->dim[1];
	}
	/* eps in the compute type, as torch's CUDA kernels take it */
	at->s[0] = b_scalar_round(b, at->s[0]);
	in->nres = 1;
	if (kind == N_BATCH_PLAIN)
		return true;
	/* Saved statistics: torch returns empty ones in eval mode. */
	if (kind == N_GROUP || kind == N_LAYER || at->i[0]) {
		in->res[R_MEAN] = stat;
		in->res[R_RSTD] = stat;
		in->res_formula[R_MEAN] = R_MEAN;
		in->res_formula[R_RSTD] = R_RSTD;
		in->nres = 3;
	}
	/* Running statistics written in training: results after the outs. */
	for (uint32_t i = 0; i < b->call->nmuts && at->i[0] && kind < N_GROUP; i++) {
		unsigned r = b->call->nouts + i;
		const char *a = b->call->muts[i].arg;
		int f = strcmp(a, "running_mean") == 0 ? R_RUN_MEAN : strcmp(a, "running_var") == 0 ? R_RUN_VAR : -1;
		if (f < 0 || r >= OP_MAX_RESULTS)
			return bind_fail(b, "argument '%s' is written in place, which this op does not model", a);
		in->res[r] = stat;
		in->res_formula[r] = f;
		in->nres = r + 1;
	}
	return true;
}

/* The attributes result r depends on: the momentum only moves the
 * running statistics, so the normalised output of two batch norms that
 * differ in momentum alone is one function (a program that passes 0.9
 * where the reference has 0.1 changes the running buffers, not out). */
void norm_result_attrs(const struct op_inst *in, unsigned r, struct op_attrs *at)
{
	int f = r < in->nres ? in->res_formula[r] : -1;
	if (f != R_RUN_MEAN && f != R_RUN_VAR)
		at->s[1] = 0;
}

/* The elements a statistic is taken over, for the output element at idx:
 * calls back with each flat index of the input. */
struct grp { uint64_t *flat; int64_t n; };

static void members(const struct op_inst *in, const int64_t *idx, bool stat_idx, struct grp *g)
{
	const struct op_attrs *at = &in->at;
	const struct op_shape *x = &in->in[at->opnd[0]];
	int64_t inner = 1;
	for (unsigned i = 2; i < x->ndim; i++)
		inner *= x->dim[i];
	g->n = 0;
	if (at->kind == N_GROUP) {
		int64_t cg = x->dim[1] / at->i[1];
		int64_t n = idx[0], grp = stat_idx ? idx[1] : idx[1] / cg;
		for (int64_t c = grp * cg; c < (grp + 1) * cg; c++)
			for (int64_t s = 0; s < inner; s++)
				g->flat[g->n++] = (uint64_t)((n * x->dim[1] + c) * inner + s);
	} else if (at->kind == N_LAYER) {
		int64_t outer = 0, cnt = 1;
		for (unsigned i = 0; i < x->ndim; i++) {
			if (i < (unsigned)at->i[2])
				outer = outer * x->dim[i] + idx[i];
			else
				cnt *= x->dim[i];
		}
		for (int64_t s = 0; s < cnt; s++)
			g->flat[g->n++] = (uint64_t)(outer * cnt + s);
	} else {
		int64_t c = stat_idx ? idx[0] : idx[1];
		for (int64_t n = 0; n < x->dim[0]; n++)
			for (int64_t s = 0; s < inner; s++)
				g->flat[g->n++] = (uint64_t)((n * x->dim[1] + c) * inner + s);
	}
}

V norm_elem(struct alg *A, unsigned r, const int64_t *idx)
{
	const struct op_inst *in = A->in;
	const struct op_attrs *at = &in->at;
	const struct op_shape *x = &in->in[at->opnd[0]];
	unsigned k = (unsigned)at->opnd[0];
	bool batch = at->kind < N_GROUP;
	int64_t ch = batch || at->kind == N_GROUP ? (r == R_OUT ? idx[1] : idx[0]) : 0;
	V mean, var;
	if (batch && !at->i[0]) {
		mean = a_in(A, (unsigned)at->opnd[3], (uint64_t)ch);
		var = a_in(A, (unsigned)at->opnd[4], (uint64_t)ch);
	} else {
		struct grp g;
		g.flat = xmalloc(sizeof *g.flat * op_shape_numel(x));
		members(in, idx, r != R_OUT, &g);
		struct a_sum s;
		a_sum_init(&s);
		for (int64_t i = 0; i < g.n; i++)
			a_sum_add(A, &s, a_in(A, k, g.flat[i]));
		mean = a_div(A, a_sum_end(A, &s), a_k(A, (double)g.n));
		a_sum_init(&s);
		for (int64_t i = 0; i < g.n; i++) {
			V d = a_sub(A, a_in(A, k, g.flat[i]), mean);
			a_sum_add(A, &s, a_mul(A, d, d));
		}
		V ss = a_sum_end(A, &s);
		var = a_div(A, ss, a_k(A, (double)g.n));
		if (r == R_RUN_VAR)      /* unbiased */
			var = a_div(A, ss, a_k(A, (double)(g.n > 1 ? g.n - 1 : 1)));
		free(g.flat);
	}
	V mom = a_k(A, at->s[1]), keep = a_k(A, 1 - at->s[1]);
	switch (r) {
	case R_MEAN: return mean;
	case R_RSTD: return a_fun(A, EF_RSQRT, a_add(A, var, a_k(A, at->s[0])));
	case R_RUN_MEAN:
		return a_add(A, a_mul(A, keep, a_in(A, (unsigned)at->opnd[3], (uint64_t)ch)), a_mul(A, mom, mean));
	case R_RUN_VAR:
		return a_add(A, a_mul(A, keep, a_in(A, (unsigned)at->opnd[4], (uint64_t)ch)), a_mul(A, mom, var));
	default: break;
	}
	V xv = a_in(A, k, ix_ravel(idx, x));
	V y = a_mul(A, a_sub(A, xv, mean), a_fun(A, EF_RSQRT, a_add(A, var, a_k(A, at->s[0]))));
	/* Affine parameters: per channel, or of the normalised shape (layer norm). */
	uint64_t p = (uint64_t)ch;
	if (at->kind == N_LAYER) {
		p = 0;
		for (unsigned i = (unsigned)at->i[2]; i < x->ndim; i++)
			p = p * (uint64_t)x->dim[i] + (uint64_t)idx[i];
	}
	if (at->opnd[1] >= 0)
		y = a_mul(A, y, a_in(A, (unsigned)at->opnd[1], p));
	if (at->opnd[2] >= 0)
		y = a_add(A, y, a_in(A, (unsigned)at->opnd[2], p));
	return y;
}
