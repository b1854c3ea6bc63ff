/*
 * expr-print.c: expressions as infix text for people (e_print).
 *
 * Leaves: in3[12] (input 3, element 12), v5[12] (stored value 5), tid.x,
 * ctaid.y, var7, undef, load2.f32[addr].  Operators are C-like; where the
 * signed and unsigned forms differ the unsigned one carries a "u" suffix
 * (<u, /u, >>u).  Sums print their negative coefficients as subtraction.
 * Shared subexpressions are printed in full each time; the text is cut with
 * "..." after max bytes, which also bounds the work.
 */
#include "libcommon/expr-impl.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct pbuf {
	char *s;
	size_t len, cap, max;
	bool cut;
};

static void put(struct pbuf *p, const char *s)
{
	if (p->cut)
		return;
	size_t n = strlen(s);
	if (p->max && p->len + n > p->max) {
		n = p->max - p->len;
		p->cut = true;
	}
	if (p->len + n + 1 > p->cap) {
		p->cap = (p->len + n + 1) * 2;
		p->s = xrealloc(p->s, p->cap);
	}
	memcpy(p->s + p->len, s, n);
	p->len += n;
	p->s[p->len] = 0;
}

static void putf(struct pbuf *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct pbuf *p, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	put(p, buf);
}

static const char *infix_op(const struct expr *e)
{
	switch (e->op) {
	case EOP_ADD: case EOP_FADD: return " + ";
	case EOP_SUB: case EOP_FSUB: return " - ";
	case EOP_MUL: case EOP_FMUL: return " * ";
	case EOP_UDIV: return " /u ";
	case EOP_SDIV: case EOP_FDIV: return " / ";
	case EOP_UREM: return " %u ";
	case EOP_SREM: return " % ";
	case EOP_SHL: return " << ";
	case EOP_LSHR: return " >>u ";
	case EOP_ASHR: return " >> ";
	case EOP_AND: return " & ";
	case EOP_OR: return " | ";
	case EOP_XOR: return " ^ ";
	case EOP_EQ: return " == ";
	case EOP_ULT: return " <u ";
	case EOP_ULE: return " <=u ";
	case EOP_SLT: case EOP_FLT: return " < ";
	case EOP_SLE: case EOP_FLE: return " <= ";
	case EOP_LAND: return " && ";
	case EOP_LOR: return " || ";
	}
	return NULL;
}

static bool needs_parens(const struct expr *e)
{
	return infix_op(e) || e->op == EOP_ITE;
}

static void print(struct pbuf *p, const struct expr *e);

static void print_sub(struct pbuf *p, const struct expr *e)
{
	bool par = needs_parens(e);
	if (par)
		put(p, "(");
	print(p, e);
	if (par)
		put(p, ")");
}

static void print_real(struct pbuf *p, double d)
{
	char buf[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	put(p, buf);
}

static void print_bv(struct pbuf *p, uint64_t v, unsigned w)
{
	int64_t s = bv_sx(v, w);
	if (w > 1 && s < 0 && s > -65536)
		putf(p, "%" PRId64, s);
	else if (v < 65536)
		putf(p, "%" PRIu64, v);
	else
		putf(p, "0x%" PRIx64, v);
}

/* For sums: is the argument negative, and what to print after the sign. */
static bool negative_part(const struct expr *a, uint64_t *mag, const struct expr **t)
{
	unsigned w = SORT_WIDTH(a->sort);
	*t = NULL;
	if (a->op == EOP_BV && w > 1 && bv_neg_bit(a->u, w)) {
		*mag = -a->u & bv_mask(w);
		return true;
	}
	if (a->op == EOP_MUL && a->args[1]->op == EOP_BV && w > 1 && bv_neg_bit(a->args[1]->u, w)) {
		*mag = -a->args[1]->u & bv_mask(w);
		*t = a->args[0];
		return true;
	}
	return false;
}

static void print_sum(struct pbuf *p, const struct expr *e)
{
	for (unsigned i = 0; i < e->nargs && !p->cut; i++) {
		const struct expr *a = e->args[i], *t;
		uint64_t mag;
		if (e->op == EOP_ADD && negative_part(a, &mag, &t)) {
			put(p, i ? " - " : "-");
			if (t) {
				if (t->op == EOP_MUL)
					print(p, t);
				else
					print_sub(p, t);
				if (mag != 1) {
					put(p, " * ");
					print_bv(p, mag, SORT_WIDTH(a->sort));
				}
			} else {
				print_bv(p, mag, SORT_WIDTH(a->sort));
			}
			continue;
		}
		if (e->op == EOP_FADD && (a->op == EOP_FNEG || (a->op == EOP_REAL && x_real(a) < 0))) {
			put(p, i ? " - " : "-");
			if (a->op == EOP_FNEG)
				print_sub(p, a->args[0]);
			else
				print_real(p, -x_real(a));
			continue;
		}
		if (i)
			put(p, " + ");
		if (a->op == EOP_MUL || a->op == EOP_FMUL)
			print(p, a);   /* binds tighter than + */
		else
			print_sub(p, a);
	}
}

static const char *const dims = "xyz";

static void print_call(struct pbuf *p, const char *name, const struct expr *e)
{
	put(p, name);
	put(p, "(");
	for (unsigned i = 0; i < e->nargs && !p->cut; i++) {
		if (i)
			put(p, ", ");
		print(p, e->args[i]);
	}
	put(p, ")");
}

static void print_index(struct pbuf *p, const char *pfx, const struct expr *e)
{
	unsigned sz = etype_size((enum etype)e->et);
	if (sz && e->off % sz == 0)
		putf(p, "%s%" PRIu32 "[%" PRIu64 "]", pfx, e->space, e->off / sz);
	else
		putf(p, "%s%" PRIu32 "@%" PRIu64, pfx, e->space, e->off);
}

static void print(struct pbuf *p, const struct expr *e)
{
	if (p->cut)
		return;
	unsigned w = SORT_WIDTH(e->sort);
	char name[32];
	switch (e->op) {
	case EOP_BOOL: put(p, e->u ? "true" : "false"); return;
	case EOP_BV: print_bv(p, e->u, w); return;
	case EOP_REAL: print_real(p, x_real(e)); return;
	case EOP_TID: putf(p, "tid.%c", dims[e->u % 3]); return;
	case EOP_CTAID: putf(p, "ctaid.%c", dims[e->u % 3]); return;
	case EOP_ELEM: print_index(p, "v", e); return;
	case EOP_INPUT: print_index(p, "in", e); return;
	case EOP_VAR: putf(p, "var%" PRIu64, e->u); return;
	case EOP_UNDEF:
		if (e->u)
			putf(p, "undef%" PRIu64, e->u);
		else
			put(p, "undef");
		return;
	case EOP_LOAD:
		putf(p, "load%" PRIu32 ".%s[", e->space, etype_name((enum etype)e->et));
		print(p, e->args[0]);
		put(p, "]");
		return;
	case EOP_ADD: case EOP_FADD:
		print_sum(p, e);
		return;
	case EOP_NEG: case EOP_FNEG: put(p, "-"); print_sub(p, e->args[0]); return;
	case EOP_NOT: put(p, "~"); print_sub(p, e->args[0]); return;
	case EOP_LNOT: put(p, "!"); print_sub(p, e->args[0]); return;
	case EOP_ITE:
		print_sub(p, e->args[0]);
		put(p, " ? ");
		print_sub(p, e->args[1]);
		put(p, " : ");
		print_sub(p, e->args[2]);
		return;
	case EOP_EXTRACT:
		print_sub(p, e->args[0]);
		putf(p, "[%u:%u]", (unsigned)e->u + w - 1, (unsigned)e->u);
		return;
	case EOP_ZEXT: case EOP_SEXT: case EOP_BOOL2BV:
		snprintf(name, sizeof name, "%s%u", e->op == EOP_BOOL2BV ? "bv" : eop_name((enum eop)e->op), w);
		print_call(p, name, e);
		return;
	case EOP_R2S: case EOP_R2U:
		snprintf(name, sizeof name, "%s%u.%s", eop_name((enum eop)e->op), w, rmode_name((enum rmode)e->u));
		print_call(p, name, e);
		return;
	case EOP_FUN:
		print_call(p, efun_name((enum efun)e->u), e);
		return;
	case EOP_OPAQUE:
		/* bits.f32(x), float.f32(k), opaque#TAG(args) */
		if (EOPQ_KIND(e->u) == EOPQ_FN)
			snprintf(name, sizeof name, "opaque#%" PRIx64, (uint64_t)EOPQ_TAGOF(e->u));
		else
			snprintf(name, sizeof name, "%s.%s", EOPQ_KIND(e->u) == EOPQ_BITS ? "bits" : "float",
			         etype_name(EOPQ_FT(e->u)));
		print_call(p, name, e);
		return;
	}
	const char *op = infix_op(e);
	if (!op) {
		print_call(p, eop_name((enum eop)e->op), e);
		return;
	}
	for (unsigned i = 0; i < e->nargs && !p->cut; i++) {
		if (i)
			put(p, op);
		print_sub(p, e->args[i]);
	}
}

char *e_print(struct arena *a, const struct expr *e, size_t max)
{
	struct pbuf p = { NULL, 0, 0, max, false };
	put(&p, "");
	print(&p, e);
	char *s;
	if (p.cut)
		s = arena_printf(a, "%s...", p.s);
	else
		s = arena_strdup(a, p.s);
	free(p.s);
	return s;
}
