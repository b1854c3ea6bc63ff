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
/* The same with bridges: alias[x] (NO_VALUE for none; borrowed) is an
 * earlier value of the other program whose number value x takes, as if
 * the two held the same bytes (see vnum_bridges). */
struct vnum *vnum_new_bridged(const struct obligation *o, const uint32_t *alias);
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

/* Bridges: where the optimized program computes a value its own way (a
 * kernel's output, another op) that the reference computes too, found by
 * what follows it.  An op of the optimized program reads value opt
 * whole; an op of the reference that is the same op with the same other
 * operands (its key with that operand's number left out, a hole keyed by
 * the view's geometry alone) reads value ref whole, and no other value
 * of the reference fits that key.  A copy or a view (clone, reshape) is
 * such an op only with copies set: it says little (any two values of one
 * shape fit), so dmerge tries without first.  Taking opt's number to be ref's then
 * makes what follows shared, which may open further bridges: rounds of
 * numbering until none is new (at most 64 bridges).
 * A bridge is an assumption, not a fact: the two values are equal only
 * where a check shows it (dmerge(1) writes them as cuts).  Returns how
 * many, into *out (view: the reference's view of ref, borrowed from o);
 * *alias (if given) gets the alias table for vnum_new_bridged.  The
 * caller frees both. */
struct vnum_bridge { uint32_t ref, opt; const struct obl_view *view; };
size_t vnum_bridges(const struct obligation *o, bool copies, struct vnum_bridge **out,
                    uint32_t **alias);

/* The alias table of o's bridge cuts (obl_output.bridge: value[1] takes
 * value[0]'s number), or NULL when it has none.  The caller frees it. */
uint32_t *vnum_bridge_alias(const struct obligation *o);

/* Values numbered and distinct numbers made (for messages and tests). */
void vnum_stats(const struct vnum *v, uint64_t *values, uint64_t *numbers);

#endif
