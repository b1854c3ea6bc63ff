/*
 * fuzz-dexec.c: dexec's work (dexec_run) on the input as an obligation,
 * with small budgets (steps, bundles, solver time) so that one input
 * stays well under a second.
 */
#include "fuzz.h"

#include "libcommon/deadline.h"
#include "../../dexec/run.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init("fuzz-dexec");
	return 0;
}

static int run(struct stream_in *in, void *user)
{
	(void)user;
	struct dx_opts o = {
		.budget_steps = 20000, .max_bundles = 256, .smt_rlimit = 200000,
		.budget = 1, .deadline = deadline_in(1),
	};
	return dexec_run(&o, in, fz_devnull);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_run(data, size, run, NULL);
	return 0;
}
