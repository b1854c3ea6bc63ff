/*
 * test-exec-opaque.c: degrade, don't give up (dexec/opaque.c): an
 * instruction without exact meaning gives an opaque value named by its
 * origin while the rest of the launch is checked (an out-of-bounds store
 * after it is still found); an opaque address or branch is unsupported,
 * named; WARP_SZ; special registers; registers' float bits; module
 * tables indexed by thread; and the operand-width rule (.b128 registers,
 * mul.wide of mismatched or 64-bit operands) that used to abort.
 */
#include "dx-harness.h"

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"
#define ENTRY ".visible .entry k(.param .u64 x, .param .u64 out)\n{\n"           \
	".reg .pred %p<4>; .reg .f32 %f<8>; .reg .b32 %r<16>; .reg .b64 %rd<16>;\n" \
	"ld.param.u64 %rd1, [x];\nld.param.u64 %rd2, [out];\n"                     \
	"mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\n"                        \
	"add.s64 %rd4, %rd1, %rd3;\nadd.s64 %rd5, %rd2, %rd3;\n"

/* Runs snippet body (after ENTRY) over x (128 bytes) and out (obytes) with
 * 32 threads; *x and *out get the buffers' values (vin). */
static struct dx_launch *run(struct tb *t, const char *ptx, uint64_t obytes, uint32_t *x, uint32_t *out)
{
	tb_init(t, ptx, "k", 1, 1, 32, 1);
	*x = tb_ptr(t, "x", 128);
	*out = tb_ptr(t, "out", obytes);
	return tb_run(t);
}

static const struct sym_write *write_of(struct dx_launch *L, int64_t off0)
{
	for (size_t k = 0; k < L->writes.len; k++)
		if (at_bv(L->cx, L->writes.items[k].addr, 0, 0, 0, 0) == off0)
			return &L->writes.items[k];
	return NULL;
}

static void test_opaque_then_oob(void)
{
	static const char ptx[] = HEAD ENTRY
		"ld.global.u32 %r2, [%rd4];\n"
		"dp4a.u32.u32 %r3, %r2, %r2, 0;\n"          /* line 14: no exact meaning here */
		"st.global.u32 [%rd5], %r3;\n"              /* out[i] = opaque */
		"add.s32 %r4, %r2, 1;\n"
		"st.global.u32 [%rd5+128], %r4;\n"          /* out[i+32] = x[i] + 1: exact */
		"st.global.u32 [%rd5+256], %r4;\n"          /* out[i+64]: past the end */
		"ret;\n}\n";
	struct tb t;
	uint32_t x, out;
	struct dx_launch *L = run(&t, ptx, 300, &x, &out);
	struct ectx *cx = L->cx;
	ok(!L->unsup, "dp4a: the launch runs (%s)", L->unsup ? L->uns.message : "");
	ok(L->findings.len == 1 && !strcmp(L->findings.items[0].cls, "oob-global") &&
	   L->findings.items[0].tid[0] >= 11, "dp4a: the out-of-bounds store after it is found (thread %u)",
	   L->findings.len ? L->findings.items[0].tid[0] : 0);
	const struct sym_write *w = write_of(L, 0);
	const struct expr *o = w ? e_first_opaque(w->val) : NULL;
	ok(o && EOPQ_KIND(o->u) == EOPQ_FN && o->sort == SORT_BV(32), "dp4a: out[i] is an opaque value");
	uint32_t i = o ? SYM_OPAQUE_INDEX(EOPQ_TAGOF(o->u)) : 0;
	ok(o && SYM_OPAQUE_LAUNCH(EOPQ_TAGOF(o->u)) == 0 && i < L->opaques.len, "dp4a: its tag names an origin");
	if (o && i < L->opaques.len) {
		const struct sym_opaque *q = &L->opaques.items[i];
		is_str(q->what, "instruction 'dp4a.u32.u32'", "dp4a: why");
		is_str(q->instr, "dp4a.u32.u32 %r3, %r2, %r2, 0;", "dp4a: the instruction as written");
		is_int(q->line, 14, "dp4a: its PTX line");
		const struct expr *ld = e_load(cx, x, ET_U32, e_op2(cx, EOP_MUL, e_resize(cx, e_tid(cx, 0), 64, false),
		                                                  e_bv(cx, 4, 64)));
		ok(o->nargs == 3 && o->args[0] == ld && o->args[1] == ld && o->args[2] == e_bv(cx, 0, 64),
		   "dp4a: a function of its operands");
	}
	const struct sym_write *w2 = write_of(L, 128);
	ok(w2 && !e_has_opaque(w2->val) && !e_has_opaque(w2->dom), "dp4a: the other store is exact");
	tb_free(&t);
}

static void test_opaque_address_branch(void)
{
	static const char addr[] = HEAD ENTRY
		"ld.global.u32 %r2, [%rd4];\n"
		"dp4a.u32.u32 %r3, %r2, %r2, 0;\n"
		"and.b32 %r4, %r3, 7;\n"
		"mul.wide.u32 %rd6, %r4, 4;\n"
		"add.s64 %rd7, %rd2, %rd6;\n"
		"st.global.u32 [%rd7], %r1;\n"
		"ret;\n}\n";
	struct tb t;
	uint32_t x, out;
	struct dx_launch *L = run(&t, addr, 128, &x, &out);
	ok(L->unsup && !strcmp(L->uns.what, "opaque address") && strstr(L->uns.message, "dp4a.u32.u32") &&
	   strstr(L->uns.message, "PTX line 14"), "an opaque address is unsupported, named (%s)",
	   L->unsup ? L->uns.message : "");
	tb_free(&t);

	static const char branch[] = HEAD ENTRY
		"mov.u32 %r2, %tid.x;\n"
		"dp4a.u32.u32 %r3, %r2, %r2, 0;\n"            /* opaque of the thread only */
		"setp.eq.u32 %p1, %r3, 0;\n"
		"@%p1 bra DONE;\n"
		"st.global.u32 [%rd5], %r1;\n"
		"DONE:\nret;\n}\n";
	L = run(&t, branch, 128, &x, &out);
	ok(L->unsup && !strcmp(L->uns.what, "opaque branch") && strstr(L->uns.message, "dp4a"),
	   "a branch on an opaque value is unsupported, named (%s)", L->unsup ? L->uns.message : "");
	tb_free(&t);

	/* a predicate on it guards a store: a data guard, merged */
	static const char pred[] = HEAD ENTRY
		"ld.global.u32 %r2, [%rd4];\n"
		"dp4a.u32.u32 %r3, %r2, %r2, 0;\n"
		"setp.eq.u32 %p1, %r3, 0;\n"
		"@%p1 st.global.u32 [%rd5], %r1;\n"
		"ret;\n}\n";
	L = run(&t, pred, 128, &x, &out);
	ok(!L->unsup && L->writes.len == 1 && e_has_opaque(L->writes.items[0].val) &&
	   !e_has_opaque(L->writes.items[0].dom), "an opaque predicate on a store: kept in the value");
	tb_free(&t);
}

static void test_sregs_warpsz(void)
{
	static const char ptx[] = HEAD ENTRY
		"mov.u32 %r2, WARP_SZ;\n"
		"rem.u32 %r3, %r1, %r2;\n"
		"st.global.u32 [%rd5], %r3;\n"
		"mov.u32 %r4, %clock;\n"
		"mov.u32 %r5, %clock;\n"
		"sub.s32 %r6, %r5, %r4;\n"
		"st.global.u32 [%rd5+128], %r6;\n"
		"mov.u32 %r7, %lanemask_lt;\n"
		"st.global.u32 [%rd5+256], %r7;\n"
		"ret;\n}\n";
	struct tb t;
	uint32_t x, out;
	struct dx_launch *L = run(&t, ptx, 384, &x, &out);
	struct ectx *cx = L->cx;
	ok(!L->unsup, "WARP_SZ, %%clock, %%lanemask_lt: supported (%s)", L->unsup ? L->uns.message : "");
	const struct sym_write *w = write_of(L, 0), *c = write_of(L, 128), *m = write_of(L, 256);
	ok(w && at_bv(cx, w->val, 7, 0, 0, 0) == 7 && !e_has_opaque(w->val), "WARP_SZ is 32: tid %% 32");
	ok(c && e_has_opaque(c->val) && c->val != e_bv(cx, 0, 32), "two reads of %%clock are two unknowns");
	ok(m && at_bv(cx, m->val, 5, 0, 0, 0) == 0x1f, "%%lanemask_lt of lane 5 is 0x1f");
	tb_free(&t);
}

static void test_register_bits(void)
{
	/* fabsf by hand on a register, then arithmetic: exact */
	static const char ptx[] = HEAD ENTRY
		"ld.global.f32 %f1, [%rd4];\n"
		"mov.b32 %r2, %f1;\n"
		"and.b32 %r3, %r2, 2147483647;\n"
		"mov.b32 %f2, %r3;\n"
		"add.f32 %f3, %f2, 0f3F800000;\n"
		"st.global.f32 [%rd5], %f3;\n"
		"shr.u32 %r4, %r2, 31;\n"                     /* the sign bit */
		"st.global.u32 [%rd5+128], %r4;\n"
		"add.s32 %r5, %r2, 1;\n"                      /* the next float up: no idiom */
		"mov.b32 %f4, %r5;\n"
		"st.global.f32 [%rd5+256], %f4;\n"
		"ret;\n}\n";
	struct tb t;
	uint32_t x, out;
	struct dx_launch *L = run(&t, ptx, 384, &x, &out);
	struct ectx *cx = L->cx;
	ok(!L->unsup && L->writes.len == 3, "register bits: supported (%s)", L->unsup ? L->uns.message : "");
	const struct expr *ld = e_load(cx, x, ET_F32, e_op2(cx, EOP_MUL, e_resize(cx, e_tid(cx, 0), 64, false),
	                                                  e_bv(cx, 4, 64)));
	const struct sym_write *a = write_of(L, 0), *s = write_of(L, 128), *n = write_of(L, 256);
	ok(a && a->val == e_op2(cx, EOP_FADD, e_op1(cx, EOP_FABS, SORT_REAL, 0, ld), e_real(cx, 1)),
	   "register bits: |x| + 1");
	ok(s && s->val == e_ite(cx, e_op2(cx, EOP_FLT, ld, e_real(cx, 0)), e_bv(cx, 1, 32), e_bv(cx, 0, 32)),
	   "register bits: the sign bit is x < 0");
	const struct expr *o = n ? e_first_opaque(n->val) : NULL;
	ok(o && EOPQ_KIND(o->u) == EOPQ_FLOAT, "register bits: the float of bits + 1 is opaque");
	uint32_t i = o ? SYM_OPAQUE_INDEX(EOPQ_TAGOF(o->u)) : 0;
	ok(o && i < L->opaques.len && !strcmp(L->opaques.items[i].what, "bit reinterpretation") &&
	   !strcmp(L->opaques.items[i].instr, "mov.b32 %f4, %r5;"), "register bits: named by its mov ('%s')",
	   o && i < L->opaques.len ? L->opaques.items[i].instr : "");
	tb_free(&t);
}

static const char tables[] = HEAD
	".const .align 4 .b8 tab[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64};\n"
	".global .align 4 .b8 dev[16] = {0, 0, 128, 64, 0, 0, 160, 64, 0, 0, 192, 64, 0, 0, 224, 64};\n"
	ENTRY
	"and.b32 %r2, %r1, %MASK;\n"
	"mul.wide.u32 %rd6, %r2, 4;\n"
	"mov.u64 %rd7, tab;\n"
	"add.s64 %rd8, %rd7, %rd6;\n"
	"ld.const.f32 %f1, [%rd8];\n"
	"mov.u64 %rd9, dev;\n"
	"cvta.global.u64 %rd10, %rd9;\n"
	"add.s64 %rd11, %rd10, %rd6;\n"
	"ld.f32 %f2, [%rd11];\n"
	"add.f32 %f3, %f1, %f2;\n"
	"st.global.f32 [%rd5], %f3;\n"
	"%STORE"
	"ret;\n}\n";

static char *table_ptx(const char *mask, const char *store)
{
	static char buf[4096];
	char *p = buf;
	for (const char *s = tables; *s;) {
		if (!strncmp(s, "%MASK", 5)) {
			p += sprintf(p, "%s", mask);
			s += 5;
		} else if (!strncmp(s, "%STORE", 6)) {
			p += sprintf(p, "%s", store);
			s += 6;
		} else {
			*p++ = *s++;
		}
	}
	*p = 0;
	return buf;
}

static void test_tables(void)
{
	struct tb t;
	uint32_t x, out;
	static const bool clean[1] = { false }, dirty[1] = { true };
	tb_init(&t, table_ptx("3", ""), "k", 1, 1, 32, 1);
	x = tb_ptr(&t, "x", 128);
	out = tb_ptr(&t, "out", 128);
	t.opts.module_unclean = clean;
	struct dx_launch *L = tb_run(&t);
	struct ectx *cx = L->cx;
	ok(!L->unsup && L->writes.len == 1, "tables: a thread index into __constant__ and __device__ (%s)",
	   L->unsup ? L->uns.message : "");
	if (L->writes.len == 1) {
		const struct expr *v2 = e_at_thread(cx, L->writes.items[0].val, (uint32_t[]){ 6, 0, 0 }, (uint32_t[]){ 0, 0, 0 });
		ok(v2 == e_real(cx, 3.0 + 6.0), "tables: thread 6 reads tab[2] + dev[2] = 9");
	}
	tb_free(&t);

	tb_init(&t, table_ptx("7", ""), "k", 1, 1, 32, 1);
	x = tb_ptr(&t, "x", 128);
	out = tb_ptr(&t, "out", 128);
	t.opts.module_unclean = clean;
	L = tb_run(&t);
	ok(L->findings.len >= 1 && !strcmp(L->findings.items[0].cls, "oob-global") &&
	   strstr(L->findings.items[0].message, "symbol 'tab'") && L->findings.items[0].tid[0] % 8 >= 4,
	   "tables: an index past a 4-entry table is oob-global naming the symbol (%s)",
	   L->findings.len ? L->findings.items[0].message : "");
	tb_free(&t);

	tb_init(&t, table_ptx("3", ""), "k", 1, 1, 32, 1);
	x = tb_ptr(&t, "x", 128);
	out = tb_ptr(&t, "out", 128);
	t.opts.module_unclean = dirty;
	L = tb_run(&t);
	ok(L->unsup && !strcmp(L->uns.what, "device variable"),
	   "tables: after an unsupported launch of the module the __device__ initialiser is not trusted");
	tb_free(&t);

	tb_init(&t, table_ptx("3", "st.global.f32 [%rd11], %f3;\n"), "k", 1, 1, 32, 1);
	x = tb_ptr(&t, "x", 128);
	out = tb_ptr(&t, "out", 128);
	t.opts.module_unclean = clean;
	L = tb_run(&t);
	ok(L->unsup && !strcmp(L->uns.what, "store to a module variable") && strstr(L->uns.message, "'dev'"),
	   "tables: a store to __device__ 'dev' in bounds is unsupported (%s)", L->unsup ? L->uns.message : "");
	tb_free(&t);

	tb_init(&t, table_ptx("3", "st.global.f32 [%rd11+4], %f3;\n"), "k", 1, 1, 32, 1);
	x = tb_ptr(&t, "x", 128);
	out = tb_ptr(&t, "out", 128);
	t.opts.module_unclean = clean;
	L = tb_run(&t);
	ok(L->findings.len == 1 && strstr(L->findings.items[0].message, "symbol 'dev'") &&
	   L->findings.items[0].tid[0] % 4 == 3, "tables: a store past __device__ 'dev' is oob-global (%s)",
	   L->findings.len ? L->findings.items[0].message : "");
	tb_free(&t);
	(void)x;
	(void)out;
}

/* The operand-width rule: these used to abort in e_op(zext/sext) and e_undef. */
static void test_widths(void)
{
	static const char b128[] = HEAD ENTRY
		".reg .b128 %rq<2>;\n"
		"mov.b64 %rd6, %rq1;\n"
		"st.global.u64 [%rd5], %rd6;\n"
		"ret;\n}\n";
	struct tb t;
	uint32_t x, out;
	struct dx_launch *L = run(&t, b128, 256, &x, &out);
	ok(L->unsup && !strcmp(L->uns.what, "operand width"), "a .b128 register read: unsupported (%s)",
	   L->unsup ? L->uns.message : "");
	tb_free(&t);

	static const char b128w[] = HEAD ENTRY
		".reg .b128 %rq<2>;\n"
		"mov.b64 %rq1, %rd3;\n"
		"ret;\n}\n";
	L = run(&t, b128w, 256, &x, &out);
	ok(L->unsup && !strcmp(L->uns.what, "operand width"), "a .b128 register written: unsupported");
	tb_free(&t);

	static const char pack[] = HEAD ENTRY
		".reg .b128 %rq<2>;\n"
		"mov.b128 %rq1, {%rd3, %rd3};\n"
		"ret;\n}\n";
	L = run(&t, pack, 256, &x, &out);
	ok(L->unsup && !strcmp(L->uns.what, "operand width"), "mov.b128: unsupported");
	tb_free(&t);

	static const char wide64[] = HEAD ENTRY
		"mul.wide.u64 %rd6, %rd3, %rd3;\n"
		"st.global.u64 [%rd5], %rd6;\n"
		"ret;\n}\n";
	L = run(&t, wide64, 256, &x, &out);
	ok(L->unsup && !strcmp(L->uns.what, "operand width") && strstr(L->uns.message, "128-bit product"),
	   "mul.wide.u64: unsupported (%s)", L->unsup ? L->uns.message : "");
	tb_free(&t);

	/* a 64-bit register where the type says 32 bits: its low half, exactly */
	static const char mixed[] = HEAD ENTRY
		"mov.u64 %rd6, 4294967299;\n"                 /* 2^32 + 3 */
		"mul.wide.u32 %rd7, %rd6, %r1;\n"             /* 3 * tid */
		"mad.wide.u32 %rd8, %r1, %r1, %r1;\n"         /* a 32-bit addend, widened */
		"add.s64 %rd9, %rd7, %rd8;\n"
		"st.global.u64 [%rd5], %rd9;\n"
		"ret;\n}\n";
	L = run(&t, mixed, 256, &x, &out);
	ok(!L->unsup && L->writes.len == 1, "mul.wide with a 64-bit operand: supported (%s)",
	   L->unsup ? L->uns.message : "");
	if (L->writes.len == 1)
		is_int(at_bv(L->cx, L->writes.items[0].val, 9, 0, 0, 0), 3 * 9 + 9 * 9 + 9,
		       "mul.wide: 3 * tid + tid * tid + tid at tid 9");
	tb_free(&t);
}

int main(void)
{
	diag_set_prog("test-exec-opaque");
	test_opaque_then_oob();
	test_opaque_address_branch();
	test_sregs_warpsz();
	test_register_bits();
	test_tables();
	test_widths();
	return done_testing();
}
