/*
 * test-slice.c: slices for replay (engine/resolve-slice.c, slice.h)
 * and the validity maps they run with (vbits.h).
 *
 * Without arguments: plans over obligations and write sets built by hand
 * (a two-launch chain, a launch that writes only part of its output, a
 * store whose address is not affine, a launch without a write set, values
 * out of order), and the map helpers.
 *
 * With --compare FILE... (a symbolic or later stream of real programs):
 * the differential check of exactness.  Every program is run whole once
 * on pseudo-random inputs (the recorded bytes where the trace kept them),
 * then by slice at sampled locations of every output (the first, the
 * last, the middle, the witnesses' and random ones); each sliced value
 * must be the whole run's, bit for bit.  A location whose slice cannot be
 * planned or does not hold (the run stopped reading bytes not computed)
 * is counted as a fallback; with --strict a fallback fails too.
 */
#include "engine/concrete.h"
#include "libcommon/diag.h"
#include "engine/slice.h"
#include "tap.h"
#include "formats/verdict.h"
#include "engine/vbits.h"

#include <stdlib.h>
#include <string.h>

struct fix {
	struct ectx *cx;
	struct sym_state st;
	VEC(struct sym_write) pending;
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
}

static struct obl_value *V(struct fix *f, uint32_t v) { return &f->st.obl.values.items[v]; }

static uint32_t value(struct fix *f, uint64_t bytes, enum value_def def, uint32_t prev)
{
	struct obl_value v;
	memset(&v, 0, sizeof v);
	v.value = (uint32_t)f->st.obl.values.len;
	v.buf = prev == NO_VALUE ? v.value : f->st.obl.values.items[prev].buf;
	v.bytes = bytes;
	v.def = def;
	v.prev = prev;
	v.len = bytes;
	VEC_PUSH(f->st.obl.values, v);
	return v.value;
}

static uint32_t input(struct fix *f, uint64_t bytes)
{
	struct obl_input in = { .input = (uint32_t)f->st.obl.inputs.len, .bytes = bytes };
	VEC_PUSH(f->st.obl.inputs, in);
	uint32_t v = value(f, bytes, VD_INPUT, NO_VALUE);
	V(f, v)->input = in.input;
	return v;
}

/* A 1-D launch over grid x block threads (pointer arguments: arg). */
static uint32_t launch(struct fix *f, uint64_t grid, uint64_t block)
{
	struct obl_launch l;
	memset(&l, 0, sizeof l);
	l.launch = (uint32_t)f->st.obl.launches.len;
	l.kernel = "k";
	l.grid[0] = grid;
	l.block[0] = block;
	l.grid[1] = l.grid[2] = l.block[1] = l.block[2] = 1;
	l.args = ARENA_NEWN(&f->st.obl.arena, struct obl_arg, 8);
	VEC_PUSH(f->st.obl.launches, l);
	return l.launch;
}

/* A pointer argument of launch l to value vin, which the launch turns
 * into its version vout. */
static void arg(struct fix *f, uint32_t l, uint32_t vin, uint32_t vout)
{
	struct obl_launch *ln = &f->st.obl.launches.items[l];
	ln->args[ln->nargs++] = (struct obl_arg){ "p", 8, NULL, true, vin, vout, 0 };
}

/* Value vin handed to launch l unchanged (read only). */
static uint32_t read_arg(struct fix *f, uint32_t l, uint32_t vin);

static uint32_t launch_value(struct fix *f, uint64_t bytes, uint32_t l, uint32_t prev)
{
	uint32_t v = value(f, bytes, VD_LAUNCH, prev);
	V(f, v)->launch = l;
	return v;
}

static void write(struct fix *f, uint32_t v, const struct expr *dom, const struct expr *addr,
                  const struct expr *val)
{
	struct sym_write w = { v, dom, addr, val, ET_F32, 0, 1, 0, SA_NONE, NULL, 0 };
	VEC_PUSH(f->pending, w);
}

static void end_launch(struct fix *f, uint32_t l)
{
	struct sym_writes ws;
	memset(&ws, 0, sizeof ws);
	ws.launch = l;
	ws.kernel = "k";
	ws.nwrites = (uint32_t)f->pending.len;
	ws.writes = arena_memdup(&f->st.arena, f->pending.items, f->pending.len * sizeof *f->pending.items + 1);
	VEC_PUSH(f->st.writes, ws);
	f->pending.len = 0;
}

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

static uint32_t read_arg(struct fix *f, uint32_t l, uint32_t vin)
{
	uint32_t v = launch_value(f, V(f, vin)->bytes, l, vin);
	arg(f, l, vin, v);
	return v;
}

static bool has(const struct slice_need *n, uint64_t lo, uint64_t hi)
{
	for (uint32_t i = 0; i < n->n; i++)
		if (n->r[i].lo <= lo && hi <= n->r[i].hi)
			return true;
	return false;
}

static uint64_t total(const struct slice_need *n)
{
	uint64_t t = 0;
	for (uint32_t i = 0; i < n->n; i++)
		t += n->r[i].hi - n->r[i].lo;
	return t;
}

/* x (input) -> y = 2x for i < 512 over a memset -> z = y[i] + x[i+1] for every i */
static void test_chain(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t x = input(&f, 4096);
	uint32_t buf = value(&f, 4096, VD_MEMSET, NO_VALUE);
	uint32_t l0 = launch(&f, 4, 256);
	uint32_t y = launch_value(&f, 4096, l0, buf);
	arg(&f, l0, buf, y);
	uint32_t x1 = read_arg(&f, l0, x);
	const struct expr *i = gidx(cx, 256);
	write(&f, y, lt(cx, i, 512), addr4(cx, i),
	      e_op2(cx, EOP_FMUL, e_load(cx, x, ET_F32, addr4(cx, i)), e_real(cx, 2.0)));
	end_launch(&f, l0);
	uint32_t zbuf = value(&f, 4096, VD_UNINIT, NO_VALUE);
	uint32_t l1 = launch(&f, 4, 256);
	uint32_t z = launch_value(&f, 4096, l1, zbuf);
	arg(&f, l1, zbuf, z);
	const struct expr *i1 = e_op2(cx, EOP_ADD, i, e_bv(cx, 1, 32));
	write(&f, z, lt(cx, i, 1023), addr4(cx, i),
	      e_op2(cx, EOP_FADD, e_load(cx, y, ET_F32, addr4(cx, i)), e_load(cx, x1, ET_F32, addr4(cx, i1))));
	end_launch(&f, l1);
	ok(sym_state_finish(&f.st, "test", true), "chain: the obligation is consistent");

	struct replay_slice s;
	char why[256];
	bool okp = slice_plan(&f.st, 0, z, 8, 4, NULL, &s, why, sizeof why);
	if (!ok(okp, "chain: z[2] has a slice"))
		printf("# %s\n", why);
	if (okp) {
		ok(s.launch[l1].mode == SM_PART && s.launch[l1].nblocks == 1 &&
		   s.launch[l1].blocks[0][0] == 0, "z[2]: one block of the second launch, block 0");
		ok(s.launch[l0].mode == SM_PART && s.launch[l0].nblocks == 1 &&
		   s.launch[l0].blocks[0][0] == 0, "z[2]: block 0 of the first launch, through y");
		ok(has(&s.need[y], 0, 1024) && total(&s.need[y]) == 1024, "z[2]: y needed where block 0 reads it");
		ok(has(&s.need[x1], 4, 1028) && has(&s.need[x], 0, 1028),
		   "z[2]: x needed where both launches' block 0 read it (through its version after the first)");
		ok(has(&s.need[buf], 0, 1024), "z[2]: the memset under y is needed too (a guard may fail)");
		ok(total(&s.need[z]) == 4 && has(&s.need[z], 8, 12), "z[2]: of z only the location");
		is_int(s.blocks, 2, "z[2]: 2 blocks run");
		is_int(s.blocks_all, 8, "z[2]: of 8");
		slice_release(&s);
	}
	/* z[700]: y[700] is not written (i < 512): the first launch is not run */
	okp = slice_plan(&f.st, 0, z, 2800, 4, NULL, &s, why, sizeof why);
	if (!ok(okp, "chain: z[700] has a slice"))
		printf("# %s\n", why);
	if (okp) {
		ok(s.launch[l1].mode == SM_PART && s.launch[l1].nblocks == 1 &&
		   s.launch[l1].blocks[0][0] == 2, "z[700]: block 2 of the second launch");
		ok(s.launch[l0].mode == SM_SKIP, "z[700]: no block of the first launch writes what is read");
		ok(has(&s.need[buf], 2048, 3072), "z[700]: what block 2 reads of y is the memset");
		is_int(s.launches, 1, "z[700]: one launch runs");
		slice_release(&s);
	}
	/* z[1023] is written by no thread: nothing runs */
	okp = slice_plan(&f.st, 0, z, 4092, 4, NULL, &s, why, sizeof why);
	ok(okp && s.launch[l1].mode == SM_SKIP && s.launch[l0].mode == SM_SKIP && s.launches == 0 &&
	   has(&s.need[zbuf], 4092, 4096), "z[1023]: no launch runs, the allocation is needed");
	if (okp)
		slice_release(&s);
	/* a limit of inversions: the launch runs whole, and reads x whole */
	struct slice_limits lim = { 0, 1u << 24, 1u << 22, 4096 };
	okp = slice_plan(&f.st, 0, z, 8, 4, &lim, &s, why, sizeof why);
	ok(okp && s.launch[l1].mode == SM_WHOLE && s.launch[l0].mode == SM_WHOLE &&
	   has(&s.need[x], 0, 4096), "no inversions allowed: both launches whole");
	if (okp)
		slice_release(&s);
	fix_release(&f);
}

/* t stores to element t ^ 1 (not affine); a launch without a write set. */
static void test_whole(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t x = input(&f, 256);
	uint32_t ybuf = value(&f, 256, VD_UNINIT, NO_VALUE);
	uint32_t l0 = launch(&f, 1, 64);
	uint32_t y = launch_value(&f, 256, l0, ybuf);
	arg(&f, l0, ybuf, y);
	const struct expr *t = e_tid(cx, 0);
	const struct expr *swz = addr4(cx, e_op2(cx, EOP_XOR, t, e_bv(cx, 1, 32)));
	write(&f, y, e_bool(cx, true), swz, e_load(cx, x, ET_F32, addr4(cx, t)));
	end_launch(&f, l0);
	uint32_t zbuf = value(&f, 256, VD_UNINIT, NO_VALUE);
	uint32_t l1 = launch(&f, 1, 64);
	uint32_t z = launch_value(&f, 256, l1, zbuf);
	arg(&f, l1, zbuf, z);
	read_arg(&f, l1, y);
	ok(sym_state_finish(&f.st, "test", false), "whole: the obligation is consistent");
	struct replay_slice s;
	char why[256];
	bool okp = slice_plan(&f.st, 0, z, 0, 4, NULL, &s, why, sizeof why);
	if (!ok(okp, "whole: a slice"))
		printf("# %s\n", why);
	if (okp) {
		ok(s.launch[l1].mode == SM_WHOLE && has(&s.need[y], 0, 256),
		   "a launch without a write set runs whole and reads its arguments whole");
		ok(s.launch[l0].mode == SM_WHOLE && has(&s.need[x], 0, 256),
		   "a store address that is not affine: the launch runs whole");
		slice_release(&s);
	}
	fix_release(&f);
}

/* A load of a value defined later: no slice. */
static void test_order(void)
{
	struct fix f;
	fix_init(&f);
	struct ectx *cx = f.cx;
	uint32_t ybuf = value(&f, 256, VD_UNINIT, NO_VALUE);
	uint32_t l0 = launch(&f, 1, 64);
	uint32_t y = launch_value(&f, 256, l0, ybuf);
	arg(&f, l0, ybuf, y);
	uint32_t later = input(&f, 256);
	write(&f, y, e_bool(cx, true), addr4(cx, e_tid(cx, 0)), e_load(cx, later, ET_F32, addr4(cx, e_tid(cx, 0))));
	end_launch(&f, l0);
	ok(sym_state_finish(&f.st, "test", true), "order: the obligation is consistent");
	struct replay_slice s;
	char why[256] = "";
	bool okp = slice_plan(&f.st, 0, y, 0, 4, NULL, &s, why, sizeof why);
	ok(!okp && strstr(why, "out of program order"), "a read of a later value: %s", why);
	okp = slice_plan(&f.st, 0, 99, 0, 4, NULL, &s, why, sizeof why);
	ok(!okp && strstr(why, "value 99"), "a location in no value: %s", why);
	fix_release(&f);
}

static void test_vbits(void)
{
	uint8_t *m = vb_new(100);
	vb_set(m, 3, 70);
	ok(!vb_all(m, 2, 4) && vb_all(m, 3, 70) && !vb_all(m, 69, 71), "vb_set sets exactly [3, 70)");
	uint8_t *d = vb_new(100);
	vb_copy(d, 1, m, 3, 67);
	ok(vb_all(d, 1, 68) && !vb_all(d, 0, 1) && !vb_all(d, 68, 69), "vb_copy at another bit offset");
	uint8_t *e = vb_new(100);
	memset(e, 0xff, 13);
	vb_copy(e, 8, d, 8, 64);
	ok(vb_all(e, 0, 68) && !vb_all(e, 68, 69) && vb_all(e, 72, 100), "vb_copy at the same bit offset clears too");
	ok(vb_all(m, 10, 10), "an empty range is all set");
	free(m);
	free(d);
	free(e);
}

/* ---- --compare ------------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void compare(const char *file, int nloc, bool strict)
{
	struct ectx *cx = ectx_new();
	struct sym_state st;
	sym_state_init(&st, cx);
	struct arena a = ARENA_INIT;
	VEC(struct vd_witness) wit = { 0 };
	const char *files[1] = { file };
	struct stream_in *in = stream_in_open(files, 1);
	struct record rec;
	int k;
	while ((k = stream_in_next(in, &rec)) > 0) {
		if (sym_state_take(&st, &rec) < 0) {
			k = -1;
			break;
		}
		struct vd_witness w;
		if (strcmp(rec.type, "witness") == 0 && vd_read_witness(&rec, &a, &w))
			VEC_PUSH(wit, w);
	}
	stream_in_close(in);
	if (!ok(k == 0 && sym_state_finish(&st, file, true), "%s: a symbolic stream", file))
		goto out;
	const struct obligation *ob = &st.obl;
	uint8_t **inputs = ARENA_NEWN(&a, uint8_t *, ob->inputs.len + 1);
	for (size_t i = 0; i < ob->inputs.len; i++) {
		const struct obl_input *x = &ob->inputs.items[i];
		inputs[i] = arena_alloc(&a, x->bytes + 4);
		if (x->data && x->ndata >= x->bytes) {
			memcpy(inputs[i], x->data, x->bytes);
			continue;
		}
		for (uint64_t b = 0; b + 4 <= x->bytes; b += 4) {
			float v = (float)((int64_t)(next() % 4001) - 2000) / 1000.0f;
			memcpy(inputs[i] + b, &v, 4);
		}
	}
	for (uint32_t p = 0; p < 2; p++) {
		struct replay_result whole;
		char err[512];
		if (!replay_program(ob, p, (const void *const *)inputs, NULL, &whole, err, sizeof err)) {
			printf("# %s: program %u does not run whole: %s\n", file, p, err);
			continue;
		}
		for (size_t o = 0; o < ob->outputs.len; o++) {
			const struct obl_output *out = &ob->outputs.items[o];
			unsigned es = out->dtype != ET_NONE ? etype_size(out->dtype) : 4;
			uint64_t count = out->bytes / es;
			if (!count)
				continue;
			VEC(uint64_t) locs = { 0 };
			VEC_PUSH(locs, 0);
			VEC_PUSH(locs, count - 1);
			VEC_PUSH(locs, count / 2);
			for (size_t i = 0; i < wit.len; i++)
				if (wit.items[i].output == o)
					VEC_PUSH(locs, wit.items[i].off / es);
			for (int i = 0; i < nloc; i++)
				VEC_PUSH(locs, next() % count);
			unsigned exact = 0, sliced = 0, fallback = 0, differ = 0;
			for (size_t i = 0; i < locs.len; i++) {
				uint64_t off = locs.items[i] * es;
				struct replay_slice s;
				char why[256];
				if (!slice_plan(&st, p, out->value[p], out->off[p] + off, es, NULL, &s, why, sizeof why)) {
					fallback++;
					printf("# output %zu prog %u byte %llu: no slice: %s\n", o, p,
					       (unsigned long long)off, why);
					continue;
				}
				struct replay_opts ro = { .max_steps = 0, .slice = &s };
				struct replay_result r;
				if (!replay_program(ob, p, (const void *const *)inputs, &ro, &r, err, sizeof err)) {
					fallback++;
					printf("# output %zu prog %u byte %llu: the slice does not run: %s\n", o, p,
					       (unsigned long long)off, err);
					slice_release(&s);
					continue;
				}
				if (!vb_all(r.outs[o].valid, off, off + es)) {
					fallback++;
					printf("# output %zu prog %u byte %llu: the slice did not compute it\n", o, p,
					       (unsigned long long)off);
				} else if (memcmp(r.outs[o].data + off, whole.outs[o].data + off, es) != 0) {
					differ++;
					printf("# output %zu prog %u byte %llu: slice and whole run differ\n", o, p,
					       (unsigned long long)off);
				} else {
					exact++;
					if (s.blocks < s.blocks_all || s.elems < s.elems_all)
						sliced++;
				}
				replay_result_release(&r);
				slice_release(&s);
			}
			ok(!differ && (!strict || !fallback), "%s: output %zu, program %u: %u of %zu locations "
			   "exact (%u ran less than the whole program), %u fell back", file, o, p, exact,
			   locs.len, sliced, fallback);
			VEC_FREE(locs);
		}
		replay_result_release(&whole);
	}
out:
	VEC_FREE(wit);
	sym_state_release(&st);
	ectx_free(cx);
	arena_release(&a);
}

int main(int argc, char **argv)
{
	diag_set_prog("test-slice");
	if (argc > 1) {
		bool strict = false;
		int nloc = 12, i = 1;
		for (; i < argc && argv[i][0] == '-'; i++) {
			if (strcmp(argv[i], "--strict") == 0)
				strict = true;
			else if (strcmp(argv[i], "--locations") == 0 && i + 1 < argc)
				nloc = atoi(argv[++i]);
			else if (strcmp(argv[i], "--compare") != 0) {
				fprintf(stderr, "usage: test-slice [--compare [--strict] [--locations N] FILE...]\n");
				return 2;
			}
		}
		for (; i < argc; i++)
			compare(argv[i], nloc, strict);
		return done_testing();
	}
	test_chain();
	test_whole();
	test_order();
	test_vbits();
	return done_testing();
}
