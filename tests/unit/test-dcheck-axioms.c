/*
 * test-dcheck-axioms.c: the sound identities and approximation axioms of
 * libcommon/axioms.c on expressions built here: sigmoid, silu, softplus,
 * mish and gelu forms, fast-math forms, the group switches, and the
 * history-independence of normalised copies.
 */
#include <math.h>
#include <string.h>

#include "libcommon/axioms.h"
#include "tap.h"

static struct ectx *cx;

static const struct expr *in(unsigned k) { return e_input(cx, 0, 4 * k, ET_F32); }
static const struct expr *c(double v) { return e_real(cx, v); }
static const struct expr *add(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FADD, a, b); }
static const struct expr *mul(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FMUL, a, b); }
static const struct expr *dv(const struct expr *a, const struct expr *b) { return e_op2(cx, EOP_FDIV, a, b); }
static const struct expr *neg(const struct expr *a) { return e_op1(cx, EOP_FNEG, SORT_REAL, 0, a); }
static const struct expr *f(enum efun fn, const struct expr *a) { return e_fun(cx, fn, 1, &a); }

/* Do a and b normalise to one expression under mask? */
static bool same(const struct expr *a, const struct expr *b, unsigned mask)
{
	struct ectx *d = ectx_new();
	struct ax_norm *n = ax_norm_new(d, mask);
	bool r = ax_norm(n, a) == ax_norm(n, b);
	ax_norm_free(n);
	ectx_free(d);
	return r;
}

static const struct expr *gelu_erf(const struct expr *x, double k)
{
	return mul(mul(c(0.5), x), add(c(1), f(EF_ERF, mul(x, c(k)))));
}

static const struct expr *gelu_tanh(const struct expr *x)
{
	const struct expr *x3 = mul(mul(x, x), x);
	const struct expr *u = mul(c((float)0.7978845608), add(x, mul(c((float)0.044715), x3)));
	return mul(mul(c(0.5), x), add(c(1), f(EF_TANH, u)));
}

int main(void)
{
	cx = ectx_new();
	const struct expr *x = in(0), *y = in(1);
	const struct expr *sig = f(EF_SIGMOID, x);

	/* groups */
	const char *bad = NULL;
	char buf[64];
	is_int(ax_parse("gelu-tanh,fast-math", &bad), AX_DEFAULT, "parse both groups");
	is_int(ax_parse("none", &bad), 0, "parse none");
	is_int(ax_parse("fast-math", &bad), AX_FAST_MATH, "parse one group");
	ok(ax_parse("gelu-tanh,bogus", &bad) < 0 && !strcmp(bad, "bogus"), "an unknown group is named");
	is_str(ax_format(AX_DEFAULT, buf, sizeof buf), "gelu-tanh,fast-math", "format both");
	is_str(ax_format(0, buf, sizeof buf), "none", "format none");

	/* sound identities: on even with no axiom group */
	ok(same(dv(c(1), add(c(1), f(EF_EXP, neg(x)))), sig, 0), "1/(1+exp(-x)) = sigmoid(x)");
	ok(same(dv(f(EF_EXP, x), add(f(EF_EXP, x), c(1))), sig, 0), "exp(x)/(1+exp(x)) = sigmoid(x)");
	ok(same(dv(c(3), add(c(1), f(EF_EXP, neg(x)))), mul(c(3), sig), 0), "3/(1+exp(-x)) = 3 sigmoid(x)");
	ok(same(dv(x, add(c(1), f(EF_EXP, neg(x)))), mul(x, sig), 0), "silu: x/(1+exp(-x)) = x sigmoid(x)");
	ok(same(add(mul(f(EF_TANH, mul(x, c(0.5))), c(0.5)), c(0.5)), sig, 0), "0.5 tanh(x/2) + 0.5 = sigmoid(x)");
	const struct expr *e2x = f(EF_EXP, mul(x, c(2)));
	ok(same(dv(add(e2x, c(-1)), add(e2x, c(1))), f(EF_TANH, x), 0), "(exp(2x)-1)/(exp(2x)+1) = tanh(x)");
	const struct expr *sp = f(EF_LOG1P, f(EF_EXP, x));
	ok(same(f(EF_LOG, add(c(1), f(EF_EXP, x))), sp, 0), "softplus: log(1+exp(x)) = log1p(exp(x))");
	ok(same(mul(x, f(EF_TANH, f(EF_LOG, add(f(EF_EXP, x), c(1))))), mul(x, f(EF_TANH, sp)), 0),
	   "mish: x tanh(log(1+exp(x))) = x tanh(softplus(x))");
	ok(!same(dv(c(1), add(c(1), f(EF_EXP, x))), sig, 0), "1/(1+exp(x)) is not sigmoid(x)");
	ok(same(dv(c(1), add(c(1), f(EF_EXP, x))), f(EF_SIGMOID, neg(x)), 0), "1/(1+exp(x)) = sigmoid(-x)");

	/* gelu-tanh */
	const struct expr *ge = gelu_erf(x, (float)M_SQRT1_2), *gt = gelu_tanh(x);
	ok(same(ge, gt, AX_GELU_TANH), "gelu_erf = gelu_tanh with the axiom");
	ok(!same(ge, gt, 0), "gelu_erf != gelu_tanh without it");
	ok(!same(ge, gt, AX_FAST_MATH), "fast-math alone does not equate them");
	ok(same(gelu_erf(x, M_SQRT1_2), gelu_erf(x, (float)M_SQRT1_2), AX_GELU_TANH),
	   "1/sqrt2 in float and in double agree under the axiom");
	ok(same(gelu_erf(add(x, y), (float)M_SQRT1_2), gelu_tanh(add(x, y)), AX_GELU_TANH),
	   "gelu of a sum (x + y): the erf and tanh forms agree");
	const struct expr *gt_div = mul(mul(c(0.5), x), add(c(1), f(EF_ERF, dv(x, c((float)M_SQRT2)))));
	ok(same(gt_div, gt, AX_GELU_TANH), "erf(x / sqrt2) as a division");
	const struct expr *wrong = mul(mul(c(0.5), x), add(c(1), f(EF_TANH, mul(c(0.79788456), add(x, mul(c(0.05), mul(mul(x, x), x)))))));
	ok(!same(ge, wrong, AX_GELU_TANH), "another cubic coefficient is not gelu");
	const struct expr *t2 = f(EF_TANH, mul(c(0.79788456), x));
	ok(!same(f(EF_ERF, mul(x, c(M_SQRT1_2))), t2, AX_GELU_TANH), "tanh of a linear form is not erf");

	/* fast-math */
	ok(same(f(EF_RCP_APPROX, x), dv(c(1), x), AX_FAST_MATH), "rcp.approx(x) = 1/x");
	ok(!same(f(EF_RCP_APPROX, x), dv(c(1), x), 0), "rcp.approx(x) != 1/x without fast-math");
	ok(same(f(EF_RSQRT, x), dv(c(1), f(EF_SQRT, x)), AX_FAST_MATH), "rsqrt(x) = 1/sqrt(x)");
	ok(same(f(EF_EXP2, mul(x, c((float)M_LOG2E))), f(EF_EXP, x), AX_FAST_MATH), "exp2(x log2e) = exp(x)");
	ok(same(f(EF_EXP2, mul(x, c(-(float)M_LOG2E))), f(EF_EXP, neg(x)), AX_FAST_MATH), "exp2(-x log2e) = exp(-x)");
	ok(!same(f(EF_EXP2, mul(x, c(2))), f(EF_EXP, x), AX_FAST_MATH), "exp2(2x) is not exp(x)");
	ok(same(mul(f(EF_LOG2, x), c((float)M_LN2)), f(EF_LOG, x), AX_FAST_MATH), "log2(x) ln2 = log(x)");
	ok(same(f(EF_RCP_APPROX, add(c(1), f(EF_EXP, neg(x)))), sig, AX_FAST_MATH),
	   "rcp.approx(1 + exp(-x)) = sigmoid(x) (fast-math, then the identity)");
	ok(same(f(EF_RCP_APPROX, add(c(1), f(EF_EXP2, mul(x, c(-(float)M_LOG2E))))), sig, AX_FAST_MATH),
	   "the __expf sigmoid: rcp(1 + ex2(-x log2e)) = sigmoid(x)");

	/* normalised copies do not depend on the history of the source context */
	{
		struct ectx *a = ectx_new(), *b = ectx_new();
		const struct expr *ia[4], *ib[4];
		for (unsigned k = 0; k < 4; k++)
			ia[k] = e_input(a, 0, 4 * k, ET_F32);
		for (unsigned k = 4; k-- > 0;)                 /* reverse creation order */
			ib[k] = e_input(b, 0, 4 * k, ET_F32);
		const struct expr *sa = e_op(a, EOP_FADD, SORT_REAL, 0, 4, ia);
		const struct expr *sb = e_op(b, EOP_FADD, SORT_REAL, 0, 4, ib);
		struct arena pa = ARENA_INIT;
		ok(sa->args[0] != NULL && e_print(&pa, sa, 200) != NULL, "sums built");
		arena_release(&pa);
		struct ectx *d1 = ectx_new(), *d2 = ectx_new();
		struct ax_norm *n1 = ax_norm_new(d1, AX_DEFAULT), *n2 = ax_norm_new(d2, AX_DEFAULT);
		const struct expr *ca = ax_norm(n1, sa), *cb = ax_norm(n2, sb);
		bool eq = ca->nargs == cb->nargs;
		for (unsigned k = 0; eq && k < ca->nargs; k++)
			eq = ca->args[k]->off == cb->args[k]->off;
		ok(eq, "copies of one sum built in different orders have one argument order");
		ax_norm_free(n1);
		ax_norm_free(n2);
		ectx_free(d1);
		ectx_free(d2);
		ectx_free(a);
		ectx_free(b);
	}
	/* a deep chain does not exhaust the stack */
	{
		const struct expr *s = x;
		for (unsigned k = 0; k < 200000; k++)
			s = f(EF_TANH, s);
		struct ectx *d = ectx_new();
		struct ax_norm *n = ax_norm_new(d, AX_DEFAULT);
		ok(ax_norm(n, s) != NULL && ectx_count(d) >= 200000, "a chain of 200000 nodes");
		ax_norm_free(n);
		ectx_free(d);
	}
	ectx_free(cx);
	return done_testing();
}
