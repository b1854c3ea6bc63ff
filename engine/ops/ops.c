/*
 * ops.c: the op table, binding of recorded calls, the value algebra's two
 * back ends and the entry points of ops.h.
 */
#include "engine/ops/ops-impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/arena.h"

/* ---- the value algebra -------------------------------------------------- */

static long double rnd(enum emode m, long double x)
{
	switch (m) {
	case EM_F32: return (float)x;
	case EM_F64: return (double)x;
	default: return x;
	}
}

static long double arith(enum emode m, char op, long double a, long double b)
{
	if (m == EM_F32) {
		float x = (float)a, y = (float)b;
		return op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
	}
	if (m == EM_F64) {
		double x = (double)a, y = (double)b;
		return op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
	}
	return op == '+' ? a + b : op == '-' ? a - b : op == '*' ? a * b : a / b;
}

static V sv(const struct expr *e) { V v = { e, 0 }; return v; }
static V cv(long double r) { V v = { NULL, r }; return v; }

/* A constant; symbolically an infinity is the tagged undefined real that
 * max and min absorb (canon.c), as dexec makes of an infinite float
 * constant, and a NaN an undefined real (the location becomes unknown). */
V a_k(struct alg *A, double c)
{
	if (!A->cx)
		return cv(rnd(A->mode, c));
	if (isinf(c))
		return sv(e_undef_tag(A->cx, SORT_REAL, c < 0 ? E_UNDEF_NINF : E_UNDEF_PINF));
	if (isnan(c))
		return sv(e_undef(A->cx, SORT_REAL));
	return sv(e_real(A->cx, c));
}

V a_in(struct alg *A, unsigned k, uint64_t flat)
{
	if (A->cx)
		return sv(A->lv->sym(A->cx, A->lv->user, k, flat));
	return cv(rnd(A->mode, A->lv->val(A->lv->user, k, flat)));
}

int64_t a_int(struct alg *A, unsigned k, uint64_t flat)
{
	if (!A->lv->ival) {
		A->fail = true;
		return 0;
	}
	return A->lv->ival(A->lv->user, k, flat);
}

V a_add(struct alg *A, V x, V y)
{
	return A->cx ? sv(e_op2(A->cx, EOP_FADD, x.e, y.e)) : cv(arith(A->mode, '+', x.r, y.r));
}

V a_sub(struct alg *A, V x, V y)
{
	return A->cx ? sv(e_op2(A->cx, EOP_FSUB, x.e, y.e)) : cv(arith(A->mode, '-', x.r, y.r));
}

V a_mul(struct alg *A, V x, V y)
{
	return A->cx ? sv(e_op2(A->cx, EOP_FMUL, x.e, y.e)) : cv(arith(A->mode, '*', x.r, y.r));
}

V a_div(struct alg *A, V x, V y)
{
	return A->cx ? sv(e_op2(A->cx, EOP_FDIV, x.e, y.e)) : cv(arith(A->mode, '/', x.r, y.r));
}

V a_neg(struct alg *A, V x)
{
	return A->cx ? sv(e_op1(A->cx, EOP_FNEG, SORT_REAL, 0, x.e)) : cv(-x.r);
}

V a_abs(struct alg *A, V x)
{
	return A->cx ? sv(e_op1(A->cx, EOP_FABS, SORT_REAL, 0, x.e)) : cv(fabsl(x.r));
}

/* torch's minimum/maximum propagate NaN; reals have none, so fmin/fmax. */
V a_min(struct alg *A, V x, V y)
{
	return A->cx ? sv(e_op2(A->cx, EOP_FMIN, x.e, y.e)) : cv(fminl(x.r, y.r));
}

V a_max(struct alg *A, V x, V y)
{
	return A->cx ? sv(e_op2(A->cx, EOP_FMAX, x.e, y.e)) : cv(fmaxl(x.r, y.r));
}

V a_fun(struct alg *A, enum efun f, V x)
{
	if (A->cx)
		return sv(e_fun(A->cx, f, 1, &x.e));
	return cv(rnd(A->mode, efun_eval(f, A->mode, x.r, 0)));
}

V a_pow(struct alg *A, V x, V y)
{
	if (A->cx) {
		const struct expr *args[2] = { x.e, y.e };
		return sv(e_fun(A->cx, EF_POW, 2, args));
	}
	return cv(rnd(A->mode, efun_eval(EF_POW, A->mode, x.r, y.r)));
}

V a_lt(struct alg *A, V x, V y, V t, V f)
{
	if (A->cx)
		return sv(e_ite(A->cx, e_op2(A->cx, EOP_FLT, x.e, y.e), t.e, f.e));
	return x.r < y.r ? t : f;
}

V a_le(struct alg *A, V x, V y, V t, V f)
{
	if (A->cx)
		return sv(e_ite(A->cx, e_op2(A->cx, EOP_FLE, x.e, y.e), t.e, f.e));
	return x.r <= y.r ? t : f;
}

V a_eqz(struct alg *A, V x, V t, V f)
{
	if (A->cx)
		return sv(e_ite(A->cx, e_op2(A->cx, EOP_EQ, x.e, e_real(A->cx, 0)), t.e, f.e));
	return x.r == 0 ? t : f;
}

void a_sum_init(struct a_sum *s)
{
	memset(s, 0, sizeof *s);
}

void a_sum_add(struct alg *A, struct a_sum *s, V x)
{
	if (!A->cx) {
		s->acc = s->any ? cv(arith(A->mode, '+', s->acc.r, x.r)) : x;
		s->any = true;
		return;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->terms = xrealloc(s->terms, s->cap * sizeof *s->terms);
	}
	s->terms[s->n++] = x.e;
	s->any = true;
}

V a_sum_end(struct alg *A, struct a_sum *s)
{
	if (!s->any)
		return a_k(A, 0);
	if (!A->cx)
		return s->acc;
	/* Chunks of at most E_MAX_ARGS terms, then a sum of the chunks. */
	size_t n = s->n;
	const struct expr **t = s->terms;
	while (n > 1) {
		size_t m = 0;
		for (size_t i = 0; i < n; i += E_MAX_ARGS) {
			size_t c = n - i < E_MAX_ARGS ? n - i : E_MAX_ARGS;
			t[m++] = c == 1 ? t[i] : e_op(A->cx, EOP_FADD, SORT_REAL, 0, (unsigned)c, t + i);
		}
		n = m;
	}
	V r = sv(t[0]);
	free(s->terms);
	s->terms = NULL;
	return r;
}

/* ---- indices ------------------------------------------------------------ */

uint64_t op_shape_numel(const struct op_shape *s)
{
	uint64_t n = 1;
	for (unsigned i = 0; i < s->ndim; i++)
		n *= (uint64_t)s->dim[i];
	return n;
}

void ix_unravel(uint64_t flat, const struct op_shape *s, int64_t *idx)
{
	for (unsigned i = s->ndim; i-- > 0;) {
		uint64_t d = (uint64_t)s->dim[i];
		idx[i] = d ? (int64_t)(flat % d) : 0;
		flat = d ? flat / d : 0;
	}
}

uint64_t ix_ravel(const int64_t *idx, const struct op_shape *s)
{
	uint64_t f = 0;
	for (unsigned i = 0; i < s->ndim; i++)
		f = f * (uint64_t)s->dim[i] + (uint64_t)idx[i];
	return f;
}

uint64_t ix_bcast(const int64_t *idx, unsigned ndim, const struct op_shape *s)
{
	uint64_t f = 0;
	unsigned lead = ndim - s->ndim;
	for (unsigned j = 0; j < s->ndim; j++) {
		int64_t i = s->dim[j] == 1 ? 0 : idx[lead + j];
		f = f * (uint64_t)s->dim[j] + (uint64_t)i;
	}
	return f;
}

bool shape_bcast(const struct op_shape *a, const struct op_shape *b, struct op_shape *out)
{
	unsigned n = a->ndim > b->ndim ? a->ndim : b->ndim;
	struct op_shape r = { n, { 0 } };
	for (unsigned i = 0; i < n; i++) {
		int64_t x = i < n - a->ndim ? 1 : a->dim[i - (n - a->ndim)];
		int64_t y = i < n - b->ndim ? 1 : b->dim[i - (n - b->ndim)];
		if (x != y && x != 1 && y != 1)
			return false;
		r.dim[i] = x == 1 ? y : x;
	}
	*out = r;
	return true;
}

int dim_wrap(int64_t d, unsigned ndim)
{
	int64_t n = ndim ? ndim : 1;
	if (d < 0)
		d += n;
	return d < 0 || d >= n ? -1 : (int)d;
}

/* ---- binding helpers ---------------------------------------------------- */

bool bind_fail(struct bind *b, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(b->err, b->errlen, "%s: ", b->call->op);
	if (n < 0 || (size_t)n >= b->errlen)
		return false;
	va_start(ap, fmt);
	vsnprintf(b->err + n, b->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

const struct torch_arg *b_arg(struct bind *b, const char *name)
{
	return torch_op_arg(b->call, name);
}

int b_opnd(struct bind *b, const char *name)
{
	unsigned k = 0;
	for (uint32_t i = 0; i < b->call->nargs; i++) {
		const struct torch_arg *g = &b->call->args[i];
		if (g->kind == TARG_TENSOR) {
			if (strcmp(g->name, name) == 0)
				return (int)k;
			k++;
		} else if (g->kind == TARG_TENSORS) {
			for (uint32_t j = 0; j < g->n; j++)
				if (g->tensors[j] != TORCH_NO_TENSOR)
					k++;
		}
	}
	return -1;
}

double b_num(struct bind *b, const char *name, double dflt, bool *given)
{
	const struct torch_arg *g = b_arg(b, name);
	if (given)
		*given = true;
	if (g && (g->kind == TARG_INT || g->kind == TARG_BOOL))
		return (double)g->i;
	if (g && g->kind == TARG_FLOAT)
		return g->f;
	if (given)
		*given = false;
	return dflt;
}

double b_scalar_round(const struct bind *b, double v)
{
	switch (b->in->et) {
	case ET_F32: case ET_F16: case ET_BF16:
		return (double)(float)v;
	default:
		return v;
	}
}

int64_t b_int(struct bind *b, const char *name, int64_t dflt)
{
	const struct torch_arg *g = b_arg(b, name);
	if (g && (g->kind == TARG_INT || g->kind == TARG_BOOL))
		return g->i;
	return dflt;
}

unsigned b_ints(struct bind *b, const char *name, int64_t *v, unsigned max)
{
	const struct torch_arg *g = b_arg(b, name);
	if (!g)
		return 0;
	if (g->kind == TARG_INT) {
		v[0] = g->i;
		return 1;
	}
	if (g->kind != TARG_INTS && g->kind != TARG_BOOLS)
		return 0;
	unsigned n = g->n < max ? g->n : max;
	for (unsigned i = 0; i < n; i++)
		v[i] = g->ints[i];
	return n;
}

const char *b_str(struct bind *b, const char *name, const char *dflt)
{
	const struct torch_arg *g = b_arg(b, name);
	return g && g->kind == TARG_STR ? g->s : dflt;
}

/* ---- the table ---------------------------------------------------------- */

static const struct op_def *const families[] = {
	ew_defs, red_defs, lin_defs, conv_defs, norm_defs, pool_defs, loss_defs, view_defs, mat_defs
};
#define NFAM (sizeof families / sizeof *families)

static const struct op_def *find_exact(const char *name)
{
	for (size_t f = 0; f < NFAM; f++)
		for (const struct op_def *d = families[f]; d->name; d++)
			if (strcmp(d->name, name) == 0)
				return d;
	return NULL;
}

/* "aten::add_.Tensor" -> "aten::add.Tensor", "aten::relu_" -> "aten::relu";
 * in-place variants share the formula of their functional op.  NULL if the
 * name has no such form. */
static const struct op_def *find(const char *name, bool *inplace)
{
	const struct op_def *d = find_exact(name);
	*inplace = false;
	if (d)
		return d;
	char buf[128];
	const char *dot = strchr(name, '.');
	size_t base = dot ? (size_t)(dot - name) : strlen(name);
	if (base < 2 || base >= sizeof buf || name[base - 1] != '_' || name[base - 2] == ':')
		return NULL;
	snprintf(buf, sizeof buf, "%.*s%s", (int)(base - 1), name, dot ? dot : "");
	*inplace = true;
	return find_exact(buf);
}

void op_result_attrs(const struct op_inst *in, unsigned r, struct op_attrs *out)
{
	*out = in->at;
	if (in->def->bind == norm_bind)
		norm_result_attrs(in, r, out);
}

int op_family(const struct op_inst *in)
{
	for (size_t f = 0; f < NFAM; f++)
		for (const struct op_def *d = families[f]; d->name; d++)
			if (d == in->def)
				return (int)f;
	return -1;
}

static bool shape_eq(const struct op_shape *a, const struct op_shape *b);

bool op_same_call(const struct op_inst *a, const struct op_inst *b)
{
	const struct op_attrs *x = &a->at, *y = &b->at;
	if (a->def != b->def || a->nin != b->nin || a->nres != b->nres || a->et != b->et ||
	    x->kind != y->kind)
		return false;
	for (int i = 0; i < 6; i++)
		if (x->has[i] != y->has[i] || x->i[i] != y->i[i] || x->opnd[i] != y->opnd[i] ||
		    !(x->s[i] == y->s[i] || (isnan(x->s[i]) && isnan(y->s[i]))))
			return false;
	for (int i = 0; i < 4; i++) {
		if (x->nv[i] != y->nv[i])
			return false;
		for (unsigned j = 0; j < x->nv[i] && j < OP_MAX_DIMS; j++)
			if (x->v[i][j] != y->v[i][j])
				return false;
	}
	for (unsigned k = 0; k < a->nin; k++)
		if (a->in_et[k] != b->in_et[k] || !shape_eq(&a->in[k], &b->in[k]) ||
		    (a->in_start && b->in_start && a->in_start[k] != b->in_start[k]))
			return false;
	for (unsigned r = 0; r < a->nres; r++)
		if (a->res_formula[r] != b->res_formula[r] || !shape_eq(&a->res[r], &b->res[r]))
			return false;
	return true;
}

bool op_known(const char *name)
{
	bool ip;
	return find(name, &ip) != NULL;
}

bool op_is_layout(const char *name)
{
	bool ip;
	const struct op_def *d = find(name, &ip);
	return d && d->layout;
}

const char *const *op_names(void)
{
	static const char **names;
	if (!names) {
		size_t n = 0, k = 0;
		for (size_t f = 0; f < NFAM; f++)
			for (const struct op_def *d = families[f]; d->name; d++)
				n++;
		names = xcalloc(n + 1, sizeof *names);
		for (size_t f = 0; f < NFAM; f++)
			for (const struct op_def *d = families[f]; d->name; d++)
				names[k++] = d->name;
	}
	return names;
}

static bool shape_eq(const struct op_shape *a, const struct op_shape *b)
{
	if (a->ndim != b->ndim)
		return false;
	for (unsigned i = 0; i < a->ndim; i++)
		if (a->dim[i] != b->dim[i])
			return false;
	return true;
}

static void shape_str(const struct op_shape *s, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "[");
	for (unsigned i = 0; i < s->ndim && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, i ? ",%lld" : "%lld", (long long)s->dim[i]);
	if (k < n)
		snprintf(buf + k, n - k, "]");
}

bool op_bind(const struct torch_op *call, op_shape_fn shape, void *user, struct arena *a,
             struct op_inst *in, char *err, size_t errlen)
{
	struct bind b = { call, in, err, errlen };
	bool inplace;
	memset(in, 0, sizeof *in);
	in->def = find(call->op, &inplace);
	if (!in->def)
		return bind_fail(&b, "no semantics for this op");
	/* count the operands first: the arrays are sized to the call */
	uint64_t n = 0;
	for (uint32_t i = 0; i < call->nargs; i++) {
		const struct torch_arg *g = &call->args[i];
		uint32_t m = g->kind == TARG_TENSOR ? 1 : g->kind == TARG_TENSORS ? g->n : 0;
		for (uint32_t j = 0; j < m; j++)
			n += (g->kind == TARG_TENSOR ? g->tensor : g->tensors[j]) != TORCH_NO_TENSOR;
	}
	if (n > OP_MAX_OPERANDS)
		return bind_fail(&b, "%llu tensor arguments, more than %d", (unsigned long long)n,
		                 OP_MAX_OPERANDS);
	in->in = ARENA_NEWN(a, struct op_shape, n + 1);
	in->in_et = ARENA_NEWN(a, enum etype, n + 1);
	in->in_tensor = ARENA_NEWN(a, uint32_t, n + 1);
	in->in_start = ARENA_NEWN(a, int64_t, n + 1);
	for (uint32_t i = 0; i < call->nargs; i++) {
		const struct torch_arg *g = &call->args[i];
		uint32_t m = g->kind == TARG_TENSOR ? 1 : g->kind == TARG_TENSORS ? g->n : 0;
		for (uint32_t j = 0; j < m; j++) {
			uint32_t t = g->kind == TARG_TENSOR ? g->tensor : g->tensors[j];
			if (t == TORCH_NO_TENSOR)
				continue;
			if (!shape(user, t, &in->in[in->nin], &in->in_et[in->nin]))
				return bind_fail(&b, "argument '%s': tensor %u is unknown", g->name, t);
			in->in_tensor[in->nin++] = t;
		}
	}
	for (int i = 0; i < 6; i++)
		in->at.opnd[i] = -1;
	for (int i = 0; i < OP_MAX_RESULTS; i++)
		in->res_formula[i] = -1;
	/* result 0: the first out, else the first mutated argument (add_) */
	uint32_t t0 = call->nouts ? call->outs[0] : call->nmuts ? call->muts[0].tensor : TORCH_NO_TENSOR;
	struct op_shape sh0;
	in->et = ET_NONE;
	if (t0 != TORCH_NO_TENSOR && !shape(user, t0, &sh0, &in->et))
		in->et = ET_NONE;
	if (!in->def->bind(&b, in->def->kind))
		return false;
	/* Results are the outs, then the mutated arguments: an in-place op's
	 * mutated self (or out) is its result 0. */
	unsigned nres = in->nres;
	if (call->nouts + call->nmuts > OP_MAX_RESULTS)
		return bind_fail(&b, "more than %d results", OP_MAX_RESULTS);
	for (uint32_t i = 0; i < call->nmuts; i++) {
		unsigned r = call->nouts + i;
		if (r < nres)
			continue;           /* the family bound it */
		if (!inplace && strcmp(call->muts[i].arg, "out") != 0)
			return bind_fail(&b, "argument '%s' is written in place, which this op does not model",
			                 call->muts[i].arg);
		in->res[r] = in->res[0];
		in->res_formula[r] = in->res_formula[0];
	}
	in->nres = call->nouts + call->nmuts;
	/* The recorded results must have the shapes computed. */
	for (unsigned r = 0; r < in->nres; r++) {
		uint32_t t = r < call->nouts ? call->outs[r] : call->muts[r - call->nouts].tensor;
		struct op_shape got;
		enum etype et;
		if (t == TORCH_NO_TENSOR || !shape(user, t, &got, &et))
			continue;
		if (r >= nres && r < call->nouts) {
			/* A result the family does not model (empty saved statistics). */
			in->res[r] = got;
			continue;
		}
		if (!shape_eq(&got, &in->res[r])) {
			char a[96], c[96];
			shape_str(&got, a, sizeof a);
			shape_str(&in->res[r], c, sizeof c);
			return bind_fail(&b, "result %u: recorded shape %s, semantics give %s", r, a, c);
		}
	}
	return true;
}

/* ---- evaluation --------------------------------------------------------- */

static bool elem(struct alg *A, unsigned r, uint64_t flat, V *out)
{
	const struct op_inst *in = A->in;
	int64_t idx[OP_MAX_DIMS];
	if (r >= in->nres || in->res_formula[r] < 0 || flat >= op_shape_numel(&in->res[r]))
		return false;
	ix_unravel(flat, &in->res[r], idx);
	*out = in->def->elem(A, (unsigned)in->res_formula[r], idx);
	return !A->fail;
}

const struct expr *op_elem_expr(struct ectx *cx, const struct op_inst *in, unsigned r,
                                uint64_t flat, const struct op_leaves *lv)
{
	struct alg A = { cx, EM_EXACT, lv, in, false };
	V v;
	return elem(&A, r, flat, &v) ? v.e : NULL;
}

bool op_elem_value(const struct op_inst *in, unsigned r, uint64_t flat, enum emode mode,
                   const struct op_leaves *lv, long double *out)
{
	struct alg A = { NULL, mode, lv, in, false };
	V v;
	if (!elem(&A, r, flat, &v))
		return false;
	*out = v.r;
	return true;
}
