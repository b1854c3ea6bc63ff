/*
 * resolve-atomic.c: back-projection through atomics (DESIGN.md 5).
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
 * where prev is what the location held before the launch (global) or when
 * the atomics' epoch began (shared), and a contribution whose domain
 * depends on data counts where that condition holds.  Everything else is
 * unsupported: different operations at one location, atomics in more
 * than one epoch, plain stores to the location in the same launch
 * (resolve.c) or in the atomics' epoch or later (shared), and a read in
 * the atomics' own epoch (a race).
 */
#include "resolve-impl.h"

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
	uint32_t epoch;
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

/* ---- the contents before ------------------------------------------------------------ */

/* What the shared LOAD start reads: the plain writes of the block.  A
 * float location whose last store was of an integer constant of the
 * kernel (nvcc stores 0.0f as st.shared.u32 0) holds that constant's
 * bits.  (Only a constant of the kernel text: an integer read of data
 * would give the recorded bits of a symbolic input.) */
static const struct expr *shared_before(struct resolver *r, const struct expr *start, const uint32_t tid[3],
                                        const uint32_t ctaid[3], unsigned depth, struct resolve_info *acc)
{
	struct ectx *cx = rs_cx(r);
	enum etype et = (enum etype)start->et;
	enum etype bt = et == ET_F32 ? ET_U32 : et == ET_F64 ? ET_U64 : ET_NONE;
	if (bt != ET_NONE) {
		struct resolve_info tmp;
		const struct sym_shwrite *w;
		uint32_t wtid[3], launch;
		uint64_t off;
		memset(&tmp, 0, sizeof tmp);
		const struct expr *ld = e_load(cx, start->space, bt, start->args[0]);
		int k = shared_writer(rs_state(r), cx, NULL, MAX_NODES, NULL, ld, tid, ctaid, &w, wtid, &launch, &off, &tmp);
		if (k == 1 && !tmp.flags && w->val->op == EOP_BV && w->et == bt) {
			double d;
			if (et == ET_F32) {
				float f;
				uint32_t b = (uint32_t)w->val->u;
				memcpy(&f, &b, sizeof f);
				d = f;
			} else {
				memcpy(&d, &w->val->u, sizeof d);
			}
			if (d - d == 0)
				return e_real(cx, d);
		}
	}
	return rs_shared_plain(r, start, tid, ctaid, depth, acc);
}

/* ---- global memory ---------------------------------------------------------------- */

int atomic_global(struct resolver *r, uint32_t v, uint64_t off, enum etype et, unsigned depth,
                  struct resolve_info *acc, const struct expr **out)
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
	const struct expr *prev = rs_before(r, v, off, et, depth, acc);
	if (prev)
		*out = combine(r, av, &c, prev, et, depth, l, off, acc);
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
	uint32_t ea = 0;
	for (uint32_t i = 0; i < ws->nshatomics; i++) {
		const struct sym_shwrite *w = &ws->shatomics[i];
		if (w->epoch > epoch)
			continue;
		const struct expr *dom_t;
		split_dom(cx, e_subst(cx, w->dom, fix_ctaid, &fc), &dom_t, &av[i].dom_d);
		av[i] = (struct aview){ av[i].dom_d, e_subst(cx, w->val, fix_ctaid, &fc),
		                        w->cmp ? e_subst(cx, w->cmp, fix_ctaid, &fc) : NULL, w->et, w->op, w->epoch };
		struct inv_query q = {
			.cx = cx, .smt = NULL, .geom = &gb, .n = n, .addr = e_subst(cx, w->addr, fix_ctaid, &fc),
			.dom_t = dom_t, .lin = NULL, .wsize = etype_size(w->et), .rsize = etype_size(et),
			.same_kind = kinds_match(w->et, et), .off = o, .max_enum = MAX_NODES, .launch = l,
		};
		size_t before = c.len;
		if (hits(&q, i, &c, acc) < 0)
			goto done;
		if (c.len == before)
			continue;
		if (w->epoch == epoch) {
			ri_fail(acc, RI_UNSUPPORTED, "block (%u,%u,%u) of launch %u reads shared byte %llu in the "
			        "epoch that updates it atomically (a race)", ctaid[0], ctaid[1], ctaid[2], l,
			        (unsigned long long)o);
			goto done;
		}
		if (before && w->epoch != ea) {
			ri_fail(acc, RI_UNSUPPORTED, "block (%u,%u,%u) of launch %u updates shared byte %llu "
			        "atomically in more than one barrier epoch", ctaid[0], ctaid[1], ctaid[2], l,
			        (unsigned long long)o);
			goto done;
		}
		ea = w->epoch;
	}
	if (!c.len) {
		rc = 0;
		goto done;
	}
	/* no plain store to the location from the atomics' epoch on */
	for (uint32_t i = 0; i < ws->nshared; i++) {
		const struct sym_shwrite *w = &ws->shared[i];
		if (w->epoch < ea || w->epoch > epoch)
			continue;
		const struct expr *dom_t, *dom_d;
		split_dom(cx, e_subst(cx, w->dom, fix_ctaid, &fc), &dom_t, &dom_d);
		struct inv_query q = {
			.cx = cx, .smt = NULL, .geom = &gb, .n = n, .addr = e_subst(cx, w->addr, fix_ctaid, &fc),
			.dom_t = dom_t, .lin = NULL, .wsize = etype_size(w->et), .rsize = etype_size(et),
			.same_kind = true, .off = o, .max_enum = MAX_NODES, .launch = l,
		};
		struct cvec p = { 0 };
		int k = hits(&q, 0, &p, acc);
		size_t np = p.len;
		VEC_FREE(p);
		if (k < 0)
			goto done;
		if (np) {
			ri_fail(acc, RI_UNSUPPORTED, "block (%u,%u,%u) of launch %u stores to shared byte %llu "
			        "both atomically and plainly", ctaid[0], ctaid[1], ctaid[2], l, (unsigned long long)o);
			goto done;
		}
	}
	rc = 1;
	const struct expr *start = e_load(cx, load->space, et, e_bv(cx, SYM_SH_CODE(ea, 0) | o, 64));
	const struct expr *prev = shared_before(r, start, tid, ctaid, depth, acc);
	for (size_t i = 0; i < c.len; i++)
		memcpy(c.items[i].ctaid, ctaid, sizeof c.items[i].ctaid);
	if (prev)
		*out = combine(r, av, &c, prev, et, depth, l, o, acc);
done:
	free(av);
	VEC_FREE(c);
	return rc;
}
