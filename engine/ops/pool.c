/*
 * pool.c: max and average pooling in 1, 2 or 3 dimensions (kernel,
 * stride, padding, dilation, ceil mode, count_include_pad, divisor
 * override), adaptive average and max pooling.
 *
 * Attributes: opnd[0] self; nv[0] spatial dims; v[0] kernel, v[1] stride,
 * v[2] padding, v[3] dilation; i[0] ceil mode, i[1] count_include_pad,
 * i[2] divisor override (0: none); kind the family member.
 */
#include "engine/ops/ops-impl.h"

enum { P_MAX, P_AVG, P_ADAPT_AVG, P_ADAPT_MAX };

#define PL(n, k, d) { "aten::" n, pool_bind, pool_elem, (k) * 4 + (d), false }
const struct op_def pool_defs[] = {
	PL("max_pool1d_with_indices", P_MAX, 1), PL("max_pool2d_with_indices", P_MAX, 2),
	PL("max_pool3d_with_indices", P_MAX, 3), PL("max_pool1d", P_MAX, 1),
	PL("max_pool2d", P_MAX, 2), PL("max_pool3d", P_MAX, 3),
	PL("avg_pool1d", P_AVG, 1), PL("avg_pool2d", P_AVG, 2), PL("avg_pool3d", P_AVG, 3),
	PL("_adaptive_avg_pool2d", P_ADAPT_AVG, 2), PL("_adaptive_avg_pool3d", P_ADAPT_AVG, 3),
	PL("adaptive_avg_pool1d", P_ADAPT_AVG, 1), PL("adaptive_avg_pool2d", P_ADAPT_AVG, 2),
	PL("adaptive_avg_pool3d", P_ADAPT_AVG, 3),
	PL("adaptive_max_pool1d", P_ADAPT_MAX, 1), PL("adaptive_max_pool2d", P_ADAPT_MAX, 2),
	PL("adaptive_max_pool3d", P_ADAPT_MAX, 3),
	{ NULL, NULL, NULL, 0, false }
};

static void fill(int64_t *v, unsigned n, unsigned got, const int64_t *dflt)
{
	for (unsigned i = got; i < n; i++)
		v[i] = got == 1 ? v[0] : dflt ? dflt[i] : 0;
}

bool pool_bind(struct bind *b, int kd)
{
	struct op_inst *in = b->in;
	struct op_attrs *at = &in->at;
	int kind = kd / 4;
	unsigned sd = (unsigned)(kd % 4);
	at->kind = kind;
	at->opnd[0] = b_opnd(b, "self");
	if (at->opnd[0] < 0)
		return bind_fail(b, "no tensor 'self'");
	const struct op_shape *x = &in->in[at->opnd[0]];
	if (x->ndim < sd + 1)
		return bind_fail(b, "input of %u dimensions", x->ndim);
	unsigned lead = x->ndim - sd;
	at->nv[0] = sd;
	struct op_shape r = *x;
	if (kind == P_ADAPT_AVG || kind == P_ADAPT_MAX) {
		fill(at->v[0], sd, b_ints(b, "output_size", at->v[0], sd), NULL);
		for (unsigned d = 0; d < sd; d++)
			r.dim[lead + d] = at->v[0][d];
	} else {
		unsigned nk = b_ints(b, "kernel_size", at->v[0], sd);
		if (nk == 0)
			return bind_fail(b, "no kernel_size");
		fill(at->v[0], sd, nk, NULL);
		fill(at->v[1], sd, b_ints(b, "stride", at->v[1], sd), at->v[0]);
		fill(at->v[2], sd, b_ints(b, "padding", at->v[2], sd), NULL);
		int64_t one[3] = { 1, 1, 1 };
		fill(at->v[3], sd, b_ints(b, "dilation", at->v[3], sd), one);
		at->i[0] = b_int(b, "ceil_mode", 0);
		at->i[1] = b_int(b, "count_include_pad", 1);
		at->i[2] = b_int(b, "divisor_override", 0);
		/* without padding no window holds a pad: count_include_pad is
		 * one attribute whatever its value (op_same_call) */
		bool padded = false;
		for (unsigned d = 0; d < sd; d++)
			padded |= at->v[2][d] != 0;
		if (!padded)
			at->i[1] = 1;
		if (kind == P_AVG)
			for (unsigned d = 0; d < sd; d++)
				at->v[3][d] = 1;
		for (unsigned d = 0; d < sd; d++) {
			int64_t L = x->dim[lead + d], k = at->v[0][d], s = at->v[1][d];
			int64_t p = at->v[2][d], dl = at->v[3][d];
			int64_t span = L + 2 * p - dl * (k - 1) - 1;
			if (s < 1 || span < 0)
				return bind_fail(b, "window larger than the input");
			int64_t o = (at->i[0] ? (span + s - 1) / s : span / s) + 1;
			if (at->i[0] && (o - 1) * s >= L + p)
				o--;
			r.dim[lead + d] = o;
		}
	}
	in->nres = kind == P_AVG || kind == P_ADAPT_AVG ? 1 : 2;
	in->res[0] = r;
	in->res[1] = r;
	in->res_formula[0] = 0;        /* argmax indices: no formula */
	return true;
}

V pool_elem(struct alg *A, unsigned r, const int64_t *idx)
{
	const struct op_inst *in = A->in;
	const struct op_attrs *at = &in->at;
	const struct op_shape *x = &in->in[at->opnd[0]];
	unsigned sd = at->nv[0], lead = x->ndim - sd;
	int64_t lo[3], hi[3], step[3], cnt = 1, pool = 1;
	(void)r;
	for (unsigned d = 0; d < sd; d++) {
		int64_t L = x->dim[lead + d], o = idx[lead + d];
		if (at->kind == P_ADAPT_AVG || at->kind == P_ADAPT_MAX) {
			int64_t O = at->v[0][d];
			lo[d] = o * L / O;
			hi[d] = ((o + 1) * L + O - 1) / O;
			step[d] = 1;
		} else {
			int64_t s = at->v[1][d], p = at->v[2][d], k = at->v[0][d], dl = at->v[3][d];
			int64_t start = o * s - p;
			if (at->kind == P_AVG) {
				int64_t end = start + k < L + p ? start + k : L + p;
				pool *= end - start;
				lo[d] = start < 0 ? 0 : start;
				hi[d] = end < L ? end : L;
				step[d] = 1;
			} else {
				/* positions start + j*dl for j < k, inside [0, L) */
				int64_t j0 = start < 0 ? (-start + dl - 1) / dl : 0;
				lo[d] = start + j0 * dl;
				int64_t last = start + (k - 1) * dl;
				hi[d] = (last < L ? last : L - 1) + 1;
				step[d] = dl;
			}
		}
		cnt *= hi[d] > lo[d] ? (hi[d] - lo[d] + step[d] - 1) / step[d] : 0;
	}
	int64_t xi[OP_MAX_DIMS], c[3];
	for (unsigned i = 0; i < lead; i++)
		xi[i] = idx[i];
	for (unsigned d = 0; d < sd; d++)
		c[d] = lo[d];
	bool isMax = at->kind == P_MAX || at->kind == P_ADAPT_MAX;
	struct a_sum s;
	V m = a_k(A, 0);
	a_sum_init(&s);
	for (int64_t t = 0; t < cnt; t++) {
		for (unsigned d = 0; d < sd; d++)
			xi[lead + d] = c[d];
		V v = a_in(A, (unsigned)at->opnd[0], ix_ravel(xi, x));
		if (isMax)
			m = t ? a_max(A, m, v) : v;
		else
			a_sum_add(A, &s, v);
		for (unsigned d = sd; d-- > 0;) {
			c[d] += step[d];
			if (c[d] < hi[d])
				break;
			c[d] = lo[d];
		}
	}
	if (isMax)
		return m;
	V sum = a_sum_end(A, &s);
	int64_t div = at->kind == P_ADAPT_AVG ? cnt : at->i[2] ? at->i[2] : at->i[1] ? pool : cnt;
	return a_div(A, sum, a_k(A, (double)div));
}
