/*
 * order.c: the order in which dcheck visits output locations (paper 4.3).
 *
 * heuristic   a prefix in three tiers: the corners of the launches that
 *             write outputs (first and last thread of the first and last
 *             block, and the warp-boundary lanes 31 and 32 of block 0;
 *             later launches first); path-condition coverage (for each
 *             write no corner thread performs, a thread the solver finds
 *             in its domain); the first and last element of every output.
 *             Writes share domains (an unrolled loop's 4096 stores under
 *             one guard), so the solver is asked once per domain, and
 *             tier 2 stops at its share of the budget: a kernel with
 *             tens of thousands of writes must not spend dcheck's budget
 *             before the first location is checked.
 *             Then the other locations in a seeded random permutation.
 * sequential  every element in turn, output after output (a baseline).
 * random      a seeded random permutation of all locations.
 *
 * The permutation is a Feistel network over the next power of four with
 * cycle walking: a bijection on [0, n) computed one element at a time,
 * so no output is too large for it.  Locations are numbered across the
 * outputs (output 0's elements first).
 */
#include "dcheck.h"
#include "libcommon/deadline.h"
#include "libcommon/diag.h"

#include <stdlib.h>
#include <string.h>

struct lkey { uint32_t output; uint64_t index; };

/* ---- a bijective permutation of [0, n) ------------------------------------------ */

struct perm {
	uint64_t n, mask;
	unsigned half;
	uint64_t key[4];
};

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void perm_init(struct perm *p, uint64_t n, uint64_t seed)
{
	unsigned bits = 2;
	while (bits < 64 && (n - 1) >> bits)
		bits++;
	p->n = n;
	p->half = (bits + 1) / 2;
	p->mask = (1ull << p->half) - 1;
	for (int r = 0; r < 4; r++)
		p->key[r] = mix(seed * 4 + (uint64_t)r + 0x5eed);
}

static uint64_t feistel(const struct perm *p, uint64_t x)
{
	uint64_t l = x >> p->half, r = x & p->mask;
	for (int k = 0; k < 4; k++) {
		uint64_t t = l ^ (mix(r ^ p->key[k]) & p->mask);
		l = r;
		r = t;
	}
	return l << p->half | r;
}

/* The element at position x of the permutation (x < n). */
static uint64_t perm_at(const struct perm *p, uint64_t x)
{
	if (p->n <= 1)
		return x;
	do
		x = feistel(p, x);
	while (x >= p->n);                   /* cycle walking: stays a bijection */
	return x;
}

/* ---- the generator ----------------------------------------------------------------- */

struct locgen {
	const struct sym_state *st;
	enum order_kind kind;
	VEC(struct lkey) prefix;
	size_t pos;
	struct lkey *set;                /* prefix members; output UINT32_MAX: empty */
	size_t scap;
	size_t nout;
	uint64_t *count, *first;         /* per output: elements, global number of element 0 */
	uint64_t total, cursor;          /* all locations; next in the rest */
	struct perm perm;
	uint64_t corners, covered;       /* prefix locations from tiers 1 and 2 */
	double cover_until;              /* tier 2 stops here */
	uint64_t writes, asked, unasked; /* tier-2 writes; questions asked; writes left unasked */
};

/* One tier-2 question per domain of a launch: is a thread in it, which. */
struct dom_answer {
	const struct expr *dom;
	enum smt_result res;
	uint32_t x[6];
};

static size_t key_hash(uint32_t o, uint64_t i)
{
	uint64_t h = (i + 0x9e3779b97f4a7c15ull * (o + 1)) * 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ h >> 31);
}

static bool set_has(const struct locgen *g, uint32_t o, uint64_t i)
{
	if (!g->scap)
		return false;
	for (size_t k = key_hash(o, i) & (g->scap - 1);; k = (k + 1) & (g->scap - 1)) {
		if (g->set[k].output == UINT32_MAX)
			return false;
		if (g->set[k].output == o && g->set[k].index == i)
			return true;
	}
}

static void set_put(struct locgen *g, uint32_t o, uint64_t i)
{
	size_t k = key_hash(o, i) & (g->scap - 1);
	while (g->set[k].output != UINT32_MAX)
		k = (k + 1) & (g->scap - 1);
	g->set[k] = (struct lkey){ o, i };
}

static void add(struct locgen *g, uint32_t o, uint64_t i)
{
	if (i >= g->count[o] || set_has(g, o, i))
		return;
	if (2 * (g->prefix.len + 1) > g->scap) {
		size_t ncap = g->scap ? 2 * g->scap : 64;
		free(g->set);
		g->set = xmalloc(ncap * sizeof *g->set);
		g->scap = ncap;
		for (size_t k = 0; k < ncap; k++)
			g->set[k].output = UINT32_MAX;
		for (size_t k = 0; k < g->prefix.len; k++)
			set_put(g, g->prefix.items[k].output, g->prefix.items[k].index);
	}
	set_put(g, o, i);
	VEC_PUSH(g->prefix, ((struct lkey){ o, i }));
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

/* Is value v the output's value of program p, or an earlier version of it? */
static bool in_chain(const struct obligation *ob, uint32_t v, uint32_t outv)
{
	for (uint32_t u = outv; u != NO_VALUE; u = ob->values.items[u].prev)
		if (u == v)
			return true;
	return false;
}

/* The location thread th[] (tid x,y,z, ctaid x,y,z) writes with w into
 * output o, if any: true with *index. */
static bool write_loc(const struct locgen *g, const struct obl_launch *l, const struct sym_write *w,
                      uint32_t o, const enum etype *ets, const uint32_t th[6], uint64_t *index)
{
	const struct obl_output *out = &g->st->obl.outputs.items[o];
	unsigned esize = etype_size(ets[o]);
	struct evalue av;
	if (!e_eval(w->addr, EM_EXACT, coord_val, (void *)th, &av) || av.undef)
		return false;
	uint64_t a = av.u, base = out->off[l->prog];
	if (a < base || (a - base) % esize)
		return false;
	*index = (a - base) / esize;
	return *index < g->count[o];
}

/* Tiers 1 and 2 for one launch: its corner threads, then one thread in
 * the domain of each write no corner thread performs (s may be NULL: no
 * tier 2). */
static void launch_prefix(struct locgen *g, const struct obl_launch *l, const enum etype *ets,
                          struct smt *s, bool corners)
{
	const struct obligation *ob = &g->st->obl;
	const struct sym_writes *ws = g->st->by_launch[l->launch];
	if (!ws)
		return;
	uint32_t th[6][6];
	int nth = 0;
	for (int c = 0; c < 2; c++)
		for (int t = 0; t < 2; t++, nth++)
			for (int d = 0; d < 3; d++) {
				th[nth][d] = t && l->block[d] ? (uint32_t)(l->block[d] - 1) : 0;
				th[nth][3 + d] = c && l->grid[d] ? (uint32_t)(l->grid[d] - 1) : 0;
			}
	for (uint32_t lane = 31; lane <= 32 && l->block[0] > 32; lane++, nth++) {
		memset(th[nth], 0, sizeof th[nth]);
		th[nth][0] = lane;
	}
	VEC(struct dom_answer) asked = { 0 };
	for (uint32_t o = 0; o < g->nout; o++) {
		const struct obl_output *out = &ob->outputs.items[o];
		for (uint32_t k = 0; k < ws->nwrites; k++) {
			const struct sym_write *w = &ws->writes[k];
			if (!in_chain(ob, w->value, out->value[l->prog]))
				continue;
			bool hit = false;
			for (int t = 0; t < nth; t++) {
				struct evalue dv;
				uint64_t index;
				bool known = e_eval(w->dom, EM_EXACT, coord_val, th[t], &dv) && !dv.undef;
				if (known && !dv.b)
					continue;      /* not in the domain (unknown: try it) */
				if (!write_loc(g, l, w, o, ets, th[t], &index))
					continue;
				hit |= known;
				if (corners)
					add(g, o, index);
			}
			if (corners || hit || !s || e_has_data(w->dom) || e_has_data(w->addr))
				continue;
			g->writes++;
			struct dom_answer *a = NULL;
			for (size_t i = 0; i < asked.len && !a; i++)
				if (asked.items[i].dom == w->dom)
					a = &asked.items[i];
			if (!a) {
				if (deadline_passed(g->cover_until)) {
					g->unasked++;
					continue;
				}
				struct smt_geom geo;
				struct dom_answer na = { w->dom, SMT_UNKNOWN, { 0 } };
				resolver_geom(l, &geo);
				na.res = smt_thread_sat(s, &geo, w->dom, na.x, na.x + 3);
				VEC_PUSH(asked, na);
				a = &asked.items[asked.len - 1];
				g->asked++;
			}
			uint64_t index;
			if (a->res == SMT_SAT && write_loc(g, l, w, o, ets, a->x, &index))
				add(g, o, index);
		}
	}
	VEC_FREE(asked);
}

static int launch_cmp(const void *pa, const void *pb)
{
	const struct obl_launch *a = *(const struct obl_launch *const *)pa;
	const struct obl_launch *b = *(const struct obl_launch *const *)pb;
	if (a->seq != b->seq)
		return a->seq > b->seq ? -1 : 1;
	if (a->prog != b->prog)
		return a->prog > b->prog ? -1 : 1;
	return a->launch < b->launch ? -1 : a->launch > b->launch;
}

const char *order_name(enum order_kind k)
{
	return k == ORDER_SEQUENTIAL ? "sequential" : k == ORDER_RANDOM ? "random" : "heuristic";
}

int order_parse(const char *s)
{
	for (int k = 0; k < 3; k++)
		if (!strcmp(s, order_name((enum order_kind)k)))
			return k;
	return -1;
}

struct locgen *locgen_new(const struct sym_state *st, const enum etype *ets, const bool *skip,
                          enum order_kind kind, uint64_t seed, struct smt *s, double cover_until)
{
	const struct obligation *ob = &st->obl;
	struct locgen *g = xcalloc(1, sizeof *g);
	g->st = st;
	g->kind = kind;
	g->cover_until = cover_until;
	g->nout = ob->outputs.len;
	g->count = xcalloc(g->nout + 1, sizeof *g->count);
	g->first = xcalloc(g->nout + 1, sizeof *g->first);
	for (size_t o = 0; o < g->nout; o++) {
		g->count[o] = skip && skip[o] ? 0 : ob->outputs.items[o].bytes / etype_size(ets[o]);
		g->first[o] = g->total;
		g->total += g->count[o];
	}
	perm_init(&g->perm, g->total, seed);
	if (kind != ORDER_HEURISTIC)
		return g;
	/* each bridge cut's first element before all else: the locations
	 * after a bridge rest on it (dmerge(1), "Bridges") */
	for (uint32_t o = 0; o < g->nout; o++)
		if (ob->outputs.items[o].bridge && g->count[o])
			add(g, o, 0);
	size_t nl = ob->launches.len;
	const struct obl_launch **ls = xcalloc(nl + 1, sizeof *ls);
	for (size_t i = 0; i < nl; i++)
		ls[i] = &ob->launches.items[i];
	qsort(ls, nl, sizeof *ls, launch_cmp);
	for (size_t i = 0; i < nl; i++)
		launch_prefix(g, ls[i], ets, NULL, true);
	g->corners = g->prefix.len;
	for (size_t i = 0; i < nl; i++)
		launch_prefix(g, ls[i], ets, s, false);
	g->covered = g->prefix.len - g->corners;
	free(ls);
	for (uint32_t o = 0; o < g->nout; o++) {
		add(g, o, 0);
		if (g->count[o])
			add(g, o, g->count[o] - 1);
	}
	return g;
}

uint64_t locgen_total(const struct locgen *g)
{
	return g->total;
}

void locgen_cover_asked(const struct locgen *g, uint64_t *writes, uint64_t *asked, uint64_t *unasked)
{
	*writes = g->writes;
	*asked = g->asked;
	*unasked = g->unasked;
}

void locgen_prefix(const struct locgen *g, uint64_t *corners, uint64_t *covered, uint64_t *prefix)
{
	*corners = g->corners;
	*covered = g->covered;
	*prefix = g->prefix.len;
}

bool locgen_next(struct locgen *g, uint32_t *output, uint64_t *index)
{
	if (g->pos < g->prefix.len) {
		*output = g->prefix.items[g->pos].output;
		*index = g->prefix.items[g->pos].index;
		g->pos++;
		return true;
	}
	while (g->cursor < g->total) {
		uint64_t x = g->cursor++;
		if (g->kind != ORDER_SEQUENTIAL)
			x = perm_at(&g->perm, x);
		/* the output holding global element x */
		size_t lo = 0, hi = g->nout;
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;
			if (g->first[mid] <= x)
				lo = mid;
			else
				hi = mid;
		}
		uint64_t i = x - g->first[lo];
		if (set_has(g, (uint32_t)lo, i))
			continue;
		*output = (uint32_t)lo;
		*index = i;
		return true;
	}
	return false;
}

void locgen_free(struct locgen *g)
{
	if (!g)
		return;
	VEC_FREE(g->prefix);
	free(g->set);
	free(g->count);
	free(g->first);
	free(g);
}
