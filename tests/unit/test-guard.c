/*
 * test-guard.c: a divisor's zero guard split off (engine/guard.c): the
 * guard on a divisor the reference divides by, either polarity of its
 * test, and what is no such guard (another divisor, a division only under
 * an ite's arm, a test against another constant).
 */
#include "engine/guard.h"
#include "tap.h"

static struct ectx *cx;

static const struct expr *in(unsigned k) { return e_input(cx, 0, 4 * k, ET_F32); }
static const struct expr *c(double v) { return e_real(cx, v); }
static const struct expr *add(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FADD, a, b); }
static const struct expr *mul(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FMUL, a, b); }
static const struct expr *dv(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FDIV, a, b); }
static const struct expr *eq(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_EQ, a, b); }
static const struct expr *abs_(const struct expr *a) { return e_op1(cx, EOP_FABS, SORT_REAL, 0, a); }

int main(void)
{
	cx = ectx_new();
	const struct expr *s = add(add(abs_(in(0)), abs_(in(1))), abs_(in(2)));
	const struct expr *x = in(1), *g;
	const struct expr *ref = mul(x, dv(c(1), s));

	const struct expr *guard = e_ite(cx, eq(s, c(0)), c(1e-12), s);
	const struct expr *opt = mul(x, dv(c(1), guard));
	ok(guard_unguarded(cx, ref, opt, &g) == ref && g == guard,
	   "s == 0 ? eps : s where ref divides by s: the guard found, opt without it is ref");

	const struct expr *neg = e_ite(cx, e_not(cx, eq(c(0), s)), s, c(1e-12));
	ok(guard_unguarded(cx, ref, mul(x, dv(c(1), neg)), &g) == ref,
	   "!(0 == s) ? s : eps: the arm taken where s is not 0");

	const struct expr *other = add(s, c(1));
	ok(!guard_unguarded(cx, mul(x, dv(c(1), other)), opt, &g) && !g,
	   "ref divides by s + 1, not by s: no guard");

	const struct expr *maybe = e_ite(cx, e_op2(cx, EOP_FLT, x, c(0)), dv(x, s), x);
	ok(!guard_unguarded(cx, maybe, opt, &g), "ref divides by s only under an ite's arm: no guard");

	const struct expr *wide = e_ite(cx, eq(s, c(1)), c(1e-12), s);
	ok(!guard_unguarded(cx, ref, mul(x, dv(c(1), wide)), &g), "a test of s against 1: no guard");

	const struct expr *deep = e_fun(cx, EF_EXP, 1, &opt);
	const struct expr *want = e_fun(cx, EF_EXP, 1, &ref);
	ok(guard_unguarded(cx, e_fun(cx, EF_EXP, 1, &ref), deep, &g) == want, "under a function: rebuilt");

	ectx_free(cx);
	return done_testing();
}
