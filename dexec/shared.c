/*
 * shared.c: shared memory and block barriers (paper 3.3.3, dexec(1)).
 *
 * Every block has one shared window: the kernel's static .shared
 * variables laid out in declaration order, then the extern ones (all at
 * one offset, sized by the launch's dynamic shared memory).  An access
 * through a shared variable's address becomes an offset in the window,
 * checked against the bounds of that variable ("oob-shared").
 *
 * Barrier epochs: stores append to the launch's shared write list tagged
 * with the bundle's (epoch, sub); a load reads the bundle's own stores of
 * the same (epoch, sub) by forwarding, else becomes a LOAD leaf whose
 * space names the launch and whose address packs the offset with (epoch,
 * sub): the back-projection (engine/resolve-shared.c) answers it with
 * the block's latest earlier write.  A bundle at bar.sync waits; when
 * every bundle waits, the epoch's accesses are checked for races
 * (race.c), the block for divergence, and the epoch is committed.
 */
#include "dexec.h"

#include <inttypes.h>
#include <string.h>

#define SH_VIN 0u             /* the vin of shared stores in a bundle's shstores */

struct dx_shared {
	uint64_t bytes;                      /* the window */
	uint64_t *mbase, *fbase;             /* by module / function variable; UINT64_MAX: not shared */
	VEC(struct sym_shwrite) writes;
	VEC(struct dx_acc) acc;              /* accesses of the current epoch */
	bool race_found[2];                  /* shared-race, warp-sync reported */
	bool div_found, uninit_found;
};

static uint64_t align_up(uint64_t x, unsigned a)
{
	return a > 1 ? (x + a - 1) / a * a : x;
}

/* Places the shared variables of vars[0..n) at *at (static) or dyn (extern). */
static void place(const struct ptx_var *vars, unsigned n, uint64_t *base, uint64_t *at, bool dyn,
                  uint64_t dyn_at)
{
	for (unsigned i = 0; i < n; i++) {
		const struct ptx_var *v = &vars[i];
		bool ext = v->is_extern || v->size == 0;
		if (v->space != PS_SHARED || ext != dyn)
			continue;
		if (dyn) {
			base[i] = dyn_at;
			continue;
		}
		*at = align_up(*at, v->align ? v->align : 1);
		base[i] = *at;
		*at += v->size;
	}
}

int dx_shared_init(struct dx_launch *L)
{
	struct dx_shared *sh = xcalloc(1, sizeof *sh);
	L->sh = sh;
	unsigned nm = L->mod->nvars, nf = L->fn->nvars;
	sh->mbase = xmalloc((nm ? nm : 1) * sizeof *sh->mbase);
	sh->fbase = xmalloc((nf ? nf : 1) * sizeof *sh->fbase);
	memset(sh->mbase, 0xff, (nm ? nm : 1) * sizeof *sh->mbase);
	memset(sh->fbase, 0xff, (nf ? nf : 1) * sizeof *sh->fbase);
	uint64_t at = 0;
	place(L->mod->vars, nm, sh->mbase, &at, false, 0);
	place(L->fn->vars, nf, sh->fbase, &at, false, 0);
	uint64_t dyn = align_up(at, 16);
	place(L->mod->vars, nm, sh->mbase, &at, true, dyn);
	place(L->fn->vars, nf, sh->fbase, &at, true, dyn);
	sh->bytes = dyn + L->l->shmem;
	if (sh->bytes >= (1ull << SYM_SH_OFF_BITS))
		return dx_unsupported(L, NULL, "shared memory size",
		                      "%" PRIu64 " bytes of shared memory per block", sh->bytes);
	return 0;
}

void dx_shared_free(struct dx_shared *sh)
{
	if (!sh)
		return;
	free(sh->mbase);
	free(sh->fbase);
	VEC_FREE(sh->writes);
	VEC_FREE(sh->acc);
	free(sh);
}

const struct sym_shwrite *dx_shared_writes(const struct dx_launch *L, uint32_t *n, uint64_t *bytes)
{
	*n = L->sh ? (uint32_t)L->sh->writes.len : 0;
	*bytes = L->sh ? L->sh->bytes : 0;
	return L->sh ? L->sh->writes.items : NULL;
}

/* ---- addresses ------------------------------------------------------------ */

struct shsub {
	struct dx_launch *L;
	int nvar;                 /* distinct shared variables seen */
	uint32_t var;             /* the last one (DX_SYMVAR index) */
	bool other;               /* a variable that is not a shared one */
};

/* The window offset of the variable a DX_SYMVAR index names, or UINT64_MAX. */
static uint64_t var_base(struct dx_launch *L, uint32_t index)
{
	if (index & DX_FNVAR)
		return (index & ~DX_FNVAR) < L->fn->nvars ? L->sh->fbase[index & ~DX_FNVAR] : UINT64_MAX;
	return index < L->mod->nvars ? L->sh->mbase[index] : UINT64_MAX;
}

static const struct expr *sub_leaf(struct ectx *cx, const struct expr *e, void *user)
{
	struct shsub *s = user;
	if (e->op != EOP_VAR)
		return NULL;
	uint64_t base = DX_IS_SYMVAR(e->u) ? var_base(s->L, DX_SYMVAR_INDEX(e->u)) : UINT64_MAX;
	if (base == UINT64_MAX) {
		s->other = true;
		return NULL;
	}
	if (s->nvar == 0 || s->var != DX_SYMVAR_INDEX(e->u))
		s->nvar++;
	s->var = DX_SYMVAR_INDEX(e->u);
	return e_bv(cx, base, SORT_WIDTH(e->sort));
}

bool dx_shared_addr(struct dx_launch *L, const struct expr *addr)
{
	struct shsub s = { L, 0, 0, false };
	e_subst(L->cx, addr, sub_leaf, &s);
	return s.nvar > 0;
}

int dx_shared_target(struct dx_launch *L, const struct ptx_instr *in, const struct expr *addr,
                     const struct expr *dom, unsigned size, bool is_store, bool data_guard,
                     const struct expr **off)
{
	struct ectx *cx = L->cx;
	struct shsub s = { L, 0, 0, false };
	const struct expr *o = e_subst(cx, addr, sub_leaf, &s);
	if (s.other || o->sort != SORT_BV(64))
		return dx_unsupported(L, in, "shared address",
		                      "a shared-memory address that is not a shared variable plus an offset");
	if (e_has_data(o))
		return dx_unsupported(L, in, "data-dependent address", "an address that depends on loaded data");
	if (e_has_undef(o))
		return dx_unsupported(L, in, "undefined address", "an address computed from an undefined value");
	/* bounds of the variable the address is based on (else of the window) */
	uint64_t lo = 0, len = L->sh->bytes;
	const char *name = "the shared window";
	if (s.nvar == 1) {
		const struct ptx_var *v = dx_var(L, s.var);
		lo = var_base(L, s.var);
		len = v->is_extern || v->size == 0 ? L->sh->bytes - lo : v->size;
		name = arena_printf(&L->a, "shared '%s'", v->name);
	}
	const struct expr *rel = e_op2(cx, EOP_SUB, o, e_bv(cx, lo, 64));
	const struct expr *end = e_op2(cx, EOP_ADD, rel, e_bv(cx, size, 64));
	const struct expr *bad = e_or(cx, e_op2(cx, EOP_SLT, rel, e_bv(cx, 0, 64)),
	                              e_op2(cx, EOP_ULT, e_bv(cx, len, 64), end));
	uint32_t tid[3], ctaid[3];
	enum smt_result r = dx_sat(L, e_and(cx, dom, bad), tid, ctaid);
	if (r == SMT_UNKNOWN)
		return dx_unsupported(L, in, "solver", "the solver could not decide the bounds of an access");
	if (r == SMT_SAT) {
		const struct expr *c = e_at_thread(cx, rel, tid, ctaid);
		int64_t at = c->op == EOP_BV ? (int64_t)c->u : 0;
		const char *src = dx_src(L, in);
		char *msg = arena_printf(&L->a,
			"kernel '%s' %s %u bytes at byte offset %" PRId64 " of %s (%" PRIu64 " bytes) "
			"at thread (%u,%u,%u) block (%u,%u,%u)%s, PTX line %u%s%s",
			L->l->kernel, is_store ? "writes" : "reads", size, at, name, len,
			tid[0], tid[1], tid[2], ctaid[0], ctaid[1], ctaid[2],
			data_guard ? " when a condition on data holds" : "", in->line,
			src ? ", " : "", src ? src : "");
		dx_finding(L, in, "oob-shared", tid, ctaid, NO_VALUE, at, msg);
		L->sh->uninit_found = true;    /* the skipped access would make false ones */
		return 1;
	}
	*off = o;
	return 0;
}

/* ---- accesses ------------------------------------------------------------- */

static void note_access(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                        const struct expr *dom, const struct expr *off, unsigned size, bool write,
                        bool atomic)
{
	struct dx_shared *sh = L->sh;
	size_t from = sh->acc.len > 64 ? sh->acc.len - 64 : 0;
	for (size_t i = from; i < sh->acc.len; i++) {
		const struct dx_acc *a = &sh->acc.items[i];
		if (a->dom == dom && a->off == off && a->size == size && a->write == write &&
		    a->atomic == atomic && a->sub == b->sub)
			return;
	}
	struct dx_acc a = { dom, off, size, write, atomic, b->sub, in };
	VEC_PUSH(sh->acc, a);
}

/* Reports a read that no earlier write of the block can reach (cheap: only
 * when no visible write may overlap it for any pair of threads; not tried
 * past UNINIT_WRITES_MAX shared writes). */
#define UNINIT_WRITES_MAX 64
static void check_uninit(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                         const struct expr *dom, const struct expr *off, unsigned size)
{
	struct dx_shared *sh = L->sh;
	struct ectx *cx = L->cx;
	if (sh->uninit_found || sh->writes.len > UNINIT_WRITES_MAX)
		return;
	/* enumeration first, over every write: a tile's element is usually
	 * written by another logical thread than the one whose own stores the
	 * enumeration cannot place, and one write seen to overlap settles the
	 * read without asking the solver about the others */
	int8_t k[UNINIT_WRITES_MAX];
	for (size_t i = 0; i < sh->writes.len; i++) {
		const struct sym_shwrite *w = &sh->writes.items[i];
		k[i] = 0;
		if (w->epoch > b->epoch || (w->epoch == b->epoch && w->sub >= b->sub))
			continue;          /* not visible to this read (the epoch's own: a race) */
		uint32_t t1[3], t2[3], c1[3];
		k[i] = (int8_t)dx_enum_overlap(L, dom, off, size, w->dom, w->addr, etype_size(w->et), t1, t2, c1);
		if (k[i] > 0)
			return;
	}
	for (size_t i = 0; i < sh->writes.len; i++) {
		const struct sym_shwrite *w = &sh->writes.items[i];
		if (k[i] == 0)
			continue;
		unsigned ws = etype_size(w->et);
		const struct expr *o2 = dx_other(L, w->addr);
		const struct expr *ov = e_and(cx, e_op2(cx, EOP_ULT, off, e_op2(cx, EOP_ADD, o2, e_bv(cx, ws, 64))),
		                              e_op2(cx, EOP_ULT, o2, e_op2(cx, EOP_ADD, off, e_bv(cx, size, 64))));
		const struct expr *c = e_and(cx, e_and(cx, dom, dx_other(L, w->dom)), ov);
		if (dx_sat2(L, c, NULL, NULL, NULL) != SMT_UNSAT)
			return;
	}
	uint32_t tid[3], ctaid[3];
	if (dx_sat(L, dom, tid, ctaid) != SMT_SAT)
		return;
	const struct expr *c = e_at_thread(cx, off, tid, ctaid);
	int64_t at = c->op == EOP_BV ? (int64_t)c->u : 0;
	const char *src = dx_src(L, in);
	char *msg = arena_printf(&L->a,
		"kernel '%s' reads %u bytes of shared memory at byte offset %" PRId64 " that no thread of "
		"block (%u,%u,%u) wrote before, at thread (%u,%u,%u), PTX line %u%s%s",
		L->l->kernel, size, at, ctaid[0], ctaid[1], ctaid[2], tid[0], tid[1], tid[2], in->line,
		src ? ", " : "", src ? src : "");
	dx_finding(L, in, "uninit-shared", tid, ctaid, NO_VALUE, at, msg);
	sh->uninit_found = true;
}

const struct expr *dx_shared_read(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                                  const struct expr *dom, const struct expr *off, enum etype et)
{
	struct ectx *cx = L->cx;
	unsigned size = etype_size(et);
	if (b->epoch >= SYM_SH_EPOCH_MAX || (b->sub >> SYM_SH_SUB_BITS) || (L->id & 0x80000000u)) {
		dx_unsupported(L, in, "barrier count", "more barriers than the record can number");
		return NULL;
	}
	note_access(L, b, in, dom, off, size, false, false);
	const struct expr *code = e_bv(cx, SYM_SH_CODE(b->epoch, b->sub), 64);
	const struct expr *miss = e_load(cx, SYM_SHARED_SPACE(L->id), et, e_op2(cx, EOP_ADD, off, code));
	const struct expr *v;
	if (dx_forward(L, in, dom, b->shstores, SH_VIN, off, size, et, miss, &v) < 0)
		return NULL;
	if (!v)
		check_uninit(L, b, in, dom, off, size);
	return v ? v : miss;
}

void dx_shared_write(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                     const struct expr *dom, const struct expr *off, const struct expr *v,
                     enum etype et, const struct expr *guard)
{
	struct dx_shared *sh = L->sh;
	struct sym_shwrite w = { dom, off, v, et, b->seq++, b->epoch, b->sub, in->line, in->loc_line, SA_NONE, NULL };
	VEC_PUSH(sh->writes, w);
	note_access(L, b, in, dom, off, etype_size(et), true, false);
	struct dx_store *st = ARENA_NEW(&L->a, struct dx_store);
	*st = (struct dx_store){ b->shstores, SH_VIN, off, v, guard, etype_size(et) };
	b->shstores = st;
}

void dx_shared_atomic(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                      const struct expr *dom, const struct expr *tdom, const struct expr *off,
                      const struct expr *v, const struct expr *cmp, enum etype et, unsigned op)
{
	struct sym_shwrite w = { dom, off, v, et, b->seq++, b->epoch, b->sub, in->line, in->loc_line,
	                         (uint8_t)op, cmp };
	VEC_PUSH(L->sh->writes, w);
	/* not forwarded to the bundle's own loads: what they see is the
	 * combined value, which only the back-projection knows; nor is an
	 * older plain store of the bundle forwarded past it */
	note_access(L, b, in, tdom, off, etype_size(et), false, true);
	struct dx_store *st = ARENA_NEW(&L->a, struct dx_store);
	*st = (struct dx_store){ b->shstores, SH_VIN, off, NULL, NULL, etype_size(et) };
	b->shstores = st;
}

/* ---- barriers --------------------------------------------------------------- */

int dx_barrier_check(struct dx_launch *L, const struct ptx_instr *in)
{
	if (ptx_has_mod(in, "arrive") || ptx_has_mod(in, "red"))
		return dx_unsupported(L, in, arena_printf(&L->a, "instruction '%s'", dx_instr_name(L, in)), NULL);
	if (in->nops < 1 || in->nops > 2)
		return dx_unsupported(L, in, "barrier", "a barrier without its barrier operand");
	if (in->nops == 2) {
		const struct ptx_operand *c = &in->ops[1];
		uint64_t n = (uint64_t)L->geom.ntid[0] * L->geom.ntid[1] * L->geom.ntid[2];
		if (c->kind != PO_IMM || (uint64_t)c->imm < n)
			return dx_unsupported(L, in, "named barrier",
			                      "a barrier for part of the block (thread count operand)");
	}
	return 0;
}

/* The domains of the waiting bundles at pc, or of all if pc < 0, or'ed. */
static const struct expr *waiting_dom(struct dx_launch *L, long pc)
{
	const struct expr *d = e_bool(L->cx, false);
	for (size_t i = 0; i < L->waiting.len; i++)
		if (pc < 0 || L->waiting.items[i]->pc == (unsigned)pc)
			d = e_or(L->cx, d, L->waiting.items[i]->dom);
	return d;
}

/* Reports the divergence cond describes when a pair of threads meets it;
 * returns the solver's answer. */
static enum smt_result divergence(struct dx_launch *L, const struct ptx_instr *in, const struct expr *cond,
                                  const char *what, const struct ptx_instr *other)
{
	uint32_t t1[3], c1[3], t2[3];
	enum smt_result r = dx_sat2(L, cond, t1, c1, t2);
	if (r != SMT_SAT)
		return r;
	const char *src = dx_src(L, in);
	char *msg;
	if (other)
		msg = arena_printf(&L->a, "kernel '%s': in block (%u,%u,%u), thread (%u,%u,%u) waits at the "
		                   "barrier of PTX line %u%s%s while thread (%u,%u,%u) %s PTX line %u",
		                   L->l->kernel, c1[0], c1[1], c1[2], t1[0], t1[1], t1[2], in->line,
		                   src ? ", " : "", src ? src : "", t2[0], t2[1], t2[2], what, other->line);
	else
		msg = arena_printf(&L->a, "kernel '%s': in block (%u,%u,%u), thread (%u,%u,%u) waits at the "
		                   "barrier of PTX line %u%s%s while thread (%u,%u,%u) %s",
		                   L->l->kernel, c1[0], c1[1], c1[2], t1[0], t1[1], t1[2], in->line,
		                   src ? ", " : "", src ? src : "", t2[0], t2[1], t2[2], what);
	struct sym_finding *f = dx_finding(L, in, "barrier-divergence", t1, c1, NO_VALUE, 0, msg);
	if (f) {
		f->has_addr = false;
		f->has_thread2 = true;
		memcpy(f->tid2, t2, sizeof f->tid2);
		memcpy(f->ctaid2, c1, sizeof f->ctaid2);
	}
	L->sh->div_found = true;
	return r;
}

/* Whether a implies b, seen from their and/or structure alone (false when
 * not seen within *budget nodes). */
static bool dom_implies(const struct expr *a, const struct expr *b, unsigned *budget)
{
	if (a == b || (a->op == EOP_BOOL && !a->u) || (b->op == EOP_BOOL && b->u))
		return true;
	if (!*budget)
		return false;
	--*budget;
	if (b->op == EOP_LAND && a->op == EOP_LAND) {    /* flattened: b's conjuncts among a's */
		unsigned i = 0;
		while (i < b->nargs && dom_implies(a, b->args[i], budget))
			i++;
		if (i == b->nargs)
			return true;
	}
	if (b->op == EOP_LOR)
		for (unsigned i = 0; i < b->nargs; i++)
			if (dom_implies(a, b->args[i], budget))
				return true;
	if (a->op == EOP_LAND)
		for (unsigned i = 0; i < a->nargs; i++)
			if (dom_implies(a->args[i], b, budget))
				return true;
	if (a->op == EOP_LOR) {
		for (unsigned i = 0; i < a->nargs; i++)
			if (!dom_implies(a->args[i], b, budget))
				return false;
		return true;
	}
	return false;
}

int dx_barrier_release(struct dx_launch *L)
{
	struct dx_shared *sh = L->sh;
	struct ectx *cx = L->cx;
	unsigned pc0 = L->waiting.items[0]->pc;
	const struct ptx_instr *in0 = &L->fn->instrs[pc0];
	/* a block split over different barriers */
	for (size_t i = 0; i < L->waiting.len && !sh->div_found; i++) {
		unsigned pc = L->waiting.items[i]->pc;
		if (pc == pc0)
			continue;
		const struct expr *c = e_and(cx, waiting_dom(L, pc0), dx_other(L, waiting_dom(L, pc)));
		divergence(L, in0, c, "waits at the barrier of", &L->fn->instrs[pc]);
	}
	/* a block part of which has exited */
	if (!sh->div_found && L->exited.len) {
		/* an exited bundle shown apart from waiting threads W at an
		 * earlier barrier is apart from any that imply W */
		const struct expr *w = waiting_dom(L, -1), *e = e_bool(cx, false);
		for (size_t i = 0; i < L->exited.len; i++) {
			unsigned budget = 4096;
			const struct dx_exited *x = &L->exited.items[i];
			if (!x->apart || !dom_implies(w, x->apart, &budget))
				e = e_or(cx, e, x->dom);
		}
		if (!e_is_false(e) &&
		    divergence(L, in0, e_and(cx, w, dx_other(L, e)), "has exited and never reaches it",
		               NULL) == SMT_UNSAT)
			for (size_t i = 0; i < L->exited.len; i++)
				L->exited.items[i].apart = w;
	}
	dx_race_check(L, sh->acc.items, sh->acc.len, sh->race_found);
	sh->acc.len = 0;
	while (L->waiting.len) {
		struct dx_bundle *b = L->waiting.items[--L->waiting.len];
		if (b->epoch + 1 >= SYM_SH_EPOCH_MAX)
			return dx_unsupported(L, &L->fn->instrs[b->pc], "barrier count",
			                      "more barriers than the record can number");
		b->epoch++;
		b->sub = 0;
		b->shstores = NULL;
		b->pc++;
		VEC_PUSH(L->work, b);
	}
	return 0;
}

void dx_shared_finish(struct dx_launch *L)
{
	struct dx_shared *sh = L->sh;
	dx_race_check(L, sh->acc.items, sh->acc.len, sh->race_found);
	sh->acc.len = 0;
}
