/*
 * test-stream.c: the record stream reader and writer (libcommon/stream).
 */
#include "tap.h"

#include "diag.h"
#include "stream.h"

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
	stream_out_free(w);
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
	ok(pn == n - hdr_len && memcmp(pbuf, bytes + hdr_len, pn) == 0, "out_raw reproduces the record");
	ok(stream_in_next(in, &rec) == 0, "end of input");
	stream_in_close(in);
	free(pbuf);

	/* truncations at every length but the record boundary fail cleanly */
	int bad = 0;
	for (size_t cut = 1; cut < n; cut++) {
		if (cut == hdr_len)
			continue;
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

	unlink(path);
	unlink(p2);
	unlink(p3);
	unlink(p4);
	free(path); free(p2); free(p3); free(p4);
	free(bytes); free(b2); free(b3);
	arena_release(&a);
	return done_testing();
}
