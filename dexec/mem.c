/*
 * mem.c: memory instructions of a bundle: ld.param from the launch's
 * argument bytes, ld/st on global buffers (addresses must be a buffer's
 * base, from a pointer argument, plus an offset over tid/ctaid), ld.const
 * of module constants (from the launch's symbol buffer, or folded from the
 * PTX initialiser), store-to-load forwarding within a bundle, and the
 * bounds check of every access for all threads of the bundle.  Shared
 * memory targets are handed to shared.c.
 *
 * Module variables (__constant__ tables, __device__ arrays, reached by
 * [sym], mov or cvta of their address): a read is of the buffer the trace
 * recorded for the symbol (cudaMemcpyToSymbol), else of the module's
 * initialiser (a select over the entries when the index depends on the
 * thread) -- for a __device__ variable only while no earlier launch of
 * the module can have stored to it.  Accesses are bounds-checked against
 * the variable's size; a store to one is checked, then unsupported (the
 * obligation has no version of a variable after a launch).
 *
 * An address must be exact: one that depends on an opaque value
 * (opaque.c) is unsupported, naming it.
 */
#include "dexec.h"

#include <inttypes.h>
#include <string.h>

enum tkind { T_BUF, T_INIT, T_SHARED };

/* Where an access goes. */
struct target {
	enum tkind kind;
	uint32_t vin;                   /* T_BUF: the value read */
	const struct ptx_var *var;      /* T_INIT: constant folded from var */
	uint64_t bytes;                 /* size of what is accessed, for bounds */
	const struct expr *off;         /* bv64 byte offset */
	const struct expr *dom;         /* threads that access (loads) */
	bool data;                      /* loads: under a data-dependent guard */
};

static enum etype et_for(enum ptx_type t, enum ptx_type reg)
{
	bool fl = ptx_type_is_float(reg);
	switch (t) {
	case PT_U8: case PT_B8: return ET_U8;
	case PT_S8: return ET_S8;
	case PT_U16: return ET_U16;
	case PT_B16: return fl ? ET_F16 : ET_U16;
	case PT_S16: return ET_S16;
	case PT_U32: return ET_U32;
	case PT_B32: return fl ? ET_F32 : ET_U32;
	case PT_S32: return ET_S32;
	case PT_U64: return ET_U64;
	case PT_B64: return fl ? ET_F64 : ET_U64;
	case PT_S64: return ET_S64;
	case PT_F16: return ET_F16;
	case PT_BF16: return ET_BF16;
	case PT_F32: return ET_F32;
	case PT_F64: return ET_F64;
	default: return ET_NONE;
	}
}

static enum ptx_type reg_type(struct dx_launch *L, const struct ptx_operand *op)
{
	if (op->kind == PO_REG && op->reg >= 0 && (unsigned)op->reg < L->fn->nregs)
		return L->fn->regs[op->reg].type;
	return PT_NONE;
}

/* The element operands of a destination or source: a vector's elements, or
 * the operand itself. */
static const struct ptx_operand *elem(const struct ptx_operand *op, unsigned i)
{
	return op->kind == PO_VEC ? &op->elems[i] : op;
}

static int check_shape(struct dx_launch *L, const struct ptx_instr *in, const struct ptx_operand *v,
                       unsigned n, unsigned esz)
{
	if (in->nops < 2)
		return dx_unsupported(L, in, "operands", "a memory access without two operands");
	if ((v->kind == PO_VEC) != (n > 1) || (v->kind == PO_VEC && v->nelems != n) || esz == 0)
		return dx_unsupported(L, in, "operands", "an access whose operands do not match its type");
	return 0;
}

/* ---- addresses ---------------------------------------------------------- */

static const struct expr *address(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                                  const struct ptx_operand *op)
{
	struct ectx *cx = L->cx;
	if (op->kind != PO_ADDR || !op->name) {
		dx_unsupported(L, in, "address", "an address that is not [register+offset] or [symbol+offset]");
		return NULL;
	}
	const struct expr *base;
	if (op->base_is_sym) {
		struct ptx_operand s = { .kind = PO_SYM, .name = op->name, .reg = -1 };
		base = dx_get_raw(L, b, in, &s);
	} else {
		struct ptx_operand r = { .kind = PO_REG, .name = op->name, .reg = op->reg };
		base = dx_get(L, b, in, &r, SORT_BV(64));
	}
	if (!base)
		return NULL;
	return e_op2(cx, EOP_ADD, base, e_bv(cx, (uint64_t)op->imm, 64));
}

/* An address may not depend on an opaque value: 0, or -1 (unsupported). */
static int addr_exact(struct dx_launch *L, const struct ptx_instr *in, const struct expr *addr)
{
	if (!e_has_opaque(addr))
		return 0;
	return dx_unsupported(L, in, "opaque address", "an address computed from %s", dx_opaque_name(L, addr));
}

/* May the initialiser of module variable v be trusted at this launch? */
static bool init_holds(struct dx_launch *L, const struct ptx_var *v)
{
	if (v->space == PS_CONST)
		return true;          /* constant memory: only the host writes it */
	return L->opts->module_unclean && !L->opts->module_unclean[L->l->module];
}

/* Splits addr into a buffer (or module variable) and an offset. */
static int resolve(struct dx_launch *L, const struct ptx_instr *in, const struct expr *addr,
                   struct target *t)
{
	struct ectx *cx = L->cx;
	if (addr_exact(L, in, addr) < 0)
		return -1;
	if (e_has_undef(addr))
		return dx_unsupported(L, in, "undefined address", "an address computed from an undefined value");
	uint64_t k;
	struct affine_term terms[16];
	int n = e_affine(addr, &k, terms, 16);
	const struct expr *base = NULL;
	int nbase = 0;
	bool unit = false;
	for (int i = 0; n > 0 && i < n; i++) {
		const struct expr *x = terms[i].term;
		if (x->op == EOP_VAR && (EVAR_IS_BASE(x->u) || DX_IS_SYMVAR(x->u))) {
			nbase++;
			base = x;
			unit = terms[i].coef == 1;
		}
	}
	if (n < 0 || nbase != 1 || !unit) {
		if (e_has_data(addr))
			return dx_unsupported(L, in, "data-dependent address",
			                      "an address that depends on loaded data");
		return dx_unsupported(L, in, "address",
		                      nbase == 0 ? "an address that is not inside a buffer given as an argument"
		                                 : "an address that combines buffer addresses");
	}
	t->off = e_op2(cx, EOP_SUB, addr, base);
	if (e_has_data(t->off))
		return dx_unsupported(L, in, "data-dependent address", "an address that depends on loaded data");
	if (EVAR_IS_BASE(base->u)) {
		t->kind = T_BUF;
		t->vin = EVAR_BASE_VALUE(base->u);
		t->var = NULL;
		if (t->vin >= L->o->values.len)
			return dx_unsupported(L, in, "address", "an address in unknown value %u", t->vin);
		t->bytes = L->o->values.items[t->vin].bytes;
		return 0;
	}
	const struct ptx_var *v = dx_var(L, DX_SYMVAR_INDEX(base->u));
	if (v->space == PS_SHARED)
		return dx_unsupported(L, in, "shared memory", "an access to shared memory ('%s')", v->name);
	if (v->space != PS_CONST && v->space != PS_GLOBAL)
		return dx_unsupported(L, in, "memory space", "an access to variable '%s' of this space", v->name);
	for (uint32_t i = 0; i < L->l->nsyms; i++)
		if (strcmp(L->l->syms[i].symbol, v->name) == 0) {
			t->kind = T_BUF;
			t->vin = L->l->syms[i].vin;
			t->var = v;
			t->bytes = L->o->values.items[t->vin].bytes;
			return 0;
		}
	if (!init_holds(L, v))
		return dx_unsupported(L, in, "device variable",
		                      "an access to __device__ variable '%s', which the trace does not hold and "
		                      "an earlier launch may have written", v->name);
	t->kind = T_INIT;
	t->var = v;
	t->bytes = v->size;
	return 0;
}

/* resolve() for a store: a module variable is a target whatever its
 * contents (the store is bounds-checked, then refused). */
static int resolve_store(struct dx_launch *L, const struct ptx_instr *in, const struct expr *addr,
                         struct target *t)
{
	if (addr_exact(L, in, addr) < 0 || e_has_undef(addr) || e_has_data(addr))
		return resolve(L, in, addr, t);
	uint64_t k;
	struct affine_term terms[16];
	int n = e_affine(addr, &k, terms, 16), nbase = 0;
	for (int i = 0; i < n; i++)
		nbase += terms[i].term->op == EOP_VAR && (EVAR_IS_BASE(terms[i].term->u) || DX_IS_SYMVAR(terms[i].term->u));
	for (int i = 0; i < n && nbase == 1; i++) {
		const struct expr *x = terms[i].term;
		if (x->op != EOP_VAR || !DX_IS_SYMVAR(x->u) || terms[i].coef != 1)
			continue;
		const struct ptx_var *v = dx_var(L, DX_SYMVAR_INDEX(x->u));
		if (v->space != PS_GLOBAL && v->space != PS_CONST)
			break;
		bool traced = false;
		for (uint32_t j = 0; j < L->l->nsyms; j++)
			traced |= strcmp(L->l->syms[j].symbol, v->name) == 0;
		if (traced)
			break;
		t->kind = T_INIT;
		t->var = v;
		t->bytes = v->size;
		t->off = e_op2(L->cx, EOP_SUB, addr, x);
		return 0;
	}
	return resolve(L, in, addr, t);
}

/* ---- bounds ----------------------------------------------------------------- */

/* 0: in bounds for every thread of dom; 1: a finding was made (skip the
 * access); -1: unsupported.  data_guard: dom holds a condition over data
 * (the access is predicated on data, or in an arm of a branch on data),
 * which may hold: the finding says so. */
static int bounds(struct dx_launch *L, const struct ptx_instr *in, const struct expr *dom,
                  const struct target *t, unsigned size, bool is_store, bool data_guard)
{
	struct ectx *cx = L->cx;
	const struct expr *off = t->off;
	const struct expr *neg = e_op2(cx, EOP_SLT, off, e_bv(cx, 0, 64));
	const struct expr *end = e_op2(cx, EOP_ADD, off, e_bv(cx, size, 64));
	const struct expr *past = e_op2(cx, EOP_ULT, e_bv(cx, t->bytes, 64), end);
	const struct expr *oob = e_or(cx, neg, past);
	const struct expr *cond = e_and(cx, dom, e_has_thread(oob) ? dx_fold(L, oob) : oob);
	uint32_t tid[3], ctaid[3];
	enum smt_result r = dx_sat(L, cond, tid, ctaid);
	if (r == SMT_UNSAT)
		return 0;
	if (r == SMT_UNKNOWN) {
		if (diag_verbose())
			note("kernel '%s', PTX line %u: the undecided bounds condition (some thread out of "
			     "%" PRIu64 " bytes): %s", L->l->kernel, in->line, t->bytes, e_print(&L->a, cond, 8000));
		return dx_unsupported(L, in, "solver", "the solver could not decide the bounds of an access");
	}
	const struct expr *c = e_at_thread(cx, off, tid, ctaid);
	int64_t o = c->op == EOP_BV ? (int64_t)c->u : 0;
	const char *name = t->kind == T_BUF ? dx_value_name(L, t->vin)
	                                    : arena_printf(&L->a, "symbol '%s'", t->var->name);
	const char *src = dx_src(L, in);
	char *msg = arena_printf(&L->a,
		"kernel '%s' %s %u bytes at byte offset %" PRId64 " of a %" PRIu64 "-byte buffer (%s) "
		"at thread (%u,%u,%u) block (%u,%u,%u)%s, PTX line %u%s%s",
		L->l->kernel, is_store ? "writes" : "reads", size, o, t->bytes, name,
		tid[0], tid[1], tid[2], ctaid[0], ctaid[1], ctaid[2],
		data_guard ? " when a condition on data holds" : "", in->line,
		src ? ", " : "", src ? src : "");
	uint32_t value = t->kind == T_BUF ? t->vin : NO_VALUE;
	dx_finding(L, in, "oob-global", tid, ctaid, value, o, msg);
	return 1;
}

/* ---- forwarding ---------------------------------------------------------- */

/* How a load at offset d (bv64, not constant) from an earlier store of
 * the bundle relates to it for the threads of dom: 0 never overlapping, 1
 * the same offset for all, 2 the same offset for the threads where they
 * overlap at all and disjoint for the others (a row written element by
 * element and read back as float4: the thread of column c meets its own
 * store only at c's element), -1 otherwise (unsupported; -2 when soft). */
static int alias(struct dx_launch *L, const struct ptx_instr *in, const struct expr *dom,
                 const struct expr *d, unsigned size, unsigned ssize, bool soft)
{
	struct ectx *cx = L->cx;
	const struct expr *lo = e_op2(cx, EOP_SLT, e_bv(cx, -(uint64_t)size, 64), d);
	const struct expr *hi = e_op2(cx, EOP_SLT, d, e_bv(cx, ssize, 64));
	const struct expr *overlap = e_and(cx, dom, e_and(cx, lo, hi));
	enum smt_result r = dx_sat(L, overlap, NULL, NULL);
	if (r == SMT_UNSAT)
		return 0;
	if (size == ssize && r == SMT_SAT) {
		const struct expr *ne = e_not(cx, e_op2(cx, EOP_EQ, d, e_bv(cx, 0, 64)));
		if (dx_sat(L, e_and(cx, dom, ne), NULL, NULL) == SMT_UNSAT)
			return 1;
		if (dx_sat(L, e_and(cx, overlap, ne), NULL, NULL) == SMT_UNSAT)
			return 2;
	}
	if (soft)
		return -2;
	return dx_unsupported(L, in, "load may alias an earlier store",
	                      "a load that may alias an earlier store of the same thread "
	                      "at a different offset");
}

/* May the access [off, off+size) of the threads of dom overlap the
 * bytes atomic entry a updated?  -1 when the solver cannot say. */
static int atomic_overlap(struct dx_launch *L, const struct expr *dom, const struct expr *off,
                          unsigned size, const struct dx_store *a)
{
	struct ectx *cx = L->cx;
	const struct expr *d = e_op2(cx, EOP_SUB, off, a->off);
	const struct expr *lo = e_op2(cx, EOP_SLT, e_bv(cx, -(uint64_t)size, 64), d);
	const struct expr *hi = e_op2(cx, EOP_SLT, d, e_bv(cx, a->size, 64));
	enum smt_result r = dx_sat(L, e_and(cx, dom, e_and(cx, lo, hi)), NULL, NULL);
	return r == SMT_UNSAT ? 0 : r == SMT_SAT ? 1 : -1;
}

/* A plain store found at s for a load: unsupported when an atomic of the
 * bundle between it and the load (in head..s) may overlap the load. */
static int atomic_between(struct dx_launch *L, const struct ptx_instr *in, const struct expr *dom,
                          const struct dx_store *head, const struct dx_store *s, uint32_t vin,
                          const struct expr *off, unsigned size)
{
	for (const struct dx_store *a = head; a && a != s; a = a->next) {
		if (a->val || a->vin != vin)
			continue;
		int k = atomic_overlap(L, dom, off, size, a);
		if (k != 0)
			return dx_unsupported(L, in, "read of an atomic target",
			                      "a load of a location the thread updated atomically after storing "
			                      "to it: what it reads depends on the order of the threads");
	}
	return 0;
}

/* dx_forward, and dx_forward_soft when soft (1: undecided). */
static int forward(struct dx_launch *L, const struct ptx_instr *in, const struct expr *dom,
                   const struct dx_store *s, uint32_t vin, const struct expr *off, unsigned size,
                   enum etype et, const struct expr *miss, const struct expr **out, bool soft)
{
	struct ectx *cx = L->cx;
	const struct dx_store *head = s;
	*out = NULL;
	for (; s; s = s->next) {
		if (s->vin != vin || !s->val)
			continue;
		const struct expr *d = e_op2(cx, EOP_SUB, off, s->off);
		const struct expr *when = s->guard;     /* the threads s answers for; NULL: all */
		if (d->op != EOP_BV) {
			int a = alias(L, in, dom, d, size, s->size, soft);
			if (a == -2)
				return 1;
			if (a < 0)
				return -1;
			if (a == 0)
				continue;
			if (a == 2) {
				/* s answers where the offsets are equal, older stores elsewhere */
				const struct expr *eq = e_op2(cx, EOP_EQ, d, e_bv(cx, 0, 64));
				when = when ? e_and(cx, when, eq) : eq;
			}
			d = e_bv(cx, 0, 64);    /* the same offset for every thread it answers for */
		}
		int64_t k = (int64_t)d->u;
		if (k >= (int64_t)s->size || -k >= (int64_t)size)
			continue;
		if ((k != 0 || s->size != size) && soft)
			return 1;
		if (k != 0 || s->size != size)
			return dx_unsupported(L, in, "load overlaps an earlier store",
			                      "a load that partly overlaps an earlier store of the same thread");
		if (atomic_between(L, in, dom, head, s, vin, off, size) < 0)
			return -1;
		const struct expr *v = dx_coerce(L, in, s->val, etype_sort(et));
		if (!v)
			return -1;
		if (when) {
			const struct expr *older;
			int r = forward(L, in, dom, s->next, vin, off, size, et, miss, &older, soft);
			if (r != 0)
				return r;
			if (!older)
				older = miss;
			v = e_ite(cx, when, v, older);
		}
		*out = v;
		return 0;
	}
	return 0;
}

static const struct expr *init_value(struct dx_launch *L, const struct ptx_instr *in, const struct ptx_var *v,
                                     const struct expr *off, enum etype et);

int dx_forward(struct dx_launch *L, const struct ptx_instr *in, const struct expr *dom,
               const struct dx_store *s, uint32_t vin, const struct expr *off, unsigned size,
               enum etype et, const struct expr *miss, const struct expr **out)
{
	return forward(L, in, dom, s, vin, off, size, et, miss, out, false);
}

int dx_forward_soft(struct dx_launch *L, const struct ptx_instr *in, const struct expr *dom,
                    const struct dx_store *s, uint32_t vin, const struct expr *off, unsigned size,
                    enum etype et, const struct expr *miss, const struct expr **out)
{
	return forward(L, in, dom, s, vin, off, size, et, miss, out, true);
}

static const struct expr *traced_const(struct dx_launch *L, const struct ptx_instr *in,
                                       const struct target *t, const struct expr *off, enum etype et);
static const struct expr *traced_input(struct dx_launch *L, const struct ptx_instr *in,
                                       const struct target *t, const struct expr *off, enum etype et);

static const struct expr *read_value(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                                     const struct target *t, const struct expr *off, enum etype et)
{
	struct ectx *cx = L->cx;
	unsigned size = etype_size(et);
	uint32_t vout;
	if (t->kind == T_BUF && t->var && t->var->space == PS_CONST) {
		const struct expr *k = traced_const(L, in, t, off, et);
		if (k)
			return k;
	}
	if (t->kind == T_BUF && !t->var && dx_gread_may_write(L, t->vin, &vout))
		return dx_gread_load(L, b, in, t->dom, t->vin, vout, off, et, !t->data);
	if (t->kind == T_BUF && !t->var) {
		const struct expr *k = traced_input(L, in, t, off, et);
		if (k)
			return k;
	}
	if (t->kind == T_BUF) {
		const struct expr *v, *miss = e_load(cx, t->vin, et, off);
		if (dx_forward(L, in, b->dom, b->stores, t->vin, off, size, et, miss, &v) < 0)
			return NULL;
		return v ? v : miss;
	}
	if (t->kind == T_SHARED)
		return dx_shared_read(L, b, in, t->dom, off, et);
	return init_value(L, in, t->var, off, et);
}

/* The element of type et at byte o of v's initialiser (zeros without
 * one); NULL after dx_unsupported. */
static const struct expr *init_elem(struct dx_launch *L, const struct ptx_instr *in, const struct ptx_var *v,
                                    uint64_t o, enum etype et)
{
	unsigned size = etype_size(et);
	uint64_t bits = 0;
	for (unsigned i = 0; i < v->ninit_syms; i++) {
		const struct ptx_init_sym *s = &v->init_syms[i];
		if (o < s->offset + s->size && s->offset < o + size) {
			dx_unsupported(L, in, "constant address", "an address stored in constant '%s'", v->name);
			return NULL;
		}
	}
	for (unsigned i = 0; i < size && v->init && o + i < v->size; i++)
		bits |= (uint64_t)v->init[o + i] << (8 * i);
	if (etype_is_float(et))
		return dx_real_bits(L, in, bits, 8 * size);
	return e_bv(L->cx, bits, 8 * size);
}

/* The offsets a thread-dependent off can take in a region of 'bytes'
 * bytes, for reads of size bytes: first, first + step, ... up to *last
 * (its affine form fixes the step: every offset is k mod 2^t, 2^t the
 * lowest bit of the coefficients).  false when they are more than
 * DX_TABLE_MAX or none fits. */
static bool table_range(const struct expr *off, unsigned size, uint64_t bytes, uint64_t *first,
                        uint64_t *step, uint64_t *last)
{
	uint64_t k;
	struct affine_term terms[16];
	int n = e_affine(off, &k, terms, 16);
	uint64_t g = 0;
	for (int i = 0; i < n; i++)
		g |= terms[i].coef;
	*step = n > 0 && g ? g & -g : 1;
	if (size > bytes)
		return false;
	*first = n > 0 ? k % *step : 0;
	uint64_t end = bytes - size;
	if (*first > end || (end - *first) / *step + 1 > DX_TABLE_MAX)
		return false;
	*last = *first + (end - *first) / *step * *step;
	return true;
}

/* The element of type et at byte o of a table (src: what elem reads), or
 * NULL. */
typedef const struct expr *(*table_elem_fn)(struct dx_launch *L, const struct ptx_instr *in,
                                            const void *src, uint64_t o, enum etype et);

/* A select over the entries first, first + step, ... last of a table on
 * off (its last entry the default); NULL when elem gives NULL for one. */
static const struct expr *table_select(struct dx_launch *L, const struct ptx_instr *in,
                                       const struct expr *off, uint64_t first, uint64_t step,
                                       uint64_t last, enum etype et, table_elem_fn elem,
                                       const void *src)
{
	struct ectx *cx = L->cx;
	const struct expr *r = NULL;
	for (uint64_t o = last;; o -= step) {
		const struct expr *x = elem(L, in, src, o, et);
		if (!x)
			return NULL;
		r = r ? e_ite(cx, e_op2(cx, EOP_EQ, off, e_bv(cx, o, 64)), x, r) : x;
		if (o < first + step)
			break;
	}
	return r;
}

static const struct expr *var_elem(struct dx_launch *L, const struct ptx_instr *in, const void *v,
                                   uint64_t o, enum etype et)
{
	return init_elem(L, in, v, o, et);
}

static const struct expr *const_elem(struct dx_launch *L, const struct ptx_instr *in, uint32_t vin,
                                     uint64_t off, enum etype et);

static const struct expr *value_elem(struct dx_launch *L, const struct ptx_instr *in,
                                     const void *vin, uint64_t o, enum etype et)
{
	return const_elem(L, in, *(const uint32_t *)vin, o, et);
}

/* What v's initialiser holds at offset off (bounds already checked): the
 * element, or for a thread-dependent off a select over every entry off
 * can reach. */
static const struct expr *init_value(struct dx_launch *L, const struct ptx_instr *in, const struct ptx_var *v,
                                     const struct expr *off, enum etype et)
{
	unsigned size = etype_size(et);
	if (off->op == EOP_BV)
		return init_elem(L, in, v, off->u, et);
	if (size > v->size) {
		dx_unsupported(L, in, "constant table", "a %u-byte read of the %u-byte '%s'", size, v->size, v->name);
		return NULL;
	}
	uint64_t first, step, last;
	if (!table_range(off, size, v->size, &first, &step, &last)) {
		dx_unsupported(L, in, "constant table",
		               "a thread-dependent index into '%s' (more than %u entries)", v->name, DX_TABLE_MAX);
		return NULL;
	}
	return table_select(L, in, off, first, step, last, et, var_elem, v);
}

/* Byte at of value vin when its versions make it a constant (data or
 * memset, through the versions before it for the bytes outside their
 * range): true with *byte set. */
bool dx_value_byte(const struct obligation *o, uint32_t vin, uint64_t at, uint8_t *byte)
{
	for (unsigned hops = 0; vin < o->values.len && hops < 256; hops++) {
		const struct obl_value *v = &o->values.items[vin];
		if (at >= v->bytes)
			return false;
		bool inside = at >= v->off && at - v->off < v->len;
		if (obl_value_ranged(v) && !inside) {
			vin = v->prev;
			continue;
		}
		if (v->def == VD_DATA && v->data) {
			*byte = ((const uint8_t *)v->data)[at - v->off];
			return true;
		}
		if (v->def == VD_MEMSET) {
			*byte = v->fill;
			return true;
		}
		return false;
	}
	return false;
}

/* The element of type et at byte off of the constant value vin, or NULL
 * when the value does not fix those bytes. */
static const struct expr *const_elem(struct dx_launch *L, const struct ptx_instr *in, uint32_t vin,
                                     uint64_t off, enum etype et)
{
	unsigned size = etype_size(et);
	uint64_t bits = 0;
	for (unsigned i = 0; i < size; i++) {
		uint8_t y;
		if (!dx_value_byte(L->o, vin, off + i, &y))
			return NULL;
		bits |= (uint64_t)y << (8 * i);
	}
	if (etype_is_float(et))
		return dx_real_bits(L, in, bits, 8 * size);
	return e_bv(L->cx, bits, 8 * size);
}

/* A read of a __constant__ variable the host wrote (cudaMemcpyToSymbol,
 * recorded with its bytes): the constant, or for a thread-dependent off a
 * select over the entries it can reach -- as a read of the initialiser.
 * NULL when the bytes are not all known (the read stays a load of the
 * value). */
static const struct expr *traced_const(struct dx_launch *L, const struct ptx_instr *in,
                                       const struct target *t, const struct expr *off, enum etype et)
{
	if (off->op == EOP_BV)
		return const_elem(L, in, t->vin, off->u, et);
	uint64_t first, step, last;
	if (!table_range(off, etype_size(et), t->bytes, &first, &step, &last))
		return NULL;
	return table_select(L, in, off, first, step, last, et, value_elem, &t->vin);
}

/* The integer element of type et at byte o of input value *vin, from the
 * input's recorded bytes, or NULL when they do not hold it. */
static const struct expr *input_elem(struct dx_launch *L, const struct ptx_instr *in, const void *vin,
                                     uint64_t o, enum etype et)
{
	(void)in;
	const struct obl_value *v = &L->o->values.items[*(const uint32_t *)vin];
	const struct obl_input *ip = &L->o->inputs.items[v->input];
	unsigned size = etype_size(et);
	if (o < v->off || o - v->off + size > ip->ndata)
		return NULL;
	const unsigned char *p = (const unsigned char *)ip->data + (o - v->off);
	uint64_t bits = 0;
	for (unsigned i = 0; i < size; i++)
		bits |= (uint64_t)p[i] << (8 * i);
	return e_bv(L->cx, bits, 8 * size);
}

/* An integer read of a program input of an integer element type whose
 * bytes the trace kept (labels, indices): the recorded constant, or for
 * a thread-dependent off a select over the entries it can reach, as the
 * resolver takes them (resolve.h: integer elements of inputs are shapes
 * and indices).  NULL for a float read, an input without bytes or a
 * random op's result, and an input whose element type the trace does not
 * name (a CUDA program's buffer: a float one read as bits is the common
 * case, the float bit idioms' business): the read stays a load. */
static const struct expr *traced_input(struct dx_launch *L, const struct ptx_instr *in,
                                       const struct target *t, const struct expr *off, enum etype et)
{
	const struct obl_value *v = &L->o->values.items[t->vin];
	if (etype_is_float(et) || v->def != VD_INPUT || v->input >= L->o->inputs.len)
		return NULL;
	const struct obl_input *ip = &L->o->inputs.items[v->input];
	if (!ip->data || obl_input_random(ip) || ip->dtype == ET_NONE || etype_is_float(ip->dtype))
		return NULL;
	if (off->op == EOP_BV)
		return input_elem(L, in, &t->vin, off->u, et);
	uint64_t first, step, last;
	if (!table_range(off, etype_size(et), t->bytes, &first, &step, &last))
		return NULL;
	return table_select(L, in, off, first, step, last, et, input_elem, &t->vin);
}

/* ---- parameters ----------------------------------------------------------- */

static int load_param(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in)
{
	struct ectx *cx = L->cx;
	const struct ptx_operand *d = &in->ops[0], *a = &in->ops[1];
	unsigned n = ptx_instr_vec(in), esz = ptx_type_bits(in->type) / 8;
	if (check_shape(L, in, d, n, esz) < 0)
		return -1;
	if (a->kind != PO_ADDR || !a->base_is_sym)
		return dx_unsupported(L, in, "parameter address", "ld.param through a register");
	int pi = -1;
	for (unsigned i = 0; i < L->fn->nparams; i++)
		if (strcmp(L->fn->params[i].name, a->name) == 0)
			pi = (int)i;
	if (pi < 0 || (uint32_t)pi >= L->l->nargs)
		return dx_unsupported(L, in, "parameter", "ld.param of '%s', which is not a parameter", a->name);
	const struct obl_arg *g = &L->l->args[pi];
	for (unsigned i = 0; i < n; i++) {
		const struct ptx_operand *de = elem(d, i);
		if (de->kind == PO_SINK)
			continue;
		uint64_t o = (uint64_t)a->imm + (uint64_t)i * esz;
		const struct expr *v;
		if (g->is_ptr) {
			if (o != 0 || esz != 8)
				return dx_unsupported(L, in, "pointer argument",
				                      "a partial read of pointer argument '%s'", g->param);
			v = e_op2(cx, EOP_ADD, e_var(cx, EVAR_BASE(g->vin), SORT_BV(64)), e_bv(cx, g->off, 64));
		} else {
			if (a->imm < 0 || o + esz > g->size)
				return dx_unsupported(L, in, "parameter", "ld.param beyond argument '%s'", g->param);
			uint64_t bits = 0;
			const unsigned char *raw = g->raw;
			for (unsigned k = 0; k < esz; k++)
				bits |= (uint64_t)raw[o + k] << (8 * k);
			enum etype et = et_for(in->type, reg_type(L, de));
			if (etype_is_float(et))
				v = dx_real_bits(L, in, bits, 8 * esz);
			else
				v = e_bv(cx, bits, 8 * esz);
			if (v && !etype_is_float(et) && de->kind == PO_REG) {
				sort_t rs = dx_sort_of(reg_type(L, de));
				if (SORT_KIND(rs) == SK_BV)
					v = e_resize(cx, v, SORT_WIDTH(rs), ptx_type_is_signed(in->type));
			}
		}
		if (!v || dx_set(L, b, in, de, v) < 0)
			return -1;
	}
	return 0;
}

/* ---- loads and stores ---------------------------------------------------------- */

static int space_check(struct dx_launch *L, const struct ptx_instr *in, enum ptx_space sp)
{
	if (sp == PS_LOCAL)
		return dx_unsupported(L, in, "local memory", "instruction '%s' (local memory)",
		                      dx_instr_name(L, in));
	if (sp != PS_GLOBAL && sp != PS_GENERIC && sp != PS_CONST && sp != PS_SHARED)
		return dx_unsupported(L, in, "memory space", "instruction '%s' in this state space",
		                      dx_instr_name(L, in));
	return 0;
}

/* The threads of bundle b that make an access under guard (NULL: none):
 * the bundle's domain, cut by a thread-only guard.  A guard over data
 * cannot cut it: *data says so (a stored value is merged with the old
 * one).  *when is the domain with every condition the access is made
 * under, the data condition of the arm b runs included (merge.c): bounds
 * must hold there, and *data is set when it holds data. */
static const struct expr *guard_dom(struct dx_launch *L, struct dx_bundle *b, const struct expr *guard,
                                    bool *data, const struct expr **when)
{
	const struct expr *arm = dx_arm_cond(b), *dom;
	*data = guard && e_has_data(guard);
	dom = !guard || *data ? b->dom : e_and(L->cx, b->dom, guard);
	*when = *data ? e_and(L->cx, dom, guard) : dom;
	if (arm) {
		*when = e_and(L->cx, *when, arm);
		*data = true;
	}
	return dom;
}

/* Reads the elements of load in at addr into v[] (NULL for '_'), as the
 * destination registers take them; dom, when and data as guard_dom gives
 * them.  0 or -1. */
static int load_at(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                   const struct expr *addr, const struct expr *dom, const struct expr *when, bool data,
                   const struct expr **v)
{
	struct ectx *cx = L->cx;
	enum ptx_space sp = ptx_instr_space(in);
	const struct ptx_operand *d = &in->ops[0];
	unsigned n = ptx_instr_vec(in), esz = ptx_type_bits(in->type) / 8;
	struct target t;
	int r;
	t.dom = dom;
	t.data = data;
	if (sp == PS_SHARED || (sp == PS_GENERIC && dx_shared_addr(L, addr))) {
		t.kind = T_SHARED;
		if ((r = dx_shared_target(L, in, addr, when, n * esz, false, data, &t.off)) < 0)
			return -1;
	} else {
		if (resolve(L, in, addr, &t) < 0)
			return -1;
		if (sp == PS_CONST && (!t.var || t.var->space != PS_CONST))
			return dx_unsupported(L, in, "address", "ld.const of an address outside constant memory");
		if ((r = bounds(L, in, when, &t, n * esz, false, data)) < 0)
			return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct ptx_operand *de = elem(d, i);
		v[i] = NULL;
		if (de->kind == PO_SINK)
			continue;
		enum ptx_type rt = reg_type(L, de);
		enum etype et = et_for(in->type, rt);
		if (et == ET_NONE)
			return dx_unsupported(L, in, "load type", "a load of .%s", ptx_type_name(in->type));
		if (r == 1) {
			v[i] = e_undef(cx, etype_sort(et));
		} else {
			const struct expr *o = e_op2(cx, EOP_ADD, t.off, e_bv(cx, (uint64_t)i * esz, 64));
			if (!(v[i] = read_value(L, b, in, &t, o, et)))
				return -1;
		}
		sort_t rs = dx_sort_of(rt);
		if (SORT_KIND(v[i]->sort) == SK_BV && SORT_KIND(rs) == SK_BV)
			v[i] = e_resize(cx, v[i], SORT_WIDTH(rs), et == ET_S8 || et == ET_S16 || et == ET_S32);
	}
	return 0;
}

/* ---- addresses chosen by data ---------------------------------------------- */

/* nvcc turns 'm = fmaxf(s[i], s[i + k])' into a select between the two
 * addresses on a comparison of the values: an address that depends on
 * data only through ite nodes is a choice between addresses that do not. */
#define MAX_CHOICES 3                /* conditions a load may choose by */

/* The condition of the first ite over data in address e, NULL if none. */
static const struct expr *addr_choice(const struct expr *e)
{
	if (!e_has_data(e) || e->op == EOP_LOAD || e->op == EOP_ELEM || e->op == EOP_INPUT)
		return NULL;
	if (e->op == EOP_ITE && e_has_data(e->args[0]))
		return e->args[0];
	for (unsigned i = 0; i < e->nargs; i++) {
		const struct expr *c = addr_choice(e->args[i]);
		if (c)
			return c;
	}
	return NULL;
}

/* e with every ite over c replaced by its then (side) or else arm. */
static const struct expr *choose(struct ectx *cx, const struct expr *e, const struct expr *c, bool side)
{
	if (!e_has_data(e) || !e->nargs || e->op == EOP_LOAD)
		return e;
	if (e->op == EOP_ITE && e->args[0] == c)
		return choose(cx, e->args[side ? 1 : 2], c, side);
	const struct expr *a[E_MAX_ARGS];
	bool same = true;
	for (unsigned i = 0; i < e->nargs; i++) {
		a[i] = choose(cx, e->args[i], c, side);
		same &= a[i] == e->args[i];
	}
	return same ? e : e_op(cx, (enum eop)e->op, e->sort, e->u, e->nargs, a);
}

/* load_at, where addr may choose by data: each choice read under its
 * condition (bounds included), the values merged by ite. */
static int load_chosen(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                       const struct expr *addr, const struct expr *dom, const struct expr *when, bool data,
                       const struct expr **v, unsigned depth)
{
	struct ectx *cx = L->cx;
	const struct expr *c = depth < MAX_CHOICES ? addr_choice(addr) : NULL;
	if (!c)
		return load_at(L, b, in, addr, dom, when, data, v);
	const struct expr *vt[8], *vf[8];
	if (load_chosen(L, b, in, choose(cx, addr, c, true), dom, e_and(cx, when, c), true, vt, depth + 1) < 0 ||
	    load_chosen(L, b, in, choose(cx, addr, c, false), dom, e_and(cx, when, e_not(cx, c)), true, vf,
	                depth + 1) < 0)
		return -1;
	for (unsigned i = 0; i < ptx_instr_vec(in); i++)
		v[i] = vt[i] && vf[i] ? e_ite(cx, c, vt[i], vf[i]) : NULL;
	return 0;
}

int dx_load(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
            const struct expr *guard)
{
	enum ptx_space sp = ptx_instr_space(in);
	if (sp == PS_PARAM)
		return load_param(L, b, in);
	if (space_check(L, in, sp) < 0)
		return -1;
	const struct ptx_operand *d = &in->ops[0];
	unsigned n = ptx_instr_vec(in), esz = ptx_type_bits(in->type) / 8;
	if (check_shape(L, in, d, n, esz) < 0)
		return -1;
	if (n > 8)
		return dx_unsupported(L, in, "operands", "a load of more than 8 elements");
	const struct expr *addr = address(L, b, in, &in->ops[1]);
	bool data;
	const struct expr *when, *dom = guard_dom(L, b, guard, &data, &when), *v[8];
	int r;
	if (!addr || addr_exact(L, in, addr) < 0)
		return -1;
	if (e_has_undef(addr) && (r = dx_undef_sink(L, in, b->dom, addr, "addresses memory with")) != 0)
		return r < 0 ? -1 : 0;
	if (load_chosen(L, b, in, addr, dom, when, data, v, 0) < 0)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (v[i] && dx_set(L, b, in, elem(d, i), v[i]) < 0)
			return -1;
	return 0;
}

/* The value operand element se of a store, as the type it stores. */
static const struct expr *store_value(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                                      const struct ptx_operand *se, enum etype *et)
{
	const struct expr *v;
	if (se->kind == PO_REG && (in->type == PT_B32 || in->type == PT_B64)) {
		v = dx_get_raw(L, b, in, se);
		if (v && v->sort == SORT_REAL)
			*et = in->type == PT_B32 ? ET_F32 : ET_F64;
	}
	return dx_get(L, b, in, se, etype_sort(*et));
}

static int store_shared(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                        const struct expr *guard, const struct expr *addr)
{
	struct ectx *cx = L->cx;
	const struct ptx_operand *s = &in->ops[1];
	unsigned n = ptx_instr_vec(in), esz = ptx_type_bits(in->type) / 8;
	bool data;
	const struct expr *when, *dom = guard_dom(L, b, guard, &data, &when), *off;
	int r = dx_shared_target(L, in, addr, when, n * esz, true, data, &off);
	if (r != 0)
		return r < 0 ? -1 : 0;
	for (unsigned i = 0; i < n; i++) {
		const struct ptx_operand *se = elem(s, i);
		if (se->kind == PO_SINK)
			continue;
		enum etype et = et_for(in->type, reg_type(L, se));
		if (et == ET_NONE)
			return dx_unsupported(L, in, "store type", "a store of .%s", ptx_type_name(in->type));
		const struct expr *v = store_value(L, b, in, se, &et);
		if (!v)
			return -1;
		if (e_has_undef(v)) {
			int u = dx_undef_sink(L, in, dom, v, "stores");
			if (u != 0)
				return u < 0 ? -1 : 0;
		}
		const struct expr *o = e_op2(cx, EOP_ADD, off, e_bv(cx, (uint64_t)i * esz, 64));
		if (data) {
			const struct expr *old = dx_shared_read(L, b, in, dom, o, et);
			if (!old)
				return -1;
			v = e_ite(cx, guard, v, old);
		}
		dx_shared_write(L, b, in, dom, o, v, et, data ? NULL : guard);
	}
	return 0;
}

int dx_store(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
             const struct expr *guard)
{
	struct ectx *cx = L->cx;
	enum ptx_space sp = ptx_instr_space(in);
	if (sp == PS_PARAM)
		return dx_unsupported(L, in, "function call", "a call (st.param of an argument)");
	if (sp == PS_CONST)
		return dx_unsupported(L, in, "memory space", "a store to constant memory");
	if (space_check(L, in, sp) < 0)
		return -1;
	const struct ptx_operand *s = &in->ops[1];
	unsigned n = ptx_instr_vec(in), esz = ptx_type_bits(in->type) / 8;
	if (check_shape(L, in, s, n, esz) < 0)
		return -1;
	const struct expr *addr = address(L, b, in, &in->ops[0]);
	struct target t;
	if (!addr || addr_exact(L, in, addr) < 0)
		return -1;
	if (e_has_undef(addr)) {
		int u = dx_undef_sink(L, in, b->dom, addr, "addresses memory with");
		if (u != 0)
			return u < 0 ? -1 : 0;
	}
	if (sp == PS_SHARED || (sp == PS_GENERIC && dx_shared_addr(L, addr)))
		return store_shared(L, b, in, guard, addr);
	if (resolve_store(L, in, addr, &t) < 0)
		return -1;
	uint32_t vout = NO_VALUE;
	for (uint32_t i = 0; t.kind == T_BUF && !t.var && i < L->l->nargs; i++)
		if (L->l->args[i].is_ptr && L->l->args[i].vin == t.vin)
			vout = L->l->args[i].vout;
	bool data;
	const struct expr *when, *dom = guard_dom(L, b, guard, &data, &when);
	int r = bounds(L, in, when, &t, n * esz, true, data);
	if (r != 0)
		return r < 0 ? -1 : 0;
	if (vout == NO_VALUE)
		return dx_unsupported(L, in, "store to a module variable", "a store to %s variable '%s'",
		                      t.var && t.var->space == PS_CONST ? "__constant__" : "__device__",
		                      t.var ? t.var->name : "?");
	for (unsigned i = 0; i < n; i++) {
		const struct ptx_operand *se = elem(s, i);
		if (se->kind == PO_SINK)
			continue;
		enum etype et = et_for(in->type, reg_type(L, se));
		if (et == ET_NONE)
			return dx_unsupported(L, in, "store type", "a store of .%s", ptx_type_name(in->type));
		const struct expr *v = store_value(L, b, in, se, &et);
		if (!v)
			return -1;
		if (e_has_undef(v)) {
			int u = dx_undef_sink(L, in, dom, v, "stores");
			if (u != 0)
				return u < 0 ? -1 : 0;
		}
		const struct expr *o = e_op2(cx, EOP_ADD, t.off, e_bv(cx, (uint64_t)i * esz, 64));
		if (data) {
			/* where the guard fails the location keeps what this thread
			 * would read there (gread.c) */
			const struct expr *old = dx_gread_load(L, b, in, dom, t.vin, vout, o, et, false);
			if (!old)
				return -1;
			v = e_ite(cx, guard, v, old);
		}
		struct sym_write w = {
			.value = vout, .dom = dom, .addr = o, .val = v, .et = et,
			.seq = b->seq++, .line = in->line, .src_line = in->loc_line, .epoch = b->epoch,
		};
		VEC_PUSH(L->writes, w);
		dx_global_access(L, b, in, t.vin, vout, dom, o, esz, false, !data);
		struct dx_store *st = ARENA_NEW(&L->a, struct dx_store);
		*st = (struct dx_store){ b->stores, t.vin, o, v, (guard && !data) ? guard : NULL, esz };
		b->stores = st;
	}
	return 0;
}

int dx_atomic_target(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                     const struct ptx_operand *aop, const struct expr *dom, unsigned size,
                     bool data_guard, bool *shared, uint32_t *vin, uint32_t *vout,
                     const struct expr **off)
{
	enum ptx_space sp = ptx_instr_space(in);
	if (sp == PS_PARAM || sp == PS_CONST || sp == PS_LOCAL)
		return dx_unsupported(L, in, "memory space", "instruction '%s' in this state space",
		                      dx_instr_name(L, in));
	if (space_check(L, in, sp) < 0)
		return -1;
	const struct expr *addr = address(L, b, in, aop);
	if (!addr || addr_exact(L, in, addr) < 0)
		return -1;
	if (e_has_undef(addr)) {
		int u = dx_undef_sink(L, in, b->dom, addr, "addresses memory with");
		if (u != 0)
			return u < 0 ? -1 : 1;
	}
	*shared = sp == PS_SHARED || (sp == PS_GENERIC && dx_shared_addr(L, addr));
	if (*shared)
		return dx_shared_target(L, in, addr, dom, size, true, data_guard, off);
	struct target t;
	if (resolve_store(L, in, addr, &t) < 0)
		return -1;
	*vout = NO_VALUE;
	for (uint32_t i = 0; t.kind == T_BUF && !t.var && i < L->l->nargs; i++)
		if (L->l->args[i].is_ptr && L->l->args[i].vin == t.vin)
			*vout = L->l->args[i].vout;
	*vin = t.vin;
	*off = t.off;
	int r = bounds(L, in, dom, &t, size, true, data_guard);
	if (r == 0 && *vout == NO_VALUE)
		return dx_unsupported(L, in, "store to a module variable", "an atomic on %s variable '%s'",
		                      t.var && t.var->space == PS_CONST ? "__constant__" : "__device__",
		                      t.var ? t.var->name : "?");
	return r;
}
