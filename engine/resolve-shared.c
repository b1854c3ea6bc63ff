/*
 * resolve-shared.c: back-projection through shared memory (dirigo(7), DESIGN).
 *
 * dexec turns a shared load into a LOAD leaf whose space names the launch
 * (SYM_SHARED_SPACE) and whose address packs the byte offset with the
 * reader's barrier epoch and warp epoch (SYM_SH_CODE); the launch's
 * "shared" writes carry the same numbers.  With the reader's thread
 * concrete, the writer is found among the writes of the same block: the
 * latest epoch (then warp epoch, then program order) whose write covers
 * exactly the bytes read, each write inverted with the block's ctaid
 * fixed (resolve-inv.c; an address that is not affine, a tile's i / 32
 * and i % 32, by the write's table of the block's threads sorted by
 * address, resolve-enum.c).  With tables the writes are tried latest
 * first and the first that reaches the reader wins.  Writes of the
 * reader's own epoch count only from the reader's warp (they were ordered
 * by bar.warp.sync); others of that epoch are races, which dexec reports.
 */
#include "engine/resolve-impl.h"

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

int shared_writer(const struct sym_state *st, struct ectx *cx, struct smt *smt, uint64_t max_enum,
                  struct wtab_cache *tabs, const struct expr *load, const uint32_t tid[3], const uint32_t ctaid[3],
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
	/* with tables, latest first: the first write that reaches the
	 * reader is the one it sees */
	const uint32_t *order = tabs ? wtab_shared_order(tabs, sw) : NULL;
	for (uint32_t j = 0; j < sw->nshared && !(order && best); j++) {
		const struct sym_shwrite *x = &sw->shared[order ? order[j] : j];
		if (x->epoch > epoch || (x->epoch == epoch && x->sub >= sub))
			continue;
		if (best && !later(x, best))
			continue;
		if (e_has_data(x->dom)) {
			ri_fail(acc, RI_UNSUPPORTED, "a shared store of launch %u under a data-dependent domain", l);
			return -1;
		}
		const struct expr *addr = e_subst(cx, x->addr, fix_ctaid, &fc);
		const struct expr *dom = e_subst(cx, x->dom, fix_ctaid, &fc);
		struct lin li;
		bool lin_ok = lin_of_addr(addr, n, &li);
		struct inv_query q = {
			.cx = cx, .smt = smt, .geom = &gb, .n = n, .addr = addr, .dom_t = dom,
			.lin = lin_ok ? &li : NULL, .wsize = etype_size(x->et), .rsize = etype_size(et),
			.same_kind = x->et == et || (!etype_is_float(x->et) && !etype_is_float(et)) ||
			             rs_bits_as(cx, x->val, x->et, et),
			.off = o, .max_enum = max_enum, .launch = l, .tabs = tabs,
		};
		uint32_t tids[MAXW][3], ctaids[MAXW][3];
		int k = invert_write(&q, tids, ctaids, MAXW, acc);
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
