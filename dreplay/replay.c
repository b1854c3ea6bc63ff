/*
 * replay.c: confirm one witness by concrete execution, independent of the
 * solver's decision.  Two ways, both at the witness input (inputs the
 * witness does not name take their recorded values when the trace kept
 * them, else 0):
 *  - the location resolved again and evaluated in IEEE float32 after every
 *    operation (as the GPU computes) and in float64;
 *  - the programs run by the PTX interpreter (engine/concrete.c), which
 *    does not rely on the symbolic model: only what the location needs, or
 *    whole (confirm.c).  When they run, they decide whether the witness
 *    is confirmed.
 */
#include "engine/canon.h"
#include "dreplay.h"
#include "libcommon/deadline.h"
#include "libcommon/ptx/ptx.h"
#include "engine/slice.h"

#include <math.h>
#include <string.h>

struct inputs {
	const struct vd_witness *w;
	const struct obligation *ob;
};

static double recorded(const struct obl_input *in, uint64_t off, enum etype et)
{
	unsigned size = etype_size(et);
	if (!in->data || off > in->ndata || size > in->ndata - off)
		return 0;
	const unsigned char *p = (const unsigned char *)in->data + off;
	uint64_t u = 0;
	for (unsigned i = 0; i < size; i++)
		u |= (uint64_t)p[i] << (8 * i);
	switch (et) {
	case ET_F32: { float f; uint32_t b = (uint32_t)u; memcpy(&f, &b, 4); return f; }
	case ET_F64: { double d; memcpy(&d, &u, 8); return d; }
	case ET_BF16: { float f; uint32_t b = (uint32_t)u << 16; memcpy(&f, &b, 4); return f; }
	case ET_F16: {
		unsigned ex = (u >> 10) & 0x1f, man = u & 0x3ff;
		double v = ex == 0 ? ldexp(man, -24) : ex == 31 ? (man ? NAN : INFINITY)
		                                                 : ldexp(man | 0x400, (int)ex - 25);
		return (u & 0x8000) ? -v : v;
	}
	case ET_S8: return (int8_t)u;
	case ET_S16: return (int16_t)u;
	case ET_S32: return (int32_t)u;
	case ET_S64: return (double)(int64_t)u;
	default: return (double)u;
	}
}

static bool input_val(const struct expr *leaf, struct evalue *out, void *user)
{
	const struct inputs *in = user;
	if (leaf->op != EOP_INPUT || leaf->space >= in->ob->inputs.len)
		return false;
	double v = recorded(&in->ob->inputs.items[leaf->space], leaf->off, (enum etype)leaf->et);
	for (uint32_t i = 0; i < in->w->ninputs; i++)
		if (in->w->inputs[i].input == leaf->space && in->w->inputs[i].off == leaf->off) {
			v = in->w->inputs[i].value;
			break;
		}
	memset(out, 0, sizeof *out);
	if (etype_is_float((enum etype)leaf->et))
		out->r = v;
	else
		out->u = (uint64_t)(int64_t)v;
	return true;
}

static bool eval(const struct expr *e, enum emode m, struct inputs *in, double *x)
{
	struct evalue v;
	if (!e_eval(e, m, input_val, in, &v) || v.undef)
		return false;
	switch (SORT_KIND(e->sort)) {
	case SK_REAL: *x = (double)v.r; break;
	case SK_BOOL: *x = v.b; break;
	default: *x = (double)v.u; break;
	}
	return true;
}

/* The bytes of every shared input for a run at the witness (dreplay.h). */
uint8_t **witness_inputs(const struct obligation *ob, const struct vd_witness *w,
                                struct arena *a, const char **err)
{
	uint8_t **in = ARENA_NEWN(a, uint8_t *, ob->inputs.len + 1);
	for (size_t i = 0; i < ob->inputs.len; i++) {
		const struct obl_input *x = &ob->inputs.items[i];
		in[i] = arena_alloc(a, x->bytes ? x->bytes : 1);
		if (x->data)
			memcpy(in[i], x->data, x->bytes);
	}
	for (uint32_t k = 0; k < w->ninputs; k++) {
		const struct vd_input *v = &w->inputs[k];
		unsigned size = etype_size(v->et);
		if (v->input >= ob->inputs.len || v->off > ob->inputs.items[v->input].bytes ||
		    size > ob->inputs.items[v->input].bytes - v->off) {
			*err = "a witness element lies outside its input";
			return NULL;
		}
		union { float f; double d; int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; } b;
		switch (v->et) {
		case ET_F32: b.f = (float)v->value; break;
		case ET_F64: b.d = v->value; break;
		case ET_S32: b.i32 = (int32_t)v->value; break;
		case ET_U32: b.u32 = (uint32_t)v->value; break;
		case ET_S64: b.i64 = (int64_t)v->value; break;
		case ET_U64: b.u64 = (uint64_t)v->value; break;
		default:
			*err = "a witness element of a type the replay cannot write";
			return NULL;
		}
		memcpy(in[v->input] + v->off, &b, size);
	}
	return in;
}

static bool differs(double ref, double opt, double tol)
{
	if (isnan(ref) || isnan(opt))
		return isnan(ref) != isnan(opt);
	if (isinf(ref) || isinf(opt))
		return ref != opt;
	return fabs(opt - ref) > tol;
}

/* ---- the store that wrote the location ----------------------------------- */

#define MAX_THREAD_EVALS (UINT64_C(1) << 20)

struct thread { uint32_t tid[3], ctaid[3]; };

static bool thread_val(const struct expr *leaf, struct evalue *out, void *user)
{
	const struct thread *t = user;
	memset(out, 0, sizeof *out);
	if (leaf->op == EOP_TID && leaf->u < 3)
		out->u = t->tid[leaf->u];
	else if (leaf->op == EOP_CTAID && leaf->u < 3)
		out->u = t->ctaid[leaf->u];
	else
		return false;
	return true;
}

/* True when some thread of launch l performs write x at byte off; false
 * also when that cannot be told without data (then *unknown). */
static bool performs(const struct sym_state *st, uint32_t launch, const struct sym_write *x,
                     uint64_t off, uint64_t *budget, double deadline, bool *unknown)
{
	const struct obl_launch *l = &st->obl.launches.items[launch];
	if ((x->dom->flags | x->addr->flags) & (EXPR_F_DATA | EXPR_F_UNDEF)) {
		*unknown = true;
		return false;
	}
	int hit = slice_store_hits(st, launch, x, off);    /* affine: no enumeration */
	if (hit >= 0)
		return hit > 0;
	uint64_t nthreads = l->grid[0] * l->grid[1] * l->grid[2] * l->block[0] * l->block[1] * l->block[2];
	if (nthreads > *budget) {
		*unknown = true;
		return false;
	}
	*budget -= nthreads;
	struct thread t;
	for (uint64_t i = 0; i < nthreads; i++) {
		if (!(i & 4095) && deadline_passed(deadline)) {
			*unknown = true;         /* only the report's source line depends on it */
			return false;
		}
		uint64_t k = i;
		for (int d = 0; d < 3; d++) {
			t.tid[d] = (uint32_t)(k % l->block[d]);
			k /= l->block[d];
		}
		for (int d = 0; d < 3; d++) {
			t.ctaid[d] = (uint32_t)(k % l->grid[d]);
			k /= l->grid[d];
		}
		struct evalue dom, addr;
		if (!e_eval(x->dom, EM_F32, thread_val, &t, &dom) || !e_eval(x->addr, EM_F32, thread_val, &t, &addr)) {
			*unknown = true;
			return false;
		}
		if (!dom.undef && !addr.undef && dom.b && addr.u <= off && off - addr.u < etype_size(x->et))
			return true;
	}
	return false;
}

/* The store of launch 'launch' that wrote byte off of value 'value': the
 * write of the launch that some thread performs there (the last in program
 * order when several do), found by inverting its address (slice.h) or by
 * running the threads' address expressions; when that cannot be told (addresses that depend on data,
 * huge grids, a location reached through a copy), the last store of the
 * launch to the value, or to anything. */
static void locate_store(const struct sym_state *st, uint32_t launch, uint32_t value, uint64_t off,
                         double deadline, struct arena *a, struct store_site *site)
{
	const struct sym_writes *ws = launch < st->obl.launches.len ? st->by_launch[launch] : NULL;
	if (!ws)
		return;
	const struct obl_launch *l = &st->obl.launches.items[launch];
	const struct sym_write *best = NULL, *last_value = NULL, *last = NULL;
	uint64_t budget = MAX_THREAD_EVALS;
	for (uint32_t i = 0; i < ws->nwrites; i++) {
		const struct sym_write *x = &ws->writes[i];
		if (!last || x->seq >= last->seq)
			last = x;
		if (x->value != value)
			continue;
		if (!last_value || x->seq >= last_value->seq)
			last_value = x;
		bool unknown = false;
		if (performs(st, launch, x, off, &budget, deadline, &unknown) && (!best || x->seq >= best->seq))
			best = x;
	}
	if (!best)
		best = last_value ? last_value : last;
	if (!best)
		return;
	site->line = best->line;
	site->module = l->module;
	site->src_line = best->src_line;
	/* the .cu file: the .file of the module that the store's .loc names */
	if (!best->src_line || l->module >= st->obl.modules.len)
		return;
	const struct obl_module *om = &st->obl.modules.items[l->module];
	struct arena tmp;
	arena_init(&tmp);
	struct ptx_module *m = ptx_parse(&tmp, om->ptx, om->ptxlen, NULL, 0);
	for (unsigned fi = 0; m && fi < m->nfuncs && !site->src_file; fi++)
		for (unsigned k = 0; k < m->funcs[fi].ninstrs; k++) {
			const struct ptx_instr *in = &m->funcs[fi].instrs[k];
			if (in->line == best->line) {
				if (in->loc_file < m->nfiles && m->files[in->loc_file])
					site->src_file = arena_strdup(a, m->files[in->loc_file]);
				break;
			}
		}
	arena_release(&tmp);
}

void replay_witness(struct resolver *r, const struct sym_state *st, const struct vd_witness *w,
                    double atol, double rtol, const struct confirm_opts *co, struct arena *a,
                    struct replayed *out)
{
	const struct obligation *ob = &st->obl;
	memset(out, 0, sizeof *out);
	out->w = *w;
	out->writer[0] = out->writer[1] = NO_VALUE;
	struct rp_replay *rp = &out->r;
	rp->output = w->output;
	rp->index = w->index;
	rp->off = w->off;
	const struct obl_output *o = &ob->outputs.items[w->output];
	const char *err = NULL;
	out->inputs = witness_inputs(ob, w, a, &err);
	if (!out->inputs)
		rp->ptx_error = err;
	const struct expr *e[2];
	for (int p = 0; p < 2; p++) {
		struct resolve_info info;
		e[p] = resolve_elem(r, o->value[p], o->off[p] + w->off, w->et, &info);
		out->writer[p] = info.writer;
		if (info.writer != NO_VALUE)
			locate_store(st, info.writer, o->value[p], o->off[p] + w->off, co->deadline, a,
			             &out->site[p]);
		if (info.flags & RI_TIMEOUT) {
			rp->timeout = true;
			rp->message = arena_printf(a, "%s: %s", ob->names[p] ? ob->names[p] : p ? "opt" : "ref",
			                           info.doing);
			return;
		}
		if (!e[p] || (info.flags & (RI_UNINIT | RI_UNDEF))) {
			rp->message = arena_printf(a, "%s: cannot resolve the location: %s",
			                           ob->names[p] ? ob->names[p] : p ? "opt" : "ref",
			                           e[p] ? "it reads never-written memory" : info.reason);
			return;
		}
	}
	/* as dcheck compared them: an infinity a max or min absorbs is gone
	 * (canon.h); one that stays leaves the value undefined */
	canon_pair(st->cx, e, CANON_STEPS_DEFAULT, false);   /* exact constants: the values are computed */
	for (int p = 0; p < 2; p++)
		if (e_has_undef(e[p])) {
			rp->message = arena_printf(a, "%s: the value is undefined (an infinite float constant "
			                           "that no max or min absorbs)", ob->names[p] ? ob->names[p] : p ? "opt" : "ref");
			return;
		}
	struct inputs in = { w, ob };
	if (e_has_opaque(e[0]) || e_has_opaque(e[1])) {
		/* no value in the model: only a run of the programs can confirm */
		if (out->inputs)
			confirm_run(st, w, out->inputs, co, a, rp);
		if (rp->timeout)
			return;                  /* not confirmed: the run did not end */
		if (!rp->ptx_ran) {
			rp->message = "the location depends on an opaque value and the programs could not be run";
			return;
		}
		rp->ref_f32 = rp->ref_f64 = rp->ref_ptx;
		rp->opt_f32 = rp->opt_f64 = rp->opt_ptx;
		rp->diff = fabs(rp->opt_ptx - rp->ref_ptx);
		rp->tol = atol + rtol * fabs(rp->ref_ptx);
		rp->confirmed = differs(rp->ref_ptx, rp->opt_ptx, rp->tol);
		rp->message = "the location depends on an opaque value: the values are those of the programs' run";
		return;
	}
	if (!eval(e[0], EM_F32, &in, &rp->ref_f32) || !eval(e[1], EM_F32, &in, &rp->opt_f32) ||
	    !eval(e[0], EM_F64, &in, &rp->ref_f64) || !eval(e[1], EM_F64, &in, &rp->opt_f64)) {
		rp->message = "cannot evaluate the location concretely";
		return;
	}
	rp->diff = fabs(rp->opt_f32 - rp->ref_f32);
	rp->tol = atol + rtol * fabs(rp->ref_f32);
	bool model = differs(rp->ref_f32, rp->opt_f32, rp->tol);
	/* The programs themselves decide when they can be run: a witness the
	 * model confirms but the real kernels do not is not a bug. */
	if (out->inputs)
		confirm_run(st, w, out->inputs, co, a, rp);
	if (rp->timeout)
		return;                      /* not confirmed: the run did not end */
	if (rp->ptx_ran) {
		double tol = atol + rtol * fabs(rp->ref_ptx);
		rp->confirmed = differs(rp->ref_ptx, rp->opt_ptx, tol);
		rp->shown = rp->confirmed ? RS_PROGRAMS : RS_NONE;
		if (model && !rp->confirmed)
			rp->message = "the symbolic model differs here, but the PTX of the programs does not";
	} else {
		/* Only a run of both programs that shows the difference
		 * confirms a witness: the model evaluated again is the same
		 * model that made it. */
		rp->confirmed = false;
		rp->shown = model ? RS_MODEL_ONLY : RS_NONE;
		if (model)
			rp->message = arena_printf(a, "a difference in the model only: the programs could not be "
			                           "run on the witness (%s)",
			                           rp->ptx_error ? rp->ptx_error : "no reason given");
	}
	for (uint32_t k = 0; k < w->ninputs && !rp->message; k++) {
		const struct obl_input *x = w->inputs[k].input < ob->inputs.len ?
		                            &ob->inputs.items[w->inputs[k].input] : NULL;
		if (x && x->role && strcmp(x->role, "prefix") == 0)
			rp->message = arena_printf(a, "the witness sets input %u, an output of the common prefix "
			                           "dmerge trimmed; it is not mapped back to the programs' own "
			                           "inputs, so the programs were run on their recorded inputs",
			                           w->inputs[k].input);
	}
}
