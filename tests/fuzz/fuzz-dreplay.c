/*
 * fuzz-dreplay.c: dreplay's work (dreplay_run) on the input as a verdict
 * stream; the report goes to /dev/null.
 */
#include "fuzz.h"

#include <math.h>

#include "libcommon/deadline.h"

#include "../../dreplay/dreplay.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init("fuzz-dreplay");
	return 0;
}

static int run(struct stream_in *in, void *user)
{
	(void)user;
	struct dreplay_opts o = { NAN, NAN, "/dev/null", NULL, NULL, false, 1, deadline_in(1) };
	return dreplay_run(&o, in, fz_devnull);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_run(data, size, run, NULL);
	return 0;
}
