/*
 * test-smt.c: the Z3 layer (libcommon/smt.h) and the expression-table
 * codec (formats/exprs.h): thread queries under launch geometry,
 * equivalence with refinement and confirmed witnesses, speed, and a
 * write/read round trip of expression tables.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "libcommon/deadline.h"
#include "libcommon/expr.h"
#include "formats/exprs.h"
#include "libcommon/smt.h"
#include "libcommon/stream.h"
#include "tap.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void test_threads(struct smt *s, struct ectx *cx)
{
	struct smt_geom g = { { 128, 1, 1 }, { 4, 1, 1 } };
	const struct expr *tid = e_tid(cx, 0), *cta = e_ctaid(cx, 0);
	uint32_t t[3], c[3];
	const struct expr *lt = e_op2(cx, EOP_ULT, e_bv(cx, 100, 32), tid);
	ok(smt_thread_sat(s, &g, lt, t, c) == SMT_SAT && t[0] > 100 && t[0] < 128, "tid > 100 within 128 threads (tid %u)", t[0]);
	const struct expr *big = e_op2(cx, EOP_ULE, e_bv(cx, 128, 32), tid);
	ok(smt_thread_sat(s, &g, big, NULL, NULL) == SMT_UNSAT, "tid >= 128 impossible");
	const struct expr *idx = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, cta, e_bv(cx, 128, 32)), tid);
	const struct expr *hit = e_op2(cx, EOP_EQ, idx, e_bv(cx, 300, 32));
	ok(smt_thread_sat(s, &g, hit, t, c) == SMT_SAT && t[0] == 44 && c[0] == 2, "inverting 128*ctaid + tid = 300");
	ok(smt_thread_sat_except(s, &g, hit, t, c, NULL, NULL) == SMT_UNSAT, "only one thread writes 300");
	ok(smt_thread_sat(s, &g, e_op2(cx, EOP_EQ, idx, e_bv(cx, 600, 32)), NULL, NULL) == SMT_UNSAT, "600 is beyond the grid");
	ok(smt_thread_sat(s, &g, e_bool(cx, true), t, c) == SMT_SAT && t[0] == 0, "constant condition: no solver");
	ok(smt_thread_sat(s, &g, e_bool(cx, false), NULL, NULL) == SMT_UNSAT, "false condition");
	const struct expr *lane = e_op2(cx, EOP_AND, tid, e_bv(cx, 31, 32));
	const struct expr *c2 = e_op2(cx, EOP_EQ, lane, e_bv(cx, 31, 32));
	ok(smt_thread_sat_except(s, &g, c2, (uint32_t[]){ 31, 0, 0 }, (uint32_t[]){ 0, 0, 0 }, t, c) == SMT_SAT &&
	   (t[0] & 31) == 31, "another lane 31");
}

static struct smt_equiv_opts opts = { 0, 0, 100, 10 };

static void test_equiv(struct smt *s, struct ectx *cx)
{
	struct arena a = ARENA_INIT;
	const struct expr *x = e_input(cx, 0, 0, ET_F32), *y = e_input(cx, 1, 0, ET_F32);
	struct smt_witness w;
	const struct expr *xy = e_op2(cx, EOP_FADD, x, y), *yx = e_op2(cx, EOP_FADD, y, x);
	is_int(smt_equiv(s, xy, yx, &opts, &a, &w), EQ_EQUAL, "x+y = y+x");
	const struct expr *x2 = e_op2(cx, EOP_FMUL, x, e_real(cx, 2));
	/* build x + x without the simplifier's help: through a product */
	const struct expr *xx = e_op2(cx, EOP_FADD, x, e_op2(cx, EOP_FMUL, x, e_fun(cx, EF_FLOOR, 1, (const struct expr *[]){ e_real(cx, 1.5) })));
	is_int(smt_equiv(s, x2, xx, &opts, &a, &w), EQ_EQUAL, "x*2 = x + x*floor(1.5)");
	const struct expr *x1 = e_op2(cx, EOP_FADD, x, e_real(cx, 1));
	enum smt_equiv_result r = smt_equiv(s, x, x1, &opts, &a, &w);
	is_int(r, EQ_DIFFER, "x vs x+1 differ");
	ok(r == EQ_DIFFER && w.ninputs == 1 && fabs(w.a - w.b) == 1, "witness confirmed: %g vs %g", w.a, w.b);

	/* max(x,y) in two forms */
	const struct expr *m1 = e_op2(cx, EOP_FMAX, x, y);
	const struct expr *m2 = e_ite(cx, e_op2(cx, EOP_FLT, x, y), y, x);
	is_int(smt_equiv(s, m1, m2, &opts, &a, &w), EQ_EQUAL, "fmax(x,y) = (x < y ? y : x)");
	const struct expr *m3 = e_ite(cx, e_op2(cx, EOP_FLT, x, y), x, y);
	is_int(smt_equiv(s, m1, m3, &opts, &a, &w), EQ_DIFFER, "fmax(x,y) != min form");

	const struct expr *t = e_fun(cx, EF_TANH, 1, &x);
	const struct expr *t2 = e_fun(cx, EF_TANH, 1, (const struct expr *[]){ e_op2(cx, EOP_FADD, x, e_real(cx, 0)) });
	is_int(smt_equiv(s, t, t2, &opts, &a, &w), EQ_EQUAL, "tanh(x) = tanh(x+0)");
	const struct expr *nt = e_op1(cx, EOP_FNEG, 0, 0, e_fun(cx, EF_TANH, 1, (const struct expr *[]){ e_op1(cx, EOP_FNEG, 0, 0, x) }));
	is_int(smt_equiv(s, t, nt, &opts, &a, &w), EQ_EQUAL, "tanh(x) = -tanh(-x)");
	r = smt_equiv(s, t, x, &opts, &a, &w);
	is_int(r, EQ_DIFFER, "tanh(x) vs x differ");
	ok(r == EQ_DIFFER && fabs((double)tanhl(w.inputs[0].value) - w.inputs[0].value) > 0 &&
	   w.a == (double)tanhl(w.inputs[0].value), "tanh witness is exact: x = %g", w.ninputs ? w.inputs[0].value : 0);
	ok(r == EQ_DIFFER && (double)(float)w.inputs[0].value == w.inputs[0].value, "witness input is a float32");

	/* sqrt: sqrt(x*x) = |x| needs the facts; sqrt(x) vs x differs */
	const struct expr *sq = e_fun(cx, EF_SQRT, 1, (const struct expr *[]){ e_op2(cx, EOP_FMUL, x, x) });
	r = smt_equiv(s, sq, e_op1(cx, EOP_FABS, 0, 0, x), &opts, &a, &w);
	ok(r == EQ_EQUAL || r == EQ_UNKNOWN || r == EQ_UNCONFIRMED, "sqrt(x*x) vs |x| is never a witness: %s", smt_equiv_name(r));
	r = smt_equiv(s, e_fun(cx, EF_SQRT, 1, &x), x, &opts, &a, &w);
	is_int(r, EQ_DIFFER, "sqrt(x) vs x differ");

	/* tolerance */
	struct smt_equiv_opts tol = { 1e-5, 1e-5, 100, 4 };
	is_int(smt_equiv(s, x, e_op2(cx, EOP_FADD, x, e_real(cx, 1e-6)), &tol, &a, &w), EQ_WITHIN_TOL, "x vs x+1e-6 within tolerance");
	is_int(smt_equiv(s, x, e_op2(cx, EOP_FADD, x, e_real(cx, 1e-3)), &tol, &a, &w), EQ_DIFFER, "x vs x+1e-3 beyond tolerance");

	/* bitvectors */
	const struct expr *i = e_input(cx, 2, 0, ET_S32), *j = e_input(cx, 3, 0, ET_S32);
	const struct expr *b1 = e_op2(cx, EOP_XOR, i, j);
	const struct expr *b2 = e_op2(cx, EOP_SUB, e_op2(cx, EOP_OR, i, j), e_op2(cx, EOP_AND, i, j));
	is_int(smt_equiv(s, b1, b2, &opts, &a, &w), EQ_EQUAL, "i^j = (i|j) - (i&j)");
	r = smt_equiv(s, e_op2(cx, EOP_SDIV, i, e_bv(cx, 2, 32)), e_op2(cx, EOP_ASHR, i, e_bv(cx, 1, 32)), &opts, &a, &w);
	is_int(r, EQ_DIFFER, "i/2 != i>>1 (negative odd i)");
	ok(r == EQ_DIFFER && w.a != w.b, "bitvector witness confirmed");
	/* conversions */
	const struct expr *cv = e_op1(cx, EOP_S2R, 0, 0, i);
	const struct expr *rt = e_op1(cx, EOP_R2S, SORT_BV(32), RM_RN, cv);
	is_int(smt_equiv(s, rt, i, &opts, &a, &w), EQ_EQUAL, "r2s(s2r(i)) = i");

	/* opaque values: uninterpreted functions; equal for every meaning, or unknown */
	const struct expr *sqx = e_op2(cx, EOP_FMUL, x, x);
	const struct expr *ax = e_op1(cx, EOP_FABS, 0, 0, x), *aa = e_op2(cx, EOP_FMUL, ax, ax);
	const struct expr *o1 = e_opaque(cx, 77, SORT_REAL, 1, &sqx), *o2 = e_opaque(cx, 77, SORT_REAL, 1, &aa);
	ok(o1 != o2, "f(x*x) and f(|x|*|x|) are two nodes");
	is_int(smt_equiv(s, o1, o2, &opts, &a, &w), EQ_EQUAL, "f(x*x) = f(|x|*|x|) for every f");
	const struct expr *o3 = e_opaque(cx, 78, SORT_REAL, 1, &sqx);
	r = smt_equiv(s, o1, o3, &opts, &a, &w);
	ok(r == EQ_UNCONFIRMED || r == EQ_UNKNOWN, "f(x*x) vs g(x*x): never a witness (%s)", smt_equiv_name(r));
	r = smt_equiv(s, o1, e_op2(cx, EOP_FADD, o1, e_real(cx, 1)), &opts, &a, &w);
	ok(r == EQ_UNCONFIRMED || r == EQ_UNKNOWN, "f(x) vs f(x) + 1: not confirmed without a meaning (%s)",
	   smt_equiv_name(r));
	const struct expr *bx1 = e_reinterp(cx, 5, x, ET_F32), *bx2 = e_reinterp(cx, 6, sqx, ET_F32);
	const struct expr *bx3 = e_reinterp(cx, 9, aa, ET_F32);
	is_int(smt_equiv(s, bx2, bx3, &opts, &a, &w), EQ_EQUAL, "bits of equal reals are equal, whatever the tag");
	r = smt_equiv(s, bx1, bx2, &opts, &a, &w);
	ok(r != EQ_EQUAL && r != EQ_DIFFER, "bits(x) vs bits(x*x): undecided (%s)", smt_equiv_name(r));
	arena_release(&a);
}

static void test_speed(struct smt *s)
{
	/* a 200-node real expression: a sum of products and maxima */
	struct ectx *cx = ectx_new();
	const struct expr *acc = e_real(cx, 0), *acc2 = e_real(cx, 0);
	for (int k = 0; k < 40; k++) {
		const struct expr *p = e_input(cx, 0, 4 * k, ET_F32), *q = e_input(cx, 1, 4 * k, ET_F32);
		const struct expr *pq = e_op2(cx, EOP_FMUL, p, q);
		acc = e_op2(cx, EOP_FADD, acc, e_op2(cx, EOP_FMAX, pq, e_real(cx, 0)));
		acc2 = e_op2(cx, EOP_FADD, e_op2(cx, EOP_FMAX, e_op2(cx, EOP_FMUL, q, p), e_real(cx, 0)), acc2);
	}
	struct arena a = ARENA_INIT;
	struct smt_witness w;
	double t0 = now_ms();
	enum smt_equiv_result r = smt_equiv(s, acc, acc2, &opts, &a, &w);
	double t1 = now_ms();
	const struct expr *bad = e_op2(cx, EOP_FADD, acc2, e_op2(cx, EOP_FMUL, e_input(cx, 0, 0, ET_F32), e_real(cx, 1e-3)));
	enum smt_equiv_result r2 = smt_equiv(s, acc, bad, &opts, &a, &w);
	double t2 = now_ms();
	printf("# %zu nodes: equal in %.1f ms (%s), differ in %.1f ms (%s)\n", ectx_count(cx),
	       t1 - t0, smt_equiv_name(r), t2 - t1, smt_equiv_name(r2));
	ok(r == EQ_EQUAL, "big sums are equal (canonical form)");
	ok(r2 == EQ_DIFFER, "perturbed sum differs");

	/* the same without the canonical forms' help: a != b needs the solver */
	const struct expr *m1 = e_real(cx, 0), *m2 = e_real(cx, 0);
	for (int k = 0; k < 30; k++) {
		const struct expr *p = e_input(cx, 2, 4 * k, ET_F32);
		m1 = e_op2(cx, EOP_FMAX, m1, p);
		m2 = e_op2(cx, EOP_FMAX, p, m2);
	}
	const struct expr *m3 = e_real(cx, 0);
	for (int k = 29; k >= 0; k--)
		m3 = e_op2(cx, EOP_FMAX, m3, e_input(cx, 2, 4 * k, ET_F32));
	t0 = now_ms();
	r = smt_equiv(s, m1, m3, &opts, &a, &w);
	t1 = now_ms();
	printf("# max reduction in two orders (%zu nodes): %s in %.1f ms\n", ectx_count(cx), smt_equiv_name(r), t1 - t0);
	ok(r == EQ_EQUAL, "max reductions in two orders are equal");
	arena_release(&a);
	ectx_free(cx);
}

static void test_roundtrip(void)
{
	struct ectx *cx = ectx_new();
	const struct expr *x = e_input(cx, 0, 8, ET_F32), *tid = e_tid(cx, 1);
	const struct expr *addr = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_resize(cx, tid, 64, false), e_bv(cx, 4, 64)), e_bv(cx, 64, 64));
	const struct expr *ld = e_load(cx, 3, ET_F32, addr);
	const struct expr *f = e_fun(cx, EF_POW, 2, (const struct expr *[]){ x, ld });
	const struct expr *c = e_op2(cx, EOP_SLT, e_op1(cx, EOP_EXTRACT, SORT_BV(16), 4, tid), e_bv(cx, 7, 16));
	const struct expr *v = e_ite(cx, c, e_op2(cx, EOP_FSUB, f, e_real(cx, 0.1)),
	                             e_op1(cx, EOP_S2R, 0, 0, e_op1(cx, EOP_R2S, SORT_BV(32), RM_RZ, x)));
	const struct expr *u = e_op2(cx, EOP_FADD, v, e_undef_tag(cx, SORT_REAL, 3));
	const struct expr *ox[2] = { x, tid };
	const struct expr *opq = e_opaque(cx, (2ull << 32) | 4, SORT_BV(32), 2, ox);
	const struct expr *bits = e_reinterp(cx, 3, ld, ET_F32);
	const struct expr *b = e_and(cx, e_var(cx, 1, SORT_BOOL), e_op2(cx, EOP_EQ, e_elem(cx, 2, 0, ET_S32),
	                                                              e_op2(cx, EOP_ADD, opq, bits)));
	const struct expr *roots[] = { u, b };
	struct etable *t = etable_new();
	uint32_t iu = etable_add(t, u), ib = etable_add(t, b);

	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct stream_out *w = stream_out_new(fp);
	out_begin(w, "test");
	out_key(w, "exprs");
	exprs_write(w, t);
	out_end(w);
	stream_out_free(w);
	fclose(fp);

	msgpack_unpacked up;
	msgpack_unpacked_init(&up);
	size_t off = 0;
	bool unpacked = msgpack_unpack_next(&up, buf, len, &off) == MSGPACK_UNPACK_SUCCESS;
	ok(unpacked, "record unpacks");
	const msgpack_object *arr = unpacked ? obj_get(&up.data, "exprs") : NULL;
	struct arena a = ARENA_INIT;
	char err[200] = "";
	uint32_t n = 0;
	const struct expr **got = arr ? exprs_read(cx, arr, &a, &n, err, sizeof err) : NULL;
	ok(got && n == etable_len(t), "table read back: %s", err);
	bool same = got != NULL;
	for (uint32_t i = 0; got && i < n; i++)
		same &= got[i] == etable_get(t, i);
	ok(same, "every node is the same pointer after the round trip");
	ok(got && got[iu] == roots[0] && got[ib] == roots[1], "roots found at their indices");

	/* the same table into a fresh context gives equal structure */
	struct ectx *cx2 = ectx_new();
	const struct expr **got2 = arr ? exprs_read(cx2, arr, &a, &n, err, sizeof err) : NULL;
	ok(got2 && ectx_count(cx2) == n, "fresh context rebuilds exactly the table's nodes (%zu vs %u)", ectx_count(cx2), n);
	ectx_free(cx2);
	msgpack_unpacked_destroy(&up);
	free(buf);

	/* bad inputs: every one an error message, never a crash */
	int nbad = 0;
	/* build the bad tables with msgpack directly */
	for (int k = 0; k < 12; k++) {
		msgpack_sbuffer sb;
		msgpack_sbuffer_init(&sb);
		msgpack_packer pk;
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_array(&pk, 2);
		msgpack_pack_array(&pk, 3);
		msgpack_pack_str_with_body(&pk, "real", 4);
		msgpack_pack_str_with_body(&pk, "real", 4);
		msgpack_pack_double(&pk, 1.5);
		switch (k) {
		case 0: /* unknown op */
			msgpack_pack_array(&pk, 2);
			msgpack_pack_str_with_body(&pk, "frob", 4);
			msgpack_pack_str_with_body(&pk, "real", 4);
			break;
		case 1: /* forward reference */
			msgpack_pack_array(&pk, 4);
			msgpack_pack_str_with_body(&pk, "fadd", 4);
			msgpack_pack_str_with_body(&pk, "real", 4);
			msgpack_pack_uint32(&pk, 0);
			msgpack_pack_uint32(&pk, 1);
			break;
		case 2: /* wrong result sort */
			msgpack_pack_array(&pk, 4);
			msgpack_pack_str_with_body(&pk, "fadd", 4);
			msgpack_pack_str_with_body(&pk, "bv32", 4);
			msgpack_pack_uint32(&pk, 0);
			msgpack_pack_uint32(&pk, 0);
			break;
		case 3: /* wrong argument sort */
			msgpack_pack_array(&pk, 4);
			msgpack_pack_str_with_body(&pk, "add", 3);
			msgpack_pack_str_with_body(&pk, "bv32", 4);
			msgpack_pack_uint32(&pk, 0);
			msgpack_pack_uint32(&pk, 0);
			break;
		case 4: /* wrong argument count */
			msgpack_pack_array(&pk, 3);
			msgpack_pack_str_with_body(&pk, "fdiv", 4);
			msgpack_pack_str_with_body(&pk, "real", 4);
			msgpack_pack_uint32(&pk, 0);
			break;
		case 5: /* unknown function */
			msgpack_pack_array(&pk, 4);
			msgpack_pack_str_with_body(&pk, "fun", 3);
			msgpack_pack_str_with_body(&pk, "real", 4);
			msgpack_pack_str_with_body(&pk, "gamma", 5);
			msgpack_pack_uint32(&pk, 0);
			break;
		case 6: /* not an array */
			msgpack_pack_uint32(&pk, 7);
			break;
		case 7: /* bad extract */
			msgpack_pack_array(&pk, 4);
			msgpack_pack_str_with_body(&pk, "extract", 7);
			msgpack_pack_str_with_body(&pk, "bv8", 3);
			msgpack_pack_uint32(&pk, 0);
			msgpack_pack_uint32(&pk, 0);
			break;
		case 8: /* opaque: unknown reinterpretation */
		case 9: /* opaque: bits of a real as a 16-bit vector for f32 */
		case 10: /* opaque: tag too large */
		case 11: /* opaque: no tag */
			msgpack_pack_array(&pk, k == 11 ? 3 : 5);
			msgpack_pack_str_with_body(&pk, "opaque", 6);
			msgpack_pack_str_with_body(&pk, k == 9 ? "bv16" : "bv32", 4);
			if (k == 10)
				msgpack_pack_uint64(&pk, 1ull << 60);
			else if (k != 11)
				msgpack_pack_uint32(&pk, 1);
			if (k == 8)
				msgpack_pack_str_with_body(&pk, "bits.u32", 8);
			else if (k == 11)
				msgpack_pack_str_with_body(&pk, "", 0);
			else
				msgpack_pack_str_with_body(&pk, "bits.f32", 8);
			if (k != 11)
				msgpack_pack_uint32(&pk, 0);
			break;
		}
		msgpack_unpacked u2;
		msgpack_unpacked_init(&u2);
		size_t o2 = 0;
		msgpack_unpack_next(&u2, sb.data, sb.size, &o2);
		err[0] = 0;
		const struct expr **r = exprs_read(cx, &u2.data, &a, &n, err, sizeof err);
		if (!r && err[0])
			nbad++;
		printf("# bad table %d: %s\n", k, err);
		msgpack_unpacked_destroy(&u2);
		msgpack_sbuffer_destroy(&sb);
	}
	ok(nbad == 12, "bad tables are refused with a message (%d of 12)", nbad);
	etable_free(t);
	arena_release(&a);
	ectx_free(cx);
}

/* A thread query no solver answers fast: factor a 62-bit semiprime into
 * two 31-bit coordinates of a huge launch. */
static const struct expr *factoring(struct ectx *cx)
{
	const struct expr *x = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_resize(cx, e_ctaid(cx, 0), 64, false),
	                             e_bv(cx, 1024, 64)), e_resize(cx, e_tid(cx, 0), 64, false));
	const struct expr *y = e_op2(cx, EOP_ADD, e_op2(cx, EOP_MUL, e_resize(cx, e_ctaid(cx, 1), 64, false),
	                             e_bv(cx, 1024, 64)), e_resize(cx, e_tid(cx, 1), 64, false));
	const struct expr *big = e_and(cx, e_op2(cx, EOP_ULT, e_bv(cx, 1, 64), x), e_op2(cx, EOP_ULT, e_bv(cx, 1, 64), y));
	/* 2147483647 * 2147483629 */
	return e_and(cx, big, e_op2(cx, EOP_EQ, e_op2(cx, EOP_MUL, x, y), e_bv(cx, 4611685975477714963ull, 64)));
}

/* Limits: the resource limit decides "unknown" the same way every time;
 * the deadline and the per-query timeout interrupt a query, "timeout". */
static void test_limits(void)
{
	struct ectx *cx = ectx_new();
	struct smt_geom g = { { 1024, 1024, 1 }, { 2097152, 2097152, 1 } };
	const struct expr *c = factoring(cx);
	struct smt *s = smt_new(0, 20000);
	smt_set_stats(s, true);
	enum smt_result r1 = smt_thread_sat(s, &g, c, NULL, NULL);
	enum smt_result r2 = smt_thread_sat(s, &g, c, NULL, NULL);
	ok(r1 == SMT_UNKNOWN && r2 == SMT_UNKNOWN && smt_get_stats(s)->unknown == 2 &&
	   smt_get_stats(s)->timeouts == 0, "rlimit 20000: unknown, twice, not a timeout");
	ok(smt_get_stats(s)->rlimit_max >= 20000 && smt_get_stats(s)->rlimit_max < 40000,
	   "the resource units used are measured (%llu)", (unsigned long long)smt_get_stats(s)->rlimit_max);
	smt_free(s);

	s = smt_new(0, 0);
	smt_set_deadline(s, deadline_now() + 0.5);
	double t0 = now_ms();
	enum smt_result r = smt_thread_sat(s, &g, c, NULL, NULL);
	double t = now_ms() - t0;
	ok(r == SMT_TIMEOUT && t < 3000, "deadline in 0.5 s: timeout after %.0f ms", t);
	t0 = now_ms();
	r = smt_thread_sat(s, &g, e_op2(cx, EOP_ULT, e_tid(cx, 0), e_bv(cx, 5, 32)), NULL, NULL);
	ok(r == SMT_TIMEOUT && now_ms() - t0 < 100, "after the deadline no query starts");
	smt_free(s);

	s = smt_new(300, 0);
	t0 = now_ms();
	r = smt_thread_sat(s, &g, c, NULL, NULL);
	t = now_ms() - t0;
	ok(r == SMT_TIMEOUT && t < 3000, "per-query timeout of 300 ms: timeout after %.0f ms", t);
	r = smt_thread_sat(s, &g, e_op2(cx, EOP_ULT, e_tid(cx, 0), e_bv(cx, 5, 32)), NULL, NULL);
	ok(r == SMT_SAT, "the next query is answered");
	smt_free(s);

	/* equivalence: the same for smt_equiv */
	const struct expr *x = e_input(cx, 0, 0, ET_F32), *y = e_input(cx, 0, 4, ET_F32);
	const struct expr *p = x;
	for (int i = 0; i < 12; i++)
		p = e_op2(cx, EOP_FADD, e_op2(cx, EOP_FMUL, p, y), e_real(cx, 1.0 + i));
	const struct expr *q = e_op2(cx, EOP_FADD, p, e_op2(cx, EOP_FMUL, e_op2(cx, EOP_FMUL, x, x), e_real(cx, 1e-9)));
	struct smt_equiv_opts eo = { 0, 0, 100.0, 8 };
	struct arena a;
	arena_init(&a);
	struct smt_witness w;
	s = smt_new(0, 0);
	smt_set_deadline(s, deadline_now() - 1);
	ok(smt_equiv(s, p, q, &eo, &a, &w) == EQ_TIMEOUT, "equivalence after the deadline: timeout");
	smt_free(s);
	arena_release(&a);
	ectx_free(cx);
}

int main(void)
{
	test_limits();
	struct smt *s = smt_new(10000, 0);
	struct ectx *cx = ectx_new();
	test_threads(s, cx);
	test_equiv(s, cx);
	ectx_free(cx);
	test_speed(s);
	smt_free(s);
	test_roundtrip();
	return done_testing();
}
