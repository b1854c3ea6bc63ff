/*
 * arena.h: region allocation.  Everything a stage builds for one unit of work
 * (a record, a launch, a location) lives in one arena and is freed at once.
 *
 * Allocation never fails: on out-of-memory the process prints a message and
 * exits with status 2 (trouble), like the xmalloc family below.
 */
#ifndef DIRIGO_ARENA_H
#define DIRIGO_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
	size_t used;          /* bytes handed out, for statistics */
};

#define ARENA_INIT { 0, 0 }

void  arena_init(struct arena *a);
/* Zeroed memory, aligned for any type; lives until arena_release. */
void *arena_alloc(struct arena *a, size_t size);
void *arena_memdup(struct arena *a, const void *p, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Frees every chunk; the arena is empty and reusable afterwards.  NULL ok. */
void  arena_release(struct arena *a);

#define ARENA_NEW(a, type)        ((type *)arena_alloc((a), sizeof(type)))
#define ARENA_NEWN(a, type, n)    ((type *)arena_alloc((a), sizeof(type) * (size_t)(n)))

/* Heap helpers that exit(2) on failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* Growable array of fixed-size items on the heap: VEC_PUSH(v, item). */
#define VEC(type) struct { type *items; size_t len, cap; }
#define VEC_PUSH(v, item) do { \
	if ((v).len == (v).cap) { \
		(v).cap = (v).cap ? 2 * (v).cap : 8; \
		(v).items = xrealloc((v).items, (v).cap * sizeof *(v).items); \
	} \
	(v).items[(v).len++] = (item); \
} while (0)
#define VEC_FREE(v) do { free((v).items); (v).items = NULL; (v).len = (v).cap = 0; } while (0)

#endif
