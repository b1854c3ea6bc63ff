/*
 * test-exec.c: dexec's executor on PTX fixtures and snippets: write sets
 * (domains and addresses checked at concrete threads, values by
 * structure), findings, unsupported launches, budgets and speed.
 *
 * dexec's files are in no archive, so they are compiled in here.
 */
#include "dx-harness.h"

#include <time.h>

/* ---- fixtures ------------------------------------------------------------------ */

static void test_vec_add(void)
{
	char *ptx = fixture("vec_add.ptx");
	if (!ok(ptx != NULL, "vec_add fixture"))
		return;
	struct tb t;
	tb_init(&t, ptx, "_Z7vec_addPKfS0_Pfi", 4, 1, 256, 1);
	uint32_t a = tb_ptr(&t, "a", 4000), b = tb_ptr(&t, "b", 4000), c = tb_ptr(&t, "c", 4000);
	tb_u32(&t, "n", 1000);
	struct dx_launch *L = tb_run(&t);
	struct ectx *cx = L->cx;
	ok(!L->unsup, "vec_add: supported");
	is_int(L->findings.len, 0, "vec_add: no finding");
	is_int(L->writes.len, 1, "vec_add: one write");
	is_int(L->nbundles, 2, "vec_add: two bundles (i < n and i >= n)");
	if (L->writes.len == 1) {
		const struct sym_write *w = &L->writes.items[0];
		is_int(w->value, c + 1, "vec_add: writes the vout of c");
		is_int(w->et, ET_F32, "vec_add: f32 store");
		ok(at_true(cx, w->dom, 0, 0, 0, 0), "vec_add: thread 0 writes");
		ok(at_true(cx, w->dom, 231, 0, 3, 0), "vec_add: thread 999 writes");
		ok(!at_true(cx, w->dom, 232, 0, 3, 0), "vec_add: thread 1000 does not");
		is_int(at_bv(cx, w->addr, 5, 0, 2, 0), 4 * (512 + 5), "vec_add: addr of thread 517");
		const struct expr *off = e_op2(cx, EOP_SUB, w->addr, e_bv(cx, 0, 64));
		const struct expr *la = e_load(cx, a, ET_F32, off), *lb = e_load(cx, b, ET_F32, off);
		ok(w->val == e_op2(cx, EOP_FADD, la, lb), "vec_add: val = load a + load b");
		ok(w->line > 0 && w->src_line == 6, "vec_add: lines (ptx %u, cu %u)", w->line, w->src_line);
	}
	tb_free(&t);
	free(ptx);
}

static void test_vec_add_oob(void)
{
	char *ptx = fixture("vec_add.ptx");
	if (!ptx)
		return;
	struct tb t;
	tb_init(&t, ptx, "_Z7vec_addPKfS0_Pfi", 4, 1, 256, 1);
	tb_ptr(&t, "a", 4096);
	tb_ptr(&t, "b", 4096);
	tb_ptr(&t, "c", 4000);               /* one element short of n = 1024 */
	tb_u32(&t, "n", 1024);
	struct dx_launch *L = tb_run(&t);
	ok(!L->unsup, "oob: supported");
	is_int(L->findings.len, 1, "oob: one finding");
	if (L->findings.len) {
		const struct sym_finding *f = &L->findings.items[0];
		is_str(f->cls, "oob-global", "oob: class");
		ok(f->has_thread && f->ctaid[0] == 3 && f->tid[0] >= 232, "oob: witness thread (%u, %u)",
		   f->tid[0], f->ctaid[0]);
		ok(f->off >= 4000 && f->off < 4096, "oob: offset %lld", (long long)f->off);
		ok(strstr(f->message, "writes 4 bytes") && strstr(f->message, "4000-byte buffer (arg 'c')") &&
		   strstr(f->message, "vec_add.cu:6"), "oob: message '%s'", f->message);
	}
	is_int(L->writes.len, 0, "oob: the bad store is skipped");
	tb_free(&t);
	free(ptx);
}

static void test_grid_stride(void)
{
	char *ptx = fixture("grid_stride.ptx");
	if (!ptx)
		return;
	struct tb t;
	tb_init(&t, ptx, "_Z5saxpyifPKfPf", 2, 1, 32, 1);
	tb_u32(&t, "n", 200);
	tb_f32(&t, "alpha", 2.0f);
	uint32_t x = tb_ptr(&t, "x", 800), y = tb_ptr(&t, "y", 800);
	struct dx_launch *L = tb_run(&t);
	struct ectx *cx = L->cx;
	ok(!L->unsup, "saxpy: supported");
	is_int(L->findings.len, 0, "saxpy: no finding");
	/* 200 elements over 64 threads: 4 iterations (the last partial) */
	is_int(L->writes.len, 4, "saxpy: one write per iteration");
	int covered = 0;
	for (uint32_t i = 0; i < 64; i++) {
		for (size_t k = 0; k < L->writes.len; k++) {
			const struct sym_write *w = &L->writes.items[k];
			if (at_true(cx, w->dom, i % 32, 0, i / 32, 0)) {
				int64_t o = at_bv(cx, w->addr, i % 32, 0, i / 32, 0);
				if (o % 256 == 4 * i)
					covered++;
			}
		}
	}
	is_int(covered, 200, "saxpy: every element written once, by the right thread");
	if (L->writes.len) {
		const struct sym_write *w = &L->writes.items[0];
		const struct expr *off = e_op2(cx, EOP_SUB, w->addr, e_bv(cx, 0, 64));
		const struct expr *ax = e_op2(cx, EOP_FMUL, e_real(cx, 2.0), e_load(cx, x, ET_F32, off));
		ok(w->val == e_op2(cx, EOP_FADD, ax, e_load(cx, y, ET_F32, off)),
		   "saxpy: val = 2 * x + y");
		is_int(w->value, y + 1, "saxpy: writes y");
	}
	tb_free(&t);
	free(ptx);
}

static void test_grid2d(void)
{
	char *ptx = fixture("grid2d.ptx");
	if (!ptx)
		return;
	struct tb t;
	tb_init(&t, ptx, "_Z15transpose_scalePKfPfiif", 2, 3, 16, 16);
	tb_ptr(&t, "in", 4 * 40 * 30);
	tb_ptr(&t, "out", 4 * 40 * 30);
	tb_u32(&t, "rows", 40);
	tb_u32(&t, "cols", 30);
	tb_f32(&t, "scale", 0.5f);
	struct dx_launch *L = tb_run(&t);
	struct ectx *cx = L->cx;
	ok(!L->unsup, "transpose: supported");
	is_int(L->findings.len, 0, "transpose: no finding");
	is_int(L->writes.len, 1, "transpose: one write");
	if (L->writes.len) {
		const struct sym_write *w = &L->writes.items[0];
		/* thread (3, 5) of block (1, 2): c = 19, r = 37 */
		ok(at_true(cx, w->dom, 3, 5, 1, 2), "transpose: (c 19, r 37) writes");
		is_int(at_bv(cx, w->addr, 3, 5, 1, 2), 4 * (19 * 40 + 37), "transpose: address");
		ok(!at_true(cx, w->dom, 15, 0, 1, 0), "transpose: c = 31 does not write");
	}
	tb_free(&t);
	free(ptx);
}

static void test_unsupported_fixtures(void)
{
	char *ptx = fixture("reduce.ptx");
	if (ptx) {
		struct tb t;
		tb_init(&t, ptx, "_Z9block_sumPKfPfi", 4, 1, 256, 1);
		tb_ptr(&t, "in", 4096);
		tb_ptr(&t, "out", 16);
		tb_u32(&t, "n", 1024);
		struct dx_launch *L = tb_run(&t);
		ok(!L->unsup && !L->findings.len, "reduce: shared memory and shuffles execute (%s)",
		   L->unsup ? L->uns.what : "");
		tb_free(&t);
		free(ptx);
	}
	ptx = fixture("const_call.ptx");
	if (ptx) {
		struct tb t;
		tb_init(&t, ptx, "_Z9eval_polyPKfPfi6affine", 1, 1, 64, 1);
		tb_ptr(&t, "x", 256);
		tb_ptr(&t, "y", 256);
		tb_u32(&t, "n", 64);
		unsigned char aff[16] = { 0 };
		tb_scalar(&t, "t", aff, 16);
		struct dx_launch *L = tb_run(&t);
		/* the call is inlined (call.c); test-exec-ops.c checks its values */
		ok(!L->unsup && L->writes.len == 1, "const_call: the call is inlined (%s)",
		   L->unsup ? L->uns.what : "supported");
		tb_free(&t);
		free(ptx);
	}
}

static void test_activations(void)
{
	/* expf's idiom is rolled up into exp (rollup.c; test-rollup.c has the rest) */
	char *ptx = fixture("activations.ptx");
	if (!ptx)
		return;
	struct tb t;
	tb_init(&t, ptx, "_Z7sigmoidPKfPfi", 2, 1, 128, 1);
	tb_ptr(&t, "x", 1024);
	tb_ptr(&t, "y", 1024);
	tb_u32(&t, "n", 256);
	struct dx_launch *L = tb_run(&t);
	ok(!L->unsup && L->writes.len == 1, "sigmoid: supported after the rollup (%s)",
	   L->unsup ? L->uns.what : "supported");
	if (!L->unsup && L->writes.len == 1) {
		struct ectx *cx = L->cx;
		const struct expr *x = e_load(cx, 0, ET_F32, L->writes.items[0].addr);
		const struct expr *e = e_op1(cx, EOP_FNEG, SORT_REAL, 0, x);
		e = e_fun(cx, EF_EXP, 1, &e);
		ok(L->writes.items[0].val == e_op2(cx, EOP_FDIV, e_real(cx, 1), e_op2(cx, EOP_FADD, e, e_real(cx, 1))),
		   "sigmoid: 1 / (1 + exp(-x))");
	}
	tb_free(&t);
	free(ptx);
}

/* ---- snippets --------------------------------------------------------------------- */

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"

static struct dx_launch *snippet(struct tb *t, const char *ptx, uint32_t grid, uint32_t block)
{
	tb_init(t, ptx, "k", grid, 1, block, 1);
	tb_ptr(t, "p", 1024);
	tb_ptr(t, "q", 1024);
	return tb_run(t);
}

/* A branch on data is merged (test-exec-branch.c has the rest); a loop
 * whose exit depends on data stays unsupported. */
static void test_data_branch(void)
{
	static const char ptx[] = HEAD
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
		".reg .pred %p<2>; .reg .f32 %f<2>; .reg .b64 %rd<3>;\n"
		"ld.param.u64 %rd1, [p];\n"
		"ld.param.u64 %rd2, [q];\n"
		"ld.global.f32 %f1, [%rd1];\n"
		"setp.gt.f32 %p1, %f1, 0f00000000;\n"
		"@%p1 bra DONE;\n"
		"st.global.f32 [%rd2], %f1;\n"
		"DONE:\nret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 1, 32);
	ok(!L->unsup && L->writes.len == 1, "data branch: merged");
	tb_free(&t);

	static const char loop[] = HEAD
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
		".reg .pred %p<2>; .reg .f32 %f<2>; .reg .b64 %rd<3>;\n"
		"ld.param.u64 %rd1, [p];\n"
		"ld.global.f32 %f1, [%rd1];\n"
		"AGAIN:\n"
		"mul.f32 %f1, %f1, 0f3F000000;\n"
		"setp.gt.f32 %p1, %f1, 0f3F800000;\n"
		"@%p1 bra AGAIN;\n"
		"st.global.f32 [%rd1], %f1;\n"
		"ret;\n}\n";
	L = snippet(&t, loop, 1, 32);
	ok(L->unsup && !strcmp(L->uns.what, "loop exit depends on data"), "data loop: unsupported");
	ok(L->unsup && L->uns.line == 12, "data loop: line %u", L->uns.line);
	tb_free(&t);
}

static void test_bad_instr(void)
{
	static const char ptx[] = HEAD
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
		"bar.red.popc.u32 %r1, 0, %p1;\nret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 1, 32);
	ok(L->unsup && strstr(L->uns.what, "bar.red"), "bar.red: unsupported (%s)", L->unsup ? L->uns.what : "");
	ok(L->unsup && strstr(L->uns.message, "at PTX line 6 is not supported"), "bar.red: message");
	tb_free(&t);
}

static void test_data_predicated_store(void)
{
	static const char ptx[] = HEAD
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
		".reg .pred %p<2>; .reg .f32 %f<3>; .reg .b32 %r<3>; .reg .b64 %rd<6>;\n"
		"ld.param.u64 %rd1, [p];\n"
		"ld.param.u64 %rd2, [q];\n"
		"mov.u32 %r1, %tid.x;\n"
		"mul.wide.u32 %rd3, %r1, 4;\n"
		"add.s64 %rd4, %rd1, %rd3;\n"
		"add.s64 %rd5, %rd2, %rd3;\n"
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.lt.f32 %p1, %f1, 0f3F800000;\n"
		"@%p1 st.global.f32 [%rd5], %f1;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 1, 64);
	struct ectx *cx = L->cx;
	ok(!L->unsup, "data predicate: supported");
	is_int(L->writes.len, 1, "data predicate: one write");
	if (L->writes.len) {
		const struct sym_write *w = &L->writes.items[0];
		const struct expr *off = w->addr;
		const struct expr *f1 = e_load(cx, 0, ET_F32, off);
		const struct expr *p = e_op2(cx, EOP_FLT, f1, e_real(cx, 1.0));
		ok(e_is_true(w->dom), "data predicate: dom is the bundle's");
		ok(w->val == e_ite(cx, p, f1, e_load(cx, 2, ET_F32, off)), "data predicate: val = ite(p, v, old)");
	}
	tb_free(&t);
}

static void test_forwarding(void)
{
	static const char ptx[] = HEAD
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
		".reg .f32 %f<4>; .reg .b32 %r<3>; .reg .b64 %rd<6>;\n"
		"ld.param.u64 %rd1, [p];\n"
		"mov.u32 %r1, %tid.x;\n"
		"mul.wide.u32 %rd3, %r1, 4;\n"
		"add.s64 %rd4, %rd1, %rd3;\n"
		"mov.f32 %f1, 0f40000000;\n"
		"st.global.f32 [%rd4], %f1;\n"
		"ld.global.f32 %f2, [%rd4];\n"
		"ld.global.f32 %f3, [%rd4+256];\n"
		"add.f32 %f2, %f2, %f3;\n"
		"st.global.f32 [%rd4+512], %f2;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 1, 64);
	struct ectx *cx = L->cx;
	ok(!L->unsup, "forwarding: supported");
	is_int(L->writes.len, 2, "forwarding: two writes");
	if (L->writes.len == 2) {
		const struct sym_write *w = &L->writes.items[1];
		/* p[t + 64], which no thread stores to: the buffer before the launch */
		const struct expr *o4 = e_op2(cx, EOP_ADD, L->writes.items[0].addr, e_bv(cx, 256, 64));
		ok(w->val == e_op2(cx, EOP_FADD, e_real(cx, 2.0), e_load(cx, 0, ET_F32, o4)),
		   "forwarding: the load sees the stored 2.0");
		ok(!L->findings.len && !L->gr->reads.len, "forwarding: settled, no read left for dcheck");
		is_int(w->seq, 1, "forwarding: seq");
	}
	tb_free(&t);

	static const char alias[] = HEAD
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
		".reg .f32 %f<4>; .reg .b32 %r<3>; .reg .b64 %rd<6>;\n"
		"ld.param.u64 %rd1, [p];\n"
		"mov.u32 %r1, %tid.x;\n"
		"mul.wide.u32 %rd3, %r1, 4;\n"
		"add.s64 %rd4, %rd1, %rd3;\n"
		"mov.f32 %f1, 0f40000000;\n"
		"st.global.f32 [%rd1], %f1;\n"
		"ld.global.f32 %f2, [%rd4];\n"
		"st.global.f32 [%rd4+512], %f2;\n"
		"ret;\n}\n";
	/* every thread stores p[0], thread t loads p[t]: thread 0 its own
	 * store, in the epoch in which the others store there too */
	L = snippet(&t, alias, 1, 64);
	ok(!L->unsup && L->findings.len == 1 && !strcmp(L->findings.items[0].cls, "global-race") &&
	   L->findings.items[0].tid[0] == 0, "forwarding: p[0] stored by all, loaded by thread 0: a global-race");
	tb_free(&t);
}

static void test_scalar_ops(void)
{
	/* integer and float arithmetic on constants folds to constants */
	static const char ptx[] = HEAD
		".const .align 4 .b8 poly[16] = {0, 0, 128, 63, 0, 0, 0, 191, 0, 0, 128, 62, 0, 0, 0, 64};\n"
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
		".reg .pred %p<3>; .reg .f32 %f<8>; .reg .b32 %r<9>; .reg .b64 %rd<6>;\n"
		"ld.param.u64 %rd1, [p];\n"
		"cvta.to.global.u64 %rd2, %rd1;\n"
		"mov.u32 %r1, 7;\n"
		"shl.b32 %r2, %r1, 3;\n"          /* 56 */
		"cvt.rn.f32.u32 %f1, %r2;\n"
		"st.global.f32 [%rd2], %f1;\n"    /* 56.0 */
		"ld.const.f32 %f2, [poly+4];\n"
		"st.global.f32 [%rd2+4], %f2;\n"  /* -0.5 */
		"mov.f32 %f3, 0fC0200000;\n"      /* -2.5 */
		"cvt.rni.s32.f32 %r3, %f3;\n"
		"st.global.u32 [%rd2+8], %r3;\n"  /* -2 */
		"setp.lt.s32 %p1, %r3, 0;\n"
		"selp.b32 %r4, 11, 22, %p1;\n"
		"st.global.u32 [%rd2+12], %r4;\n" /* 11 */
		"mov.b32 %r5, %f3;\n"
		"st.global.b32 [%rd2+16], %r5;\n" /* real -2.5 */
		"mul.hi.u32 %r6, %r2, -1;\n"      /* 55 */
		"st.global.u32 [%rd2+20], %r6;\n"
		"max.f32 %f4, %f3, %f2;\n"
		"fma.rn.f32 %f5, %f4, %f4, %f2;\n"  /* 0.25 - 0.5 */
		"st.global.f32 [%rd2+24], %f5;\n"
		"cvt.sat.u8.s32 %r7, %r3;\n"
		"st.global.u32 [%rd2+28], %r7;\n" /* 0 */
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 1, 32);
	struct ectx *cx = L->cx;
	ok(!L->unsup, "scalar ops: supported");
	is_int(L->writes.len, 8, "scalar ops: eight writes");
	if (L->writes.len == 8) {
		const struct sym_write *w = L->writes.items;
		ok(w[0].val == e_real(cx, 56.0), "shl + cvt.rn.f32.u32");
		ok(w[1].val == e_real(cx, -0.5), "ld.const folded from the initialiser");
		ok(w[2].val == e_bv(cx, (uint32_t)-2, 32) && w[2].et == ET_U32, "cvt.rni.s32.f32");
		ok(w[3].val == e_bv(cx, 11, 32), "setp.lt.s32 + selp");
		ok(w[4].val == e_real(cx, -2.5) && w[4].et == ET_F32, "st.b32 of a real stays real");
		ok(w[5].val == e_bv(cx, 55, 32), "mul.hi.u32");
		ok(w[6].val == e_real(cx, -0.25), "max + fma");
		ok(w[7].val == e_bv(cx, 0, 32), "cvt.sat.u8.s32");
		is_int(at_bv(cx, w[3].addr, 0, 0, 0, 0), 12, "constant address");
	}
	tb_free(&t);
}

static void test_budget(void)
{
	static const char ptx[] = HEAD
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
		".reg .pred %p<2>; .reg .b32 %r<3>;\n"
		"mov.u32 %r1, 0;\n"
		"LOOP:\nadd.s32 %r1, %r1, 1;\n"
		"setp.lt.u32 %p1, %r1, 1000000;\n"
		"@%p1 bra LOOP;\n"
		"ret;\n}\n";
	struct tb t;
	tb_init(&t, ptx, "k", 1, 1, 32, 1);
	tb_ptr(&t, "p", 16);
	tb_ptr(&t, "q", 16);
	t.opts.budget_steps = 10000;
	struct dx_launch *L = tb_run(&t);
	ok(L->unsup && strstr(L->uns.what, "budget"), "step budget: unsupported");
	tb_free(&t);
}

static void test_speed(void)
{
	char *ptx = fixture("vec_add.ptx");
	if (!ptx)
		return;
	struct tb t;
	tb_init(&t, ptx, "_Z7vec_addPKfS0_Pfi", 65536, 1, 256, 1);
	uint64_t n = 65536ull * 256;
	tb_ptr(&t, "a", 4 * n);
	tb_ptr(&t, "b", 4 * n);
	tb_ptr(&t, "c", 4 * n);
	tb_u32(&t, "n", (uint32_t)n - 3);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct dx_launch *L = tb_run(&t);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("# vec_add 65536 x 256: %.3f s\n", s);
	ok(!L->unsup && L->writes.len == 1 && L->findings.len == 0, "large grid: one write, no finding");
	ok(s < 0.2 || getenv("DIRIGO_SANITIZE"), "large grid: %.3f s (< 0.2 s)", s);
	tb_free(&t);
	free(ptx);
}

int main(void)
{
	diag_set_prog("test-exec");
	test_vec_add();
	test_vec_add_oob();
	test_grid_stride();
	test_grid2d();
	test_unsupported_fixtures();
	test_activations();
	test_data_branch();
	test_bad_instr();
	test_data_predicated_store();
	test_forwarding();
	test_scalar_ops();
	test_budget();
	test_speed();
	return done_testing();
}
