/*
 * test-canon.c: the canonical form of engine/canon.c: equal multisets
 * in other associations and orders, coefficients, distribution of
 * constants, products and quotients, max/min flattening and idempotence,
 * -inf and +inf, ite as max/min, what must not become equal, the step
 * limit, coefficients that cannot be written, history independence,
 * constants rounded to floats, forms equal but for neighbouring float
 * constants (canon_close), and a randomised check that the canonical
 * form keeps the value.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libcommon/axioms.h"
#include "engine/canon.h"
#include "tap.h"

static struct ectx *cx;

static const struct expr *in(unsigned k) { return e_input(cx, 0, 4 * k, ET_F32); }
static const struct expr *c(double v) { return e_real(cx, v); }
static const struct expr *add(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FADD, a, b); }
static const struct expr *sub(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FSUB, a, b); }
static const struct expr *mul(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FMUL, a, b); }
static const struct expr *dv(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FDIV, a, b); }
static const struct expr *neg(const struct expr *a) { return e_op1(cx, EOP_FNEG, SORT_REAL, 0, a); }
static const struct expr *mx(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FMAX, a, b); }
static const struct expr *mn(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FMIN, a, b); }
static const struct expr *f(enum efun fn, const struct expr *a) { return e_fun(cx, fn, 1, &a); }
static const struct expr *lt(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FLT, a, b); }
static const struct expr *le(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FLE, a, b); }
static const struct expr *ninf(void) { return e_undef_tag(cx, SORT_REAL, E_UNDEF_NINF); }
static const struct expr *pinf(void) { return e_undef_tag(cx, SORT_REAL, E_UNDEF_PINF); }

/* Canonical forms of a and b in one canonicaliser: the same node? */
static bool same(const struct expr *a, const struct expr *b)
{
	struct canon *k = canon_new(cx, 0);
	const struct expr *x = canon(k, a), *y = canon(k, b);
	canon_free(k);
	return x && y && x == y;
}

static const struct expr *cn(const struct expr *a)
{
	struct canon *k = canon_new(cx, 0);
	const struct expr *x = canon(k, a);
	canon_free(k);
	return x;
}

/* Left chain, balanced tree, and strided partial sums (stride s) of
 * op over v[0..n). */
typedef const struct expr *(*binop)(const struct expr *, const struct expr *);

static const struct expr *chain(binop op, const struct expr **v, size_t n)
{
	const struct expr *r = v[0];
	for (size_t i = 1; i < n; i++)
		r = op(r, v[i]);
	return r;
}

static const struct expr *btree(binop op, const struct expr **v, size_t n)
{
	if (n == 1)
		return v[0];
	return op(btree(op, v + n / 2, n - n / 2), btree(op, v, n / 2));
}

static const struct expr *strided(binop op, const struct expr **v, size_t n, size_t s)
{
	const struct expr **part = calloc(s, sizeof *part);
	for (size_t i = 0; i < n; i++)
		part[i % s] = part[i % s] ? op(part[i % s], v[i]) : v[i];
	/* a shared-memory tree over the partials */
	for (size_t h = s / 2; h > 0; h /= 2)
		for (size_t t = 0; t < h; t++)
			part[t] = op(part[t], part[t + h]);
	const struct expr *r = part[0];
	free(part);
	return r;
}

/* sum of in(100 + i)^2, i < n */
static const struct expr *chain_sq(unsigned n)
{
	const struct expr *s = NULL;
	for (unsigned i = 0; i < n; i++) {
		const struct expr *q = mul(in(100 + i), in(100 + i));
		s = s ? add(s, q) : q;
	}
	return s;
}

/* ---- a randomised check of values ------------------------------------------------ */

static double vals[8];

static bool leaf_val(const struct expr *leaf, struct evalue *out, void *user)
{
	(void)user;
	if (leaf->op != EOP_INPUT)
		return false;
	memset(out, 0, sizeof *out);
	out->r = vals[leaf->off / 4 % 8];
	return true;
}

static double eval(const struct expr *e, bool *okp)
{
	struct evalue v;
	*okp = e_eval(e, EM_EXACT, leaf_val, NULL, &v) && !v.undef;
	return (double)v.r;
}

static unsigned long rs = 12345;
static unsigned rnd(unsigned n)
{
	rs = rs * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)((rs >> 33) % n);
}

static const struct expr *random_expr(unsigned depth)
{
	static const double ks[] = { 0, 1, -1, 2, 0.5, 3, -0.25, 1000, 7 };
	if (depth == 0 || rnd(4) == 0)
		return rnd(5) ? in(rnd(6)) : c(ks[rnd(9)]);
	const struct expr *a = random_expr(depth - 1), *b = random_expr(depth - 1);
	switch (rnd(9)) {
	case 0: case 1: return add(a, b);
	case 2: return sub(a, b);
	case 3: return mul(a, b);
	case 4: return dv(a, c(ks[1 + rnd(8)]));
	case 5: return neg(a);
	case 6: return mx(a, b);
	case 7: return mn(a, b);
	default: return e_ite(cx, lt(a, b), rnd(2) ? b : a, rnd(2) ? a : b);
	}
}

int main(void)
{
	cx = ectx_new();
	const struct expr *a = in(0), *b = in(1), *x = in(2), *y = in(3);

	/* ---- sums: one multiset, any association, any order ---- */
	{
		enum { N = 4096 };
		const struct expr **v = calloc(N, sizeof *v), **r = calloc(N, sizeof *r);
		for (unsigned i = 0; i < N; i++) {
			v[i] = mul(in(10 + i), in(10 + N + i));
			r[N - 1 - i] = v[i];
		}
		const struct expr *s1 = chain(add, v, N), *s2 = btree(add, r, N), *s3 = strided(add, v, N, 256);
		ok(same(s1, s2), "a 4096-term dot product: chain and reversed tree");
		ok(same(s1, s3), "a 4096-term dot product: strided partial sums and a tree");
		ok(!same(s1, chain(add, v, N - 1)), "one term missing is another sum");
		ok(!same(s1, add(s1, v[7])), "one term twice is another sum");
		ok(same(add(s1, v[7]), add(mul(v[7], c(2)), chain(add, v + 8, N - 8))) ==
		   false, "the sum with v[7] twice is not 2 v[7] plus the sum from v[8]");
		ok(same(add(s1, v[7]), add(add(mul(v[7], c(2)), chain(add, v, 7)), chain(add, v + 8, N - 8))),
		   "the sum with v[7] twice is 2 v[7] plus the others");
		/* partial sums each divided by N (atomicAdd of per-block means) */
		const struct expr **p = calloc(16, sizeof *p);
		for (unsigned blk = 0; blk < 16; blk++)
			p[blk] = dv(chain(add, v + blk * 256, 256), c(1000));
		ok(same(chain(add, p, 16), dv(s1, c(1000))), "partials each divided by 1000 = the sum divided by 1000");
		ok(same(chain(add, p, 16), mul(dv(c(1), c(1000)), s1)), "... = the sum times 1/1000");
		for (unsigned blk = 0; blk < 16; blk++)
			p[blk] = dv(chain(add, v + blk * 256, 256), c(999));
		ok(!same(chain(add, p, 16), dv(s1, c(1000))), "partials divided by 999 are not the sum divided by 1000");
		free(p);
		free(v);
		free(r);
	}

	/* ---- coefficients ---- */
	ok(same(add(x, x), mul(x, c(2))), "x + x = 2x");
	ok(same(add(dv(x, c(3)), dv(mul(x, c(2)), c(3))), x), "x/3 + 2x/3 = x");
	ok(same(sub(add(x, y), y), x), "(x + y) - y = x");
	ok(same(add(add(mul(x, c(0.5)), mul(y, c(3))), mul(x, c(0.5))), add(x, mul(y, c(3)))),
	   "0.5x + 3y + 0.5x = x + 3y");
	ok(!same(add(mul(x, c(0.1)), mul(x, c(0.2))), mul(x, c(0.3))),
	   "0.1x + 0.2x is not 0.3x (the doubles are not 0.1, 0.2, 0.3)");
	ok(!same(dv(x, c(3)), mul(x, c(1.0 / 3))), "x/3 is not x * (the double nearest 1/3)");
	ok(same(dv(dv(x, c(3)), c(5)), dv(x, c(15))), "(x/3)/5 = x/15");
	ok(same(sub(dv(x, c(3)), dv(x, c(3))), c(0)), "x/3 - x/3 = 0");
	ok(same(add(c(1), add(x, c(2))), add(x, c(3))), "1 + (x + 2) = x + 3");

	/* ---- distribution of constants ---- */
	ok(same(mul(add(a, b), c(2)), add(mul(a, c(2)), mul(b, c(2)))), "2(a + b) = 2a + 2b");
	ok(same(dv(add(a, b), c(3)), add(dv(a, c(3)), dv(b, c(3)))), "(a + b)/3 = a/3 + b/3");
	ok(same(neg(sub(a, b)), sub(b, a)), "-(a - b) = b - a");
	ok(same(mul(neg(add(a, b)), c(-0.5)), mul(add(b, a), c(0.5))), "-(a + b) * -0.5 = (b + a) * 0.5");

	/* ---- products and quotients ---- */
	ok(same(mul(mul(a, b), x), mul(x, mul(b, a))), "(ab)x = x(ba)");
	ok(same(mul(mul(a, c(2)), b), mul(c(2), mul(a, b))), "(2a)b = 2(ab)");
	ok(same(mul(neg(a), neg(b)), mul(a, b)), "(-a)(-b) = ab");
	ok(same(dv(a, b), mul(a, dv(c(1), b))), "a/b = a * (1/b)");
	ok(same(dv(mul(a, b), x), mul(a, dv(b, x))), "(ab)/x = a(b/x)");
	ok(same(dv(a, mul(b, c(2))), mul(dv(a, b), c(0.5))), "a/(2b) = (a/b)/2");
	ok(same(mul(add(mul(a, c(2)), mul(b, c(2))), x), mul(mul(add(a, b), x), c(2))),
	   "(2a + 2b)x = 2((a + b)x): a sum factor is monic");
	ok(same(mul(sub(c(0), add(a, b)), x), neg(mul(add(a, b), x))), "(-(a+b))x = -((a+b)x)");
	ok(!same(dv(a, b), dv(b, a)), "a/b is not b/a");
	ok(!same(mul(x, dv(c(1), x)), c(1)), "x * (1/x) is not 1");
	ok(!same(mul(a, a), a), "aa is not a");
	ok(!same(sub(a, b), sub(b, a)), "a - b is not b - a");

	/* ---- max and min ---- */
	{
		enum { N = 4096 };
		const struct expr **v = calloc(N, sizeof *v), **r = calloc(N, sizeof *r);
		for (unsigned i = 0; i < N; i++) {
			v[i] = in(20000 + i);
			r[N - 1 - i] = v[i];
		}
		const struct expr *m1 = chain(mx, v, N), *m2 = btree(mx, r, N), *m3 = strided(mx, v, N, 256);
		ok(same(m1, m2), "a 4096-element max: chain and reversed tree");
		ok(same(m1, m3), "a 4096-element max: strided and a tree");
		ok(!same(m1, chain(mx, v, N - 1)), "one element missing is another max");
		ok(!same(m1, chain(mn, v, N)), "max is not min");
		ok(same(chain(mn, v, N), btree(mn, r, N)), "a 4096-element min: chain and tree");
		/* softmax: exp(x - max) / sum, in two associations */
		const struct expr **e1 = calloc(N, sizeof *e1), **e2 = calloc(N, sizeof *e2);
		for (unsigned i = 0; i < N; i++) {
			e1[i] = f(EF_EXP, sub(v[i], m1));
			e2[N - 1 - i] = f(EF_EXP, sub(v[i], m3));
		}
		const struct expr *sm1 = dv(e1[5], chain(add, e1, N));
		const struct expr *sm2 = mul(e2[N - 1 - 5], dv(c(1), strided(add, e2, N, 128)));
		ok(same(sm1, sm2), "softmax: exp(x - max)/sum = exp(x - max) * (1/sum) in other associations");
		const struct expr *half = dv(e1[5], chain(add, e1, N / 2));
		ok(!same(sm1, half), "softmax over half the row is not softmax");
		free(e1);
		free(e2);
		free(v);
		free(r);
	}
	ok(same(mx(a, mx(b, a)), mx(a, b)), "max(a, max(b, a)) = max(a, b)");
	ok(same(mx(mx(a, b), mx(b, x)), mx(x, mx(a, b))), "max is idempotent across subtrees");
	ok(same(mx(ninf(), mx(a, b)), mx(b, a)), "max(-inf, a, b) = max(a, b)");
	ok(same(mx(ninf(), ninf()), ninf()), "max(-inf, -inf) = -inf");
	ok(same(mn(pinf(), a), a), "min(+inf, a) = a");
	ok(!same(mn(ninf(), a), a), "min(-inf, a) is not a");
	ok(!same(mx(pinf(), a), a), "max(+inf, a) is not a");
	ok(same(mx(c(1), mx(a, c(3))), mx(a, c(3))), "max(1, a, 3) = max(a, 3)");
	ok(same(mn(c(1), mn(a, c(3))), mn(a, c(1))), "min(1, a, 3) = min(a, 1)");
	ok(same(e_ite(cx, lt(a, b), b, a), mx(a, b)), "ite(a < b, b, a) = max(a, b)");
	ok(same(e_ite(cx, le(a, b), a, b), mn(a, b)), "ite(a <= b, a, b) = min(a, b)");
	ok(same(e_ite(cx, lt(a, b), b, a), e_ite(cx, lt(b, a), a, b)), "ite(a < b, b, a) = ite(b < a, a, b)");
	ok(!same(e_ite(cx, lt(a, b), a, b), mx(a, b)), "ite(a < b, a, b) is not max(a, b)");
	ok(same(mx(e_ite(cx, lt(a, b), b, a), x), mx(mx(x, b), a)), "ite max inside a max flattens");

	/* ---- idempotence ---- */
	{
		rs = 99;
		bool all = true;
		for (unsigned i = 0; i < 300 && all; i++) {
			const struct expr *e = random_expr(6), *k = cn(e);
			all = k && cn(k) == k;
			if (!all) {
				struct arena pa = ARENA_INIT;
				printf("# not idempotent: %s\n#   -> %s\n#   -> %s\n", e_print(&pa, e, 400),
				       e_print(&pa, k, 400), k ? e_print(&pa, cn(k), 400) : "");
				arena_release(&pa);
			}
		}
		ok(all, "canonical forms are their own canonical forms (300 random expressions)");
	}

	/* ---- the canonical form keeps the value ---- */
	{
		rs = 4242;
		unsigned bad = 0, tried = 0;
		for (unsigned i = 0; i < 400; i++) {
			const struct expr *e = random_expr(6), *k = cn(e);
			for (unsigned p = 0; p < 4; p++) {
				for (unsigned j = 0; j < 8; j++)
					vals[j] = (double)((int)rnd(2001) - 1000) / 37.0;
				bool ok1, ok2;
				double u = eval(e, &ok1), w = eval(k, &ok2);
				if (!ok1 || !ok2 || !isfinite(u) || !isfinite(w))
					continue;
				tried++;
				if (fabs(u - w) > 1e-9 * (1 + fabs(u))) {
					if (!bad) {
						struct arena pa = ARENA_INIT;
						printf("# %s = %.17g\n# %s = %.17g\n", e_print(&pa, e, 400), u,
						       e_print(&pa, k, 400), w);
						arena_release(&pa);
					}
					bad++;
				}
			}
		}
		ok(!bad && tried > 800, "canonical forms have the values of the expressions (%u points)", tried);
	}

	/* ---- limits and coefficients that cannot be written ---- */
	{
		const struct expr *s = x;
		for (unsigned i = 0; i < 2000; i++)
			s = add(mul(s, in(30 + i % 7)), in(40 + i % 5));
		struct canon *k = canon_new(cx, 100);
		ok(canon(k, s) == NULL && canon_steps(k) > 100, "past the step limit: no canonical form");
		canon_free(k);
		const struct expr *e[2] = { s, x };
		ok(!canon_pair(cx, e, 100, false) && e[0] == s && e[1] == x, "canon_pair leaves both as they were");
		e[0] = add(a, b);
		e[1] = add(b, a);
		ok(canon_pair(cx, e, 0, false) && e[0] == e[1], "canon_pair without a limit");
		/* a two-pass variance, sum (x_i - mean)^2 / n, is the one-pass
		 * sum x_i^2 / n - mean^2: the squares sharing the mean are
		 * expanded, so the mean's terms are not spread into every
		 * x_i - mean (quadratic) */
		enum { NV = 2000 };
		const struct expr *sum = in(100), *var = NULL;
		for (unsigned i = 1; i < NV; i++)
			sum = add(sum, in(100 + i));
		const struct expr *mean = dv(sum, c(NV));
		for (unsigned i = 0; i < NV; i++) {
			const struct expr *d = sub(in(100 + i), mean);
			var = var ? add(var, mul(d, d)) : mul(d, d);
		}
		const struct expr *one_pass = sub(dv(chain_sq(NV), c(NV)), mul(mean, mean));
		e[0] = dv(var, c(NV));
		e[1] = one_pass;
		/* the time bounds here and below are complexity guards, ten
		 * times the time taken under AddressSanitizer: a form that
		 * grows quadratically takes minutes */
		clock_t t0 = clock();
		bool made = canon_pair(cx, e, CANON_STEPS_DEFAULT, false);
		double dt = (double)(clock() - t0) / CLOCKS_PER_SEC;
		ok(made && e[0] == e[1] && dt < 20, "a 2000-term two-pass variance = the one-pass form, in %.2f s", dt);
		/* a norm's statistics over 2^16 elements: the reference's
		 * two-pass variance (a tree of squared deviations) against a
		 * kernel's one pass (strided partial sums, then a shared-memory
		 * tree); the mean is a part of every square, which must cost
		 * n log n, not n^2 */
		{
			enum { NB = 1 << 16 };
			const struct expr **v = calloc(NB, sizeof *v), **sqv = calloc(NB, sizeof *sqv);
			for (unsigned i = 0; i < NB; i++)
				v[i] = in(5000 + i);
			const struct expr *m0 = dv(btree(add, v, NB), c(NB));
			for (unsigned i = 0; i < NB; i++) {
				const struct expr *d = sub(v[i], m0);
				sqv[i] = mul(d, d);
			}
			const struct expr *ref = dv(btree(add, sqv, NB), c(NB));
			const struct expr *m1 = dv(strided(add, v, NB, 512), c(NB));
			for (unsigned i = 0; i < NB; i++)
				sqv[i] = mul(v[i], v[i]);
			const struct expr *opt = sub(dv(strided(add, sqv, NB, 512), c(NB)), mul(m1, m1));
			const struct expr *eb[2] = { ref, opt };
			t0 = clock();
			made = canon_pair(cx, eb, CANON_STEPS_DEFAULT, false);
			dt = (double)(clock() - t0) / CLOCKS_PER_SEC;
			ok(made && eb[0] == eb[1] && dt < 20,
			   "a 2^16-term two-pass variance = a strided one-pass one, in %.2f s", dt);
			/* the kernel's divisor one short: not equal */
			eb[0] = ref;
			eb[1] = sub(dv(strided(add, sqv, NB, 512), c(NB - 1)), mul(m1, m1));
			ok(canon_pair(cx, eb, CANON_STEPS_DEFAULT, false) && eb[0] != eb[1], "and with n - 1 for n: not equal");
			free(v);
			free(sqv);
		}
		/* mean - x_i instead of x_i - mean, and eps added: the same */
		var = NULL;
		for (unsigned i = 0; i < NV; i++) {
			const struct expr *d = sub(mean, in(100 + NV - 1 - i));
			var = var ? add(mul(d, d), var) : mul(d, d);
		}
		e[0] = add(dv(var, c(NV)), c(1e-5));
		e[1] = add(one_pass, c(1e-5));
		ok(canon_pair(cx, e, CANON_STEPS_DEFAULT, false) && e[0] == e[1], "(mean - x_i)^2 in another order: the same");
		/* a variance without its 1/n, or one square short, is not */
		e[0] = var;
		e[1] = one_pass;
		ok(canon_pair(cx, e, CANON_STEPS_DEFAULT, false) && e[0] != e[1], "a variance without 1/n: not equal");
		const struct expr *d0 = sub(in(100), mean);
		e[0] = dv(sub(var, mul(d0, d0)), c(NV));
		e[1] = one_pass;
		ok(canon_pair(cx, e, CANON_STEPS_DEFAULT, false) && e[0] != e[1], "a variance missing one square: not equal");
		/* deviations from a mean each of whose terms is spread into every
		 * other sum (products of them, not squares): quadratic, so
		 * canon_pair gives up early */
		const struct expr *pr = NULL;
		for (unsigned i = 0; i + 1 < NV; i++) {
			const struct expr *t = mul(sub(in(100 + i), mean), sub(in(101 + i), mean));
			pr = pr ? add(pr, t) : t;
		}
		e[0] = pr;
		e[1] = one_pass;
		const struct expr *v0 = e[0], *v1 = e[1];
		t0 = clock();
		made = canon_pair(cx, e, CANON_STEPS_DEFAULT, false);
		dt = (double)(clock() - t0) / CLOCKS_PER_SEC;
		ok(!made && e[0] == v0 && e[1] == v1 && dt < 20,
		   "2000 products of deviations: canon_pair gives up in %.2f s", dt);
		/* 3^90 does not fit 128 bits: x/3/3/... is left as it was */
		const struct expr *t = x;
		for (unsigned i = 0; i < 90; i++)
			t = dv(t, c(3));
		k = canon_new(cx, 0);
		const struct expr *kt = canon(k, t);
		ok(kt != NULL && canon_kept(k) > 0, "a coefficient past 128 bits: kept as it was");
		canon_free(k);
		/* 1/3^40: exact, but no pair of doubles writes it */
		t = x;
		for (unsigned i = 0; i < 40; i++)
			t = dv(t, c(3));
		k = canon_new(cx, 0);
		kt = canon(k, add(t, y));
		ok(kt != NULL && canon_kept(k) > 0, "a coefficient no pair of doubles writes: kept");
		canon_free(k);
		ok(same(add(t, y), add(y, t)), "and still one form for one sum");
	}

	/* ---- a deep chain ---- */
	{
		const struct expr *s = x;
		for (unsigned k = 0; k < 100000; k++)
			s = mx(f(EF_TANH, s), in(50 + k % 3));
		ok(cn(s) != NULL, "a chain of 200000 nodes");
	}

	/* ---- canonical forms do not depend on the history of the context ---- */
	{
		struct ectx *p = ectx_new(), *q = ectx_new();
		const struct expr *ip[64], *iq[64];
		for (unsigned k = 0; k < 64; k++)
			ip[k] = e_input(p, 0, 4 * k, ET_F32);
		for (unsigned k = 64; k-- > 0;)
			iq[k] = e_input(q, 0, 4 * k, ET_F32);
		for (unsigned k = 64; k-- > 0;)               /* other nodes first in q */
			e_op2(q, EOP_FDIV, iq[k], e_real(q, 3));
		const struct expr *sp = ip[0], *sq = iq[0];
		for (unsigned k = 1; k < 64; k++) {
			sp = e_op2(p, EOP_FMAX, sp, e_op2(p, EOP_FDIV, ip[k], e_real(p, 3)));
			sq = e_op2(q, EOP_FMAX, sq, e_op2(q, EOP_FDIV, iq[k], e_real(q, 3)));
		}
		sp = e_op2(p, EOP_FADD, sp, ip[5]);
		sq = e_op2(q, EOP_FADD, iq[5], sq);
		struct ectx *d1 = ectx_new(), *d2 = ectx_new();
		struct ax_norm *n1 = ax_norm_new(d1, AX_DEFAULT), *n2 = ax_norm_new(d2, AX_DEFAULT);
		const struct expr *e1[2] = { ax_norm(n1, sp), ax_norm(n1, ip[1]) };
		const struct expr *e2[2] = { ax_norm(n2, sq), ax_norm(n2, iq[1]) };
		ok(canon_pair(d1, e1, 0, false) && canon_pair(d2, e2, 0, false), "both canonical");
		struct arena pa = ARENA_INIT;
		is_str(e_print(&pa, e1[0], 4000), e_print(&pa, e2[0], 4000),
		       "one expression built in two contexts with other histories: one canonical form");
		arena_release(&pa);
		ax_norm_free(n1);
		ax_norm_free(n2);
		ectx_free(d1);
		ectx_free(d2);
		ectx_free(p);
		ectx_free(q);
	}

	{   /* constants rounded to floats: x / sqrt(128) and x * (1 / sqrt(128)),
	     * each constant the float a program holds */
		const struct expr *x = add(in(1), in(2));
		const struct expr *e[2] = { mul(x, c(0.0883883461356163)), dv(x, c(11.313708305358887)) };
		ok(canon_pair(cx, e, 0, false) && e[0] != e[1], "x * 0.0883883461 and x / 11.3137083: exactly, not equal");
		e[0] = mul(x, c(0.0883883461356163));
		e[1] = dv(x, c(11.313708305358887));
		ok(canon_pair(cx, e, 0, true) && e[0] == e[1], "as floats, one form");
		e[0] = mul(x, c(0.0883883461356163));
		e[1] = dv(x, c(11.0));
		ok(canon_pair(cx, e, 0, true) && e[0] != e[1], "as floats, x / 11 stays another form");
		e[0] = add(mul(in(3), c(3.0)), c(1e-5));
		e[1] = add(mul(in(3), c(3.0)), c((double)1e-5f));
		ok(canon_pair(cx, e, 0, true) && e[0] == e[1], "as floats, an eps of 1e-5 as a double and as a float: one");
	}

	{   /* canon_close: neighbouring floats, in sums, products and a max
	     * built in another order */
		float c1 = 0.10206207633018494f, c2 = nextafterf(c1, 0), c3 = nextafterf(c2, 0);
		const struct expr *v[4], *w[4], *u[4];
		for (unsigned k = 0; k < 4; k++) {
			v[k] = mul(add(in(k), in(k + 4)), c(c1));
			w[k] = mul(add(in(k + 4), in(k)), c(c2));
			u[k] = mul(add(in(k + 4), in(k)), c(c3));
		}
		const struct expr *a = f(EF_EXP, sub(v[0], mx(mx(v[0], v[1]), mx(v[2], v[3]))));
		const struct expr *b = f(EF_EXP, sub(w[0], mx(mx(w[3], w[0]), mx(w[1], w[2]))));
		const struct expr *d = f(EF_EXP, sub(u[0], mx(mx(u[3], u[0]), mx(u[1], u[2]))));
		const struct expr *e[2] = { a, b };
		double ca = 0, cb = 0;
		ok(canon_pair(cx, e, 0, true) && e[0] != e[1], "two forms");
		ok(canon_close(e[0], e[1], 1000, &ca, &cb) && ca == (double)c1 && cb == (double)c2,
		   "one float apart, the max in another order: close, the constants named");
		ok(!canon_close(e[0], e[1], 3, &ca, &cb), "past the step limit: not close");
		e[0] = a;
		e[1] = d;
		ok(canon_pair(cx, e, 0, true) && !canon_close(e[0], e[1], 1000, &ca, &cb), "two floats apart: not close");
		e[0] = a;
		e[1] = f(EF_EXP, sub(w[1], mx(mx(w[3], w[0]), mx(w[1], w[2]))));
		ok(canon_pair(cx, e, 0, true) && !canon_close(e[0], e[1], 1000, &ca, &cb),
		   "another operand: not close");
		e[0] = cn(a);
		ok(!canon_close(e[0], e[0], 1000, &ca, &cb), "one form: equal, not close");
	}

	ectx_free(cx);
	return done_testing();
}
