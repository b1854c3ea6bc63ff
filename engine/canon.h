/*
 * canon.h: a canonical form of real expressions, computed once per output
 * location at check time (dcheck's normalisation step, after axioms.h),
 * so that two programs that compute one reduction in different
 * associations and orders (tiles, strided partial sums, trees, per-block
 * partials each divided by N) give one expression, one pointer.
 *
 * Identities used, each exact over the reals (paper 3.3.1):
 *  - a sum is a linear combination c0 + sum c_i t_i with exact rational
 *    coefficients: equal terms merged, multiplication and division by
 *    constants distributed over sums, constants folded exactly;
 *  - a product is a multiset of factors times a rational constant; a
 *    factor that is a sum is made monic (its first term's coefficient is
 *    1, the rest goes to the constant); x / y, y not a constant, is the
 *    product of x and 1/y;
 *  - max and min are flattened without a size limit, duplicates dropped
 *    (idempotence), their constants folded, and -inf for max (+inf for
 *    min), which dexec keeps as undefs tagged E_UNDEF_NINF (E_UNDEF_PINF),
 *    dropped as the neutral element; ite(x < y, y, x) and ite(x <= y, y,
 *    x) are max(x, y), ite(x < y, x, y) and ite(x <= y, x, y) min(x, y);
 *  - an n-ary result of any size is built from its arguments in id order
 *    and cut into chunks the same way every time (sums and products by
 *    the expression constructors, max and min as a balanced tree), so
 *    equal multisets give the same node.
 *  - in a sum, squares (p_i + q)^2 that share the part q (a variance's
 *    (x_i - mean)^2) are expanded, sum c_i p_i^2 + 2 q sum c_i p_i +
 *    (sum c_i) q^2: linear work where spreading q into every p_i + q
 *    is quadratic, and a two-pass variance meets the one-pass form.
 * Where the canonicaliser is set to (canon_set_float: the location holds
 * a float, half or bfloat16), every coefficient and constant it writes is
 * first rounded to the nearest float.  Constants in programs are floats:
 * one program's x / 11.3137083 (the float nearest sqrt(128)) and the
 * other's x * 0.0883883461 (the float nearest 1/sqrt(128)) are then one
 * form, where exactly they differ in the eighth digit, less than the
 * rounding of either product.  A difference a rounding of one constant
 * hides is no bug a tolerance would see; a real one is many ulps.
 * Nothing else is rewritten: x * (1/x), (a + b) * c and max(a + c, b + c)
 * stay as they are.  Where a coefficient cannot be computed exactly (the
 * exact arithmetic would overflow) or written exactly (no pair of doubles
 * p / q is the coefficient), that sum or product is left as it was, with
 * its arguments canonical.
 *
 * The work is bounded by a number of steps, never by time, so whether a
 * canonical form is produced depends only on the expressions.  Canonical
 * nodes are made in the context of the expressions (dcheck uses the
 * location's own, where node ids follow from the expressions' structure
 * alone), so the result does not depend on what a worker did before.
 */
#ifndef DIRIGO_CANON_H
#define DIRIGO_CANON_H

#include <stdbool.h>
#include <stdint.h>

#include "libcommon/expr.h"

/* Steps canon_pair allows by default: a few seconds at most.  It allows
 * no more than CANON_STEPS_PER_NODE per node of the two expressions,
 * plus CANON_STEPS_BASE, either. */
#define CANON_STEPS_DEFAULT (64ull << 20)
#define CANON_STEPS_PER_NODE 100
#define CANON_STEPS_BASE (1ull << 20)

struct canon;

/* A canonicaliser over context cx (borrowed): every expression given to
 * it must live in cx, and the canonical forms are made there.  Results
 * are memoised for the canonicaliser's lifetime.  max_steps: the work
 * allowed over its lifetime (0: none). */
struct canon *canon_new(struct ectx *cx, uint64_t max_steps);
/* Coefficients and constants rounded to floats (see the top) from now. */
void canon_set_float(struct canon *c, bool on);
/* The canonical form of e, or NULL when the step limit is reached. */
const struct expr *canon(struct canon *c, const struct expr *e);
/* Steps spent so far; parts left as they were (a coefficient that could
 * not be computed or written exactly). */
uint64_t canon_steps(const struct canon *c);
uint64_t canon_kept(const struct canon *c);
void canon_free(struct canon *c);                     /* NULL ok */

/* Both of e[0], e[1] (in cx) replaced by their canonical forms, made by
 * one canonicaliser (so that common parts are shared), with constants
 * rounded to floats when as_float.  False, with e
 * unchanged, when the step limit is reached: max_steps, or (max_steps
 * not 0) CANON_STEPS_PER_NODE per node and CANON_STEPS_BASE. */
bool canon_pair(struct ectx *cx, const struct expr *e[2], uint64_t max_steps, bool as_float);

/* Canonical forms a and b (one context) the same but for real constants
 * that are neighbouring floats (one float apart, of one sign, neither
 * 0), at least one such pair: two roundings of one number, as
 * 1.0f / sqrtf(96.0f) and (float)(1 / sqrt(96.0)) are.  *ca and *cb: the
 * first such pair.  False also past max_steps pairs of nodes compared. */
bool canon_close(const struct expr *a, const struct expr *b, uint64_t max_steps, double *ca, double *cb);

#endif
