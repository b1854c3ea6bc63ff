/*
 * gread.c: loads of global memory that the launch itself writes
 * (dexec(1), dirigo-symbolic(5) "reads").
 *
 * A thread may load a location of a buffer that threads of its own launch
 * store to.  It sees its own earlier store (program order), or the store
 * of another thread of its block made before a barrier the reader passed
 * since (barrier epochs order them), or the buffer as it was before the
 * launch where no thread stored there before; a store of another thread
 * of its epoch, or of another block at any time (no barrier orders two
 * blocks), races with the load.
 *
 * A static look at the kernel first (which parameters' pointers can reach
 * the address of a store) leaves the loads of buffers the launch never
 * writes as they were: LOAD leaves of the buffer before the launch.  A
 * load of a buffer it may write becomes, while the launch runs, a LOAD
 * leaf of the launch's global-read space (SYM_GREAD_SPACE) whose address
 * names an entry: the reader's threads and offset, its barrier epoch, the
 * stores it made so far (seq), and what its own stores leave there
 * (forwarding, mem.c), or the buffer before the launch if none.  When the
 * launch has ended every store is known, and each entry is settled:
 *
 *   - no store of the launch reaches the buffer: the leaf becomes the
 *     buffer before the launch;
 *   - no store of another thread can reach the location before the read,
 *     in its epoch, or from another block: the leaf becomes what
 *     forwarding found.  Shown without the solver when the addresses are
 *     affine in the thread coordinates with the same coefficients (a
 *     small search over coordinate differences, lin.h), else by asking
 *     the solver for such a pair of threads;
 *   - otherwise the leaf stays, with an entry in the record's "reads":
 *     the back-projection (engine/resolve-global.c) answers it per
 *     thread and location from the launch's writes.  Where the solver
 *     shows a pair of threads that race (another block, or one epoch of
 *     one block and, in one warp, no bar.warp.sync between) on a
 *     location, both accesses sure to happen and neither volatile,
 *     relaxed, acquire or release (those do not data-race with each other
 *     in the PTX memory model), that is a "global-race" finding.
 *
 * A forwarded value without data (an index, a constant) is used as it is,
 * since addresses and branches need it; its entry must then be settled
 * by the second rule, else the launch is unsupported.
 */
#include "dexec.h"

#include <inttypes.h>
#include <string.h>

#include "engine/lin.h"

#define GR_MAX_QUERIES 1024u   /* solver queries per launch (interference, races) */
#define GR_MAX_TERMS   256u    /* stores of one buffer named in one query */
#define GR_MAX_NODES   4096u   /* search nodes of one affine test */

struct gr_ent {
	uint32_t vin, vout;
	const struct expr *dom;        /* the threads that load (thread-only) */
	const struct expr *off;        /* bv64 byte offset */
	const struct expr *key;        /* the leaf's address: off + SYM_GR_CODE(index) */
	const struct expr *fwd;        /* own stores' value, else the buffer before; NULL: undecided */
	enum etype et;
	uint32_t epoch, seq, wsub;     /* wsub: warp epochs since the barrier */
	bool direct;                   /* fwd was handed out: the entry must settle */
	bool sure;                     /* not under a data guard */
	const struct ptx_instr *in;
	const struct expr *repl;       /* after settling: what the leaf becomes; NULL: it stays */
	uint32_t out;                  /* index in the record's reads, UINT32_MAX: none yet */
};

struct dx_gread {
	bool scanned;
	uint64_t written;              /* bit i: parameter i (63: 63 and above) may be stored to */
	VEC(struct gr_ent) ents;
	uint32_t *slot;                /* open addressing over key->hash: entry index + 1 */
	size_t cap;
	VEC(struct sym_gread) reads;
	unsigned queries;
	struct e_subst_many *sub;      /* the settling substitution (dx_gread_finish) */
};

static struct dx_gread *state(struct dx_launch *L)
{
	if (!L->gr)
		L->gr = xcalloc(1, sizeof *L->gr);
	return L->gr;
}

void dx_gread_free(struct dx_gread *g)
{
	if (!g)
		return;
	VEC_FREE(g->ents);
	VEC_FREE(g->reads);
	free(g->slot);
	free(g);
}

const struct sym_gread *dx_greads(const struct dx_launch *L, uint32_t *n)
{
	*n = L->gr ? (uint32_t)L->gr->reads.len : 0;
	return L->gr ? L->gr->reads.items : NULL;
}

/* ---- which buffers the launch may write -------------------------------------- */

static uint64_t pbit(unsigned i)
{
	return 1ull << (i < 63 ? i : 63);
}

static int param_of(const struct ptx_func *fn, const char *name)
{
	for (unsigned i = 0; i < fn->nparams; i++)
		if (fn->params[i].name == name || !strcmp(fn->params[i].name, name))
			return (int)i;
	return -1;
}

/* The parameters whose pointers the registers of operand o may hold. */
static uint64_t taint_of(const struct ptx_func *fn, const uint64_t *taint, const struct ptx_operand *o)
{
	uint64_t t = 0;
	if ((o->kind == PO_REG || (o->kind == PO_ADDR && !o->base_is_sym)) && o->reg >= 0 &&
	    (unsigned)o->reg < fn->nregs)
		t |= taint[o->reg];
	if ((o->kind == PO_SYM || (o->kind == PO_ADDR && o->base_is_sym)) && o->name) {
		int p = param_of(fn, o->name);
		if (p >= 0)
			t |= pbit((unsigned)p);
	}
	for (unsigned i = 0; i < o->nelems; i++)
		t |= taint_of(fn, taint, &o->elems[i]);
	return t;
}

/* Adds t to the registers of destination operand o; true if one grew. */
static bool taint_dest(const struct ptx_func *fn, uint64_t *taint, const struct ptx_operand *o, uint64_t t)
{
	bool grew = false;
	if (o->kind == PO_REG && o->reg >= 0 && (unsigned)o->reg < fn->nregs && (taint[o->reg] | t) != taint[o->reg]) {
		taint[o->reg] |= t;
		grew = true;
	}
	if (o->kind == PO_VEC || o->kind == PO_PAIR)
		for (unsigned i = 0; i < o->nelems; i++)
			grew |= taint_dest(fn, taint, &o->elems[i], t);
	return grew;
}

static bool load_only(const char *op)
{
	static const char *const tab[] = { "ld", "ldu", "prefetch", "prefetchu", DX_OP_LDL, NULL };
	for (unsigned i = 0; tab[i]; i++)
		if (!strcmp(op, tab[i]))
			return true;
	return false;
}

/* Flow-insensitive, to a fixed point: a register holds the pointers of
 * the parameters its sources hold (ld.param: its parameter's); memory
 * holds those of every value stored anywhere, and a load gives them all;
 * an address operand of an instruction that is not a load is stored to.
 * What dexec follows (registers, forwarding through memory) is inside
 * this, so a parameter outside 'written' is never the base of a store. */
static void scan(struct dx_launch *L, struct dx_gread *g)
{
	const struct ptx_func *fn = L->fn;
	uint64_t *taint = xcalloc(fn->nregs + 1, sizeof *taint), pool = 0, written = 0;
	bool grew = true;
	unsigned pass;
	for (pass = 0; grew && pass < 64; pass++) {
		grew = false;
		for (unsigned i = 0; i < fn->ninstrs; i++) {
			const struct ptx_instr *in = &fn->instrs[i];
			bool dest = in->nops > 0 && (in->ops[0].kind == PO_REG || in->ops[0].kind == PO_VEC ||
			                             in->ops[0].kind == PO_PAIR);
			bool ldo = load_only(in->opcode), mem = false;
			uint64_t src = 0, loaded = 0;
			for (unsigned k = dest ? 1 : 0; k < in->nops; k++) {
				const struct ptx_operand *o = &in->ops[k];
				if (o->kind != PO_ADDR) {
					src |= taint_of(fn, taint, o);
					continue;
				}
				mem = true;
				uint64_t at = taint_of(fn, taint, o);
				if (ldo)
					loaded |= at & (o->base_is_sym ? ~0ull : 0);   /* ld.param [p]: p's pointer */
				else if ((written | at) != written) {
					written |= at;
					grew = true;
				}
			}
			if (mem && !ldo && (pool | src) != pool) {
				pool |= src;          /* what a store (or an atomic) puts in memory */
				grew = true;
			}
			if (dest)
				grew |= taint_dest(fn, taint, &in->ops[0], mem ? pool | loaded : src);
		}
	}
	free(taint);
	g->written = grew ? ~0ull : written;   /* no fixed point in time: anything may be */
	g->scanned = true;
}

bool dx_gread_may_write(struct dx_launch *L, uint32_t vin, uint32_t *vout)
{
	struct dx_gread *g = state(L);
	if (!g->scanned)
		scan(L, g);
	bool hit = false;
	*vout = NO_VALUE;
	for (uint32_t i = 0; i < L->l->nargs; i++) {
		const struct obl_arg *a = &L->l->args[i];
		if (!a->is_ptr || a->vin != vin)
			continue;
		*vout = a->vout;
		hit |= (g->written & pbit(i)) != 0;
	}
	return hit && *vout != NO_VALUE;
}

/* ---- loads -------------------------------------------------------------------- */

static struct gr_ent *ent_of_key(struct dx_gread *g, const struct expr *key)
{
	if (!g->cap)
		return NULL;
	for (size_t i = (size_t)key->hash & (g->cap - 1); g->slot[i]; i = (i + 1) & (g->cap - 1))
		if (g->ents.items[g->slot[i] - 1].key == key)
			return &g->ents.items[g->slot[i] - 1];
	return NULL;
}

static void key_put(struct dx_gread *g, const struct expr *key, uint32_t idx)
{
	if (2 * (g->ents.len + 1) > g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 256;
		free(g->slot);
		g->slot = xcalloc(cap, sizeof *g->slot);
		g->cap = cap;
		for (uint32_t k = 0; k < idx; k++) {
			size_t i = (size_t)g->ents.items[k].key->hash & (cap - 1);
			while (g->slot[i])
				i = (i + 1) & (cap - 1);
			g->slot[i] = k + 1;
		}
	}
	size_t i = (size_t)key->hash & (g->cap - 1);
	while (g->slot[i])
		i = (i + 1) & (g->cap - 1);
	g->slot[i] = idx + 1;
}

uint32_t dx_gread_vin(const struct dx_launch *L, const struct expr *e)
{
	if (!L->gr || e->op != EOP_LOAD || e->space != SYM_GREAD_SPACE(L->id))
		return NO_VALUE;
	const struct gr_ent *x = ent_of_key(L->gr, e->args[0]);
	return x ? x->vin : NO_VALUE;
}

const struct expr *dx_gread_load(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                                 const struct expr *dom, uint32_t vin, uint32_t vout,
                                 const struct expr *off, enum etype et, bool sure)
{
	struct ectx *cx = L->cx;
	struct dx_gread *g = state(L);
	unsigned size = etype_size(et);
	sure = sure && !dx_strong(in);     /* a strong load races with no strong store */
	if (L->id >= SYM_GREAD_LAUNCH(~0u) || L->o->values.items[vin].bytes >= (1ull << SYM_GR_OFF_BITS)) {
		dx_unsupported(L, in, "global read", "a load of a buffer the launch writes, in a launch or "
		               "buffer too large for the record to number");
		return NULL;
	}
	const struct expr *miss = e_load(cx, vin, et, off), *fwd;
	int k = dx_forward_soft(L, in, b->dom, b->stores, vin, off, size, et, miss, &fwd);
	if (k < 0)
		return NULL;
	if (k > 0)
		fwd = NULL;
	else if (!fwd)
		fwd = miss;
	bool direct = fwd && !e_has_data(fwd);
	/* the same load of bundles split from one another is one entry */
	size_t from = g->ents.len > 64 ? g->ents.len - 64 : 0;
	for (size_t i = g->ents.len; i-- > from;) {
		struct gr_ent *x = &g->ents.items[i];
		if (x->vin == vin && x->dom == dom && x->off == off && x->et == et && x->epoch == b->epoch &&
		    x->seq == b->seq && x->wsub == b->sub && x->fwd == fwd && x->sure == sure && x->in == in)
			return direct ? fwd : e_load(cx, SYM_GREAD_SPACE(L->id), et, x->key);
	}
	if (g->ents.len >= SYM_GR_MAX) {
		dx_unsupported(L, in, "global read", "more loads of buffers the launch writes than the record "
		               "can number");
		return NULL;
	}
	uint32_t idx = (uint32_t)g->ents.len;
	const struct expr *key = e_op2(cx, EOP_ADD, off, e_bv(cx, SYM_GR_CODE(idx), 64));
	if (ent_of_key(g, key)) {
		dx_unsupported(L, in, "global read", "two loads of a buffer the launch writes that dexec "
		               "cannot tell apart");
		return NULL;
	}
	struct gr_ent x = { vin, vout, dom, off, key, fwd, et, b->epoch, b->seq, b->sub, direct,
	                    sure, in, NULL, UINT32_MAX };
	VEC_PUSH(g->ents, x);
	key_put(g, key, idx);
	return direct ? fwd : e_load(cx, SYM_GREAD_SPACE(L->id), et, key);
}

/* ---- settling ------------------------------------------------------------------ */

typedef __int128 i128;

struct dsearch {
	const int64_t *c;              /* coefficients, by coordinate */
	const uint64_t *n;             /* geometry */
	int order[6];                  /* coordinates by |c| descending */
	i128 reach[7];                 /* reach[k]: the most the coordinates order[k..] add */
	i128 lo, hi;                   /* the sum looked for */
	bool need_block;               /* a difference in ctaid wanted */
	int64_t d[6];
	unsigned nodes;
};

/* 1: a difference d != 0 (in ctaid when need_block) with sum c.d in
 * [lo, hi]; 0: none; -1: too many nodes. */
static int dsearch(struct dsearch *s, int k, i128 sum)
{
	if (++s->nodes > GR_MAX_NODES)
		return -1;
	if (k == 6) {
		bool any = false, blk = false;
		for (int i = 0; i < 6; i++) {
			any |= s->d[i] != 0;
			blk |= i >= 3 && s->d[i] != 0;
		}
		return sum >= s->lo && sum <= s->hi && any && (blk || !s->need_block);
	}
	int i = s->order[k];
	i128 c = s->c[i], m = s->n[i] ? (i128)s->n[i] - 1 : 0;
	i128 a = -m, b = m;
	if (c == 0) {
		/* the sum does not see this coordinate: only whether it differs */
		b = m > 0 ? 1 : 0;
		a = 0;
	} else {
		/* c*d in [lo - sum - reach, hi - sum + reach] */
		i128 l = s->lo - sum - s->reach[k + 1], h = s->hi - sum + s->reach[k + 1];
		if (c < 0) {
			i128 t = -h;
			h = -l;
			l = t;
			c = -c;
		}
		i128 dl = l >= 0 ? (l + c - 1) / c : -((-l) / c), dh = h >= 0 ? h / c : -((-h + c - 1) / c);
		a = dl > a ? dl : a;
		b = dh < b ? dh : b;
	}
	for (i128 v = a; v <= b; v++) {
		s->d[i] = (int64_t)v;
		int r = dsearch(s, k + 1, sum + (i128)s->c[i] * v);
		if (r != 0)
			return r;
	}
	s->d[i] = 0;
	return 0;
}

/* Can a store at addr (size ws) by one thread meet a read at off (size rs)
 * by another thread (of another block, when need_block)?  Without the
 * solver: 0 no, 1 maybe (or not affine the same way). */
static int affine_meet(struct dx_launch *L, const struct expr *off, unsigned rs, const struct expr *addr,
                       unsigned ws, bool need_block)
{
	uint64_t n[6] = { L->geom.ntid[0], L->geom.ntid[1], L->geom.ntid[2],
	                  L->geom.nctaid[0], L->geom.nctaid[1], L->geom.nctaid[2] };
	struct lin r, w;
	if (!lin_of_addr(off, n, &r) || !lin_of_addr(addr, n, &w))
		return 1;
	for (int i = 0; i < 6; i++)
		if (r.c[i] != w.c[i] && n[i] > 1)
			return 1;
	/* w(u) - r(t) = c.(u - t) + D must lie in (-ws, rs) */
	struct dsearch s = { .c = w.c, .n = n, .need_block = need_block };
	i128 D = (i128)w.c0 - r.c0;
	s.lo = -(i128)ws + 1 - D;
	s.hi = (i128)rs - 1 - D;
	for (int i = 0; i < 6; i++)
		s.order[i] = i;
	for (int i = 0; i < 6; i++)
		for (int j = i + 1; j < 6; j++) {
			int64_t a = s.c[s.order[i]], b = s.c[s.order[j]];
			if ((b < 0 ? -(i128)b : b) > (a < 0 ? -(i128)a : a)) {
				int t = s.order[i];
				s.order[i] = s.order[j];
				s.order[j] = t;
			}
		}
	s.reach[6] = 0;
	for (int k = 5; k >= 0; k--) {
		int i = s.order[k];
		i128 c = s.c[i] < 0 ? -(i128)s.c[i] : s.c[i];
		s.reach[k] = s.reach[k + 1] + c * (n[i] ? (i128)n[i] - 1 : 0);
	}
	memset(s.d, 0, sizeof s.d);
	return dsearch(&s, 0, 0) == 0 ? 0 : 1;
}

/* A plain store or atomic of the launch as the pair queries need it. */
struct gr_store {
	const struct dx_gacc *a;
	const struct expr *dom2, *off2;    /* renamed to the second thread (made on first use) */
};

/* The condition that a store of ss[0..n) by a second thread u != t
 * reaches the read of entry x by thread t: race (a pair nothing orders)
 * or not (any store the read may see or race with). */
static const struct expr *meet_cond(struct dx_launch *L, const struct gr_ent *x, struct gr_store *ss,
                                    const uint32_t *pick, size_t n, bool race)
{
	struct ectx *cx = L->cx;
	const struct expr *same_block = dx_same2(L, false), *any = e_bool(cx, false);
	const struct expr *same_warp = dx_same_warp2(L);
	unsigned rs = etype_size(x->et);
	for (size_t k = 0; k < n; k++) {
		struct gr_store *s = &ss[pick[k]];
		const struct dx_gacc *a = s->a;
		if (race && (!a->sure || a->atomic || dx_strong(a->in)))
			continue;
		if (!s->dom2) {
			s->dom2 = dx_other_grid(L, a->dom);
			s->off2 = dx_other_grid(L, a->off);
		}
		const struct expr *ov = e_and(cx,
			e_op2(cx, EOP_ULT, x->off, e_op2(cx, EOP_ADD, s->off2, e_bv(cx, a->size, 64))),
			e_op2(cx, EOP_ULT, s->off2, e_op2(cx, EOP_ADD, x->off, e_bv(cx, rs, 64))));
		/* race: another block, or one epoch of the block (of one warp:
		 * with no bar.warp.sync between either); else also a store of
		 * the block in an earlier epoch, which the read may see */
		const struct expr *when = e_not(cx, same_block);
		if (race ? a->epoch == x->epoch : a->epoch <= x->epoch)
			when = race && a->sub != x->wsub ? e_not(cx, e_and(cx, same_block, same_warp))
			                                  : e_bool(cx, true);
		any = e_or(cx, any, e_and(cx, e_and(cx, s->dom2, ov), when));
	}
	return e_and(cx, e_and(cx, x->dom, e_not(cx, dx_same2(L, true))), any);
}

static void race_report(struct dx_launch *L, const struct gr_ent *x, const struct dx_gacc *a,
                        const uint32_t t1[3], const uint32_t c1[3], const uint32_t t2[3],
                        const uint32_t c2[3])
{
	struct ectx *cx = L->cx;
	const struct expr *o1 = e_at_thread(cx, x->off, t1, c1), *o2 = e_at_thread(cx, a->off, t2, c2);
	int64_t x1 = o1->op == EOP_BV ? (int64_t)o1->u : -1, x2 = o2->op == EOP_BV ? (int64_t)o2->u : -1;
	bool cross = memcmp(c1, c2, 3 * sizeof *c1) != 0;
	const char *s1 = dx_src(L, x->in), *s2 = dx_src(L, a->in);
	char *msg = arena_printf(&L->a,
		"kernel '%s': global-memory race: a load and a store of %s that %s: thread (%u,%u,%u) of "
		"block (%u,%u,%u) loads %u bytes at byte offset %" PRId64 " (PTX line %u%s%s) and thread "
		"(%u,%u,%u) of block (%u,%u,%u) stores %u bytes at byte offset %" PRId64 " (PTX line %u%s%s)",
		L->l->kernel, dx_value_name(L, x->vin),
		cross ? "no barrier orders (threads of different blocks: there is no grid-wide barrier)"
		      : "no barrier orders (one barrier epoch of one block)",
		t1[0], t1[1], t1[2], c1[0], c1[1], c1[2], etype_size(x->et), x1, x->in->line,
		s1 ? ", " : "", s1 ? s1 : "", t2[0], t2[1], t2[2], c2[0], c2[1], c2[2], a->size, x2,
		a->in->line, s2 ? ", " : "", s2 ? s2 : "");
	struct sym_finding *f = dx_finding(L, x->in, "global-race", t1, c1, x->vin, x1, msg);
	if (f) {
		f->has_thread2 = true;
		memcpy(f->tid2, t2, sizeof f->tid2);
		memcpy(f->ctaid2, c2, sizeof f->ctaid2);
	}
	L->grace_found = true;
}

/* Looks for a pair of threads that race on entry x among the stores
 * ss[pick[0..n)]; reports the first. */
static void race_check(struct dx_launch *L, const struct gr_ent *x, struct gr_store *ss, const uint32_t *pick,
                       size_t n)
{
	struct dx_gread *g = L->gr;
	if (L->grace_found || !x->sure || g->queries >= GR_MAX_QUERIES)
		return;
	g->queries++;
	uint32_t t1[3], c1[3], t2[3], c2[3];
	if (dx_sat_grid2(L, meet_cond(L, x, ss, pick, n, true), t1, c1, t2, c2) != SMT_SAT)
		return;
	for (size_t k = 0; k < n; k++) {
		const struct expr *one = meet_cond(L, x, ss, pick + k, 1, true);
		if (e_is_true(dx_at_pair(L, one, t1, c1, t2, c2))) {
			race_report(L, x, ss[pick[k]].a, t1, c1, t2, c2);
			return;
		}
	}
}

/* Settles entry x against the stores ss[0..n) of its buffer: sets
 * x->repl when no other thread's store can reach the read.  0, or -1
 * (unsupported: a value handed out may be wrong). */
static int settle(struct dx_launch *L, struct gr_ent *x, struct gr_store *ss, size_t n, uint32_t *pick)
{
	struct dx_gread *g = L->gr;
	unsigned rs = etype_size(x->et);
	size_t np = 0;
	for (size_t k = 0; k < n; k++) {
		const struct dx_gacc *a = ss[k].a;
		if (affine_meet(L, x->off, rs, a->off, a->size, a->epoch > x->epoch))
			pick[np++] = (uint32_t)k;
	}
	enum smt_result r = SMT_UNSAT;
	if (np && (np > GR_MAX_TERMS || g->queries >= GR_MAX_QUERIES))
		r = SMT_UNKNOWN;
	else if (np) {
		g->queries++;
		r = dx_sat_grid2(L, meet_cond(L, x, ss, pick, np, false), NULL, NULL, NULL, NULL);
	}
	if (r == SMT_UNSAT && x->fwd) {
		x->repl = x->fwd;
		return 0;
	}
	if (r == SMT_SAT && np <= GR_MAX_TERMS)
		race_check(L, x, ss, pick, np);
	if (x->direct)
		return dx_unsupported(L, x->in, "load may read another thread's store",
		                      "a load of %s that may read what another thread of the launch stores, "
		                      "used as an address or a condition", dx_value_name(L, x->vin));
	return 0;
}

/* The leaf substitution: a settled entry's leaf becomes its value (read
 * as the leaf's type), the others a leaf of the record's numbering. */
static const struct expr *settle_leaf(struct ectx *cx, const struct expr *e, void *user)
{
	struct dx_launch *L = user;
	struct dx_gread *g = L->gr;
	if (e->op != EOP_LOAD || e->space != SYM_GREAD_SPACE(L->id))
		return NULL;
	struct gr_ent *x = ent_of_key(g, e->args[0]);
	if (!x)
		return NULL;
	const struct expr *v = x->repl;
	if (v && e->et != x->et)
		v = v->op == EOP_LOAD && etype_size((enum etype)v->et) == etype_size((enum etype)e->et)
		    ? e_load(cx, v->space, (enum etype)e->et, v->args[0]) : NULL;
	if (v)
		return e_subst_many(g->sub, v);   /* what forwarding found may hold older reads */
	if (x->out == UINT32_MAX) {
		x->out = (uint32_t)g->reads.len;
		struct sym_gread r = { x->vout, x->epoch, x->seq, x->in->line, x->in->loc_line };
		VEC_PUSH(g->reads, r);
	}
	return e_load(cx, e->space, (enum etype)e->et,
	              e_op2(cx, EOP_ADD, x->off, e_bv(cx, SYM_GR_CODE(x->out), 64)));
}

static const struct expr *apply(struct e_subst_many *s, const struct expr *e)
{
	return e ? e_subst_many(s, e) : NULL;
}

int dx_gread_finish(struct dx_launch *L)
{
	struct dx_gread *g = L->gr;
	if (!g || !g->ents.len || L->unsup)
		return 0;
	/* buffer by buffer: its stores and atomics, then the reads of it */
	VEC(struct gr_store) ss = { 0 };
	VEC(uint32_t) vouts = { 0 };
	uint32_t *pick = xcalloc(L->gacc.len + 1, sizeof *pick);
	int rc = 0;
	for (size_t i = 0; i < g->ents.len; i++) {
		bool seen = false;
		for (size_t k = 0; k < vouts.len && !seen; k++)
			seen = vouts.items[k] == g->ents.items[i].vout;
		if (!seen)
			VEC_PUSH(vouts, g->ents.items[i].vout);
	}
	for (size_t v = 0; v < vouts.len && rc == 0; v++) {
		ss.len = 0;
		for (size_t k = 0; k < L->gacc.len; k++)
			if (L->gacc.items[k].vout == vouts.items[v]) {
				struct gr_store st = { &L->gacc.items[k], NULL, NULL };
				VEC_PUSH(ss, st);
			}
		for (size_t i = 0; i < g->ents.len && rc == 0; i++) {
			struct gr_ent *x = &g->ents.items[i];
			if (x->vout != vouts.items[v])
				continue;
			if (!ss.len)
				x->repl = x->fwd;      /* nothing stored there: the buffer before the launch */
			else
				rc = settle(L, x, ss.items, ss.len, pick);
		}
	}
	free(pick);
	VEC_FREE(ss);
	VEC_FREE(vouts);
	if (rc < 0)
		return -1;
	/* the write set with every leaf settled or renumbered */
	struct e_subst_many *s = g->sub = e_subst_many_new(L->cx, settle_leaf, L);
	for (size_t i = 0; i < L->writes.len; i++) {
		struct sym_write *w = &L->writes.items[i];
		w->dom = apply(s, w->dom);
		w->val = apply(s, w->val);
		w->cmp = apply(s, w->cmp);
	}
	uint32_t nsh;
	uint64_t bytes;
	struct sym_shwrite *sh = (struct sym_shwrite *)dx_shared_writes(L, &nsh, &bytes);
	for (uint32_t i = 0; i < nsh; i++) {
		sh[i].dom = apply(s, sh[i].dom);
		sh[i].val = apply(s, sh[i].val);
		sh[i].cmp = apply(s, sh[i].cmp);
	}
	e_subst_many_free(s);
	g->sub = NULL;
	return 0;
}
