/*
 * smt.h: the only door to Z3.  Nothing else in dirigo includes z3.h.
 *
 * A solver (struct smt) owns one Z3 context; use one per worker thread.
 * Queries take expressions from expr.h and translate them on the fly
 * (memoised per solver): bitvectors to Z3 bitvectors, reals to Z3 reals,
 * EOP_FUN to uninterpreted functions (with their sound facts: sqrt(x)>=0,
 * exp(x)>0, tanh in (-1,1), ...), TID/CTAID to 32-bit variables bounded by
 * the launch geometry given in struct smt_geom.
 */
#ifndef DIRIGO_SMT_H
#define DIRIGO_SMT_H

#include <stdbool.h>
#include <stdint.h>

#include "libcommon/expr.h"

/* SMT_UNKNOWN: the solver gave up within its resource limit (a
 * deterministic answer: the same on any machine).  SMT_TIMEOUT: the wall
 * clock ran out first (the stage's deadline or the per-query timeout);
 * not an answer: the caller stops and reports a timeout. */
enum smt_result { SMT_UNSAT = 0, SMT_SAT = 1, SMT_UNKNOWN = 2, SMT_TIMEOUT = 3 };

struct smt;

/* rlimit: Z3 resource units per check (deterministic; 0: no limit).
 * timeout_ms: wall-clock time per check (0: none), an outer bound like
 * the deadline: running out is SMT_TIMEOUT, never SMT_UNKNOWN. */
struct smt *smt_new(unsigned timeout_ms, uint64_t rlimit);
void smt_free(struct smt *s);                  /* NULL ok */
/* The stage's deadline (deadline.h; DEADLINE_NONE by default): a check
 * running at that time is interrupted, and none starts after it. */
void smt_set_deadline(struct smt *s, double deadline);

/* What the solver did: checks made, undecided within the resource
 * limit, stopped by the wall clock, and (after smt_set_stats(s, true),
 * which costs a little per check) the most resource units one check used. */
struct smt_stats { uint64_t checks, unknown, timeouts, rlimit_max; };
void smt_set_stats(struct smt *s, bool rlimit);
const struct smt_stats *smt_get_stats(const struct smt *s);
/* Forgets the translations of expressions.  Done automatically when a
 * query brings nodes of another expression context (ectx_id); call it
 * before freeing a context whose ids a later context could reuse only if
 * you want the memory back early. */
void smt_reset_memo(struct smt *s);

/* Launch geometry: tid.d < ntid[d], ctaid.d < nctaid[d]. */
struct smt_geom { uint32_t ntid[3], nctaid[3]; };

/* Is there a thread of the launch for which cond (a bool over TID/CTAID and
 * constants) holds?  On SAT and when tid/ctaid are non-NULL, one such
 * thread is returned. */
enum smt_result smt_thread_sat(struct smt *s, const struct smt_geom *g,
                               const struct expr *cond,
                               uint32_t tid[3], uint32_t ctaid[3]);

/* Like smt_thread_sat but excluding one thread (to ask "is there another
 * thread that also satisfies cond?"). */
enum smt_result smt_thread_sat_except(struct smt *s, const struct smt_geom *g,
                                      const struct expr *cond,
                                      const uint32_t tid[3], const uint32_t ctaid[3],
                                      uint32_t tid_out[3], uint32_t ctaid_out[3]);

/* Equivalence of two real (or bitvector) expressions over INPUT leaves.
 *
 * First asks whether a != b is satisfiable (UNSAT: equal for all inputs).
 * If it is, asks for a witness where |a - b| > atol + rtol * |b| with every
 * input in [-bound, bound], evaluates both sides exactly at the model (real
 * functions by libm, not the solver's interpretation) and, when the model
 * is spurious, adds lemmas (the functions' true values at the model's
 * points) and asks again, up to max_refine times. */
struct smt_equiv_opts {
	double atol, rtol;
	double bound;          /* inputs limited to [-bound, bound]; 0: no limit */
	unsigned max_refine;
};

struct smt_assign { const struct expr *leaf; double value; };

struct smt_witness {
	struct smt_assign *inputs;   /* every INPUT leaf of a and b */
	unsigned ninputs;
	double a, b;                 /* exact values at the witness */
};

enum smt_equiv_result {
	EQ_EQUAL,                    /* a == b for all inputs */
	EQ_DIFFER,                   /* witness found and confirmed exactly */
	EQ_WITHIN_TOL,               /* a != b possible, but never beyond tolerance */
	EQ_UNCONFIRMED,              /* differ per solver, no confirmed witness */
	EQ_UNKNOWN,                  /* solver gave up within its resource limit */
	EQ_TIMEOUT,                  /* the wall clock ran out (not an answer) */
};

/* On EQ_DIFFER fills *w; its arrays live in arena a. */
enum smt_equiv_result smt_equiv(struct smt *s, const struct expr *a, const struct expr *b,
                                const struct smt_equiv_opts *o, struct arena *arena,
                                struct smt_witness *w);

const char *smt_equiv_name(enum smt_equiv_result r);   /* "equal", "differ", ... */

#endif
