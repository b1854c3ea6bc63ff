/*
 * run.c: dreplay over a verdict stream: pass every record through, gather
 * the obligation, write sets, findings, uninitialised locations, witnesses
 * and the verdict, replay every witness, append "replay" records and the
 * final "report", and write the report for people.  When the budget runs
 * out, the witness at work and those after it get replay records that say
 * "timeout", and the report says "timeout" unless a bug is already shown.
 */
#include "dreplay.h"

#include "libcommon/deadline.h"
#include "libcommon/diag.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* What dreplay writes; a rerun on its own output replaces them. */
static const char *const own_records[] = { "replay", "report", NULL };

struct gathered {
	VEC(struct vd_witness) witnesses;
	VEC(struct vd_location) uninit;
	struct vd_verdict verdict;
	bool have_verdict;
	struct vd_seen seen;                 /* locations and findings the stream holds */
	bool last_loc;                       /* the record before was a location: */
	struct vd_location prev;
};

/* Whether [off, off + size of et) lies in output 'output' of st; else a
 * message naming rec. */
static bool in_output(const struct record *rec, const struct sym_state *st, uint32_t output,
                      uint64_t off, enum etype et)
{
	if (output < st->obl.outputs.len && off <= st->obl.outputs.items[output].bytes &&
	    etype_size(et) <= st->obl.outputs.items[output].bytes - off)
		return true;
	if (output < st->obl.outputs.len)
		rec_error(rec, "location outside output %u (%llu bytes)", output,
		          (unsigned long long)st->obl.outputs.items[output].bytes);
	else
		rec_error(rec, "location outside output %u (the stream holds %zu outputs)", output,
		          st->obl.outputs.len);
	return false;
}

/* 1 taken, 0 not ours, -1 bad.  Records refer to the obligation before
 * them: indices are checked here, as they are read. */
static int take(struct gathered *g, const struct record *rec, const struct sym_state *st,
                struct arena *a)
{
	bool was_loc = g->last_loc;
	g->last_loc = false;
	static const char *const before_verdict[] = { "location", "equal-output", "witness", "finding", "writes" };
	for (size_t i = 0; g->have_verdict && i < sizeof before_verdict / sizeof *before_verdict; i++)
		if (strcmp(rec->type, before_verdict[i]) == 0) {
			rec_error(rec, "a %s record after the verdict (which counts what comes before it)",
			          rec->type);
			return -1;
		}
	if (strcmp(rec->type, "witness") == 0) {
		struct vd_witness w;
		if (!vd_read_witness(rec, a, &w) || !in_output(rec, st, w.output, w.off, w.et))
			return -1;
		if (!was_loc || g->prev.output != w.output || g->prev.index != w.index) {
			rec_error(rec, "a witness for output %u index %llu without its location record before it",
			          w.output, (unsigned long long)w.index);
			return -1;
		}
		VEC_PUSH(g->witnesses, w);
		return 1;
	}
	if (strcmp(rec->type, "equal-output") == 0) {
		struct vd_equal_output e;
		if (!vd_read_equal_output(rec, a, &e))
			return -1;
		if (e.output >= st->obl.outputs.len) {
			rec_error(rec, "equal-output of output %u (the stream holds %zu outputs)", e.output,
			          st->obl.outputs.len);
			return -1;
		}
		vd_seen_count_equal(&g->seen, &e);
		return 1;
	}
	if (strcmp(rec->type, "location") == 0) {
		struct vd_location l;
		if (!vd_read_location(rec, a, &l) || !in_output(rec, st, l.output, l.off, l.et))
			return -1;
		if (l.result == LR_UNINIT)
			VEC_PUSH(g->uninit, l);
		vd_seen_count(&g->seen, &l);
		g->last_loc = true;
		g->prev = l;
		return 1;
	}
	if (strcmp(rec->type, "verdict") == 0) {
		if (g->have_verdict) {
			rec_error(rec, "a second verdict record");
			return -1;
		}
		g->seen.findings = st->findings.len;
		if (!vd_read_verdict(rec, a, &g->verdict) || !vd_check_verdict(rec, &g->verdict, &g->seen))
			return -1;
		g->have_verdict = true;
		return 1;
	}
	return 0;
}

static void summarise(const struct gathered *g, const struct replayed *rep, const struct sym_state *st,
                      struct arena *a, struct rp_report *s)
{
	memset(s, 0, sizeof *s);
	s->witnesses = g->witnesses.len;
	s->findings = st->findings.len + g->uninit.len;
	const struct replayed *first = NULL, *cut = NULL;
	for (size_t i = 0; i < g->witnesses.len; i++) {
		if (rep[i].r.confirmed) {
			s->confirmed++;
			if (!first)
				first = &rep[i];
		}
		if (rep[i].r.timeout && !cut)
			cut = &rep[i];
	}
	if (first) {
		s->result = VR_BUGGY;
		s->message = arena_printf(a, "output %u index %llu differs: ref %.9g, opt %.9g (float32)",
		                          first->w.output, (unsigned long long)first->w.index,
		                          first->r.ref_f32, first->r.opt_f32);
	} else if (st->findings.len) {
		s->result = VR_BUGGY;
		const struct sym_finding *f0 = &st->findings.items[0];
		s->message = arena_printf(a, "%s in %s%s: %s", f0->cls,
		                          f0->launch == UINT32_MAX ? "" : "kernel ", f0->kernel,
		                          f0->message);
	} else if (g->uninit.len) {
		s->result = VR_BUGGY;
		s->message = arena_printf(a, "output %u index %llu reads never-written memory",
		                          g->uninit.items[0].output, (unsigned long long)g->uninit.items[0].index);
	} else if (cut) {
		/* a witness left unreplayed might have been confirmed */
		s->result = VR_TIMEOUT;
		s->message = arena_printf(a, "output %u index %llu: %s", cut->w.output,
		                          (unsigned long long)cut->w.index, cut->r.message);
	} else if (g->verdict.result == VR_BUGGY) {
		s->result = VR_UNKNOWN;
		s->message = "no witness was confirmed by replay";
		for (size_t i = 0; i < g->witnesses.len; i++)
			if (rep[i].r.shown == RS_MODEL_ONLY) {
				s->message = arena_printf(a, "no witness was confirmed by replay: output %u index %llu "
				                          "differs in the model only; the programs could not be run on "
				                          "it (%s)", rep[i].w.output, (unsigned long long)rep[i].w.index,
				                          rep[i].r.ptx_error ? rep[i].r.ptx_error : "no reason given");
				break;
			}
	} else {
		s->result = g->verdict.result;
		s->message = g->verdict.message;
	}
}

/* The stream dreplay read, kept for the bundle (--bundle): every record
 * but earlier replays, under a "verdict" header. */
struct kept {
	FILE *f;
	char *buf;
	size_t len;
	struct stream_out *out;
};

/* Writes the text report to where it goes and keeps a copy in *text for
 * the bundle.  False after a message. */
static bool write_report(const struct dreplay_opts *o, const struct report_data *d, char **text, size_t *len)
{
	FILE *m = open_memstream(text, len);
	if (!m)
		die("cannot allocate the report: %s", strerror(errno));
	report_write(m, d);
	if (fclose(m) != 0)
		die("cannot allocate the report: %s", strerror(errno));
	FILE *f = stderr;
	if (o->report && !(f = fopen(o->report, "w"))) {
		warn("cannot write report '%s': %s", o->report, strerror(errno));
		return false;
	}
	fwrite(*text, 1, *len, f);
	if (f != stderr && fclose(f) != 0) {
		warn("cannot write report '%s': %s", o->report, strerror(errno));
		return false;
	}
	return true;
}

/* The replay record of a witness the budget left no time for. */
static void not_replayed(const struct vd_witness *w, size_t i, const struct dreplay_opts *o,
                         struct arena *a, struct replayed *out)
{
	memset(out, 0, sizeof *out);
	out->w = *w;
	out->writer[0] = out->writer[1] = NO_VALUE;
	out->r.output = w->output;
	out->r.index = w->index;
	out->r.off = w->off;
	out->r.timeout = true;
	out->r.message = i ? arena_printf(a, "not replayed: the budget of %g s was spent on the "
	                                  "witnesses before it", o->budget)
	                   : arena_printf(a, "not replayed: the budget of %g s was spent reading the "
	                                  "stream, before any witness", o->budget);
}

static int replay_all(const struct dreplay_opts *opts, struct gathered *g, const struct sym_state *st,
                      struct stream_out *out, struct kept *kept, struct arena *a)
{
	struct dreplay_opts tol = *opts, *o = &tol;
	if (isnan(o->atol))
		o->atol = g->verdict.atol;
	if (isnan(o->rtol))
		o->rtol = g->verdict.rtol;
	struct smt *s = smt_new(0, DREPLAY_RLIMIT);
	smt_set_deadline(s, o->deadline);
	struct resolver *r = resolver_new(st, s);
	resolver_set_deadline(r, o->deadline);
	struct replayed *rep = xcalloc(g->witnesses.len + 1, sizeof *rep);
	struct confirm_opts co = { o->whole, o->budget, o->deadline };
	size_t timeouts = 0;
	for (size_t i = 0; i < g->witnesses.len; i++) {
		if (deadline_passed(o->deadline)) {
			not_replayed(&g->witnesses.items[i], i, o, a, &rep[i]);
		} else {
			replay_witness(r, st, &g->witnesses.items[i], o->atol, o->rtol, &co, a, &rep[i]);
			if (rep[i].r.timeout)
				warn("timeout: witness %zu (output %u index %llu): %s", i, rep[i].w.output,
				     (unsigned long long)rep[i].w.index, rep[i].r.message);
		}
		timeouts += rep[i].r.timeout;
		rp_write_replay(out, &rep[i].r);
	}
	struct rp_report sum;
	summarise(g, rep, st, a, &sum);
	rp_write_report(out, &sum);
	if (sum.result == VR_TIMEOUT || timeouts)
		warn("timeout: %zu of %zu witnesses not replayed within the budget of %g s", timeouts,
		     g->witnesses.len, o->budget);
	struct report_data d = { st, &g->verdict, g->uninit.items, g->uninit.len, rep, g->witnesses.len,
	                         &sum, o->atol, o->rtol };
	int status = sum.result == VR_BUGGY ? EXIT_BUG : sum.result == VR_CORRECT ? EXIT_OK : EXIT_UNDECIDED;
	char *text = NULL;
	size_t len = 0;
	if (!write_report(o, &d, &text, &len))
		status = EXIT_TROUBLE;
	if (o->sarif && !sarif_write(o->sarif, &d))
		status = EXIT_TROUBLE;
	if (kept->out) {
		bool ok = stream_out_close(kept->out, EXIT_OK) == EXIT_OK;
		kept->out = NULL;
		if (fclose(kept->f) != 0 || !ok)
			die("cannot keep the stream for the bundle");
		kept->f = NULL;
		if (!bundle_write(o->bundle, &d, text, len, kept->buf, kept->len))
			status = EXIT_TROUBLE;
	}
	free(text);
	free(rep);
	resolver_free(r);
	smt_free(s);
	return status;
}

enum exit_status dreplay_run(const struct dreplay_opts *o, struct stream_in *in, FILE *outf)
{
	struct ectx *cx = ectx_new();
	struct sym_state st;
	struct gathered g;
	struct arena keep;
	memset(&g, 0, sizeof g);
	arena_init(&keep);
	sym_state_init(&st, cx);
	struct stream_out *out = stream_out_new(outf);
	struct kept kept = { NULL, NULL, 0, NULL };
	if (o->bundle) {
		if (!(kept.f = open_memstream(&kept.buf, &kept.len)))
			die("cannot keep the stream for the bundle: %s", strerror(errno));
		kept.out = stream_out_new(kept.f);
	}
	struct record rec;
	const char *file = "-";
	int k, status;
	while ((k = stream_in_next(in, &rec)) > 0) {
		file = arena_strdup(&keep, rec.file);
		if (!rec_require_kind(&rec, "verdict", "dcheck") ||
		    sym_state_take(&st, &rec) < 0 || take(&g, &rec, &st, &keep) < 0) {
			k = -1;
			break;
		}
		out_pass(out, &rec, "replay", own_records);
		if (kept.out && strcmp(rec.type, "replay") != 0 && strcmp(rec.type, "report") != 0)
			out_pass(kept.out, &rec, "verdict", own_records);
	}
	if (k != 0 || !sym_state_finish(&st, file, true) || !obligation_check_outputs(&st.obl, st.findings.len, file)) {
		status = EXIT_TROUBLE;
	} else if (!g.have_verdict) {
		warn("%s: record %zu (end): no verdict record before the end record (run dcheck first)",
		     file, st.obl.end_rec);
		status = EXIT_TROUBLE;
	} else {
		status = replay_all(o, &g, &st, out, &kept, &keep);
	}
	if (kept.out)
		stream_out_free(kept.out);
	if (kept.f)
		fclose(kept.f);
	free(kept.buf);
	status = stream_out_close(out, status);
	VEC_FREE(g.witnesses);
	VEC_FREE(g.uninit);
	sym_state_release(&st);
	ectx_free(cx);
	arena_release(&keep);
	return status;
}
