/*
 * report.c: the report for people: the verdict, every finding (class,
 * kernel, PTX and source lines, thread, message), every location that
 * reads never-written memory, and every witness with the kernels that
 * wrote the location, its inputs, both programs' values in float32 and
 * float64, the difference, the tolerance and whether replay confirmed it.
 */
#include "dreplay.h"

#define MAX_INPUTS_LISTED 20

static const char *prog_name(const struct sym_state *st, uint32_t p)
{
	return p < 2 && st->obl.names[p] ? st->obl.names[p] : p ? "opt" : "ref";
}

static void output_name(FILE *f, const struct sym_state *st, uint32_t o)
{
	const struct obl_output *out = &st->obl.outputs.items[o];
	fprintf(f, "output %u", o);
	if (out->name)
		fprintf(f, " (%s)", out->name);
}

static void finding(FILE *f, const struct sym_state *st, size_t i, const struct sym_finding *x)
{
	if (x->launch == UINT32_MAX)     /* dmerge's: no launch (shape-mismatch) */
		fprintf(f, "finding %zu: %s in %s (%s)\n", i + 1, x->cls, x->kernel,
		        prog_name(st, x->prog));
	else
		fprintf(f, "finding %zu: %s in kernel %s (%s, launch %u)\n", i + 1, x->cls, x->kernel,
		        prog_name(st, x->prog), x->launch);
	if (x->line || x->src_file) {
		fprintf(f, "  at");
		if (x->line)
			fprintf(f, " PTX line %u", x->line);
		if (x->src_file)
			fprintf(f, "%s %s:%u", x->line ? "," : "", x->src_file, x->src_line);
		fprintf(f, "\n");
	}
	if (x->has_thread) {
		fprintf(f, "  thread (%u,%u,%u) of block (%u,%u,%u)", x->tid[0], x->tid[1], x->tid[2],
		        x->ctaid[0], x->ctaid[1], x->ctaid[2]);
		if (x->has_thread2)
			fprintf(f, " and thread (%u,%u,%u) of block (%u,%u,%u)", x->tid2[0], x->tid2[1],
			        x->tid2[2], x->ctaid2[0], x->ctaid2[1], x->ctaid2[2]);
		fprintf(f, "\n");
	}
	if (x->has_addr && x->value != NO_VALUE)
		fprintf(f, "  value %u, byte offset %lld\n", x->value, (long long)x->off);
	fprintf(f, "  %s\n", x->message);
}

static void witness(FILE *f, const struct report_data *d, size_t i, const struct replayed *rp)
{
	const struct sym_state *st = d->st;
	const struct vd_witness *w = &rp->w;
	fprintf(f, "witness %zu: ", i + 1);
	output_name(f, st, w->output);
	fprintf(f, ", element %llu (byte %llu, %s)\n", (unsigned long long)w->index,
	        (unsigned long long)w->off, etype_name(w->et));
	fprintf(f, "  written by:");
	for (int p = 0; p < 2; p++) {
		uint32_t l = rp->writer[p];
		fprintf(f, "%s %s ", p ? "," : "", prog_name(st, (uint32_t)p));
		if (l == NO_VALUE)
			fprintf(f, "no kernel");
		else
			fprintf(f, "launch %u (%s)", l, st->obl.launches.items[l].kernel);
	}
	if (rp->site[0].line || rp->site[1].line) {
		fprintf(f, "\n  stored at:");
		for (int p = 0; p < 2; p++) {
			const struct store_site *s = &rp->site[p];
			fprintf(f, "%s %s ", p ? "," : "", prog_name(st, (uint32_t)p));
			if (!s->line)
				fprintf(f, "unknown");
			else if (s->src_file)
				fprintf(f, "PTX line %u (%s:%u)", s->line, s->src_file, s->src_line);
			else
				fprintf(f, "PTX line %u", s->line);
		}
	}
	fprintf(f, "\n  inputs:");
	if (!w->ninputs)
		fprintf(f, " none");
	for (uint32_t k = 0; k < w->ninputs && k < MAX_INPUTS_LISTED; k++) {
		const struct vd_input *in = &w->inputs[k];
		const char *name = in->input < st->obl.inputs.len ? st->obl.inputs.items[in->input].name : NULL;
		fprintf(f, "%s ", k ? "," : "");
		if (name)
			fprintf(f, "%s", name);
		else
			fprintf(f, "input %u", in->input);
		fprintf(f, "[%llu] = %.9g", (unsigned long long)(in->off / etype_size(in->et)), in->value);
	}
	if (w->ninputs > MAX_INPUTS_LISTED)
		fprintf(f, ", ... and %u more", w->ninputs - MAX_INPUTS_LISTED);
	fprintf(f, "\n");
	const struct rp_replay *r = &rp->r;
	if (r->message && !r->ptx_ran && r->shown != RS_MODEL_ONLY) {
		fprintf(f, "  solver: ref %.9g, opt %.9g\n  replay failed: %s\n  NOT CONFIRMED\n",
		        w->ref, w->opt, r->message);
		return;
	}
	fprintf(f, "  %s: f32 %.9g, f64 %.17g\n", prog_name(st, 0), r->ref_f32, r->ref_f64);
	fprintf(f, "  %s: f32 %.9g, f64 %.17g\n", prog_name(st, 1), r->opt_f32, r->opt_f64);
	fprintf(f, "  difference %.9g, tolerance %.9g (atol %g + rtol %g * |ref|)\n", r->diff, r->tol,
	        d->atol, d->rtol);
	if (r->ptx_ran)
		fprintf(f, "  programs run on the witness (PTX interpreter, float32): %s %.9g, %s %.9g\n",
		        prog_name(st, 0), r->ref_ptx, prog_name(st, 1), r->opt_ptx);
	else if (r->ptx_error)
		fprintf(f, "  programs not run on the witness: %s\n", r->ptx_error);
	if (r->message && r->shown != RS_MODEL_ONLY)
		fprintf(f, "  note: %s\n", r->message);
	fprintf(f, "  %s\n", r->confirmed ? "CONFIRMED" :
	        r->shown == RS_MODEL_ONLY ? "NOT CONFIRMED (a difference in the model only)" : "NOT CONFIRMED");
}

void report_write(FILE *f, const struct report_data *d)
{
	const struct sym_state *st = d->st;
	fprintf(f, "dirigo report: %s (reference) vs %s (optimized)\n", prog_name(st, 0), prog_name(st, 1));
	fprintf(f, "verdict: %s: %s\n", verdict_result_name(d->summary->result),
	        d->summary->message ? d->summary->message : "");
	fprintf(f, "dcheck: %s, %llu locations checked (%llu equal, %llu within tolerance, %llu differ, "
	        "%llu unknown, %llu unsupported, %llu uninitialised)\n",
	        verdict_result_name(d->verdict->result), (unsigned long long)d->verdict->checked,
	        (unsigned long long)d->verdict->equal, (unsigned long long)d->verdict->within_tol,
	        (unsigned long long)d->verdict->differ, (unsigned long long)d->verdict->unknown,
	        (unsigned long long)d->verdict->unsupported, (unsigned long long)d->verdict->uninit);
	for (size_t i = 0; i < st->findings.len; i++) {
		fprintf(f, "\n");
		finding(f, st, i, &st->findings.items[i]);
	}
	for (size_t i = 0; i < d->nuninit; i++) {
		const struct vd_location *l = &d->uninit[i];
		fprintf(f, "\nuninit-output: ");
		output_name(f, st, l->output);
		fprintf(f, ", element %llu (byte %llu) reads never-written memory\n  %s\n",
		        (unsigned long long)l->index, (unsigned long long)l->off, l->detail ? l->detail : "");
	}
	for (size_t i = 0; i < d->nrep; i++) {
		fprintf(f, "\n");
		witness(f, d, i, &d->rep[i]);
	}
}
