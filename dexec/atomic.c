/*
 * atomic.c: atom and red on global and shared memory (dexec(1), dirigo(7) "What is modelled").
 *
 * An atomic is an order-independent contribution to a location: dexec
 * records it in the write set with its operation (sym_write.op, or
 * sym_shwrite.op for shared memory) and the back-projection combines, at
 * a concrete location, the value before the launch (or before the epoch)
 * with the contributions of every thread whose domain and address hit it
 * (engine/resolve-atomic.c).  Only what does not depend on the order
 * of the threads is accepted:
 *
 *   - the value an atom returns (the old contents) depends on the order,
 *     so an atom whose destination register is read anywhere is
 *     unsupported; nvcc emits atom even where the result is unused;
 *   - a launch that also reads a value it updates atomically is
 *     unsupported (dx_atomic_finish), and a thread's load is not
 *     answered from its own plain store across its atomic on the
 *     location (mem.c, dx_forward);
 *   - plain stores and atomics on one location are ordered by the block
 *     barriers between them (each write carries its epoch) when the
 *     threads of one block make them; across blocks, or in one epoch, a
 *     pair of them that can touch one address is a "global-race"
 *     finding (race.c), and the back-projection refuses the location;
 *   - exch, cas, inc and dec are kept, and the back-projection accepts
 *     them only where all contributions agree.
 *
 * The compare-and-swap loop that CUDA code uses for atomicMax/atomicMin
 * on floats (atomicCAS on __float_as_int in a do-while loop, a branch on
 * data) is rolled up before execution into one pseudo-instruction
 * `dirigo.red.SPACE.max.f32 [addr], x`, like the transcendental rollup
 * (rollup.c).  nvcc -O3 emits it as
 *
 *         ld.global.u32   %R, [%a];                // the first guess
 *     $L: mov.b32         %F, %R;
 *         max.f32         %G, %X, %F;              // or %F, %X; min; add
 *         mov.b32         %N, %G;
 *         atom.global.cas.b32 %D, [%a], %R, %N;
 *         setp.ne.s32     %P, %R, %D;
 *         mov.u32         %R, %D;
 *     @%P bra             $L;
 *
 * and matched by data flow: each temporary (%F %G %N %D %P) has its one
 * definition and its readers inside the loop, %R is read only inside it
 * (the returned old value is unused) and defined once outside, by the
 * guess, which goes too (whatever its value, the loop ends storing
 * max(x, contents) atomically).  The 64-bit form (b64, f64) is the same.
 * A loop that differs stays as it is and is unsupported at its atom.cas.
 */
#include "dexec.h"

#include <string.h>

/* ---- registers read ------------------------------------------------------------- */

/* Opcodes without a destination operand: every operand is read. */
static bool atom_no_dest(const char *op)
{
	static const char *const tab[] = { "st", "bra", "ret", "exit", "bar", "barrier", "membar", "fence",
	                                   "red", "prefetch", "prefetchu", "trap", "call", "brkpt",
	                                   DX_OP_STL, DX_OP_NOP, DX_OP_RED, NULL };
	for (unsigned i = 0; tab[i]; i++)
		if (!strcmp(op, tab[i]))
			return true;
	return false;
}

static void op_reads(const struct ptx_operand *o, bool dest, unsigned *nreads, unsigned *ndefs)
{
	if (o->kind == PO_REG && o->reg >= 0) {
		if (dest)
			ndefs[o->reg]++;
		else
			nreads[o->reg]++;
	} else if (o->kind == PO_ADDR && !o->base_is_sym && o->name && o->reg >= 0) {
		nreads[o->reg]++;        /* an address register is read even in a destination */
	}
	for (unsigned i = 0; i < o->nelems; i++)
		op_reads(&o->elems[i], dest && o->kind != PO_ADDR, nreads, ndefs);
}

/* Counts, per register of f, its reads and its definitions. */
static void count_regs(const struct ptx_func *f, unsigned *nreads, unsigned *ndefs)
{
	memset(nreads, 0, (f->nregs ? f->nregs : 1) * sizeof *nreads);
	memset(ndefs, 0, (f->nregs ? f->nregs : 1) * sizeof *ndefs);
	for (unsigned i = 0; i < f->ninstrs; i++) {
		const struct ptx_instr *in = &f->instrs[i];
		if (in->guard && in->guard_reg >= 0)
			nreads[in->guard_reg]++;
		bool d = !atom_no_dest(in->opcode);
		for (unsigned k = 0; k < in->nops; k++)
			op_reads(&in->ops[k], d && k == 0, nreads, ndefs);
	}
}

/* ---- the compare-and-swap loop ---------------------------------------------------- */

static bool is_reg(const struct ptx_operand *o)
{
	return o->kind == PO_REG && o->reg >= 0;
}

static bool plain(const struct ptx_instr *in, const char *opcode, unsigned nops)
{
	return !strcmp(in->opcode, opcode) && !in->guard && in->nops == nops;
}

/* mov.bW d, s with register operands. */
static bool is_mov(const struct ptx_instr *in, unsigned w)
{
	return plain(in, "mov", 2) && ptx_type_bits(in->type) == w && !ptx_type_is_float(in->type) &&
	       is_reg(&in->ops[0]) && is_reg(&in->ops[1]);
}

/* Only these modifiers (besides the type and those in extra). */
static bool mods_only(const struct ptx_instr *in, const char *const *extra)
{
	for (unsigned i = 0; i < in->nmods; i++) {
		const char *m = in->mods[i];
		if (ptx_type_from_name(m) == in->type)
			continue;
		bool ok = false;
		for (unsigned k = 0; extra[k] && !ok; k++)
			ok = !strcmp(m, extra[k]);
		if (!ok)
			return false;
	}
	return true;
}

struct casloop {
	int R, F, G, N, D, P;            /* registers */
	const struct ptx_operand *x;     /* the operand combined with the contents */
	const char *op;                  /* "max", "min", "add" */
	unsigned w;                      /* 32 or 64 */
	int guess;                       /* the instruction defining R outside, or -1 */
};

/* Does the loop of nvcc's idiom start at instruction s?  Fills c. */
static bool match_loop(const struct ptx_func *f, unsigned s, struct casloop *c)
{
	static const char *const fmods[] = { "ftz", "rn", NULL };
	static const char *const amods[] = { "global", "shared", "cas", "relaxed", "acquire", "release",
	                                     "acq_rel", "sc", "cta", "gpu", "sys", NULL };
	static const char *const smods[] = { "ne", NULL };
	if (s + 7 > f->ninstrs)
		return false;
	const struct ptx_instr *i0 = &f->instrs[s], *i1 = i0 + 1, *i2 = i0 + 2, *i3 = i0 + 3,
	                       *i4 = i0 + 4, *i5 = i0 + 5, *i6 = i0 + 6;
	/* mov.bW %F, %R */
	c->w = ptx_type_bits(i0->type);
	if ((c->w != 32 && c->w != 64) || !is_mov(i0, c->w))
		return false;
	c->F = i0->ops[0].reg;
	c->R = i0->ops[1].reg;
	/* max.fW %G, %X, %F (either order) */
	c->op = i1->opcode;
	if ((strcmp(c->op, "max") && strcmp(c->op, "min") && strcmp(c->op, "add")) || !plain(i1, c->op, 3) ||
	    i1->type != (c->w == 32 ? PT_F32 : PT_F64) || !mods_only(i1, fmods) || !is_reg(&i1->ops[0]))
		return false;
	if (!strcmp(c->op, "add") && (ptx_has_mod(i1, "ftz") && c->w == 64))
		return false;
	c->G = i1->ops[0].reg;
	if (is_reg(&i1->ops[2]) && i1->ops[2].reg == c->F)
		c->x = &i1->ops[1];
	else if (is_reg(&i1->ops[1]) && i1->ops[1].reg == c->F)
		c->x = &i1->ops[2];
	else
		return false;
	if (!(is_reg(c->x) || c->x->kind == PO_FIMM))
		return false;
	/* mov.bW %N, %G */
	if (!is_mov(i2, c->w) || i2->ops[1].reg != c->G)
		return false;
	c->N = i2->ops[0].reg;
	/* atom.SPACE.cas.bW %D, [%a], %R, %N */
	if (!plain(i3, "atom", 4) || !ptx_has_mod(i3, "cas") || ptx_type_bits(i3->type) != c->w ||
	    ptx_type_is_float(i3->type) || !mods_only(i3, amods) || !is_reg(&i3->ops[0]) ||
	    i3->ops[1].kind != PO_ADDR || !is_reg(&i3->ops[2]) || i3->ops[2].reg != c->R ||
	    !is_reg(&i3->ops[3]) || i3->ops[3].reg != c->N)
		return false;
	c->D = i3->ops[0].reg;
	/* setp.ne.TW %P, %R, %D (either order) */
	if (!plain(i4, "setp", 3) || ptx_type_bits(i4->type) != c->w || ptx_type_is_float(i4->type) ||
	    !mods_only(i4, smods) || !ptx_has_mod(i4, "ne") || !is_reg(&i4->ops[0]) ||
	    !is_reg(&i4->ops[1]) || !is_reg(&i4->ops[2]))
		return false;
	if (!((i4->ops[1].reg == c->R && i4->ops[2].reg == c->D) ||
	      (i4->ops[1].reg == c->D && i4->ops[2].reg == c->R)))
		return false;
	c->P = i4->ops[0].reg;
	/* mov %R, %D */
	if (!is_mov(i5, c->w) || i5->ops[0].reg != c->R || i5->ops[1].reg != c->D)
		return false;
	/* @%P bra $L (back to s) */
	if (strcmp(i6->opcode, "bra") || !i6->guard || i6->guard_neg || i6->guard_reg != c->P ||
	    i6->nops != 1 || i6->ops[0].kind != PO_LABEL || !i6->ops[0].name ||
	    ptx_label_target(f, i6->ops[0].name) != (int)s)
		return false;
	/* every register distinct; the address and x are not computed inside */
	int regs[6] = { c->R, c->F, c->G, c->N, c->D, c->P };
	for (int a = 0; a < 6; a++)
		for (int b = a + 1; b < 6; b++)
			if (regs[a] == regs[b])
				return false;
	for (int a = 0; a < 6; a++)
		if ((is_reg(c->x) && c->x->reg == regs[a]) ||
		    (!i3->ops[1].base_is_sym && i3->ops[1].reg == regs[a]))
			return false;
	/* nothing jumps into the loop's body */
	for (unsigned k = 0; k < f->nlabels; k++)
		if (f->labels[k].instr > s && f->labels[k].instr <= s + 6)
			return false;
	return true;
}

/* The registers of a matched loop are used by it alone; finds the guess. */
static bool loop_private(const struct ptx_func *f, unsigned s, struct casloop *c,
                         const unsigned *nreads, const unsigned *ndefs)
{
	if (nreads[c->F] != 1 || nreads[c->G] != 1 || nreads[c->N] != 1 || nreads[c->P] != 1 ||
	    nreads[c->D] != 2 || nreads[c->R] != 3)
		return false;
	if (ndefs[c->F] != 1 || ndefs[c->G] != 1 || ndefs[c->N] != 1 || ndefs[c->P] != 1 ||
	    ndefs[c->D] != 1 || ndefs[c->R] > 2)
		return false;
	c->guess = -1;
	if (ndefs[c->R] == 1)
		return true;
	for (unsigned i = 0; i < f->ninstrs; i++) {
		const struct ptx_instr *in = &f->instrs[i];
		if (i == s + 5 || atom_no_dest(in->opcode) || !in->nops || !is_reg(&in->ops[0]) ||
		    in->ops[0].reg != c->R)
			continue;
		/* a plain load or move, whose only effect is the dead register */
		if ((strcmp(in->opcode, "ld") && strcmp(in->opcode, "mov")) || ptx_instr_vec(in) != 1 ||
		    ptx_has_mod(in, "volatile"))
			return false;
		c->guess = (int)i;
	}
	return c->guess >= 0;
}

static void make_nop(struct ptx_instr *in)
{
	in->opcode = DX_OP_NOP;
	in->nmods = 0;
	in->nops = 0;
	in->guard = NULL;
	in->guard_reg = -1;
	in->type = in->type2 = PT_NONE;
}

static void rewrite_loop(struct dx_launch *L, struct ptx_instr *ins, unsigned s, const struct casloop *c)
{
	struct ptx_instr *at = &ins[s + 3];
	const char *space = ptx_has_mod(at, "global") ? "global" : ptx_has_mod(at, "shared") ? "shared" : NULL;
	const char **mods = ARENA_NEWN(&L->a, const char *, 3);
	unsigned nm = 0;
	if (space)
		mods[nm++] = space;
	mods[nm++] = c->op;
	mods[nm++] = c->w == 32 ? "f32" : "f64";
	struct ptx_operand *ops = ARENA_NEWN(&L->a, struct ptx_operand, 2);
	ops[0] = at->ops[1];
	ops[1] = *c->x;
	for (unsigned i = s; i <= s + 6; i++)
		if (i != s + 3)
			make_nop(&ins[i]);
	if (c->guess >= 0)
		make_nop(&ins[c->guess]);
	at->opcode = DX_OP_RED;
	at->mods = mods;
	at->nmods = nm;
	at->type = c->w == 32 ? PT_F32 : PT_F64;
	at->type2 = PT_NONE;
	at->ops = ops;
	at->nops = 2;
}

unsigned dx_atomic_prepare(struct dx_launch *L, struct dx_func *df)
{
	struct ptx_func *f = &df->f;
	struct ptx_instr *ins = (struct ptx_instr *)f->instrs;
	size_t nr = f->nregs ? f->nregs : 1;
	unsigned *nreads = xcalloc(nr, sizeof *nreads), *ndefs = xcalloc(nr, sizeof *ndefs);
	unsigned rolled = 0;
	bool any = false;
	for (unsigned i = 0; i < f->ninstrs && !any; i++)
		any = !strcmp(ins[i].opcode, "atom");
	if (any) {
		count_regs(f, nreads, ndefs);
		for (unsigned s = 0; s + 7 <= f->ninstrs; s++) {
			struct casloop c;
			if (!match_loop(f, s, &c) || !loop_private(f, s, &c, nreads, ndefs))
				continue;
			rewrite_loop(L, ins, s, &c);
			rolled++;
			count_regs(f, nreads, ndefs);
		}
	}
	unsigned char *used = arena_alloc(&L->a, f->ninstrs + 1);
	memset(used, 0, f->ninstrs + 1);
	for (unsigned i = 0; i < f->ninstrs; i++) {
		const struct ptx_instr *in = &ins[i];
		if (strcmp(in->opcode, "atom") || !in->nops)
			continue;
		const struct ptx_operand *d = &in->ops[0];
		used[i] = d->kind != PO_SINK && (!is_reg(d) || nreads[d->reg] > 0);
	}
	L->aused = used;
	free(nreads);
	free(ndefs);
	return rolled;
}

/* ---- execution ------------------------------------------------------------------- */

static enum sym_atom_op op_of(const struct ptx_instr *in)
{
	static const char *const names[] = { "add", "min", "max", "and", "or", "xor", "exch", "inc",
	                                     "dec", "cas", NULL };
	const char *m = ptx_instr_mod_of(in, names);
	return m ? sym_atom_parse(m) : SA_NONE;
}

/* The element type of the access, or ET_NONE where op and type do not go
 * together (or are not modelled: f16, bf16, vectors). */
static enum etype etype_of(enum sym_atom_op op, enum ptx_type t, bool real_operand)
{
	switch (op) {
	case SA_ADD:
		return t == PT_F32 ? ET_F32 : t == PT_F64 ? ET_F64 : t == PT_U32 ? ET_U32 :
		       t == PT_S32 ? ET_S32 : t == PT_U64 ? ET_U64 : ET_NONE;
	case SA_MIN:
	case SA_MAX:
		return t == PT_F32 ? ET_F32 : t == PT_F64 ? ET_F64 : t == PT_U32 ? ET_U32 :
		       t == PT_S32 ? ET_S32 : t == PT_U64 ? ET_U64 : t == PT_S64 ? ET_S64 : ET_NONE;
	case SA_AND:
	case SA_OR:
	case SA_XOR:
		return t == PT_B32 ? ET_U32 : t == PT_B64 ? ET_U64 : ET_NONE;
	case SA_EXCH:
	case SA_CAS:
		if (t == PT_B32)
			return real_operand ? ET_F32 : ET_U32;
		if (t == PT_B64)
			return real_operand ? ET_F64 : ET_U64;
		return ET_NONE;
	case SA_INC:
	case SA_DEC:
		return t == PT_U32 ? ET_U32 : ET_NONE;
	default:
		return ET_NONE;
	}
}

static void note_vin(struct dx_launch *L, uint32_t vin)
{
	for (size_t i = 0; i < L->atom_vins.len; i++)
		if (L->atom_vins.items[i] == vin)
			return;
	VEC_PUSH(L->atom_vins, vin);
}

int dx_atomic(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
              const struct expr *guard)
{
	struct ectx *cx = L->cx;
	bool is_atom = !strcmp(in->opcode, "atom");
	unsigned pc = (unsigned)(in - L->fn->instrs);
	unsigned first = is_atom ? 1 : 0;       /* the address operand */
	enum sym_atom_op op = op_of(in);
	unsigned want = first + (op == SA_CAS ? 3 : 2);
	const char *name = dx_instr_name(L, in);
	if (op == SA_NONE || in->nops != want || in->ops[first].kind != PO_ADDR || ptx_instr_vec(in) != 1)
		return dx_unsupported(L, in, arena_printf(&L->a, "instruction '%s'", name), NULL);
	if (is_atom && L->aused && pc < L->fn->ninstrs && L->aused[pc])
		return dx_unsupported(L, in, "atomic result used",
		                      "the old value returned by '%s' is used: it depends on the order "
		                      "of the threads", name);
	if (!is_atom && op == SA_CAS)
		return dx_unsupported(L, in, arena_printf(&L->a, "instruction '%s'", name), NULL);
	const struct ptx_operand *vop = &in->ops[want - 1];
	const struct ptx_operand *cop = op == SA_CAS ? &in->ops[first + 1] : NULL;
	const struct expr *raw = vop->kind == PO_REG ? dx_get_raw(L, b, in, vop) : NULL;
	enum etype et = etype_of(op, in->type, raw && raw->sort == SORT_REAL);
	if (et == ET_NONE)
		return dx_unsupported(L, in, arena_printf(&L->a, "instruction '%s'", name),
		                      "an atomic '%s' of a type dirigo does not model", name);
	/* domains: a thread guard narrows them; a data guard guards the value */
	bool data = guard && e_has_data(guard);
	const struct expr *dom = guard ? e_and(cx, b->dom, guard) : b->dom;
	const struct expr *tdom = data ? b->dom : dom;
	unsigned size = etype_size(et);
	bool shared = false;
	uint32_t vin = NO_VALUE, vout = NO_VALUE;
	const struct expr *off = NULL;
	int r = dx_atomic_target(L, b, in, &in->ops[first], tdom, size, data, &shared, &vin, &vout, &off);
	if (r != 0)
		return r < 0 ? -1 : 0;
	const struct expr *v = dx_get(L, b, in, vop, etype_sort(et));
	const struct expr *cmp = cop ? dx_get(L, b, in, cop, etype_sort(et)) : NULL;
	if (!v || (cop && !cmp))
		return -1;
	for (int k = 0; k < 2; k++) {
		const struct expr *x = k ? cmp : v;
		if (x && e_has_undef(x)) {
			int u = dx_undef_sink(L, in, tdom, x, "stores");
			if (u != 0)
				return u < 0 ? -1 : 0;
		}
	}
	if (shared) {
		dx_shared_atomic(L, b, in, dom, tdom, off, v, cmp, et, op);
		return 0;
	}
	struct sym_write w = {
		.value = vout, .dom = dom, .addr = off, .val = v, .et = et, .seq = b->seq++,
		.line = in->line, .src_line = in->loc_line, .op = (uint8_t)op, .cmp = cmp, .epoch = b->epoch,
	};
	VEC_PUSH(L->writes, w);
	note_vin(L, vin);
	dx_global_access(L, b, in, vin, vout, tdom, off, size, true, !data);
	/* the thread's own older plain stores are not forwarded past it */
	struct dx_store *st = ARENA_NEW(&L->a, struct dx_store);
	*st = (struct dx_store){ b->stores, vin, off, NULL, NULL, size };
	b->stores = st;
	return 0;
}

/* ---- after execution ------------------------------------------------------------- */

struct scan { const struct dx_launch *L; bool hit; uint32_t vin; };

static const struct expr *scan_leaf(struct ectx *cx, const struct expr *e, void *user)
{
	struct scan *s = user;
	(void)cx;
	if (e->op != EOP_LOAD || SYM_IS_SHARED_SPACE(e->space))
		return NULL;
	/* a load of a buffer the launch stores to names it through its entry (gread.c) */
	uint32_t v = SYM_IS_GREAD_SPACE(e->space) ? dx_gread_vin(s->L, e) : e->space;
	for (size_t i = 0; i < s->L->atom_vins.len; i++)
		if (s->L->atom_vins.items[i] == v) {
			s->hit = true;
			s->vin = v;
		}
	return NULL;
}

static bool reads_atomic(struct dx_launch *L, const struct expr *e, uint32_t *vin)
{
	struct scan s = { L, false, NO_VALUE };
	if (e)
		e_subst(L->cx, e, scan_leaf, &s);
	*vin = s.vin;
	return s.hit;
}

int dx_atomic_finish(struct dx_launch *L)
{
	if (!L->atom_vins.len)
		return 0;
	dx_global_race_check(L);
	uint32_t nsh;
	uint64_t bytes;
	const struct sym_shwrite *sh = dx_shared_writes(L, &nsh, &bytes);
	bool hit = false;
	uint32_t vin = NO_VALUE;
	for (size_t i = 0; i < L->writes.len && !hit; i++) {
		const struct sym_write *w = &L->writes.items[i];
		hit = reads_atomic(L, w->dom, &vin) || reads_atomic(L, w->val, &vin) || reads_atomic(L, w->cmp, &vin);
	}
	for (uint32_t i = 0; i < nsh && !hit; i++)
		hit = reads_atomic(L, sh[i].dom, &vin) || reads_atomic(L, sh[i].val, &vin) ||
		      reads_atomic(L, sh[i].cmp, &vin);
	if (!hit)
		return 0;
	return dx_unsupported(L, NULL, "read of an atomic target",
	                      "the launch reads a buffer it updates atomically (%s): what a "
	                      "read sees depends on the order of the threads", dx_value_name(L, vin));
}
