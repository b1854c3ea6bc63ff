/*
 * u64set.c: the set of u64set.h.
 */
#include "libcommon/u64set.h"

#include <stdlib.h>

#include "libcommon/arena.h"

static bool put(struct u64set *s, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 24) & (s->cap - 1);
	for (; s->v[i]; i = (i + 1) & (s->cap - 1))
		if (s->v[i] == key)
			return false;
	s->v[i] = key;
	s->len++;
	return true;
}

bool u64set_add(struct u64set *s, uint64_t key)
{
	if (2 * (s->len + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct u64set n = { xcalloc(cap, sizeof *n.v), cap, 0 };
		for (size_t i = 0; i < s->cap; i++)
			if (s->v[i])
				put(&n, s->v[i]);
		free(s->v);
		*s = n;
	}
	return put(s, key);
}

void u64set_free(struct u64set *s)
{
	free(s->v);
	*s = (struct u64set){ 0 };
}
