/*
 * mat.c: ops that pick or mask matrix elements by their position: diag
 * (a vector to a diagonal matrix, a matrix to its diagonal) and triu /
 * tril (the elements on and above / below a diagonal, the others zero).
 * KernelBench level 1 builds its diagonal and triangular matmuls with
 * them.
 *
 * Attributes: opnd[0] self; kind; i[0] diagonal (the offset k: element
 * (i, j) is on diagonal j - i).
 */
#include "engine/ops/ops-impl.h"

enum { MT_DIAG, MT_TRIU, MT_TRIL };

#define MT(n, k) { "aten::" n, mat_bind, mat_elem, k, false }
const struct op_def mat_defs[] = {
	MT("diag", MT_DIAG), MT("triu", MT_TRIU), MT("tril", MT_TRIL),
	{ NULL, NULL, NULL, 0, false }
};

bool mat_bind(struct bind *b, int kind)
{
	struct op_inst *in = b->in;
	struct op_attrs *at = &in->at;
	at->kind = kind;
	at->opnd[0] = b_opnd(b, "self");
	if (at->opnd[0] < 0)
		return bind_fail(b, "no tensor 'self'");
	at->i[0] = b_int(b, "diagonal", 0);
	const struct op_shape *x = &in->in[at->opnd[0]];
	int64_t k = at->i[0];
	struct op_shape r = *x;
	if (kind == MT_DIAG) {
		if (x->ndim == 1) {
			r.ndim = 2;
			r.dim[0] = r.dim[1] = x->dim[0] + (k < 0 ? -k : k);
		} else if (x->ndim == 2) {
			/* the diagonal j - i = k of a rows x cols matrix */
			int64_t n = k >= 0 ? (x->dim[0] < x->dim[1] - k ? x->dim[0] : x->dim[1] - k)
			                   : (x->dim[0] + k < x->dim[1] ? x->dim[0] + k : x->dim[1]);
			r.ndim = 1;
			r.dim[0] = n > 0 ? n : 0;
		} else {
			return bind_fail(b, "input of %u dimensions (diag takes 1 or 2)", x->ndim);
		}
	} else if (x->ndim < 2) {
		return bind_fail(b, "input of %u dimensions (at least 2)", x->ndim);
	}
	in->res[0] = r;
	in->res_formula[0] = 0;
	in->nres = 1;
	return true;
}

V mat_elem(struct alg *A, unsigned r, const int64_t *idx)
{
	(void)r;
	const struct op_inst *in = A->in;
	const struct op_attrs *at = &in->at;
	unsigned k = (unsigned)at->opnd[0];
	const struct op_shape *x = &in->in[k];
	int64_t d = at->i[0];
	if (at->kind == MT_DIAG && x->ndim == 1) {
		int64_t i = idx[0], j = idx[1];
		if (j - i != d)
			return a_k(A, 0);
		return a_in(A, k, (uint64_t)(d >= 0 ? i : j));
	}
	if (at->kind == MT_DIAG) {
		int64_t xi[2] = { d >= 0 ? idx[0] : idx[0] - d, d >= 0 ? idx[0] + d : idx[0] };
		return a_in(A, k, ix_ravel(xi, x));
	}
	/* triu / tril over the last two dimensions, batched over the others */
	int64_t i = idx[x->ndim - 2], j = idx[x->ndim - 1];
	bool keep = at->kind == MT_TRIU ? j - i >= d : j - i <= d;
	return keep ? a_in(A, k, ix_ravel(idx, x)) : a_k(A, 0);
}
