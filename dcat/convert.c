/*
 * convert.c: MessagePack records <-> JSON Lines, losslessly (convert.h).
 */
#include "convert.h"
#include "libcommon/base64.h"
#include "libcommon/diag.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *tagged(const char *tag, json_t *v)
{
	json_t *o = json_object();
	json_object_set_new(o, tag, v);
	return o;
}

static json_t *b64(const char *tag, const void *p, size_t n)
{
	char *s = base64_encode(p, n);
	json_t *o = tagged(tag, json_string(s));
	free(s);
	return o;
}

static json_t *to_json(const msgpack_object *o, const char **err)
{
	switch (o->type) {
	case MSGPACK_OBJECT_NIL: return json_null();
	case MSGPACK_OBJECT_BOOLEAN: return json_boolean(o->via.boolean);
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		if (o->via.u64 > INT64_MAX) {
			char buf[32];
			snprintf(buf, sizeof buf, "%llu", (unsigned long long)o->via.u64);
			return tagged("$u64", json_string(buf));
		}
		return json_integer((json_int_t)o->via.u64);
	case MSGPACK_OBJECT_NEGATIVE_INTEGER: return json_integer(o->via.i64);
	case MSGPACK_OBJECT_FLOAT32: return tagged("$f32", json_real(o->via.f64));
	case MSGPACK_OBJECT_FLOAT64:
		if (isnan(o->via.f64))
			return tagged("$f64", json_string("nan"));
		if (isinf(o->via.f64))
			return tagged("$f64", json_string(o->via.f64 > 0 ? "inf" : "-inf"));
		return json_real(o->via.f64);
	case MSGPACK_OBJECT_STR: {
		json_t *s = json_stringn(o->via.str.ptr, o->via.str.size);
		return s ? s : b64("$str", o->via.str.ptr, o->via.str.size);
	}
	case MSGPACK_OBJECT_BIN: return b64("$bin", o->via.bin.ptr, o->via.bin.size);
	case MSGPACK_OBJECT_EXT: {
		json_t *e = b64("data", o->via.ext.ptr, o->via.ext.size);
		json_object_set_new(e, "$ext", json_integer(o->via.ext.type));
		return e;
	}
	case MSGPACK_OBJECT_ARRAY: {
		json_t *a = json_array();
		for (uint32_t i = 0; i < o->via.array.size; i++) {
			json_t *v = to_json(&o->via.array.ptr[i], err);
			if (!v) {
				json_decref(a);
				return NULL;
			}
			json_array_append_new(a, v);
		}
		return a;
	}
	case MSGPACK_OBJECT_MAP: {
		json_t *m = json_object();
		for (uint32_t i = 0; i < o->via.map.size; i++) {
			const msgpack_object *k = &o->via.map.ptr[i].key;
			if (k->type != MSGPACK_OBJECT_STR) {
				*err = "map key is not a string";
				json_decref(m);
				return NULL;
			}
			/* A key JSON cannot hold as it is (a NUL byte, not UTF-8)
			 * or a key given twice would be lost: refused. */
			char *key = strndup(k->via.str.ptr, k->via.str.size);
			if (!key || memchr(k->via.str.ptr, 0, k->via.str.size) || json_object_get(m, key)) {
				*err = key && json_object_get(m, key) ? "a map key given twice" :
				       "a map key holding a NUL byte";
				free(key);
				json_decref(m);
				return NULL;
			}
			json_t *v = to_json(&o->via.map.ptr[i].val, err);
			if (!v) {
				free(key);
				json_decref(m);
				return NULL;
			}
			if (json_object_set_new(m, key, v) != 0) {
				*err = "a map key that is not UTF-8";
				free(key);
				json_decref(m);
				return NULL;
			}
			free(key);
		}
		return m;
	}
	}
	*err = "unknown MessagePack type";
	return NULL;
}

int record_to_json(const struct record *rec, FILE *out)
{
	const char *err = NULL;
	json_t *j = to_json(rec->obj, &err);
	if (!j) {
		rec_error(rec, "%s", err);
		return -1;
	}
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17) |
	                        JSON_ENCODE_ANY);
	json_decref(j);
	if (!s)
		die("out of memory");
	fputs(s, out);
	fputc('\n', out);
	free(s);
	return 0;
}

/* ---- JSON -> MessagePack ------------------------------------------------ */

struct jctx { const char *name; size_t line; const char *err; int depth; };

static bool from_json(struct stream_out *w, json_t *j, struct jctx *c);

#define STR_(x) #x
#define STR(x) STR_(x)

static bool tagged_from_json(struct stream_out *w, json_t *j, struct jctx *c, bool *handled)
{
	*handled = false;
	size_t n = json_object_size(j);
	json_t *v = NULL;
	if (n == 1 && (v = json_object_get(j, "$f32")) && json_is_number(v)) {
		/* float32: pack through the stream writer's object path */
		msgpack_object o = { .type = MSGPACK_OBJECT_FLOAT32, .via.f64 = (float)json_number_value(v) };
		out_obj(w, &o);
		*handled = true;
		return true;
	}
	if (n == 1 && (v = json_object_get(j, "$f64")) && json_is_string(v)) {
		const char *s = json_string_value(v);
		double d = strcmp(s, "nan") == 0 ? NAN : strcmp(s, "inf") == 0 ? INFINITY :
		           strcmp(s, "-inf") == 0 ? -INFINITY : 0;
		if (d == 0) {
			c->err = "bad $f64 value (nan, inf or -inf expected)";
			return false;
		}
		out_f64(w, d);
		*handled = true;
		return true;
	}
	if (n == 1 && (v = json_object_get(j, "$u64")) && json_is_string(v)) {
		char *end;
		errno = 0;
		unsigned long long u = strtoull(json_string_value(v), &end, 10);
		if (*end || errno) {
			c->err = "bad $u64 value";
			return false;
		}
		out_u64(w, u);
		*handled = true;
		return true;
	}
	bool is_bin = n == 1 && (v = json_object_get(j, "$bin")) && json_is_string(v);
	bool is_str = !is_bin && n == 1 && (v = json_object_get(j, "$str")) && json_is_string(v);
	json_t *et = json_object_get(j, "$ext");
	bool is_ext = n == 2 && et && json_is_integer(et) && (v = json_object_get(j, "data")) && json_is_string(v);
	if (!is_bin && !is_str && !is_ext)
		return true;
	size_t len;
	void *p = base64_decode(json_string_value(v), &len);
	if (!p) {
		c->err = "bad base64 data";
		return false;
	}
	if (is_bin) {
		out_bin(w, p, len);
	} else if (is_str) {
		out_strn(w, p, len);
	} else {
		msgpack_object o = { .type = MSGPACK_OBJECT_EXT };
		o.via.ext.type = (int8_t)json_integer_value(et);
		o.via.ext.size = (uint32_t)len;
		o.via.ext.ptr = p;
		out_obj(w, &o);
	}
	free(p);
	*handled = true;
	return true;
}

static bool from_json(struct stream_out *w, json_t *j, struct jctx *c)
{
	switch (json_typeof(j)) {
	case JSON_NULL: out_nil(w); return true;
	case JSON_TRUE: out_bool(w, true); return true;
	case JSON_FALSE: out_bool(w, false); return true;
	case JSON_INTEGER: {
		json_int_t v = json_integer_value(j);
		if (v >= 0)
			out_u64(w, (uint64_t)v);
		else
			out_i64(w, v);
		return true;
	}
	case JSON_REAL: out_f64(w, json_real_value(j)); return true;
	case JSON_STRING: out_strn(w, json_string_value(j), json_string_length(j)); return true;
	case JSON_ARRAY: {
		/* deeper than any reader takes: refused here, not written */
		if (++c->depth > STREAM_MAX_DEPTH && json_array_size(j)) {
			c->err = "nested too deep (a record nests at most " STR(STREAM_MAX_DEPTH) " levels)";
			return false;
		}
		out_array_begin(w);
		size_t i;
		json_t *v;
		json_array_foreach(j, i, v)
			if (!from_json(w, v, c))
				return false;
		out_array_end(w);
		c->depth--;
		return true;
	}
	case JSON_OBJECT: {
		bool handled;
		if (!tagged_from_json(w, j, c, &handled))
			return false;
		if (handled)
			return true;
		if (++c->depth > STREAM_MAX_DEPTH && json_object_size(j)) {
			c->err = "nested too deep (a record nests at most " STR(STREAM_MAX_DEPTH) " levels)";
			return false;
		}
		out_map_begin(w);
		const char *k;
		json_t *v;
		json_object_foreach(j, k, v) {
			out_key(w, k);
			if (!from_json(w, v, c))
				return false;
		}
		out_map_end(w);
		c->depth--;
		return true;
	}
	}
	c->err = "unknown JSON type";
	return false;
}

enum exit_status json_to_stream(FILE *f, const char *name, struct stream_out *w)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct jctx c = { name, 0, NULL, 0 };
	int status = EXIT_OK;
	bool first = true;
	while ((n = getline(&line, &cap, f)) >= 0) {
		c.line++;
		if (strspn(line, " \t\r\n") == (size_t)n)
			continue;
		json_error_t jerr;
		json_t *j = json_loadb(line, (size_t)n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
		if (!j) {
			warn("%s:%zu: invalid JSON: %s", name, c.line, jerr.text);
			status = EXIT_TROUBLE;
			break;
		}
		json_t *t = json_object_get(j, "t");
		if (!json_is_object(j) || !json_is_string(t) ||
		    strlen(json_string_value(t)) != json_string_length(t)) {
			warn("%s:%zu: not a record (a JSON object with a string \"t\" expected)", name, c.line);
			json_decref(j);
			status = EXIT_TROUBLE;
			break;
		}
		if (first && strcmp(json_string_value(t), "header") != 0) {
			warn("%s:%zu: a stream must start with a header record", name, c.line);
			json_decref(j);
			status = EXIT_TROUBLE;
			break;
		}
		const char *type = json_string_value(t);
		bool is_end = strcmp(type, "end") == 0;
		if (strcmp(type, "header") != 0 && stream_out_ended(w)) {
			warn("%s:%zu: a \"%s\" record after the end record (a new stream starts with a header)",
			     name, c.line, type);
			json_decref(j);
			status = EXIT_TROUBLE;
			break;
		}
		first = false;
		out_begin(w, type);
		const char *k;
		json_t *v;
		bool ok = true;
		c.depth = 1;
		json_object_foreach(j, k, v) {
			/* an end record's counts are those of what is written here */
			if (strcmp(k, "t") == 0 ||
			    (is_end && (strcmp(k, "records") == 0 || strcmp(k, "counts") == 0)))
				continue;
			out_key(w, k);
			if (!(ok = from_json(w, v, &c)))
				break;
		}
		json_decref(j);
		if (!ok) {
			/* Abandon the half-built record: nothing partial is written. */
			warn("%s:%zu: %s", name, c.line, c.err);
			status = EXIT_TROUBLE;
			break;
		}
		out_end(w);
	}
	free(line);
	if (status == EXIT_OK && ferror(f)) {
		warn("read error on '%s'", name);
		status = EXIT_TROUBLE;
	}
	return status;
}

enum exit_status stream_to_json(struct stream_in *in, FILE *out)
{
	struct record rec;
	int r;
	while ((r = stream_in_next(in, &rec)) > 0)
		if (record_to_json(&rec, out) < 0)
			return EXIT_TROUBLE;
	return r < 0 ? EXIT_TROUBLE : EXIT_OK;
}
