/*
 * base64.h: RFC 4648 base64, for binary fields in JSON Lines (dcat).
 */
#ifndef DIRIGO_BASE64_H
#define DIRIGO_BASE64_H

#include <stdbool.h>
#include <stddef.h>

/* Returns a NUL-terminated heap string; the caller frees it. */
char *base64_encode(const void *data, size_t n);
/* Decodes s (padding required, no whitespace) into a heap buffer of *n
 * bytes; NULL if s is not valid base64.  The caller frees it. */
void *base64_decode(const char *s, size_t *n);

#endif
