/*
 * check.c: one output location (paper 3.4): resolve both programs back to
 * the inputs, then decide e_ref == e_opt by structure (hash-consing makes
 * equal expressions one pointer), by a numeric screen, or by the solver.
 *
 * Before the screen and the solver, both expressions are normalised
 * (axioms.h: sound identities, the chosen approximation axioms; then
 * canon.h: sums, products, max and min in canonical form) into a
 * context of the location's own, so that what follows depends on the
 * location alone, not on what this worker resolved before: results are
 * the same whatever the number of workers and whichever worker checks
 * the location.  For the same reason the equivalence query runs in a
 * solver (a Z3 context) made for the location.
 * Solver limits are resource limits (--smt-rlimit), the same on any
 * machine; the wall clock (the budget) only ever makes a location
 * "timeout", never another result.
 */
#include "libcommon/axioms.h"
#include "engine/canon.h"
#include "engine/guard.h"
#include "dcheck.h"

#include <math.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A sentence for a location that cannot be compared, or NULL. */
static const char *problem(const struct checker *c, int prog, const struct resolve_info *in,
                           struct arena *a, enum loc_result *res)
{
	const struct obligation *ob = &c->st->obl;
	const char *pname = ob->names[prog] ? ob->names[prog] : prog ? "opt" : "ref";
	if (in->flags & RI_UNSUPPORTED) {
		*res = LR_UNSUPPORTED;
		return arena_printf(a, "%s: %s", pname, in->reason);
	}
	if (in->flags & RI_TIMEOUT) {
		*res = LR_TIMEOUT;
		return arena_printf(a, "%s: timeout: %s", pname, in->doing);
	}
	if (in->flags & RI_RACE) {
		*res = LR_UNKNOWN;
		return arena_printf(a, "%s: race in launch %u (%s): threads (%u,%u,%u) of block (%u,%u,%u) "
		                    "and (%u,%u,%u) of block (%u,%u,%u) touch value %u byte %llu in an order "
		                    "nothing fixes (stores of different values, a plain store beside atomics, "
		                    "or a load beside another thread's store)",
		                    pname, in->race_launch,
		                    ob->launches.items[in->race_launch].kernel,
		                    in->race_tid[0][0], in->race_tid[0][1], in->race_tid[0][2],
		                    in->race_ctaid[0][0], in->race_ctaid[0][1], in->race_ctaid[0][2],
		                    in->race_tid[1][0], in->race_tid[1][1], in->race_tid[1][2],
		                    in->race_ctaid[1][0], in->race_ctaid[1][1], in->race_ctaid[1][2],
		                    in->race_value, (unsigned long long)in->race_off);
	}
	if (in->flags & (RI_TOO_BIG | RI_RANDOM)) {
		*res = LR_UNKNOWN;
		return arena_printf(a, "%s: %s", pname, in->reason);
	}
	if ((in->flags & RI_UNINIT) && SYM_IS_SHARED_SPACE(in->uninit_value)) {
		uint32_t l = SYM_SHARED_LAUNCH(in->uninit_value);
		*res = LR_UNINIT;
		return arena_printf(a, "%s: uninit-shared: reads shared memory no thread of its block wrote: "
		                    "launch %u (%s) shared byte %llu", pname, l,
		                    l < ob->launches.len ? ob->launches.items[l].kernel : "?",
		                    (unsigned long long)in->uninit_off);
	}
	if (in->flags & RI_UNINIT) {
		const struct obl_value *v = &ob->values.items[in->uninit_value];
		*res = LR_UNINIT;
		return arena_printf(a, "%s: reads memory never written: buffer %u (value %u) byte %llu",
		                    pname, v->buf, in->uninit_value, (unsigned long long)in->uninit_off);
	}
	if (in->flags & RI_UNDEF) {
		*res = LR_UNKNOWN;
		return arena_printf(a, "%s: the value is undefined (see dexec's findings)", pname);
	}
	return NULL;
}

#define OPAQUE_RLIMIT 1000000ull  /* solver resource units for a location both of whose programs hold opaque values */

/* A sentence naming the first opaque value (dexec's table of origins) in
 * program prog's expression e. */
static const char *opaque_detail(const struct checker *c, int prog, const struct expr *e, struct arena *a)
{
	const struct obligation *ob = &c->st->obl;
	const char *pname = ob->names[prog] ? ob->names[prog] : prog ? "opt" : "ref";
	const struct expr *o = e_first_opaque(e);
	uint64_t tag = o ? EOPQ_TAGOF(o->u) : 0;
	uint32_t l = SYM_OPAQUE_LAUNCH(tag);
	const struct sym_writes *ws = tag && c->st->by_launch && l < ob->launches.len ? c->st->by_launch[l] : NULL;
	const struct sym_opaque *q = ws ? sym_opaque_of(ws, o) : NULL;
	if (ws && SYM_OPAQUE_IS_STORE(tag)) {
		/* the bits a store wrote, read with another type */
		uint32_t line = (uint32_t)tag & 0x7fffffffu, sl = 0;
		const char *stored = "?";
		for (uint32_t i = 0; i < ws->nwrites; i++)
			if (ws->writes[i].line == line) {
				sl = ws->writes[i].src_line;
				stored = etype_name(ws->writes[i].et);
			}
		bool as_float = EOPQ_KIND(o->u) == EOPQ_FLOAT;
		return arena_printf(a, "%s: depends on an opaque value: launch %u (%s), the bits stored as %s at "
		                    "PTX line %u%s, read as %s", pname, l, ob->launches.items[l].kernel, stored, line,
		                    sl ? arena_printf(a, " (source line %u)", sl) : "",
		                    as_float ? etype_name(EOPQ_FT(o->u)) : "an integer");
	}
	if (!q)
		return arena_printf(a, "%s: depends on the bits of a float used as an integer", pname);
	const char *slash = q->src_file ? strrchr(q->src_file, '/') : NULL;
	const char *src = q->src_file ? arena_printf(a, ", %s:%u", slash ? slash + 1 : q->src_file, q->src_line) : "";
	return arena_printf(a, "%s: depends on an opaque value: launch %u (%s), %s at PTX line %u%s: %s", pname, l,
	                    ob->launches.items[l].kernel, q->what, q->line, src, q->instr);
}

static void add_kernel(const struct checker *c, int prog, uint32_t launch, struct vd_witness *w,
                       struct arena *a)
{
	if (launch == NO_VALUE)
		return;
	if (!w->kernels)
		w->kernels = ARENA_NEWN(a, struct vd_kernel, 2);
	/* copied: the worker's state may be gone when the record is written */
	w->kernels[w->nkernels++] = (struct vd_kernel){ (uint32_t)prog, launch,
	                                                arena_strdup(a, c->st->obl.launches.items[launch].kernel) };
}

/* e normalised in place, into *lc (a context of the location's own,
 * see the top of this file) with *nz: the chosen axioms, then sums,
 * products, max and min in canonical form (canon.h), constants rounded
 * to floats unless the location (of type et) holds doubles.  The caller
 * frees both. */
static void normal_form(const struct checker *c, const struct expr *e[2], enum etype et,
                        struct ectx **lc, struct ax_norm **nz)
{
	*lc = ectx_new();
	*nz = ax_norm_new(*lc, c->o->axioms);
	e[0] = ax_norm(*nz, e[0]);
	e[1] = ax_norm(*nz, e[1]);
	canon_pair(*lc, e, CANON_STEPS_DEFAULT, et != ET_F64);
}

#define CLOSE_STEPS (16ull << 20)   /* pairs of nodes canon_close may compare */

/* The normal forms x[0] (ref) and x[1] (opt) of a location of type et
 * one expression, or (floats) one but for constants one float apart
 * (canon.h, canon_close), *why then saying which. */
static bool same_form(const struct expr *const x[2], enum etype et, struct arena *a, const char **why)
{
	double c0, c1;
	*why = NULL;
	if (x[0] == x[1])
		return true;
	if (et == ET_F64 || !canon_close(x[0], x[1], CLOSE_STEPS, &c0, &c1))
		return false;
	*why = arena_printf(a, "equal but for a constant the two programs round to neighbouring floats: "
	                    "ref %.9g, opt %.9g", c0, c1);
	return true;
}

/* The normal forms e[0] (ref) and e[1] (opt), in lc, one where the
 * reference's divisor is not 0, opt having a zero guard on it (guard.h),
 * *why then saying so. */
static bool equal_unguarded(struct ectx *lc, const struct expr *const e[2], enum etype et, struct arena *a,
                            const char **why)
{
	const struct expr *g, *x[2] = { e[0], guard_unguarded(lc, e[0], e[1], &g) };
	const char *close;
	if (!x[1] || !canon_pair(lc, x, CANON_STEPS_DEFAULT, et != ET_F64) || !same_form(x, et, a, &close))
		return false;
	*why = arena_printf(a, "equal wherever the reference's divisor is not 0; where it is 0 the reference "
	                    "divides by zero and the optimized program's guard (a test of it against 0) gives "
	                    "another value%s%s", close ? "; " : "", close ? close : "");
	return true;
}

/* e, resolved with the values both programs compute alike left as
 * unknowns (checker.ra, or checker.rb for a bridge), shown equal for
 * every value of them: then loc says so and the answer is true.  Only the normal form decides here (no
 * solver: a difference over unknowns that may never take the values
 * that show it is no witness, and a long solver query would cost what
 * the full check needs; tried, it cost a buggy VGG tail 26 s where the
 * full check's screen finds the bug in 0.1 s); anything else is left to
 * the full resolution. */
static bool equal_over_shared(struct checker *c, const struct expr *e[2], enum etype et, bool bridge,
                              struct arena *a, struct vd_location *loc)
{
	struct ectx *lc;
	struct ax_norm *nz;
	const struct expr *x[2] = { e[0], e[1] };
	const char *why;
	normal_form(c, x, et, &lc, &nz);
	bool eq = same_form(x, et, a, &why);
	ax_norm_free(nz);
	ectx_free(lc);
	if (!eq)
		return false;
	loc->result = LR_EQUAL;
	loc->how = LH_STRUCTURAL;
	loc->detail = arena_printf(a, "%s%sover values both programs compute by the same ops (value numbering), %s",
	                           why ? why : "", why ? ", " : "",
	                           bridge ? "taking the bridges before this one as equal, whatever they hold" :
	                                    "whatever they hold");
	return true;
}

/* A cut that is its output's own pair (dmerge(1), Bridges: the last
 * bridge of an output the last kernel makes): a difference there is
 * the output's. */
static bool same_pair(const struct obl_output *a, const struct obl_output *b)
{
	return a->value[0] == b->value[0] && a->value[1] == b->value[1] && a->off[0] == b->off[0] &&
	       a->off[1] == b->off[1] && a->bytes == b->bytes;
}

void check_location(struct checker *c, uint32_t output, uint64_t index, struct arena *a,
                    struct vd_location *loc, struct vd_witness *w, bool *has_witness)
{
	double t0 = now_ms();
	const struct obl_output *out = &c->st->obl.outputs.items[output];
	enum etype et = c->ets[output];
	uint64_t off = index * etype_size(et);
	memset(loc, 0, sizeof *loc);
	memset(w, 0, sizeof *w);
	*has_witness = false;
	loc->output = output;
	loc->index = index;
	loc->off = off;
	loc->et = et;
	loc->how = LH_NONE;
	loc->result = LR_UNKNOWN;

	struct resolve_info info[2];
	const struct expr *e[2];
	struct ectx *lc = NULL;
	struct ax_norm *nz = NULL;
	bool resolved = false;
	struct resolver *ra = out->bridge ? c->rb : c->ra;
	if (ra) {
		/* first stopping at the values both compute alike: where the
		 * location reads none of them the answer is the full one */
		bool clean = true, opaque = false;
		for (int p = 1; p >= 0 && clean; p--) {   /* the optimized program first, as below */
			e[p] = resolve_elem(ra, out->value[p], out->off[p] + off, et, &info[p]);
			clean = clean && e[p] && !info[p].flags;
			opaque = opaque || (e[p] && e_has_opaque(e[p]));
		}
		if (clean && opaque && equal_over_shared(c, e, et, out->bridge, a, loc))
			goto out;
		resolved = clean && !opaque;
	}
	/* the optimized program first: a read of memory no one wrote there
	 * is a bug whatever the reference holds, and the reference (torch
	 * ops to the last element) may take the whole budget to resolve */
	for (int p = 1; p >= 0 && !resolved; p--) {
		if (p == 0 && (info[1].flags & RI_UNINIT) && !(info[1].flags & RI_TIMEOUT)) {
			memset(&info[0], 0, sizeof info[0]);
			info[0].writer = NO_VALUE;
			e[0] = NULL;
			break;
		}
		e[p] = resolve_elem(c->r, out->value[p], out->off[p] + off, et, &info[p]);
	}
	/* the worst problem of either program decides; a random op's result
	 * may be what steers a read to never-written memory, so it comes
	 * before uninit */
	for (int p = 0; p < 2 && !loc->detail; p++)
		if (info[p].flags & (RI_UNSUPPORTED | RI_RANDOM))
			loc->detail = problem(c, p, &info[p], a, &loc->result);
	for (int p = 0; p < 2 && !loc->detail; p++)
		if ((info[p].flags & RI_UNINIT) && !(info[p].flags & RI_TIMEOUT))
			loc->detail = problem(c, p, &info[p], a, &loc->result);
	for (int p = 0; p < 2 && !loc->detail; p++)
		loc->detail = problem(c, p, &info[p], a, &loc->result);
	if (loc->detail)
		goto out;

	if (e[0] == e[1]) {
		loc->result = LR_EQUAL;
		loc->how = LH_STRUCTURAL;
		goto out;
	}
	/* An opaque value has no concrete meaning: no screen, no witness; only
	 * "equal (within tolerance) for every meaning of it" decides. */
	int opq = e_has_opaque(e[0]) ? 0 : e_has_opaque(e[1]) ? 1 : -1;
	/* the axioms, then sums, products, max and min in one form whatever
	 * their association; what still differs goes on, smaller */
	normal_form(c, e, et, &lc, &nz);
	if (same_form(e, et, a, &loc->detail)) {
		loc->result = LR_EQUAL;
		loc->how = LH_STRUCTURAL;
		goto out;
	}
	if (opq < 0 && equal_unguarded(lc, e, et, a, &loc->detail)) {
		loc->result = LR_EQUAL;
		loc->how = LH_STRUCTURAL;
		goto out;
	}
	for (int p = 0; p < 2; p++)
		if (e_has_undef(e[p])) {          /* an infinity no max or min absorbed */
			const char *const *nm = c->st->obl.names;
			loc->detail = arena_printf(a, "%s: the value is undefined (an infinite float constant "
			                           "that no max or min absorbs)", nm[p] ? nm[p] : p ? "opt" : "ref");
			goto out;
		}
	w->output = output;
	w->index = index;
	w->off = off;
	w->et = et;
	if (opq < 0 && screen(e[0], e[1], c->o, (uint64_t)output << 40 ^ index, a, w)) {
		loc->result = LR_DIFFER;
		loc->how = LH_SCREEN;
		*has_witness = true;
		goto witness;
	}
	/* an opaque value's witness could never be confirmed: no refinement */
	struct smt_equiv_opts eo = { c->o->atol, c->o->rtol, 100.0, opq >= 0 ? 0 : 8 };
	struct smt_witness sw;
	memset(&sw, 0, sizeof sw);
	loc->how = LH_SMT;
	enum smt_equiv_result er;
	if (opq >= 0 && !(e_has_opaque(e[0]) && e_has_opaque(e[1]))) {
		/* only one program holds an opaque value: equal for every meaning of
		 * it would need it to cancel, which the constructors already see */
		er = EQ_UNKNOWN;
	} else {
		/* a solver of the location's own: what a resource limit decides
		 * must not depend on the queries this worker made before; where
		 * both programs hold opaque values (the same trick, written two
		 * ways) a short try */
		uint64_t rl = c->o->smt_rlimit;
		if (opq >= 0 && (!rl || rl > OPAQUE_RLIMIT))
			rl = OPAQUE_RLIMIT;
		struct smt *fresh = smt_new(c->o->smt_timeout_ms, rl);
		smt_set_deadline(fresh, c->deadline);
		er = smt_equiv(fresh, e[1], e[0], &eo, a, &sw);
		smt_free(fresh);
	}
	if (opq >= 0 && er != EQ_EQUAL && er != EQ_WITHIN_TOL) {
		loc->result = LR_UNKNOWN;
		loc->opaque = true;
		loc->detail = opaque_detail(c, opq, opq ? e[1] : e[0], a);
		goto out;
	}
	switch (er) {
	case EQ_EQUAL:
		loc->result = LR_EQUAL;
		break;
	case EQ_WITHIN_TOL:
		loc->result = LR_WITHIN_TOL;
		break;
	case EQ_DIFFER:
		loc->result = LR_DIFFER;
		*has_witness = true;
		w->how = LH_SMT;
		w->ref = sw.b;
		w->opt = sw.a;
		w->inputs = ARENA_NEWN(a, struct vd_input, sw.ninputs + 1);
		for (unsigned i = 0; i < sw.ninputs; i++) {
			const struct expr *l = sw.inputs[i].leaf;
			if (l->op != EOP_INPUT)
				continue;
			w->inputs[w->ninputs++] = (struct vd_input){ l->space, l->off, (enum etype)l->et,
			                                             sw.inputs[i].value };
		}
		break;
	case EQ_UNCONFIRMED:
		loc->unconfirmed = true;
		loc->detail = "the solver found a difference it could not confirm";
		break;
	case EQ_UNKNOWN:
		loc->detail = "the solver gave up (resource limit, --smt-rlimit)";
		break;
	case EQ_TIMEOUT:
		loc->result = LR_TIMEOUT;
		loc->detail = "time ran out in the solver comparing the two programs";
		break;
	}
witness:
	if (*has_witness) {
		add_kernel(c, 0, info[0].writer, w, a);
		add_kernel(c, 1, info[1].writer, w, a);
		loc->detail = arena_printf(a, "ref %.9g, opt %.9g", w->ref, w->opt);
	}
out:
	if (out->tail_of != NO_VALUE && loc->result == LR_UNINIT) {
		/* a read of memory no one wrote is a bug wherever it is seen
		 * (the value is whatever the allocator left there) */
		loc->detail = arena_printf(a, "at %s of output %u: %s", out->bridge ? "this bridge" : "this cut",
		                           out->tail_of, loc->detail ? loc->detail : "?");
	} else if (out->tail_of != NO_VALUE && loc->result == LR_DIFFER &&
	           !same_pair(out, &c->st->obl.outputs.items[out->tail_of])) {
		/* a cut (dmerge(1), "Identical tails"): equal here means equal
		 * there, but the same ops after it may hide a difference */
		const struct obl_output *to = &c->st->obl.outputs.items[out->tail_of];
		if (out->bridge)
			loc->detail = arena_printf(a, "the programs differ at this bridge of output %u (%s): "
			                           "the optimized program's value %u against the reference's "
			                           "value %u, which the same ops read; those ops may hide the "
			                           "difference, so it is not reported as a bug (dmerge without "
			                           "--tails checks the output itself) (%s)", out->tail_of,
			                           to->name ? to->name : "?", out->value[1], out->value[0],
			                           loc->detail ? loc->detail : "?");
		else
			loc->detail = arena_printf(a, "the programs differ at this cut of output %u (%s), "
			                           "the tensor both hand to the same %u ops that make it (%s); "
			                           "those ops may hide the difference, so it is not reported as "
			                           "a bug (dmerge without --tails checks the output itself)",
			                           out->tail_of, to->name ? to->name : "?", out->tail_ops,
			                           loc->detail ? loc->detail : "?");
		loc->result = LR_UNKNOWN;
		*has_witness = false;
	}
	ax_norm_free(nz);
	ectx_free(lc);
	loc->ms = now_ms() - t0;
	loc->has_ms = c->o->timing;
}
