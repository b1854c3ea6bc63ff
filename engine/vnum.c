/*
 * vnum.c: value numbering of an obligation (vnum.h): hash-consed keys
 * of the SSA values, built in value order (every value refers only to
 * values before it).
 */
#include "engine/vnum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/arena.h"
#include "engine/ops/ops.h"

struct slot { uint64_t h; size_t off; uint32_t len, id; };

struct vnum {
	const struct obligation *o;
	struct arena arena;
	/* the interned keys */
	unsigned char *keys;
	size_t nkeys, capkeys;
	struct slot *tab;
	size_t ntab, captab;
	uint32_t next_id;
	/* per value */
	uint32_t *vn;                    /* its number */
	uint32_t *cseq;                  /* the sequence of its canonical view, 0: none */
	const struct obl_view **cgeo;    /* that view (the geometry an op wrote it in) */
	uint32_t *own;                   /* the first value it rests on that has a number of its own */
	const char **why;                /* for such a value: why */
	/* per op: the bound instance (bound: 1 ok, 2 failed) */
	struct op_inst *inst;
	unsigned char *bound;
	/* the key being built */
	unsigned char *kb;
	size_t kn, kcap;
	/* bridges (vnum_new_bridged): per value, the value whose number it
	 * takes, NO_VALUE for none (borrowed; NULL: none at all) */
	const uint32_t *alias;
	/* while a holed key is built (vnum_bridges): the value whose views
	 * are keyed by their geometry alone, NO_VALUE otherwise */
	uint32_t hole;
};

/* ---- keys --------------------------------------------------------------- */

static void k_bytes(struct vnum *v, const void *p, size_t n)
{
	if (v->kn + n > v->kcap) {
		v->kcap = 2 * (v->kn + n) + 64;
		v->kb = xrealloc(v->kb, v->kcap);
	}
	memcpy(v->kb + v->kn, p, n);
	v->kn += n;
}

static void k_u64(struct vnum *v, uint64_t x) { k_bytes(v, &x, sizeof x); }
static void k_f64(struct vnum *v, double x) { k_bytes(v, &x, sizeof x); }
/* Keys nest (an operand's number is made while its op's key is being
 * built): each key is built at the end of the buffer, from a mark that
 * k_begin returns and k_end takes back. */
static size_t k_begin(struct vnum *v, char tag)
{
	size_t mark = v->kn;
	k_bytes(v, &tag, 1);
	return mark;
}

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static void grow_tab(struct vnum *v)
{
	size_t cap = v->captab ? 2 * v->captab : 1024;
	struct slot *t = xcalloc(cap, sizeof *t);
	for (size_t i = 0; i < v->captab; i++) {
		if (!v->tab[i].id)
			continue;
		size_t j = v->tab[i].h & (cap - 1);
		while (t[j].id)
			j = (j + 1) & (cap - 1);
		t[j] = v->tab[i];
	}
	free(v->tab);
	v->tab = t;
	v->captab = cap;
}

/* The number of the key built since the k_begin that returned mark (a
 * new one if unseen); the buffer is back at mark. */
static uint32_t k_end(struct vnum *v, size_t mark)
{
	const unsigned char *kb = v->kb + mark;
	size_t kn = v->kn - mark;
	uint32_t id = 0;
	v->kn = mark;
	if (2 * (v->ntab + 1) > v->captab)
		grow_tab(v);
	uint64_t h = fnv(kb, kn);
	size_t j = h & (v->captab - 1);
	for (; v->tab[j].id; j = (j + 1) & (v->captab - 1)) {
		const struct slot *s = &v->tab[j];
		if (s->h == h && s->len == kn && memcmp(v->keys + s->off, kb, kn) == 0)
			return s->id;
	}
	if (v->nkeys + kn > v->capkeys) {
		v->capkeys = 2 * (v->nkeys + kn) + 4096;
		v->keys = xrealloc(v->keys, v->capkeys);
	}
	memcpy(v->keys + v->nkeys, kb, kn);
	id = ++v->next_id;
	v->tab[j] = (struct slot){ h, v->nkeys, (uint32_t)kn, id };
	v->nkeys += kn;
	v->ntab++;
	return id;
}

/* A number of its own for value x, equal to no other. */
static uint32_t own_number(struct vnum *v, uint32_t x, const char *why)
{
	size_t m_ = k_begin(v, 'U');
	k_u64(v, x);
	v->own[x] = x;
	v->why[x] = why;
	return k_end(v, m_);
}

/* Value x rests on value y (numbered before it). */
static void rests_on(struct vnum *v, uint32_t x, uint32_t y)
{
	if (v->own[x] == NO_VALUE && y < x && v->own[y] != NO_VALUE)
		v->own[x] = v->own[y];
}

/* ---- geometry ----------------------------------------------------------- */

static uint64_t numel(const struct obl_view *w)
{
	return obl_view_numel(w);
}

/* Same elements in the same places: type, offset, shape, and strides of
 * the dimensions longer than 1 (the others are never stepped). */
static bool same_geom(const struct obl_view *a, const struct obl_view *b)
{
	if (a->dtype != b->dtype || a->offset != b->offset || a->ndim != b->ndim)
		return false;
	for (uint32_t i = 0; i < a->ndim; i++)
		if (a->shape[i] != b->shape[i] || (a->shape[i] != 1 && a->stride[i] != b->stride[i]))
			return false;
	return true;
}

/* The view reaches every element of a buffer of 'bytes' bytes exactly
 * once (a dense layout in some order of its dimensions, from offset 0). */
static bool covers(const struct obl_view *w, uint64_t bytes)
{
	uint64_t n = numel(w);
	if (w->offset != 0 || n * etype_size(w->dtype) != bytes || n == 0)
		return false;
	int64_t st[TORCH_MAX_DIMS], sh[TORCH_MAX_DIMS];
	unsigned m = 0;
	for (uint32_t i = 0; i < w->ndim; i++)
		if (w->shape[i] != 1) {
			st[m] = w->stride[i];
			sh[m++] = w->shape[i];
		}
	/* insertion sort by stride */
	for (unsigned i = 1; i < m; i++)
		for (unsigned j = i; j > 0 && st[j - 1] > st[j]; j--) {
			int64_t t = st[j]; st[j] = st[j - 1]; st[j - 1] = t;
			t = sh[j]; sh[j] = sh[j - 1]; sh[j - 1] = t;
		}
	int64_t want = 1;
	for (unsigned i = 0; i < m; i++) {
		if (st[i] != want)
			return false;
		want *= sh[i];
	}
	return true;
}

static void k_geom(struct vnum *v, const struct obl_view *w)
{
	k_u64(v, w->dtype);
	k_u64(v, (uint64_t)w->offset);
	k_u64(v, w->ndim);
	for (uint32_t i = 0; i < w->ndim; i++) {
		k_u64(v, (uint64_t)w->shape[i]);
		k_u64(v, w->shape[i] == 1 ? 0 : (uint64_t)w->stride[i]);
	}
}

/* The number of the whole of value x read as a row-major sequence of et. */
static uint32_t whole_seq(struct vnum *v, uint32_t x, enum etype et)
{
	const struct obl_view *g = v->cgeo[x];
	if (g && g->dtype == et && g->offset == 0 && obl_view_contiguous(g) &&
	    numel(g) * etype_size(et) == v->o->values.items[x].bytes)
		return v->cseq[x];
	size_t m_ = k_begin(v, 'B');
	k_u64(v, v->vn[x]);
	k_u64(v, et);
	return k_end(v, m_);
}

/* The number of the row-major element sequence of view w. */
static uint32_t view_seq(struct vnum *v, const struct obl_view *w)
{
	uint32_t x = w->value;
	if (x == v->hole) {
		size_t m_ = k_begin(v, 'H');
		k_geom(v, w);
		k_u64(v, v->o->values.items[x].bytes);
		return k_end(v, m_);
	}
	if (x >= v->o->values.len || !v->vn[x]) {
		size_t m_ = k_begin(v, 'X');                 /* cannot happen in a checked obligation */
		k_u64(v, x);
		return k_end(v, m_);
	}
	if (v->cgeo[x] && same_geom(v->cgeo[x], w))
		return v->cseq[x];
	if (obl_view_contiguous(w) && w->offset == 0 &&
	    numel(w) * etype_size(w->dtype) == v->o->values.items[x].bytes)
		return whole_seq(v, x, w->dtype);
	size_t m_ = k_begin(v, 'W');
	k_u64(v, v->vn[x]);
	k_geom(v, w);
	return k_end(v, m_);
}

/* ---- ops ---------------------------------------------------------------- */

static const struct op_inst *bound(struct vnum *v, uint32_t k)
{
	const struct obl_op *op = &v->o->ops.items[k];
	if (!v->bound[k]) {
		char err[256];
		v->bound[k] = !op->unsupported &&
		              op_bind(&op->call, obl_op_shape, (void *)op, &v->arena,
		                      &v->inst[k], err, sizeof err) ? 1 : 2;
	}
	return v->bound[k] == 1 ? &v->inst[k] : NULL;
}

static void k_shape(struct vnum *v, const struct op_shape *s)
{
	k_u64(v, s->ndim);
	for (unsigned i = 0; i < s->ndim; i++)
		k_u64(v, (uint64_t)s->dim[i]);
}

/* Operand k of op: its sequence, shape and type. */
static void k_operand(struct vnum *v, const struct obl_op *op, const struct op_inst *in, int k,
                      bool transposed)
{
	if (k < 0 || (unsigned)k >= in->nin) {
		k_u64(v, UINT64_MAX);
		return;
	}
	const struct obl_view *w = obl_op_view(op, in->in_tensor[k]);
	if (!w) {
		k_u64(v, UINT64_MAX - 1);
		return;
	}
	struct obl_view t = *w;
	if (transposed && t.ndim >= 2) {
		/* the last two dimensions swapped: the same elements, read as the
		 * transposed matrix */
		uint32_t a = t.ndim - 2, b = t.ndim - 1;
		int64_t s = t.shape[a]; t.shape[a] = t.shape[b]; t.shape[b] = s;
		s = t.stride[a]; t.stride[a] = t.stride[b]; t.stride[b] = s;
	}
	k_u64(v, view_seq(v, &t));
	k_u64(v, t.dtype);
	k_u64(v, t.ndim);
	for (uint32_t i = 0; i < t.ndim; i++)
		k_u64(v, (uint64_t)t.shape[i]);
}

/* The sequence of result r of op k (written through view w), or 0 when
 * it has none (no semantics, no formula): *why says which. */
static uint32_t result_seq(struct vnum *v, uint32_t k, uint32_t r, const struct obl_view *w,
                           const char **why)
{
	const struct obl_op *op = &v->o->ops.items[k];
	const struct op_inst *in = bound(v, k);
	if (!in) {
		*why = arena_printf(&v->arena, "torch op '%s' has no semantics%s%s", op->call.op,
		                    op->unsupported ? ": " : "", op->unsupported ? op->unsupported : "");
		return 0;
	}
	if (r >= in->nres || in->res_formula[r] < 0) {
		*why = arena_printf(&v->arena, "result %u of torch op '%s' has no formula", r, op->call.op);
		return 0;
	}
	unsigned src;
	if (op_is_copy(in, r, &src)) {
		const struct obl_view *x = obl_op_view(op, in->in_tensor[src]);
		if (x && x->dtype == w->dtype)
			return view_seq(v, x);
	}
	struct op_attrs ra;
	op_result_attrs(in, r, &ra);
	const struct op_attrs *at = &ra;
	size_t m_ = k_begin(v, 'O');
	if (op_is_product(in)) {
		/* a @ b (+ beta * c), whatever the op's name: linear reads its
		 * weight transposed, which is the transposed view of it */
		k_u64(v, 1);
		k_operand(v, op, in, at->opnd[0], false);
		k_operand(v, op, in, at->opnd[1], at->i[0] != 0);
		k_operand(v, op, in, at->opnd[2], false);
		k_f64(v, at->opnd[2] >= 0 ? at->s[0] : 0);
		k_f64(v, at->s[1]);
		k_u64(v, (uint64_t)at->i[1]);
		k_u64(v, (uint64_t)at->i[2]);
	} else {
		k_u64(v, 2);
		k_u64(v, (uint64_t)(int64_t)op_family(in));
		k_u64(v, (uint64_t)at->kind);
		for (int i = 0; i < 6; i++) {
			k_f64(v, at->s[i]);
			k_u64(v, at->has[i]);
			k_u64(v, (uint64_t)at->i[i]);
			k_u64(v, (uint64_t)(int64_t)at->opnd[i]);
		}
		for (int i = 0; i < 4; i++) {
			k_u64(v, at->nv[i]);
			for (unsigned j = 0; j < at->nv[i] && j < OP_MAX_DIMS; j++)
				k_u64(v, (uint64_t)at->v[i][j]);
		}
		k_u64(v, in->nin);
		for (unsigned i = 0; i < in->nin; i++)
			k_operand(v, op, in, (int)i, false);
	}
	k_u64(v, (uint64_t)in->res_formula[r]);
	k_shape(v, &in->res[r]);
	k_u64(v, w->dtype);
	return k_end(v, m_);
}

/* The value that result r of op k (written through w, into a value of
 * bytes) copies whole, both contiguous from offset 0 with one element
 * type, or NO_VALUE. */
static uint32_t whole_copy_of(struct vnum *v, uint32_t k, uint32_t r, const struct obl_view *w,
                              uint64_t bytes)
{
	const struct obl_op *op = &v->o->ops.items[k];
	const struct op_inst *in = bound(v, k);
	unsigned opnd;
	if (!in || !op_is_copy(in, r, &opnd) || w->offset != 0 || !obl_view_contiguous(w) ||
	    numel(w) * etype_size(w->dtype) != bytes)
		return NO_VALUE;
	const struct obl_view *x = obl_op_view(op, in->in_tensor[opnd]);
	if (!x || x->dtype != w->dtype || x->offset != 0 || !obl_view_contiguous(x) ||
	    x->value >= v->o->values.len || v->o->values.items[x->value].bytes != bytes ||
	    !v->vn[x->value])
		return NO_VALUE;
	return x->value;
}

/* ---- values ------------------------------------------------------------- */

/* Bytes outside [off, off + len) come from prev: the number of prev, or
 * 0 when the range covers the buffer (nothing comes from it). */
static bool k_prev(struct vnum *v, uint32_t x, const struct obl_value *val, bool covered)
{
	if (covered)
		return true;
	if (val->prev == NO_VALUE || val->prev >= x)
		return false;                    /* the rest is uninitialised */
	k_u64(v, v->vn[val->prev]);
	rests_on(v, x, val->prev);
	return true;
}

static void number(struct vnum *v, uint32_t x)
{
	const struct obligation *o = v->o;
	const struct obl_value *val = &o->values.items[x];
	bool whole = val->off == 0 && val->len == val->bytes;
	const char *why = NULL;
	uint32_t n = 0;
	size_t m_;
	v->kn = 0;                           /* a key left unfinished before is dropped */
	uint32_t a = v->alias ? v->alias[x] : NO_VALUE;
	if (a < x && v->vn[a]) {
		/* a bridge: the value another program computes (vnum_bridges) */
		v->vn[x] = v->vn[a];
		v->cseq[x] = v->cseq[a];
		v->cgeo[x] = v->cgeo[a];
		return;
	}
	switch (val->def) {
	case VD_UNINIT:
		n = own_number(v, x, "it is uninitialised");
		break;
	case VD_LAUNCH:
		n = own_number(v, x, arena_printf(&v->arena, "it is written by launch %u (%s)", val->launch,
		                                  val->launch < o->launches.len ?
		                                  o->launches.items[val->launch].kernel : "?"));
		break;
	case VD_INPUT:
		m_ = k_begin(v, 'I');
		k_u64(v, val->input);
		k_u64(v, val->off);
		k_u64(v, val->len);
		k_u64(v, val->bytes);
		n = k_prev(v, x, val, whole) ? k_end(v, m_) : own_number(v, x, "part of it is uninitialised");
		break;
	case VD_DATA:
		m_ = k_begin(v, 'D');
		k_u64(v, val->off);
		k_u64(v, val->len);
		k_u64(v, val->bytes);
		k_bytes(v, val->data, val->len);
		n = k_prev(v, x, val, whole) ? k_end(v, m_) : own_number(v, x, "part of it is uninitialised");
		break;
	case VD_MEMSET:
		m_ = k_begin(v, 'M');
		k_u64(v, val->fill);
		k_u64(v, val->off);
		k_u64(v, val->len);
		k_u64(v, val->bytes);
		n = k_prev(v, x, val, whole) ? k_end(v, m_) : own_number(v, x, "part of it is uninitialised");
		break;
	case VD_COPY:
		if (val->src >= x) {
			n = own_number(v, x, "it copies a later value");
			break;
		}
		rests_on(v, x, val->src);
		if (whole && val->src_off == 0 && o->values.items[val->src].bytes == val->bytes) {
			n = v->vn[val->src];
			v->cseq[x] = v->cseq[val->src];
			v->cgeo[x] = v->cgeo[val->src];
			break;
		}
		m_ = k_begin(v, 'C');
		k_u64(v, v->vn[val->src]);
		k_u64(v, val->src_off);
		k_u64(v, val->off);
		k_u64(v, val->len);
		k_u64(v, val->bytes);
		n = k_prev(v, x, val, whole) ? k_end(v, m_) : own_number(v, x, "part of it is uninitialised");
		break;
	case VD_OP: {
		if (val->input != NO_VALUE) {    /* a trimmed result: the shared input */
			m_ = k_begin(v, 'I');
			k_u64(v, val->input);
			k_u64(v, val->off);
			k_u64(v, val->len);
			k_u64(v, val->bytes);
			n = k_prev(v, x, val, whole) ? k_end(v, m_) : own_number(v, x, "part of it is uninitialised");
			break;
		}
		const struct obl_op *op = val->op < o->ops.len ? &o->ops.items[val->op] : NULL;
		const struct obl_view *w = op ? obl_op_view(op, obl_op_result(op, val->result)) : NULL;
		if (!w) {
			n = own_number(v, x, "its op has no such result");
			break;
		}
		uint32_t s = result_seq(v, val->op, val->result, w, &why);
		if (!s) {
			n = own_number(v, x, why);
			break;
		}
		/* what it rests on: the first operand that has a number of its own */
		for (uint32_t i = 0; i < op->nviews; i++)
			if (op->views[i].value != x && op->views[i].value < x)
				rests_on(v, x, op->views[i].value);
		uint32_t src = whole_copy_of(v, val->op, val->result, w, val->bytes);
		if (src != NO_VALUE) {
			/* a whole copy of a whole value (copy_ into a module's
			 * parameter, clone) is that value */
			n = v->vn[src];
			v->cseq[x] = v->cseq[src];
			v->cgeo[x] = v->cgeo[src];
			break;
		}
		if (covers(w, val->bytes)) {
			m_ = k_begin(v, 'P');
			k_u64(v, s);
			k_geom(v, w);
			n = k_end(v, m_);
			v->cseq[x] = s;
			v->cgeo[x] = w;
			break;
		}
		/* a read through the view the op wrote reads what it wrote,
		 * whatever the rest of the buffer holds (a split's chunks,
		 * views into a buffer larger than them) */
		v->cseq[x] = s;
		v->cgeo[x] = w;
		m_ = k_begin(v, 'Q');
		k_u64(v, s);
		k_geom(v, w);
		k_u64(v, val->bytes);
		n = k_prev(v, x, val, false) ? k_end(v, m_) :
		    own_number(v, x, "its op writes part of it, the rest is uninitialised");
		break;
	}
	}
	v->vn[x] = n;
}

struct vnum *vnum_new(const struct obligation *o)
{
	return vnum_new_bridged(o, NULL);
}

struct vnum *vnum_new_bridged(const struct obligation *o, const uint32_t *alias)
{
	struct vnum *v = xcalloc(1, sizeof *v);
	size_t nv = o->values.len + 1, no = o->ops.len + 1;
	v->o = o;
	v->alias = alias;
	v->hole = NO_VALUE;
	arena_init(&v->arena);
	v->vn = xcalloc(nv, sizeof *v->vn);
	v->cseq = xcalloc(nv, sizeof *v->cseq);
	v->cgeo = xcalloc(nv, sizeof *v->cgeo);
	v->own = xmalloc(nv * sizeof *v->own);
	v->why = xcalloc(nv, sizeof *v->why);
	for (size_t i = 0; i < nv; i++)
		v->own[i] = NO_VALUE;
	v->inst = xcalloc(no, sizeof *v->inst);
	v->bound = xcalloc(no, 1);
	for (uint32_t x = 0; x < o->values.len; x++)
		number(v, x);
	return v;
}

void vnum_free(struct vnum *v)
{
	if (!v)
		return;
	free(v->vn);
	free(v->cseq);
	free(v->cgeo);
	free(v->own);
	free(v->why);
	free(v->inst);
	free(v->bound);
	free(v->keys);
	free(v->tab);
	free(v->kb);
	arena_release(&v->arena);
	free(v);
}

uint32_t vnum_value(const struct vnum *v, uint32_t value)
{
	return value < v->o->values.len ? v->vn[value] : 0;
}

/* The number of bytes [off, off + bytes) of value x read as et. */
static uint32_t range_seq(struct vnum *v, uint32_t x, uint64_t off, uint64_t bytes, enum etype et)
{
	if (off == 0 && bytes == v->o->values.items[x].bytes)
		return whole_seq(v, x, et);
	size_t m_ = k_begin(v, 'R');
	k_u64(v, v->vn[x]);
	k_u64(v, off);
	k_u64(v, bytes);
	k_u64(v, et);
	return k_end(v, m_);
}

bool vnum_output_equal(struct vnum *v, uint32_t output, enum etype et, const char **why)
{
	const struct obligation *o = v->o;
	if (why)
		*why = NULL;
	if (output >= o->outputs.len)
		return false;
	const struct obl_output *out = &o->outputs.items[output];
	uint32_t s[2];
	for (int p = 0; p < 2; p++) {
		uint32_t x = out->value[p];
		if (x >= o->values.len || out->off[p] + out->bytes > o->values.items[x].bytes)
			return false;
		s[p] = range_seq(v, x, out->off[p], out->bytes, et);
	}
	if (s[0] == s[1])
		return true;
	if (why) {
		for (int p = 0; p < 2 && !*why; p++) {
			uint32_t u = v->own[out->value[p]];
			const char *pn = o->names[p] ? o->names[p] : p ? "opt" : "ref";
			if (u != NO_VALUE)
				*why = arena_printf(&v->arena, "%s: value %u: %s", pn, u, v->why[u]);
		}
		if (!*why)
			*why = "the op graphs differ";
	}
	return false;
}

void vnum_stats(const struct vnum *v, uint64_t *values, uint64_t *numbers)
{
	*values = v->o->values.len;
	*numbers = v->next_id;
}

/* Per number: bit p when a value of program p has it. */
static unsigned char *programs_of_numbers(const struct vnum *v)
{
	unsigned char *seen = xcalloc((size_t)v->next_id + 2, 1);
	for (size_t x = 0; x < v->o->values.len; x++)
		if (v->o->values.items[x].prog < 2 && v->vn[x] <= v->next_id)
			seen[v->vn[x]] |= (unsigned char)(1u << v->o->values.items[x].prog);
	return seen;
}

uint32_t *vnum_shared(const struct vnum *v, uint64_t *count)
{
	const struct obligation *o = v->o;
	size_t nv = o->values.len;
	unsigned char *seen = programs_of_numbers(v);
	uint32_t *shared = NULL;
	*count = 0;
	for (size_t x = 0; x < nv; x++) {
		const struct obl_value *val = &o->values.items[x];
		bool computed = val->def == VD_OP || val->def == VD_COPY || val->def == VD_LAUNCH;
		if (!computed || val->input != NO_VALUE || v->vn[x] > v->next_id || seen[v->vn[x]] != 3)
			continue;
		if (!shared)
			shared = xcalloc(nv + 1, sizeof *shared);
		shared[x] = v->vn[x];
		++*count;
	}
	free(seen);
	return shared;
}

/* ---- bridges ------------------------------------------------------------ */

#define BRIDGES_MAX 64      /* per obligation */
#define BRIDGE_ROUNDS (BRIDGES_MAX + 1)   /* numberings: one bridge each */

/* Computed by a program: an op's result (not a trimmed one), a copy, a
 * launch's. */
static bool computed(const struct obl_value *val)
{
	return (val->def == VD_OP && val->input == NO_VALUE) || val->def == VD_COPY ||
	       val->def == VD_LAUNCH;
}

/* The key of the result that value x is, with value h's views keyed by
 * their geometry alone (a hole), or 0. */
static uint32_t holed_key(struct vnum *v, uint32_t x, uint32_t h)
{
	const struct obl_value *val = &v->o->values.items[x];
	const struct obl_op *op = &v->o->ops.items[val->op];
	const struct obl_view *w = obl_op_view(op, obl_op_result(op, val->result));
	const char *why;
	if (!w)
		return 0;
	v->kn = 0;
	v->hole = h;
	uint32_t s = result_seq(v, val->op, val->result, w, &why);
	v->hole = NO_VALUE;
	return s;
}

/* A place for a hole: op result x reads value h whole through view w. */
struct holes { uint32_t x, h; const struct obl_view *w; };

/* Into out (at most max; returns how many): the operand views of op
 * result x whose value has a number x's program alone has (seen: per
 * number, a bit per program), is computed and is read whole and dense,
 * each value once.  None when x's op is a copy or a view, unless
 * copies. */
static size_t holes_of(struct vnum *v, const unsigned char *seen, uint32_t x, bool copies,
                       struct holes *out, size_t max)
{
	const struct obligation *o = v->o;
	const struct obl_value *val = &o->values.items[x];
	size_t n = 0;
	if (val->def != VD_OP || val->input != NO_VALUE || val->op >= o->ops.len)
		return 0;
	const struct obl_op *op = &o->ops.items[val->op];
	const struct op_inst *in = bound(v, val->op);
	unsigned src;
	if (!in || (!copies && op_is_copy(in, val->result, &src)))
		return 0;            /* a copy or a view says little of what it reads */
	for (unsigned k = 0; k < in->nin && n < max; k++) {
		const struct obl_view *w = obl_op_view(op, in->in_tensor[k]);
		if (!w || w->value >= x)
			continue;
		const struct obl_value *h = &o->values.items[w->value];
		if (h->prog != val->prog || seen[v->vn[w->value]] != 1u << val->prog || !computed(h) ||
		    !covers(w, h->bytes))
			continue;
		bool dup = false;
		for (size_t j = 0; j < n; j++)
			dup = dup || out[j].h == w->value;
		if (!dup)
			out[n++] = (struct holes){ x, w->value, w };
	}
	return n;
}

#define PICK_AMBIGUOUS UINT32_MAX

/* n + 1 entries of NO_VALUE (the caller frees them). */
static uint32_t *no_values(size_t n)
{
	uint32_t *t = xmalloc((n + 1) * sizeof *t);
	for (size_t i = 0; i <= n; i++)
		t[i] = NO_VALUE;
	return t;
}

size_t vnum_bridges(const struct obligation *o, bool copies, struct vnum_bridge **out,
                    uint32_t **alias_out)
{
	size_t nv = o->values.len, nb = 0;
	uint32_t *alias = no_values(nv), *cand = NULL;
	const struct obl_view **cview = xcalloc(nv + 1, sizeof *cview);   /* the reference's view of cand */
	struct vnum_bridge *b = NULL;
	for (int round = 0; round < BRIDGE_ROUNDS && nb < BRIDGES_MAX; round++) {
		struct vnum *v = vnum_new_bridged(o, alias);
		unsigned char *seen = programs_of_numbers(v);
		/* holed keys of the reference's ops: key -> the value in the hole + 1 */
		uint32_t *pick = NULL;
		size_t npick = 0;
		const struct obl_view **pview = NULL;
		struct holes hs[8];
		for (uint32_t x = 0; x < nv; x++) {
			if (o->values.items[x].prog != 0)
				continue;
			size_t n = holes_of(v, seen, x, copies, hs, 8);
			for (size_t j = 0; j < n; j++) {
				uint32_t id = holed_key(v, x, hs[j].h);
				if (!id)
					continue;
				if (id >= npick) {
					size_t m = 2 * (size_t)id + 64;
					pick = xrealloc(pick, m * sizeof *pick);
					pview = xrealloc(pview, m * sizeof *pview);
					memset(pick + npick, 0, (m - npick) * sizeof *pick);
					npick = m;
				}
				if (!pick[id]) {
					pick[id] = hs[j].h + 1;
					pview[id] = hs[j].w;
				} else if (pick[id] != hs[j].h + 1) {
					pick[id] = PICK_AMBIGUOUS;
				}
			}
		}
		/* the optimized program's ops with the same holed key */
		free(cand);
		cand = no_values(nv);
		for (uint32_t x = 0; x < nv; x++) {
			if (o->values.items[x].prog != 1)
				continue;
			size_t n = holes_of(v, seen, x, copies, hs, 8);
			for (size_t j = 0; j < n; j++) {
				uint32_t id = holed_key(v, x, hs[j].h), h = hs[j].h;
				if (!id || id >= npick || !pick[id] || pick[id] == PICK_AMBIGUOUS)
					continue;
				uint32_t r = pick[id] - 1;
				if (r >= h || o->values.items[r].bytes != o->values.items[h].bytes)
					continue;
				if (cand[h] == NO_VALUE)
					cview[h] = pview[id];
				cand[h] = cand[h] == NO_VALUE || cand[h] == r ? r : PICK_AMBIGUOUS;
				if (cand[h] == r && pview[id]->dtype != hs[j].w->dtype)
					cand[h] = PICK_AMBIGUOUS;
			}
		}
		/* the first candidate only: what follows it may be a candidate too
		 * in this round, but it is the same on both sides once this one is
		 * taken as equal (the next round's numbering shows it) */
		size_t before = nb;
		for (uint32_t h = 0; h < nv && nb == before; h++) {
			if (cand[h] == NO_VALUE || cand[h] == PICK_AMBIGUOUS)
				continue;
			alias[h] = cand[h];
			b = xrealloc(b, (nb + 1) * sizeof *b);
			b[nb++] = (struct vnum_bridge){ cand[h], h, cview[h] };
		}
		free(pick);
		free(pview);
		free(seen);
		vnum_free(v);
		if (nb == before)
			break;
	}
	free(cand);
	free(cview);
	*out = b;
	if (alias_out)
		*alias_out = alias;
	else
		free(alias);
	return nb;
}

uint32_t *vnum_bridge_alias(const struct obligation *o)
{
	uint32_t *alias = NULL;
	for (size_t i = 0; i < o->outputs.len; i++) {
		const struct obl_output *out = &o->outputs.items[i];
		if (!out->bridge || out->value[0] >= o->values.len || out->value[1] >= o->values.len)
			continue;
		if (!alias)
			alias = no_values(o->values.len);
		alias[out->value[1]] = out->value[0];
	}
	return alias;
}
