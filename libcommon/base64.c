/*
 * base64.c: RFC 4648 base64 encoding and strict decoding.
 */
#include "libcommon/base64.h"
#include "libcommon/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const void *data, size_t n)
{
	const unsigned char *p = data;
	char *out = xmalloc(4 * ((n + 2) / 3) + 1), *q = out;
	size_t i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		*q++ = alphabet[v >> 18];
		*q++ = alphabet[(v >> 12) & 63];
		*q++ = alphabet[(v >> 6) & 63];
		*q++ = alphabet[v & 63];
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)p[i] << 16;
		*q++ = alphabet[v >> 18];
		*q++ = alphabet[(v >> 12) & 63];
		*q++ = '=';
		*q++ = '=';
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
		*q++ = alphabet[v >> 18];
		*q++ = alphabet[(v >> 12) & 63];
		*q++ = alphabet[(v >> 6) & 63];
		*q++ = '=';
	}
	*q = 0;
	return out;
}

static int digit(char c)
{
	const char *p = c ? strchr(alphabet, c) : NULL;
	return p ? (int)(p - alphabet) : -1;
}

void *base64_decode(const char *s, size_t *n)
{
	size_t len = strlen(s);
	if (len % 4)
		return NULL;
	unsigned char *out = xmalloc(len / 4 * 3 + 1);
	size_t o = 0;
	for (size_t i = 0; i < len; i += 4) {
		int d[4];
		int pad = 0;
		for (int k = 0; k < 4; k++) {
			char c = s[i + k];
			if (c == '=' && i + 4 == len && k >= 2) {
				d[k] = 0;
				pad++;
			} else if (pad || (d[k] = digit(c)) < 0) {
				free(out);
				return NULL;
			}
		}
		uint32_t v = (uint32_t)d[0] << 18 | (uint32_t)d[1] << 12 | (uint32_t)d[2] << 6 | (uint32_t)d[3];
		out[o++] = (unsigned char)(v >> 16);
		if (pad < 2)
			out[o++] = (unsigned char)(v >> 8);
		if (pad < 1)
			out[o++] = (unsigned char)v;
	}
	*n = o;
	return out;
}
