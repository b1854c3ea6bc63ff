/*
 * fuzz-dcat.c: dcat both ways (dcat/convert.c).  The input is read as a
 * stream and printed as JSON Lines; the JSON it printed is turned back
 * into a stream, which must read back as the same records.  And the input
 * itself is read as JSON Lines (dcat -r).
 */
#include "fuzz.h"

#include <string.h>

#include "../../dcat/convert.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init("fuzz-dcat");
	return 0;
}

static int to_json(struct stream_in *in, void *user)
{
	return stream_to_json(in, user);
}

static int count(struct stream_in *in, void *user)
{
	struct record rec;
	int r, n = 0;
	while ((r = stream_in_next(in, &rec)) > 0)
		n++;
	*(int *)user = n;
	return r < 0 ? EXIT_TROUBLE : EXIT_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* stream -> JSON -> stream */
	char *json = NULL;
	size_t jlen = 0;
	FILE *jf = open_memstream(&json, &jlen);
	int st = fz_run(data, size, to_json, jf);
	fclose(jf);
	if (st == EXIT_OK) {
		FILE *f = fz_open((const uint8_t *)json, jlen);
		struct stream_out *w = stream_out_memory();
		char *bin = NULL;
		size_t blen = 0;
		FILE *bf = open_memstream(&bin, &blen);
		struct stream_out *bw = stream_out_new(bf);
		if (setjmp(fz_jmp) == 0 && json_to_stream(f, "json", bw) != EXIT_OK)
			abort();        /* dcat printed what dcat -r refuses */
		stream_out_free(bw);
		fclose(bf);
		stream_out_free(w);
		fclose(f);
		int n0 = 0, n1 = 0;
		fz_run(data, size, count, &n0);
		if (fz_run((const uint8_t *)bin, blen, count, &n1) != EXIT_OK || n0 != n1)
			abort();        /* the round trip lost or broke records */
		free(bin);
	}
	free(json);

	/* the input as JSON Lines */
	FILE *f = fz_open(data, size);
	struct stream_out *w = stream_out_memory();
	if (setjmp(fz_jmp) == 0)
		json_to_stream(f, "fuzz", w);
	stream_out_free(w);
	fclose(f);
	return 0;
}
