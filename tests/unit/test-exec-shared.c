/*
 * test-exec-shared.c: dexec's thread model: shared memory and barrier
 * epochs, warp shuffles and votes, and the findings of the paper's Table 1
 * (races, warp-synchronous code, barrier divergence, inactive or missing
 * shuffle lanes, shared out-of-bounds and uninitialised reads), on the
 * running example's fixture and on PTX snippets.
 *
 * dexec's files are in no archive, so they are compiled in here.
 */
#include "dx-harness.h"

#include <time.h>

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"
#define KERNEL ".visible .entry k(.param .u64 p, .param .u64 q)\n{\n" \
               ".reg .pred %p<8>;\n.reg .b32 %r<16>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<8>;\n" \
               ".shared .align 4 .b8 s[512];\n"

static struct dx_launch *snippet(struct tb *t, const char *ptx, uint32_t grid, uint32_t block)
{
	tb_init(t, ptx, "k", grid, 1, block, 1);
	tb_ptr(t, "p", 1024);
	tb_ptr(t, "q", 1024);
	return tb_run(t);
}

static size_t count_class(const struct dx_launch *L, const char *cls)
{
	size_t n = 0;
	for (size_t i = 0; i < L->findings.len; i++)
		n += !strcmp(L->findings.items[i].cls, cls);
	return n;
}

/* Does e mention a shared LOAD leaf? */
static bool has_shared_load(const struct expr *e)
{
	if (e->op == EOP_LOAD && SYM_IS_SHARED_SPACE(e->space))
		return true;
	for (unsigned i = 0; i < e->nargs; i++)
		if (has_shared_load(e->args[i]))
			return true;
	return false;
}

/* ---- the running example ------------------------------------------------------- */

static void test_fused(const char *kernel, bool fixed)
{
	char *ptx = fixture("fused_reduce.ptx");
	if (!ok(ptx != NULL, "fused_reduce fixture"))
		return;
	struct tb t;
	tb_init(&t, ptx, kernel, 32, 2, 128, 1);
	tb_ptr(&t, "M", 2 * 16 * 64 * 32 * 4);
	tb_ptr(&t, "bias", 16 * 4);
	tb_ptr(&t, "out", 2 * 16 * 32 * 4);
	tb_u32(&t, "C", 16);
	tb_u32(&t, "H", 64);
	tb_u32(&t, "W", 32);
	struct dx_launch *L = tb_run(&t);
	ok(!L->unsup && !L->findings.len, "%s: executes without findings", kernel);
	uint32_t n;
	uint64_t bytes;
	const struct sym_shwrite *w = dx_shared_writes(L, &n, &bytes);
	ok(bytes == 1024, "%s: 1024 bytes of shared memory (%llu)", kernel, (unsigned long long)bytes);
	uint32_t maxep = 0;
	for (uint32_t i = 0; i < n; i++)
		maxep = w[i].epoch > maxep ? w[i].epoch : maxep;
	ok(maxep == (fixed ? 2u : 1u), "%s: shared writes in epochs 0..%u", kernel, maxep);
	ok(L->writes.len == 16 && has_shared_load(L->writes.items[0].val),
	   "%s: 16 global writes whose values read shared memory", kernel);
	ok(L->nbundles <= 6, "%s: %u bundles", kernel, L->nbundles);
	tb_free(&t);
	free(ptx);
}

static void test_fused_speed(void)
{
	char *ptx = fixture("fused_reduce.ptx");
	if (!ptx)
		return;
	struct tb t;
	tb_init(&t, ptx, "fused_ok", 128, 64, 256, 1);
	tb_ptr(&t, "M", 64ull * 16 * 256 * 128 * 4);
	tb_ptr(&t, "bias", 16 * 4);
	tb_ptr(&t, "out", 64ull * 16 * 128 * 4);
	tb_u32(&t, "C", 16);
	tb_u32(&t, "H", 256);
	tb_u32(&t, "W", 128);
	clock_t c0 = clock();
	struct dx_launch *L = tb_run(&t);
	double s = (double)(clock() - c0) / CLOCKS_PER_SEC;
	printf("# fused_ok 128x64 blocks of 256 (2097152 threads): %.3f s, %u bundles\n", s, L->nbundles);
	ok(!L->unsup && !L->findings.len && s < 5, "fused_ok on 2097152 threads: %.3f s", s);
	tb_free(&t);
	free(ptx);
}

/* ---- snippets ---------------------------------------------------------------------- */

static void test_race(void)
{
	static const char ptx[] = HEAD KERNEL
		"mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nmov.u32 %r3, s;\nadd.s32 %r4, %r3, %r2;\n"
		"st.shared.u32 [%r4], %r1;\n"
		"ld.shared.u32 %r5, [%r4+4];\n"          /* the next thread's element, same epoch */
		"bar.sync 0;\nret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 2, 64);
	ok(count_class(L, "shared-race") == 1, "race: cross-warp read of a neighbour's write");
	ok(count_class(L, "warp-sync") == 1, "race: same-warp read without __syncwarp");
	const struct sym_finding *f = NULL;
	for (size_t i = 0; i < L->findings.len; i++)
		if (!strcmp(L->findings.items[i].cls, "shared-race"))
			f = &L->findings.items[i];
	ok(f && f->has_thread && f->has_thread2 && f->tid[0] != f->tid2[0], "race: a witness pair");
	tb_free(&t);
}

/* Epochs of a loop that repeat an earlier one's accesses are not checked
 * again (race.c): trips 0 to 2 each store and read their own element,
 * trip 3 reads its neighbour's instead, as many accesses as before but
 * one offset differs, and that epoch is still checked. */
static void test_race_last_trip(void)
{
	static const char ptx[] = HEAD KERNEL
		"mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nmov.u32 %r3, s;\nadd.s32 %r4, %r3, %r2;\n"
		"mov.u32 %r10, 0;\n"
		"$L_loop:\n"
		"st.shared.u32 [%r4], %r1;\n"
		"setp.eq.u32 %p1, %r10, 3;\nselp.b32 %r11, 4, 0, %p1;\nadd.s32 %r12, %r4, %r11;\n"
		"ld.shared.u32 %r5, [%r12];\n"
		"bar.sync 0;\n"
		"add.s32 %r10, %r10, 1;\nsetp.lt.u32 %p2, %r10, 4;\n@%p2 bra $L_loop;\nret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 2, 64);
	ok(!L->unsup && count_class(L, "shared-race") == 1, "race in the last trip of a loop whose epochs repeat");
	tb_free(&t);
}

static void test_no_race(void)
{
	static const char ptx[] = HEAD KERNEL
		"mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nmov.u32 %r3, s;\nadd.s32 %r4, %r3, %r2;\n"
		"st.shared.u32 [%r4], %r1;\n"
		"ld.shared.u32 %r5, [%r4];\n"            /* its own write: forwarded */
		"bar.sync 0;\n"
		"xor.b32 %r7, %r1, 1;\nshl.b32 %r8, %r7, 2;\nadd.s32 %r9, %r3, %r8;\n"
		"ld.shared.u32 %r6, [%r9];\n"            /* a warp neighbour's, after the barrier */
		"bar.warp.sync -1;\n"
		"st.shared.u32 [%r4], %r6;\n"
		"ld.param.u64 %rd1, [q];\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
		"st.global.u32 [%rd3], %r5;\nret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 2, 64);
	ok(!L->unsup && !L->findings.len, "no race: own write, barrier, warp barrier");
	ok(L->writes.len == 1 && L->writes.items[0].val == e_tid(L->cx, 0), "no race: own write forwarded");
	tb_free(&t);
}

static void test_divergence(void)
{
	static const char ptx[] = HEAD KERNEL
		"mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 32;\n@%p1 bra L1;\nret;\n"
		"L1:\nbar.sync 0;\nret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 1, 64);
	ok(!L->findings.len && !L->unsup,
	   "no divergence: threads that exit before their first barrier count as arrived");
	tb_free(&t);
	static const char after_ptx[] = HEAD KERNEL
		"mov.u32 %r1, %tid.x;\nbar.sync 0;\nsetp.lt.u32 %p1, %r1, 32;\n@%p1 bra L1;\nret;\n"
		"L1:\nbar.sync 0;\nret;\n}\n";
	L = snippet(&t, after_ptx, 1, 64);
	ok(count_class(L, "barrier-divergence") == 1,
	   "divergence: half the block exits after a barrier, the rest waits at the next");
	tb_free(&t);
	static const char ok_ptx[] = HEAD KERNEL
		"mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 32;\n@%p1 bra L1;\nbar.sync 0;\nret;\n"
		"L1:\nbar.sync 0;\nret;\n}\n";
	L = snippet(&t, ok_ptx, 1, 32);
	ok(!L->findings.len && !L->unsup, "divergence: none when the block is whole");
	tb_free(&t);
}

static void test_oob_uninit(void)
{
	static const char ptx[] = HEAD KERNEL
		"mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 3;\nmov.u32 %r3, s;\nadd.s32 %r4, %r3, %r2;\n"
		"st.shared.u32 [%r4], %r1;\nret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 1, 128);
	ok(count_class(L, "oob-shared") == 1, "oob-shared: 8*tid past 512 bytes");
	tb_free(&t);
	static const char un[] = HEAD KERNEL
		"mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nmov.u32 %r3, s;\nadd.s32 %r4, %r3, %r2;\n"
		"st.shared.u32 [%r4], %r1;\nbar.sync 0;\nld.shared.u32 %r5, [%r4+256];\n"
		"ld.param.u64 %rd1, [q];\nst.global.u32 [%rd1], %r5;\nret;\n}\n";
	L = snippet(&t, un, 1, 64);
	ok(count_class(L, "uninit-shared") == 1, "uninit-shared: the upper half is never written");
	tb_free(&t);
}

static void test_shfl(void)
{
	static const char ptx[] = HEAD KERNEL
		"mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 16;\n@%p1 bra L1;\nmov.u32 %r2, 100;\nbra L2;\n"
		"L1:\nmov.u32 %r2, %r1;\nL2:\n"
		"shfl.sync.down.b32 %r3|%p2, %r2, 8, 31, -1;\n"
		"vote.sync.ballot.b32 %r4, %p2, -1;\n"
		"ld.param.u64 %rd1, [q];\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
		"st.global.u32 [%rd3], %r3;\nst.global.u32 [%rd3+128], %r4;\nret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 1, 32);
	ok(!L->unsup && !L->findings.len && L->writes.len >= 2, "shfl: two bundles of one warp");
	bool good = true;
	for (size_t i = 0; i < L->writes.len; i++) {
		const struct sym_write *w = &L->writes.items[i];
		for (uint32_t x = 0; x < 32; x++) {
			uint32_t tid[3] = { x, 0, 0 }, c[3] = { 0, 0, 0 };
			if (!e_is_true(e_at_thread(L->cx, w->dom, tid, c)))
				continue;
			const struct expr *a = e_at_thread(L->cx, w->addr, tid, c);
			const struct expr *v = e_at_thread(L->cx, w->val, tid, c);
			uint64_t want = a->u < 128 ? (x + 8 < 32 ? (x + 8 < 16 ? x + 8 : 100) : (x < 16 ? x : 100))
			                           : 0x00ffffffu;
			if (a->op != EOP_BV || v->op != EOP_BV || v->u != want) {
				good = false;
				printf("# thread %u addr %llu: %s\n", x, (unsigned long long)a->u,
				       e_print(&L->a, v, 80));
			}
		}
	}
	ok(good, "shfl: partner values across bundles, own value past the clamp; ballot");
	tb_free(&t);
}

static void test_shfl_inactive(void)
{
	static const char ptx[] = HEAD KERNEL
		"mov.u32 %r1, %tid.x;\nsetp.ge.u32 %p1, %r1, 20;\n@%p1 bra L1;\n"
		"shfl.sync.down.b32 %r3|%p2, %r1, 4, 31, -1;\n"
		"ld.param.u64 %rd1, [q];\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
		"st.global.u32 [%rd3], %r3;\nL1:\nret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 1, 32);
	ok(count_class(L, "shfl-inactive") == 1, "shfl-inactive: full mask, lanes 20..31 exited");
	ok(count_class(L, "shfl-undef") == 1, "shfl-undef: lanes 16..19 store what lanes 20..23 never had");
	tb_free(&t);
}

int main(void)
{
	test_fused("fused_bug", false);
	test_fused("fused_ok", true);
	test_fused_speed();
	test_race();
	test_race_last_trip();
	test_no_race();
	test_divergence();
	test_oob_uninit();
	test_shfl();
	test_shfl_inactive();
	return done_testing();
}
