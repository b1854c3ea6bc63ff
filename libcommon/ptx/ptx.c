/*
 * ptx.c: helpers over the PTX IR (see ptx.h): type facts, lookups of
 * functions, variables, labels and registers, and the printable form of an
 * instruction.  The parser lives in parse.c, the lexer in lex.c.
 */
#include "libcommon/ptx/ptx.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned bits;
} types[] = {
	[PT_NONE] = { "", 0 },
	[PT_PRED] = { "pred", 1 },
	[PT_B8] = { "b8", 8 }, [PT_B16] = { "b16", 16 }, [PT_B32] = { "b32", 32 },
	[PT_B64] = { "b64", 64 }, [PT_B128] = { "b128", 128 },
	[PT_U8] = { "u8", 8 }, [PT_U16] = { "u16", 16 }, [PT_U32] = { "u32", 32 },
	[PT_U64] = { "u64", 64 },
	[PT_S8] = { "s8", 8 }, [PT_S16] = { "s16", 16 }, [PT_S32] = { "s32", 32 },
	[PT_S64] = { "s64", 64 },
	[PT_F16] = { "f16", 16 }, [PT_F16X2] = { "f16x2", 32 }, [PT_BF16] = { "bf16", 16 },
	[PT_BF16X2] = { "bf16x2", 32 }, [PT_TF32] = { "tf32", 32 }, [PT_F32] = { "f32", 32 },
	[PT_F64] = { "f64", 64 },
};
#define NTYPES (sizeof types / sizeof types[0])

unsigned ptx_type_bits(enum ptx_type t)
{
	return (unsigned)t < NTYPES ? types[t].bits : 0;
}

bool ptx_type_is_float(enum ptx_type t)
{
	return t >= PT_F16 && t <= PT_F64;
}

bool ptx_type_is_signed(enum ptx_type t)
{
	return t >= PT_S8 && t <= PT_S64;
}

const char *ptx_type_name(enum ptx_type t)
{
	return (unsigned)t < NTYPES ? types[t].name : "";
}

enum ptx_type ptx_type_from_name(const char *s)
{
	if (!s)
		return PT_NONE;
	if (*s == '.')
		s++;
	/* Every type name starts with one of these letters; skip the table
	 * walk for the common modifiers that cannot be types. */
	if (!strchr("bfpsut", *s) || !*s)
		return PT_NONE;
	for (unsigned t = 1; t < NTYPES; t++)
		if (strcmp(types[t].name, s) == 0)
			return (enum ptx_type)t;
	return PT_NONE;
}

/* A header of the CUDA toolkit: .../include/NAME.h or .hpp (sm_20_atomic_functions.hpp,
 * cuda_fp16.hpp, ...). */
static bool toolkit_header(const char *f)
{
	size_t n = strlen(f);
	bool hdr = (n > 2 && !strcmp(f + n - 2, ".h")) || (n > 4 && !strcmp(f + n - 4, ".hpp"));
	return hdr && strstr(f, "/include/") && (strstr(f, "cuda") || strstr(f, "/targets/"));
}

bool ptx_user_loc(const struct ptx_module *m, const struct ptx_instr *in, const char **file,
                  unsigned *line)
{
	if (!in || !in->loc_line || in->loc_file >= m->nfiles || !m->files[in->loc_file])
		return false;
	*file = m->files[in->loc_file];
	*line = in->loc_line;
	if (toolkit_header(*file) && in->call_line && in->call_file < m->nfiles && m->files[in->call_file]) {
		*file = m->files[in->call_file];
		*line = in->call_line;
	}
	return true;
}

bool ptx_has_mod(const struct ptx_instr *in, const char *m)
{
	for (unsigned i = 0; i < in->nmods; i++)
		if (strcmp(in->mods[i], m) == 0)
			return true;
	return false;
}

const char *ptx_instr_mod_of(const struct ptx_instr *in, const char *const *set)
{
	for (unsigned i = 0; i < in->nmods; i++)
		for (const char *const *s = set; *s; s++)
			if (strcmp(in->mods[i], *s) == 0)
				return in->mods[i];
	return NULL;
}

enum ptx_space ptx_instr_space(const struct ptx_instr *in)
{
	static const struct { const char *m; enum ptx_space s; } spaces[] = {
		{ "global", PS_GLOBAL }, { "shared", PS_SHARED }, { "local", PS_LOCAL },
		{ "const", PS_CONST }, { "param", PS_PARAM },
	};
	for (unsigned i = 0; i < in->nmods; i++)
		for (size_t j = 0; j < sizeof spaces / sizeof spaces[0]; j++)
			if (strcmp(in->mods[i], spaces[j].m) == 0)
				return spaces[j].s;
	return PS_GENERIC;
}

unsigned ptx_instr_vec(const struct ptx_instr *in)
{
	for (unsigned i = 0; i < in->nmods; i++) {
		const char *m = in->mods[i];
		if (m[0] == 'v' && (m[1] == '2' || m[1] == '4' || m[1] == '8') && !m[2])
			return (unsigned)(m[1] - '0');
	}
	return 1;
}

const struct ptx_func *ptx_find_func(const struct ptx_module *m, const char *name)
{
	for (unsigned i = 0; i < m->nfuncs; i++)
		if (strcmp(m->funcs[i].name, name) == 0)
			return &m->funcs[i];
	return NULL;
}

const struct ptx_var *ptx_find_var(const struct ptx_module *m, const struct ptx_func *f,
                                   const char *name)
{
	if (f)
		for (unsigned i = 0; i < f->nvars; i++)
			if (strcmp(f->vars[i].name, name) == 0)
				return &f->vars[i];
	if (m)
		for (unsigned i = 0; i < m->nvars; i++)
			if (strcmp(m->vars[i].name, name) == 0)
				return &m->vars[i];
	return NULL;
}

int ptx_label_target(const struct ptx_func *f, const char *label)
{
	for (unsigned i = 0; i < f->nlabels; i++)
		if (strcmp(f->labels[i].name, label) == 0)
			return (int)f->labels[i].instr;
	return -1;
}

int ptx_find_reg(const struct ptx_func *f, const char *name)
{
	for (unsigned i = 0; i < f->nregs; i++)
		if (strcmp(f->regs[i].name, name) == 0)
			return (int)i;
	return -1;
}

unsigned ptx_entry_count(const struct ptx_module *m)
{
	unsigned n = 0;
	for (unsigned i = 0; i < m->nfuncs; i++)
		n += m->funcs[i].is_entry && m->funcs[i].has_body;
	return n;
}

/* ---- printing ---- */

struct buf {
	char *s;
	size_t len, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void put_operand(struct buf *b, const struct ptx_operand *op);

static void put_list(struct buf *b, const struct ptx_operand *e, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (i)
			puts_(b, ", ");
		put_operand(b, &e[i]);
	}
}

static void put_operand(struct buf *b, const struct ptx_operand *op)
{
	char num[48];
	if (op->neg)
		puts_(b, "!");
	switch (op->kind) {
	case PO_REG: case PO_SREG: case PO_SYM: case PO_LABEL:
		puts_(b, op->name ? op->name : "?");
		break;
	case PO_IMM:
		snprintf(num, sizeof num, "%" PRId64, op->imm);
		puts_(b, num);
		break;
	case PO_FIMM:
		if (op->fwidth == 32)
			snprintf(num, sizeof num, "0f%08" PRIX64, op->bits & 0xffffffffu);
		else
			snprintf(num, sizeof num, "0d%016" PRIX64, op->bits);
		puts_(b, num);
		break;
	case PO_ADDR:
		puts_(b, "[");
		if (op->name) {
			puts_(b, op->name);
			if (op->imm) {
				snprintf(num, sizeof num, "+%" PRId64, op->imm);
				puts_(b, num);
			}
		} else {
			snprintf(num, sizeof num, "%" PRId64, op->imm);
			puts_(b, num);
		}
		if (op->nelems) {
			puts_(b, ", ");
			put_list(b, op->elems, op->nelems);
		}
		puts_(b, "]");
		break;
	case PO_VEC:
		puts_(b, "{");
		put_list(b, op->elems, op->nelems);
		puts_(b, "}");
		break;
	case PO_PARAMLIST:
		puts_(b, "(");
		put_list(b, op->elems, op->nelems);
		puts_(b, ")");
		break;
	case PO_PAIR:
		if (op->nelems == 2) {
			put_operand(b, &op->elems[0]);
			puts_(b, "|");
			put_operand(b, &op->elems[1]);
		}
		break;
	case PO_SINK:
		puts_(b, "_");
		break;
	}
}

char *ptx_instr_text(struct arena *a, const struct ptx_instr *in)
{
	struct buf b = { NULL, 0, 0 };
	if (in->guard) {
		puts_(&b, in->guard_neg ? "@!" : "@");
		puts_(&b, in->guard);
		puts_(&b, " ");
	}
	puts_(&b, in->opcode ? in->opcode : "?");
	for (unsigned i = 0; i < in->nmods; i++) {
		puts_(&b, ".");
		puts_(&b, in->mods[i]);
	}
	if (in->nops) {
		puts_(&b, " ");
		put_list(&b, in->ops, in->nops);
	}
	char *s = arena_strndup(a, b.s, b.len);
	free(b.s);
	return s;
}
