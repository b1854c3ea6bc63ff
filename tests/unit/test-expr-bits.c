/*
 * test-expr-bits.c: opaque values and the float bit idioms
 * (libcommon/expr-bits.c).  Each idiom is built as nvcc writes it (floats
 * loaded as u32, bitwise operators, the key's select), must simplify to an
 * expression without opaque values, and must then agree with the same
 * bit formula computed in C on IEEE floats, for values of every sign and
 * size (the only difference allowed is the sign of a zero).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "libcommon/expr.h"
#include "tap.h"

static const float samples[] = {
	0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, -3.25f, 7.0f, -7.0f, 123.456f, -123.456f,
	1e-40f, -1e-40f, 3e38f, -3e38f, 1.17549435e-38f, -2.5e-3f, 65504.0f,
};
#define NS (sizeof samples / sizeof samples[0])

static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static int32_t key(uint32_t u) { int32_t i = (int32_t)u; return i >= 0 ? i : i ^ 0x7fffffff; }

/* LOAD leaves: space 0 holds a, space 1 holds b (as f32, or their bits). */
struct pt { float v[2]; };

static bool leaf(const struct expr *l, struct evalue *out, void *user)
{
	const struct pt *p = user;
	if (l->op != EOP_LOAD || l->space > 1)
		return false;
	memset(out, 0, sizeof *out);
	if (l->et == ET_F32)
		out->r = p->v[l->space];
	else
		out->u = fb(p->v[l->space]);
	return true;
}

static const struct expr *ldu(struct ectx *cx, uint32_t sp)
{
	return e_load(cx, sp, ET_U32, e_bv(cx, 0, 64));
}

static const struct expr *ldf(struct ectx *cx, uint32_t sp)
{
	return e_load(cx, sp, ET_F32, e_bv(cx, 0, 64));
}

static const struct expr *bv(struct ectx *cx, uint64_t v) { return e_bv(cx, v, 32); }
static const struct expr *op2(struct ectx *cx, enum eop op, const struct expr *a, const struct expr *b)
{
	return e_op2(cx, op, a, b);
}

/* F(k) of a program: e_reinterp, tagged 7 */
static const struct expr *F(struct ectx *cx, const struct expr *k) { return e_reinterp(cx, 7, k, ET_F32); }
static const struct expr *B(struct ectx *cx, const struct expr *x) { return e_reinterp(cx, 8, x, ET_F32); }

/* J(k) as nvcc selects it: setp.gt.s32 p, k, -1; xor; selp k, k ^ M, p */
static const struct expr *J(struct ectx *cx, const struct expr *k)
{
	const struct expr *p = op2(cx, EOP_SLT, bv(cx, 0xffffffffu), k);
	return e_ite(cx, p, k, op2(cx, EOP_XOR, k, bv(cx, 0x7fffffff)));
}

enum kind { REAL, BITS, BOOL };
typedef double (*hw_fn)(float a, float b, bool *skip);

/* Checks that e has no opaque value and equals hw at every pair. */
static void check(struct ectx *cx_unused, const char *name, const struct expr *e, enum kind k, hw_fn hw)
{
	(void)cx_unused;
	struct arena a = ARENA_INIT;
	if (!ok(!e_has_opaque(e), "%s: exact (%s)", name, e_print(&a, e, 200))) {
		arena_release(&a);
		return;
	}
	int bad = 0, n = 0;
	for (size_t i = 0; i < NS; i++)
		for (size_t j = 0; j < NS; j++) {
			struct pt p = { { samples[i], samples[j] } };
			bool skip = false;
			double want = hw(samples[i], samples[j], &skip);
			if (skip)
				continue;
			struct evalue v;
			if (!e_eval(e, EM_F32, leaf, &p, &v) || v.undef) {
				bad++;
				continue;
			}
			n++;
			double got = k == REAL ? (double)v.r : k == BOOL ? v.b : (double)(uint32_t)v.u;
			if (k == BITS && (uint32_t)want == 0x80000000u && v.u == 0)
				got = want;          /* -0 and +0 are one real */
			if (got != want && !(k == REAL && got == 0 && want == 0)) {
				if (bad++ < 3)
					printf("# %s(%g, %g): got %.9g, want %.9g\n", name, samples[i], samples[j], got, want);
			}
		}
	ok(bad == 0 && n > 0, "%s: agrees with the bits at %d points", name, n);
	arena_release(&a);
}

static double hw_clear(float a, float b, bool *s) { (void)b; (void)s; return bf(fb(a) & 0x7fffffff); }
static double hw_flip(float a, float b, bool *s) { (void)b; (void)s; return bf(fb(a) ^ 0x80000000u); }
static double hw_setneg(float a, float b, bool *s) { (void)b; (void)s; return bf(fb(a) | 0x80000000u); }
static double hw_copysign(float a, float b, bool *s)
{
	(void)s;
	return bf((fb(a) & 0x7fffffff) | (fb(b) & 0x80000000u));
}
static double hw_signmul(float a, float b, bool *s) { (void)s; return bf(fb(a) ^ (fb(b) & 0x80000000u)); }
static double hw_id(float a, float b, bool *s) { (void)b; (void)s; return a; }
static double hw_kmax(float a, float b, bool *s)
{
	(void)s;
	int32_t m = key(fb(a)) > key(fb(b)) ? key(fb(a)) : key(fb(b));
	return bf((uint32_t)key((uint32_t)m));
}
static double hw_kmin(float a, float b, bool *s)
{
	(void)s;
	int32_t m = key(fb(a)) < key(fb(b)) ? key(fb(a)) : key(fb(b));
	return bf((uint32_t)key((uint32_t)m));
}
static double hw_klt(float a, float b, bool *s) { (void)s; return key(fb(a)) < key(fb(b)); }
static double hw_shr(float a, float b, bool *s) { (void)b; (void)s; return fb(a) >> 31; }
static double hw_sar(float a, float b, bool *s) { (void)b; (void)s; return (uint32_t)((int32_t)fb(a) >> 31); }
static double hw_slt0(float a, float b, bool *s) { (void)b; (void)s; return (int32_t)fb(a) < 0; }
static double hw_slt(float a, float b, bool *s) { (void)s; return (int32_t)fb(a) < (int32_t)fb(b); }
static double hw_sle(float a, float b, bool *s) { (void)s; return (int32_t)fb(a) <= (int32_t)fb(b); }
static double hw_ult(float a, float b, bool *s) { (void)s; return fb(a) < fb(b); }
static double hw_ule(float a, float b, bool *s) { (void)s; return fb(a) <= fb(b); }
static double hw_eq(float a, float b, bool *s) { (void)s; return fb(a) == fb(b); }
static double hw_smax(float a, float b, bool *s)
{
	(void)s;
	return bf((int32_t)fb(a) > (int32_t)fb(b) ? fb(a) : fb(b));
}
static double hw_umin(float a, float b, bool *s) { (void)s; return bf(fb(a) < fb(b) ? fb(a) : fb(b)); }
static double hw_clearbits(float a, float b, bool *s) { (void)b; (void)s; return fb(a) & 0x7fffffff; }

/* ---- through memory: floats loaded as u32 (nvcc's form) ---------------------------- */

static bool host_mem(uint32_t space, void *user)
{
	(void)user;
	return space < 2;
}

static void test_loaded_idioms(struct ectx *cx)
{
	/* without knowing what memory holds, a key of an integer load stays integer */
	const struct expr *j0 = J(cx, ldu(cx, 0));
	ok(!e_has_opaque(j0) && j0->op == EOP_ITE, "the key of an integer load of unknown memory is integer");
	ectx_set_float_mem(cx, host_mem, NULL);
	const struct expr *ka = ldu(cx, 0), *kb = ldu(cx, 1);
	const struct expr *M = bv(cx, 0x7fffffff), *S = bv(cx, 0x80000000u);
	const struct expr *e = F(cx, op2(cx, EOP_AND, ka, M));
	ok(e == e_op1(cx, EOP_FABS, SORT_REAL, 0, ldf(cx, 0)), "sign clear is fabs of the f32 load");
	check(cx, "sign clear", e, REAL, hw_clear);
	check(cx, "sign flip", F(cx, op2(cx, EOP_XOR, ka, S)), REAL, hw_flip);
	check(cx, "sign set", F(cx, op2(cx, EOP_OR, ka, S)), REAL, hw_setneg);
	check(cx, "copysign", F(cx, op2(cx, EOP_OR, op2(cx, EOP_AND, kb, S), op2(cx, EOP_AND, ka, M))),
	      REAL, hw_copysign);
	check(cx, "sign of b on a", F(cx, op2(cx, EOP_XOR, op2(cx, EOP_AND, kb, S), ka)), REAL, hw_signmul);
	check(cx, "round trip", F(cx, ka), REAL, hw_id);
	ok(F(cx, ka) == ldf(cx, 0), "a u32 load read as a float is the f32 load");
	check(cx, "key round trip", F(cx, J(cx, J(cx, ka))), REAL, hw_id);
	check(cx, "key max", F(cx, J(cx, op2(cx, EOP_SMAX, J(cx, ka), J(cx, kb)))), REAL, hw_kmax);
	check(cx, "key min", F(cx, J(cx, op2(cx, EOP_SMIN, J(cx, ka), J(cx, kb)))), REAL, hw_kmin);
	check(cx, "key order", op2(cx, EOP_SLT, J(cx, ka), J(cx, kb)), BOOL, hw_klt);
	/* the select in its other spelling: setp.lt.s32 p, k, 0; selp k ^ M, k, p */
	const struct expr *j2 = e_ite(cx, op2(cx, EOP_SLT, ka, bv(cx, 0)), op2(cx, EOP_XOR, ka, M), ka);
	ok(j2 == J(cx, ka), "both spellings of the key are one node");
	/* outside an idiom an integer load stays an integer */
	ok(op2(cx, EOP_AND, ka, M)->op == EOP_AND, "k & M alone stays a bitvector and");
	ok(!e_has_opaque(op2(cx, EOP_AND, ka, M)), "... without an opaque value");
	const struct expr *j2k = J(cx, ldu(cx, 2));
	ok(!e_has_opaque(j2k), "a key of memory a kernel wrote stays integer (%s)",
	   e_has_opaque(j2k) ? "opaque" : "ite");
	ok(F(cx, J(cx, J(cx, ldu(cx, 2)))) == ldf(cx, 2), "... and decodes exactly");
	ectx_set_float_mem(cx, NULL, NULL);
}

/* ---- registers: the bits of a real (mov.b32 %r, %f) --------------------------------- */

static void test_register_idioms(struct ectx *cx)
{
	const struct expr *x = ldf(cx, 0), *y = ldf(cx, 1);
	const struct expr *bx = B(cx, x), *by = B(cx, y);
	const struct expr *M = bv(cx, 0x7fffffff), *S = bv(cx, 0x80000000u);
	ok(bx->op == EOP_OPAQUE && e_has_opaque(bx) && e_has_data(bx), "the bits of a real are opaque");
	ok(F(cx, bx) == x, "F(B(x)) = x");
	ok(B(cx, F(cx, ldu(cx, 0))) == B(cx, x), "B(F(k)) for a load: the bits of the f32 load");
	const struct expr *k = op2(cx, EOP_ADD, ldu(cx, 0), bv(cx, 1));
	ok(B(cx, F(cx, k)) == k, "B(F(k)) = k");
	check(cx, "B(x) & M", F(cx, op2(cx, EOP_AND, bx, M)), REAL, hw_clear);
	ok(op2(cx, EOP_AND, bx, M) == B(cx, e_op1(cx, EOP_FABS, SORT_REAL, 0, x)), "B(x) & M = B(|x|)");
	check(cx, "B(x) ^ S", F(cx, op2(cx, EOP_XOR, bx, S)), REAL, hw_flip);
	check(cx, "B(x) | S", F(cx, op2(cx, EOP_OR, bx, S)), REAL, hw_setneg);
	check(cx, "copysign of registers",
	      F(cx, op2(cx, EOP_OR, op2(cx, EOP_AND, bx, M), op2(cx, EOP_AND, by, S))), REAL, hw_copysign);
	check(cx, "sign flip by b", F(cx, op2(cx, EOP_XOR, bx, op2(cx, EOP_AND, by, S))), REAL, hw_signmul);
	check(cx, "B(x) >> 31", op2(cx, EOP_LSHR, bx, bv(cx, 31)), BITS, hw_shr);
	check(cx, "B(x) >>s 31", op2(cx, EOP_ASHR, bx, bv(cx, 31)), BITS, hw_sar);
	check(cx, "B(x) <s 0", op2(cx, EOP_SLT, bx, bv(cx, 0)), BOOL, hw_slt0);
	check(cx, "B(x) <s B(y)", op2(cx, EOP_SLT, bx, by), BOOL, hw_slt);
	check(cx, "B(x) <=s B(y)", op2(cx, EOP_SLE, bx, by), BOOL, hw_sle);
	check(cx, "B(x) <u B(y)", op2(cx, EOP_ULT, bx, by), BOOL, hw_ult);
	check(cx, "B(x) <=u B(y)", op2(cx, EOP_ULE, bx, by), BOOL, hw_ule);
	check(cx, "B(x) == B(y)", op2(cx, EOP_EQ, bx, by), BOOL, hw_eq);
	check(cx, "smax of bits", F(cx, op2(cx, EOP_SMAX, bx, by)), REAL, hw_smax);
	check(cx, "umin of bits", F(cx, op2(cx, EOP_UMIN, bx, by)), REAL, hw_umin);
	check(cx, "key of a register, max",
	      F(cx, J(cx, op2(cx, EOP_SMAX, J(cx, bx), J(cx, by)))), REAL, hw_kmax);
	/* the bits themselves stay opaque, their value exact where needed */
	const struct expr *cl = op2(cx, EOP_AND, bx, M);
	ok(e_has_opaque(cl), "B(|x|) stored as an integer is still opaque");
	(void)hw_clearbits;
}

/* ---- constants ---------------------------------------------------------------------- */

static const float kc;
static float kv;
static double hw_kconst_max(float a, float b, bool *s)
{
	(void)b;
	int32_t c = key(fb(kv)), m = key(fb(a)) > c ? key(fb(a)) : c;
	uint32_t r = (uint32_t)key((uint32_t)m);
	if ((r & 0x7f800000) == 0x7f800000)
		*s = true;        /* an infinity or NaN: no real */
	return bf(r);
}
static double hw_kconst_lt(float a, float b, bool *s)
{
	(void)b;
	(void)s;
	return key(fb(a)) < key(fb(kv));
}
static double hw_kconst_gt(float a, float b, bool *s)
{
	(void)b;
	(void)s;
	return key(fb(kv)) <= key(fb(a));
}

static void test_constants(struct ectx *cx)
{
	(void)kc;
	ok(F(cx, bv(cx, 0x3f800000)) == e_real(cx, 1.0), "F of literal bits folds (1.0)");
	ok(B(cx, e_real(cx, -2.5)) == bv(cx, fb(-2.5f)), "B of a real constant folds");
	ok(F(cx, bv(cx, 0x7f800000))->op == EOP_OPAQUE, "F of the bits of +inf stays opaque");
	/* a rebuilt node does not fold F of a constant: it may be a recorded input */
	const struct expr *k = op2(cx, EOP_ADD, ldu(cx, 0), bv(cx, 1));
	const struct expr *fk = F(cx, k);
	ok(fk->op == EOP_OPAQUE, "F(k + 1) is opaque");
	const struct expr *sub = e_op1(cx, EOP_OPAQUE, SORT_REAL, fk->u, bv(cx, 0x3f800000));
	ok(sub->op == EOP_OPAQUE, "the generic constructor keeps F(constant)");
	ectx_set_float_mem(cx, host_mem, NULL);
	static const float kvs[] = { -INFINITY, -1.5f, 0.0f, 2.0f, INFINITY, -1e-40f };
	for (size_t i = 0; i < sizeof kvs / sizeof kvs[0]; i++) {
		kv = kvs[i];
		const struct expr *c = bv(cx, (uint32_t)key(fb(kv)));
		char name[64];
		snprintf(name, sizeof name, "key max with the key of %g", kv);
		const struct expr *m = F(cx, J(cx, op2(cx, EOP_SMAX, c, J(cx, ldu(cx, 0)))));
		if (isinf(kv) && kv > 0)
			ok(m->op == EOP_OPAQUE, "%s: +inf has no real", name);
		else
			check(cx, name, m, REAL, hw_kconst_max);
		snprintf(name, sizeof name, "key < key of %g", kv);
		check(cx, name, op2(cx, EOP_SLT, J(cx, ldu(cx, 0)), c), BOOL, hw_kconst_lt);
		snprintf(name, sizeof name, "key of %g <= key", kv);
		check(cx, name, op2(cx, EOP_SLE, c, J(cx, ldu(cx, 0))), BOOL, hw_kconst_gt);
	}
	ectx_set_float_mem(cx, NULL, NULL);
}

/* ---- opaque functions ------------------------------------------------------------------ */

static void test_opaque(struct ectx *cx)
{
	struct arena a = ARENA_INIT;
	const struct expr *x = ldf(cx, 0), *t = e_tid(cx, 0);
	const struct expr *args[2] = { x, t };
	const struct expr *o = e_opaque(cx, (3ull << 32) | 5, SORT_BV(32), 2, args);
	ok(o->op == EOP_OPAQUE && e_has_opaque(o) && e_has_data(o) && e_has_thread(o), "opaque flags");
	ok(o == e_opaque(cx, (3ull << 32) | 5, SORT_BV(32), 2, args), "hash-consed");
	ok(o != e_opaque(cx, (3ull << 32) | 6, SORT_BV(32), 2, args), "another tag, another function");
	const struct expr *s = op2(cx, EOP_ADD, o, bv(cx, 4));
	ok(e_has_opaque(s) && e_first_opaque(s) == o, "found below a sum");
	ok(e_first_opaque(op2(cx, EOP_ADD, t, bv(cx, 1))) == NULL, "none in a thread expression");
	is_str(e_print(&a, o, 0), "opaque#300000005(load0.f32[0], tid.x)", "printed with its tag");
	is_str(e_print(&a, B(cx, x), 0), "bits.f32(load0.f32[0])", "a reinterpretation is printed by kind");
	struct pt p = { { 1, 2 } };
	struct evalue v;
	ok(!e_eval(s, EM_F32, leaf, &p, &v), "evaluation fails");
	uint32_t tid[3] = { 9, 0, 0 }, cta[3] = { 0, 0, 0 };
	const struct expr *at = e_at_thread(cx, s, tid, cta);
	ok(e_has_opaque(at) && e_first_opaque(at)->args[1] == e_bv(cx, 9, 32), "substitution reaches its arguments");
	const struct expr *bad[1] = { x };
	ok(e_op_check(EOP_OPAQUE, SORT_BV(16), EOPQ(EOPQ_BITS, ET_F32, 1), 1, bad) != NULL,
	   "bits of an f32 are 32 wide");
	ok(e_op_check(EOP_OPAQUE, SORT_REAL, EOPQ(EOPQ_FLOAT, ET_F32, 1), 1, bad) != NULL,
	   "a float of a real is refused");
	ok(e_op_check(EOP_OPAQUE, SORT_REAL, EOPQ(EOPQ_BITS, ET_U32, 1), 1, bad) != NULL,
	   "a reinterpretation needs a float type");
	ok(e_op_check(EOP_OPAQUE, 0, 0, 1, bad) != NULL, "an opaque value needs a sort");
	ok(e_reinterp(cx, 1, e_bv(cx, 0, 16), ET_F32) == NULL, "e_reinterp refuses a width mismatch");
	arena_release(&a);
}

int main(void)
{
	struct ectx *cx = ectx_new();
	test_opaque(cx);
	test_loaded_idioms(cx);
	test_register_idioms(cx);
	test_constants(cx);
	ectx_free(cx);
	return done_testing();
}
