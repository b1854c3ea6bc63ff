/*
 * fuzz-dcheck.c: dcheck's work (dcheck_run) on the input as a symbolic
 * stream: one worker, a few locations, small solver and time budgets.
 */
#include "fuzz.h"

#include <string.h>

#include "libcommon/axioms.h"
#include "libcommon/deadline.h"
#include "../../dcheck/dcheck.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init("fuzz-dcheck");
	return 0;
}

static int run(struct stream_in *in, void *user)
{
	(void)user;
	struct dcheck_opts o;
	memset(&o, 0, sizeof o);
	o.budget = 0.5;
	o.min_locations = 2;
	o.max_locations = 4;
	o.atol = o.rtol = 1e-2;
	o.order = ORDER_HEURISTIC;
	o.axioms = AX_DEFAULT;
	o.smt_timeout_ms = 100;
	o.smt_rlimit = 200000;
	o.jobs = 1;
	o.deadline = deadline_in(o.budget);
	return dcheck_run(&o, in, fz_devnull);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_run(data, size, run, NULL);
	return 0;
}
