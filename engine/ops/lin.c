/*
 * lin.c: matrix products: mm, addmm, bmm, baddbmm, matmul, linear, mv, dot.
 *
 * All are one product a @ b over the last dimension of a and the
 * second-to-last of b (the last of b for linear's weight), with batch
 * dimensions broadcast, plus beta * self + alpha * product for the add
 * forms.  Attributes: opnd[0] a, opnd[1] b, opnd[2] the added self;
 * s[0] beta, s[1] alpha; i[0] b transposed (linear); i[1]/i[2] a/b were 1-d.
 */
#include "engine/ops/ops-impl.h"

enum { L_MM, L_ADDMM, L_BMM, L_BADDBMM, L_MATMUL, L_LINEAR, L_MV, L_DOT };

#define LN(n, k) { "aten::" n, lin_bind, lin_elem, k, false }
const struct op_def lin_defs[] = {
	LN("mm", L_MM), LN("addmm", L_ADDMM), LN("bmm", L_BMM), LN("baddbmm", L_BADDBMM),
	LN("matmul", L_MATMUL), LN("linear", L_LINEAR), LN("mv", L_MV), LN("dot", L_DOT),
	{ NULL, NULL, NULL, 0, false }
};

bool op_is_product(const struct op_inst *in)
{
	return in->def->bind == lin_bind;
}

bool lin_bind(struct bind *b, int kind)
{
	struct op_inst *in = b->in;
	struct op_attrs *at = &in->at;
	at->kind = kind;
	at->s[0] = 0;
	at->s[1] = 1;
	switch (kind) {
	case L_ADDMM: case L_BADDBMM:
		at->opnd[0] = b_opnd(b, kind == L_ADDMM ? "mat1" : "batch1");
		at->opnd[1] = b_opnd(b, kind == L_ADDMM ? "mat2" : "batch2");
		at->opnd[2] = b_opnd(b, "self");
		at->s[0] = b_num(b, "beta", 1, NULL);
		at->s[1] = b_num(b, "alpha", 1, NULL);
		break;
	case L_LINEAR:
		at->opnd[0] = b_opnd(b, "input");
		at->opnd[1] = b_opnd(b, "weight");
		at->opnd[2] = b_opnd(b, "bias");
		at->s[0] = 1;
		at->i[0] = 1;
		break;
	case L_MV:
		at->opnd[0] = b_opnd(b, "self");
		at->opnd[1] = b_opnd(b, "vec");
		break;
	case L_DOT:
		at->opnd[0] = b_opnd(b, "self");
		at->opnd[1] = b_opnd(b, "tensor");
		break;
	default:
		at->opnd[0] = b_opnd(b, "self");
		at->opnd[1] = b_opnd(b, kind == L_MATMUL ? "other" : "mat2");
		break;
	}
	if (at->opnd[0] < 0 || at->opnd[1] < 0)
		return bind_fail(b, "missing a matrix operand");
	struct op_shape a = in->in[at->opnd[0]], w = in->in[at->opnd[1]];
	if (a.ndim == 0 || w.ndim == 0)
		return bind_fail(b, "0-d operand");
	/* 1-d operands become matrices, and lose that dimension again. */
	if (a.ndim == 1) {
		a.dim[1] = a.dim[0];
		a.dim[0] = 1;
		a.ndim = 2;
		at->i[1] = 1;
	}
	if (w.ndim == 1) {
		w.dim[1] = 1;
		w.ndim = 2;
		at->i[2] = 1;
	}
	int64_t k = a.dim[a.ndim - 1];
	int64_t kw = at->i[0] ? w.dim[w.ndim - 1] : w.dim[w.ndim - 2];
	int64_t m = at->i[0] ? w.dim[w.ndim - 2] : w.dim[w.ndim - 1];
	if (k != kw)
		return bind_fail(b, "inner dimensions %lld and %lld differ", (long long)k, (long long)kw);
	struct op_shape ba = a, bw = w, bo;
	ba.ndim -= 2;
	bw.ndim -= 2;
	if (!shape_bcast(&ba, &bw, &bo) || bo.ndim + 2 > OP_MAX_DIMS)
		return bind_fail(b, "batch dimensions do not broadcast");
	struct op_shape r = bo;
	if (!at->i[1])
		r.dim[r.ndim++] = a.dim[a.ndim - 2];
	if (!at->i[2])
		r.dim[r.ndim++] = m;
	at->v[0][0] = k;
	at->v[0][1] = a.dim[a.ndim - 2];
	at->v[0][2] = m;
	at->nv[0] = 3;
	in->nres = 1;
	in->res[0] = r;
	in->res_formula[0] = 0;
	if (at->opnd[2] >= 0) {
		struct op_shape t;
		if (!shape_bcast(&in->in[at->opnd[2]], &r, &t) || t.ndim != r.ndim)
			return bind_fail(b, "the added tensor does not broadcast to the product");
	}
	return true;
}

V lin_elem(struct alg *A, unsigned r, const int64_t *idx)
{
	const struct op_inst *in = A->in;
	const struct op_attrs *at = &in->at;
	const struct op_shape *res = &in->res[0];
	const struct op_shape *sa = &in->in[at->opnd[0]], *sw = &in->in[at->opnd[1]];
	int64_t k = at->v[0][0];
	(void)r;
	/* Result coordinates: batch..., row (unless a was 1-d), col (unless b was 1-d). */
	unsigned nb = res->ndim - (at->i[1] ? 0 : 1) - (at->i[2] ? 0 : 1);
	int64_t row = at->i[1] ? 0 : idx[nb];
	int64_t col = at->i[2] ? 0 : idx[res->ndim - 1];
	int64_t ai[OP_MAX_DIMS + 1], wi[OP_MAX_DIMS + 1];
	unsigned an = sa->ndim, wn = sw->ndim;
	/* Batch coordinates of a and b, broadcast from the result's. */
	unsigned abat = an >= 2 ? an - 2 : 0, wbat = wn >= 2 ? wn - 2 : 0;
	for (unsigned j = 0; j < abat; j++)
		ai[j] = sa->dim[j] == 1 ? 0 : idx[nb - abat + j];
	for (unsigned j = 0; j < wbat; j++)
		wi[j] = sw->dim[j] == 1 ? 0 : idx[nb - wbat + j];
	struct a_sum s;
	a_sum_init(&s);
	for (int64_t t = 0; t < k; t++) {
		if (an == 1) {
			ai[0] = t;
		} else {
			ai[an - 2] = row;
			ai[an - 1] = t;
		}
		if (wn == 1) {
			wi[0] = t;
		} else if (at->i[0]) {
			wi[wn - 2] = col;
			wi[wn - 1] = t;
		} else {
			wi[wn - 2] = t;
			wi[wn - 1] = col;
		}
		a_sum_add(A, &s, a_mul(A, a_in(A, (unsigned)at->opnd[0], ix_ravel(ai, sa)),
		                       a_in(A, (unsigned)at->opnd[1], ix_ravel(wi, sw))));
	}
	V p = a_sum_end(A, &s);
	if (at->opnd[2] < 0 || at->s[0] == 0)
		return at->s[1] == 1 ? p : a_mul(A, a_k(A, at->s[1]), p);
	V c = a_in(A, (unsigned)at->opnd[2], ix_bcast(idx, res->ndim, &in->in[at->opnd[2]]));
	if (at->s[0] != 1)
		c = a_mul(A, a_k(A, at->s[0]), c);
	if (at->s[1] != 1)
		p = a_mul(A, a_k(A, at->s[1]), p);
	return a_add(A, c, p);
}
