/*
 * lex.h: the PTX lexer, private to libcommon/ptx.  It turns text into
 * tokens one at a time, on demand; it allocates nothing.
 *
 * Words: an opcode or name with its dotted suffixes ("ld.global.f32",
 * "%tid.x", "$L__BB0_2"), or a directive of one component (".param";
 * ".ptr.global" is two tokens).  Punctuation is its own character.
 */
#ifndef DIRIGO_PTX_LEX_H
#define DIRIGO_PTX_LEX_H

#include <stddef.h>
#include <stdint.h>

enum tok_kind {
	/* 1..255: the punctuation character itself: , ; : ( ) [ ] { } < > + - @ ! | = */
	T_EOF = 256,
	T_WORD,       /* identifier, opcode, register, label */
	T_DIR,        /* .directive (text includes the dot) */
	T_INT,        /* integer literal: u */
	T_FLOAT,      /* 0fXXXXXXXX (fwidth 32), 0dX.. or decimal (fwidth 64): u = bits */
	T_STRING,     /* "..." (text includes the quotes) */
	T_ERROR,      /* bad input: msg says why */
};

struct token {
	int kind;
	const char *s;        /* text in the input */
	unsigned len;
	unsigned line, col;   /* 1-based */
	uint64_t u;           /* T_INT value, T_FLOAT bits */
	unsigned fwidth;      /* T_FLOAT: 32 or 64 */
	const char *msg;      /* T_ERROR */
};

struct lex {
	const char *p, *end;
	const char *line_start;
	unsigned line;
};

/* Starts lexing text[0..len). */
void lex_init(struct lex *lx, const char *text, size_t len);
/* Reads the next token into t (T_EOF at the end, T_ERROR on bad input;
 * both repeat if called again). */
void lex_next(struct lex *lx, struct token *t);

#endif
