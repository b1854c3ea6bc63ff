/*
 * exprs.c: expression tables in records (exprs.h).
 *
 * A table is an array of nodes; node i may refer only to nodes 0..i-1.
 * Each node is an array: [OP, SORT, PAYLOAD..., ARG...], where OP is the
 * operator name (eop_name: "add", "fadd", "tid", ...), SORT is "bool",
 * "real" or "bvW" (W in 1..64), and ARG are indices of earlier nodes.
 * The payload depends on OP:
 *
 *   "bool"             [ "bool", "bool", true|false ]
 *   "bv"               [ "bv", "bvW", VALUE ]            VALUE: unsigned int < 2^W
 *   "real"             [ "real", "real", VALUE ]         VALUE: float64 (an int is accepted)
 *   "tid", "ctaid"     [ OP, "bv32", DIM ]               DIM: 0 (x), 1 (y), 2 (z)
 *   "elem", "input"    [ OP, SORT, SPACE, OFF, ETYPE ]   value or input id, byte offset,
 *                                                        element type ("f32", "s32", ...)
 *   "load"             [ "load", SORT, SPACE, ETYPE, ADDR ]
 *   "undef"            [ "undef", SORT, TAG ]
 *   "var"              [ "var", SORT, ID ]
 *   "extract"          [ "extract", "bvW", LOW, ARG ]    bits LOW+W-1..LOW of ARG
 *   "fun"              [ "fun", "real", NAME, ARG... ]   NAME: efun_name ("tanh", "pow", ...)
 *   "r2s", "r2u"       [ OP, "bvW", RMODE, ARG ]         RMODE: "rn", "rz", "rm", "rp"
 *   "opaque"           [ "opaque", SORT, TAG, AS, ARG... ] an uninterpreted function TAG of
 *                                                        the arguments (TAG < 2^56); AS: ""
 *                                                        for a function, "bits.FT" / "float.FT"
 *                                                        for a reinterpretation of a float type
 *   every other OP     [ OP, SORT, ARG... ]
 *
 * For leaves SORT must be the sort the payload implies (e.g. the element
 * type's); for operators it must be the result sort of the operator.
 * Readers rebuild nodes through the simplifying constructors, so a table
 * read back yields the canonical nodes.
 */
#include "formats/exprs.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void write_node(struct stream_out *w, const struct etable *t, const struct expr *e)
{
	char sb[8];
	out_array_begin(w);
	out_str(w, eop_name((enum eop)e->op));
	out_str(w, sort_name(e->sort, sb));
	unsigned first = 0;
	switch (e->op) {
	case EOP_BOOL: out_bool(w, e->u != 0); break;
	case EOP_BV: case EOP_TID: case EOP_CTAID: case EOP_UNDEF: case EOP_VAR:
		out_u64(w, e->u);
		break;
	case EOP_REAL: out_f64(w, e->d); break;
	case EOP_ELEM: case EOP_INPUT:
		out_u64(w, e->space);
		out_u64(w, e->off);
		out_str(w, etype_name((enum etype)e->et));
		break;
	case EOP_LOAD:
		out_u64(w, e->space);
		out_str(w, etype_name((enum etype)e->et));
		break;
	case EOP_EXTRACT: out_u64(w, e->u); break;
	case EOP_FUN: out_str(w, efun_name((enum efun)e->u)); break;
	case EOP_R2S: case EOP_R2U: out_str(w, rmode_name((enum rmode)e->u)); break;
	case EOP_OPAQUE: {
		char as[16] = "";
		if (EOPQ_KIND(e->u) != EOPQ_FN)
			snprintf(as, sizeof as, "%s.%s", EOPQ_KIND(e->u) == EOPQ_BITS ? "bits" : "float",
			         etype_name(EOPQ_FT(e->u)));
		out_u64(w, EOPQ_TAGOF(e->u));
		out_str(w, as);
		break;
	}
	default: break;
	}
	for (unsigned i = first; i < e->nargs; i++)
		out_u64(w, etable_index(t, e->args[i]));
	out_array_end(w);
}

void exprs_write(struct stream_out *w, const struct etable *t)
{
	out_array_begin(w);
	for (uint32_t i = 0; i < etable_len(t); i++)
		write_node(w, t, etable_get(t, i));
	out_array_end(w);
}

/* ---- reading ----------------------------------------------------------------- */

struct rd {
	char *err;
	size_t errlen;
	uint32_t idx;
	const msgpack_object *f;   /* fields of the current node */
	uint32_t nf;
};

static bool fail(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct rd *r, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(r->err, r->errlen, "expression %u: %s", (unsigned)r->idx, msg);
	return false;
}

/* Copies string field i into buf; false if it is not a short string. */
static bool str_field(struct rd *r, uint32_t i, char *buf, size_t n, const char *what)
{
	if (i >= r->nf)
		return fail(r, "%s missing", what);
	const msgpack_object *o = &r->f[i];
	if (o->type != MSGPACK_OBJECT_STR || o->via.str.size >= n ||
	    memchr(o->via.str.ptr, 0, o->via.str.size))
		return fail(r, "%s must be a string", what);
	memcpy(buf, o->via.str.ptr, o->via.str.size);
	buf[o->via.str.size] = 0;
	return true;
}

static bool u64_field(struct rd *r, uint32_t i, uint64_t *v, const char *what)
{
	if (i >= r->nf || !obj_u64(&r->f[i], v))
		return fail(r, "%s must be an unsigned integer", what);
	return true;
}

static bool nfields(struct rd *r, uint32_t n)
{
	if (r->nf != n)
		return fail(r, "%u fields, expected %u", (unsigned)r->nf, (unsigned)n);
	return true;
}

static const struct expr *read_node(struct rd *r, struct ectx *cx, const struct expr **done)
{
	char opname[24], sname[8], buf[24];
	if (r->nf < 2)
		return fail(r, "a node needs an operator and a sort"), NULL;
	if (!str_field(r, 0, opname, sizeof opname, "operator") ||
	    !str_field(r, 1, sname, sizeof sname, "sort"))
		return NULL;
	enum eop op = eop_parse(opname);
	if (op == EOP__COUNT)
		return fail(r, "unknown operator '%s'", opname), NULL;
	sort_t sort = sort_parse(sname);
	if (!sort)
		return fail(r, "unknown sort '%s'", sname), NULL;
	uint64_t u = 0, space = 0, off = 0;
	double d;
	enum etype et = ET_NONE;
	uint32_t first = 2;   /* index of the first argument field */
	switch (op) {
	case EOP_BOOL:
		if (!nfields(r, 3))
			return NULL;
		if (r->f[2].type != MSGPACK_OBJECT_BOOLEAN)
			return fail(r, "value must be true or false"), NULL;
		if (sort != SORT_BOOL)
			return fail(r, "a bool constant has sort bool"), NULL;
		return e_bool(cx, r->f[2].via.boolean);
	case EOP_BV:
		if (!nfields(r, 3) || !u64_field(r, 2, &u, "value"))
			return NULL;
		if (SORT_KIND(sort) != SK_BV || (u & ~((SORT_WIDTH(sort) >= 64) ? ~0ull : (1ull << SORT_WIDTH(sort)) - 1)))
			return fail(r, "value does not fit sort %s", sname), NULL;
		return e_bv(cx, u, SORT_WIDTH(sort));
	case EOP_REAL:
		if (!nfields(r, 3))
			return NULL;
		if (!obj_f64(&r->f[2], &d))
			return fail(r, "value must be a number"), NULL;
		if (sort != SORT_REAL)
			return fail(r, "a real constant has sort real"), NULL;
		return e_real(cx, d);
	case EOP_TID: case EOP_CTAID:
		if (!nfields(r, 3) || !u64_field(r, 2, &u, "dimension"))
			return NULL;
		if (u > 2 || sort != SORT_BV(32))
			return fail(r, "bad dimension or sort"), NULL;
		return op == EOP_TID ? e_tid(cx, (unsigned)u) : e_ctaid(cx, (unsigned)u);
	case EOP_ELEM: case EOP_INPUT:
		if (!nfields(r, 5) || !u64_field(r, 2, &space, "space") ||
		    !u64_field(r, 3, &off, "offset") || !str_field(r, 4, buf, sizeof buf, "element type"))
			return NULL;
		et = etype_parse(buf);
		if (et == ET_NONE)
			return fail(r, "unknown element type '%s'", buf), NULL;
		if (space > UINT32_MAX || etype_sort(et) != sort)
			return fail(r, "bad space or sort"), NULL;
		return op == EOP_ELEM ? e_elem(cx, (uint32_t)space, off, et)
		                      : e_input(cx, (uint32_t)space, off, et);
	case EOP_LOAD:
		if (!nfields(r, 5) || !u64_field(r, 2, &space, "space") ||
		    !str_field(r, 3, buf, sizeof buf, "element type") || !u64_field(r, 4, &u, "address"))
			return NULL;
		et = etype_parse(buf);
		if (et == ET_NONE)
			return fail(r, "unknown element type '%s'", buf), NULL;
		if (space > UINT32_MAX || etype_sort(et) != sort)
			return fail(r, "bad space or sort"), NULL;
		if (u >= r->idx)
			return fail(r, "argument %llu is not an earlier expression", (unsigned long long)u), NULL;
		if (done[u]->sort != SORT_BV(64))
			return fail(r, "address must be a bv64"), NULL;
		return e_load(cx, (uint32_t)space, et, done[u]);
	case EOP_UNDEF: case EOP_VAR:
		if (!nfields(r, 3) || !u64_field(r, 2, &u, op == EOP_VAR ? "id" : "tag"))
			return NULL;
		return op == EOP_VAR ? e_var(cx, u, sort) : e_undef_tag(cx, sort, u);
	case EOP_EXTRACT:
		if (!u64_field(r, 2, &u, "low bit"))
			return NULL;
		first = 3;
		break;
	case EOP_FUN: {
		if (!str_field(r, 2, buf, sizeof buf, "function"))
			return NULL;
		enum efun f = efun_parse(buf);
		if (f == EF__COUNT)
			return fail(r, "unknown function '%s'", buf), NULL;
		u = f;
		first = 3;
		break;
	}
	case EOP_R2S: case EOP_R2U: {
		if (!str_field(r, 2, buf, sizeof buf, "rounding mode"))
			return NULL;
		int m = rmode_parse(buf);
		if (m < 0)
			return fail(r, "unknown rounding mode '%s'", buf), NULL;
		u = (uint64_t)m;
		first = 3;
		break;
	}
	case EOP_OPAQUE: {
		uint64_t tag;
		if (!u64_field(r, 2, &tag, "tag") || !str_field(r, 3, buf, sizeof buf, "reinterpretation"))
			return NULL;
		if (tag > EOPQ_TAG_MASK)
			return fail(r, "tag %llu is too large", (unsigned long long)tag), NULL;
		enum eopq_kind kind = EOPQ_FN;
		enum etype ft = ET_NONE;
		if (buf[0]) {
			const char *dot = strchr(buf, '.');
			if (dot && !strncmp(buf, "bits.", 5))
				kind = EOPQ_BITS;
			else if (dot && !strncmp(buf, "float.", 6))
				kind = EOPQ_FLOAT;
			else
				return fail(r, "unknown reinterpretation '%s'", buf), NULL;
			ft = etype_parse(dot + 1);
			if (!etype_is_float(ft))
				return fail(r, "'%s' is not a float type", dot + 1), NULL;
		}
		u = EOPQ(kind, ft, tag);
		first = 4;
		break;
	}
	default:
		break;
	}
	uint32_t n = r->nf - first;
	if (n > E_MAX_ARGS)
		return fail(r, "too many arguments"), NULL;
	const struct expr *args[E_MAX_ARGS];
	for (uint32_t i = 0; i < n; i++) {
		uint64_t k;
		if (!u64_field(r, first + i, &k, "argument"))
			return NULL;
		if (k >= r->idx)
			return fail(r, "argument %llu is not an earlier expression", (unsigned long long)k), NULL;
		args[i] = done[k];
	}
	const char *why = e_op_check(op, sort, u, n, args);
	if (why)
		return fail(r, "%s: %s", opname, why), NULL;
	return e_op(cx, op, sort, u, n, args);
}

const struct expr **exprs_read(struct ectx *cx, const msgpack_object *arr, struct arena *a,
                               uint32_t *n, char *err, size_t errlen)
{
	struct rd r = { err, errlen, 0, NULL, 0 };
	if (!arr || arr->type != MSGPACK_OBJECT_ARRAY) {
		snprintf(err, errlen, "expressions must be an array");
		return NULL;
	}
	uint32_t len = arr->via.array.size;
	const struct expr **done = ARENA_NEWN(a, const struct expr *, len ? len : 1);
	for (uint32_t i = 0; i < len; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];
		r.idx = i;
		if (o->type != MSGPACK_OBJECT_ARRAY) {
			fail(&r, "a node must be an array");
			return NULL;
		}
		r.f = o->via.array.ptr;
		r.nf = o->via.array.size;
		done[i] = read_node(&r, cx, done);
		if (!done[i])
			return NULL;
	}
	*n = len;
	return done;
}
