/*
 * run.c: dcheck over a stream: pass every record through, gather the
 * obligation and write sets, check locations with a pool of workers until
 * the budget, the location limit, the first bug or the end of the order,
 * and append the records in order, then the verdict.
 *
 * Workers (POSIX threads) take locations from the one order under a lock,
 * each numbered by its position in the order; each worker has its own
 * copy of the gathered state (its own expression context, rebuilt from
 * the records kept while reading), its own resolver and solvers.  Results
 * wait in a window of slots until every earlier position is done and are
 * written in order by the main thread, so that the output does not depend
 * on the number of workers.  A bug at position p stops the hand-out; the
 * positions before p are finished, those after it dropped.
 */
#include "libcommon/axioms.h"
#include "libcommon/bigstack.h"
#include "dcheck.h"
#include "libcommon/deadline.h"
#include "libcommon/diag.h"
#include "engine/vnum.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ABANDON_S 0.25                    /* seconds past the budget before workers are left behind */
#define COVER_SHARE 0.1                   /* of the budget left, for the path-condition coverage tier */

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

/* ---- the verdict ------------------------------------------------------------------ */

/* "output 3 (out0) index 17: " + what, for the verdict's message. */
static const char *at_location(const struct vd_location *l, const struct obligation *ob, struct arena *keep,
                               const char *what)
{
	const struct obl_output *o = &ob->outputs.items[l->output];
	return arena_printf(keep, "output %u%s%s%s index %llu: %s", l->output, o->name ? " (" : "",
	                    o->name ? o->name : "", o->name ? ")" : "", (unsigned long long)l->index, what);
}

void tally_count(struct tally *t, const struct vd_location *l, const struct obligation *ob,
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
	case LR_TIMEOUT: t->v.timeout++; break;
	default: break;
	}
	if (l->result == LR_EQUAL && ob->outputs.items[l->output].bridge) {
		if (!t->bridge_equal) {
			t->bridge_equal = ARENA_NEWN(keep, uint64_t, ob->outputs.len + 1);
			memset(t->bridge_equal, 0, (ob->outputs.len + 1) * sizeof *t->bridge_equal);
		}
		t->bridge_equal[l->output]++;
	}
	if (l->result == LR_TIMEOUT && !t->first_timeout)
		t->first_timeout = at_location(l, ob, keep, l->detail ? l->detail : "timeout");
	if (l->result == LR_EQUAL || l->result == LR_WITHIN_TOL || l->result == LR_DIFFER) {
		if (l->how == LH_STRUCTURAL)
			t->v.structural++;
		else if (l->how == LH_SCREEN)
			t->v.screen++;
		else if (l->how == LH_SMT)
			t->v.smt++;
	}
	if (l->unconfirmed)
		t->v.unconfirmed++;
	if (l->opaque && l->result == LR_UNKNOWN) {
		t->v.opaque++;
		if (!t->first_opaque)
			t->first_opaque = arena_strdup(keep, l->detail ? l->detail : "");
	}
	if (l->result == LR_UNSUPPORTED && !t->first_unsupported)
		t->first_unsupported = at_location(l, ob, keep, l->detail ? l->detail : "unsupported");
	if ((l->result == LR_DIFFER || l->result == LR_UNINIT) && !t->first_bug)
		t->first_bug = at_location(l, ob, keep, arena_printf(keep, "%s (%s)", loc_result_name(l->result),
		                                                     l->detail ? l->detail : ""));
}

void tally_count_equal(struct tally *t, const struct vd_equal_output *e)
{
	t->v.checked += e->locations;
	t->v.equal += e->locations;
	t->v.value_numbered += e->locations;
}

/* "; 3 depend on an opaque value (first: ...)" or "" */
static const char *opaque_note(const struct tally *t, struct arena *a)
{
	if (!t->v.opaque)
		return "";
	return arena_printf(a, "; %llu depend%s on an opaque value (first: %s)", (unsigned long long)t->v.opaque,
	                    t->v.opaque == 1 ? "s" : "", t->first_opaque ? t->first_opaque : "?");
}

/* The first bridge cut (dmerge(1), "Bridges") with no location shown
 * exactly equal, or NO_VALUE. */
static uint32_t unshown_bridge(const struct tally *t, const struct sym_state *st)
{
	for (size_t i = 0; i < st->obl.outputs.len; i++)
		if (st->obl.outputs.items[i].bridge && (!t->bridge_equal || !t->bridge_equal[i]))
			return (uint32_t)i;
	return NO_VALUE;
}

void tally_conclude(struct tally *t, const struct dcheck_opts *o, const struct sym_state *st,
                    struct arena *a)
{
	struct vd_verdict *v = &t->v;
	uint64_t decided = v->equal + v->within_tol;
	uint32_t unshown = unshown_bridge(t, st);
	uint64_t need = o->min_locations < v->locations ? o->min_locations : v->locations;
	bool budget_spent = v->stopped && !strcmp(v->stopped, "budget");
	v->findings = st->findings.len;
	v->atol = o->atol;
	v->rtol = o->rtol;
	v->min_locations = o->min_locations;
	if (v->differ || v->uninit || v->findings) {
		v->result = VR_BUGGY;
		v->message = t->first_bug ? t->first_bug :
		             arena_printf(a, "%llu finding%s upstream: %s", (unsigned long long)v->findings,
		                          v->findings == 1 ? "" : "s", st->findings.items[0].message);
	} else if (st->timeouts.len) {
		/* a launch dexec did not finish: more time could show a bug there */
		const struct sym_timeout *x = &st->timeouts.items[0];
		v->result = VR_TIMEOUT;
		v->message = arena_printf(a, "launch %u (%s) was not finished: dexec ran out of time: %s",
		                          x->launch, x->kernel, x->message);
	} else if (decided < need && (budget_spent || v->timeout)) {
		v->result = VR_TIMEOUT;
		v->message = arena_printf(a, "%llu location%s decided, %llu needed, before the budget was "
		                          "spent%s%s", (unsigned long long)decided, decided == 1 ? "" : "s",
		                          (unsigned long long)need, t->first_timeout ? "; " : "",
		                          t->first_timeout ? t->first_timeout : "");
	} else if (st->unsupported.len || v->unsupported) {
		v->result = VR_UNSUPPORTED;
		const struct sym_unsupported *u = st->unsupported.len ? &st->unsupported.items[0] : NULL;
		/* dmerge reports a torch op it has no semantics for with no launch */
		v->message = !u && t->first_unsupported ?
		             arena_printf(a, "some locations depend on what dirigo cannot model (first: %s)",
		                          t->first_unsupported) :
		             !u ? "some locations depend on what dirigo cannot model" :
		             u->launch == UINT32_MAX ?
		             arena_printf(a, "torch op %s (program '%s') is unsupported: %s", u->kernel,
		                          u->prog < 2 && st->obl.names[u->prog] ? st->obl.names[u->prog] : "?", u->what) :
		             arena_printf(a, "launch %u (%s) is unsupported: %s", u->launch, u->kernel, u->what);
	} else if (decided >= need && decided > 0 && unshown != NO_VALUE) {
		/* each bridge's locations rest on the bridges before it: correct
		 * only when every bridge has a location shown equal */
		uint32_t b = unshown;
		const struct obl_output *bo = &st->obl.outputs.items[b];
		v->result = VR_UNKNOWN;
		v->message = arena_printf(a, "%llu of %llu locations equal, but no location of output %u (%s) "
		                          "was shown equal, and the locations after that bridge rest on it",
		                          (unsigned long long)decided, (unsigned long long)v->locations, b,
		                          bo->name ? bo->name : "?");
	} else if (decided >= need && decided > 0) {
		/* never correct from nothing: at least one location decided */
		v->result = VR_CORRECT;
		v->message = arena_printf(a, "%llu of %llu locations equal%s%s%s%s%s", (unsigned long long)decided,
		                          (unsigned long long)v->locations,
		                          v->value_numbered == decided ? " (whole outputs by value numbering)" :
		                          v->value_numbered ? " (some whole outputs by value numbering)" : "",
		                          v->within_tol ? " (some within tolerance)" : "",
		                          v->unknown ? ", some undecided" : "",
		                          budget_spent ? ", budget spent" : "", opaque_note(t, a));
	} else {
		v->result = VR_UNKNOWN;
		v->message = !v->locations ? "the outputs hold no element to compare" :
		             arena_printf(a, "%llu location%s decided, %llu needed%s%s",
		                          (unsigned long long)decided, decided == 1 ? "" : "s",
		                          (unsigned long long)(need ? need : 1), budget_spent ? " (budget spent)" : "",
		                          opaque_note(t, a));
	}
}

enum exit_status verdict_status(enum verdict_result r)
{
	return r == VR_BUGGY ? EXIT_BUG : r == VR_CORRECT ? EXIT_OK : EXIT_UNDECIDED;
}

/* Says on stderr what the budget cut short (always: it is why the run
 * has no verdict, or a weaker one). */
static void timeout_say(const struct tally *t, const struct dcheck_opts *o)
{
	const struct vd_verdict *v = &t->v;
	if (v->result == VR_TIMEOUT && !t->first_timeout && v->stopped && !strcmp(v->stopped, "budget"))
		warn("timeout: the budget of %g s was spent: %s", o->budget, v->message);
	else if (v->result == VR_TIMEOUT)
		warn("timeout: %s", v->message);
	else if (t->first_timeout && o->deadline != DEADLINE_NONE && deadline_now() >= o->deadline)
		warn("the budget of %g s was spent while checking %s", o->budget, t->first_timeout);
	else if (t->first_timeout)
		warn("the time ran out (--smt-timeout %u ms a query) while checking %s", o->smt_timeout_ms,
		     t->first_timeout);
}

/* ---- records kept for the workers' copies of the state ------------------------------- */

struct kept {
	msgpack_sbuffer buf;
	VEC(struct kept_rec) recs;
	const char *file;
};
struct kept_rec { size_t off, len; const char *type; size_t index; };

static void kept_add(struct kept *k, const struct record *rec, struct arena *a)
{
	msgpack_packer pk;
	msgpack_packer_init(&pk, &k->buf, msgpack_sbuffer_write);
	size_t off = k->buf.size;
	msgpack_pack_object(&pk, *rec->obj);
	VEC_PUSH(k->recs, ((struct kept_rec){ off, k->buf.size - off, arena_strdup(a, rec->type), rec->index }));
}

/* A copy of the state gathered from the kept records, in cx. */
static bool kept_load(const struct kept *k, struct sym_state *st, struct ectx *cx)
{
	sym_state_init(st, cx);
	bool ok = true;
	for (size_t i = 0; i < k->recs.len && ok; i++) {
		const struct kept_rec *kr = &k->recs.items[i];
		msgpack_unpacked u;
		msgpack_unpacked_init(&u);
		size_t off = 0;
		ok = msgpack_unpack_next(&u, k->buf.data + kr->off, kr->len, &off) == MSGPACK_UNPACK_SUCCESS;
		if (ok) {
			struct record rec = { &u.data, kr->type, k->file, kr->index, "symbolic", NULL };
			ok = sym_state_take(st, &rec) == 1;
		}
		msgpack_unpacked_destroy(&u);
	}
	return ok && sym_state_finish(st, k->file, true);
}

/* ---- workers ---------------------------------------------------------------------- */

enum stop { STOP_NONE, STOP_BUG, STOP_BUDGET, STOP_LIMIT, STOP_ALL };
/* What dcheck writes; a rerun on its own output replaces them. */
static const char *const own_records[] = { "location", "equal-output", "witness", "verdict", NULL };

static const char *const stop_names[] = {
	[STOP_NONE] = NULL, [STOP_BUG] = "first-bug", [STOP_BUDGET] = "budget",
	[STOP_LIMIT] = "max-locations", [STOP_ALL] = "all",
};

struct slot {
	bool done;
	uint64_t pos;
	struct vd_location loc;
	struct vd_witness w;
	bool has_w;
	struct arena a;
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t space;           /* a slot was emitted, or the hand-out ended */
	pthread_cond_t done;            /* a slot was filled */
	const struct dcheck_opts *o;
	const struct sym_state *st;     /* the main copy (worker 0's) */
	const struct kept *kept;
	const enum etype *ets;
	struct locgen *g;
	uint64_t next_pos;              /* positions generated */
	uint64_t claimed, emitted;      /* slot sequence numbers */
	struct slot *slots;
	size_t nslots;
	uint64_t stop_pos;              /* position of the earliest bug (when stopping at bugs) */
	bool exhausted;                 /* nothing more is handed out */
	enum stop why;                  /* why the hand-out ended */
	double t0;
	unsigned running;               /* workers not yet finished */
	bool failed;                    /* a worker could not set up */
	const uint32_t *shared;         /* vnum_shared, or NULL */
	const uint32_t *shared_b;       /* the same with the bridges taken as equal, or NULL */
};

/* Under the lock: the next location for a worker, or false at the end. */
static bool claim(struct pool *p, struct slot **out, uint32_t *output, uint64_t *index)
{
	const struct dcheck_opts *o = p->o;
	for (;;) {
		if (p->exhausted)
			return false;
		if (p->claimed - p->emitted >= p->nslots) {
			pthread_cond_wait(&p->space, &p->mu);
			continue;
		}
		if (deadline_passed(o->deadline)) {
			p->why = STOP_BUDGET;
			break;
		}
		if (!locgen_next(p->g, output, index)) {
			p->why = STOP_ALL;
			break;
		}
		uint64_t pos = p->next_pos++;
		if (o->max_locations && pos >= o->max_locations) {
			p->why = STOP_LIMIT;
			break;
		}
		if (pos > p->stop_pos)
			break;
		if (o->nshards > 1 && pos % o->nshards != o->shard)
			continue;
		struct slot *s = &p->slots[p->claimed++ % p->nslots];
		s->done = false;
		s->pos = pos;
		*out = s;
		return true;
	}
	p->exhausted = true;
	pthread_cond_broadcast(&p->space);
	pthread_cond_broadcast(&p->done);
	return false;
}

struct worker {
	struct pool *p;
	unsigned id;
	pthread_t th;
};

/* A resolver with the budget's deadline, stopping at shared (NULL: at
 * nothing but the inputs). */
static struct resolver *resolver_at(const struct sym_state *st, struct smt *s, double deadline,
                                    const uint32_t *shared)
{
	struct resolver *r = resolver_new(st, s);
	resolver_set_deadline(r, deadline);
	if (shared)
		resolver_set_shared(r, shared);
	return r;
}

static void *work(void *arg)
{
	struct worker *wk = arg;
	struct pool *p = wk->p;
	const struct dcheck_opts *o = p->o;
	struct sym_state own;
	struct ectx *cx = NULL;
	const struct sym_state *st = p->st;
	bool ok = true;
	if (wk->id > 0) {
		cx = ectx_new();
		ok = kept_load(p->kept, &own, cx);
		st = &own;
	}
	struct smt *s = smt_new(o->smt_timeout_ms, o->smt_rlimit);
	smt_set_deadline(s, o->deadline);
	struct resolver *r = resolver_at(st, s, o->deadline, NULL);
	struct resolver *ra = p->shared ? resolver_at(st, s, o->deadline, p->shared) : NULL;
	struct resolver *rb = p->shared_b ? resolver_at(st, s, o->deadline, p->shared_b) : NULL;
	struct checker c = { o, st, r, s, p->ets, o->deadline, ra, rb };
	pthread_mutex_lock(&p->mu);
	if (!ok) {
		p->failed = true;
		p->exhausted = true;
		pthread_cond_broadcast(&p->done);
	}
	struct slot *sl;
	uint32_t output;
	uint64_t index;
	while (ok && claim(p, &sl, &output, &index)) {
		pthread_mutex_unlock(&p->mu);
		check_location(&c, output, index, &sl->a, &sl->loc, &sl->w, &sl->has_w);
		sl->loc.pos = sl->pos;
		pthread_mutex_lock(&p->mu);
		sl->done = true;
		if ((sl->loc.result == LR_DIFFER || sl->loc.result == LR_UNINIT) && !o->keep_going &&
		    sl->pos < p->stop_pos) {
			p->stop_pos = sl->pos;
			if (!p->exhausted) {
				p->exhausted = true;
				p->why = STOP_BUG;
				pthread_cond_broadcast(&p->space);
			}
		}
		pthread_cond_broadcast(&p->done);
	}
	p->running--;
	pthread_cond_broadcast(&p->done);
	pthread_mutex_unlock(&p->mu);
	resolver_free(r);
	resolver_free(ra);
	resolver_free(rb);
	smt_free(s);
	if (wk->id > 0) {
		sym_state_release(&own);
		ectx_free(cx);
	}
	return NULL;
}

/* ---- progress ------------------------------------------------------------------------ */

static const char *human_time(double s, char *buf, size_t n)
{
	if (s < 60)
		snprintf(buf, n, "%.1f s", s);
	else if (s < 3600)
		snprintf(buf, n, "%ldm%02lds", (long)s / 60, (long)s % 60);
	else if (s < 86400 * 3)
		snprintf(buf, n, "%ldh%02ldm", (long)(s / 3600), (long)(s / 60) % 60);
	else
		snprintf(buf, n, "%.1f days", s / 86400);
	return buf;
}

struct progress {
	bool tty, verbose;
	double last, shown;
	bool line;                      /* a line is on screen to be cleared */
	bool estimated;
	double estimate;                /* seconds for this process's share, from the first window */
	uint64_t share;                 /* locations this process checks in all */
};

#define ESTIMATE_WINDOW 3.0         /* seconds of measuring before estimating --all */

static void progress_show(struct progress *pr, const struct pool *p, uint64_t decided, bool force)
{
	double now = now_s(), el = now - p->t0;
	if (p->o->all && !pr->estimated && (el >= ESTIMATE_WINDOW || force) && decided) {
		pr->estimated = true;
		pr->estimate = el / (double)decided * (double)pr->share;
		if (!force) {
			char b[32];
			if (pr->line)
				fputs("\r\033[K", stderr);
			pr->line = false;
			warn("about %s to check all %llu locations (%.1f per second over the first %.1f s)",
			     human_time(pr->estimate, b, sizeof b), (unsigned long long)pr->share,
			     decided / el, el);
		}
	}
	if (force || (!pr->tty && !pr->verbose))
		return;
	if (now - pr->last < (pr->tty ? 0.25 : 1.0))
		return;
	pr->last = now;
	char b1[32], b2[32], tail[96] = "";
	if (pr->estimated)
		snprintf(tail, sizeof tail, ", about %s in all", human_time(pr->estimate, b2, sizeof b2));
	if (pr->tty) {
		fprintf(stderr, "\r%s: %llu locations decided, %.1f per second, %s%s\033[K", diag_prog(),
		        (unsigned long long)decided, el > 0 ? decided / el : 0.0, human_time(el, b1, sizeof b1), tail);
		pr->line = true;
	} else {
		note("%llu locations decided, %.1f per second, %s%s", (unsigned long long)decided,
		     el > 0 ? decided / el : 0.0, human_time(el, b1, sizeof b1), tail);
	}
}

static void progress_end(struct progress *pr)
{
	if (pr->line)
		fputs("\r\033[K", stderr);
	pr->line = false;
}

/* ---- the check ----------------------------------------------------------------------- */

static unsigned jobs_for(const struct dcheck_opts *o, uint64_t share)
{
	unsigned j = o->jobs ? o->jobs : 1;
	if (share < j)
		j = share ? (unsigned)share : 1;
	return j;
}

/* Outputs whose two values have the same number (vnum.h) are equal at
 * every location: one equal-output record each, counted in t, before any
 * location; the others are checked location by location.  Returns which
 * (NULL when --no-value-numbering); *shared gets the values both
 * programs compute alike (vnum_shared), where resolution may stop. */
static bool *equal_outputs(const struct dcheck_opts *o, const struct sym_state *st, const enum etype *ets,
                           struct stream_out *out, struct tally *t, uint32_t **shared,
                           uint32_t **shared_b)
{
	*shared = NULL;
	*shared_b = NULL;
	if (o->no_vnum)
		return NULL;
	size_t n = st->obl.outputs.len;
	bool *whole = xcalloc(n + 1, sizeof *whole);
	struct vnum *vn = vnum_new(&st->obl);
	for (size_t i = 0; i < n; i++) {
		const char *why = NULL;
		if (!vnum_output_equal(vn, (uint32_t)i, ets[i], &why)) {
			if (diag_verbose())
				note("output %zu: not equal by value numbering: %s", i, why ? why : "?");
			continue;
		}
		whole[i] = true;
		struct vd_equal_output e = {
			(uint32_t)i, st->obl.outputs.items[i].bytes / etype_size(ets[i]), "value-number",
			"both programs compute it by the same ops on the same inputs"
		};
		vd_write_equal_output(out, &e);
		tally_count_equal(t, &e);
	}
	uint64_t ns = 0;
	*shared = vnum_shared(vn, &ns);
	if (ns && diag_verbose())
		note("%llu value%s computed alike by both programs: resolution stops there first",
		     (unsigned long long)ns, ns == 1 ? " is" : "s are");
	vnum_free(vn);
	/* bridge cuts (dmerge(1), "Bridges"): each is checked taking the
	 * bridges before it as equal; an output whose numbers agree only so
	 * is decided by its cuts, never here */
	uint32_t *alias = vnum_bridge_alias(&st->obl);
	if (alias) {
		struct vnum *vb = vnum_new_bridged(&st->obl, alias);
		*shared_b = vnum_shared(vb, &ns);
		vnum_free(vb);
		free(alias);
	}
	return whole;
}

static void check_all(const struct dcheck_opts *o, const struct sym_state *st, const struct kept *kept,
                      struct stream_out *out, struct tally *t, struct arena *keep)
{
	struct pool p;
	memset(&p, 0, sizeof p);
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.space, NULL);
	pthread_cond_init(&p.done, NULL);
	p.o = o;
	p.st = st;
	p.kept = kept;
	p.stop_pos = UINT64_MAX;
	p.t0 = now_s();

	struct smt *s = smt_new(o->smt_timeout_ms, o->smt_rlimit);
	smt_set_deadline(s, o->deadline);
	struct resolver *r = resolver_at(st, s, o->deadline, NULL);
	enum etype *ets = output_types(st, r);
	p.ets = ets;
	uint32_t *shared = NULL, *shared_b = NULL;
	bool *whole = equal_outputs(o, st, ets, out, t, &shared, &shared_b);
	p.shared = shared;
	p.shared_b = shared_b;
	/* an output with cuts is decided by them (dmerge(1), "Identical tails") */
	for (size_t k = 0; k < st->obl.outputs.len; k++) {
		uint32_t i = st->obl.outputs.items[k].tail_of;
		if (i == NO_VALUE)
			continue;
		if (!whole)
			whole = xcalloc(st->obl.outputs.len + 1, sizeof *whole);
		if (!whole[i] && diag_verbose())
			note("output %u (%s): checked at its cuts", i, st->obl.outputs.items[i].name);
		whole[i] = true;
	}
	double cover_until = o->deadline == DEADLINE_NONE ? DEADLINE_NONE :
	                     deadline_now() + COVER_SHARE * fmax(0, o->deadline - deadline_now());
	smt_set_deadline(s, cover_until);
	p.g = locgen_new(st, ets, whole, o->order, o->seed, s, cover_until);
	uint64_t writes, asked, unasked;
	locgen_cover_asked(p.g, &writes, &asked, &unasked);
	if (writes && diag_verbose())
		note("path-condition coverage: %llu solver question%s for %llu write%s no corner thread "
		     "performs", (unsigned long long)asked, asked == 1 ? "" : "s",
		     (unsigned long long)writes, writes == 1 ? "" : "s");
	if (unasked)
		note("path-condition coverage: %llu write%s left out when its share of the budget "
		     "(%.0f%%) ran out after %llu question%s", (unsigned long long)unasked,
		     unasked == 1 ? "" : "s", 100 * COVER_SHARE, (unsigned long long)asked, asked == 1 ? "" : "s");
	free(whole);
	resolver_free(r);
	smt_free(s);
	uint64_t total = locgen_total(p.g);
	t->v.locations = total + t->v.value_numbered;

	struct progress pr = { isatty(2), diag_verbose(), p.t0, 0, false, false, 0, total };
	if (o->nshards > 1)
		pr.share = total / o->nshards + (o->shard < total % o->nshards);
	if (o->max_locations) {
		uint64_t m = o->max_locations < total ? o->max_locations : total;
		pr.share = o->nshards > 1 ? m / o->nshards + (o->shard < m % o->nshards) : m;
	}
	unsigned nj = jobs_for(o, pr.share);
	p.nslots = 4 * (size_t)nj + 16;
	p.slots = xcalloc(p.nslots, sizeof *p.slots);
	for (size_t i = 0; i < p.nslots; i++)
		arena_init(&p.slots[i].a);
	struct worker *wk = xcalloc(nj, sizeof *wk);
	p.running = nj;
	/* Z3 recurses over the terms it is given: a reduction of thousands of
	 * elements in one chain needs far more than a thread's default 8 MB
	 * (the stack is reserved, and only what is used is committed) */
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, BIG_STACK_BYTES);
	for (unsigned i = 0; i < nj; i++) {
		wk[i] = (struct worker){ &p, i, 0 };
		if (pthread_create(&wk[i].th, &at, work, &wk[i]) != 0)
			die("cannot start a worker thread");
	}
	pthread_attr_destroy(&at);

	/* write the results in order */
	uint64_t decided = 0;
	bool bug_written = false, abandoned = false;
	pthread_mutex_lock(&p.mu);
	for (;;) {
		struct slot *sl = &p.slots[p.emitted % p.nslots];
		if (p.emitted == p.claimed || !sl->done) {
			if (p.emitted == p.claimed && p.exhausted)
				break;                  /* every position handed out is written */
			pthread_mutex_unlock(&p.mu);
			progress_show(&pr, &p, decided, false);
			pthread_mutex_lock(&p.mu);
			if (o->deadline != DEADLINE_NONE && deadline_now() > o->deadline + ABANDON_S) {
				/* a solver call that ignores its interrupt (Z3's
				 * nonlinear arithmetic may): the budget still bounds
				 * the run; the locations in flight are left out */
				abandoned = true;
				p.exhausted = true;
				p.why = STOP_BUDGET;
				break;
			}
			if (p.emitted == p.claimed ? !p.exhausted : !sl->done) {
				struct timespec ts;
				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_nsec += 100 * 1000 * 1000;
				if (ts.tv_nsec >= 1000000000) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000;
				}
				pthread_cond_timedwait(&p.done, &p.mu, &ts);
			}
			continue;
		}
		bool keep_it = sl->pos <= p.stop_pos;
		pthread_mutex_unlock(&p.mu);
		if (keep_it) {
			vd_write_location(out, &sl->loc);
			if (sl->has_w)
				vd_write_witness(out, &sl->w);
			tally_count(t, &sl->loc, &st->obl, keep);
			if (sl->loc.result == LR_EQUAL || sl->loc.result == LR_WITHIN_TOL ||
			    sl->loc.result == LR_DIFFER)
				decided++;
			if ((sl->loc.result == LR_DIFFER || sl->loc.result == LR_UNINIT) && !o->keep_going)
				bug_written = true;
		}
		arena_release(&sl->a);
		pthread_mutex_lock(&p.mu);
		p.emitted++;
		pthread_cond_broadcast(&p.space);
	}
	pthread_mutex_unlock(&p.mu);
	t->abandoned = abandoned;
	if (abandoned)
		warn("timeout: a solver call went on %g s past the budget; the locations in flight are "
		     "left out", ABANDON_S);
	else
		for (unsigned i = 0; i < nj; i++)
			pthread_join(wk[i].th, NULL);
	double elapsed = now_s() - p.t0;
	progress_show(&pr, &p, decided, true);
	progress_end(&pr);
	if (p.failed)
		die("a worker could not rebuild the state");

	char ax[64];
	t->v.order = order_name(o->order);
	t->v.seed = o->seed;
	t->v.axioms = arena_strdup(keep, ax_format(o->axioms, ax, sizeof ax));
	t->v.stopped = stop_names[bug_written ? STOP_BUG : p.why];
	t->v.sharded = o->nshards > 1;
	t->v.shard = o->shard;
	t->v.nshards = o->nshards;
	if (o->all) {
		t->v.has_estimate = true;
		t->v.estimate_s = pr.estimated ? pr.estimate : elapsed;
	}
	if (o->all || o->timing) {
		t->v.has_elapsed = true;
		t->v.elapsed_s = elapsed;
	}
	if (abandoned)
		return;   /* workers still hold the pool; the process ends soon after the verdict */
	for (size_t i = 0; i < p.nslots; i++)
		arena_release(&p.slots[i].a);
	free(p.slots);
	free(wk);
	locgen_free(p.g);
	free(ets);
	free(shared);
	free(shared_b);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.space);
	pthread_cond_destroy(&p.done);
}

enum exit_status dcheck_run(const struct dcheck_opts *o, struct stream_in *in, FILE *outf)
{
	struct ectx *cx = ectx_new();
	struct sym_state st;
	struct arena keep;
	struct kept kept;
	memset(&kept, 0, sizeof kept);
	msgpack_sbuffer_init(&kept.buf);
	arena_init(&keep);
	sym_state_init(&st, cx);
	struct stream_out *out = stream_out_new(outf);
	struct record rec;
	const char *file = "-";
	int k, status = EXIT_OK;
	bool abandoned = false;
	while ((k = stream_in_next(in, &rec)) > 0) {
		file = arena_strdup(&keep, rec.file);
		int taken = 0;
		if (!rec_require_kind(&rec, "symbolic", "dexec") || (taken = sym_state_take(&st, &rec)) < 0) {
			k = -1;
			break;
		}
		if (taken && o->jobs > 1)
			kept_add(&kept, &rec, &keep);
		out_pass(out, &rec, "verdict", own_records);
	}
	kept.file = file;
	if (k != 0 || !sym_state_finish(&st, file, true) || !obligation_check_outputs(&st.obl, st.findings.len, file)) {
		status = EXIT_TROUBLE;
	} else {
		struct tally t;
		memset(&t, 0, sizeof t);
		check_all(o, &st, &kept, out, &t, &keep);
		tally_conclude(&t, o, &st, &keep);
		vd_write_verdict(out, &t.v);
		timeout_say(&t, o);
		if (t.v.has_estimate)
			note("checked %llu locations in %.1f s (estimated %.1f s)", (unsigned long long)t.v.checked,
			     t.v.elapsed_s, t.v.estimate_s);
		note("%s: %s", verdict_result_name(t.v.result), t.v.message);
		status = verdict_status(t.v.result);
		abandoned = t.abandoned;
	}
	status = stream_out_close(out, status);
	if (abandoned) {
		/* the workers left behind still use the state and the solver:
		 * end here, the stream complete, without freeing under them */
		fflush(NULL);
		_exit(status);
	}
	msgpack_sbuffer_destroy(&kept.buf);
	VEC_FREE(kept.recs);
	sym_state_release(&st);
	ectx_free(cx);
	arena_release(&keep);
	return status;
}
