/*
 * test-exec-branch.c: branches on data whose arms rejoin (dexec/merge.c):
 * triangles, diamonds with stores in both arms, nested branches, a branch
 * inside a loop, a branch on tid inside a data arm, a branch on tid whose
 * arm only loads (merged, its load checked for its threads) or runs a
 * loop over constants (merged; taken back where it would split, or where a
 * pointer it changed is live at the join), a pointer tested against null,
 * bounds under
 * a data condition; and what stays unsupported (a loop whose exit depends on
 * data, a barrier or an exit before the arms rejoin).  Values are checked
 * by evaluating the write set at concrete threads and inputs against the
 * C meaning of each snippet, not only by structure.
 */
#include "dx-harness.h"

#include <math.h>

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"
#define KERNEL ".visible .entry k(.param .u64 p, .param .u64 q)\n{\n" \
               ".reg .pred %p<8>;\n.reg .b32 %r<16>;\n.reg .f32 %f<16>;\n.reg .b64 %rd<16>;\n" \
               "ld.param.u64 %rd1, [p];\nld.param.u64 %rd2, [q];\n" \
               "mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\n" \
               "add.s64 %rd4, %rd1, %rd3;\nadd.s64 %rd5, %rd2, %rd3;\n"
#define N 64                        /* floats in p and q */
#define OLD(i) (1000.0 + (i))       /* what q held before the launch */

static struct dx_launch *snippet(struct tb *t, const char *ptx, uint32_t block)
{
	tb_init(t, ptx, "k", 1, 1, block, 1);
	tb_ptr(t, "p", 4 * N);
	tb_ptr(t, "q", 4 * N);
	return tb_run(t);
}

/* ---- evaluating the write set ----------------------------------------------- */

/* Loads: the input p (value 0) reads in[], every other buffer value v at
 * float index i held OLD(i) before the launch. */
struct mem { const float *in; };

static bool leaf(const struct expr *e, struct evalue *out, void *user)
{
	const struct mem *m = user;
	memset(out, 0, sizeof *out);
	if (e->op != EOP_LOAD || e->args[0]->op != EOP_BV || e->args[0]->u % 4 || e->args[0]->u / 4 >= 4 * N)
		return false;
	unsigned i = (unsigned)(e->args[0]->u / 4);
	if (e->space == 0 && i >= N)
		return false;
	if (SORT_KIND(e->sort) == SK_BV)
		out->u = (uint64_t)OLD(i);
	else
		out->r = e->space == 0 ? m->in[i] : OLD(i);
	return true;
}

/* What thread tid of block 0 leaves at element i (4 bytes) of the buffer
 * whose value before the launch is vin (OLD(i) if nothing), with p = in;
 * NAN when the write set cannot be evaluated. */
static double final_in(struct dx_launch *L, uint32_t vin, uint32_t tid, unsigned i, const float *in)
{
	struct ectx *cx = L->cx;
	uint32_t t[3] = { tid, 0, 0 }, c[3] = { 0, 0, 0 };
	const struct sym_write *last = NULL;
	for (size_t k = 0; k < L->writes.len; k++) {
		const struct sym_write *w = &L->writes.items[k];
		if (w->value != vin + 1)
			continue;
		const struct expr *a = e_at_thread(cx, w->addr, t, c);
		if (e_is_true(e_at_thread(cx, w->dom, t, c)) && a->op == EOP_BV && a->u == 4 * i &&
		    (!last || w->seq > last->seq))
			last = w;
	}
	if (!last)
		return OLD(i);
	struct mem m = { in };
	struct evalue v;
	if (!e_eval(e_at_thread(cx, last->val, t, c), EM_F64, leaf, &m, &v) || v.undef)
		return NAN;
	return SORT_KIND(last->val->sort) == SK_BV ? (double)(int32_t)v.u : (double)v.r;
}

/* The same for the buffer q (value 2) of the snippets. */
static double final_at(struct dx_launch *L, uint32_t tid, unsigned i, const float *in)
{
	return final_in(L, 2, tid, i, in);
}

static bool close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (1 + fabs(b));
}

/* Does e apply function f somewhere?  (seen: the nodes visited, a DAG) */
struct seen { const struct expr *e[4096]; unsigned n; };

static bool fun_in(const struct expr *e, enum efun f, struct seen *s)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->e[i] == e)
			return false;
	if (s->n < 4096)
		s->e[s->n++] = e;
	if (e->op == EOP_FUN && e->u == (uint64_t)f)
		return true;
	for (unsigned i = 0; i < e->nargs; i++)
		if (fun_in(e->args[i], f, s))
			return true;
	return false;
}

static bool has_fun(const struct expr *e, enum efun f)
{
	static struct seen s;
	s.n = 0;
	return fun_in(e, f, &s);
}

/* Every write of L applies f and none applies 2^x (what an idiom left
 * unrecognised would: ex2.approx). */
static bool all_rolled(const struct dx_launch *L, enum efun f)
{
	for (size_t k = 0; k < L->writes.len; k++)
		if (!has_fun(L->writes.items[k].val, f) || has_fun(L->writes.items[k].val, EF_EXP2))
			return false;
	return L->writes.len > 0;
}

/* ---- merged branches ----------------------------------------------------------- */

/* if (v <= 0) v *= 0.5; q[i] = v: a triangle. */
static void test_triangle(void)
{
	static const char ptx[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.gt.f32 %p1, %f1, 0f00000000;\n"
		"@%p1 bra J;\n"
		"mul.f32 %f1, %f1, 0f3F000000;\n"
		"J:\n"
		"st.global.f32 [%rd5], %f1;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 32);
	struct ectx *cx = L->cx;
	ok(!L->unsup && L->writes.len == 1 && L->nbundles == 1, "triangle: supported, one write, one bundle");
	if (L->writes.len == 1) {
		const struct sym_write *w = &L->writes.items[0];
		const struct expr *x = e_load(cx, 0, ET_F32, w->addr);
		const struct expr *p = e_op2(cx, EOP_FLT, e_real(cx, 0), x);
		ok(w->val == e_ite(cx, p, x, e_op2(cx, EOP_FMUL, x, e_real(cx, 0.5))),
		   "triangle: q[i] = x > 0 ? x : x * 0.5");
		ok(e_is_true(w->dom), "triangle: every thread stores");
	}
	tb_free(&t);
}

/* if (v > 0) { q[i] = v; s = 1; } else { q[i] = -1; s = -1; } q[i+32] = s */
static void test_diamond(void)
{
	static const char ptx[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.gt.f32 %p1, %f1, 0f00000000;\n"
		"@%p1 bra T;\n"
		"mov.f32 %f2, 0fBF800000;\n"
		"st.global.f32 [%rd5], %f2;\n"
		"bra.uni J;\n"
		"T:\n"
		"mov.f32 %f2, 0f3F800000;\n"
		"st.global.f32 [%rd5], %f1;\n"
		"J:\n"
		"st.global.f32 [%rd5+128], %f2;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 32);
	ok(!L->unsup && L->writes.len == 3, "diamond: supported, three writes");
	float in[N] = { 0 };
	in[3] = 2.5f;
	in[5] = -3;
	ok(final_at(L, 3, 3, in) == 2.5 && final_at(L, 5, 5, in) == -1, "diamond: q[i] = x > 0 ? x : -1 (%g, %g)",
	   final_at(L, 3, 3, in), final_at(L, 5, 5, in));
	ok(final_at(L, 3, 35, in) == 1 && final_at(L, 5, 37, in) == -1, "diamond: the register merged: sign");
	for (size_t k = 0; k < L->writes.len; k++)
		ok(e_is_true(L->writes.items[k].dom), "diamond: write %zu by every thread (guarded by value)", k);
	tb_free(&t);
}

/* hardtanh by nested branches: v > 1 ? 1 : (v < -1 ? -1 : v) */
static void test_nested(void)
{
	static const char ptx[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.gt.f32 %p1, %f1, 0f3F800000;\n"
		"@%p1 bra HI;\n"
		"setp.lt.f32 %p2, %f1, 0fBF800000;\n"
		"@!%p2 bra J;\n"
		"mov.f32 %f1, 0fBF800000;\n"
		"bra.uni J;\n"
		"HI:\n"
		"mov.f32 %f1, 0f3F800000;\n"
		"J:\n"
		"st.global.f32 [%rd5], %f1;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 32);
	ok(!L->unsup && L->writes.len == 1, "nested: supported");
	float in[N] = { 0 };
	in[0] = 3;
	in[1] = -7;
	in[2] = 0.25f;
	ok(final_at(L, 0, 0, in) == 1 && final_at(L, 1, 1, in) == -1 && final_at(L, 2, 2, in) == 0.25,
	   "nested: clamps to [-1, 1] (%g %g %g)", final_at(L, 0, 0, in), final_at(L, 1, 1, in),
	   final_at(L, 2, 2, in));
	tb_free(&t);
}

/* m = p[4i]; for (j = 1; j < 4; j++) if (p[4i+j] > m) m = p[4i+j]; q[i] = m */
static void test_loop_max(void)
{
	static const char ptx[] = HEAD KERNEL
		"mul.wide.u32 %rd6, %r1, 16;\n"
		"add.s64 %rd7, %rd1, %rd6;\n"
		"ld.global.f32 %f1, [%rd7];\n"
		"mov.u32 %r2, 1;\n"
		"L:\n"
		"mul.wide.u32 %rd8, %r2, 4;\n"
		"add.s64 %rd9, %rd7, %rd8;\n"
		"ld.global.f32 %f2, [%rd9];\n"
		"setp.gt.f32 %p1, %f2, %f1;\n"
		"@!%p1 bra NEXT;\n"
		"mov.f32 %f1, %f2;\n"
		"NEXT:\n"
		"add.s32 %r2, %r2, 1;\n"
		"setp.lt.u32 %p2, %r2, 4;\n"
		"@%p2 bra L;\n"
		"st.global.f32 [%rd5], %f1;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 16);
	ok(!L->unsup && L->writes.len == 1, "loop max: a data branch inside a loop body is merged");
	float in[N];
	for (unsigned i = 0; i < N; i++)
		in[i] = (float)((i * 37) % 11) - 5;
	bool all = true;
	for (unsigned i = 0; i < 16; i++) {
		float m = in[4 * i];
		for (unsigned j = 1; j < 4; j++)
			m = in[4 * i + j] > m ? in[4 * i + j] : m;
		all &= final_at(L, i, i, in) == m;
	}
	ok(all, "loop max: q[i] is the maximum of its row at every thread");
	tb_free(&t);
}

/* A branch on tid inside a data arm splits the bundle; each half merges. */
static void test_thread_in_arm(void)
{
	static const char ptx[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.gt.f32 %p1, %f1, 0f00000000;\n"
		"@%p1 bra J;\n"
		"setp.lt.u32 %p2, %r1, 16;\n"
		"@%p2 bra K;\n"
		"st.global.f32 [%rd5], %f1;\n"
		"mul.f32 %f1, %f1, 0f40000000;\n"
		"K:\n"
		"add.f32 %f1, %f1, 0f3F800000;\n"
		"J:\n"
		"st.global.f32 [%rd5+128], %f1;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 32);
	ok(!L->unsup && L->nbundles == 2, "thread in arm: supported, the bundle split once (%u)", L->nbundles);
	float in[N] = { 0 };
	in[20] = -2;
	in[21] = 3;
	in[4] = -2;
	/* thread 20, x <= 0, tid >= 16: q[20] = x, q[52] = 2x + 1 */
	ok(final_at(L, 20, 20, in) == -2 && final_at(L, 20, 52, in) == -3, "thread in arm: tid >= 16, x <= 0");
	ok(final_at(L, 21, 21, in) == OLD(21) && final_at(L, 21, 53, in) == 3, "thread in arm: x > 0 skips the arm");
	ok(final_at(L, 4, 4, in) == OLD(4) && final_at(L, 4, 36, in) == -1, "thread in arm: tid < 16, x <= 0");
	tb_free(&t);
}

/* ---- merged branches on threads ------------------------------------------------- */

/* if (tid < k) v += p[i + 48]; q[i] = v: a branch on tid whose arm only
 * loads and adds is merged, not split, and the arm's load is checked for
 * the threads that take it (p has 64 floats: i + 48 is in bounds below
 * 16, out of bounds from 16). */
static void test_thread_merge(void)
{
	static const char ptx16[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.ge.u32 %p1, %r1, 16;\n"
		"@%p1 bra J;\n"
		"ld.global.f32 %f2, [%rd4+192];\n"
		"add.f32 %f1, %f1, %f2;\n"
		"J:\n"
		"st.global.f32 [%rd5], %f1;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx16, 32);
	ok(!L->unsup && L->nbundles == 1 && L->findings.len == 0,
	   "thread merge: supported, one bundle (%u), no finding (%zu)", L->nbundles, L->findings.len);
	float in[N];
	for (unsigned i = 0; i < N; i++)
		in[i] = (float)i;
	ok(close_to(final_at(L, 3, 3, in), 3 + 51) && close_to(final_at(L, 15, 15, in), 15 + 63),
	   "thread merge: threads below 16 add p[i + 48]");
	ok(close_to(final_at(L, 16, 16, in), 16) && close_to(final_at(L, 31, 31, in), 31),
	   "thread merge: the others store p[i]");
	tb_free(&t);

	/* the twin: threads below 17 take the arm, and thread 16 reads p[64]
	 * (then stores what it did not read: unsupported, as when split) */
	char *ptx17 = xstrdup(ptx16);
	char *at = strstr(ptx17, "%r1, 16;");
	at[6] = '7';
	L = snippet(&t, ptx17, 32);
	ok(L->findings.len == 1 && !strcmp(L->findings.items[0].cls, "oob-global") &&
	   L->findings.items[0].tid[0] == 16,
	   "thread merge: the one thread of the arm that overruns is the finding (%s)",
	   L->findings.len ? L->findings.items[0].message : "none");
	tb_free(&t);
	free(ptx17);

	/* an arm that stores is split as before */
	static const char store[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.ge.u32 %p1, %r1, 16;\n"
		"@%p1 bra J;\n"
		"st.global.f32 [%rd5+128], %f1;\n"
		"J:\n"
		"st.global.f32 [%rd5], %f1;\n"
		"ret;\n}\n";
	L = snippet(&t, store, 32);
	ok(!L->unsup && L->nbundles == 2, "thread merge: an arm with a store splits the bundle (%u)", L->nbundles);
	tb_free(&t);
}

/* if (tid < 16) for (k = 0; k < 4; k++) v += p[i + 32 + k]: an arm with
 * a loop of its own over constants is merged too, and the address and
 * counter registers it leaves (dead where the arms rejoin) do not undo
 * the merge. */
static const char loop_arm[] = HEAD KERNEL
	"ld.global.f32 %f1, [%rd4];\n"
	"mov.u64 %rd7, %rd4;\n"
	"setp.ge.u32 %p1, %r1, 16;\n"
	"@%p1 bra J;\n"
	"mov.u32 %r2, 0;\n"
	"L:\n"
	"mul.wide.u32 %rd6, %r2, 4;\n"
	"add.s64 %rd7, %rd4, %rd6;\n"
	"ld.global.f32 %f2, [%rd7+128];\n"
	"add.f32 %f1, %f1, %f2;\n"
	"add.u32 %r2, %r2, 1;\n"
	"setp.lt.u32 %p2, %r2, BOUND;\n"
	"@%p2 bra L;\n"
	"J:\n"
	"st.global.f32 [%rd5], %f1;\n"
	"TAIL"
	"ret;\n}\n";

static char *loop_arm_with(const char *bound, const char *tail)
{
	char *s = xstrdup(loop_arm), *at;
	size_t n = strlen(s) + strlen(bound) + strlen(tail) + 1;
	char *out = xcalloc(1, n);
	at = strstr(s, "BOUND");
	*at = 0;
	char *rest = strstr(at + 1, "TAIL");
	*rest = 0;
	snprintf(out, n, "%s%s%s%s%s", s, bound, at + 5, tail, rest + 4);
	free(s);
	return out;
}

static void test_thread_merge_loop(void)
{
	struct tb t;
	float in[N];
	for (unsigned i = 0; i < N; i++)
		in[i] = (float)i;
	char *ptx = loop_arm_with("4", "");
	struct dx_launch *L = snippet(&t, ptx, 32);
	ok(!L->unsup && L->nbundles == 1 && L->findings.len == 0,
	   "loop in arm: supported, one bundle (%u), no finding (%zu)", L->nbundles, L->findings.len);
	ok(close_to(final_at(L, 3, 3, in), 3 + 35 + 36 + 37 + 38) && close_to(final_at(L, 20, 20, in), 20),
	   "loop in arm: threads below 16 add p[i + 32 .. i + 35], the others store p[i]");
	tb_free(&t);
	free(ptx);

	/* the pointer the loop advanced is read after the join: the merge is
	 * taken back and the bundle split, values the same */
	ptx = loop_arm_with("4", "ld.global.f32 %f3, [%rd7];\nst.global.f32 [%rd5+128], %f3;\n");
	L = snippet(&t, ptx, 32);
	ok(!L->unsup && L->nbundles == 2, "loop in arm, pointer live at the join: split (%u bundles)", L->nbundles);
	ok(close_to(final_at(L, 3, 3, in), 3 + 35 + 36 + 37 + 38) && close_to(final_at(L, 3, 35, in), 3 + 3) &&
	   close_to(final_at(L, 20, 52, in), 20),
	   "loop in arm, pointer live at the join: each half reads through its own pointer");
	tb_free(&t);
	free(ptx);

	/* a trip count that depends on the thread (k < tid + 1) would split
	 * inside the arm: taken back to the outer branch, which splits */
	ptx = loop_arm_with("%r3", "");
	char *add = strstr(ptx, "mov.u32 %r2, 0;\n");
	char *p2 = xcalloc(1, strlen(ptx) + 64);
	memcpy(p2, ptx, (size_t)(add - ptx));
	strcat(p2, "add.u32 %r3, %r1, 1;\n");
	strcat(p2, add);
	L = snippet(&t, p2, 32);
	ok(!L->unsup && L->nbundles > 2 && L->findings.len == 0,
	   "loop in arm, trips by thread: split at the outer branch (%u bundles)", L->nbundles);
	ok(close_to(final_at(L, 0, 0, in), 0 + 32) && close_to(final_at(L, 2, 2, in), 2 + 34 + 35 + 36) &&
	   close_to(final_at(L, 17, 17, in), 17),
	   "loop in arm, trips by thread: thread 2 adds three elements, thread 17 none");
	tb_free(&t);
	free(ptx);
	free(p2);

	/* if (tid < 16) { k = tid + 8; } q[i] = p[k]: an index that differs
	 * between the arms and is read after the join is not merged into a
	 * select (it would reach the address): split */
	static const char index_arm[] = HEAD KERNEL
		"mov.u32 %r2, 0;\n"
		"setp.ge.u32 %p1, %r1, 16;\n"
		"@%p1 bra J;\n"
		"add.u32 %r2, %r1, 8;\n"
		"J:\n"
		"mul.wide.u32 %rd6, %r2, 4;\n"
		"add.s64 %rd7, %rd1, %rd6;\n"
		"ld.global.f32 %f1, [%rd7];\n"
		"st.global.f32 [%rd5], %f1;\n"
		"ret;\n}\n";
	L = snippet(&t, index_arm, 32);
	ok(!L->unsup && L->nbundles == 2 && close_to(final_at(L, 3, 3, in), 11) &&
	   close_to(final_at(L, 20, 20, in), 0),
	   "index set in an arm, read after the join: split, q[3] = p[11], q[20] = p[0] (%u bundles)",
	   L->nbundles);
	tb_free(&t);

	/* valid[n++] = tid in an arm, as level-1 81 lists the valid taps in a
	 * local array: the count is thread-dependent only per half */
	static const char local_arm[] = HEAD
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
		".local .align 4 .b8 depot[16];\n"
		".reg .pred %p<8>;\n.reg .b32 %r<16>;\n.reg .f32 %f<16>;\n.reg .b64 %rd<16>;\n.reg .b64 %SPL;\n"
		"mov.u64 %SPL, depot;\n"
		"ld.param.u64 %rd1, [p];\nld.param.u64 %rd2, [q];\n"
		"mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd5, %rd2, %rd3;\n"
		"mov.u32 %r2, 0;\n"
		"setp.ge.u32 %p1, %r1, 16;\n"
		"@%p1 bra J;\n"
		"st.local.u32 [%SPL], %r1;\n"
		"add.u32 %r2, %r2, 1;\n"
		"J:\n"
		"setp.eq.u32 %p2, %r2, 0;\n"
		"@%p2 bra E;\n"
		"mul.wide.u32 %rd6, %r2, 4;\n"
		"add.s64 %rd7, %SPL, %rd6;\n"
		"ld.local.u32 %r3, [%rd7+-4];\n"
		"cvt.rn.f32.u32 %f1, %r3;\n"
		"st.global.f32 [%rd5], %f1;\n"
		"E:\n"
		"ret;\n}\n";
	L = snippet(&t, local_arm, 32);
	ok(!L->unsup && close_to(final_at(L, 3, 3, in), 3) && close_to(final_at(L, 20, 20, in), OLD(20)),
	   "a local array filled in an arm: valid[0] = 3 at thread 3, thread 20 stores nothing (%s)",
	   L->unsup ? L->uns.message : "supported");
	tb_free(&t);

	/* p ? p[i + 32] : 0 on a buffer of the trace: decided, no free pointer */
	static const char null_test[] = HEAD KERNEL
		"mov.f32 %f1, 0f00000000;\n"
		"setp.eq.s64 %p1, %rd1, 0;\n"
		"@%p1 bra J;\n"
		"ld.global.f32 %f1, [%rd4+128];\n"
		"J:\n"
		"st.global.f32 [%rd5], %f1;\n"
		"ret;\n}\n";
	L = snippet(&t, null_test, 32);
	ok(!L->unsup && L->nbundles == 1 && close_to(final_at(L, 5, 5, in), 37),
	   "pointer tested against null: a buffer's address is not null (%u bundles)", L->nbundles);
	tb_free(&t);
}

/* ---- bounds under a data condition ------------------------------------------------- */

static void test_bounds(void)
{
	/* q[i + 32] for i < 64 overruns q (64 floats) only where the arm runs */
	static const char oob[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.gt.f32 %p1, %f1, 0f00000000;\n"
		"@%p1 bra J;\n"
		"st.global.f32 [%rd5+128], %f1;\n"
		"J:\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, oob, 64);
	ok(!L->unsup && L->findings.len == 1, "bounds: a store in an arm that may overrun is a finding");
	if (L->findings.len) {
		const struct sym_finding *f = &L->findings.items[0];
		ok(!strcmp(f->cls, "oob-global") && f->tid[0] >= 32 && strstr(f->message, "when a condition on data holds"),
		   "bounds: oob-global at thread %u, message '%s'", f->tid[0], f->message);
	}
	tb_free(&t);

	/* a load in an arm too */
	static const char load[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.gt.f32 %p1, %f1, 0f00000000;\n"
		"@%p1 bra J;\n"
		"ld.global.f32 %f1, [%rd4+128];\n"
		"J:\n"
		"st.global.f32 [%rd5], %f1;\n"
		"ret;\n}\n";
	L = snippet(&t, load, 64);
	ok(L->findings.len == 1 && !strcmp(L->findings.items[0].cls, "oob-global") &&
	   strstr(L->findings.items[0].message, "reads 4 bytes"), "bounds: a load in an arm that may overrun too");
	tb_free(&t);

	/* the condition on tid in the branch keeps it in bounds: no finding */
	static const char in[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.gt.f32 %p1, %f1, 0f00000000;\n"
		"setp.lt.u32 %p2, %r1, 32;\n"
		"and.pred %p3, %p1, %p2;\n"
		"@!%p3 bra J;\n"
		"st.global.f32 [%rd5+128], %f1;\n"
		"J:\n"
		"ret;\n}\n";
	L = snippet(&t, in, 64);
	ok(!L->unsup && L->findings.len == 0 && L->writes.len == 1,
	   "bounds: tid < 32 in the branch condition keeps q[i + 32] in bounds");
	tb_free(&t);
}

/* ---- addresses chosen by data ----------------------------------------------------------- */

/* m = fmaxf(p[i], p[i+32]) as nvcc writes it for a reduction step: a
 * select between the two addresses on a comparison of their values. */
static void test_chosen_address(void)
{
	static const char ptx[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"ld.global.f32 %f2, [%rd4+128];\n"
		"setp.gt.f32 %p1, %f1, %f2;\n"
		"selp.b64 %rd6, 0, 128, %p1;\n"
		"add.s64 %rd7, %rd4, %rd6;\n"
		"ld.global.f32 %f3, [%rd7];\n"
		"st.global.f32 [%rd5], %f3;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, ptx, 32);
	ok(!L->unsup && L->findings.len == 0 && L->writes.len == 1, "chosen address: a load from either address");
	float in[N];
	for (unsigned i = 0; i < N; i++)
		in[i] = (float)((i * 29) % 17) - 8;
	bool good = true;
	for (unsigned i = 0; i < 32; i++)
		good &= final_at(L, i, i, in) == (in[i] > in[i + 32] ? in[i] : in[i + 32]);
	ok(good, "chosen address: q[i] = max(p[i], p[i + 32]) at every thread");
	tb_free(&t);

	/* the other address past the end of p: a finding under the condition */
	static const char oob[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.gt.f32 %p1, %f1, 0f00000000;\n"
		"selp.b64 %rd6, 0, 256, %p1;\n"
		"add.s64 %rd7, %rd4, %rd6;\n"
		"ld.global.f32 %f3, [%rd7];\n"
		"st.global.f32 [%rd5], %f3;\n"
		"ret;\n}\n";
	L = snippet(&t, oob, 32);
	ok(L->findings.len == 1 && !strcmp(L->findings.items[0].cls, "oob-global") &&
	   strstr(L->findings.items[0].message, "when a condition on data holds"),
	   "chosen address: the choice past the end is a finding");
	tb_free(&t);

	/* in shared memory, a step of a max tree: s[i] = max(s[i], s[i + 16]) */
	static const char tree[] = HEAD
		".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
		".reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<8>;\n"
		".shared .align 4 .b8 s[128];\n"
		"ld.param.u64 %rd1, [p];\nld.param.u64 %rd2, [q];\n"
		"mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd1, %rd3;\n"
		"ld.global.f32 %f1, [%rd4];\n"
		"shl.b32 %r2, %r1, 2;\nmov.u32 %r3, s;\nadd.s32 %r4, %r3, %r2;\n"
		"st.shared.f32 [%r4], %f1;\n"
		"bar.sync 0;\n"
		"setp.gt.u32 %p1, %r1, 15;\n"
		"@%p1 bra DONE;\n"
		"ld.shared.f32 %f2, [%r4];\n"
		"ld.shared.f32 %f3, [%r4+64];\n"
		"setp.gt.f32 %p2, %f2, %f3;\n"
		"selp.b32 %r5, 0, 64, %p2;\n"
		"add.s32 %r6, %r4, %r5;\n"
		"ld.shared.f32 %f4, [%r6];\n"
		"add.s64 %rd5, %rd2, %rd3;\n"
		"st.global.f32 [%rd5], %f4;\n"
		"DONE:\nret;\n}\n";
	L = snippet(&t, tree, 32);
	ok(!L->unsup && L->findings.len == 0 && L->writes.len == 1, "chosen shared address: a max tree step (%s)",
	   L->unsup ? L->uns.message : "no finding");
	tb_free(&t);

	/* an index read from memory is no choice: still unsupported */
	static const char gather[] = HEAD KERNEL
		"ld.global.u32 %r2, [%rd4];\n"
		"mul.wide.u32 %rd6, %r2, 4;\n"
		"add.s64 %rd7, %rd1, %rd6;\n"
		"ld.global.f32 %f3, [%rd7];\n"
		"st.global.f32 [%rd5], %f3;\n"
		"ret;\n}\n";
	L = snippet(&t, gather, 32);
	ok(L->unsup && !strcmp(L->uns.what, "data-dependent address"), "gather: unsupported (%s)",
	   L->unsup ? L->uns.what : "supported");
	tb_free(&t);
}

/* ---- what stays unsupported ----------------------------------------------------------- */

static void test_refused(void)
{
	/* while (v > 1) v *= 0.5: the exit test is a branch on data */
	static const char loop[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"L:\n"
		"setp.gt.f32 %p1, %f1, 0f3F800000;\n"
		"@!%p1 bra D;\n"
		"mul.f32 %f1, %f1, 0f3F000000;\n"
		"bra.uni L;\n"
		"D:\n"
		"st.global.f32 [%rd5], %f1;\n"
		"ret;\n}\n";
	struct tb t;
	struct dx_launch *L = snippet(&t, loop, 32);
	ok(L->unsup && !strcmp(L->uns.what, "loop exit depends on data") && L->uns.line == 19,
	   "loop exit: unsupported, named (%s, line %u)", L->unsup ? L->uns.what : "", L->uns.line);
	ok(L->unsup && strstr(L->uns.message, "kernel 'k': a loop whose exit depends on loaded data") &&
	   strstr(L->uns.message, "at PTX line 19"), "loop exit: message '%s'", L->uns.message);
	tb_free(&t);

	/* do v *= 0.5; while (v > 1): a backward branch on data */
	static const char back[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"L:\n"
		"mul.f32 %f1, %f1, 0f3F000000;\n"
		"setp.gt.f32 %p1, %f1, 0f3F800000;\n"
		"@%p1 bra L;\n"
		"st.global.f32 [%rd5], %f1;\n"
		"ret;\n}\n";
	L = snippet(&t, back, 32);
	ok(L->unsup && !strcmp(L->uns.what, "loop exit depends on data"), "backward data branch: a loop exit");
	tb_free(&t);

	/* a barrier before the arms rejoin */
	static const char bar[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.gt.f32 %p1, %f1, 0f00000000;\n"
		"@%p1 bra J;\n"
		"bar.sync 0;\n"
		"J:\n"
		"st.global.f32 [%rd5], %f1;\n"
		"ret;\n}\n";
	L = snippet(&t, bar, 32);
	ok(L->unsup && !strcmp(L->uns.what, "data-dependent branch") &&
	   strstr(L->uns.message, "reach a barrier (bar.sync at PTX line 19) before they rejoin"),
	   "barrier in an arm: unsupported (%s)", L->unsup ? L->uns.message : "");
	tb_free(&t);

	/* a shuffle and an atomic likewise */
	static const char shfl[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.gt.f32 %p1, %f1, 0f00000000;\n"
		"@%p1 bra J;\n"
		"red.global.add.f32 [%rd5], %f1;\n"
		"J:\n"
		"ret;\n}\n";
	L = snippet(&t, shfl, 32);
	ok(L->unsup && strstr(L->uns.message, "reach an atomic (red.global.add.f32"), "atomic in an arm: unsupported");
	tb_free(&t);

	/* an arm that returns: the arms never rejoin */
	static const char ret[] = HEAD KERNEL
		"ld.global.f32 %f1, [%rd4];\n"
		"setp.gt.f32 %p1, %f1, 0f00000000;\n"
		"@%p1 bra J;\n"
		"st.global.f32 [%rd5], %f1;\n"
		"ret;\n"
		"J:\n"
		"st.global.f32 [%rd5+4], %f1;\n"
		"ret;\n}\n";
	L = snippet(&t, ret, 32);
	ok(L->unsup && !strcmp(L->uns.what, "data-dependent branch") && strstr(L->uns.message, "do not rejoin"),
	   "arm that returns: unsupported (%s)", L->unsup ? L->uns.message : "");
	tb_free(&t);
}

/* ---- kernels nvcc compiled (tests/fixtures/src/branches.cu) ---------------------------- */

static const char *const files[] = { "branches.ptx", "branches_fast.ptx" };

/* A launch of kernel k of the fixture over one block of nt threads: x
 * (value 0) and y (value 2) of N floats each, an int buffer (value 4)
 * when ints, then the scalars of args (a float alpha or an int). */
static struct dx_launch *fix_run(struct tb *t, const char *ptx, const char *k, uint32_t nt, bool ints,
                                 const float *alpha, uint32_t n)
{
	tb_init(t, ptx, k, 1, 1, nt, 1);
	tb_ptr(t, "x", 4 * N);
	tb_ptr(t, "y", 4 * N);
	if (ints)
		tb_ptr(t, "idx", 4 * N);
	if (alpha)
		tb_f32(t, "alpha", *alpha);
	tb_u32(t, "n", n);
	return tb_run(t);
}

static float input(unsigned i)
{
	static const float v[] = { -2.5f, -0.75f, 0.0f, 0.4f, 1.25f, 3.0f, -30.0f, 25.0f, -0.1f, 0.9f, -1.6f };
	return v[i % (sizeof v / sizeof v[0])] + (float)(i / 11) * 0.125f;
}

static double erf_ref(double v) { return erf(v); }

static void test_fixtures(unsigned f)
{
	const char *file = files[f];
	char *ptx = fixture(file);
	if (!ptx)
		return;
	float in[N];
	for (unsigned i = 0; i < N; i++)
		in[i] = input(i);
	const float alpha = 1.5f;
	struct tb t;
	bool good;

	/* if (v <= 0) v = alpha * (expf(v) - 1): the expf in the arm rolled up */
	struct dx_launch *L = fix_run(&t, ptx, "elu", 32, false, &alpha, 32);
	ok(!L->unsup && L->writes.len == 1 && all_rolled(L, EF_EXP), "%s elu: merged, exp rolled up", file);
	good = true;
	for (unsigned i = 0; i < 32; i++)
		good &= close_to(final_in(L, 2, i, i, in), in[i] > 0 ? in[i] : alpha * (exp(in[i]) - 1));
	ok(good, "%s elu: y = x > 0 ? x : alpha * (exp(x) - 1) at every thread", file);
	tb_free(&t);

	/* four copies, one arm each */
	L = fix_run(&t, ptx, "elu4", 8, false, &alpha, 8);
	ok(!L->unsup && L->writes.len == 4 && all_rolled(L, EF_EXP), "%s elu4: merged, four exps", file);
	good = true;
	for (unsigned i = 0; i < 32; i++)
		good &= close_to(final_in(L, 2, i / 4, i, in), in[i] > 0 ? in[i] : alpha * (exp(in[i]) - 1));
	ok(good, "%s elu4: every component", file);
	tb_free(&t);

	/* three ways, log1pf(expf(v)) in the last */
	L = fix_run(&t, ptx, "softplus", 32, false, NULL, 32);
	ok(!L->unsup && L->writes.len == 1 && all_rolled(L, EF_LOG1P), "%s softplus: merged, log1p rolled up", file);
	good = true;
	for (unsigned i = 0; i < 32; i++) {
		double v = in[i];
		good &= close_to(final_in(L, 2, i, i, in), v > 20 ? v : v < -20 ? exp(v) : log1p(exp(v)));
	}
	ok(good, "%s softplus: y = x > 20 ? x : x < -20 ? exp(x) : log1p(exp(x))", file);
	tb_free(&t);

	/* erff unrolled four times: the third copy is interleaved with its neighbours */
	L = fix_run(&t, ptx, "gelu4", 8, false, NULL, 8);
	ok(!L->unsup && L->writes.len == 4 && all_rolled(L, EF_ERF), "%s gelu4: all four erfs rolled up", file);
	good = true;
	for (unsigned i = 0; i < 32; i++) {
		double v = in[i];
		good &= close_to(final_in(L, 2, i / 4, i, in), 0.5 * v * (1 + erf_ref(v * (double)0.70710678f)));
	}
	ok(good, "%s gelu4: y = x/2 (1 + erf(x / sqrt 2)) for every component", file);
	tb_free(&t);

	/* erff in both arms; their internal joins are the branch's join */
	L = fix_run(&t, ptx, "erf_arms", 32, false, NULL, 32);
	ok(!L->unsup && L->writes.len == 1 && all_rolled(L, EF_ERF), "%s erf_arms: merged, both erfs rolled up", file);
	good = true;
	for (unsigned i = 0; i < 32; i++) {
		double v = in[i];
		good &= close_to(final_in(L, 2, i, i, in), v > 0 ? erf_ref(v) : v * erf_ref(2 * v));
	}
	ok(good, "%s erf_arms: y = x > 0 ? erf(x) : x erf(2x)", file);
	tb_free(&t);

	/* if (v > m) { m = v; idx[r] = j; } in an unrolled loop */
	L = fix_run(&t, ptx, "argmax", 8, true, NULL, 8);
	ok(!L->unsup, "%s argmax: a store in an arm inside a loop", file);
	good = true;
	for (unsigned r = 0; r < 8; r++) {
		float m = in[8 * r];
		int at = -1;
		for (int j = 1; j < 8; j++)
			if (in[8 * r + j] > m) {
				m = in[8 * r + j];
				at = j;
			}
		good &= final_in(L, 2, r, r, in) == m;
		good &= final_in(L, 4, r, r, in) == (at < 0 ? OLD(r) : at);
	}
	ok(good, "%s argmax: the maximum, and idx written only where a later element is larger", file);
	tb_free(&t);

	/* online log-sum-exp: expf in the arm and after the join, unrolled;
	 * (under fast math, __logf's multiply by ln 2 is fused into the add
	 * of m: that log stays log2(s) * ln 2) */
	L = fix_run(&t, ptx, "lse", 8, false, NULL, 8);
	ok(!L->unsup && L->writes.len == 1 && all_rolled(L, EF_EXP) && (f == 1 || has_fun(L->writes.items[0].val, EF_LOG)),
	   "%s lse: merged, exps and log rolled up", file);
	good = true;
	for (unsigned r = 0; r < 8; r++) {
		double m = -1e30, sum = 0;
		for (unsigned j = 0; j < 8; j++)
			m = in[8 * r + j] > m ? in[8 * r + j] : m;
		for (unsigned j = 0; j < 8; j++)
			sum += exp(in[8 * r + j] - m);
		good &= fabs(final_in(L, 2, r, r, in) - (m + log(sum))) < (f ? 1e-6 : 1e-9);
	}
	ok(good, "%s lse: y = log sum exp of the row", file);
	tb_free(&t);

	/* tanhf, logf, log1pf, expf side by side (logf's last select sunk past
	 * the others), and four tanhf */
	L = fix_run(&t, ptx, "mix4", 8, false, NULL, 8);
	ok(!L->unsup && L->writes.len == 4, "%s mix4: supported", file);
	good = L->writes.len == 4;
	for (unsigned i = 0; i < 32 && good; i++) {
		double v = in[i], want = i % 4 == 0 ? tanh(v) : i % 4 == 1 ? log(v) : i % 4 == 2 ? log1p(v) : exp(v);
		double got = final_in(L, 2, i / 4, i, in);
		/* log of x <= 0 and log1p of x <= -1 have no real value */
		good &= (i % 4 == 1 && v <= 0) || (i % 4 == 2 && v <= -1) || close_to(got, want);
	}
	ok(good && has_fun(L->writes.items[0].val, EF_TANH) && has_fun(L->writes.items[1].val, EF_LOG) &&
	   has_fun(L->writes.items[2].val, EF_LOG1P) && has_fun(L->writes.items[3].val, EF_EXP),
	   "%s mix4: tanh, log, log1p, exp", file);
	tb_free(&t);
	L = fix_run(&t, ptx, "tanh4", 8, false, NULL, 8);
	ok(!L->unsup && L->writes.len == 4 && all_rolled(L, EF_TANH), "%s tanh4: four tanhs", file);
	tb_free(&t);

	/* while (v > 1) v *= 0.5 */
	L = fix_run(&t, ptx, "halve", 32, false, NULL, 32);
	ok(L->unsup && !strcmp(L->uns.what, "loop exit depends on data") && strstr(L->uns.message, "(branches.cu:"),
	   "%s halve: unsupported, named with its .cu line (%s)", file, L->unsup ? L->uns.message : "");
	tb_free(&t);
	free(ptx);
}

int main(void)
{
	diag_set_prog("test-exec-branch");
	test_triangle();
	test_diamond();
	test_nested();
	test_loop_max();
	test_thread_in_arm();
	test_thread_merge();
	test_thread_merge_loop();
	test_bounds();
	test_chosen_address();
	test_refused();
	for (unsigned f = 0; f < 2; f++)
		test_fixtures(f);
	return done_testing();
}
