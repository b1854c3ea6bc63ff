/*
 * replay.c: confirm one witness by concrete evaluation, independent of the
 * solver's decision: both programs are resolved at the witness location
 * again and evaluated with IEEE float32 after every operation (as the GPU
 * computes) and in float64.  Inputs the witness does not name take their
 * recorded values when the trace kept them, else 0.
 */
#include "dreplay.h"

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

void replay_witness(struct resolver *r, const struct sym_state *st, const struct vd_witness *w,
                    double atol, double rtol, struct arena *a, struct replayed *out)
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
	const struct expr *e[2];
	for (int p = 0; p < 2; p++) {
		struct resolve_info info;
		e[p] = resolve_elem(r, o->value[p], o->off[p] + w->off, w->et, &info);
		out->writer[p] = info.writer;
		if (!e[p] || (info.flags & (RI_UNINIT | RI_UNDEF))) {
			rp->message = arena_printf(a, "%s: cannot resolve the location: %s",
			                           ob->names[p] ? ob->names[p] : p ? "opt" : "ref",
			                           e[p] ? "it reads never-written memory" : info.reason);
			return;
		}
	}
	struct inputs in = { w, ob };
	if (!eval(e[0], EM_F32, &in, &rp->ref_f32) || !eval(e[1], EM_F32, &in, &rp->opt_f32) ||
	    !eval(e[0], EM_F64, &in, &rp->ref_f64) || !eval(e[1], EM_F64, &in, &rp->opt_f64)) {
		rp->message = "cannot evaluate the location concretely";
		return;
	}
	rp->diff = fabs(rp->opt_f32 - rp->ref_f32);
	rp->tol = atol + rtol * fabs(rp->ref_f32);
	if (isnan(rp->ref_f32) || isnan(rp->opt_f32))
		rp->confirmed = isnan(rp->ref_f32) != isnan(rp->opt_f32);
	else if (isinf(rp->ref_f32) || isinf(rp->opt_f32))
		rp->confirmed = rp->ref_f32 != rp->opt_f32;
	else
		rp->confirmed = rp->diff > rp->tol;
}
