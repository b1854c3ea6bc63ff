/*
 * obligation.c: encode and decode the records of dirigo-obligation(5), and
 * gather them into a struct obligation (see obligation.h).
 */
#include "obligation.h"
#include "diag.h"

#include <string.h>

static const char *const def_names[] = {
	[VD_UNINIT] = "uninit", [VD_INPUT] = "input", [VD_MEMSET] = "memset",
	[VD_COPY] = "copy", [VD_LAUNCH] = "launch",
};

const char *value_def_name(enum value_def d) { return def_names[d]; }

void obl_write_input(struct stream_out *w, const struct obl_input *r)
{
	out_begin(w, "input");
	out_ku64(w, "input", r->input);
	out_ku64(w, "bytes", r->bytes);
	if (r->name)
		out_kstr(w, "name", r->name);
	if (r->data)
		out_kbin(w, "data", r->data, r->ndata);
	out_end(w);
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
	}
	if (r->def == VD_INPUT || r->def == VD_MEMSET || r->def == VD_COPY) {
		out_ku64(w, "off", r->off);
		out_ku64(w, "len", r->len);
	}
	if (r->symbol)
		out_kstr(w, "symbol", r->symbol);
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
	}
	if (r->def == VD_INPUT || r->def == VD_MEMSET || r->def == VD_COPY) {
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
	arena_release(&o->arena);
}

#define TAKE(kind, vec, idfield, reader) do { \
	struct kind r; \
	if (!reader(rec, &o->arena, &r)) \
		return -1; \
	if (r.idfield != o->vec.len) { \
		rec_error(rec, #idfield " %u out of order (expected %zu)", r.idfield, o->vec.len); \
		return -1; \
	} \
	VEC_PUSH(o->vec, r); \
	return 1; \
} while (0)

int obligation_take(struct obligation *o, const struct record *rec)
{
	const char *t = rec->type;
	if (strcmp(t, "obligation") == 0) {
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
	if (strcmp(t, "value") == 0) TAKE(obl_value, values, value, obl_read_value);
	if (strcmp(t, "module") == 0) TAKE(obl_module, modules, module, obl_read_module);
	if (strcmp(t, "launch") == 0) TAKE(obl_launch, launches, launch, obl_read_launch);
	if (strcmp(t, "output") == 0) TAKE(obl_output, outputs, output, obl_read_output);
	return 0;
}

#define FAIL(...) do { warn(__VA_ARGS__); return false; } while (0)

bool obligation_check(const struct obligation *o, const char *file)
{
	size_t nv = o->values.len;
	if (!o->names[0])
		FAIL("%s: not an obligation stream (no obligation header; run dmerge first)", file);
	for (size_t i = 0; i < nv; i++) {
		const struct obl_value *v = &o->values.items[i];
		if (v->prev != NO_VALUE && (v->prev >= i || o->values.items[v->prev].prog != v->prog ||
		                            o->values.items[v->prev].bytes != v->bytes))
			FAIL("%s: value %zu: bad previous version %u", file, i, v->prev);
		if (v->def == VD_INPUT && (v->input >= o->inputs.len ||
		                           o->inputs.items[v->input].bytes != v->len))
			FAIL("%s: value %zu: bad input %u", file, i, v->input);
		if (v->def == VD_COPY && (v->src >= i || o->values.items[v->src].prog != v->prog ||
		                          v->src_off > o->values.items[v->src].bytes ||
		                          v->len > o->values.items[v->src].bytes - v->src_off))
			FAIL("%s: value %zu: bad copy source %u", file, i, v->src);
		if (v->def == VD_LAUNCH && (v->launch >= o->launches.len ||
		                            o->launches.items[v->launch].prog != v->prog))
			FAIL("%s: value %zu: bad launch %u", file, i, v->launch);
	}
	for (size_t i = 0; i < o->launches.len; i++) {
		const struct obl_launch *l = &o->launches.items[i];
		if (l->module >= o->modules.len || o->modules.items[l->module].prog != l->prog)
			FAIL("%s: launch %zu: bad module %u", file, i, l->module);
		for (uint32_t k = 0; k < l->nargs; k++) {
			const struct obl_arg *a = &l->args[k];
			if (a->is_ptr && (a->vin >= nv || a->vout >= nv ||
			                  o->values.items[a->vout].def != VD_LAUNCH ||
			                  o->values.items[a->vout].launch != i ||
			                  o->values.items[a->vout].prev != a->vin ||
			                  a->off > o->values.items[a->vin].bytes))
				FAIL("%s: launch %zu: argument '%s' has bad values", file, i, a->param);
		}
		for (uint32_t k = 0; k < l->nsyms; k++)
			if (l->syms[k].vin >= nv)
				FAIL("%s: launch %zu: symbol '%s' has a bad value", file, i, l->syms[k].symbol);
	}
	for (size_t i = 0; i < o->outputs.len; i++) {
		const struct obl_output *out = &o->outputs.items[i];
		for (int p = 0; p < 2; p++)
			if (out->value[p] >= nv || o->values.items[out->value[p]].prog != (uint32_t)p ||
			    out->off[p] > o->values.items[out->value[p]].bytes ||
			    out->bytes > o->values.items[out->value[p]].bytes - out->off[p])
				FAIL("%s: output %zu: bad value for program %d", file, i, p);
	}
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
