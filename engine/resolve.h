/*
 * resolve.h: back-projection (paper 3.4), shared by dcheck and dreplay.
 *
 * A resolver answers "what expression over the shared inputs does program
 * p hold in value v at byte offset off, read as element type et?".  It
 * walks the SSA values of an obligation backwards: inputs, memsets and
 * copies by their ranges, kernel launches by inverting their write sets
 * (which thread wrote this address?), substituting the thread into the
 * written value and resolving each load in it recursively.  Answers are
 * memoised by (value, off, et) for the resolver's lifetime.
 *
 * Assumptions (paper 3.1): addresses and control flow do not depend on
 * data.  So integer elements of inputs are shapes and indices: when the
 * input's bytes were recorded, an integer element resolves to the recorded
 * constant; only float elements stay symbolic (INPUT leaves).
 *
 * A resolver is built from a gathered symbolic stream (struct sym_state,
 * formats/symstate.h).
 */
#ifndef DIRIGO_RESOLVE_H
#define DIRIGO_RESOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "libcommon/expr.h"
#include "formats/obligation.h"
#include "formats/symbolic.h"
#include "formats/symstate.h"
#include "libcommon/smt.h"

/* ---- the resolver ---------------------------------------------------------- */

/* What happened while resolving one element (and everything it reads). */
enum {
	RI_UNINIT = 1,        /* read memory never written: result holds UNDEF */
	RI_RACE = 2,          /* two threads wrote the location different values */
	RI_UNSUPPORTED = 4,   /* something resolution cannot model (reason) */
	RI_TOO_BIG = 8,       /* element or depth limit reached */
	RI_UNDEF = 16,        /* a written value was UNDEF (dexec's bottom) */
	RI_RANDOM = 32,       /* reads the result of a random op (reason names it):
	                         a fresh input of one program, so unknown */
	RI_TIMEOUT = 64,      /* the deadline passed, or a launch read was not
	                         finished upstream (doing says what) */
};
/* The flags that make an element unknown and carry a reason. */
#define RI_REASONS (RI_UNSUPPORTED | RI_TOO_BIG | RI_RANDOM)
/* The flags with which resolve_elem returns NULL. */
#define RI_NO_RESULT (RI_RACE | RI_REASONS | RI_TIMEOUT)

struct resolve_info {
	unsigned flags;                      /* RI_* */
	/* RI_UNINIT: the first never-written element read */
	uint32_t uninit_value;
	uint64_t uninit_off;
	/* RI_RACE: the first racing location and two of its writers */
	uint32_t race_launch, race_value;
	uint64_t race_off;
	uint32_t race_tid[2][3], race_ctaid[2][3];
	/* RI_UNSUPPORTED, RI_TOO_BIG or RI_RANDOM: why */
	char reason[160];
	/* RI_TIMEOUT: what was being resolved when the time ran out, or
	 * which launch dexec did not finish */
	char doing[200];
	/* the launch that wrote the requested element (through copies), or
	 * NO_VALUE when no kernel did */
	uint32_t writer;
	uint64_t elems;                      /* elements newly resolved by the call */
	uint64_t shared;                     /* shared-memory reads newly resolved */
};

struct resolve_limits {
	unsigned max_depth;                  /* nested element resolutions (default 2000) */
	uint64_t max_elems;                  /* new elements per resolve_elem call (default 1<<20) */
	uint64_t max_enum;                   /* search nodes per inverted write before the solver (16384) */
};

struct resolver;

/* A resolver over the finished state st (borrowed, as are its ectx and
 * the solver s, which may be NULL: then writes whose addresses are not
 * invertible directly are reported unsupported). */
struct resolver *resolver_new(const struct sym_state *st, struct smt *s);
void resolver_free(struct resolver *r);               /* NULL ok */
void resolver_set_limits(struct resolver *r, const struct resolve_limits *l);
/* The stage's deadline (deadline.h; none by default): once it has
 * passed, resolve_elem stops with RI_TIMEOUT, saying in info->doing
 * what it was resolving. */
void resolver_set_deadline(struct resolver *r, double deadline);

/* Values to stop at: number[v] != 0 (vnum.h: equal numbers hold equal
 * bytes) makes every float element of value v read below the requested
 * one an OPAQUE leaf tagged RESOLVE_SHARED_TAG(number[v]) of its offset
 * and type, the same leaf in either program: an element equal over
 * these leaves is equal for every value they hold, so for the programs'
 * own.  Borrowed; NULL turns it off.  Clears the memo. */
void resolver_set_shared(struct resolver *r, const uint32_t *number);
#define RESOLVE_SHARED_TAG(n)  ((0xffffffull << 32) | (uint64_t)(n))

/* The element of value 'value' at byte offset off read as et, as an
 * expression over INPUT leaves (and constants).  Returns NULL when it is
 * unknown (RI_NO_RESULT: RI_RACE, RI_UNSUPPORTED, RI_TOO_BIG, RI_RANDOM,
 * RI_TIMEOUT; the reason is in *info).
 * A never-written element gives UNDEF of et's sort and sets RI_UNINIT.
 * *info is filled (cleared first). */
const struct expr *resolve_elem(struct resolver *r, uint32_t value, uint64_t off,
                                enum etype et, struct resolve_info *info);

/* The element type that produced value 'value': the type of the first
 * kernel store to it, following copies and previous versions; ET_NONE if
 * no kernel wrote it. */
enum etype resolver_value_etype(const struct resolver *r, uint32_t value);

/* The launch geometry of launch l as a solver geometry. */
void resolver_geom(const struct obl_launch *l, struct smt_geom *g);

#endif
