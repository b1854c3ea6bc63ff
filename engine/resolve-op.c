/*
 * resolve-op.c: back-projection through torch ops (paper 3.3.5, 3.4).
 *
 * A value defined by an op holds, at the storage elements its result view
 * covers, the op's per-element formula (engine/ops, op_elem_expr) at
 * the matching row-major index of the result.  The formula asks for
 * operand elements by operand number and row-major index; each is mapped
 * through the operand's view (offset + sum(idx * stride)) to an element of
 * the value it reads, and resolved recursively (memoised by resolve.c).
 * Float elements of inputs become INPUT leaves there; integer ones are the
 * recorded constants, read as reals where a formula wants a number and as
 * integers where it wants an index.
 *
 * Each op is bound (op_bind) once per resolver, on first use.  Results
 * with strided views are inverted through a table built on first use.
 */
#include "engine/resolve.h"
#include "engine/resolve-impl.h"
#include "libcommon/diag.h"
#include "engine/ops/ops.h"

#include <math.h>
#include <string.h>

#define MAX_INV_ELEMS (1u << 24)     /* strided results larger than this: unsupported */

enum { B_NONE, B_OK, B_FAIL };

struct rop {
	const struct obligation *o;
	struct op_inst *inst;            /* per op */
	unsigned char *bound;            /* per op: B_* */
	const char **err;                /* per op: why binding failed */
	int64_t **inv;                   /* per value: storage element - offset -> flat, or NULL */
	struct arena arena;
};

static struct rop *rop_get(struct resolver *r, struct rop **rp)
{
	if (*rp)
		return *rp;
	const struct obligation *o = &rs_state(r)->obl;
	struct rop *x = xcalloc(1, sizeof *x);
	x->o = o;
	x->inst = xcalloc(o->ops.len + 1, sizeof *x->inst);
	x->bound = xcalloc(o->ops.len + 1, 1);
	x->err = xcalloc(o->ops.len + 1, sizeof *x->err);
	x->inv = xcalloc(o->values.len + 1, sizeof *x->inv);
	arena_init(&x->arena);
	*rp = x;
	return x;
}

void rop_free(struct rop *x)
{
	if (!x)
		return;
	for (size_t v = 0; v < x->o->values.len; v++)
		free(x->inv[v]);
	free(x->inv);
	free(x->inst);
	free(x->bound);
	free(x->err);
	arena_release(&x->arena);
	free(x);
}

/* The bound instance of op k, or NULL (the reason in x->err[k]). */
static const struct op_inst *bound(struct rop *x, uint32_t k)
{
	const struct obl_op *op = &x->o->ops.items[k];
	if (x->bound[k] == B_NONE) {
		char err[256];
		x->bound[k] = B_OK;
		if (op->unsupported) {
			x->bound[k] = B_FAIL;
			x->err[k] = op->unsupported;
		} else if (!op_bind(&op->call, obl_op_shape, (void *)op, &x->arena, &x->inst[k], err, sizeof err)) {
			x->bound[k] = B_FAIL;
			x->err[k] = arena_strdup(&x->arena, err);
		}
	}
	return x->bound[k] == B_OK ? &x->inst[k] : NULL;
}

/* The row-major index into view w of storage element e, -1 when w does not
 * reach it, -2 when it reaches it more than once. */
static int64_t view_flat(struct rop *x, uint32_t v, const struct obl_view *w, uint64_t e)
{
	uint64_t n = obl_view_numel(w), ext = obl_view_extent(w);
	if (e < (uint64_t)w->offset || e >= ext)
		return -1;
	if (obl_view_contiguous(w))
		return (int64_t)(e - (uint64_t)w->offset);
	if (!x->inv[v]) {
		uint64_t span = ext - (uint64_t)w->offset;
		if (n > MAX_INV_ELEMS || span > MAX_INV_ELEMS)
			return -2;
		int64_t *t = xmalloc(span * sizeof *t);
		for (uint64_t i = 0; i < span; i++)
			t[i] = -1;
		for (uint64_t f = 0; f < n; f++) {
			uint64_t rest = f, at = 0;
			for (uint32_t d = w->ndim; d-- > 0;) {
				uint64_t s = (uint64_t)w->shape[d];
				at += (rest % s) * (uint64_t)w->stride[d];
				rest /= s;
			}
			t[at] = t[at] == -1 ? (int64_t)f : -2;
		}
		x->inv[v] = t;
	}
	return x->inv[v][e - (uint64_t)w->offset];
}

static bool etype_signed(enum etype t)
{
	return t == ET_S8 || t == ET_S16 || t == ET_S32 || t == ET_S64;
}

struct leafctx {
	struct resolver *r;
	const struct obl_op *op;
	const struct op_inst *in;
	unsigned depth;
	struct resolve_info *acc;
	bool failed;
};

/* Operand k's element flat, as resolve.c answers it (NULL: unknown). */
static const struct expr *operand(struct leafctx *c, unsigned k, uint64_t flat,
                                  const struct obl_view **wp)
{
	const struct obl_view *w = k < c->in->nin ? obl_op_view(c->op, c->in->in_tensor[k]) : NULL;
	*wp = w;
	if (!w || flat >= obl_view_numel(w)) {
		ri_fail(c->acc, RI_UNSUPPORTED, "torch op '%s': operand %u element %llu is outside it",
		        c->op->call.op, k, (unsigned long long)flat);
		return NULL;
	}
	uint64_t e = obl_view_elem(w, flat);
	return rs_elem(c->r, w->value, e * etype_size(w->dtype), w->dtype, c->depth + 1, c->acc);
}

static const struct expr *leaf_sym(struct ectx *cx, void *user, unsigned k, uint64_t flat)
{
	struct leafctx *c = user;
	const struct obl_view *w;
	const struct expr *x = c->failed ? NULL : operand(c, k, flat, &w);
	if (!x) {
		c->failed = true;
		return e_real(cx, 0);
	}
	if (!etype_is_float(w->dtype))
		x = e_op1(cx, etype_signed(w->dtype) ? EOP_S2R : EOP_U2R, SORT_REAL, 0, x);
	return x;
}

static int64_t leaf_int(void *user, unsigned k, uint64_t flat)
{
	struct leafctx *c = user;
	const struct obl_view *w;
	const struct expr *x = c->failed ? NULL : operand(c, k, flat, &w);
	if (x && x->op == EOP_BV) {
		unsigned bits = SORT_WIDTH(x->sort);
		uint64_t u = x->u;
		if (etype_signed(w->dtype) && bits < 64 && (u >> (bits - 1)) & 1)
			u |= ~0ull << bits;
		return (int64_t)u;
	}
	if (x && x->op == EOP_REAL && x->d == floor(x->d))
		return (int64_t)x->d;
	if (x)
		ri_fail(c->acc, RI_UNSUPPORTED, "torch op '%s' takes indices from data", c->op->call.op);
	c->failed = true;
	return 0;
}

static long double leaf_val(void *user, unsigned k, uint64_t flat)
{
	(void)user; (void)k; (void)flat;
	return 0;                        /* not used symbolically */
}

int rop_elem(struct resolver *r, struct rop **rp, uint32_t v, uint64_t off, enum etype et,
             unsigned depth, struct resolve_info *acc, const struct expr **out)
{
	struct rop *x = rop_get(r, rp);
	const struct obl_value *val = &x->o->values.items[v];
	const struct obl_op *op = &x->o->ops.items[val->op];
	const struct obl_view *w = obl_op_view(op, obl_op_result(op, val->result));
	*out = NULL;
	if (!w) {
		ri_fail(acc, RI_UNSUPPORTED, "value %u: op %u has no result %u", v, val->op, val->result);
		return -1;
	}
	unsigned es = etype_size(w->dtype), rs = etype_size(et);
	/* elements the read touches */
	uint64_t lo = off / es, hi = (off + rs - 1) / es;
	bool any = false;
	for (uint64_t e = lo; e <= hi && !any; e++)
		any = view_flat(x, v, w, e) != -1;
	if (!any)
		return 0;
	int64_t flat = view_flat(x, v, w, lo);
	if (flat == -2) {
		ri_fail(acc, RI_UNSUPPORTED, "torch op '%s' writes a view that overlaps itself or is "
		        "too large", op->call.op);
		return -1;
	}
	if (off % es || rs != es || et != w->dtype) {
		ri_fail(acc, RI_UNSUPPORTED, "a read of %s at byte %llu of a %s result of torch op '%s'",
		        etype_name(et), (unsigned long long)off, etype_name(w->dtype), op->call.op);
		return -1;
	}
	const struct op_inst *in = bound(x, val->op);
	if (!in) {
		ri_fail(acc, RI_UNSUPPORTED, "torch op '%s' (program %u) is unsupported: %s",
		        op->call.op, op->prog, x->err[val->op]);
		return -1;
	}
	struct leafctx c = { r, op, in, depth, acc, false };
	struct op_leaves lv = { leaf_sym, leaf_val, leaf_int, &c };
	struct ectx *cx = rs_cx(r);
	const struct expr *e = op_elem_expr(cx, in, val->result, (uint64_t)flat, &lv);
	if (c.failed) {
		if (!(acc->flags & RI_NO_RESULT))
			ri_fail(acc, RI_UNSUPPORTED, "an operand of torch op '%s' is unknown", op->call.op);
		return 1;
	}
	if (!e) {
		ri_fail(acc, RI_UNSUPPORTED, "result %u of torch op '%s' has no per-element formula",
		        val->result, op->call.op);
		return -1;
	}
	if (!etype_is_float(w->dtype))
		e = e_op1(cx, etype_signed(w->dtype) ? EOP_R2S : EOP_R2U, SORT_BV(8 * es), RM_RZ, e);
	*out = e;
	return 1;
}

/* The float of type et stored in bytes p, or NAN where the type is not
 * decoded. */
static double float_at(enum etype et, const unsigned char *p)
{
	if (et == ET_F32) {
		float f;
		memcpy(&f, p, 4);
		return f;
	}
	if (et == ET_F64) {
		double d;
		memcpy(&d, p, 8);
		return d;
	}
	if (et == ET_BF16) {
		float f;
		uint32_t b = (uint32_t)(p[0] | p[1] << 8) << 16;
		memcpy(&f, &b, 4);
		return f;
	}
	unsigned h = (unsigned)(p[0] | p[1] << 8), ex = (h >> 10) & 0x1f, man = h & 0x3ff;
	double v = ex == 0 ? ldexp(man, -24) : ex == 31 ? NAN : ldexp(man | 0x400, (int)ex - 25);
	return h & 0x8000 ? -v : v;
}

const struct expr *rop_data(struct resolver *r, const struct obl_value *val, uint64_t off,
                            enum etype et, struct resolve_info *acc)
{
	unsigned size = etype_size(et);
	uint64_t at = off - val->off;
	const unsigned char *p = (const unsigned char *)val->data + at;
	if (!etype_is_float(et)) {
		uint64_t u = 0;
		for (unsigned i = 0; i < size; i++)
			u |= (uint64_t)p[i] << (8 * i);
		return e_bv(rs_cx(r), u, 8 * size);
	}
	double d = float_at(et, p);
	if (!isfinite(d)) {
		ri_fail(acc, RI_UNSUPPORTED, "a torch constant holds a %s that is not finite",
		        etype_name(et));
		return NULL;
	}
	return e_real(rs_cx(r), d);
}

enum etype rop_value_etype(const struct obligation *o, uint32_t v)
{
	const struct obl_value *val = &o->values.items[v];
	if (val->def == VD_INPUT && val->input < o->inputs.len)
		return o->inputs.items[val->input].dtype;
	if (val->def == VD_OP && val->op < o->ops.len) {
		const struct obl_op *op = &o->ops.items[val->op];
		const struct obl_view *w = obl_op_view(op, obl_op_result(op, val->result));
		return w ? w->dtype : ET_NONE;
	}
	return ET_NONE;
}
