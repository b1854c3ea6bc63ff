/*
 * test-exec-ops.c: dexec's less common instructions and constructs, by
 * concrete evaluation of the write set at one thread: device-function
 * calls (inlined, call.c), local arrays (local.c), bit operations, 16-
 * and 64-bit integers, 24-bit multiplies, carries, doubles, and
 * __constant__ data given by the launch's symbols.
 */
#include "dx-harness.h"

#include <math.h>

/* ---- concrete memory for evaluating loads ----------------------------------- */

struct mem { const void *buf[16]; size_t len[16]; };

static bool leaf(const struct expr *e, struct evalue *out, void *user)
{
	const struct mem *m = user;
	memset(out, 0, sizeof *out);
	if (e->op != EOP_LOAD || e->args[0]->op != EOP_BV || e->space >= 16 || !m->buf[e->space])
		return false;
	uint64_t off = e->args[0]->u, n = etype_size(e->et);
	if (off + n > m->len[e->space])
		return false;
	const unsigned char *p = (const unsigned char *)m->buf[e->space] + off;
	uint64_t bits = 0;
	memcpy(&bits, p, n);
	switch (e->et) {
	case ET_F32: { float f; memcpy(&f, p, 4); out->r = f; break; }
	case ET_F64: { double d; memcpy(&d, p, 8); out->r = d; break; }
	case ET_S8: out->u = (uint64_t)(int64_t)(int8_t)bits; break;
	case ET_S16: out->u = (uint64_t)(int64_t)(int16_t)bits; break;
	case ET_S32: out->u = (uint64_t)(int64_t)(int32_t)bits; break;
	default: out->u = bits; break;
	}
	return true;
}

/* The value write k stores at thread (tid, 0, 0) of block 0. */
static bool eval_write(struct dx_launch *L, size_t k, uint32_t tid, const struct mem *m, struct evalue *v)
{
	if (k >= L->writes.len)
		return false;
	uint32_t t[3] = { tid, 0, 0 }, c[3] = { 0, 0, 0 };
	const struct expr *e = e_at_thread(L->cx, L->writes.items[k].val, t, c);
	return e_eval(e, EM_F64, leaf, (void *)m, v);
}

/* The write of thread 0 at byte offset off, or -1. */
static long write_at(struct dx_launch *L, int64_t off)
{
	for (size_t k = 0; k < L->writes.len; k++)
		if (at_true(L->cx, L->writes.items[k].dom, 0, 0, 0, 0) &&
		    at_bv(L->cx, L->writes.items[k].addr, 0, 0, 0, 0) == off)
			return (long)k;
	return -1;
}

/* ---- calls and local memory ---------------------------------------------------- */

static void test_calls(void)
{
	char *ptx = fixture("calls.ptx");
	if (!ptx)
		return;
	struct tb t;
	tb_init(&t, ptx, "_Z6k_callPKfPfi4pair", 1, 1, 32, 1);
	uint32_t x = tb_ptr(&t, "x", 128);
	tb_ptr(&t, "y", 128);
	tb_u32(&t, "n", 32);
	float pair[2] = { 2.0f, 3.0f };
	tb_scalar(&t, "p", pair, 8);
	struct dx_launch *L = tb_run(&t);
	ok(!L->unsup && L->writes.len == 1, "calls: nested calls with a struct argument inlined");
	float xs[32] = { 5.0f };
	struct mem m = { { 0 }, { 0 } };
	m.buf[x] = xs;
	m.len[x] = sizeof xs;
	struct evalue v;
	/* twice(5) + axpb(1) = 2 * (2 * 5 + 3) + 3 + (2 + 3) */
	ok(eval_write(L, 0, 0, &m, &v) && v.r == 34.0L, "calls: y[0] = 34 (%Lg)", v.r);
	tb_free(&t);

	tb_init(&t, ptx, "_Z7k_localPKfPfii", 1, 1, 32, 1);
	x = tb_ptr(&t, "x", 128);
	tb_ptr(&t, "y", 128);
	tb_u32(&t, "n", 32);
	tb_u32(&t, "k", 13);
	L = tb_run(&t);
	ok(!L->unsup && L->writes.len == 1, "local: an array indexed by a constant after simplification");
	m.buf[x] = xs;
	ok(eval_write(L, 0, 0, &m, &v) && v.r == 25.0L, "local: buf[13 & 7] = 5 x = 25 (%Lg)", v.r);
	tb_free(&t);

	/* swap2 gets pointers into the caller's depot (nvcc: cvta.to.local) */
	tb_init(&t, ptx, "_Z11k_localcallPKfPfi", 1, 1, 32, 1);
	x = tb_ptr(&t, "x", 128);
	tb_ptr(&t, "y", 128);
	tb_u32(&t, "n", 32);
	L = tb_run(&t);
	ok(!L->unsup && L->writes.len == 1, "local: pointers to locals passed to a call");
	m.buf[x] = xs;
	ok(eval_write(L, 0, 0, &m, &v) && v.r == 5.0L, "local: swapped, 2x - x = 5 (%Lg)", v.r);
	tb_free(&t);
	free(ptx);
}

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"

static void test_recursion(void)
{
	static const char ptx[] = HEAD
		".func (.param .b32 r) f(.param .b32 a)\n{\n.reg .b32 %r<3>;\n"
		"ld.param.b32 %r1, [a];\n"
		"{ .param .b32 p0; st.param.b32 [p0], %r1; .param .b32 rv;\n"
		"call.uni (rv), f, (p0);\nld.param.b32 %r2, [rv]; }\n"
		"st.param.b32 [r], %r2;\nret;\n}\n"
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n.reg .b32 %r<3>;\n"
		"{ .param .b32 p0; st.param.b32 [p0], 1; .param .b32 rv;\n"
		"call.uni (rv), f, (p0);\nld.param.b32 %r2, [rv]; }\n"
		"ret;\n}\n";
	struct tb t;
	tb_init(&t, ptx, "k", 1, 1, 32, 1);
	tb_ptr(&t, "p", 64);
	tb_ptr(&t, "q", 64);
	struct dx_launch *L = tb_run(&t);
	ok(L->unsup && strstr(L->uns.message, "recursive"), "call: recursion is unsupported");
	tb_free(&t);
}

static void test_local_snippet(void)
{
	/* 8-byte values, a predicated local store, and reading part of a value */
	static const char ptx[] = HEAD
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
		".local .align 8 .b8 depot[32];\n"
		".reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<8>; .reg .f64 %fd<3>; .reg .b64 %SPL;\n"
		"mov.u64 %SPL, depot;\n"
		"ld.param.u64 %rd1, [p];\n"
		"mov.u32 %r1, %tid.x;\n"
		"st.local.u32 [%SPL], 7;\n"
		"setp.lt.u32 %p1, %r1, 4;\n"
		"@%p1 st.local.u32 [%SPL], %r1;\n"
		"ld.local.u32 %r2, [%SPL];\n"
		"st.global.u32 [%rd1], %r2;\n"
		"mov.f64 %fd1, 0d4000000000000000;\n"
		"st.local.f64 [depot+8], %fd1;\n"
		"ld.local.f64 %fd2, [%SPL+8];\n"
		"st.global.f64 [%rd1+8], %fd2;\n"
		"ld.local.u32 %r3, [%SPL+12];\n"
		"st.global.u32 [%rd1+16], %r3;\n"
		"ret;\n}\n";
	struct tb t;
	tb_init(&t, ptx, "k", 1, 1, 1, 1);
	tb_ptr(&t, "p", 64);
	tb_ptr(&t, "q", 64);
	struct dx_launch *L = tb_run(&t);
	struct ectx *cx = L->cx;
	ok(L->unsup && strstr(L->uns.message, "part of a value"), "local: reading half of a double is unsupported");
	ok(L->writes.len == 2, "local: two writes before it");
	if (L->writes.len == 2) {
		const struct expr *tid = e_tid(cx, 0);
		ok(L->writes.items[0].val == e_ite(cx, e_op2(cx, EOP_ULT, tid, e_bv(cx, 4, 32)), tid, e_bv(cx, 7, 32)),
		   "local: a predicated store merges");
		ok(L->writes.items[1].val == e_real(cx, 2.0), "local: an f64 round trip");
	}
	tb_free(&t);
}

/* ---- integers ---------------------------------------------------------------------- */

static uint32_t brev32(uint32_t v)
{
	uint32_t r = 0;
	for (int i = 0; i < 32; i++)
		r |= ((v >> i) & 1u) << (31 - i);
	return r;
}

static uint32_t byte_perm(uint32_t a, uint32_t b, uint32_t s)
{
	uint64_t x = ((uint64_t)b << 32) | a;
	uint32_t r = 0;
	for (int k = 0; k < 4; k++)
		r |= (uint32_t)((x >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
	return r;
}

static void test_bits(void)
{
	char *ptx = fixture("intops.ptx");
	if (!ptx)
		return;
	struct tb t;
	tb_init(&t, ptx, "_Z6k_bitsPKjPji", 1, 1, 32, 1);
	uint32_t x = tb_ptr(&t, "x", 128);
	tb_ptr(&t, "out", 32 * 32);
	tb_u32(&t, "n", 32);
	struct dx_launch *L = tb_run(&t);
	ok(!L->unsup && L->writes.len == 8, "bits: supported, 8 writes");
	uint32_t v = 0x12345678u;
	uint32_t xs[32] = { v };
	struct mem m = { { 0 }, { 0 } };
	m.buf[x] = xs;
	m.len[x] = sizeof xs;
	uint32_t want[8] = {
		brev32(v), (uint32_t)__builtin_clz(v), (uint32_t)__builtin_popcount(v), byte_perm(v, 0x11223344u, 0x5140),
		(v >> 5) & 0x3f, (v & 0xffffffu) * 77u + (uint32_t)((int32_t)((int32_t)(v << 8) >> 8) * -3),
		31u - (uint32_t)__builtin_clz(v | 1), (v & ~0xf0u) | ((v << 4) & 0xf0u),
	};
	for (int k = 0; k < 8; k++) {
		long w = write_at(L, 4 * k);
		struct evalue e = { 0 };
		bool got = w >= 0 && eval_write(L, (size_t)w, 0, &m, &e);
		ok(got && (uint32_t)e.u == want[k], "bits: out[%d] = %#x (want %#x)", k, (unsigned)e.u, want[k]);
	}
	tb_free(&t);

	tb_init(&t, ptx, "_Z6k_widePKxPKsPxi", 1, 1, 32, 1);
	x = tb_ptr(&t, "x", 256);
	uint32_t h = tb_ptr(&t, "h", 64);
	tb_ptr(&t, "out", 32 * 32);
	tb_u32(&t, "n", 32);
	L = tb_run(&t);
	ok(!L->unsup && L->writes.len == 4, "wide: supported, 4 writes");
	int64_t xv[32] = { -123456789012345ll };
	int16_t hv[32] = { -300 };
	memset(&m, 0, sizeof m);
	m.buf[x] = xv;
	m.len[x] = sizeof xv;
	m.buf[h] = hv;
	m.len[h] = sizeof hv;
	uint64_t u = (uint64_t)xv[0];
	int64_t wide[4] = { xv[0] * 3 - (xv[0] >> 7), (int64_t)(u / 10u), (int16_t)(hv[0] * hv[0] + 7),
	                    __builtin_popcountll(u) + __builtin_clzll(u) };
	for (int k = 0; k < 4; k++) {
		long w = write_at(L, 8 * k);
		struct evalue e = { 0 };
		bool got = w >= 0 && eval_write(L, (size_t)w, 0, &m, &e);
		ok(got && (int64_t)e.u == wide[k], "wide: out[%d] = %lld (want %lld)", k, (long long)e.u,
		   (long long)wide[k]);
	}
	tb_free(&t);
	free(ptx);
}

/* bfe bfi bfind mul24 mad24 prmt add.cc addc testp, which nvcc -O3 seldom emits */
static void test_bit_snippet(void)
{
	static const char ptx[] = HEAD
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
		".reg .pred %p<2>; .reg .b32 %r<20>; .reg .b64 %rd<8>;\n"
		"ld.param.u64 %rd1, [p];\n"
		"mov.u32 %r1, 0xF234A678;\n"
		"bfe.u32 %r2, %r1, 4, 8;\n"
		"bfe.s32 %r3, %r1, 8, 8;\n"
		"bfi.b32 %r4, 5, %r1, 8, 4;\n"
		"bfind.u32 %r5, %r1;\n"
		"bfind.s32 %r6, %r1;\n"
		"mul24.lo.s32 %r7, %r1, 3;\n"
		"mad24.lo.u32 %r8, %r1, 3, 10;\n"
		"prmt.b32 %r9, %r1, 0, 0xB765;\n"
		"add.cc.u32 %r10, %r1, 0x10000000;\n"
		"addc.u32 %r11, 1, 2;\n"
		"sub.cc.u32 %r12, 1, 2;\n"
		"subc.u32 %r13, 10, 2;\n"
		"mul24.hi.u32 %r14, %r1, 0x123456;\n"
		"testp.finite.f32 %p1, 0f3F800000;\n"
		"selp.u32 %r15, 1, 0, %p1;\n"
		"st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};\n"
		"st.global.v4.u32 [%rd1+16], {%r6, %r7, %r8, %r9};\n"
		"st.global.v4.u32 [%rd1+32], {%r10, %r11, %r12, %r13};\n"
		"st.global.v2.u32 [%rd1+48], {%r14, %r15};\n"
		"ret;\n}\n";
	struct tb t;
	tb_init(&t, ptx, "k", 1, 1, 1, 1);
	tb_ptr(&t, "p", 64);
	tb_ptr(&t, "q", 64);
	struct dx_launch *L = tb_run(&t);
	ok(!L->unsup && L->writes.len == 14, "bit ops: supported");
	uint32_t v = 0xF234A678u;
	uint32_t s24 = (uint32_t)((int32_t)(v << 8) >> 8);
	uint64_t hi = ((uint64_t)(v & 0xffffff) * 0x123456u) >> 16;
	uint32_t want[14] = {
		(v >> 4) & 0xff, (uint32_t)(int32_t)(int8_t)(v >> 8), (v & ~0xf00u) | (5u << 8), 31,
		27 /* highest 0 bit of a negative number */, s24 * 3u, (v & 0xffffff) * 3u + 10,
		/* bytes 5, 6, 7 of {0, v}, then the sign of byte 3 of v replicated */ 0xff000000u,
		v + 0x10000000u, 1 + 2 + 1, (uint32_t)-1, 10 - 2 - 1, (uint32_t)hi, 1,
	};
	for (int k = 0; k < 14; k++) {
		struct evalue e = { 0 };
		long w = write_at(L, 4 * k);
		bool got = w >= 0 && eval_write(L, (size_t)w, 0, &(struct mem){ { 0 }, { 0 } }, &e);
		ok(got && (uint32_t)e.u == want[k], "bit ops: word %d = %#x (want %#x)", k, (unsigned)e.u, want[k]);
	}
	tb_free(&t);
}

/* ---- doubles and constants -------------------------------------------------------- */

static void test_double_const(void)
{
	char *ptx = fixture("intops.ptx");
	if (!ptx)
		return;
	struct tb t;
	tb_init(&t, ptx, "_Z8k_doublePKdPKfPdPfi", 1, 1, 32, 1);
	uint32_t x = tb_ptr(&t, "x", 256), y = tb_ptr(&t, "y", 128);
	tb_ptr(&t, "out", 256);
	tb_ptr(&t, "out2", 128);
	tb_u32(&t, "n", 32);
	uint32_t sv = tb_value(&t, 16, VD_UNINIT, NO_VALUE);
	t.l->syms = ARENA_NEWN(&t.o.arena, struct obl_symref, 1);
	t.l->syms[0] = (struct obl_symref){ "scale", sv };
	t.l->nsyms = 1;
	struct dx_launch *L = tb_run(&t);
	ok(!L->unsup && L->writes.len == 2, "double: supported with a symbols entry for 'scale'");
	double xv[32] = { 3.0 };
	float yv[32] = { 0.25f }, sc[4] = { 4.0f, 0, 0, 0 };
	struct mem m = { { 0 }, { 0 } };
	m.buf[x] = xv; m.len[x] = sizeof xv;
	m.buf[y] = yv; m.len[y] = sizeof yv;
	m.buf[sv] = sc; m.len[sv] = sizeof sc;
	struct evalue e;
	long w = write_at(L, 0);
	/* d = 3 * 0.5 + 0.25 = 1.75: out = 3.0625, out2 = 1.75 * scale[0] = 7 */
	ok(w >= 0 && eval_write(L, (size_t)w, 0, &m, &e) && e.r == 3.0625L, "double: d * d (%Lg)", e.r);
	bool found = false;
	for (size_t k = 0; k < L->writes.len; k++)
		if (L->writes.items[k].et == ET_F32 && eval_write(L, k, 0, &m, &e))
			found = e.r == 7.0L;
	ok(found, "const: ld.const reads the launch's buffer for 'scale' (%Lg)", e.r);
	tb_free(&t);

	/* without a symbols entry, a thread-dependent index into a constant the
	 * host never wrote: its initialiser, zeros (static storage) */
	tb_init(&t, ptx, "_Z8k_doublePKdPKfPdPfi", 1, 1, 32, 1);
	tb_ptr(&t, "x", 256);
	tb_ptr(&t, "y", 128);
	tb_ptr(&t, "out", 256);
	tb_ptr(&t, "out2", 128);
	tb_u32(&t, "n", 32);
	L = tb_run(&t);
	ok(!L->unsup && L->writes.len == 2, "const: no symbols entry, the zero initialiser (%s)",
	   L->unsup ? L->uns.message : "supported");
	for (size_t k = 0; k < L->writes.len; k++)
		if (L->writes.items[k].et == ET_F32)
			ok(L->writes.items[k].val == e_real(L->cx, 0), "const: (float)d * 0 = 0");
	tb_free(&t);
	free(ptx);
}

int main(void)
{
	diag_set_prog("test-exec-ops");
	test_calls();
	test_recursion();
	test_local_snippet();
	test_bits();
	test_bit_snippet();
	test_double_const();
	return done_testing();
}
