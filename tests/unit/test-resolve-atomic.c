/*
 * test-resolve-atomic.c: back-projection through plain stores and atomics
 * on one location (engine/resolve-atomic.c), on write sets built by
 * hand: global memory ordered by the barrier epochs of one block, the
 * races of a mix across blocks or within one epoch, one thread's stores
 * and atomics in program order, the contents before the launch only
 * where no store covers them, atomics of two blocks taken at once
 * whatever their epochs; shared memory read after a history of
 * stores and atomics in several epochs, and an atomic racing with the
 * store of its epoch.
 */
#include "engine/resolve.h"
#include "libcommon/diag.h"
#include "tap.h"

#include <string.h>

struct fix {
	struct ectx *cx;
	struct sym_state st;
	VEC(struct sym_write) writes, atomics;
	VEC(struct sym_shwrite) shared, shatomics;
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
	VEC_FREE(f->writes);
	VEC_FREE(f->atomics);
	VEC_FREE(f->shared);
	VEC_FREE(f->shatomics);
}

static uint32_t value(struct fix *f, uint64_t bytes, enum value_def def, uint32_t prev)
{
	struct obl_value v;
	memset(&v, 0, sizeof v);
	v.value = (uint32_t)f->st.obl.values.len;
	v.buf = prev == NO_VALUE ? v.value : f->st.obl.values.items[prev].buf;
	v.bytes = v.len = bytes;
	v.def = def;
	v.prev = prev;
	VEC_PUSH(f->st.obl.values, v);
	return v.value;
}

/* The input x (f32 elements) as a value; its id in *in. */
static uint32_t input(struct fix *f, uint64_t bytes, uint32_t *in)
{
	struct obl_input i = { .input = (uint32_t)f->st.obl.inputs.len, .bytes = bytes };
	VEC_PUSH(f->st.obl.inputs, i);
	uint32_t v = value(f, bytes, VD_INPUT, NO_VALUE);
	f->st.obl.values.items[v].input = i.input;
	*in = i.input;
	return v;
}

/* Launch 0 (grid x block threads) writing a new version of prev. */
static uint32_t launch(struct fix *f, uint64_t grid, uint64_t block, uint32_t prev)
{
	struct obl_launch l;
	memset(&l, 0, sizeof l);
	l.launch = (uint32_t)f->st.obl.launches.len;
	l.kernel = "k";
	l.grid[0] = grid;
	l.block[0] = block;
	l.grid[1] = l.grid[2] = l.block[1] = l.block[2] = 1;
	VEC_PUSH(f->st.obl.launches, l);
	uint32_t v = value(f, f->st.obl.values.items[prev].bytes, VD_LAUNCH, prev);
	f->st.obl.values.items[v].launch = l.launch;
	return v;
}

static void store(struct fix *f, uint32_t v, const struct expr *dom, const struct expr *addr,
                  const struct expr *val, enum etype et, uint32_t seq, uint32_t epoch, unsigned op)
{
	struct sym_write w = { v, dom, addr, val, et, seq, 1, 0, (uint8_t)op, NULL, epoch };
	if (op == SA_NONE)
		VEC_PUSH(f->writes, w);
	else
		VEC_PUSH(f->atomics, w);
}

static void shstore(struct fix *f, const struct expr *dom, const struct expr *addr, const struct expr *val,
                    enum etype et, uint32_t seq, uint32_t epoch, unsigned op)
{
	struct sym_shwrite w = { dom, addr, val, et, seq, epoch, 0, 1, 0, (uint8_t)op, NULL };
	if (op == SA_NONE)
		VEC_PUSH(f->shared, w);
	else
		VEC_PUSH(f->shatomics, w);
}

static void finish(struct fix *f)
{
	struct sym_writes ws;
	memset(&ws, 0, sizeof ws);
	ws.kernel = "k";
	ws.writes = f->writes.items;
	ws.nwrites = (uint32_t)f->writes.len;
	ws.atomics = f->atomics.items;
	ws.natomics = (uint32_t)f->atomics.len;
	ws.shared = f->shared.items;
	ws.nshared = (uint32_t)f->shared.len;
	ws.shatomics = f->shatomics.items;
	ws.nshatomics = (uint32_t)f->shatomics.len;
	ws.shared_bytes = 64;
	VEC_PUSH(f->st.writes, ws);
}

static const struct expr *eq(struct ectx *cx, const struct expr *a, uint32_t k)
{
	return e_op2(cx, EOP_EQ, a, e_bv(cx, k, 32));
}

static const struct expr *x4(struct ectx *cx, const struct expr *i)
{
	return e_op2(cx, EOP_MUL, e_resize(cx, i, 64, false), e_bv(cx, 4, 64));
}

/* in[ctaid * 4 + tid] as a load of value x. */
static const struct expr *elem(struct ectx *cx, uint32_t x)
{
	const struct expr *i = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), e_bv(cx, 4, 32)), e_tid(cx, 0));
	return e_load(cx, x, ET_F32, x4(cx, i));
}

/* Is e the n-ary sum of input in's row b (in[b*4] .. in[b*4+3]) plus
 * the constant extra (absent when 0), as the resolver builds it? */
static bool is_sum_of_row(const struct expr *e, uint32_t in, uint32_t b, double extra)
{
	if (!e || e->op != EOP_FADD)
		return false;
	unsigned found = 0;
	double konst = 0;
	for (unsigned i = 0; i < e->nargs; i++) {
		const struct expr *a = e->args[i];
		if (a->op == EOP_INPUT && a->space == in && a->off >= 16ull * b && a->off < 16ull * b + 16)
			found++;
		else if (a->op == EOP_REAL)
			konst += a->d;
		else
			return false;
	}
	return found == 4 && konst == extra;
}

static struct resolver *ready(struct fix *f)
{
	finish(f);
	if (!sym_state_finish(&f->st, "test", true))
		return NULL;
	return resolver_new(&f->st, NULL);
}

/* Thread 0 of each block stores 0 (as nvcc does, st.u32 0) to out[b],
 * every thread of the block adds in[b*4 + tid] in epoch ep_add. */
static void test_one_block(void)
{
	for (unsigned ep_add = 0; ep_add < 2; ep_add++) {
		struct fix f;
		fix_init(&f);
		struct ectx *cx = f.cx;
		uint32_t in, x = input(&f, 64, &in);
		uint32_t out = launch(&f, 4, 4, value(&f, 16, VD_UNINIT, NO_VALUE));
		store(&f, out, eq(cx, e_tid(cx, 0), 0), x4(cx, e_ctaid(cx, 0)), e_bv(cx, 0, 32), ET_U32, 0, 0,
		      SA_NONE);
		store(&f, out, e_bool(cx, true), x4(cx, e_ctaid(cx, 0)), elem(cx, x), ET_F32, 1, ep_add, SA_ADD);
		struct resolver *r = ready(&f);
		struct resolve_info info;
		const struct expr *e = r ? resolve_elem(r, out, 8, ET_F32, &info) : NULL;
		if (ep_add) {
			ok(is_sum_of_row(e, in, 2, 0.0) && info.flags == 0,
			   "zero, barrier, add: out[2] is the sum of row 2, nothing uninitialised read");
		} else {
			ok(!e && (info.flags & RI_RACE) && info.race_tid[0][0] == 0 && info.race_tid[1][0] != 0 &&
			   info.race_ctaid[0][0] == 2 && info.race_ctaid[1][0] == 2 && info.race_off == 8,
			   "zero and add in one epoch: a race between thread 0 and another thread of block 2");
		}
		resolver_free(r);
		fix_release(&f);
	}
}

/* Block 0's thread 0 zeroes out[0]; every block adds into it: nothing
 * orders block 0's store and the other blocks' atomics. */
static void test_across_blocks(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t in, x = input(&f, 64, &in);
	uint32_t out = launch(&f, 4, 4, value(&f, 16, VD_UNINIT, NO_VALUE));
	store(&f, out, e_and(cx, eq(cx, e_tid(cx, 0), 0), eq(cx, e_ctaid(cx, 0), 0)), e_bv(cx, 0, 64),
	      e_real(cx, 0), ET_F32, 0, 0, SA_NONE);
	store(&f, out, e_bool(cx, true), e_bv(cx, 0, 64), elem(cx, x), ET_F32, 1, 1, SA_ADD);
	struct resolver *r = ready(&f);
	struct resolve_info info;
	const struct expr *e = r ? resolve_elem(r, out, 0, ET_F32, &info) : NULL;
	ok(!e && (info.flags & RI_RACE) && info.race_ctaid[0][0] == 0 && info.race_ctaid[1][0] != 0,
	   "a store of block 0 and atomics of every block: a race across blocks");
	resolver_free(r);
	fix_release(&f);
}

/* The history of one location in one block: atomics onto a memset (epoch
 * 0), thread 1 stores 5 (epoch 1), adds again (epoch 2); thread 0 stores
 * 3 and then adds 1 itself in one epoch (program order). */
static void test_history(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t in, x = input(&f, 64, &in);
	uint32_t zero = value(&f, 64, VD_MEMSET, NO_VALUE);
	uint32_t out = launch(&f, 4, 4, zero);
	const struct expr *a0 = x4(cx, e_ctaid(cx, 0));
	store(&f, out, e_bool(cx, true), a0, elem(cx, x), ET_F32, 0, 0, SA_ADD);
	store(&f, out, eq(cx, e_tid(cx, 0), 1), a0, e_real(cx, 5), ET_F32, 1, 1, SA_NONE);
	store(&f, out, e_bool(cx, true), a0, elem(cx, x), ET_F32, 2, 2, SA_ADD);
	/* out[4 + b]: thread 0 of block b alone, a store and an add in one epoch */
	const struct expr *a1 = e_op2(cx, EOP_ADD, a0, e_bv(cx, 16, 64));
	const struct expr *t0 = eq(cx, e_tid(cx, 0), 0);
	store(&f, out, t0, a1, e_real(cx, 3), ET_F32, 3, 2, SA_NONE);
	store(&f, out, t0, a1, e_real(cx, 1), ET_F32, 4, 2, SA_ADD);
	struct resolver *r = ready(&f);
	struct resolve_info info;
	const struct expr *e = r ? resolve_elem(r, out, 4, ET_F32, &info) : NULL;
	ok(is_sum_of_row(e, in, 1, 5.0) && !info.flags,
	   "add, store 5, add: 5 plus the row's sum (the first adds overwritten)");
	e = r ? resolve_elem(r, out, 0, ET_F32, &info) : NULL;
	ok(is_sum_of_row(e, in, 0, 5.0), "block 0 the same");
	e = r ? resolve_elem(r, out, 16 + 4 * 1, ET_F32, &info) : NULL;
	ok(e == e_real(cx, 4) && !info.flags, "one thread: store 3, then add 1: 4");
	resolver_free(r);
	fix_release(&f);
}

/* atomicExch of 1 then, a barrier later, of 2: ordered within a block,
 * a race between two blocks (whose epochs nothing orders). */
static void test_exch_epochs(void)
{
	for (int blocks = 0; blocks < 2; blocks++) {
		struct fix f;
		fix_init(&f);
		struct ectx *cx = f.cx;
		uint32_t out = launch(&f, 2, 2, value(&f, 16, VD_MEMSET, NO_VALUE));
		const struct expr *who = blocks ? e_ctaid(cx, 0) : e_tid(cx, 0);
		const struct expr *once = blocks ? eq(cx, e_tid(cx, 0), 0) : eq(cx, e_ctaid(cx, 0), 0);
		store(&f, out, e_and(cx, once, eq(cx, who, 0)), e_bv(cx, 0, 64), e_real(cx, 1), ET_F32, 0, 0, SA_EXCH);
		store(&f, out, e_and(cx, once, eq(cx, who, 1)), e_bv(cx, 0, 64), e_real(cx, 2), ET_F32, 1, 1, SA_EXCH);
		struct resolver *r = ready(&f);
		struct resolve_info info;
		const struct expr *e = r ? resolve_elem(r, out, 0, ET_F32, &info) : NULL;
		if (blocks)
			ok(!e && (info.flags & RI_RACE), "exch 1, barrier, exch 2 by two blocks: a race");
		else
			ok(e == e_real(cx, 2) && !info.flags, "exch 1, barrier, exch 2 in one block: 2");
		resolver_free(r);
		fix_release(&f);
	}
}

/* Shared memory: s[t] = 0 as u32 (epoch 0), adds (epoch 1), read at
 * epoch 2; a store (epoch 3) and adds (epoch 4), read at epoch 5; an
 * atomic of another thread in the store's epoch races. */
static void test_shared(void)
{
	for (int racy = 0; racy < 2; racy++) {
		struct fix f;
		fix_init(&f);
		struct ectx *cx = f.cx;
		uint32_t in, x = input(&f, 64, &in);
		uint32_t out = launch(&f, 4, 4, value(&f, 32, VD_UNINIT, NO_VALUE));
		const struct expr *t0 = eq(cx, e_tid(cx, 0), 0);
		shstore(&f, t0, e_bv(cx, 0, 64), e_bv(cx, 0, 32), ET_U32, 0, 0, SA_NONE);
		shstore(&f, e_bool(cx, true), e_bv(cx, 0, 64), elem(cx, x), ET_F32, 1, racy ? 0 : 1, SA_ADD);
		shstore(&f, t0, e_bv(cx, 0, 64), e_real(cx, 7), ET_F32, 2, 3, SA_NONE);
		shstore(&f, e_bool(cx, true), e_bv(cx, 0, 64), elem(cx, x), ET_F32, 3, 4, SA_ADD);
		uint32_t sh = SYM_SHARED_SPACE(0);
		/* out[2b] = s[0] at epoch 2, out[2b+1] = s[0] at epoch 5, by thread 0 */
		const struct expr *o = x4(cx, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), e_bv(cx, 2, 32)));
		store(&f, out, t0, o, e_load(cx, sh, ET_F32, e_bv(cx, SYM_SH_CODE(2, 0), 64)), ET_F32, 4, 2, SA_NONE);
		store(&f, out, t0, e_op2(cx, EOP_ADD, o, e_bv(cx, 4, 64)),
		      e_load(cx, sh, ET_F32, e_bv(cx, SYM_SH_CODE(5, 0), 64)), ET_F32, 5, 5, SA_NONE);
		struct resolver *r = ready(&f);
		struct resolve_info info;
		const struct expr *e = r ? resolve_elem(r, out, 8 * 3, ET_F32, &info) : NULL;
		if (!racy) {
			ok(is_sum_of_row(e, in, 3, 0.0) && !info.flags,
			   "shared: zero (as u32), barrier, add, barrier, read: the sum of the row");
			e = r ? resolve_elem(r, out, 8 * 3 + 4, ET_F32, &info) : NULL;
			ok(is_sum_of_row(e, in, 3, 7.0) && !info.flags,
			   "shared: then store 7, barrier, add, barrier, read: 7 plus the sum");
		} else {
			ok(!e && (info.flags & RI_UNSUPPORTED) && strstr(info.reason, "one barrier epoch"),
			   "shared: the adds in the zeroing store's epoch race: %s", info.reason);
			e = r ? resolve_elem(r, out, 8 * 3 + 4, ET_F32, &info) : NULL;
			ok(is_sum_of_row(e, in, 3, 7.0) && !info.flags,
			   "shared: a later store and adds still resolve");
		}
		resolver_free(r);
		fix_release(&f);
	}
}

int main(void)
{
	test_one_block();
	test_across_blocks();
	test_history();
	test_exch_epochs();
	test_shared();
	return done_testing();
}
