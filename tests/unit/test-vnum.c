/*
 * test-vnum.c: value numbering (engine/vnum.c) on obligations built by
 * hand: a softmax of a shared input in both programs is one number; a
 * softmax along another dim, or over uninitialised memory, or read
 * through a transposed view, is not; a whole-buffer copy keeps the
 * number of its source, and so does aten::copy_ of a whole value (a
 * parameter copied into a module's own); an op result written through
 * a view into a larger buffer that holds nothing else (a split's chunk)
 * is what it wrote when read through that view, and not when read whole.
 * Bridges: a value the optimized program computes its own way, read by
 * the same op as a value of the reference, is paired with it, and the
 * outputs after it then have one number.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/obligation.h"
#include "tap.h"
#include "engine/vnum.h"

static struct torch_arg args[2][3];
static uint32_t outs[2][1];
static struct obl_view views[2][2];

/* A [2,3] f32 value of program p: input 0, or uninitialised. */
static uint32_t leaf(struct obligation *o, uint32_t p, bool uninit)
{
	struct obl_value v = { .value = (uint32_t)o->values.len, .prog = p, .buf = p * 10,
	                       .bytes = 24, .def = uninit ? VD_UNINIT : VD_INPUT, .prev = NO_VALUE,
	                       .off = 0, .len = 24, .input = 0, .op = NO_VALUE };
	VEC_PUSH(o->values, v);
	return v.value;
}

/* _softmax(x, dim) in program p over value x read with strides st, its
 * result written row-major into a buffer of rbytes (24: just the result;
 * more: the rest of the buffer holds nothing). */
static uint32_t softmax_into(struct obligation *o, uint32_t p, uint32_t x, int64_t dim, const int64_t *st,
                             uint64_t rbytes)
{
	uint32_t k = (uint32_t)o->ops.len, r = (uint32_t)o->values.len;
	args[p][0] = (struct torch_arg){ .name = "self", .kind = TARG_TENSOR, .tensor = 2 * p };
	args[p][1] = (struct torch_arg){ .name = "dim", .kind = TARG_INT, .i = dim };
	args[p][2] = (struct torch_arg){ .name = "half_to_float", .kind = TARG_BOOL, .i = 0 };
	outs[p][0] = 2 * p + 1;
	views[p][0] = (struct obl_view){ .tensor = 2 * p, .value = x, .dtype = ET_F32, .ndim = 2,
	                                 .shape = { 2, 3 }, .stride = { st[0], st[1] } };
	views[p][1] = (struct obl_view){ .tensor = 2 * p + 1, .value = r, .dtype = ET_F32, .ndim = 2,
	                                 .shape = { 2, 3 }, .stride = { 3, 1 } };
	struct obl_op op = { .op = k, .prog = p, .views = views[p], .nviews = 2,
	                     .call = { .op = "aten::_softmax", .args = args[p], .nargs = 3,
	                               .outs = outs[p], .nouts = 1 } };
	VEC_PUSH(o->ops, op);
	struct obl_value v = { .value = r, .prog = p, .buf = p * 10 + 1, .bytes = rbytes, .def = VD_OP,
	                       .prev = NO_VALUE, .input = NO_VALUE, .op = k, .result = 0 };
	VEC_PUSH(o->values, v);
	return r;
}

static uint32_t softmax(struct obligation *o, uint32_t p, uint32_t x, int64_t dim, const int64_t *st)
{
	return softmax_into(o, p, x, dim, st, 24);
}

/* neg(x) in program p, x read as rows of 3 from its start: the result. */
static uint32_t neg(struct obligation *o, uint32_t p, uint32_t x, int64_t rows)
{
	static struct torch_arg nargs[2][1];
	static uint32_t nouts[2][1];
	static struct obl_view nviews[2][2];
	uint32_t k = (uint32_t)o->ops.len, r = (uint32_t)o->values.len, t = 40 + 2 * p;
	nargs[p][0] = (struct torch_arg){ .name = "self", .kind = TARG_TENSOR, .tensor = t };
	nouts[p][0] = t + 1;
	nviews[p][0] = (struct obl_view){ .tensor = t, .value = x, .dtype = ET_F32, .ndim = 2,
	                                  .shape = { rows, 3 }, .stride = { 3, 1 } };
	nviews[p][1] = nviews[p][0];
	nviews[p][1].tensor = t + 1;
	nviews[p][1].value = r;
	struct obl_op op = { .op = k, .prog = p, .views = nviews[p], .nviews = 2,
	                     .call = { .op = "aten::neg", .args = nargs[p], .nargs = 1,
	                               .outs = nouts[p], .nouts = 1 } };
	VEC_PUSH(o->ops, op);
	struct obl_value v = { .value = r, .prog = p, .buf = p * 10 + 4, .bytes = (uint64_t)rows * 12,
	                       .def = VD_OP, .prev = NO_VALUE, .input = NO_VALUE, .op = k, .result = 0 };
	VEC_PUSH(o->values, v);
	return r;
}

/* A whole copy of value x in program p. */
static uint32_t copy(struct obligation *o, uint32_t p, uint32_t x)
{
	struct obl_value v = { .value = (uint32_t)o->values.len, .prog = p, .buf = p * 10 + 2,
	                       .bytes = 24, .def = VD_COPY, .prev = NO_VALUE, .off = 0, .len = 24,
	                       .src = x, .src_off = 0, .input = NO_VALUE, .op = NO_VALUE };
	VEC_PUSH(o->values, v);
	return v.value;
}

/* aten::copy_(self, src) in program p: x copied whole into a fresh
 * uninitialised buffer of its size; the new version of the buffer. */
static uint32_t copy_op(struct obligation *o, uint32_t p, uint32_t x)
{
	static struct torch_arg cargs[2][2];
	static struct torch_mut cmut[2][1];
	static struct obl_view cviews[2][3];
	uint32_t k = (uint32_t)o->ops.len;
	struct obl_value d = { .value = (uint32_t)o->values.len, .prog = p, .buf = p * 10 + 3,
	                       .bytes = 24, .def = VD_UNINIT, .prev = NO_VALUE, .input = NO_VALUE,
	                       .op = NO_VALUE };
	VEC_PUSH(o->values, d);
	uint32_t r = (uint32_t)o->values.len, t = 20 + 3 * p;
	cargs[p][0] = (struct torch_arg){ .name = "self", .kind = TARG_TENSOR, .tensor = t };
	cargs[p][1] = (struct torch_arg){ .name = "src", .kind = TARG_TENSOR, .tensor = t + 1 };
	cmut[p][0] = (struct torch_mut){ .arg = "self", .tensor = t + 2 };
	static const struct obl_view g = { .dtype = ET_F32, .ndim = 2, .shape = { 2, 3 }, .stride = { 3, 1 } };
	cviews[p][0] = g; cviews[p][0].tensor = t; cviews[p][0].value = d.value;
	cviews[p][1] = g; cviews[p][1].tensor = t + 1; cviews[p][1].value = x;
	cviews[p][2] = g; cviews[p][2].tensor = t + 2; cviews[p][2].value = r;
	struct obl_op op = { .op = k, .prog = p, .views = cviews[p], .nviews = 3,
	                     .call = { .op = "aten::copy_", .args = cargs[p], .nargs = 2,
	                               .muts = cmut[p], .nmuts = 1 } };
	VEC_PUSH(o->ops, op);
	struct obl_value v = { .value = r, .prog = p, .buf = p * 10 + 3, .bytes = 24, .def = VD_OP,
	                       .prev = d.value, .input = NO_VALUE, .op = k, .result = 0 };
	VEC_PUSH(o->values, v);
	return r;
}

/* What the optimized program (program 1) does differently. */
enum variant {
	SAME, OTHER_DIM, UNINIT, TRANSPOSED, COPY, COPY_OP,
	PART_VIEW,       /* both: softmax into a buffer twice its size, neg of the 2 rows written */
	PART_WHOLE,      /* both: the same, neg of all 4 rows (2 never written) */
};

/* Output 0 is softmax(ref) vs softmax(opt), or a neg of each; true if
 * value numbering says equal.  *why gets its sentence. */
static bool run(enum variant var, char *why, size_t n)
{
	static const int64_t rowmajor[2] = { 3, 1 }, trans[2] = { 1, 2 };
	struct obligation o;
	obligation_init(&o);
	struct obl_input in = { .input = 0, .bytes = 24, .dtype = ET_F32, .ndim = 2, .shape = { 2, 3 } };
	VEC_PUSH(o.inputs, in);
	uint32_t a = leaf(&o, 0, false), b = leaf(&o, 1, var == UNINIT);
	if (var == COPY)
		b = copy(&o, 1, b);
	if (var == COPY_OP)
		b = copy_op(&o, 1, b);
	uint32_t ra, rb;
	uint64_t bytes = 24;
	if (var == PART_VIEW || var == PART_WHOLE) {
		int64_t rows = var == PART_VIEW ? 2 : 4;
		ra = neg(&o, 0, softmax_into(&o, 0, a, 1, rowmajor, 48), rows);
		rb = neg(&o, 1, softmax_into(&o, 1, b, 1, rowmajor, 48), rows);
		bytes = (uint64_t)rows * 12;
	} else {
		/* COPY_OP: both read transposed, so that the copy's number is
		 * asked, not its row-major sequence */
		ra = softmax(&o, 0, a, 1, var == COPY_OP ? trans : rowmajor);
		rb = softmax(&o, 1, b, var == OTHER_DIM ? 0 : 1,
		             var == TRANSPOSED || var == COPY_OP ? trans : rowmajor);
	}
	if (var == COPY)
		rb = copy(&o, 1, rb);
	struct obl_output out = { .output = 0, .bytes = bytes, .value = { ra, rb }, .dtype = ET_F32,
	                          .tail_of = NO_VALUE };
	VEC_PUSH(o.outputs, out);
	struct vnum *v = vnum_new(&o);
	const char *w = NULL;
	bool eq = vnum_output_equal(v, 0, ET_F32, &w);
	snprintf(why, n, "%s", w ? w : "");
	vnum_free(v);
	obligation_release(&o);
	return eq;
}

/* Bridges: ref neg(softmax(x, 1)), opt neg(softmax(x, dim)).  Returns
 * the bridges found; *plain and *bridged: the output's numbers equal
 * without and with them; *pair: the first bridge's values and the two
 * softmaxes' (ref, opt, sref, sopt). */
static size_t run_bridge(int64_t dim, bool *plain, bool *bridged, uint32_t pair[4])
{
	static const int64_t rowmajor[2] = { 3, 1 };
	struct obligation o;
	obligation_init(&o);
	struct obl_input in = { .input = 0, .bytes = 24, .dtype = ET_F32, .ndim = 2, .shape = { 2, 3 } };
	VEC_PUSH(o.inputs, in);
	uint32_t a = leaf(&o, 0, false), b = leaf(&o, 1, false);
	uint32_t sa = softmax(&o, 0, a, 1, rowmajor), sb = softmax(&o, 1, b, dim, rowmajor);
	uint32_t ra = neg(&o, 0, sa, 2), rb = neg(&o, 1, sb, 2);
	struct obl_output out = { .output = 0, .bytes = 24, .value = { ra, rb }, .dtype = ET_F32,
	                          .tail_of = NO_VALUE };
	VEC_PUSH(o.outputs, out);
	struct vnum_bridge *br = NULL;
	uint32_t *alias = NULL;
	size_t nb = vnum_bridges(&o, false, &br, &alias);
	struct vnum *v = vnum_new(&o), *w = vnum_new_bridged(&o, alias);
	*plain = vnum_output_equal(v, 0, ET_F32, NULL);
	*bridged = vnum_output_equal(w, 0, ET_F32, NULL);
	pair[0] = nb ? br[0].ref : NO_VALUE;
	pair[1] = nb ? br[0].opt : NO_VALUE;
	pair[2] = sa;
	pair[3] = sb;
	vnum_free(v);
	vnum_free(w);
	free(br);
	free(alias);
	obligation_release(&o);
	return nb;
}

int main(void)
{
	char why[300];
	ok(run(SAME, why, sizeof why), "the same softmax of the same input: one number");
	ok(run(COPY, why, sizeof why), "whole-buffer copies keep the number");
	ok(run(COPY_OP, why, sizeof why), "aten::copy_ of the whole input keeps its number, read transposed too (%s)", why);
	ok(!run(OTHER_DIM, why, sizeof why) && strstr(why, "the op graphs differ"),
	   "another dim: not equal (%s)", why);
	ok(!run(UNINIT, why, sizeof why) && strstr(why, "opt: value 1: it is uninitialised"),
	   "over uninitialised memory: not equal (%s)", why);
	ok(!run(TRANSPOSED, why, sizeof why), "the input read transposed: not equal");
	ok(run(PART_VIEW, why, sizeof why),
	   "a result written into part of a buffer, read through the view it was written in: equal (%s)", why);
	ok(!run(PART_WHOLE, why, sizeof why) && strstr(why, "writes part of it"),
	   "the same buffer read whole, its other half never written: not equal (%s)", why);
	bool plain, bridged;
	uint32_t pr[4];
	size_t nb = run_bridge(0, &plain, &bridged, pr);
	ok(nb == 1 && pr[0] == pr[2] && pr[1] == pr[3],
	   "a softmax along another dim, read by the same neg: one bridge, the two softmaxes (%zu)", nb);
	ok(!plain && bridged, "the outputs after it: equal only with the bridge taken as equal");
	nb = run_bridge(1, &plain, &bridged, pr);
	ok(nb == 0 && plain, "the same softmax: no bridge, equal as it is");
	return done_testing();
}
