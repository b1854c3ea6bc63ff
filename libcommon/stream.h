/*
 * stream.h: dirigo record streams (MessagePack maps) in and out.
 *
 * A stream is a sequence of MessagePack maps, each with a string field "t"
 * naming its type.  Each file (or concatenated part) starts with a header
 * record {"t":"header","format":"dirigo","version":N,"stream":KIND,...}.
 * The reader checks headers and refuses a newer major version; it hands
 * every record, headers included, to the caller; out_raw writes a record
 * read back out unchanged (same values and types), for pass-through.
 *
 * Each stage writes its own header first (out_header with the kind of
 * stream it produces), consumes the header records of its input (they
 * describe the input stream, not the work), passes every other record it
 * does not consume through unchanged (out_raw), and appends its own.
 *
 * Completeness: each part of a stream (a header and the records after it)
 * ends with an "end" record {"t":"end","records":N,"counts":{TYPE:N,...}}
 * counting the records before it (header included).  A stage writes it
 * last, and only when it succeeded (stream_out_close with exit status 0,
 * 1 or 3), so a stage that fails or is killed leaves a part without one.
 * The reader hands end records to the caller like any other record, and
 * refuses, naming the "tool" of the part's header as the stage that failed
 * upstream: a part that stops before its end record (at the end of the
 * input, or at the next header), a record after an end record, and an end
 * record whose counts (checked when present) do not match.  Pass-through
 * (out_raw, out_pass) never copies an end record.
 *
 * Layouts of individual record types are known only to formats/.
 */
#ifndef DIRIGO_STREAM_H
#define DIRIGO_STREAM_H

#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libcommon/arena.h"
#include "libcommon/diag.h"

#define DIRIGO_FORMAT_VERSION 1
#define STREAM_MAX_DEPTH 24            /* nesting limit imposed on input */
#define STREAM_MAX_RECORD (1u << 30)   /* bytes; larger records are refused */

/* ---- reading ------------------------------------------------------------ */

struct record {
	const msgpack_object *obj;  /* the map; valid until the next read */
	const char *type;           /* value of "t"; valid until the next read */
	const char *file;           /* input name for messages ("-" is stdin) */
	size_t index;               /* 0-based record index within that file */
	const char *stream_kind;    /* "stream" of the last header seen in file */
	const char *stream_name;    /* "name" of the last header, or NULL */
};

struct stream_in;

/* Opens the named files in order ("-" is stdin); npaths 0 reads stdin.
 * A file that cannot be opened is reported when reading reaches it. */
struct stream_in *stream_in_open(const char *const *paths, int npaths);
/* Reads the one open file f, named name in messages (f is not closed). */
struct stream_in *stream_in_open_file(FILE *f, const char *name);
/* 1: a record in *rec; 0: end of all inputs; -1: bad input (a message that
 * names the file and record index has been printed). */
int  stream_in_next(struct stream_in *in, struct record *rec);
void stream_in_close(struct stream_in *in);   /* NULL ok */

/* Prints "PROG: FILE: record N (TYPE): MESSAGE" to stderr. */
void rec_error(const struct record *rec, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Field access.  rec_get returns NULL when absent.  The typed getters print
 * a rec_error naming the field and set *ok = false when the field is missing
 * or of the wrong type (they leave *ok alone on success, so one flag can
 * collect the errors of a whole record); the _opt variants accept absence
 * and return the default. */
const msgpack_object *rec_get(const struct record *rec, const char *key);
const msgpack_object *obj_get(const msgpack_object *map, const char *key);
uint64_t    rec_u64(const struct record *rec, const char *key, bool *ok);
int64_t     rec_i64(const struct record *rec, const char *key, bool *ok);
double      rec_f64(const struct record *rec, const char *key, bool *ok);
const char *rec_str(const struct record *rec, const char *key, struct arena *a, bool *ok);
uint64_t    rec_u64_opt(const struct record *rec, const char *key, uint64_t dflt, bool *ok);
bool        rec_bool_opt(const struct record *rec, const char *key, bool dflt, bool *ok);
const char *rec_str_opt(const struct record *rec, const char *key, struct arena *a, bool *ok);
/* Binary (or string) payload copied into the arena; *len gets its size. */
const void *rec_bin(const struct record *rec, const char *key, struct arena *a, size_t *len, bool *ok);
const void *rec_bin_opt(const struct record *rec, const char *key, struct arena *a, size_t *len, bool *ok);
/* An array field; *n gets its length. */
const msgpack_object *rec_array(const struct record *rec, const char *key, uint32_t *n, bool *ok);

/* Conversions of single objects; false when the type does not fit. */
bool obj_u64(const msgpack_object *o, uint64_t *v);
bool obj_i64(const msgpack_object *o, int64_t *v);
bool obj_f64(const msgpack_object *o, double *v);
bool obj_is_str(const msgpack_object *o, const char *s);
const char *obj_strdup(const msgpack_object *o, struct arena *a); /* NULL if not str */

/* ---- writing ------------------------------------------------------------ */

/* Records are built in memory and written whole by out_end, so an error in
 * the middle never leaves a partial record on the output.  Maps and arrays
 * count their own entries: no sizes are given up front. */
struct stream_out;

struct stream_out *stream_out_new(FILE *f);
/* Ends the output of a stage that exits with 'status': when it is 0, 1 or
 * 3 (the stage succeeded) and the part has a header and no end record yet,
 * writes the end record; then flushes and frees w (NULL ok).  Returns
 * status, or EXIT_TROUBLE after a write error (message printed). */
enum exit_status stream_out_close(struct stream_out *w, enum exit_status status);
/* Flushes and frees without an end record (a stage that failed, or a
 * held part); returns 0, or -1 after a write error (message printed). */
int  stream_out_free(struct stream_out *w);
/* A writer into memory, for records a stage holds back and writes later
 * into w with stream_out_append (which frees it and counts its records
 * in w's part). */
struct stream_out *stream_out_memory(void);
void stream_out_append(struct stream_out *w, struct stream_out *held);
/* True once the end record of the current part is written. */
bool stream_out_ended(const struct stream_out *w);

void out_header(struct stream_out *w, const char *kind, const char *name);
void out_begin(struct stream_out *w, const char *type);   /* map with "t" */
/* Writes the record.  For an "end" record (a stage with fields of its
 * own, like a trace's status, begins it itself) first appends "records"
 * and "counts". */
void out_end(struct stream_out *w);
/* Writes a record read back out unchanged; an end record is dropped. */
void out_raw(struct stream_out *w, const struct record *rec);
/* The same for a record object that did not come through a stream_in (a
 * map with a string "t"; false, and nothing written, when it is not). */
bool out_raw_object(struct stream_out *w, const msgpack_object *o);
/* Pass-through for a stage that produces streams of kind 'kind': the first
 * input header becomes this stage's header (same name), later input
 * headers and end records are dropped, records of the types in 'own'
 * (NULL-terminated, or NULL) are dropped too (the stage writes them afresh: rerunning it on its
 * own output replaces them), every other record is written unchanged. */
void out_pass(struct stream_out *w, const struct record *rec, const char *kind,
              const char *const *own);

/* Stream kinds in pipeline order: trace, obligation, symbolic, verdict,
 * replay.  For a header record, checks that its kind is at least 'min'
 * (a stage can rerun on later streams, which hold everything earlier);
 * otherwise prints "FILE: record N (header): a KIND stream; run HINT
 * first" and returns false.  True for other records. */
bool rec_require_kind(const struct record *rec, const char *min, const char *hint);

void out_key(struct stream_out *w, const char *key);
void out_str(struct stream_out *w, const char *s);
void out_strn(struct stream_out *w, const char *s, size_t n);
void out_u64(struct stream_out *w, uint64_t v);
void out_i64(struct stream_out *w, int64_t v);
void out_f64(struct stream_out *w, double v);
void out_bool(struct stream_out *w, bool v);
void out_nil(struct stream_out *w);
void out_bin(struct stream_out *w, const void *p, size_t n);
void out_obj(struct stream_out *w, const msgpack_object *o);
void out_map_begin(struct stream_out *w);
void out_map_end(struct stream_out *w);
void out_array_begin(struct stream_out *w);
void out_array_end(struct stream_out *w);

/* key + value shorthands */
void out_kstr(struct stream_out *w, const char *key, const char *s);
void out_ku64(struct stream_out *w, const char *key, uint64_t v);
void out_ki64(struct stream_out *w, const char *key, int64_t v);
void out_kf64(struct stream_out *w, const char *key, double v);
void out_kbool(struct stream_out *w, const char *key, bool v);
void out_kbin(struct stream_out *w, const char *key, const void *p, size_t n);
/* key + [v0, v1, ...] of n signed integers (shapes, strides) */
void out_ki64s(struct stream_out *w, const char *key, const int64_t *v, uint32_t n);
/* [a,b,c] of three unsigned integers (grid and block sizes) */
void out_ku64x3(struct stream_out *w, const char *key, const uint64_t v[3]);

#endif
