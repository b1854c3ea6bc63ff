/*
 * guard.h: a divisor's zero guard, split off (dcheck).
 *
 * Optimized programs guard a division the reference leaves bare:
 *
 *     ref:  x / sum|x_i|              opt:  s = sum|x_i|; if (s == 0) s = eps; x / s
 *
 * Over the reals the two agree wherever the reference's divisor s is not
 * 0, and where it is 0 the reference divides by zero: its value is not a
 * number there (a NaN or an infinity as floats), and no value of the
 * optimized program is a difference from it.  So such a location is
 * equal when the optimized program with the guard's test taken as false
 * (s == 0 ? eps : s becomes s) has the reference's form.  The solver
 * cannot see this quickly: it must show that s = 0 forces x = 0 through
 * thousands of |x_i|.
 *
 * The guard is an ite whose test is s == 0 (or its negation), where the
 * reference divides by the very s (one node: both in canonical form, in
 * one context) outside any ite's arms, so that it divides whatever the
 * inputs.
 */
#ifndef DIRIGO_GUARD_H
#define DIRIGO_GUARD_H

#include "libcommon/expr.h"

/* opt (in cx, as ref) with its first zero guard on a divisor of ref
 * replaced by the arm it takes where the divisor is not 0, or NULL when
 * opt has no such guard.  *guard: the guard (the ite node).  The result is
 * not canonical. */
const struct expr *guard_unguarded(struct ectx *cx, const struct expr *ref, const struct expr *opt,
                                   const struct expr **guard);

#endif
