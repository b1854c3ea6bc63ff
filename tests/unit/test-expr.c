/*
 * test-expr.c: the expression DAG (libcommon/expr.h): hash-consing, the
 * simplifying constructors (checked against reference computations at
 * random values), substitution, evaluation, printing, node tables.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "libcommon/expr.h"
#include "tap.h"

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t rnd64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t mask(unsigned w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }
static int64_t sx(uint64_t v, unsigned w) { return w >= 64 ? (int64_t)v : (int64_t)(v << (64 - w)) >> (64 - w); }

/* Reference semantics, written independently of expr-eval.c. */
static uint64_t ref(enum eop op, unsigned w, uint64_t x, uint64_t y)
{
	uint64_t m = mask(w);
	__int128 sxv = sx(x, w), syv = sx(y, w);
	switch (op) {
	case EOP_ADD: return (x + y) & m;
	case EOP_SUB: return (x - y) & m;
	case EOP_MUL: return (x * y) & m;
	case EOP_UDIV: return y ? x / y : m;
	case EOP_UREM: return y ? x % y : x;
	case EOP_SDIV:
		if (!y) return sxv < 0 ? 1 : m;
		return (uint64_t)(sxv / syv) & m;
	case EOP_SREM:
		if (!y) return x;
		return (uint64_t)(sxv % syv) & m;
	case EOP_MULHI_U: return (uint64_t)(((unsigned __int128)x * y) >> w) & m;
	case EOP_MULHI_S: return (uint64_t)((sxv * syv) >> w) & m;
	case EOP_SHL: return y >= w ? 0 : (x << y) & m;
	case EOP_LSHR: return y >= w ? 0 : x >> y;
	case EOP_ASHR: return (uint64_t)(sxv >> (y >= w ? w - 1 : y)) & m;
	case EOP_AND: return x & y;
	case EOP_OR: return x | y;
	case EOP_XOR: return x ^ y;
	case EOP_UMIN: return x < y ? x : y;
	case EOP_UMAX: return x > y ? x : y;
	case EOP_SMIN: return sxv < syv ? x : y;
	case EOP_SMAX: return sxv > syv ? x : y;
	case EOP_ULT: return x < y;
	case EOP_ULE: return x <= y;
	case EOP_SLT: return sxv < syv;
	case EOP_SLE: return sxv <= syv;
	case EOP_EQ: return x == y;
	default: abort();
	}
}

struct vals { uint64_t v[4]; long double r[4]; };

static bool leafval(const struct expr *leaf, struct evalue *out, void *user)
{
	const struct vals *v = user;
	if (leaf->op == EOP_VAR && leaf->u < 4) {
		out->u = v->v[leaf->u];
		out->r = v->r[leaf->u];
		return true;
	}
	if (leaf->op == EOP_INPUT) {
		out->r = v->r[leaf->off / 4 % 4];
		return true;
	}
	return false;
}

static uint64_t pick(unsigned w)
{
	switch (rnd64() % 6) {
	case 0: return 0;
	case 1: return 1;
	case 2: return mask(w);
	case 3: return 1ull << (w - 1);
	case 4: return rnd64() % (w + 2);
	default: return rnd64() & mask(w);
	}
}

static void test_bv_fold(struct ectx *cx)
{
	static const enum eop ops[] = {
		EOP_ADD, EOP_SUB, EOP_MUL, EOP_UDIV, EOP_SDIV, EOP_UREM, EOP_SREM, EOP_MULHI_U,
		EOP_MULHI_S, EOP_SHL, EOP_LSHR, EOP_ASHR, EOP_AND, EOP_OR, EOP_XOR, EOP_UMIN,
		EOP_UMAX, EOP_SMIN, EOP_SMAX, EOP_ULT, EOP_ULE, EOP_SLT, EOP_SLE, EOP_EQ,
	};
	static const unsigned widths[] = { 8, 16, 32, 64 };
	for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
		int bad_fold = 0, bad_eval = 0;
		for (size_t wi = 0; wi < 4; wi++) {
			unsigned w = widths[wi];
			const struct expr *va = e_var(cx, 0, SORT_BV(w)), *vb = e_var(cx, 1, SORT_BV(w));
			const struct expr *sym = e_op2(cx, ops[o], va, vb);
			for (int k = 0; k < 300; k++) {
				uint64_t x = pick(w), y = pick(w);
				uint64_t want = ref(ops[o], w, x, y);
				const struct expr *c = e_op2(cx, ops[o], e_bv(cx, x, w), e_bv(cx, y, w));
				uint64_t got = c->op == EOP_BOOL || c->op == EOP_BV ? c->u : ~0ull;
				if (got != want && bad_fold++ < 3)
					printf("# %s w%u %llx %llx: fold %llx want %llx\n", eop_name(ops[o]), w,
					       (unsigned long long)x, (unsigned long long)y,
					       (unsigned long long)got, (unsigned long long)want);
				struct vals v = { { x, y, 0, 0 }, { 0 } };
				struct evalue ev;
				if (!e_eval(sym, EM_F64, leafval, &v, &ev))
					bad_eval++;
				else if ((sym->sort == SORT_BOOL ? ev.b : ev.u) != want && bad_eval++ < 3)
					printf("# %s w%u %llx %llx: eval %llx want %llx\n", eop_name(ops[o]), w,
					       (unsigned long long)x, (unsigned long long)y,
					       (unsigned long long)ev.u, (unsigned long long)want);
				/* rewrites with one constant side must agree too */
				const struct expr *half = e_op2(cx, ops[o], va, e_bv(cx, y, w));
				struct evalue eh;
				if (!e_eval(half, EM_F64, leafval, &v, &eh) ||
				    (half->sort == SORT_BOOL ? eh.b : eh.u) != want) {
					if (bad_eval++ < 3)
						printf("# %s w%u x op %llx: rewritten wrong\n", eop_name(ops[o]), w,
						       (unsigned long long)y);
				}
			}
		}
		ok(!bad_fold && !bad_eval, "bv %s folds and evaluates like the reference", eop_name(ops[o]));
	}
	/* unary and width-changing ops */
	int bad = 0;
	for (int k = 0; k < 2000; k++) {
		unsigned w = widths[k % 4];
		uint64_t x = pick(w);
		const struct expr *c = e_bv(cx, x, w);
		if (e_op1(cx, EOP_NOT, 0, 0, c)->u != (~x & mask(w))) bad++;
		if (e_op1(cx, EOP_NEG, 0, 0, c)->u != (-x & mask(w))) bad++;
		if (e_op1(cx, EOP_POPC, 0, 0, c)->u != (uint64_t)__builtin_popcountll(x)) bad++;
		uint64_t clz = 0;
		for (int i = (int)w - 1; i >= 0 && !((x >> i) & 1); i--) clz++;
		if (e_op1(cx, EOP_CLZ, 0, 0, c)->u != clz) bad++;
		uint64_t br = 0;
		for (unsigned i = 0; i < w; i++) if ((x >> i) & 1) br |= 1ull << (w - 1 - i);
		if (e_op1(cx, EOP_BREV, 0, 0, c)->u != br) bad++;
		if (w < 64) {
			if (e_resize(cx, c, 64, true)->u != (uint64_t)sx(x, w)) bad++;
			if (e_resize(cx, c, 64, false)->u != x) bad++;
		}
		if (w > 8 && e_op1(cx, EOP_EXTRACT, SORT_BV(8), 3, c)->u != ((x >> 3) & 0xff)) bad++;
	}
	ok(!bad, "unary, extension and extract folding (%d wrong)", bad);
}

static void test_hashcons(struct ectx *cx)
{
	const struct expr *x = e_var(cx, 7, SORT_REAL), *y = e_var(cx, 8, SORT_REAL);
	ok(x == e_var(cx, 7, SORT_REAL), "leaves are hash-consed");
	ok(e_op2(cx, EOP_FADD, x, y) == e_op2(cx, EOP_FADD, x, y), "operators are hash-consed");
	ok(e_op2(cx, EOP_FADD, x, y) == e_op2(cx, EOP_FADD, y, x), "fadd is commutative");
	const struct expr *z = e_var(cx, 9, SORT_REAL);
	ok(e_op2(cx, EOP_FADD, e_op2(cx, EOP_FADD, x, y), z) ==
	   e_op2(cx, EOP_FADD, x, e_op2(cx, EOP_FADD, y, z)), "fadd is flattened");
	ok(e_real(cx, -0.0) == e_real(cx, 0.0), "one zero");
	ok(e_input(cx, 1, 8, ET_F32) != e_input(cx, 1, 8, ET_F16), "element type distinguishes inputs");
}

static void test_affine(struct ectx *cx)
{
	const struct expr *tid = e_tid(cx, 0), *cta = e_ctaid(cx, 0);
	const struct expr *four = e_bv(cx, 4, 32), *eight = e_bv(cx, 8, 32);
	const struct expr *t4 = e_op2(cx, EOP_MUL, tid, four);
	const struct expr *a = e_op2(cx, EOP_ADD, t4, eight);
	ok(e_op2(cx, EOP_SUB, a, t4) == eight, "(tid*4 + 8) - tid*4 = 8");
	ok(e_op2(cx, EOP_SHL, tid, e_bv(cx, 2, 32)) == t4, "tid << 2 = tid * 4");
	const struct expr *b = e_op2(cx, EOP_ADD, eight, e_op2(cx, EOP_ADD, tid, e_op2(cx, EOP_ADD, tid, e_op2(cx, EOP_MUL, tid, e_bv(cx, 2, 32)))));
	ok(b == a, "8 + (tid + (tid + 2*tid)) = tid*4 + 8");
	const struct expr *c = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, cta, e_bv(cx, 1024, 32)), tid);
	const struct expr *d = e_op2(cx, EOP_ADD, tid, e_op2(cx, EOP_SHL, cta, e_bv(cx, 10, 32)));
	ok(c == d, "1024*ctaid + tid = tid + (ctaid << 10)");
	ok(e_op2(cx, EOP_SUB, tid, tid) == e_bv(cx, 0, 32), "tid - tid = 0");
	ok(e_op1(cx, EOP_NEG, 0, 0, e_op1(cx, EOP_NEG, 0, 0, tid)) == tid, "--tid = tid");
	ok(e_is_false(e_op2(cx, EOP_EQ, a, t4)), "tid*4+8 == tid*4 is false");
	ok(e_is_true(e_op2(cx, EOP_EQ, e_op2(cx, EOP_ADD, tid, four), e_op2(cx, EOP_ADD, four, tid))), "tid+4 == 4+tid");
	uint64_t k;
	struct affine_term terms[4];
	int n = e_affine(e_op2(cx, EOP_ADD, c, eight), &k, terms, 4);
	ok(n == 2 && k == 8 && terms[0].coef + terms[1].coef == 1025, "e_affine of 1024*ctaid + tid + 8");
	ok(e_affine(c, &k, terms, 1) == -1, "e_affine reports too many terms");
	/* wrap-around: coefficients are mod 2^w */
	const struct expr *big = e_op2(cx, EOP_MUL, tid, e_bv(cx, 0x80000000u, 32));
	ok(e_op2(cx, EOP_ADD, big, big) == e_bv(cx, 0, 32), "2^31*tid + 2^31*tid = 0 mod 2^32");
	/* 64-bit addresses from 32-bit indices */
	const struct expr *w64 = e_resize(cx, a, 64, false);
	ok(e_resize(cx, w64, 32, false) == a, "trunc(zext(x)) = x");
	const struct expr *base = e_var(cx, 1, SORT_BV(64));
	const struct expr *addr = e_op2(cx, EOP_ADD, base, e_op2(cx, EOP_MUL, e_resize(cx, tid, 64, false), e_bv(cx, 4, 64)));
	const struct expr *addr2 = e_op2(cx, EOP_ADD, e_op2(cx, EOP_SHL, e_resize(cx, tid, 64, false), e_bv(cx, 2, 32)), base);
	ok(addr == addr2, "base + zext(tid)*4 = (zext(tid) << 2) + base");
	ok(e_resize(cx, e_resize(cx, tid, 64, true), 32, false) == tid, "trunc(sext(tid)) = tid");
	ok(e_resize(cx, e_resize(cx, e_resize(cx, tid, 48, false), 64, true), 64, false)->op == EOP_ZEXT, "sext(zext(x)) = zext(x)");
	const struct expr *low = e_op1(cx, EOP_EXTRACT, SORT_BV(32), 0, e_op2(cx, EOP_ADD, e_resize(cx, tid, 64, false), e_bv(cx, 0x100000005ull, 64)));
	ok(low == e_op2(cx, EOP_ADD, tid, e_bv(cx, 5, 32)), "low half of a 64-bit sum");
}

/* The rewrites of division, remainder and sign tests that make nvcc's
 * tile coordinates affine again: each checked against the reference at
 * many values, and the folded forms checked by shape. */
static void test_div_rules(struct ectx *cx)
{
	static const uint64_t divs[] = { 1, 2, 3, 7, 62, 64, 255, 3844, 0x8000, 0x10001 };
	static const unsigned widths[] = { 8, 16, 32, 64 };
	int bad = 0;
	for (size_t wi = 0; wi < 4; wi++) {
		unsigned w = widths[wi];
		const struct expr *y = e_var(cx, 0, SORT_BV(w)), *z = e_var(cx, 1, SORT_BV(w));
		for (int k = 0; k < 400; k++) {
			uint64_t c1 = divs[k % 10] & mask(w), c2 = divs[k / 10 % 10] & mask(w), m = c1 ? c1 : 3;
			uint64_t c = pick(w);
			enum eop dv = k % 2 ? EOP_SDIV : EOP_UDIV, rm = k % 2 ? EOP_SREM : EOP_UREM;
			/* (y / c1) / c2 */
			const struct expr *q2 = e_op2(cx, dv, e_op2(cx, dv, y, e_bv(cx, c1, w)), e_bv(cx, c2, w));
			/* c*(y % m) + c*m*(y / m) + z */
			const struct expr *rc = e_op2(cx, EOP_ADD, e_op2(cx, EOP_ADD,
			                        e_op2(cx, EOP_MUL, e_op2(cx, rm, y, e_bv(cx, m, w)), e_bv(cx, c, w)),
			                        e_op2(cx, EOP_MUL, e_op2(cx, dv, y, e_bv(cx, m, w)), e_bv(cx, c * m, w))), z);
			/* (y | z) >= 0, (y & z) < 0 */
			const struct expr *so = e_op2(cx, EOP_SLT, e_bv(cx, mask(w), w), e_op2(cx, EOP_OR, y, z));
			const struct expr *sa = e_op2(cx, EOP_SLT, e_op2(cx, EOP_AND, y, z), e_bv(cx, 0, w));
			for (int t = 0; t < 8; t++) {
				uint64_t yv = pick(w), zv = pick(w);
				struct vals v = { { yv, zv, 0, 0 }, { 0 } };
				struct evalue e1, e2, e3, e4;
				uint64_t want1 = ref(dv, w, ref(dv, w, yv, c1), c2);
				uint64_t want2 = (c * ref(rm, w, yv, m) + c * m * ref(dv, w, yv, m) + zv) & mask(w);
				bool want3 = sx(yv | zv, w) >= 0, want4 = sx(yv & zv, w) < 0;
				if (!e_eval(q2, EM_EXACT, leafval, &v, &e1) || e1.u != want1 ||
				    !e_eval(rc, EM_EXACT, leafval, &v, &e2) || e2.u != want2 ||
				    !e_eval(so, EM_EXACT, leafval, &v, &e3) || e3.b != want3 ||
				    !e_eval(sa, EM_EXACT, leafval, &v, &e4) || e4.b != want4) {
					if (bad++ < 3)
						printf("# w%u %s c1 %llx c2 %llx c %llx y %llx z %llx\n", w, eop_name(dv),
						       (unsigned long long)c1, (unsigned long long)c2, (unsigned long long)c,
						       (unsigned long long)yv, (unsigned long long)zv);
				}
			}
		}
	}
	ok(!bad, "nested division, remainder recombination and sign tests of | and & agree with the reference (%d wrong)", bad);

	const struct expr *i = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 2), e_bv(cx, 512, 32)), e_tid(cx, 0));
	const struct expr *k62 = e_bv(cx, 62, 32);
	const struct expr *q = e_op2(cx, EOP_SDIV, i, k62);
	ok(e_op2(cx, EOP_SDIV, q, k62) == e_op2(cx, EOP_SDIV, i, e_bv(cx, 3844, 32)), "(i / 62) / 62 = i / 3844");
	ok(e_op2(cx, EOP_UDIV, e_op2(cx, EOP_UDIV, i, e_bv(cx, 0x10000, 32)), e_bv(cx, 0x10000, 32))->args[0]->op == EOP_UDIV,
	   "a product of divisors past 2^32 is not folded");
	const struct expr *ow = e_op2(cx, EOP_SUB, i, e_op2(cx, EOP_MUL, q, k62));
	const struct expr *oh = e_op2(cx, EOP_SREM, q, k62);
	const struct expr *od = e_op2(cx, EOP_SDIV, i, e_bv(cx, 3844, 32));
	const struct expr *back = e_op2(cx, EOP_ADD, e_op2(cx, EOP_ADD, ow, e_op2(cx, EOP_MUL, oh, k62)),
	                                e_op2(cx, EOP_MUL, od, e_bv(cx, 3844, 32)));
	ok(back == i, "ow + 62*oh + 3844*od of a 62x62 tile is its index again");
	ok(e_op2(cx, EOP_ADD, e_op2(cx, EOP_UREM, i, k62), e_op2(cx, EOP_MUL, e_op2(cx, EOP_SDIV, i, k62), k62)) != i,
	   "an unsigned remainder and a signed quotient are not recombined");
	const struct expr *sg = e_op2(cx, EOP_SLT, e_bv(cx, 0xffffffffu, 32), e_op2(cx, EOP_OR, oh, od));
	ok(sg->op == EOP_LAND, "(oh | od) > -1 is oh >= 0 && od >= 0");
}

static void test_bool_ite(struct ectx *cx)
{
	const struct expr *p = e_var(cx, 1, SORT_BOOL), *q = e_var(cx, 2, SORT_BOOL);
	const struct expr *x = e_var(cx, 3, SORT_REAL), *y = e_var(cx, 4, SORT_REAL);
	ok(e_ite(cx, e_bool(cx, true), x, y) == x, "ite(true, x, y) = x");
	ok(e_ite(cx, p, x, x) == x, "ite(p, x, x) = x");
	ok(e_ite(cx, e_not(cx, p), x, y) == e_ite(cx, p, y, x), "ite(!p, x, y) = ite(p, y, x)");
	ok(e_not(cx, e_not(cx, p)) == p, "!!p = p");
	ok(e_and(cx, p, q) == e_and(cx, q, p), "and commutes");
	ok(e_and(cx, p, e_bool(cx, true)) == p, "p && true = p");
	ok(e_is_false(e_and(cx, p, e_not(cx, p))), "p && !p = false");
	ok(e_is_true(e_or(cx, p, e_not(cx, p))), "p || !p = true");
	ok(e_and(cx, e_and(cx, p, q), p) == e_and(cx, p, q), "and flattens and dedupes");
	ok(e_ite(cx, p, e_bool(cx, true), q) == e_or(cx, p, q), "ite(p, true, q) = p || q");
	ok(e_is_false(e_op2(cx, EOP_FLT, x, x)), "x < x is false");
	ok(e_is_true(e_op2(cx, EOP_FLE, e_real(cx, 1), e_real(cx, 2))), "1 <= 2");
	ok(e_ite(cx, p, e_ite(cx, p, x, y), y) == e_ite(cx, p, x, y), "nested ite on the same condition");
}

static void test_reals(struct ectx *cx)
{
	const struct expr *x = e_var(cx, 5, SORT_REAL), *y = e_var(cx, 6, SORT_REAL);
	const struct expr *one = e_real(cx, 1), *zero = e_real(cx, 0);
	ok(e_op2(cx, EOP_FMUL, x, one) == x, "x*1 = x");
	ok(e_op2(cx, EOP_FADD, x, zero) == x, "x+0 = x");
	ok(e_op2(cx, EOP_FMUL, x, zero) == zero, "x*0 = 0");
	ok(e_op2(cx, EOP_FSUB, x, x) == zero, "x-x = 0");
	ok(e_op1(cx, EOP_FNEG, 0, 0, e_op1(cx, EOP_FNEG, 0, 0, x)) == x, "--x = x");
	ok(e_op2(cx, EOP_FADD, e_real(cx, 0.5), e_real(cx, 0.25)) == e_real(cx, 0.75), "exact sum folds");
	const struct expr *inexact = e_op2(cx, EOP_FADD, e_real(cx, 0.1), e_real(cx, 0.2));
	ok(inexact->op == EOP_FADD, "inexact sum 0.1 + 0.2 is not folded");
	ok(e_op2(cx, EOP_FADD, e_real(cx, 0.2), e_real(cx, 0.1)) == inexact, "but still canonical");
	ok(e_op2(cx, EOP_FMUL, e_op2(cx, EOP_FMUL, x, e_real(cx, 2)), e_real(cx, 3)) ==
	   e_op2(cx, EOP_FMUL, e_real(cx, 6), x), "constants of products fold");
	ok(e_op2(cx, EOP_FMUL, e_op1(cx, EOP_FNEG, 0, 0, x), e_op1(cx, EOP_FNEG, 0, 0, y)) ==
	   e_op2(cx, EOP_FMUL, x, y), "(-x)*(-y) = x*y");
	ok(e_op2(cx, EOP_FDIV, x, e_real(cx, 4)) == e_op2(cx, EOP_FMUL, x, e_real(cx, 0.25)), "x/4 = x*0.25");
	ok(e_op2(cx, EOP_FDIV, x, e_real(cx, 3))->op == EOP_FDIV, "x/3 stays a division");
	ok(e_op1(cx, EOP_S2R, 0, 0, e_bv(cx, 0xffffffff, 32)) == e_real(cx, -1), "s2r(-1)");
	ok(e_op1(cx, EOP_U2R, 0, 0, e_bv(cx, 0xffffffff, 32)) == e_real(cx, 4294967295.0), "u2r(2^32-1)");
	ok(e_op1(cx, EOP_R2S, SORT_BV(32), RM_RN, e_real(cx, 2.5))->u == 2, "r2s rn 2.5 = 2");
	ok(e_op1(cx, EOP_R2S, SORT_BV(32), RM_RN, e_real(cx, -3.5))->u == (uint32_t)-4, "r2s rn -3.5 = -4");
	ok(e_op1(cx, EOP_R2S, SORT_BV(32), RM_RZ, e_real(cx, -3.7))->u == (uint32_t)-3, "r2s rz -3.7 = -3");
	ok(e_op1(cx, EOP_R2S, SORT_BV(8), RM_RZ, e_real(cx, 1000))->u == 127, "r2s saturates");
	ok(e_op1(cx, EOP_R2U, SORT_BV(8), RM_RM, e_real(cx, -5))->u == 0, "r2u saturates at 0");
	const struct expr *t = e_fun(cx, EF_TANH, 1, &x);
	ok(t == e_fun(cx, EF_TANH, 1, &x) && t->op == EOP_FUN, "tanh(x) is a function node");
	ok(e_op2(cx, EOP_FMAX, x, y) == e_op2(cx, EOP_FMAX, y, x), "fmax commutes");
	ok(e_op1(cx, EOP_FABS, 0, 0, e_op1(cx, EOP_FNEG, 0, 0, x)) == e_op1(cx, EOP_FABS, 0, 0, x), "|-x| = |x|");
	/* a flag stored as a byte and read back (torch.where on s == 0) */
	const struct expr *c = e_op2(cx, EOP_EQ, x, zero);
	const struct expr *flag = e_ite(cx, c, e_real(cx, 1), zero);
	const struct expr *byte = e_op1(cx, EOP_R2U, SORT_BV(8), RM_RZ, flag);
	ok(byte == e_ite(cx, c, e_bv(cx, 1, 8), e_bv(cx, 0, 8)), "r2u of an ite of constants: the ite of the converted");
	ok(e_op1(cx, EOP_U2R, 0, 0, byte) == flag, "and u2r back: the flag");
	ok(e_op2(cx, EOP_EQ, zero, flag) == e_not(cx, c), "0 == (c ? 1 : 0) is !c");
	ok(e_op2(cx, EOP_EQ, flag, e_real(cx, 1)) == c, "(c ? 1 : 0) == 1 is c");
	ok(e_op2(cx, EOP_FLT, e_real(cx, 2), flag) == e_bool(cx, false), "2 < (c ? 1 : 0) is false");
}

/* The tagged infinities of masked_fill(-inf): IEEE arithmetic where it
 * gives a number or an infinity of one sign, undefined elsewhere. */
static void test_infinities(struct ectx *cx)
{
	const struct expr *x = e_var(cx, 5, SORT_REAL);
	const struct expr *ninf = e_undef_tag(cx, SORT_REAL, E_UNDEF_NINF);
	const struct expr *pinf = e_undef_tag(cx, SORT_REAL, E_UNDEF_PINF);
	ok(e_fun(cx, EF_EXP, 1, &ninf) == e_real(cx, 0), "exp(-inf) = 0");
	ok(e_fun(cx, EF_EXP, 1, &pinf)->op == EOP_FUN, "exp(inf) stays");
	ok(e_fun(cx, EF_SIGMOID, 1, &ninf) == e_real(cx, 0) &&
	   e_fun(cx, EF_SIGMOID, 1, &pinf) == e_real(cx, 1), "sigmoid(-inf) = 0, sigmoid(inf) = 1");
	ok(e_fun(cx, EF_TANH, 1, &ninf) == e_real(cx, -1), "tanh(-inf) = -1");
	ok(e_op2(cx, EOP_FSUB, ninf, x) == ninf, "-inf - x = -inf");
	ok(e_fun(cx, EF_EXP, 1, (const struct expr *[]){ e_op2(cx, EOP_FSUB, ninf, x) }) == e_real(cx, 0),
	   "exp(-inf - max) = 0 (a masked softmax)");
	ok(e_op1(cx, EOP_FNEG, 0, 0, ninf) == pinf, "-(-inf) = inf");
	ok(e_op2(cx, EOP_FMUL, ninf, e_real(cx, 0.125)) == ninf, "-inf * 0.125 = -inf");
	ok(e_op2(cx, EOP_FMUL, ninf, e_real(cx, -2)) == pinf, "-inf * -2 = inf");
	const struct expr *nan = e_op2(cx, EOP_FMUL, ninf, e_real(cx, 0));
	ok(!e_is_inf(nan, 0) && nan != e_real(cx, 0) && (nan->flags & EXPR_F_UNDEF),
	   "-inf * 0 is neither an infinity nor 0: undefined");
	ok(!e_is_inf(e_op2(cx, EOP_FMUL, ninf, x), 0), "-inf * x (sign unknown) is no infinity");
	ok(!e_is_inf(e_op2(cx, EOP_FADD, ninf, pinf), 0), "-inf + inf is no infinity");
}

static bool tid_leaf(const struct expr *leaf, struct evalue *out, void *user)
{
	(void)user;
	if (leaf->op == EOP_INPUT) {
		out->r = 1;
		return true;
	}
	return false;
}

static const struct expr *swap_xy(struct ectx *cx, const struct expr *leaf, void *user)
{
	(void)user;
	if (leaf->op == EOP_VAR && leaf->u == 5)
		return e_var(cx, 6, SORT_REAL);
	if (leaf->op == EOP_VAR && leaf->u == 6)
		return e_var(cx, 5, SORT_REAL);
	return NULL;
}

static void test_subst(struct ectx *cx)
{
	const struct expr *x = e_var(cx, 5, SORT_REAL), *y = e_var(cx, 6, SORT_REAL);
	const struct expr *e = e_op2(cx, EOP_FSUB, x, y);
	const struct expr *s = e_subst(cx, e, swap_xy, NULL);
	ok(s == e_op2(cx, EOP_FSUB, y, x), "substitution swaps variables");
	ok(e_subst(cx, s, swap_xy, NULL) == e, "and back");

	const struct expr *tid = e_tid(cx, 0), *cta = e_ctaid(cx, 1);
	const struct expr *idx = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, cta, e_bv(cx, 256, 32)), tid);
	const struct expr *addr = e_op2(cx, EOP_MUL, e_resize(cx, idx, 64, false), e_bv(cx, 4, 64));
	const struct expr *v = e_load(cx, 2, ET_F32, addr);
	const struct expr *cond = e_op2(cx, EOP_ULT, tid, e_bv(cx, 100, 32));
	const struct expr *val = e_ite(cx, cond, e_op2(cx, EOP_FADD, v, e_input(cx, 0, 0, ET_F32)), e_real(cx, 0));
	uint32_t t[3] = { 3, 0, 0 }, c[3] = { 0, 2, 0 };
	const struct expr *r = e_at_thread(cx, val, t, c);
	ok(r->op == EOP_FADD && !e_has_thread(r), "e_at_thread removes tid/ctaid and the branch");
	const struct expr *ld = r->args[0]->op == EOP_LOAD ? r->args[0] : r->args[1];
	ok(ld->op == EOP_LOAD && ld->args[0] == e_bv(cx, (2 * 256 + 3) * 4, 64), "load address is concrete");
	uint32_t t2[3] = { 200, 0, 0 };
	ok(e_at_thread(cx, val, t2, c) == e_real(cx, 0), "other arm for tid 200");
	ok(e_at_thread(cx, e_input(cx, 0, 0, ET_F32), t, c) == e_input(cx, 0, 0, ET_F32), "no threads: same node");
	(void)tid_leaf;
}


/* e_at_thread computes the thread-only parts instead of building them: it
 * must give the node the constructors give when tid and ctaid are
 * replaced by constants (e_subst), for every op it computes. */
struct coords { uint32_t tid[3], ctaid[3]; };

static const struct expr *coord_leaf(struct ectx *cx, const struct expr *leaf, void *user)
{
	const struct coords *c = user;
	if (leaf->op == EOP_TID)
		return e_bv(cx, c->tid[leaf->u], 32);
	if (leaf->op == EOP_CTAID)
		return e_bv(cx, c->ctaid[leaf->u], 32);
	return NULL;
}

static const struct expr *rand_int(struct ectx *cx, unsigned *seed, int depth)
{
	static const enum eop bin[] = {
		EOP_ADD, EOP_SUB, EOP_MUL, EOP_UDIV, EOP_SDIV, EOP_UREM, EOP_SREM, EOP_MULHI_U,
		EOP_MULHI_S, EOP_SHL, EOP_LSHR, EOP_ASHR, EOP_AND, EOP_OR, EOP_XOR, EOP_UMIN,
		EOP_UMAX, EOP_SMIN, EOP_SMAX,
	};
	unsigned r = (unsigned)rand_r(seed);
	if (depth == 0 || r % 7 == 0) {
		switch (r % 4) {
		case 0: return e_tid(cx, r / 4 % 3);
		case 1: return e_ctaid(cx, r / 4 % 3);
		default: return e_bv(cx, (uint64_t)(r / 4 % 9) - 4, 32);
		}
	}
	const struct expr *a = rand_int(cx, seed, depth - 1), *b = rand_int(cx, seed, depth - 1);
	switch (r / 7 % 6) {
	case 0: {
		static const enum eop cmp[] = { EOP_EQ, EOP_ULT, EOP_ULE, EOP_SLT, EOP_SLE };
		const struct expr *c = e_op2(cx, cmp[r / 42 % 5], a, b);
		const struct expr *d = e_op2(cx, EOP_ULT, b, e_bv(cx, 3, 32));
		c = r / 210 % 2 ? e_and(cx, c, e_not(cx, d)) : e_or(cx, c, d);
		return e_ite(cx, c, a, b);
	}
	case 1:
		return e_resize(cx, e_resize(cx, a, 16 + r / 42 % 48, r / 2000 % 2), 32, r / 4000 % 2);
	case 2: {
		const struct expr *c = e_op2(cx, EOP_SLT, a, b);
		return e_op1(cx, EOP_BOOL2BV, SORT_BV(32), 0, c);
	}
	case 3:
		return e_op1(cx, r / 42 % 2 ? EOP_POPC : EOP_CLZ, SORT_BV(32), 0, a);
	default:
		return e_op2(cx, bin[r / 42 % (sizeof bin / sizeof *bin)], a, b);
	}
}

static void test_at_thread_computed(struct ectx *cx)
{
	unsigned seed = 7;
	int bad = 0;
	struct arena ar;
	arena_init(&ar);
	for (int i = 0; i < 3000; i++) {
		const struct expr *x = rand_int(cx, &seed, 4);
		/* data above and below the thread parts: a load at x, an arm */
		const struct expr *ld = e_load(cx, 3, ET_F32, e_resize(cx, x, 64, false));
		const struct expr *v = e_ite(cx, e_op2(cx, EOP_ULT, x, e_bv(cx, 5, 32)),
		                             e_op2(cx, EOP_FADD, ld, e_input(cx, 0, 4, ET_F32)), e_real(cx, 1));
		struct coords c = { { (uint32_t)rand_r(&seed) % 70, (uint32_t)rand_r(&seed) % 3, 0 },
		                    { (uint32_t)rand_r(&seed) % 5, 1, (uint32_t)rand_r(&seed) % 2 } };
		for (int k = 0; k < 2; k++) {
			const struct expr *e = k ? v : x;
			if (e_at_thread(cx, e, c.tid, c.ctaid) != e_subst(cx, e, coord_leaf, &c) && bad++ < 3)
				printf("# differs: %s\n", e_print(&ar, e, 300));
		}
	}
	arena_release(&ar);
	ok(bad == 0, "e_at_thread gives the constructors' node on 6000 random expressions (%d differ)", bad);

	uint32_t t[3] = { 5, 0, 0 }, t2[3] = { 6, 0, 0 }, z[3] = { 0, 0, 0 };
	const struct expr *tid = e_tid(cx, 0);
	const struct expr *a = e_load(cx, 3, ET_F32, e_resize(cx, e_op2(cx, EOP_MUL, tid, e_bv(cx, 4, 32)), 64, false));
	const struct expr *sq = e_op2(cx, EOP_FMUL, a, a);
	struct e_thread_memo *m = e_thread_memo_new(cx, t, z);
	const struct expr *r1 = e_thread_memo_at(m, a), *r2 = e_thread_memo_at(m, sq);
	ok(e_thread_memo_is(m, t, z) && !e_thread_memo_is(m, t2, z), "a thread memo knows its thread");
	ok(r2 == e_op2(cx, EOP_FMUL, r1, r1) && r1 == e_at_thread(cx, a, t, z),
	   "expressions at one thread share a memo");
	e_thread_memo_free(m);
	e_thread_memo_free(NULL);
}

static void test_eval(struct ectx *cx)
{
	const struct expr *a = e_input(cx, 0, 0, ET_F32), *b = e_input(cx, 0, 4, ET_F32);
	const struct expr *s = e_op2(cx, EOP_FADD, a, b);
	struct vals v = { { 0 }, { 1e8L, 1, 0, 0 } };
	struct evalue r32, r64, rex;
	ok(e_eval(s, EM_F32, leafval, &v, &r32) && r32.r == 1e8L, "f32: 1e8 + 1 = 1e8");
	ok(e_eval(s, EM_F64, leafval, &v, &r64) && r64.r == 100000001.0L, "f64: 1e8 + 1 = 100000001");
	const struct expr *t = e_fun(cx, EF_TANH, 1, &a);
	v.r[0] = 0.5;
	ok(e_eval(t, EM_EXACT, leafval, &v, &rex) && fabsl(rex.r - tanhl(0.5L)) < 1e-18L, "exact tanh");
	ok(e_eval(t, EM_F32, leafval, &v, &r32) && r32.r == tanhf(0.5f), "f32 tanh");
	ok(!e_eval(e_var(cx, 99, SORT_REAL), EM_F64, leafval, &v, &r32), "unknown leaf fails");
	struct evalue ru;
	ok(e_eval(e_op2(cx, EOP_FADD, a, e_undef(cx, SORT_REAL)), EM_F64, leafval, &v, &ru) && ru.undef,
	   "undef propagates");
}

static void test_print(struct ectx *cx)
{
	struct arena a = ARENA_INIT;
	const struct expr *x = e_input(cx, 0, 12, ET_F32), *y = e_input(cx, 1, 12, ET_F32);
	const struct expr *e = e_op2(cx, EOP_FMUL, e_op2(cx, EOP_FADD, x, y), e_real(cx, 2));
	is_str(e_print(&a, e, 0), "(in0[3] + in1[3]) * 2", "print real expression");
	const struct expr *tid = e_tid(cx, 0);
	const struct expr *i = e_op2(cx, EOP_SUB, e_op2(cx, EOP_MUL, tid, e_bv(cx, 4, 32)), e_bv(cx, 8, 32));
	is_str(e_print(&a, i, 0), "tid.x * 4 - 8", "print affine sum");
	is_str(e_print(&a, e_elem(cx, 5, 48, ET_F32), 0), "v5[12]", "print elem");
	is_str(e_print(&a, e_fun(cx, EF_TANH, 1, &x), 0), "tanh(in0[3])", "print function");
	const char *cut = e_print(&a, e, 6);
	ok(strlen(cut) == 9 && strcmp(cut + 6, "...") == 0, "print cuts at max: %s", cut);
	is_str(e_print(&a, e_op2(cx, EOP_FSUB, x, y), 0), "in0[3] - in1[3]", "print subtraction");
	arena_release(&a);
}

static void test_etable(struct ectx *cx)
{
	const struct expr *x = e_var(cx, 5, SORT_REAL), *y = e_var(cx, 6, SORT_REAL);
	const struct expr *s = e_op2(cx, EOP_FADD, x, y);
	const struct expr *p = e_op2(cx, EOP_FMUL, s, s);
	struct etable *t = etable_new();
	uint32_t ip = etable_add(t, p);
	ok(etable_len(t) == 4 && ip == 3, "table holds 4 nodes, root last");
	bool order = true;
	for (uint32_t i = 0; i < etable_len(t); i++) {
		const struct expr *e = etable_get(t, i);
		for (unsigned k = 0; k < e->nargs; k++)
			order &= etable_index(t, e->args[k]) < i;
	}
	ok(order, "children come before parents");
	ok(etable_add(t, s) == etable_index(t, s) && etable_len(t) == 4, "adding again is a lookup");
	etable_free(t);
}

/* A sum grown one term at a time (a loop's accumulator, 4096 terms)
 * is the node the n-ary sum of the same terms is, in any order the
 * terms come: the flattened chunks are merged as sorted runs. */
static void test_long_sum(void)
{
	struct ectx *cx = ectx_new();
	enum { N = 4096 };
	const struct expr **t = malloc(N * sizeof *t);
	for (unsigned i = 0; i < N; i++)        /* ids in a scrambled order */
		t[i] = e_input(cx, 0, 4 * (uint64_t)((i * 2654435761u) % 100003u), ET_F32);
	const struct expr *up = NULL, *down = NULL;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 0; i < N; i++) {
		up = up ? e_op2(cx, EOP_FADD, up, t[i]) : t[i];
		down = down ? e_op2(cx, EOP_FADD, t[N - 1 - i], down) : t[N - 1 - i];
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	/* the same multiset in one call, built in chunks of E_MAX_ARGS */
	const struct expr *all = NULL;
	for (unsigned i = 0; i < N; i += 200) {
		unsigned k = N - i < 200 ? N - i : 200;
		const struct expr *part = e_op(cx, EOP_FADD, SORT_REAL, 0, k, t + i);
		all = all ? e_op2(cx, EOP_FADD, part, all) : part;
	}
	ok(up == down && up == all, "a 4096-term sum grown term by term, either way, is the n-ary sum");
	printf("# 2 x 4096 additions to a growing sum: %.2f s\n", s);
	free(t);
	ectx_free(cx);
}

/* The sum of t[0..n) made in one n-ary call per 200 terms. */
static const struct expr *sum_at_once(struct ectx *cx, const struct expr *const *t, unsigned n)
{
	const struct expr *all = NULL;
	for (unsigned i = 0; i < n; i += 200) {
		unsigned k = n - i < 200 ? n - i : 200;
		const struct expr *part = e_op(cx, EOP_FADD, SORT_REAL, 0, k, t + i);
		all = all ? e_op2(cx, EOP_FADD, part, all) : part;
	}
	return all;
}

/* A matmul's accumulator, acc + a*b with each product newer than the sum:
 * 70,000 terms (three levels of chunks of E_MAX_ARGS), the same node as
 * the sum made at once wherever a chunk or a level fills; then sums whose
 * new term is not always the newest (an older term, a constant, the
 * negation of a term that cancels it), three of them interleaved, each
 * step against the full path. */
static void test_sum_append(void)
{
	struct ectx *cx = ectx_new();
	enum { N = 70000 };
	const struct expr **t = malloc(N * sizeof *t);
	const struct expr *acc = e_real(cx, 0);
	bool same = true;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 0; i < N; i++) {
		t[i] = e_op2(cx, EOP_FMUL, e_input(cx, 0, 4 * (uint64_t)i, ET_F32), e_input(cx, 1, 4 * (uint64_t)i, ET_F32));
		acc = e_op2(cx, EOP_FADD, t[i], acc);
		unsigned n = i + 1;
		if (n == 16 || n == 254 || n == 255 || n == 256 || n == 257 || n == 510 || n == 511 ||
		    n == 65024 || n == 65025 || n == 65026 || n == 65280 || n == 65281 || n == N)
			same &= acc == sum_at_once(cx, t, n);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok(same, "a 70000-term accumulator grown one newest term at a time is the n-ary sum at every level's edge");
	printf("# 70000 additions of newest terms (and 13 sums at once): %.2f s\n", s);

	/* mixed: 3 accumulators, terms sometimes old, constant or a negation */
	enum { M = 600 };
	const struct expr *sum[3] = { NULL, NULL, NULL };
	const struct expr **mine[3];
	unsigned cnt[3] = { 0, 0, 0 };
	uint64_t r = 99;
	same = true;
	for (int a = 0; a < 3; a++)
		mine[a] = malloc(M * sizeof **mine);
	for (unsigned i = 0; i < 3 * M; i++) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		unsigned a = (unsigned)(r >> 40) % 3, kind = (unsigned)(r >> 20) % 16;
		if (cnt[a] >= M)
			continue;
		const struct expr *x;
		if (kind == 0 && a == 2)      /* constants in one sum only: the others stay recorded */
			x = e_real(cx, (double)(r % 7) + 0.1);
		else if (kind == 1 && cnt[a])
			x = e_op1(cx, EOP_FNEG, SORT_REAL, 0, mine[a][(r >> 8) % cnt[a]]);
		else if (kind == 2)
			x = t[(r >> 8) % 1000];
		else
			x = e_op2(cx, EOP_FMUL, e_input(cx, 2, 4 * (uint64_t)i, ET_F32), e_input(cx, 3, 4 * (uint64_t)i, ET_F32));
		mine[a][cnt[a]++] = x;
		if (!sum[a]) {
			sum[a] = x;
			continue;
		}
		/* the full path: three arguments, a zero that folds away */
		const struct expr *v[3] = { sum[a], x, e_real(cx, 0) };
		const struct expr *full = e_op(cx, EOP_FADD, SORT_REAL, 0, 3, v);
		sum[a] = e_op2(cx, EOP_FADD, sum[a], x);
		same &= sum[a] == full;
	}
	for (int a = 0; a < 3; a++)
		free(mine[a]);
	ok(same, "three interleaved sums of new, old, constant and cancelling terms: each step as the full path makes it");
	free(t);
	ectx_free(cx);
}

static void test_speed(void)
{
	struct ectx *cx = ectx_new();
	/* a 1000-node thread-dependent expression */
	const struct expr *acc = e_real(cx, 0);
	const struct expr *tid = e_tid(cx, 0), *cta = e_ctaid(cx, 0);
	for (int i = 0; i < 250; i++) {
		const struct expr *idx = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, cta, e_bv(cx, 1024, 32)),
		                               e_op2(cx, EOP_ADD, tid, e_bv(cx, (uint64_t)i * 32, 32)));
		const struct expr *ld = e_load(cx, 1, ET_F32, e_op2(cx, EOP_MUL, e_resize(cx, idx, 64, false), e_bv(cx, 4, 64)));
		acc = e_op2(cx, EOP_FMAX, acc, ld);
	}
	size_t before = ectx_count(cx);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int reps = 200;
	for (int r = 0; r < reps; r++) {
		uint32_t t[3] = { (uint32_t)r, 0, 0 }, c[3] = { 1, 0, 0 };
		e_at_thread(cx, acc, t, c);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / reps;
	printf("# e_at_thread on a %zu-node expression: %.1f us\n", before, us);
	/* the work, not the time (machines are noisy): each call makes at most
	 * a few nodes per node of the expression, as a memoised walk does */
	size_t made = (ectx_count(cx) - before) / (size_t)reps;
	ok(made <= 4 * before, "e_at_thread makes %zu nodes per call on %zu", made, before);
	ectx_free(cx);
}

int main(void)
{
	struct ectx *cx = ectx_new();
	test_hashcons(cx);
	test_bv_fold(cx);
	test_affine(cx);
	test_div_rules(cx);
	test_bool_ite(cx);
	test_reals(cx);
	test_infinities(cx);
	test_subst(cx);
	test_at_thread_computed(cx);
	test_eval(cx);
	test_print(cx);
	test_etable(cx);
	ectx_free(cx);
	test_long_sum();
	test_sum_append();
	test_speed();
	return done_testing();
}
