/*
 * dcheck.h: the parts of dcheck (main.c: options; run.c: the stream, the
 * workers and the verdict; merge.c: --merge of shards' verdict streams;
 * order.c: which locations first; check.c: one location; screen.c:
 * numeric screening before the solver).
 */
#ifndef DIRIGO_DCHECK_H
#define DIRIGO_DCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/resolve.h"
#include "formats/verdict.h"

enum order_kind { ORDER_HEURISTIC, ORDER_SEQUENTIAL, ORDER_RANDOM };

/* Z3 resource units per solver query by default (--smt-rlimit): the
 * equivalence queries of the test suite use at most 12000; about 2 to 20
 * seconds of solving, well within the default budget, so that a query
 * too hard for the limit is "unknown" on every machine alike rather than
 * a timeout on the slower ones. */
#define DCHECK_DEFAULT_RLIMIT 5000000ull

struct dcheck_opts {
	double budget;             /* seconds; < 0: none */
	uint64_t min_locations;    /* decided locations needed for checked-correct */
	uint64_t max_locations;    /* positions in the order checked; 0: no limit */
	uint64_t seed;
	double atol, rtol;
	bool keep_going;           /* do not stop at the first bug */
	bool no_vnum;              /* --no-value-numbering: every output location by location */
	bool all;                  /* --all: every location, with an estimate of the time */
	bool timing;               /* times in the records ("ms", "elapsed_s") */
	enum order_kind order;
	unsigned jobs;             /* worker threads */
	uint32_t shard, nshards;   /* check positions = shard mod nshards; nshards 0: all */
	unsigned axioms;           /* AX_* groups (axioms.h) */
	unsigned smt_timeout_ms;   /* per solver query, wall clock (timeout); 0: none */
	uint64_t smt_rlimit;       /* per solver query, resource units (unknown); 0: none */
	double deadline;           /* when the budget ends (deadline.h), from budget */
};

/* Runs dcheck over the input, writing to out.  Returns the exit status. */
enum exit_status dcheck_run(const struct dcheck_opts *o, struct stream_in *in, FILE *out);

/* ---- merge.c ---- */

/* dcheck --merge: the verdict streams of the shards of one check (each
 * from dcheck --shard I/N, for every I) into the stream one run without
 * --shard would have written.  Returns the exit status. */
enum exit_status dcheck_merge(const char *const *files, int nfiles);

/* ---- run.c: the verdict, shared with merge.c ---- */

struct tally {
	struct vd_verdict v;
	const char *first_bug;          /* detail of the first differ/uninit location */
	const char *first_opaque;       /* detail of the first location unknown for an opaque value */
	const char *first_unsupported;  /* output, index and detail of the first unsupported location */
	const char *first_timeout;      /* the first location the time ran out on */
	bool abandoned;                 /* workers left in a solver call past the budget */
	uint64_t *bridge_equal;         /* per output: locations equal, kept for bridge cuts (NULL: none yet) */
};

/* Counts one location written to the stream. */
void tally_count(struct tally *t, const struct vd_location *l, const struct obligation *ob,
                 struct arena *keep);
/* Counts the locations of an equal-output record written to the stream. */
void tally_count_equal(struct tally *t, const struct vd_equal_output *e);
/* Fills the result and message of t->v from the counts, the options and
 * what the stream said upstream (findings, unsupported launches). */
void tally_conclude(struct tally *t, const struct dcheck_opts *o, const struct sym_state *st,
                    struct arena *a);
/* The exit status of a verdict. */
enum exit_status verdict_status(enum verdict_result r);

/* ---- order.c ---- */

const char *order_name(enum order_kind k);            /* "heuristic", ... */
int         order_parse(const char *s);               /* -1 if unknown */

/* Locations in checking order (see order.c); each once. */
struct locgen;
/* ets[i]: the element type compared for output i (borrowed).  skip (NULL:
 * none): outputs left out (decided whole by value numbering), which have
 * no locations here.  s: a solver for the path-condition coverage of the
 * heuristic order (borrowed; NULL: no coverage tier); the coverage tier
 * asks no more questions once cover_until (a deadline) has passed. */
struct locgen *locgen_new(const struct sym_state *st, const enum etype *ets, const bool *skip,
                          enum order_kind kind, uint64_t seed, struct smt *s, double cover_until);
bool locgen_next(struct locgen *g, uint32_t *output, uint64_t *index);
uint64_t locgen_total(const struct locgen *g);        /* locations of all outputs */
/* Sizes of the heuristic prefix: tier 1, tier 2, and all three tiers. */
void locgen_prefix(const struct locgen *g, uint64_t *corners, uint64_t *covered, uint64_t *prefix);
/* Tier 2's writes (none of the corner threads performs them), the solver
 * questions asked for them (one per domain), and the writes left unasked
 * when the coverage tier's share of the budget ran out. */
void locgen_cover_asked(const struct locgen *g, uint64_t *writes, uint64_t *asked, uint64_t *unasked);
void locgen_free(struct locgen *g);                   /* NULL ok */

/* ---- screen.c ---- */

/* Every INPUT leaf of a and b (each once), into *out (arena a). */
const struct expr **input_leaves(const struct expr *a, const struct expr *b,
                                 struct arena *ar, uint32_t *n);

/* Evaluates ref and opt (EM_EXACT) at seeded random and extreme input
 * points (values representable in float32).  True when a point shows a
 * difference beyond atol + rtol * |ref|: *w gets the inputs and values. */
bool screen(const struct expr *ref, const struct expr *opt, const struct dcheck_opts *o,
            uint64_t salt, struct arena *a, struct vd_witness *w);

/* ---- check.c ---- */

/* One worker's tools: everything here belongs to one thread. */
struct checker {
	const struct dcheck_opts *o;
	const struct sym_state *st;   /* the worker's copy (its own ectx) */
	struct resolver *r;
	struct smt *smt;              /* for the resolver */
	const enum etype *ets;        /* per output */
	double deadline;              /* the budget's end (deadline.h) */
	/* NULL, or a resolver that stops at the values both programs
	 * compute alike (resolver_set_shared): tried first, it decides a
	 * location only when it shows it equal */
	struct resolver *ra;
	/* NULL, or the same that also takes the obligation's bridges as
	 * equal (vnum_bridge_alias): for a bridge cut's locations, which
	 * stop at the bridges before it */
	struct resolver *rb;
};

/* Checks one location: fills *loc, and *w with *has_witness when the
 * programs differ there (strings and arrays in arena a).  The result
 * depends only on the location and the options, not on what the checker
 * did before (normalised copies, and a fresh solver for any answer that
 * carries a model), unless the deadline passes: then it is "timeout". */
void check_location(struct checker *c, uint32_t output, uint64_t index, struct arena *a,
                    struct vd_location *loc, struct vd_witness *w, bool *has_witness);

#endif
