/*
 * resolve-global.c: back-projection of the global loads that may read
 * what the launch itself stored (dexec/gread.c, dirigo-symbolic(5)
 * "reads").
 *
 * Such a load is a LOAD leaf of SYM_GREAD_SPACE(launch) whose constant
 * address (the reader's thread substituted) packs the byte offset with
 * the index of a "reads" entry: the value the launch writes, and the
 * reader's barrier epoch E and count of stores made before (seq S).  The
 * writes of the launch that cover exactly the bytes read are found by
 * inverting their addresses (rs_plain_hits), and each hit by thread u
 * is, for reader t:
 *
 *   u == t, seq < S           before the read (program order)
 *   u == t, seq >= S          after it
 *   u in t's block, epoch < E before the read (a barrier between)
 *   u in t's block, epoch > E after it
 *   u in t's block, epoch E   a race: nothing orders them
 *   u in another block        a race: there is no grid-wide barrier
 *
 * A race makes the location unknown (RI_RACE, both threads named).  Of
 * the writes before the read, the latest barrier epoch wins (a thread's
 * own writes in program order); two threads of one epoch must leave the
 * same value, else that is a race too.  A write under a data-dependent
 * domain leaves what was there before it where its condition fails.
 * With no write before the read, the location holds its contents before
 * the launch.
 */
#include "engine/resolve-impl.h"

#include <stdlib.h>
#include <string.h>

#define MAX_HITS 64                /* writes of one location followed */

struct gctx {
	struct resolver *r;
	const uint32_t *tid, *ctaid;
	uint32_t launch, v;
	uint64_t off;
	enum etype et;
	unsigned depth;
	struct resolve_info *acc;
	const struct plain_hit **vis;  /* the writes before the read, by (epoch, thread, seq) */
	size_t nvis;
};

static bool same3(const uint32_t a[3], const uint32_t b[3])
{
	return !memcmp(a, b, 3 * sizeof *a);
}

static int vis_cmp(const void *pa, const void *pb)
{
	const struct plain_hit *a = *(const struct plain_hit *const *)pa, *b = *(const struct plain_hit *const *)pb;
	if (a->w->epoch != b->w->epoch)
		return a->w->epoch < b->w->epoch ? -1 : 1;
	int c = memcmp(a->ctaid, b->ctaid, sizeof a->ctaid);
	if (!c)
		c = memcmp(a->tid, b->tid, sizeof a->tid);
	if (!c)
		c = a->w->seq < b->w->seq ? -1 : a->w->seq > b->w->seq;
	return c;
}

static void race(struct gctx *g, const uint32_t t1[3], const uint32_t c1[3], const uint32_t t2[3],
                 const uint32_t c2[3])
{
	struct resolve_info *acc = g->acc;
	if (!(acc->flags & RI_RACE)) {
		acc->race_launch = g->launch;
		acc->race_value = g->v;
		acc->race_off = g->off;
		memcpy(acc->race_tid[0], t1, sizeof acc->race_tid[0]);
		memcpy(acc->race_ctaid[0], c1, sizeof acc->race_ctaid[0]);
		memcpy(acc->race_tid[1], t2, sizeof acc->race_tid[1]);
		memcpy(acc->race_ctaid[1], c2, sizeof acc->race_ctaid[1]);
	}
	acc->flags |= RI_RACE;
}

/* What the location holds after the writes vis[0..end): the contents
 * before the launch when end is 0.  NULL when unknown. */
static const struct expr *upto(struct gctx *g, size_t end)
{
	struct ectx *cx = rs_cx(g->r);
	if (end == 0)
		return rs_before(g->r, g->v, g->off, g->et, g->depth, g->acc);
	size_t s = end;
	while (s > 0 && g->vis[s - 1]->w->epoch == g->vis[end - 1]->w->epoch)
		s--;
	const struct expr *below = NULL, *res = NULL;
	bool below_done = false;
	const struct plain_hit *first = NULL;
	for (size_t i = s; i < end;) {
		size_t j = i + 1;
		while (j < end && same3(g->vis[j]->tid, g->vis[i]->tid) && same3(g->vis[j]->ctaid, g->vis[i]->ctaid))
			j++;
		/* from the thread's last write whose domain holds for sure */
		size_t b = j;
		while (b > i && g->vis[b - 1]->dom_d)
			b--;
		b = b > i ? b - 1 : i;
		const struct expr *cur = NULL;
		if (g->vis[b]->dom_d) {
			if (!below_done) {
				below = upto(g, s);
				below_done = true;
			}
			if (!(cur = below))
				return NULL;
		}
		for (size_t k = b; k < j; k++) {
			const struct plain_hit *h = g->vis[k];
			const struct expr *x = rs_at_thread(g->r, h->w->val, h->tid, h->ctaid, g->depth + 1, g->acc);
			if (!x || !(x = rs_read_as(cx, x, h->w->et, g->et, g->acc)))
				return NULL;
			if (h->dom_d) {
				const struct expr *c = rs_at_thread(g->r, h->dom_d, h->tid, h->ctaid, g->depth + 1, g->acc);
				if (!c)
					return NULL;
				x = e_ite(cx, c, x, cur);
			}
			cur = x;
		}
		if (res && cur != res) {
			race(g, first->tid, first->ctaid, g->vis[i]->tid, g->vis[i]->ctaid);
			return NULL;
		}
		res = cur;
		first = g->vis[i];
		i = j;
	}
	return res;
}

const struct expr *rs_global_read(struct resolver *r, const struct expr *load, const uint32_t tid[3],
                                  const uint32_t ctaid[3], unsigned depth, struct resolve_info *acc)
{
	const struct sym_state *st = rs_state(r);
	uint32_t l = SYM_GREAD_LAUNCH(load->space);
	if (l >= st->obl.launches.len || !st->by_launch || !st->by_launch[l]) {
		ri_fail(acc, RI_UNSUPPORTED, "a global read of launch %u, which has no write set", l);
		return NULL;
	}
	if (load->args[0]->op != EOP_BV) {
		ri_fail(acc, RI_UNSUPPORTED, "a global read of launch %u whose address depends on data", l);
		return NULL;
	}
	const struct sym_writes *ws = st->by_launch[l];
	uint64_t code = load->args[0]->u, idx = code >> SYM_GR_OFF_BITS;
	if (idx >= ws->nreads) {
		ri_fail(acc, RI_UNSUPPORTED, "a global read of launch %u names read %llu of %u", l,
		        (unsigned long long)idx, ws->nreads);
		return NULL;
	}
	if (depth + 1 > rs_max_depth(r)) {
		ri_fail(acc, RI_TOO_BIG, "resolution nested deeper than %u elements", rs_max_depth(r));
		return NULL;
	}
	const struct sym_gread *rd = &ws->reads[idx];
	struct gctx g = { r, tid, ctaid, l, rd->value, code & ((1ull << SYM_GR_OFF_BITS) - 1),
	                  (enum etype)load->et, depth, acc, NULL, 0 };
	/* an offset outside the value (a thread out of bounds: dexec said so)
	 * would have borrowed from the read's index: not trusted */
	uint64_t bytes = st->obl.values.items[g.v].bytes;
	if (g.off >= bytes || bytes - g.off < etype_size(g.et)) {
		ri_fail(acc, RI_UNSUPPORTED, "a global read of launch %u at byte %llu of value %u, outside its %llu bytes",
		        l, (unsigned long long)g.off, g.v, (unsigned long long)bytes);
		return NULL;
	}
	for (uint32_t i = 0; i < ws->natomics; i++)
		if (ws->atomics[i].value == g.v) {
			ri_fail(acc, RI_UNSUPPORTED, "launch %u (%s) reads value %u, which it updates atomically", l,
			        ws->kernel, g.v);
			return NULL;
		}
	struct plain_hit ph[MAX_HITS];
	bool all;
	int nh = rs_plain_hits(r, g.v, g.off, g.et, ph, MAX_HITS, &all, acc);
	if (nh < 0)
		return NULL;
	if (!all) {
		ri_fail(acc, RI_TOO_BIG, "more than %u stores of launch %u reach value %u byte %llu before a load",
		        MAX_HITS, l, g.v, (unsigned long long)g.off);
		return NULL;
	}
	const struct plain_hit *vis[MAX_HITS];
	for (int i = 0; i < nh; i++) {
		const struct plain_hit *h = &ph[i];
		bool own = same3(h->tid, tid) && same3(h->ctaid, ctaid);
		if (own ? h->w->seq < rd->seq : same3(h->ctaid, ctaid) && h->w->epoch < rd->epoch) {
			vis[g.nvis++] = h;
			continue;
		}
		if (!own && (!same3(h->ctaid, ctaid) || h->w->epoch == rd->epoch)) {
			race(&g, tid, ctaid, h->tid, h->ctaid);
			return NULL;
		}
	}
	qsort(vis, g.nvis, sizeof *vis, vis_cmp);
	g.vis = vis;
	return upto(&g, g.nvis);
}
