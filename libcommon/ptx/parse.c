/*
 * parse.c: the PTX parser (see ptx.h).  One pass over the tokens of lex.c
 * builds a struct ptx_module in the caller's arena.  Names are interned in
 * a hash table that also carries per-function facts about a name (its
 * register index, its label), so lookups during the pass cost one hash.
 *
 * Errors unwind with longjmp to ptx_parse; everything that is not in the
 * arena hangs off struct parser and is freed there on both paths.
 */
#include "libcommon/ptx/ptx.h"
#include "libcommon/ptx/lex.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NEST     8          /* operand and initialiser nesting */
#define MAX_SCOPE    1024       /* { } scopes in a body */
#define MAX_OPS      32         /* operands of one instruction */
#define MAX_ELEMS    64         /* elements of one {..}, (..) or [..] list */
#define MAX_DECL     (1u << 20) /* registers in one %r<N>; elements of an array */
#define MAX_BYTES    (1u << 28) /* bytes of one initialised variable */

struct opinfo {                 /* an opcode word split at its dots */
	const char *opcode;
	const char **mods;
	unsigned nmods;
	enum ptx_type type, type2;
};

struct name {                   /* one interned name */
	const char *s;
	uint32_t len, hash;
	unsigned reg_gen;       /* reg is valid when reg_gen == parser.gen */
	int reg;
	unsigned reg_depth;     /* { } scope depth of reg's declaration */
	unsigned label_gen;     /* label is valid when label_gen == parser.gen */
	unsigned label;
	int func;               /* 1 + index in funcs, 0 if none */
	signed char sreg;       /* special register: -1 not known yet, 0 no, 1 yes */
	struct opinfo *op;
};

struct shadow {                 /* an outer register hidden by an inner one */
	struct name *n;
	int reg;
	unsigned reg_depth, depth;
};

struct fixup {                  /* a branch target to resolve at the end of a body */
	struct ptx_operand *op;
	struct name *name;
	unsigned line, col;
};

struct parser {
	struct arena *a;
	struct ptx_module *m;   /* the result, complete when parse_module returns */
	struct lex lx;
	struct token tok;
	jmp_buf fail;
	char *err;
	size_t errlen;

	struct name **tab;
	size_t tabcap, tabn;
	const char *s_bra;      /* interned "bra" */

	VEC(struct ptx_func) funcs;
	VEC(struct ptx_var) mvars;
	VEC(const char *) files;
	VEC(const char *) topts;

	/* The function being parsed; gen numbers it. */
	unsigned gen;
	VEC(struct ptx_instr) instrs;
	VEC(struct ptx_label) labels;
	VEC(struct ptx_var) fvars;
	VEC(struct ptx_reg) regs;
	/* A register declared again in an inner { } scope is a new register
	 * that hides the outer one until the scope closes. */
	VEC(struct shadow) shadows;
	unsigned depth;         /* current { } depth inside a body (1: the body) */
	VEC(struct ptx_param) params;
	VEC(struct fixup) fixups;
	unsigned loc_file, loc_line;
	unsigned call_file, call_line;   /* inlined_at of the last .loc, 0 if none */

	/* The initialiser being parsed. */
	VEC(unsigned char) bytes;
	VEC(struct ptx_init_sym) isyms;
};

/* ---- errors ---- */

static _Noreturn void fail_at(struct parser *p, unsigned line, unsigned col,
                              const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static _Noreturn void fail_at(struct parser *p, unsigned line, unsigned col,
                              const char *fmt, ...)
{
	if (p->err && p->errlen) {
		int n = snprintf(p->err, p->errlen, "%u:%u: ", line, col);
		if (n >= 0 && (size_t)n < p->errlen) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	longjmp(p->fail, 1);
}

/* Fails with "unexpected ..." at the current token. */
static _Noreturn void unexpected(struct parser *p, const char *what)
{
	const struct token *t = &p->tok;
	if (t->kind == T_EOF)
		fail_at(p, t->line, t->col, "unexpected end of input%s%s",
		        what ? ", expected " : "", what ? what : "");
	char text[40];
	unsigned n = t->len < 32 ? t->len : 32;
	size_t j = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t->s[i];
		text[j++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	text[j] = 0;
	fail_at(p, t->line, t->col, "unexpected token '%s%s'%s%s", text,
	        t->len > n ? "..." : "", what ? ", expected " : "", what ? what : "");
}

/* ---- tokens ---- */

static void next(struct parser *p)
{
	lex_next(&p->lx, &p->tok);
	if (p->tok.kind == T_ERROR)
		fail_at(p, p->tok.line, p->tok.col, "%s", p->tok.msg);
}

/* The token after the current one, without consuming anything. */
static int peek_kind(struct parser *p)
{
	struct lex save = p->lx;
	struct token t;
	lex_next(&p->lx, &t);
	p->lx = save;
	return t.kind;
}

static void expect(struct parser *p, int kind, const char *what)
{
	if (p->tok.kind != kind)
		unexpected(p, what);
	next(p);
}

static bool is_dir(const struct parser *p, const char *d)
{
	size_t n = strlen(d);
	return p->tok.kind == T_DIR && p->tok.len == n && memcmp(p->tok.s, d, n) == 0;
}

static uint64_t expect_int(struct parser *p, const char *what)
{
	if (p->tok.kind != T_INT)
		unexpected(p, what);
	uint64_t v = p->tok.u;
	next(p);
	return v;
}

/* An integer that fits an unsigned, for counts and sizes. */
static unsigned expect_uint(struct parser *p, const char *what)
{
	unsigned line = p->tok.line, col = p->tok.col;
	uint64_t v = expect_int(p, what);
	if (v > UINT32_MAX)
		fail_at(p, line, col, "%s too large", what);
	return (unsigned)v;
}

/* Skips to the next ';' and consumes it. */
static void skip_statement(struct parser *p)
{
	while (p->tok.kind != ';' && p->tok.kind != T_EOF)
		next(p);
	expect(p, ';', "';'");
}

/* Skips the rest of the line of a line-terminated directive (.loc, .file). */
static void skip_line(struct parser *p, unsigned line)
{
	while (p->tok.line == line && p->tok.kind != T_EOF)
		next(p);
}

/* ---- names ---- */

static uint32_t hash_bytes(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static void tab_grow(struct parser *p, size_t want)
{
	size_t cap = p->tabcap ? 2 * p->tabcap : 1024;
	while (cap < want)
		cap *= 2;
	struct name **t = xcalloc(cap, sizeof *t);
	for (size_t i = 0; i < p->tabcap; i++) {
		struct name *n = p->tab[i];
		if (!n)
			continue;
		size_t j = n->hash & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = n;
	}
	free(p->tab);
	p->tab = t;
	p->tabcap = cap;
}

static struct name *intern(struct parser *p, const char *s, size_t len)
{
	if (2 * (p->tabn + 1) > p->tabcap)
		tab_grow(p, 0);
	uint32_t h = hash_bytes(s, len);
	size_t j = h & (p->tabcap - 1);
	for (struct name *n; (n = p->tab[j]); j = (j + 1) & (p->tabcap - 1))
		if (n->hash == h && n->len == len && memcmp(n->s, s, len) == 0)
			return n;
	struct name *n = ARENA_NEW(p->a, struct name);
	n->s = arena_strndup(p->a, s, len);
	n->len = (uint32_t)len;
	n->hash = h;
	n->sreg = -1;
	p->tab[j] = n;
	p->tabn++;
	return n;
}

static struct name *tok_name(struct parser *p)
{
	return intern(p, p->tok.s, p->tok.len);
}

static enum ptx_type type_of(const char *s, size_t n)
{
	char buf[16];
	if (n == 0 || n >= sizeof buf)
		return PT_NONE;
	memcpy(buf, s, n);
	buf[n] = 0;
	return ptx_type_from_name(buf);
}

/* The type of a directive token like ".u32", PT_NONE if it is none. */
static enum ptx_type tok_type(const struct parser *p)
{
	return p->tok.kind == T_DIR ? type_of(p->tok.s + 1, p->tok.len - 1) : PT_NONE;
}

static enum ptx_space tok_space(const struct parser *p)
{
	static const struct { const char *d; enum ptx_space s; } spaces[] = {
		{ ".global", PS_GLOBAL }, { ".const", PS_CONST }, { ".shared", PS_SHARED },
		{ ".local", PS_LOCAL }, { ".param", PS_PARAM }, { ".reg", PS_REG },
	};
	for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++)
		if (is_dir(p, spaces[i].d))
			return spaces[i].s;
	return PS_NONE;
}

/* .v2 / .v4 / .v8 -> 2 / 4 / 8, else 0. */
static unsigned tok_vec(const struct parser *p)
{
	if (is_dir(p, ".v2"))
		return 2;
	if (is_dir(p, ".v4"))
		return 4;
	if (is_dir(p, ".v8"))
		return 8;
	return 0;
}

static unsigned type_bytes(enum ptx_type t)
{
	unsigned b = ptx_type_bits(t) / 8;
	return b ? b : 1;
}

static bool is_sreg_name(const char *s)
{
	static const char *const names[] = {
		"tid", "ntid", "ctaid", "nctaid", "laneid", "warpid", "nwarpid",
		"smid", "nsmid", "gridid", "clock", "clock64", "clock_hi",
		"lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge", "lanemask_gt",
		"globaltimer", "globaltimer_lo", "globaltimer_hi",
		"dynamic_smem_size", "total_smem_size", "aggr_smem_size",
		"reserved_smem_offset_begin", "reserved_smem_offset_end",
		"reserved_smem_offset_cap", "reserved_smem_offset_0", "reserved_smem_offset_1",
		"clusterid", "nclusterid", "cluster_ctaid", "cluster_nctaid",
		"cluster_ctarank", "cluster_nctarank", "is_explicit_cluster",
		"current_graph_exec",
	};
	if (s[0] != '%')
		return false;
	s++;
	size_t n = strcspn(s, ".");
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0)
			return true;
	const char *digits = NULL;
	if (strncmp(s, "envreg", 6) == 0)
		digits = s + 6;
	else if (strncmp(s, "pm", 2) == 0)
		digits = s + 2;
	if (digits && *digits >= '0' && *digits <= '9') {
		while (*digits >= '0' && *digits <= '9')
			digits++;
		return *digits == 0 || strcmp(digits, "_64") == 0;
	}
	return false;
}

static struct opinfo *opinfo(struct parser *p, struct name *n)
{
	if (n->op)
		return n->op;
	struct opinfo *o = ARENA_NEW(p->a, struct opinfo);
	const char *s = n->s, *dot = strchr(s, '.');
	size_t len = dot ? (size_t)(dot - s) : strlen(s);
	o->opcode = intern(p, s, len)->s;
	unsigned nmods = 0;
	for (const char *q = dot; q; q = strchr(q + 1, '.'))
		nmods++;
	o->mods = ARENA_NEWN(p->a, const char *, nmods ? nmods : 1);
	for (const char *q = dot; q; ) {
		const char *e = strchr(q + 1, '.');
		size_t m = e ? (size_t)(e - q - 1) : strlen(q + 1);
		o->mods[o->nmods++] = intern(p, q + 1, m)->s;
		enum ptx_type t = type_of(q + 1, m);
		if (t != PT_NONE) {
			o->type2 = o->type;
			o->type = t;
		}
		q = e;
	}
	n->op = o;
	return o;
}

/* ---- registers and labels of the current function ---- */

static int declare_reg(struct parser *p, struct name *n, enum ptx_type t, unsigned vec)
{
	if (n->reg_gen == p->gen && n->reg_depth >= p->depth) {
		p->regs.items[n->reg].type = t;
		p->regs.items[n->reg].vec = vec;
		return n->reg;
	}
	if (n->reg_gen == p->gen) {
		struct shadow sh = { n, n->reg, n->reg_depth, p->depth };
		VEC_PUSH(p->shadows, sh);
	}
	struct ptx_reg r = { n->s, t, vec };
	VEC_PUSH(p->regs, r);
	n->reg_gen = p->gen;
	n->reg = (int)(p->regs.len - 1);
	n->reg_depth = p->depth;
	return n->reg;
}

/* Closing the scope at p->depth: outer registers hidden in it come back. */
static void close_scope(struct parser *p)
{
	while (p->shadows.len && p->shadows.items[p->shadows.len - 1].depth == p->depth) {
		struct shadow *sh = &p->shadows.items[--p->shadows.len];
		sh->n->reg = sh->reg;
		sh->n->reg_depth = sh->reg_depth;
	}
}

static int use_reg(struct parser *p, struct name *n)
{
	return n->reg_gen == p->gen ? n->reg : declare_reg(p, n, PT_NONE, 1);
}

/* ---- operands ---- */

static void parse_operand(struct parser *p, struct ptx_operand *op, int depth);

/* Operands up to the closing character; returns them in the arena. */
static struct ptx_operand *parse_list(struct parser *p, int close, unsigned *n, int depth)
{
	struct ptx_operand tmp[MAX_ELEMS];
	unsigned k = 0;
	if (p->tok.kind != close) {
		for (;;) {
			if (k == MAX_ELEMS)
				fail_at(p, p->tok.line, p->tok.col, "too many elements");
			parse_operand(p, &tmp[k++], depth + 1);
			if (p->tok.kind != ',')
				break;
			next(p);
		}
	}
	expect(p, close, close == '}' ? "'}'" : close == ')' ? "')'" : "']'");
	*n = k;
	return k ? arena_memdup(p->a, tmp, k * sizeof tmp[0]) : NULL;
}

static void parse_address(struct parser *p, struct ptx_operand *op, int depth)
{
	next(p);
	op->kind = PO_ADDR;
	if (p->tok.kind == T_WORD) {
		struct name *n = tok_name(p);
		op->name = n->s;
		if (n->s[0] == '%')
			op->reg = use_reg(p, n);
		else
			op->base_is_sym = true;
		next(p);
		if (p->tok.kind == '+' || p->tok.kind == '-') {
			bool neg = p->tok.kind == '-';
			next(p);
			if (p->tok.kind == '-') {
				neg = !neg;
				next(p);
			}
			uint64_t v = expect_int(p, "an offset");
			op->imm = (int64_t)(neg ? 0 - v : v);
		}
	} else if (p->tok.kind == T_INT) {
		op->imm = (int64_t)p->tok.u;
		next(p);
	} else {
		unexpected(p, "an address");
	}
	if (p->tok.kind == ',') {
		next(p);
		op->elems = parse_list(p, ']', &op->nelems, depth);
	} else {
		expect(p, ']', "']'");
	}
}

static void parse_primary(struct parser *p, struct ptx_operand *op, int depth)
{
	if (depth > MAX_NEST)
		fail_at(p, p->tok.line, p->tok.col, "operand nested too deeply");
	op->reg = -1;
	switch (p->tok.kind) {
	case '-':
		next(p);
		if (p->tok.kind == T_INT) {
			op->kind = PO_IMM;
			op->imm = (int64_t)(0 - p->tok.u);
		} else if (p->tok.kind == T_FLOAT) {
			op->kind = PO_FIMM;
			op->fwidth = p->tok.fwidth;
			op->bits = p->tok.u ^ ((uint64_t)1 << (p->tok.fwidth - 1));
		} else {
			unexpected(p, "a number");
		}
		next(p);
		return;
	case T_INT:
		op->kind = PO_IMM;
		op->imm = (int64_t)p->tok.u;
		next(p);
		return;
	case T_FLOAT:
		op->kind = PO_FIMM;
		op->bits = p->tok.u;
		op->fwidth = p->tok.fwidth;
		next(p);
		return;
	case T_WORD: {
		if (p->tok.len == 1 && p->tok.s[0] == '_') {
			op->kind = PO_SINK;
			next(p);
			return;
		}
		struct name *n = tok_name(p);
		op->name = n->s;
		if (n->s[0] != '%') {
			op->kind = PO_SYM;
		} else if (n->reg_gen == p->gen) {
			op->kind = PO_REG;
			op->reg = n->reg;
		} else {
			if (n->sreg < 0)
				n->sreg = is_sreg_name(n->s);
			if (n->sreg) {
				op->kind = PO_SREG;
			} else {
				op->kind = PO_REG;
				op->reg = use_reg(p, n);
			}
		}
		next(p);
		return;
	}
	case '{':
		next(p);
		op->kind = PO_VEC;
		op->elems = parse_list(p, '}', &op->nelems, depth);
		return;
	case '(':
		next(p);
		op->kind = PO_PARAMLIST;
		op->elems = parse_list(p, ')', &op->nelems, depth);
		return;
	case '[':
		parse_address(p, op, depth);
		return;
	default:
		unexpected(p, "an operand");
	}
}

static void parse_operand(struct parser *p, struct ptx_operand *op, int depth)
{
	memset(op, 0, sizeof *op);
	bool neg = false;
	if (p->tok.kind == '!') {
		neg = true;
		next(p);
	}
	parse_primary(p, op, depth);
	op->neg = neg;
	if (p->tok.kind == '|') {
		next(p);
		struct ptx_operand *e = ARENA_NEWN(p->a, struct ptx_operand, 2);
		e[0] = *op;
		parse_primary(p, &e[1], depth + 1);
		memset(op, 0, sizeof *op);
		op->kind = PO_PAIR;
		op->reg = -1;
		op->elems = e;
		op->nelems = 2;
	}
}

/* ---- statements in a body ---- */

static void parse_instr(struct parser *p)
{
	struct ptx_instr in;
	memset(&in, 0, sizeof in);
	in.line = p->tok.line;
	in.loc_file = p->loc_file;
	in.loc_line = p->loc_line;
	in.call_file = p->call_file;
	in.call_line = p->call_line;
	in.guard_reg = -1;
	if (p->tok.kind == '@') {
		next(p);
		if (p->tok.kind == '!') {
			in.guard_neg = true;
			next(p);
		}
		if (p->tok.kind != T_WORD || p->tok.s[0] != '%')
			unexpected(p, "a predicate register");
		struct name *g = tok_name(p);
		in.guard = g->s;
		in.guard_reg = use_reg(p, g);
		next(p);
	}
	if (p->tok.kind != T_WORD)
		unexpected(p, "an instruction");
	struct opinfo *o = opinfo(p, tok_name(p));
	in.opcode = o->opcode;
	in.mods = o->mods;
	in.nmods = o->nmods;
	in.type = o->type;
	in.type2 = o->type2;
	next(p);

	struct ptx_operand ops[MAX_OPS];
	unsigned pos[MAX_OPS][2];
	unsigned n = 0;
	if (p->tok.kind != ';') {
		for (;;) {
			if (n == MAX_OPS)
				fail_at(p, p->tok.line, p->tok.col, "too many operands");
			pos[n][0] = p->tok.line;
			pos[n][1] = p->tok.col;
			parse_operand(p, &ops[n++], 0);
			if (p->tok.kind != ',')
				break;
			next(p);
		}
	}
	expect(p, ';', "';'");
	if (n) {
		in.ops = arena_memdup(p->a, ops, n * sizeof ops[0]);
		in.nops = n;
	}
	if (in.opcode == p->s_bra) {
		for (unsigned i = 0; i < n; i++) {
			if (in.ops[i].kind != PO_SYM)
				continue;
			in.ops[i].kind = PO_LABEL;
			struct fixup f = { &in.ops[i], intern(p, in.ops[i].name, strlen(in.ops[i].name)),
			                   pos[i][0], pos[i][1] };
			VEC_PUSH(p->fixups, f);
		}
	}
	VEC_PUSH(p->instrs, in);
}

/* .reg [.v2] .type name, name<N>, ...; */
static void parse_regs(struct parser *p)
{
	next(p);
	enum ptx_type t = PT_NONE;
	unsigned vec = 1;
	while (p->tok.kind == T_DIR) {
		enum ptx_type tt = tok_type(p);
		unsigned v = tok_vec(p);
		if (tt != PT_NONE) {
			t = tt;
		} else if (v) {
			vec = v;
		} else if (is_dir(p, ".align")) {
			next(p);
			expect_uint(p, "an alignment");
			continue;
		} else {
			unexpected(p, "a register type");
		}
		next(p);
	}
	if (t == PT_NONE)
		unexpected(p, "a register type");
	for (;;) {
		if (p->tok.kind != T_WORD)
			unexpected(p, "a register name");
		const char *s = p->tok.s;
		unsigned len = p->tok.len, line = p->tok.line, col = p->tok.col;
		next(p);
		if (p->tok.kind == '<') {
			next(p);
			unsigned cnt = expect_uint(p, "a register count");
			expect(p, '>', "'>'");
			char buf[128];
			if (cnt > MAX_DECL || len + 12 > sizeof buf)
				fail_at(p, line, col, "register declaration too large");
			memcpy(buf, s, len);
			for (unsigned i = 0; i < cnt; i++) {
				char digits[12];
				unsigned k = 0;
				for (unsigned v = i; k == 0 || v; v /= 10)
					digits[k++] = (char)('0' + v % 10);
				for (unsigned j = 0; j < k; j++)
					buf[len + j] = digits[k - 1 - j];
				declare_reg(p, intern(p, buf, len + k), t, vec);
			}
		} else {
			declare_reg(p, intern(p, s, len), t, vec);
		}
		if (p->tok.kind != ',')
			break;
		next(p);
	}
	expect(p, ';', "';'");
}

/* .loc file line [col] [, function_name ..., inlined_at ...] (line-terminated) */
static void parse_loc(struct parser *p)
{
	unsigned line = p->tok.line;
	next(p);
	unsigned file = expect_uint(p, "a file number");
	unsigned l = expect_uint(p, "a line number");
	p->loc_file = file;
	p->loc_line = l;
	p->call_file = p->call_line = 0;
	/* the call site of an inlined function: inlined_at FILE LINE [COL] */
	while (p->tok.line == line && p->tok.kind != T_EOF) {
		bool at = p->tok.kind == T_WORD && p->tok.len == 10 && !memcmp(p->tok.s, "inlined_at", 10);
		next(p);
		if (at && p->tok.line == line && p->tok.kind == T_INT) {
			unsigned cf = expect_uint(p, "a file number");
			if (p->tok.line == line && p->tok.kind == T_INT) {
				p->call_file = cf;
				p->call_line = expect_uint(p, "a line number");
			}
		}
	}
}

static void parse_vars(struct parser *p, bool is_extern, bool is_visible, bool in_func);

static void add_label(struct parser *p)
{
	struct name *n = tok_name(p);
	unsigned line = p->tok.line, col = p->tok.col;
	next(p);
	expect(p, ':', "':'");
	if (is_dir(p, ".callprototype") || is_dir(p, ".branchtargets") || is_dir(p, ".calltargets")) {
		skip_statement(p);
		return;
	}
	if (n->label_gen == p->gen)
		fail_at(p, line, col, "duplicate label '%s'", n->s);
	n->label_gen = p->gen;
	n->label = (unsigned)p->labels.len;
	struct ptx_label lb = { n->s, (unsigned)p->instrs.len };
	VEC_PUSH(p->labels, lb);
}

/* The statements of a body after its '{', up to and including the matching '}'. */
static void parse_body(struct parser *p)
{
	p->depth = 1;
	next(p);
	for (;;) {
		switch (p->tok.kind) {
		case '}':
			next(p);
			close_scope(p);
			if (--p->depth == 0)
				return;
			break;
		case '{':
			if (++p->depth > MAX_SCOPE)
				fail_at(p, p->tok.line, p->tok.col, "scopes nested too deeply");
			next(p);
			break;
		case '@':
			parse_instr(p);
			break;
		case T_WORD:
			if (peek_kind(p) == ':')
				add_label(p);
			else
				parse_instr(p);
			break;
		case T_DIR:
			if (is_dir(p, ".reg"))
				parse_regs(p);
			else if (is_dir(p, ".loc"))
				parse_loc(p);
			else if (is_dir(p, ".pragma"))
				skip_statement(p);
			else if (tok_space(p) != PS_NONE)
				parse_vars(p, false, false, true);
			else
				fail_at(p, p->tok.line, p->tok.col, "unsupported directive '%.*s'",
				        (int)(p->tok.len < 40 ? p->tok.len : 40), p->tok.s);
			break;
		default:
			unexpected(p, NULL);
		}
	}
}

/* ---- variables ---- */

static void put_bytes(struct parser *p, uint64_t v, bool neg, unsigned size)
{
	if (p->bytes.len + size > MAX_BYTES)
		fail_at(p, p->tok.line, p->tok.col, "initialiser too large");
	for (unsigned i = 0; i < size; i++) {
		unsigned char b = i < 8 ? (unsigned char)(v >> (8 * i)) : neg ? 0xff : 0;
		VEC_PUSH(p->bytes, b);
	}
}

static uint64_t float_bits(double d, unsigned size)
{
	if (size == 4) {
		float f = (float)d;
		uint32_t u;
		memcpy(&u, &f, sizeof u);
		return u;
	}
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

/* One element (or a nested {..} list) of an initialiser. */
static void parse_init(struct parser *p, enum ptx_type t, unsigned esize, int depth)
{
	if (depth > MAX_NEST)
		fail_at(p, p->tok.line, p->tok.col, "initialiser nested too deeply");
	if (p->tok.kind == '{') {
		next(p);
		if (p->tok.kind != '}') {
			for (;;) {
				parse_init(p, t, esize, depth + 1);
				if (p->tok.kind != ',')
					break;
				next(p);
			}
		}
		expect(p, '}', "'}'");
		return;
	}
	bool neg = false;
	if (p->tok.kind == '-') {
		neg = true;
		next(p);
	}
	bool isfloat = ptx_type_is_float(t) && (esize == 4 || esize == 8);
	if (p->tok.kind == T_INT) {
		uint64_t v = neg ? 0 - p->tok.u : p->tok.u;
		if (isfloat)
			v = float_bits(neg ? -(double)p->tok.u : (double)p->tok.u, esize);
		put_bytes(p, v, neg && !isfloat, esize);
		next(p);
	} else if (p->tok.kind == T_FLOAT) {
		uint64_t v = p->tok.u;
		unsigned w = p->tok.fwidth;
		if (w == 64 && esize == 4 && isfloat) {
			double d;
			memcpy(&d, &v, sizeof d);
			v = float_bits(d, 4);
			w = 32;
		}
		if (neg)
			v ^= (uint64_t)1 << (w - 1);
		put_bytes(p, v, false, esize);
		next(p);
	} else if (p->tok.kind == T_WORD && !neg) {
		struct ptx_init_sym s = { (unsigned)p->bytes.len, esize, NULL, 0, false };
		if (p->tok.len == 7 && memcmp(p->tok.s, "generic", 7) == 0 && peek_kind(p) == '(') {
			s.generic = true;
			next(p);
			next(p);
			if (p->tok.kind != T_WORD)
				unexpected(p, "a symbol");
			s.sym = tok_name(p)->s;
			next(p);
			expect(p, ')', "')'");
		} else {
			s.sym = tok_name(p)->s;
			next(p);
		}
		if (p->tok.kind == '+' || p->tok.kind == '-') {
			bool m = p->tok.kind == '-';
			next(p);
			uint64_t v = expect_int(p, "an offset");
			s.addend = (int64_t)(m ? 0 - v : v);
		}
		VEC_PUSH(p->isyms, s);
		put_bytes(p, 0, false, esize);
	} else {
		unexpected(p, "an initialiser");
	}
}

/* [linkage] .space [.align N] [.vN] .type name[dims] [= init], ...;  The
 * current token is the space; linkage was read by the caller. */
static void parse_vars(struct parser *p, bool is_extern, bool is_visible, bool in_func)
{
	struct ptx_var v;
	memset(&v, 0, sizeof v);
	v.space = tok_space(p);
	v.is_extern = is_extern;
	v.is_visible = is_visible;
	v.line = p->tok.line;
	v.vec = 1;
	bool opaque = false;
	next(p);
	while (p->tok.kind == T_DIR) {
		enum ptx_type t = tok_type(p);
		unsigned vec = tok_vec(p);
		if (t != PT_NONE) {
			v.type = t;
		} else if (vec) {
			v.vec = vec;
		} else if (is_dir(p, ".align")) {
			next(p);
			unsigned line = p->tok.line, col = p->tok.col;
			v.align = expect_uint(p, "an alignment");
			if (v.align == 0 || (v.align & (v.align - 1)))
				fail_at(p, line, col, "bad alignment %u", v.align);
			continue;
		} else if (is_dir(p, ".texref") || is_dir(p, ".samplerref") || is_dir(p, ".surfref")) {
			opaque = true;
		} else if (is_dir(p, ".attribute")) {
			next(p);
			expect(p, '(', "'('");
			while (p->tok.kind != ')' && p->tok.kind != T_EOF)
				next(p);
			expect(p, ')', "')'");
			continue;
		} else if (is_dir(p, ".ptr")) {
			/* .param .u64 .ptr ... inside a body: a pointer hint, nothing to keep */
		} else if (tok_space(p) != PS_NONE && v.space == PS_PARAM) {
			/* .ptr .global */
		} else {
			unexpected(p, "a type");
		}
		next(p);
	}
	if (v.type == PT_NONE && !opaque)
		unexpected(p, "a type");
	unsigned esize = opaque ? 8 : type_bytes(v.type);
	for (;;) {
		struct ptx_var w = v;
		if (p->tok.kind != T_WORD)
			unexpected(p, "a variable name");
		unsigned line = p->tok.line, col = p->tok.col;
		w.name = tok_name(p)->s;
		next(p);
		uint64_t count = 1;
		bool unsized = false;
		while (p->tok.kind == '[') {
			next(p);
			if (p->tok.kind == ']') {
				unsized = true;
			} else {
				uint64_t d = expect_int(p, "an array size");
				count *= d;
				if (d > MAX_BYTES || count > MAX_BYTES)
					fail_at(p, line, col, "array too large");
			}
			expect(p, ']', "']'");
		}
		uint64_t size = unsized ? 0 : count * esize * v.vec;
		if (size > MAX_BYTES)
			fail_at(p, line, col, "array too large");
		w.size = (unsigned)size;
		if (!w.align)
			w.align = esize * v.vec;
		if (p->tok.kind == '=') {
			next(p);
			p->bytes.len = 0;
			p->isyms.len = 0;
			parse_init(p, v.type, esize, 0);
			if (unsized)
				w.size = (unsigned)p->bytes.len;
			else if (p->bytes.len > w.size)
				fail_at(p, line, col, "too many initialisers for '%s'", w.name);
			unsigned char *b = ARENA_NEWN(p->a, unsigned char, w.size ? w.size : 1);
			memcpy(b, p->bytes.items, p->bytes.len);
			w.init = b;
			if (p->isyms.len) {
				w.init_syms = arena_memdup(p->a, p->isyms.items,
				                           p->isyms.len * sizeof p->isyms.items[0]);
				w.ninit_syms = (unsigned)p->isyms.len;
			}
		}
		if (in_func)
			VEC_PUSH(p->fvars, w);
		else
			VEC_PUSH(p->mvars, w);
		if (p->tok.kind != ',')
			break;
		next(p);
	}
	expect(p, ';', "';'");
}

/* ---- functions ---- */

/* One parameter: .param|.reg [.align N] [.ptr [.space] [.align N]] [.vN] .type name[N] */
static void parse_param(struct parser *p)
{
	struct ptx_param q;
	memset(&q, 0, sizeof q);
	q.line = p->tok.line;
	if (!is_dir(p, ".param") && !is_dir(p, ".reg"))
		unexpected(p, "'.param'");
	next(p);
	bool after_ptr = false;
	unsigned vec = 1;
	while (p->tok.kind == T_DIR) {
		enum ptx_type t = tok_type(p);
		enum ptx_space s = tok_space(p);
		unsigned v = tok_vec(p);
		if (t != PT_NONE) {
			q.type = t;
		} else if (v) {
			vec = v;
		} else if (is_dir(p, ".ptr")) {
			q.is_ptr_hint = after_ptr = true;
		} else if (is_dir(p, ".align")) {
			next(p);
			unsigned line = p->tok.line, col = p->tok.col;
			unsigned al = expect_uint(p, "an alignment");
			if (al == 0 || (al & (al - 1)))
				fail_at(p, line, col, "bad alignment %u", al);
			if (after_ptr)
				q.ptr_align = al;
			else
				q.align = al;
			continue;
		} else if (s != PS_NONE && after_ptr) {
			q.ptr_space = s;
		} else {
			unexpected(p, "a parameter type");
		}
		next(p);
	}
	if (q.type == PT_NONE)
		unexpected(p, "a parameter type");
	if (p->tok.kind != T_WORD)
		unexpected(p, "a parameter name");
	q.name = tok_name(p)->s;
	unsigned line = p->tok.line, col = p->tok.col;
	next(p);
	uint64_t count = 1;
	while (p->tok.kind == '[') {
		next(p);
		count *= expect_int(p, "an array size");
		if (count > MAX_BYTES)
			fail_at(p, line, col, "parameter too large");
		expect(p, ']', "']'");
	}
	unsigned esize = type_bytes(q.type) * vec;
	q.size = (unsigned)(count * esize);
	if (!q.align)
		q.align = esize;
	VEC_PUSH(p->params, q);
}

/* '(' params ')' into the arena; offsets laid out from 0. */
static struct ptx_param *parse_params(struct parser *p, unsigned *n, unsigned *total)
{
	p->params.len = 0;
	next(p);
	if (p->tok.kind != ')') {
		for (;;) {
			parse_param(p);
			if (p->tok.kind != ',')
				break;
			next(p);
		}
	}
	expect(p, ')', "')'");
	uint64_t off = 0;
	for (size_t i = 0; i < p->params.len; i++) {
		struct ptx_param *q = &p->params.items[i];
		off = (off + q->align - 1) / q->align * q->align;
		q->offset = (unsigned)off;
		off += q->size;
		if (off > MAX_BYTES)
			fail_at(p, q->line, 1, "parameters too large");
	}
	*n = (unsigned)p->params.len;
	if (total)
		*total = (unsigned)off;
	if (!p->params.len)
		return NULL;
	return arena_memdup(p->a, p->params.items, p->params.len * sizeof p->params.items[0]);
}

/* .maxntid 256, 1, 1 and friends: up to three numbers. */
static void parse_dims(struct parser *p, unsigned d[3])
{
	next(p);
	d[0] = d[1] = d[2] = 1;
	for (int i = 0; i < 3; i++) {
		d[i] = expect_uint(p, "a number");
		if (p->tok.kind != ',')
			break;
		next(p);
	}
}

static void *to_arena(struct parser *p, const void *items, size_t n, size_t size)
{
	return n ? arena_memdup(p->a, items, n * size) : NULL;
}

/* The current token is .entry or .func; linkage was read by the caller. */
static void parse_func(struct parser *p, bool is_extern, bool is_visible, bool is_weak)
{
	struct ptx_func f;
	memset(&f, 0, sizeof f);
	f.is_entry = is_dir(p, ".entry");
	f.is_extern = is_extern;
	f.is_visible = is_visible;
	f.is_weak = is_weak;
	f.line = p->tok.line;
	p->gen++;
	p->instrs.len = p->labels.len = p->fvars.len = p->regs.len = p->fixups.len = 0;
	p->shadows.len = 0;
	p->depth = 0;
	p->loc_file = p->loc_line = 0;
	p->call_file = p->call_line = 0;
	next(p);
	if (!f.is_entry && p->tok.kind == '(')
		f.rets = parse_params(p, &f.nrets, NULL);
	if (p->tok.kind != T_WORD)
		unexpected(p, "a function name");
	struct name *fname = tok_name(p);
	f.name = fname->s;
	next(p);
	if (p->tok.kind == '(')
		f.params = parse_params(p, &f.nparams, &f.param_size);
	while (p->tok.kind == T_DIR) {
		unsigned d[3];
		if (is_dir(p, ".maxntid")) {
			parse_dims(p, f.maxntid);
		} else if (is_dir(p, ".reqntid")) {
			parse_dims(p, f.reqntid);
		} else if (is_dir(p, ".minnctapersm")) {
			parse_dims(p, d);
			f.minnctapersm = d[0];
		} else if (is_dir(p, ".maxnreg")) {
			parse_dims(p, d);
			f.maxnreg = d[0];
		} else if (is_dir(p, ".maxnctapersm") || is_dir(p, ".reqnctapercluster") ||
		           is_dir(p, ".maxclusterrank")) {
			parse_dims(p, d);
		} else if (is_dir(p, ".noreturn")) {
			f.noreturn = true;
			next(p);
		} else if (is_dir(p, ".explicitcluster")) {
			next(p);
		} else if (is_dir(p, ".pragma")) {
			skip_statement(p);
		} else {
			unexpected(p, "'{' or ';'");
		}
	}
	if (p->tok.kind == ';') {
		next(p);
	} else if (p->tok.kind == '{') {
		f.has_body = true;
		parse_body(p);
		for (size_t i = 0; i < p->fixups.len; i++) {
			struct fixup *x = &p->fixups.items[i];
			if (x->name->label_gen != p->gen)
				fail_at(p, x->line, x->col, "undefined label '%s'", x->name->s);
			x->op->imm = p->labels.items[x->name->label].instr;
		}
		f.instrs = to_arena(p, p->instrs.items, p->instrs.len, sizeof p->instrs.items[0]);
		f.ninstrs = (unsigned)p->instrs.len;
		f.labels = to_arena(p, p->labels.items, p->labels.len, sizeof p->labels.items[0]);
		f.nlabels = (unsigned)p->labels.len;
		f.vars = to_arena(p, p->fvars.items, p->fvars.len, sizeof p->fvars.items[0]);
		f.nvars = (unsigned)p->fvars.len;
	} else {
		unexpected(p, "'{' or ';'");
	}
	f.regs = to_arena(p, p->regs.items, p->regs.len, sizeof p->regs.items[0]);
	f.nregs = (unsigned)p->regs.len;
	/* A definition replaces an earlier prototype of the same name. */
	if (fname->func && !p->funcs.items[fname->func - 1].has_body) {
		p->funcs.items[fname->func - 1] = f;
		return;
	}
	if (fname->func && f.has_body)
		fail_at(p, f.line, 1, "function '%s' defined twice", f.name);
	if (fname->func)
		return;   /* a second prototype */
	VEC_PUSH(p->funcs, f);
	fname->func = (int)p->funcs.len;
}

/* ---- module ---- */

/* .file N "name" [, timestamp, size] (line-terminated) */
static void parse_file(struct parser *p)
{
	unsigned line = p->tok.line;
	next(p);
	unsigned l = p->tok.line, c = p->tok.col;
	unsigned n = expect_uint(p, "a file number");
	if (n > 65535)
		fail_at(p, l, c, "file number too large");
	if (p->tok.kind != T_STRING)
		unexpected(p, "a file name");
	const char *name = arena_strndup(p->a, p->tok.s + 1, p->tok.len - 2);
	next(p);
	while (p->files.len <= n)
		VEC_PUSH(p->files, (const char *)NULL);
	p->files.items[n] = name;
	skip_line(p, line);
}

/* .section name { ... }: debug information, skipped. */
static void skip_section(struct parser *p)
{
	next(p);
	if (p->tok.kind != T_DIR && p->tok.kind != T_WORD)
		unexpected(p, "a section name");
	next(p);
	unsigned depth = 0;
	do {
		if (p->tok.kind == '{')
			depth++;
		else if (p->tok.kind == '}')
			depth--;
		else if (p->tok.kind == T_EOF)
			unexpected(p, "'}'");
		else if (depth == 0)
			unexpected(p, "'{'");
		next(p);
	} while (depth);
}

static void parse_module(struct parser *p, struct ptx_module *m)
{
	next(p);
	while (p->tok.kind != T_EOF) {
		if (p->tok.kind != T_DIR)
			unexpected(p, NULL);
		if (is_dir(p, ".version")) {
			next(p);
			if (p->tok.kind != T_FLOAT && p->tok.kind != T_INT)
				unexpected(p, "a version");
			m->version = arena_strndup(p->a, p->tok.s, p->tok.len);
			next(p);
		} else if (is_dir(p, ".target")) {
			next(p);
			for (;;) {
				if (p->tok.kind != T_WORD)
					unexpected(p, "a target");
				const char *t = tok_name(p)->s;
				VEC_PUSH(p->topts, t);
				next(p);
				if (p->tok.kind != ',')
					break;
				next(p);
			}
		} else if (is_dir(p, ".address_size")) {
			next(p);
			m->address_size = expect_uint(p, "an address size");
		} else if (is_dir(p, ".file")) {
			parse_file(p);
		} else if (is_dir(p, ".loc")) {
			parse_loc(p);
		} else if (is_dir(p, ".section")) {
			skip_section(p);
		} else if (is_dir(p, ".pragma") || is_dir(p, ".alias")) {
			skip_statement(p);
		} else {
			bool ext = false, vis = false, weak = false;
			for (;;) {
				if (is_dir(p, ".extern"))
					ext = true;
				else if (is_dir(p, ".visible"))
					vis = true;
				else if (is_dir(p, ".weak") || is_dir(p, ".common"))
					weak = true;
				else
					break;
				next(p);
			}
			if (is_dir(p, ".entry") || is_dir(p, ".func"))
				parse_func(p, ext, vis, weak);
			else if (tok_space(p) != PS_NONE && tok_space(p) != PS_REG)
				parse_vars(p, ext, vis, false);
			else if (p->tok.kind == T_DIR)
				fail_at(p, p->tok.line, p->tok.col, "unsupported directive '%.*s'",
				        (int)(p->tok.len < 40 ? p->tok.len : 40), p->tok.s);
			else
				unexpected(p, "a declaration");
		}
	}
	m->funcs = to_arena(p, p->funcs.items, p->funcs.len, sizeof p->funcs.items[0]);
	m->nfuncs = (unsigned)p->funcs.len;
	m->vars = to_arena(p, p->mvars.items, p->mvars.len, sizeof p->mvars.items[0]);
	m->nvars = (unsigned)p->mvars.len;
	m->files = to_arena(p, p->files.items, p->files.len, sizeof p->files.items[0]);
	m->nfiles = (unsigned)p->files.len;
	m->target_opts = to_arena(p, p->topts.items, p->topts.len, sizeof p->topts.items[0]);
	m->ntarget_opts = (unsigned)p->topts.len;
	m->target = p->topts.len ? p->topts.items[0] : NULL;
}

static void parser_free(struct parser *p)
{
	free(p->tab);
	VEC_FREE(p->funcs);
	VEC_FREE(p->mvars);
	VEC_FREE(p->files);
	VEC_FREE(p->topts);
	VEC_FREE(p->instrs);
	VEC_FREE(p->labels);
	VEC_FREE(p->fvars);
	VEC_FREE(p->regs);
	VEC_FREE(p->shadows);
	VEC_FREE(p->params);
	VEC_FREE(p->fixups);
	VEC_FREE(p->bytes);
	VEC_FREE(p->isyms);
}

struct ptx_module *ptx_parse(struct arena *a, const char *text, size_t len,
                             char *err, size_t errlen)
{
	struct parser *p = xcalloc(1, sizeof *p);
	p->a = a;
	p->err = err;
	p->errlen = errlen;
	if (err && errlen)
		err[0] = 0;
	lex_init(&p->lx, text, len);
	struct ptx_module *m = NULL;
	/* About one new name per 40 bytes of nvcc's output. */
	tab_grow(p, len / 20 < (1u << 24) ? len / 20 : (1u << 24));
	if (setjmp(p->fail) == 0) {
		p->s_bra = intern(p, "bra", 3)->s;
		p->m = ARENA_NEW(a, struct ptx_module);
		parse_module(p, p->m);
		m = p->m;
	}
	parser_free(p);
	free(p);
	return m;
}
