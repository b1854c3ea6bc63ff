/*
 * test-resolve.c: back-projection (engine/resolve.c) on obligations and
 * write sets built by hand: elementwise kernels, partial writes over a
 * memset, a two-launch chain, copies, uninitialised reads, races, element
 * size mismatches, a non-affine address (solver path), global reads of
 * a launch's own stores (barrier epochs, program order, races), the speed
 * of the first location of a 16M-element elementwise pair, shared-memory
 * reduction trees (linear, memoised per block), shared tiles at non-affine
 * addresses (inverted by tables), affine views through division by
 * constants and the deadline; resolution stopped at values named shared
 * (resolver_set_shared).
 */
#include "engine/resolve.h"
#include "engine/resolve-impl.h"
#include "libcommon/deadline.h"
#include "libcommon/diag.h"
#include "tap.h"

#include <math.h>
#include <string.h>
#include <time.h>

struct fix {
	struct ectx *cx;
	struct sym_state st;
	VEC(struct sym_write) pending;      /* writes of the launch being built */
};

static void fix_init(struct fix *f)
{
	memset(f, 0, sizeof *f);
	f->cx = ectx_new();
	sym_state_init(&f->st, f->cx);
	f->st.obl.names[0] = "ref";
	f->st.obl.names[1] = "opt";
	struct obl_module m = { 0, 0, ".version 8.0", 12, NULL };
	VEC_PUSH(f->st.obl.modules, m);
	m.module = 1;
	m.prog = 1;
	VEC_PUSH(f->st.obl.modules, m);
}

static void fix_release(struct fix *f)
{
	sym_state_release(&f->st);
	ectx_free(f->cx);
	VEC_FREE(f->pending);
}

static uint32_t input(struct fix *f, uint64_t bytes, const void *data)
{
	struct obl_input in = { .input = (uint32_t)f->st.obl.inputs.len, .bytes = bytes, .data = data,
	                        .ndata = data ? bytes : 0 };
	VEC_PUSH(f->st.obl.inputs, in);
	return in.input;
}

static uint32_t value(struct fix *f, uint32_t prog, uint64_t bytes, enum value_def def, uint32_t prev)
{
	struct obl_value v;
	memset(&v, 0, sizeof v);
	v.value = (uint32_t)f->st.obl.values.len;
	v.prog = prog;
	v.buf = v.value;
	v.bytes = bytes;
	v.def = def;
	v.prev = prev;
	v.len = bytes;
	VEC_PUSH(f->st.obl.values, v);
	return v.value;
}

static struct obl_value *V(struct fix *f, uint32_t v) { return &f->st.obl.values.items[v]; }

/* A launch of prog with a 1-D grid; returns its id. */
static uint32_t launch(struct fix *f, uint32_t prog, uint64_t grid, uint64_t block, const char *name)
{
	struct obl_launch l;
	memset(&l, 0, sizeof l);
	l.launch = (uint32_t)f->st.obl.launches.len;
	l.prog = prog;
	l.module = prog;
	l.kernel = name;
	l.grid[0] = grid;
	l.block[0] = block;
	l.grid[1] = l.grid[2] = l.block[1] = l.block[2] = 1;
	VEC_PUSH(f->st.obl.launches, l);
	return l.launch;
}

static uint32_t launch_value(struct fix *f, uint32_t prog, uint64_t bytes, uint32_t l, uint32_t prev)
{
	uint32_t v = value(f, prog, bytes, VD_LAUNCH, prev);
	V(f, v)->launch = l;
	if (prev != NO_VALUE)
		V(f, v)->buf = V(f, prev)->buf;
	return v;
}

static void write(struct fix *f, uint32_t v, const struct expr *dom, const struct expr *addr,
                  const struct expr *val, enum etype et, uint32_t seq)
{
	struct sym_write w = { v, dom, addr, val, et, seq, 1, 0, SA_NONE, NULL, 0 };
	VEC_PUSH(f->pending, w);
}

static void end_launch(struct fix *f, uint32_t l)
{
	struct sym_writes ws;
	memset(&ws, 0, sizeof ws);
	ws.launch = l;
	ws.prog = f->st.obl.launches.items[l].prog;
	ws.kernel = f->st.obl.launches.items[l].kernel;
	ws.nwrites = (uint32_t)f->pending.len;
	ws.writes = ARENA_NEWN(&f->st.arena, struct sym_write, f->pending.len ? f->pending.len : 1);
	if (f->pending.len)
		memcpy(ws.writes, f->pending.items, f->pending.len * sizeof *f->pending.items);
	VEC_PUSH(f->st.writes, ws);
	f->pending.len = 0;
}

/* Common expressions. */
static const struct expr *gidx(struct ectx *cx, uint32_t block)
{
	return e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), e_bv(cx, block, 32)), e_tid(cx, 0));
}

static const struct expr *addr4(struct ectx *cx, const struct expr *idx32)
{
	return e_op2(cx, EOP_MUL, e_resize(cx, idx32, 64, true), e_bv(cx, 4, 64));
}

static const struct expr *lt(struct ectx *cx, const struct expr *a, uint32_t n)
{
	return e_op2(cx, EOP_SLT, a, e_bv(cx, n, 32));
}

static const struct expr *two_x(struct ectx *cx, uint32_t space, const struct expr *addr)
{
	return e_op2(cx, EOP_FMUL, e_load(cx, space, ET_F32, addr), e_real(cx, 2.0));
}

/* Two launches over 1024 floats of input in: y = 2 * in where the
 * thread's index is below ybound, onto a memset of zeros (memset_y) or
 * nothing; then z = y + 1 everywhere, onto y's buffer (z_on_y) or
 * nothing.  l0: the first launch. */
struct chain { uint32_t in, y, z, l0; };

static struct chain chain(struct fix *f, bool memset_y, int64_t ybound, bool z_on_y, const char *yname)
{
	struct ectx *cx = f->cx;
	struct chain c;
	c.in = input(f, 4096, NULL);
	uint32_t x = value(f, 0, 4096, VD_INPUT, NO_VALUE);
	V(f, x)->input = c.in;
	uint32_t buf = NO_VALUE;
	if (memset_y) {
		buf = value(f, 0, 4096, VD_MEMSET, NO_VALUE);
		V(f, buf)->fill = 0;
	}
	c.l0 = launch(f, 0, 4, 256, yname);
	c.y = launch_value(f, 0, 4096, c.l0, buf);
	const struct expr *i = gidx(cx, 256);
	write(f, c.y, lt(cx, i, ybound), addr4(cx, i), two_x(cx, x, addr4(cx, i)), ET_F32, 0);
	end_launch(f, c.l0);
	uint32_t l1 = launch(f, 0, 4, 256, "plus_one");
	c.z = launch_value(f, 0, 4096, l1, z_on_y ? c.y : NO_VALUE);
	write(f, c.z, lt(cx, i, 1024), addr4(cx, i),
	      e_op2(cx, EOP_FADD, e_load(cx, c.y, ET_F32, addr4(cx, i)), e_real(cx, 1.0)), ET_F32, 0);
	end_launch(f, l1);
	return c;
}

static void test_elementwise(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	struct chain ch = chain(&f, true, 512, true, "twice_half");
	uint32_t in = ch.in, y = ch.y, z = ch.z, l0 = ch.l0;
	ok(sym_state_finish(&f.st, "test", true), "hand-built obligation is consistent");

	struct resolver *r = resolver_new(&f.st, NULL);
	struct resolve_info info;
	const struct expr *e = resolve_elem(r, y, 40, ET_F32, &info);
	const struct expr *want = e_op2(cx, EOP_FMUL, e_input(cx, in, 40, ET_F32), e_real(cx, 2.0));
	ok(e == want && info.flags == 0, "elementwise: y[10] = 2 * in[10]");
	is_int(info.writer, l0, "elementwise: written by launch 0");
	e = resolve_elem(r, y, 4 * 600, ET_F32, &info);
	ok(e == e_real(cx, 0.0) && info.flags == 0, "half launch: y[600] comes from the memset");
	is_int(info.writer, NO_VALUE, "half launch: no kernel wrote y[600]");
	e = resolve_elem(r, z, 8, ET_F32, &info);
	want = e_op2(cx, EOP_FADD, e_op2(cx, EOP_FMUL, e_input(cx, in, 8, ET_F32), e_real(cx, 2.0)),
	             e_real(cx, 1.0));
	ok(e == want, "chain: z[2] = 2 * in[2] + 1");
	e = resolve_elem(r, z, 4 * 700, ET_F32, &info);
	ok(e == e_real(cx, 1.0), "chain: z[700] = 0 + 1");
	e = resolve_elem(r, y, 4 * 1023, ET_F32, &info);
	ok(e == e_real(cx, 0.0), "last element from the memset");
	e = resolve_elem(r, y, 2, ET_F32, &info);
	ok(!e && (info.flags & RI_UNSUPPORTED), "misaligned read is unsupported: %s", info.reason);
	e = resolve_elem(r, y, 4096, ET_F32, &info);
	ok(!e && (info.flags & RI_UNSUPPORTED), "read past the end is unsupported: %s", info.reason);
	resolver_free(r);
	fix_release(&f);
}

/* The chain of test_elementwise with y named shared (number 7): z's
 * elements stop at y, one opaque leaf per (number, offset, type); y's
 * own elements (the element asked for) are resolved; off again, the
 * full answer. */
static void test_shared_stop(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	struct chain ch = chain(&f, false, 1024, false, "twice");
	uint32_t in = ch.in, y = ch.y, z = ch.z;
	ok(sym_state_finish(&f.st, "test", true), "shared: hand-built obligation is consistent");

	uint32_t *shared = xcalloc(f.st.obl.values.len, sizeof *shared);
	shared[y] = 7;
	struct resolver *r = resolver_new(&f.st, NULL);
	resolver_set_shared(r, shared);
	struct resolve_info info;
	const struct expr *e = resolve_elem(r, z, 8, ET_F32, &info);
	const struct expr *at = e_bv(cx, 8u << 4 | ET_F32, 64);
	const struct expr *leaf = e_opaque(cx, EOPQ(EOPQ_FN, 0, RESOLVE_SHARED_TAG(7)), SORT_REAL, 1, &at);
	ok(e == e_op2(cx, EOP_FADD, leaf, e_real(cx, 1.0)) && info.flags == 0,
	   "shared: z[2] = y's leaf at byte 8 + 1");
	e = resolve_elem(r, z, 12, ET_F32, &info);
	ok(e && e != e_op2(cx, EOP_FADD, leaf, e_real(cx, 1.0)) && e_has_opaque(e),
	   "shared: z[3] another leaf");
	e = resolve_elem(r, y, 8, ET_F32, &info);
	ok(e == e_op2(cx, EOP_FMUL, e_input(cx, in, 8, ET_F32), e_real(cx, 2.0)),
	   "shared: y[2] itself, the element asked for, in full");
	resolver_set_shared(r, NULL);
	e = resolve_elem(r, z, 8, ET_F32, &info);
	ok(e == e_op2(cx, EOP_FADD, e_op2(cx, EOP_FMUL, e_input(cx, in, 8, ET_F32), e_real(cx, 2.0)),
	                e_real(cx, 1.0)) && !e_has_opaque(e),
	   "shared off: z[2] = 2 * in[2] + 1 again (the memo cleared)");
	resolver_free(r);
	free(shared);
	fix_release(&f);
}

static void test_uninit_race_sizes(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t in = input(&f, 1024, NULL);
	uint32_t x = value(&f, 0, 1024, VD_INPUT, NO_VALUE);
	V(&f, x)->input = in;
	uint32_t fresh = value(&f, 0, 1024, VD_UNINIT, NO_VALUE);
	/* writes only the first 128 elements */
	uint32_t l0 = launch(&f, 0, 1, 128, "partial");
	uint32_t y = launch_value(&f, 0, 1024, l0, fresh);
	write(&f, y, e_bool(cx, true), addr4(cx, e_tid(cx, 0)),
	      two_x(cx, x, addr4(cx, e_tid(cx, 0))), ET_F32, 0);
	end_launch(&f, l0);
	/* every thread of a block writes element ctaid.x: a race, or benign */
	uint32_t fresh2 = value(&f, 0, 1024, VD_UNINIT, NO_VALUE);
	uint32_t l1 = launch(&f, 0, 4, 2, "racy");
	uint32_t z = launch_value(&f, 0, 1024, l1, fresh2);
	write(&f, z, e_op2(cx, EOP_EQ, e_ctaid(cx, 0), e_bv(cx, 0, 32)), addr4(cx, e_ctaid(cx, 0)),
	      e_load(cx, x, ET_F32, addr4(cx, e_tid(cx, 0))), ET_F32, 0);
	write(&f, z, e_op2(cx, EOP_ULT, e_bv(cx, 0, 32), e_ctaid(cx, 0)), addr4(cx, e_ctaid(cx, 0)),
	      e_load(cx, x, ET_F32, addr4(cx, e_ctaid(cx, 0))), ET_F32, 0);
	end_launch(&f, l1);
	/* f64 stores read back as f32 */
	uint32_t fresh3 = value(&f, 0, 1024, VD_UNINIT, NO_VALUE);
	uint32_t l2 = launch(&f, 0, 1, 128, "wide");
	uint32_t d = launch_value(&f, 0, 1024, l2, fresh3);
	write(&f, d, e_bool(cx, true),
	      e_op2(cx, EOP_MUL, e_resize(cx, e_tid(cx, 0), 64, false), e_bv(cx, 8, 64)),
	      e_real(cx, 1.5), ET_F64, 0);
	end_launch(&f, l2);
	/* two stores of one thread: the later one wins */
	uint32_t fresh4 = value(&f, 0, 1024, VD_UNINIT, NO_VALUE);
	uint32_t l3 = launch(&f, 0, 1, 256, "overwrite");
	uint32_t o = launch_value(&f, 0, 1024, l3, fresh4);
	write(&f, o, e_bool(cx, true), addr4(cx, e_tid(cx, 0)), e_real(cx, 7.0), ET_F32, 5);
	write(&f, o, e_bool(cx, true), addr4(cx, e_tid(cx, 0)), e_real(cx, 3.0), ET_F32, 2);
	end_launch(&f, l3);
	ok(sym_state_finish(&f.st, "test", true), "second obligation is consistent");

	struct resolver *r = resolver_new(&f.st, NULL);
	struct resolve_info info;
	const struct expr *e = resolve_elem(r, y, 4 * 200, ET_F32, &info);
	ok(e && e->op == EOP_UNDEF && (info.flags & RI_UNINIT), "uninitialised read gives undef");
	is_int(info.uninit_value, y, "uninit: names the value read");
	is_int(info.uninit_off, 800, "uninit: names the byte offset");
	e = resolve_elem(r, y, 4 * 200, ET_F32, &info);
	ok(e && (info.flags & RI_UNINIT), "uninit is remembered by the memo");
	e = resolve_elem(r, z, 0, ET_F32, &info);
	ok(!e && (info.flags & RI_RACE), "two threads, two values: a race");
	ok(info.race_tid[0][0] != info.race_tid[1][0] && info.race_launch == l1,
	   "race: names two threads of launch 1");
	e = resolve_elem(r, z, 8, ET_F32, &info);
	ok(e == e_input(cx, in, 8, ET_F32) && info.flags == 0, "all threads write one value: no race");
	e = resolve_elem(r, d, 8, ET_F32, &info);
	ok(!e && (info.flags & RI_UNSUPPORTED), "f64 store read as f32: unsupported (%s)", info.reason);
	e = resolve_elem(r, d, 12, ET_F32, &info);
	ok(!e && (info.flags & RI_UNSUPPORTED), "read inside an f64 store: unsupported");
	e = resolve_elem(r, d, 16, ET_F64, &info);
	ok(e == e_real(cx, 1.5), "f64 store read as f64");
	e = resolve_elem(r, o, 4 * 9, ET_F32, &info);
	ok(e == e_real(cx, 7.0), "the store with the larger seq wins");
	resolver_free(r);
	fix_release(&f);
}

static void test_inputs_copies(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	int32_t shape[4] = { 3, -5, 7, 9 };
	uint32_t in_i = input(&f, sizeof shape, shape);
	uint32_t in_f = input(&f, 64, NULL);
	uint32_t s = value(&f, 0, 16, VD_INPUT, NO_VALUE);
	V(&f, s)->input = in_i;
	uint32_t a = value(&f, 0, 128, VD_INPUT, NO_VALUE);
	V(&f, a)->input = in_f;
	V(&f, a)->off = 32;
	V(&f, a)->len = 64;
	uint32_t c = value(&f, 0, 128, VD_COPY, a);
	V(&f, c)->src = a;
	V(&f, c)->src_off = 40;
	V(&f, c)->off = 0;
	V(&f, c)->len = 16;
	V(&f, c)->buf = V(&f, a)->buf;
	uint32_t m = value(&f, 0, 64, VD_MEMSET, NO_VALUE);
	V(&f, m)->fill = 0x3f;
	ok(sym_state_finish(&f.st, "test", false), "third obligation is consistent");
	struct resolver *r = resolver_new(&f.st, NULL);
	struct resolve_info info;
	ok(resolve_elem(r, s, 4, ET_S32, &info) == e_bv(cx, (uint32_t)-5, 32),
	   "integer input element is its recorded constant");
	ok(resolve_elem(r, a, 36, ET_F32, &info) == e_input(cx, in_f, 4, ET_F32),
	   "float input element is symbolic (offset within the input)");
	const struct expr *e = resolve_elem(r, a, 0, ET_F32, &info);
	ok(e && e->op == EOP_UNDEF && (info.flags & RI_UNINIT), "bytes before the input range: uninitialised");
	ok(resolve_elem(r, c, 4, ET_F32, &info) == e_input(cx, in_f, 12, ET_F32), "copy: source offset");
	ok(resolve_elem(r, c, 40, ET_F32, &info) == e_input(cx, in_f, 8, ET_F32),
	   "copy: outside its range the previous version");
	e = resolve_elem(r, m, 8, ET_F32, &info);
	float want;
	uint32_t bits = 0x3f3f3f3f;
	memcpy(&want, &bits, sizeof want);
	ok(e && e->op == EOP_REAL && e->d == (double)want, "memset 0x3f read as f32: %g", want);
	ok(resolve_elem(r, m, 8, ET_U16, &info) == e_bv(cx, 0x3f3f, 16), "memset 0x3f read as u16");
	resolver_free(r);
	fix_release(&f);
}

/* Thread t stores to element t ^ 1: not affine, and the grid (2^21
 * threads) is too large to enumerate (resolve-enum.c), so the solver
 * inverts it. */
static void test_solver_path(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t in = input(&f, 256, NULL);
	uint32_t x = value(&f, 0, 256, VD_INPUT, NO_VALUE);
	V(&f, x)->input = in;
	uint32_t fresh = value(&f, 0, 256, VD_UNINIT, NO_VALUE);
	uint32_t l = launch(&f, 0, 1u << 13, 256, "swap_pairs");
	uint32_t y = launch_value(&f, 0, 256, l, fresh);
	const struct expr *g = gidx(cx, 256);
	const struct expr *partner = e_op2(cx, EOP_XOR, g, e_bv(cx, 1, 32));
	write(&f, y, lt(cx, g, 64), addr4(cx, partner), e_load(cx, x, ET_F32, addr4(cx, g)), ET_F32, 0);
	end_launch(&f, l);
	ok(sym_state_finish(&f.st, "test", true), "fourth obligation is consistent");
	struct resolver *r = resolver_new(&f.st, NULL);
	struct resolve_info info;
	ok(!resolve_elem(r, y, 12, ET_F32, &info) && (info.flags & RI_UNSUPPORTED),
	   "without a solver a non-affine address is unsupported");
	resolver_free(r);
	struct smt *s = smt_new(5000, 0);
	r = resolver_new(&f.st, s);
	const struct expr *e = resolve_elem(r, y, 12, ET_F32, &info);
	ok(e == e_input(cx, in, 8, ET_F32), "solver path: y[3] = in[2]%s%s", e ? "" : ": ", e ? "" : info.reason);
	resolver_free(r);
	smt_free(s);
	fix_release(&f);
}

/* A 2-D grid overhanging a 50 x 70 matrix: addresses alias across rows
 * (row r, column 75 is row r+1, column 5), only the domain tells them
 * apart, and the affine search finds that without a solver. */
static void test_overhang_2d(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint64_t bytes = 4 * 50 * 70;
	uint32_t in = input(&f, bytes, NULL);
	uint32_t x = value(&f, 0, bytes, VD_INPUT, NO_VALUE);
	V(&f, x)->input = in;
	uint32_t fresh = value(&f, 0, bytes, VD_UNINIT, NO_VALUE);
	uint32_t l = launch(&f, 0, 5, 16, "matadd");
	f.st.obl.launches.items[l].grid[1] = 4;
	f.st.obl.launches.items[l].block[1] = 16;
	uint32_t y = launch_value(&f, 0, bytes, l, fresh);
	const struct expr *row = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 1), e_bv(cx, 16, 32)), e_tid(cx, 1));
	const struct expr *col = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), e_bv(cx, 16, 32)), e_tid(cx, 0));
	const struct expr *idx = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, row, e_bv(cx, 70, 32)), col);
	write(&f, y, e_and(cx, lt(cx, row, 50), lt(cx, col, 70)), addr4(cx, idx),
	      two_x(cx, x, addr4(cx, idx)), ET_F32, 0);
	end_launch(&f, l);
	ok(sym_state_finish(&f.st, "test", true), "2-D obligation is consistent");
	struct resolver *r = resolver_new(&f.st, NULL);
	struct resolve_info info;
	int good = 0;
	for (uint64_t e = 0; e < 50 * 70; e++)
		good += resolve_elem(r, y, 4 * e, ET_F32, &info) ==
		        e_op2(cx, EOP_FMUL, e_input(cx, in, 4 * e, ET_F32), e_real(cx, 2.0));
	is_int(good, 50 * 70, "2-D overhanging grid: every element inverted without a solver");
	resolver_free(r);
	fix_release(&f);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_speed(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint64_t n = 16u << 20, bytes = 4 * n;
	uint32_t in = input(&f, bytes, NULL);
	uint32_t x = value(&f, 0, bytes, VD_INPUT, NO_VALUE);
	V(&f, x)->input = in;
	uint32_t fresh = value(&f, 0, bytes, VD_UNINIT, NO_VALUE);
	uint32_t l = launch(&f, 0, n / 256, 256, "relu");
	uint32_t y = launch_value(&f, 0, bytes, l, fresh);
	const struct expr *i = gidx(cx, 256);
	const struct expr *ld = e_load(cx, x, ET_F32, addr4(cx, i));
	write(&f, y, lt(cx, i, (uint32_t)n), addr4(cx, i), e_op2(cx, EOP_FMAX, ld, e_real(cx, 0.0)), ET_F32, 0);
	end_launch(&f, l);
	ok(sym_state_finish(&f.st, "test", true), "16M-element obligation is consistent");
	struct smt *s = smt_new(5000, 0);
	double t0 = now();
	struct resolver *r = resolver_new(&f.st, s);
	struct resolve_info info;
	const struct expr *e = resolve_elem(r, y, bytes - 4, ET_F32, &info);
	double t = now() - t0;
	ok(e == e_op2(cx, EOP_FMAX, e_input(cx, in, bytes - 4, ET_F32), e_real(cx, 0.0)),
	   "16M elements: last element resolved");
	ok(t < 0.2, "16M elements: first location in %.3f ms", t * 1e3);
	resolver_free(r);
	smt_free(s);
	fix_release(&f);
}

/* A shared-memory load of launch l at byte off by a reader in (epoch, sub 0). */
static const struct expr *shload(struct ectx *cx, uint32_t l, const struct expr *off, uint32_t epoch)
{
	return e_load(cx, SYM_SHARED_SPACE(l), ET_F32, e_op2(cx, EOP_ADD, off, e_bv(cx, SYM_SH_CODE(epoch, 0), 64)));
}

/* The norm pattern: a block-wide sum tree in shared memory whose result
 * every thread reads back, then a second tree over leaves that each
 * depend on the first tree's result.  Resolved without a memo of shared
 * reads, every leaf of the second tree would resolve the whole first
 * tree again (N^2); with it, each read is resolved once per block. */
static void test_shared_tree(void)
{
	enum { N = 64, B = 2 };
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t in = input(&f, 4 * N * B, NULL);
	uint32_t x = value(&f, 0, 4 * N * B, VD_INPUT, NO_VALUE);
	V(&f, x)->input = in;
	uint32_t fresh = value(&f, 0, 4 * N * B, VD_UNINIT, NO_VALUE);
	uint32_t l = launch(&f, 0, B, N, "norm_tree");
	uint32_t y = launch_value(&f, 0, 4 * N * B, l, fresh);
	VEC(struct sym_shwrite) sh = { 0 };
	const struct expr *t = e_tid(cx, 0), *T = e_bool(cx, true);
	const struct expr *st = e_op2(cx, EOP_MUL, e_resize(cx, t, 64, false), e_bv(cx, 4, 64));
	const struct expr *xi = e_load(cx, x, ET_F32, addr4(cx, gidx(cx, N)));
	uint32_t ep = 0, seq = 0;
	for (int tree = 0; tree < 2; tree++) {
		/* leaves: x, then x - (the first tree's sum) */
		const struct expr *leaf = tree == 0 ? xi :
			e_op2(cx, EOP_FADD, xi, e_op1(cx, EOP_FNEG, 0, 0, shload(cx, l, e_bv(cx, 0, 64), ep)));
		VEC_PUSH(sh, ((struct sym_shwrite){ T, st, leaf, ET_F32, seq++, ep, 0, 1, 0, SA_NONE, NULL }));
		ep++;
		for (uint32_t k = N / 2; k > 0; k >>= 1, ep++) {
			const struct expr *sum = e_op2(cx, EOP_FADD, shload(cx, l, st, ep),
			                               shload(cx, l, e_op2(cx, EOP_ADD, st, e_bv(cx, 4 * k, 64)), ep));
			VEC_PUSH(sh, ((struct sym_shwrite){ e_op2(cx, EOP_ULT, t, e_bv(cx, k, 32)), st, sum, ET_F32,
			                                    seq++, ep, 0, 1, 0, SA_NONE, NULL }));
		}
	}
	write(&f, y, T, addr4(cx, gidx(cx, N)), shload(cx, l, e_bv(cx, 0, 64), ep), ET_F32, seq);
	end_launch(&f, l);
	f.st.writes.items[f.st.writes.len - 1].shared = sh.items;
	f.st.writes.items[f.st.writes.len - 1].nshared = (uint32_t)sh.len;
	f.st.writes.items[f.st.writes.len - 1].shared_bytes = 4 * N;
	ok(sym_state_finish(&f.st, "test", true), "reduction trees: obligation is consistent");

	/* the expected value of every output of block 1 */
	const struct expr *sum = e_real(cx, 0.0);
	for (int i = 0; i < N; i++)
		sum = e_op2(cx, EOP_FADD, sum, e_input(cx, in, 4 * (N + i), ET_F32));
	const struct expr *want = e_real(cx, 0.0);
	for (int i = 0; i < N; i++)
		want = e_op2(cx, EOP_FADD, want, e_op2(cx, EOP_FADD, e_input(cx, in, 4 * (N + i), ET_F32),
		                                       e_op1(cx, EOP_FNEG, 0, 0, sum)));
	struct resolver *r = resolver_new(&f.st, NULL);
	struct resolve_info info;
	const struct expr *e = resolve_elem(r, y, 4 * (N + 5), ET_F32, &info);
	ok(e == want && !info.flags, "reduction trees: out[N+5] is the sum of (x - sum x) over block 1");
	ok(info.shared <= 4 * N + 8, "reduction trees: %llu shared reads resolved for one location "
	   "(linear: two trees of %d leaves)", (unsigned long long)info.shared, N);
	e = resolve_elem(r, y, 4 * (N + 40), ET_F32, &info);
	ok(e == want && info.shared == 0, "reduction trees: another thread of the block reads them from the "
	   "memo (%llu resolved)", (unsigned long long)info.shared);
	e = resolve_elem(r, y, 4 * 3, ET_F32, &info);
	ok(e && info.shared > 0, "reduction trees: block 0 has trees of its own (%llu resolved)",
	   (unsigned long long)info.shared);
	resolver_free(r);

	/* a deadline already passed stops resolution, saying where */
	r = resolver_new(&f.st, NULL);
	resolver_set_deadline(r, deadline_now() - 1);
	e = resolve_elem(r, y, 4 * (N + 7), ET_F32, &info);
	ok(!e && (info.flags & RI_TIMEOUT) && strstr(info.doing, "the budget ran out resolving"),
	   "deadline passed: no result, timeout: %s", info.doing);
	resolver_set_deadline(r, DEADLINE_NONE);
	e = resolve_elem(r, y, 4 * (N + 7), ET_F32, &info);
	ok(e == want && !info.flags, "a timed-out resolution left nothing in the memo");
	resolver_free(r);
	VEC_FREE(sh);
	fix_release(&f);
}

/* A shared tile written at addresses that are not affine in the thread
 * coordinates (a transposition, (t % 8) * 8 + t / 8, and a pair swap,
 * t ^ 1) and read back at tid: inverted by a table of the block's threads
 * by address, without a solver; two threads of one epoch on one address
 * (t & ~1) is still said to be a race. */
static void test_shared_table(void)
{
	enum { N = 64 };
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t in = input(&f, 4 * N * 2, NULL);
	uint32_t x = value(&f, 0, 4 * N * 2, VD_INPUT, NO_VALUE);
	V(&f, x)->input = in;
	uint32_t fresh = value(&f, 0, 4 * N * 2, VD_UNINIT, NO_VALUE);
	uint32_t l = launch(&f, 0, 2, N, "transpose_tile");
	uint32_t y = launch_value(&f, 0, 4 * N * 2, l, fresh);
	const struct expr *t = e_tid(cx, 0), *T = e_bool(cx, true);
	const struct expr *tr = e_op2(cx, EOP_ADD,
	                              e_op2(cx, EOP_MUL, e_op2(cx, EOP_UREM, t, e_bv(cx, 8, 32)), e_bv(cx, 8, 32)),
	                              e_op2(cx, EOP_UDIV, t, e_bv(cx, 8, 32)));
	const struct expr *sw = e_op2(cx, EOP_XOR, t, e_bv(cx, 1, 32));
	const struct expr *pair = e_op2(cx, EOP_AND, t, e_bv(cx, ~1u, 32));
	const struct expr *xi = e_load(cx, x, ET_F32, addr4(cx, gidx(cx, N)));
	struct sym_shwrite sh[] = {
		{ T, addr4(cx, tr), xi, ET_F32, 0, 0, 0, 1, 0, SA_NONE, NULL },
		{ T, addr4(cx, sw), shload(cx, l, addr4(cx, t), 1), ET_F32, 1, 1, 0, 1, 0, SA_NONE, NULL },
		{ T, e_op2(cx, EOP_ADD, addr4(cx, pair), e_bv(cx, 4 * N, 64)), xi, ET_F32, 2, 2, 0, 1, 0, SA_NONE, NULL },
	};
	write(&f, y, T, addr4(cx, gidx(cx, N)), shload(cx, l, addr4(cx, t), 3), ET_F32, 3);
	end_launch(&f, l);
	f.st.writes.items[f.st.writes.len - 1].shared = sh;
	f.st.writes.items[f.st.writes.len - 1].nshared = 3;
	f.st.writes.items[f.st.writes.len - 1].shared_bytes = 8 * N;
	ok(sym_state_finish(&f.st, "test", true), "shared tile: obligation is consistent");
	struct resolver *r = resolver_new(&f.st, NULL);
	struct resolve_info info;
	/* out[b][t] = tile[t] after the swap = tile0[t ^ 1] = x[b][tr^-1(t ^ 1)] */
	bool all = true;
	for (uint32_t b = 0; b < 2 && all; b++)
		for (uint32_t i = 0; i < N && all; i++) {
			uint32_t s = i ^ 1, src = (s % 8) * 8 + s / 8;   /* the transposition is an involution */
			const struct expr *e = resolve_elem(r, y, 4 * (N * b + i), ET_F32, &info);
			if (e != e_input(cx, in, 4 * (N * b + src), ET_F32) || info.flags) {
				printf("# out[%u][%u]: %s\n", b, i, e ? "wrong value" : info.reason);
				all = false;
			}
		}
	ok(all, "shared tile: a transposed, pair-swapped tile resolves without a solver in both blocks");
	resolver_free(r);

	/* reads of the racing pairs' tile (at constant offsets, as the
	 * resolver asks them) */
	r = resolver_new(&f.st, NULL);
	const struct expr *ld = shload(cx, l, e_bv(cx, 4 * N + 24, 64), 3);
	uint32_t tid[3] = { 6, 0, 0 }, ctaid[3] = { 1, 0, 0 };
	memset(&info, 0, sizeof info);
	ok(!rs_shared_plain(r, ld, tid, ctaid, 0, &info) && (info.flags & RI_UNSUPPORTED) &&
	   strstr(info.reason, "two threads of block (1,0,0)"),
	   "shared tile: two threads writing one address in one epoch: %s", info.reason);
	memset(&info, 0, sizeof info);
	tid[0] = 7;
	ld = shload(cx, l, e_bv(cx, 4 * N + 26, 64), 3);
	ok(!rs_shared_plain(r, ld, tid, ctaid, 0, &info) && (info.flags & RI_UNSUPPORTED) &&
	   strstr(info.reason, "read as 4 bytes"), "shared tile: a read across two writes: %s", info.reason);
	resolver_free(r);
	fix_release(&f);
}

/* A tile in each of 1100 blocks, stored at (t + b) % 4 in block b: each
 * block's table is its own (the address names the block), and every
 * block resolves right, in two passes over the blocks. */
static void test_shared_table_many(void)
{
	enum { N = 4, B = 1100 };
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t in = input(&f, 4 * N * B, NULL);
	uint32_t x = value(&f, 0, 4 * N * B, VD_INPUT, NO_VALUE);
	V(&f, x)->input = in;
	uint32_t fresh = value(&f, 0, 4 * N * B, VD_UNINIT, NO_VALUE);
	uint32_t l = launch(&f, 0, B, N, "swap_tile");
	uint32_t y = launch_value(&f, 0, 4 * N * B, l, fresh);
	const struct expr *t = e_tid(cx, 0), *T = e_bool(cx, true);
	struct sym_shwrite sh[] = {
		{ T, addr4(cx, e_op2(cx, EOP_UREM, e_op2(cx, EOP_ADD, t, e_ctaid(cx, 0)), e_bv(cx, N, 32))),
		  e_load(cx, x, ET_F32, addr4(cx, gidx(cx, N))), ET_F32, 0, 0, 0, 1, 0, SA_NONE, NULL },
	};
	write(&f, y, T, addr4(cx, gidx(cx, N)), shload(cx, l, addr4(cx, t), 1), ET_F32, 1);
	end_launch(&f, l);
	f.st.writes.items[f.st.writes.len - 1].shared = sh;
	f.st.writes.items[f.st.writes.len - 1].nshared = 1;
	f.st.writes.items[f.st.writes.len - 1].shared_bytes = 4 * N;
	ok(sym_state_finish(&f.st, "test", true), "many blocks: obligation is consistent");
	struct resolver *r = resolver_new(&f.st, NULL);
	struct resolve_info info;
	bool all = true;
	for (uint32_t pass = 0; pass < 2; pass++)
		for (uint32_t b = 0; b < B && all; b++) {
			uint32_t i = (b + pass) % N;
			const struct expr *e = resolve_elem(r, y, 4 * (N * b + i), ET_F32, &info);
			all = e == e_input(cx, in, 4 * (N * b + (i + 4 * N - b % N) % N), ET_F32) && !info.flags;
		}
	ok(all, "many blocks: %d blocks' rotated tiles resolve, a table per block", B);
	resolver_free(r);
	fix_release(&f);
}

/* Global reads (resolve-global.c): one launch of 2 blocks of 4 threads
 * stores p[gid] = 2 x[gid] (epoch 0, seq 0) over a zeroed p, and each
 * output q_k[gid] is what read k sees at an address of p. */
static void test_global_reads(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t in = input(&f, 32, NULL);
	uint32_t x = value(&f, 0, 32, VD_INPUT, NO_VALUE);
	V(&f, x)->input = in;
	uint32_t p0 = value(&f, 0, 32, VD_MEMSET, NO_VALUE);
	V(&f, p0)->fill = 0;
	uint32_t l0 = launch(&f, 0, 2, 4, "neighbours");
	uint32_t p = launch_value(&f, 0, 32, l0, p0);
	const struct expr *g = gidx(cx, 4), *t = e_bool(cx, true);
	struct sym_write w0 = { p, t, addr4(cx, g), two_x(cx, x, addr4(cx, g)), ET_F32, 0, 1, 0, SA_NONE, NULL, 0 };
	VEC_PUSH(f.pending, w0);
	/* read k: (epoch, seq) and the element of p it reads */
	static const uint32_t rd[][2] = { { 1, 1 }, { 0, 1 }, { 1, 1 }, { 0, 0 }, { 0, 1 } };
	const struct expr *nb = e_op2(cx, EOP_XOR, g, e_bv(cx, 1, 32));
	const struct expr *other = e_op2(cx, EOP_AND, e_op2(cx, EOP_ADD, g, e_bv(cx, 4, 32)), e_bv(cx, 7, 32));
	const struct expr *at[] = { nb, nb, other, g, g };
	uint32_t q[7];
	for (unsigned k = 0; k < 7; k++) {
		uint32_t fresh = value(&f, 0, 32, VD_UNINIT, NO_VALUE);
		q[k] = launch_value(&f, 0, 32, l0, fresh);
		/* 5: an offset past the end of p; 6: a read the record does not have */
		const struct expr *a = k < 5 ? addr4(cx, at[k]) : k == 5 ? e_op2(cx, EOP_ADD, addr4(cx, g), e_bv(cx, 32, 64))
		                                                         : addr4(cx, g);
		uint64_t idx = k < 5 ? k : k == 5 ? 0 : 9;
		const struct expr *ld = e_load(cx, SYM_GREAD_SPACE(l0), ET_F32,
		                               e_op2(cx, EOP_ADD, a, e_bv(cx, SYM_GR_CODE(idx), 64)));
		struct sym_write w = { q[k], t, addr4(cx, g), ld, ET_F32, 1, 2, 0, SA_NONE, NULL, 1 };
		VEC_PUSH(f.pending, w);
	}
	end_launch(&f, l0);
	struct sym_writes *ws = &f.st.writes.items[f.st.writes.len - 1];
	ws->nreads = 5;
	ws->reads = ARENA_NEWN(&f.st.arena, struct sym_gread, 5);
	for (unsigned k = 0; k < 5; k++)
		ws->reads[k] = (struct sym_gread){ p, rd[k][0], rd[k][1], 3, 0 };
	ok(sym_state_finish(&f.st, "test", true), "global reads: the obligation is consistent");

	struct resolver *r = resolver_new(&f.st, NULL);
	struct resolve_info info;
	const struct expr *e = resolve_elem(r, q[0], 4 * 5, ET_F32, &info);
	const struct expr *want = e_op2(cx, EOP_FMUL, e_input(cx, in, 16, ET_F32), e_real(cx, 2.0));
	ok(e == want && info.flags == 0, "after a barrier: thread 5 reads its neighbour's 2 x[4]");
	e = resolve_elem(r, q[1], 4 * 5, ET_F32, &info);
	ok(!e && (info.flags & RI_RACE) && info.race_launch == l0 && info.race_tid[1][0] == 0 &&
	   info.race_ctaid[1][0] == 1, "in the store's epoch: a race with thread 0 of block 1");
	e = resolve_elem(r, q[2], 4 * 1, ET_F32, &info);
	ok(!e && (info.flags & RI_RACE) && info.race_ctaid[0][0] == 0 && info.race_ctaid[1][0] == 1,
	   "another block's element: a race between the blocks");
	e = resolve_elem(r, q[3], 4 * 6, ET_F32, &info);
	ok(e == e_real(cx, 0.0) && info.flags == 0, "before its own store: the zeroed buffer");
	e = resolve_elem(r, q[4], 4 * 6, ET_F32, &info);
	want = e_op2(cx, EOP_FMUL, e_input(cx, in, 24, ET_F32), e_real(cx, 2.0));
	ok(e == want && info.flags == 0, "after its own store: 2 x[6]");
	e = resolve_elem(r, q[5], 4 * 2, ET_F32, &info);
	ok(!e && (info.flags & RI_UNSUPPORTED) && strstr(info.reason, "outside"),
	   "an offset past the end is not trusted: %s", info.reason);
	e = resolve_elem(r, q[6], 4 * 2, ET_F32, &info);
	ok(!e && (info.flags & RI_UNSUPPORTED) && strstr(info.reason, "names read 9"),
	   "a read the record lacks: %s", info.reason);
	resolver_free(r);
	fix_release(&f);
}

/* Division and remainder by a constant whose numerator keeps one quotient
 * over the whole geometry: the address stays affine (resolve-lin.c), as
 * batch norm's i / (H * W), i = tid.x + 512 k, is; one that straddles a
 * multiple of the divisor, or is negative, is not. */
static void test_lin_divrem(void)
{
	struct ectx *cx = ectx_new();
	uint64_t n[6] = { 512, 1, 1, 64, 1, 1 };
	const struct expr *tid = e_tid(cx, 0), *cta = e_ctaid(cx, 0);
	/* ((i / 65536) * 64 + ctaid) * 65536 + i % 65536, i = tid + c, as bytes */
	struct { uint32_t c; bool affine; int64_t q; } cs[] = {
		{ 1047552, true, 15 }, { 1048064, true, 15 }, { 1048100, false, 0 }, { 0, true, 0 },
	};
	for (unsigned k = 0; k < sizeof cs / sizeof cs[0]; k++) {
		const struct expr *i = e_op2(cx, EOP_ADD, tid, e_bv(cx, cs[k].c, 32));
		const struct expr *q = e_op2(cx, EOP_SDIV, i, e_bv(cx, 65536, 32));
		const struct expr *r = e_op2(cx, EOP_SREM, i, e_bv(cx, 65536, 32));
		const struct expr *row = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, q, e_bv(cx, 64, 32)), cta);
		const struct expr *ix = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, row, e_bv(cx, 65536, 32)), r);
		const struct expr *addr = e_op2(cx, EOP_MUL, e_resize(cx, ix, 64, true), e_bv(cx, 4, 64));
		struct lin l;
		bool ok = lin_of_addr(addr, n, &l);
		if (cs[k].affine)
			ok(ok && l.c[0] == 4 && l.c[3] == 4 * 65536 &&
			   l.c0 == 4 * (cs[k].q * 64 * 65536 + (int64_t)cs[k].c - cs[k].q * 65536),
			   "i / 65536 and i %% 65536 with i = tid.x + %u: affine", cs[k].c);
		else
			ok(!ok, "i = tid.x + %u straddles a multiple of 65536: not affine", cs[k].c);
	}
	/* a negative numerator is not taken (signed division truncates) */
	const struct expr *neg = e_op2(cx, EOP_SUB, tid, e_bv(cx, 1000, 32));
	const struct expr *a = e_resize(cx, e_op2(cx, EOP_SDIV, neg, e_bv(cx, 4096, 32)), 64, true);
	struct lin l;
	ok(!lin_of_addr(a, n, &l), "(tid.x - 1000) / 4096: not affine (negative)");
	/* unsigned: the same window rule */
	a = e_resize(cx, e_op2(cx, EOP_UREM, e_op2(cx, EOP_ADD, tid, e_bv(cx, 512, 32)), e_bv(cx, 1024, 32)), 64, false);
	ok(lin_of_addr(a, n, &l) && l.c0 == 512 && l.c[0] == 1, "(tid.x + 512) %% 1024 = tid.x + 512");
	ectx_free(cx);
}

int main(void)
{
	diag_set_prog("test-resolve");
	test_shared_stop();
	test_lin_divrem();
	test_shared_tree();
	test_shared_table();
	test_shared_table_many();
	test_elementwise();
	test_uninit_race_sizes();
	test_inputs_copies();
	test_solver_path();
	test_overhang_2d();
	test_global_reads();
	test_speed();
	return done_testing();
}
