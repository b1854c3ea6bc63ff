/*
 * test-exec-quick.c: thread conditions decided without the solver
 * (dexec/quick.c, dexec/affine.c), against the truth: every thread tried
 * by the evaluator on small launches, the solver on large ones.  The
 * affine prover may only ever say "empty" when no thread satisfies the
 * condition; the quick decision must equal the solver's answer.  Random
 * conditions are built from what nvcc's index arithmetic looks like:
 * affine combinations, sign and zero extensions, division, remainder and
 * masks by constants (signed division by 2^k with its sign fix-up), and
 * comparisons joined by and, or and not.
 */
#include "dx-harness.h"

struct rng { uint64_t s; };

static uint32_t rnd(struct rng *r, uint32_t n)
{
	r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
	return n ? (uint32_t)((r->s >> 33) % n) : 0;
}

static const struct expr *c32(struct ectx *cx, uint64_t v) { return e_bv(cx, v, 32); }

/* The byte offset of the float at a 32-bit index, as nvcc computes it. */
static const struct expr *f32_off(struct ectx *cx, const struct expr *idx)
{
	return e_op2(cx, EOP_MUL, e_resize(cx, idx, 64, true), e_bv(cx, 4, 64));
}

/* A 4-byte access at off starts before the buffer / ends past its bytes. */
static const struct expr *before_start(struct ectx *cx, const struct expr *off)
{
	return e_op2(cx, EOP_SLT, off, e_bv(cx, 0, 64));
}

static const struct expr *past_end(struct ectx *cx, const struct expr *off, uint64_t bytes)
{
	return e_op2(cx, EOP_ULT, e_bv(cx, bytes, 64), e_op2(cx, EOP_ADD, off, e_bv(cx, 4, 64)));
}

/* A 32-bit index expression over the coordinates; signed adds signed
 * division and remainder of values that may be negative, and all four
 * of min and max (without it, the stream of the first tests is as it
 * was). */
static const struct expr *gen_idx(struct ectx *cx, struct rng *r, int depth, bool sgn)
{
	unsigned k = depth <= 0 ? rnd(r, 3) : rnd(r, sgn ? 13 : 11);
	const struct expr *a, *b;
	switch (k) {
	case 0: return e_tid(cx, rnd(r, 2));
	case 1: return e_ctaid(cx, rnd(r, 2));
	case 2: return c32(cx, rnd(r, 40));
	case 3:
	case 4:
		a = gen_idx(cx, r, depth - 1, sgn);
		b = gen_idx(cx, r, depth - 1, sgn);
		return e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, a, c32(cx, 1 + rnd(r, 17))), b);
	case 5:
		return e_op2(cx, EOP_SUB, gen_idx(cx, r, depth - 1, sgn), gen_idx(cx, r, depth - 1, sgn));
	case 6:
		return e_op2(cx, rnd(r, 2) ? EOP_UDIV : EOP_UREM, gen_idx(cx, r, depth - 1, sgn), c32(cx, 1 + rnd(r, 9)));
	case 7:
		return e_op2(cx, rnd(r, 2) ? EOP_LSHR : EOP_ASHR, gen_idx(cx, r, depth - 1, sgn), c32(cx, rnd(r, 4)));
	case 8:
		return e_op2(cx, EOP_AND, gen_idx(cx, r, depth - 1, sgn),
		             c32(cx, rnd(r, 2) ? (1u << rnd(r, 5)) - 1 : (uint32_t)-(1 << rnd(r, 5))));
	case 9: {
		/* nvcc's signed division by 2^s: (x + ((x >> 31) >>u (32 - s))) >> s */
		a = gen_idx(cx, r, depth - 1, sgn);
		unsigned s = 1 + rnd(r, 4);
		const struct expr *fix = e_op2(cx, EOP_LSHR, e_op2(cx, EOP_ASHR, a, c32(cx, 31)), c32(cx, 32 - s));
		return e_op2(cx, EOP_ASHR, e_op2(cx, EOP_ADD, a, fix), c32(cx, s));
	}
	case 11: {
		static const enum eop mm[] = { EOP_SMIN, EOP_SMAX, EOP_UMIN, EOP_UMAX };
		return e_op2(cx, mm[rnd(r, 4)], gen_idx(cx, r, depth - 1, sgn), gen_idx(cx, r, depth - 1, sgn));
	}
	case 12:
		/* (oh + pad - kh) / stride, which is negative for some threads */
		return e_op2(cx, rnd(r, 2) ? EOP_SDIV : EOP_SREM,
		             e_op2(cx, EOP_SUB, gen_idx(cx, r, depth - 1, sgn), c32(cx, rnd(r, 40))),
		             c32(cx, 1 + rnd(r, 9)));
	default:
		return e_op2(cx, rnd(r, 2) ? EOP_SMIN : EOP_UMAX, gen_idx(cx, r, depth - 1, sgn), gen_idx(cx, r, depth - 1, sgn));
	}
}

static const struct expr *gen_cmp(struct ectx *cx, struct rng *r, bool sgn)
{
	static const enum eop ops[] = { EOP_ULT, EOP_ULE, EOP_SLT, EOP_SLE, EOP_EQ };
	const struct expr *a = gen_idx(cx, r, 2, sgn), *b = rnd(r, 3) ? c32(cx, rnd(r, 300)) : gen_idx(cx, r, 1, sgn);
	if (rnd(r, 3) == 0) {
		/* a 64-bit byte offset, as addresses are */
		a = e_op2(cx, EOP_MUL, e_resize(cx, a, 64, rnd(r, 2)), e_bv(cx, 4, 64));
		b = e_bv(cx, rnd(r, 2000), 64);
	}
	const struct expr *c = e_op2(cx, ops[rnd(r, 5)], a, b);
	return rnd(r, 4) == 0 ? e_not(cx, c) : c;
}

static const struct expr *gen_cond(struct ectx *cx, struct rng *r, int depth, bool sgn)
{
	if (depth <= 0 || rnd(r, 3) == 0)
		return gen_cmp(cx, r, sgn);
	const struct expr *a = gen_cond(cx, r, depth - 1, sgn), *b = gen_cond(cx, r, depth - 1, sgn);
	switch (rnd(r, 4)) {
	case 0: return e_or(cx, a, b);
	case 1: return e_not(cx, e_and(cx, a, b));
	default: return e_and(cx, a, b);
	}
}

static void launch_init(struct dx_launch *L, uint32_t bx, uint32_t by, uint32_t gx, uint32_t gy)
{
	memset(L, 0, sizeof *L);
	L->cx = ectx_new();
	L->geom = (struct smt_geom){ { bx, by, 1 }, { gx, gy, 1 } };
}

/* Does some thread satisfy c?  Every thread tried. */
static bool truth(struct dx_launch *L, const struct expr *c, bool *undef)
{
	uint32_t t[3] = { 0, 0, 0 }, b[3] = { 0, 0, 0 };
	*undef = false;
	for (b[1] = 0; b[1] < L->geom.nctaid[1]; b[1]++)
		for (b[0] = 0; b[0] < L->geom.nctaid[0]; b[0]++)
			for (t[1] = 0; t[1] < L->geom.ntid[1]; t[1]++)
				for (t[0] = 0; t[0] < L->geom.ntid[0]; t[0]++) {
					struct evalue v;
					const struct expr *x = e_at_thread(L->cx, c, t, b);
					if (!e_eval(x, EM_EXACT, NULL, NULL, &v) || v.undef) {
						*undef = true;
						return false;
					}
					if (v.b)
						return true;
				}
	return false;
}

static bool holds_at(struct dx_launch *L, const struct expr *c, const uint32_t t[3], const uint32_t b[3])
{
	struct evalue v;
	return e_eval(e_at_thread(L->cx, c, t, b), EM_EXACT, NULL, NULL, &v) && !v.undef && v.b;
}

/* Random conditions on a launch small enough to try every thread; sgn:
 * with signed division of negative values and every min and max. */
static void random_small(bool sgn, uint64_t seed)
{
	struct dx_launch L;
	launch_init(&L, 8, 4, 5, 3);
	struct rng r = { seed };
	const char *what = sgn ? " (signed division, min and max)" : "";
	int wrong_unsat = 0, wrong_quick = 0, bad_witness = 0, proven = 0, empty = 0, n = 3000;
	for (int i = 0; i < n; i++) {
		const struct expr *c = gen_cond(L.cx, &r, 3, sgn);
		bool undef, t = truth(&L, c, &undef);
		if (undef)
			continue;
		if (!t)
			empty++;
		if (dx_affine_unsat(&L, c)) {
			proven++;
			if (t) {
				wrong_unsat++;
				struct arena a;
				arena_init(&a);
				printf("# affine says empty, but a thread satisfies: %s\n", e_print(&a, c, 400));
				arena_release(&a);
			}
		}
		uint32_t tid[3], ctaid[3];
		int q = dx_quick_sat(&L, c, tid, ctaid);
		if (q >= 0 && (q == SMT_SAT) != t)
			wrong_quick++;
		if (q == SMT_SAT && !holds_at(&L, c, tid, ctaid))
			bad_witness++;
	}
	ok(wrong_unsat == 0, "affine prover%s: never 'empty' when a thread satisfies (%d of %d proven, %d empty)",
	   what, proven, n, empty);
	ok(proven > empty / 4, "affine prover%s: shows a fair share of the empty conditions empty (%d of %d)",
	   what, proven, empty);
	ok(wrong_quick == 0, "quick decisions%s equal the truth (%d wrong)", what, wrong_quick);
	ok(bad_witness == 0, "quick witnesses%s satisfy the condition (%d bad)", what, bad_witness);
	ectx_free(L.cx);
}

/* Large launches: the solver is the truth. */
static void test_random_large(void)
{
	struct dx_launch L;
	launch_init(&L, 256, 4, 4096, 64);
	struct smt *s = smt_new(0, 5000000);
	struct rng r = { 777 };
	int wrong = 0, proven = 0, asked = 0;
	for (int i = 0; i < 300; i++) {
		const struct expr *c = gen_cond(L.cx, &r, 2, false);
		if (!dx_affine_unsat(&L, c))
			continue;
		proven++;
		enum smt_result sr = smt_thread_sat(s, &L.geom, c, NULL, NULL);
		asked++;
		if (sr == SMT_SAT)
			wrong++;
	}
	ok(wrong == 0 && proven > 0, "affine prover on a large grid: %d shown empty, %d of them refuted by the "
	   "solver", proven, wrong);
	(void)asked;
	smt_free(s);
	ectx_free(L.cx);
}

/* The bounds of nvcc's index arithmetic, each a query that used to go to
 * the solver. */
static void test_bounds(void)
{
	struct dx_launch L;
	struct ectx *cx;
	/* i = 256*ctaid.x + tid.x; if (i < n) out[i]: never past 4n bytes,
	 * with a grid overhanging n */
	launch_init(&L, 256, 1, 40, 1);
	cx = L.cx;
	const struct expr *i = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), c32(cx, 256)), e_tid(cx, 0));
	const struct expr *dom = e_op2(cx, EOP_SLT, i, c32(cx, 10000));
	const struct expr *off = f32_off(cx, i);
	const struct expr *past = past_end(cx, off, 40000);
	const struct expr *neg = before_start(cx, off);
	ok(dx_affine_unsat(&L, e_and(cx, dom, e_or(cx, neg, past))), "guarded 1-D access within bounds");
	const struct expr *past2 = past_end(cx, off, 39996);
	ok(!dx_affine_unsat(&L, e_and(cx, dom, past2)), "one element short: not shown empty");
	ok(!dx_affine_unsat(&L, past), "unguarded overhang: not shown empty");
	ectx_free(cx);

	/* conv-like: idx over n*c*h*w outputs split by division and remainder */
	launch_init(&L, 256, 1, 1024, 1);
	cx = L.cx;
	const uint32_t W = 30, H = 30, C = 16, N = 16;   /* outputs: 230400 <= 1024*256 */
	i = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), c32(cx, 256)), e_tid(cx, 0));
	dom = e_op2(cx, EOP_SLT, i, c32(cx, N * C * H * W));
	const struct expr *ow = e_op2(cx, EOP_UREM, i, c32(cx, W));
	const struct expr *oh = e_op2(cx, EOP_UREM, e_op2(cx, EOP_UDIV, i, c32(cx, W)), c32(cx, H));
	const struct expr *n = e_op2(cx, EOP_UDIV, i, c32(cx, C * H * W));
	/* input (n, c=C-1, oh+2, ow+2) of an (N, C, H+2, W+2) tensor: the
	 * last output reads the last input element */
	const struct expr *in = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_op2(cx, EOP_ADD,
	                        e_op2(cx, EOP_MUL, e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, n, c32(cx, C)), c32(cx, C - 1)),
	                              c32(cx, H + 2)), e_op2(cx, EOP_ADD, oh, c32(cx, 2))), c32(cx, W + 2)),
	                        e_op2(cx, EOP_ADD, ow, c32(cx, 2)));
	off = f32_off(cx, in);
	uint64_t bytes = 4ull * N * C * (H + 2) * (W + 2);
	past = past_end(cx, off, bytes);
	neg = before_start(cx, off);
	ok(dx_affine_unsat(&L, e_and(cx, dom, e_or(cx, neg, past))), "conv input access within bounds");
	past = past_end(cx, off, bytes - 4);
	ok(!dx_affine_unsat(&L, e_and(cx, dom, past)), "conv input access in a buffer one element short: not empty");
	ectx_free(cx);

	/* a shared tile index: r = i / 32, c = i % 32 with i = 16*ty + tx + 256*k
	 * (nvcc's signed division), sA[r][c] of a [32][34] tile */
	launch_init(&L, 16, 16, 64, 64);
	cx = L.cx;
	for (unsigned k = 0; k < 4; k++) {
		const struct expr *li = e_op2(cx, EOP_ADD, e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_tid(cx, 1), c32(cx, 16)),
		                                                 e_tid(cx, 0)), c32(cx, 256 * k));
		const struct expr *fix = e_op2(cx, EOP_LSHR, e_op2(cx, EOP_ASHR, li, c32(cx, 31)), c32(cx, 27));
		const struct expr *sum = e_op2(cx, EOP_ADD, li, fix);
		const struct expr *row = e_op2(cx, EOP_ASHR, sum, c32(cx, 5));
		const struct expr *col = e_op2(cx, EOP_SUB, li, e_op2(cx, EOP_AND, sum, c32(cx, (uint32_t)-32)));
		const struct expr *so = e_op2(cx, EOP_MUL, e_resize(cx, e_op2(cx, EOP_ADD,
		                              e_op2(cx, EOP_MUL, row, c32(cx, 34)), col), 64, true), e_bv(cx, 4, 64));
		past = past_end(cx, so, 4 * 32 * 34);
		if (!ok(dx_affine_unsat(&L, past), "tile element %u within the shared tile", k))
			break;
	}
	ectx_free(cx);
}

/* A direct 3-D convolution as nvcc compiles it (KernelBench's conv3d
 * kernels): index = 512*ctaid.z + 64*tid.z + 8*tid.y + tid.x over
 * blocks of 8x8x8, ow = index % W, oh = (index / W) % H, od = index /
 * (W*H), signed; the guard "od >= 0 && oh >= 0" folded into one sign
 * test of od | oh. */
static void test_conv3d(void)
{
	struct dx_launch L;
	memset(&L, 0, sizeof L);
	L.cx = ectx_new();
	const uint32_t W = 62, H = 62, D = 62, IW = 64, total = W * H * D;
	L.geom = (struct smt_geom){ { 8, 8, 8 }, { 16, 64, (total + 511) / 512 } };
	struct ectx *cx = L.cx;
	const struct expr *idx = e_op2(cx, EOP_ADD, e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 2), c32(cx, 512)),
	                         e_op2(cx, EOP_MUL, e_tid(cx, 2), c32(cx, 64))),
	                         e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_tid(cx, 1), c32(cx, 8)), e_tid(cx, 0)));
	const struct expr *dom = e_not(cx, e_op2(cx, EOP_SLE, c32(cx, total), idx));
	const struct expr *q = e_op2(cx, EOP_SDIV, idx, c32(cx, W));
	const struct expr *ow = e_op2(cx, EOP_SUB, idx, e_op2(cx, EOP_MUL, q, c32(cx, W)));
	const struct expr *oh = e_op2(cx, EOP_SREM, q, c32(cx, H));
	const struct expr *od = e_op2(cx, EOP_SDIV, idx, c32(cx, W * H));
	const struct expr *guard = e_and(cx, e_op2(cx, EOP_SLT, c32(cx, (uint32_t)-1), e_op2(cx, EOP_OR, oh, od)),
	                           e_and(cx, e_op2(cx, EOP_SLT, od, c32(cx, 64)), e_op2(cx, EOP_SLT, oh, c32(cx, 64))));
	ok(dx_affine_unsat(&L, e_and(cx, dom, e_not(cx, guard))), "conv3d: the first tap's guard holds for every output");
	const struct expr *ow_neg = e_op2(cx, EOP_SLT, ow, c32(cx, 0));
	ok(dx_affine_unsat(&L, e_and(cx, dom, ow_neg)), "conv3d: ow = index - (index / W) * W is never negative");
	/* input (n = ctaid.x, c = oc / 64 = 0, od, oh + 1, ow + 2) of a (16, 3, 64, 64, 64) tensor */
	const struct expr *grp = e_op2(cx, EOP_MUL, e_op2(cx, EOP_SDIV, e_ctaid(cx, 1), c32(cx, 64)), c32(cx, 3 * 64 * 64 * 64));
	const struct expr *in = e_op2(cx, EOP_ADD, e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), c32(cx, 3 * 64 * 64 * 64)),
	                        e_op2(cx, EOP_ADD, grp, e_op2(cx, EOP_MUL, od, c32(cx, IW * IW)))),
	                        e_op2(cx, EOP_ADD, e_op2(cx, EOP_ADD, ow, e_op2(cx, EOP_MUL, oh, c32(cx, IW))), c32(cx, IW + 2)));
	const struct expr *off = f32_off(cx, in);
	uint64_t bytes = 4ull * 16 * 3 * 64 * 64 * 64;
	const struct expr *past = past_end(cx, off, bytes);
	const struct expr *neg = before_start(cx, off);
	ok(dx_affine_unsat(&L, e_and(cx, dom, e_or(cx, neg, past))), "conv3d: an input tap within bounds");
	/* output ((n*64 + oc)*D + od)*H*W + oh*W + ow: the quotients of
	 * index by W, W*H and (index / W) by H are tied, so it ends at the
	 * last output element */
	const struct expr *o = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL,
	                       e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), c32(cx, 64)), e_ctaid(cx, 1)), c32(cx, D)), od),
	                       c32(cx, H * W)), e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, oh, c32(cx, W)), ow));
	off = f32_off(cx, o);
	bytes = 4ull * 16 * 64 * total;
	past = past_end(cx, off, bytes);
	ok(dx_affine_unsat(&L, e_and(cx, dom, past)), "conv3d: the output store within bounds");
	/* under "bias == nullptr", a 64-bit value of its own */
	const struct expr *nobias = e_op2(cx, EOP_EQ, e_bv(cx, 0, 64), e_var(cx, 5, SORT_BV(64)));
	ok(dx_affine_unsat(&L, e_and(cx, e_and(cx, dom, nobias), past)), "conv3d: the output store within bounds, bias absent");
	past = past_end(cx, off, bytes - 4);
	ok(!dx_affine_unsat(&L, e_and(cx, dom, past)), "conv3d: one element short: not shown empty");
	ectx_free(cx);
}

/* A pair query as the race check asks it: two different threads of a
 * block writing s[16*ty + tx] never overlap. */
static void test_pairs(void)
{
	struct dx_launch L;
	launch_init(&L, 16, 16, 8, 8);
	struct ectx *cx = L.cx;
	const struct expr *t2[2] = { e_var(cx, DX_T2VAR(0), SORT_BV(32)), e_var(cx, DX_T2VAR(1), SORT_BV(32)) };
	const struct expr *a1 = e_op2(cx, EOP_MUL, e_resize(cx, e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_tid(cx, 1),
	                              c32(cx, 16)), e_tid(cx, 0)), 64, false), e_bv(cx, 4, 64));
	const struct expr *a2 = e_op2(cx, EOP_MUL, e_resize(cx, e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, t2[1],
	                              c32(cx, 16)), t2[0]), 64, false), e_bv(cx, 4, 64));
	const struct expr *ov = e_and(cx, e_op2(cx, EOP_ULT, a1, e_op2(cx, EOP_ADD, a2, e_bv(cx, 4, 64))),
	                              e_op2(cx, EOP_ULT, a2, e_op2(cx, EOP_ADD, a1, e_bv(cx, 4, 64))));
	const struct expr *same = e_and(cx, e_op2(cx, EOP_EQ, e_tid(cx, 0), t2[0]), e_op2(cx, EOP_EQ, e_tid(cx, 1), t2[1]));
	const struct expr *bnd = e_and(cx, e_op2(cx, EOP_ULT, t2[0], c32(cx, 16)), e_op2(cx, EOP_ULT, t2[1], c32(cx, 16)));
	const struct expr *c = e_and(cx, e_and(cx, ov, e_not(cx, same)), bnd);
	ok(dx_affine_unsat(&L, c), "s[16*ty + tx]: two threads never overlap");
	ok(dx_quick_sat(&L, c, NULL, NULL) == SMT_UNSAT, "the quick decision agrees");
	/* s[tx] (ty ignored): threads of different rows collide */
	const struct expr *b1 = e_op2(cx, EOP_MUL, e_resize(cx, e_tid(cx, 0), 64, false), e_bv(cx, 4, 64));
	const struct expr *b2 = e_op2(cx, EOP_MUL, e_resize(cx, t2[0], 64, false), e_bv(cx, 4, 64));
	const struct expr *ov2 = e_and(cx, e_op2(cx, EOP_ULT, b1, e_op2(cx, EOP_ADD, b2, e_bv(cx, 4, 64))),
	                               e_op2(cx, EOP_ULT, b2, e_op2(cx, EOP_ADD, b1, e_bv(cx, 4, 64))));
	const struct expr *c2 = e_and(cx, e_and(cx, ov2, e_not(cx, same)), bnd);
	ok(!dx_affine_unsat(&L, c2), "s[tx] written by every row: not shown empty");
	ectx_free(cx);
}

/* A 5-D index as nvcc compiles level-1 60's conv3d (sizes as kernel
 * arguments): x = 256*ctaid.x + tid.x over 2 images of 64x62x60x58
 * outputs, each coordinate straight from x, the remainder x % 58 as x -
 * (x/58)*58, n = x / 13808640 and co = x/215760 - 64*n.  The input
 * offset is bounded through the division identities (x - 58*(x/58) is
 * the remainder variable in [0, 57]); without them Fourier-Motzkin over
 * the quotient variables outgrew its rows. */
static void test_radix5(void)
{
	struct dx_launch L;
	launch_init(&L, 256, 1, 107880, 1);
	struct ectx *cx = L.cx;
	const struct expr *x = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), c32(cx, 256)), e_tid(cx, 0));
	const struct expr *q58 = e_op2(cx, EOP_SDIV, x, c32(cx, 58));
	const struct expr *ow = e_op2(cx, EOP_SUB, x, e_op2(cx, EOP_MUL, q58, c32(cx, 58)));
	const struct expr *oh = e_op2(cx, EOP_SREM, q58, c32(cx, 60));
	const struct expr *od = e_op2(cx, EOP_SREM, e_op2(cx, EOP_SDIV, x, c32(cx, 3480)), c32(cx, 62));
	const struct expr *n = e_op2(cx, EOP_SDIV, x, c32(cx, 13808640));
	const struct expr *co = e_op2(cx, EOP_SUB, e_op2(cx, EOP_SDIV, x, c32(cx, 215760)),
	                              e_op2(cx, EOP_MUL, n, c32(cx, 64)));
	const struct expr *in = e_op2(cx, EOP_ADD, e_op2(cx, EOP_ADD, e_op2(cx, EOP_ADD, ow,
	                        e_op2(cx, EOP_MUL, oh, c32(cx, 64))), e_op2(cx, EOP_MUL, od, c32(cx, 4096))),
	                        e_op2(cx, EOP_MUL, n, c32(cx, 262144)));
	const uint64_t last = 57 + 64 * 59 + 4096 * 61 + 262144;   /* the largest offset */
	for (int k = 0; k < 2; k++) {
		const struct expr *idx = k ? co : in;
		uint64_t bytes = k ? 4 * 64 : 4 * (last + 1);
		const struct expr *off = f32_off(cx, idx);
		const struct expr *neg = before_start(cx, off);
		const struct expr *past = past_end(cx, off, bytes);
		ok(dx_affine_unsat(&L, e_or(cx, neg, past)), "5-D index: the %s access within bounds", k ? "bias" : "input");
		past = past_end(cx, off, bytes - 4);
		ok(!dx_affine_unsat(&L, past), "5-D index: the %s one element short: not shown empty", k ? "bias" : "input");
	}
	/* the same index as nvcc folded it in 60's kernel (3 input channels,
	 * 16 images): x + 6*(x/58) + 256*(x/3480) - 253952*(x/215760) +
	 * 786432*(x/13808640) + 786432*(((x/215760) - 64*(x/13808640)) / 64),
	 * a sum of digits only once expanded along the identities, the last
	 * quotient 0 only once x/215760 and x/13808640 are chained */
	ectx_free(cx);
	launch_init(&L, 256, 1, 863040, 1);   /* 16*13808640 threads exactly */
	cx = L.cx;
	x = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), c32(cx, 256)), e_tid(cx, 0));
	const struct expr *q[5];
	const uint32_t dv[5] = { 58, 3480, 215760, 13808640, 0 };
	const int32_t coef[4] = { 6, 256, -253952, 786432 };
	const struct expr *sum = x;
	for (int k = 0; k < 4; k++) {
		q[k] = e_op2(cx, EOP_SDIV, x, c32(cx, dv[k]));
		sum = e_op2(cx, EOP_ADD, sum, e_op2(cx, EOP_MUL, q[k], c32(cx, (uint32_t)coef[k])));
	}
	q[4] = e_op2(cx, EOP_SDIV, e_op2(cx, EOP_SUB, q[2], e_op2(cx, EOP_MUL, q[3], c32(cx, 64))), c32(cx, 64));
	sum = e_op2(cx, EOP_ADD, sum, e_op2(cx, EOP_MUL, q[4], c32(cx, 786432)));
	const uint64_t in_bytes = 4ull * 16 * 3 * 64 * 64 * 64;
	const struct expr *off = f32_off(cx, sum);
	const struct expr *oob = e_or(cx, before_start(cx, off), past_end(cx, off, in_bytes));
	ok(dx_affine_unsat(&L, oob), "5-D index as nvcc folds it: the input access within bounds");
	/* the largest offset, 15*786432 + 61*4096 + 59*64 + 57 */
	const uint64_t top = 4ull * (15 * 786432 + 61 * 4096 + 59 * 64 + 57);
	ok(!dx_affine_unsat(&L, past_end(cx, off, top)),
	   "5-D index as nvcc folds it: one element short: not shown empty");
	ectx_free(cx);
}

/* A guarded access of level-1 65's transposed 2-D convolution: x over
 * 16 images of 64x130x132 outputs, oh = x/132 - 130*(x/17160), ow = x -
 * 132*(x/132), the input (16, 32, 128, 128) read at (n, 0, oh - 1, ow)
 * where the guard says 0 <= oh - 1 < 128 and 0 <= ow < 128: in bounds
 * only with the guard, which a projection over every quotient variable
 * could not take in (its rows outgrew ROWS_MAX). */
static void test_transposed(void)
{
	struct dx_launch L;
	launch_init(&L, 256, 1, 68640, 1);
	struct ectx *cx = L.cx;
	const struct expr *x = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), c32(cx, 256)), e_tid(cx, 0));
	const struct expr *q132 = e_op2(cx, EOP_SDIV, x, c32(cx, 132));
	const struct expr *q17160 = e_op2(cx, EOP_SDIV, x, c32(cx, 17160));
	const struct expr *qn = e_op2(cx, EOP_SDIV, x, c32(cx, 1098240));
	const struct expr *ih = e_op2(cx, EOP_SUB, e_op2(cx, EOP_SUB, q132, e_op2(cx, EOP_MUL, q17160, c32(cx, 130))),
	                              c32(cx, 1));
	const struct expr *iw = e_op2(cx, EOP_SUB, x, e_op2(cx, EOP_MUL, q132, c32(cx, 132)));
	const struct expr *guard = e_and(cx,
		e_not(cx, e_or(cx, e_op2(cx, EOP_SLT, ih, c32(cx, 0)), e_op2(cx, EOP_SLE, c32(cx, 128), ih))),
		e_not(cx, e_or(cx, e_op2(cx, EOP_SLT, iw, c32(cx, 0)), e_op2(cx, EOP_SLE, c32(cx, 128), iw))));
	/* n*524288 + ih*128 + iw, folded: x - 4*(x/132) - 16640*(x/17160) + 524288*n - 128 */
	const struct expr *sum = e_op2(cx, EOP_ADD, e_op2(cx, EOP_ADD, e_op2(cx, EOP_SUB, e_op2(cx, EOP_SUB, x,
	                               e_op2(cx, EOP_MUL, q132, c32(cx, 4))), e_op2(cx, EOP_MUL, q17160, c32(cx, 16640))),
	                               e_op2(cx, EOP_MUL, qn, c32(cx, 524288))), c32(cx, (uint32_t)-128));
	const struct expr *off = f32_off(cx, sum);
	const uint64_t bytes = 4ull * 16 * 32 * 128 * 128;
	const struct expr *oob = e_or(cx, before_start(cx, off), past_end(cx, off, bytes));
	ok(dx_affine_unsat(&L, e_and(cx, guard, oob)), "transposed conv: the guarded input access within bounds");
	ok(!dx_affine_unsat(&L, before_start(cx, off)),
	   "transposed conv: without the guard, the row above the first: not shown empty");
	ectx_free(cx);
}

/* Level-1 75's transposed convolution (stride 2, dilation 2): a row h
 * of its output takes input row (h + 1)/2 - kh, computed as (h - 3)/2 for
 * the tap kh = 2, a signed division of a value that is negative for h <
 * 3; the loop that reaches that tap runs while kh < min(kernel_h,
 * (h + 1)/2 + 1), so h >= 3 on its path.  Only the guard on (h + 1)/2
 * bounds the row: the prover needs both the min and the truncating
 * division of a value that may be negative. */
static void test_trunc_min(void)
{
	struct dx_launch L;
	launch_init(&L, 32, 8, 2, 24608);
	struct ectx *cx = L.cx;
	const struct expr *sp = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 1), c32(cx, 8)), e_tid(cx, 1));
	const struct expr *h = e_op2(cx, EOP_SDIV, sp, c32(cx, 766));
	const struct expr *hp = e_op2(cx, EOP_SDIV, e_op2(cx, EOP_ADD, h, c32(cx, 1)), c32(cx, 2));
	const struct expr *ih = e_op2(cx, EOP_SDIV, e_op2(cx, EOP_SUB, h, c32(cx, 3)), c32(cx, 2));
	const struct expr *iw = e_op2(cx, EOP_SDIV, e_op2(cx, EOP_SUB, sp, e_op2(cx, EOP_MUL, h, c32(cx, 766))),
	                              c32(cx, 3));
	const struct expr *odd = e_and(cx, e_op2(cx, EOP_SLT, sp, c32(cx, 196862)),
		e_op2(cx, EOP_EQ, e_op2(cx, EOP_SREM, e_op2(cx, EOP_ADD, h, c32(cx, 1)), c32(cx, 2)), c32(cx, 0)));
	const struct expr *in = e_not(cx, e_or(cx, e_op2(cx, EOP_SLT, hp, c32(cx, 0)),
	                                       e_op2(cx, EOP_SLE, c32(cx, 128), hp)));
	const struct expr *tap = e_op2(cx, EOP_SLT, c32(cx, 2),
	                               e_op2(cx, EOP_SMIN, e_op2(cx, EOP_ADD, hp, c32(cx, 1)), c32(cx, 3)));
	const struct expr *dom = e_and(cx, e_and(cx, odd, in), tap);
	const struct expr *off = f32_off(cx, e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, ih, c32(cx, 256)), iw));
	const uint64_t bytes = 4ull * 128 * 256;
	ok(dx_affine_unsat(&L, e_and(cx, dom, e_or(cx, before_start(cx, off), past_end(cx, off, bytes)))),
	   "transposed conv, tap kh = 2: (h - 3)/2 within the input on the tap's path");
	ok(!dx_affine_unsat(&L, e_and(cx, e_and(cx, odd, in), before_start(cx, off))),
	   "transposed conv, tap kh = 2: without the loop's min, row -1 of h = 1: not shown empty");
	ectx_free(cx);
}

/* A kernel that tests a pointer argument against null (bias ? bias[c] :
 * 0) has "base == 0" in the domain of every branch after it, a free
 * variable: such a condition was given to the prover alone, which never
 * shows one satisfiable, so every split of level-1 68's taps went to the
 * solver.  With the variable fixed by its conjunct, the threads are tried
 * as for any other condition: an exact answer and a witness. */
static void test_fixed_var(void)
{
	struct dx_launch L;
	launch_init(&L, 256, 1, 40, 1);
	struct ectx *cx = L.cx;
	const struct expr *base = e_var(cx, 0x10000000006ull, SORT_BV(64));
	const struct expr *null = e_op2(cx, EOP_EQ, e_bv(cx, 0, 64), base);
	const struct expr *x = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), c32(cx, 256)), e_tid(cx, 0));
	const struct expr *edge = e_op2(cx, EOP_EQ, e_op2(cx, EOP_UREM, x, c32(cx, 68)), c32(cx, 67));
	uint32_t tid[3], ctaid[3];
	int q = dx_quick_sat(&L, e_and(cx, null, edge), tid, ctaid);
	ok(q == SMT_SAT && (ctaid[0] * 256 + tid[0]) % 68 == 67,
	   "a condition with a null test of a pointer argument: satisfiable, with a witness thread (%d)", q);
	const struct expr *none = e_op2(cx, EOP_EQ, e_op2(cx, EOP_UREM, x, c32(cx, 68)), c32(cx, 68));
	ok(dx_quick_sat(&L, e_and(cx, null, none), NULL, NULL) == SMT_UNSAT,
	   "the same with a remainder of 68 by 68: empty");
	const struct expr *other = e_op2(cx, EOP_ULT, base, e_bv(cx, 4096, 64));
	ok(dx_quick_sat(&L, e_and(cx, other, edge), NULL, NULL) == -1,
	   "a free variable that no conjunct fixes: left to the solver");
	ectx_free(cx);
}

/* The path condition of a tap in level-1 68's transposed 3-D
 * convolution: for each of two coordinates a, the taps before it were
 * skipped (a - j < 0 or 64 <= a - j, j = 0..3) and this one is taken
 * (0 <= a - 4 < 64).  Eight disjunctions make 256 conjunctions, past the
 * normal form's 64, unless the alternatives that the taken tap excludes
 * are dropped as they come. */
static void test_taps(void)
{
	struct dx_launch L;
	launch_init(&L, 256, 1, 68 * 68 / 256 + 1, 1);
	struct ectx *cx = L.cx;
	const struct expr *x = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 0), c32(cx, 256)), e_tid(cx, 0));
	const struct expr *co[2] = { e_op2(cx, EOP_SREM, x, c32(cx, 68)),
	                             e_op2(cx, EOP_SREM, e_op2(cx, EOP_SDIV, x, c32(cx, 68)), c32(cx, 68)) };
	const struct expr *cond = e_op2(cx, EOP_SLT, x, c32(cx, 68 * 68));
	for (int k = 0; k < 2; k++)
		for (uint32_t j = 0; j <= 4; j++) {
			const struct expr *a = e_op2(cx, EOP_SUB, co[k], c32(cx, j));
			const struct expr *out = e_or(cx, e_op2(cx, EOP_SLT, a, c32(cx, 0)), e_op2(cx, EOP_SLE, c32(cx, 64), a));
			cond = e_and(cx, cond, j < 4 ? out : e_not(cx, out));
		}
	const struct expr *idx = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_op2(cx, EOP_SUB, co[1], c32(cx, 4)), c32(cx, 64)),
	                               e_op2(cx, EOP_SUB, co[0], c32(cx, 4)));
	const struct expr *off = f32_off(cx, idx);
	for (int k = 0; k < 2; k++) {
		uint64_t bytes = 4 * 64 * 64 - (k ? 4 : 0);
		const struct expr *past = past_end(cx, off, bytes);
		const struct expr *q = e_and(cx, cond, k ? past : e_or(cx, before_start(cx, off), past));
		ok(k ? !dx_affine_unsat(&L, q) : dx_affine_unsat(&L, q), "a tap after four skipped: %s",
		   k ? "one element short: not shown empty" : "the access within bounds");
	}
	ectx_free(cx);
}

/* x & m for a mask m of the bits k to k+j-1 (neither the low bits nor
 * the high ones), as nvcc masks 16*(i/16) in 32 bits: (i & 0x3ffffff0)
 * * 4.  The tile load of level-1 13_'s matmul (each of 16x16 threads
 * loads a float at row ctaid.y*64 + i/16, column 4*(i%16)), whose bounds
 * were left to the branch and bound (220 ms a load) while the mask was
 * a variable of its own in [0, 2^32 - 1]; then every mask of small
 * launches against the truth. */
static void test_masks(void)
{
	struct dx_launch L;
	launch_init(&L, 16, 16, 1, 64);
	struct ectx *cx = L.cx;
	const struct expr *i = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_tid(cx, 1), c32(cx, 16)), e_tid(cx, 0));
	const struct expr *fix = e_op2(cx, EOP_LSHR, e_op2(cx, EOP_ASHR, i, c32(cx, 31)), c32(cx, 28));
	const struct expr *q = e_op2(cx, EOP_ASHR, e_op2(cx, EOP_ADD, i, fix), c32(cx, 4));
	const struct expr *mask = e_op2(cx, EOP_AND, e_op2(cx, EOP_ADD, i, fix), c32(cx, 0x3ffffff0));
	const struct expr *idx = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_ctaid(cx, 1), c32(cx, 0x40000)),
	                         e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, i, c32(cx, 4)),
	                         e_op2(cx, EOP_SUB, e_op2(cx, EOP_MUL, q, c32(cx, 4096)),
	                               e_op2(cx, EOP_MUL, mask, c32(cx, 4)))));
	const struct expr *off = f32_off(cx, idx);
	uint64_t last = 63 * 0x40000 + 15 * 4096 + 60;      /* the greatest index */
	ok(dx_affine_unsat(&L, e_or(cx, before_start(cx, off), past_end(cx, off, 4 * 4096 * 4096))),
	   "masked tile index: the tile load within bounds");
	ok(!dx_affine_unsat(&L, past_end(cx, off, 4 * last)), "masked tile index: one element short: not shown empty");
	ectx_free(cx);

	launch_init(&L, 8, 4, 5, 3);
	cx = L.cx;
	int wrong = 0, proven = 0, empty = 0, n = 0;
	for (unsigned k = 1; k < 6; k++)
		for (unsigned j = 1; j < 5; j++)
			for (unsigned v = 0; v < 6; v++) {
				/* 13*tid.x + 7*tid.y + 40*ctaid.x - 30*v: below 0 for some threads */
				const struct expr *x = e_op2(cx, EOP_SUB,
					e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_tid(cx, 0), c32(cx, 13)),
					      e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_tid(cx, 1), c32(cx, 7)),
					            e_op2(cx, EOP_MUL, e_ctaid(cx, 0), c32(cx, 40)))),
					c32(cx, 30 * v));
				uint32_t m = ((1u << j) - 1) << k;
				const struct expr *xm = e_op2(cx, EOP_AND, x, c32(cx, m));
				for (unsigned t = 0; t < 3; t++) {
					uint32_t b = (m >> 1) * t / 2 + t;
					const struct expr *c[3] = { e_op2(cx, EOP_ULT, c32(cx, b), xm), e_op2(cx, EOP_ULT, xm, c32(cx, b)),
					                            e_op2(cx, EOP_EQ, xm, c32(cx, b + (1u << k))) };
					for (int z = 0; z < 3; z++) {
						bool undef, tr = truth(&L, c[z], &undef);
						if (undef)
							continue;
						n++;
						empty += !tr;
						if (dx_affine_unsat(&L, c[z])) {
							proven++;
							wrong += tr;
						}
					}
				}
			}
	ok(wrong == 0, "masks of middle bits: never 'empty' when a thread satisfies (%d of %d proven, %d empty)",
	   proven, n, empty);
	ok(proven > empty / 4, "masks of middle bits: a fair share of the empty ones shown empty (%d of %d)", proven, empty);
	ectx_free(cx);
}

int main(void)
{
	random_small(false, 12345);
	random_small(true, 4242);
	test_random_large();
	test_bounds();
	test_conv3d();
	test_radix5();
	test_transposed();
	test_trunc_min();
	test_fixed_var();
	test_taps();
	test_pairs();
	test_masks();
	return done_testing();
}
