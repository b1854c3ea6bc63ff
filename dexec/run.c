/*
 * run.c: dexec over a whole obligation: collects its records as they pass
 * through, then checks every launch against its module (kernel found,
 * arguments match the parameters: bad input is trouble, reported before
 * any record is added), executes the launches in order and appends their
 * records.  Each module is parsed once; each launch has a solver of its
 * own.  When the budget runs out, the launch at work ends with a
 * "timeout" record (what it was doing), and so does every launch not yet
 * begun.  With --cache (cache.c) a launch whose complete result is kept
 * is not executed; only complete results are kept.
 */
#include "run.h"

#include <string.h>
#include <time.h>

#include "libcommon/deadline.h"
#include "libcommon/diag.h"

void dx_run_init(struct dx_run *r, const struct dx_opts *opts)
{
	memset(r, 0, sizeof *r);
	obligation_init(&r->o);
	arena_init(&r->a);
	r->opts = *opts;
	r->status = EXIT_OK;
}

void dx_run_release(struct dx_run *r)
{
	if (!r)
		return;
	obligation_release(&r->o);
	VEC_FREE(r->srcs);
	free(r->mods);
	dx_cache_close(r->cache);
	free(r->unclean);
	smt_free(r->smt);
	arena_release(&r->a);
	memset(r, 0, sizeof *r);
}

int dx_run_take(struct dx_run *r, const struct record *rec)
{
	int t = obligation_take(&r->o, rec);
	if (t < 0)
		return -1;
	r->file = arena_strdup(&r->a, rec->file);
	if (t > 0 && strcmp(rec->type, "launch") == 0) {
		struct dx_src s = { r->file, rec->index };
		VEC_PUSH(r->srcs, s);
	}
	/* findings and unsupported launches passed through count in the status */
	if (strcmp(rec->type, "finding") == 0) {
		r->status = exit_worst(r->status, EXIT_BUG);
		r->findings++;
	}
	else if (strcmp(rec->type, "unsupported") == 0)
		r->status = exit_worst(r->status, EXIT_UNDECIDED);
	return 0;
}

/* Parses module m once; NULL (with r->mods[m].err set) if it does not parse. */
static const struct ptx_module *module(struct dx_run *r, uint32_t m)
{
	struct dx_mod *dm = &r->mods[m];
	if (!dm->done) {
		char err[256] = "";
		const struct obl_module *om = &r->o.modules.items[m];
		dm->mod = ptx_parse(&r->a, om->ptx, om->ptxlen, err, sizeof err);
		if (!dm->mod)
			dm->err = arena_printf(&r->a, "module %u does not parse: %s", m, err);
		dm->done = true;
	}
	return dm->mod;
}

/* Checks that launch i fits its kernel; false after a message. */
static bool launch_ok(struct dx_run *r, uint32_t i)
{
	const struct obl_launch *l = &r->o.launches.items[i];
	const struct dx_src *src = &r->srcs.items[i];
	const struct ptx_module *m = module(r, l->module);
	if (!m)
		return true;            /* reported as unsupported */
	const struct ptx_func *f = ptx_find_func(m, l->kernel);
	if (!f || !f->is_entry || !f->has_body) {
		warn("%s: record %zu (launch): kernel '%s' is not an entry of module %u",
		     src->file, src->index, l->kernel, l->module);
		return false;
	}
	if (l->nargs != f->nparams) {
		warn("%s: record %zu (launch): kernel '%s' has %u parameters, the launch gives %u arguments",
		     src->file, src->index, l->kernel, f->nparams, l->nargs);
		return false;
	}
	for (uint32_t k = 0; k < l->nargs; k++) {
		const struct obl_arg *a = &l->args[k];
		if (a->size != f->params[k].size || (a->is_ptr && a->size != 8)) {
			warn("%s: record %zu (launch): argument %u ('%s') has %u bytes, parameter '%s' %u",
			     src->file, src->index, k, a->param, a->size, f->params[k].name, f->params[k].size);
			return false;
		}
	}
	for (int d = 0; d < 3; d++)
		if (l->grid[d] == 0 || l->block[d] == 0 || l->grid[d] > UINT32_MAX || l->block[d] > 1024) {
			warn("%s: record %zu (launch): bad launch geometry", src->file, src->index);
			return false;
		}
	return true;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Whether an unsupported result may depend on time or on how the solver
 * fared (not cached). */
static bool timed(const struct sym_unsupported *u)
{
	const char *w = u->what ? u->what : "";
	return strcmp(w, "solver") == 0 || strstr(w, "time") || strstr(w, "deadline");
}

/* The record of launch i when the budget was spent before it began. */
static void not_started(struct dx_run *r, struct stream_out *w, uint32_t i)
{
	const struct obl_launch *l = &r->o.launches.items[i];
	struct sym_timeout t = {
		l->prog, i, l->kernel, 0, "not started",
		arena_printf(&r->a, "kernel '%s': not started: the budget of %g s was spent on the launches "
		             "before it", l->kernel, r->opts.budget),
	};
	sym_write_timeout(w, &t);
	r->status = exit_worst(r->status, EXIT_UNDECIDED);
	r->not_started++;
}

/* Adds the counts of solver s (NULL: none) to the run's. */
static void smt_stats_add(struct dx_run *r, const struct smt *s)
{
	if (!s)
		return;
	const struct smt_stats *ss = smt_get_stats(s);
	r->smt_stats.checks += ss->checks;
	r->smt_stats.unknown += ss->unknown;
	r->smt_stats.timeouts += ss->timeouts;
	if (ss->rlimit_max > r->smt_stats.rlimit_max)
		r->smt_stats.rlimit_max = ss->rlimit_max;
	r->solvers++;
}

/* Launch i's records from the cache, when it holds them.  What the
 * launch gives depends on whether its module's variables still hold
 * their initialisers (opts.module_unclean), so that is part of the key,
 * and a kept launch that was unsupported makes its module unclean as an
 * executed one does. */
static bool from_cache(struct dx_run *r, struct stream_out *w, uint32_t i)
{
	const struct obl_launch *l = &r->o.launches.items[i];
	bool unsup = false;
	if (!r->cache || !dx_cache_get(r->cache, &r->o, i, !r->unclean[l->module], w, &r->status, &unsup))
		return false;
	if (unsup)
		r->unclean[l->module] = true;
	note("launch %u: kernel '%s': from the cache", i, l->kernel);
	return true;
}

static void run_launch(struct dx_run *r, struct stream_out *w, uint32_t i)
{
	const struct obl_launch *l = &r->o.launches.items[i];
	const struct ptx_module *m = module(r, l->module);
	if (!m) {
		struct sym_unsupported u = { l->prog, i, l->kernel, 0, "ptx parse error",
		                             r->mods[l->module].err };
		r->unclean[l->module] = true;
		sym_write_unsupported(w, &u);
		r->status = exit_worst(r->status, EXIT_UNDECIDED);
		return;
	}
	if (from_cache(r, w, i))
		return;
	struct dx_entry *e = r->cache ? dx_cache_begin(r->cache, &r->o, i, !r->unclean[l->module]) : NULL;
	/* a solver of its own: what a launch gives (a witness thread is the
	 * solver's model) depends on the launch alone, not on the launches
	 * before it, so that --cache gives the bytes a run without it does */
	smt_stats_add(r, r->smt);
	smt_free(r->smt);
	r->smt = smt_new(r->opts.smt_timeout_ms, r->opts.smt_rlimit);
	smt_set_deadline(r->smt, r->opts.deadline);
	smt_set_stats(r->smt, diag_verbose());
	double t0 = now_ms();
	struct dx_launch L;
	dx_launch_run(&L, &r->o, i, m, ptx_find_func(m, l->kernel), &r->opts, r->smt);
	double ms = now_ms() - t0;
	if (L.unsup || L.timeout)   /* it may have stopped before (or at) a store to a module variable */
		r->unclean[l->module] = true;
	if (L.timeout) {
		/* what it found stays (a finding is definite); the write set,
		 * cut short, is not written */
		sym_write_timeout(w, &L.to);
		dx_entry_drop(e);            /* never kept: another run may end */
		r->status = exit_worst(r->status, EXIT_UNDECIDED);
		r->timeouts++;
		warn("timeout: launch %u: %s", i, L.to.message);
	} else if (L.unsup) {
		sym_write_unsupported(w, &L.uns);
		if (timed(&L.uns))
			dx_entry_drop(e);
		else if (e)
			sym_write_unsupported(dx_entry_out(e), &L.uns);
		r->status = exit_worst(r->status, EXIT_UNDECIDED);
		note("launch %u: kernel '%s': unsupported: %s", i, l->kernel, L.uns.message);
	} else {
		struct sym_writes sw = {
			.launch = i, .prog = l->prog, .kernel = l->kernel, .bundles = L.nbundles,
			.ms = r->opts.timing ? ms : 0, .writes = L.writes.items, .nwrites = (uint32_t)L.writes.len,
			.opaques = L.opaques.items, .nopaques = (uint32_t)L.opaques.len,
		};
		sw.shared = (struct sym_shwrite *)dx_shared_writes(&L, &sw.nshared, &sw.shared_bytes);
		sw.reads = (struct sym_gread *)dx_greads(&L, &sw.nreads);
		sym_write_writes(w, &sw);
		if (e)
			sym_write_writes(dx_entry_out(e), &sw);
		note("launch %u: kernel '%s': %u bundles, %zu writes, %llu steps, %u conditions decided "
		     "without the solver, %u with it, %.1f ms", i, l->kernel, L.nbundles, L.writes.len,
		     (unsigned long long)L.steps, L.quick, L.solver, ms);
	}
	for (size_t k = 0; k < L.findings.len; k++) {
		sym_write_finding(w, &L.findings.items[k]);
		if (e)
			sym_write_finding(dx_entry_out(e), &L.findings.items[k]);
	}
	dx_cache_end(r->cache, e);
	if (L.findings.len)
		r->status = exit_worst(r->status, EXIT_BUG);
	dx_launch_release(&L);
}

int dx_run_finish(struct dx_run *r, struct stream_out *w)
{
	if (!obligation_check(&r->o, r->file ? r->file : "-") ||
	    !obligation_check_outputs(&r->o, r->findings, r->file ? r->file : "-"))
		return EXIT_TROUBLE;
	r->mods = xcalloc(r->o.modules.len + 1, sizeof *r->mods);
	r->unclean = xcalloc(r->o.modules.len + 1, sizeof *r->unclean);
	r->opts.module_unclean = r->unclean;
	for (uint32_t i = 0; i < r->o.launches.len; i++)
		if (!launch_ok(r, i))
			return EXIT_TROUBLE;
	for (uint32_t i = 0; i < r->o.launches.len; i++) {
		if (deadline_passed(r->opts.deadline)) {
			/* a hit costs no execution: taken whatever the time */
			if (from_cache(r, w, i))
				continue;
			not_started(r, w, i);
			continue;
		}
		run_launch(r, w, i);
	}
	if (r->not_started)
		warn("timeout: %u launch%s not started: the budget of %g s was spent", r->not_started,
		     r->not_started == 1 ? "" : "es", r->opts.budget);
	smt_stats_add(r, r->smt);
	smt_free(r->smt);
	r->smt = NULL;
	if (r->solvers) {
		const struct smt_stats *ss = &r->smt_stats;
		note("solver: %llu queries, %llu undecided within the resource limit, %llu stopped by the "
		     "clock, at most %llu resource units per query (--smt-rlimit %llu)",
		     (unsigned long long)ss->checks, (unsigned long long)ss->unknown,
		     (unsigned long long)ss->timeouts, (unsigned long long)ss->rlimit_max,
		     (unsigned long long)r->opts.smt_rlimit);
	}
	return r->status;
}

/* What dexec writes, which a rerun on its own output replaces: write sets,
 * timeouts, and the findings and unsupported records of launches
 * (dmerge's, for torch ops and output shapes, name no launch and stay). */
static bool own_record(const struct record *rec)
{
	if (strcmp(rec->type, "writes") == 0 || strcmp(rec->type, "timeout") == 0)
		return true;
	if (strcmp(rec->type, "unsupported") != 0 && strcmp(rec->type, "finding") != 0)
		return false;
	bool ok = true;
	return rec_u64_opt(rec, "launch", UINT32_MAX, &ok) != UINT32_MAX;
}

enum exit_status dexec_run(const struct dx_opts *opts, struct stream_in *in, FILE *out)
{
	struct dx_run run;
	dx_run_init(&run, opts);
	if (opts->cache && !(run.cache = dx_cache_open(opts->cache, opts))) {
		dx_run_release(&run);
		return EXIT_TROUBLE;
	}
	struct stream_out *w = stream_out_new(out);
	struct record rec;
	int status = EXIT_OK, k;
	while ((k = stream_in_next(in, &rec)) == 1) {
		if (!rec_require_kind(&rec, "obligation", "dmerge")) {
			status = EXIT_TROUBLE;
			goto done;
		}
		if (own_record(&rec))
			continue;
		if (dx_run_take(&run, &rec) < 0) {
			status = EXIT_TROUBLE;
			goto done;
		}
		out_pass(w, &rec, "symbolic", NULL);
	}
	if (k < 0) {
		status = EXIT_TROUBLE;
		goto done;
	}
	status = dx_run_finish(&run, w);
done:
	status = stream_out_close(w, status);
	dx_run_release(&run);
	return status;
}
