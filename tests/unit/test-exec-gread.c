/*
 * test-exec-gread.c: dexec's loads of global memory that the launch
 * itself stores to (dexec/gread.c).  A thread reading its neighbour's
 * element after a barrier leaves a read for the back-projection; without
 * the barrier that is a global-race, as is a block reading another
 * block's element; after a bar.warp.sync (the neighbour in the warp) or
 * through a volatile load there is no finding, only the read; a buffer
 * the kernel never stores to is read as it was before the launch; a
 * value another thread may have stored, used as an address, is
 * unsupported.  The record's "reads" survive a write and a read.
 *
 * dexec's files are in no archive, so they are compiled in here.
 */
#include "dx-harness.h"

#include <unistd.h>

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"

/* p[t] = q[t]; SYNC; r[t] = p[t ^ 1] (gid = ctaid * 64 + tid for the
 * cross-block form: r[gid] = p[(gid + 64) % 128]). */
static void neighbour_ptx(char *buf, size_t n, const char *sync, const char *ldmod, bool cross)
{
	snprintf(buf, n, HEAD
		".visible .entry k(.param .u64 p, .param .u64 q, .param .u64 r)\n{\n"
		".reg .b32 %%r<8>; .reg .f32 %%f<4>; .reg .b64 %%rd<12>;\n"
		"ld.param.u64 %%rd1, [p];\n"
		"ld.param.u64 %%rd2, [q];\n"
		"ld.param.u64 %%rd3, [r];\n"
		"cvta.to.global.u64 %%rd1, %%rd1;\n"
		"mov.u32 %%r1, %%tid.x;\n"
		"mov.u32 %%r4, %%ctaid.x;\n"
		"mad.lo.s32 %%r1, %%r4, 64, %%r1;\n"
		"mul.wide.u32 %%rd4, %%r1, 4;\n"
		"add.s64 %%rd5, %%rd1, %%rd4;\n"
		"add.s64 %%rd6, %%rd2, %%rd4;\n"
		"add.s64 %%rd7, %%rd3, %%rd4;\n"
		"ld.global.f32 %%f1, [%%rd6];\n"
		"st.global.f32 [%%rd5], %%f1;\n"
		"%s\n"
		"%s\n"
		"mul.wide.u32 %%rd8, %%r2, 4;\n"
		"add.s64 %%rd9, %%rd1, %%rd8;\n"
		"ld.global%s.f32 %%f2, [%%rd9];\n"
		"st.global.f32 [%%rd7], %%f2;\n"
		"ret;\n}\n",
		sync, cross ? "add.u32 %r2, %r1, 64;\nand.b32 %r2, %r2, 127;" : "xor.b32 %r2, %r1, 1;", ldmod);
}

static struct dx_launch *run3(struct tb *t, const char *ptx, uint32_t grid)
{
	tb_init(t, ptx, "k", grid, 1, 64, 1);
	tb_ptr(t, "p", 4096);
	tb_ptr(t, "q", 4096);
	tb_ptr(t, "r", 4096);
	return tb_run(t);
}

static const struct sym_finding *race_of(const struct dx_launch *L)
{
	for (size_t i = 0; i < L->findings.len; i++)
		if (!strcmp(L->findings.items[i].cls, "global-race"))
			return &L->findings.items[i];
	return NULL;
}

/* The write to r (value 5) and the write to p (value 1). */
static const struct sym_write *write_of(const struct dx_launch *L, uint32_t value)
{
	for (size_t i = 0; i < L->writes.len; i++)
		if (L->writes.items[i].value == value)
			return &L->writes.items[i];
	return NULL;
}

static void test_barrier(void)
{
	char ptx[4096];
	struct tb t;
	neighbour_ptx(ptx, sizeof ptx, "bar.sync 0;", "", false);
	struct dx_launch *L = run3(&t, ptx, 1);
	const struct sym_write *wr = write_of(L, 5), *wp = write_of(L, 1);
	ok(!L->unsup && !L->findings.len, "barrier: supported, no finding");
	ok(wr && wr->val->op == EOP_LOAD && SYM_IS_GREAD_SPACE(wr->val->space) &&
	   SYM_GREAD_LAUNCH(wr->val->space) == 0, "barrier: r[t] is a global read of the launch");
	ok(wp && wp->val->op == EOP_LOAD && wp->val->space == 2,
	   "barrier: q, which the kernel never stores to, is read as before the launch");
	uint32_t n;
	const struct sym_gread *rd = dx_greads(L, &n);
	ok(n == 1 && rd[0].value == 1 && rd[0].epoch == 1 && rd[0].seq == 1,
	   "barrier: one read of p's new value, after barrier 1 and one store");
	if (wr && n == 1) {
		uint32_t tid[3] = { 6, 0, 0 }, ctaid[3] = { 0, 0, 0 };
		const struct expr *a = e_at_thread(L->cx, wr->val->args[0], tid, ctaid);
		ok(a->op == EOP_BV && a->u == (SYM_GR_CODE(0) | 28), "barrier: thread 6 reads byte 28 of read 0");
	}

	/* the record: "reads" written and read back */
	char path[] = "/tmp/dirigo-test-gread-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (ok(f != NULL, "record: a temporary file")) {
		struct stream_out *w = stream_out_new(f);
		out_header(w, "symbolic", "test");
		struct sym_writes sw = { .launch = 0, .prog = 0, .kernel = "k",
		                         .writes = L->writes.items, .nwrites = (uint32_t)L->writes.len };
		sw.reads = (struct sym_gread *)dx_greads(L, &sw.nreads);
		sym_write_writes(w, &sw);
		stream_out_free(w);
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
			got = r.nreads == 1 && r.reads[0].value == 1 && r.reads[0].epoch == 1 && r.reads[0].seq == 1 &&
			      r.reads[0].line == rd[0].line && r.reads[0].line > 0;
		}
		ok(got, "record: the read comes back with its value, epoch, seq and line");
		stream_in_close(in);
		unlink(path);
		arena_release(&a);
		ectx_free(cx);
	}
	tb_free(&t);
}

static void test_races(void)
{
	char ptx[4096];
	struct tb t;
	neighbour_ptx(ptx, sizeof ptx, "", "", false);
	struct dx_launch *L = run3(&t, ptx, 1);
	const struct sym_finding *f = race_of(L);
	ok(f && f->has_thread2 && (f->tid[0] ^ f->tid2[0]) == 1 && f->value == 0 &&
	   strstr(f->message, "one barrier epoch"), "no barrier: a global-race between neighbours");
	tb_free(&t);

	neighbour_ptx(ptx, sizeof ptx, "bar.sync 0;", "", true);
	L = run3(&t, ptx, 2);
	f = race_of(L);
	ok(f && f->has_thread2 && f->ctaid[0] != f->ctaid2[0] && strstr(f->message, "grid-wide"),
	   "another block's element after a barrier: a global-race across blocks");
	tb_free(&t);

	/* ordered within the warp, or strong accesses: no finding, the read stays */
	neighbour_ptx(ptx, sizeof ptx, "bar.warp.sync -1;", "", false);
	L = run3(&t, ptx, 1);
	uint32_t n;
	dx_greads(L, &n);
	ok(!L->unsup && !race_of(L) && n == 1, "bar.warp.sync between: no finding, the read left for dcheck");
	tb_free(&t);

	neighbour_ptx(ptx, sizeof ptx, "", ".volatile", false);
	L = run3(&t, ptx, 1);
	dx_greads(L, &n);
	ok(!L->unsup && !race_of(L) && n == 1, "a volatile load: no finding, the read left for dcheck");
	tb_free(&t);
}

/* Every thread stores 7 at p[0], a barrier, then uses p[0] as an index:
 * the thread's own 7, or another thread's store? */
static void test_direct(void)
{
	static const char ptx[] = HEAD
		".visible .entry k(.param .u64 p, .param .u64 q, .param .u64 r)\n{\n"
		".reg .b32 %r<8>; .reg .f32 %f<4>; .reg .b64 %rd<12>;\n"
		"ld.param.u64 %rd1, [p];\n"
		"ld.param.u64 %rd2, [q];\n"
		"ld.param.u64 %rd3, [r];\n"
		"mov.u32 %r1, %tid.x;\n"
		"mov.u32 %r2, 7;\n"
		"st.global.u32 [%rd1], %r2;\n"
		"bar.sync 0;\n"
		"ld.global.u32 %r3, [%rd1];\n"
		"mul.wide.u32 %rd4, %r3, 4;\n"
		"add.s64 %rd5, %rd2, %rd4;\n"
		"ld.global.f32 %f1, [%rd5];\n"
		"mul.wide.u32 %rd6, %r1, 4;\n"
		"add.s64 %rd7, %rd3, %rd6;\n"
		"st.global.f32 [%rd7], %f1;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = run3(&t, ptx, 1);
	ok(L->unsup && strstr(L->uns.message, "another thread"),
	   "a value other threads may store, used as an address: unsupported");
	tb_free(&t);
}

int main(void)
{
	test_barrier();
	test_races();
	test_direct();
	return done_testing();
}
