/*
 * torch.c: encode and decode the torch records of a trace stream
 * (dirigo-trace(5), TORCH RECORDS; types in torch.h).
 */
#include "formats/torch.h"
#include "formats/trace.h"

#include <string.h>

static const char *const roles[] = { "input", "param", "buffer", "constant" };
static const char *const arg_kinds[] = {
	"none", "tensor", "bool", "int", "float", "str", "dtype", "ints", "floats",
	"bools", "tensors"
};

const char *torch_role_name(enum torch_role r)
{
	return (unsigned)r < 4 ? roles[r] : "?";
}

const char *torch_arg_kind_name(enum torch_arg_kind k)
{
	return (unsigned)k < sizeof arg_kinds / sizeof *arg_kinds ? arg_kinds[k] : "?";
}

const struct torch_arg *torch_op_arg(const struct torch_op *op, const char *name)
{
	for (uint32_t i = 0; i < op->nargs; i++)
		if (op->args[i].name && strcmp(op->args[i].name, name) == 0)
			return &op->args[i];
	return NULL;
}

uint64_t torch_tensor_numel(const struct torch_tensor *t)
{
	uint64_t n = 1;
	for (uint32_t i = 0; i < t->ndim; i++)
		n *= (uint64_t)t->shape[i];
	return n;
}

/* ---- writing ------------------------------------------------------------ */

void torch_write_tensor(struct stream_out *w, const struct torch_tensor *r)
{
	out_begin(w, "tensor");
	out_ku64(w, "tensor", r->tensor);
	out_ku64(w, "storage", r->storage);
	out_ku64(w, "version", r->version);
	out_kstr(w, "dtype", etype_name(r->dtype));
	out_ki64s(w, "shape", r->shape, r->ndim);
	out_ki64s(w, "stride", r->stride, r->ndim);
	out_ki64(w, "offset", r->offset);
	out_kstr(w, "device", r->device ? r->device : "cpu");
	if (r->data)
		out_kbin(w, "data", r->data, r->ndata);
	out_end(w);
}

static void write_arg(struct stream_out *w, const struct torch_arg *g)
{
	out_map_begin(w);
	out_kstr(w, "name", g->name);
	switch (g->kind) {
	case TARG_NONE: out_kbool(w, "none", true); break;
	case TARG_TENSOR: out_ku64(w, "tensor", g->tensor); break;
	case TARG_BOOL: out_kbool(w, "bool", g->i != 0); break;
	case TARG_INT: out_ki64(w, "int", g->i); break;
	case TARG_FLOAT: out_kf64(w, "float", g->f); break;
	case TARG_STR: out_kstr(w, "str", g->s); break;
	case TARG_DTYPE: out_kstr(w, "dtype", g->s); break;
	case TARG_INTS: out_ki64s(w, "ints", g->ints, g->n); break;
	case TARG_BOOLS:
		out_key(w, "bools");
		out_array_begin(w);
		for (uint32_t i = 0; i < g->n; i++)
			out_bool(w, g->ints[i] != 0);
		out_array_end(w);
		break;
	case TARG_FLOATS:
		out_key(w, "floats");
		out_array_begin(w);
		for (uint32_t i = 0; i < g->n; i++)
			out_f64(w, g->floats[i]);
		out_array_end(w);
		break;
	case TARG_TENSORS:
		out_key(w, "tensors");
		out_array_begin(w);
		for (uint32_t i = 0; i < g->n; i++)
			if (g->tensors[i] == TORCH_NO_TENSOR)
				out_nil(w);
			else
				out_u64(w, g->tensors[i]);
		out_array_end(w);
		break;
	}
	out_map_end(w);
}

void torch_write_call(struct stream_out *w, const struct torch_op *r)
{
	out_ku64(w, "seq", r->seq);
	out_kstr(w, "op", r->op);
	out_key(w, "args");
	out_array_begin(w);
	for (uint32_t i = 0; i < r->nargs; i++)
		write_arg(w, &r->args[i]);
	out_array_end(w);
	out_key(w, "outs");
	out_array_begin(w);
	for (uint32_t i = 0; i < r->nouts; i++)
		if (r->outs[i] == TORCH_NO_TENSOR)
			out_nil(w);
		else
			out_u64(w, r->outs[i]);
	out_array_end(w);
	if (r->nmuts) {
		out_key(w, "mutated");
		out_array_begin(w);
		for (uint32_t i = 0; i < r->nmuts; i++) {
			out_map_begin(w);
			out_kstr(w, "arg", r->muts[i].arg);
			out_ku64(w, "tensor", r->muts[i].tensor);
			out_map_end(w);
		}
		out_array_end(w);
	}
	if (r->random)
		out_kbool(w, "random", true);
}

void torch_write_op(struct stream_out *w, const struct torch_op *r)
{
	out_begin(w, "op");
	torch_write_call(w, r);
	out_end(w);
}

void torch_write_input(struct stream_out *w, const struct torch_input *r)
{
	out_begin(w, "tinput");
	out_ku64(w, "tensor", r->tensor);
	out_kstr(w, "role", torch_role_name(r->role));
	out_kstr(w, "name", r->name);
	if (r->data) {
		out_kbin(w, "data", r->data, r->ndata);
		if (r->hash)
			out_kstr(w, "hash", r->hash);
	}
	out_end(w);
}

void torch_write_output(struct stream_out *w, const struct torch_output *r)
{
	out_begin(w, "toutput");
	out_ku64(w, "tensor", r->tensor);
	out_kstr(w, "name", r->name);
	out_end(w);
}

void torch_write_unsupported(struct stream_out *w, const struct torch_unsupported *r)
{
	trace_write_unsupported(w, r->op, r->message);
}

/* ---- reading ------------------------------------------------------------ */

static uint32_t rec_u32(const struct record *rec, const char *key, bool *ok)
{
	bool mine = true;
	uint64_t v = rec_u64(rec, key, &mine);
	if (mine && v >= UINT32_MAX) {
		rec_error(rec, "field '%s': %llu is out of range", key, (unsigned long long)v);
		mine = false;
	}
	if (!mine)
		*ok = false;
	return (uint32_t)v;
}

/* An array of at most TORCH_MAX_DIMS integers (min: smallest value allowed). */
static uint32_t rec_dims(const struct record *rec, const char *key, int64_t *v,
                         int64_t min, bool *ok)
{
	uint32_t n = 0;
	bool mine = true;
	const msgpack_object *o = rec_array(rec, key, &n, &mine);
	if (!mine) {
		*ok = false;
		return 0;
	}
	if (n > TORCH_MAX_DIMS) {
		rec_error(rec, "field '%s': %u dimensions, at most %d are supported", key, n,
		          TORCH_MAX_DIMS);
		*ok = false;
		return 0;
	}
	for (uint32_t i = 0; i < n; i++)
		if (!obj_i64(&o[i], &v[i]) || v[i] < min) {
			rec_error(rec, "field '%s': element %u is not an integer >= %lld", key, i,
			          (long long)min);
			*ok = false;
		}
	return n;
}

bool torch_read_tensor(const struct record *rec, struct arena *a, struct torch_tensor *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->tensor = rec_u32(rec, "tensor", &ok);
	r->storage = rec_u32(rec, "storage", &ok);
	r->version = rec_u32(rec, "version", &ok);
	const char *dt = rec_str(rec, "dtype", a, &ok);
	if (dt) {
		r->dtype = etype_parse(dt);
		if (r->dtype == ET_NONE) {
			rec_error(rec, "field 'dtype': unknown type '%s'", dt);
			ok = false;
		}
	}
	r->ndim = rec_dims(rec, "shape", r->shape, 0, &ok);
	uint32_t ns = rec_dims(rec, "stride", r->stride, INT64_MIN, &ok);
	if (ok && ns != r->ndim) {
		rec_error(rec, "fields 'shape' and 'stride': %u and %u dimensions", r->ndim, ns);
		ok = false;
	}
	r->offset = rec_i64(rec, "offset", &ok);
	if (ok && r->offset < 0) {
		rec_error(rec, "field 'offset': %lld is negative", (long long)r->offset);
		ok = false;
	}
	r->device = rec_str_opt(rec, "device", a, &ok);
	if (!r->device)
		r->device = "cpu";
	r->data = rec_bin_opt(rec, "data", a, &r->ndata, &ok);
	if (ok && r->data && r->ndata != torch_tensor_numel(r) * etype_size(r->dtype)) {
		rec_error(rec, "field 'data': %zu bytes, expected %llu", r->ndata,
		          (unsigned long long)(torch_tensor_numel(r) * etype_size(r->dtype)));
		ok = false;
	}
	return ok;
}

static bool obj_tensor_id(const msgpack_object *o, uint32_t *v)
{
	uint64_t u;
	if (o->type == MSGPACK_OBJECT_NIL) {
		*v = TORCH_NO_TENSOR;
		return true;
	}
	if (!obj_u64(o, &u) || u >= UINT32_MAX)
		return false;
	*v = (uint32_t)u;
	return true;
}

static bool read_arg(const struct record *rec, uint32_t i, const msgpack_object *m,
                     struct arena *a, struct torch_arg *g)
{
	const msgpack_object *o;
	memset(g, 0, sizeof *g);
	if (m->type != MSGPACK_OBJECT_MAP || !(o = obj_get(m, "name")) ||
	    !(g->name = obj_strdup(o, a))) {
		rec_error(rec, "args[%u]: not a map with a string 'name'", i);
		return false;
	}
	if ((o = obj_get(m, "none"))) {
		g->kind = TARG_NONE;
	} else if ((o = obj_get(m, "tensor"))) {
		g->kind = TARG_TENSOR;
		if (!obj_tensor_id(o, &g->tensor) || g->tensor == TORCH_NO_TENSOR)
			goto bad;
	} else if ((o = obj_get(m, "bool"))) {
		g->kind = TARG_BOOL;
		if (o->type != MSGPACK_OBJECT_BOOLEAN)
			goto bad;
		g->i = o->via.boolean;
	} else if ((o = obj_get(m, "int"))) {
		g->kind = TARG_INT;
		if (!obj_i64(o, &g->i))
			goto bad;
	} else if ((o = obj_get(m, "float"))) {
		g->kind = TARG_FLOAT;
		if (!obj_f64(o, &g->f))
			goto bad;
	} else if ((o = obj_get(m, "str")) || (o = obj_get(m, "dtype"))) {
		g->kind = obj_get(m, "str") ? TARG_STR : TARG_DTYPE;
		if (!(g->s = obj_strdup(o, a)))
			goto bad;
	} else if ((o = obj_get(m, "ints")) || (o = obj_get(m, "bools")) ||
	           (o = obj_get(m, "floats")) || (o = obj_get(m, "tensors"))) {
		g->kind = obj_get(m, "ints") ? TARG_INTS : obj_get(m, "bools") ? TARG_BOOLS :
		          obj_get(m, "floats") ? TARG_FLOATS : TARG_TENSORS;
		if (o->type != MSGPACK_OBJECT_ARRAY)
			goto bad;
		g->n = o->via.array.size;
		g->ints = ARENA_NEWN(a, int64_t, g->n ? g->n : 1);
		g->floats = ARENA_NEWN(a, double, g->n ? g->n : 1);
		g->tensors = ARENA_NEWN(a, uint32_t, g->n ? g->n : 1);
		for (uint32_t k = 0; k < g->n; k++) {
			const msgpack_object *e = &o->via.array.ptr[k];
			bool good;
			switch (g->kind) {
			case TARG_INTS: good = obj_i64(e, &g->ints[k]); break;
			case TARG_BOOLS:
				good = e->type == MSGPACK_OBJECT_BOOLEAN;
				g->ints[k] = good && e->via.boolean;
				break;
			case TARG_FLOATS: good = obj_f64(e, &g->floats[k]); break;
			default: good = obj_tensor_id(e, &g->tensors[k]); break;
			}
			if (!good)
				goto bad;
		}
	} else {
		rec_error(rec, "args[%u] ('%s'): no value field", i, g->name);
		return false;
	}
	return true;
bad:
	rec_error(rec, "args[%u] ('%s'): value of the wrong type for '%s'", i, g->name,
	          torch_arg_kind_name(g->kind));
	return false;
}

bool torch_read_op(const struct record *rec, struct arena *a, struct torch_op *r)
{
	bool ok = true;
	uint32_t n = 0;
	memset(r, 0, sizeof *r);
	r->seq = rec_u64(rec, "seq", &ok);
	r->op = rec_str(rec, "op", a, &ok);
	const msgpack_object *arr = rec_array(rec, "args", &n, &ok);
	r->args = ARENA_NEWN(a, struct torch_arg, n ? n : 1);
	r->nargs = arr ? n : 0;
	for (uint32_t i = 0; i < r->nargs; i++)
		if (!read_arg(rec, i, &arr[i], a, &r->args[i]))
			ok = false;
	n = 0;
	arr = rec_array(rec, "outs", &n, &ok);
	r->outs = ARENA_NEWN(a, uint32_t, n ? n : 1);
	r->nouts = arr ? n : 0;
	for (uint32_t i = 0; i < r->nouts; i++)
		if (!obj_tensor_id(&arr[i], &r->outs[i])) {
			rec_error(rec, "outs[%u]: not a tensor id or nil", i);
			ok = false;
		}
	if (rec_get(rec, "mutated")) {
		n = 0;
		arr = rec_array(rec, "mutated", &n, &ok);
		r->muts = ARENA_NEWN(a, struct torch_mut, n ? n : 1);
		r->nmuts = arr ? n : 0;
		for (uint32_t i = 0; i < r->nmuts; i++) {
			const msgpack_object *m = &arr[i], *o;
			uint64_t v;
			if (m->type != MSGPACK_OBJECT_MAP || !(o = obj_get(m, "arg")) ||
			    !(r->muts[i].arg = obj_strdup(o, a)) || !(o = obj_get(m, "tensor")) ||
			    !obj_u64(o, &v) || v >= UINT32_MAX) {
				rec_error(rec, "mutated[%u]: needs 'arg' (string) and 'tensor' (id)", i);
				ok = false;
				continue;
			}
			r->muts[i].tensor = (uint32_t)v;
		}
	}
	const msgpack_object *rnd = rec_get(rec, "random");
	if (rnd && rnd->type != MSGPACK_OBJECT_BOOLEAN) {
		rec_error(rec, "field 'random': not a boolean");
		ok = false;
	}
	r->random = rnd && rnd->type == MSGPACK_OBJECT_BOOLEAN && rnd->via.boolean;
	return ok;
}

bool torch_read_input(const struct record *rec, struct arena *a, struct torch_input *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->tensor = rec_u32(rec, "tensor", &ok);
	const char *role = rec_str(rec, "role", a, &ok);
	if (role) {
		int k = -1;
		for (int i = 0; i < 4; i++)
			if (strcmp(role, roles[i]) == 0)
				k = i;
		if (k < 0) {
			rec_error(rec, "field 'role': unknown value '%s'", role);
			ok = false;
		}
		r->role = k < 0 ? TR_INPUT : (enum torch_role)k;
	}
	r->name = rec_str(rec, "name", a, &ok);
	r->data = rec_bin_opt(rec, "data", a, &r->ndata, &ok);
	r->hash = rec_str_opt(rec, "hash", a, &ok);
	return ok;
}

bool torch_read_output(const struct record *rec, struct arena *a, struct torch_output *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->tensor = rec_u32(rec, "tensor", &ok);
	r->name = rec_str(rec, "name", a, &ok);
	return ok;
}

bool torch_read_unsupported(const struct record *rec, struct arena *a,
                            struct torch_unsupported *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->op = rec_str(rec, "op", a, &ok);
	r->message = rec_str(rec, "message", a, &ok);
	return ok;
}
