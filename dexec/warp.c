/*
 * warp.c: warp primitives (paper 3.3.4): shfl.sync (up, down, bfly, idx),
 * vote.sync (all, any, uni, ballot), activemask and bar.warp.sync.
 *
 * They are barriers of the warp: the bundles waiting at one such
 * instruction are its members, and each member's result is computed for
 * its symbolic thread from the members holding the partner lanes: an ite
 * over the members whose domain holds the partner, each with its source
 * value at the partner's tid (e_subst tid := partner), pruned by the
 * solver; when one bundle holds the whole warp only its own arm is left.
 * A lane no member holds (exited, elsewhere, or beyond the block) reads
 * undef; undef reaching a store, an address or a branch is a
 * "shfl-undef" finding (dx_undef_sink).  A member mask naming a lane no
 * member holds is a "shfl-inactive" finding.
 */
#include "dexec.h"

#include <string.h>

#define LANEVAR       ((0xD3ull << 40) | 1)
#define UNDEF_SHFL(pc) ((0x5348464Cull << 32) | (uint64_t)(pc))

struct warp {
	struct dx_launch *L;
	const struct ptx_instr *in;
	unsigned pc;
	struct dx_bundle **m;        /* members */
	size_t nm;
	uint64_t nthreads;           /* threads in a block */
};

/* ---- lanes ------------------------------------------------------------------- */

struct tsub { const struct expr *x; };

static const struct expr *to_partner(struct ectx *cx, const struct expr *e, void *user)
{
	(void)cx;
	const struct tsub *t = user;
	return e->op == EOP_TID && e->u == 0 ? t->x : NULL;
}

/* e at the thread of the same warp whose lane is 'lane' (bv32 over the
 * reader's thread); *inside: that thread exists in the block. */
static const struct expr *at_lane(struct warp *w, const struct expr *e, const struct expr *lane,
                                  const struct expr **inside)
{
	struct ectx *cx = w->L->cx;
	const struct expr *x = e_tid(cx, 0);
	const struct expr *px = e_op2(cx, EOP_OR, e_op2(cx, EOP_AND, x, e_bv(cx, ~31ull, 32)), lane);
	if (inside)
		*inside = e_op2(cx, EOP_ULT, px, e_bv(cx, w->L->geom.ntid[0], 32));
	struct tsub t = { px };
	return e_subst(cx, e, to_partner, &t);
}

static const struct expr *lane_of(struct warp *w)
{
	struct ectx *cx = w->L->cx;
	return e_op2(cx, EOP_AND, e_tid(cx, 0), e_bv(cx, 31, 32));
}

/* Bit 'lane' of mask (bv32) set? */
static const struct expr *mask_bit(struct ectx *cx, const struct expr *mask, const struct expr *lane)
{
	const struct expr *b = e_op2(cx, EOP_AND, e_op2(cx, EOP_LSHR, mask, lane), e_bv(cx, 1, 32));
	return e_not(cx, e_op2(cx, EOP_EQ, b, e_bv(cx, 0, 32)));
}

/* Some member holds the thread of 'lane'. */
static const struct expr *held(struct warp *w, const struct expr *lane)
{
	const struct expr *h = e_bool(w->L->cx, false);
	for (size_t i = 0; i < w->nm; i++)
		h = e_or(w->L->cx, h, at_lane(w, w->m[i]->dom, lane, NULL));
	return h;
}

/* A lane of r's warp named by mask that no member holds: "shfl-inactive". */
static int check_inactive(struct warp *w, struct dx_bundle *r, const struct expr *mask)
{
	struct dx_launch *L = w->L;
	struct ectx *cx = L->cx;
	const struct expr *l = e_var(cx, LANEVAR, SORT_BV(32)), *inside;
	at_lane(w, e_bool(cx, true), l, &inside);
	const struct expr *c = e_and(cx, e_and(cx, r->dom, e_op2(cx, EOP_ULT, l, e_bv(cx, 32, 32))),
	                             e_and(cx, e_and(cx, inside, mask_bit(cx, mask, l)), e_not(cx, held(w, l))));
	uint32_t tid[3], ctaid[3];
	enum smt_result s = dx_sat(L, c, tid, ctaid);
	if (s == SMT_UNKNOWN)
		return dx_unsupported(L, w->in, "solver", "the solver could not decide which lanes are active");
	if (s == SMT_UNSAT)
		return 0;
	uint32_t lane = 0;
	for (uint32_t k = 0; k < 32; k++) {
		const struct expr *lk = e_bv(cx, k, 32), *in2;
		at_lane(w, e_bool(cx, true), lk, &in2);
		const struct expr *ok = e_and(cx, e_and(cx, in2, mask_bit(cx, mask, lk)), e_not(cx, held(w, lk)));
		if (e_is_true(e_at_thread(cx, ok, tid, ctaid))) {
			lane = k;
			break;
		}
	}
	const char *src = dx_src(L, w->in);
	char *msg = arena_printf(&L->a,
		"kernel '%s': %s at PTX line %u%s%s names lane %u of the warp of thread (%u,%u,%u) "
		"block (%u,%u,%u), which is inactive there (exited or on another path)",
		L->l->kernel, dx_instr_name(L, w->in), w->in->line, src ? ", " : "", src ? src : "",
		lane, tid[0], tid[1], tid[2], ctaid[0], ctaid[1], ctaid[2]);
	struct sym_finding *f = dx_finding(L, w->in, "shfl-inactive", tid, ctaid, NO_VALUE, 0, msg);
	if (f) {
		f->has_addr = false;
		f->has_thread2 = true;
		memcpy(f->tid2, tid, sizeof f->tid2);
		f->tid2[0] = (tid[0] & ~31u) | lane;
		memcpy(f->ctaid2, ctaid, sizeof f->ctaid2);
	}
	return 1;
}

/* An operand that must not depend on data, as bv32. */
static const struct expr *thread_arg(struct warp *w, struct dx_bundle *b, unsigned i)
{
	if (i >= w->in->nops) {
		dx_unsupported(w->L, w->in, "operands", "a warp instruction with too few operands");
		return NULL;
	}
	const struct expr *e = dx_get(w->L, b, w->in, &w->in->ops[i], SORT_BV(32));
	if (e && (e_has_data(e) || e_has_undef(e))) {
		dx_unsupported(w->L, w->in, "data-dependent warp operand",
		               "a lane, clamp or mask operand that depends on data");
		return NULL;
	}
	return e;
}

/* ---- shfl ---------------------------------------------------------------------- */

/* The value member reader r reads through shfl (src: each member's source
 * value), and the in-range predicate. */
static int shfl_one(struct warp *w, struct dx_bundle *r, const struct expr **src,
                    const struct expr **out, const struct expr **pout)
{
	struct dx_launch *L = w->L;
	struct ectx *cx = L->cx;
	const char *mode = ptx_instr_mod_of(w->in, (const char *const[]){ "up", "down", "bfly", "idx", NULL });
	const struct expr *b = thread_arg(w, r, 2), *c = b ? thread_arg(w, r, 3) : NULL;
	const struct expr *mask = c ? thread_arg(w, r, 4) : NULL;
	if (!mask || !mode)
		return mode ? -1 : dx_unsupported(L, w->in, "shfl mode", "a shfl without up/down/bfly/idx");
	const struct expr *lane = lane_of(w);
	const struct expr *bval = e_op2(cx, EOP_AND, b, e_bv(cx, 31, 32));
	const struct expr *cval = e_op2(cx, EOP_AND, c, e_bv(cx, 31, 32));
	const struct expr *seg = e_op2(cx, EOP_AND, e_op2(cx, EOP_LSHR, c, e_bv(cx, 8, 32)), e_bv(cx, 31, 32));
	const struct expr *nseg = e_op1(cx, EOP_NOT, SORT_BV(32), 0, seg);
	const struct expr *maxl = e_op2(cx, EOP_OR, e_op2(cx, EOP_AND, lane, seg), e_op2(cx, EOP_AND, cval, nseg));
	const struct expr *minl = e_op2(cx, EOP_AND, lane, seg);
	const struct expr *j, *pval;
	if (!strcmp(mode, "up")) {
		j = e_op2(cx, EOP_SUB, lane, bval);
		pval = e_op2(cx, EOP_SLE, maxl, j);
	} else if (!strcmp(mode, "down")) {
		j = e_op2(cx, EOP_ADD, lane, bval);
		pval = e_op2(cx, EOP_SLE, j, maxl);
	} else if (!strcmp(mode, "bfly")) {
		j = e_op2(cx, EOP_XOR, lane, bval);
		pval = e_op2(cx, EOP_SLE, j, maxl);
	} else {
		j = e_op2(cx, EOP_OR, minl, e_op2(cx, EOP_AND, bval, nseg));
		pval = e_op2(cx, EOP_SLE, j, maxl);
	}
	j = e_op2(cx, EOP_AND, j, e_bv(cx, 31, 32));
	if (check_inactive(w, r, mask) < 0)
		return -1;
	const struct expr *inside;
	at_lane(w, e_bool(cx, true), j, &inside);
	const struct expr *ok = e_and(cx, pval, e_and(cx, inside, mask_bit(cx, mask, j)));
	const struct expr *own = src[w->m[0] == r ? 0 : 0];
	for (size_t i = 0; i < w->nm; i++)
		if (w->m[i] == r)
			own = src[i];
	/* arms for the members that may hold the partner */
	const struct expr *g[64], *v[64], *any = e_bool(cx, false);
	size_t na = 0;
	for (size_t i = 0; i < w->nm; i++) {
		const struct expr *gi = e_and(cx, ok, at_lane(w, w->m[i]->dom, j, NULL));
		enum smt_result s = dx_sat(L, e_and(cx, r->dom, gi), NULL, NULL);
		if (s == SMT_UNSAT)
			continue;
		if (s == SMT_UNKNOWN || na == 64)
			return dx_unsupported(L, w->in, "shfl members", "a shuffle over too many or undecidable lane groups");
		const struct expr *vi = at_lane(w, src[i], j, NULL);
		if (vi->sort != own->sort && !(vi = dx_coerce(L, w->in, vi, own->sort)))
			return -1;
		g[na] = gi;
		v[na++] = vi;
		any = e_or(cx, any, gi);
	}
	enum smt_result s = dx_sat(L, e_and(cx, e_and(cx, r->dom, pval), e_not(cx, any)), NULL, NULL);
	if (s == SMT_UNKNOWN)
		return dx_unsupported(L, w->in, "solver", "the solver could not decide a shuffle's partners");
	const struct expr *res;
	if (s == SMT_SAT || na == 0) {
		res = e_undef_tag(cx, own->sort, UNDEF_SHFL(w->pc));
	} else {
		res = v[--na];
	}
	while (na > 0) {
		na--;
		res = e_ite(cx, g[na], v[na], res);
	}
	*out = e_ite(cx, pval, res, own);
	*pout = pval;
	return 0;
}

/* ---- vote, activemask ---------------------------------------------------------- */

/* For lane k (constant): whether some member holds it (and it is in the
 * mask), and the member's predicate there (src NULL: true). */
static void lane_pred(struct warp *w, unsigned k, const struct expr *const *src, const struct expr *mask,
                      const struct expr **active, const struct expr **val)
{
	struct ectx *cx = w->L->cx;
	const struct expr *lk = e_bv(cx, k, 32), *inside;
	at_lane(w, e_bool(cx, true), lk, &inside);
	const struct expr *a = e_bool(cx, false), *v = e_bool(cx, false);
	for (size_t i = w->nm; i-- > 0;) {
		const struct expr *d = at_lane(w, w->m[i]->dom, lk, NULL);
		if (e_is_false(d))
			continue;
		a = e_or(cx, a, d);
		v = e_ite(cx, d, src ? at_lane(w, src[i], lk, NULL) : e_bool(cx, true), v);
	}
	a = e_and(cx, a, inside);
	if (mask)
		a = e_and(cx, a, mask_bit(cx, mask, lk));
	*active = a;
	*val = v;
}

static int vote_one(struct warp *w, struct dx_bundle *r, const struct expr *const *src,
                    const struct expr **out)
{
	struct dx_launch *L = w->L;
	struct ectx *cx = L->cx;
	bool act = w->in->opcode[0] == 'a';
	const struct expr *mask = NULL;
	if (!act) {
		if (!(mask = thread_arg(w, r, 2)))
			return -1;
		if (check_inactive(w, r, mask) < 0)
			return -1;
	}
	const char *mode = act ? "ballot" :
	                   ptx_instr_mod_of(w->in, (const char *const[]){ "all", "any", "uni", "ballot", NULL });
	if (!mode)
		return dx_unsupported(L, w->in, "vote mode", "a vote without all/any/uni/ballot");
	const struct expr *all = e_bool(cx, true), *anyv = e_bool(cx, false), *none = e_bool(cx, true);
	const struct expr *bits = e_bv(cx, 0, 32);
	for (unsigned k = 0; k < 32; k++) {
		const struct expr *a, *v;
		lane_pred(w, k, act ? NULL : src, mask, &a, &v);
		all = e_and(cx, all, e_or(cx, e_not(cx, a), v));
		none = e_and(cx, none, e_or(cx, e_not(cx, a), e_not(cx, v)));
		anyv = e_or(cx, anyv, e_and(cx, a, v));
		bits = e_op2(cx, EOP_OR, bits, e_ite(cx, e_and(cx, a, v), e_bv(cx, 1ull << k, 32), e_bv(cx, 0, 32)));
	}
	if (!strcmp(mode, "all"))
		*out = all;
	else if (!strcmp(mode, "any"))
		*out = anyv;
	else if (!strcmp(mode, "uni"))
		*out = e_or(cx, all, none);
	else
		*out = bits;
	return 0;
}

/* ---- release ---------------------------------------------------------------------- */

int dx_warp_release(struct dx_launch *L, unsigned pc)
{
	struct ectx *cx = L->cx;
	struct warp w = { L, &L->fn->instrs[pc], pc, NULL, 0,
	                  (uint64_t)L->geom.ntid[0] * L->geom.ntid[1] * L->geom.ntid[2] };
	enum dx_op op = (enum dx_op)L->ops[pc];
	if (L->geom.ntid[1] != 1 || L->geom.ntid[2] != 1) {
		if (L->geom.ntid[0] % 32)
			return dx_unsupported(L, w.in, "warp layout", "a warp instruction in a block whose warps span rows");
	}
	w.m = xcalloc(L->waiting.len, sizeof *w.m);
	size_t keep = 0;
	for (size_t i = 0; i < L->waiting.len; i++) {
		struct dx_bundle *b = L->waiting.items[i];
		if (b->pc == pc)
			w.m[w.nm++] = b;
		else
			L->waiting.items[keep++] = b;
	}
	L->waiting.len = keep;
	const struct expr **src = xcalloc(w.nm, sizeof *src);
	const struct expr **res = xcalloc(2 * w.nm, sizeof *res);
	int rc = 0;
	bool is_shfl = op == DO_SHFL, is_vote = op == DO_VOTE || op == DO_ACTIVEMASK;
	if ((is_shfl || op == DO_VOTE) && !ptx_has_mod(w.in, "sync"))
		rc = dx_unsupported(L, w.in, arena_printf(&L->a, "instruction '%s'", dx_instr_name(L, w.in)),
		                    "'%s' without .sync", dx_instr_name(L, w.in));
	for (size_t i = 0; rc == 0 && (is_shfl || op == DO_VOTE) && i < w.nm; i++) {
		src[i] = is_shfl ? dx_get_raw(L, w.m[i], w.in, &w.in->ops[1])
		                 : dx_get(L, w.m[i], w.in, &w.in->ops[1], SORT_BOOL);
		if (!src[i])
			rc = -1;
	}
	for (size_t i = 0; rc == 0 && i < w.nm; i++) {
		if (is_shfl)
			rc = shfl_one(&w, w.m[i], src, &res[2 * i], &res[2 * i + 1]);
		else if (is_vote)
			rc = vote_one(&w, w.m[i], src, &res[2 * i]);
		else {
			const struct expr *mask = w.in->nops ? thread_arg(&w, w.m[i], 0) : e_bv(cx, ~0u, 32);
			rc = mask ? check_inactive(&w, w.m[i], mask) : -1;
			rc = rc < 0 ? -1 : 0;
		}
		rc = rc < 0 ? -1 : 0;
	}
	for (size_t i = 0; rc == 0 && i < w.nm; i++) {
		struct dx_bundle *b = w.m[i];
		const struct ptx_operand *d = w.in->nops ? &w.in->ops[0] : NULL;
		if (is_shfl && d->kind == PO_PAIR) {
			if (dx_set(L, b, w.in, &d->elems[0], res[2 * i]) < 0 ||
			    dx_set(L, b, w.in, &d->elems[1], res[2 * i + 1]) < 0)
				rc = -1;
		} else if (is_shfl || is_vote) {
			if (dx_set(L, b, w.in, d, res[2 * i]) < 0)
				rc = -1;
		} else {
			b->sub++;
			b->shstores = NULL;
		}
	}
	for (size_t i = 0; i < w.nm; i++) {
		w.m[i]->pc++;
		VEC_PUSH(L->work, w.m[i]);
	}
	free(w.m);
	free(src);
	free(res);
	return rc;
}

/* ---- undef at sinks ------------------------------------------------------------------ */

#define UMEMO 4096

struct umemo {
	const struct expr *k[UMEMO], *v[UMEMO];
	bool other;                  /* an undef that no shuffle made */
};

static bool is_shfl_undef(const struct expr *e)
{
	return e->op == EOP_UNDEF && (e->u >> 32) == 0x5348464Cull;
}

/* Where e is a shuffle's undef (memoised: e is a DAG). */
static const struct expr *ucond(struct ectx *cx, struct umemo *m, const struct expr *e)
{
	if (!e_has_undef(e))
		return e_bool(cx, false);
	if (e->op == EOP_UNDEF) {
		/* -inf and +inf are values (dexec.h): stored, they are for a
		 * max or min of the back-projection to absorb; as an address
		 * or a branch condition they are unsupported where those are
		 * used */
		if (!is_shfl_undef(e) && !e_is_inf(e, 0))
			m->other = true;
		return e_bool(cx, is_shfl_undef(e));
	}
	size_t h = (size_t)e->hash & (UMEMO - 1), n = 0;
	while (m->k[h] && m->k[h] != e && n++ < UMEMO)
		h = (h + 1) & (UMEMO - 1);
	if (m->k[h] == e)
		return m->v[h];
	const struct expr *u;
	if (e->op == EOP_ITE) {
		const struct expr *c = e->args[0];
		const struct expr *ua = ucond(cx, m, e->args[1]), *ub = ucond(cx, m, e->args[2]);
		const struct expr *uc = ucond(cx, m, c);
		if (e_has_data(c) || e_has_undef(c))
			u = e_or(cx, uc, e_or(cx, ua, ub));
		else
			u = e_or(cx, e_and(cx, c, ua), e_and(cx, e_not(cx, c), ub));
	} else {
		u = e_bool(cx, false);
		for (unsigned i = 0; i < e->nargs; i++)
			u = e_or(cx, u, ucond(cx, m, e->args[i]));
	}
	if (!m->k[h]) {
		m->k[h] = e;
		m->v[h] = u;
	}
	return u;
}

const struct expr *dx_undef_cond(struct dx_launch *L, const struct expr *e)
{
	struct umemo *m = xcalloc(1, sizeof *m);
	const struct expr *u = ucond(L->cx, m, e);
	free(m);
	return u;
}

int dx_undef_sink(struct dx_launch *L, const struct ptx_instr *in, const struct expr *dom,
                  const struct expr *v, const char *what)
{
	uint32_t tid[3], ctaid[3];
	struct umemo *m = xcalloc(1, sizeof *m);
	const struct expr *u = ucond(L->cx, m, v);
	bool other = m->other;
	free(m);
	if (other)
		return dx_unsupported(L, in, "undefined value", "a value never defined (%s)", what);
	enum smt_result s = dx_sat(L, e_and(L->cx, dom, u), tid, ctaid);
	if (s == SMT_UNSAT)
		return 0;
	if (s == SMT_UNKNOWN)
		return dx_unsupported(L, in, "undefined value", "a value that may be undefined");
	const char *src = dx_src(L, in);
	char *msg = arena_printf(&L->a,
		"kernel '%s': thread (%u,%u,%u) block (%u,%u,%u) %s a value a shuffle read from an "
		"inactive or missing lane (undefined), PTX line %u%s%s",
		L->l->kernel, tid[0], tid[1], tid[2], ctaid[0], ctaid[1], ctaid[2], what, in->line,
		src ? ", " : "", src ? src : "");
	struct sym_finding *f = dx_finding(L, in, "shfl-undef", tid, ctaid, NO_VALUE, 0, msg);
	if (f)
		f->has_addr = false;
	return 1;
}
