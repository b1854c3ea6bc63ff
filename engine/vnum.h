/*
 * vnum.h: value numbering of an obligation: op-level equivalence of the
 * two programs without looking at a single element.
 *
 * Every value (an SSA version of a buffer, obligation.h) gets a number;
 * two values with the same number hold the same bytes for all inputs.
 * Numbers are hash-consed keys built bottom-up over the SSA order:
 *
 *   input   the shared input, the byte range, the buffer's size (and the
 *           number of the version before, where the range leaves bytes
 *           to it); a trimmed op's result is the shared input it stands for
 *   data    the bytes; memset: the fill byte; copy: the source's number
 *           (a whole-buffer copy has the source's number)
 *   op      the op's bound instance (engine/ops: the formula's family
 *           and kind, every parsed attribute, the result's formula and
 *           shape) over the numbers of its operands' logical tensors, and
 *           the result's layout
 *   uninit, launch, an op without semantics or one whose result has no
 *           formula: a number of its own, equal to nothing else
 *
 * A tensor (a view of a value) is numbered by its row-major element
 * sequence: the number of the value with its geometry, except that a
 * view with the very geometry an op wrote its result in is that result's
 * sequence (so a channels-last result read channels-last is the same
 * tensor as a contiguous one), and a contiguous view of the whole buffer
 * is the buffer's sequence.
 *
 * The normalisations are exact identities of the formulas (each op is
 * defined once in engine/ops; the key holds everything its formula
 * reads), so equal numbers are equal values with no axiom:
 *   - two ops of one formula family and kind with the same attributes
 *     compute the same formula (relu and relu_, softmax.int and _softmax,
 *     max and amax, an in-place op and its functional form);
 *   - an element-preserving copy (clone, contiguous, reshape, view,
 *     _to_copy, detach, copy_ of the same shape and element type) is its
 *     operand's sequence;
 *   - aten::linear(x, w, b) is aten::addmm / matmul over the transposed
 *     view of w: linear is keyed as the product with w read transposed.
 * Float reassociation is never assumed: sums in another order are other
 * keys, left to the per-location check.
 */
#ifndef DIRIGO_VNUM_H
#define DIRIGO_VNUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/obligation.h"

struct vnum;

/* Numbers every value of o (borrowed: it must outlive the numbering). */
struct vnum *vnum_new(const struct obligation *o);
void vnum_free(struct vnum *v);                       /* NULL ok */

/* The number of value 'value' (> 0); 0 for an id outside the obligation. */
uint32_t vnum_value(const struct vnum *v, uint32_t value);

/* Whether the two programs' values of output 'output' hold the same
 * elements of type et at every location (bytes/size(et) of them).  When
 * not, *why (if given) says where the op graphs part: the first value of
 * either program that has a number of its own, a sentence owned by v. */
bool vnum_output_equal(struct vnum *v, uint32_t output, enum etype et, const char **why);

/* Per value, its number where a value of the other program has the same
 * one and it is computed (an op's result, a copy, a launch's), else 0;
 * NULL when there is none.  *count gets how many.  The caller frees it.
 * dcheck stops resolution at these (resolver_set_shared). */
uint32_t *vnum_shared(const struct vnum *v, uint64_t *count);

/* Values numbered and distinct numbers made (for messages and tests). */
void vnum_stats(const struct vnum *v, uint64_t *values, uint64_t *numbers);

#endif
