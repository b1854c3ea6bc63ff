/*
 * arena.c: region allocation (see arena.h) and the exit-on-failure heap
 * helpers every tool uses.
 */
#include "libcommon/arena.h"
#include "libcommon/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

#define CHUNK_MIN (64 * 1024)

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->used = 0;
}

void *arena_alloc(struct arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	struct arena_chunk *c = a->head;
	if (!c || c->size - c->used < size) {
		size_t n = size > CHUNK_MIN ? size : CHUNK_MIN;
		c = xmalloc(sizeof *c + n);
		c->size = n;
		c->used = 0;
		/* A big block goes behind the current chunk so the rest of the
		 * current chunk stays usable. */
		if (a->head && size > CHUNK_MIN / 4) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	void *p = c->data + c->used;
	c->used += size;
	a->used += size;
	memset(p, 0, size);
	return p;
}

void *arena_memdup(struct arena *a, const void *p, size_t n)
{
	void *q = arena_alloc(a, n ? n : 1);
	if (n)
		memcpy(q, p, n);
	return q;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *q = arena_alloc(a, n + 1);
	memcpy(q, s, n);
	q[n] = 0;
	return q;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void arena_release(struct arena *a)
{
	if (!a)
		return;
	struct arena_chunk *c = a->head;
	while (c) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->used = 0;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}
