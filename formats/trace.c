/*
 * trace.c: encode and decode the records of a trace stream
 * (dirigo-trace(5); types in trace.h).
 */
#include "formats/trace.h"

#include <stdio.h>
#include <string.h>

static const char *const alloc_kinds[] = { "device", "managed", "host", "symbol" };
static const char *const copy_dirs[] = { "h2d", "d2h", "d2d" };

const char *trace_alloc_kind_name(enum trace_alloc_kind k)
{
	return (unsigned)k < 4 ? alloc_kinds[k] : "?";
}

const char *trace_copy_dir_name(enum trace_copy_dir d)
{
	return (unsigned)d < 3 ? copy_dirs[d] : "?";
}

void trace_hash_hex(const void *p, size_t n, char hex[17])
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ull;
	}
	snprintf(hex, 17, "%016llx", (unsigned long long)h);
}

/* ---- writing ------------------------------------------------------------ */

void trace_write_header(struct stream_out *w, const char *name)
{
	out_header(w, TRACE_STREAM_KIND, name);
}

void trace_write_module(struct stream_out *w, const struct trace_module *r)
{
	out_begin(w, "module");
	out_ku64(w, "module", r->module);
	out_key(w, "ptx");
	out_strn(w, r->ptx, r->ptxlen);
	out_kstr(w, "hash", r->hash);
	out_ku64(w, "arch", r->arch);
	out_end(w);
}

void trace_write_alloc(struct stream_out *w, const struct trace_alloc *r)
{
	out_begin(w, "alloc");
	out_ku64(w, "buf", r->buf);
	out_ku64(w, "bytes", r->bytes);
	out_kstr(w, "kind", trace_alloc_kind_name(r->kind));
	if (r->kind == TA_SYMBOL) {
		out_ku64(w, "module", r->module);
		out_kstr(w, "symbol", r->symbol ? r->symbol : "");
	}
	out_end(w);
}

void trace_write_free(struct stream_out *w, const struct trace_free *r)
{
	out_begin(w, "free");
	out_ku64(w, "buf", r->buf);
	out_end(w);
}

void trace_write_copy(struct stream_out *w, const struct trace_copy *r)
{
	out_begin(w, "copy");
	out_kstr(w, "dir", trace_copy_dir_name(r->dir));
	if (r->storage != TRACE_NO_BUF)
		out_ku64(w, "storage", r->storage);
	else
		out_ku64(w, "buf", r->buf);
	out_ku64(w, "off", r->off);
	out_ku64(w, "bytes", r->bytes);
	if (r->data)
		out_kbin(w, "data", r->data, r->ndata);
	if (r->hash)
		out_kstr(w, "hash", r->hash);
	if (r->dir == TC_D2D) {
		if (r->src_storage != TRACE_NO_BUF)
			out_ku64(w, "src_storage", r->src_storage);
		else
			out_ku64(w, "src_buf", r->src_buf);
		out_ku64(w, "src_off", r->src_off);
	}
	out_end(w);
}

void trace_write_memset(struct stream_out *w, const struct trace_memset *r)
{
	out_begin(w, "memset");
	if (r->storage != TRACE_NO_BUF)
		out_ku64(w, "storage", r->storage);
	else
		out_ku64(w, "buf", r->buf);
	out_ku64(w, "off", r->off);
	out_ku64(w, "bytes", r->bytes);
	out_ku64(w, "value", r->value);
	out_end(w);
}

void trace_write_launch(struct stream_out *w, const struct trace_launch *r)
{
	out_begin(w, "launch");
	out_ku64(w, "launch", r->launch);
	out_ku64(w, "module", r->module);
	out_kstr(w, "kernel", r->kernel);
	out_ku64x3(w, "grid", r->grid);
	out_ku64x3(w, "block", r->block);
	out_ku64(w, "shmem", r->shmem);
	out_key(w, "args");
	out_array_begin(w);
	for (uint32_t i = 0; i < r->nargs; i++) {
		const struct trace_arg *g = &r->args[i];
		out_map_begin(w);
		out_kstr(w, "param", g->param);
		out_ku64(w, "size", g->size);
		out_kbin(w, "raw", g->raw, g->size);
		if (g->buf != TRACE_NO_BUF) {
			out_ku64(w, "buf", g->buf);
			out_ku64(w, "off", g->off);
		} else if (g->in_storage) {
			out_ku64(w, "storage", g->storage);
			out_ku64(w, "off", g->off);
		}
		out_map_end(w);
	}
	out_array_end(w);
	out_end(w);
}

void trace_write_end(struct stream_out *w, const struct trace_end *r)
{
	out_begin(w, "end");
	out_ki64(w, "status", r->status);
	out_end(w);
}

void trace_write_unsupported(struct stream_out *w, const char *op, const char *message)
{
	out_begin(w, "tunsupported");
	out_kstr(w, "op", op);
	out_kstr(w, "message", message);
	out_end(w);
}

/* ---- reading ------------------------------------------------------------ */

/* A u32 field; values that do not fit are errors. */
static uint32_t rec_u32(const struct record *rec, const char *key, bool *ok)
{
	bool mine = true;
	uint64_t v = rec_u64(rec, key, &mine);
	if (mine && v > UINT32_MAX) {
		rec_error(rec, "field '%s': %llu is out of range", key, (unsigned long long)v);
		mine = false;
	}
	if (!mine)
		*ok = false;
	return (uint32_t)v;
}

/* Index of s in names[n], or -1 after a message. */
static int rec_enum(const struct record *rec, const char *key, const char *const *names,
                    int n, struct arena *a, bool *ok)
{
	const char *s = rec_str(rec, key, a, ok);
	if (!s)
		return -1;
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	rec_error(rec, "field '%s': unknown value '%s'", key, s);
	*ok = false;
	return -1;
}

bool trace_read_module(const struct record *rec, struct arena *a, struct trace_module *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->module = rec_u32(rec, "module", &ok);
	r->ptx = rec_str(rec, "ptx", a, &ok);
	r->ptxlen = r->ptx ? strlen(r->ptx) : 0;
	r->hash = rec_str(rec, "hash", a, &ok);
	r->arch = rec_u32(rec, "arch", &ok);
	return ok;
}

bool trace_read_alloc(const struct record *rec, struct arena *a, struct trace_alloc *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->buf = rec_u32(rec, "buf", &ok);
	r->bytes = rec_u64(rec, "bytes", &ok);
	int k = rec_enum(rec, "kind", alloc_kinds, 4, a, &ok);
	r->kind = k < 0 ? TA_DEVICE : (enum trace_alloc_kind)k;
	if (r->kind == TA_SYMBOL) {
		r->module = rec_u32(rec, "module", &ok);
		r->symbol = rec_str(rec, "symbol", a, &ok);
	}
	return ok;
}

bool trace_read_free(const struct record *rec, struct arena *a, struct trace_free *r)
{
	bool ok = true;
	(void)a;
	r->buf = rec_u32(rec, "buf", &ok);
	return ok;
}

/* Exactly one of the fields kb (a buffer) and ks (a torch storage): the
 * other is set to TRACE_NO_BUF. */
static void read_place(const struct record *rec, const char *kb, const char *ks, uint32_t *buf,
                       uint32_t *storage, bool *ok)
{
	*buf = *storage = TRACE_NO_BUF;
	if (rec_get(rec, ks) && rec_get(rec, kb)) {
		rec_error(rec, "fields '%s' and '%s': only one of them may be given", kb, ks);
		*ok = false;
	} else if (rec_get(rec, ks)) {
		*storage = rec_u32(rec, ks, ok);
	} else {
		*buf = rec_u32(rec, kb, ok);
	}
}

bool trace_read_copy(const struct record *rec, struct arena *a, struct trace_copy *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	int d = rec_enum(rec, "dir", copy_dirs, 3, a, &ok);
	r->dir = d < 0 ? TC_H2D : (enum trace_copy_dir)d;
	read_place(rec, "buf", "storage", &r->buf, &r->storage, &ok);
	r->off = rec_u64(rec, "off", &ok);
	r->bytes = rec_u64(rec, "bytes", &ok);
	r->data = rec_bin_opt(rec, "data", a, &r->ndata, &ok);
	if (r->data && r->ndata != r->bytes) {
		rec_error(rec, "field 'data': %zu bytes, but 'bytes' is %llu", r->ndata,
		          (unsigned long long)r->bytes);
		ok = false;
	}
	r->hash = rec_str_opt(rec, "hash", a, &ok);
	r->src_buf = r->src_storage = TRACE_NO_BUF;
	if (r->dir == TC_D2D) {
		read_place(rec, "src_buf", "src_storage", &r->src_buf, &r->src_storage, &ok);
		r->src_off = rec_u64(rec, "src_off", &ok);
	}
	return ok;
}

bool trace_read_memset(const struct record *rec, struct arena *a, struct trace_memset *r)
{
	bool ok = true;
	(void)a;
	memset(r, 0, sizeof *r);
	read_place(rec, "buf", "storage", &r->buf, &r->storage, &ok);
	r->off = rec_u64(rec, "off", &ok);
	r->bytes = rec_u64(rec, "bytes", &ok);
	uint64_t v = rec_u64(rec, "value", &ok);
	if (v > 255) {
		rec_error(rec, "field 'value': %llu is not a byte", (unsigned long long)v);
		ok = false;
	}
	r->value = (uint8_t)v;
	return ok;
}

/* grid/block: an array of three unsigned integers. */
static void rec_u64x3(const struct record *rec, const char *key, uint64_t v[3], bool *ok)
{
	uint32_t n = 0;
	bool mine = true;
	const msgpack_object *o = rec_array(rec, key, &n, &mine);   /* the elements */
	if (!mine) {
		*ok = false;
		return;
	}
	if (n != 3) {
		rec_error(rec, "field '%s': %u elements, expected 3", key, n);
		*ok = false;
		return;
	}
	for (int i = 0; i < 3; i++)
		if (!obj_u64(&o[i], &v[i])) {
			rec_error(rec, "field '%s': element %d is not an unsigned integer", key, i);
			*ok = false;
		}
}

static bool read_arg(const struct record *rec, uint32_t i, const msgpack_object *m,
                     struct arena *a, struct trace_arg *g)
{
	uint64_t v;
	const msgpack_object *o;
	if (m->type != MSGPACK_OBJECT_MAP) {
		rec_error(rec, "args[%u]: not a map", i);
		return false;
	}
	o = obj_get(m, "param");
	g->param = o ? obj_strdup(o, a) : NULL;
	o = obj_get(m, "size");
	if (!g->param || !o || !obj_u64(o, &v) || v > UINT32_MAX) {
		rec_error(rec, "args[%u]: 'param' (string) and 'size' (unsigned) are required", i);
		return false;
	}
	g->size = (uint32_t)v;
	o = obj_get(m, "raw");
	if (!o || o->type != MSGPACK_OBJECT_BIN || o->via.bin.size != g->size) {
		rec_error(rec, "args[%u]: 'raw' must be %u bytes of binary", i, g->size);
		return false;
	}
	g->raw = arena_memdup(a, o->via.bin.ptr, o->via.bin.size);
	g->buf = TRACE_NO_BUF;
	g->in_storage = false;
	if ((o = obj_get(m, "buf"))) {
		if (!obj_u64(o, &v) || v > UINT32_MAX || !obj_get(m, "off") ||
		    !obj_u64(obj_get(m, "off"), &g->off)) {
			rec_error(rec, "args[%u]: 'buf' and 'off' must be unsigned integers", i);
			return false;
		}
		g->buf = (uint32_t)v;
	} else if ((o = obj_get(m, "storage"))) {
		if (!obj_u64(o, &v) || v > UINT32_MAX || !obj_get(m, "off") ||
		    !obj_u64(obj_get(m, "off"), &g->off)) {
			rec_error(rec, "args[%u]: 'storage' and 'off' must be unsigned integers", i);
			return false;
		}
		g->in_storage = true;
		g->storage = (uint32_t)v;
	}
	return true;
}

bool trace_read_launch(const struct record *rec, struct arena *a, struct trace_launch *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->launch = rec_u32(rec, "launch", &ok);
	r->module = rec_u32(rec, "module", &ok);
	r->kernel = rec_str(rec, "kernel", a, &ok);
	rec_u64x3(rec, "grid", r->grid, &ok);
	rec_u64x3(rec, "block", r->block, &ok);
	r->shmem = rec_u64(rec, "shmem", &ok);
	uint32_t n = 0;
	const msgpack_object *arr = rec_array(rec, "args", &n, &ok);   /* the elements */
	if (!arr && !ok)
		return false;
	r->args = ARENA_NEWN(a, struct trace_arg, n ? n : 1);
	r->nargs = n;
	for (uint32_t i = 0; i < n; i++)
		if (!read_arg(rec, i, &arr[i], a, &r->args[i]))
			ok = false;
	return ok;
}

bool trace_read_end(const struct record *rec, struct arena *a, struct trace_end *r)
{
	bool ok = true;
	(void)a;
	r->status = rec_i64(rec, "status", &ok);
	return ok;
}
