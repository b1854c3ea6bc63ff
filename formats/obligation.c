/*
 * obligation.c: encode and decode the records of dirigo-obligation(5), and
 * gather them into a struct obligation (see obligation.h).
 */
#include "formats/obligation.h"
#include "libcommon/diag.h"

#include <string.h>

static const char *const def_names[] = {
	[VD_UNINIT] = "uninit", [VD_INPUT] = "input", [VD_MEMSET] = "memset",
	[VD_COPY] = "copy", [VD_LAUNCH] = "launch", [VD_OP] = "op", [VD_DATA] = "data",
};

const char *value_def_name(enum value_def d) { return def_names[d]; }

bool obl_value_ranged(const struct obl_value *v)
{
	return v->def != VD_UNINIT && v->def != VD_LAUNCH && !(v->def == VD_OP && v->input == NO_VALUE);
}

bool obl_output_whole_values(const struct obligation *o, const struct obl_output *out)
{
	return !out->off[0] && !out->off[1] && out->value[0] < out->value[1] &&
	       out->value[1] < o->values.len && out->bytes == o->values.items[out->value[0]].bytes &&
	       out->bytes == o->values.items[out->value[1]].bytes;
}

void obl_write_input(struct stream_out *w, const struct obl_input *r)
{
	out_begin(w, "input");
	out_ku64(w, "input", r->input);
	out_ku64(w, "bytes", r->bytes);
	if (r->name)
		out_kstr(w, "name", r->name);
	if (r->data)
		out_kbin(w, "data", r->data, r->ndata);
	if (r->dtype != ET_NONE) {
		out_kstr(w, "dtype", etype_name(r->dtype));
		out_ki64s(w, "shape", r->shape, r->ndim);
	}
	if (r->role)
		out_kstr(w, "role", r->role);
	if (r->has_prog)
		out_ku64(w, "prog", r->prog);
	out_end(w);
}

bool obl_input_random(const struct obl_input *in)
{
	return in->role && strcmp(in->role, "random") == 0;
}

void obl_write_value(struct stream_out *w, const struct obl_value *r)
{
	out_begin(w, "value");
	out_ku64(w, "value", r->value);
	out_ku64(w, "prog", r->prog);
	out_ku64(w, "buf", r->buf);
	out_ku64(w, "version", r->version);
	out_ku64(w, "bytes", r->bytes);
	out_kstr(w, "def", def_names[r->def]);
	if (r->prev != NO_VALUE)
		out_ku64(w, "prev", r->prev);
	switch (r->def) {
	case VD_UNINIT: break;
	case VD_INPUT:
		out_ku64(w, "input", r->input);
		break;
	case VD_MEMSET:
		out_ku64(w, "fill", r->fill);
		break;
	case VD_COPY:
		out_ku64(w, "src", r->src);
		out_ku64(w, "src_off", r->src_off);
		break;
	case VD_LAUNCH:
		out_ku64(w, "launch", r->launch);
		break;
	case VD_OP:
		out_ku64(w, "op", r->op);
		out_ku64(w, "result", r->result);
		if (r->input != NO_VALUE)
			out_ku64(w, "input", r->input);
		break;
	case VD_DATA:
		out_kbin(w, "data", r->data, r->len);
		break;
	}
	if (r->def == VD_INPUT || r->def == VD_MEMSET || r->def == VD_COPY || r->def == VD_DATA ||
	    (r->def == VD_OP && r->input != NO_VALUE)) {
		out_ku64(w, "off", r->off);
		out_ku64(w, "len", r->len);
	}
	if (r->symbol)
		out_kstr(w, "symbol", r->symbol);
	if (r->has_storage)
		out_ku64(w, "storage", r->storage);
	out_end(w);
}

void obl_write_module(struct stream_out *w, const struct obl_module *r)
{
	out_begin(w, "module");
	out_ku64(w, "module", r->module);
	out_ku64(w, "prog", r->prog);
	out_key(w, "ptx");
	out_strn(w, r->ptx, r->ptxlen);
	if (r->hash)
		out_kstr(w, "hash", r->hash);
	out_end(w);
}

void obl_write_launch(struct stream_out *w, const struct obl_launch *r)
{
	out_begin(w, "launch");
	out_ku64(w, "launch", r->launch);
	out_ku64(w, "prog", r->prog);
	out_ku64(w, "seq", r->seq);
	out_ku64(w, "module", r->module);
	out_kstr(w, "kernel", r->kernel);
	out_ku64x3(w, "grid", r->grid);
	out_ku64x3(w, "block", r->block);
	out_ku64(w, "shmem", r->shmem);
	out_key(w, "args");
	out_array_begin(w);
	for (uint32_t i = 0; i < r->nargs; i++) {
		const struct obl_arg *a = &r->args[i];
		out_map_begin(w);
		out_kstr(w, "param", a->param);
		out_ku64(w, "size", a->size);
		out_kbin(w, "raw", a->raw, a->size);
		if (a->is_ptr) {
			out_ku64(w, "in", a->vin);
			out_ku64(w, "out", a->vout);
			out_ku64(w, "off", a->off);
		}
		out_map_end(w);
	}
	out_array_end(w);
	if (r->nsyms) {
		out_key(w, "symbols");
		out_array_begin(w);
		for (uint32_t i = 0; i < r->nsyms; i++) {
			out_map_begin(w);
			out_kstr(w, "symbol", r->syms[i].symbol);
			out_ku64(w, "in", r->syms[i].vin);
			out_map_end(w);
		}
		out_array_end(w);
	}
	out_end(w);
}

void obl_write_output(struct stream_out *w, const struct obl_output *r)
{
	out_begin(w, "output");
	out_ku64(w, "output", r->output);
	out_ku64(w, "bytes", r->bytes);
	if (r->name)
		out_kstr(w, "name", r->name);
	out_key(w, "values");
	out_array_begin(w);
	out_u64(w, r->value[0]);
	out_u64(w, r->value[1]);
	out_array_end(w);
	out_key(w, "offs");
	out_array_begin(w);
	out_u64(w, r->off[0]);
	out_u64(w, r->off[1]);
	out_array_end(w);
	if (r->dtype != ET_NONE) {
		out_kstr(w, "dtype", etype_name(r->dtype));
		out_ki64s(w, "shape", r->shape, r->ndim);
	}
	if (r->tail_of != NO_VALUE) {
		out_ku64(w, "tail_of", r->tail_of);
		out_ku64(w, "tail_ops", r->tail_ops);
		if (r->bridge)
			out_kbool(w, "bridge", true);
	}
	out_end(w);
}

void obl_write_op(struct stream_out *w, const struct obl_op *r)
{
	out_begin(w, "op");
	out_ku64(w, "id", r->op);
	out_ku64(w, "prog", r->prog);
	torch_write_call(w, &r->call);
	out_key(w, "views");
	out_array_begin(w);
	for (uint32_t i = 0; i < r->nviews; i++) {
		const struct obl_view *v = &r->views[i];
		out_map_begin(w);
		out_ku64(w, "tensor", v->tensor);
		out_ku64(w, "value", v->value);
		out_kstr(w, "dtype", etype_name(v->dtype));
		out_ki64s(w, "shape", v->shape, v->ndim);
		out_ki64s(w, "stride", v->stride, v->ndim);
		out_ki64(w, "offset", v->offset);
		out_map_end(w);
	}
	out_array_end(w);
	if (r->unsupported)
		out_kstr(w, "unsupported", r->unsupported);
	out_end(w);
}

void obl_write_trimmed(struct stream_out *w, const struct obl_trimmed *r)
{
	out_begin(w, "trimmed");
	out_key(w, "ops");
	out_array_begin(w);
	out_u64(w, r->ops[0]);
	out_u64(w, r->ops[1]);
	out_array_end(w);
	out_key(w, "inputs");
	out_array_begin(w);
	for (uint32_t i = 0; i < r->n; i++)
		out_u64(w, r->inputs[i]);
	out_array_end(w);
	out_key(w, "values");
	out_array_begin(w);
	for (uint32_t i = 0; i < r->n; i++) {
		out_array_begin(w);
		out_u64(w, r->values[i][0]);
		out_u64(w, r->values[i][1]);
		out_array_end(w);
	}
	out_array_end(w);
	out_end(w);
}

static uint32_t u32(const struct record *rec, const char *key, bool *ok)
{
	uint64_t v = rec_u64(rec, key, ok);
	if (v > UINT32_MAX) {
		rec_error(rec, "field '%s' out of range", key);
		*ok = false;
	}
	return (uint32_t)v;
}

/* An optional "dtype" and "shape" pair (torch inputs and outputs). */
static void read_dtype_shape(const struct record *rec, struct arena *a, enum etype *dt,
                             uint32_t *ndim, int64_t *shape, bool *ok)
{
	const char *d = rec_str_opt(rec, "dtype", a, ok);
	*dt = ET_NONE;
	*ndim = 0;
	if (!d)
		return;
	*dt = etype_parse(d);
	uint32_t n = 0;
	const msgpack_object *sh = rec_array(rec, "shape", &n, ok);
	if (*dt == ET_NONE || !sh || n > TORCH_MAX_DIMS) {
		rec_error(rec, "fields 'dtype' and 'shape' must be an element type and at most %d sizes",
		          TORCH_MAX_DIMS);
		*ok = false;
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		if (!obj_i64(&sh[i], &shape[i]) || shape[i] < 0) {
			rec_error(rec, "field 'shape': element %u is not a size", i);
			*ok = false;
			return;
		}
	*ndim = n;
}

bool obl_read_input(const struct record *rec, struct arena *a, struct obl_input *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->input = u32(rec, "input", &ok);
	r->bytes = rec_u64(rec, "bytes", &ok);
	r->name = rec_str_opt(rec, "name", a, &ok);
	r->data = rec_bin_opt(rec, "data", a, &r->ndata, &ok);
	if (ok && r->data && r->ndata != r->bytes) {
		rec_error(rec, "data has %zu bytes, expected %llu", r->ndata, (unsigned long long)r->bytes);
		ok = false;
	}
	read_dtype_shape(rec, a, &r->dtype, &r->ndim, r->shape, &ok);
	r->role = rec_str_opt(rec, "role", a, &ok);
	r->has_prog = rec_get(rec, "prog") != NULL;
	r->prog = (uint32_t)rec_u64_opt(rec, "prog", 0, &ok);
	if (ok && r->has_prog && r->prog > 1) {
		rec_error(rec, "field 'prog': %u is not 0 or 1", r->prog);
		ok = false;
	}
	return ok;
}

bool obl_read_value(const struct record *rec, struct arena *a, struct obl_value *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->value = u32(rec, "value", &ok);
	r->prog = u32(rec, "prog", &ok);
	r->buf = u32(rec, "buf", &ok);
	r->version = u32(rec, "version", &ok);
	r->bytes = rec_u64(rec, "bytes", &ok);
	r->prev = (uint32_t)rec_u64_opt(rec, "prev", NO_VALUE, &ok);
	r->symbol = rec_str_opt(rec, "symbol", a, &ok);
	r->has_storage = rec_get(rec, "storage") != NULL;
	r->storage = (uint32_t)rec_u64_opt(rec, "storage", 0, &ok);
	r->input = NO_VALUE;
	const char *def = rec_str(rec, "def", a, &ok);
	if (!ok)
		return false;
	r->def = VD_UNINIT;
	bool known = false;
	for (unsigned i = 0; i < sizeof def_names / sizeof *def_names; i++)
		if (strcmp(def, def_names[i]) == 0) {
			r->def = (enum value_def)i;
			known = true;
		}
	if (!known) {
		rec_error(rec, "unknown value definition '%s'", def);
		return false;
	}
	switch (r->def) {
	case VD_UNINIT: break;
	case VD_INPUT: r->input = u32(rec, "input", &ok); break;
	case VD_MEMSET: r->fill = (uint8_t)rec_u64(rec, "fill", &ok); break;
	case VD_COPY:
		r->src = u32(rec, "src", &ok);
		r->src_off = rec_u64(rec, "src_off", &ok);
		break;
	case VD_LAUNCH: r->launch = u32(rec, "launch", &ok); break;
	case VD_OP:
		r->op = u32(rec, "op", &ok);
		r->result = u32(rec, "result", &ok);
		r->input = (uint32_t)rec_u64_opt(rec, "input", NO_VALUE, &ok);
		break;
	case VD_DATA: {
		size_t n = 0;
		r->data = rec_bin(rec, "data", a, &n, &ok);
		r->len = n;
		break;
	}
	}
	if (ok && r->def == VD_DATA) {
		uint64_t n = r->len;
		r->off = rec_u64(rec, "off", &ok);
		r->len = rec_u64(rec, "len", &ok);
		if (ok && n != r->len) {
			rec_error(rec, "data has %llu bytes, len says %llu", (unsigned long long)n,
			          (unsigned long long)r->len);
			ok = false;
		}
	}
	if (r->def == VD_INPUT || r->def == VD_MEMSET || r->def == VD_COPY || r->def == VD_DATA ||
	    (r->def == VD_OP && r->input != NO_VALUE)) {
		r->off = rec_u64(rec, "off", &ok);
		r->len = rec_u64(rec, "len", &ok);
		if (ok && (r->off > r->bytes || r->len > r->bytes - r->off)) {
			rec_error(rec, "range [%llu, +%llu) outside the buffer of %llu bytes",
			          (unsigned long long)r->off, (unsigned long long)r->len,
			          (unsigned long long)r->bytes);
			ok = false;
		}
	}
	if (ok && r->prog > 1) {
		rec_error(rec, "prog must be 0 or 1");
		ok = false;
	}
	return ok;
}

bool obl_read_module(const struct record *rec, struct arena *a, struct obl_module *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->module = u32(rec, "module", &ok);
	r->prog = u32(rec, "prog", &ok);
	r->ptx = rec_bin(rec, "ptx", a, &r->ptxlen, &ok);
	r->hash = rec_str_opt(rec, "hash", a, &ok);
	return ok;
}

static bool read_u64x3(const struct record *rec, const char *key, uint64_t v[3], bool *ok)
{
	uint32_t n;
	const msgpack_object *arr = rec_array(rec, key, &n, ok);
	if (!arr)
		return false;
	if (n != 3 || !obj_u64(&arr[0], &v[0]) || !obj_u64(&arr[1], &v[1]) || !obj_u64(&arr[2], &v[2])) {
		rec_error(rec, "field '%s' is not three unsigned integers", key);
		*ok = false;
		return false;
	}
	return true;
}

bool obl_read_launch(const struct record *rec, struct arena *a, struct obl_launch *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->launch = u32(rec, "launch", &ok);
	r->prog = u32(rec, "prog", &ok);
	r->seq = u32(rec, "seq", &ok);
	r->module = u32(rec, "module", &ok);
	r->kernel = rec_str(rec, "kernel", a, &ok);
	read_u64x3(rec, "grid", r->grid, &ok);
	read_u64x3(rec, "block", r->block, &ok);
	r->shmem = rec_u64(rec, "shmem", &ok);
	uint32_t n;
	const msgpack_object *args = rec_array(rec, "args", &n, &ok);
	if (!ok)
		return false;
	for (int d = 0; d < 3; d++)
		if (r->grid[d] == 0 || r->block[d] == 0 || r->grid[d] > UINT32_MAX || r->block[d] > 1024) {
			rec_error(rec, "launch geometry out of range");
			return false;
		}
	r->args = ARENA_NEWN(a, struct obl_arg, n);
	r->nargs = n;
	for (uint32_t i = 0; i < n; i++) {
		const msgpack_object *m = &args[i];
		struct obl_arg *g = &r->args[i];
		const msgpack_object *raw = obj_get(m, "raw"), *in = obj_get(m, "in");
		uint64_t size, v;
		g->param = obj_strdup(obj_get(m, "param"), a);
		if (!g->param || !obj_u64(obj_get(m, "size"), &size) || size > 4096 || !raw ||
		    raw->type != MSGPACK_OBJECT_BIN || raw->via.bin.size != size) {
			rec_error(rec, "argument %u is malformed (param, size, raw)", i);
			return false;
		}
		g->size = (uint32_t)size;
		g->raw = arena_memdup(a, raw->via.bin.ptr, size);
		if (in) {
			g->is_ptr = true;
			if (!obj_u64(in, &v) || v > UINT32_MAX) goto bad;
			g->vin = (uint32_t)v;
			if (!obj_u64(obj_get(m, "out"), &v) || v > UINT32_MAX) goto bad;
			g->vout = (uint32_t)v;
			if (!obj_u64(obj_get(m, "off"), &g->off)) goto bad;
		}
		continue;
	bad:
		rec_error(rec, "argument %u has a malformed buffer reference (in, out, off)", i);
		return false;
	}
	const msgpack_object *syms = rec_get(rec, "symbols");
	if (syms) {
		if (syms->type != MSGPACK_OBJECT_ARRAY) {
			rec_error(rec, "field 'symbols' is not an array");
			return false;
		}
		r->nsyms = syms->via.array.size;
		r->syms = ARENA_NEWN(a, struct obl_symref, r->nsyms);
		for (uint32_t i = 0; i < r->nsyms; i++) {
			const msgpack_object *m = &syms->via.array.ptr[i];
			uint64_t v;
			r->syms[i].symbol = obj_strdup(obj_get(m, "symbol"), a);
			if (!r->syms[i].symbol || !obj_u64(obj_get(m, "in"), &v) || v > UINT32_MAX) {
				rec_error(rec, "symbol %u is malformed (symbol, in)", i);
				return false;
			}
			r->syms[i].vin = (uint32_t)v;
		}
	}
	return true;
}

bool obl_read_output(const struct record *rec, struct arena *a, struct obl_output *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->output = u32(rec, "output", &ok);
	r->bytes = rec_u64(rec, "bytes", &ok);
	r->name = rec_str_opt(rec, "name", a, &ok);
	uint32_t nv = 0, no = 0;
	const msgpack_object *vals = rec_array(rec, "values", &nv, &ok);
	const msgpack_object *offs = rec_array(rec, "offs", &no, &ok);
	if (!ok)
		return false;
	uint64_t v0, v1;
	if (nv != 2 || no != 2 || !obj_u64(&vals[0], &v0) || !obj_u64(&vals[1], &v1) ||
	    v0 > UINT32_MAX || v1 > UINT32_MAX ||
	    !obj_u64(&offs[0], &r->off[0]) || !obj_u64(&offs[1], &r->off[1])) {
		rec_error(rec, "values and offs must be pairs of unsigned integers");
		return false;
	}
	r->value[0] = (uint32_t)v0;
	r->value[1] = (uint32_t)v1;
	read_dtype_shape(rec, a, &r->dtype, &r->ndim, r->shape, &ok);
	r->tail_of = rec_get(rec, "tail_of") ? u32(rec, "tail_of", &ok) : NO_VALUE;
	r->tail_ops = (uint32_t)rec_u64_opt(rec, "tail_ops", 0, &ok);
	r->bridge = rec_bool_opt(rec, "bridge", false, &ok);
	return ok;
}

static bool read_dims(const msgpack_object *o, int64_t *v, uint32_t *n, int64_t min)
{
	if (!o || o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size > TORCH_MAX_DIMS)
		return false;
	*n = o->via.array.size;
	for (uint32_t i = 0; i < *n; i++)
		if (!obj_i64(&o->via.array.ptr[i], &v[i]) || v[i] < min)
			return false;
	return true;
}

bool obl_read_op(const struct record *rec, struct arena *a, struct obl_op *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->op = u32(rec, "id", &ok);
	r->prog = u32(rec, "prog", &ok);
	r->unsupported = rec_str_opt(rec, "unsupported", a, &ok);
	if (!ok || !torch_read_op(rec, a, &r->call))
		return false;
	if (r->prog > 1) {
		rec_error(rec, "prog must be 0 or 1");
		return false;
	}
	uint32_t n = 0;
	const msgpack_object *vs = rec_array(rec, "views", &n, &ok);
	if (!ok)
		return false;
	r->views = ARENA_NEWN(a, struct obl_view, n ? n : 1);
	r->nviews = n;
	for (uint32_t i = 0; i < n; i++) {
		const msgpack_object *m = &vs[i];
		struct obl_view *v = &r->views[i];
		uint64_t t, val;
		uint32_t ns = 0;
		const char *dt = obj_strdup(obj_get(m, "dtype"), a);
		if (m->type != MSGPACK_OBJECT_MAP || !obj_u64(obj_get(m, "tensor"), &t) ||
		    t >= UINT32_MAX || !obj_u64(obj_get(m, "value"), &val) || val >= UINT32_MAX ||
		    !dt || (v->dtype = etype_parse(dt)) == ET_NONE ||
		    !read_dims(obj_get(m, "shape"), v->shape, &v->ndim, 0) ||
		    !read_dims(obj_get(m, "stride"), v->stride, &ns, 0) || ns != v->ndim ||
		    !obj_i64(obj_get(m, "offset"), &v->offset) || v->offset < 0) {
			rec_error(rec, "views[%u] is malformed (tensor, value, dtype, shape, stride, offset)", i);
			return false;
		}
		v->tensor = (uint32_t)t;
		v->value = (uint32_t)val;
	}
	return true;
}

bool obl_read_trimmed(const struct record *rec, struct arena *a, struct obl_trimmed *r)
{
	bool ok = true;
	uint32_t no = 0, ni = 0, nv = 0;
	memset(r, 0, sizeof *r);
	const msgpack_object *ops = rec_array(rec, "ops", &no, &ok);
	const msgpack_object *ins = rec_array(rec, "inputs", &ni, &ok);
	const msgpack_object *vals = rec_array(rec, "values", &nv, &ok);
	if (!ok)
		return false;
	uint64_t x, y;
	if (no != 2 || !obj_u64(&ops[0], &x) || !obj_u64(&ops[1], &y) || x > UINT32_MAX ||
	    y > UINT32_MAX || ni != nv)
		goto bad;
	r->ops[0] = (uint32_t)x;
	r->ops[1] = (uint32_t)y;
	r->n = ni;
	r->inputs = ARENA_NEWN(a, uint32_t, ni ? ni : 1);
	r->values = arena_alloc(a, sizeof *r->values * (ni ? ni : 1));
	for (uint32_t i = 0; i < ni; i++) {
		const msgpack_object *p = &vals[i];
		if (!obj_u64(&ins[i], &x) || x >= UINT32_MAX || p->type != MSGPACK_OBJECT_ARRAY ||
		    p->via.array.size != 2)
			goto bad;
		r->inputs[i] = (uint32_t)x;
		for (int k = 0; k < 2; k++) {
			if (!obj_u64(&p->via.array.ptr[k], &y) || y >= UINT32_MAX)
				goto bad;
			r->values[i][k] = (uint32_t)y;
		}
	}
	return true;
bad:
	rec_error(rec, "fields 'ops' (two counts), 'inputs' (ids) and 'values' (pairs) are malformed");
	return false;
}

const struct obl_view *obl_op_view(const struct obl_op *o, uint32_t t)
{
	for (uint32_t i = 0; i < o->nviews; i++)
		if (o->views[i].tensor == t)
			return &o->views[i];
	return NULL;
}

uint32_t obl_op_result(const struct obl_op *o, uint32_t r)
{
	if (r < o->call.nouts)
		return o->call.outs[r];
	if (r - o->call.nouts < o->call.nmuts)
		return o->call.muts[r - o->call.nouts].tensor;
	return TORCH_NO_TENSOR;
}

uint64_t obl_view_numel(const struct obl_view *v)
{
	uint64_t n = 1;
	for (uint32_t i = 0; i < v->ndim; i++)
		n *= (uint64_t)v->shape[i];
	return n;
}

uint64_t obl_view_extent(const struct obl_view *v)
{
	if (obl_view_numel(v) == 0)
		return 0;
	uint64_t e = (uint64_t)v->offset + 1;
	for (uint32_t i = 0; i < v->ndim; i++)
		e += (uint64_t)(v->shape[i] - 1) * (uint64_t)v->stride[i];
	return e;
}

bool obl_op_shape(void *user, uint32_t tensor, struct op_shape *shape, enum etype *et)
{
	const struct obl_view *v = obl_op_view(user, tensor);
	if (!v)
		return false;
	shape->ndim = v->ndim;
	for (uint32_t i = 0; i < v->ndim; i++)
		shape->dim[i] = v->shape[i];
	*et = v->dtype;
	return true;
}

bool obl_view_contiguous(const struct obl_view *v)
{
	int64_t want = 1;
	for (uint32_t i = v->ndim; i-- > 0;) {
		if (v->shape[i] != 1 && v->stride[i] != want)
			return false;
		want *= v->shape[i];
	}
	return true;
}

void obligation_init(struct obligation *o)
{
	memset(o, 0, sizeof *o);
	arena_init(&o->arena);
}

void obligation_release(struct obligation *o)
{
	if (!o)
		return;
	VEC_FREE(o->inputs);
	VEC_FREE(o->values);
	VEC_FREE(o->modules);
	VEC_FREE(o->launches);
	VEC_FREE(o->outputs);
	VEC_FREE(o->ops);
	arena_release(&o->arena);
}

#define TAKE(kind, vec, idfield, reader, ...) do { \
	struct kind r; \
	if (!reader(rec, &o->arena, &r)) \
		return -1; \
	if (r.idfield != o->vec.len) { \
		rec_error(rec, #idfield " %u out of order (expected %zu)", r.idfield, o->vec.len); \
		return -1; \
	} \
	__VA_ARGS__ \
	VEC_PUSH(o->vec, r); \
	return 1; \
} while (0)

/* The record types of the obligation (dirigo-obligation(5)), which come
 * after its "obligation" record. */
static bool obligation_type(const struct record *rec)
{
	static const char *const types[] = { "input", "value", "module", "launch", "output",
	                                     "trimmed", NULL };
	for (const char *const *t = types; *t; t++)
		if (strcmp(rec->type, *t) == 0)
			return true;
	return strcmp(rec->type, "op") == 0 && rec_get(rec, "views");
}

int obligation_take(struct obligation *o, const struct record *rec)
{
	const char *t = rec->type;
	if (strcmp(t, "end") == 0) {
		o->end_rec = rec->index;
		if (!o->names[0]) {
			rec_error(rec, "not an obligation stream (no obligation record before the end "
			          "record; run dmerge first)");
			return -1;
		}
		return 0;
	}
	if (!o->names[0] && obligation_type(rec)) {
		rec_error(rec, "the %s record comes before the obligation record (which comes first, "
		          "after the header; run dmerge first)", t);
		return -1;
	}
	if (strcmp(t, "obligation") == 0) {
		if (o->names[0]) {
			rec_error(rec, "a second obligation record");
			return -1;
		}
		uint32_t n;
		bool ok = true;
		const msgpack_object *p = rec_array(rec, "programs", &n, &ok);
		if (!ok || n != 2 || !(o->names[0] = obj_strdup(&p[0], &o->arena)) ||
		    !(o->names[1] = obj_strdup(&p[1], &o->arena))) {
			rec_error(rec, "field 'programs' must hold two names");
			return -1;
		}
		return 1;
	}
	if (strcmp(t, "input") == 0) TAKE(obl_input, inputs, input, obl_read_input);
	if (strcmp(t, "value") == 0) TAKE(obl_value, values, value, obl_read_value, r.rec = rec->index;);
	if (strcmp(t, "module") == 0) TAKE(obl_module, modules, module, obl_read_module);
	if (strcmp(t, "launch") == 0)
		TAKE(obl_launch, launches, launch, obl_read_launch, r.rec = rec->index;);
	if (strcmp(t, "output") == 0)
		TAKE(obl_output, outputs, output, obl_read_output, r.rec = rec->index;);
	if (strcmp(t, "op") == 0 && rec_get(rec, "views"))
		TAKE(obl_op, ops, op, obl_read_op, r.rec = rec->index;);
	if (strcmp(t, "trimmed") == 0) {
		if (o->has_trimmed) {
			rec_error(rec, "a second trimmed record");
			return -1;
		}
		if (!obl_read_trimmed(rec, &o->arena, &o->trimmed))
			return -1;
		o->has_trimmed = true;
		o->trimmed_rec = rec->index;
		return 1;
	}
	return 0;
}

#define FAIL(...) do { warn(__VA_ARGS__); return false; } while (0)
/* "FILE: record N (TYPE): ", as rec_error says it */
#define AT "%s: record %zu (%s): "

bool obligation_check(const struct obligation *o, const char *file)
{
	size_t nv = o->values.len;
	if (!o->names[0])
		FAIL("%s: record %zu (end): not an obligation stream (no obligation record; run dmerge first)",
		     file, o->end_rec);
	for (size_t i = 0; i < nv; i++) {
		const struct obl_value *v = &o->values.items[i];
		if (v->prev != NO_VALUE && (v->prev >= i || o->values.items[v->prev].prog != v->prog ||
		                            o->values.items[v->prev].bytes != v->bytes))
			FAIL(AT "value %zu: bad previous version %u", file, v->rec, "value", i, v->prev);
		if (v->def == VD_INPUT && (v->input >= o->inputs.len ||
		                           o->inputs.items[v->input].bytes != v->len))
			FAIL(AT "value %zu: bad input %u", file, v->rec, "value", i, v->input);
		if (v->def == VD_COPY && (v->src >= i || o->values.items[v->src].prog != v->prog ||
		                          v->src_off > o->values.items[v->src].bytes ||
		                          v->len > o->values.items[v->src].bytes - v->src_off))
			FAIL(AT "value %zu: bad copy source %u", file, v->rec, "value", i, v->src);
		if (v->def == VD_LAUNCH && (v->launch >= o->launches.len ||
		                            o->launches.items[v->launch].prog != v->prog))
			FAIL(AT "value %zu: bad launch %u", file, v->rec, "value", i, v->launch);
		if (v->def == VD_OP) {
			const struct obl_op *op = v->op < o->ops.len ? &o->ops.items[v->op] : NULL;
			const struct obl_view *rv = op ? obl_op_view(op, obl_op_result(op, v->result)) : NULL;
			if (!op || op->prog != v->prog || !rv || rv->value != i)
				FAIL(AT "value %zu: bad op %u or result %u", file, v->rec, "value", i, v->op,
				     v->result);
			if (v->input != NO_VALUE && (v->input >= o->inputs.len ||
			                             o->inputs.items[v->input].bytes != v->len))
				FAIL(AT "value %zu: bad input %u", file, v->rec, "value", i, v->input);
		}
	}
	for (size_t i = 0; i < o->ops.len; i++) {
		const struct obl_op *op = &o->ops.items[i];
		for (uint32_t k = 0; k < op->nviews; k++) {
			const struct obl_view *w = &op->views[k];
			if (w->value >= nv || o->values.items[w->value].prog != op->prog ||
			    obl_view_extent(w) * etype_size(w->dtype) > o->values.items[w->value].bytes)
				FAIL(AT "op %zu (%s): the view of tensor %u is outside value %u", file, op->rec,
				     "op", i, op->call.op, w->tensor, w->value);
		}
		for (uint32_t k = 0; k < op->call.nargs; k++) {
			const struct torch_arg *g = &op->call.args[k];
			uint32_t n = g->kind == TARG_TENSOR ? 1 : g->kind == TARG_TENSORS ? g->n : 0;
			for (uint32_t j = 0; j < n; j++) {
				uint32_t t = g->kind == TARG_TENSOR ? g->tensor : g->tensors[j];
				if (t != TORCH_NO_TENSOR && !obl_op_view(op, t))
					FAIL(AT "op %zu (%s): tensor %u has no view", file, op->rec, "op", i,
					     op->call.op, t);
			}
		}
	}
	if (o->has_trimmed)
		for (uint32_t k = 0; k < o->trimmed.n; k++)
			if (o->trimmed.inputs[k] >= o->inputs.len || o->trimmed.values[k][0] >= nv ||
			    o->trimmed.values[k][1] >= nv)
				FAIL(AT "entry %u names a bad input or value", file, o->trimmed_rec, "trimmed", k);
	for (size_t i = 0; i < o->launches.len; i++) {
		const struct obl_launch *l = &o->launches.items[i];
		if (l->module >= o->modules.len || o->modules.items[l->module].prog != l->prog)
			FAIL(AT "launch %zu: bad module %u", file, l->rec, "launch", i, l->module);
		for (uint32_t k = 0; k < l->nargs; k++) {
			const struct obl_arg *a = &l->args[k];
			if (a->is_ptr && (a->vin >= nv || a->vout >= nv ||
			                  o->values.items[a->vout].def != VD_LAUNCH ||
			                  o->values.items[a->vout].launch != i ||
			                  o->values.items[a->vout].prev != a->vin ||
			                  a->off > o->values.items[a->vin].bytes))
				FAIL(AT "launch %zu: argument '%s' has bad values", file, l->rec, "launch", i,
				     a->param);
		}
		for (uint32_t k = 0; k < l->nsyms; k++)
			if (l->syms[k].vin >= nv)
				FAIL(AT "launch %zu: symbol '%s' has a bad value", file, l->rec, "launch", i,
				     l->syms[k].symbol);
	}
	for (size_t i = 0; i < o->outputs.len; i++) {
		const struct obl_output *out = &o->outputs.items[i];
		for (int p = 0; p < 2; p++)
			if (out->value[p] >= nv || o->values.items[out->value[p]].prog != (uint32_t)p ||
			    out->off[p] > o->values.items[out->value[p]].bytes ||
			    out->bytes > o->values.items[out->value[p]].bytes - out->off[p])
				FAIL(AT "output %zu: bad value for program %d", file, out->rec, "output", i, p);
		if (out->tail_of != NO_VALUE && (out->tail_of >= i ||
		                                 o->outputs.items[out->tail_of].tail_of != NO_VALUE))
			FAIL(AT "output %zu: tail_of %u is not an earlier output of the programs", file,
			     out->rec, "output", i, out->tail_of);
		if (out->bridge && (out->tail_of == NO_VALUE || !obl_output_whole_values(o, out)))
			FAIL(AT "output %zu: a bridge is a cut of two whole values, the reference's first",
			     file, out->rec, "output", i);
	}
	return true;
}

bool obligation_check_outputs(const struct obligation *o, size_t findings, const char *file)
{
	if (!o->outputs.len && !findings)
		FAIL("%s: record %zu (end): the obligation has no output records: there is nothing to "
		     "compare (a stream cut short, or an obligation dmerge did not write?)", file,
		     o->end_rec);
	return true;
}

void obl_write_start(struct stream_out *w, const char *ref, const char *opt)
{
	out_header(w, "obligation", NULL);
	out_begin(w, "obligation");
	out_key(w, "programs");
	out_array_begin(w);
	out_str(w, ref);
	out_str(w, opt);
	out_array_end(w);
	out_end(w);
}

uint64_t obl_view_elem(const struct obl_view *w, uint64_t flat)
{
	uint64_t at = (uint64_t)w->offset;
	for (uint32_t d = w->ndim; d-- > 0;) {
		uint64_t s = (uint64_t)w->shape[d];
		at += (s ? flat % s : 0) * (uint64_t)w->stride[d];
		flat = s ? flat / s : 0;
	}
	return at;
}
