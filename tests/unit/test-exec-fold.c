/*
 * test-exec-fold.c: what the launch geometry folds (dexec/fold.c): nvcc's
 * signed division and rounding of a nonnegative index, masks, comparisons
 * the bounds decide, and where nothing may fold (a block wider than the
 * mask, a value that may be negative); and conjoining a domain without
 * the tests a new one implies (a tile loop's exit tests over its trips).
 * Each fold is also checked against the unfolded expression at corner
 * threads of the grid.
 */
#include "dx-harness.h"

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry k()\n{\nret;\n}\n";

static struct ectx *cx;

static const struct expr *bv(uint64_t v) { return e_bv(cx, v, 32); }
static const struct expr *add(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_ADD, a, b); }
static const struct expr *mul(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_MUL, a, b); }

/* nvcc's x / 32 * 32 for a signed x: (x + ((x >> 31) >>u 27)) & -32 */
static const struct expr *round32(const struct expr *x)
{
	const struct expr *sign = e_op2(cx, EOP_LSHR, e_op2(cx, EOP_ASHR, x, bv(31)), bv(27));
	return e_op2(cx, EOP_AND, add(x, sign), bv(0xFFFFFFE0u));
}

/* e and f agree at the corners of the grid (and a few threads inside). */
static bool same_at_corners(struct dx_launch *L, const struct expr *e, const struct expr *f)
{
	const uint32_t *nt = L->geom.ntid, *nc = L->geom.nctaid;
	for (unsigned k = 0; k < 16; k++) {
		uint32_t t[3], c[3];
		for (unsigned d = 0; d < 3; d++) {
			t[d] = (k >> d & 1) ? nt[d] - 1 : (k & 8) ? nt[d] / 2 : 0;
			c[d] = (k >> (d + 1) & 1) ? nc[d] - 1 : (k & 8) ? nc[d] / 3 : 0;
		}
		if (e_at_thread(cx, e, t, c) != e_at_thread(cx, f, t, c))
			return false;
	}
	return true;
}

static void test_fold(void)
{
	struct tb t;
	tb_init(&t, ptx, "k", 128, 128, 32, 32);
	struct dx_launch *L = tb_run(&t);
	cx = L->cx;
	const struct expr *row = add(mul(e_ctaid(cx, 1), bv(32)), e_tid(cx, 1));
	const struct expr *r = round32(row);
	const struct expr *f = dx_fold(L, r);
	ok(f == mul(e_ctaid(cx, 1), bv(32)), "row / 32 * 32 of a nonnegative row is ctaid.y * 32");
	ok(same_at_corners(L, r, f), "and agrees at the corners");

	const struct expr *q = e_op2(cx, EOP_ASHR, add(row, e_op2(cx, EOP_LSHR, e_op2(cx, EOP_ASHR, row, bv(31)), bv(27))), bv(5));
	const struct expr *fq = dx_fold(L, q);
	ok(fq->op == EOP_LSHR && same_at_corners(L, q, fq), "row / 32: a logical shift of row");

	const struct expr *m = e_op2(cx, EOP_AND, e_tid(cx, 0), bv(31));
	ok(dx_fold(L, m) == e_tid(cx, 0), "tid.x & 31 with 32 threads is tid.x");
	const struct expr *u = e_op2(cx, EOP_UREM, e_tid(cx, 0), bv(32));
	ok(dx_fold(L, u) == e_tid(cx, 0), "tid.x %% 32 with 32 threads is tid.x");
	const struct expr *c = e_op2(cx, EOP_SLT, row, bv(4096));
	ok(e_is_true(dx_fold(L, c)), "row < 4096 with 128 blocks of 32 is true");
	const struct expr *c2 = e_op2(cx, EOP_SLT, row, bv(4000));
	ok(dx_fold(L, c2) == c2, "row < 4000 stays");

	/* a tile test: col < row / 32 * 32 + 64, over the folded rounding */
	const struct expr *col = add(mul(e_ctaid(cx, 0), bv(32)), e_tid(cx, 0));
	const struct expr *tile = e_op2(cx, EOP_SLT, col, add(r, bv(64)));
	const struct expr *ft = dx_fold(L, tile);
	ok(ft != tile && same_at_corners(L, tile, ft), "a tile loop's test folds and agrees at the corners");
	tb_free(&t);

	/* 64 threads in y: tid.y may exceed the mask, nothing folds */
	tb_init(&t, ptx, "k", 128, 128, 16, 64);
	L = tb_run(&t);
	cx = L->cx;
	row = add(mul(e_ctaid(cx, 1), bv(32)), e_tid(cx, 1));
	r = round32(row);
	f = dx_fold(L, r);
	ok(f != mul(e_ctaid(cx, 1), bv(32)) && same_at_corners(L, r, f),
	   "with 64 threads in y the rounding keeps tid.y's part");
	m = e_op2(cx, EOP_AND, e_tid(cx, 1), bv(31));
	ok(dx_fold(L, m) == m, "tid.y & 31 with 64 threads stays");
	tb_free(&t);

	/* a value that may be negative: its arithmetic shift stays */
	tb_init(&t, ptx, "k", 1, 1, 32, 1);
	L = tb_run(&t);
	cx = L->cx;
	const struct expr *neg = e_op2(cx, EOP_SUB, e_tid(cx, 0), bv(16));
	const struct expr *s = e_op2(cx, EOP_ASHR, neg, bv(31));
	ok(dx_fold(L, s) == s, "tid.x - 16 >> 31 (arithmetic) stays");
	const struct expr *big = mul(e_tid(cx, 0), bv(0x10000000u));
	const struct expr *bs = e_op2(cx, EOP_LSHR, big, bv(31));
	ok(dx_fold(L, bs) == bs, "a product that may wrap gets no interval");
	tb_free(&t);
}

static void test_dom_and(void)
{
	struct tb t;
	tb_init(&t, ptx, "k", 128, 128, 32, 32);
	struct dx_launch *L = tb_run(&t);
	cx = L->cx;
	const struct expr *row = add(mul(e_ctaid(cx, 1), bv(32)), e_tid(cx, 1));
	const struct expr *col = add(mul(e_ctaid(cx, 0), bv(32)), e_tid(cx, 0));
	const struct expr *base = add(mul(e_ctaid(cx, 1), bv(32)), bv(0));
	/* !(col < by*32 + 32k): the loop goes on past trip k */
	const struct expr *dom = e_op2(cx, EOP_SLE, row, col);
	for (unsigned k = 1; k <= 6; k++) {
		const struct expr *on = e_not(cx, e_op2(cx, EOP_SLT, col, add(base, bv(32 * k))));
		dom = dx_dom_and(L, dom, on);
	}
	ok(dom->op == EOP_LAND && dom->nargs == 2, "six trips' tests: the last alone stays (%u conjuncts)",
	   dom->op == EOP_LAND ? dom->nargs : 1);
	const struct expr *weaker = e_not(cx, e_op2(cx, EOP_SLT, col, add(base, bv(64))));
	ok(dx_dom_and(L, dom, weaker) == dom, "a test the domain implies adds nothing");
	const struct expr *other = e_not(cx, e_op2(cx, EOP_SLT, row, add(base, bv(64))));
	const struct expr *d2 = dx_dom_and(L, dom, other);
	ok(d2->op == EOP_LAND && d2->nargs == 3, "a test of another left side is kept beside");
	const struct expr *upper = e_op2(cx, EOP_SLT, col, add(base, bv(1024)));
	const struct expr *d3 = dx_dom_and(L, dom, upper);
	ok(d3->op == EOP_LAND && d3->nargs == 3, "an upper bound does not replace a lower one");
	tb_free(&t);
}

int main(void)
{
	diag_set_prog("test-exec-fold");
	test_fold();
	test_dom_and();
	return done_testing();
}
