/*
 * resolve.c: back-projection (paper 3.4): an element of an SSA value as an
 * expression over the shared inputs.  See resolve.h for the contract.
 *
 * Values defined by inputs, memsets and copies are answered from their
 * ranges.  A value defined by a kernel launch is answered by inverting the
 * launch's write set: for each write (dom, addr, val) to the value, find
 * the threads with dom and addr == off.  Addresses are nearly always affine
 * in the thread coordinates with a mixed-radix shape (4*(256*ctaid.x +
 * tid.x) + c), so resolve-lin.c inverts them directly and the solver is
 * asked only when that fails.  The written value at the thread has its
 * loads (now at constant offsets) resolved recursively.  Atomic
 * contributions (atom, red) are combined with the value before the launch
 * by resolve-atomic.c.
 *
 * Two memos make the cost linear in what is read: elements by (value,
 * offset, type), and shared-memory loads by (LOAD leaf, block, and the
 * reader's warp where writes of its own epoch could reach it): the value
 * a shared load sees does not depend on which thread of the block reads
 * it, so the result of a block-wide reduction tree that every thread
 * reads back is resolved once per block, not once per reader.
 */
#include "engine/resolve.h"
#include "engine/resolve-impl.h"
#include "libcommon/deadline.h"
#include "libcommon/diag.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_MATCH 8           /* threads compared when several write one location */
#define MEMO_MAX (1u << 22)   /* memo entries kept between resolve_elem calls */

struct memo_ent {
	uint64_t off;
	uint32_t value;           /* NO_VALUE: empty slot */
	uint8_t et;
	uint32_t writer;
	const struct expr *e;
	const struct resolve_info *note;   /* problems below this element, or NULL */
};

/* A shared load as one block (and warp, where that matters) sees it. */
struct shmemo_ent {
	const struct expr *load;           /* NULL: empty slot */
	uint32_t ctaid[3];
	uint64_t warp;                     /* SH_ANY_WARP when any warp sees the same */
	const struct expr *e;
	const struct resolve_info *note;
};
#define SH_ANY_WARP UINT64_MAX
#define DEADLINE_EVERY 16              /* elements resolved between looks at the clock */
#define TM_KEEP 4                      /* threads whose coordinates stay substituted */
#define TM_MAX_NODES (1u << 22)        /* nodes a kept thread memo may hold */

struct wcache {
	bool ready, lin_ok;
	struct lin lin;
	const struct expr *dom_t;          /* thread-only conjuncts of dom */
	const struct expr *dom_d;          /* data-dependent conjuncts, or NULL */
};

struct resolver {
	const struct sym_state *st;
	const struct obligation *o;
	struct ectx *cx;
	struct smt *smt;
	struct resolve_limits lim;
	struct arena arena;
	uint32_t *wstart;                  /* writes of value v: wl[wstart[v] .. wstart[v+1]) */
	const struct sym_write **wl;
	uint32_t *wlaunch;                 /* launch of wl[i] */
	struct wcache *wc;                 /* parallel to wl */
	struct memo_ent *memo;
	size_t mcap, mlen;
	uint64_t call_elems, call_shared;
	struct rop *rop;                   /* torch ops (resolve-op.c), made on first use */
	struct wtab_cache *tabs;           /* enumeration tables (resolve-enum.c) */
	struct shmemo_ent *sh;             /* shared loads resolved */
	size_t shcap, shlen;
	struct deadline_check dl;
	const uint32_t *shared;            /* resolver_set_shared, or NULL */
	/* written expressions at the threads resolved last (most recent
	 * first): a thread's writes share their addresses (a sum and a sum
	 * of squares over one loop), and nested reads come back to it */
	struct e_thread_memo *tm[TM_KEEP];
};

/* ---- construction ---------------------------------------------------------- */

struct resolver *resolver_new(const struct sym_state *st, struct smt *s)
{
	struct resolver *r = xcalloc(1, sizeof *r);
	r->st = st;
	r->o = &st->obl;
	r->cx = st->cx;
	r->smt = s;
	r->lim = (struct resolve_limits){ 2000, 1u << 21, 16384 };
	arena_init(&r->arena);
	size_t nv = r->o->values.len, nw = 0;
	r->wstart = xcalloc(nv + 1, sizeof *r->wstart);
	for (size_t i = 0; i < st->writes.len; i++)
		for (uint32_t k = 0; k < st->writes.items[i].nwrites; k++) {
			r->wstart[st->writes.items[i].writes[k].value + 1]++;
			nw++;
		}
	for (size_t v = 0; v < nv; v++)
		r->wstart[v + 1] += r->wstart[v];
	r->wl = xcalloc(nw ? nw : 1, sizeof *r->wl);
	r->wlaunch = xcalloc(nw ? nw : 1, sizeof *r->wlaunch);
	r->wc = xcalloc(nw ? nw : 1, sizeof *r->wc);
	uint32_t *fill = xcalloc(nv + 1, sizeof *fill);
	for (size_t i = 0; i < st->writes.len; i++) {
		const struct sym_writes *ws = &st->writes.items[i];
		for (uint32_t k = 0; k < ws->nwrites; k++) {
			uint32_t v = ws->writes[k].value;
			uint32_t at = r->wstart[v] + fill[v]++;
			r->wl[at] = &ws->writes[k];
			r->wlaunch[at] = ws->launch;
		}
	}
	free(fill);
	r->tabs = wtab_cache_new();
	wtab_cache_set_deadline(r->tabs, &r->dl);
	r->mcap = 1024;
	r->memo = xmalloc(r->mcap * sizeof *r->memo);
	for (size_t i = 0; i < r->mcap; i++)
		r->memo[i].value = NO_VALUE;
	r->shcap = 256;
	r->sh = xcalloc(r->shcap, sizeof *r->sh);
	deadline_check_init(&r->dl, DEADLINE_NONE, DEADLINE_EVERY);
	return r;
}

void resolver_set_deadline(struct resolver *r, double deadline)
{
	deadline_check_init(&r->dl, deadline, DEADLINE_EVERY);
}

static void memo_clear(struct resolver *r);

void resolver_set_shared(struct resolver *r, const uint32_t *number)
{
	r->shared = number;
	memo_clear(r);
}

/* Float element off of a value numbered n: one unknown per (n, off, et),
 * the same in both programs (equal numbers hold equal bytes). */
static const struct expr *shared_leaf(struct resolver *r, uint32_t n, uint64_t off, enum etype et)
{
	const struct expr *at = e_bv(r->cx, off << 4 | (uint64_t)et, 64);
	return e_opaque(r->cx, EOPQ(EOPQ_FN, 0, RESOLVE_SHARED_TAG(n)), etype_sort(et), 1, &at);
}

void resolver_free(struct resolver *r)
{
	if (!r)
		return;
	arena_release(&r->arena);
	free(r->wstart);
	free(r->wl);
	free(r->wlaunch);
	free(r->wc);
	free(r->memo);
	free(r->sh);
	for (int i = 0; i < TM_KEEP; i++)
		e_thread_memo_free(r->tm[i]);
	rop_free(r->rop);
	wtab_cache_free(r->tabs);
	free(r);
}

void resolver_set_limits(struct resolver *r, const struct resolve_limits *l)
{
	r->lim = *l;
}

void resolver_geom(const struct obl_launch *l, struct smt_geom *g)
{
	for (int d = 0; d < 3; d++) {
		g->ntid[d] = l->block[d] > UINT32_MAX ? UINT32_MAX : (uint32_t)l->block[d];
		g->nctaid[d] = l->grid[d] > UINT32_MAX ? UINT32_MAX : (uint32_t)l->grid[d];
	}
}

enum etype resolver_value_etype(const struct resolver *r, uint32_t v)
{
	for (size_t guard = 0; v < r->o->values.len && guard <= r->o->values.len; guard++) {
		const struct obl_value *val = &r->o->values.items[v];
		if (val->def == VD_LAUNCH && r->wstart[v] < r->wstart[v + 1])
			return r->wl[r->wstart[v]]->et;
		if (val->def == VD_OP || val->def == VD_DATA || val->def == VD_INPUT) {
			enum etype et = rop_value_etype(r->o, v);
			if (et != ET_NONE)
				return et;
		}
		const struct sym_writes *ws = val->def == VD_LAUNCH && r->st->by_launch ?
		                              r->st->by_launch[val->launch] : NULL;
		for (uint32_t i = 0; ws && i < ws->natomics; i++)
			if (ws->atomics[i].value == v)
				return ws->atomics[i].et;
		v = val->def == VD_COPY ? val->src : val->prev;
	}
	return ET_NONE;
}

/* ---- memo ------------------------------------------------------------------ */

static size_t memo_hash(uint32_t v, uint64_t off, unsigned et)
{
	uint64_t h = off * 0x9e3779b97f4a7c15ull ^ ((uint64_t)v << 8 | et) * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h ^ h >> 29);
}

static struct memo_ent *memo_slot(struct resolver *r, uint32_t v, uint64_t off, unsigned et)
{
	size_t m = r->mcap - 1, i = memo_hash(v, off, et) & m;
	while (r->memo[i].value != NO_VALUE &&
	       !(r->memo[i].value == v && r->memo[i].off == off && r->memo[i].et == et))
		i = (i + 1) & m;
	return &r->memo[i];
}

static void memo_clear(struct resolver *r)
{
	for (size_t i = 0; i < r->mcap; i++)
		r->memo[i].value = NO_VALUE;
	r->mlen = 0;
	memset(r->sh, 0, r->shcap * sizeof *r->sh);
	r->shlen = 0;
	for (int i = 0; i < TM_KEEP; i++) {
		e_thread_memo_free(r->tm[i]);
		r->tm[i] = NULL;
	}
}

/* x at thread (tid, ctaid), coordinates substituted (loads not yet
 * resolved): through the memo of that thread, made (evicting the least
 * recent) when it is not kept.  Substitution is a function of the node
 * and the coordinates alone, so a kept memo is always right. */
static const struct expr *coords_at(struct resolver *r, const struct expr *x, const uint32_t tid[3],
                                    const uint32_t ctaid[3])
{
	if (!(x->flags & EXPR_F_THREAD))
		return x;
	int i = 0;
	while (i < TM_KEEP && r->tm[i] && !e_thread_memo_is(r->tm[i], tid, ctaid))
		i++;
	struct e_thread_memo *m;
	if (i < TM_KEEP && r->tm[i]) {
		m = r->tm[i];
	} else {
		if (i == TM_KEEP)
			e_thread_memo_free(r->tm[--i]);
		m = e_thread_memo_new(r->cx, tid, ctaid);
	}
	memmove(r->tm + 1, r->tm, (size_t)i * sizeof *r->tm);
	r->tm[0] = m;
	const struct expr *e = e_thread_memo_at(m, x);
	if (e_thread_memo_size(m) > TM_MAX_NODES) {
		e_thread_memo_free(m);
		r->tm[0] = NULL;
		memmove(r->tm, r->tm + 1, (TM_KEEP - 1) * sizeof *r->tm);
		r->tm[TM_KEEP - 1] = NULL;
	}
	return e;
}

static size_t sh_hash(const struct expr *load, const uint32_t ctaid[3], uint64_t warp)
{
	uint64_t h = (uint64_t)load->id * 0x9e3779b97f4a7c15ull;
	h ^= ((uint64_t)ctaid[0] << 32 | ctaid[1]) * 0xc2b2ae3d27d4eb4full;
	h ^= ((uint64_t)ctaid[2] << 32 ^ warp) * 0x165667b19e3779f9ull;
	return (size_t)(h ^ h >> 31);
}

static struct shmemo_ent *sh_slot(struct resolver *r, const struct expr *load, const uint32_t ctaid[3],
                                  uint64_t warp)
{
	size_t m = r->shcap - 1, i = sh_hash(load, ctaid, warp) & m;
	while (r->sh[i].load && !(r->sh[i].load == load && r->sh[i].warp == warp &&
	                          !memcmp(r->sh[i].ctaid, ctaid, sizeof r->sh[i].ctaid)))
		i = (i + 1) & m;
	return &r->sh[i];
}

static void sh_put(struct resolver *r, const struct shmemo_ent *e)
{
	if (2 * (r->shlen + 1) > r->shcap) {
		struct shmemo_ent *old = r->sh;
		size_t ocap = r->shcap;
		r->shcap *= 2;
		r->sh = xcalloc(r->shcap, sizeof *r->sh);
		for (size_t i = 0; i < ocap; i++)
			if (old[i].load)
				*sh_slot(r, old[i].load, old[i].ctaid, old[i].warp) = old[i];
		free(old);
	}
	struct shmemo_ent *s = sh_slot(r, e->load, e->ctaid, e->warp);
	if (!s->load)
		r->shlen++;
	*s = *e;
}

static void memo_put(struct resolver *r, const struct memo_ent *e)
{
	if (2 * (r->mlen + 1) > r->mcap) {
		struct memo_ent *old = r->memo;
		size_t ocap = r->mcap;
		r->mcap *= 2;
		r->memo = xmalloc(r->mcap * sizeof *r->memo);
		for (size_t i = 0; i < r->mcap; i++)
			r->memo[i].value = NO_VALUE;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].value != NO_VALUE)
				*memo_slot(r, old[i].value, old[i].off, old[i].et) = old[i];
		free(old);
	}
	struct memo_ent *s = memo_slot(r, e->value, e->off, e->et);
	if (s->value == NO_VALUE)
		r->mlen++;
	*s = *e;
}

/* ---- problems ---------------------------------------------------------------- */

/* Adds src's problems to dst, keeping dst's first details. */
static void info_merge(struct resolve_info *dst, const struct resolve_info *src)
{
	unsigned add = src->flags & ~dst->flags;
	if (add & RI_UNINIT) {
		dst->uninit_value = src->uninit_value;
		dst->uninit_off = src->uninit_off;
	}
	if (add & RI_RACE) {
		dst->race_launch = src->race_launch;
		dst->race_value = src->race_value;
		dst->race_off = src->race_off;
		memcpy(dst->race_tid, src->race_tid, sizeof dst->race_tid);
		memcpy(dst->race_ctaid, src->race_ctaid, sizeof dst->race_ctaid);
	}
	if ((add & RI_REASONS) && !(dst->flags & RI_REASONS))
		memcpy(dst->reason, src->reason, sizeof dst->reason);
	if (add & RI_TIMEOUT)
		memcpy(dst->doing, src->doing, sizeof dst->doing);
	dst->flags |= src->flags;
}

void ri_fail(struct resolve_info *info, unsigned flag, const char *fmt, ...)
{
	if (!(info->flags & RI_REASONS)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(info->reason, sizeof info->reason, fmt, ap);
		va_end(ap);
	}
	info->flags |= flag;
}

/* Has the deadline passed?  Then RI_TIMEOUT, doing saying what was being
 * resolved (the first such message wins). */
static bool out_of_time(struct resolver *r, struct resolve_info *acc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool out_of_time(struct resolver *r, struct resolve_info *acc, const char *fmt, ...)
{
	if (!deadline_tick(&r->dl))
		return false;
	if (!(acc->flags & RI_TIMEOUT)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(acc->doing, sizeof acc->doing, fmt, ap);
		va_end(ap);
	}
	acc->flags |= RI_TIMEOUT;
	return true;
}

/* ---- leaves of written values ------------------------------------------------ */

static const struct expr *res(struct resolver *r, uint32_t v, uint64_t off, enum etype et,
                              unsigned depth, struct resolve_info *acc, uint32_t *writer);

struct at_thread {
	struct resolver *r;
	const uint32_t *tid, *ctaid;
	unsigned depth;
	struct resolve_info *acc;
	bool failed;
};

static const struct expr *at_thread(struct resolver *r, const struct expr *x,
                                    const uint32_t tid[3], const uint32_t ctaid[3],
                                    unsigned depth, struct resolve_info *acc);
static const struct expr *uninit(struct resolver *r, uint32_t v, uint64_t off, enum etype et,
                                  struct resolve_info *acc);

/* The reader's warp where writes of the reader's own epoch (before its
 * warp epoch) could reach the load, else SH_ANY_WARP: writes of earlier
 * epochs are seen alike by every thread of the block. */
static uint64_t shared_warp_key(const struct resolver *r, const struct expr *e, const uint32_t tid[3])
{
	uint32_t l = SYM_SHARED_LAUNCH(e->space);
	if (e->args[0]->op != EOP_BV || l >= r->o->launches.len || !r->st->by_launch || !r->st->by_launch[l])
		return SH_ANY_WARP;          /* shared_writer says what is wrong */
	uint64_t code = e->args[0]->u;
	uint32_t sub = (uint32_t)(code >> SYM_SH_OFF_BITS) & ((1u << SYM_SH_SUB_BITS) - 1);
	uint32_t epoch = (uint32_t)(code >> (SYM_SH_OFF_BITS + SYM_SH_SUB_BITS));
	const struct sym_writes *sw = r->st->by_launch[l];
	for (uint32_t i = 0; i < sw->nshared; i++)
		if (sw->shared[i].epoch == epoch && sw->shared[i].sub < sub) {
			const struct obl_launch *ln = &r->o->launches.items[l];
			return ((uint64_t)tid[0] + ln->block[0] * ((uint64_t)tid[1] + ln->block[1] * tid[2])) / 32;
		}
	return SH_ANY_WARP;
}

int rs_shared_writer(struct resolver *r, const struct expr *load, const uint32_t tid[3],
                     const uint32_t ctaid[3], const struct sym_shwrite **w, uint32_t wtid[3],
                     struct resolve_info *acc)
{
	uint32_t launch;
	uint64_t off;
	return shared_writer(r->st, r->cx, r->smt, r->lim.max_enum, r->tabs, load, tid, ctaid, w, wtid,
	                     &launch, &off, acc);
}

/* A shared-memory LOAD read by thread (tid, ctaid) when no atomic
 * reaches it: the value its writer left (resolve-shared.c), or UNDEF
 * with RI_UNINIT (uninit_value names the launch's shared space) when no
 * thread of the block wrote it. */
const struct expr *rs_shared_plain(struct resolver *r, const struct expr *e, const uint32_t tid[3],
                                   const uint32_t ctaid[3], unsigned depth, struct resolve_info *acc)
{
	const struct sym_shwrite *w;
	uint32_t wtid[3], launch;
	uint64_t off;
	uint64_t warp = shared_warp_key(r, e, tid);
	struct shmemo_ent *hit = sh_slot(r, e, ctaid, warp);
	if (hit->load) {
		if (hit->note)
			info_merge(acc, hit->note);
		return hit->e;
	}
	if (depth + 1 > r->lim.max_depth) {
		ri_fail(acc, RI_TOO_BIG, "resolution nested deeper than %u elements", r->lim.max_depth);
		return NULL;
	}
	if (out_of_time(r, acc, "the budget ran out resolving a read of shared byte %llu of launch %u (%s) by thread "
	                "(%u,%u,%u) of block (%u,%u,%u), %u elements deep",
	                (unsigned long long)(e->args[0]->u & ((1ull << SYM_SH_OFF_BITS) - 1)),
	                SYM_SHARED_LAUNCH(e->space),
	                SYM_SHARED_LAUNCH(e->space) < r->o->launches.len ?
	                r->o->launches.items[SYM_SHARED_LAUNCH(e->space)].kernel : "?",
	                tid[0], tid[1], tid[2], ctaid[0], ctaid[1], ctaid[2], depth))
		return NULL;
	r->call_shared++;
	struct resolve_info loc;
	memset(&loc, 0, sizeof loc);
	const struct expr *x;
	int k = shared_writer(r->st, r->cx, r->smt, r->lim.max_enum, r->tabs, e, tid, ctaid, &w, wtid,
	                      &launch, &off, &loc);
	if (k < 0)
		x = NULL;
	else if (k == 0)
		x = uninit(r, SYM_SHARED_SPACE(launch), off, (enum etype)e->et, &loc);
	else if ((x = at_thread(r, w->val, wtid, ctaid, depth + 1, &loc)))
		x = rs_read_as(r->cx, x, w->et, (enum etype)e->et, &loc);
	if (!(loc.flags & (RI_TOO_BIG | RI_TIMEOUT))) {
		struct shmemo_ent ent = { e, { ctaid[0], ctaid[1], ctaid[2] }, warp, x, NULL };
		if (loc.flags)
			ent.note = arena_memdup(&r->arena, &loc, sizeof loc);
		sh_put(r, &ent);
	}
	info_merge(acc, &loc);
	return x;
}

/* A shared-memory LOAD read by thread t: combined with the atomics of
 * the block that reach it (resolve-atomic.c), else as rs_shared_plain. */
static const struct expr *res_shared(struct at_thread *t, const struct expr *e)
{
	const struct expr *x;
	int k = atomic_shared(t->r, e, t->tid, t->ctaid, t->depth, t->acc, &x);
	if (k < 0)
		return NULL;
	if (k > 0)
		return x;
	return rs_shared_plain(t->r, e, t->tid, t->ctaid, t->depth, t->acc);
}

static const struct expr *thread_leaf(struct ectx *cx, const struct expr *e, void *user)
{
	struct at_thread *t = user;
	uint32_t wr;
	const struct expr *x;
	switch (e->op) {
	case EOP_TID:
		return e_bv(cx, t->tid[e->u], 32);
	case EOP_CTAID:
		return e_bv(cx, t->ctaid[e->u], 32);
	case EOP_LOAD:
		if (SYM_IS_GREAD_SPACE(e->space)) {
			if (!(x = rs_global_read(t->r, e, t->tid, t->ctaid, t->depth, t->acc)))
				break;
			return x;
		}
		if (SYM_IS_SHARED_SPACE(e->space)) {
			if (!(x = res_shared(t, e)))
				break;
			return x;
		}
		if (e->args[0]->op != EOP_BV) {
			ri_fail(t->acc, RI_UNSUPPORTED, "a load address depends on data");
			break;
		}
		x = res(t->r, e->space, e->args[0]->u, (enum etype)e->et, t->depth + 1, t->acc, &wr);
		if (!x)
			break;
		return x;
	case EOP_ELEM:
		x = res(t->r, e->space, e->off, (enum etype)e->et, t->depth + 1, t->acc, &wr);
		if (!x)
			break;
		return x;
	case EOP_VAR:
		ri_fail(t->acc, RI_UNSUPPORTED, "a stored value depends on a pointer or free variable");
		break;
	case EOP_UNDEF:
		/* -inf and +inf stay for max and min to absorb (canon.h); dcheck
		 * says "undefined" where one is left */
		if (e->sort != SORT_REAL || (e->u != E_UNDEF_NINF && e->u != E_UNDEF_PINF))
			t->acc->flags |= RI_UNDEF;
		return NULL;
	default:
		return NULL;
	}
	t->failed = true;
	return e_undef(cx, e->sort);
}

/* The written expression x (a value or data part of a domain) at a thread,
 * with its loads resolved; NULL when one of them is unknown. */
static const struct expr *at_thread(struct resolver *r, const struct expr *x,
                                    const uint32_t tid[3], const uint32_t ctaid[3],
                                    unsigned depth, struct resolve_info *acc)
{
	struct at_thread t = { r, tid, ctaid, depth, acc, false };
	/* coordinates first: thread conditions fold, so the loads (and undefs)
	 * of arms this thread never takes are not resolved */
	const struct expr *e = e_subst(r->cx, coords_at(r, x, tid, ctaid), thread_leaf, &t);
	return t.failed ? NULL : e;
}

const struct expr *rs_at_thread(struct resolver *r, const struct expr *x, const uint32_t tid[3],
                                const uint32_t ctaid[3], unsigned depth, struct resolve_info *acc)
{
	return at_thread(r, x, tid, ctaid, depth, acc);
}

struct ectx *rs_cx(const struct resolver *r)
{
	return r->cx;
}

const struct sym_state *rs_state(const struct resolver *r)
{
	return r->st;
}

unsigned rs_max_depth(const struct resolver *r)
{
	return r->lim.max_depth;
}

static const struct expr *uninit(struct resolver *r, uint32_t v, uint64_t off, enum etype et,
                                  struct resolve_info *acc)
{
	if (!(acc->flags & RI_UNINIT)) {
		acc->uninit_value = v;
		acc->uninit_off = off;
	}
	acc->flags |= RI_UNINIT;
	return e_undef(r->cx, etype_sort(et));
}

const struct expr *rs_elem(struct resolver *r, uint32_t v, uint64_t off, enum etype et,
                           unsigned depth, struct resolve_info *acc)
{
	uint32_t wr;
	return res(r, v, off, et, depth, acc, &wr);
}

const struct expr *rs_before(struct resolver *r, uint32_t v, uint64_t off, enum etype et,
                             unsigned depth, struct resolve_info *acc)
{
	uint32_t prev = r->o->values.items[v].prev, wr;
	return prev == NO_VALUE ? uninit(r, v, off, et, acc) : res(r, prev, off, et, depth + 1, acc, &wr);
}

/* ---- launches ------------------------------------------------------------------ */

struct match {
	uint32_t tid[3], ctaid[3];
	const struct sym_write *w;
	uint32_t wi;
};

static void wcache_ready(struct resolver *r, uint32_t wi, const uint64_t n[6])
{
	struct wcache *c = &r->wc[wi];
	if (c->ready)
		return;
	const struct sym_write *w = r->wl[wi];
	c->ready = true;
	c->lin_ok = lin_of_addr(w->addr, n, &c->lin);
	split_dom(r->cx, w->dom, &c->dom_t, &c->dom_d);
}

static bool same_thread(const struct match *a, const struct match *b)
{
	return !memcmp(a->tid, b->tid, sizeof a->tid) && !memcmp(a->ctaid, b->ctaid, sizeof a->ctaid);
}

static int match_cmp(const void *pa, const void *pb)
{
	const struct match *a = pa, *b = pb;
	int c = memcmp(a->ctaid, b->ctaid, sizeof a->ctaid);
	if (!c)
		c = memcmp(a->tid, b->tid, sizeof a->tid);
	if (!c)
		c = a->w->seq < b->w->seq ? -1 : a->w->seq > b->w->seq;
	return c;
}

/* Can a store of type w be read as r?  The same type, two integer types,
 * or a float and an integer of one size: the read reinterprets the bits. */
static bool readable_as(enum etype w, enum etype r)
{
	if (w == r || (!etype_is_float(w) && !etype_is_float(r)))
		return true;
	return etype_size(w) == etype_size(r) && etype_is_float(w) != etype_is_float(r);
}

/* Does value v hold bytes of the host or of a torch op (whose integer
 * reads resolve to recorded contents) rather than a kernel's stores? */
static bool from_host(const struct resolver *r, uint32_t v)
{
	for (size_t guard = 0; v < r->o->values.len && guard <= r->o->values.len; guard++) {
		const struct obl_value *val = &r->o->values.items[v];
		if (val->def == VD_INPUT || val->def == VD_OP || val->def == VD_DATA)
			return true;
		if (val->def != VD_COPY)
			return false;
		v = val->src;
	}
	return false;
}

/* An integer leaf below e that resolves to recorded contents. */
static bool has_int_leaf(const struct resolver *r, const struct expr *e)
{
	if ((e->op == EOP_INPUT || e->op == EOP_ELEM) && !etype_is_float((enum etype)e->et))
		return true;
	if (e->op == EOP_LOAD && !etype_is_float((enum etype)e->et) && !SYM_IS_SHARED_SPACE(e->space) &&
	    from_host(r, e->space))
		return true;
	for (unsigned i = 0; i < e->nargs; i++)
		if ((e->args[i]->flags & EXPR_F_DATA) && has_int_leaf(r, e->args[i]))
			return true;
	return false;
}

/* An opaque node below e with such an integer leaf among its arguments. */
static bool opaque_of_int(const struct resolver *r, const struct expr *e)
{
	if (!(e->flags & EXPR_F_OPAQUE))
		return false;
	if (e->op == EOP_OPAQUE)
		for (unsigned i = 0; i < e->nargs; i++)
			if (has_int_leaf(r, e->args[i]))
				return true;
	for (unsigned i = 0; i < e->nargs; i++)
		if (opaque_of_int(r, e->args[i]))
			return true;
	return false;
}

/* Value x that launch l stored as type w, read as r (a float and an
 * integer of one size): its bits reinterpreted before its loads are
 * resolved, so that the idioms of expr-bits.c see the loads as the
 * program read them.  NULL (RI_UNSUPPORTED) when the bits of an integer
 * load of host data would stay opaque: integer reads of inputs resolve to
 * recorded constants (resolve.h), which must not become a float. */
static const struct expr *reinterpret_write(struct resolver *r, const struct sym_write *sw, enum etype rd,
                                            uint32_t l, struct resolve_info *acc)
{
	const struct expr *x = sw->val;
	enum etype w = sw->et;
	if (w == rd || etype_is_float(w) == etype_is_float(rd))
		return x;
	const struct expr *c = rs_bits_as(r->cx, x, w, rd);   /* constant bits: the real itself */
	if (c)
		return c;
	const struct expr *y = e_reinterp(r->cx, SYM_OPAQUE_STORE(l, sw->line), x, etype_is_float(rd) ? rd : w);
	if (!y || opaque_of_int(r, y)) {
		ri_fail(acc, RI_UNSUPPORTED, "launch %u stores %s bits that are read as %s", l, etype_name(w),
		        etype_name(rd));
		return NULL;
	}
	return y;
}

/* The value one thread leaves at the location: its matching writes in
 * program order, each guarded by the data part of its domain (a write
 * whose guard fails leaves what was there before: the previous version). */
static const struct expr *thread_value(struct resolver *r, const struct match *m, size_t n,
                                       uint32_t v, uint64_t off, enum etype et,
                                       unsigned depth, struct resolve_info *acc)
{
	const struct expr *cur = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct wcache *c = &r->wc[m[i].wi];
		const struct expr *val = reinterpret_write(r, m[i].w, et, r->o->values.items[v].launch, acc);
		if (!val)
			return NULL;
		const struct expr *x = at_thread(r, val, m[i].tid, m[i].ctaid, depth, acc);
		if (!x)
			return NULL;
		if (!c->dom_d) {
			cur = x;
			continue;
		}
		const struct expr *cond = at_thread(r, c->dom_d, m[i].tid, m[i].ctaid, depth, acc);
		if (!cond)
			return NULL;
		if (!cur) {
			uint32_t prev = r->o->values.items[v].prev, wr;
			cur = prev == NO_VALUE ? uninit(r, v, off, et, acc)
			                       : res(r, prev, off, et, depth + 1, acc, &wr);
			if (!cur)
				return NULL;
		}
		cur = e_ite(r->cx, cond, x, cur);
	}
	return cur;
}

int rs_plain_hits(struct resolver *r, uint32_t v, uint64_t off, enum etype et, struct plain_hit *ph,
                  size_t max, bool *all, struct resolve_info *acc)
{
	uint32_t l = r->o->values.items[v].launch;
	struct smt_geom g;
	resolver_geom(&r->o->launches.items[l], &g);
	uint64_t n[6] = { g.ntid[0], g.ntid[1], g.ntid[2], g.nctaid[0], g.nctaid[1], g.nctaid[2] };
	size_t nh = 0;
	*all = true;
	for (uint32_t wi = r->wstart[v]; wi < r->wstart[v + 1]; wi++) {
		wcache_ready(r, wi, n);
		struct inv_query q = {
			.cx = r->cx, .smt = r->smt, .geom = &g, .n = n,
			.addr = r->wl[wi]->addr, .dom_t = r->wc[wi].dom_t,
			.lin = r->wc[wi].lin_ok ? &r->wc[wi].lin : NULL,
			.wsize = etype_size(r->wl[wi]->et), .rsize = etype_size(et),
			.same_kind = r->wl[wi]->et == et ||
			             (!etype_is_float(r->wl[wi]->et) && !etype_is_float(et)) ||
			             rs_bits_as(r->cx, r->wl[wi]->val, r->wl[wi]->et, et),
			.off = off, .max_enum = r->lim.max_enum, .launch = l,
		};
		uint32_t tids[MAX_MATCH][3], ctaids[MAX_MATCH][3];
		int k = invert_write(&q, tids, ctaids, MAX_MATCH, acc);
		if (k < 0)
			return -1;
		*all &= k < MAX_MATCH && nh + (size_t)k <= max;
		for (int j = 0; j < k && nh < max; j++, nh++) {
			memcpy(ph[nh].tid, tids[j], sizeof ph[nh].tid);
			memcpy(ph[nh].ctaid, ctaids[j], sizeof ph[nh].ctaid);
			ph[nh].w = r->wl[wi];
			ph[nh].dom_d = r->wc[wi].dom_d;
		}
	}
	return (int)nh;
}

/* Resolves value v (defined by a launch) at off: 1 with *out (NULL when
 * unknown) if some thread writes the location, 0 if none does (the caller
 * goes on with the previous version), -1 when that cannot be decided. */
static int res_launch(struct resolver *r, uint32_t v, uint64_t off, enum etype et,
                      unsigned depth, struct resolve_info *acc, const struct expr **out)
{
	const struct obl_value *val = &r->o->values.items[v];
	uint32_t l = val->launch;
	const struct obl_launch *ln = &r->o->launches.items[l];
	*out = NULL;
	if (r->st->launch_unsupported && r->st->launch_unsupported[l]) {
		ri_fail(acc, RI_UNSUPPORTED, "%s", r->st->launch_unsupported[l]);
		return -1;
	}
	if (r->st->launch_timeout && r->st->launch_timeout[l]) {
		if (!(acc->flags & RI_TIMEOUT))
			snprintf(acc->doing, sizeof acc->doing, "%s", r->st->launch_timeout[l]);
		acc->flags |= RI_TIMEOUT;
		return -1;
	}
	if (!r->st->by_launch || !r->st->by_launch[l]) {
		ri_fail(acc, RI_UNSUPPORTED, "no write set for launch %u (%s)", l, ln->kernel);
		return -1;
	}
	struct smt_geom g;
	resolver_geom(ln, &g);
	uint64_t n[6] = { g.ntid[0], g.ntid[1], g.ntid[2], g.nctaid[0], g.nctaid[1], g.nctaid[2] };
	struct match m[MAX_MATCH * 4];
	size_t nm = 0;
	bool all = true;              /* every plain writer of the location is in m */
	for (uint32_t wi = r->wstart[v]; wi < r->wstart[v + 1]; wi++) {
		wcache_ready(r, wi, n);
		struct inv_query q = {
			.cx = r->cx, .smt = r->smt, .geom = &g, .n = n,
			.addr = r->wl[wi]->addr, .dom_t = r->wc[wi].dom_t,
			.lin = r->wc[wi].lin_ok ? &r->wc[wi].lin : NULL,
			.wsize = etype_size(r->wl[wi]->et), .rsize = etype_size(et),
			.same_kind = readable_as(r->wl[wi]->et, et),
			.off = off, .max_enum = r->lim.max_enum, .launch = l, .tabs = r->tabs,
		};
		uint32_t tids[MAX_MATCH][3], ctaids[MAX_MATCH][3];
		int k = invert_write(&q, tids, ctaids, MAX_MATCH, acc);
		if (k < 0)
			return -1;
		all &= k < MAX_MATCH && nm + (size_t)k <= sizeof m / sizeof *m;
		for (int j = 0; j < k && nm < sizeof m / sizeof *m; j++, nm++) {
			memcpy(m[nm].tid, tids[j], sizeof m[nm].tid);
			memcpy(m[nm].ctaid, ctaids[j], sizeof m[nm].ctaid);
			m[nm].w = r->wl[wi];
			m[nm].wi = wi;
		}
	}
	const struct expr *ae;
	struct plain_hit ph[sizeof m / sizeof *m];
	for (size_t i = 0; i < nm; i++) {
		memcpy(ph[i].tid, m[i].tid, sizeof ph[i].tid);
		memcpy(ph[i].ctaid, m[i].ctaid, sizeof ph[i].ctaid);
		ph[i].w = m[i].w;
		ph[i].dom_d = r->wc[m[i].wi].dom_d;
	}
	int ka = atomic_global(r, v, off, et, depth, acc, ph, nm, all, &ae);
	if (ka < 0)
		return -1;
	if (ka > 0) {
		*out = ae;
		return 1;
	}
	if (!nm)
		return 0;
	qsort(m, nm, sizeof *m, match_cmp);
	const struct expr *first = NULL;
	size_t first_at = 0;
	for (size_t i = 0; i < nm;) {
		size_t j = i + 1;
		while (j < nm && same_thread(&m[i], &m[j]))
			j++;
		const struct expr *e = thread_value(r, m + i, j - i, v, off, et, depth, acc);
		if (!e)
			return 1;
		if (!first) {
			first = e;
			first_at = i;
		} else if (e != first) {
			if (!(acc->flags & RI_RACE)) {
				acc->race_launch = l;
				acc->race_value = v;
				acc->race_off = off;
				memcpy(acc->race_tid[0], m[first_at].tid, sizeof acc->race_tid[0]);
				memcpy(acc->race_ctaid[0], m[first_at].ctaid, sizeof acc->race_ctaid[0]);
				memcpy(acc->race_tid[1], m[i].tid, sizeof acc->race_tid[1]);
				memcpy(acc->race_ctaid[1], m[i].ctaid, sizeof acc->race_ctaid[1]);
			}
			acc->flags |= RI_RACE;
			return 1;
		}
		i = j;
	}
	*out = first;
	return 1;
}

/* ---- inputs, memsets, copies ------------------------------------------------- */

/* The float of type et whose bits are the low bytes of u. */
static double float_bits(enum etype et, uint64_t u)
{
	if (et == ET_F64) {
		double d;
		memcpy(&d, &u, sizeof d);
		return d;
	}
	if (et == ET_F32) {
		float f;
		uint32_t b = (uint32_t)u;
		memcpy(&f, &b, sizeof f);
		return f;
	}
	if (et == ET_BF16) {
		float f;
		uint32_t b = (uint32_t)(u & 0xffff) << 16;
		memcpy(&f, &b, sizeof f);
		return f;
	}
	/* f16: 1 sign, 5 exponent, 10 mantissa bits */
	unsigned h = u & 0xffff, ex = (h >> 10) & 0x1f, man = h & 0x3ff;
	double v = ex == 0 ? ldexp(man, -24) : ex == 31 ? (man ? NAN : INFINITY) : ldexp(man | 0x400, (int)ex - 25);
	return h & 0x8000 ? -v : v;
}

const struct expr *rs_bits_as(struct ectx *cx, const struct expr *val, enum etype wet, enum etype et)
{
	if (val->op != EOP_BV || etype_is_float(wet) || !etype_is_float(et) || etype_size(wet) != etype_size(et))
		return NULL;
	double d = float_bits(et, val->u);
	return isfinite(d) ? e_real(cx, d) : NULL;
}

const struct expr *rs_read_as(struct ectx *cx, const struct expr *x, enum etype wet, enum etype et,
                              struct resolve_info *acc)
{
	if (!etype_is_float(et) || etype_is_float(wet))
		return x;
	const struct expr *f = rs_bits_as(cx, x, wet, et);
	if (!f)
		ri_fail(acc, RI_UNSUPPORTED, "a %s store read as %s", etype_name(wet), etype_name(et));
	return f;
}

static const struct expr *res_input(struct resolver *r, const struct obl_value *val,
                                    uint64_t off, enum etype et, struct resolve_info *acc)
{
	const struct obl_input *in = &r->o->inputs.items[val->input];
	if (obl_input_random(in)) {
		ri_fail(acc, RI_RANDOM, "depends on random op %s (a fresh, unconstrained value)",
		        in->name ? in->name : "?");
		return NULL;
	}
	uint64_t at = off - val->off;
	unsigned size = etype_size(et);
	if (etype_is_float(et) || !in->data || at + size > in->ndata)
		return e_input(r->cx, val->input, at, et);
	uint64_t u = 0;
	const unsigned char *p = (const unsigned char *)in->data + at;
	for (unsigned i = 0; i < size; i++)
		u |= (uint64_t)p[i] << (8 * i);
	return e_bv(r->cx, u, 8 * size);
}

static const struct expr *res_memset(struct resolver *r, uint8_t fill, enum etype et,
                                     struct resolve_info *acc)
{
	unsigned size = etype_size(et);
	uint64_t u = 0;
	for (unsigned i = 0; i < size; i++)
		u |= (uint64_t)fill << (8 * i);
	if (!etype_is_float(et))
		return e_bv(r->cx, u, 8 * size);
	double d = float_bits(et, u);
	if (!isfinite(d)) {
		ri_fail(acc, RI_UNSUPPORTED, "memset byte 0x%02x is not a finite %s", fill, etype_name(et));
		return NULL;
	}
	return e_real(r->cx, d);
}

/* Where [off, off+size) lies relative to [lo, lo+len): 1 inside, 0
 * outside, -1 straddling the edge. */
static int range_rel(uint64_t off, unsigned size, uint64_t lo, uint64_t len)
{
	if (off >= lo && off - lo < len && size <= len - (off - lo))
		return 1;
	if (off + size <= lo || off >= lo + len)
		return 0;
	return -1;
}

static const struct expr *res_value(struct resolver *r, uint32_t v, uint64_t off, enum etype et,
                                    unsigned depth, struct resolve_info *acc, uint32_t *writer)
{
	unsigned size = etype_size(et);
	uint32_t v0 = v;
	for (;;) {
		if (v >= r->o->values.len) {
			ri_fail(acc, RI_UNSUPPORTED, "value %u does not exist", v);
			return NULL;
		}
		const struct obl_value *val = &r->o->values.items[v];
		if (off > val->bytes || size > val->bytes - off) {
			ri_fail(acc, RI_UNSUPPORTED, "read of %u bytes at offset %llu is outside value %u (%llu bytes)",
			        size, (unsigned long long)off, v, (unsigned long long)val->bytes);
			return NULL;
		}
		int rel = obl_value_ranged(val) ? range_rel(off, size, val->off, val->len) : 0;
		if (rel < 0) {
			ri_fail(acc, RI_UNSUPPORTED, "read of %u bytes at offset %llu straddles the %s range of value %u",
			        size, (unsigned long long)off, value_def_name(val->def), v);
			return NULL;
		}
		if (rel > 0) {
			switch (val->def) {
			case VD_INPUT:
			case VD_OP:          /* a trimmed prefix's result */
				return res_input(r, val, off, et, acc);
			case VD_DATA:
				return rop_data(r, val, off, et, acc);
			case VD_MEMSET:
				return res_memset(r, val->fill, et, acc);
			case VD_COPY:
				return res(r, val->src, val->src_off + (off - val->off), et, depth + 1, acc, writer);
			default:
				break;
			}
		}
		if (val->def == VD_OP) {
			const struct expr *e;
			int k = rop_elem(r, &r->rop, v, off, et, depth, acc, &e);
			if (k < 0)
				return NULL;
			if (k > 0)
				return e;
		}
		if (val->def == VD_LAUNCH) {
			const struct expr *e;
			int k = res_launch(r, v, off, et, depth, acc, &e);
			if (k < 0)
				return NULL;
			if (k > 0) {
				*writer = val->launch;
				return e;
			}
		}
		if (val->prev == NO_VALUE)
			return uninit(r, v0, off, et, acc);
		v = val->prev;
	}
}

/* Memoised resolution of one element. */
static const struct expr *res(struct resolver *r, uint32_t v, uint64_t off, enum etype et,
                              unsigned depth, struct resolve_info *acc, uint32_t *writer)
{
	*writer = NO_VALUE;
	if (et <= ET_NONE || et >= ET__COUNT) {
		ri_fail(acc, RI_UNSUPPORTED, "read of an unknown element type");
		return NULL;
	}
	struct memo_ent *hit = memo_slot(r, v, off, et);
	if (hit->value != NO_VALUE) {
		if (hit->note)
			info_merge(acc, hit->note);
		*writer = hit->writer;
		return hit->e;
	}
	if (r->shared && depth > 0 && v < r->o->values.len && r->shared[v] && etype_is_float(et))
		return shared_leaf(r, r->shared[v], off, et);
	if (depth > r->lim.max_depth) {
		ri_fail(acc, RI_TOO_BIG, "resolution nested deeper than %u elements", r->lim.max_depth);
		return NULL;
	}
	if (++r->call_elems > r->lim.max_elems) {
		ri_fail(acc, RI_TOO_BIG, "location depends on more than %llu elements",
		        (unsigned long long)r->lim.max_elems);
		return NULL;
	}
	if (v < r->o->values.len &&
	    out_of_time(r, acc, "the budget ran out resolving value %u byte %llu (%s%s%s), %u elements deep", v,
	                (unsigned long long)off, value_def_name(r->o->values.items[v].def),
	                r->o->values.items[v].def == VD_LAUNCH ? " " : "",
	                r->o->values.items[v].def == VD_LAUNCH ?
	                r->o->launches.items[r->o->values.items[v].launch].kernel : "", depth))
		return NULL;
	struct resolve_info loc;
	memset(&loc, 0, sizeof loc);
	uint32_t wr = NO_VALUE;
	const struct expr *e = res_value(r, v, off, et, depth, &loc, &wr);
	if (!(loc.flags & (RI_TOO_BIG | RI_TIMEOUT))) {
		struct memo_ent ent = { off, v, (uint8_t)et, wr, e, NULL };
		if (loc.flags)
			ent.note = arena_memdup(&r->arena, &loc, sizeof loc);
		memo_put(r, &ent);
	}
	info_merge(acc, &loc);
	*writer = wr;
	return e;
}

const struct expr *resolve_elem(struct resolver *r, uint32_t value, uint64_t off,
                                enum etype et, struct resolve_info *info)
{
	memset(info, 0, sizeof *info);
	if (r->mlen > MEMO_MAX)
		memo_clear(r);
	r->call_elems = r->call_shared = 0;
	const struct expr *e = res(r, value, off, et, 0, info, &info->writer);
	info->elems = r->call_elems;
	info->shared = r->call_shared;
	if (info->flags & RI_NO_RESULT)
		return NULL;
	return e;
}
