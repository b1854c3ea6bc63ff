/*
 * race.c: races on shared memory within one barrier epoch (paper 3.3.3),
 * races of plain stores with atomics in global memory, and the
 * thread-pair queries they need.
 *
 * A pair query renames the threads of one expression to a second thread
 * of the same block (TID leaves become variables bounded by the block;
 * CTAID stays, so both threads share a block) and asks the solver for
 * both at once; the second thread's coordinates come from a second query
 * with the first one fixed.  Two accesses race when, in one epoch, two
 * different threads of a block touch overlapping bytes and one of them
 * writes (or one is an atomic and the other a plain access): in
 * different warps that is a "shared-race"; in one warp without a
 * bar.warp.sync between them (same warp epoch) it is "warp-sync".  A
 * thread reading its own write is never a race.
 *
 * In global memory only a plain store beside an atomic is checked (the
 * back-projection orders them by barrier epochs within a block): the
 * second thread is renamed in both coordinates, and a pair of different
 * blocks, or of one block in one epoch, is a "global-race".
 */
#include "dexec.h"

#include <inttypes.h>
#include <string.h>

#define T2VAR(d)  DX_T2VAR(d)
#define C2VAR(d)  ((0xD2ull << 40) | 0x10u | (uint64_t)(d))

static const struct expr *tid_to_var(struct ectx *cx, const struct expr *e, void *user)
{
	(void)user;
	if (e->op == EOP_TID && e->u < 3)
		return e_var(cx, T2VAR(e->u), SORT_BV(32));
	return NULL;
}

static const struct expr *var_to_tid(struct ectx *cx, const struct expr *e, void *user)
{
	(void)user;
	if (e->op == EOP_VAR && (e->u >> 40) == 0xD2 && (e->u & 0xff) < 3)
		return e_tid(cx, (unsigned)(e->u & 0xff));
	if (e->op == EOP_VAR && (e->u >> 40) == 0xD2 && (e->u & 0xff) >= 0x10 && (e->u & 0xff) < 0x13)
		return e_ctaid(cx, (unsigned)(e->u & 0xf));
	return NULL;
}

/* Both coordinates renamed: a second thread anywhere in the grid. */
static const struct expr *thread_to_var(struct ectx *cx, const struct expr *e, void *user)
{
	(void)user;
	if (e->op == EOP_TID && e->u < 3)
		return e_var(cx, T2VAR(e->u), SORT_BV(32));
	if (e->op == EOP_CTAID && e->u < 3)
		return e_var(cx, C2VAR(e->u), SORT_BV(32));
	return NULL;
}

const struct expr *dx_other(struct dx_launch *L, const struct expr *e)
{
	return e_subst(L->cx, e, tid_to_var, NULL);
}

/* The second thread's coordinates lie inside the block. */
static const struct expr *other_bounds(struct dx_launch *L)
{
	struct ectx *cx = L->cx;
	const struct expr *c = e_bool(cx, true);
	for (unsigned d = 0; d < 3; d++) {
		const struct expr *v = e_var(cx, T2VAR(d), SORT_BV(32));
		c = e_and(cx, c, e_op2(cx, EOP_ULT, v, e_bv(cx, L->geom.ntid[d], 32)));
	}
	return c;
}

enum smt_result dx_sat2(struct dx_launch *L, const struct expr *cond,
                        uint32_t t1[3], uint32_t c1[3], uint32_t t2[3])
{
	struct ectx *cx = L->cx;
	uint32_t a[3], b[3];
	enum smt_result r = dx_sat(L, e_and(cx, cond, other_bounds(L)), a, b);
	if (r != SMT_SAT || !t1)
		return r;
	memcpy(t1, a, sizeof a);
	memcpy(c1, b, sizeof b);
	/* the first thread fixed, the second becomes the thread asked for */
	const struct expr *c2 = e_subst(cx, e_at_thread(cx, cond, a, b), var_to_tid, NULL);
	uint32_t cc[3];
	r = dx_sat(L, c2, t2, cc);
	return r == SMT_SAT ? SMT_SAT : SMT_UNKNOWN;
}

const struct expr *dx_lin_tid(struct dx_launch *L, const struct expr *x, const struct expr *y,
                              const struct expr *z)
{
	struct ectx *cx = L->cx;
	if (L->geom.ntid[1] == 1 && L->geom.ntid[2] == 1)
		return x;
	const struct expr *nx = e_bv(cx, L->geom.ntid[0], 32), *ny = e_bv(cx, L->geom.ntid[1], 32);
	const struct expr *yz = e_op2(cx, EOP_ADD, y, e_op2(cx, EOP_MUL, ny, z));
	return e_op2(cx, EOP_ADD, x, e_op2(cx, EOP_MUL, nx, yz));
}

static const struct expr *warp_of(struct dx_launch *L, bool other)
{
	struct ectx *cx = L->cx;
	const struct expr *t[3];
	for (unsigned d = 0; d < 3; d++)
		t[d] = other ? e_var(cx, T2VAR(d), SORT_BV(32)) : e_tid(cx, d);
	return e_op2(cx, EOP_LSHR, dx_lin_tid(L, t[0], t[1], t[2]), e_bv(cx, 5, 32));
}

static const char *where(struct dx_launch *L, const struct dx_acc *a)
{
	const char *src = dx_src(L, a->in);
	return arena_printf(&L->a, "%s at PTX line %u%s%s", a->write ? "write" : a->atomic ? "atomic" : "read",
	                    a->in->line, src ? ", " : "", src ? src : "");
}

static void report(struct dx_launch *L, const char *cls, const struct dx_acc *a, const struct dx_acc *b,
                   const uint32_t t1[3], const uint32_t c1[3], const uint32_t t2[3])
{
	struct ectx *cx = L->cx;
	const struct expr *o1 = e_at_thread(cx, a->off, t1, c1);
	const struct expr *o2 = e_at_thread(cx, b->off, t2, c1);
	int64_t x1 = o1->op == EOP_BV ? (int64_t)o1->u : -1, x2 = o2->op == EOP_BV ? (int64_t)o2->u : -1;
	bool cross = !strcmp(cls, "shared-race");
	char *msg = arena_printf(&L->a,
		"kernel '%s': %s: in block (%u,%u,%u), thread (%u,%u,%u) (%s at shared byte offset %" PRId64 ") "
		"and thread (%u,%u,%u) (%s at byte offset %" PRId64 ")%s",
		L->l->kernel, cross ? "shared-memory race between warps in one barrier epoch"
		                    : "warp-synchronous access with no __syncwarp between the two",
		c1[0], c1[1], c1[2], t1[0], t1[1], t1[2], where(L, a), x1, t2[0], t2[1], t2[2], where(L, b), x2,
		cross ? "" : ", threads of one warp");
	const struct ptx_instr *in = a->write || (a->atomic && !b->write) ? a->in : b->in;
	struct sym_finding *f = dx_finding(L, in, cls, t1, c1, NO_VALUE, x1, msg);
	if (f) {
		f->has_thread2 = true;
		memcpy(f->tid2, t2, sizeof f->tid2);
		memcpy(f->ctaid2, c1, sizeof f->ctaid2);
	}
}

/* An epoch of a loop often makes the accesses of an earlier epoch again:
 * the same domains and offsets (hash-consed: the same pointers), sizes,
 * kinds and warp epochs, as a K loop's tiles do (level-1 6_ has 4096
 * epochs of 66 accesses by 1024 threads).  The check is a function of
 * them and of the classes already found, so an epoch made of the
 * accesses of one whose check ran to the end and found nothing, while
 * no class was found since that the check would look for, finds nothing
 * again.  The last few such epochs are kept, each in full. */
#define SEEN_MAX 8

struct seen_acc { const struct expr *dom, *off; unsigned size; bool write, atomic; uint32_t sub; };
struct seen_epoch { struct seen_acc *acc; size_t n; bool found[2]; };
struct dx_race_seen { struct seen_epoch e[SEEN_MAX]; unsigned next; };

void dx_race_seen_free(struct dx_race_seen *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < SEEN_MAX; i++)
		free(s->e[i].acc);
	free(s);
}

static bool seen_same(const struct seen_acc *k, const struct dx_acc *acc, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (k[i].dom != acc[i].dom || k[i].off != acc[i].off || k[i].size != acc[i].size ||
		    k[i].write != acc[i].write || k[i].atomic != acc[i].atomic || k[i].sub != acc[i].sub)
			return false;
	return true;
}

/* Was an epoch of these accesses checked to the end, finding nothing,
 * with no more classes found than now? */
static bool seen_clean(const struct dx_launch *L, const struct dx_acc *acc, size_t n, const bool found[2])
{
	const struct dx_race_seen *s = L->rseen;
	for (unsigned i = 0; s && i < SEEN_MAX; i++) {
		const struct seen_epoch *e = &s->e[i];
		if (e->acc && e->n == n && e->found[0] <= found[0] && e->found[1] <= found[1] &&
		    seen_same(e->acc, acc, n))
			return true;
	}
	return false;
}

static void seen_add(struct dx_launch *L, const struct dx_acc *acc, size_t n, const bool found[2])
{
	if (!L->rseen)
		L->rseen = xcalloc(1, sizeof *L->rseen);
	struct seen_epoch *e = &L->rseen->e[L->rseen->next];
	L->rseen->next = (L->rseen->next + 1) % SEEN_MAX;
	free(e->acc);
	e->acc = xmalloc(n * sizeof *e->acc);
	e->n = n;
	e->found[0] = found[0];
	e->found[1] = found[1];
	for (size_t i = 0; i < n; i++)
		e->acc[i] = (struct seen_acc){ acc[i].dom, acc[i].off, acc[i].size, acc[i].write,
		                               acc[i].atomic, acc[i].sub };
}

void dx_race_check(struct dx_launch *L, const struct dx_acc *acc, size_t n, bool found[2])
{
	struct ectx *cx = L->cx;
	if (!n || (found[0] && found[1]) || seen_clean(L, acc, n, found))
		return;
	bool before[2] = { found[0], found[1] };
	const struct expr *w1 = warp_of(L, false), *w2 = warp_of(L, true);
	const struct expr *same_warp = e_op2(cx, EOP_EQ, w1, w2);
	const struct expr *same_tid = e_bool(cx, true);
	for (unsigned d = 0; d < 3; d++)
		same_tid = e_and(cx, same_tid, e_op2(cx, EOP_EQ, e_tid(cx, d), e_var(cx, T2VAR(d), SORT_BV(32))));
	struct dx_race_enum *re = dx_race_enum_new(L, acc, n, found);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i; j < n; j++) {
			if (dx_out_of_time(L))
				goto out;
			const struct dx_acc *a = &acc[i], *b = &acc[j];
			/* two reads or two atomics: no race */
			if (!a->write && !b->write && a->atomic == b->atomic)
				continue;
			if (found[0] && (found[1] || a->sub != b->sub))
				continue;
			/* settled by trying every thread of a block? */
			uint32_t t1[3], c1[3] = { 0, 0, 0 }, t2[3];
			int e0 = found[0] ? 0 : dx_race_enum_pair(re, i, j, 0, t1, t2);
			if (e0 == 1) {
				report(L, "shared-race", a, b, t1, c1, t2);
				found[0] = true;
			}
			int e1 = found[1] || a->sub != b->sub ? 0 : dx_race_enum_pair(re, i, j, 1, t1, t2);
			if (e1 == 1) {
				report(L, "warp-sync", a, b, t1, c1, t2);
				found[1] = true;
			}
			if (found[0] && found[1])
				goto out;
			if (e0 >= 0 && e1 >= 0)
				continue;
			const struct expr *o2 = dx_other(L, b->off);
			const struct expr *ov = e_and(cx,
				e_op2(cx, EOP_ULT, a->off, e_op2(cx, EOP_ADD, o2, e_bv(cx, b->size, 64))),
				e_op2(cx, EOP_ULT, o2, e_op2(cx, EOP_ADD, a->off, e_bv(cx, a->size, 64))));
			const struct expr *base = e_and(cx, e_and(cx, a->dom, dx_other(L, b->dom)),
			                                e_and(cx, ov, e_not(cx, same_tid)));
			if (!found[0] && e0 < 0 &&
			    dx_sat2(L, e_and(cx, base, e_not(cx, same_warp)), t1, c1, t2) == SMT_SAT) {
				report(L, "shared-race", a, b, t1, c1, t2);
				found[0] = true;
			}
			if (!found[1] && e1 < 0 && a->sub == b->sub &&
			    dx_sat2(L, e_and(cx, base, same_warp), t1, c1, t2) == SMT_SAT) {
				report(L, "warp-sync", a, b, t1, c1, t2);
				found[1] = true;
			}
			if (found[0] && found[1])
				goto out;
		}
	}
out:
	dx_race_enum_free(re);
	if (found[0] == before[0] && found[1] == before[1] && !L->timeout && !dx_out_of_time(L))
		seen_add(L, acc, n, found);
}

/* ---- global memory: plain stores beside atomics ---------------------------- */

void dx_global_access(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                      uint32_t vin, uint32_t vout, const struct expr *dom, const struct expr *off,
                      unsigned size, bool atomic, bool sure)
{
	struct dx_gacc a = { vout, vin, dom, off, size, b->epoch, atomic, sure && !e_has_data(dom), in, b->sub };
	/* the same access of a bundle split from another is made once */
	size_t from = L->gacc.len > 64 ? L->gacc.len - 64 : 0;
	for (size_t i = from; i < L->gacc.len; i++) {
		const struct dx_gacc *g = &L->gacc.items[i];
		if (g->vout == vout && g->dom == dom && g->off == off && g->size == size &&
		    g->epoch == a.epoch && g->atomic == atomic && g->sure == a.sure && g->in == in &&
		    g->sub == a.sub)
			return;
	}
	VEC_PUSH(L->gacc, a);
}

#define GRACE_MAX_QUERIES 256   /* store-atomic pairs asked about per launch */

const struct expr *dx_other_grid(struct dx_launch *L, const struct expr *e)
{
	return e_subst(L->cx, e, thread_to_var, NULL);
}

const struct expr *dx_same_warp2(struct dx_launch *L)
{
	return e_op2(L->cx, EOP_EQ, warp_of(L, false), warp_of(L, true));
}

bool dx_strong(const struct ptx_instr *in)
{
	static const char *const mods[] = { "volatile", "relaxed", "acquire", "release", "mmio", NULL };
	return ptx_instr_mod_of(in, mods) != NULL;
}

const struct expr *dx_same2(struct dx_launch *L, bool thread)
{
	struct ectx *cx = L->cx;
	const struct expr *c = e_bool(cx, true);
	for (unsigned d = 0; d < 3; d++) {
		c = e_and(cx, c, e_op2(cx, EOP_EQ, e_ctaid(cx, d), e_var(cx, C2VAR(d), SORT_BV(32))));
		if (thread)
			c = e_and(cx, c, e_op2(cx, EOP_EQ, e_tid(cx, d), e_var(cx, T2VAR(d), SORT_BV(32))));
	}
	return c;
}

const struct expr *dx_at_pair(struct dx_launch *L, const struct expr *e, const uint32_t t1[3],
                              const uint32_t c1[3], const uint32_t t2[3], const uint32_t c2[3])
{
	struct ectx *cx = L->cx;
	return e_at_thread(cx, e_subst(cx, e_at_thread(cx, e, t1, c1), var_to_tid, NULL), t2, c2);
}

/* Is there a pair with cond (over the thread and the renamed second
 * thread anywhere in the grid)?  On SAT, both threads (t1 NULL: not
 * asked for). */
enum smt_result dx_sat_grid2(struct dx_launch *L, const struct expr *cond, uint32_t t1[3],
                             uint32_t c1[3], uint32_t t2[3], uint32_t c2[3])
{
	struct ectx *cx = L->cx;
	const struct expr *bnd = e_bool(cx, true);
	for (unsigned d = 0; d < 3; d++) {
		bnd = e_and(cx, bnd, e_op2(cx, EOP_ULT, e_var(cx, T2VAR(d), SORT_BV(32)),
		                           e_bv(cx, L->geom.ntid[d], 32)));
		bnd = e_and(cx, bnd, e_op2(cx, EOP_ULT, e_var(cx, C2VAR(d), SORT_BV(32)),
		                           e_bv(cx, L->geom.nctaid[d], 32)));
	}
	enum smt_result r = dx_sat(L, e_and(cx, cond, bnd), t1, c1);
	if (r != SMT_SAT || !t1)
		return r;
	/* the first thread fixed, the second becomes the thread asked for */
	const struct expr *c = e_subst(cx, e_at_thread(cx, cond, t1, c1), var_to_tid, NULL);
	return dx_sat(L, c, t2, c2) == SMT_SAT ? SMT_SAT : SMT_UNKNOWN;
}

static void grace_report(struct dx_launch *L, const struct dx_gacc *p, const struct dx_gacc *a,
                         bool cross, const uint32_t t1[3], const uint32_t c1[3],
                         const uint32_t t2[3], const uint32_t c2[3])
{
	struct ectx *cx = L->cx;
	const struct expr *o1 = e_at_thread(cx, p->off, t1, c1);
	const struct expr *o2 = e_at_thread(cx, a->off, t2, c2);
	int64_t x1 = o1->op == EOP_BV ? (int64_t)o1->u : -1, x2 = o2->op == EOP_BV ? (int64_t)o2->u : -1;
	const char *s1 = dx_src(L, p->in), *s2 = dx_src(L, a->in);
	char *msg = arena_printf(&L->a,
		"kernel '%s': global-memory race: a plain store and an atomic update of %s that %s: "
		"thread (%u,%u,%u) of block (%u,%u,%u) stores %u bytes at byte offset %" PRId64
		" (PTX line %u%s%s) and thread (%u,%u,%u) of block (%u,%u,%u) updates %u bytes at byte "
		"offset %" PRId64 " atomically (PTX line %u%s%s)",
		L->l->kernel, dx_value_name(L, p->vin),
		cross ? "no barrier orders (threads of different blocks: there is no grid-wide barrier)"
		      : "no barrier orders (one barrier epoch of one block)",
		t1[0], t1[1], t1[2], c1[0], c1[1], c1[2], p->size, x1, p->in->line, s1 ? ", " : "",
		s1 ? s1 : "", t2[0], t2[1], t2[2], c2[0], c2[1], c2[2], a->size, x2, a->in->line,
		s2 ? ", " : "", s2 ? s2 : "");
	struct sym_finding *f = dx_finding(L, p->in, "global-race", t1, c1, p->vin, x1, msg);
	if (f) {
		f->has_thread2 = true;
		memcpy(f->tid2, t2, sizeof f->tid2);
		memcpy(f->ctaid2, c2, sizeof f->ctaid2);
	}
	L->grace_found = true;
}

void dx_global_race_check(struct dx_launch *L)
{
	struct ectx *cx = L->cx;
	unsigned queries = 0;
	const struct expr *same_block = e_bool(cx, true), *same_thread;
	for (unsigned d = 0; d < 3; d++)
		same_block = e_and(cx, same_block, e_op2(cx, EOP_EQ, e_ctaid(cx, d), e_var(cx, C2VAR(d), SORT_BV(32))));
	same_thread = same_block;
	for (unsigned d = 0; d < 3; d++)
		same_thread = e_and(cx, same_thread, e_op2(cx, EOP_EQ, e_tid(cx, d), e_var(cx, T2VAR(d), SORT_BV(32))));
	for (size_t i = 0; i < L->gacc.len && !L->grace_found; i++) {
		const struct dx_gacc *p = &L->gacc.items[i];
		if (p->atomic || !p->sure || dx_strong(p->in))
			continue;
		for (size_t j = 0; j < L->gacc.len && !L->grace_found; j++) {
			const struct dx_gacc *a = &L->gacc.items[j];
			if (!a->atomic || !a->sure || a->vout != p->vout)
				continue;
			if (++queries > GRACE_MAX_QUERIES)
				return;
			if (dx_out_of_time(L))
				return;
			const struct expr *o2 = e_subst(cx, a->off, thread_to_var, NULL);
			const struct expr *ov = e_and(cx,
				e_op2(cx, EOP_ULT, p->off, e_op2(cx, EOP_ADD, o2, e_bv(cx, a->size, 64))),
				e_op2(cx, EOP_ULT, o2, e_op2(cx, EOP_ADD, p->off, e_bv(cx, p->size, 64))));
			const struct expr *base = e_and(cx, e_and(cx, p->dom, e_subst(cx, a->dom, thread_to_var, NULL)), ov);
			uint32_t t1[3], c1[3], t2[3], c2[3];
			/* threads of two blocks: nothing orders them */
			if (dx_sat_grid2(L, e_and(cx, base, e_not(cx, same_block)), t1, c1, t2, c2) == SMT_SAT) {
				grace_report(L, p, a, true, t1, c1, t2, c2);
				break;
			}
			/* two threads of one block in one epoch (of one warp: with no
			 * bar.warp.sync between them either) */
			const struct expr *one = e_and(cx, same_block, e_not(cx, same_thread));
			if (p->sub != a->sub)
				one = e_and(cx, one, e_not(cx, dx_same_warp2(L)));
			if (p->epoch == a->epoch &&
			    dx_sat_grid2(L, e_and(cx, base, one), t1, c1, t2, c2) == SMT_SAT) {
				grace_report(L, p, a, false, t1, c1, t2, c2);
				break;
			}
		}
	}
}
