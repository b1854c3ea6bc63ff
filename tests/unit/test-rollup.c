/*
 * test-rollup.c: the transcendental rollup (dexec/rollup.c, paper 4.1) on
 * the kernels of tests/fixtures/src/transc.cu, compiled with and without
 * --use_fast_math: each launch must be supported and write exactly
 * EF(load x); idioms that are not recognised stay unsupported.
 */
#include "dx-harness.h"

enum { N = 256 };

/* Runs kernel k of fixture file on x (and y) of N floats. */
/* Does a write of the launch hold an opaque value (bit tricks that were
 * not rolled up)? */
static bool any_opaque(const struct dx_launch *L)
{
	for (size_t i = 0; i < L->writes.len; i++)
		if (e_has_opaque(L->writes.items[i].val))
			return true;
	return false;
}

static struct dx_launch *run(struct tb *t, const char *ptx, const char *k, bool two, uint32_t *x,
                             uint32_t *y)
{
	tb_init(t, ptx, k, 2, 1, 128, 1);
	*x = tb_ptr(t, "x", 8 * N);
	if (two)
		*y = tb_ptr(t, "y", 4 * N);
	tb_ptr(t, "out", 4 * N);
	tb_u32(t, "n", N);
	return tb_run(t);
}

typedef const struct expr *(*want_fn)(struct ectx *cx, const struct expr *x, const struct expr *y);

static const struct expr *f1(struct ectx *cx, enum efun f, const struct expr *x)
{
	return e_fun(cx, f, 1, &x);
}

static const struct expr *w_exp(struct ectx *cx, const struct expr *x, const struct expr *y) { (void)y; return f1(cx, EF_EXP, x); }
static const struct expr *w_log(struct ectx *cx, const struct expr *x, const struct expr *y) { (void)y; return f1(cx, EF_LOG, x); }
static const struct expr *w_log1p(struct ectx *cx, const struct expr *x, const struct expr *y) { (void)y; return f1(cx, EF_LOG1P, x); }
static const struct expr *w_tanh(struct ectx *cx, const struct expr *x, const struct expr *y) { (void)y; return f1(cx, EF_TANH, x); }
static const struct expr *w_erf(struct ectx *cx, const struct expr *x, const struct expr *y) { (void)y; return f1(cx, EF_ERF, x); }
static const struct expr *w_sqrt(struct ectx *cx, const struct expr *x, const struct expr *y) { (void)y; return f1(cx, EF_SQRT, x); }
static const struct expr *w_rsqrt(struct ectx *cx, const struct expr *x, const struct expr *y) { (void)y; return f1(cx, EF_RSQRT, x); }
static const struct expr *w_xtanh(struct ectx *cx, const struct expr *x, const struct expr *y)
{
	(void)y;
	return e_op2(cx, EOP_FMUL, x, f1(cx, EF_TANH, x));
}
static const struct expr *w_sigmoid(struct ectx *cx, const struct expr *x, const struct expr *y)
{
	(void)y;
	const struct expr *e = f1(cx, EF_EXP, e_op1(cx, EOP_FNEG, SORT_REAL, 0, x));
	return e_op2(cx, EOP_FDIV, e_real(cx, 1), e_op2(cx, EOP_FADD, e, e_real(cx, 1)));
}
static const struct expr *w_pow(struct ectx *cx, const struct expr *x, const struct expr *y)
{
	return e_fun(cx, EF_POW, 2, (const struct expr *[]){ x, y });
}

static void check(const char *file, const char *k, want_fn want, bool two)
{
	char *ptx = fixture(file);
	if (!ptx)
		return;
	struct tb t;
	uint32_t x = 0, y = 0;
	struct dx_launch *L = run(&t, ptx, k, two, &x, &y);
	struct ectx *cx = L->cx;
	ok(!L->unsup && L->writes.len == 1, "%s %s: supported, one write", file, k);
	if (!L->unsup && L->writes.len == 1) {
		const struct sym_write *w = &L->writes.items[0];
		const struct expr *lx = e_load(cx, x, ET_F32, w->addr), *ly = two ? e_load(cx, y, ET_F32, w->addr) : NULL;
		const struct expr *v = want(cx, lx, ly);
		char *got = e_print(&L->a, w->val, 200), *exp = e_print(&L->a, v, 200);
		ok(w->val == v, "%s %s: value %s (want %s)", file, k, got, exp);
	}
	tb_free(&t);
	free(ptx);
}

static const struct { const char *k; want_fn want; bool two; } kernels[] = {
	{ "_Z5k_expPKfPfi", w_exp, false },
	{ "_Z5k_logPKfPfi", w_log, false },
	{ "_Z7k_log1pPKfPfi", w_log1p, false },
	{ "_Z6k_tanhPKfPfi", w_tanh, false },
	{ "_Z5k_erfPKfPfi", w_erf, false },
	{ "_Z6k_sqrtPKfPfi", w_sqrt, false },
	{ "_Z7k_rsqrtPKfPfi", w_rsqrt, false },
	{ "_Z9k_sigmoidPKfPfi", w_sigmoid, false },
	{ "_Z7k_xtanhPKfPfi", w_xtanh, false },
	{ "_Z6k_fexpPKfPfi", w_exp, false },
	{ "_Z6k_flogPKfPfi", w_log, false },
	{ "_Z7k_ftanhPKfPfi", w_tanh, false },
};

static void test_exp2x(const char *file)
{
	char *ptx = fixture(file);
	if (!ptx)
		return;
	struct tb t;
	uint32_t x = 0, y = 0;
	struct dx_launch *L = run(&t, ptx, "_Z7k_exp2xPKfPfi", false, &x, &y);
	struct ectx *cx = L->cx;
	ok(!L->unsup && L->writes.len == 1, "%s exp2x: supported", file);
	if (!L->unsup && L->writes.len == 1) {
		const struct sym_write *w = &L->writes.items[0];
		const struct expr *a = e_load(cx, x, ET_F32, w->addr);
		const struct expr *b = e_load(cx, x, ET_F32, e_op2(cx, EOP_ADD, w->addr, e_bv(cx, 4 * N, 64)));
		ok(w->val == e_op2(cx, EOP_FADD, f1(cx, EF_EXP, a), f1(cx, EF_EXP, b)),
		   "%s exp2x: two copies sharing constants, exp(x[i]) + exp(x[i+n])", file);
	}
	tb_free(&t);
	free(ptx);
}

static void test_pow(void)
{
	check("transc_fast.ptx", "_Z5k_powPKfS0_Pfi", w_pow, true);
	/* the default powf is laid out across the kernel: not recognised */
	char *ptx = fixture("transc.ptx");
	if (!ptx)
		return;
	struct tb t;
	uint32_t x = 0, y = 0;
	struct dx_launch *L = run(&t, ptx, "_Z5k_powPKfS0_Pfi", true, &x, &y);
	ok(L->unsup && L->writes.len == 0, "transc pow: unsupported, not wrong (%s)", L->unsup ? L->uns.what : "");
	tb_free(&t);
	free(ptx);
}

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"

/* A tampered idiom (one constant changed) is not rolled up. */
static void test_tampered(void)
{
	char *ptx = fixture("transc.ptx");
	if (!ptx)
		return;
	char *p = strstr(ptx, "0f3BBB989D");
	if (ok(p != NULL, "tampered: constant found"))
		memcpy(p, "0f3BBB989E", 10);
	struct tb t;
	uint32_t x = 0, y = 0;
	struct dx_launch *L = run(&t, ptx, "_Z5k_expPKfPfi", false, &x, &y);
	/* not rolled up, so the bits of 2^n are an opaque value: the launch
	 * still runs, its write holds the opaque value and names it */
	ok(!L->unsup && L->writes.len == 1, "tampered expf: supported with an opaque value (%s)",
	   L->unsup ? L->uns.message : "supported");
	if (L->writes.len == 1) {
		const struct expr *o = e_first_opaque(L->writes.items[0].val);
		ok(o && EOPQ_KIND(o->u) == EOPQ_FLOAT, "tampered expf: the float of the bits of 2^n");
		uint32_t i = o ? SYM_OPAQUE_INDEX(EOPQ_TAGOF(o->u)) : 0;
		ok(o && i < L->opaques.len && !strcmp(L->opaques.items[i].what, "bit reinterpretation") &&
		   strstr(L->opaques.items[i].instr, "mov.b32") && L->opaques.items[i].src_line == 10,
		   "tampered expf: its origin names the mov, PTX line %u, transc.cu:%u ('%s')",
		   o && i < L->opaques.len ? L->opaques.items[i].line : 0,
		   o && i < L->opaques.len ? L->opaques.items[i].src_line : 0,
		   o && i < L->opaques.len ? L->opaques.items[i].instr : "");
	}
	tb_free(&t);
	free(ptx);
}

/* An internal value of the idiom read elsewhere blocks the rollup. */
static void test_escape(void)
{
	static const char ptx[] = HEAD
		".visible .entry k(.param .u64 x, .param .u64 out)\n{\n"
		".reg .f32 %f<8>; .reg .b64 %rd<4>;\n"
		"ld.param.u64 %rd1, [x];\n"
		"ld.param.u64 %rd2, [out];\n"
		"ld.global.f32 %f1, [%rd1];\n"
		"mul.f32 %f2, %f1, 0f3FB8AA3B;\n"
		"ex2.approx.f32 %f3, %f2;\n"
		"st.global.f32 [%rd2], %f3;\n"
		"st.global.f32 [%rd2+4], %f2;\n"
		"ret;\n}\n";
	struct tb t;
	tb_init(&t, ptx, "k", 1, 1, 1, 1);
	uint32_t x = tb_ptr(&t, "x", 16);
	tb_ptr(&t, "out", 16);
	struct dx_launch *L = tb_run(&t);
	struct ectx *cx = L->cx;
	ok(!L->unsup && L->writes.len == 2, "escape: supported");
	if (L->writes.len == 2) {
		const struct expr *lx = e_load(cx, x, ET_F32, e_bv(cx, 0, 64));
		const struct expr *m = e_op2(cx, EOP_FMUL, lx, e_real(cx, 1.44269502162933349609375));
		ok(L->writes.items[0].val == f1(cx, EF_EXP2, m), "escape: kept as exp2(x * log2 e)");
	}
	tb_free(&t);
}

/* Infinite constants: max(-inf, x) = x; arithmetic on -inf is unsupported;
 * a store of -inf stores the -inf value. */
static void test_inf(void)
{
	static const char ptx[] = HEAD
		".visible .entry k(.param .u64 x, .param .u64 out)\n{\n"
		".reg .pred %p<3>; .reg .f32 %f<8>; .reg .b64 %rd<4>;\n"
		"ld.param.u64 %rd1, [x];\n"
		"ld.param.u64 %rd2, [out];\n"
		"mov.f32 %f1, 0fFF800000;\n"
		"ld.global.f32 %f2, [%rd1];\n"
		"ld.global.f32 %f3, [%rd1+4];\n"
		"max.f32 %f4, %f1, %f2;\n"
		"max.f32 %f4, %f4, %f3;\n"
		"setp.gt.f32 %p1, %f2, %f1;\n"
		"selp.f32 %f5, %f2, %f3, %p1;\n"
		"min.f32 %f6, %f2, 0f7F800000;\n"
		"st.global.f32 [%rd2], %f4;\n"
		"st.global.f32 [%rd2+4], %f5;\n"
		"st.global.f32 [%rd2+8], %f6;\n"
		"ret;\n}\n";
	struct tb t;
	tb_init(&t, ptx, "k", 1, 1, 1, 1);
	uint32_t x = tb_ptr(&t, "x", 16);
	tb_ptr(&t, "out", 16);
	struct dx_launch *L = tb_run(&t);
	struct ectx *cx = L->cx;
	ok(!L->unsup && L->writes.len == 3, "inf: supported");
	if (L->writes.len == 3) {
		const struct expr *a = e_load(cx, x, ET_F32, e_bv(cx, 0, 64));
		const struct expr *b = e_load(cx, x, ET_F32, e_bv(cx, 4, 64));
		ok(L->writes.items[0].val == e_op2(cx, EOP_FMAX, a, b), "inf: max(max(-inf, a), b) = max(a, b)");
		ok(L->writes.items[1].val == a, "inf: a > -inf is true");
		ok(L->writes.items[2].val == a, "inf: min(a, +inf) = a");
	}
	tb_free(&t);

	static const char bad[] = HEAD
		".visible .entry k(.param .u64 x, .param .u64 out)\n{\n"
		".reg .f32 %f<8>; .reg .b64 %rd<4>;\n"
		"ld.param.u64 %rd2, [out];\n"
		"mov.f32 %f1, 0fFF800000;\n"
		"add.f32 %f2, %f1, 0f3F800000;\n"
		"st.global.f32 [%rd2], %f2;\n"
		"ret;\n}\n";
	tb_init(&t, bad, "k", 1, 1, 1, 1);
	tb_ptr(&t, "x", 16);
	tb_ptr(&t, "out", 16);
	L = tb_run(&t);
	ok(L->unsup && !strcmp(L->uns.what, "non-finite float constant"), "inf: -inf + 1 is unsupported");
	tb_free(&t);

	static const char store[] = HEAD
		".visible .entry k(.param .u64 x, .param .u64 out)\n{\n"
		".reg .f32 %f<8>; .reg .b64 %rd<4>;\n"
		"ld.param.u64 %rd2, [out];\n"
		"mov.f32 %f1, 0fFF800000;\n"
		"st.global.f32 [%rd2], %f1;\n"
		"ret;\n}\n";
	tb_init(&t, store, "k", 1, 1, 1, 1);
	tb_ptr(&t, "x", 16);
	tb_ptr(&t, "out", 16);
	L = tb_run(&t);
	ok(!L->unsup && L->findings.len == 0 && L->writes.len == 1 &&
	   L->writes.items[0].val == e_undef_tag(L->cx, SORT_REAL, E_UNDEF_NINF),
	   "inf: a store of -inf stores the -inf value, for a max to absorb (%s)", L->unsup ? L->uns.what : "");
	tb_free(&t);
}

/* ---- order-free matching ------------------------------------------------------ */

/* Two expf idioms interleaved instruction by instruction, the first one's
 * scale computed after its ex2 (any order that keeps the data flow); in
 * bad, an instruction between them reads a value inside the first. */
#define EXP2 HEAD \
	".visible .entry k(.param .u64 x, .param .u64 out)\n{\n" \
	".reg .f32 %f<4>; .reg .f32 %a<20>; .reg .f32 %b<20>; .reg .f32 %c<4>;\n" \
	".reg .b32 %ra<8>; .reg .b32 %rb<8>; .reg .b64 %rd<4>;\n" \
	"ld.param.u64 %rd1, [x];\n" \
	"ld.param.u64 %rd2, [out];\n" \
	"ld.global.f32 %f1, [%rd1];\n" \
	"ld.global.f32 %f2, [%rd1+4];\n" \
	"fma.rn.f32 %a4, %f1, 0f3BBB989D, 0f3F000000;\n" \
	"fma.rn.f32 %b4, %f2, 0f3BBB989D, 0f3F000000;\n" \
	"cvt.sat.f32.f32 %a5, %a4;\n" \
	"cvt.sat.f32.f32 %b5, %b4;\n" \
	"fma.rm.f32 %a8, %a5, 0f437C0000, 0f4B400001;\n" \
	"fma.rm.f32 %b8, %b5, 0f437C0000, 0f4B400001;\n" \
	"add.f32 %a9, %a8, 0fCB40007F;\n" \
	"add.f32 %b9, %b8, 0fCB40007F;\n" \
	"neg.f32 %a10, %a9;\n" \
	"neg.f32 %b10, %b9;\n" \
	"fma.rn.f32 %a12, %f1, 0f3FB8AA3B, %a10;\n" \
	"fma.rn.f32 %b12, %f2, 0f3FB8AA3B, %b10;\n" \
	"fma.rn.f32 %a14, %f1, 0f32A57060, %a12;\n" \
	"fma.rn.f32 %b14, %f2, 0f32A57060, %b12;\n" \
	"ex2.approx.ftz.f32 %a16, %a14;\n" \
	"mov.b32 %rb6, %b8;\n" \
	"MIDDLE" \
	"mov.b32 %ra6, %a8;\n" \
	"shl.b32 %rb7, %rb6, 23;\n" \
	"shl.b32 %ra7, %ra6, 23;\n" \
	"mov.b32 %b15, %rb7;\n" \
	"mov.b32 %a15, %ra7;\n" \
	"ex2.approx.ftz.f32 %b16, %b14;\n" \
	"mul.f32 %a17, %a16, %a15;\n" \
	"mul.f32 %b17, %b15, %b16;\n" \
	"st.global.f32 [%rd2], %a17;\n" \
	"st.global.f32 [%rd2+4], %b17;\n" \
	"ret;\n}\n"

static char *with_middle(const char *ptx, const char *middle)
{
	const char *m = strstr(ptx, "MIDDLE");
	size_t n = strlen(ptx) + strlen(middle) + 1;
	char *s = xmalloc(n);
	snprintf(s, n, "%.*s%s%s", (int)(m - ptx), ptx, middle, m + 6);
	return s;
}

static void test_interleaved(void)
{
	static const char ptx[] = EXP2;
	char *good = with_middle(ptx, "add.f32 %c1, %f2, %f1;\nst.global.f32 [%rd2+8], %c1;\n");
	struct tb t;
	tb_init(&t, good, "k", 1, 1, 1, 1);
	uint32_t x = tb_ptr(&t, "x", 16);
	tb_ptr(&t, "out", 16);
	struct dx_launch *L = tb_run(&t);
	struct ectx *cx = L->cx;
	ok(!L->unsup && L->writes.len == 3, "interleaved: two expf idioms side by side are rolled up");
	if (L->writes.len == 3) {
		const struct expr *a = e_load(cx, x, ET_F32, e_bv(cx, 0, 64));
		const struct expr *b = e_load(cx, x, ET_F32, e_bv(cx, 4, 64));
		/* the store in the middle comes first */
		ok(L->writes.items[1].val == f1(cx, EF_EXP, a) && L->writes.items[2].val == f1(cx, EF_EXP, b),
		   "interleaved: exp(x[0]), exp(x[1]) (%s, %s)", e_print(&L->a, L->writes.items[1].val, 120),
		   e_print(&L->a, L->writes.items[2].val, 120));
	}
	tb_free(&t);
	free(good);

	/* a value inside the first idiom read in between: not rolled up */
	char *bad = with_middle(ptx, "add.f32 %c1, %a9, %f1;\nst.global.f32 [%rd2+8], %c1;\n");
	tb_init(&t, bad, "k", 1, 1, 1, 1);
	tb_ptr(&t, "x", 16);
	tb_ptr(&t, "out", 16);
	L = tb_run(&t);
	/* its bit tricks are then opaque values (degrade), not exp */
	ok(!L->unsup && any_opaque(L), "interleaved: an escaping value blocks it (%s)",
	   L->unsup ? L->uns.what : "opaque values");
	tb_free(&t);
	free(bad);

	/* the input overwritten in between: not rolled up either */
	bad = with_middle(ptx, "mov.f32 %f1, 0f3F800000;\n");
	tb_init(&t, bad, "k", 1, 1, 1, 1);
	tb_ptr(&t, "x", 16);
	tb_ptr(&t, "out", 16);
	L = tb_run(&t);
	ok(!L->unsup && any_opaque(L), "interleaved: the input written inside blocks it (%s)",
	   L->unsup ? L->uns.what : "opaque values");
	tb_free(&t);
	free(bad);
}

/* Inserts line after the first line containing after, past the text at
 * from; a copy. */
static char *insert_after(const char *ptx, const char *from, const char *after, const char *line)
{
	const char *p = strstr(ptx, from);
	p = p ? strstr(p, after) : NULL;
	p = p ? strchr(p, '\n') : NULL;
	if (!p)
		return NULL;
	size_t n = strlen(ptx) + strlen(line) + 2;
	char *s = xmalloc(n);
	snprintf(s, n, "%.*s\n%s%s", (int)(p - ptx), ptx, line, p);
	return s;
}

static bool erf_in(const struct expr *e)
{
	if (e->op == EOP_FUN && e->u == EF_ERF)
		return true;
	for (unsigned i = 0; i < e->nargs; i++)
		if (erf_in(e->args[i]))
			return true;
	return false;
}

/* erff's internal branch: other code before it is fine, inside its arm
 * (it would run on both sides once the branch is gone) not. */
static void test_erf_arm(void)
{
	char *ptx = fixture("transc.ptx");
	if (!ptx)
		return;
	const char *k = "_Z5k_erfPKfPfi";
	char *a = insert_after(ptx, k, ".reg .f32", "\t.reg .f32 %g<2>;");
	char *before = a ? insert_after(a, k, "selp.f32 \t%f22", "\tadd.f32 %g1, %g1, 0f3F800000;") : NULL;
	char *inside = a ? insert_after(a, k, "ex2.approx", "\tadd.f32 %g1, %g1, 0f3F800000;") : NULL;
	if (!ok(before && inside, "erf arm: fixture patched")) {
		free(ptx); free(a); free(before); free(inside);
		return;
	}
	struct tb t;
	uint32_t x = 0, y = 0;
	struct dx_launch *L = run(&t, before, k, false, &x, &y);
	ok(!L->unsup && L->writes.len == 1 && L->writes.items[0].val == f1(L->cx, EF_ERF, e_load(L->cx, x, ET_F32, L->writes.items[0].addr)),
	   "erf arm: an unrelated instruction before the branch: erf");
	tb_free(&t);
	L = run(&t, inside, k, false, &x, &y);
	ok(L->writes.len != 1 || !erf_in(L->writes.items[0].val), "erf arm: one inside the arm: not erf (%s)",
	   L->unsup ? L->uns.what : "executed as it is");
	tb_free(&t);
	free(ptx); free(a); free(before); free(inside);
}

/* The third of four erffs in a float4 loop, interleaved with its
 * neighbours, with one constant changed: that one is not erf, the others
 * are. */
static void test_tampered_copy(void)
{
	char *ptx = fixture("branches.ptx");
	if (!ptx)
		return;
	char *p = strstr(ptx, ".entry gelu4");
	for (int i = 0; i < 3 && p; i++)
		p = strstr(p + 1, "0f3F69B4F9");
	if (ok(p != NULL, "tampered copy: third erf constant found"))
		memcpy(p, "0f3F69B4FA", 10);
	struct tb t;
	tb_init(&t, ptx, "gelu4", 1, 1, 8, 1);
	tb_ptr(&t, "x", 256);
	tb_ptr(&t, "y", 256);
	tb_u32(&t, "n", 8);
	struct dx_launch *L = tb_run(&t);
	ok(!L->unsup && L->writes.len == 4, "tampered copy: supported (erf has no bit tricks)");
	if (L->writes.len == 4) {
		bool others = erf_in(L->writes.items[0].val) && erf_in(L->writes.items[1].val) &&
		              erf_in(L->writes.items[3].val);
		ok(others && !erf_in(L->writes.items[2].val), "tampered copy: z is not erf, x, y, w are");
	}
	tb_free(&t);
	free(ptx);
}

int main(void)
{
	diag_set_prog("test-rollup");
	static const char *const files[] = { "transc.ptx", "transc_fast.ptx" };
	for (unsigned f = 0; f < 2; f++) {
		for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
			check(files[f], kernels[i].k, kernels[i].want, kernels[i].two);
		test_exp2x(files[f]);
	}
	test_pow();
	test_tampered();
	test_escape();
	test_inf();
	test_interleaved();
	test_erf_arm();
	test_tampered_copy();
	return done_testing();
}
