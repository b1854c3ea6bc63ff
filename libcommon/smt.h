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

#include "expr.h"

enum smt_result { SMT_UNSAT = 0, SMT_SAT = 1, SMT_UNKNOWN = 2 };

struct smt;

/* timeout_ms 0: no limit.  rlimit 0: no limit. */
struct smt *smt_new(unsigned timeout_ms, uint64_t rlimit);
void smt_free(struct smt *s);                  /* NULL ok */
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
	EQ_UNKNOWN,                  /* solver gave up (timeout, rlimit) */
};

/* On EQ_DIFFER fills *w; its arrays live in arena a. */
enum smt_equiv_result smt_equiv(struct smt *s, const struct expr *a, const struct expr *b,
                                const struct smt_equiv_opts *o, struct arena *arena,
                                struct smt_witness *w);

const char *smt_equiv_name(enum smt_equiv_result r);   /* "equal", "differ", ... */

#endif
