/*
 * u64set.h: a set of nonzero 64-bit keys (node ids, pairs of them,
 * pointers), open addressing, doubling as it fills.  The caller owns it:
 * zero-initialise it, then u64set_free.
 */
#ifndef DIRIGO_U64SET_H
#define DIRIGO_U64SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64set { uint64_t *v; size_t cap, len; };

/* Adds key (not 0); false when it was there already. */
bool u64set_add(struct u64set *s, uint64_t key);
void u64set_free(struct u64set *s);

#endif
