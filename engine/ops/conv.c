/*
 * conv.c: convolution in 1, 2 or 3 spatial dimensions, plain and
 * transposed, with stride, padding, dilation, groups and output padding.
 *
 * Attributes: opnd[0] input, opnd[1] weight, opnd[2] bias; v[0] stride,
 * v[1] padding, v[2] dilation, v[3] output padding (nv[0] = spatial dims);
 * i[0] transposed, i[1] groups, i[2] input was unbatched.
 */
#include "engine/ops/ops-impl.h"

#include <string.h>

enum { C_CONVOLUTION, C_CONV };

#define CV(n, k) { "aten::" n, conv_bind, conv_elem, k, false }
const struct op_def conv_defs[] = {
	CV("convolution", C_CONVOLUTION), CV("_convolution", C_CONVOLUTION),
	CV("convolution_overrideable", C_CONVOLUTION),
	CV("conv1d", C_CONV), CV("conv2d", C_CONV), CV("conv3d", C_CONV),
	CV("conv_transpose1d", C_CONV), CV("conv_transpose2d.input", C_CONV),
	CV("conv_transpose3d.input", C_CONV),
	{ NULL, NULL, NULL, 0, false }
};

static void fill(int64_t *v, unsigned n, unsigned got, int64_t dflt)
{
	if (got == 0)
		for (unsigned i = 0; i < n; i++)
			v[i] = dflt;
	else if (got == 1)
		for (unsigned i = 1; i < n; i++)
			v[i] = v[0];
}

bool conv_bind(struct bind *b, int kind)
{
	struct op_inst *in = b->in;
	struct op_attrs *at = &in->at;
	at->kind = kind;
	at->opnd[0] = b_opnd(b, "input");
	at->opnd[1] = b_opnd(b, "weight");
	at->opnd[2] = b_opnd(b, "bias");
	if (at->opnd[0] < 0 || at->opnd[1] < 0)
		return bind_fail(b, "needs tensors 'input' and 'weight'");
	const struct op_shape *x = &in->in[at->opnd[0]], *w = &in->in[at->opnd[1]];
	if (w->ndim < 3 || w->ndim > 5)
		return bind_fail(b, "weight of %u dimensions", w->ndim);
	unsigned sd = w->ndim - 2;
	at->i[2] = x->ndim == sd + 1;
	if (x->ndim != sd + 2 && !at->i[2])
		return bind_fail(b, "input of %u dimensions for a %u-d convolution", x->ndim, sd);
	if (b_str(b, "padding", NULL))
		return bind_fail(b, "string padding is not modelled");
	at->nv[0] = sd;
	fill(at->v[0], sd, b_ints(b, "stride", at->v[0], sd), 1);
	fill(at->v[1], sd, b_ints(b, "padding", at->v[1], sd), 0);
	fill(at->v[2], sd, b_ints(b, "dilation", at->v[2], sd), 1);
	fill(at->v[3], sd, b_ints(b, "output_padding", at->v[3], sd), 0);
	at->i[0] = b_int(b, "transposed", 0) || b->call->op[strlen("aten::conv_t")] == 'r';
	at->i[1] = b_int(b, "groups", 1);
	int64_t g = at->i[1];
	unsigned xo = at->i[2] ? 1 : 0;            /* x's channel dim is 1 - xo */
	int64_t cin = x->dim[1 - xo];
	int64_t cout = at->i[0] ? w->dim[1] * g : w->dim[0];
	if (g < 1 || cin % g || cout % g ||
	    (at->i[0] ? w->dim[0] != cin : w->dim[1] * g != cin))
		return bind_fail(b, "channels do not match the weight and groups");
	struct op_shape r = { 0, { 0 } };
	if (!at->i[2])
		r.dim[r.ndim++] = x->dim[0];
	r.dim[r.ndim++] = cout;
	for (unsigned d = 0; d < sd; d++) {
		int64_t L = x->dim[2 - xo + d], k = w->dim[2 + d];
		int64_t s = at->v[0][d], p = at->v[1][d], dl = at->v[2][d], op = at->v[3][d];
		int64_t o = at->i[0] ? (L - 1) * s - 2 * p + dl * (k - 1) + op + 1
		                     : (L + 2 * p - dl * (k - 1) - 1) / s + 1;
		if (o < 0 || s < 1)
			return bind_fail(b, "spatial dimension %u is empty", d);
		r.dim[r.ndim++] = o;
	}
	in->nres = 1;
	in->res[0] = r;
	in->res_formula[0] = 0;
	return true;
}

V conv_elem(struct alg *A, unsigned r, const int64_t *idx)
{
	const struct op_inst *in = A->in;
	const struct op_attrs *at = &in->at;
	const struct op_shape *x = &in->in[at->opnd[0]], *w = &in->in[at->opnd[1]];
	unsigned sd = at->nv[0], xo = at->i[2] ? 1 : 0;
	int64_t g = at->i[1];
	int64_t n = at->i[2] ? 0 : idx[0], oc = idx[1 - xo];
	const int64_t *o = idx + 2 - xo;
	int64_t cin = x->dim[1 - xo], cin_g = cin / g;
	int64_t cout_g = at->i[0] ? w->dim[1] : w->dim[0] / g;
	int64_t grp = oc / cout_g;
	int64_t kn = 1;
	for (unsigned d = 0; d < sd; d++)
		kn *= w->dim[2 + d];
	(void)r;
	struct a_sum s;
	a_sum_init(&s);
	if (at->opnd[2] >= 0)
		a_sum_add(A, &s, a_in(A, (unsigned)at->opnd[2], (uint64_t)oc));
	int64_t xi[OP_MAX_DIMS], wi[OP_MAX_DIMS], kk[3];
	for (int64_t c = 0; c < cin_g; c++) {
		int64_t ic = grp * cin_g + c;
		for (int64_t kf = 0; kf < kn; kf++) {
			int64_t rem = kf;
			for (unsigned d = sd; d-- > 0;) {
				kk[d] = rem % w->dim[2 + d];
				rem /= w->dim[2 + d];
			}
			bool ok = true;
			for (unsigned d = 0; d < sd && ok; d++) {
				int64_t s_ = at->v[0][d], p = at->v[1][d], dl = at->v[2][d];
				int64_t L = x->dim[2 - xo + d], pos;
				if (at->i[0]) {   /* o = i*s - p + k*dl */
					int64_t t = o[d] + p - kk[d] * dl;
					if (t < 0 || t % s_)
						ok = false;
					pos = t / s_;
				} else {
					pos = o[d] * s_ - p + kk[d] * dl;
				}
				if (pos < 0 || pos >= L)
					ok = false;
				xi[2 - xo + d] = pos;
				wi[2 + d] = kk[d];
			}
			if (!ok)
				continue;
			if (!xo)
				xi[0] = n;
			xi[1 - xo] = ic;
			if (at->i[0]) {
				wi[0] = ic;
				wi[1] = oc % cout_g;
			} else {
				wi[0] = oc;
				wi[1] = c;
			}
			a_sum_add(A, &s, a_mul(A, a_in(A, (unsigned)at->opnd[0], ix_ravel(xi, x)),
			                       a_in(A, (unsigned)at->opnd[1], ix_ravel(wi, w))));
		}
	}
	return a_sum_end(A, &s);
}
