/*
 * view.c: ops that only move elements: views (view, reshape, permute,
 * transpose, expand, slice, select, squeeze, unsqueeze, ...) and copies
 * (clone, contiguous, detach, _to_copy, copy_), and cat, which lays its
 * operands one after the other along a dimension.  Their results are also
 * described by the tensor records' geometry; these formulas say the same
 * over the operand's logical (row-major) elements.
 *
 * Attributes: opnd[0] self (copy_: src; cat: the first operand); kind;
 * v[0] permutation / i[0..2] dim, start, step / index; cat: i[0] dim,
 * in_start[j] where operand j starts along it (any number of operands up
 * to OP_MAX_OPERANDS, found by bisection); stack: i[0] the new dim;
 * split: i[0] dim, i[1] split size, result r the chunk from r * i[1];
 * flip: v[0][d] 1 where dimension d is reversed; roll: v[0][d] the
 * shift of dimension d in [0, size), or with no dims i[0] 1 and i[1] the
 * shift of the flattened elements; constant_pad_nd (F.pad's
 * constant mode): v[0][d] the padding before dimension d (negative: a
 * cut), s[0] the value of the padding.
 *
 * Gathers by integer index tensors (index.Tensor: x[..., idx, ...], and
 * index_select) also only move elements; the indices are read concretely
 * (op_leaves.ival), so they must be constants of the trace (an index
 * table of the model, dirigo-trace(5)): indices from data leave the
 * element without a formula.  index: i[0] the first indexed dim, i[1]
 * the number of index tensors (operands 1..i[1], indexing dims i[0]..),
 * i[2] 1 when the broadcast index dims come first (index tensors that
 * are not adjacent), v[0] (nv[0] dims) the index tensors' broadcast
 * shape; index_select: i[0] the dim.
 */
#include "engine/ops/ops-impl.h"

#include <string.h>

enum { V_SAME, V_PERMUTE, V_TRANSPOSE, V_T, V_EXPAND, V_SLICE, V_SELECT, V_COPY, V_REPEAT, V_CAT, V_STACK, V_SPLIT,
       V_FLIP, V_ROLL, V_PAD, V_INDEX, V_INDEX_SELECT };

#define VW(n, k) { "aten::" n, view_bind, view_elem, k, true }
const struct op_def view_defs[] = {
	VW("view", V_SAME), VW("reshape", V_SAME), VW("_reshape_alias", V_SAME),
	VW("_unsafe_view", V_SAME), VW("flatten.using_ints", V_SAME), VW("unsqueeze", V_SAME),
	VW("squeeze", V_SAME), VW("squeeze.dim", V_SAME), VW("squeeze.dims", V_SAME),
	VW("clone", V_SAME), VW("contiguous", V_SAME), VW("detach", V_SAME), VW("alias", V_SAME),
	VW("lift_fresh", V_SAME), VW("lift_fresh_copy", V_SAME), VW("_to_copy", V_SAME),
	VW("to.dtype", V_SAME), VW("view_as", V_SAME), VW("reshape_as", V_SAME),
	VW("permute", V_PERMUTE), VW("transpose.int", V_TRANSPOSE), VW("t", V_T),
	VW("expand", V_EXPAND), VW("expand_as", V_EXPAND), VW("slice.Tensor", V_SLICE),
	VW("select.int", V_SELECT), VW("copy", V_COPY), VW("repeat", V_REPEAT), VW("cat", V_CAT),
	VW("concat", V_CAT), VW("stack", V_STACK), VW("split.Tensor", V_SPLIT),
	VW("unsafe_split.Tensor", V_SPLIT), VW("flip", V_FLIP),
	VW("roll", V_ROLL),
	{ "aten::constant_pad_nd", view_bind, view_elem, V_PAD, false },  /* adds elements */
	{ "aten::index.Tensor", view_bind, view_elem, V_INDEX, false },    /* gathers */
	{ "aten::index_select", view_bind, view_elem, V_INDEX_SELECT, false },
	{ NULL, NULL, NULL, 0, false }
};

bool op_is_copy(const struct op_inst *in, unsigned r, unsigned *opnd)
{
	/* copy_ binds as an expansion of its source to self's shape */
	if (in->def->bind != view_bind || r >= in->nres || in->res_formula[r] != 0 ||
	    (in->at.kind != V_SAME && in->at.kind != V_EXPAND) || in->at.opnd[0] < 0)
		return false;
	unsigned k = (unsigned)in->at.opnd[0];
	const struct op_shape *x = &in->in[k], *y = &in->res[r];
	if (op_shape_numel(x) != op_shape_numel(y))
		return false;
	/* an expansion keeps the order only to the same shape */
	if (in->at.kind == V_EXPAND && (x->ndim != y->ndim ||
	                                memcmp(x->dim, y->dim, x->ndim * sizeof *x->dim) != 0))
		return false;
	*opnd = k;
	return true;
}

/* cat: the tensors of argument 'tensors' along 'dim'; 1-d empty ones are
 * skipped, as torch does. */
static bool cat_bind(struct bind *b, bool stack)
{
	struct op_inst *in = b->in;
	struct op_attrs *at = &in->at;
	const struct torch_arg *g = b_arg(b, "tensors");
	if (!g || g->kind != TARG_TENSORS || in->nin == 0)
		return bind_fail(b, "no tensors to concatenate");
	int first = -1;
	for (unsigned j = 0; j < in->nin && first < 0; j++)
		if (!(in->in[j].ndim == 1 && in->in[j].dim[0] == 0))
			first = (int)j;
	if (first < 0)
		return bind_fail(b, "only empty tensors");
	struct op_shape r = in->in[first];
	if (stack) {
		/* stack: every operand of one shape, along a new dim */
		int d = dim_wrap(b_int(b, "dim", 0), r.ndim + 1);
		if (d < 0 || r.ndim + 1 > OP_MAX_DIMS)
			return bind_fail(b, "bad dim");
		for (unsigned j = 0; j < in->nin; j++)
			if (in->in[j].ndim != r.ndim ||
			    memcmp(in->in[j].dim, r.dim, r.ndim * sizeof *r.dim) != 0)
				return bind_fail(b, "tensor %u has another shape", j);
		at->i[0] = d;
		at->opnd[0] = 0;
		for (unsigned i = r.ndim; i > (unsigned)d; i--)
			r.dim[i] = r.dim[i - 1];
		r.dim[d] = in->nin;
		r.ndim++;
		in->nres = 1;
		in->res[0] = r;
		in->res_formula[0] = 0;
		return true;
	}
	int d = dim_wrap(b_int(b, "dim", 0), r.ndim);
	if (d < 0)
		return bind_fail(b, "bad dim");
	at->i[0] = d;
	at->opnd[0] = first;
	r.dim[d] = 0;
	for (unsigned j = 0; j < in->nin; j++) {
		const struct op_shape *x = &in->in[j];
		in->in_start[j] = r.dim[d];
		if (x->ndim == 1 && x->dim[0] == 0)
			continue;
		if (x->ndim != r.ndim)
			return bind_fail(b, "tensor %u has %u dims, not %u", j, x->ndim, r.ndim);
		for (unsigned i = 0; i < r.ndim; i++)
			if ((int)i != d && x->dim[i] != r.dim[i])
				return bind_fail(b, "tensor %u: dim %u is %lld, not %lld", j, i,
				                 (long long)x->dim[i], (long long)r.dim[i]);
		r.dim[d] += x->dim[d];
	}
	in->nres = 1;
	in->res[0] = r;
	in->res_formula[0] = 0;
	return true;
}

/* The result shape of a view that keeps the elements' order (view,
 * reshape, squeeze, unsqueeze, flatten, ...): the size the call asked
 * for, where it gives one, else x kept, squeezed or unsqueezed; the
 * element count must stay. */
static bool reshape_bind(struct bind *b, const struct op_shape *x, struct op_shape *r)
{
	const char *name = b->call->op;
	int64_t v[OP_MAX_DIMS];
	unsigned n;
	n = b_ints(b, "size", v, OP_MAX_DIMS);
	if (!n)
		n = b_ints(b, "shape", v, OP_MAX_DIMS);
	int64_t known = 1, total = (int64_t)op_shape_numel(x);
	int infer = -1;
	if (n || b_arg(b, "size") || b_arg(b, "shape")) {
		r->ndim = n;
		for (unsigned i = 0; i < n; i++) {
			r->dim[i] = v[i];
			if (v[i] == -1)
				infer = (int)i;
			else
				known *= v[i];
		}
		if (infer >= 0)
			r->dim[infer] = known ? total / known : 0;
	} else if (strstr(name, "unsqueeze")) {
		int d = dim_wrap(b_int(b, "dim", 0), x->ndim + 1);
		if (d < 0 || x->ndim + 1 > OP_MAX_DIMS)
			return bind_fail(b, "bad dim");
		r->ndim = x->ndim + 1;
		for (unsigned i = 0, j = 0; i < r->ndim; i++)
			r->dim[i] = (int)i == d ? 1 : x->dim[j++];
	} else if (strstr(name, "squeeze")) {
		n = b_ints(b, "dim", v, OP_MAX_DIMS);
		uint64_t mask = 0;
		for (unsigned i = 0; i < n; i++)
			if (dim_wrap(v[i], x->ndim) >= 0)
				mask |= 1ull << dim_wrap(v[i], x->ndim);
		r->ndim = 0;
		for (unsigned i = 0; i < x->ndim; i++)
			if (!(x->dim[i] == 1 && (!n || (mask >> i & 1))))
				r->dim[r->ndim++] = x->dim[i];
	} else if (strstr(name, "flatten")) {
		int s = dim_wrap(b_int(b, "start_dim", 0), x->ndim);
		int e = dim_wrap(b_int(b, "end_dim", -1), x->ndim);
		if (s < 0 || e < s)
			return bind_fail(b, "bad dims");
		r->ndim = 0;
		for (int i = 0; i < (int)x->ndim; i++) {
			if (i <= s || i > e)
				r->dim[r->ndim++] = x->dim[i];
			else
				r->dim[r->ndim - 1] *= x->dim[i];
		}
	} else if (b_opnd(b, "other") >= 0) {
		*r = b->in->in[b_opnd(b, "other")];
	}
	if (op_shape_numel(r) != op_shape_numel(x))
		return bind_fail(b, "element counts differ");
	return true;
}

/* slice(dim, start, end, step): start and end clamped into the dim as
 * torch does; attributes i[0..2] = dim, start, step. */
static bool slice_bind(struct bind *b, const struct op_shape *x, struct op_shape *r)
{
	int d = dim_wrap(b_int(b, "dim", 0), x->ndim);
	if (d < 0)
		return bind_fail(b, "bad dim");
	int64_t L = x->dim[d];
	int64_t st = b_int(b, "start", 0), en = b_int(b, "end", INT64_MAX), step = b_int(b, "step", 1);
	if (st < 0)
		st += L;
	if (en < 0)
		en += L;
	st = st < 0 ? 0 : st > L ? L : st;
	en = en < st ? st : en > L ? L : en;
	if (step < 1)
		return bind_fail(b, "step %lld", (long long)step);
	b->in->at.i[0] = d;
	b->in->at.i[1] = st;
	b->in->at.i[2] = step;
	r->dim[d] = (en - st + step - 1) / step;
	return true;
}

/* select(dim, index): the dim dropped; attributes i[0], i[1] = dim,
 * index. */
static bool select_bind(struct bind *b, const struct op_shape *x, struct op_shape *r)
{
	int d = dim_wrap(b_int(b, "dim", 0), x->ndim);
	if (d < 0)
		return bind_fail(b, "bad dim");
	int64_t i = b_int(b, "index", 0);
	if (i < 0)
		i += x->dim[d];
	if (i < 0 || i >= x->dim[d])
		return bind_fail(b, "index out of range");
	b->in->at.i[0] = d;
	b->in->at.i[1] = i;
	r->ndim = 0;
	for (unsigned j = 0; j < x->ndim; j++)
		if ((int)j != d)
			r->dim[r->ndim++] = x->dim[j];
	return true;
}

/* split(split_size, dim): one result per chunk, the last one shorter;
 * attributes i[0], i[1] = dim, split_size. */
static bool split_bind(struct bind *b, const struct op_shape *x)
{
	struct op_inst *in = b->in;
	struct op_attrs *at = &in->at;
	int d = dim_wrap(b_int(b, "dim", 0), x->ndim);
	int64_t size = b_int(b, "split_size", 0);
	if (d < 0 || size < 1)
		return bind_fail(b, "bad dim or split_size");
	int64_t n = (x->dim[d] + size - 1) / size;
	if (n > OP_MAX_RESULTS)
		return bind_fail(b, "more than %d chunks", OP_MAX_RESULTS);
	at->i[0] = d;
	at->i[1] = size;
	in->nres = (unsigned)(n ? n : 1);
	for (int64_t c = 0; c < n; c++) {
		in->res[c] = *x;
		in->res[c].dim[d] = c + 1 < n ? size : x->dim[d] - c * size;
		in->res_formula[c] = (int)c;
	}
	return true;
}

/* x mod n in [0, n), n > 0. */
static int64_t mod_pos(int64_t x, int64_t n)
{
	int64_t m = x % n;
	return m < 0 ? m + n : m;
}

/* roll(shifts, dims): element i of a rolled dim moves to i + shift,
 * wrapping around; shifts of one dim named twice add up, as torch rolls
 * once per pair.  With no dims, the elements are rolled in row-major
 * order and the shape kept. */
static bool roll_bind(struct bind *b, const struct op_shape *x)
{
	struct op_attrs *at = &b->in->at;
	int64_t sh[OP_MAX_DIMS], dm[OP_MAX_DIMS];
	unsigned ns = b_ints(b, "shifts", sh, OP_MAX_DIMS);
	unsigned nd = b_ints(b, "dims", dm, OP_MAX_DIMS);
	for (unsigned i = 0; i < x->ndim; i++)
		at->v[0][i] = 0;
	at->i[0] = nd == 0;
	at->i[1] = 0;
	if (nd == 0) {
		if (ns != 1)
			return bind_fail(b, "%u shifts without dims", ns);
		int64_t n = (int64_t)op_shape_numel(x);
		at->i[1] = n ? mod_pos(sh[0], n) : 0;
		return true;
	}
	if (ns != nd)
		return bind_fail(b, "%u shifts for %u dims", ns, nd);
	for (unsigned i = 0; i < nd; i++) {
		int d = dim_wrap(dm[i], x->ndim);
		if (d < 0)
			return bind_fail(b, "bad dims");
		if (x->dim[d])
			at->v[0][d] = mod_pos(at->v[0][d] + mod_pos(sh[i], x->dim[d]), x->dim[d]);
	}
	return true;
}

/* constant_pad_nd(pad, value): pad holds (before, after) pairs from the
 * last dimension backwards; a negative amount cuts. */
static bool pad_bind(struct bind *b, const struct op_shape *x, struct op_shape *r)
{
	struct op_attrs *at = &b->in->at;
	int64_t p[2 * OP_MAX_DIMS];
	unsigned n = b_ints(b, "pad", p, 2 * OP_MAX_DIMS);
	if (n % 2 || n / 2 > x->ndim)
		return bind_fail(b, "%u padding amounts for %u dims", n, x->ndim);
	for (unsigned d = 0; d < x->ndim; d++)
		at->v[0][d] = 0;
	for (unsigned j = 0; j < n / 2; j++) {
		unsigned d = x->ndim - 1 - j;
		at->v[0][d] = p[2 * j];
		r->dim[d] = x->dim[d] + p[2 * j] + p[2 * j + 1];
		if (r->dim[d] < 0)
			return bind_fail(b, "dim %u padded to %lld", d, (long long)r->dim[d]);
	}
	at->s[0] = b_scalar_round(b, b_num(b, "value", 0, NULL));
	return true;
}

/* index.Tensor(self, indices): indices, one entry per leading dim of
 * self, None for a dim taken whole; the index tensors broadcast to one
 * shape B, which replaces the dims they index where they are adjacent,
 * and goes first where they are not (numpy's advanced indexing). */
static bool index_bind(struct bind *b, const struct op_shape *x, struct op_shape *r)
{
	struct op_inst *in = b->in;
	struct op_attrs *at = &in->at;
	const struct torch_arg *g = b_arg(b, "indices");
	if (!g || g->kind != TARG_TENSORS || g->n > x->ndim)
		return bind_fail(b, "no index tensors, or more than self has dims");
	int first = -1, last = -1;
	unsigned k = 0;
	bool indexed[OP_MAX_DIMS] = { false };
	struct op_shape bs = { 0, { 0 } };
	for (unsigned j = 0; j < g->n; j++) {
		if (g->tensors[j] == TORCH_NO_TENSOR)
			continue;
		unsigned o = 1 + k;          /* operands: self, then the index tensors */
		if (o >= in->nin)
			return bind_fail(b, "index tensor %u is not an operand", j);
		if (etype_is_float(in->in_et[o]) || in->in_et[o] == ET_NONE || in->in_et[o] == ET_U8)
			return bind_fail(b, "index %u is a mask (bool or byte), not indices", j);
		struct op_shape t;
		if (k == 0)
			bs = in->in[o];
		else if (!shape_bcast(&bs, &in->in[o], &t))
			return bind_fail(b, "index tensors do not broadcast");
		else
			bs = t;
		at->v[1][k++] = j;
		indexed[j] = true;
		if (first < 0)
			first = (int)j;
		last = (int)j;
	}
	if (k == 0)
		return bind_fail(b, "no index tensor");
	bool front = (unsigned)(last - first + 1) != k;
	if (x->ndim - k + bs.ndim > OP_MAX_DIMS)
		return bind_fail(b, "too many dims");
	at->i[0] = first;
	at->i[1] = k;
	at->i[2] = front;
	at->nv[0] = bs.ndim;
	for (unsigned i = 0; i < bs.ndim; i++)
		at->v[0][i] = bs.dim[i];
	r->ndim = 0;
	if (front)
		for (unsigned i = 0; i < bs.ndim; i++)
			r->dim[r->ndim++] = bs.dim[i];
	for (unsigned i = 0; i < x->ndim; i++) {
		if (!front && (int)i == first)
			for (unsigned j = 0; j < bs.ndim; j++)
				r->dim[r->ndim++] = bs.dim[j];
		if (!indexed[i])
			r->dim[r->ndim++] = x->dim[i];
	}
	return true;
}

/* Binds a view op of the given kind: its operand, result shape and
 * attributes. */
bool view_bind(struct bind *b, int kind)
{
	struct op_inst *in = b->in;
	struct op_attrs *at = &in->at;
	at->kind = kind;
	if (kind == V_CAT || kind == V_STACK)
		return cat_bind(b, kind == V_STACK);
	at->opnd[0] = b_opnd(b, kind == V_COPY ? "src" : "self");
	if (at->opnd[0] < 0)
		return bind_fail(b, "no tensor operand");
	const struct op_shape *x = &in->in[at->opnd[0]];
	struct op_shape r = *x;
	int64_t v[OP_MAX_DIMS];
	unsigned n;
	switch (kind) {
	case V_SAME:
		if (!reshape_bind(b, x, &r))
			return false;
		break;
	case V_PERMUTE:
		n = b_ints(b, "dims", at->v[0], OP_MAX_DIMS);
		if (n != x->ndim)
			return bind_fail(b, "permutation of %u dims for %u", n, x->ndim);
		for (unsigned i = 0; i < n; i++) {
			int d = dim_wrap(at->v[0][i], x->ndim);
			if (d < 0)
				return bind_fail(b, "bad dims");
			at->v[0][i] = d;
			r.dim[i] = x->dim[d];
		}
		break;
	case V_TRANSPOSE: case V_T: {
		int d0 = x->ndim < 2 ? 0 : kind == V_T ? 0 : dim_wrap(b_int(b, "dim0", 0), x->ndim);
		int d1 = x->ndim < 2 ? 0 : kind == V_T ? 1 : dim_wrap(b_int(b, "dim1", 0), x->ndim);
		if (d0 < 0 || d1 < 0)
			return bind_fail(b, "bad dims");
		for (unsigned i = 0; i < x->ndim; i++)
			at->v[0][i] = i;
		at->v[0][d0] = d1;
		at->v[0][d1] = d0;
		r.dim[d0] = x->dim[d1];
		r.dim[d1] = x->dim[d0];
		at->kind = V_PERMUTE;
		break;
	}
	case V_FLIP:
		n = b_ints(b, "dims", v, OP_MAX_DIMS);
		for (unsigned i = 0; i < x->ndim; i++)
			at->v[0][i] = 0;
		for (unsigned i = 0; i < n; i++) {
			int d = dim_wrap(v[i], x->ndim);
			if (d < 0)
				return bind_fail(b, "bad dims");
			at->v[0][d] = 1;
		}
		break;
	case V_ROLL:
		if (!roll_bind(b, x))
			return false;
		break;
	case V_EXPAND:
		n = b_ints(b, "size", v, OP_MAX_DIMS);
		if (!n && b_opnd(b, "other") >= 0) {
			r = in->in[b_opnd(b, "other")];
			break;
		}
		if (n < x->ndim)
			return bind_fail(b, "fewer sizes than dims");
		r.ndim = n;
		for (unsigned i = 0; i < n; i++) {
			int64_t xd = i < n - x->ndim ? 1 : x->dim[i - (n - x->ndim)];
			r.dim[i] = v[i] == -1 ? xd : v[i];
			if (xd != 1 && xd != r.dim[i])
				return bind_fail(b, "cannot expand");
		}
		break;
	case V_SLICE:
		if (!slice_bind(b, x, &r))
			return false;
		break;
	case V_SELECT:
		if (!select_bind(b, x, &r))
			return false;
		break;
	case V_REPEAT:
		n = b_ints(b, "repeats", v, OP_MAX_DIMS);
		if (n < x->ndim)
			return bind_fail(b, "fewer repeats than dims");
		r.ndim = n;
		for (unsigned i = 0; i < n; i++)
			r.dim[i] = v[i] * (i < n - x->ndim ? 1 : x->dim[i - (n - x->ndim)]);
		break;
	case V_SPLIT:
		return split_bind(b, x);
	case V_PAD:
		if (!pad_bind(b, x, &r))
			return false;
		break;
	case V_INDEX:
		if (!index_bind(b, x, &r))
			return false;
		break;
	case V_INDEX_SELECT: {
		int d = dim_wrap(b_int(b, "dim", 0), x->ndim ? x->ndim : 1);
		int ix = b_opnd(b, "index");
		if (d < 0 || ix < 0 || in->in[ix].ndim > 1 || etype_is_float(in->in_et[ix]))
			return bind_fail(b, "bad dim, or index not a 1-d tensor of integers");
		at->i[0] = d;
		at->opnd[1] = ix;
		if (x->ndim)
			r.dim[d] = in->in[ix].ndim ? in->in[ix].dim[0] : 1;
		break;
	}
	case V_COPY: {
		int self = b_opnd(b, "self");
		if (self < 0)
			return bind_fail(b, "no tensor 'self'");
		r = in->in[self];
		struct op_shape t;
		if (!shape_bcast(x, &r, &t) || t.ndim != r.ndim)
			return bind_fail(b, "src does not broadcast to self");
		at->kind = V_EXPAND;
		break;
	}
	}
	in->nres = 1;
	in->res[0] = r;
	in->res_formula[0] = 0;
	return true;
}

/* Index element flat of operand k into a dim of n, negative counted from
 * the end, into *t; false (A->fail set) when it cannot be read or is out
 * of range (torch would have raised). */
static bool read_index(struct alg *A, unsigned k, uint64_t flat, int64_t n, int64_t *t)
{
	int64_t v = a_int(A, k, flat);
	if (v < 0)
		v += n;
	if (A->fail || v < 0 || v >= n) {
		A->fail = true;
		return false;
	}
	*t = v;
	return true;
}

V view_elem(struct alg *A, unsigned r, const int64_t *idx)
{
	const struct op_inst *in = A->in;
	const struct op_attrs *at = &in->at;
	const struct op_shape *x = &in->in[at->opnd[0]];
	unsigned k = (unsigned)at->opnd[0];
	int64_t xi[OP_MAX_DIMS];
	(void)r;
	switch (at->kind) {
	case V_PERMUTE:
		for (unsigned i = 0; i < x->ndim; i++)
			xi[at->v[0][i]] = idx[i];
		return a_in(A, k, ix_ravel(xi, x));
	case V_FLIP:
		for (unsigned i = 0; i < x->ndim; i++)
			xi[i] = at->v[0][i] ? x->dim[i] - 1 - idx[i] : idx[i];
		return a_in(A, k, ix_ravel(xi, x));
	case V_ROLL:
		if (at->i[0]) {
			int64_t n = (int64_t)op_shape_numel(x);
			return a_in(A, k, (uint64_t)mod_pos((int64_t)ix_ravel(idx, x) - at->i[1], n));
		}
		for (unsigned i = 0; i < x->ndim; i++)
			xi[i] = at->v[0][i] ? mod_pos(idx[i] - at->v[0][i], x->dim[i]) : idx[i];
		return a_in(A, k, ix_ravel(xi, x));
	case V_PAD:
		for (unsigned i = 0; i < x->ndim; i++) {
			xi[i] = idx[i] - at->v[0][i];
			if (xi[i] < 0 || xi[i] >= x->dim[i])
				return a_k(A, at->s[0]);
		}
		return a_in(A, k, ix_ravel(xi, x));
	case V_EXPAND:
		return a_in(A, k, ix_bcast(idx, in->res[0].ndim, x));
	case V_INDEX: {
		unsigned first = (unsigned)at->i[0], nix = (unsigned)at->i[1], nb = at->nv[0];
		bool front = at->i[2];
		const int64_t *bidx = front ? idx : idx + first;
		bool indexed[OP_MAX_DIMS] = { false };
		for (unsigned j = 0; j < nix; j++) {
			unsigned d = (unsigned)at->v[1][j];
			if (!read_index(A, 1 + j, ix_bcast(bidx, nb, &in->in[1 + j]), x->dim[d], &xi[d]))
				return a_k(A, 0);
			indexed[d] = true;
		}
		/* the other dims, in order, from the result's coordinates */
		unsigned o = front ? nb : 0;
		for (unsigned i = 0; i < x->ndim; i++) {
			if (!front && i == first)
				o += nb;
			if (!indexed[i])
				xi[i] = idx[o++];
		}
		return a_in(A, k, ix_ravel(xi, x));
	}
	case V_INDEX_SELECT: {
		unsigned d = (unsigned)at->i[0];
		if (!x->ndim)
			return a_in(A, k, 0);
		for (unsigned i = 0; i < x->ndim; i++)
			xi[i] = idx[i];
		if (!read_index(A, (unsigned)at->opnd[1], (uint64_t)idx[d], x->dim[d], &xi[d]))
			return a_k(A, 0);
		return a_in(A, k, ix_ravel(xi, x));
	}
	case V_STACK: {
		int d = (int)at->i[0];
		const struct op_shape *y = &in->in[idx[d]];
		for (unsigned i = 0, j = 0; i < y->ndim + 1; i++)
			if ((int)i != d)
				xi[j++] = idx[i];
		return a_in(A, (unsigned)idx[d], ix_ravel(xi, y));
	}
	case V_SPLIT:
		for (unsigned i = 0; i < x->ndim; i++)
			xi[i] = idx[i];
		xi[at->i[0]] += (int64_t)r * at->i[1];
		return a_in(A, k, ix_ravel(xi, x));
	case V_CAT: {
		/* the last operand that starts at or before idx[d] (empty ones
		 * start where the next does, so the last of equals is the one) */
		int d = (int)at->i[0];
		unsigned lo = 0, hi = in->nin - 1;
		while (lo < hi) {
			unsigned mid = lo + (hi - lo + 1) / 2;
			if (in->in_start[mid] <= idx[d])
				lo = mid;
			else
				hi = mid - 1;
		}
		unsigned j = lo;
		const struct op_shape *y = &in->in[j];
		for (unsigned i = 0; i < y->ndim; i++)
			xi[i] = idx[i];
		xi[d] = idx[d] - in->in_start[j];
		return a_in(A, j, ix_ravel(xi, y));
	}
	case V_SLICE:
		for (unsigned i = 0; i < x->ndim; i++)
			xi[i] = idx[i];
		xi[at->i[0]] = at->i[1] + idx[at->i[0]] * at->i[2];
		return a_in(A, k, ix_ravel(xi, x));
	case V_REPEAT: {
		unsigned lead = in->res[0].ndim - x->ndim;
		for (unsigned i = 0; i < x->ndim; i++)
			xi[i] = idx[lead + i] % x->dim[i];
		return a_in(A, k, ix_ravel(xi, x));
	}
	case V_SELECT:
		for (unsigned i = 0, j = 0; i < x->ndim; i++)
			xi[i] = (int64_t)i == at->i[0] ? at->i[1] : idx[j++];
		return a_in(A, k, ix_ravel(xi, x));
	default:
		return a_in(A, k, ix_ravel(idx, &in->res[0]));
	}
}
