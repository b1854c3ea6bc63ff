/*
 * expr.c: expression contexts, hash-consing, leaves, names, queries,
 * substitution and the topological node table of expr.h.
 *
 * Every node is made by x_intern, which looks the description up in an
 * open-addressing table of the context and allocates only when it is new;
 * so structurally equal nodes are one pointer.  The simplifying
 * constructors are in expr-simp.c, evaluation in expr-eval.c, text in
 * expr-print.c.
 */
#include "libcommon/expr-impl.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- names ---------------------------------------------------------------- */

static const char *const eop_names[EOP__COUNT] = {
	[EOP_BOOL] = "bool", [EOP_BV] = "bv", [EOP_REAL] = "real",
	[EOP_TID] = "tid", [EOP_CTAID] = "ctaid", [EOP_ELEM] = "elem",
	[EOP_INPUT] = "input", [EOP_LOAD] = "load", [EOP_UNDEF] = "undef",
	[EOP_VAR] = "var",
	[EOP_ADD] = "add", [EOP_SUB] = "sub", [EOP_MUL] = "mul", [EOP_NEG] = "neg",
	[EOP_UDIV] = "udiv", [EOP_SDIV] = "sdiv", [EOP_UREM] = "urem", [EOP_SREM] = "srem",
	[EOP_MULHI_U] = "mulhi_u", [EOP_MULHI_S] = "mulhi_s",
	[EOP_SHL] = "shl", [EOP_LSHR] = "lshr", [EOP_ASHR] = "ashr",
	[EOP_AND] = "and", [EOP_OR] = "or", [EOP_XOR] = "xor", [EOP_NOT] = "not",
	[EOP_UMIN] = "umin", [EOP_UMAX] = "umax", [EOP_SMIN] = "smin", [EOP_SMAX] = "smax",
	[EOP_ZEXT] = "zext", [EOP_SEXT] = "sext", [EOP_EXTRACT] = "extract",
	[EOP_CONCAT] = "concat", [EOP_POPC] = "popc", [EOP_CLZ] = "clz", [EOP_BREV] = "brev",
	[EOP_EQ] = "eq", [EOP_ULT] = "ult", [EOP_ULE] = "ule", [EOP_SLT] = "slt",
	[EOP_SLE] = "sle", [EOP_FLT] = "flt", [EOP_FLE] = "fle",
	[EOP_LAND] = "land", [EOP_LOR] = "lor", [EOP_LNOT] = "lnot", [EOP_ITE] = "ite",
	[EOP_FADD] = "fadd", [EOP_FMUL] = "fmul", [EOP_FSUB] = "fsub", [EOP_FNEG] = "fneg",
	[EOP_FDIV] = "fdiv", [EOP_FMIN] = "fmin", [EOP_FMAX] = "fmax", [EOP_FABS] = "fabs",
	[EOP_FUN] = "fun", [EOP_S2R] = "s2r", [EOP_U2R] = "u2r", [EOP_R2S] = "r2s",
	[EOP_R2U] = "r2u", [EOP_BOOL2BV] = "bool2bv", [EOP_OPAQUE] = "opaque",
};

const char *eop_name(enum eop op)
{
	return (unsigned)op < EOP__COUNT && eop_names[op] ? eop_names[op] : "?";
}

enum eop eop_parse(const char *name)
{
	for (unsigned i = 0; i < EOP__COUNT; i++)
		if (eop_names[i] && strcmp(eop_names[i], name) == 0)
			return (enum eop)i;
	return EOP__COUNT;
}

static const char *const efun_names[EF__COUNT] = {
	"sqrt", "rsqrt", "rcp_approx", "exp", "exp2", "log", "log2", "log1p",
	"tanh", "erf", "pow", "sin", "cos", "sigmoid", "floor", "ceil", "trunc", "rint",
};

const char *efun_name(enum efun f)
{
	return (unsigned)f < EF__COUNT ? efun_names[f] : "?";
}

enum efun efun_parse(const char *name)
{
	for (unsigned i = 0; i < EF__COUNT; i++)
		if (strcmp(efun_names[i], name) == 0)
			return (enum efun)i;
	return EF__COUNT;
}

static const char *const rmode_names[] = { "rn", "rz", "rm", "rp" };

const char *rmode_name(enum rmode m)
{
	return (unsigned)m < 4 ? rmode_names[m] : "?";
}

int rmode_parse(const char *name)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(rmode_names[i], name) == 0)
			return i;
	return -1;
}

static const struct { const char *name; unsigned size; bool fl; } etypes[ET__COUNT] = {
	[ET_NONE] = { "none", 0, false },
	[ET_U8] = { "u8", 1, false }, [ET_S8] = { "s8", 1, false },
	[ET_U16] = { "u16", 2, false }, [ET_S16] = { "s16", 2, false },
	[ET_U32] = { "u32", 4, false }, [ET_S32] = { "s32", 4, false },
	[ET_U64] = { "u64", 8, false }, [ET_S64] = { "s64", 8, false },
	[ET_F16] = { "f16", 2, true }, [ET_BF16] = { "bf16", 2, true },
	[ET_F32] = { "f32", 4, true }, [ET_F64] = { "f64", 8, true },
};

unsigned etype_size(enum etype t)
{
	return (unsigned)t < ET__COUNT ? etypes[t].size : 0;
}

bool etype_is_float(enum etype t)
{
	return (unsigned)t < ET__COUNT && etypes[t].fl;
}

sort_t etype_sort(enum etype t)
{
	if ((unsigned)t >= ET__COUNT || t == ET_NONE)
		return 0;
	return etypes[t].fl ? SORT_REAL : SORT_BV(8 * etypes[t].size);
}

const char *etype_name(enum etype t)
{
	return (unsigned)t < ET__COUNT ? etypes[t].name : "?";
}

enum etype etype_parse(const char *name)
{
	for (unsigned i = 1; i < ET__COUNT; i++)
		if (strcmp(etypes[i].name, name) == 0)
			return (enum etype)i;
	return ET_NONE;
}

const char *sort_name(sort_t s, char buf[8])
{
	switch (SORT_KIND(s)) {
	case SK_BOOL: return "bool";
	case SK_REAL: return "real";
	case SK_BV:
		snprintf(buf, 8, "bv%u", SORT_WIDTH(s) & 0xff);
		return buf;
	}
	return "?";
}

sort_t sort_parse(const char *name)
{
	if (strcmp(name, "bool") == 0)
		return SORT_BOOL;
	if (strcmp(name, "real") == 0)
		return SORT_REAL;
	if (name[0] == 'b' && name[1] == 'v' && name[2] >= '1' && name[2] <= '9') {
		char *end;
		unsigned long w = strtoul(name + 2, &end, 10);
		if (*end == 0 && w >= 1 && w <= 64)
			return SORT_BV(w);
	}
	return 0;
}

/* ---- contexts and interning ---------------------------------------------- */

static atomic_uint next_cxid = 1;

struct ectx *ectx_new(void)
{
	struct ectx *cx = xcalloc(1, sizeof *cx);
	arena_init(&cx->arena);
	cx->cap = 1024;
	cx->tab = xcalloc(cx->cap, sizeof *cx->tab);
	cx->htab = xcalloc(cx->cap, sizeof *cx->htab);
	cx->cxid = atomic_fetch_add(&next_cxid, 1);
	return cx;
}

void ectx_free(struct ectx *cx)
{
	if (!cx)
		return;
	arena_release(&cx->arena);
	free(cx->tab);
	free(cx->htab);
	free(cx->sums);
	free(cx);
}

void ectx_set_float_mem(struct ectx *cx, bool (*fn)(uint32_t space, void *user), void *user)
{
	cx->float_mem = fn;
	cx->float_mem_user = user;
}

size_t ectx_count(const struct ectx *cx)
{
	return cx->count;
}

uint32_t ectx_id(const struct ectx *cx)
{
	return cx->cxid;
}

static inline uint64_t mix64(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static uint32_t node_hash(unsigned op, sort_t sort, unsigned et, uint32_t space,
                          uint64_t u, uint64_t off, unsigned n,
                          const struct expr *const *args)
{
	uint64_t h = mix64((uint64_t)op | (uint64_t)sort << 16 | (uint64_t)et << 32 |
	                   (uint64_t)n << 40, space);
	h = mix64(h, u);
	h = mix64(h, off);
	for (unsigned i = 0; i < n; i++)
		h = mix64(h, args[i]->id);
	return (uint32_t)(h ^ (h >> 32));
}

static bool node_equal(const struct expr *e, unsigned op, sort_t sort, unsigned et,
                       uint32_t space, uint64_t u, uint64_t off, unsigned n,
                       const struct expr *const *args)
{
	if (e->op != op || e->sort != sort || e->et != et || e->nargs != n ||
	    e->space != space || e->u != u || e->off != off)
		return false;
	for (unsigned i = 0; i < n; i++)
		if (e->args[i] != args[i])
			return false;
	return true;
}

static void grow(struct ectx *cx)
{
	size_t cap = cx->cap * 2;
	const struct expr **tab = xcalloc(cap, sizeof *tab);
	uint32_t *htab = xcalloc(cap, sizeof *htab);
	for (size_t i = 0; i < cx->cap; i++) {
		const struct expr *e = cx->tab[i];
		if (!e)
			continue;
		size_t j = cx->htab[i] & (cap - 1);
		while (tab[j])
			j = (j + 1) & (cap - 1);
		tab[j] = e;
		htab[j] = cx->htab[i];
	}
	free(cx->tab);
	free(cx->htab);
	cx->tab = tab;
	cx->htab = htab;
	cx->cap = cap;
}

static unsigned own_flags(unsigned op)
{
	switch (op) {
	case EOP_TID: case EOP_CTAID: return EXPR_F_THREAD;
	case EOP_ELEM: case EOP_INPUT: case EOP_LOAD: return EXPR_F_DATA;
	case EOP_UNDEF: return EXPR_F_UNDEF;
	case EOP_OPAQUE: return EXPR_F_OPAQUE | EXPR_F_DATA;
	}
	return 0;
}

const struct expr *x_intern(struct ectx *cx, enum eop op, sort_t sort, unsigned et,
                            uint32_t space, uint64_t u, uint64_t off,
                            unsigned n, const struct expr *const *args)
{
	if (n > E_MAX_ARGS)
		abort();
	uint32_t h = node_hash(op, sort, et, space, u, off, n, args);
	size_t j = h & (cx->cap - 1);
	for (const struct expr *e; (e = cx->tab[j]); j = (j + 1) & (cx->cap - 1))
		if (cx->htab[j] == h && node_equal(e, op, sort, et, space, u, off, n, args))
			return e;
	struct expr *e = arena_alloc(&cx->arena, sizeof *e + n * sizeof e->args[0]);
	e->op = (uint16_t)op;
	e->sort = sort;
	e->et = (uint8_t)et;
	e->nargs = (uint8_t)n;
	e->id = (uint32_t)cx->count;
	e->hash = h;
	e->space = space;
	e->cxid = cx->cxid;
	e->u = u;
	e->off = off;
	unsigned fl = own_flags(op);
	for (unsigned i = 0; i < n; i++) {
		e->args[i] = args[i];
		fl |= args[i]->flags;
	}
	e->flags = (uint8_t)fl;
	cx->tab[j] = e;
	cx->htab[j] = h;
	cx->count++;
	if (2 * cx->count > cx->cap)
		grow(cx);
	return e;
}

/* ---- leaves ---------------------------------------------------------------- */

const struct expr *e_bool(struct ectx *cx, bool v)
{
	return x_intern(cx, EOP_BOOL, SORT_BOOL, 0, 0, v, 0, 0, NULL);
}

const struct expr *e_bv(struct ectx *cx, uint64_t v, unsigned width)
{
	if (width < 1 || width > 64)
		abort();
	return x_intern(cx, EOP_BV, SORT_BV(width), 0, 0, v & bv_mask(width), 0, 0, NULL);
}

const struct expr *e_real(struct ectx *cx, double v)
{
	if (v == 0)
		v = 0.0;   /* no -0.0: the reals have one zero */
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	return x_intern(cx, EOP_REAL, SORT_REAL, 0, 0, u, 0, 0, NULL);
}

const struct expr *e_tid(struct ectx *cx, unsigned dim)
{
	if (dim > 2)
		abort();
	return x_intern(cx, EOP_TID, SORT_BV(32), 0, 0, dim, 0, 0, NULL);
}

const struct expr *e_ctaid(struct ectx *cx, unsigned dim)
{
	if (dim > 2)
		abort();
	return x_intern(cx, EOP_CTAID, SORT_BV(32), 0, 0, dim, 0, 0, NULL);
}

const struct expr *e_elem(struct ectx *cx, uint32_t space, uint64_t off, enum etype et)
{
	if (!etype_sort(et))
		abort();
	return x_intern(cx, EOP_ELEM, etype_sort(et), et, space, 0, off, 0, NULL);
}

const struct expr *e_input(struct ectx *cx, uint32_t input, uint64_t off, enum etype et)
{
	if (!etype_sort(et))
		abort();
	return x_intern(cx, EOP_INPUT, etype_sort(et), et, input, 0, off, 0, NULL);
}

const struct expr *e_load(struct ectx *cx, uint32_t space, enum etype et, const struct expr *addr)
{
	if (!etype_sort(et) || addr->sort != SORT_BV(64))
		abort();
	return x_intern(cx, EOP_LOAD, etype_sort(et), et, space, 0, 0, 1, &addr);
}

static bool sort_ok(sort_t s)
{
	switch (SORT_KIND(s)) {
	case SK_BOOL: case SK_REAL: return SORT_WIDTH(s) == 0;
	case SK_BV: return SORT_WIDTH(s) >= 1 && SORT_WIDTH(s) <= 64;
	}
	return false;
}

const struct expr *e_undef(struct ectx *cx, sort_t sort)
{
	if (!sort_ok(sort))
		abort();
	return x_intern(cx, EOP_UNDEF, sort, 0, 0, 0, 0, 0, NULL);
}

/* An undef with a reason tag (distinct tags give distinct nodes). */
const struct expr *e_undef_tag(struct ectx *cx, sort_t sort, uint64_t tag)
{
	if (!sort_ok(sort))
		abort();
	return x_intern(cx, EOP_UNDEF, sort, 0, 0, tag, 0, 0, NULL);
}

bool e_is_inf(const struct expr *e, int sign)
{
	if (!e || e->op != EOP_UNDEF || e->sort != SORT_REAL)
		return false;
	if (sign < 0)
		return e->u == E_UNDEF_NINF;
	if (sign > 0)
		return e->u == E_UNDEF_PINF;
	return e->u == E_UNDEF_NINF || e->u == E_UNDEF_PINF;
}

const struct expr *e_var(struct ectx *cx, uint64_t id, sort_t sort)
{
	if (!sort_ok(sort))
		abort();
	return x_intern(cx, EOP_VAR, sort, 0, 0, id, 0, 0, NULL);
}

/* ---- queries ---------------------------------------------------------------- */

bool e_is_const(const struct expr *e)
{
	return e->op == EOP_BOOL || e->op == EOP_BV || e->op == EOP_REAL;
}

bool e_is_true(const struct expr *e)
{
	return e->op == EOP_BOOL && e->u;
}

bool e_is_false(const struct expr *e)
{
	return e->op == EOP_BOOL && !e->u;
}

bool e_has_thread(const struct expr *e)
{
	return e->flags & EXPR_F_THREAD;
}

bool e_has_data(const struct expr *e)
{
	return e->flags & EXPR_F_DATA;
}

bool e_has_undef(const struct expr *e)
{
	return e->flags & EXPR_F_UNDEF;
}

bool e_has_opaque(const struct expr *e)
{
	return e->flags & EXPR_F_OPAQUE;
}

const struct expr *e_first_opaque(const struct expr *e)
{
	/* the flag leads the way: only subtrees that hold one are entered */
	while (e && (e->flags & EXPR_F_OPAQUE) && e->op != EOP_OPAQUE) {
		const struct expr *next = NULL;
		for (unsigned i = 0; i < e->nargs && !next; i++)
			if (e->args[i]->flags & EXPR_F_OPAQUE)
				next = e->args[i];
		e = next;
	}
	return e && e->op == EOP_OPAQUE ? e : NULL;
}

/* ---- id maps ------------------------------------------------------------------ */

void idmap_init(struct idmap *m)
{
	m->keys = m->kbuf;
	m->vals = m->vbuf;
	m->cap = 64;
	m->len = 0;
	memset(m->kbuf, 0, sizeof m->kbuf);
}

void idmap_free(struct idmap *m)
{
	if (m->keys != m->kbuf) {
		free(m->keys);
		free(m->vals);
	}
	m->keys = NULL;
	m->vals = NULL;
}

static inline size_t idhash(uint32_t id)
{
	return (size_t)(id * 0x9e3779b1u);
}

uint64_t *idmap_get(struct idmap *m, uint32_t id)
{
	size_t mask = m->cap - 1;
	for (size_t j = idhash(id) & mask; m->keys[j]; j = (j + 1) & mask)
		if (m->keys[j] == id + 1)
			return &m->vals[j];
	return NULL;
}

static void idmap_insert(uint32_t *keys, uint64_t *vals, size_t cap, uint32_t key, uint64_t v)
{
	size_t j = idhash(key - 1) & (cap - 1);
	while (keys[j] && keys[j] != key)
		j = (j + 1) & (cap - 1);
	keys[j] = key;
	vals[j] = v;
}

void idmap_put(struct idmap *m, uint32_t id, uint64_t v)
{
	if (2 * (m->len + 1) > m->cap) {
		size_t cap = m->cap * 2;
		uint32_t *k = xcalloc(cap, sizeof *k);
		uint64_t *vv = xmalloc(cap * sizeof *vv);
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i])
				idmap_insert(k, vv, cap, m->keys[i], m->vals[i]);
		if (m->keys != m->kbuf) {
			free(m->keys);
			free(m->vals);
		}
		m->keys = k;
		m->vals = vv;
		m->cap = cap;
	}
	size_t mask = m->cap - 1, j = idhash(id) & mask;
	while (m->keys[j] && m->keys[j] != id + 1)
		j = (j + 1) & mask;
	if (!m->keys[j])
		m->len++;
	m->keys[j] = id + 1;
	m->vals[j] = v;
}

/* ---- substitution ------------------------------------------------------------ */

/* Rebuilds a non-leaf node with new arguments through the constructors. */
static const struct expr *rebuild(struct ectx *cx, const struct expr *e,
                                  const struct expr *const *args)
{
	if (e->op == EOP_LOAD)
		return e_load(cx, e->space, (enum etype)e->et, args[0]);
	return e_op(cx, (enum eop)e->op, e->sort, e->u, e->nargs, args);
}

/* Post-order rebuild of the DAG below e.  Only nodes whose flags meet
 * `need` are entered (need 0: all).  Iterative: deep DAGs are fine. */
static const struct expr *subst_walk_memo(struct ectx *cx, const struct expr *e, e_leaf_fn fn,
                                          void *user, unsigned need, struct idmap *keep)
{
	if (need && !(e->flags & need))
		return e;
	struct idmap own, *mp = keep ? keep : &own;
	if (!keep)
		idmap_init(&own);
	VEC(const struct expr *) stack = { 0 };
	VEC_PUSH(stack, e);
	const struct expr *argbuf[E_MAX_ARGS];
	while (stack.len) {
		const struct expr *x = stack.items[stack.len - 1];
		if (idmap_get(mp, x->id)) {
			stack.len--;
			continue;
		}
		bool ready = true;
		for (unsigned i = 0; i < x->nargs; i++) {
			const struct expr *a = x->args[i];
			if ((need && !(a->flags & need)) || idmap_get(mp, a->id))
				continue;
			VEC_PUSH(stack, a);
			ready = false;
		}
		if (!ready)
			continue;
		stack.len--;
		const struct expr *r = x;
		if (x->nargs) {
			bool changed = false;
			for (unsigned i = 0; i < x->nargs; i++) {
				const struct expr *a = x->args[i];
				uint64_t *v = (need && !(a->flags & need)) ? NULL : idmap_get(mp, a->id);
				argbuf[i] = v ? (const struct expr *)(uintptr_t)*v : a;
				changed |= argbuf[i] != a;
			}
			if (changed)
				r = rebuild(cx, x, argbuf);
		}
		if ((x->nargs == 0 || x->op == EOP_LOAD) && fn) {
			const struct expr *y = fn(cx, r, user);
			if (y)
				r = y;
		}
		idmap_put(mp, x->id, (uint64_t)(uintptr_t)r);
	}
	const struct expr *res = (const struct expr *)(uintptr_t)*idmap_get(mp, e->id);
	VEC_FREE(stack);
	if (!keep)
		idmap_free(&own);
	return res;
}

static const struct expr *subst_walk(struct ectx *cx, const struct expr *e,
                                     e_leaf_fn fn, void *user, unsigned need)
{
	return subst_walk_memo(cx, e, fn, user, need, NULL);
}

struct e_subst_many {
	struct ectx *cx;
	e_leaf_fn fn;
	void *user;
	struct idmap memo;
};

struct e_subst_many *e_subst_many_new(struct ectx *cx, e_leaf_fn fn, void *user)
{
	struct e_subst_many *s = xcalloc(1, sizeof *s);
	s->cx = cx;
	s->fn = fn;
	s->user = user;
	idmap_init(&s->memo);
	return s;
}

const struct expr *e_subst_many(struct e_subst_many *s, const struct expr *e)
{
	return subst_walk_memo(s->cx, e, s->fn, s->user, EXPR_F_DATA, &s->memo);
}

void e_subst_many_free(struct e_subst_many *s)
{
	if (!s)
		return;
	idmap_free(&s->memo);
	free(s);
}

const struct expr *e_subst(struct ectx *cx, const struct expr *e, e_leaf_fn fn, void *user)
{
	return subst_walk(cx, e, fn, user, 0);
}

/*
 * Substitution of concrete coordinates.  A node below which only tid,
 * ctaid and integer constants appear (an address, a thread condition) is
 * an integer or a truth value once the coordinates are known: it is
 * computed here with the folding semantics of the constructors
 * (x_bv_fold) and never built, so that a loop's thousand addresses cost
 * one constant each rather than a node per operation.  Nodes above data
 * are rebuilt through the constructors, with those constants as
 * arguments, as e_subst would.
 */
struct tm_ent {
	const struct expr *e;              /* the node at the thread, NULL until asked */
	uint64_t v;                        /* its value, when concrete */
	bool concrete;
};

struct e_thread_memo {
	struct ectx *cx;
	uint32_t tid[3], ctaid[3];
	struct idmap memo;                 /* id -> index into ents */
	VEC(struct tm_ent) ents;
};

/* Ops computed on concrete arguments: bitvector, comparison and boolean
 * ops whose arguments are bitvectors or bools (no reals, no leaves). */
static bool tm_computable(const struct expr *x)
{
	unsigned k = SORT_KIND(x->sort);
	if (k != SK_BV && k != SK_BOOL)
		return false;
	switch (x->op) {
	case EOP_ADD: case EOP_SUB: case EOP_MUL: case EOP_NEG:
	case EOP_UDIV: case EOP_SDIV: case EOP_UREM: case EOP_SREM:
	case EOP_MULHI_U: case EOP_MULHI_S: case EOP_SHL: case EOP_LSHR: case EOP_ASHR:
	case EOP_AND: case EOP_OR: case EOP_XOR: case EOP_NOT:
	case EOP_UMIN: case EOP_UMAX: case EOP_SMIN: case EOP_SMAX:
	case EOP_ZEXT: case EOP_SEXT: case EOP_EXTRACT: case EOP_CONCAT:
	case EOP_POPC: case EOP_CLZ: case EOP_BREV:
	case EOP_ULT: case EOP_ULE: case EOP_SLT: case EOP_SLE:
		return true;
	case EOP_EQ:
		return SORT_KIND(x->args[0]->sort) == SK_BV;
	case EOP_LAND: case EOP_LOR: case EOP_LNOT: case EOP_ITE: case EOP_BOOL2BV:
		return true;
	}
	return false;
}

struct e_thread_memo *e_thread_memo_new(struct ectx *cx, const uint32_t tid[3], const uint32_t ctaid[3])
{
	struct e_thread_memo *m = xcalloc(1, sizeof *m);
	m->cx = cx;
	memcpy(m->tid, tid, sizeof m->tid);
	memcpy(m->ctaid, ctaid, sizeof m->ctaid);
	idmap_init(&m->memo);
	return m;
}

bool e_thread_memo_is(const struct e_thread_memo *m, const uint32_t tid[3], const uint32_t ctaid[3])
{
	return !memcmp(m->tid, tid, sizeof m->tid) && !memcmp(m->ctaid, ctaid, sizeof m->ctaid);
}

size_t e_thread_memo_size(const struct e_thread_memo *m)
{
	return m->ents.len;
}

void e_thread_memo_free(struct e_thread_memo *m)
{
	if (!m)
		return;
	idmap_free(&m->memo);
	VEC_FREE(m->ents);
	free(m);
}

/* The node of entry i, made from its value on first use. */
static const struct expr *tm_expr(struct e_thread_memo *m, size_t i, sort_t sort)
{
	struct tm_ent *t = &m->ents.items[i];
	if (!t->e)
		t->e = SORT_KIND(sort) == SK_BOOL ? e_bool(m->cx, t->v) : e_bv(m->cx, t->v, SORT_WIDTH(sort));
	return t->e;
}

/* Argument a of a node being computed: its value if concrete. */
static bool tm_arg_value(struct e_thread_memo *m, const struct expr *a, uint64_t *v)
{
	if (!(a->flags & EXPR_F_THREAD)) {
		if (a->op != EOP_BV && a->op != EOP_BOOL)
			return false;
		*v = a->u;
		return true;
	}
	const struct tm_ent *t = &m->ents.items[*idmap_get(&m->memo, a->id)];
	*v = t->v;
	return t->concrete;
}

/* x's value from concrete arguments v (their widths aw); false when x is
 * not computed that way. */
static bool tm_compute(const struct expr *x, const uint64_t *v, const unsigned *aw, uint64_t *out)
{
	switch (x->op) {
	case EOP_LAND:
		*out = 1;
		for (unsigned i = 0; i < x->nargs; i++)
			*out &= v[i] != 0;
		return true;
	case EOP_LOR:
		*out = 0;
		for (unsigned i = 0; i < x->nargs; i++)
			*out |= v[i] != 0;
		return true;
	case EOP_LNOT:
		*out = !v[0];
		return true;
	case EOP_ITE:
		*out = v[0] ? v[1] : v[2];
		return true;
	case EOP_BOOL2BV:
		*out = v[0] != 0;
		return true;
	}
	unsigned w = SORT_WIDTH(x->sort);
	switch (x->op) {
	case EOP_EQ: case EOP_ULT: case EOP_ULE: case EOP_SLT: case EOP_SLE:
		w = aw[0];                 /* comparisons: the argument width */
		break;
	}
	return x_bv_fold((enum eop)x->op, w, x->u, x->nargs, v, aw, out);
}

const struct expr *e_thread_memo_at(struct e_thread_memo *m, const struct expr *e)
{
	if (!(e->flags & EXPR_F_THREAD))
		return e;
	uint64_t *hit = idmap_get(&m->memo, e->id);
	if (hit)
		return tm_expr(m, *hit, e->sort);
	VEC(const struct expr *) stack = { 0 };
	VEC_PUSH(stack, e);
	const struct expr *argbuf[E_MAX_ARGS];
	uint64_t vbuf[E_MAX_ARGS];
	unsigned wbuf[E_MAX_ARGS];
	while (stack.len) {
		const struct expr *x = stack.items[stack.len - 1];
		if (idmap_get(&m->memo, x->id)) {
			stack.len--;
			continue;
		}
		bool ready = true;
		for (unsigned i = 0; i < x->nargs; i++) {
			const struct expr *a = x->args[i];
			if (!(a->flags & EXPR_F_THREAD) || idmap_get(&m->memo, a->id))
				continue;
			VEC_PUSH(stack, a);
			ready = false;
		}
		if (!ready)
			continue;
		stack.len--;
		struct tm_ent t = { NULL, 0, false };
		if (x->op == EOP_TID || x->op == EOP_CTAID) {
			t.v = (x->op == EOP_TID ? m->tid : m->ctaid)[x->u < 3 ? x->u : 0];
			t.concrete = x->u < 3;
			if (!t.concrete)
				t.e = x;
		} else {
			bool all = tm_computable(x);
			for (unsigned i = 0; all && i < x->nargs; i++) {
				all = tm_arg_value(m, x->args[i], &vbuf[i]);
				wbuf[i] = SORT_WIDTH(x->args[i]->sort);
			}
			if (all && tm_compute(x, vbuf, wbuf, &t.v)) {
				t.concrete = true;
				if (SORT_KIND(x->sort) == SK_BV)
					t.v &= bv_mask(SORT_WIDTH(x->sort));
			} else {
				bool changed = false;
				for (unsigned i = 0; i < x->nargs; i++) {
					const struct expr *a = x->args[i];
					argbuf[i] = (a->flags & EXPR_F_THREAD) ?
					            tm_expr(m, *idmap_get(&m->memo, a->id), a->sort) : a;
					changed |= argbuf[i] != a;
				}
				t.e = changed ? rebuild(m->cx, x, argbuf) : x;
			}
		}
		VEC_PUSH(m->ents, t);
		idmap_put(&m->memo, x->id, m->ents.len - 1);
	}
	VEC_FREE(stack);
	return tm_expr(m, *idmap_get(&m->memo, e->id), e->sort);
}

const struct expr *e_at_thread(struct ectx *cx, const struct expr *e,
                               const uint32_t tid[3], const uint32_t ctaid[3])
{
	if (!(e->flags & EXPR_F_THREAD))
		return e;
	struct e_thread_memo *m = e_thread_memo_new(cx, tid, ctaid);
	const struct expr *r = e_thread_memo_at(m, e);
	e_thread_memo_free(m);
	return r;
}

/* ---- node tables --------------------------------------------------------------- */

struct etable {
	VEC(const struct expr *) nodes;
	struct idmap index;
	uint32_t cxid;
};

struct etable *etable_new(void)
{
	struct etable *t = xcalloc(1, sizeof *t);
	idmap_init(&t->index);
	return t;
}

void etable_free(struct etable *t)
{
	if (!t)
		return;
	VEC_FREE(t->nodes);
	idmap_free(&t->index);
	free(t);
}

uint32_t etable_add(struct etable *t, const struct expr *e)
{
	/* One table holds nodes of one context (ids are per context). */
	if (t->nodes.len == 0)
		t->cxid = e->cxid;
	else if (t->cxid != e->cxid)
		abort();
	uint64_t *v = idmap_get(&t->index, e->id);
	if (v)
		return (uint32_t)*v;
	VEC(const struct expr *) stack = { 0 };
	VEC_PUSH(stack, e);
	while (stack.len) {
		const struct expr *x = stack.items[stack.len - 1];
		if (idmap_get(&t->index, x->id)) {
			stack.len--;
			continue;
		}
		bool ready = true;
		/* Push in reverse so that children are numbered left to right. */
		for (unsigned i = x->nargs; i-- > 0;) {
			if (!idmap_get(&t->index, x->args[i]->id)) {
				VEC_PUSH(stack, x->args[i]);
				ready = false;
			}
		}
		if (!ready)
			continue;
		stack.len--;
		idmap_put(&t->index, x->id, t->nodes.len);
		VEC_PUSH(t->nodes, x);
	}
	VEC_FREE(stack);
	return (uint32_t)*idmap_get(&t->index, e->id);
}

uint32_t etable_len(const struct etable *t)
{
	return (uint32_t)t->nodes.len;
}

const struct expr *etable_get(const struct etable *t, uint32_t i)
{
	return i < t->nodes.len ? t->nodes.items[i] : NULL;
}

uint32_t etable_index(const struct etable *t, const struct expr *e)
{
	if (t->nodes.len == 0 || e->cxid != t->cxid)
		return UINT32_MAX;
	uint64_t *v = idmap_get((struct idmap *)&t->index, e->id);
	return v ? (uint32_t)*v : UINT32_MAX;
}
