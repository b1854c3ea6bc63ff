/*
 * resolve-atomic.c: back-projection through atomics (dirigo(7), DESIGN).
 *
 * dexec records each atom/red as a contribution (dom, addr, val, op) to
 * the launch's "atomics" (global memory) or "shared_atomics" (the block's
 * shared window, tagged with the barrier epoch).  At check time the
 * location is concrete, so the contributing threads are enumerated by
 * inverting the address over the thread space: the affine search of
 * resolve-inv.c (no solver: it finds one witness, not all of them), or,
 * for small launches, every thread evaluated.  At most MAX_CONTRIB
 * threads; more is unknown.  The location then holds
 *
 *     add       prev + the sum of the contributions (one n-ary sum)
 *     min/max   min/max of prev and the contributions (nested, in thread order)
 *     and/or/xor  likewise, on bitvectors
 *     exch      the contributed value if all threads give the same one,
 *               else a race (the last writer wins)
 *     cas       ite(prev == cmp, val) if all threads give the same pair
 *     inc/dec   prev stepped once per thread when prev and the bound are
 *               constants
 *
 * where prev is what the location held before, and a contribution whose
 * domain depends on data counts where that condition holds.  Block
 * barriers order a location's history: its atomics and plain stores are
 * taken epoch by epoch (each write carries the barrier epoch of its
 * thread), the atomics of one epoch combined at once over what the epoch
 * before left.  In global memory that holds when the threads of one
 * block make all the plain stores and atomics of the location (nothing
 * orders two blocks: a plain store and an atomic of different blocks is
 * a race, RI_RACE, as are a plain store and an atomic of different
 * threads in one epoch); prev is the contents before the launch.  In
 * shared memory a read sees the latest plain store of its block before
 * it (resolve-shared.c) combined with the atomics of the later epochs
 * before the read's own; atomics of that store's epoch by other threads
 * race with it.  Unsupported: different operations in one epoch, and a
 * shared read in the epoch of an atomic that reaches it (a race, which
 * dexec reports).
 */
#include "engine/resolve-impl.h"

#include <stdlib.h>
#include <string.h>

#define MAX_CONTRIB (1u << 16)     /* contributing threads per location */
#define BRUTE_MAX   (1u << 16)     /* threads evaluated one by one */
#define MAX_NODES   (1u << 22)     /* search nodes of the affine inversion */

struct contrib {
	uint32_t tid[3], ctaid[3];
	uint32_t wi;                   /* which atomic */
};

struct cvec { struct contrib *items; size_t len, cap; };

/* One atomic, global or shared, as the combination needs it. */
struct aview {
	const struct expr *dom_d;      /* data part of the domain, or NULL */
	const struct expr *val, *cmp;
	enum etype et;
	unsigned op;
	uint32_t epoch;                /* barrier epoch (0 for old streams' global atomics) */
	uint32_t seq;                  /* program order within the thread */
};

/* ---- which threads hit the location ------------------------------------------------ */

static bool coord_val(const struct expr *leaf, struct evalue *out, void *user)
{
	const uint32_t *x = user;
	if ((leaf->op != EOP_TID && leaf->op != EOP_CTAID) || leaf->u > 2)
		return false;
	memset(out, 0, sizeof *out);
	out->u = x[(leaf->op == EOP_CTAID ? 3 : 0) + leaf->u];
	return true;
}

static void push(struct cvec *c, const uint32_t tid[3], const uint32_t ctaid[3], uint32_t wi)
{
	struct contrib k;
	memcpy(k.tid, tid, sizeof k.tid);
	memcpy(k.ctaid, ctaid, sizeof k.ctaid);
	k.wi = wi;
	VEC_PUSH(*c, k);
}

/* Every thread of geometry n evaluated: those of dom_t whose address is
 * off.  0, or -1 after ri_fail. */
static int brute(const struct inv_query *q, uint32_t wi, struct cvec *c, struct resolve_info *acc)
{
	uint32_t x[6];
	for (x[5] = 0; x[5] < q->n[5]; x[5]++)
	for (x[4] = 0; x[4] < q->n[4]; x[4]++)
	for (x[3] = 0; x[3] < q->n[3]; x[3]++)
	for (x[2] = 0; x[2] < q->n[2]; x[2]++)
	for (x[1] = 0; x[1] < q->n[1]; x[1]++)
	for (x[0] = 0; x[0] < q->n[0]; x[0]++) {
		struct evalue d, a;
		if (!e_eval(q->dom_t, EM_EXACT, coord_val, x, &d) || d.undef ||
		    !e_eval(q->addr, EM_EXACT, coord_val, x, &a) || a.undef) {
			ri_fail(acc, RI_UNSUPPORTED, "an atomic of launch %u cannot be evaluated at a thread",
			        q->launch);
			return -1;
		}
		if (!d.b)
			continue;
		if (a.u == q->off && q->wsize == q->rsize && q->same_kind) {
			if (c->len >= MAX_CONTRIB) {
				ri_fail(acc, RI_TOO_BIG, "more than %u threads of launch %u update byte %llu atomically",
				        MAX_CONTRIB, q->launch, (unsigned long long)q->off);
				return -1;
			}
			push(c, x, x + 3, wi);
		} else if (a.u < q->off + q->rsize && q->off < a.u + q->wsize) {
			ri_fail(acc, RI_UNSUPPORTED, "launch %u updates %u bytes at offset %llu atomically, read as "
			        "%u bytes at %llu", q->launch, q->wsize, (unsigned long long)a.u, q->rsize,
			        (unsigned long long)q->off);
			return -1;
		}
	}
	return 0;
}

/* Adds the threads of q's geometry that hit q->off to c.  0, or -1 after
 * ri_fail. */
static int hits(struct inv_query *q, uint32_t wi, struct cvec *c, struct resolve_info *acc)
{
	struct lin li;
	uint64_t total = 1;
	for (int i = 0; i < 6; i++)
		total = total * q->n[i] > (uint64_t)1 << 40 ? (uint64_t)1 << 40 : total * q->n[i];
	struct resolve_info tmp;
	memset(&tmp, 0, sizeof tmp);
	if (lin_of_addr(q->addr, q->n, &li)) {
		q->lin = &li;
		size_t room = MAX_CONTRIB + 1 - (c->len < MAX_CONTRIB ? c->len : MAX_CONTRIB);
		uint32_t (*tids)[3] = xcalloc(room, sizeof *tids), (*ctaids)[3] = xcalloc(room, sizeof *ctaids);
		int k = invert_write(q, tids, ctaids, (int)room, &tmp);
		for (int j = 0; j < k; j++)
			push(c, tids[j], ctaids[j], wi);
		free(tids);
		free(ctaids);
		q->lin = NULL;
		if (k >= 0) {
			if (c->len > MAX_CONTRIB) {
				ri_fail(acc, RI_TOO_BIG, "more than %u threads of launch %u update byte %llu atomically",
				        MAX_CONTRIB, q->launch, (unsigned long long)q->off);
				return -1;
			}
			return 0;
		}
	}
	if (total <= BRUTE_MAX)
		return brute(q, wi, c, acc);
	if (tmp.flags)
		ri_fail(acc, (tmp.flags & RI_TOO_BIG) ? RI_TOO_BIG : RI_UNSUPPORTED, "%s", tmp.reason);
	else
		ri_fail(acc, RI_UNSUPPORTED, "an atomic address of launch %u is not affine in the thread "
		        "coordinates and the launch has more than %u threads", q->launch, BRUTE_MAX);
	return -1;
}

static bool kinds_match(enum etype w, enum etype r)
{
	return etype_size(w) == etype_size(r) && etype_is_float(w) == etype_is_float(r);
}

static int contrib_cmp(const void *pa, const void *pb)
{
	const struct contrib *a = pa, *b = pb;
	for (int d = 2; d >= 0; d--)
		if (a->ctaid[d] != b->ctaid[d])
			return a->ctaid[d] < b->ctaid[d] ? -1 : 1;
	for (int d = 2; d >= 0; d--)
		if (a->tid[d] != b->tid[d])
			return a->tid[d] < b->tid[d] ? -1 : 1;
	return a->wi < b->wi ? -1 : a->wi > b->wi;
}

/* ---- combining ------------------------------------------------------------------ */

/* The n-ary op (FADD or ADD) of v[0..n), in groups the constructor takes. */
static const struct expr *nary(struct ectx *cx, enum eop op, sort_t s, const struct expr **v, size_t n)
{
	while (n > 1) {
		size_t m = 0;
		for (size_t i = 0; i < n; i += E_MAX_ARGS) {
			size_t k = n - i < E_MAX_ARGS ? n - i : E_MAX_ARGS;
			v[m++] = k == 1 ? v[i] : e_op(cx, op, s, 0, (unsigned)k, v + i);
		}
		n = m;
	}
	return v[0];
}

static const struct expr *zero_of(struct ectx *cx, sort_t s, bool ones)
{
	if (s == SORT_REAL)
		return e_real(cx, 0);
	unsigned w = SORT_WIDTH(s);
	return e_bv(cx, ones ? (w >= 64 ? ~0ull : ((1ull << w) - 1)) : 0, w);
}

/* One step of atom.inc/dec with bound b on a u32. */
static uint64_t incdec(unsigned op, uint64_t x, uint64_t b)
{
	if (op == SA_INC)
		return x >= b ? 0 : x + 1;
	return x == 0 || x > b ? b : x - 1;
}

static const struct expr *order_dependent(struct resolve_info *acc, const char *op, uint32_t launch,
                                          uint64_t off)
{
	ri_fail(acc, RI_UNSUPPORTED, "atomic %s of launch %u at byte %llu: the result depends on the "
	        "order of the threads", op, launch, (unsigned long long)off);
	return NULL;
}

/* The location's final contents: prev combined with the contributions c
 * of the atomics av (read as et).  NULL when unknown (reason in acc). */
static const struct expr *combine(struct resolver *r, const struct aview *av, struct cvec *c,
                                  const struct expr *prev, enum etype et, unsigned depth,
                                  uint32_t launch, uint64_t off, struct resolve_info *acc)
{
	struct ectx *cx = rs_cx(r);
	sort_t s = etype_sort(et);
	unsigned op = av[c->items[0].wi].op;
	enum etype wet = av[c->items[0].wi].et;
	for (size_t i = 0; i < c->len; i++) {
		const struct aview *a = &av[c->items[i].wi];
		if (a->op != op || !kinds_match(a->et, et) ||
		    ((op == SA_MIN || op == SA_MAX) && a->et != wet)) {
			ri_fail(acc, RI_UNSUPPORTED, "launch %u combines different atomic operations or types "
			        "at byte %llu", launch, (unsigned long long)off);
			return NULL;
		}
	}
	qsort(c->items, c->len, sizeof *c->items, contrib_cmp);
	size_t n = c->len;
	const struct expr **x = xcalloc(n + 1, sizeof *x), **g = xcalloc(n + 1, sizeof *g),
	                  **k = xcalloc(n + 1, sizeof *k);
	const struct expr *res = NULL;
	bool guarded = false;
	for (size_t i = 0; i < n; i++) {
		const struct contrib *t = &c->items[i];
		const struct aview *a = &av[t->wi];
		if (!(x[i] = rs_at_thread(r, a->val, t->tid, t->ctaid, depth + 1, acc)))
			goto out;
		if (a->cmp && !(k[i] = rs_at_thread(r, a->cmp, t->tid, t->ctaid, depth + 1, acc)))
			goto out;
		if (a->dom_d) {
			if (!(g[i] = rs_at_thread(r, a->dom_d, t->tid, t->ctaid, depth + 1, acc)))
				goto out;
			if (e_is_true(g[i]))
				g[i] = NULL;
			guarded |= g[i] != NULL;
		}
	}
	switch (op) {
	case SA_ADD:
		for (size_t i = 0; i < n; i++)
			if (g[i])
				x[i] = e_ite(cx, g[i], x[i], zero_of(cx, s, false));
		x[n] = prev;
		res = nary(cx, s == SORT_REAL ? EOP_FADD : EOP_ADD, s, x, n + 1);
		break;
	case SA_MIN:
	case SA_MAX:
	case SA_AND:
	case SA_OR:
	case SA_XOR: {
		enum eop e;
		if (op == SA_MIN)
			e = s == SORT_REAL ? EOP_FMIN : (wet == ET_S32 || wet == ET_S64) ? EOP_SMIN : EOP_UMIN;
		else if (op == SA_MAX)
			e = s == SORT_REAL ? EOP_FMAX : (wet == ET_S32 || wet == ET_S64) ? EOP_SMAX : EOP_UMAX;
		else
			e = op == SA_AND ? EOP_AND : op == SA_OR ? EOP_OR : EOP_XOR;
		res = prev;
		for (size_t i = 0; i < n; i++) {
			const struct expr *m = e_op2(cx, e, res, x[i]);
			res = g[i] ? e_ite(cx, g[i], m, res) : m;
		}
		break;
	}
	case SA_EXCH:
		if (guarded) {
			order_dependent(acc, "exch under a data-dependent condition", launch, off);
			goto out;
		}
		for (size_t i = 1; i < n; i++)
			if (x[i] != x[0]) {
				if (!(acc->flags & RI_RACE)) {
					acc->race_launch = launch;
					acc->race_value = NO_VALUE;
					acc->race_off = off;
					memcpy(acc->race_tid[0], c->items[0].tid, sizeof acc->race_tid[0]);
					memcpy(acc->race_ctaid[0], c->items[0].ctaid, sizeof acc->race_ctaid[0]);
					memcpy(acc->race_tid[1], c->items[i].tid, sizeof acc->race_tid[1]);
					memcpy(acc->race_ctaid[1], c->items[i].ctaid, sizeof acc->race_ctaid[1]);
				}
				acc->flags |= RI_RACE;
				goto out;
			}
		res = x[0];
		break;
	case SA_CAS:
		for (size_t i = 0; i < n; i++)
			if (g[i] || x[i] != x[0] || k[i] != k[0]) {
				order_dependent(acc, "cas", launch, off);
				goto out;
			}
		res = e_ite(cx, e_op2(cx, EOP_EQ, prev, k[0]), x[0], prev);
		break;
	case SA_INC:
	case SA_DEC: {
		if (guarded || prev->op != EOP_BV) {
			order_dependent(acc, op == SA_INC ? "inc" : "dec", launch, off);
			goto out;
		}
		uint64_t v = prev->u;
		for (size_t i = 0; i < n; i++) {
			if (x[i] != x[0] || x[i]->op != EOP_BV) {
				order_dependent(acc, op == SA_INC ? "inc" : "dec", launch, off);
				goto out;
			}
			v = incdec(op, v, x[0]->u);
		}
		res = e_bv(cx, v, SORT_WIDTH(s));
		break;
	}
	default:
		ri_fail(acc, RI_UNSUPPORTED, "an unknown atomic operation in launch %u", launch);
		break;
	}
out:
	free(x);
	free(g);
	free(k);
	return res;
}

/* ---- one location's history ------------------------------------------------------ */

static bool same_thread(const uint32_t t1[3], const uint32_t c1[3], const uint32_t t2[3],
                        const uint32_t c2[3])
{
	return !memcmp(t1, t2, 3 * sizeof *t1) && !memcmp(c1, c2, 3 * sizeof *c1);
}

/* Records a race between two threads at byte off of value v (NO_VALUE:
 * shared memory) of launch l, unless one is recorded already. */
static void race(struct resolve_info *acc, uint32_t l, uint32_t v, uint64_t off, const uint32_t t1[3],
                 const uint32_t c1[3], const uint32_t t2[3], const uint32_t c2[3])
{
	if (!(acc->flags & RI_RACE)) {
		acc->race_launch = l;
		acc->race_value = v;
		acc->race_off = off;
		memcpy(acc->race_tid[0], t1, sizeof acc->race_tid[0]);
		memcpy(acc->race_ctaid[0], c1, sizeof acc->race_ctaid[0]);
		memcpy(acc->race_tid[1], t2, sizeof acc->race_tid[1]);
		memcpy(acc->race_ctaid[1], c2, sizeof acc->race_ctaid[1]);
	}
	acc->flags |= RI_RACE;
}

/* The contributions of c whose atomic's epoch is ep, into e (cleared first). */
static void of_epoch(const struct aview *av, const struct cvec *c, uint32_t ep, struct cvec *e)
{
	e->len = 0;
	for (size_t i = 0; i < c->len; i++)
		if (av[c->items[i].wi].epoch == ep)
			VEC_PUSH(*e, c->items[i]);
}

/* The smallest epoch above 'after' (or any, when first) among c's atomics
 * and the plain hits ph; false when none is left. */
static bool next_epoch(const struct aview *av, const struct cvec *c, const struct plain_hit *ph, size_t nph,
                       bool first, uint32_t after, uint32_t *ep)
{
	bool any = false;
	for (size_t i = 0; i < c->len; i++) {
		uint32_t e = av[c->items[i].wi].epoch;
		if ((first || e > after) && (!any || e < *ep)) {
			*ep = e;
			any = true;
		}
	}
	for (size_t i = 0; i < nph; i++) {
		uint32_t e = ph[i].w->epoch;
		if ((first || e > after) && (!any || e < *ep)) {
			*ep = e;
			any = true;
		}
	}
	return any;
}

/* prev combined with the contributions c, one barrier epoch after the
 * other.  NULL when unknown (reason in acc). */
static const struct expr *fold_epochs(struct resolver *r, const struct aview *av, const struct cvec *c,
                                      const struct expr *prev, enum etype et, unsigned depth,
                                      uint32_t launch, uint64_t off, struct resolve_info *acc)
{
	struct cvec e = { 0 };
	uint32_t ep = 0;
	for (bool first = true; prev && next_epoch(av, c, NULL, 0, first, ep, &ep); first = false) {
		of_epoch(av, c, ep, &e);
		prev = combine(r, av, &e, prev, et, depth, launch, off, acc);
	}
	VEC_FREE(e);
	return prev;
}

/* What one thread's plain writes p[0..n) (in program order) leave at the
 * location over cur; NULL when unknown. */
static const struct expr *plain_value(struct resolver *r, const struct plain_hit *const *p, size_t n,
                                      const struct expr *cur, enum etype et, unsigned depth,
                                      struct resolve_info *acc)
{
	struct ectx *cx = rs_cx(r);
	for (size_t i = 0; i < n && cur; i++) {
		const struct expr *x = rs_at_thread(r, p[i]->w->val, p[i]->tid, p[i]->ctaid, depth, acc);
		if (!x || !(x = rs_read_as(cx, x, p[i]->w->et, et, acc)))
			return NULL;
		if (p[i]->dom_d) {
			const struct expr *g = rs_at_thread(r, p[i]->dom_d, p[i]->tid, p[i]->ctaid, depth, acc);
			if (!g)
				return NULL;
			x = e_ite(cx, g, x, cur);
		}
		cur = x;
	}
	return cur;
}

static int hit_seq_cmp(const void *pa, const void *pb)
{
	const struct plain_hit *a = *(const struct plain_hit *const *)pa, *b = *(const struct plain_hit *const *)pb;
	int c = memcmp(a->ctaid, b->ctaid, sizeof a->ctaid);
	if (!c)
		c = memcmp(a->tid, b->tid, sizeof a->tid);
	if (!c)
		c = a->w->seq < b->w->seq ? -1 : a->w->seq > b->w->seq;
	return c;
}

/* One barrier epoch of a global location: the plain hits p[0..np) and the
 * contributions e over prev.  NULL when unknown (a race: acc says). */
static const struct expr *epoch_step(struct resolver *r, const struct aview *av, struct cvec *e,
                                     const struct plain_hit **p, size_t np, const struct expr *prev,
                                     enum etype et, unsigned depth, uint32_t l, uint32_t v, uint64_t off,
                                     struct resolve_info *acc)
{
	if (!np)
		return e->len ? combine(r, av, e, prev, et, depth, l, off, acc) : prev;
	qsort(p, np, sizeof *p, hit_seq_cmp);
	/* atomics and plain stores of one epoch: ordered only when one thread makes them all */
	for (size_t i = 0; i < e->len; i++)
		if (!same_thread(e->items[i].tid, e->items[i].ctaid, p[0]->tid, p[0]->ctaid)) {
			race(acc, l, v, off, p[0]->tid, p[0]->ctaid, e->items[i].tid, e->items[i].ctaid);
			return NULL;
		}
	for (size_t i = 1; i < np && e->len; i++)
		if (!same_thread(p[i]->tid, p[i]->ctaid, p[0]->tid, p[0]->ctaid)) {
			race(acc, l, v, off, p[i]->tid, p[i]->ctaid, e->items[0].tid, e->items[0].ctaid);
			return NULL;
		}
	if (e->len) {
		/* one thread: its stores and atomics in program order */
		size_t i = 0, j = 0;
		struct cvec one = { 0 };
		while (prev && (i < np || j < e->len)) {
			uint32_t ps = i < np ? p[i]->w->seq : UINT32_MAX;
			uint32_t as = j < e->len ? av[e->items[j].wi].seq : UINT32_MAX;
			if (i < np && ps < as) {
				prev = plain_value(r, p + i, 1, prev, et, depth, acc);
				i++;
			} else {
				one.len = 0;
				VEC_PUSH(one, e->items[j]);
				prev = combine(r, av, &one, prev, et, depth, l, off, acc);
				j++;
			}
		}
		VEC_FREE(one);
		return prev;
	}
	/* plain stores alone: every thread's last one, which must agree */
	const struct expr *first = NULL;
	for (size_t i = 0; i < np;) {
		size_t j = i + 1;
		while (j < np && same_thread(p[j]->tid, p[j]->ctaid, p[i]->tid, p[i]->ctaid))
			j++;
		const struct expr *x = plain_value(r, p + i, j - i, prev, et, depth, acc);
		if (!x)
			return NULL;
		if (first && x != first) {
			race(acc, l, v, off, p[0]->tid, p[0]->ctaid, p[i]->tid, p[i]->ctaid);
			return NULL;
		}
		first = x;
		i = j;
	}
	return first;
}

/* ---- global memory ---------------------------------------------------------------- */

/* Does the first epoch of a location's history, plain hits p[0..np) and
 * contributions e, begin by overwriting it for sure (then what it held
 * before does not matter)?  A placeholder for those contents if so,
 * else NULL. */
static const struct expr *overwritten(struct resolver *r, const struct aview *av, const struct cvec *e,
                                      const struct plain_hit **p, size_t np)
{
	if (!np)
		return NULL;
	qsort(p, np, sizeof *p, hit_seq_cmp);
	for (size_t i = 0; i < np; i++) {
		bool thread_first = i == 0 || !same_thread(p[i]->tid, p[i]->ctaid, p[i - 1]->tid, p[i - 1]->ctaid);
		if (thread_first && p[i]->dom_d)
			return NULL;
	}
	for (size_t j = 0; j < e->len; j++)
		if (av[e->items[j].wi].seq < p[0]->w->seq)
			return NULL;
	return e_undef(rs_cx(r), SORT_BOOL);
}

/* A location both plain stores ph and atomic contributions c reach:
 * ordered by the epochs of one block, else a race.  NULL when unknown. */
static const struct expr *mixed(struct resolver *r, const struct aview *av, const struct cvec *c,
                                const struct plain_hit *ph, size_t nph, bool ph_all, enum etype et,
                                unsigned depth, uint32_t l, uint32_t v, uint64_t off,
                                struct resolve_info *acc)
{
	const struct obl_launch *ln = &rs_state(r)->obl.launches.items[l];
	if (!ph_all) {
		ri_fail(acc, RI_UNSUPPORTED, "launch %u (%s) stores to value %u byte %llu atomically and from "
		        "more threads plainly than dirigo follows", l, ln->kernel, v, (unsigned long long)off);
		return NULL;
	}
	/* one block: no grid-wide barrier orders the threads of two */
	for (size_t i = 0; i < nph; i++)
		for (size_t k = 0; k < c->len; k++)
			if (memcmp(ph[i].ctaid, c->items[k].ctaid, sizeof ph[i].ctaid)) {
				race(acc, l, v, off, ph[i].tid, ph[i].ctaid, c->items[k].tid, c->items[k].ctaid);
				return NULL;
			}
	const struct plain_hit **p = xcalloc(nph, sizeof *p);
	struct cvec e = { 0 };
	uint32_t ep = 0;
	const struct expr *prev = NULL;
	for (bool first = true; (first || prev) && next_epoch(av, c, ph, nph, first, ep, &ep); first = false) {
		size_t np = 0;
		for (size_t i = 0; i < nph; i++)
			if (ph[i].w->epoch == ep)
				p[np++] = &ph[i];
		of_epoch(av, c, ep, &e);
		/* the contents before the launch, unless plain stores cover them */
		if (first && !(prev = overwritten(r, av, &e, p, np)) && !(prev = rs_before(r, v, off, et, depth, acc)))
			break;
		prev = epoch_step(r, av, &e, p, np, prev, et, depth, l, v, off, acc);
	}
	free(p);
	VEC_FREE(e);
	return prev;
}

int atomic_global(struct resolver *r, uint32_t v, uint64_t off, enum etype et, unsigned depth,
                  struct resolve_info *acc, const struct plain_hit *ph, size_t nph, bool ph_all,
                  const struct expr **out)
{
	const struct sym_state *st = rs_state(r);
	struct ectx *cx = rs_cx(r);
	const struct obl_value *val = &st->obl.values.items[v];
	uint32_t l = val->launch;
	const struct sym_writes *ws = st->by_launch ? st->by_launch[l] : NULL;
	*out = NULL;
	if (!ws || !ws->natomics)
		return 0;
	const struct obl_launch *ln = &st->obl.launches.items[l];
	struct smt_geom g;
	resolver_geom(ln, &g);
	uint64_t n[6] = { g.ntid[0], g.ntid[1], g.ntid[2], g.nctaid[0], g.nctaid[1], g.nctaid[2] };
	struct aview *av = xcalloc(ws->natomics, sizeof *av);
	struct cvec c = { 0 };
	int rc = 0;
	for (uint32_t i = 0; i < ws->natomics; i++) {
		const struct sym_write *w = &ws->atomics[i];
		if (w->value != v)
			continue;
		const struct expr *dom_t;
		split_dom(cx, w->dom, &dom_t, &av[i].dom_d);
		av[i].val = w->val;
		av[i].cmp = w->cmp;
		av[i].et = w->et;
		av[i].op = w->op;
		av[i].epoch = w->epoch;
		av[i].seq = w->seq;
		struct inv_query q = {
			.cx = cx, .smt = NULL, .geom = &g, .n = n, .addr = w->addr, .dom_t = dom_t, .lin = NULL,
			.wsize = etype_size(w->et), .rsize = etype_size(et),
			.same_kind = kinds_match(w->et, et), .off = off, .max_enum = MAX_NODES, .launch = l,
		};
		if (hits(&q, i, &c, acc) < 0) {
			rc = -1;
			goto done;
		}
	}
	if (!c.len)
		goto done;
	rc = 1;
	if (nph) {
		*out = mixed(r, av, &c, ph, nph, ph_all, et, depth, l, v, off, acc);
		goto done;
	}
	/* barriers order the epochs of one block only: atomics of several
	 * blocks are combined at once (they must agree on the operation) */
	bool one_block = true;
	for (size_t i = 1; i < c.len && one_block; i++)
		one_block = !memcmp(c.items[i].ctaid, c.items[0].ctaid, sizeof c.items[0].ctaid);
	const struct expr *prev = rs_before(r, v, off, et, depth, acc);
	if (prev)
		*out = one_block ? fold_epochs(r, av, &c, prev, et, depth, l, off, acc)
		                 : combine(r, av, &c, prev, et, depth, l, off, acc);
done:
	free(av);
	VEC_FREE(c);
	return rc;
}

/* ---- shared memory ---------------------------------------------------------------- */

struct fixc { const uint32_t *ctaid; };

static const struct expr *fix_ctaid(struct ectx *cx, const struct expr *e, void *user)
{
	const struct fixc *f = user;
	return e->op == EOP_CTAID && e->u < 3 ? e_bv(cx, f->ctaid[e->u], 32) : NULL;
}

/* The plain store a shared read sees, atomics aside. */
struct pstore {
	bool found;
	uint32_t epoch, seq;
	uint32_t tid[3];
};

/* What the plain stores of the block leave where the shared LOAD load
 * reads, for thread (tid, ctaid): *val (NULL when unknown; UNDEF with
 * RI_UNINIT when no thread wrote it) and which store that was.  0, or -1
 * after ri_fail. */
static int shared_plain(struct resolver *r, const struct expr *load, const uint32_t tid[3],
                        const uint32_t ctaid[3], unsigned depth, struct resolve_info *acc,
                        struct pstore *ps, const struct expr **val)
{
	const struct sym_shwrite *w;
	uint32_t wtid[3];
	memset(ps, 0, sizeof *ps);
	*val = NULL;
	int k = rs_shared_writer(r, load, tid, ctaid, &w, wtid, acc);
	if (k < 0)
		return -1;
	if (k == 0) {
		*val = rs_shared_plain(r, load, tid, ctaid, depth, acc);     /* never written */
		return 0;
	}
	*ps = (struct pstore){ true, w->epoch, w->seq, { wtid[0], wtid[1], wtid[2] } };
	const struct expr *x = rs_at_thread(r, w->val, wtid, ctaid, depth + 1, acc);
	*val = x ? rs_read_as(rs_cx(r), x, w->et, (enum etype)load->et, acc) : NULL;
	return 0;
}

int atomic_shared(struct resolver *r, const struct expr *load, const uint32_t tid[3],
                  const uint32_t ctaid[3], unsigned depth, struct resolve_info *acc,
                  const struct expr **out)
{
	const struct sym_state *st = rs_state(r);
	struct ectx *cx = rs_cx(r);
	uint32_t l = SYM_SHARED_LAUNCH(load->space);
	*out = NULL;
	if (l >= st->obl.launches.len || !st->by_launch || !st->by_launch[l] ||
	    !st->by_launch[l]->nshatomics)
		return 0;
	if (load->args[0]->op != EOP_BV) {
		ri_fail(acc, RI_UNSUPPORTED, "a shared-memory address depends on data");
		return -1;
	}
	const struct sym_writes *ws = st->by_launch[l];
	uint64_t code = load->args[0]->u;
	uint64_t o = code & ((1ull << SYM_SH_OFF_BITS) - 1);
	uint32_t epoch = (uint32_t)(code >> (SYM_SH_OFF_BITS + SYM_SH_SUB_BITS));
	enum etype et = (enum etype)load->et;
	struct smt_geom g;
	resolver_geom(&st->obl.launches.items[l], &g);
	struct smt_geom gb = { { g.ntid[0], g.ntid[1], g.ntid[2] }, { 1, 1, 1 } };
	uint64_t n[6] = { g.ntid[0], g.ntid[1], g.ntid[2], 1, 1, 1 };
	struct fixc fc = { ctaid };
	struct aview *av = xcalloc(ws->nshatomics, sizeof *av);
	struct cvec c = { 0 };
	int rc = -1;
	for (uint32_t i = 0; i < ws->nshatomics; i++) {
		const struct sym_shwrite *w = &ws->shatomics[i];
		if (w->epoch > epoch)
			continue;
		const struct expr *dom_t;
		split_dom(cx, e_subst(cx, w->dom, fix_ctaid, &fc), &dom_t, &av[i].dom_d);
		av[i] = (struct aview){ av[i].dom_d, e_subst(cx, w->val, fix_ctaid, &fc),
		                        w->cmp ? e_subst(cx, w->cmp, fix_ctaid, &fc) : NULL, w->et, w->op,
		                        w->epoch, w->seq };
		struct inv_query q = {
			.cx = cx, .smt = NULL, .geom = &gb, .n = n, .addr = e_subst(cx, w->addr, fix_ctaid, &fc),
			.dom_t = dom_t, .lin = NULL, .wsize = etype_size(w->et), .rsize = etype_size(et),
			.same_kind = kinds_match(w->et, et), .off = o, .max_enum = MAX_NODES, .launch = l,
		};
		size_t before = c.len;
		if (hits(&q, i, &c, acc) < 0)
			goto done;
		if (c.len != before && w->epoch == epoch) {
			ri_fail(acc, RI_UNSUPPORTED, "block (%u,%u,%u) of launch %u reads shared byte %llu in the "
			        "epoch that updates it atomically (a race)", ctaid[0], ctaid[1], ctaid[2], l,
			        (unsigned long long)o);
			goto done;
		}
	}
	if (!c.len) {
		rc = 0;
		goto done;
	}
	for (size_t i = 0; i < c.len; i++)
		memcpy(c.items[i].ctaid, ctaid, sizeof c.items[i].ctaid);
	/* the latest plain store before the read: atomics before it are
	 * overwritten; those of its epoch by other threads race with it */
	struct pstore ps;
	const struct expr *prev;
	if (shared_plain(r, load, tid, ctaid, depth, acc, &ps, &prev) < 0)
		goto done;
	rc = 1;
	size_t kept = 0;
	for (size_t i = 0; i < c.len; i++) {
		const struct contrib *k = &c.items[i];
		const struct aview *a = &av[k->wi];
		if (ps.found && a->epoch == ps.epoch && memcmp(k->tid, ps.tid, sizeof ps.tid)) {
			ri_fail(acc, RI_UNSUPPORTED, "block (%u,%u,%u) of launch %u stores to shared byte %llu "
			        "plainly and atomically in one barrier epoch (a race)", ctaid[0], ctaid[1],
			        ctaid[2], l, (unsigned long long)o);
			goto done;
		}
		if (!ps.found || a->epoch > ps.epoch || (a->epoch == ps.epoch && a->seq > ps.seq))
			c.items[kept++] = *k;
	}
	c.len = kept;
	if (prev)
		*out = c.len ? fold_epochs(r, av, &c, prev, et, depth, l, o, acc) : prev;
done:
	free(av);
	VEC_FREE(c);
	return rc;
}
