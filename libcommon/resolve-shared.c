/*
 * resolve-shared.c: back-projection through shared memory (DESIGN.md 5).
 *
 * dexec turns a shared load into a LOAD leaf whose space names the launch
 * (SYM_SHARED_SPACE) and whose address packs the byte offset with the
 * reader's barrier epoch and warp epoch (SYM_SH_CODE); the launch's
 * "shared" writes carry the same numbers.  With the reader's thread
 * concrete, the writer is found among the writes of the same block: the
 * latest epoch (then warp epoch, then program order) whose write covers
 * exactly the bytes read, each write inverted with the block's ctaid
 * fixed (resolve-inv.c, or a table by address of the block's threads when
 * the address is not affine).  Writes of the reader's own epoch count only
 * from the reader's warp (they were ordered by bar.warp.sync); others of
 * that epoch are races, which dexec reports.
 */
#include "resolve-impl.h"

#include <string.h>

#define MAXW 8

struct fixc { const uint32_t *ctaid; };

static const struct expr *fix_ctaid(struct ectx *cx, const struct expr *e, void *user)
{
	const struct fixc *f = user;
	return e->op == EOP_CTAID && e->u < 3 ? e_bv(cx, f->ctaid[e->u], 32) : NULL;
}

static uint64_t warp_of(const uint32_t t[3], const struct smt_geom *g)
{
	return ((uint64_t)t[0] + (uint64_t)g->ntid[0] * ((uint64_t)t[1] + (uint64_t)g->ntid[1] * t[2])) / 32;
}

/* (epoch, sub, seq) of a: later than b's? */
static bool later(const struct sym_shwrite *a, const struct sym_shwrite *b)
{
	if (a->epoch != b->epoch)
		return a->epoch > b->epoch;
	if (a->sub != b->sub)
		return a->sub > b->sub;
	return a->seq > b->seq;
}

/* ---- writes whose addresses are not affine: tables by address ------------ */

/* The threads of one block that perform a shared write, sorted by the
 * address they write: made once per (write, block) when the address is
 * not affine in the coordinates (tile indices i / 32 and i % 32), so that
 * inverting it at any offset is a binary search, not a solver query. */
struct shent { uint64_t addr; uint32_t tid[3]; };
struct shtab {
	const struct sym_shwrite *x;     /* NULL: empty slot */
	uint32_t c[3];
	bool ok;                         /* false: not evaluable (data) */
	struct shent *e;
	uint32_t n;
};
#define SHINV_MAX 1024                   /* tables kept (each at most a block's threads) */
struct shinv {
	struct shtab *tab;
	size_t cap, len;
};

struct shinv *shinv_new(void)
{
	struct shinv *s = xcalloc(1, sizeof *s);
	s->cap = 64;
	s->tab = xcalloc(s->cap, sizeof *s->tab);
	return s;
}

void shinv_free(struct shinv *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		free(s->tab[i].e);
	free(s->tab);
	free(s);
}

static size_t shinv_hash(const struct sym_shwrite *x, const uint32_t c[3], size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)x * 0x9e3779b97f4a7c15ull ^
	             ((uint64_t)c[0] << 40 ^ (uint64_t)c[1] << 20 ^ c[2]) * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h ^ h >> 29) & (cap - 1);
}

static struct shtab *shinv_slot(struct shinv *s, const struct sym_shwrite *x, const uint32_t c[3])
{
	size_t i = shinv_hash(x, c, s->cap);
	while (s->tab[i].x && !(s->tab[i].x == x && !memcmp(s->tab[i].c, c, sizeof s->tab[i].c)))
		i = (i + 1) & (s->cap - 1);
	return &s->tab[i];
}

struct coord { const uint32_t *tid, *ctaid; };

static bool coord_leaf(const struct expr *leaf, struct evalue *out, void *user)
{
	const struct coord *k = user;
	if ((leaf->op != EOP_TID && leaf->op != EOP_CTAID) || leaf->u > 2)
		return false;
	memset(out, 0, sizeof *out);
	out->u = (leaf->op == EOP_TID ? k->tid : k->ctaid)[leaf->u];
	return true;
}

static int shent_cmp(const void *pa, const void *pb)
{
	const struct shent *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return memcmp(a->tid, b->tid, sizeof a->tid);
}

/* The table of write x in block c (made on first use). */
static const struct shtab *shinv_get(struct shinv *s, const struct sym_shwrite *x, const uint32_t c[3],
                                     const struct smt_geom *g)
{
	struct shtab *t = shinv_slot(s, x, c);
	if (t->x)
		return t;
	if (s->len >= SHINV_MAX) {           /* bounded: start again rather than grow */
		for (size_t i = 0; i < s->cap; i++)
			free(s->tab[i].e);
		memset(s->tab, 0, s->cap * sizeof *s->tab);
		s->len = 0;
		t = shinv_slot(s, x, c);
	}
	if (2 * (s->len + 1) > s->cap) {
		struct shinv n = { xcalloc(2 * s->cap, sizeof *n.tab), 2 * s->cap, s->len };
		for (size_t i = 0; i < s->cap; i++)
			if (s->tab[i].x)
				*shinv_slot(&n, s->tab[i].x, s->tab[i].c) = s->tab[i];
		free(s->tab);
		*s = n;
		t = shinv_slot(s, x, c);
	}
	s->len++;
	t->x = x;
	memcpy(t->c, c, sizeof t->c);
	t->ok = true;
	VEC(struct shent) es = { 0 };
	uint32_t tid[3];
	struct coord k = { tid, c };
	for (tid[2] = 0; tid[2] < g->ntid[2] && t->ok; tid[2]++)
		for (tid[1] = 0; tid[1] < g->ntid[1] && t->ok; tid[1]++)
			for (tid[0] = 0; tid[0] < g->ntid[0]; tid[0]++) {
				struct evalue d, a;
				if (!e_eval(x->dom, EM_EXACT, coord_leaf, &k, &d) || d.undef) {
					t->ok = false;
					break;
				}
				if (!d.b)
					continue;
				if (!e_eval(x->addr, EM_EXACT, coord_leaf, &k, &a) || a.undef) {
					t->ok = false;
					break;
				}
				struct shent e = { a.u, { tid[0], tid[1], tid[2] } };
				VEC_PUSH(es, e);
			}
	if (t->ok && es.len)
		qsort(es.items, es.len, sizeof *es.items, shent_cmp);
	t->e = es.items;
	t->n = (uint32_t)es.len;
	return t;
}

/* invert_write (resolve-inv.c) by the table: the threads writing exactly
 * [off, off+rsize), or -1 after ri_fail on a partial overlap. */
static int inv_table(const struct shtab *t, const struct inv_query *q, uint32_t tids[][3], int max,
                     struct resolve_info *acc)
{
	uint64_t lo = q->off >= q->wsize - 1 ? q->off - (q->wsize - 1) : 0, hi = q->off + q->rsize - 1;
	uint32_t a = 0, b = t->n;
	while (a < b) {
		uint32_t m = a + (b - a) / 2;
		if (t->e[m].addr < lo)
			a = m + 1;
		else
			b = m;
	}
	int k = 0;
	for (uint32_t i = a; i < t->n && t->e[i].addr <= hi; i++) {
		if (t->e[i].addr != q->off || q->wsize != q->rsize || !q->same_kind) {
			if (t->e[i].addr == q->off && q->wsize == q->rsize)
				ri_fail(acc, RI_UNSUPPORTED, "launch %u stores a different element type at offset %llu "
				        "than is read", q->launch, (unsigned long long)q->off);
			else
				ri_fail(acc, RI_UNSUPPORTED, "launch %u stores %u bytes at offset %llu, read as %u bytes "
				        "at %llu", q->launch, q->wsize, (unsigned long long)t->e[i].addr, q->rsize,
				        (unsigned long long)q->off);
			return -1;
		}
		if (k < max)
			memcpy(tids[k++], t->e[i].tid, sizeof tids[0]);
	}
	return k;
}

int shared_writer(const struct sym_state *st, struct ectx *cx, struct smt *smt, uint64_t max_enum,
                  struct shinv *inv,
                  const struct expr *load, const uint32_t tid[3], const uint32_t ctaid[3],
                  const struct sym_shwrite **w, uint32_t wtid[3], uint32_t *launch, uint64_t *off,
                  struct resolve_info *acc)
{
	uint32_t l = SYM_SHARED_LAUNCH(load->space);
	*launch = l;
	if (l >= st->obl.launches.len || !st->by_launch || !st->by_launch[l]) {
		ri_fail(acc, RI_UNSUPPORTED, "a shared-memory read of launch %u, which has no write set", l);
		return -1;
	}
	if (load->args[0]->op != EOP_BV) {
		ri_fail(acc, RI_UNSUPPORTED, "a shared-memory address depends on data");
		return -1;
	}
	uint64_t code = load->args[0]->u;
	uint64_t o = code & ((1ull << SYM_SH_OFF_BITS) - 1);
	uint32_t sub = (uint32_t)(code >> SYM_SH_OFF_BITS) & ((1u << SYM_SH_SUB_BITS) - 1);
	uint32_t epoch = (uint32_t)(code >> (SYM_SH_OFF_BITS + SYM_SH_SUB_BITS));
	*off = o;
	const struct sym_writes *sw = st->by_launch[l];
	struct smt_geom g;
	resolver_geom(&st->obl.launches.items[l], &g);
	struct smt_geom gb = { { g.ntid[0], g.ntid[1], g.ntid[2] }, { 1, 1, 1 } };
	uint64_t n[6] = { g.ntid[0], g.ntid[1], g.ntid[2], 1, 1, 1 };
	uint64_t rwarp = warp_of(tid, &g);
	struct fixc fc = { ctaid };
	const struct sym_shwrite *best = NULL;
	uint32_t best_tid[3] = { 0, 0, 0 };
	enum etype et = (enum etype)load->et;
	/* latest first: the writes are in execution order, so once one of an
	 * epoch covers the bytes, the writes of earlier epochs are passed
	 * over without being inverted */
	for (uint32_t i = sw->nshared; i-- > 0;) {
		const struct sym_shwrite *x = &sw->shared[i];
		if (x->epoch > epoch || (x->epoch == epoch && x->sub >= sub))
			continue;
		if (best && !later(x, best))
			continue;
		if (e_has_data(x->dom)) {
			ri_fail(acc, RI_UNSUPPORTED, "a shared store of launch %u under a data-dependent domain", l);
			return -1;
		}
		struct inv_query q = {
			.cx = cx, .smt = smt, .geom = &gb, .n = n,
			.wsize = etype_size(x->et), .rsize = etype_size(et),
			.same_kind = x->et == et || (!etype_is_float(x->et) && !etype_is_float(et)) ||
			             rs_bits_as(cx, x->val, x->et, et),
			.off = o, .max_enum = max_enum, .launch = l,
		};
		uint32_t tids[MAXW][3], ctaids[MAXW][3];
		int k;
		struct shtab *known = inv ? shinv_slot(inv, x, ctaid) : NULL;
		struct lin li;
		if (known && known->x && known->ok) {
			k = inv_table(known, &q, tids, MAXW, acc);
		} else {
			q.addr = e_subst(cx, x->addr, fix_ctaid, &fc);
			q.dom_t = e_subst(cx, x->dom, fix_ctaid, &fc);
			bool lin_ok = lin_of_addr(q.addr, n, &li);
			q.lin = lin_ok ? &li : NULL;
			const struct shtab *t = !lin_ok && inv ? shinv_get(inv, x, ctaid, &g) : NULL;
			k = t && t->ok ? inv_table(t, &q, tids, MAXW, acc) : invert_write(&q, tids, ctaids, MAXW, acc);
		}
		if (k < 0)
			return -1;
		int found = -1;
		for (int j = 0; j < k; j++) {
			if (x->epoch == epoch && warp_of(tids[j], &g) != rwarp)
				continue;
			if (found >= 0) {
				ri_fail(acc, RI_UNSUPPORTED, "two threads of block (%u,%u,%u) write shared byte %llu "
				        "of launch %u in one epoch (a race)", ctaid[0], ctaid[1], ctaid[2],
				        (unsigned long long)o, l);
				return -1;
			}
			found = j;
		}
		if (found < 0)
			continue;
		best = x;
		memcpy(best_tid, tids[found], sizeof best_tid);
	}
	if (!best)
		return 0;
	*w = best;
	memcpy(wtid, best_tid, sizeof best_tid);
	return 1;
}
