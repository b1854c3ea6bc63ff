/*
 * resolve-enum.c: inverting a write by enumeration (dirigo(7), DESIGN): the
 * write's address evaluated once for every thread of the geometry it is
 * asked about (a block, for shared memory; the grid, when it is small
 * enough), kept sorted by address, so that every later inversion of the
 * same write is a binary search instead of a solver query.
 *
 * This is the path for addresses the affine one (resolve-inv.c) cannot
 * take: a shared tile stored as sA[i / 32][i % 32] with i = tid + 256 k,
 * a global index split by / and %.  Tables are exact: every thread of the
 * geometry is evaluated, and a thread counts only where the thread part
 * of the write's domain holds; when an address or a domain cannot be
 * evaluated, the table says so and the solver is asked as before.
 *
 * Tables are kept per (address, domain, geometry): expressions are
 * hash-consed, so a shared store whose address does not mention ctaid
 * has one table for every block.  The cache is bounded in entries;
 * past the bound it starts afresh.  It also keeps, per launch, the order
 * of the shared writes from latest to earliest (resolve-shared.c).
 */
#include "engine/resolve-impl.h"
#include "libcommon/deadline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAB_MAX_THREADS (1u << 20)      /* threads one table may enumerate */
#define CACHE_MAX_ENTRIES (1u << 23)    /* entries of all tables together */
#define PROG_NODES_MAX (1u << 16)       /* larger addresses are evaluated by e_eval */
#define BLOCK_PARTS_MAX 8               /* conjuncts of a domain tried per block */

struct went { uint64_t a; uint32_t t; };

struct wtab {
	const struct expr *addr, *dom;
	uint64_t n[6];
	bool ok;                          /* false: some thread could not be evaluated */
	struct went *v;                   /* sorted by (a, t) */
	uint32_t len;
};

struct shorder {
	const struct sym_writes *sw;
	uint32_t *idx;                    /* shared writes, latest first */
};

struct wtab_cache {
	struct wtab **tab;                /* open addressing */
	size_t cap, len;
	uint64_t entries;
	struct shorder *ord;
	size_t ocap, olen;
	uint64_t built, used;             /* statistics */
	struct deadline_check *dl;        /* NULL: none */
};

struct wtab_cache *wtab_cache_new(void)
{
	struct wtab_cache *c = xcalloc(1, sizeof *c);
	c->cap = 64;
	c->tab = xcalloc(c->cap, sizeof *c->tab);
	c->ocap = 16;
	c->ord = xcalloc(c->ocap, sizeof *c->ord);
	return c;
}

static void drop_tables(struct wtab_cache *c)
{
	for (size_t i = 0; i < c->cap; i++)
		if (c->tab[i]) {
			free(c->tab[i]->v);
			free(c->tab[i]);
			c->tab[i] = NULL;
		}
	c->len = 0;
	c->entries = 0;
}

void wtab_cache_set_deadline(struct wtab_cache *c, struct deadline_check *dl)
{
	c->dl = dl;
}

void wtab_cache_free(struct wtab_cache *c)
{
	if (!c)
		return;
	drop_tables(c);
	free(c->tab);
	for (size_t i = 0; i < c->ocap; i++)
		free(c->ord[i].idx);
	free(c->ord);
	free(c);
}

static uint64_t key_hash(const struct expr *addr, const struct expr *dom, const uint64_t n[6])
{
	uint64_t h = ((uint64_t)addr->cxid << 32 | addr->id) * 0x9e3779b97f4a7c15ull;
	h ^= ((uint64_t)dom->cxid << 32 | dom->id) * 0xc2b2ae3d27d4eb4full;
	for (int i = 0; i < 6; i++)
		h = (h ^ n[i]) * 0x100000001b3ull;
	return h ^ h >> 29;
}

static size_t tab_slot(const struct wtab_cache *c, const struct expr *addr, const struct expr *dom,
                       const uint64_t n[6])
{
	size_t k = (size_t)key_hash(addr, dom, n) & (c->cap - 1);
	while (c->tab[k] && !(c->tab[k]->addr == addr && c->tab[k]->dom == dom &&
	                      !memcmp(c->tab[k]->n, n, sizeof c->tab[k]->n)))
		k = (k + 1) & (c->cap - 1);
	return k;
}

static void tab_put(struct wtab_cache *c, struct wtab *t)
{
	if (c->entries + t->len > CACHE_MAX_ENTRIES)
		drop_tables(c);
	if (2 * (c->len + 1) > c->cap) {
		size_t ocap = c->cap;
		struct wtab **old = c->tab;
		c->cap *= 2;
		c->tab = xcalloc(c->cap, sizeof *c->tab);
		for (size_t i = 0; i < ocap; i++)
			if (old[i])
				c->tab[tab_slot(c, old[i]->addr, old[i]->dom, old[i]->n)] = old[i];
		free(old);
	}
	c->tab[tab_slot(c, t->addr, t->dom, t->n)] = t;
	c->len++;
	c->entries += t->len;
}

/* ---- building a table -------------------------------------------------------------- */

static bool coord_val(const struct expr *leaf, struct evalue *out, void *user)
{
	const uint32_t *x = user;
	int k = eprog_thread_slot(leaf, NULL);
	if (k < 0)
		return false;
	memset(out, 0, sizeof *out);
	out->u = x[k];
	return true;
}

/* e at x: compiled when it can be (p, made once per table), else by
 * e_eval; false where it cannot be evaluated or is undefined. */
static bool eval_at(const struct expr *e, struct eprog *p, uint32_t x[6], struct evalue *v)
{
	if (p) {
		const struct evalue *r = eprog_run(p, x);
		if (r)
			*v = *r;
		return r != NULL;
	}
	return e_eval(e, EM_EXACT, coord_val, x, v) && !v->undef;
}

static int went_cmp(const void *pa, const void *pb)
{
	const struct went *a = pa, *b = pb;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->t < b->t ? -1 : a->t > b->t;
}

static void unrank(uint64_t t, const uint64_t n[6], uint32_t x[6])
{
	for (int i = 0; i < 6; i++) {
		x[i] = (uint32_t)(t % n[i]);
		t /= n[i];
	}
}

/* The table of q's write, or NULL when the deadline passed while making
 * it (then nothing is kept: the caller says timeout). */
static struct wtab *build(const struct inv_query *q, struct deadline_check *dl)
{
	struct wtab *t = xcalloc(1, sizeof *t);
	t->addr = q->addr;
	t->dom = q->dom_t;
	memcpy(t->n, q->n, sizeof t->n);
	t->ok = true;
	uint64_t total = 1;
	for (int i = 0; i < 6; i++)
		total *= q->n[i];
	size_t cap = 0;
	bool dom_true = e_is_true(q->dom_t);
	/* the address and domain compiled once: a table evaluates them at up
	 * to TAB_MAX_THREADS threads */
	struct eprog *pd = dom_true ? NULL : eprog_new(q->dom_t, eprog_thread_slot, NULL, PROG_NODES_MAX);
	struct eprog *pa = eprog_new(q->addr, eprog_thread_slot, NULL, PROG_NODES_MAX);
	/* the conjuncts of the domain over the block alone (a store on a
	 * boundary path: ctaid.x == last), tried once per block: a block
	 * where one is false has no thread in the table */
	struct eprog *bp[BLOCK_PARTS_MAX];
	unsigned nbp = 0;
	const struct expr *const *cj = &q->dom_t;
	unsigned nc = dom_true ? 0 : 1;
	if (q->dom_t->op == EOP_LAND) {
		cj = q->dom_t->args;
		nc = q->dom_t->nargs;
	}
	for (unsigned i = 0; i < nc && nbp < BLOCK_PARTS_MAX; i++) {
		struct eprog *p = eprog_new(cj[i], eprog_thread_slot, NULL, PROG_NODES_MAX);
		if (p && !eprog_uses(p, 0) && !eprog_uses(p, 1) && !eprog_uses(p, 2))
			bp[nbp++] = p;
		else
			eprog_free(p);
	}
	uint64_t per_block = q->n[0] * q->n[1] * q->n[2];
	for (uint64_t k = 0; k < total; k++) {
		uint32_t x[6];
		struct evalue v;
		if (dl && deadline_tick(dl)) {
			eprog_free(pd);
			eprog_free(pa);
			for (unsigned i = 0; i < nbp; i++)
				eprog_free(bp[i]);
			free(t->v);
			free(t);
			return NULL;
		}
		unrank(k, q->n, x);
		if (nbp && k % per_block == 0) {
			bool none = false;
			for (unsigned i = 0; i < nbp && !none; i++) {
				const struct evalue *r = eprog_run(bp[i], x);
				none = r && !r->b;       /* undefined: the threads say so below */
			}
			if (none) {
				k += per_block - 1;
				continue;
			}
		}
		if (!dom_true) {
			if (!eval_at(q->dom_t, pd, x, &v)) {
				t->ok = false;
				break;
			}
			if (!v.b)
				continue;
		}
		if (!eval_at(q->addr, pa, x, &v)) {
			t->ok = false;
			break;
		}
		if (t->len == cap) {
			cap = cap ? 2 * cap : 256;
			t->v = xrealloc(t->v, cap * sizeof *t->v);
		}
		t->v[t->len++] = (struct went){ v.u, (uint32_t)k };
	}
	eprog_free(pd);
	eprog_free(pa);
	for (unsigned i = 0; i < nbp; i++)
		eprog_free(bp[i]);
	if (!t->ok) {
		free(t->v);
		t->v = NULL;
		t->len = 0;
	}
	if (t->len)                        /* an empty table has no array at all */
		qsort(t->v, t->len, sizeof *t->v, went_cmp);
	return t;
}

/* ---- answering ------------------------------------------------------------------------ */

int inv_table(const struct inv_query *q, uint32_t tids[][3], uint32_t ctaids[][3], int max,
              struct resolve_info *acc)
{
	struct wtab_cache *c = q->tabs;
	uint64_t total = 1;
	for (int i = 0; i < 6; i++) {
		if (q->n[i] == 0)
			return 0;                    /* an empty launch writes nothing */
		if (q->n[i] > TAB_MAX_THREADS || (total *= q->n[i]) > TAB_MAX_THREADS)
			return INV_UNTABLED;
	}
	if (!c || q->addr->sort != SORT_BV(64))
		return INV_UNTABLED;
	struct wtab *t = c->tab[tab_slot(c, q->addr, q->dom_t, q->n)];
	if (!t) {
		if (!(t = build(q, c->dl))) {
			if (!(acc->flags & RI_TIMEOUT))
				snprintf(acc->doing, sizeof acc->doing, "the budget ran out making the table of a store of "
				         "launch %u (its address at every thread)", q->launch);
			acc->flags |= RI_TIMEOUT;
			return -1;
		}
		c->built++;
		tab_put(c, t);
	}
	c->used++;
	if (!t->ok)
		return INV_UNTABLED;
	/* every thread whose store could overlap [off, off + rsize) */
	uint64_t lo = q->off >= q->wsize - 1 ? q->off - (q->wsize - 1) : 0;
	uint64_t hi = q->off + q->rsize - 1;
	size_t a = 0, b = t->len;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (t->v[m].a < lo)
			a = m + 1;
		else
			b = m;
	}
	int found = 0;
	for (size_t i = a; i < t->len && t->v[i].a <= hi; i++) {
		if (!(t->v[i].a == q->off && q->wsize == q->rsize && q->same_kind))
			return inv_overlap_fail(q, t->v[i].a, acc);
		if (found < max) {
			uint32_t x[6];
			unrank(t->v[i].t, q->n, x);
			memcpy(tids[found], x, 3 * sizeof *x);
			memcpy(ctaids[found], x + 3, 3 * sizeof *x);
			found++;
		}
	}
	return found;
}

/* ---- the order of shared writes ------------------------------------------------------- */

static int later_first(const void *pa, const void *pb, void *user)
{
	const struct sym_shwrite *base = user;
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	const struct sym_shwrite *a = &base[x], *b = &base[y];
	if (a->epoch != b->epoch)
		return a->epoch > b->epoch ? -1 : 1;
	if (a->sub != b->sub)
		return a->sub > b->sub ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq > b->seq ? -1 : 1;
	return x < y ? -1 : x > y;           /* ties: the first stored first */
}

static size_t ord_slot(const struct wtab_cache *c, const struct sym_writes *sw)
{
	size_t k = (size_t)(((uintptr_t)sw >> 4) * 0x9e3779b97f4a7c15ull >> 20) & (c->ocap - 1);
	while (c->ord[k].sw && c->ord[k].sw != sw)
		k = (k + 1) & (c->ocap - 1);
	return k;
}

const uint32_t *wtab_shared_order(struct wtab_cache *c, const struct sym_writes *sw)
{
	size_t k = ord_slot(c, sw);
	if (c->ord[k].sw)
		return c->ord[k].idx;
	if (2 * (c->olen + 1) > c->ocap) {
		struct shorder *old = c->ord;
		size_t ocap = c->ocap;
		c->ocap *= 2;
		c->ord = xcalloc(c->ocap, sizeof *c->ord);
		for (size_t i = 0; i < ocap; i++)
			if (old[i].sw)
				c->ord[ord_slot(c, old[i].sw)] = old[i];
		free(old);
		k = ord_slot(c, sw);
	}
	uint32_t *idx = xmalloc((sw->nshared + 1) * sizeof *idx);
	for (uint32_t i = 0; i < sw->nshared; i++)
		idx[i] = i;
	qsort_r(idx, sw->nshared, sizeof *idx, later_first, sw->shared);
	c->ord[k] = (struct shorder){ sw, idx };
	c->olen++;
	return idx;
}
