/*
 * test-exec-atomic.c: dexec's atomics (dexec/atomic.c) on the atomics
 * fixture (tests/fixtures/src/atomics.cu) and on PTX snippets: atom/red
 * become contributions with their operation, a used result and a read of
 * an atomically updated buffer are unsupported, and nvcc's compare-and-
 * swap loop for a float atomicMax/atomicMin is rolled up.  The records of
 * a launch with atomics survive a write and a read.  Plain stores and
 * atomics on one location carry their barrier epochs; the mixes that
 * nothing orders are global-race and shared-race findings.
 *
 * dexec's files are in no archive, so they are compiled in here.
 */
#include "dx-harness.h"

#include <unistd.h>

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"
#define KERNEL ".visible .entry k(.param .u64 p, .param .u64 q)\n{\n" \
               ".reg .pred %p<8>;\n.reg .b32 %r<16>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<8>;\n" \
               ".shared .align 4 .b8 s[512];\n"

static struct dx_launch *kernel(struct tb *t, const char *ptx, const char *name, uint32_t grid,
                                uint32_t block, unsigned nptr)
{
	static const char *const names[] = { "a", "b", "c", "d", "e" };
	tb_init(t, ptx, name, grid, 1, block, 1);
	for (unsigned i = 0; i < nptr; i++)
		tb_ptr(t, names[i], 4096);
	return tb_run(t);
}

static const struct sym_write *only_write(const struct dx_launch *L)
{
	return !L->unsup && L->writes.len == 1 ? &L->writes.items[0] : NULL;
}

static void test_sum(const char *ptx)
{
	struct tb t;
	struct dx_launch *L = kernel(&t, ptx, "atom_sum", 4, 128, 2);
	const struct sym_write *w = only_write(L);
	ok(w != NULL, "atom_sum: supported, one contribution");
	if (w) {
		struct ectx *cx = L->cx;
		ok(w->op == SA_ADD && w->et == ET_F32 && w->cmp == NULL, "atom_sum: an f32 add");
		ok(e_is_true(w->dom), "atom_sum: by every thread");
		is_int(at_bv(cx, w->addr, 5, 0, 3, 0), 12, "atom_sum: thread 5 of block 3 adds into out[3]");
		ok(w->val->op == EOP_LOAD && w->val->space == t.l->args[0].vin, "atom_sum: adds its element of in");
	}
	tb_free(&t);
}

static void test_used(const char *ptx)
{
	struct tb t;
	struct dx_launch *L = kernel(&t, ptx, "atom_used", 2, 32, 3);
	ok(L->unsup && !strcmp(L->uns.what, "atomic result used"), "atom_used: the old value is used: unsupported");
	tb_free(&t);
}

static void test_cas(const char *ptx, const char *name, enum sym_atom_op op)
{
	struct tb t;
	struct dx_launch *L = kernel(&t, ptx, name, 2, 32, 2);
	const struct sym_write *w = only_write(L);
	ok(w != NULL, "%s: the compare-and-swap loop is rolled up", name);
	if (w) {
		ok(w->op == op && w->et == ET_F32, "%s: an f32 %s", name, sym_atom_name(op));
		ok(w->val->op == EOP_LOAD && w->val->space == t.l->args[0].vin, "%s: of the thread's element", name);
	}
	unsigned nop = 0, red = 0, atom = 0;
	for (unsigned i = 0; i < L->fn->ninstrs; i++) {
		nop += !strcmp(L->fn->instrs[i].opcode, DX_OP_NOP);
		red += !strcmp(L->fn->instrs[i].opcode, DX_OP_RED);
		atom += !strcmp(L->fn->instrs[i].opcode, "atom");
	}
	ok(red == 1 && atom == 0 && nop == 7, "%s: one dirigo.red, the loop and the guess gone (%u nops)", name, nop);
	tb_free(&t);
}

static void test_int(const char *ptx)
{
	static const struct { enum sym_atom_op op; enum etype et; } want[] = {
		{ SA_ADD, ET_U32 }, { SA_MIN, ET_S32 }, { SA_MAX, ET_S32 }, { SA_AND, ET_U32 },
		{ SA_OR, ET_U32 }, { SA_XOR, ET_U32 }, { SA_ADD, ET_U32 }, { SA_MAX, ET_U32 },
		{ SA_ADD, ET_U64 }, { SA_ADD, ET_F64 }, { SA_EXCH, ET_U32 }, { SA_INC, ET_U32 },
		{ SA_CAS, ET_U32 },
	};
	struct tb t;
	struct dx_launch *L = kernel(&t, ptx, "atom_int", 2, 32, 5);
	size_t n = sizeof want / sizeof want[0];
	ok(!L->unsup && L->writes.len == n, "atom_int: supported, %zu contributions", n);
	for (size_t i = 0; i < n && i < L->writes.len; i++) {
		const struct sym_write *w = &L->writes.items[i];
		ok(w->op == want[i].op && w->et == want[i].et, "atom_int %zu: %s.%s", i,
		   sym_atom_name(want[i].op), etype_name(want[i].et));
	}
	if (L->writes.len == n) {
		const struct sym_write *c = &L->writes.items[n - 1];
		ok(c->cmp == e_bv(L->cx, 0, 32), "atom_int: cas compares with 0");
		ok(L->writes.items[11].val == e_bv(L->cx, 100, 32), "atom_int: inc bound 100");
	}
	tb_free(&t);
}

static void test_shared(const char *ptx)
{
	struct tb t;
	struct dx_launch *L = kernel(&t, ptx, "atom_shared", 2, 64, 2);
	uint32_t n = 0, natom = 0;
	uint64_t bytes;
	const struct sym_shwrite *sh = dx_shared_writes(L, &n, &bytes);
	bool epoch1 = true;
	for (uint32_t i = 0; i < n; i++) {
		natom += sh[i].op == SA_ADD;
		epoch1 &= sh[i].op == SA_NONE ? sh[i].epoch == 0 : sh[i].epoch == 1;
	}
	ok(!L->unsup && !L->findings.len && L->writes.len == 1, "atom_shared: supported, no finding");
	/* thread 0 and the others are two bundles after the branch of the zeroing store */
	ok(n == 3 && natom == 2 && epoch1, "atom_shared: the zeroing store, then the adds in epoch 1");
	tb_free(&t);
}

/* A launch that reads what it updates atomically. */
static void test_read_target(void)
{
	const char *ptx = HEAD KERNEL
		"ld.param.u64 %rd1, [p];\n"
		"cvta.to.global.u64 %rd2, %rd1;\n"
		"mov.u32 %r1, %tid.x;\n"
		"mul.wide.u32 %rd3, %r1, 4;\n"
		"add.s64 %rd4, %rd2, %rd3;\n"
		"ld.global.f32 %f1, [%rd4];\n"
		"red.global.add.f32 [%rd2], %f1;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = kernel(&t, ptx, "k", 1, 32, 2);
	ok(L->unsup && !strcmp(L->uns.what, "read of an atomic target"),
	   "p[0] += p[tid]: reads the buffer it updates: unsupported");
	tb_free(&t);
}

/* A predicated red: a thread guard narrows the domain, a data guard
 * stays in it; an f16 add is not modelled. */
static void test_guards(void)
{
	const char *ptx = HEAD KERNEL
		"ld.param.u64 %rd1, [p];\n"
		"ld.param.u64 %rd5, [q];\n"
		"cvta.to.global.u64 %rd2, %rd1;\n"
		"cvta.to.global.u64 %rd6, %rd5;\n"
		"mov.u32 %r1, %tid.x;\n"
		"mul.wide.u32 %rd3, %r1, 4;\n"
		"add.s64 %rd4, %rd6, %rd3;\n"
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.lt.u32 %p1, %r1, 8;\n"
		"setp.gt.f32 %p2, %f1, 0f00000000;\n"
		"@%p1 red.global.max.s32 [%rd2], %r1;\n"
		"@%p2 red.global.add.f32 [%rd2+4], %f1;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = kernel(&t, ptx, "k", 1, 32, 2);
	ok(!L->unsup && L->writes.len == 2, "guards: two contributions");
	if (L->writes.len == 2) {
		ok(at_true(L->cx, L->writes.items[0].dom, 7, 0, 0, 0) &&
		   !at_true(L->cx, L->writes.items[0].dom, 8, 0, 0, 0), "guards: tid < 8 narrows the domain");
		ok(e_has_data(L->writes.items[1].dom), "guards: the data guard stays in the domain");
	}
	tb_free(&t);
	const char *half = HEAD KERNEL
		".reg .b16 %h<2>;\n"
		"ld.param.u64 %rd1, [p];\n"
		"cvta.to.global.u64 %rd2, %rd1;\n"
		"mov.b16 %h1, 0x3c00;\n"
		"red.global.add.noftz.f16 [%rd2], %h1;\n"
		"ret;\n}\n";
	L = kernel(&t, half, "k", 1, 32, 2);
	ok(L->unsup, "red.add.f16: unsupported");
	tb_free(&t);
}

/* The writes record of a launch with atomics, written and read back. */
static void test_record(const char *ptx)
{
	struct tb t;
	struct dx_launch *L = kernel(&t, ptx, "atom_shared", 2, 64, 2);
	char path[] = "/tmp/dirigo-test-atomic-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!ok(f != NULL, "record: a temporary file")) {
		tb_free(&t);
		return;
	}
	struct stream_out *w = stream_out_new(f);
	out_header(w, "symbolic", "test");
	struct sym_writes sw = { .launch = 0, .prog = 0, .kernel = "atom_shared",
	                         .writes = L->writes.items, .nwrites = (uint32_t)L->writes.len };
	sw.shared = (struct sym_shwrite *)dx_shared_writes(L, &sw.nshared, &sw.shared_bytes);
	sym_write_writes(w, &sw);
	stream_out_close(w, EXIT_OK);
	fclose(f);
	const char *paths[1] = { path };
	struct stream_in *in = stream_in_open(paths, 1);
	struct record rec;
	struct ectx *cx = ectx_new();
	struct arena a;
	arena_init(&a);
	bool got = false;
	while (stream_in_next(in, &rec) == 1) {
		struct sym_writes r;
		if (strcmp(rec.type, "writes") || !sym_read_writes(&rec, cx, &a, &r))
			continue;
		got = true;
		ok(r.nwrites == 1 && r.natomics == 0 && r.nshared == 1 && r.nshatomics == 2,
		   "record: plain and atomic shared stores apart (%u %u %u %u)", r.nwrites, r.natomics,
		   r.nshared, r.nshatomics);
		if (r.nshatomics == 2)
			ok(r.shatomics[0].op == SA_ADD && r.shatomics[0].epoch == 1 && r.shared[0].op == SA_NONE,
			   "record: the add keeps its operation and epoch");
	}
	ok(got, "record: read back");
	stream_in_close(in);
	unlink(path);
	arena_release(&a);
	ectx_free(cx);
	tb_free(&t);
}

/* Thread 0 of each block (or of block 0 alone, when block0) zeroes
 * p[ctaid] (p[0]), then every thread adds q[tid] there atomically; a
 * barrier between the two when bar. */
static void zero_add_ptx(char *buf, size_t n, bool bar, bool block0)
{
	const char *parts[] = {
		HEAD KERNEL
		"ld.param.u64 %rd1, [p];\n"
		"ld.param.u64 %rd5, [q];\n"
		"cvta.to.global.u64 %rd2, %rd1;\n"
		"cvta.to.global.u64 %rd6, %rd5;\n"
		"mov.u32 %r1, %tid.x;\n"
		"mov.u32 %r2, %ctaid.x;\n",
		block0 ? "mov.u32 %r2, 0;\n" : "",
		"mul.wide.u32 %rd3, %r2, 4;\n"
		"add.s64 %rd4, %rd2, %rd3;\n"
		"setp.ne.s32 %p1, %r1, 0;\n",
		block0 ? "mov.u32 %r4, %ctaid.x;\nsetp.ne.or.s32 %p1, %r4, 0, %p1;\n" : "",
		"@%p1 bra $L1;\n"
		"mov.u32 %r3, 0;\n"
		"st.global.u32 [%rd4], %r3;\n"
		"$L1:\n",
		bar ? "bar.sync 0;\n" : "",
		"mul.wide.u32 %rd7, %r1, 4;\n"
		"add.s64 %rd7, %rd6, %rd7;\n"
		"ld.global.f32 %f1, [%rd7];\n"
		"red.global.add.f32 [%rd4], %f1;\n"
		"ret;\n}\n",
	};
	buf[0] = 0;
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
		strncat(buf, parts[i], n - strlen(buf) - 1);
}

static const struct sym_finding *finding_of(const struct dx_launch *L, const char *cls)
{
	for (size_t i = 0; i < L->findings.len; i++)
		if (!strcmp(L->findings.items[i].cls, cls))
			return &L->findings.items[i];
	return NULL;
}

/* Plain stores and atomics on one location: ordered by a barrier within
 * one block; a race without it, or across blocks. */
static void test_store_then_atomics(void)
{
	char ptx[4096];
	struct tb t;
	zero_add_ptx(ptx, sizeof ptx, true, false);
	struct dx_launch *L = kernel(&t, ptx, "k", 4, 64, 2);
	const struct sym_write *st = NULL;
	unsigned nplain = 0, nadd = 0, epochs_ok = 1;
	for (size_t i = 0; i < L->writes.len; i++) {
		const struct sym_write *w = &L->writes.items[i];
		if (w->op == SA_NONE) {
			st = w;
			nplain++;
			epochs_ok &= w->epoch == 0;
		} else {
			nadd += w->op == SA_ADD;
			epochs_ok &= w->epoch == 1;
		}
	}
	/* the adds come from the two bundles of the store's branch */
	ok(!L->unsup && !L->findings.len && nplain == 1 && nadd == 2,
	   "zero, barrier, add: supported, no finding, a store and the contributions");
	ok(epochs_ok, "zero, barrier, add: the store in epoch 0, the adds in epoch 1");
	ok(st && at_true(L->cx, st->dom, 0, 0, 3, 0) && !at_true(L->cx, st->dom, 1, 0, 3, 0),
	   "zero, barrier, add: thread 0 of each block stores");
	tb_free(&t);

	zero_add_ptx(ptx, sizeof ptx, false, false);
	L = kernel(&t, ptx, "k", 4, 64, 2);
	const struct sym_finding *f = finding_of(L, "global-race");
	ok(!L->unsup && f && L->findings.len == 1, "zero, add without a barrier: one global-race");
	if (f) {
		ok(f->has_thread && f->has_thread2 && !memcmp(f->ctaid, f->ctaid2, sizeof f->ctaid) &&
		   f->tid[0] == 0 && f->tid2[0] != 0, "one epoch: thread 0 and another thread of its block");
		ok(f->has_addr && f->value == t.l->args[0].vin && f->off == 4 * (int64_t)f->ctaid[0],
		   "one epoch: at p[ctaid] of arg 'p'");
		ok(f->line > 0 && strstr(f->message, "one barrier epoch") && strstr(f->message, "atomically"),
		   "one epoch: the message says why: %s", f->message);
	}
	tb_free(&t);

	zero_add_ptx(ptx, sizeof ptx, true, true);
	L = kernel(&t, ptx, "k", 4, 64, 2);
	f = finding_of(L, "global-race");
	ok(!L->unsup && f, "block 0 zeroes p[0] that every block adds to: a global-race despite the barrier");
	if (f) {
		ok(f->tid[0] == 0 && f->ctaid[0] == 0 && f->ctaid2[0] != 0,
		   "across blocks: thread 0 of block 0 and a thread of another block");
		ok(strstr(f->message, "different blocks") != NULL, "across blocks: the message says so");
	}
	tb_free(&t);
}

/* A store under a data-dependent predicate may not happen: beside an
 * atomic of another thread it is no definite race. */
static void test_guarded_store_no_finding(void)
{
	const char *ptx = HEAD KERNEL
		"ld.param.u64 %rd1, [p];\n"
		"ld.param.u64 %rd5, [q];\n"
		"cvta.to.global.u64 %rd2, %rd1;\n"
		"cvta.to.global.u64 %rd6, %rd5;\n"
		"mov.u32 %r1, %tid.x;\n"
		"mul.wide.u32 %rd3, %r1, 4;\n"
		"add.s64 %rd7, %rd6, %rd3;\n"
		"ld.global.f32 %f1, [%rd7];\n"
		"setp.gt.f32 %p2, %f1, 0f00000000;\n"
		"@%p2 st.global.f32 [%rd2], %f1;\n"
		"red.global.add.f32 [%rd2], %f1;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = kernel(&t, ptx, "k", 2, 32, 2);
	/* the predicated store keeps the old contents where it does not
	 * happen: a read of the buffer the atomics update */
	ok(!finding_of(L, "global-race") && L->unsup && !strcmp(L->uns.what, "read of an atomic target"),
	   "a store under a data predicate beside atomics: no race finding (unsupported: it reads the buffer)");
	tb_free(&t);
}

/* A thread's own load is not answered by its plain store across its
 * atomic on the location; two atomics of one epoch do not race, a plain
 * load and an atomic of another thread do. */
static void test_own_load_and_shared(void)
{
	const char *own = HEAD KERNEL
		"ld.param.u64 %rd1, [p];\n"
		"ld.param.u64 %rd5, [q];\n"
		"cvta.to.global.u64 %rd2, %rd1;\n"
		"cvta.to.global.u64 %rd6, %rd5;\n"
		"mov.u32 %r1, %tid.x;\n"
		"mul.wide.u32 %rd3, %r1, 4;\n"
		"add.s64 %rd4, %rd2, %rd3;\n"
		"add.s64 %rd7, %rd6, %rd3;\n"
		"mov.f32 %f1, 0f3F800000;\n"
		"st.global.f32 [%rd4], %f1;\n"
		"red.global.add.f32 [%rd4], %f1;\n"
		"ld.global.f32 %f2, [%rd4];\n"
		"st.global.f32 [%rd7], %f2;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = kernel(&t, own, "k", 1, 32, 2);
	ok(L->unsup && !strcmp(L->uns.what, "read of an atomic target"),
	   "store, atomic, load by one thread: the load is not forwarded from the store");
	tb_free(&t);

	const char *shared = HEAD KERNEL
		"ld.param.u64 %rd1, [p];\n"
		"cvta.to.global.u64 %rd2, %rd1;\n"
		"mov.u32 %r1, %tid.x;\n"
		"mov.u32 %r2, s;\n"
		"mov.f32 %f1, 0f3F800000;\n"
		"setp.eq.u32 %p1, %r1, 0;\n"
		"@%p1 st.shared.f32 [%r2+4], %f1;\n"
		"bar.sync 0;\n"
		"red.shared.add.f32 [%r2], %f1;\n"
		"ld.shared.f32 %f2, [%r2+4];\n"
		"red.shared.add.f32 [%r2+4], %f1;\n"
		"mul.wide.u32 %rd3, %r1, 4;\n"
		"add.s64 %rd4, %rd2, %rd3;\n"
		"st.global.f32 [%rd4], %f2;\n"
		"ret;\n}\n";
	L = kernel(&t, shared, "k", 1, 64, 2);
	const struct sym_finding *f = finding_of(L, "shared-race");
	ok(!L->unsup && f && !finding_of(L, "global-race") && !finding_of(L, "uninit-shared"),
	   "a shared load beside another thread's atomic in one epoch: shared-race");
	bool shared_adds = false;
	uint32_t nsh;
	uint64_t bytes;
	const struct sym_shwrite *sh = dx_shared_writes(L, &nsh, &bytes);
	for (uint32_t i = 0; i < nsh; i++)
		shared_adds |= sh[i].op == SA_ADD && sh[i].epoch == 1;
	ok(shared_adds, "shared: the adds of s[0] and s[1] in epoch 1, no race between them");
	if (f)
		ok(f->off == 4 && strstr(f->message, "atomic at PTX line") && strstr(f->message, "read at PTX line"),
		   "shared-race: at s[1], the atomic and the read named: %s", f->message);
	tb_free(&t);
}

/* The epoch of a global write survives a write and a read of the
 * record; a malformed one is refused. */
static void test_epoch_record(void)
{
	char ptx[4096];
	struct tb t;
	zero_add_ptx(ptx, sizeof ptx, true, false);
	struct dx_launch *L = kernel(&t, ptx, "k", 4, 64, 2);
	char path[] = "/tmp/dirigo-test-atomic-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!ok(f != NULL, "epoch record: a temporary file")) {
		tb_free(&t);
		return;
	}
	struct stream_out *w = stream_out_new(f);
	out_header(w, "symbolic", "test");
	struct sym_writes sw = { .launch = 0, .prog = 0, .kernel = "k",
	                         .writes = L->writes.items, .nwrites = (uint32_t)L->writes.len };
	sym_write_writes(w, &sw);
	/* the same record with a bad epoch */
	out_begin(w, "writes");
	out_ku64(w, "launch", 0);
	out_ku64(w, "prog", 0);
	out_kstr(w, "kernel", "k");
	out_key(w, "exprs");
	out_array_begin(w);
	out_array_begin(w);
	out_str(w, "bool");
	out_str(w, "bool");
	out_bool(w, true);
	out_array_end(w);
	out_array_begin(w);
	out_str(w, "bv");
	out_str(w, "bv64");
	out_u64(w, 0);
	out_array_end(w);
	out_array_end(w);
	out_key(w, "writes");
	out_array_begin(w);
	out_map_begin(w);
	out_ku64(w, "value", 1);
	out_ku64(w, "dom", 0);
	out_ku64(w, "addr", 1);
	out_ku64(w, "val", 1);
	out_kstr(w, "type", "u64");
	out_kstr(w, "epoch", "one");
	out_map_end(w);
	out_array_end(w);
	out_end(w);
	stream_out_free(w);
	fclose(f);
	const char *paths[1] = { path };
	struct stream_in *in = stream_in_open(paths, 1);
	struct record rec;
	struct ectx *cx = ectx_new();
	struct arena a;
	arena_init(&a);
	int n = 0;
	while (stream_in_next(in, &rec) == 1) {
		struct sym_writes r;
		if (strcmp(rec.type, "writes"))
			continue;
		bool good = sym_read_writes(&rec, cx, &a, &r);
		if (n++ == 0)
			ok(good && r.nwrites == 1 && r.natomics == 2 && r.writes[0].epoch == 0 &&
			   r.atomics[0].epoch == 1 && r.atomics[1].epoch == 1,
			   "epoch record: the store's epoch 0 and the adds' epoch 1 read back");
		else
			ok(!good, "epoch record: a string epoch is refused");
	}
	ok(n == 2, "epoch record: both records read");
	stream_in_close(in);
	unlink(path);
	arena_release(&a);
	ectx_free(cx);
	tb_free(&t);
}

int main(void)
{
	char *ptx = fixture("atomics.ptx");
	if (ok(ptx != NULL, "atomics fixture")) {
		test_sum(ptx);
		test_used(ptx);
		test_cas(ptx, "atom_max_cas", SA_MAX);
		test_cas(ptx, "atom_min_cas", SA_MIN);
		test_int(ptx);
		test_shared(ptx);
		test_record(ptx);
	}
	free(ptx);
	test_read_target();
	test_guards();
	test_store_then_atomics();
	test_guarded_store_no_finding();
	test_own_load_and_shared();
	test_epoch_record();
	return done_testing();
}
