/*
 * fuzz-dmerge.c: dmerge's work (dmerge_run) on the input as the stream of
 * two traces.
 */
#include "fuzz.h"

#include "../../dmerge/merge.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init("fuzz-dmerge");
	return 0;
}

static int run(struct stream_in *in, void *user)
{
	(void)user;
	return dmerge_run(in, fz_devnull, false, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_run(data, size, run, NULL);
	return 0;
}
