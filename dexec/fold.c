/*
 * fold.c: what the launch geometry makes of thread-index arithmetic.
 *
 * nvcc divides a signed index by a power of two as
 * (x + ((x >> 31) >>u 27)) >> 5 and rounds it down to a multiple as
 * (x + ...) & -32: exact for every int, but for x = ctaid.y * 32 + tid.y
 * the correction is 0 and the rounding drops tid.y, which the affine
 * prover only finds by case splits over quotient variables, at each of
 * the many branch conditions that mention it.  dx_fold rebuilds a
 * condition bottom-up with the unsigned interval of every bitvector
 * node, from tid < ntid, ctaid < nctaid and constants, and folds:
 *
 *   x >> k (arithmetic), x below 2^(w-1)     ->  x >>u k
 *   x >>u k, x below 2^k                     ->  0
 *   x / c, x % c (unsigned), x below c       ->  0, x
 *   x & (2^k - 1), x below 2^k               ->  x
 *   (a + r) & -2^k, a a multiple of 2^k,
 *     r in [0, 2^k), no wrap                 ->  a
 *   a comparison the intervals decide        ->  true or false
 *
 * Each is exact for every thread of the launch; nothing else changes.
 * Sums and products are only given an interval when they cannot wrap.
 */
#include "dexec.h"

#include <string.h>

typedef unsigned __int128 u128;

struct fd_node {                       /* a node rebuilt, with its interval */
	const struct expr *from, *to;
	uint64_t lo, hi;
	bool known;
};

enum { FOLD_ARGS = 16, FOLD_DEPTH = 256, FOLD_NODES = 4096 };

struct fd_fold {
	struct dx_launch *L;
	struct fd_node *tab;
	size_t cap, len;
	unsigned budget;                 /* nodes left to rebuild */
	unsigned depth;
};

static uint64_t fd_wmax(unsigned w)
{
	return w >= 64 ? UINT64_MAX : (1ull << w) - 1;
}

static struct fd_node *fd_slot(struct fd_fold *f, const struct expr *e)
{
	size_t i = ((uintptr_t)e >> 4) * 0x9E3779B97F4A7C15ull & (f->cap - 1);
	while (f->tab[i].from && f->tab[i].from != e)
		i = (i + 1) & (f->cap - 1);
	return &f->tab[i];
}

static void fd_grow(struct fd_fold *f)
{
	struct fd_node *old = f->tab;
	size_t n = f->cap;
	f->cap = n ? 2 * n : 256;
	f->tab = xcalloc(f->cap, sizeof *f->tab);
	for (size_t i = 0; i < n; i++)
		if (old[i].from)
			*fd_slot(f, old[i].from) = old[i];
	free(old);
}

/* The bounds of a coordinate leaf (tid, ctaid, or the second thread's
 * variables that race.c makes): false for other leaves. */
static bool fd_coord(const struct dx_launch *L, const struct expr *e, uint64_t *hi)
{
	const uint32_t *ntid = L->geom.ntid, *nctaid = L->geom.nctaid;
	if (e->op == EOP_TID && e->u < 3)
		return *hi = ntid[e->u] ? ntid[e->u] - 1 : 0, true;
	if (e->op == EOP_CTAID && e->u < 3)
		return *hi = nctaid[e->u] ? nctaid[e->u] - 1 : 0, true;
	if (e->op == EOP_VAR && (e->u >> 40) == 0xD2) {
		unsigned k = (unsigned)(e->u & 0xff);
		if (k < 3)
			return *hi = ntid[k] ? ntid[k] - 1 : 0, true;
		if (k >= 0x10 && k < 0x13)
			return *hi = nctaid[k & 0xf] ? nctaid[k & 0xf] - 1 : 0, true;
	}
	return false;
}

static bool fd_const(const struct expr *e, uint64_t *v)
{
	if (e->op != EOP_BV)
		return false;
	*v = e->u;
	return true;
}

/* Whether e is a multiple of 2^k for every value of its operands. */
static bool fd_aligned(const struct expr *e, unsigned k)
{
	uint64_t c;
	if (fd_const(e, &c))
		return k >= 64 ? c == 0 : (c & ((1ull << k) - 1)) == 0;
	if (e->op == EOP_MUL)
		for (unsigned i = 0; i < e->nargs; i++)
			if (fd_aligned(e->args[i], k))
				return true;
	if (e->op == EOP_SHL && fd_const(e->args[1], &c) && c >= k)
		return true;
	if (e->op == EOP_ADD) {
		for (unsigned i = 0; i < e->nargs; i++)
			if (!fd_aligned(e->args[i], k))
				return false;
		return true;
	}
	return false;
}

static bool fd_folded(enum eop op)
{
	switch (op) {
	case EOP_ADD: case EOP_SUB: case EOP_MUL: case EOP_NEG:
	case EOP_UDIV: case EOP_UREM: case EOP_SDIV: case EOP_SREM:
	case EOP_SHL: case EOP_LSHR: case EOP_ASHR:
	case EOP_AND: case EOP_OR: case EOP_XOR: case EOP_NOT:
	case EOP_UMIN: case EOP_UMAX: case EOP_SMIN: case EOP_SMAX:
	case EOP_ZEXT: case EOP_SEXT: case EOP_EXTRACT:
	case EOP_EQ: case EOP_ULT: case EOP_ULE: case EOP_SLT: case EOP_SLE:
	case EOP_LAND: case EOP_LOR: case EOP_LNOT: case EOP_ITE:
		return true;
	default:
		return false;
	}
}

static struct fd_node fd_node(struct fd_fold *f, const struct expr *e);

/* The interval of a rebuilt node n of width w whose children's nodes are
 * c[]; and the fold it allows, if any (NULL: none). */
static const struct expr *fd_interval(struct fd_fold *f, const struct expr *n, const struct fd_node *c,
                                   struct fd_node *out)
{
	struct ectx *cx = f->L->cx;
	unsigned w = SORT_KIND(n->sort) == SK_BV ? SORT_WIDTH(n->sort) : 0;
	uint64_t k;
	u128 lo = 0, hi = 0;
	out->known = false;
	switch (n->op) {
	case EOP_ADD:
		for (unsigned i = 0; i < n->nargs; i++) {
			if (!c[i].known)
				return NULL;
			lo += c[i].lo;
			hi += c[i].hi;
		}
		break;
	case EOP_MUL:
		lo = hi = 1;
		for (unsigned i = 0; i < n->nargs; i++) {
			if (!c[i].known || hi > UINT64_MAX)
				return NULL;
			lo *= c[i].lo;
			hi *= c[i].hi;
		}
		break;
	case EOP_SHL:
		if (!c[0].known || !fd_const(n->args[1], &k) || k >= w)
			return NULL;
		lo = (u128)c[0].lo << k;
		hi = (u128)c[0].hi << k;
		break;
	case EOP_ASHR:
		if (c[0].known && c[0].hi <= fd_wmax(w) >> 1)
			return e_op2(cx, EOP_LSHR, n->args[0], n->args[1]);
		return NULL;
	case EOP_LSHR:
		if (!c[0].known || !fd_const(n->args[1], &k))
			return NULL;
		if (k >= w || (c[0].hi >> k) == 0)
			return e_bv(cx, 0, w);
		lo = c[0].lo >> k;
		hi = c[0].hi >> k;
		break;
	case EOP_UDIV: case EOP_UREM:
		if (!c[0].known || !fd_const(n->args[1], &k) || k == 0)
			return NULL;
		if (c[0].hi < k)
			return n->op == EOP_UDIV ? e_bv(cx, 0, w) : n->args[0];
		lo = n->op == EOP_UDIV ? c[0].lo / k : 0;
		hi = n->op == EOP_UDIV ? c[0].hi / k : k - 1;
		break;
	case EOP_AND: {
		if (n->nargs != 2)
			return NULL;
		int ci = fd_const(n->args[1], &k) ? 1 : fd_const(n->args[0], &k) ? 0 : -1;
		if (ci < 0) {
			if (!c[0].known || !c[1].known)
				return NULL;
			hi = c[0].hi < c[1].hi ? c[0].hi : c[1].hi;
			break;
		}
		const struct expr *x = n->args[1 - ci];
		const struct fd_node *cxn = &c[1 - ci];
		if (!cxn->known) {
			hi = k;
			break;
		}
		/* x & (2^j - 1) with x below 2^j */
		if ((k & (k + 1)) == 0 && cxn->hi <= k)
			return x;
		/* x & -2^j: x = a + r, a aligned, r in [0, 2^j) */
		uint64_t low = ~k & fd_wmax(w);
		if (low && (low & (low + 1)) == 0 && k != 0) {
			unsigned j = (unsigned)__builtin_popcountll(low);
			if (cxn->hi < (1ull << j))
				return e_bv(cx, 0, w);
			if (fd_aligned(x, j))
				return x;
			if (x->op == EOP_ADD && x->nargs <= FOLD_ARGS) {
				const struct expr *keep[FOLD_ARGS];
				unsigned nk = 0;
				u128 rhi = 0;
				bool ok = true;
				for (unsigned i = 0; i < x->nargs && ok; i++) {
					if (fd_aligned(x->args[i], j)) {
						keep[nk++] = x->args[i];
						continue;
					}
					struct fd_node a = fd_node(f, x->args[i]);
					ok = a.known;
					rhi += a.hi;
				}
				if (ok && rhi < ((u128)1 << j))
					return nk == 0 ? e_bv(cx, 0, w) :
					       nk == 1 ? keep[0] : e_op(cx, EOP_ADD, x->sort, 0, nk, keep);
			}
		}
		hi = cxn->hi < k ? cxn->hi : k;
		break;
	}
	case EOP_SEXT:                   /* of a value below the sign bit: as ZEXT */
		if (!c[0].known || c[0].hi > fd_wmax(SORT_WIDTH(n->args[0]->sort)) >> 1)
			return NULL;
		lo = c[0].lo;
		hi = c[0].hi;
		break;
	case EOP_ZEXT:
		if (!c[0].known)
			return NULL;
		lo = c[0].lo;
		hi = c[0].hi;
		break;
	case EOP_UMIN: case EOP_UMAX:
		if (n->nargs != 2 || !c[0].known || !c[1].known)
			return NULL;
		if (n->op == EOP_UMIN) {
			lo = c[0].lo < c[1].lo ? c[0].lo : c[1].lo;
			hi = c[0].hi < c[1].hi ? c[0].hi : c[1].hi;
		} else {
			lo = c[0].lo > c[1].lo ? c[0].lo : c[1].lo;
			hi = c[0].hi > c[1].hi ? c[0].hi : c[1].hi;
		}
		break;
	case EOP_EQ: case EOP_ULT: case EOP_ULE: case EOP_SLT: case EOP_SLE: {
		if (n->nargs != 2 || !c[0].known || !c[1].known ||
		    SORT_KIND(n->args[0]->sort) != SK_BV)
			return NULL;
		unsigned aw = SORT_WIDTH(n->args[0]->sort);
		bool sgn = n->op == EOP_SLT || n->op == EOP_SLE;
		if (sgn && (c[0].hi > fd_wmax(aw) >> 1 || c[1].hi > fd_wmax(aw) >> 1))
			return NULL;     /* a negative value orders otherwise */
		const struct fd_node *a = &c[0], *b = &c[1];
		switch (n->op) {
		case EOP_EQ:
			if (a->hi < b->lo || b->hi < a->lo)
				return e_bool(cx, false);
			return NULL;
		case EOP_ULT: case EOP_SLT:
			if (a->hi < b->lo)
				return e_bool(cx, true);
			if (a->lo >= b->hi)
				return e_bool(cx, false);
			return NULL;
		default:
			if (a->hi <= b->lo)
				return e_bool(cx, true);
			if (a->lo > b->hi)
				return e_bool(cx, false);
			return NULL;
		}
	}
	default:
		return NULL;
	}
	if (w && hi <= fd_wmax(w)) {
		out->known = true;
		out->lo = (uint64_t)lo;
		out->hi = (uint64_t)hi;
	}
	return NULL;
}

/* e rebuilt with its children folded, and its interval. */
static struct fd_node fd_node(struct fd_fold *f, const struct expr *e)
{
	if (2 * (f->len + 1) > f->cap)
		fd_grow(f);
	struct fd_node *s = fd_slot(f, e);
	if (s->from)
		return *s;
	struct fd_node r = { e, e, 0, 0, false };
	uint64_t v;
	if (fd_const(e, &v)) {
		r.known = true;
		r.lo = r.hi = v;
	} else if (fd_coord(f->L, e, &v)) {
		r.known = true;
		r.hi = v;
	} else if (fd_folded((enum eop)e->op) && e->nargs <= FOLD_ARGS && f->budget &&
	           f->depth < FOLD_DEPTH) {
		f->budget--;
		f->depth++;
		struct fd_node c[FOLD_ARGS];
		const struct expr *args[FOLD_ARGS];
		bool changed = false;
		for (unsigned i = 0; i < e->nargs; i++) {
			c[i] = fd_node(f, e->args[i]);
			args[i] = c[i].to;
			changed |= args[i] != e->args[i];
		}
		const struct expr *n = changed ? e_op(f->L->cx, (enum eop)e->op, e->sort, e->u, e->nargs, args) : e;
		/* simplified on rebuilding, or folded: the new node's own interval */
		const struct expr *t = n != e ? n : fd_interval(f, n, c, &r);
		if (t && t != e) {
			r = fd_node(f, t);
			r.from = e;
		}
		f->depth--;
	}
	s = fd_slot(f, e);                  /* the table may have grown */
	if (!s->from)
		f->len++;
	*s = r;
	return r;
}

const struct expr *dx_fold(struct dx_launch *L, const struct expr *e)
{
	if (!e)
		return e;
	struct fd_fold f = { L, NULL, 0, 0, FOLD_NODES, 0 };
	const struct expr *r = fd_node(&f, e).to;
	free(f.tab);
	return r;
}

/* ---- conjoining a domain ------------------------------------------------------ */

/* A comparison literal: [not] a OP b, OP one of ULT ULE SLT SLE. */
struct fd_lit { bool neg; enum eop op; const struct expr *a, *b; };

static bool fd_as_lit(const struct expr *e, struct fd_lit *l)
{
	l->neg = false;
	if (e->op == EOP_LNOT && e->nargs == 1) {
		l->neg = true;
		e = e->args[0];
	}
	if ((e->op != EOP_ULT && e->op != EOP_ULE && e->op != EOP_SLT && e->op != EOP_SLE) ||
	    e->nargs != 2)
		return false;
	l->op = (enum eop)e->op;
	l->a = e->args[0];
	l->b = e->args[1];
	return true;
}

/* The value of e as a sum of the same terms as f's plus a constant:
 * *d = e - f, exact as integers (both known, nonnegative, not wrapping).
 * false when the terms differ or the values are not so known. */
static bool fd_apart(struct fd_fold *f, const struct expr *e, const struct expr *g, int64_t *d)
{
	if (e == g) {
		*d = 0;
		return true;
	}
	uint64_t ke, kg;
	struct affine_term te[8], tg[8];
	int ne = e_affine(e, &ke, te, 8), ng = e_affine(g, &kg, tg, 8);
	if (ne < 0 || ne != ng)
		return false;
	for (int i = 0; i < ne; i++)
		if (te[i].term != tg[i].term || te[i].coef != tg[i].coef)
			return false;
	struct fd_node a = fd_node(f, e), b = fd_node(f, g);
	unsigned w = SORT_WIDTH(e->sort);
	if (!a.known || !b.known || a.hi > fd_wmax(w) >> 1 || b.hi > fd_wmax(w) >> 1 || w > 63)
		return false;
	*d = (int64_t)((ke - kg) & fd_wmax(w));
	if (*d > (int64_t)(fd_wmax(w) >> 1))
		*d -= (int64_t)fd_wmax(w) + 1;
	return true;
}

/* Whether literal p implies literal q, both over the same left side and
 * right sides a constant apart (x >= y + 5 implies x >= y + 3). */
static bool fd_lit_implies(struct fd_fold *f, const struct fd_lit *p, const struct fd_lit *q)
{
	if (p->neg != q->neg || p->op != q->op || p->a != q->a)
		return false;
	int64_t d;                       /* q's right side minus p's */
	if (!fd_apart(f, q->b, p->b, &d))
		return false;
	/* a < b (or <=): a smaller bound is stronger; negated (a >= b): a larger one */
	return p->neg ? d <= 0 : d >= 0;
}

const struct expr *dx_dom_and(struct dx_launch *L, const struct expr *dom, const struct expr *c)
{
	struct ectx *cx = L->cx;
	struct fd_lit lc;
	if (dom->op != EOP_LAND || !fd_as_lit(c, &lc))
		return e_and(cx, dom, c);
	struct fd_fold f = { L, NULL, 0, 0, FOLD_NODES, 0 };    /* its table made when first used */
	const struct expr *keep[255];
	unsigned nk = 0;
	bool implied = false;
	for (unsigned i = 0; i < dom->nargs; i++) {
		struct fd_lit ld;
		const struct expr *x = dom->args[i];
		if (fd_as_lit(x, &ld)) {
			if (fd_lit_implies(&f, &ld, &lc))
				implied = true;
			else if (fd_lit_implies(&f, &lc, &ld))
				continue;       /* c says more: x goes */
		}
		keep[nk++] = x;
	}
	free(f.tab);
	if (implied)
		return dom;
	const struct expr *d = nk == dom->nargs ? dom : nk == 1 ? keep[0] :
	                       e_op(cx, EOP_LAND, SORT_BOOL, 0, nk, keep);
	return e_and(cx, d, c);
}
