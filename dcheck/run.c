/*
 * run.c: dcheck over a stream: pass every record through, gather the
 * obligation and write sets, check locations in order until the budget,
 * the location limit or the first bug, and append the verdict.
 */
#include "dcheck.h"
#include "diag.h"

#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The element type compared for each output: what the kernels stored
 * (the reference's first), f32 when no kernel wrote it. */
static enum etype *output_types(const struct sym_state *st, const struct resolver *r)
{
	size_t n = st->obl.outputs.len;
	enum etype *ets = xcalloc(n + 1, sizeof *ets);
	for (size_t i = 0; i < n; i++) {
		const struct obl_output *out = &st->obl.outputs.items[i];
		enum etype a = resolver_value_etype(r, out->value[0]);
		enum etype b = resolver_value_etype(r, out->value[1]);
		ets[i] = a != ET_NONE ? a : b != ET_NONE ? b : ET_F32;
	}
	return ets;
}

struct tally {
	struct vd_verdict v;
	const char *first_bug;          /* detail of the first differ/uninit location */
	bool budget_spent;
};

static void count(struct tally *t, const struct vd_location *l, const struct obligation *ob,
                  struct arena *keep)
{
	t->v.checked++;
	switch (l->result) {
	case LR_EQUAL: t->v.equal++; break;
	case LR_WITHIN_TOL: t->v.within_tol++; break;
	case LR_DIFFER: t->v.differ++; break;
	case LR_UNKNOWN: t->v.unknown++; break;
	case LR_UNSUPPORTED: t->v.unsupported++; break;
	case LR_UNINIT: t->v.uninit++; break;
	default: break;
	}
	if ((l->result == LR_DIFFER || l->result == LR_UNINIT) && !t->first_bug) {
		const struct obl_output *o = &ob->outputs.items[l->output];
		t->first_bug = arena_printf(keep, "output %u%s%s%s index %llu: %s (%s)", l->output,
		                            o->name ? " (" : "", o->name ? o->name : "", o->name ? ")" : "",
		                            (unsigned long long)l->index, loc_result_name(l->result),
		                            l->detail ? l->detail : "");
	}
}

static void conclude(struct tally *t, const struct dcheck_opts *o, const struct sym_state *st,
                     struct arena *a)
{
	struct vd_verdict *v = &t->v;
	uint64_t decided = v->equal + v->within_tol;
	uint64_t need = o->min_locations < v->locations ? o->min_locations : v->locations;
	v->findings = st->findings.len;
	v->atol = o->atol;
	v->rtol = o->rtol;
	if (v->differ || v->uninit || v->findings) {
		v->result = VR_BUGGY;
		v->message = t->first_bug ? t->first_bug :
		             arena_printf(a, "%llu finding%s upstream: %s", (unsigned long long)v->findings,
		                          v->findings == 1 ? "" : "s", st->findings.items[0].message);
	} else if (st->unsupported.len || v->unsupported) {
		v->result = VR_UNSUPPORTED;
		v->message = st->unsupported.len ?
		             arena_printf(a, "launch %u (%s) is unsupported: %s", st->unsupported.items[0].launch,
		                          st->unsupported.items[0].kernel, st->unsupported.items[0].what) :
		             "some locations depend on what dirigo cannot model";
	} else if (decided >= need) {
		v->result = VR_CORRECT;
		v->message = arena_printf(a, "%llu of %llu locations equal%s%s%s", (unsigned long long)decided,
		                          (unsigned long long)v->locations,
		                          v->within_tol ? " (some within tolerance)" : "",
		                          v->unknown ? ", some undecided" : "",
		                          t->budget_spent ? ", budget spent" : "");
	} else {
		v->result = VR_UNKNOWN;
		v->message = arena_printf(a, "%llu location%s decided, %llu needed%s",
		                          (unsigned long long)decided, decided == 1 ? "" : "s",
		                          (unsigned long long)need, t->budget_spent ? " (budget spent)" : "");
	}
}

static void check_all(const struct dcheck_opts *o, const struct sym_state *st,
                      struct stream_out *out, struct tally *t, struct arena *keep)
{
	struct smt *s = smt_new(o->budget < 10 ? (unsigned)(o->budget * 1000) + 1 : 10000, 0);
	struct resolver *r = resolver_new(st, s);
	enum etype *ets = output_types(st, r);
	struct checker c = { o, st, r, s, ets };
	for (size_t i = 0; i < st->obl.outputs.len; i++)
		t->v.locations += st->obl.outputs.items[i].bytes / etype_size(ets[i]);
	struct locgen *g = locgen_new(st, ets);
	double t0 = now_s(), last = t0;
	uint32_t output;
	uint64_t index;
	struct arena a;
	arena_init(&a);
	while (locgen_next(g, &output, &index)) {
		if (o->max_locations && t->v.checked >= o->max_locations)
			break;
		double now = now_s();
		if (now - t0 > o->budget) {
			t->budget_spent = true;
			break;
		}
		if (now - last > 1) {
			note("%llu locations checked, %llu equal", (unsigned long long)t->v.checked,
			     (unsigned long long)(t->v.equal + t->v.within_tol));
			last = now;
		}
		struct vd_location loc;
		struct vd_witness w;
		bool has_w;
		check_location(&c, output, index, &a, &loc, &w, &has_w);
		vd_write_location(out, &loc);
		if (has_w)
			vd_write_witness(out, &w);
		count(t, &loc, &st->obl, keep);
		arena_release(&a);
		if ((loc.result == LR_DIFFER || loc.result == LR_UNINIT) && !o->keep_going)
			break;
	}
	arena_release(&a);
	locgen_free(g);
	free(ets);
	resolver_free(r);
	smt_free(s);
}

int dcheck_run(const struct dcheck_opts *o, const char *const *files, int nfiles)
{
	struct ectx *cx = ectx_new();
	struct sym_state st;
	struct arena keep;
	arena_init(&keep);
	sym_state_init(&st, cx);
	struct stream_in *in = stream_in_open(files, nfiles);
	struct stream_out *out = stream_out_new(stdout);
	struct record rec;
	const char *file = nfiles ? files[nfiles - 1] : "-";
	int k, status = EXIT_OK;
	while ((k = stream_in_next(in, &rec)) > 0) {
		file = arena_strdup(&keep, rec.file);
		if (!rec_require_kind(&rec, "symbolic", "dexec") || sym_state_take(&st, &rec) < 0) {
			k = -1;
			break;
		}
		out_pass(out, &rec, "verdict");
	}
	if (k != 0 || !sym_state_finish(&st, file, true)) {
		status = EXIT_TROUBLE;
	} else {
		struct tally t;
		memset(&t, 0, sizeof t);
		check_all(o, &st, out, &t, &keep);
		conclude(&t, o, &st, &keep);
		vd_write_verdict(out, &t.v);
		note("%s: %s", verdict_result_name(t.v.result), t.v.message);
		status = t.v.result == VR_BUGGY ? EXIT_BUG : t.v.result == VR_CORRECT ? EXIT_OK : EXIT_UNDECIDED;
	}
	stream_in_close(in);
	if (stream_out_free(out) < 0)
		status = EXIT_TROUBLE;
	sym_state_release(&st);
	ectx_free(cx);
	arena_release(&keep);
	return status;
}
