/*
 * race-enum.c: the race check of one barrier epoch by enumeration (race.c
 * asks here before the solver).  Shared-memory offsets rarely depend on
 * the block: then every thread of one block is tried, each access's
 * offset computed per thread (quick.c's evaluator), and the accesses are
 * swept in offset order for pairs of different threads that overlap, one
 * of them a write, or an atomic beside a plain access (race.c's rule).  That settles each pair of accesses exactly, races and
 * witnesses included, at the cost of a few evaluations per thread.
 *
 * A domain that mentions the block (a guard on the tile's position) is
 * relaxed to its conjuncts that do not: more threads, so a pair found is
 * only a candidate (race.c asks the solver about it), while a pair not
 * found cannot race.  An offset that mentions the block, data or an
 * undefined value leaves the access to the solver.
 */
#include "dexec.h"

#include <string.h>

#define VISITS_MAX (1u << 22)     /* overlapping entries looked at per epoch */

struct ent {
	uint64_t off;
	uint32_t acc, thr;           /* access index, linear thread index in the block */
};

typedef VEC(struct ent) ents_t;

struct cand {
	uint32_t i, j;               /* i <= j */
	uint8_t kind;                /* 0 shared-race, 1 warp-sync */
	bool exact;
	uint32_t t1, t2;             /* linear threads: t1 of access i, t2 of access j */
};

struct dx_race_enum {
	size_t n;
	bool *ok;                    /* per access: enumerated (offset free of the block) */
	bool *exact;                 /* per access: its domain was not relaxed */
	VEC(struct cand) cands;
	uint32_t *hash;              /* cands index + 1 by (i, j, kind) */
	size_t hcap;
	uint32_t ntid[3];
};

static bool mentions_ctaid(struct eprog *p)
{
	return eprog_uses(p, 3) || eprog_uses(p, 4) || eprog_uses(p, 5);
}

static bool has_ctaid(const struct expr *e)
{
	struct eprog *p = dx_qprog_new(e);
	if (!p)
		return true;            /* not enumerable: treat as mentioning anything */
	bool r = mentions_ctaid(p);
	eprog_free(p);
	return r;
}

/* dom without its conjuncts that mention the block; *exact when none did. */
static const struct expr *relax(struct ectx *cx, const struct expr *dom, bool *exact)
{
	*exact = true;
	if (!(dom->flags & EXPR_F_THREAD))
		return dom;
	const struct expr *const *c = &dom;
	unsigned nc = 1;
	if (dom->op == EOP_LAND) {
		c = dom->args;
		nc = dom->nargs;
	}
	const struct expr *r = e_bool(cx, true);
	for (unsigned i = 0; i < nc; i++) {
		if (has_ctaid(c[i])) {
			*exact = false;
			continue;
		}
		r = e_and(cx, r, c[i]);
	}
	return r;
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct ent *a = pa, *b = pb;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	if (a->acc != b->acc)
		return a->acc < b->acc ? -1 : 1;
	return a->thr < b->thr ? -1 : a->thr > b->thr;
}

static size_t key_hash(uint32_t i, uint32_t j, unsigned kind, size_t cap)
{
	uint64_t h = ((uint64_t)i << 33 | (uint64_t)j << 1 | kind) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & (cap - 1);
}

/* The candidate (i, j, kind), or NULL with *slot where it would go. */
static struct cand *cand_find(struct dx_race_enum *re, uint32_t i, uint32_t j, unsigned kind,
                              size_t *slot)
{
	size_t h = key_hash(i, j, kind, re->hcap);
	while (re->hash[h]) {
		struct cand *c = &re->cands.items[re->hash[h] - 1];
		if (c->i == i && c->j == j && c->kind == kind)
			return c;
		h = (h + 1) & (re->hcap - 1);
	}
	*slot = h;
	return NULL;
}

static void cand_add(struct dx_race_enum *re, uint32_t i, uint32_t j, unsigned kind, bool exact,
                     uint32_t t1, uint32_t t2)
{
	size_t slot;
	if (cand_find(re, i, j, kind, &slot))
		return;
	if (2 * (re->cands.len + 1) > re->hcap) {
		size_t ncap = re->hcap * 2;
		uint32_t *nh = xcalloc(ncap, sizeof *nh);
		for (size_t k = 0; k < re->cands.len; k++) {
			const struct cand *c = &re->cands.items[k];
			size_t h = key_hash(c->i, c->j, c->kind, ncap);
			while (nh[h])
				h = (h + 1) & (ncap - 1);
			nh[h] = (uint32_t)k + 1;
		}
		free(re->hash);
		re->hash = nh;
		re->hcap = ncap;
		cand_find(re, i, j, kind, &slot);
	}
	struct cand c = { i, j, (uint8_t)kind, exact, t1, t2 };
	VEC_PUSH(re->cands, c);
	re->hash[slot] = (uint32_t)re->cands.len;
}

void dx_race_enum_free(struct dx_race_enum *re)
{
	if (!re)
		return;
	free(re->ok);
	free(re->exact);
	free(re->hash);
	VEC_FREE(re->cands);
	free(re);
}

struct dx_race_enum *dx_race_enum_new(struct dx_launch *L, const struct dx_acc *acc, size_t n,
                                      const bool found[2])
{
	struct ectx *cx = L->cx;
	uint64_t nt = (uint64_t)L->geom.ntid[0] * L->geom.ntid[1] * L->geom.ntid[2];
	if (!n || !nt || nt > 1024)
		return NULL;
	struct dx_race_enum *re = xcalloc(1, sizeof *re);
	re->n = n;
	re->ok = xcalloc(n, sizeof *re->ok);
	re->exact = xcalloc(n, sizeof *re->exact);
	re->hcap = 64;
	re->hash = xcalloc(re->hcap, sizeof *re->hash);
	memcpy(re->ntid, L->geom.ntid, sizeof re->ntid);
	VEC(struct ent) es = { 0 };
	VEC(size_t) writes = { 0 };
	unsigned maxsize = 1;
	bool any = false;
	for (size_t i = 0; i < n && !L->timeout; i++) {
		bool exact;
		const struct expr *dom = relax(cx, acc[i].dom, &exact);
		struct eprog *pd = dx_qprog_new(dom), *po = dx_qprog_new(acc[i].off);
		if (!pd || !po || mentions_ctaid(pd) || mentions_ctaid(po) ||
		    eprog_uses(pd, 6) || eprog_uses(po, 6)) {
			eprog_free(pd);
			eprog_free(po);
			continue;
		}
		bool good = true;
		size_t first = es.len;
		uint32_t x[DX_NCOORD];
		memset(x, 0, sizeof x);
		for (uint32_t t = 0; t < nt && good; t++) {
			x[0] = t % re->ntid[0];
			x[1] = (t / re->ntid[0]) % re->ntid[1];
			x[2] = t / (re->ntid[0] * re->ntid[1]);
			const struct evalue *d = eprog_run(pd, x);
			if (!d) {
				good = false;
				break;
			}
			if (!d->b)
				continue;
			const struct evalue *o = eprog_run(po, x);
			if (!o) {
				good = false;
				break;
			}
			struct ent e = { o->u, (uint32_t)i, t };
			VEC_PUSH(es, e);
		}
		eprog_free(pd);
		eprog_free(po);
		if (!good) {
			es.len = first;
			continue;
		}
		re->ok[i] = true;
		re->exact[i] = exact;
		any = true;
		if (acc[i].size > maxsize)
			maxsize = acc[i].size;
	}
	if (!any) {
		VEC_FREE(es);
		dx_race_enum_free(re);
		return NULL;
	}
	if (es.len)
		qsort(es.items, es.len, sizeof *es.items, ent_cmp);
	for (size_t k = 0; k < es.len; k++)
		if (acc[es.items[k].acc].write || acc[es.items[k].acc].atomic)
			VEC_PUSH(writes, k);
	/* every entry overlapping a write or an atomic: those at a lower
	 * offset first */
	uint64_t visits = 0;
	bool gave_up = false;
	for (size_t wi = 0; wi < writes.len && !gave_up; wi++) {
		size_t p = writes.items[wi];
		const struct ent *w = &es.items[p];
		unsigned ws = acc[w->acc].size;
		size_t q = p;
		while (q > 0 && es.items[q - 1].off + maxsize > w->off)
			q--;
		for (; q < es.len && es.items[q].off < w->off + ws; q++) {
			if (++visits > VISITS_MAX) {
				gave_up = true;
				break;
			}
			const struct ent *x = &es.items[q];
			if (q == p || x->thr == w->thr || x->off + acc[x->acc].size <= w->off)
				continue;
			const struct dx_acc *xa = &acc[x->acc], *wa = &acc[w->acc];
			if (!xa->write && !wa->write && xa->atomic == wa->atomic)
				continue;    /* two atomics: they do not race */
			if ((xa->write || xa->atomic) && q < p)
				continue;    /* two such entries: counted from the earlier one */
			const struct ent *a = w->acc <= x->acc ? w : x, *b = w->acc <= x->acc ? x : w;
			bool same_warp = a->thr / 32 == b->thr / 32;
			unsigned kind = same_warp ? 1 : 0;
			if (found[kind] || (same_warp && acc[a->acc].sub != acc[b->acc].sub))
				continue;
			cand_add(re, a->acc, b->acc, kind, re->exact[a->acc] && re->exact[b->acc], a->thr, b->thr);
		}
	}
	VEC_FREE(es);
	VEC_FREE(writes);
	if (gave_up) {
		dx_race_enum_free(re);
		return NULL;
	}
	return re;
}

static void thread_of_n(const uint32_t ntid[3], uint32_t t, uint32_t out[3])
{
	out[0] = t % ntid[0];
	out[1] = (t / ntid[0]) % ntid[1];
	out[2] = t / (ntid[0] * ntid[1]);
}

static void thread_of(const struct dx_race_enum *re, uint32_t t, uint32_t out[3])
{
	thread_of_n(re->ntid, t, out);
}

int dx_race_enum_pair(struct dx_race_enum *re, size_t i, size_t j, unsigned kind,
                      uint32_t t1[3], uint32_t t2[3])
{
	if (!re || i >= re->n || j >= re->n || !re->ok[i] || !re->ok[j])
		return -1;
	size_t slot;
	const struct cand *c = cand_find(re, (uint32_t)(i < j ? i : j), (uint32_t)(i < j ? j : i), kind, &slot);
	if (!c)
		return 0;
	if (!c->exact)
		return -1;
	/* the thread of access i first */
	thread_of(re, i <= j ? c->t1 : c->t2, t1);
	thread_of(re, i <= j ? c->t2 : c->t1, t2);
	return 1;
}

/* ---- two accesses, one block at a time (check_uninit) ------------------------ */

struct fixc { const uint32_t *c; };

static const struct expr *fix_ctaid(struct ectx *cx, const struct expr *e, void *user)
{
	const struct fixc *f = user;
	return e->op == EOP_CTAID && e->u < 3 ? e_bv(cx, f->c[e->u], 32) : NULL;
}

/* The (offset, thread) of every thread of one block in dom, sorted; false
 * if they cannot be evaluated. */
static bool eval_ents(struct dx_launch *L, const struct expr *dom, const struct expr *off,
                      ents_t *out)
{
	struct eprog *pd = dx_qprog_new(dom), *po = dx_qprog_new(off);
	bool ok = pd && po && !mentions_ctaid(pd) && !mentions_ctaid(po) &&
	          !eprog_uses(pd, 6) && !eprog_uses(po, 6);
	uint32_t nt = L->geom.ntid[0] * L->geom.ntid[1] * L->geom.ntid[2], x[DX_NCOORD];
	memset(x, 0, sizeof x);
	out->len = 0;
	for (uint32_t t = 0; ok && t < nt; t++) {
		x[0] = t % L->geom.ntid[0];
		x[1] = (t / L->geom.ntid[0]) % L->geom.ntid[1];
		x[2] = t / (L->geom.ntid[0] * L->geom.ntid[1]);
		const struct evalue *d = eprog_run(pd, x);
		if (!d) {
			ok = false;
			break;
		}
		if (!d->b)
			continue;
		const struct evalue *o = eprog_run(po, x);
		if (!o) {
			ok = false;
			break;
		}
		struct ent e = { o->u, 0, t };
		VEC_PUSH(*out, e);
	}
	eprog_free(pd);
	eprog_free(po);
	if (ok && out->len)
		qsort(out->items, out->len, sizeof *out->items, ent_cmp);
	return ok;
}

/* A shared tile re-read many times asks for the same store's entries at
 * every load (check_uninit): they are kept per launch, by (dom, off),
 * which hash-consing makes pointers, up to ENTS_KEPT_MAX entries in all. */
#define ENTS_KEPT_MAX (1u << 21)

struct ents_slot {
	const struct expr *dom, *off;
	ents_t ents;
	bool ok;
};

struct dx_ents_memo {
	struct ents_slot *tab;
	size_t cap, len, kept;
};

static struct ents_slot *ents_slot(struct dx_ents_memo *m, const struct expr *dom,
                                   const struct expr *off)
{
	size_t i = (size_t)((dom->hash * 0x9e3779b1u) ^ off->hash) & (m->cap - 1);
	while (m->tab[i].dom && (m->tab[i].dom != dom || m->tab[i].off != off))
		i = (i + 1) & (m->cap - 1);
	return &m->tab[i];
}

static void ents_grow(struct dx_ents_memo *m)
{
	struct dx_ents_memo n = { xcalloc(m->cap ? 2 * m->cap : 64, sizeof *n.tab),
	                          m->cap ? 2 * m->cap : 64, m->len, m->kept };
	for (size_t i = 0; i < m->cap; i++)
		if (m->tab[i].dom)
			*ents_slot(&n, m->tab[i].dom, m->tab[i].off) = m->tab[i];
	free(m->tab);
	*m = n;
}

void dx_ents_memo_free(struct dx_ents_memo *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++)
		VEC_FREE(m->tab[i].ents);
	free(m->tab);
	free(m);
}

/* eval_ents through the launch's memo: *view is the memo's vector (copied
 * by value: a later insertion may move the table, never the items), or
 * scratch once the memo holds ENTS_KEPT_MAX entries. */
static bool block_ents(struct dx_launch *L, const struct expr *dom, const struct expr *off,
                       ents_t *scratch, ents_t *view)
{
	if (!L->ents)
		L->ents = xcalloc(1, sizeof *L->ents);
	struct dx_ents_memo *m = L->ents;
	if (2 * (m->len + 1) > m->cap)
		ents_grow(m);
	struct ents_slot *s = ents_slot(m, dom, off);
	if (s->dom) {
		*view = s->ents;
		return s->ok;
	}
	bool ok = eval_ents(L, dom, off, scratch);
	*view = *scratch;
	if (m->kept + scratch->len > ENTS_KEPT_MAX)
		return ok;
	s->dom = dom;
	s->off = off;
	s->ok = ok;
	if (scratch->len) {
		s->ents.items = xmalloc(scratch->len * sizeof *s->ents.items);
		memcpy(s->ents.items, scratch->items, scratch->len * sizeof *s->ents.items);
		s->ents.len = s->ents.cap = scratch->len;
	}
	m->len++;
	m->kept += scratch->len;
	*view = s->ents;
	return ok;
}

/* A pair of entries of a and b whose bytes overlap: true with *i, *j. */
static bool overlap(const ents_t *a, unsigned sa, const ents_t *b, unsigned sb,
                    size_t *ia, size_t *ib)
{
	size_t q = 0;
	for (size_t p = 0; p < a->len; p++) {
		uint64_t lo = a->items[p].off;
		while (q < b->len && b->items[q].off + sb <= lo)
			q++;
		if (q < b->len && b->items[q].off < lo + sa) {
			*ia = p;
			*ib = q;
			return true;
		}
	}
	return false;
}

int dx_enum_overlap(struct dx_launch *L, const struct expr *dom1, const struct expr *off1, unsigned s1,
                    const struct expr *dom2, const struct expr *off2, unsigned s2,
                    uint32_t t1[3], uint32_t t2[3], uint32_t c[3])
{
	struct ectx *cx = L->cx;
	uint64_t nt = (uint64_t)L->geom.ntid[0] * L->geom.ntid[1] * L->geom.ntid[2];
	if (!nt || nt > 1024 || ((dom1->flags | off1->flags | dom2->flags | off2->flags) &
	                         (EXPR_F_DATA | EXPR_F_UNDEF)))
		return -1;
	ents_t a = { 0 }, b = { 0 };
	ents_t va, vb;
	int res = -1;
	/* a few blocks, exactly: one where some thread makes the first
	 * access (the solver's memo usually has it), one for the second, the
	 * first and the last block */
	uint32_t cand[4][3], tt[3];
	int nc = 0;
	if (dx_sat(L, dom1, tt, cand[nc]) == SMT_SAT)
		nc++;
	if (dx_sat(L, dom2, tt, cand[nc]) == SMT_SAT)
		nc++;
	for (int d = 0; d < 3; d++) {
		cand[nc][d] = 0;
		cand[nc + 1][d] = L->geom.nctaid[d] - 1;
	}
	nc += 2;
	for (int k = 0; k < nc && res < 0 && !L->timeout; k++) {
		bool seen = false;
		for (int q = 0; q < k; q++)
			seen |= !memcmp(cand[k], cand[q], sizeof cand[k]);
		if (seen)
			continue;
		struct fixc f = { cand[k] };
		const struct expr *d1 = e_subst(cx, dom1, fix_ctaid, &f), *d2 = e_subst(cx, dom2, fix_ctaid, &f);
		if (e_is_false(d1) || e_is_false(d2))
			continue;
		size_t i, j;
		if (block_ents(L, d1, e_subst(cx, off1, fix_ctaid, &f), &a, &va) &&
		    block_ents(L, d2, e_subst(cx, off2, fix_ctaid, &f), &b, &vb) &&
		    overlap(&va, s1, &vb, s2, &i, &j)) {
			thread_of_n(L->geom.ntid, va.items[i].thr, t1);
			thread_of_n(L->geom.ntid, vb.items[j].thr, t2);
			memcpy(c, cand[k], sizeof cand[k]);
			res = 1;
		}
	}
	/* every block at once: the domains without their conjuncts on the block */
	if (res < 0) {
		bool e1, e2;
		const struct expr *d1 = relax(cx, dom1, &e1), *d2 = relax(cx, dom2, &e2);
		size_t i, j;
		if (block_ents(L, d1, off1, &a, &va) && block_ents(L, d2, off2, &b, &vb) &&
		    !overlap(&va, s1, &vb, s2, &i, &j))
			res = 0;
	}
	VEC_FREE(a);
	VEC_FREE(b);
	return res;
}
