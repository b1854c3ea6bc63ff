/*
 * lex.c: the PTX lexer (see lex.h).  Comments and white space are skipped;
 * numbers are converted here so that the parser sees values.
 */
#include "libcommon/ptx/lex.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void lex_init(struct lex *lx, const char *text, size_t len)
{
	lx->p = text;
	lx->end = text + len;
	lx->line_start = text;
	lx->line = 1;
}

/* Character classes, one byte per character (ASCII; bytes >= 0x80 are in
 * no class). */
enum { C_FOLLOW = 1, C_START = 2, C_PUNCT = 4, C_SPACE = 8 };
static const unsigned char cclass[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 8, 8, 8, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	8, 4, 0, 0, 3, 2, 0, 0, 4, 4, 4, 4, 4, 4, 0, 4,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 4, 4, 4, 4, 0,
	4, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 0, 4, 0, 3,
	0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static bool is_follow(unsigned char c) { return cclass[c] & C_FOLLOW; }
static bool is_start(unsigned char c) { return cclass[c] & C_START; }

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void error(struct token *t, const char *msg)
{
	t->kind = T_ERROR;
	t->msg = msg;
}

/* Skips white space and comments; false on an unterminated comment. */
static bool skip_space(struct lex *lx)
{
	const char *p = lx->p, *end = lx->end;
	for (;;) {
		while (p < end && (cclass[(unsigned char)*p] & C_SPACE))
			p++;
		if (p >= end)
			break;
		if (*p == '\n') {
			p++;
			lx->line++;
			lx->line_start = p;
		} else if (*p == '/' && p + 1 < end && p[1] == '/') {
			p = memchr(p, '\n', (size_t)(end - p));
			if (!p)
				p = end;
		} else if (*p == '/' && p + 1 < end && p[1] == '*') {
			const char *start = p, *start_line = lx->line_start;
			unsigned line = lx->line;
			p += 2;
			for (;;) {
				if (p + 1 >= end) {
					/* Report the comment where it opens. */
					lx->p = start;
					lx->line = line;
					lx->line_start = start_line;
					return false;
				}
				if (*p == '*' && p[1] == '/') {
					p += 2;
					break;
				}
				if (*p == '\n') {
					lx->line++;
					lx->line_start = p + 1;
				}
				p++;
			}
		} else {
			break;
		}
	}
	lx->p = p;
	return true;
}

/* A number at p: integer (dec, 0x hex, 0b binary, 0 octal, optional U
 * suffix), 0f/0d float bits, or a decimal float. */
static void lex_number(struct lex *lx, struct token *t)
{
	const char *p = lx->p, *end = lx->end;
	uint64_t v = 0;
	if (p + 1 < end && p[0] == '0' && (p[1] == 'f' || p[1] == 'F' || p[1] == 'd' || p[1] == 'D')) {
		unsigned n = (p[1] == 'f' || p[1] == 'F') ? 8 : 16;
		p += 2;
		for (unsigned i = 0; i < n; i++, p++) {
			int h = p < end ? hexval((unsigned char)*p) : -1;
			if (h < 0) {
				lx->p = p;
				return error(t, "bad float literal");
			}
			v = v << 4 | (unsigned)h;
		}
		if (p < end && is_follow((unsigned char)*p)) {
			lx->p = p;
			return error(t, "bad float literal");
		}
		t->kind = T_FLOAT;
		t->u = v;
		t->fwidth = n * 4;
		lx->p = p;
		return;
	}
	/* Decimal float? digits '.' or exponent. */
	const char *q = p;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	if (q < end && (*q == '.' || *q == 'e' || *q == 'E')) {
		char buf[64];
		const char *r = q;
		if (*r == '.')
			for (r++; r < end && *r >= '0' && *r <= '9'; r++)
				;
		if (r < end && (*r == 'e' || *r == 'E')) {
			r++;
			if (r < end && (*r == '+' || *r == '-'))
				r++;
			while (r < end && *r >= '0' && *r <= '9')
				r++;
		}
		size_t n = (size_t)(r - p);
		if (n >= sizeof buf) {
			lx->p = r;
			return error(t, "float literal too long");
		}
		memcpy(buf, p, n);
		buf[n] = 0;
		char *e;
		double d = strtod(buf, &e);
		if ((size_t)(e - buf) != n || (r < end && is_follow((unsigned char)*r))) {
			lx->p = r;
			return error(t, "bad number");
		}
		memcpy(&v, &d, sizeof v);
		t->kind = T_FLOAT;
		t->u = v;
		t->fwidth = 64;
		lx->p = r;
		return;
	}
	unsigned base = 10;
	if (p + 1 < end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	} else if (p + 1 < end && p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
		base = 2;
		p += 2;
	} else if (p + 1 < end && p[0] == '0' && p[1] >= '0' && p[1] <= '9') {
		base = 8;
		p += 1;
	}
	const char *digits = p;
	for (; p < end; p++) {
		int h = hexval((unsigned char)*p);
		if (h < 0 || (unsigned)h >= base)
			break;
		if (v > (UINT64_MAX - (unsigned)h) / base) {
			lx->p = p;
			return error(t, "integer literal too large");
		}
		v = v * base + (unsigned)h;
	}
	if (p == digits) {
		lx->p = p;
		return error(t, "bad number");
	}
	if (p < end && (*p == 'U' || *p == 'u'))
		p++;
	if (p < end && is_follow((unsigned char)*p)) {
		lx->p = p;
		return error(t, "bad number");
	}
	t->kind = T_INT;
	t->u = v;
	lx->p = p;
}

void lex_next(struct lex *lx, struct token *t)
{
	bool closed = skip_space(lx);
	const char *p = lx->p, *end = lx->end;
	t->s = p;
	t->line = lx->line;
	t->col = (unsigned)(p - lx->line_start) + 1;
	t->u = 0;
	t->fwidth = 0;
	if (!closed)
		return error(t, "unterminated comment");
	if (p >= end) {
		t->kind = T_EOF;
		t->len = 0;
		return;
	}
	unsigned char c = (unsigned char)*p;
	if (is_start(c)) {
		p++;
		for (;;) {
			while (p < end && is_follow((unsigned char)*p))
				p++;
			if (p + 1 < end && *p == '.' && is_follow((unsigned char)p[1]))
				p++;
			else
				break;
		}
		t->kind = T_WORD;
	} else if (c == '.' && p + 1 < end && is_start((unsigned char)p[1])) {
		p += 2;
		while (p < end && is_follow((unsigned char)*p))
			p++;
		t->kind = T_DIR;
	} else if (c >= '0' && c <= '9') {
		lx->p = p;
		lex_number(lx, t);
		t->len = (unsigned)(lx->p - t->s);
		return;
	} else if (c == '"') {
		p++;
		while (p < end && *p != '"' && *p != '\n')
			p += (*p == '\\' && p + 1 < end && p[1] != '\n') ? 2 : 1;
		if (p >= end || *p != '"') {
			lx->p = p;
			t->len = (unsigned)(p - t->s);
			return error(t, "unterminated string");
		}
		p++;
		t->kind = T_STRING;
	} else if (cclass[c] & C_PUNCT) {
		p++;
		t->kind = c;
	} else {
		lx->p = p;
		t->len = 1;
		return error(t, "unexpected character");
	}
	lx->p = p;
	t->len = (unsigned)(p - t->s);
}
