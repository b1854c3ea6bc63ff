/*
 * test-resolve-enum.c: inverting writes by enumeration tables
 * (engine/resolve-enum.c) on write sets built by hand, with no solver
 * at all: a global store to element t ^ 1, domains, races, stores that
 * overlap a read, a grid too large to enumerate, a write no thread
 * performs; shared tiles stored at sA[i / 16][i % 16] (padded rows) by a
 * block loading two elements per thread, read back in a later epoch; the latest epoch wins, and an
 * older store of another size under it no longer matters.  A table left
 * unfinished at the deadline is not kept.
 */
#include "engine/resolve.h"
#include "libcommon/deadline.h"
#include "libcommon/diag.h"
#include "tap.h"

#include <string.h>
#include <time.h>

struct fix {
	struct ectx *cx;
	struct sym_state st;
	VEC(struct sym_write) pending;
	VEC(struct sym_shwrite) shared;
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
}

static void fix_release(struct fix *f)
{
	sym_state_release(&f->st);
	ectx_free(f->cx);
	VEC_FREE(f->pending);
	VEC_FREE(f->shared);
}

static uint32_t value(struct fix *f, uint64_t bytes, enum value_def def, uint32_t prev)
{
	struct obl_value v;
	memset(&v, 0, sizeof v);
	v.value = (uint32_t)f->st.obl.values.len;
	v.buf = v.value;
	v.bytes = bytes;
	v.def = def;
	v.prev = prev;
	v.len = bytes;
	VEC_PUSH(f->st.obl.values, v);
	return v.value;
}

static uint32_t input_value(struct fix *f, uint64_t bytes)
{
	struct obl_input in = { .input = (uint32_t)f->st.obl.inputs.len, .bytes = bytes };
	VEC_PUSH(f->st.obl.inputs, in);
	uint32_t v = value(f, bytes, VD_INPUT, NO_VALUE);
	f->st.obl.values.items[v].input = in.input;
	return v;
}

static uint32_t launch(struct fix *f, uint64_t grid, uint64_t block, const char *name)
{
	struct obl_launch l;
	memset(&l, 0, sizeof l);
	l.launch = (uint32_t)f->st.obl.launches.len;
	l.kernel = name;
	l.grid[0] = grid;
	l.block[0] = block;
	l.grid[1] = l.grid[2] = l.block[1] = l.block[2] = 1;
	VEC_PUSH(f->st.obl.launches, l);
	return l.launch;
}

static uint32_t launch_value(struct fix *f, uint64_t bytes, uint32_t l)
{
	uint32_t fresh = value(f, bytes, VD_UNINIT, NO_VALUE);
	uint32_t v = value(f, bytes, VD_LAUNCH, fresh);
	f->st.obl.values.items[v].launch = l;
	f->st.obl.values.items[v].buf = fresh;
	return v;
}

static void write(struct fix *f, uint32_t v, const struct expr *dom, const struct expr *addr,
                  const struct expr *val, enum etype et)
{
	struct sym_write w = { v, dom, addr, val, et, (uint32_t)f->pending.len, 1, 0, SA_NONE, NULL, 0 };
	VEC_PUSH(f->pending, w);
}

static void shwrite(struct fix *f, const struct expr *dom, const struct expr *addr,
                    const struct expr *val, enum etype et, uint32_t epoch)
{
	struct sym_shwrite w;
	memset(&w, 0, sizeof w);
	w.dom = dom;
	w.addr = addr;
	w.val = val;
	w.et = et;
	w.seq = (uint32_t)f->shared.len;
	w.epoch = epoch;
	VEC_PUSH(f->shared, w);
}

static void end_launch(struct fix *f, uint32_t l, uint64_t shared_bytes)
{
	struct sym_writes ws;
	memset(&ws, 0, sizeof ws);
	ws.launch = l;
	ws.kernel = f->st.obl.launches.items[l].kernel;
	ws.nwrites = (uint32_t)f->pending.len;
	ws.writes = arena_memdup(&f->st.arena, f->pending.items, f->pending.len * sizeof *f->pending.items + 1);
	ws.shared_bytes = shared_bytes;
	ws.nshared = (uint32_t)f->shared.len;
	ws.shared = f->shared.len ? arena_memdup(&f->st.arena, f->shared.items, f->shared.len * sizeof *f->shared.items)
	                          : NULL;
	VEC_PUSH(f->st.writes, ws);
	f->pending.len = 0;
	f->shared.len = 0;
}

static const struct expr *bv32(struct ectx *cx, uint32_t v) { return e_bv(cx, v, 32); }
static const struct expr *op2(struct ectx *cx, enum eop op, const struct expr *a, const struct expr *b)
{
	return e_op2(cx, op, a, b);
}

static const struct expr *addr4(struct ectx *cx, const struct expr *idx32)
{
	return op2(cx, EOP_MUL, e_resize(cx, idx32, 64, false), e_bv(cx, 4, 64));
}

static const struct expr *tid(struct ectx *cx) { return e_tid(cx, 0); }

/* ---- global stores -------------------------------------------------------------- */

static void test_global(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t x = input_value(&f, 1024);
	uint32_t l = launch(&f, 2, 64, "swap_pairs");
	uint32_t y = launch_value(&f, 1024, l);
	/* thread (t, b) stores x[64b + t] to element (64b + t) ^ 1, for (64b + t) ^ 1 < 100 */
	const struct expr *g = op2(cx, EOP_ADD, op2(cx, EOP_MUL, e_ctaid(cx, 0), bv32(cx, 64)), tid(cx));
	const struct expr *p = op2(cx, EOP_XOR, g, bv32(cx, 1));
	write(&f, y, op2(cx, EOP_ULT, p, bv32(cx, 100)), addr4(cx, p), e_load(cx, x, ET_F32, addr4(cx, g)), ET_F32);
	end_launch(&f, l, 0);
	/* a race: threads 2k and 2k+1 store x[t] to element k */
	uint32_t l2 = launch(&f, 1, 64, "halves");
	uint32_t z = launch_value(&f, 1024, l2);
	write(&f, z, e_bool(cx, true), addr4(cx, op2(cx, EOP_UDIV, tid(cx), bv32(cx, 2))),
	      e_load(cx, x, ET_F32, addr4(cx, tid(cx))), ET_F32);
	end_launch(&f, l2, 0);
	/* an 8-byte store over two 4-byte elements */
	uint32_t l3 = launch(&f, 1, 64, "wide");
	uint32_t w = launch_value(&f, 1024, l3);
	write(&f, w, e_bool(cx, true), op2(cx, EOP_MUL, e_resize(cx, p, 64, false), e_bv(cx, 8, 64)),
	      e_load(cx, x, ET_F64, addr4(cx, tid(cx))), ET_F64);
	end_launch(&f, l3, 0);
	/* non-affine, but a grid of 2^21 threads: too large to enumerate */
	uint32_t l4 = launch(&f, 1u << 13, 256, "big");
	uint32_t b = launch_value(&f, 1024, l4);
	const struct expr *gb = op2(cx, EOP_ADD, op2(cx, EOP_MUL, e_ctaid(cx, 0), bv32(cx, 256)), tid(cx));
	write(&f, b, op2(cx, EOP_ULT, gb, bv32(cx, 256)), addr4(cx, op2(cx, EOP_XOR, gb, bv32(cx, 1))),
	      e_load(cx, x, ET_F32, addr4(cx, gb)), ET_F32);
	end_launch(&f, l4, 0);
	/* non-affine, and no thread's domain holds: an empty table */
	uint32_t l5 = launch(&f, 1, 64, "none");
	uint32_t nv = launch_value(&f, 1024, l5);
	write(&f, nv, op2(cx, EOP_ULT, bv32(cx, 1000), tid(cx)), addr4(cx, op2(cx, EOP_XOR, tid(cx), bv32(cx, 1))),
	      e_load(cx, x, ET_F32, addr4(cx, tid(cx))), ET_F32);
	end_launch(&f, l5, 0);
	ok(sym_state_finish(&f.st, "test", true), "obligation with non-affine global stores is consistent");

	struct resolver *r = resolver_new(&f.st, NULL);       /* no solver */
	struct resolve_info info;
	const struct expr *e = resolve_elem(r, y, 12, ET_F32, &info);
	ok(e == e_input(cx, 0, 8, ET_F32), "y[3] = x[2] without a solver%s%s", e ? "" : ": ", e ? "" : info.reason);
	e = resolve_elem(r, y, 4 * 70, ET_F32, &info);
	ok(e == e_input(cx, 0, 4 * 71, ET_F32), "y[70] = x[71], written by block 1");
	e = resolve_elem(r, y, 4 * 100, ET_F32, &info);
	ok(e && (info.flags & RI_UNINIT), "y[100]: its writer's domain is false: never written");
	e = resolve_elem(r, z, 4 * 5, ET_F32, &info);
	ok(!e && (info.flags & RI_RACE), "z[5]: threads 10 and 11 race");
	e = resolve_elem(r, w, 4 * 6, ET_F32, &info);
	ok(!e && (info.flags & RI_UNSUPPORTED) && strstr(info.reason, "stores 8 bytes"),
	   "w[6]: an 8-byte store covers it: unsupported (%s)", info.reason);
	e = resolve_elem(r, b, 4 * 6, ET_F32, &info);
	ok(!e && (info.flags & RI_UNSUPPORTED) && strstr(info.reason, "not affine"),
	   "a grid of 2^21 threads is not enumerated (%s)", info.reason);
	double t0 = (double)clock() / CLOCKS_PER_SEC;
	bool all = true;
	for (uint32_t k = 0; k < 100 && all; k++) {
		e = resolve_elem(r, y, 4 * k, ET_F32, &info);
		all = e == e_input(cx, 0, 4 * (k ^ 1), ET_F32);
	}
	double dt = (double)clock() / CLOCKS_PER_SEC - t0;
	ok(all && dt < 5, "100 elements from one table in %.1f ms", dt * 1e3);
	e = resolve_elem(r, nv, 4 * 3, ET_F32, &info);
	ok(e && (info.flags & RI_UNINIT), "a write no thread performs: an empty table, never written");
	resolver_free(r);

	/* the deadline passes while the table of y's write is being made:
	 * no answer, and nothing half made is kept for later */
	r = resolver_new(&f.st, NULL);
	resolver_set_deadline(r, deadline_in(0) - 1);
	e = resolve_elem(r, y, 4 * 40, ET_F32, &info);
	ok(!e && (info.flags & RI_TIMEOUT), "past the deadline: a timeout for y[40] (%s)", e ? "a value" : info.doing);
	resolver_set_deadline(r, DEADLINE_NONE);
	e = resolve_elem(r, y, 4 * 40, ET_F32, &info);
	ok(e == e_input(cx, 0, 4 * 41, ET_F32), "then, with time, y[40] = x[41]%s%s", e ? "" : ": ",
	   e ? "" : info.reason);
	resolver_free(r);
	fix_release(&f);
}

/* ---- shared tiles --------------------------------------------------------------- */

/* Element i of a 16 x 16 tile at row i / 16, column i % 16 of rows padded
 * to 17 floats. */
static const struct expr *tile_addr(struct ectx *cx, const struct expr *i)
{
	const struct expr *row = op2(cx, EOP_UDIV, i, bv32(cx, 16)), *col = op2(cx, EOP_UREM, i, bv32(cx, 16));
	return addr4(cx, op2(cx, EOP_ADD, op2(cx, EOP_MUL, row, bv32(cx, 17)), col));
}

static void test_shared(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t x = input_value(&f, 4 * 512);
	uint32_t l = launch(&f, 2, 128, "tiles");
	uint32_t y = launch_value(&f, 4 * 256, l);
	const struct expr *blk = op2(cx, EOP_MUL, e_ctaid(cx, 0), bv32(cx, 256));
	/* epoch 0: element i = t + 128k of the tile gets x[256b + i], k = 0, 1;
	 * and an 8-byte store at the tile's start, by thread 0 */
	shwrite(&f, op2(cx, EOP_EQ, tid(cx), bv32(cx, 0)), e_bv(cx, 0, 64),
	        e_load(cx, x, ET_F64, e_bv(cx, 0, 64)), ET_F64, 0);
	for (uint32_t k = 0; k < 2; k++) {
		const struct expr *i = op2(cx, EOP_ADD, tid(cx), bv32(cx, 128 * k));
		shwrite(&f, e_bool(cx, true), tile_addr(cx, i),
		        e_load(cx, x, ET_F32, addr4(cx, op2(cx, EOP_ADD, blk, i))), ET_F32, 0);
	}
	/* epoch 1: threads 0..7 overwrite elements 0..7 with 2 x[...] */
	const struct expr *i0 = tid(cx);
	shwrite(&f, op2(cx, EOP_ULT, tid(cx), bv32(cx, 8)), tile_addr(cx, i0),
	        e_op2(cx, EOP_FMUL, e_load(cx, x, ET_F32, addr4(cx, op2(cx, EOP_ADD, blk, i0))), e_real(cx, 2)),
	        ET_F32, 1);
	/* and, in block 0, an 8-byte store over elements 8 and 9 */
	shwrite(&f, e_and(cx, op2(cx, EOP_EQ, tid(cx), bv32(cx, 0)), op2(cx, EOP_EQ, e_ctaid(cx, 0), bv32(cx, 0))),
	        e_bv(cx, 32, 64), e_load(cx, x, ET_F64, e_bv(cx, 0, 64)), ET_F64, 1);
	/* epoch 2: thread t reads elements t and t + 128 and stores their sum */
	const struct expr *space_code = e_bv(cx, SYM_SH_CODE(2, 0), 64);
	const struct expr *r0 = e_load(cx, SYM_SHARED_SPACE(l), ET_F32,
	                               op2(cx, EOP_ADD, tile_addr(cx, tid(cx)), space_code));
	const struct expr *r1 = e_load(cx, SYM_SHARED_SPACE(l), ET_F32,
	                               op2(cx, EOP_ADD, tile_addr(cx, op2(cx, EOP_ADD, tid(cx), bv32(cx, 128))),
	                                   space_code));
	const struct expr *g = op2(cx, EOP_ADD, op2(cx, EOP_MUL, e_ctaid(cx, 0), bv32(cx, 128)), tid(cx));
	write(&f, y, e_bool(cx, true), addr4(cx, g), e_op2(cx, EOP_FADD, r0, r1), ET_F32);
	end_launch(&f, l, 4 * 17 * 16);
	ok(sym_state_finish(&f.st, "test", true), "obligation with shared tiles is consistent");

	struct resolver *r = resolver_new(&f.st, NULL);
	struct resolve_info info;
	const struct expr *e = resolve_elem(r, y, 4 * (128 + 20), ET_F32, &info);
	const struct expr *want = e_op2(cx, EOP_FADD, e_input(cx, 0, 4 * (256 + 20), ET_F32),
	                                e_input(cx, 0, 4 * (256 + 148), ET_F32));
	ok(e == want, "block 1, thread 20: x[276] + x[404] from the tile, no solver%s%s", e ? "" : ": ",
	   e ? "" : info.reason);
	e = resolve_elem(r, y, 4 * 1, ET_F32, &info);
	want = e_op2(cx, EOP_FADD, e_op2(cx, EOP_FMUL, e_input(cx, 0, 4, ET_F32), e_real(cx, 2)),
	             e_input(cx, 0, 4 * 129, ET_F32));
	ok(e == want, "thread 1 reads epoch 1's store; epoch 0's 8-byte store under it no longer matters%s%s",
	   e ? "" : ": ", e ? "" : info.reason);
	e = resolve_elem(r, y, 4 * 8, ET_F32, &info);
	ok(!e && (info.flags & RI_UNSUPPORTED) && strstr(info.reason, "stores 8 bytes"),
	   "block 0, thread 8: the latest store over the element is 8 bytes: unsupported (%s)", info.reason);
	e = resolve_elem(r, y, 4 * (128 + 8), ET_F32, &info);
	want = e_op2(cx, EOP_FADD, e_input(cx, 0, 4 * (256 + 8), ET_F32), e_input(cx, 0, 4 * (256 + 136), ET_F32));
	ok(e == want, "block 1, thread 8: no such store in that block");
	double t0 = (double)clock() / CLOCKS_PER_SEC;
	bool all = true;
	for (uint32_t k = 10; k < 256 && all; k++) {
		if (k == 128 + 8 || (k >= 128 && k < 128 + 8))
			continue;
		e = resolve_elem(r, y, 4 * k, ET_F32, &info);
		uint32_t b = k / 128, t = k % 128;
		all = e == e_op2(cx, EOP_FADD, e_input(cx, 0, 4 * (256 * b + t), ET_F32),
		                 e_input(cx, 0, 4 * (256 * b + t + 128), ET_F32));
	}
	double dt = (double)clock() / CLOCKS_PER_SEC - t0;
	ok(all && dt < 10, "every other output of both blocks in %.1f ms", dt * 1e3);
	resolver_free(r);
	fix_release(&f);
}

int main(void)
{
	diag_set_prog("test-resolve-enum");
	test_global();
	test_shared();
	return done_testing();
}
