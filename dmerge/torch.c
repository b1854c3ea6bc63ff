/*
 * torch.c: the torch records of a trace in SSA form (see dmerge(1)).
 *
 * A storage is a buffer; every op that writes it (a fresh result, an
 * in-place update, a kernel launch that receives a pointer into it) makes
 * a new value of it.  A tensor is a view (shape, stride, offset, dtype) of
 * the storage's value current when the tensor is used; ops that only
 * return aliases (views) make no values, their results are described by
 * the recorded geometry.  Each other op becomes an "op" record with a view
 * for every tensor it names, bound once (op_bind) to validate the shapes;
 * an op without semantics stays in the obligation, marked unsupported.
 *
 * At the end inputs (tinput roles input, param, buffer) are matched by
 * name when both programs name the same set, else by order within the
 * role; outputs (toutput) by order.  Then the common prefix of identical
 * ops on matched operands is trimmed (paper 3.2): its results become
 * shared inputs for checking, while replay still runs the ops.
 */
#include "merge-impl.h"
#include "libcommon/diag.h"
#include "engine/ops/ops.h"
#include "engine/vnum.h"

#include <string.h>

#define VEC_GROW(v, n, init) do { \
	while ((v).len < (size_t)(n)) \
		VEC_PUSH(v, init); \
} while (0)

static const char *const role_plural[] = { "inputs", "parameters", "buffers", "constants" };

static const struct tview *get_view(struct prog *pr, const struct record *rec, uint32_t t)
{
	if (t >= pr->views.len || !pr->views.items[t].known) {
		rec_error(rec, "tensor %u has no tensor record before it", t);
		return NULL;
	}
	return &pr->views.items[t];
}

uint32_t torch_new_value(struct merge *m, int p, uint32_t sid, struct obl_value v)
{
	struct tstore *s = &m->progs[p].stores.items[sid];
	v.value = (uint32_t)m->ob.values.len;
	v.prog = (uint32_t)p;
	v.buf = sid;                /* the buffer id is set in torch_finish */
	v.bytes = 0;
	v.symbol = NULL;
	v.storage = sid;
	v.has_storage = true;
	if (s->cur != NO_VALUE) {
		v.prev = s->cur;
		v.version = m->ob.values.items[s->cur].version + 1;
	} else {
		v.prev = NO_VALUE;
		v.version = 0;
	}
	VEC_PUSH(m->ob.values, v);
	s->cur = v.value;
	return v.value;
}

static void note_view(struct prog *pr, uint32_t tensor, const struct tview *tv)
{
	struct tstore none = { false, NO_VALUE, 0, 0 };
	struct tview unk = { 0 };
	VEC_GROW(pr->views, tensor + 1, unk);
	pr->views.items[tensor] = *tv;
	VEC_GROW(pr->stores, tv->storage + 1, none);
	struct tstore *s = &pr->stores.items[tv->storage];
	uint64_t end = obl_view_extent(&tv->v) * etype_size(tv->v.dtype);
	s->seen = true;
	if (end > s->bytes)
		s->bytes = end;
}

static int take_tensor(struct merge *m, int p, const struct record *rec)
{
	struct torch_tensor t;
	struct prog *pr = &m->progs[p];
	if (!torch_read_tensor(rec, &m->arena, &t))
		return -1;
	if (t.tensor < pr->views.len && pr->views.items[t.tensor].known) {
		rec_error(rec, "tensor %u recorded twice", t.tensor);
		return -1;
	}
	/* Ids index tables grown to them: bounded, so that a wrong id is
	 * a message, not gigabytes (dmerge(1), LIMITS). */
	if (t.tensor >= rec->index + MERGE_ID_SLACK || t.storage >= rec->index + MERGE_ID_SLACK) {
		rec_error(rec, "%s id %u is too large: ids are numbered from 0 as they are recorded, "
		          "so at record %zu they are below %zu", t.tensor >= rec->index + MERGE_ID_SLACK ?
		          "tensor" : "storage", t.tensor >= rec->index + MERGE_ID_SLACK ? t.tensor : t.storage,
		          rec->index, rec->index + MERGE_ID_SLACK);
		return -1;
	}
	struct tview tv = { .known = true, .storage = t.storage, .version = t.version };
	tv.v.tensor = t.tensor;
	tv.v.value = NO_VALUE;
	tv.v.dtype = t.dtype;
	tv.v.ndim = t.ndim;
	memcpy(tv.v.shape, t.shape, sizeof tv.v.shape);
	memcpy(tv.v.stride, t.stride, sizeof tv.v.stride);
	tv.v.offset = t.offset;
	tv.data = t.data;
	tv.ndata = t.ndata;
	note_view(pr, t.tensor, &tv);
	return 1;
}

static int take_tinput(struct merge *m, int p, const struct record *rec)
{
	struct torch_input in;
	struct prog *pr = &m->progs[p];
	if (!torch_read_input(rec, &m->arena, &in))
		return -1;
	const struct tview *tv = get_view(pr, rec, in.tensor);
	if (!tv)
		return -1;
	struct tstore *s = &pr->stores.items[tv->storage];
	uint64_t es = etype_size(tv->v.dtype), n = obl_view_numel(&tv->v);
	if (!obl_view_contiguous(&tv->v)) {
		rec_error(rec, "%s '%s' is not contiguous (row-major); dirigo needs contiguous inputs",
		          torch_role_name(in.role), in.name);
		return -1;
	}
	if (s->cur != NO_VALUE) {
		rec_error(rec, "%s '%s' shares its storage with an earlier tensor; shared inputs "
		          "are not supported", torch_role_name(in.role), in.name);
		return -1;
	}
	if (in.data && in.ndata != n * es) {
		rec_error(rec, "field 'data': %zu bytes, the tensor has %llu", in.ndata,
		          (unsigned long long)(n * es));
		return -1;
	}
	struct obl_value v = { .off = (uint64_t)tv->v.offset * es, .len = n * es, .input = NO_VALUE };
	if (in.role == TR_CONSTANT) {
		if (!in.data) {
			rec_error(rec, "constant '%s' has no data", in.name);
			return -1;
		}
		v.def = VD_DATA;
		v.data = in.data;
		torch_new_value(m, p, tv->storage, v);
	} else {
		v.def = VD_INPUT;
		v.input = (uint32_t)pr->tins.len;   /* matched in torch_finish */
		struct tin ti = { .value = torch_new_value(m, p, tv->storage, v), .tensor = in.tensor,
		                  .role = in.role, .name = in.name, .hash = in.hash,
		                  .data = in.data, .ndata = in.ndata, .bytes = n * es, .v = tv->v };
		VEC_PUSH(pr->tins, ti);
	}
	s->tver = tv->version;
	return 1;
}

struct shape_user { struct prog *pr; };

static bool view_shape(void *user, uint32_t tensor, struct op_shape *shape, enum etype *et)
{
	struct prog *pr = ((struct shape_user *)user)->pr;
	if (tensor >= pr->views.len || !pr->views.items[tensor].known)
		return false;
	const struct obl_view *v = &pr->views.items[tensor].v;
	shape->ndim = v->ndim;
	for (uint32_t i = 0; i < v->ndim; i++)
		shape->dim[i] = v->shape[i];
	*et = v->dtype;
	return true;
}

/* Every tensor id the call names: operands first (nopnd of them), then
 * results (outs, then mutated), duplicates kept. */
static uint32_t call_tensors(const struct torch_op *c, uint32_t *ids, uint32_t max, uint32_t *nopnd)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->nargs; i++) {
		const struct torch_arg *g = &c->args[i];
		uint32_t k = g->kind == TARG_TENSOR ? 1 : g->kind == TARG_TENSORS ? g->n : 0;
		for (uint32_t j = 0; j < k && n < max; j++) {
			uint32_t t = g->kind == TARG_TENSOR ? g->tensor : g->tensors[j];
			if (t != TORCH_NO_TENSOR)
				ids[n++] = t;
		}
	}
	*nopnd = n;
	for (uint32_t i = 0; i < c->nouts + c->nmuts && n < max; i++) {
		uint32_t t = i < c->nouts ? c->outs[i] : c->muts[i - c->nouts].tensor;
		ids[n++] = t;
	}
	return n;
}

/* Tensors one call names: unbind of a GRU's or LSTM's sequence returns
 * one per step (a level-3 GRU has 512). */
#define MAX_TENSORS 1024

/* Ops that make tensors without reading data: "empty" (uninitialised),
 * or filled with one number.  Returns 0 for other ops, 1 for empty, 2 for
 * a fill (*fill set). */
static int creation(const struct torch_op *c, double *fill)
{
	static const char *const empty[] = {
		"aten::empty.memory_format", "aten::empty_like", "aten::empty_strided",
		"aten::new_empty", "aten::new_empty_strided", NULL
	};
	static const char *const zero[] = {
		"aten::zeros", "aten::zeros_like", "aten::new_zeros", "aten::zero_", NULL
	};
	static const char *const one[] = { "aten::ones", "aten::ones_like", "aten::new_ones", NULL };
	static const char *const full[] = { "aten::full", "aten::full_like", "aten::new_full", NULL };
	for (int i = 0; empty[i]; i++)
		if (strcmp(c->op, empty[i]) == 0)
			return 1;
	for (int i = 0; zero[i]; i++)
		if (strcmp(c->op, zero[i]) == 0) {
			*fill = 0;
			return 2;
		}
	for (int i = 0; one[i]; i++)
		if (strcmp(c->op, one[i]) == 0) {
			*fill = 1;
			return 2;
		}
	const char *arg = NULL;
	for (int i = 0; full[i]; i++)
		if (strcmp(c->op, full[i]) == 0)
			arg = "fill_value";
	if (strcmp(c->op, "aten::fill_.Scalar") == 0)
		arg = "value";
	if (strcmp(c->op, "aten::scalar_tensor") == 0)
		arg = "s";
	const struct torch_arg *g = arg ? torch_op_arg(c, arg) : NULL;
	if (!g || (g->kind != TARG_FLOAT && g->kind != TARG_INT && g->kind != TARG_BOOL))
		return 0;
	*fill = g->kind == TARG_FLOAT ? g->f : (double)g->i;
	return 2;
}

/* n elements of dtype et, each fill; NULL for half types. */
static void *fill_bytes(struct arena *a, enum etype et, uint64_t n, double fill)
{
	unsigned es = etype_size(et);
	unsigned char one[8];
	if (et == ET_F32) {
		float f = (float)fill;
		memcpy(one, &f, 4);
	} else if (et == ET_F64) {
		memcpy(one, &fill, 8);
	} else if (etype_is_float(et)) {
		return NULL;
	} else {
		uint64_t u = (uint64_t)(int64_t)fill;
		for (unsigned k = 0; k < es; k++)
			one[k] = (unsigned char)(u >> (8 * k));
	}
	unsigned char *d = arena_alloc(a, n * es + 1);
	for (uint64_t i = 0; i < n; i++)
		memcpy(d + i * es, one, es);
	return d;
}

/* The byte every one of the n bytes at p is, or -1 if they differ: a fill
 * of such an element is a memset (zeros, of any dtype), which costs the
 * stream nothing whatever the tensor's size. */
static int one_byte(const unsigned char *p, uint64_t n)
{
	for (uint64_t i = 1; i < n; i++)
		if (p[i] != p[0])
			return -1;
	return n ? p[0] : -1;
}

/* Results of a creation op become uninit, memset or data values; false if the op
 * is not one or a result cannot be described that way. */
static bool take_creation(struct merge *m, int p, const struct torch_op *c, const uint32_t *ids,
                          uint32_t nopnd, uint32_t n, const bool *fresh)
{
	struct prog *pr = &m->progs[p];
	double fill = 0;
	int kind = creation(c, &fill);
	if (!kind)
		return false;
	for (uint32_t i = nopnd; i < n; i++) {
		if (!fresh[i])
			continue;
		const struct obl_view *w = &pr->views.items[ids[i]].v;
		if (kind == 2 && (!obl_view_contiguous(w) ||
		                  !fill_bytes(&m->arena, w->dtype, 1, fill)))
			return false;
	}
	for (uint32_t i = nopnd; i < n; i++) {
		if (!fresh[i])
			continue;
		const struct tview *tv = &pr->views.items[ids[i]];
		uint64_t es = etype_size(tv->v.dtype), ne = obl_view_numel(&tv->v);
		struct obl_value v = { .def = VD_UNINIT, .input = NO_VALUE };
		if (kind == 2) {
			v.off = (uint64_t)tv->v.offset * es;
			v.len = ne * es;
			int byte = one_byte(fill_bytes(&m->arena, tv->v.dtype, 1, fill), es);
			if (byte >= 0) {
				v.def = VD_MEMSET;
				v.fill = (uint8_t)byte;
			} else {
				v.def = VD_DATA;
				v.data = fill_bytes(&m->arena, tv->v.dtype, ne, fill);
			}
		}
		torch_new_value(m, p, tv->storage, v);
		pr->stores.items[tv->storage].tver = tv->version;
	}
	return true;
}

/* The fresh results of a random op become inputs of their own program
 * (role "random", matched with nothing): fresh, unconstrained values, so
 * that a location depending on one is unknown (dcheck) while the others
 * are checked; the bytes the op made while tracing go with them, for
 * replay. */
static int take_random(struct merge *m, int p, const struct record *rec, const struct torch_op *c,
                       const uint32_t *ids, uint32_t nopnd, uint32_t n, const bool *fresh)
{
	struct prog *pr = &m->progs[p];
	for (uint32_t i = nopnd; i < n; i++) {
		if (!fresh[i])
			continue;
		const struct tview *tv = &pr->views.items[ids[i]];
		uint64_t es = etype_size(tv->v.dtype), ne = obl_view_numel(&tv->v);
		if (!obl_view_contiguous(&tv->v)) {
			rec_error(rec, "random op %s: result tensor %u is not contiguous", c->op, ids[i]);
			return -1;
		}
		if (tv->data && tv->ndata != ne * es) {
			rec_error(rec, "random op %s: tensor %u has %zu bytes of data, %llu expected", c->op,
			          ids[i], tv->ndata, (unsigned long long)(ne * es));
			return -1;
		}
		struct obl_value v = { .def = VD_INPUT, .off = (uint64_t)tv->v.offset * es, .len = ne * es,
		                       .input = NO_VALUE };
		struct trand t = { .name = arena_printf(&m->arena, "%s#%llu.%u", c->op,
		                                        (unsigned long long)c->seq, i - nopnd),
		                   .data = tv->data, .ndata = tv->ndata, .bytes = ne * es, .v = tv->v };
		t.value = torch_new_value(m, p, tv->storage, v);
		pr->stores.items[tv->storage].tver = tv->version;
		VEC_PUSH(pr->rands, t);
	}
	return 1;
}

/* One op (recorded, or made by dmerge for a strided output). */
static int take_call(struct merge *m, int p, const struct record *rec, const struct torch_op *c)
{
	struct prog *pr = &m->progs[p];
	uint32_t ids[MAX_TENSORS], nopnd, vals[MAX_TENSORS];
	uint32_t n = call_tensors(c, ids, MAX_TENSORS, &nopnd);
	if (n == MAX_TENSORS) {
		rec_error(rec, "%s: more than %d tensors", c->op, MAX_TENSORS - 1);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (ids[i] == TORCH_NO_TENSOR) {
			vals[i] = NO_VALUE;
			continue;
		}
		const struct tview *tv = get_view(pr, rec, ids[i]);
		if (!tv)
			return -1;
		const struct tstore *s = &pr->stores.items[tv->storage];
		vals[i] = s->cur;
		if (i < nopnd && s->cur == NO_VALUE) {
			rec_error(rec, "%s reads tensor %u, whose storage %u holds nothing yet", c->op,
			          ids[i], tv->storage);
			return -1;
		}
		if (i < nopnd && tv->version != s->tver) {
			rec_error(rec, "%s reads tensor %u of version %u of storage %u, whose current "
			          "version is %u", c->op, ids[i], tv->version, tv->storage, s->tver);
			return -1;
		}
	}
	/* Results on a new version of their storage define values; the others
	 * are aliases of what is there. */
	bool fresh[MAX_TENSORS] = { false };
	uint32_t nfresh = 0;
	for (uint32_t i = nopnd; i < n; i++) {
		if (ids[i] == TORCH_NO_TENSOR)
			continue;
		const struct tview *tv = &pr->views.items[ids[i]];
		const struct tstore *s = &pr->stores.items[tv->storage];
		bool dup = false;
		for (uint32_t j = nopnd; j < i; j++)
			if (fresh[j] && ids[j] != TORCH_NO_TENSOR &&
			    pr->views.items[ids[j]].storage == tv->storage) {
				if (pr->views.items[ids[j]].version != tv->version) {
					rec_error(rec, "%s: two results name versions %u and %u of storage %u",
					          c->op, pr->views.items[ids[j]].version, tv->version, tv->storage);
					return -1;
				}
				dup = true;
			}
		if (dup)
			continue;
		if (s->cur == NO_VALUE || tv->version != s->tver) {
			fresh[i] = true;
			nfresh++;
		}
	}
	if (c->seq + 1 > pr->last_seq)
		pr->last_seq = c->seq + 1;
	if (!nfresh)
		return 1;               /* a view: the tensor records say it all */
	if (take_creation(m, p, c, ids, nopnd, n, fresh))
		return 1;
	if (c->random)
		return take_random(m, p, rec, c, ids, nopnd, n, fresh);
	struct obl_op op = { .op = (uint32_t)m->ob.ops.len, .prog = (uint32_t)p, .call = *c };
	struct op_inst inst;
	char err[256];
	struct shape_user su = { pr };
	if (!op_bind(c, view_shape, &su, &m->arena, &inst, err, sizeof err)) {
		op.unsupported = arena_strdup(&m->arena, err);
		note("%s: op %llu of '%s': %s", rec->file, (unsigned long long)c->seq, pr->name, err);
	}
	for (uint32_t i = nopnd; i < n; i++) {
		if (!fresh[i])
			continue;
		const struct tview *tv = &pr->views.items[ids[i]];
		struct obl_value v = { .def = VD_OP, .op = op.op, .result = i - nopnd,
		                       .input = NO_VALUE };
		vals[i] = torch_new_value(m, p, tv->storage, v);
		pr->stores.items[tv->storage].tver = tv->version;
	}
	/* results that alias (a fresh one, or what was there) */
	for (uint32_t i = nopnd; i < n; i++)
		if (ids[i] != TORCH_NO_TENSOR && !fresh[i])
			vals[i] = pr->stores.items[pr->views.items[ids[i]].storage].cur;
	op.views = ARENA_NEWN(&m->arena, struct obl_view, n);
	for (uint32_t i = 0; i < n; i++) {
		if (ids[i] == TORCH_NO_TENSOR)
			continue;
		bool seen = false;
		for (uint32_t k = 0; k < op.nviews; k++)
			seen |= op.views[k].tensor == ids[i];
		if (seen)
			continue;
		struct obl_view v = pr->views.items[ids[i]].v;
		v.value = vals[i];
		op.views[op.nviews++] = v;
	}
	VEC_PUSH(m->ob.ops, op);
	VEC_PUSH(pr->ops, op.op);
	VEC_PUSH(pr->op_cuda, pr->cuda_events);
	return 1;
}

static int take_op(struct merge *m, int p, const struct record *rec)
{
	struct torch_op c;
	if (!torch_read_op(rec, &m->arena, &c))
		return -1;
	return take_call(m, p, rec, &c);
}

/* A strided output is copied into a fresh contiguous tensor by a clone
 * made here, so that outputs compare element by element in row-major
 * order.  Returns the tensor to use, or TORCH_NO_TENSOR after a message. */
static uint32_t contiguous_output(struct merge *m, int p, const struct record *rec, uint32_t t)
{
	struct prog *pr = &m->progs[p];
	const struct tview *tv = &pr->views.items[t];
	if (obl_view_contiguous(&tv->v))
		return t;
	struct tview nv = { .known = true, .storage = (uint32_t)pr->stores.len, .version = 0,
	                    .v = tv->v };
	uint32_t nt = (uint32_t)pr->views.len;
	int64_t st = 1;
	for (uint32_t i = nv.v.ndim; i-- > 0;) {
		nv.v.stride[i] = st;
		st *= nv.v.shape[i];
	}
	nv.v.offset = 0;
	nv.v.tensor = nt;
	note_view(pr, nt, &nv);
	struct torch_op c = { .seq = pr->last_seq, .op = "aten::clone", .nargs = 2, .nouts = 1 };
	c.args = ARENA_NEWN(&m->arena, struct torch_arg, 2);
	memset(c.args, 0, 2 * sizeof *c.args);
	c.args[0].name = "self";
	c.args[0].kind = TARG_TENSOR;
	c.args[0].tensor = t;
	c.args[1].name = "memory_format";
	c.args[1].kind = TARG_NONE;
	c.outs = ARENA_NEWN(&m->arena, uint32_t, 1);
	c.outs[0] = nt;
	if (take_call(m, p, rec, &c) < 0)
		return TORCH_NO_TENSOR;
	return nt;
}

static int take_toutput(struct merge *m, int p, const struct record *rec)
{
	struct torch_output o;
	struct prog *pr = &m->progs[p];
	if (!torch_read_output(rec, &m->arena, &o))
		return -1;
	const struct tview *tv = get_view(pr, rec, o.tensor);
	if (!tv)
		return -1;
	const struct tstore *s = &pr->stores.items[tv->storage];
	if (s->cur == NO_VALUE || tv->version != s->tver) {
		rec_error(rec, "output '%s' names a version of storage %u that no op made", o.name,
		          tv->storage);
		return -1;
	}
	uint32_t t = contiguous_output(m, p, rec, o.tensor);
	if (t == TORCH_NO_TENSOR)
		return -1;
	tv = &pr->views.items[t];
	struct tout out = { pr->stores.items[tv->storage].cur, o.name, tv->v };
	VEC_PUSH(pr->touts, out);
	return 1;
}

int torch_take(struct merge *m, int p, const struct record *rec)
{
	const char *t = rec->type;
	if (strcmp(t, "tensor") == 0) return take_tensor(m, p, rec);
	if (strcmp(t, "tinput") == 0) return take_tinput(m, p, rec);
	if (strcmp(t, "op") == 0) return take_op(m, p, rec);
	if (strcmp(t, "toutput") == 0) return take_toutput(m, p, rec);
	if (strcmp(t, "tunsupported") == 0) {
		struct torch_unsupported u;
		if (!torch_read_unsupported(rec, &m->arena, &u))
			return -1;
		struct obl_op op = { .op = (uint32_t)m->ob.ops.len, .prog = (uint32_t)p };
		op.call.op = u.op;
		op.call.seq = m->progs[p].last_seq;
		op.unsupported = u.message;
		op.views = ARENA_NEWN(&m->arena, struct obl_view, 1);
		VEC_PUSH(m->ob.ops, op);
		VEC_PUSH(m->progs[p].ops, op.op);
		VEC_PUSH(m->progs[p].op_cuda, m->progs[p].cuda_events);
		return 1;
	}
	return 0;
}

int torch_launch_arg(struct merge *m, int p, const struct record *rec, uint32_t i,
                     uint32_t *sid, uint64_t *off)
{
	uint32_t n = 0;
	bool ok = true;
	const msgpack_object *args = rec_array(rec, "args", &n, &ok);
	const msgpack_object *o;
	uint64_t s;
	if (!args || i >= n || !(o = obj_get(&args[i], "storage")))
		return 0;
	struct prog *pr = &m->progs[p];
	if (!obj_u64(o, &s) || !obj_u64(obj_get(&args[i], "off"), off)) {
		rec_error(rec, "args[%u]: 'storage' and 'off' must be unsigned integers", i);
		return -1;
	}
	if (s >= pr->stores.len || pr->stores.items[s].cur == NO_VALUE) {
		rec_error(rec, "args[%u]: storage %llu holds no tensor yet", i, (unsigned long long)s);
		return -1;
	}
	*sid = (uint32_t)s;
	return 1;
}

/* ---- the end: buffers, inputs, outputs ------------------------------------ */

static void shape_text(const struct obl_view *v, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "%s[", etype_name(v->dtype));
	for (uint32_t i = 0; i < v->ndim && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, i ? ",%lld" : "%lld", (long long)v->shape[i]);
	if (k < n)
		snprintf(buf + k, n - k, "]");
}

static bool same_shape(const struct obl_view *a, const struct obl_view *b)
{
	if (a->dtype != b->dtype || a->ndim != b->ndim)
		return false;
	for (uint32_t i = 0; i < a->ndim; i++)
		if (a->shape[i] != b->shape[i])
			return false;
	return true;
}

/* Pairs the tinputs of one role: match[j] (an index into ref's tins) for
 * the opt's j-th input of the role. */
static bool match_role(struct merge *m, enum torch_role role, uint32_t *match)
{
	struct prog *r = &m->progs[0], *o = &m->progs[1];
	uint32_t *ia = xcalloc(r->tins.len + 1, sizeof *ia), *ib = xcalloc(o->tins.len + 1, sizeof *ib);
	uint32_t na = 0, nb = 0;
	bool ok = false;
	for (uint32_t i = 0; i < r->tins.len; i++)
		if (r->tins.items[i].role == role)
			ia[na++] = i;
	for (uint32_t i = 0; i < o->tins.len; i++)
		if (o->tins.items[i].role == role)
			ib[nb++] = i;
	if (na != nb) {
		warn("programs do not match: '%s' has %u %s, '%s' has %u", r->name, na,
		     role_plural[role], o->name, nb);
		goto out;
	}
	/* by name when both programs name the same set */
	bool by_name = true;
	for (uint32_t j = 0; j < nb && by_name; j++) {
		uint32_t hits = 0;
		for (uint32_t i = 0; i < na; i++)
			if (strcmp(r->tins.items[ia[i]].name, o->tins.items[ib[j]].name) == 0) {
				hits++;
				match[ib[j]] = ia[i];
			}
		by_name = hits == 1;
	}
	for (uint32_t j = 0; j < nb; j++) {
		if (!by_name)
			match[ib[j]] = ia[j];
		const struct tin *a = &r->tins.items[match[ib[j]]], *b = &o->tins.items[ib[j]];
		if (!same_shape(&a->v, &b->v)) {
			char sa[128], sb[128];
			shape_text(&a->v, sa, sizeof sa);
			shape_text(&b->v, sb, sizeof sb);
			warn("programs do not match: %s '%s' of '%s' is %s, but %s '%s' of '%s' is %s "
			     "(matched by %s)", torch_role_name(role), a->name, r->name, sa,
			     torch_role_name(role), b->name, o->name, sb, by_name ? "name" : "order");
			goto out;
		}
		if (a->hash && b->hash && strcmp(a->hash, b->hash) != 0)
			note("%s '%s' holds different data in the two traces; inputs are symbolic, the "
			     "reference's data is kept for replay", torch_role_name(role), a->name);
	}
	ok = true;
out:
	free(ia);
	free(ib);
	return ok;
}

/* ---- the common prefix ------------------------------------------------------ */

/* Values a (prog 0) and b (prog 1) hold the same elements for all inputs:
 * the same shared input, the same constant, or the same trimmed result. */
static bool same_value(const struct obligation *ob, uint32_t a, uint32_t b)
{
	const struct obl_value *x = &ob->values.items[a], *y = &ob->values.items[b];
	if (x->prev != NO_VALUE || y->prev != NO_VALUE || x->bytes != y->bytes || x->def != y->def ||
	    x->off != y->off || x->len != y->len)
		return false;
	switch (x->def) {
	case VD_INPUT: return x->input == y->input;
	case VD_DATA: return memcmp(x->data, y->data, x->len) == 0;
	case VD_OP: return x->input != NO_VALUE && x->input == y->input;
	default: return false;
	}
}

static bool same_geometry(const struct obl_view *a, const struct obl_view *b)
{
	if (!same_shape(a, b) || a->offset != b->offset)
		return false;
	for (uint32_t i = 0; i < a->ndim; i++)
		if (a->stride[i] != b->stride[i] && a->shape[i] != 1)
			return false;
	return true;
}

static bool same_tensor(const struct obligation *ob, const struct obl_op *a, uint32_t ta,
                        const struct obl_op *b, uint32_t tb)
{
	const struct obl_view *va = obl_op_view(a, ta), *vb = obl_op_view(b, tb);
	return va && vb && same_geometry(va, vb) && same_value(ob, va->value, vb->value);
}

static bool same_arg(const struct obligation *ob, const struct obl_op *a, const struct torch_arg *x,
                     const struct obl_op *b, const struct torch_arg *y)
{
	if (strcmp(x->name, y->name) != 0 || x->kind != y->kind)
		return false;
	switch (x->kind) {
	case TARG_NONE: return true;
	case TARG_TENSOR: return same_tensor(ob, a, x->tensor, b, y->tensor);
	case TARG_BOOL: case TARG_INT: return x->i == y->i;
	case TARG_FLOAT: return x->f == y->f;
	case TARG_STR: case TARG_DTYPE: return strcmp(x->s, y->s) == 0;
	case TARG_INTS: case TARG_BOOLS:
		return x->n == y->n && (!x->n || !memcmp(x->ints, y->ints, x->n * sizeof *x->ints));
	case TARG_FLOATS:
		if (x->n != y->n)
			return false;
		for (uint32_t i = 0; i < x->n; i++)
			if (x->floats[i] != y->floats[i])
				return false;
		return true;
	case TARG_TENSORS:
		if (x->n != y->n)
			return false;
		for (uint32_t i = 0; i < x->n; i++)
			if ((x->tensors[i] == TORCH_NO_TENSOR) != (y->tensors[i] == TORCH_NO_TENSOR) ||
			    (x->tensors[i] != TORCH_NO_TENSOR &&
			     !same_tensor(ob, a, x->tensors[i], b, y->tensors[i])))
				return false;
		return true;
	}
	return false;
}

/* The value result r of op o defines (fresh, contiguous), or NO_VALUE. */
static uint32_t fresh_result(const struct obligation *ob, const struct obl_op *o, uint32_t r)
{
	const struct obl_view *v = obl_op_view(o, obl_op_result(o, r));
	if (!v || !obl_view_contiguous(v))
		return NO_VALUE;
	const struct obl_value *val = &ob->values.items[v->value];
	if (val->def != VD_OP || val->op != o->op || val->result != r || val->prev != NO_VALUE)
		return NO_VALUE;
	return v->value;
}

/* Op i of both programs can be trimmed. */
static bool same_op(struct merge *m, uint32_t i)
{
	const struct obligation *ob = &m->ob;
	struct prog *pa = &m->progs[0], *pb = &m->progs[1];
	if (i >= pa->ops.len || i >= pb->ops.len || pa->op_cuda.items[i] || pb->op_cuda.items[i])
		return false;
	const struct obl_op *a = &ob->ops.items[pa->ops.items[i]], *b = &ob->ops.items[pb->ops.items[i]];
	const struct torch_op *x = &a->call, *y = &b->call;
	if (a->unsupported || b->unsupported || strcmp(x->op, y->op) != 0 || x->nargs != y->nargs ||
	    x->nouts != y->nouts || x->nmuts || y->nmuts)
		return false;
	for (uint32_t k = 0; k < x->nargs; k++)
		if (!same_arg(ob, a, &x->args[k], b, &y->args[k]))
			return false;
	for (uint32_t r = 0; r < x->nouts; r++) {
		if ((x->outs[r] == TORCH_NO_TENSOR) != (y->outs[r] == TORCH_NO_TENSOR))
			return false;
		if (x->outs[r] == TORCH_NO_TENSOR)
			continue;
		if (fresh_result(ob, a, r) == NO_VALUE || fresh_result(ob, b, r) == NO_VALUE ||
		    !same_geometry(obl_op_view(a, x->outs[r]), obl_op_view(b, y->outs[r])))
			return false;
	}
	return true;
}

static void trim(struct merge *m)
{
	struct obligation *ob = &m->ob;
	uint32_t n = 0;
	VEC(uint32_t) ins = { 0 };
	VEC(uint32_t) vals = { 0 };
	while (same_op(m, n)) {
		const struct obl_op *a = &ob->ops.items[m->progs[0].ops.items[n]];
		const struct obl_op *b = &ob->ops.items[m->progs[1].ops.items[n]];
		for (uint32_t r = 0; r < a->call.nouts; r++) {
			if (a->call.outs[r] == TORCH_NO_TENSOR)
				continue;
			uint32_t va = fresh_result(ob, a, r), vb = fresh_result(ob, b, r);
			const struct obl_view *v = obl_op_view(a, a->call.outs[r]);
			uint64_t es = etype_size(v->dtype);
			struct obl_input in = {
				.input = (uint32_t)ob->inputs.len, .bytes = obl_view_numel(v) * es,
				.name = arena_printf(&m->arena, "%s#%u.%u", a->call.op, n, r),
				.dtype = v->dtype, .ndim = v->ndim, .role = "prefix",
			};
			memcpy(in.shape, v->shape, sizeof in.shape);
			VEC_PUSH(ob->inputs, in);
			uint32_t pair[2] = { va, vb };
			for (int p = 0; p < 2; p++) {
				struct obl_value *x = &ob->values.items[pair[p]];
				x->input = in.input;
				x->off = (uint64_t)v->offset * es;
				x->len = in.bytes;
			}
			VEC_PUSH(ins, in.input);
			VEC_PUSH(vals, va);
			VEC_PUSH(vals, vb);
		}
		n++;
	}
	if (n) {
		ob->has_trimmed = true;
		ob->trimmed.ops[0] = ob->trimmed.ops[1] = n;
		ob->trimmed.n = (uint32_t)ins.len;
		ob->trimmed.inputs = ARENA_NEWN(&m->arena, uint32_t, ins.len + 1);
		ob->trimmed.values = arena_alloc(&m->arena, sizeof *ob->trimmed.values * (ins.len + 1));
		for (size_t k = 0; k < ins.len; k++) {
			ob->trimmed.inputs[k] = ins.items[k];
			ob->trimmed.values[k][0] = vals.items[2 * k];
			ob->trimmed.values[k][1] = vals.items[2 * k + 1];
		}
		note("trimmed a common prefix of %u op%s (%zu shared input%s)", n, n == 1 ? "" : "s",
		        ins.len, ins.len == 1 ? "" : "s");
	}
	VEC_FREE(ins);
	VEC_FREE(vals);
}

/* ---- the identical tail ------------------------------------------------------- */

/* Both programs often end with the same ops: a custom kernel for the first
 * convolution, then the same torch layers.  The output then equals
 * wherever the pair of tensors that tail starts from does, for every
 * input (the same deterministic ops on equal operands), and that pair is
 * far cheaper to check than the output.  Walking back from an output
 * pair through ops that are the same in both programs (name, attributes,
 * operand geometry; operands either the same shared value or a pair of
 * program values walked further), the pairs where the programs stop
 * agreeing are the output's cuts: new output records with tail_of.  The
 * converse does not hold (a relu hides a difference in negative numbers),
 * so dcheck reports a difference at a cut as unknown, never as a bug. */

#define TAIL_PAIRS_MAX 4096   /* value pairs walked per output */
#define TAIL_CUTS_MAX 8       /* cuts per output */

struct vpair { uint32_t a, b; const struct obl_view *va, *vb; };
struct tail { struct vpair *p; size_t n, cap; };

static bool tail_push(struct tail *t, uint32_t a, uint32_t b, const struct obl_view *va,
                      const struct obl_view *vb)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->p[i].a == a && t->p[i].b == b && same_geometry(t->p[i].va, va) &&
		    same_geometry(t->p[i].vb, vb))
			return true;
	if (t->n == TAIL_PAIRS_MAX)
		return false;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->p = xrealloc(t->p, t->cap * sizeof *t->p);
	}
	t->p[t->n++] = (struct vpair){ a, b, va, vb };
	return true;
}

/* The op whose whole fresh result value v is (not a trimmed one), or NULL. */
static const struct obl_op *def_op(const struct obligation *ob, uint32_t v)
{
	const struct obl_value *x = &ob->values.items[v];
	if (x->def != VD_OP || x->prev != NO_VALUE || x->input != NO_VALUE || x->op >= ob->ops.len)
		return NULL;
	const struct obl_op *o = &ob->ops.items[x->op];
	return fresh_result(ob, o, x->result) == v ? o : NULL;
}

/* Tensor operands ta of a and tb of b: the same value (nothing to walk),
 * or a pair walked further; false when their geometry differs. */
static bool tail_operand(const struct obligation *ob, struct tail *t, const struct obl_op *a,
                         uint32_t ta, const struct obl_op *b, uint32_t tb)
{
	const struct obl_view *va = obl_op_view(a, ta), *vb = obl_op_view(b, tb);
	if (!va || !vb || !same_geometry(va, vb))
		return false;
	return same_value(ob, va->value, vb->value) || tail_push(t, va->value, vb->value, va, vb);
}

/* Ops a (ref) and b (opt) are the same function of their operands (bound
 * by the op table, so that stride [1] and [1, 1] are one attribute), r
 * being the result walked; the operand pairs go onto t. */
static bool tail_same_op(struct merge *m, struct tail *t, const struct obl_op *a,
                         const struct obl_op *b, uint32_t r)
{
	const struct obligation *ob = &m->ob;
	const struct torch_op *x = &a->call, *y = &b->call;
	if (a->unsupported || b->unsupported || x->nmuts || y->nmuts || r >= x->nouts ||
	    r >= y->nouts || x->outs[r] == TORCH_NO_TENSOR || y->outs[r] == TORCH_NO_TENSOR ||
	    !same_geometry(obl_op_view(a, x->outs[r]), obl_op_view(b, y->outs[r])))
		return false;
	struct op_inst ia, ib;
	char err[256];
	if (!op_bind(x, obl_op_shape, (void *)a, &m->arena, &ia, err, sizeof err) ||
	    !op_bind(y, obl_op_shape, (void *)b, &m->arena, &ib, err, sizeof err) ||
	    !op_same_call(&ia, &ib))
		return false;
	for (unsigned k = 0; k < ia.nin; k++)
		if (!tail_operand(ob, t, a, ia.in_tensor[k], b, ib.in_tensor[k]))
			return false;
	return true;
}

/* Output i's cuts into *cuts (its pairs), the tail's ops in *nops; false
 * when the output has no tail or its cuts are not plain tensors. */
static bool tail_walk(struct merge *m, const struct obl_output *out, struct tail *cuts, uint32_t *nops)
{
	const struct obligation *ob = &m->ob;
	struct tail t = { 0 };
	bool ok = false;
	*nops = 0;
	cuts->n = 0;
	const struct obl_op *a0 = def_op(ob, out->value[0]), *b0 = def_op(ob, out->value[1]);
	if (!a0 || !b0)
		return false;
	const struct obl_view *ra = obl_op_view(a0, obl_op_result(a0, ob->values.items[out->value[0]].result));
	const struct obl_view *rb = obl_op_view(b0, obl_op_result(b0, ob->values.items[out->value[1]].result));
	uint64_t es = etype_size(ra->dtype);
	if (!same_geometry(ra, rb) || out->off[0] != (uint64_t)ra->offset * es ||
	    out->off[1] != (uint64_t)rb->offset * es || out->bytes != obl_view_numel(ra) * es)
		return false;
	tail_push(&t, out->value[0], out->value[1], ra, rb);
	for (size_t i = 0; i < t.n; i++) {
		struct vpair pr = t.p[i];
		const struct obl_op *a = def_op(ob, pr.a), *b = def_op(ob, pr.b);
		uint32_t r = ob->values.items[pr.a].result;
		if (a && b && r == ob->values.items[pr.b].result) {
			size_t before = t.n;
			if (tail_same_op(m, &t, a, b, r)) {
				++*nops;
				continue;
			}
			t.n = before;                  /* pairs of an op that is not the same */
			if (t.n == TAIL_PAIRS_MAX)
				goto out;
		}
		if (i == 0 || !obl_view_contiguous(pr.va) || !obl_view_contiguous(pr.vb) ||
		    !tail_push(cuts, pr.a, pr.b, pr.va, pr.vb) || cuts->n > TAIL_CUTS_MAX)
			goto out;
	}
	ok = *nops > 0 && cuts->n > 0;
out:
	free(t.p);
	return ok;
}

/* ---- bridges ------------------------------------------------------------------ */

/* Where the optimized program computes a value its own way (a kernel's
 * output) in the middle of ops both programs share, the identical tail
 * ends at the last such value, and checking it means resolving through
 * every one before.  Bridges (vnum.h) pair each such value with the
 * reference's value that the same following op reads; an output whose
 * two values have one number once every bridge is taken as equal is
 * equal wherever its bridges are, for every input.  Each bridge becomes
 * a cut of the output (bridge set), and dcheck checks a bridge's
 * elements taking the bridges before it as equal, so each check stops at
 * the kernel's own inputs.  As with any cut, a difference there is
 * unknown, not a bug.  Returns which outputs were cut so (NULL: none). */
static bool *cut_bridges(struct merge *m, bool copies)
{
	struct obligation *ob = &m->ob;
	size_t nout = ob->outputs.len;
	struct vnum_bridge *b = NULL;
	uint32_t *alias = NULL;
	size_t nb = vnum_bridges(ob, copies, &b, &alias);
	bool *done = NULL;
	if (!nb) {
		free(b);
		free(alias);
		return NULL;
	}
	struct vnum *plain = vnum_new(ob), *bridged = vnum_new_bridged(ob, alias);
	struct tail tail = { 0 };
	for (size_t i = 0; i < nout; i++) {
		const struct obl_output oc = ob->outputs.items[i];   /* pushes below move the vector */
		enum etype et = oc.dtype == ET_NONE ? ET_U8 : oc.dtype;
		if (oc.tail_of != NO_VALUE || vnum_output_equal(plain, (uint32_t)i, et, NULL))
			continue;
		/* Not equal even with the bridges (the last kernel makes the
		 * output): the output pair itself is the last cut, checked
		 * stopping at the bridges, when it is two whole values. */
		bool eq = vnum_output_equal(bridged, (uint32_t)i, et, NULL);
		if (!eq && !obl_output_whole_values(ob, &oc))
			continue;
		/* one bridge is no better than an identical tail's one cut (the
		 * same pair where one value is computed another way); with more,
		 * each bridge is checked stopping at those before it, where a
		 * tail's cuts are each resolved to the inputs */
		uint32_t nops;
		size_t ncut = nb + !eq;
		if (ncut == 1 && tail_walk(m, &oc, &tail, &nops) && tail.n == 1)
			continue;
		if (!done)
			done = xcalloc(nout + 1, sizeof *done);
		done[i] = true;
		const char *name = oc.name ? oc.name : "out";
		for (size_t k = 0; k < ncut; k++) {
			struct obl_output c = {
				.output = (uint32_t)ob->outputs.len, .name = arena_printf(&m->arena, "%s/bridge%zu", name, k),
				.tail_of = (uint32_t)i, .bridge = true,
			};
			if (k < nb) {
				const struct obl_view *w = b[k].view;
				c.bytes = ob->values.items[b[k].ref].bytes;
				c.value[0] = b[k].ref;
				c.value[1] = b[k].opt;
				c.dtype = w->dtype;
				c.ndim = w->ndim;
				memcpy(c.shape, w->shape, sizeof c.shape);
			} else {                    /* the output itself */
				c.bytes = oc.bytes;
				c.value[0] = oc.value[0];
				c.value[1] = oc.value[1];
				c.dtype = oc.dtype;
				c.ndim = oc.ndim;
				memcpy(c.shape, oc.shape, sizeof c.shape);
			}
			VEC_PUSH(ob->outputs, c);
		}
		if (eq)
			note("output %zu (%s): equal wherever the optimized program's %zu value%s computed its "
			     "own way equal%s the reference's that the same ops read; checked there (%s/bridge0%s)",
			     i, name, nb, nb == 1 ? "" : "s", nb == 1 ? "s" : "", name, nb > 1 ? ", ..." : "");
		else
			note("output %zu (%s): checked at the optimized program's %zu value%s computed its own "
			     "way that the reference computes too (%s/bridge0%s), and at itself (%s/bridge%zu), "
			     "each taking those before as equal", i, name, nb, nb == 1 ? "" : "s", name,
			     nb > 1 ? ", ..." : "", name, nb);
	}
	free(tail.p);
	vnum_free(plain);
	vnum_free(bridged);
	free(b);
	free(alias);
	return done;
}

static void cut_tails(struct merge *m, const bool *bridged)
{
	struct obligation *ob = &m->ob;
	size_t nout = ob->outputs.len;
	struct tail cuts = { 0 };
	for (size_t i = 0; i < nout; i++) {
		uint32_t nops;
		if (ob->outputs.items[i].tail_of != NO_VALUE || (bridged && bridged[i]) ||
		    !tail_walk(m, &ob->outputs.items[i], &cuts, &nops))
			continue;
		for (size_t k = 0; k < cuts.n; k++) {
			const struct obl_view *va = cuts.p[k].va, *vb = cuts.p[k].vb;
			uint64_t es = etype_size(va->dtype);
			struct obl_output c = {
				.output = (uint32_t)ob->outputs.len, .bytes = obl_view_numel(va) * es,
				.name = arena_printf(&m->arena, "%s/cut%zu", ob->outputs.items[i].name ?
				                     ob->outputs.items[i].name : "out", k),
				.value = { cuts.p[k].a, cuts.p[k].b },
				.off = { (uint64_t)va->offset * es, (uint64_t)vb->offset * es },
				.dtype = va->dtype, .ndim = va->ndim, .tail_of = (uint32_t)i, .tail_ops = nops,
			};
			memcpy(c.shape, va->shape, sizeof c.shape);
			VEC_PUSH(ob->outputs, c);
		}
		note("output %zu (%s): both programs end with the same %u op%s; checked at the %zu "
		     "tensor pair%s they start from (%s/cut0%s)", i, ob->outputs.items[i].name,
		     nops, nops == 1 ? "" : "s", cuts.n, cuts.n == 1 ? "" : "s",
		     ob->outputs.items[i].name, cuts.n > 1 ? ", ..." : "");
	}
	free(cuts.p);
}

/* Output pair i (a of the reference, b of the optimized program): 1 when
 * its values are compared, 0 when not (different element counts), -1
 * after a message (different dtypes).  Shapes that differ are a
 * shape-mismatch finding; with the same element count the values are
 * still compared element by element in row-major order (both views are
 * contiguous), under the reference's shape. */
static int output_pair(struct merge *m, size_t i, const struct tout *a, const struct tout *b)
{
	const struct prog *r = &m->progs[0], *o = &m->progs[1];
	if (same_shape(&a->v, &b->v))
		return 1;
	char sa[128], sb[128];
	shape_text(&a->v, sa, sizeof sa);
	shape_text(&b->v, sb, sizeof sb);
	if (a->v.dtype != b->v.dtype) {
		warn("programs do not match: output %zu ('%s') is %s in '%s' but %s in '%s'", i,
		     a->name, sa, r->name, sb, o->name);
		return -1;
	}
	bool same_n = obl_view_numel(&a->v) == obl_view_numel(&b->v);
	struct sym_finding f = {
		.cls = "shape-mismatch", .prog = 1, .launch = UINT32_MAX, .value = NO_VALUE,
		.kernel = arena_printf(&m->arena, "output %zu (%s)", i, a->name),
		.message = arena_printf(&m->arena, "output %zu ('%s') is %s in '%s' but %s in '%s'%s", i,
		                        a->name, sa, r->name, sb, o->name,
		                        same_n ? "; the values are compared in row-major order" :
		                        "; the element counts differ, the values are not compared"),
	};
	VEC_PUSH(m->findings, f);
	warn("shape-mismatch: %s", f.message);
	return same_n ? 1 : 0;
}

bool torch_finish(struct merge *m)
{
	struct obligation *ob = &m->ob;
	struct prog *r = &m->progs[0], *o = &m->progs[1];
	/* storages become buffers after the program's CUDA buffers */
	for (size_t i = 0; i < ob->values.len; i++) {
		struct obl_value *v = &ob->values.items[i];
		if (!v->has_storage)
			continue;
		struct prog *pr = &m->progs[v->prog];
		uint64_t bytes = pr->stores.items[v->storage].bytes;
		v->buf = (uint32_t)pr->bufs.len + v->storage;
		v->bytes = bytes ? bytes : 1;
	}
	/* inputs */
	uint32_t *match = xcalloc(o->tins.len + 1, sizeof *match);
	bool ok = true;
	for (int role = TR_INPUT; role <= TR_BUFFER && ok; role++)
		ok = match_role(m, (enum torch_role)role, match);
	uint32_t base = (uint32_t)ob->inputs.len;
	for (uint32_t i = 0; ok && i < r->tins.len; i++) {
		const struct tin *t = &r->tins.items[i];
		struct obl_input in = { .input = base + i, .bytes = t->bytes, .name = t->name,
		                        .data = t->data, .ndata = t->ndata, .dtype = t->v.dtype,
		                        .ndim = t->v.ndim, .role = torch_role_name(t->role) };
		memcpy(in.shape, t->v.shape, sizeof in.shape);
		VEC_PUSH(ob->inputs, in);
		ob->values.items[t->value].input = base + i;
	}
	for (uint32_t j = 0; ok && j < o->tins.len; j++)
		ob->values.items[o->tins.items[j].value].input = base + match[j];
	free(match);
	if (!ok)
		return false;
	/* results of random ops: inputs of one program each */
	for (int p = 0; p < 2; p++)
		for (size_t i = 0; i < m->progs[p].rands.len; i++) {
			const struct trand *t = &m->progs[p].rands.items[i];
			struct obl_input in = { .input = (uint32_t)ob->inputs.len, .bytes = t->bytes,
			                        .name = t->name, .data = t->data, .ndata = t->ndata,
			                        .dtype = t->v.dtype, .ndim = t->v.ndim, .role = "random",
			                        .has_prog = true, .prog = (uint32_t)p };
			memcpy(in.shape, t->v.shape, sizeof in.shape);
			VEC_PUSH(ob->inputs, in);
			ob->values.items[t->value].input = in.input;
		}
	/* outputs */
	if (r->touts.len != o->touts.len) {
		warn("programs do not match: '%s' returns %zu tensors, '%s' returns %zu", r->name,
		     r->touts.len, o->name, o->touts.len);
		return false;
	}
	for (size_t i = 0; i < r->touts.len; i++) {
		const struct tout *a = &r->touts.items[i], *b = &o->touts.items[i];
		int k = output_pair(m, i, a, b);
		if (k < 0)
			return false;
		if (k == 0)
			continue;
		uint64_t es = etype_size(a->v.dtype);
		struct obl_output out = {
			.output = (uint32_t)ob->outputs.len, .bytes = obl_view_numel(&a->v) * es,
			.name = a->name, .value = { a->value, b->value },
			.off = { (uint64_t)a->v.offset * es, (uint64_t)b->v.offset * es },
			.dtype = a->v.dtype, .ndim = a->v.ndim, .tail_of = NO_VALUE,
		};
		memcpy(out.shape, a->v.shape, sizeof out.shape);
		VEC_PUSH(ob->outputs, out);
	}
	if (!m->no_trim)
		trim(m);
	if (!m->no_tails) {
		/* bridges found through copies and views only where none are
		 * found without (vnum.h) */
		bool *bridged = cut_bridges(m, false);
		if (!bridged)
			bridged = cut_bridges(m, true);
		cut_tails(m, bridged);
		free(bridged);
	}
	return true;
}

void torch_free(struct prog *pr)
{
	VEC_FREE(pr->views);
	VEC_FREE(pr->stores);
	VEC_FREE(pr->tins);
	VEC_FREE(pr->touts);
	VEC_FREE(pr->rands);
	VEC_FREE(pr->ops);
	VEC_FREE(pr->op_cuda);
}

/* ---- copies and memsets in an extension ------------------------------------ */

bool torch_mixed(const struct prog *pr)
{
	return pr->views.len > 0;
}

/* The current value of storage sid (rec's field 'what'), or NO_VALUE after
 * a message. */
static uint32_t storage_value(struct prog *pr, const struct record *rec, const char *what,
                              uint32_t sid)
{
	if (sid >= pr->stores.len || pr->stores.items[sid].cur == NO_VALUE) {
		rec_error(rec, "field '%s': storage %u holds no tensor yet", what, sid);
		return NO_VALUE;
	}
	return pr->stores.items[sid].cur;
}

/* A new value of storage sid for an event that writes [off, off+n) of it
 * (the trace's version + 1: dirigo-trace(5), STORAGE VERSIONS). */
static uint32_t storage_write(struct merge *m, int p, uint32_t sid, struct obl_value v)
{
	struct tstore *s = &m->progs[p].stores.items[sid];
	if (v.off + v.len > s->bytes)
		s->bytes = v.off + v.len;
	uint32_t id = torch_new_value(m, p, sid, v);
	m->progs[p].stores.items[sid].tver++;
	return id;
}

/* What the host writes with an h2d copy in a mixed trace: the bytes it
 * holds (shapes, strides, scale factors the extension computed), a
 * constant of the trace, not an input of the program. */
static bool h2d_data(const struct record *rec, const struct trace_copy *c, struct obl_value *v)
{
	if (!c->data) {
		rec_error(rec, "a host-to-device copy of %llu bytes in a program with torch records "
		          "has no 'data'; its bytes are constants of the trace (raise --max-data)",
		          (unsigned long long)c->bytes);
		return false;
	}
	v->def = VD_DATA;
	v->data = c->data;
	return true;
}

int torch_copy(struct merge *m, int p, const struct record *rec, const struct trace_copy *c)
{
	struct prog *pr = &m->progs[p];
	pr->cuda_events++;
	if (c->dir == TC_D2H) {
		/* The host reads device memory: what it does with the bytes (a
		 * scale factor, a branch, a shape) is not in the trace, and in
		 * record mode kernels are not run, so the bytes are not the
		 * program's.  The program is unsupported from here on, named. */
		if (c->storage != TRACE_NO_BUF ? storage_value(pr, rec, "storage", c->storage) == NO_VALUE
		                               : !merge_get_buf(pr, rec, c->buf))
			return -1;
		struct obl_op op = { .op = (uint32_t)m->ob.ops.len, .prog = (uint32_t)p };
		op.call.op = "cudaMemcpy";
		op.call.seq = pr->last_seq;
		op.unsupported = arena_printf(&m->arena, "the host reads %llu bytes of device memory "
		                              "(%s %u) with a device-to-host copy; what it does with "
		                              "them is not traced", (unsigned long long)c->bytes,
		                              c->storage != TRACE_NO_BUF ? "storage" : "buffer",
		                              c->storage != TRACE_NO_BUF ? c->storage : c->buf);
		op.views = ARENA_NEWN(&m->arena, struct obl_view, 1);
		VEC_PUSH(m->ob.ops, op);
		VEC_PUSH(pr->ops, op.op);
		VEC_PUSH(pr->op_cuda, pr->cuda_events);
		return 1;
	}
	struct obl_value v = { .off = c->off, .len = c->bytes, .input = NO_VALUE };
	if (c->dir == TC_H2D) {
		if (!h2d_data(rec, c, &v))
			return -1;
	} else {
		v.def = VD_COPY;
		v.src_off = c->src_off;
		if (c->src_storage != TRACE_NO_BUF) {
			v.src = storage_value(pr, rec, "src_storage", c->src_storage);
			if (v.src == NO_VALUE)
				return -1;
			struct tstore *s = &pr->stores.items[c->src_storage];
			if (c->src_off + c->bytes > s->bytes)
				s->bytes = c->src_off + c->bytes;
		} else {
			struct buffer *s = merge_get_buf(pr, rec, c->src_buf);
			if (!s || !merge_in_range(rec, s, c->src_off, c->bytes))
				return -1;
			v.src = s->cur;
		}
	}
	if (c->storage != TRACE_NO_BUF) {
		if (storage_value(pr, rec, "storage", c->storage) == NO_VALUE)
			return -1;
		storage_write(m, p, c->storage, v);
		return 1;
	}
	struct buffer *b = merge_get_buf(pr, rec, c->buf);
	if (!b || !merge_in_range(rec, b, c->off, c->bytes))
		return -1;
	merge_new_value(m, p, c->buf, v);
	return 1;
}

int torch_memset(struct merge *m, int p, const struct record *rec, const struct trace_memset *s)
{
	struct prog *pr = &m->progs[p];
	if (storage_value(pr, rec, "storage", s->storage) == NO_VALUE)
		return -1;
	pr->cuda_events++;
	struct obl_value v = { .def = VD_MEMSET, .off = s->off, .len = s->bytes, .fill = s->value,
	                       .input = NO_VALUE };
	storage_write(m, p, s->storage, v);
	return 1;
}
