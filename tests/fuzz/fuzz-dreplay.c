/*
 * fuzz-dreplay.c: dreplay's work (dreplay_run) on the input as a verdict
 * stream; the report goes to /dev/null.  On a large stack, as dreplay
 * runs it (bigstack.h): resolution recurses once per element it reads.
 */
#include "fuzz.h"

#include <math.h>

#include "libcommon/bigstack.h"
#include "libcommon/deadline.h"

#include "../../dreplay/dreplay.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init("fuzz-dreplay");
	return 0;
}

struct job { struct dreplay_opts *o; struct stream_in *in; };

static int job(void *arg)
{
	struct job *j = arg;
	return dreplay_run(j->o, j->in, fz_devnull);
}

static int run(struct stream_in *in, void *user)
{
	(void)user;
	struct dreplay_opts o = { .atol = NAN, .rtol = NAN, .report = "/dev/null", .budget = 1,
	                          .deadline = deadline_in(1) };
	struct job j = { &o, in };
	return run_big_stack(job, &j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_run(data, size, run, NULL);
	return 0;
}
