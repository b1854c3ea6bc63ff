/*
 * slice.h: what one program must compute for one location (the slice a
 * sliced replay runs, concrete.h), found backwards from the location by
 * the same write-set inversion dcheck uses (engine/resolve-slice.c).
 *
 * The values of the program are walked from the last to the first, each
 * with the set of its bytes something downstream reads:
 *   - a copy needs its source's bytes, an input, memset or constant
 *     nothing; bytes outside the event's range come from the version
 *     before (prev);
 *   - a launch runs the whole blocks some thread of which writes a needed
 *     byte (each needed element's writers found by inverting the launch's
 *     store and atomic addresses, affine fast path only), and needs every
 *     byte those blocks' threads may load: the load leaves of all their
 *     writes, shared writes and atomics, evaluated over every thread of
 *     each block (a superset); the needed bytes also come from prev, in
 *     case a store's guard fails;
 *   - a torch op computes the needed elements of its results, and needs
 *     the operand elements their formulas read (engine/ops, traced one
 *     element at a time).
 * When an inversion cannot say (an address that is not affine, a solver
 * would be needed, too many writers), a launch without a write set, or a
 * limit is reached, the launch or op runs whole and needs the whole of
 * what it reads.  The slice is exact where it is computed: a sliced run
 * (concrete.c) keeps validity bits and stops rather than read anything
 * the slice left out.
 */
#ifndef DIRIGO_SLICE_H
#define DIRIGO_SLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/concrete.h"
#include "engine/resolve.h"

struct slice_limits {
	uint64_t max_inversions;     /* store inversions per launch (default 1 << 18) */
	uint64_t max_evals;          /* thread evaluations of load addresses per launch (1 << 24) */
	uint64_t max_op_reads;       /* operand reads traced per op (1 << 22) */
	uint32_t max_writers;        /* threads writing one byte (4096) */
};

/*
 * Plans the slice of program prog of st (finished, with write sets) that
 * computes bytes [off, off+len) of value 'value'.  lim may be NULL for the
 * defaults.  True with *out filled (release it with slice_release); false
 * with one line in why (whylen bytes) when no slice can be planned (the
 * values out of order, an op that cannot be bound); out needs no release
 * then.
 */
bool slice_plan(const struct sym_state *st, uint32_t prog, uint32_t value, uint64_t off,
                uint64_t len, const struct slice_limits *lim, struct replay_slice *out,
                char *why, size_t whylen);

/* Whether some thread of launch l performs store w at byte off (by the
 * same inversion): 1 yes, 0 no, -1 when that cannot be told this way. */
int slice_store_hits(const struct sym_state *st, uint32_t l, const struct sym_write *w, uint64_t off);

/* Frees what slice_plan put in s; s may be NULL. */
void slice_release(struct replay_slice *s);

#endif
