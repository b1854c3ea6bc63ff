/*
 * exprs.h: expression tables in records (the "exprs" fields of
 * dirigo-symbolic(5) and later streams).
 *
 * A table is an array of nodes in topological order; a node refers to its
 * arguments by their index in the same table.  The layout of each node is
 * described at the top of exprs.c.
 */
#ifndef DIRIGO_FORMATS_EXPRS_H
#define DIRIGO_FORMATS_EXPRS_H

#include <stddef.h>
#include <stdint.h>

#include "libcommon/expr.h"
#include "libcommon/stream.h"

/* Writes the nodes of t, in table order, as one array value (the caller
 * has written the key, if any). */
void exprs_write(struct stream_out *w, const struct etable *t);

/* Rebuilds the nodes of an array written by exprs_write in context cx
 * through the simplifying constructors, so that the i-th result is the
 * canonical node for entry i.  Returns an array of *n node pointers in
 * arena a, or NULL with a message in err (naming the entry and what is
 * wrong) when the input is malformed: unknown operator, sort or type,
 * wrong number or kind of fields, reference to an entry not before this
 * one, argument sorts that do not fit the operator.  Never aborts on bad
 * input. */
const struct expr **exprs_read(struct ectx *cx, const msgpack_object *arr, struct arena *a,
                               uint32_t *n, char *err, size_t errlen);

#endif
