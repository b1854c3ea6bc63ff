/*
 * test-vnum.c: value numbering (engine/vnum.c) on obligations built by
 * hand: a softmax of a shared input in both programs is one number; a
 * softmax along another dim, or over uninitialised memory, or read
 * through a transposed view, is not; a whole-buffer copy keeps the
 * number of its source.
 */
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

/* _softmax(x, dim) in program p over value x read with strides st. */
static uint32_t softmax(struct obligation *o, uint32_t p, uint32_t x, int64_t dim, const int64_t *st)
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
	struct obl_value v = { .value = r, .prog = p, .buf = p * 10 + 1, .bytes = 24, .def = VD_OP,
	                       .prev = NO_VALUE, .input = NO_VALUE, .op = k, .result = 0 };
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

/* Output 0 is softmax(ref) vs softmax(opt); true if value numbering says
 * equal.  *why gets its sentence. */
static bool run(int64_t dim1, bool uninit1, bool transposed1, bool copy1, char *why, size_t n)
{
	static const int64_t rowmajor[2] = { 3, 1 }, trans[2] = { 1, 2 };
	struct obligation o;
	obligation_init(&o);
	struct obl_input in = { .input = 0, .bytes = 24, .dtype = ET_F32, .ndim = 2, .shape = { 2, 3 } };
	VEC_PUSH(o.inputs, in);
	uint32_t a = leaf(&o, 0, false), b = leaf(&o, 1, uninit1);
	if (copy1)
		b = copy(&o, 1, b);
	uint32_t ra = softmax(&o, 0, a, 1, rowmajor);
	uint32_t rb = softmax(&o, 1, b, dim1, transposed1 ? trans : rowmajor);
	if (copy1)
		rb = copy(&o, 1, rb);
	struct obl_output out = { .output = 0, .bytes = 24, .value = { ra, rb }, .dtype = ET_F32,
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

int main(void)
{
	char why[300];
	ok(run(1, false, false, false, why, sizeof why), "the same softmax of the same input: one number");
	ok(run(1, false, false, true, why, sizeof why), "whole-buffer copies keep the number");
	ok(!run(0, false, false, false, why, sizeof why) && strstr(why, "the op graphs differ"),
	   "another dim: not equal (%s)", why);
	ok(!run(1, true, false, false, why, sizeof why) && strstr(why, "opt: value 1: it is uninitialised"),
	   "over uninitialised memory: not equal (%s)", why);
	ok(!run(1, false, true, false, why, sizeof why), "the input read transposed: not equal");
	return done_testing();
}
