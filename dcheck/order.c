/*
 * order.c: the order in which dcheck visits output locations (paper 4.3):
 * corners of the launches that write outputs (first and last thread of the
 * first and last block, and the warp-boundary lanes 31 and 32 of block 0;
 * later launches first), then the first and last element of every output,
 * then all elements in turn, outputs round-robin, each location once.
 */
#include "dcheck.h"
#include "diag.h"

#include <stdlib.h>
#include <string.h>

struct lkey { uint32_t output; uint64_t index; };

struct locgen {
	const struct sym_state *st;
	VEC(struct lkey) prefix;
	size_t pos;
	struct lkey *set;                /* prefix members; output UINT32_MAX: empty */
	size_t scap;
	size_t nout;
	uint64_t *count, *cursor;        /* per output: elements, next sequential index */
	size_t rr, exhausted;
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

static void launch_corners(struct locgen *g, const struct obl_launch *l, const enum etype *ets)
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
	for (uint32_t o = 0; o < g->nout; o++) {
		const struct obl_output *out = &ob->outputs.items[o];
		unsigned esize = etype_size(ets[o]);
		for (uint32_t k = 0; k < ws->nwrites; k++) {
			const struct sym_write *w = &ws->writes[k];
			if (!in_chain(ob, w->value, out->value[l->prog]))
				continue;
			for (int t = 0; t < nth; t++) {
				struct evalue dv, av;
				if (e_eval(w->dom, EM_EXACT, coord_val, th[t], &dv) && !dv.undef && !dv.b)
					continue;      /* not in the domain (unknown: try it) */
				if (!e_eval(w->addr, EM_EXACT, coord_val, th[t], &av) || av.undef)
					continue;
				uint64_t a = av.u;
				if (a < out->off[l->prog] || (a - out->off[l->prog]) % esize)
					continue;
				add(g, o, (a - out->off[l->prog]) / esize);
			}
		}
	}
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

struct locgen *locgen_new(const struct sym_state *st, const enum etype *ets)
{
	const struct obligation *ob = &st->obl;
	struct locgen *g = xcalloc(1, sizeof *g);
	g->st = st;
	g->nout = ob->outputs.len;
	g->count = xcalloc(g->nout + 1, sizeof *g->count);
	g->cursor = xcalloc(g->nout + 1, sizeof *g->cursor);
	for (size_t o = 0; o < g->nout; o++)
		g->count[o] = ob->outputs.items[o].bytes / etype_size(ets[o]);
	size_t nl = ob->launches.len;
	const struct obl_launch **ls = xcalloc(nl + 1, sizeof *ls);
	for (size_t i = 0; i < nl; i++)
		ls[i] = &ob->launches.items[i];
	qsort(ls, nl, sizeof *ls, launch_cmp);
	for (size_t i = 0; i < nl; i++)
		launch_corners(g, ls[i], ets);
	free(ls);
	for (uint32_t o = 0; o < g->nout; o++) {
		add(g, o, 0);
		if (g->count[o])
			add(g, o, g->count[o] - 1);
	}
	return g;
}

bool locgen_next(struct locgen *g, uint32_t *output, uint64_t *index)
{
	if (g->pos < g->prefix.len) {
		*output = g->prefix.items[g->pos].output;
		*index = g->prefix.items[g->pos].index;
		g->pos++;
		return true;
	}
	while (g->exhausted < g->nout) {
		size_t o = g->rr;
		g->rr = (g->rr + 1) % g->nout;
		while (g->cursor[o] < g->count[o] && set_has(g, (uint32_t)o, g->cursor[o]))
			g->cursor[o]++;
		if (g->cursor[o] >= g->count[o]) {
			if (g->cursor[o] == g->count[o]) {
				g->cursor[o]++;          /* counted once */
				g->exhausted++;
			}
			continue;
		}
		*output = (uint32_t)o;
		*index = g->cursor[o]++;
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
	free(g->cursor);
	free(g);
}
