/*
 * dx-harness.h: running dexec's executor in a unit test: dexec's files
 * (in no archive) compiled in, an obligation built in memory with
 * pointer and scalar arguments, fixtures read from tests/fixtures, and
 * helpers to evaluate domains and addresses at concrete threads.  Used by
 * every test-exec*.c and test-rollup.c (include it once, first); a new
 * file of dexec is added here once.
 */
#include "../../dexec/exec.c"
#include "../../dexec/atomic.c"
#include "../../dexec/merge.c"
#include "../../dexec/instr.c"
#include "../../dexec/mem.c"
#include "../../dexec/operand.c"
#include "../../dexec/report.c"
#include "../../dexec/shared.c"
#include "../../dexec/race.c"
#include "../../dexec/race-enum.c"
#include "../../dexec/quick.c"
#include "../../dexec/affine.c"
#include "../../dexec/gread.c"
#include "../../dexec/warp.c"
#include "../../dexec/prepare.c"
#include "../../dexec/call.c"
#include "../../dexec/local.c"
#include "../../dexec/rollup.c"
#include "../../dexec/idioms.c"
#include "../../dexec/opaque.c"
#include "../../dexec/fold.c"

#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

/* ---- building an obligation in memory -------------------------------------- */

struct tb {
	struct obligation o;
	struct arena pa;             /* parsed PTX */
	const struct ptx_module *mod;
	struct obl_launch *l;
	struct dx_opts opts;
	struct smt *smt;
	struct dx_launch L;
};

static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = xmalloc((size_t)n + 1);
	size_t got = fread(s, 1, (size_t)n, f);
	s[got] = 0;
	fclose(f);
	return s;
}

static inline void tb_init(struct tb *t, const char *ptx, const char *kernel,
                    uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by)
{
	memset(t, 0, sizeof *t);
	obligation_init(&t->o);
	arena_init(&t->pa);
	char err[256] = "";
	t->mod = ptx_parse(&t->pa, ptx, strlen(ptx), err, sizeof err);
	if (!t->mod)
		printf("# ptx does not parse: %s\n", err);
	struct obl_module m = { 0, 0, ptx, strlen(ptx), NULL };
	VEC_PUSH(t->o.modules, m);
	struct obl_launch l = { 0 };
	l.kernel = kernel;
	l.grid[0] = gx; l.grid[1] = gy; l.grid[2] = 1;
	l.block[0] = bx; l.block[1] = by; l.block[2] = 1;
	l.args = ARENA_NEWN(&t->o.arena, struct obl_arg, 16);
	VEC_PUSH(t->o.launches, l);
	t->l = &t->o.launches.items[0];
	t->opts = (struct dx_opts){ .budget_steps = DX_DEFAULT_STEPS, .max_bundles = DX_DEFAULT_BUNDLES,
	                            .smt_rlimit = DX_DEFAULT_RLIMIT, .budget = -1, .deadline = DEADLINE_NONE };
	t->smt = smt_new(10000, 0);
}

static inline uint32_t tb_value(struct tb *t, uint64_t bytes, enum value_def def, uint32_t prev)
{
	struct obl_value v = { 0 };
	v.value = (uint32_t)t->o.values.len;
	v.bytes = bytes;
	v.def = def;
	v.prev = prev;
	v.launch = 0;
	VEC_PUSH(t->o.values, v);
	return v.value;
}

/* A pointer argument to a fresh buffer of bytes; returns its vin. */
static inline uint32_t tb_ptr(struct tb *t, const char *name, uint64_t bytes)
{
	uint32_t vin = tb_value(t, bytes, VD_UNINIT, NO_VALUE);
	uint32_t vout = tb_value(t, bytes, VD_LAUNCH, vin);
	struct obl_arg *a = &t->l->args[t->l->nargs++];
	a->param = name;
	a->size = 8;
	a->raw = arena_alloc(&t->o.arena, 8);
	a->is_ptr = true;
	a->vin = vin;
	a->vout = vout;
	return vin;
}

static inline void tb_scalar(struct tb *t, const char *name, const void *p, uint32_t size)
{
	struct obl_arg *a = &t->l->args[t->l->nargs++];
	a->param = name;
	a->size = size;
	a->raw = arena_memdup(&t->o.arena, p, size);
}

static inline void tb_u32(struct tb *t, const char *name, uint32_t v) { tb_scalar(t, name, &v, 4); }
static inline void tb_f32(struct tb *t, const char *name, float v) { tb_scalar(t, name, &v, 4); }

static inline struct dx_launch *tb_run(struct tb *t)
{
	const struct ptx_func *f = t->mod ? ptx_find_func(t->mod, t->l->kernel) : NULL;
	if (!f) {
		printf("# kernel '%s' not found\n", t->l->kernel);
		abort();
	}
	dx_launch_run(&t->L, &t->o, 0, t->mod, f, &t->opts, t->smt);
	if (t->L.unsup)
		printf("# unsupported: %s\n", t->L.uns.message);
	for (size_t i = 0; i < t->L.findings.len; i++)
		printf("# finding: %s\n", t->L.findings.items[i].message);
	return &t->L;
}

static inline void tb_free(struct tb *t)
{
	dx_launch_release(&t->L);
	smt_free(t->smt);
	obligation_release(&t->o);
	arena_release(&t->pa);
}

static inline bool at_true(struct ectx *cx, const struct expr *e, uint32_t tx, uint32_t ty, uint32_t cx_, uint32_t cy)
{
	uint32_t tid[3] = { tx, ty, 0 }, ctaid[3] = { cx_, cy, 0 };
	return e_is_true(e_at_thread(cx, e, tid, ctaid));
}

static inline int64_t at_bv(struct ectx *cx, const struct expr *e, uint32_t tx, uint32_t ty, uint32_t cx_, uint32_t cy)
{
	uint32_t tid[3] = { tx, ty, 0 }, ctaid[3] = { cx_, cy, 0 };
	const struct expr *v = e_at_thread(cx, e, tid, ctaid);
	return v->op == EOP_BV ? (int64_t)v->u : -12345;
}

static inline char *fixture(const char *name)
{
	char path[256];
	const char *root = getenv("DIRIGO_ROOT");
	snprintf(path, sizeof path, "%s/tests/fixtures/%s", root ? root : ".", name);
	char *s = slurp(path);
	if (!s)
		printf("# cannot read %s\n", path);
	return s;
}

