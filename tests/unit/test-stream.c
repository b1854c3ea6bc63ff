/*
 * test-stream.c: the record stream reader and writer (libcommon/stream).
 */
#include "tap.h"

#include "libcommon/diag.h"
#include "libcommon/stream.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes a stream into memory with fn, returns its bytes. */
static char *build(void (*fn)(struct stream_out *), size_t *n)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, n);
	struct stream_out *w = stream_out_new(f);
	fn(w);
	stream_out_close(w, EXIT_OK);
	fclose(f);
	return buf;
}

/* The same, closed as by a stage that exits with status. */
static char *build_status(void (*fn)(struct stream_out *), int status, size_t *n)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, n);
	struct stream_out *w = stream_out_new(f);
	fn(w);
	stream_out_close(w, status);
	fclose(f);
	return buf;
}

static char *tmpfile_with(const char *data, size_t n)
{
	char *path = strdup("/tmp/test-stream-XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "wb");
	fwrite(data, 1, n, f);
	fclose(f);
	return path;
}

static void two_records(struct stream_out *w)
{
	out_header(w, "trace", "ref");
	out_begin(w, "launch");
	out_ku64(w, "launch", 7);
	out_ki64(w, "neg", -5);
	out_kf64(w, "x", 0.1);
	out_kstr(w, "kernel", "add");
	uint64_t g[3] = { 4, 2, 1 };
	out_ku64x3(w, "grid", g);
	out_key(w, "args");
	out_array_begin(w);
	for (int i = 0; i < 3; i++) {
		out_map_begin(w);
		out_ku64(w, "i", (uint64_t)i);
		out_kbin(w, "raw", "\0\1\2", 3);
		out_map_end(w);
	}
	out_array_end(w);
	out_key(w, "empty");
	out_array_begin(w);
	out_array_end(w);
	out_end(w);
}

static void bad_version(struct stream_out *w)
{
	out_begin(w, "header");
	out_kstr(w, "format", "dirigo");
	out_ku64(w, "version", DIRIGO_FORMAT_VERSION + 1);
	out_kstr(w, "stream", "trace");
	out_end(w);
}

static void no_header(struct stream_out *w)
{
	out_begin(w, "launch");
	out_end(w);
}

/* A record nested deeper than the writer's first frame array. */
static void deep(struct stream_out *w)
{
	out_header(w, "trace", NULL);
	out_begin(w, "deep");
	out_key(w, "x");
	for (int i = 0; i < 20; i++) {
		out_array_begin(w);
		out_u64(w, (uint64_t)i);
	}
	for (int i = 0; i < 20; i++)
		out_array_end(w);
	out_end(w);
}

/* Raw MessagePack records, for streams no writer of ours would make. */
static void pk_str(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str(pk, strlen(s));
	msgpack_pack_str_body(pk, s, strlen(s));
}

static void pk_header(msgpack_packer *pk, const char *tool)
{
	msgpack_pack_map(pk, tool ? 5 : 4);
	pk_str(pk, "t"); pk_str(pk, "header");
	pk_str(pk, "format"); pk_str(pk, "dirigo");
	pk_str(pk, "version"); msgpack_pack_uint64(pk, DIRIGO_FORMAT_VERSION);
	pk_str(pk, "stream"); pk_str(pk, "trace");
	if (tool) {
		pk_str(pk, "tool"); pk_str(pk, tool);
	}
}

static void pk_rec(msgpack_packer *pk, const char *type)
{
	msgpack_pack_map(pk, 1);
	pk_str(pk, "t"); pk_str(pk, type);
}

/* {"t":"end","records":records} with counts when ntypes > 0 */
static void pk_end(msgpack_packer *pk, int64_t records, const char *const *types,
                   const uint64_t *counts, int ntypes)
{
	msgpack_pack_map(pk, 1 + (records >= 0) + (ntypes > 0));
	pk_str(pk, "t"); pk_str(pk, "end");
	if (records >= 0) {
		pk_str(pk, "records");
		msgpack_pack_uint64(pk, (uint64_t)records);
	}
	if (ntypes > 0) {
		pk_str(pk, "counts");
		msgpack_pack_map(pk, (size_t)ntypes);
		for (int i = 0; i < ntypes; i++) {
			pk_str(pk, types[i]);
			msgpack_pack_uint64(pk, counts[i]);
		}
	}
}

/* Reads the sbuffer's bytes as one input; returns stream_in_next's last
 * result and the records read. */
static int read_buf(const msgpack_sbuffer *sb, int *nrec)
{
	FILE *f = fmemopen(sb->data, sb->size, "rb");
	struct stream_in *in = stream_in_open_file(f, "mem");
	struct record rec;
	int r;
	*nrec = 0;
	while ((r = stream_in_next(in, &rec)) > 0)
		(*nrec)++;
	stream_in_close(in);
	fclose(f);
	return r;
}

static void end_records(void)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	int nrec;
	static const char *const ty[] = { "header", "launch" };
	uint64_t c2[] = { 1, 2 }, c1[] = { 1, 1 };

#define RESET() do { msgpack_sbuffer_clear(&sb); } while (0)
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);

	pk_header(&pk, "dexec"); pk_rec(&pk, "launch"); pk_rec(&pk, "launch");
	pk_end(&pk, 3, ty, c2, 2);
	ok(read_buf(&sb, &nrec) == 0 && nrec == 4, "a complete stream: its end record is a record too");

	RESET();
	pk_header(&pk, "dexec"); pk_rec(&pk, "launch"); pk_end(&pk, -1, NULL, NULL, 0);
	ok(read_buf(&sb, &nrec) == 0, "an end record without counts is accepted");

	RESET();
	pk_header(&pk, "dexec"); pk_rec(&pk, "launch"); pk_rec(&pk, "launch");
	ok(read_buf(&sb, &nrec) == -1 && nrec == 3, "a stream that stops before its end record is refused, "
	   "after its records");

	RESET();
	pk_header(&pk, "dexec"); pk_rec(&pk, "launch"); pk_end(&pk, 3, NULL, NULL, 0);
	ok(read_buf(&sb, &nrec) == -1, "an end record counting records that are not there is refused");

	RESET();
	pk_header(&pk, "dexec"); pk_rec(&pk, "launch"); pk_rec(&pk, "launch");
	pk_end(&pk, 3, ty, c1, 2);
	ok(read_buf(&sb, &nrec) == -1, "an end record whose counts by type do not match is refused");

	RESET();
	pk_header(&pk, "dexec"); pk_rec(&pk, "launch"); pk_rec(&pk, "lunch");
	pk_end(&pk, 3, ty, c2, 2);
	ok(read_buf(&sb, &nrec) == -1, "a type the counts do not list is refused");

	RESET();
	pk_header(&pk, "dexec"); pk_end(&pk, 1, NULL, NULL, 0); pk_rec(&pk, "launch");
	ok(read_buf(&sb, &nrec) == -1 && nrec == 2, "a record after the end record is refused");

	RESET();
	pk_header(&pk, "dmerge"); pk_rec(&pk, "launch");
	pk_header(&pk, "dmerge"); pk_rec(&pk, "launch"); pk_end(&pk, 2, NULL, NULL, 0);
	ok(read_buf(&sb, &nrec) == -1 && nrec == 2,
	   "concatenated parts: a part without its end record is refused at the next header");

	RESET();
	pk_header(&pk, "dmerge"); pk_rec(&pk, "launch"); pk_end(&pk, 2, NULL, NULL, 0);
	pk_header(&pk, "dmerge"); pk_end(&pk, 1, NULL, NULL, 0);
	ok(read_buf(&sb, &nrec) == 0 && nrec == 5, "concatenated complete parts are one input");
	/* counts in headers are not trusted before the bytes are there:
	 * an array that claims 2^32 - 1 items is a truncated record, not a
	 * 64 GB allocation (issue 9) */
	RESET();
	pk_header(&pk, "dexec");
	msgpack_pack_map(&pk, 2);
	pk_str(&pk, "t"); pk_str(&pk, "launch");
	pk_str(&pk, "args");
	msgpack_pack_array(&pk, 0xffffffffu);
	msgpack_pack_nil(&pk);
	ok(read_buf(&sb, &nrec) == -1 && nrec == 1, "a count larger than the input is a truncated record");
	RESET();
	pk_header(&pk, "dexec");
	msgpack_pack_map(&pk, 0xffffffffu);
	ok(read_buf(&sb, &nrec) == -1 && nrec == 1, "and so is a map that claims 2^32 - 1 pairs");
	msgpack_sbuffer_destroy(&sb);
#undef RESET

	/* the writer: an end record only for a stage that succeeded */
	size_t n;
	char *b = build_status(two_records, EXIT_TROUBLE, &n);
	msgpack_sbuffer v = { n, b, n };
	ok(read_buf(&v, &nrec) == -1 && nrec == 2, "stream_out_close(2) writes no end record");
	free(b);
	int st[] = { EXIT_OK, EXIT_BUG, EXIT_UNDECIDED };
	for (int i = 0; i < 3; i++) {
		b = build_status(two_records, st[i], &n);
		v = (msgpack_sbuffer){ n, b, n };
		ok(read_buf(&v, &nrec) == 0 && nrec == 3, "stream_out_close(%d) ends the stream", st[i]);
		free(b);
	}

	/* records held in memory and appended count in the part */
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &n);
	struct stream_out *w = stream_out_new(f);
	out_header(w, "obligation", NULL);
	struct stream_out *held = stream_out_memory();
	out_begin(held, "note");
	out_end(held);
	out_begin(w, "output");
	out_end(w);
	stream_out_append(w, held);
	stream_out_close(w, EXIT_OK);
	fclose(f);
	v = (msgpack_sbuffer){ n, buf, n };
	ok(read_buf(&v, &nrec) == 0 && nrec == 4, "held records appended are counted in the end record");
	free(buf);

	/* deep records: the writer's frames move while open (dcat -r, issue 9) */
	b = build(deep, &n);
	msgpack_unpacked u;
	msgpack_unpacked_init(&u);
	size_t off = 0;
	msgpack_unpack_next(&u, b, n, &off);
	ok(msgpack_unpack_next(&u, b, n, &off) == MSGPACK_UNPACK_SUCCESS, "a record 21 levels deep is written");
	const msgpack_object *x = obj_get(&u.data, "x");
	int depth = 0;
	while (x && x->type == MSGPACK_OBJECT_ARRAY && x->via.array.size == 2 &&
	       x->via.array.ptr[0].type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
	       x->via.array.ptr[0].via.u64 == (uint64_t)depth) {
		x = &x->via.array.ptr[1];
		depth++;
	}
	is_int(depth, 19, "and read back whole");
	msgpack_unpacked_destroy(&u);
	free(b);
}

static int read_all(const char *path, int *nrec)
{
	const char *paths[] = { path };
	struct stream_in *in = stream_in_open(paths, 1);
	struct record rec;
	int r;
	*nrec = 0;
	while ((r = stream_in_next(in, &rec)) > 0)
		(*nrec)++;
	stream_in_close(in);
	return r;
}

/* Messages are one write each (diag.h), so that the lines of threads never
 * interleave: count the writes into an unbuffered stream while the reader
 * refuses a record, and while a record's field is reported. */
static int nwrites;
static ssize_t count_write(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	(void)buf;
	nwrites++;
	return (ssize_t)size;
}

static void one_write_per_message(void)
{
	cookie_io_functions_t io = { .write = count_write };
	FILE *f = fopencookie(NULL, "w", io);
	setvbuf(f, NULL, _IONBF, 0);
	diag_set_out(f);
	size_t n;
	char *b = build(no_header, &n);
	char *p = tmpfile_with(b, n);
	int nrec;
	nwrites = 0;
	ok(read_all(p, &nrec) == -1, "a stream without header refused");
	is_int(nwrites, 1, "the reader's message is one write");
	char *c = build(two_records, &n);
	char *q = tmpfile_with(c, n - 1);
	nwrites = 0;
	ok(read_all(q, &nrec) == -1, "a stream cut short refused");
	is_int(nwrites, 1, "and said in one write");
	const char *paths[] = { p };
	unlink(p);
	free(p);
	p = tmpfile_with(c, n);
	paths[0] = p;
	struct stream_in *in = stream_in_open(paths, 1);
	struct record rec;
	bool okf = true;
	stream_in_next(in, &rec);
	stream_in_next(in, &rec);
	nwrites = 0;
	rec_u64(&rec, "missing", &okf);
	ok(!okf, "a missing field reported");
	is_int(nwrites, 1, "by rec_error in one write");
	stream_in_close(in);
	diag_set_out(NULL);
	fclose(f);
	unlink(p);
	unlink(q);
	free(p); free(q); free(b); free(c);
}

int main(void)
{
	diag_set_prog("test-stream");
	size_t n;
	char *bytes = build(two_records, &n);
	char *path = tmpfile_with(bytes, n);

	/* read back and check fields */
	const char *paths[] = { path, path };
	struct stream_in *in = stream_in_open(paths, 2);
	struct record rec;
	struct arena a = ARENA_INIT;
	ok(stream_in_next(in, &rec) == 1 && strcmp(rec.type, "header") == 0, "header first");
	is_str(rec.stream_kind, "trace", "stream kind from header");
	is_str(rec.stream_name, "ref", "stream name from header");
	ok(stream_in_next(in, &rec) == 1 && strcmp(rec.type, "launch") == 0, "launch record");
	bool okf = true;
	is_int(rec_u64(&rec, "launch", &okf), 7, "u64 field");
	is_int(rec_i64(&rec, "neg", &okf), -5, "i64 field");
	ok(rec_f64(&rec, "x", &okf) == 0.1, "f64 field exact");
	is_str(rec_str(&rec, "kernel", &a, &okf), "add", "str field");
	uint32_t na;
	const msgpack_object *args = rec_array(&rec, "args", &na, &okf);
	is_int(na, 3, "array counted by the writer");
	size_t blen = 0;
	ok(args && args[2].type == MSGPACK_OBJECT_MAP && obj_get(&args[2], "raw") &&
	   (blen = obj_get(&args[2], "raw")->via.bin.size) == 3, "nested map with bin");
	uint32_t ne;
	rec_array(&rec, "empty", &ne, &okf);
	is_int(ne, 0, "empty array");
	ok(okf, "no field errors");
	okf = true;
	rec_u64(&rec, "missing", &okf);
	ok(!okf, "missing field reported");
	okf = true;
	rec_u64(&rec, "kernel", &okf);
	ok(!okf, "wrong type reported");
	is_int(rec.index, 1, "record index");
	ok(stream_in_next(in, &rec) == 1 && strcmp(rec.type, "end") == 0, "the end record");
	okf = true;
	is_int(rec_u64(&rec, "records", &okf), 2, "counts the header and the launch");
	const msgpack_object *cnt = rec_get(&rec, "counts");
	ok(cnt && cnt->type == MSGPACK_OBJECT_MAP && cnt->via.map.size == 2 &&
	   obj_get(cnt, "launch") && obj_get(cnt, "launch")->via.u64 == 1, "and each type");
	{
		char *eb = NULL;
		size_t en;
		FILE *ef = open_memstream(&eb, &en);
		struct stream_out *ew = stream_out_new(ef);
		out_raw(ew, &rec);
		stream_out_free(ew);
		fclose(ef);
		is_int(en, 0, "out_raw drops an end record");
		free(eb);
	}
	/* the second file: concatenated streams */
	ok(stream_in_next(in, &rec) == 1 && strcmp(rec.type, "header") == 0 && rec.index == 0,
	   "second input starts again at record 0");
	/* pass-through: re-packing the record gives equal bytes */
	ok(stream_in_next(in, &rec) == 1, "second launch");
	char *pbuf = NULL;
	size_t pn;
	FILE *pf = open_memstream(&pbuf, &pn);
	struct stream_out *pw = stream_out_new(pf);
	out_raw(pw, &rec);
	stream_out_free(pw);
	fclose(pf);
	size_t hdr_len = 0;
	/* find where the launch record starts in the original bytes */
	{
		msgpack_unpacked u;
		msgpack_unpacked_init(&u);
		size_t off = 0;
		msgpack_unpack_next(&u, bytes, n, &off);
		hdr_len = off;
		msgpack_unpacked_destroy(&u);
	}
	ok(pn < n - hdr_len && memcmp(pbuf, bytes + hdr_len, pn) == 0, "out_raw reproduces the record");
	ok(stream_in_next(in, &rec) == 1 && strcmp(rec.type, "end") == 0, "the second end record");
	ok(stream_in_next(in, &rec) == 0, "end of input");
	stream_in_close(in);
	free(pbuf);

	/* truncations at every length fail cleanly: a cut between records
	 * loses the end record */
	int bad = 0;
	for (size_t cut = 1; cut < n; cut++) {
		char *p = tmpfile_with(bytes, cut);
		int nrec;
		int r = read_all(p, &nrec);
		if (r != -1)
			bad++;
		unlink(p);
		free(p);
	}
	is_int(bad, 0, "every truncation is an error");

	int nrec;
	char *b2 = build(bad_version, &n);
	char *p2 = tmpfile_with(b2, n);
	ok(read_all(p2, &nrec) == -1 && nrec == 0, "newer version refused");
	char *b3 = build(no_header, &n);
	char *p3 = tmpfile_with(b3, n);
	ok(read_all(p3, &nrec) == -1, "missing header refused");
	char *p4 = tmpfile_with("", 0);
	ok(read_all(p4, &nrec) == -1, "empty input refused");

	end_records();
	one_write_per_message();

	unlink(path);
	unlink(p2);
	unlink(p3);
	unlink(p4);
	free(path); free(p2); free(p3); free(p4);
	free(bytes); free(b2); free(b3);
	arena_release(&a);
	return done_testing();
}
