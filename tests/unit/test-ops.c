/*
 * test-ops.c: the torch op semantics (engine/ops) against torch.
 *
 * tests/ops/gen.py runs small programs under the recorder in float64 with
 * every tensor's bytes kept; for each recorded op this test binds the call,
 * evaluates every element of every result that has a formula concretely
 * (op_elem_value, f64) and compares with torch's bytes (1e-5 relative,
 * 1e-9 absolute), and checks on a few elements that the symbolic formula
 * (op_elem_expr, then e_eval) gives the same value: one definition, two
 * back ends.  Without a python3 that imports torch the torch part is
 * skipped; the checks that need no torch always run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcommon/arena.h"
#include "libcommon/expr.h"
#include "engine/ops/ops.h"
#include "libcommon/stream.h"
#include "tap.h"
#include "formats/torch.h"

#define MAXT 8192

static struct torch_tensor *tensors[MAXT];
static struct arena bind_arena = ARENA_INIT;    /* the bound calls' operand arrays */

static bool shape_of(void *user, uint32_t t, struct op_shape *s, enum etype *et)
{
	(void)user;
	if (t >= MAXT || !tensors[t])
		return false;
	s->ndim = tensors[t]->ndim;
	for (unsigned i = 0; i < s->ndim; i++)
		s->dim[i] = tensors[t]->shape[i];
	*et = tensors[t]->dtype;
	return true;
}

static long double elem_of(const struct torch_tensor *t, uint64_t flat)
{
	const unsigned char *p = t->data;
	switch (t->dtype) {
	case ET_F64: { double d; memcpy(&d, p + 8 * flat, 8); return d; }
	case ET_F32: { float f; memcpy(&f, p + 4 * flat, 4); return f; }
	case ET_S64: { int64_t v; memcpy(&v, p + 8 * flat, 8); return (long double)v; }
	case ET_U8: return p[flat];
	default: return NAN;
	}
}

struct ctx { const struct op_inst *in; };

static long double val(void *user, unsigned k, uint64_t flat)
{
	struct ctx *c = user;
	return elem_of(tensors[c->in->in_tensor[k]], flat);
}

static int64_t ival(void *user, unsigned k, uint64_t flat)
{
	return (int64_t)val(user, k, flat);
}

static const struct expr *sym(struct ectx *cx, void *user, unsigned k, uint64_t flat)
{
	(void)user;
	return e_elem(cx, k, flat * 8, ET_F64);
}

static bool leafval(const struct expr *leaf, struct evalue *out, void *user)
{
	struct ctx *c = user;
	if (leaf->op != EOP_ELEM)
		return false;
	memset(out, 0, sizeof *out);
	out->r = elem_of(tensors[c->in->in_tensor[leaf->space]], leaf->off / 8);
	return true;
}

/* ---- checks without torch ------------------------------------------------ */

/* A float scalar takes the precision torch computes in: x + 1e-5 on an
 * f32 tensor adds the float nearest 1e-5 (what a kernel's float eps
 * adds), on an f64 tensor the double; so does a norm's eps. */
static void scalar_precision_checks(void)
{
	static float x32[2] = { 0.25f, 1.5f };
	static double x64[2] = { 0.25, 1.5 };
	struct torch_tensor tx = { .tensor = 0, .dtype = ET_F32, .ndim = 1, .shape = { 2 },
	                           .data = x32, .ndata = sizeof x32 };
	struct torch_tensor tr = { .tensor = 1, .dtype = ET_F32, .ndim = 1, .shape = { 2 } };
	tensors[0] = &tx;
	tensors[1] = &tr;
	struct torch_arg args[3] = {
		{ .name = "self", .kind = TARG_TENSOR, .tensor = 0 },
		{ .name = "other", .kind = TARG_FLOAT, .f = 1e-5 },
		{ .name = "alpha", .kind = TARG_INT, .i = 1 },
	};
	uint32_t outs[1] = { 1 };
	struct torch_op call = { .op = "aten::add.Tensor", .args = args, .nargs = 3,
	                         .outs = outs, .nouts = 1 };
	struct op_inst in;
	char err[200];
	struct ctx c = { &in };
	struct op_leaves lv = { sym, val, ival, &c };
	long double v = 0;
	ok(op_bind(&call, shape_of, NULL, &bind_arena, &in, err, sizeof err) && in.et == ET_F32, "bind add of f32 and 1e-5");
	ok(op_elem_value(&in, 0, 1, EM_EXACT, &lv, &v) && v == 1.5L + (long double)1e-5f,
	   "f32: the scalar is the float nearest 1e-5");
	struct ectx *cx = ectx_new();
	const struct expr *e = op_elem_expr(cx, &in, 0, 0, &lv);
	ok(e && e == e_op2(cx, EOP_FADD, sym(cx, NULL, 0, 0), e_real(cx, (double)1e-5f)),
	   "f32: the expression adds the float constant");
	ectx_free(cx);
	tx.dtype = tr.dtype = ET_F64;
	tx.data = x64;
	tx.ndata = sizeof x64;
	ok(op_bind(&call, shape_of, NULL, &bind_arena, &in, err, sizeof err) && in.et == ET_F64 &&
	   op_elem_value(&in, 0, 1, EM_EXACT, &lv, &v) && v == 1.5L + (long double)1e-5,
	   "f64: the scalar stays the double 1e-5");
	/* layer norm's eps over one f32 row of 2 */
	tx.dtype = tr.dtype = ET_F32;
	tx.data = x32;
	tx.ndata = sizeof x32;
	int64_t ns[1] = { 2 };
	struct torch_arg largs[3] = {
		{ .name = "input", .kind = TARG_TENSOR, .tensor = 0 },
		{ .name = "normalized_shape", .kind = TARG_INTS, .ints = ns, .n = 1 },
		{ .name = "eps", .kind = TARG_FLOAT, .f = 1e-5 },
	};
	struct torch_op ln = { .op = "aten::native_layer_norm", .args = largs, .nargs = 3,
	                       .outs = outs, .nouts = 1 };
	ok(op_bind(&ln, shape_of, NULL, &bind_arena, &in, err, sizeof err) && in.at.s[0] == (double)1e-5f,
	   "layer norm on f32: eps is the float nearest 1e-5%s%s", in.et ? "" : ": ", in.et ? "" : err);
	memset(tensors, 0, sizeof tensors);
}

static void no_torch_checks(void)
{
	/* add.Tensor of [2,3] and [3], written by hand. */
	static double a[6] = { 1, 2, 3, 4, 5, 6 }, b[3] = { 10, 20, 30 };
	struct torch_tensor ta = { .tensor = 0, .dtype = ET_F64, .ndim = 2, .shape = { 2, 3 },
	                           .data = a, .ndata = sizeof a };
	struct torch_tensor tb = { .tensor = 1, .dtype = ET_F64, .ndim = 1, .shape = { 3 },
	                           .data = b, .ndata = sizeof b };
	struct torch_tensor tr = { .tensor = 2, .dtype = ET_F64, .ndim = 2, .shape = { 2, 3 } };
	tensors[0] = &ta;
	tensors[1] = &tb;
	tensors[2] = &tr;
	struct torch_arg args[3] = {
		{ .name = "self", .kind = TARG_TENSOR, .tensor = 0 },
		{ .name = "other", .kind = TARG_TENSOR, .tensor = 1 },
		{ .name = "alpha", .kind = TARG_FLOAT, .f = 0.5 },
	};
	uint32_t outs[1] = { 2 };
	struct torch_op call = { .op = "aten::add.Tensor", .args = args, .nargs = 3,
	                         .outs = outs, .nouts = 1 };
	struct op_inst in;
	char err[200];
	ok(op_bind(&call, shape_of, NULL, &bind_arena, &in, err, sizeof err), "bind add.Tensor");
	is_int(in.nres, 1, "one result");
	struct ctx c = { &in };
	struct op_leaves lv = { sym, val, ival, &c };
	long double v = 0;
	ok(op_elem_value(&in, 0, 4, EM_F64, &lv, &v) && v == 5 + 10, "add: element [1,1] = 5 + 0.5*20");
	struct ectx *cx = ectx_new();
	const struct expr *e = op_elem_expr(cx, &in, 0, 4, &lv);
	struct evalue ev;
	ok(e && e_eval(e, EM_F64, leafval, &c, &ev) && ev.r == v, "add: the expression agrees");
	ectx_free(cx);
	call.op = "aten::add_.Tensor";
	ok(op_bind(&call, shape_of, NULL, &bind_arena, &in, err, sizeof err), "in-place add_ binds as add");
	tr.shape[1] = 4;
	call.op = "aten::add.Tensor";
	ok(!op_bind(&call, shape_of, NULL, &bind_arena, &in, err, sizeof err) && strstr(err, "recorded shape"),
	   "a recorded shape that disagrees is refused: %s", err);
	call.op = "aten::frobnicate";
	ok(!op_bind(&call, shape_of, NULL, &bind_arena, &in, err, sizeof err) && strstr(err, "no semantics"),
	   "an unknown op is refused: %s", err);
	ok(op_known("aten::convolution") && op_known("aten::relu_") && !op_known("aten::relu__"),
	   "op_known");
	ok(op_is_layout("aten::permute") && !op_is_layout("aten::relu"), "op_is_layout");
	memset(tensors, 0, sizeof tensors);
	scalar_precision_checks();
}

/* op_same_call, which dmerge's identical tails rest on: the same function
 * after binding (stride [1] is [1, 1]; count_include_pad does not matter
 * without padding), and not when an attribute that matters differs. */
static void same_call_checks(void)
{
	struct torch_tensor tx = { .tensor = 0, .dtype = ET_F32, .ndim = 4, .shape = { 1, 2, 4, 4 } };
	struct torch_tensor ty = { .tensor = 1, .dtype = ET_F32, .ndim = 4, .shape = { 1, 2, 2, 2 } };
	struct torch_tensor tp = { .tensor = 1, .dtype = ET_F32, .ndim = 4, .shape = { 1, 2, 3, 3 } };
	tensors[0] = &tx;
	tensors[1] = &ty;
	int64_t two2[2] = { 2, 2 }, two1[1] = { 2 }, zero2[2] = { 0, 0 }, one2[2] = { 1, 1 };
	struct torch_arg a[6] = {
		{ .name = "self", .kind = TARG_TENSOR, .tensor = 0 },
		{ .name = "kernel_size", .kind = TARG_INTS, .ints = two2, .n = 2 },
		{ .name = "stride", .kind = TARG_INTS, .ints = two2, .n = 2 },
		{ .name = "padding", .kind = TARG_INTS, .ints = zero2, .n = 2 },
		{ .name = "ceil_mode", .kind = TARG_BOOL, .i = 0 },
		{ .name = "count_include_pad", .kind = TARG_BOOL, .i = 1 },
	};
	struct torch_arg b[6];
	memcpy(b, a, sizeof b);
	b[1].ints = two1;
	b[1].n = 1;
	b[5].i = 0;
	uint32_t outs[1] = { 1 };
	struct torch_op ca = { .op = "aten::avg_pool2d", .args = a, .nargs = 6, .outs = outs, .nouts = 1 };
	struct torch_op cb = { .op = "aten::avg_pool2d", .args = b, .nargs = 6, .outs = outs, .nouts = 1 };
	struct op_inst ia, ib;
	char err[200];
	ok(op_bind(&ca, shape_of, NULL, &bind_arena, &ia, err, sizeof err) &&
	   op_bind(&cb, shape_of, NULL, &bind_arena, &ib, err, sizeof err) && op_same_call(&ia, &ib),
	   "avg_pool2d: kernel [2] is [2, 2], count_include_pad is moot without padding");
	a[3].ints = b[3].ints = one2;
	tensors[1] = &tp;
	ok(op_bind(&ca, shape_of, NULL, &bind_arena, &ia, err, sizeof err) &&
	   op_bind(&cb, shape_of, NULL, &bind_arena, &ib, err, sizeof err) && !op_same_call(&ia, &ib),
	   "avg_pool2d with padding 1: count_include_pad true and false differ");
	cb.op = "aten::max_pool2d";
	b[5].i = 1;
	ok(op_bind(&cb, shape_of, NULL, &bind_arena, &ib, err, sizeof err) && !op_same_call(&ia, &ib),
	   "avg_pool2d and max_pool2d differ");
	memset(tensors, 0, sizeof tensors);
}

/* cat and stack take any number of operands up to OP_MAX_OPERANDS: a
 * GRU's 512 time steps stacked into one tensor are one call.  Operand j of
 * these calls is tensor j % 3 (a [2] of values 10j'+1, 10j'+2 for
 * j' = j % 3), or the 1-d empty tensor 3 every fifth place for cat. */
static void many_operand_checks(void)
{
	static double d[3][2] = { { 1, 2 }, { 11, 12 }, { 21, 22 } };
	struct torch_tensor t[5];
	for (int i = 0; i < 3; i++)
		t[i] = (struct torch_tensor){ .tensor = (uint32_t)i, .dtype = ET_F64, .ndim = 1,
		                              .shape = { 2 }, .data = d[i], .ndata = sizeof d[i] };
	t[3] = (struct torch_tensor){ .tensor = 3, .dtype = ET_F64, .ndim = 1, .shape = { 0 } };
	t[4] = (struct torch_tensor){ .tensor = 4, .dtype = ET_F64, .ndim = 2, .shape = { 512, 2 } };
	for (int i = 0; i < 5; i++)
		tensors[i] = &t[i];
	static uint32_t ids[OP_MAX_OPERANDS + 1];
	for (unsigned j = 0; j < 512; j++)
		ids[j] = j % 3;
	struct torch_arg args[2] = {
		{ .name = "tensors", .kind = TARG_TENSORS, .tensors = ids, .n = 512 },
		{ .name = "dim", .kind = TARG_INT, .i = 0 },
	};
	uint32_t outs[1] = { 4 };
	struct torch_op call = { .op = "aten::stack", .args = args, .nargs = 2, .outs = outs, .nouts = 1 };
	struct op_inst in;
	char err[200];
	struct ctx c = { &in };
	struct op_leaves lv = { sym, val, ival, &c };
	long double v = 0;
	bool good = op_bind(&call, shape_of, NULL, &bind_arena, &in, err, sizeof err);
	ok(good && in.nin == 512, "stack of 512 operands binds%s%s", good ? "" : ": ", good ? "" : err);
	for (unsigned f = 0; good && f < 1024; f++)
		good = op_elem_value(&in, 0, f, EM_F64, &lv, &v) && v == d[(f / 2) % 3][f % 2];
	ok(good, "stack of 512: every element is its operand's");
	/* cat along dim 0 of 600 operands, every fifth one empty: 480 of [2] */
	unsigned n = 600, full = 0;
	for (unsigned j = 0; j < n; j++)
		ids[j] = j % 5 == 4 ? 3 : j % 3;
	t[4].ndim = 1;
	t[4].shape[0] = 2 * 480;
	args[1].i = 0;
	args[0].n = n;
	call.op = "aten::cat";
	good = op_bind(&call, shape_of, NULL, &bind_arena, &in, err, sizeof err);
	ok(good && in.nin == n, "cat of 600 operands binds%s%s", good ? "" : ": ", good ? "" : err);
	for (unsigned j = 0; good && j < n; j++) {
		if (ids[j] == 3)
			continue;
		for (unsigned i = 0; i < 2 && good; i++)
			good = op_elem_value(&in, 0, 2 * full + i, EM_F64, &lv, &v) && v == d[ids[j]][i];
		full++;
	}
	ok(good && full == 480, "cat of 600: every element is its operand's, the empty ones skipped");
	struct ectx *cx = ectx_new();
	const struct expr *e = op_elem_expr(cx, &in, 0, 2 * 479 + 1, &lv);
	ok(e && e == sym(cx, NULL, 598, 1), "cat of 600: the last element is operand 598's second");
	ectx_free(cx);
	/* one more than the bound: refused with a message, not a crash */
	for (unsigned j = 0; j <= OP_MAX_OPERANDS; j++)
		ids[j] = 0;
	args[0].n = OP_MAX_OPERANDS + 1;
	ok(!op_bind(&call, shape_of, NULL, &bind_arena, &in, err, sizeof err) &&
	   strstr(err, "more than"), "cat of OP_MAX_OPERANDS + 1 operands is refused: %s", err);
	memset(tensors, 0, sizeof tensors);
}

/* ---- against torch ------------------------------------------------------- */

/* Ops recorded by gen.py that have no formula on purpose. */
static bool no_formula(const char *op)
{
	return strcmp(op, "aten::empty.memory_format") == 0 || strcmp(op, "aten::empty_like") == 0;
}

static int run_gen(const char *out)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
	         "P=$(dtrace-cuda/python/dirigo-python) || exit 77; "
	         "\"$P\" tests/ops/gen.py '%s' >&2", out);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

int main(void)
{
	no_torch_checks();
	same_call_checks();
	many_operand_checks();

	char path[] = "/tmp/dirigo-test-ops-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		ok(0, "temporary file");
		return done_testing();
	}
	close(fd);
	int st = run_gen(path);
	if (st == 77) {
		unlink(path);
		printf("# skip: no python3 that imports torch (make deps installs python3-torch)\n");
		return done_testing();
	}
	if (!ok(st == 0, "tests/ops/gen.py ran")) {
		unlink(path);
		return done_testing();
	}
	const char *paths[1] = { path };
	struct stream_in *sin = stream_in_open(paths, 1);
	struct record rec;
	struct arena a;
	arena_init(&a);
	const char *cname = "?";
	int nops = 0, nelems = 0, r;
	struct ectx *cx = ectx_new();
	while ((r = stream_in_next(sin, &rec)) == 1) {
		if (strcmp(rec.type, "case") == 0) {
			cname = obj_strdup(rec_get(&rec, "name"), &a);
			continue;
		}
		if (strcmp(rec.type, "tensor") == 0) {
			struct torch_tensor *t = ARENA_NEW(&a, struct torch_tensor);
			if (!torch_read_tensor(&rec, &a, t) || t->tensor >= MAXT || !t->data) {
				ok(0, "tensor record %zu reads", rec.index);
				break;
			}
			tensors[t->tensor] = t;
			continue;
		}
		if (strcmp(rec.type, "op") != 0)
			continue;
		struct torch_op call;
		if (!ok(torch_read_op(&rec, &a, &call), "op record %zu reads", rec.index))
			break;
		if (no_formula(call.op))
			continue;
		struct op_inst in;
		char err[300];
		if (!ok(op_bind(&call, shape_of, NULL, &bind_arena, &in, err, sizeof err), "%s: %s binds (%s)",
		        cname, call.op, err))
			continue;
		struct ctx c = { &in };
		struct op_leaves lv = { sym, val, ival, &c };
		bool good = true;
		int checked = 0;
		char why[300] = "";
		for (unsigned res = 0; res < in.nres && good; res++) {
			uint32_t t = res < call.nouts ? call.outs[res] : call.muts[res - call.nouts].tensor;
			if (in.res_formula[res] < 0 || t == TORCH_NO_TENSOR || !tensors[t])
				continue;
			uint64_t n = op_shape_numel(&in.res[res]);
			for (uint64_t f = 0; f < n && good; f++) {
				long double v, want = elem_of(tensors[t], f);
				if (!op_elem_value(&in, res, f, EM_F64, &lv, &v)) {
					snprintf(why, sizeof why, "result %u element %llu: no value", res,
					         (unsigned long long)f);
					good = false;
					break;
				}
				if (!(fabsl(v - want) <= 1e-5L * fabsl(want) + 1e-9L)) {
					snprintf(why, sizeof why, "result %u element %llu: %.17Lg, torch %.17Lg",
					         res, (unsigned long long)f, v, want);
					good = false;
					break;
				}
				checked++;
				/* The expression: same value (sums may add in another order). */
				if (f % 7 == 0 && f < 64) {
					const struct expr *e = op_elem_expr(cx, &in, res, f, &lv);
					struct evalue ev;
					if (!e || !e_eval(e, EM_F64, leafval, &c, &ev) ||
					    !(fabsl(ev.r - v) <= 1e-9L * fabsl(v) + 1e-12L)) {
						snprintf(why, sizeof why, "result %u element %llu: expression gives %.17Lg, value %.17Lg",
						         res, (unsigned long long)f, e ? ev.r : NAN, v);
						good = false;
					}
				}
			}
		}
		nops++;
		nelems += checked;
		ok(good && checked > 0, "%s: %s agrees with torch on %d elements%s%s", cname, call.op,
		   checked, why[0] ? ": " : "", why);
		if (ectx_count(cx) > 2000000) {
			ectx_free(cx);
			cx = ectx_new();
		}
	}
	ok(r == 0, "the reference stream reads to its end");
	printf("# %d ops, %d elements compared\n", nops, nelems);
	ectx_free(cx);
	stream_in_close(sin);
	arena_release(&a);
	arena_release(&bind_arena);
	unlink(path);
	return done_testing();
}
