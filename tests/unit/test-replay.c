/*
 * test-replay.c: unit tests of engine/concrete.c (concrete execution of one
 * program of an obligation): a small obligation built in C around the
 * saxpy fixture (inputs, a launch, a copy, a memset, outputs that read a
 * value after its buffer was overwritten) and a launch that faults.
 *
 * Run from the top of the tree (or set $DIRIGO_FIXTURES).
 */
#include "tap.h"
#include "engine/concrete.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *read_fixture(const char *name, size_t *len)
{
	const char *dir = getenv("DIRIGO_FIXTURES");
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/fixtures", name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = xmalloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

enum { N = 300 };

static uint32_t add_value(struct obligation *o, struct obl_value v)
{
	v.value = (uint32_t)o->values.len;
	if (!v.len && (v.def == VD_INPUT || v.def == VD_MEMSET || v.def == VD_COPY))
		v.len = v.bytes;
	VEC_PUSH(o->values, v);
	return v.value;
}

/* prog 0: x <- input 0, y <- input 1, saxpy(n, alpha, x, y), z <- copy(y);
 * prog 1: z <- memset 0.  Outputs: z, and (prog 0) y before the launch. */
static void build(struct obligation *o, const char *ptx, size_t ptxlen, int n)
{
	obligation_init(o);
	struct obl_input in0 = { .input = 0, .bytes = N * 4, .name = "x" },
	                 in1 = { .input = 1, .bytes = N * 4, .name = "y" };
	VEC_PUSH(o->inputs, in0);
	VEC_PUSH(o->inputs, in1);
	struct obl_module m = { 0, 0, ptx, ptxlen, "hash" };
	VEC_PUSH(o->modules, m);
	uint32_t x0 = add_value(o, (struct obl_value){ .prog = 0, .buf = 0, .bytes = N * 4,
	                                              .def = VD_UNINIT, .prev = NO_VALUE });
	uint32_t x1 = add_value(o, (struct obl_value){ .prog = 0, .buf = 0, .bytes = N * 4,
	                                              .def = VD_INPUT, .prev = x0, .input = 0 });
	uint32_t y0 = add_value(o, (struct obl_value){ .prog = 0, .buf = 1, .bytes = N * 4,
	                                              .def = VD_UNINIT, .prev = NO_VALUE });
	uint32_t y1 = add_value(o, (struct obl_value){ .prog = 0, .buf = 1, .bytes = N * 4,
	                                              .def = VD_INPUT, .prev = y0, .input = 1 });
	uint32_t x2 = add_value(o, (struct obl_value){ .prog = 0, .buf = 0, .bytes = N * 4,
	                                              .def = VD_LAUNCH, .prev = x1, .launch = 0 });
	uint32_t y2 = add_value(o, (struct obl_value){ .prog = 0, .buf = 1, .bytes = N * 4,
	                                              .def = VD_LAUNCH, .prev = y1, .launch = 0 });
	uint32_t z0 = add_value(o, (struct obl_value){ .prog = 0, .buf = 2, .bytes = N * 4,
	                                              .def = VD_UNINIT, .prev = NO_VALUE });
	uint32_t z1 = add_value(o, (struct obl_value){ .prog = 0, .buf = 2, .bytes = N * 4,
	                                              .def = VD_COPY, .prev = z0, .src = y2 });
	uint32_t w0 = add_value(o, (struct obl_value){ .prog = 1, .buf = 0, .bytes = N * 4,
	                                              .def = VD_UNINIT, .prev = NO_VALUE });
	uint32_t w1 = add_value(o, (struct obl_value){ .prog = 1, .buf = 0, .bytes = N * 4,
	                                              .def = VD_MEMSET, .prev = w0, .fill = 0 });
	static int nn;
	static float alpha = 2.5f;
	nn = n;
	struct obl_arg *args = arena_alloc(&o->arena, 4 * sizeof *args);
	uint64_t fake = 0xdead0000;
	args[0] = (struct obl_arg){ "n", 4, arena_memdup(&o->arena, &nn, 4), false, 0, 0, 0 };
	args[1] = (struct obl_arg){ "alpha", 4, arena_memdup(&o->arena, &alpha, 4), false, 0, 0, 0 };
	args[2] = (struct obl_arg){ "x", 8, arena_memdup(&o->arena, &fake, 8), true, x1, x2, 0 };
	args[3] = (struct obl_arg){ "y", 8, arena_memdup(&o->arena, &fake, 8), true, y1, y2, 0 };
	struct obl_launch l = { .launch = 0, .prog = 0, .module = 0, .seq = 0,
	                        .kernel = "_Z5saxpyifPKfPf", .grid = { 2, 1, 1 },
	                        .block = { 64, 1, 1 }, .shmem = 0, .args = args, .nargs = 4 };
	VEC_PUSH(o->launches, l);
	struct obl_output out0 = { .output = 0, .bytes = N * 4, .name = "z", .value = { z1, w1 },
	                           .tail_of = NO_VALUE };
	struct obl_output out1 = { .output = 1, .bytes = 16, .name = "y_in", .value = { y1, w1 },
	                          .off = { 8, 8 }, .tail_of = NO_VALUE };
	VEC_PUSH(o->outputs, out0);
	VEC_PUSH(o->outputs, out1);
}

int main(void)
{
	size_t len = 0;
	char *ptx = read_fixture("grid_stride.ptx", &len);
	if (!ok(ptx, "grid_stride.ptx read"))
		return done_testing();
	float *x = malloc(N * 4), *y = malloc(N * 4), *ref = malloc(N * 4);
	for (int i = 0; i < N; i++) {
		x[i] = (float)i * 0.25f - 7.0f;
		y[i] = cosf((float)i);
		ref[i] = fmaf(2.5f, x[i], y[i]);
	}
	const void *inputs[] = { x, y };

	struct obligation o;
	build(&o, ptx, len, N);
	struct replay_result r;
	char err[512];
	bool okr = replay_program(&o, 0, inputs, NULL, &r, err, sizeof err);
	if (!ok(okr, "program 0 replays"))
		printf("# %s\n", err);
	if (okr) {
		is_int(r.nouts, 2, "two outputs");
		is_int(r.launches, 1, "one launch executed");
		ok(r.outs[0].bytes == N * 4 && memcmp(r.outs[0].data, ref, N * 4) == 0,
		   "output z = copy of y after saxpy, bit for bit");
		ok(memcmp(r.outs[1].data, y + 2, 16) == 0, "output y_in reads y before the launch "
		   "(kept aside), at its offset");
		ok(r.steps > N, "steps counted (%llu)", (unsigned long long)r.steps);
		replay_result_release(&r);
	}
	okr = replay_program(&o, 1, inputs, NULL, &r, err, sizeof err);
	ok(okr && r.outs[0].data[0] == 0 && r.outs[0].data[N * 4 - 1] == 0,
	   "program 1 (memset) replays");
	replay_result_release(&r);

	/* the data kept in the obligation serves when inputs are not given */
	o.inputs.items[0].data = x;
	o.inputs.items[0].ndata = N * 4;
	const void *partial[] = { NULL, y };
	okr = replay_program(&o, 0, partial, NULL, &r, err, sizeof err);
	ok(okr && memcmp(r.outs[0].data, ref, N * 4) == 0, "input data from the obligation");
	replay_result_release(&r);
	const void *none[] = { NULL, NULL };
	okr = replay_program(&o, 0, none, NULL, &r, err, sizeof err);
	ok(!okr && r.status == INTERP_BADARG && strstr(err, "input 1"), "missing input: %s", err);
	obligation_release(&o);

	/* n beyond the buffers: a fault naming the launch, line and thread */
	build(&o, ptx, len, N + 5);
	okr = replay_program(&o, 0, inputs, NULL, &r, err, sizeof err);
	ok(!okr && r.status == INTERP_FAULT, "out-of-bounds launch fails");
	ok(strstr(err, "launch 0") && strstr(err, "thread (44,0,0) block (0,0,0)"),
	   "error names launch, thread and block: %s", err);
	obligation_release(&o);

	free(x);
	free(y);
	free(ref);
	free(ptx);
	return done_testing();
}
