/*
 * resolve-slice.c: the slice of a program that one location needs (see
 * slice.h): needed byte ranges per value, walked backwards from the
 * location; blocks per launch by inverting its stores (resolve-inv.c);
 * elements per torch op by tracing its formulas (engine/ops).
 */
#include "engine/slice.h"
#include "engine/resolve-impl.h"
#include "engine/ops/ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENUM 16384               /* search nodes per inversion, as resolve.c */
#define MAX_INV_SPAN (1u << 24)      /* strided op results larger than this run whole */
#define RANGES_COMPACT (1u << 20)    /* ranges gathered per value before merging */

typedef VEC(struct slice_range) rvec;

struct plan {
	const struct sym_state *st;
	const struct obligation *o;
	uint32_t prog;
	struct slice_limits lim;
	rvec *need;                      /* per value, unsorted until merged */
	bool *processed;                 /* per value: its event was planned */
	VEC(uint32_t) *defs;             /* per launch: the values it defines */
	struct replay_slice *out;
	char *why;
	size_t whylen;
	bool failed;
};

static bool plan_fail(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool plan_fail(struct plan *p, const char *fmt, ...)
{
	if (!p->failed && p->why && p->whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->why, p->whylen, fmt, ap);
		va_end(ap);
	}
	p->failed = true;
	return false;
}

/* ---- needed ranges ----------------------------------------------------------- */

static int range_cmp(const void *a, const void *b)
{
	const struct slice_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorts and merges the ranges of v (overlapping or adjacent ones). */
static void merge(rvec *r)
{
	if (r->len < 2)
		return;
	qsort(r->items, r->len, sizeof *r->items, range_cmp);
	size_t k = 0;
	for (size_t i = 1; i < r->len; i++) {
		if (r->items[i].lo <= r->items[k].hi) {
			if (r->items[i].hi > r->items[k].hi)
				r->items[k].hi = r->items[i].hi;
		} else {
			r->items[++k] = r->items[i];
		}
	}
	r->len = k + 1;
}

/* Bytes [lo, hi) of value v are needed (clipped to the value). */
static bool need_add(struct plan *p, uint32_t v, uint64_t lo, uint64_t hi)
{
	if (v >= p->o->values.len || p->o->values.items[v].prog != p->prog)
		return plan_fail(p, "value %u is not a value of program %u", v, p->prog);
	uint64_t bytes = p->o->values.items[v].bytes;
	if (hi > bytes)
		hi = bytes;
	if (lo >= hi)
		return true;
	if (p->processed[v])
		return plan_fail(p, "value %u is read after the event that defines it was planned "
		                 "(values out of program order)", v);
	rvec *r = &p->need[v];
	if (r->len && r->items[r->len - 1].hi >= lo && r->items[r->len - 1].lo <= lo) {
		if (hi > r->items[r->len - 1].hi)
			r->items[r->len - 1].hi = hi;
		return true;
	}
	struct slice_range x = { lo, hi };
	VEC_PUSH(*r, x);
	if (r->len >= RANGES_COMPACT && r->len % RANGES_COMPACT == 0)
		merge(r);
	return true;
}

static bool need_all(struct plan *p, uint32_t v)
{
	return need_add(p, v, 0, UINT64_MAX);
}

/* The needed bytes of 'from' that lie outside [lo, hi), for value 'to'
 * (the version before: bytes an event does not write). */
static bool need_outside(struct plan *p, uint32_t to, uint32_t from, uint64_t lo, uint64_t hi)
{
	const rvec *r = &p->need[from];
	for (size_t i = 0; i < r->len; i++) {
		struct slice_range x = r->items[i];
		if (x.lo < lo && !need_add(p, to, x.lo, x.hi < lo ? x.hi : lo))
			return false;
		if (x.hi > hi && !need_add(p, to, x.lo > hi ? x.lo : hi, x.hi))
			return false;
	}
	return true;
}

/* ---- launches ---------------------------------------------------------------- */

struct blockset {
	uint64_t *keys;                  /* linear ctaid + 1; 0: empty */
	size_t cap, len;
};

static void bs_add(struct blockset *s, uint64_t key)
{
	if (2 * (s->len + 1) > s->cap) {
		size_t ocap = s->cap;
		uint64_t *old = s->keys;
		s->cap = ocap ? ocap * 2 : 64;
		s->keys = xcalloc(s->cap, sizeof *s->keys);
		s->len = 0;
		for (size_t i = 0; i < ocap; i++)
			if (old[i])
				bs_add(s, old[i] - 1);
		free(old);
	}
	uint64_t k = key + 1;
	size_t m = s->cap - 1, i = (size_t)((k * 0x9e3779b97f4a7c15ull) >> 17) & m;
	while (s->keys[i] && s->keys[i] != k)
		i = (i + 1) & m;
	if (!s->keys[i]) {
		s->keys[i] = k;
		s->len++;
	}
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int64_t gcd64(int64_t a, int64_t b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

struct lplan {
	struct plan *p;
	uint32_t l;
	const struct obl_launch *ln;
	uint64_t n[6];                   /* ntid, nctaid */
	struct smt_geom g;
	struct blockset blocks;
	uint64_t inversions, evals;
	const char *whole;               /* why the launch runs whole, or NULL */
	char whybuf[200];
};

static void lp_whole(struct lplan *lp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lp_whole(struct lplan *lp, const char *fmt, ...)
{
	if (lp->whole)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(lp->whybuf, sizeof lp->whybuf, fmt, ap);
	va_end(ap);
	lp->whole = lp->whybuf;
}

/* The blocks whose threads perform write w (of value u) at a needed byte
 * of u: added to lp->blocks, or lp->whole set. */
static void writers(struct lplan *lp, const struct sym_write *w, uint32_t u)
{
	struct plan *p = lp->p;
	struct ectx *cx = p->st->cx;
	struct lin lin;
	if (!lin_of_addr(w->addr, lp->n, &lin)) {
		lp_whole(lp, "a store address of launch %u (PTX line %u) is not affine in the thread "
		         "coordinates", lp->l, w->line);
		return;
	}
	const struct expr *dom_t, *dom_d;
	split_dom(cx, w->dom, &dom_t, &dom_d);
	unsigned ws = etype_size(w->et);
	/* every address is c0 + a multiple of g */
	int64_t g = 0;
	for (int i = 0; i < 6; i++)
		if (lp->n[i] > 1)
			g = gcd64(g, lin.c[i]);
	if (!g)
		g = INT64_C(1) << 62;            /* one address for every thread */
	__int128 res = (__int128)lin.c0 % g;
	if (res < 0)
		res += g;
	uint32_t max = p->lim.max_writers;
	uint32_t (*tids)[3] = xcalloc(max, sizeof *tids), (*ctaids)[3] = xcalloc(max, sizeof *ctaids);
	const rvec *r = &p->need[u];
	for (size_t i = 0; i < r->len && !lp->whole; i++) {
		uint64_t lo = r->items[i].lo >= ws - 1 ? r->items[i].lo - (ws - 1) : 0, hi = r->items[i].hi;
		/* the first address >= lo that some thread may store to */
		__int128 first = (__int128)lo + ((res - (__int128)(lo % (uint64_t)g) + g) % g);
		if (first >= (__int128)hi)
			continue;
		for (uint64_t a = (uint64_t)first; a < hi && !lp->whole; a += (uint64_t)g) {
			if (++lp->inversions > p->lim.max_inversions) {
				lp_whole(lp, "more than %llu store inversions in launch %u",
				         (unsigned long long)p->lim.max_inversions, lp->l);
				break;
			}
			struct inv_query q = {
				.cx = cx, .smt = NULL, .geom = &lp->g, .n = lp->n, .addr = w->addr,
				.dom_t = dom_t, .lin = &lin, .wsize = ws, .rsize = ws, .same_kind = true,
				.off = a, .max_enum = MAX_ENUM, .launch = lp->l,
			};
			struct resolve_info acc;
			memset(&acc, 0, sizeof acc);
			int k = invert_write(&q, tids, ctaids, (int)max, &acc);
			if (k < 0) {
				lp_whole(lp, "%s", acc.reason[0] ? acc.reason : "a store cannot be inverted");
				break;
			}
			if ((uint32_t)k >= max) {
				lp_whole(lp, "%u or more threads of launch %u store to byte %llu", max, lp->l,
				         (unsigned long long)a);
				break;
			}
			for (int j = 0; j < k; j++)
				bs_add(&lp->blocks, ctaids[j][0] + lp->n[3] * (ctaids[j][1] + lp->n[4] * (uint64_t)ctaids[j][2]));
			if ((uint64_t)g > UINT64_MAX - a)
				break;
		}
	}
	free(tids);
	free(ctaids);
}

int slice_store_hits(const struct sym_state *st, uint32_t l, const struct sym_write *w, uint64_t off)
{
	if (l >= st->obl.launches.len)
		return -1;
	struct smt_geom g;
	uint64_t n[6];
	resolver_geom(&st->obl.launches.items[l], &g);
	for (int d = 0; d < 3; d++) {
		n[d] = g.ntid[d];
		n[3 + d] = g.nctaid[d];
	}
	struct lin lin;
	if (!lin_of_addr(w->addr, n, &lin))
		return -1;
	const struct expr *dom_t, *dom_d;
	split_dom(st->cx, w->dom, &dom_t, &dom_d);
	unsigned ws = etype_size(w->et);
	for (uint64_t a = off >= ws - 1 ? off - (ws - 1) : 0; a <= off; a++) {
		struct inv_query q = {
			.cx = st->cx, .smt = NULL, .geom = &g, .n = n, .addr = w->addr, .dom_t = dom_t,
			.lin = &lin, .wsize = ws, .rsize = ws, .same_kind = true, .off = a,
			.max_enum = MAX_ENUM, .launch = l,
		};
		uint32_t tid[1][3], ctaid[1][3];
		struct resolve_info acc;
		memset(&acc, 0, sizeof acc);
		int k = invert_write(&q, tid, ctaid, 1, &acc);
		if (k < 0)
			return -1;
		if (k > 0)
			return 1;
	}
	return 0;
}

/* ---- leaves of a launch's write set -------------------------------------------- */

struct leaves {
	VEC(const struct expr *) list;
	uint32_t *seen;                  /* open-addressed set of node ids + 1 */
	size_t cap, len;
};

static bool seen_add(struct leaves *L, uint32_t id)
{
	if (2 * (L->len + 1) > L->cap) {
		size_t ocap = L->cap;
		uint32_t *old = L->seen;
		L->cap = ocap ? ocap * 2 : 1024;
		L->seen = xcalloc(L->cap, sizeof *L->seen);
		L->len = 0;
		for (size_t i = 0; i < ocap; i++)
			if (old[i])
				seen_add(L, old[i] - 1);
		free(old);
	}
	uint32_t k = id + 1;
	size_t m = L->cap - 1, i = (size_t)(k * 2654435761u) & m;
	while (L->seen[i]) {
		if (L->seen[i] == k)
			return false;
		i = (i + 1) & m;
	}
	L->seen[i] = k;
	L->len++;
	return true;
}

/* Every LOAD (of global memory) and ELEM node below e, once. */
static void collect(struct leaves *L, const struct expr *e)
{
	if (!e || !(e->flags & EXPR_F_DATA) || !seen_add(L, e->id))
		return;
	if ((e->op == EOP_LOAD && !SYM_IS_SHARED_SPACE(e->space)) || e->op == EOP_ELEM)
		VEC_PUSH(L->list, e);
	for (unsigned i = 0; i < e->nargs; i++)
		collect(L, e->args[i]);
}

static void collect_writes(struct leaves *L, const struct sym_write *w, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		collect(L, w[i].dom);
		collect(L, w[i].addr);
		collect(L, w[i].val);
		collect(L, w[i].cmp);
	}
}

static void collect_shared(struct leaves *L, const struct sym_shwrite *w, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		collect(L, w[i].dom);
		collect(L, w[i].addr);
		collect(L, w[i].val);
		collect(L, w[i].cmp);
	}
}

static bool coord_val(const struct expr *leaf, struct evalue *out, void *user)
{
	const uint32_t *x = user;
	if ((leaf->op != EOP_TID && leaf->op != EOP_CTAID) || leaf->u > 2)
		return false;
	memset(out, 0, sizeof *out);
	out->u = x[(leaf->op == EOP_CTAID ? 3 : 0) + leaf->u];
	return true;
}

/* The bytes a load leaf may read over the threads of block b (b NULL:
 * every block), added to the needs of the value it reads. */
static bool leaf_needs(struct lplan *lp, const struct expr *e, const uint32_t *b)
{
	struct plan *p = lp->p;
	uint32_t v = e->space;
	unsigned size = etype_size((enum etype)e->et);
	if (e->op == EOP_ELEM)
		return need_add(p, v, e->off, e->off + size);
	const struct expr *addr = e->args[0];
	if (addr->flags & (EXPR_F_DATA | EXPR_F_UNDEF))
		return need_all(p, v);
	struct lin lin;
	uint64_t nthreads = lp->n[0] * lp->n[1] * lp->n[2];
	if (lin_of_addr(addr, lp->n, &lin)) {
		__int128 lo = lin.c0, hi = lin.c0;
		for (int i = 0; i < 6; i++) {
			bool fixed = b && i >= 3;
			__int128 span = fixed ? 0 : (__int128)lin.c[i] * (__int128)(lp->n[i] - 1);
			if (fixed) {
				lo += (__int128)lin.c[i] * b[i - 3];
				hi += (__int128)lin.c[i] * b[i - 3];
			} else if (span < 0) {
				lo += span;
			} else {
				hi += span;
			}
		}
		if (hi < 0)
			return true;
		if (lo < 0)
			lo = 0;
		__int128 hull = hi - lo + size;
		if (!b || hull <= (__int128)(2 * nthreads * size + 64))
			return need_add(p, v, (uint64_t)lo, hi + size > (__int128)UINT64_MAX ? UINT64_MAX
			                                                : (uint64_t)(hi + size));
	} else if (!b) {
		return need_all(p, v);
	}
	/* every thread of the block: the affine form, else the expression */
	bool affine = lin_of_addr(addr, lp->n, &lin);
	if ((lp->evals += nthreads) > p->lim.max_evals)
		return need_all(p, v);
	uint32_t x[6] = { 0, 0, 0, b[0], b[1], b[2] };
	for (x[2] = 0; x[2] < lp->n[2]; x[2]++)
		for (x[1] = 0; x[1] < lp->n[1]; x[1]++)
			for (x[0] = 0; x[0] < lp->n[0]; x[0]++) {
				uint64_t at;
				if (affine) {
					__int128 a = lin.c0;
					for (int i = 0; i < 6; i++)
						a += (__int128)lin.c[i] * x[i];
					if (a < 0 || a > (__int128)(UINT64_MAX - size))
						continue;
					at = (uint64_t)a;
				} else {
					struct evalue a;
					if (!e_eval(addr, EM_EXACT, coord_val, x, &a) || a.undef)
						return need_all(p, v);
					if (a.u > UINT64_MAX - size)
						continue;
					at = a.u;
				}
				if (!need_add(p, v, at, at + size))
					return false;
			}
	return true;
}

/* The needs of launch l's blocks: what they read, and (when a store's
 * guard fails) what the versions before held. */
static bool plan_launch(struct plan *p, uint32_t l)
{
	const struct obligation *o = p->o;
	const struct obl_launch *ln = &o->launches.items[l];
	const uint32_t *defs = p->defs[l].items;
	size_t ndefs = p->defs[l].len;
	struct slice_launch *sl = &p->out->launch[l];
	bool any = false;
	for (size_t i = 0; i < ndefs; i++) {
		p->processed[defs[i]] = true;
		merge(&p->need[defs[i]]);
		any = any || p->need[defs[i]].len;
	}
	sl->mode = SM_SKIP;
	if (!any)
		return true;
	struct lplan lp;
	memset(&lp, 0, sizeof lp);
	lp.p = p;
	lp.l = l;
	lp.ln = ln;
	resolver_geom(ln, &lp.g);
	for (int d = 0; d < 3; d++) {
		lp.n[d] = lp.g.ntid[d];
		lp.n[3 + d] = lp.g.nctaid[d];
	}
	uint64_t nblocks = lp.n[3] * lp.n[4] * lp.n[5];
	const struct sym_writes *ws = p->st->by_launch ? p->st->by_launch[l] : NULL;
	if (p->st->launch_unsupported && p->st->launch_unsupported[l])
		lp_whole(&lp, "launch %u has no write set: %s", l, p->st->launch_unsupported[l]);
	else if (!ws)
		lp_whole(&lp, "launch %u has no write set", l);
	for (size_t i = 0; i < ndefs && !lp.whole; i++) {
		uint32_t u = defs[i];
		if (!p->need[u].len)
			continue;
		for (uint32_t k = 0; k < ws->nwrites && !lp.whole; k++)
			if (ws->writes[k].value == u)
				writers(&lp, &ws->writes[k], u);
		for (uint32_t k = 0; k < ws->natomics && !lp.whole; k++)
			if (ws->atomics[k].value == u)
				writers(&lp, &ws->atomics[k], u);
	}
	bool ok = true;
	/* what the blocks read */
	if (lp.whole && !ws) {
		for (uint32_t i = 0; ok && i < ln->nargs; i++)
			if (ln->args[i].is_ptr)
				ok = need_all(p, ln->args[i].vin);
	} else if (lp.whole || lp.blocks.len) {
		struct leaves L;
		memset(&L, 0, sizeof L);
		collect_writes(&L, ws->writes, ws->nwrites);
		collect_writes(&L, ws->atomics, ws->natomics);
		collect_shared(&L, ws->shared, ws->nshared);
		collect_shared(&L, ws->shatomics, ws->nshatomics);
		uint64_t *keys = NULL;
		size_t nk = 0;
		if (!lp.whole) {
			keys = xcalloc(lp.blocks.len + 1, sizeof *keys);
			for (size_t i = 0; i < lp.blocks.cap; i++)
				if (lp.blocks.keys[i])
					keys[nk++] = lp.blocks.keys[i] - 1;
			qsort(keys, nk, sizeof *keys, u64_cmp);
		}
		if (!lp.whole && nk == nblocks)
			lp.whole = "every block writes a needed byte";
		for (size_t i = 0; ok && i < L.list.len; i++) {
			if (lp.whole) {
				ok = leaf_needs(&lp, L.list.items[i], NULL);
				continue;
			}
			for (size_t j = 0; ok && j < nk; j++) {
				uint32_t b[3] = { (uint32_t)(keys[j] % lp.n[3]), (uint32_t)(keys[j] / lp.n[3] % lp.n[4]),
				                  (uint32_t)(keys[j] / lp.n[3] / lp.n[4]) };
				ok = leaf_needs(&lp, L.list.items[i], b);
			}
		}
		if (!lp.whole && nk) {
			sl->mode = SM_PART;
			sl->nblocks = (uint32_t)nk;
			sl->blocks = arena_alloc(&p->out->arena, nk * sizeof *sl->blocks);
			for (size_t j = 0; j < nk; j++) {
				sl->blocks[j][0] = (uint32_t)(keys[j] % lp.n[3]);
				sl->blocks[j][1] = (uint32_t)(keys[j] / lp.n[3] % lp.n[4]);
				sl->blocks[j][2] = (uint32_t)(keys[j] / lp.n[3] / lp.n[4]);
			}
		}
		free(keys);
		VEC_FREE(L.list);
		free(L.seen);
	}
	if (lp.whole)
		sl->mode = SM_WHOLE;
	/* buffers of module symbols the launch is given */
	for (uint32_t i = 0; ok && sl->mode != SM_SKIP && i < ln->nsyms; i++)
		ok = need_all(p, ln->syms[i].vin);
	/* a store whose guard fails leaves what was there */
	for (size_t i = 0; ok && i < ndefs; i++) {
		uint32_t prev = o->values.items[defs[i]].prev;
		if (prev != NO_VALUE)
			ok = need_outside(p, prev, defs[i], 0, 0);
	}
	if (sl->mode != SM_SKIP) {
		p->out->launches++;
		p->out->blocks += sl->mode == SM_PART ? sl->nblocks : nblocks;
		p->out->blocks_all += nblocks;
	}
	free(lp.blocks.keys);
	return ok;
}

/* ---- torch ops ----------------------------------------------------------------- */

struct trace {
	struct plan *p;
	const struct obl_op *op;
	const struct op_inst *in;
	uint64_t reads;
	bool data_dep;                   /* an index read: which elements depends on data */
	bool failed;
};

static void trace_read(struct trace *t, unsigned k, uint64_t flat)
{
	const struct obl_view *w = k < t->in->nin ? obl_op_view(t->op, t->in->in_tensor[k]) : NULL;
	if (!w || flat >= obl_view_numel(w))
		return;
	t->reads++;
	uint64_t es = etype_size(w->dtype), at = obl_view_elem(w, flat) * es;
	if (!need_add(t->p, w->value, at, at + es))
		t->failed = true;
}

static long double trace_val(void *user, unsigned k, uint64_t flat)
{
	trace_read(user, k, flat);
	return 1;
}

static int64_t trace_int(void *user, unsigned k, uint64_t flat)
{
	struct trace *t = user;
	trace_read(t, k, flat);
	t->data_dep = true;
	return 0;
}

/* The elements of result view w (of value u) that hold needed bytes,
 * ascending, in *flat (heap); false when they cannot be told. */
static bool result_flats(struct plan *p, uint32_t u, const struct obl_view *w, uint64_t **flat,
                         uint64_t *nflat)
{
	const rvec *r = &p->need[u];
	uint64_t es = etype_size(w->dtype), numel = obl_view_numel(w), off = (uint64_t)w->offset;
	VEC(uint64_t) f = { 0 };
	if (obl_view_contiguous(w)) {
		for (size_t i = 0; i < r->len; i++) {
			uint64_t e0 = r->items[i].lo / es, e1 = (r->items[i].hi + es - 1) / es;
			for (uint64_t e = e0 > off ? e0 : off; e < e1 && e - off < numel; e++) {
				if (f.len > p->lim.max_op_reads) {
					VEC_FREE(f);
					return false;
				}
				VEC_PUSH(f, e - off);
			}
		}
	} else {
		uint64_t ext = obl_view_extent(w);
		if (numel > MAX_INV_SPAN || ext - off > MAX_INV_SPAN)
			return false;
		/* the flats whose element overlaps a needed range */
		for (uint64_t x = 0; x < numel; x++) {
			uint64_t at = obl_view_elem(w, x) * es;
			size_t lo = 0, hi = r->len;
			while (lo < hi) {            /* first range ending after at */
				size_t mid = (lo + hi) / 2;
				if (r->items[mid].hi <= at)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < r->len && r->items[lo].lo < at + es)
				VEC_PUSH(f, x);
		}
	}
	*flat = f.items;
	*nflat = f.len;
	return true;
}

/* The needs of op k: the operand elements its needed result elements read. */
static bool plan_op(struct plan *p, uint32_t k)
{
	const struct obligation *o = p->o;
	const struct obl_op *op = &o->ops.items[k];
	struct slice_op *so = &p->out->op[k];
	uint32_t nres = op->call.nouts + op->call.nmuts;
	uint32_t vals[OP_MAX_RESULTS];
	bool any = false;
	if (nres > OP_MAX_RESULTS)
		return plan_fail(p, "torch op %u '%s' has %u results", k, op->call.op, nres);
	for (uint32_t res = 0; res < nres; res++) {
		const struct obl_view *w = obl_op_view(op, obl_op_result(op, res));
		vals[res] = NO_VALUE;
		if (!w || w->value >= o->values.len)
			continue;
		const struct obl_value *v = &o->values.items[w->value];
		if (v->def != VD_OP || v->op != k || v->result != res)
			continue;
		vals[res] = w->value;
		p->processed[w->value] = true;
		merge(&p->need[w->value]);
		any = any || p->need[w->value].len;
	}
	so->mode = SM_SKIP;
	if (!any)
		return true;
	if (op->unsupported)
		return plan_fail(p, "torch op %u '%s' is unsupported: %s", k, op->call.op, op->unsupported);
	struct op_inst in;
	char err[256];
	if (!op_bind(&op->call, obl_op_shape, (void *)op, &p->out->arena, &in, err, sizeof err))
		return plan_fail(p, "torch op %u: %s", k, err);
	struct trace t = { p, op, &in, 0, false, false };
	struct op_leaves lv = { NULL, trace_val, trace_int, &t };
	bool whole = false, ok = true;
	uint64_t elems = 0, elems_all = 0;
	so->mode = SM_PART;
	for (uint32_t res = 0; res < nres && !whole; res++) {
		if (vals[res] == NO_VALUE)
			continue;
		const struct obl_view *w = obl_op_view(op, obl_op_result(op, res));
		elems_all += obl_view_numel(w);
		if (!p->need[vals[res]].len)
			continue;
		if (!result_flats(p, vals[res], w, &so->flat[res], &so->nflat[res])) {
			whole = true;
			break;
		}
		/* the list lives in the plan's arena */
		uint64_t *heap = so->flat[res];
		so->flat[res] = arena_alloc(&p->out->arena, so->nflat[res] * sizeof *heap + 1);
		if (so->nflat[res])
			memcpy(so->flat[res], heap, so->nflat[res] * sizeof *heap);
		free(heap);
		enum emode mode = w->dtype == ET_F64 ? EM_F64 : EM_F32;
		for (uint64_t i = 0; i < so->nflat[res] && !whole; i++) {
			long double x;
			op_elem_value(&in, res, so->flat[res][i], mode, &lv, &x);
			if (t.failed)
				return false;
			if (t.data_dep || t.reads > p->lim.max_op_reads)
				whole = true;
		}
		elems += so->nflat[res];
	}
	if (whole) {
		/* every element, and the whole of every operand */
		so->mode = SM_WHOLE;
		elems = elems_all = 0;
		for (uint32_t res = 0; res < nres; res++)
			if (vals[res] != NO_VALUE)
				elems += obl_view_numel(obl_op_view(op, obl_op_result(op, res)));
		elems_all = elems;
		for (unsigned i = 0; ok && i < in.nin; i++) {
			const struct obl_view *w = obl_op_view(op, in.in_tensor[i]);
			if (w) {
				uint64_t es = etype_size(w->dtype);
				ok = need_add(p, w->value, (uint64_t)w->offset * es, obl_view_extent(w) * es);
			}
		}
	}
	/* bytes of the results' buffers outside their views are the versions before */
	for (uint32_t res = 0; ok && res < nres; res++) {
		if (vals[res] == NO_VALUE)
			continue;
		const struct obl_value *v = &o->values.items[vals[res]];
		const struct obl_view *w = obl_op_view(op, obl_op_result(op, res));
		if (v->prev == NO_VALUE)
			continue;
		uint64_t es = etype_size(w->dtype);
		if (obl_view_contiguous(w))
			ok = need_outside(p, v->prev, vals[res], (uint64_t)w->offset * es, obl_view_extent(w) * es);
		else
			ok = need_outside(p, v->prev, vals[res], 0, 0);
	}
	p->out->ops++;
	p->out->elems += elems;
	p->out->elems_all += elems_all;
	return ok;
}

/* ---- values -------------------------------------------------------------------- */

static bool plan_value(struct plan *p, uint32_t v)
{
	const struct obl_value *val = &p->o->values.items[v];
	switch (val->def) {
	case VD_LAUNCH:
		if (val->launch >= p->o->launches.len)
			return plan_fail(p, "value %u: bad launch %u", v, val->launch);
		return plan_launch(p, val->launch);
	case VD_OP:
		if (val->op >= p->o->ops.len || p->o->ops.items[val->op].prog != p->prog)
			return plan_fail(p, "value %u: bad op %u", v, val->op);
		return plan_op(p, val->op);
	default:
		break;
	}
	p->processed[v] = true;
	merge(&p->need[v]);
	if (!p->need[v].len)
		return true;
	uint64_t lo = val->off, hi = val->off + val->len;
	switch (val->def) {
	case VD_UNINIT:
		return true;
	case VD_COPY: {
		const rvec *r = &p->need[v];
		for (size_t i = 0; i < r->len; i++) {
			uint64_t a = r->items[i].lo > lo ? r->items[i].lo : lo;
			uint64_t z = r->items[i].hi < hi ? r->items[i].hi : hi;
			if (a < z && !need_add(p, val->src, val->src_off + (a - lo), val->src_off + (z - lo)))
				return false;
		}
		break;
	}
	default:
		break;
	}
	return val->prev == NO_VALUE || need_outside(p, val->prev, v, lo, hi);
}

/* Copies the merged ranges of every value into out. */
static void finish(struct plan *p)
{
	for (size_t v = 0; v < p->o->values.len; v++) {
		rvec *r = &p->need[v];
		merge(r);
		struct slice_need *n = &p->out->need[v];
		n->n = (uint32_t)r->len;
		n->r = r->len ? arena_memdup(&p->out->arena, r->items, r->len * sizeof *r->items) : NULL;
	}
}

bool slice_plan(const struct sym_state *st, uint32_t prog, uint32_t value, uint64_t off,
                uint64_t len, const struct slice_limits *lim, struct replay_slice *out,
                char *why, size_t whylen)
{
	const struct obligation *o = &st->obl;
	memset(out, 0, sizeof *out);
	struct plan p;
	memset(&p, 0, sizeof p);
	p.st = st;
	p.o = o;
	p.prog = prog;
	p.lim = lim ? *lim : (struct slice_limits){ 1u << 18, 1u << 24, 1u << 22, 4096 };
	if (!p.lim.max_writers)
		p.lim.max_writers = 1;
	p.why = why;
	p.whylen = whylen;
	p.out = out;
	size_t nv = o->values.len;
	arena_init(&out->arena);
	out->prog = prog;
	out->need = ARENA_NEWN(&out->arena, struct slice_need, nv + 1);
	out->launch = ARENA_NEWN(&out->arena, struct slice_launch, o->launches.len + 1);
	out->op = ARENA_NEWN(&out->arena, struct slice_op, o->ops.len + 1);
	p.need = xcalloc(nv + 1, sizeof *p.need);
	p.processed = xcalloc(nv + 1, sizeof *p.processed);
	p.defs = xcalloc(o->launches.len + 1, sizeof *p.defs);
	for (size_t v = 0; v < nv; v++) {
		const struct obl_value *val = &o->values.items[v];
		if (val->prog == prog && val->def == VD_LAUNCH && val->launch < o->launches.len)
			VEC_PUSH(p.defs[val->launch], (uint32_t)v);
	}
	bool ok = need_add(&p, value, off, off + len);
	for (size_t v = nv; ok && v-- > 0;)
		if (o->values.items[v].prog == prog && !p.processed[v])
			ok = plan_value(&p, (uint32_t)v);
	if (ok)
		finish(&p);
	for (size_t v = 0; v < nv; v++)
		VEC_FREE(p.need[v]);
	for (size_t l = 0; l < o->launches.len; l++)
		VEC_FREE(p.defs[l]);
	free(p.need);
	free(p.processed);
	free(p.defs);
	if (!ok) {
		arena_release(&out->arena);
		memset(out, 0, sizeof *out);
	}
	return ok;
}

void slice_release(struct replay_slice *s)
{
	if (!s)
		return;
	arena_release(&s->arena);
	memset(s, 0, sizeof *s);
}
