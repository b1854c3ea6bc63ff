/*
 * test-exec-atomic.c: dexec's atomics (dexec/atomic.c) on the atomics
 * fixture (tests/fixtures/src/atomics.cu) and on PTX snippets: atom/red
 * become contributions with their operation, a used result and a read of
 * an atomically updated buffer are unsupported, and nvcc's compare-and-
 * swap loop for a float atomicMax/atomicMin is rolled up.  The records of
 * a launch with atomics survive a write and a read.
 *
 * dexec's files are not in libdirigo.a, so they are compiled in here.
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
	return done_testing();
}
