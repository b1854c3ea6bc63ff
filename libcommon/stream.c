/*
 * stream.c: reading and writing dirigo record streams over msgpack-c
 * (see stream.h).
 *
 * Reading: msgpack_unpacker over each input in turn.  Every record is
 * validated before the caller sees it: a map, at most STREAM_MAX_DEPTH
 * deep, with a string "t"; the first record of every input is a header of
 * format "dirigo" whose version is not newer than ours.  Pass-through
 * re-packs the parsed object: the same values and types (str/bin, float
 * widths, ext), with integers in their shortest encoding.
 *
 * Completeness (dirigo(7), STREAMS): every part of a stream (a header and
 * what follows it) ends with an "end" record that counts the records
 * before it, written only by a stage that succeeded.  The reader refuses a
 * part that stops before its end record, naming the tool of its header,
 * a record after an end record, and an end record whose counts do not
 * match what it read.
 *
 * Writing: a stack of frames, each an sbuffer with an item count, so maps
 * and arrays are counted as they are built; out_end writes the record in
 * one piece.  The writer counts the records of its part by type; out_end
 * of an "end" record appends the counts, and stream_out_close writes one
 * when the stage succeeded.
 */
#include "libcommon/stream.h"
#include "libcommon/diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- counts of records by type (reader and writer) ------------------------ */

struct tcount { char *type; uint64_t n; };
struct tcounts { VEC(struct tcount) v; uint64_t total; };

static void tcounts_clear(struct tcounts *c)
{
	for (size_t i = 0; i < c->v.len; i++)
		free(c->v.items[i].type);
	c->v.len = 0;
	c->total = 0;
}

static void tcounts_free(struct tcounts *c)
{
	tcounts_clear(c);
	VEC_FREE(c->v);
}

static struct tcount *tcounts_find(struct tcounts *c, const char *type, size_t len)
{
	for (size_t i = 0; i < c->v.len; i++)
		if (strlen(c->v.items[i].type) == len && memcmp(c->v.items[i].type, type, len) == 0)
			return &c->v.items[i];
	return NULL;
}

/* Counts one record of the type; the table keeps the order of first
 * appearance, so the end record a writer derives from it is the same
 * every time. */
static void tcounts_add(struct tcounts *c, const char *type)
{
	struct tcount *t = tcounts_find(c, type, strlen(type));
	if (!t) {
		struct tcount n = { xstrdup(type), 0 };
		VEC_PUSH(c->v, n);
		t = &c->v.items[c->v.len - 1];
	}
	t->n++;
	c->total++;
}

/* ---- reading ------------------------------------------------------------ */

/* msgpack-c allocates an array or map when it parses the header's count,
 * before the items arrive: a header that claims 2^32 items costs 64 GB.
 * So a record is scanned first, without allocating, and handed to
 * msgpack-c only once all of it is in the buffer, when every count has
 * been paid for with bytes (an item is at least one byte). */
#define SCAN_MAX_DEPTH 32             /* msgpack-c's own nesting limit */

struct stream_in {
	FILE *given;                  /* stream_in_open_file: the one input */
	const char *gname;
	const char *const *paths;
	int npaths, cur;              /* cur: index of the open input, -1 none */
	FILE *f;
	const char *name;
	msgpack_unpacker up;
	msgpack_unpacked res;
	bool eof;                     /* current file fully read into unpacker */
	size_t index;                 /* records read from current input */
	bool seen_header;
	bool ended;                   /* the current part's end record was read */
	struct tcounts counts;        /* records of the current part, by type */
	char *type;                   /* copy of "t" of the current record */
	char *kind, *sname, *tool;    /* of the last header */
	struct scan {                 /* the next record's bytes scanned so far */
		size_t pos;           /* from the unpacker's offset */
		int depth;            /* open arrays and maps */
		uint64_t left[SCAN_MAX_DEPTH];   /* items each still holds */
	} scan;
};

struct stream_in *stream_in_open(const char *const *paths, int npaths)
{
	struct stream_in *in = xcalloc(1, sizeof *in);
	static const char *const stdin_only[] = { "-" };
	in->paths = npaths ? paths : stdin_only;
	in->npaths = npaths ? npaths : 1;
	in->cur = -1;
	if (!msgpack_unpacker_init(&in->up, 1 << 16))
		die("out of memory");
	msgpack_unpacked_init(&in->res);
	return in;
}

struct stream_in *stream_in_open_file(FILE *f, const char *name)
{
	static const char *const one[] = { "-" };
	struct stream_in *in = stream_in_open(one, 1);
	in->given = f;
	in->gname = name;
	return in;
}

static void close_current(struct stream_in *in)
{
	if (in->f && in->f != stdin && in->f != in->given)
		fclose(in->f);
	in->f = NULL;
}

void stream_in_close(struct stream_in *in)
{
	if (!in)
		return;
	close_current(in);
	msgpack_unpacked_destroy(&in->res);
	msgpack_unpacker_destroy(&in->up);
	free(in->type);
	free(in->kind);
	free(in->sname);
	free(in->tool);
	tcounts_free(&in->counts);
	free(in);
}

static void in_error(const struct stream_in *in, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Every message below is formatted whole and printed by warn, in one write
 * (diag.c), so that the messages of threads never interleave. */
static void in_error(const struct stream_in *in, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	warn("%s: record %zu: %s", in->name, in->index, msg);
}

static int open_next(struct stream_in *in)
{
	close_current(in);
	in->cur++;
	if (in->cur >= in->npaths)
		return 0;
	in->name = in->paths[in->cur];
	if (in->given) {
		in->f = in->given;
		in->name = in->gname;
	} else if (strcmp(in->name, "-") == 0) {
		in->f = stdin;
		in->name = "<stdin>";
	} else if (!(in->f = fopen(in->name, "rb"))) {
		warn("cannot open '%s': %s", in->name, strerror(errno));
		return -1;
	}
	msgpack_unpacker_destroy(&in->up);
	if (!msgpack_unpacker_init(&in->up, 1 << 16))
		die("out of memory");
	in->eof = false;
	in->index = 0;
	in->seen_header = false;
	in->ended = false;
	memset(&in->scan, 0, sizeof in->scan);
	tcounts_clear(&in->counts);
	return 1;
}

static bool check_depth(const msgpack_object *o, int depth)
{
	if (depth > STREAM_MAX_DEPTH)
		return false;
	if (o->type == MSGPACK_OBJECT_ARRAY) {
		for (uint32_t i = 0; i < o->via.array.size; i++)
			if (!check_depth(&o->via.array.ptr[i], depth + 1))
				return false;
	} else if (o->type == MSGPACK_OBJECT_MAP) {
		for (uint32_t i = 0; i < o->via.map.size; i++)
			if (!check_depth(&o->via.map.ptr[i].key, depth + 1) ||
			    !check_depth(&o->via.map.ptr[i].val, depth + 1))
				return false;
	}
	return true;
}

const msgpack_object *obj_get(const msgpack_object *map, const char *key)
{
	if (!map || map->type != MSGPACK_OBJECT_MAP)
		return NULL;
	size_t klen = strlen(key);
	for (uint32_t i = 0; i < map->via.map.size; i++) {
		const msgpack_object *k = &map->via.map.ptr[i].key;
		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == klen &&
		    memcmp(k->via.str.ptr, key, klen) == 0)
			return &map->via.map.ptr[i].val;
	}
	return NULL;
}

static char *str_copy(const msgpack_object *o)
{
	char *s = xmalloc(o->via.str.size + 1);
	memcpy(s, o->via.str.ptr, o->via.str.size);
	s[o->via.str.size] = 0;
	return s;
}

/* The end record of the current part against what was read before it;
 * false after a message.  records and counts are optional (a trace of an
 * older recorder has neither), checked when present. */
static bool check_end(struct stream_in *in, const msgpack_object *o)
{
	const msgpack_object *r = obj_get(o, "records"), *c = obj_get(o, "counts");
	uint64_t n;
	if (r && !obj_u64(r, &n)) {
		in_error(in, "end record: field 'records' is not an unsigned integer");
		return false;
	}
	if (r && n != in->counts.total) {
		in_error(in, "end record counts %llu records, the stream holds %llu before it "
		         "(records lost or added)", (unsigned long long)n, (unsigned long long)in->counts.total);
		return false;
	}
	if (!c)
		return true;
	if (c->type != MSGPACK_OBJECT_MAP) {
		in_error(in, "end record: field 'counts' is not a map");
		return false;
	}
	size_t listed = 0;
	for (uint32_t i = 0; i < c->via.map.size; i++) {
		const msgpack_object *k = &c->via.map.ptr[i].key, *v = &c->via.map.ptr[i].val;
		if (k->type != MSGPACK_OBJECT_STR || !obj_u64(v, &n)) {
			in_error(in, "end record: field 'counts' must map record types to counts");
			return false;
		}
		struct tcount *t = tcounts_find(&in->counts, k->via.str.ptr, k->via.str.size);
		uint64_t have = t ? t->n : 0;
		if (n != have) {
			in_error(in, "end record counts %llu '%.*s' records, the stream holds %llu",
			         (unsigned long long)n, (int)k->via.str.size, k->via.str.ptr,
			         (unsigned long long)have);
			return false;
		}
		listed += t && n;
	}
	for (size_t i = 0; i < in->counts.v.len && listed != in->counts.v.len; i++)
		if (!obj_get(c, in->counts.v.items[i].type)) {
			in_error(in, "end record does not count the '%s' records of the stream",
			         in->counts.v.items[i].type);
			return false;
		}
	return true;
}

/* Says that the current part stops before its end record, naming the tool
 * its header names: that stage failed, or was killed, upstream. */
static void unended(const struct stream_in *in, const char *where)
{
	if (in->tool)
		warn("%s: the stream '%s' wrote stops %s, before its end record: "
		     "'%s' failed or was killed upstream (see its messages)", in->name, in->tool, where,
		     in->tool);
	else
		warn("%s: the stream stops %s, before its end record: the stage that wrote it "
		     "failed or was killed (a stream written by hand ends with {\"t\":\"end\"})", in->name,
		     where);
}

/* Validates the unpacked object as a record; fills rec. */
static int accept_record(struct stream_in *in, struct record *rec)
{
	const msgpack_object *o = &in->res.data;
	if (o->type != MSGPACK_OBJECT_MAP) {
		in_error(in, "not a record (a MessagePack map expected)");
		return -1;
	}
	if (!check_depth(o, 0)) {
		in_error(in, "nested more than %d levels deep", STREAM_MAX_DEPTH);
		return -1;
	}
	const msgpack_object *t = obj_get(o, "t");
	if (!t || t->type != MSGPACK_OBJECT_STR || t->via.str.size == 0 ||
	    memchr(t->via.str.ptr, 0, t->via.str.size)) {
		in_error(in, "record has no type field \"t\"");
		return -1;
	}
	free(in->type);
	in->type = str_copy(t);
	if (strcmp(in->type, "header") != 0 && in->ended) {
		in_error(in, "a \"%s\" record after the end record of the stream (a new part starts "
		         "with a header)", in->type);
		return -1;
	}
	if (strcmp(in->type, "header") == 0) {
		if (in->seen_header && !in->ended) {
			char where[64];
			snprintf(where, sizeof where, "at record %zu (a new header)", in->index);
			unended(in, where);
			return -1;
		}
		const msgpack_object *f = obj_get(o, "format");
		const msgpack_object *v = obj_get(o, "version");
		const msgpack_object *k = obj_get(o, "stream");
		uint64_t ver;
		if (!obj_is_str(f, "dirigo")) {
			in_error(in, "not a dirigo stream (header format is not \"dirigo\")");
			return -1;
		}
		if (!obj_u64(v, &ver)) {
			in_error(in, "header has no version");
			return -1;
		}
		if (ver > DIRIGO_FORMAT_VERSION) {
			in_error(in, "stream format version %llu is newer than this %s understands (%d); "
			         "upgrade dirigo", (unsigned long long)ver, diag_prog(), DIRIGO_FORMAT_VERSION);
			return -1;
		}
		if (!k || k->type != MSGPACK_OBJECT_STR) {
			in_error(in, "header has no stream kind");
			return -1;
		}
		free(in->kind);
		in->kind = str_copy(k);
		free(in->sname);
		const msgpack_object *nm = obj_get(o, "name");
		in->sname = nm && nm->type == MSGPACK_OBJECT_STR ? str_copy(nm) : NULL;
		free(in->tool);
		const msgpack_object *tl = obj_get(o, "tool");
		in->tool = tl && tl->type == MSGPACK_OBJECT_STR && tl->via.str.size &&
		           !memchr(tl->via.str.ptr, 0, tl->via.str.size) ? str_copy(tl) : NULL;
		in->seen_header = true;
		in->ended = false;
		tcounts_clear(&in->counts);
	} else if (!in->seen_header) {
		in_error(in, "stream does not start with a header record (got \"%s\")", in->type);
		return -1;
	} else if (strcmp(in->type, "end") == 0) {
		if (!check_end(in, o))
			return -1;
		in->ended = true;
	}
	if (!in->ended)
		tcounts_add(&in->counts, in->type);
	rec->obj = o;
	rec->type = in->type;
	rec->file = in->name;
	rec->index = in->index;
	rec->stream_kind = in->kind;
	rec->stream_name = in->sname;
	return 1;
}

/* Scans the buffered bytes of the next record: 1 when it is all there,
 * 0 when more bytes are needed, -1 when it cannot be a record (message
 * printed). */
static int scan_record(struct stream_in *in)
{
	struct scan *sc = &in->scan;
	const unsigned char *b = (const unsigned char *)in->up.buffer + in->up.off;
	size_t n = in->up.used - in->up.off;
	while (sc->pos < n) {
		const unsigned char *p = b + sc->pos;
		size_t avail = n - sc->pos, hdr = 1;
		uint64_t body = 0, items = 0;
		bool container = false;
		unsigned c = p[0];
		/* header size, and the bytes or items that follow it */
		if (c <= 0x7f || c >= 0xe0 || (c >= 0xc0 && c <= 0xc3 && c != 0xc1)) {
			/* fixint, nil, bool */
		} else if (c >= 0x80 && c <= 0x8f) {
			container = true; items = 2u * (c & 0x0f);
		} else if (c >= 0x90 && c <= 0x9f) {
			container = true; items = c & 0x0f;
		} else if (c >= 0xa0 && c <= 0xbf) {
			body = c & 0x1f;
		} else {
			static const unsigned char lens[] = {
				/* c4 bin8 */ 1, 2, 4, /* c7 ext8 */ 1, 2, 4, /* ca f32 */ 4, 8,
				/* cc u8 */ 1, 2, 4, 8, /* d0 i8 */ 1, 2, 4, 8,
				/* d4 fixext1 */ 1, 1, 1, 1, 1, /* d9 str8 */ 1, 2, 4,
				/* dc array16 */ 2, 4, /* de map16 */ 2, 4,
			};
			if (c == 0xc1) {
				in_error(in, "malformed MessagePack data");
				return -1;
			}
			unsigned l = lens[c - 0xc4];
			hdr = 1 + l;
			if (avail < hdr)
				return 0;
			uint64_t v = 0;
			for (unsigned i = 0; i < l; i++)
				v = v << 8 | p[1 + i];
			switch (c) {
			case 0xc4: case 0xc5: case 0xc6: case 0xd9: case 0xda: case 0xdb:
				body = v; break;
			case 0xc7: case 0xc8: case 0xc9: body = v + 1; break;      /* type byte */
			case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
				hdr = 2; body = (uint64_t)1 << (c - 0xd4); break;   /* type byte, data */
			case 0xdc: case 0xdd: container = true; items = v; break;
			case 0xde: case 0xdf: container = true; items = 2 * v; break;
			default: hdr = 1 + l; break;                                 /* numbers */
			}
		}
		if (avail < hdr)
			return 0;
		if (container && items) {
			if (sc->depth == SCAN_MAX_DEPTH) {
				in_error(in, "nested more than %d levels deep", STREAM_MAX_DEPTH);
				return -1;
			}
			if (items > STREAM_MAX_RECORD) {
				in_error(in, "record larger than %u bytes", STREAM_MAX_RECORD);
				return -1;
			}
			sc->left[sc->depth++] = items;
			sc->pos += hdr;
			continue;
		}
		if (body > avail - hdr) {
			if (sc->pos + hdr + body > STREAM_MAX_RECORD) {
				in_error(in, "record larger than %u bytes", STREAM_MAX_RECORD);
				return -1;
			}
			return 0;
		}
		sc->pos += hdr + body;
		/* one item done: close the containers it completes */
		while (sc->depth > 0 && --sc->left[sc->depth - 1] == 0)
			sc->depth--;
		if (sc->depth == 0)
			return 1;
		if (sc->pos > STREAM_MAX_RECORD) {
			in_error(in, "record larger than %u bytes", STREAM_MAX_RECORD);
			return -1;
		}
	}
	return 0;
}

int stream_in_next(struct stream_in *in, struct record *rec)
{
	for (;;) {
		if (in->cur < 0 || in->cur >= in->npaths || (!in->f && in->cur >= 0)) {
			int r = open_next(in);
			if (r <= 0)
				return r;
		}
		int sr = scan_record(in);
		if (sr < 0)
			return -1;
		msgpack_unpack_return ret = MSGPACK_UNPACK_CONTINUE;
		if (sr > 0) {
			ret = msgpack_unpacker_next(&in->up, &in->res);
			memset(&in->scan, 0, sizeof in->scan);
		}
		if (ret == MSGPACK_UNPACK_SUCCESS) {
			if (accept_record(in, rec) < 0)
				return -1;
			in->index++;
			return 1;
		}
		if (ret == MSGPACK_UNPACK_PARSE_ERROR) {
			in_error(in, "malformed MessagePack data");
			return -1;
		}
		if (ret == MSGPACK_UNPACK_NOMEM_ERROR) {
			in_error(in, "record too large");
			return -1;
		}
		/* CONTINUE: need more bytes */
		if (sr > 0) {
			/* the scan saw a whole record that msgpack-c does not */
			in_error(in, "malformed MessagePack data");
			return -1;
		}
		if (in->eof) {
			if (msgpack_unpacker_message_size(&in->up) > 0 ||
			    in->up.used > in->up.off) {
				in_error(in, "truncated record at end of input");
				return -1;
			}
			if (in->index == 0) {
				warn("%s: empty input (no header record; the stage that wrote it may have failed)",
				     in->name);
				return -1;
			}
			if (!in->ended) {
				char where[64];
				snprintf(where, sizeof where, "after record %zu", in->index - 1);
				unended(in, where);
				return -1;
			}
			close_current(in);
			continue;
		}
		if (msgpack_unpacker_message_size(&in->up) > STREAM_MAX_RECORD) {
			in_error(in, "record larger than %u bytes", STREAM_MAX_RECORD);
			return -1;
		}
		if (!msgpack_unpacker_reserve_buffer(&in->up, 1 << 16))
			die("out of memory");
		size_t n = fread(msgpack_unpacker_buffer(&in->up), 1,
		                 msgpack_unpacker_buffer_capacity(&in->up), in->f);
		if (n == 0) {
			if (ferror(in->f)) {
				warn("read error on '%s': %s", in->name, strerror(errno));
				return -1;
			}
			in->eof = true;
		}
		msgpack_unpacker_buffer_consumed(&in->up, n);
	}
}

void rec_error(const struct record *rec, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	warn("%s: record %zu (%s): %s", rec->file, rec->index, rec->type, msg);
}

const msgpack_object *rec_get(const struct record *rec, const char *key)
{
	return obj_get(rec->obj, key);
}

bool obj_u64(const msgpack_object *o, uint64_t *v)
{
	if (!o)
		return false;
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		*v = o->via.u64;
		return true;
	}
	return false;
}

bool obj_i64(const msgpack_object *o, int64_t *v)
{
	if (!o)
		return false;
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX) {
		*v = (int64_t)o->via.u64;
		return true;
	}
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		*v = o->via.i64;
		return true;
	}
	return false;
}

bool obj_f64(const msgpack_object *o, double *v)
{
	if (!o)
		return false;
	switch (o->type) {
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64: *v = o->via.f64; return true;
	case MSGPACK_OBJECT_POSITIVE_INTEGER: *v = (double)o->via.u64; return true;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER: *v = (double)o->via.i64; return true;
	default: return false;
	}
}

bool obj_is_str(const msgpack_object *o, const char *s)
{
	size_t n = strlen(s);
	return o && o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
	       memcmp(o->via.str.ptr, s, n) == 0;
}

const char *obj_strdup(const msgpack_object *o, struct arena *a)
{
	if (!o || o->type != MSGPACK_OBJECT_STR)
		return NULL;
	return arena_strndup(a, o->via.str.ptr, o->via.str.size);
}

static const msgpack_object *need(const struct record *rec, const char *key, bool *ok)
{
	const msgpack_object *o = rec_get(rec, key);
	if (!o) {
		rec_error(rec, "field '%s' missing", key);
		*ok = false;
	}
	return o;
}

static void wrong(const struct record *rec, const char *key, const char *what, bool *ok)
{
	rec_error(rec, "field '%s' is not %s", key, what);
	*ok = false;
}

uint64_t rec_u64(const struct record *rec, const char *key, bool *ok)
{
	uint64_t v = 0;
	const msgpack_object *o = need(rec, key, ok);
	if (o && !obj_u64(o, &v))
		wrong(rec, key, "an unsigned integer", ok);
	return v;
}

uint64_t rec_u64_opt(const struct record *rec, const char *key, uint64_t dflt, bool *ok)
{
	const msgpack_object *o = rec_get(rec, key);
	uint64_t v = dflt;
	if (o && !obj_u64(o, &v))
		wrong(rec, key, "an unsigned integer", ok);
	return v;
}

bool rec_bool_opt(const struct record *rec, const char *key, bool dflt, bool *ok)
{
	const msgpack_object *o = rec_get(rec, key);
	if (!o)
		return dflt;
	if (o->type != MSGPACK_OBJECT_BOOLEAN) {
		wrong(rec, key, "a boolean", ok);
		return dflt;
	}
	return o->via.boolean;
}

int64_t rec_i64(const struct record *rec, const char *key, bool *ok)
{
	int64_t v = 0;
	const msgpack_object *o = need(rec, key, ok);
	if (o && !obj_i64(o, &v))
		wrong(rec, key, "an integer", ok);
	return v;
}

double rec_f64(const struct record *rec, const char *key, bool *ok)
{
	double v = 0;
	const msgpack_object *o = need(rec, key, ok);
	if (o && !obj_f64(o, &v))
		wrong(rec, key, "a number", ok);
	return v;
}

const char *rec_str(const struct record *rec, const char *key, struct arena *a, bool *ok)
{
	const msgpack_object *o = need(rec, key, ok);
	if (!o)
		return NULL;
	const char *s = obj_strdup(o, a);
	if (!s)
		wrong(rec, key, "a string", ok);
	return s;
}

const char *rec_str_opt(const struct record *rec, const char *key, struct arena *a, bool *ok)
{
	const msgpack_object *o = rec_get(rec, key);
	if (!o || o->type == MSGPACK_OBJECT_NIL)
		return NULL;
	const char *s = obj_strdup(o, a);
	if (!s)
		wrong(rec, key, "a string", ok);
	return s;
}

static const void *bin_of(const struct record *rec, const msgpack_object *o, const char *key,
                          struct arena *a, size_t *len, bool *ok)
{
	if (o->type == MSGPACK_OBJECT_BIN) {
		*len = o->via.bin.size;
		return arena_memdup(a, o->via.bin.ptr, o->via.bin.size);
	}
	if (o->type == MSGPACK_OBJECT_STR) {
		*len = o->via.str.size;
		return arena_strndup(a, o->via.str.ptr, o->via.str.size);
	}
	wrong(rec, key, "binary data", ok);
	return NULL;
}

const void *rec_bin(const struct record *rec, const char *key, struct arena *a, size_t *len, bool *ok)
{
	*len = 0;
	const msgpack_object *o = need(rec, key, ok);
	return o ? bin_of(rec, o, key, a, len, ok) : NULL;
}

const void *rec_bin_opt(const struct record *rec, const char *key, struct arena *a, size_t *len, bool *ok)
{
	*len = 0;
	const msgpack_object *o = rec_get(rec, key);
	return o && o->type != MSGPACK_OBJECT_NIL ? bin_of(rec, o, key, a, len, ok) : NULL;
}

const msgpack_object *rec_array(const struct record *rec, const char *key, uint32_t *n, bool *ok)
{
	*n = 0;
	const msgpack_object *o = need(rec, key, ok);
	if (!o)
		return NULL;
	if (o->type != MSGPACK_OBJECT_ARRAY) {
		wrong(rec, key, "an array", ok);
		return NULL;
	}
	*n = o->via.array.size;
	return o->via.array.ptr;
}

/* ---- writing ------------------------------------------------------------ */

struct frame {
	msgpack_sbuffer buf;
	msgpack_packer pk;
	size_t items;
	bool is_map;
};

struct stream_out {
	FILE *f;
	struct frame *frames;
	int depth, cap;
	bool failed;
	bool header_done;   /* out_pass wrote this stage's header */
	bool building_end;  /* the record being built is an end record */
	bool ended;         /* the end record of the part is written */
	struct tcounts counts;   /* records of the current part, by type */
	char *cur_type;     /* type of the record being built */
	bool mem_owned;     /* stream_out_memory: f is a memstream over mem */
	char *mem;
	size_t memlen;
};

struct stream_out *stream_out_new(FILE *f)
{
	struct stream_out *w = xcalloc(1, sizeof *w);
	w->f = f;
	return w;
}

struct stream_out *stream_out_memory(void)
{
	struct stream_out *w = xcalloc(1, sizeof *w);
	if (!(w->f = open_memstream(&w->mem, &w->memlen)))
		die("out of memory");
	w->mem_owned = true;
	return w;
}

int stream_out_free(struct stream_out *w)
{
	if (!w)
		return 0;
	int r = w->failed ? -1 : 0;
	if (fflush(w->f) != 0 && !w->failed) {
		warn("write error: %s", strerror(errno));
		r = -1;
	}
	for (int i = 0; i < w->cap; i++)
		msgpack_sbuffer_destroy(&w->frames[i].buf);
	free(w->frames);
	tcounts_free(&w->counts);
	free(w->cur_type);
	if (w->mem_owned) {
		if (w->f)
			fclose(w->f);
		free(w->mem);
	}
	free(w);
	return r;
}

static bool status_succeeded(int status)
{
	return status == EXIT_OK || status == EXIT_BUG || status == EXIT_UNDECIDED;
}

enum exit_status stream_out_close(struct stream_out *w, enum exit_status status)
{
	if (!w)
		return status;
	if (status_succeeded(status) && w->depth == 0 && w->counts.total && !w->ended) {
		out_begin(w, "end");
		out_end(w);
	}
	if (stream_out_free(w) < 0)
		status = EXIT_TROUBLE;
	return status;
}

bool stream_out_ended(const struct stream_out *w)
{
	return w->ended;
}

void stream_out_append(struct stream_out *w, struct stream_out *part)
{
	if (!part->mem_owned || part->ended || part->depth)
		die("internal error: appending what is not a held part of records");
	if (fclose(part->f) != 0)
		die("out of memory");
	part->f = NULL;
	if (w->ended)
		die("internal error: records appended after the end record");
	if (!w->failed && part->memlen && fwrite(part->mem, 1, part->memlen, w->f) != part->memlen) {
		warn("write error: %s", strerror(errno));
		w->failed = true;
	}
	for (size_t i = 0; i < part->counts.v.len; i++)
		for (uint64_t k = 0; k < part->counts.v.items[i].n; k++)
			tcounts_add(&w->counts, part->counts.v.items[i].type);
	w->failed |= part->failed;
	stream_out_free(part);
}

static struct frame *top(struct stream_out *w)
{
	if (w->depth == 0)
		die("internal error: record field written outside a record");
	return &w->frames[w->depth - 1];
}

static void push(struct stream_out *w, bool is_map)
{
	if (w->depth == w->cap) {
		int ncap = w->cap ? 2 * w->cap : 8;
		w->frames = xrealloc(w->frames, (size_t)ncap * sizeof *w->frames);
		/* The packers of open frames point at their buffers, which
		 * have just moved: point them at the new places. */
		for (int i = 0; i < w->depth; i++)
			msgpack_packer_init(&w->frames[i].pk, &w->frames[i].buf, msgpack_sbuffer_write);
		for (int i = w->cap; i < ncap; i++)
			msgpack_sbuffer_init(&w->frames[i].buf);
		w->cap = ncap;
	}
	struct frame *fr = &w->frames[w->depth++];
	msgpack_sbuffer_clear(&fr->buf);
	msgpack_packer_init(&fr->pk, &fr->buf, msgpack_sbuffer_write);
	fr->items = 0;
	fr->is_map = is_map;
}

/* Pops the top frame and appends it, with its header, to the frame below
 * (or returns it for the caller to write when it is the record itself). */
static struct frame *pop(struct stream_out *w)
{
	struct frame *fr = top(w);
	w->depth--;
	if (fr->is_map && fr->items % 2)
		die("internal error: map with a key and no value");
	if (w->depth == 0)
		return fr;
	struct frame *up = &w->frames[w->depth - 1];
	/* fr may move if frames are reallocated: nothing pushes here. */
	if (fr->is_map)
		msgpack_pack_map(&up->pk, fr->items / 2);
	else
		msgpack_pack_array(&up->pk, fr->items);
	msgpack_sbuffer_write(&up->buf, fr->buf.data, fr->buf.size);
	up->items++;
	return NULL;
}

/* Counts a record written to w; a header starts a new part. */
static void count_record(struct stream_out *w, const char *type)
{
	if (strcmp(type, "header") == 0) {
		tcounts_clear(&w->counts);
		w->ended = false;
	} else if (w->ended) {
		die("internal error: a \"%s\" record written after the end record", type);
	}
	if (strcmp(type, "end") == 0)
		w->ended = true;
	else
		tcounts_add(&w->counts, type);
}

void out_begin(struct stream_out *w, const char *type)
{
	if (w->depth != 0)
		die("internal error: record begun inside a record");
	if (w->ended && strcmp(type, "header") != 0)
		die("internal error: a \"%s\" record begun after the end record", type);
	push(w, true);
	w->building_end = strcmp(type, "end") == 0;
	free(w->cur_type);
	w->cur_type = xstrdup(type);
	out_kstr(w, "t", type);
}

void out_end(struct stream_out *w)
{
	if (w->depth != 1)
		die("internal error: record ended with open maps or arrays");
	if (w->building_end) {
		/* what the part holds before the end record */
		out_ku64(w, "records", w->counts.total);
		out_key(w, "counts");
		out_map_begin(w);
		for (size_t i = 0; i < w->counts.v.len; i++)
			out_ku64(w, w->counts.v.items[i].type, w->counts.v.items[i].n);
		out_map_end(w);
	}
	struct frame *fr = pop(w);
	msgpack_sbuffer hdr;
	msgpack_sbuffer_init(&hdr);
	msgpack_packer pk;
	msgpack_packer_init(&pk, &hdr, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, fr->items / 2);
	if (!w->failed &&
	    (fwrite(hdr.data, 1, hdr.size, w->f) != hdr.size ||
	     fwrite(fr->buf.data, 1, fr->buf.size, w->f) != fr->buf.size)) {
		warn("write error: %s", strerror(errno));
		w->failed = true;
	}
	msgpack_sbuffer_destroy(&hdr);
	w->building_end = false;
	count_record(w, w->cur_type);
}

/* Writes the record object o of type 'type' unchanged. */
static void write_object(struct stream_out *w, const msgpack_object *o, const char *type)
{
	if (w->depth != 0)
		die("internal error: record written inside a record");
	/* An end record belongs to the part that holds it: a stage passing
	 * records through ends its own output with its own. */
	if (strcmp(type, "end") == 0)
		return;
	if (w->ended && strcmp(type, "header") != 0)
		die("internal error: a \"%s\" record written after the end record", type);
	push(w, true);
	msgpack_pack_object(&top(w)->pk, *o);
	struct frame *fr = pop(w);
	if (!w->failed && fwrite(fr->buf.data, 1, fr->buf.size, w->f) != fr->buf.size) {
		warn("write error: %s", strerror(errno));
		w->failed = true;
	}
	count_record(w, type);
}

void out_raw(struct stream_out *w, const struct record *rec)
{
	write_object(w, rec->obj, rec->type);
}

bool out_raw_object(struct stream_out *w, const msgpack_object *o)
{
	const msgpack_object *t = obj_get(o, "t");
	if (!t || t->type != MSGPACK_OBJECT_STR || t->via.str.size == 0 ||
	    memchr(t->via.str.ptr, 0, t->via.str.size))
		return false;
	char *type = str_copy(t);
	write_object(w, o, type);
	free(type);
	return true;
}

void out_pass(struct stream_out *w, const struct record *rec, const char *kind,
              const char *const *own)
{
	for (; own && *own; own++)
		if (strcmp(rec->type, *own) == 0)
			return;
	if (strcmp(rec->type, "end") == 0)
		return;                 /* the stage writes its own (stream_out_close) */
	if (strcmp(rec->type, "header") != 0) {
		out_raw(w, rec);
		return;
	}
	if (!w->header_done)
		out_header(w, kind, rec->stream_name);
	w->header_done = true;
}

static int kind_rank(const char *k)
{
	static const char *const kinds[] = { "trace", "obligation", "symbolic", "verdict", "replay" };
	for (int i = 0; i < 5; i++)
		if (k && strcmp(k, kinds[i]) == 0)
			return i;
	return -1;
}

bool rec_require_kind(const struct record *rec, const char *min, const char *hint)
{
	if (strcmp(rec->type, "header") != 0)
		return true;
	int r = kind_rank(rec->stream_kind);
	if (r >= kind_rank(min))
		return true;
	if (r < 0)
		rec_error(rec, "unknown stream kind '%s'", rec->stream_kind);
	else
		rec_error(rec, "%s %s stream, not %s %s stream; run %s first",
		          strchr("aeiou", rec->stream_kind[0]) ? "an" : "a", rec->stream_kind,
		          strchr("aeiou", min[0]) ? "an" : "a", min, hint);
	return false;
}

void out_header(struct stream_out *w, const char *kind, const char *name)
{
	out_begin(w, "header");
	out_kstr(w, "format", "dirigo");
	out_ku64(w, "version", DIRIGO_FORMAT_VERSION);
	out_kstr(w, "stream", kind);
	if (name)
		out_kstr(w, "name", name);
	out_kstr(w, "tool", diag_prog());
	out_end(w);
}

#define PK (&top(w)->pk)
#define COUNT (top(w)->items++)

void out_key(struct stream_out *w, const char *key) { out_str(w, key); }
void out_str(struct stream_out *w, const char *s) { out_strn(w, s, strlen(s)); }
void out_strn(struct stream_out *w, const char *s, size_t n)
{
	msgpack_pack_str(PK, n);
	msgpack_pack_str_body(PK, s, n);
	COUNT;
}
void out_u64(struct stream_out *w, uint64_t v) { msgpack_pack_uint64(PK, v); COUNT; }
void out_i64(struct stream_out *w, int64_t v) { msgpack_pack_int64(PK, v); COUNT; }
void out_f64(struct stream_out *w, double v) { msgpack_pack_double(PK, v); COUNT; }
void out_bool(struct stream_out *w, bool v)
{
	if (v)
		msgpack_pack_true(PK);
	else
		msgpack_pack_false(PK);
	COUNT;
}
void out_nil(struct stream_out *w) { msgpack_pack_nil(PK); COUNT; }
void out_bin(struct stream_out *w, const void *p, size_t n)
{
	msgpack_pack_bin(PK, n);
	msgpack_pack_bin_body(PK, p, n);
	COUNT;
}
void out_obj(struct stream_out *w, const msgpack_object *o) { msgpack_pack_object(PK, *o); COUNT; }
void out_map_begin(struct stream_out *w) { top(w); push(w, true); }
void out_map_end(struct stream_out *w) { if (!top(w)->is_map) die("internal error: map end without map"); pop(w); }
void out_array_begin(struct stream_out *w) { top(w); push(w, false); }
void out_array_end(struct stream_out *w) { if (top(w)->is_map) die("internal error: array end without array"); pop(w); }

void out_kstr(struct stream_out *w, const char *key, const char *s) { out_key(w, key); out_str(w, s); }
void out_ku64(struct stream_out *w, const char *key, uint64_t v) { out_key(w, key); out_u64(w, v); }
void out_ki64(struct stream_out *w, const char *key, int64_t v) { out_key(w, key); out_i64(w, v); }
void out_kf64(struct stream_out *w, const char *key, double v) { out_key(w, key); out_f64(w, v); }
void out_kbool(struct stream_out *w, const char *key, bool v) { out_key(w, key); out_bool(w, v); }
void out_kbin(struct stream_out *w, const char *key, const void *p, size_t n) { out_key(w, key); out_bin(w, p, n); }
void out_ki64s(struct stream_out *w, const char *key, const int64_t *v, uint32_t n)
{
	out_key(w, key);
	out_array_begin(w);
	for (uint32_t i = 0; i < n; i++)
		out_i64(w, v[i]);
	out_array_end(w);
}

void out_ku64x3(struct stream_out *w, const char *key, const uint64_t v[3])
{
	out_key(w, key);
	out_array_begin(w);
	for (int i = 0; i < 3; i++)
		out_u64(w, v[i]);
	out_array_end(w);
}
