/*
 * dcheck.h: the parts of dcheck (main.c: options; run.c: the stream and
 * the verdict; order.c: which locations first; check.c: one location;
 * screen.c: numeric screening before the solver).
 */
#ifndef DIRIGO_DCHECK_H
#define DIRIGO_DCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "resolve.h"
#include "verdict.h"

struct dcheck_opts {
	double budget;             /* seconds */
	uint64_t min_locations;    /* decided locations needed for checked-correct */
	uint64_t max_locations;    /* 0: no limit */
	uint64_t seed;
	double atol, rtol;
	bool keep_going;           /* do not stop at the first bug */
};

/* Runs dcheck over the named inputs (none: stdin), writing to stdout.
 * Returns the exit status. */
int dcheck_run(const struct dcheck_opts *o, const char *const *files, int nfiles);

/* ---- order.c ---- */

/* Locations in checking order: corners of every launch that writes an
 * output (later launches first), first and last element of every output,
 * then every element in turn (outputs round-robin); each once. */
struct locgen;
/* ets[i]: the element type compared for output i (borrowed). */
struct locgen *locgen_new(const struct sym_state *st, const enum etype *ets);
bool locgen_next(struct locgen *g, uint32_t *output, uint64_t *index);
void locgen_free(struct locgen *g);                 /* NULL ok */

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

struct checker {
	const struct dcheck_opts *o;
	const struct sym_state *st;
	struct resolver *r;
	struct smt *smt;
	const enum etype *ets;        /* per output */
};

/* Checks one location: fills *loc, and *w with *has_witness when the
 * programs differ there (strings and arrays in arena a). */
void check_location(struct checker *c, uint32_t output, uint64_t index, struct arena *a,
                    struct vd_location *loc, struct vd_witness *w, bool *has_witness);

#endif
