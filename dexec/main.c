/*
 * main.c: dexec, the symbolic executor of kernel launches (dexec(1)).
 * Reads an obligation stream, passes every record through, and appends
 * for each launch its write set (or why it is unsupported) and findings.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/deadline.h"
#include "libcommon/diag.h"
#include "libcommon/opt.h"
#include "run.h"
#include "libcommon/stream.h"

static const char usage[] =
	"usage: dexec [-v | --verbose] [--budget SECONDS] [--budget-steps N] [--budget-bundles N]\n"
	"             [--smt-rlimit N] [--smt-timeout MS] [--timing] [--cache DIR] [FILE...]\n"
	"       dexec -h | --help\n";

int main(int argc, char **argv)
{
	diag_set_prog("dexec");
	double start = deadline_now();
	struct dx_opts opts = {
		.budget_steps = DX_DEFAULT_STEPS, .max_bundles = DX_DEFAULT_BUNDLES,
		.smt_timeout_ms = 0, .smt_rlimit = DX_DEFAULT_RLIMIT, .timing = false,
		.budget = DX_DEFAULT_BUDGET, .deadline = DEADLINE_NONE, .cache = NULL,
	};
	enum { O_STEPS = 256, O_BUNDLES, O_SMT, O_RLIMIT, O_TIMING, O_BUDGET, O_CACHE };
	static const struct option longopts[] = {
		{ "budget-steps", required_argument, NULL, O_STEPS },
		{ "budget-bundles", required_argument, NULL, O_BUNDLES },
		{ "smt-timeout", required_argument, NULL, O_SMT },
		{ "smt-rlimit", required_argument, NULL, O_RLIMIT },
		{ "timing", no_argument, NULL, O_TIMING },
		{ "budget", required_argument, NULL, O_BUDGET },
		{ "cache", required_argument, NULL, O_CACHE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v': diag_set_verbose(true); break;
		case 'h': opt_usage(usage, EXIT_OK);
		case O_STEPS: opts.budget_steps = opt_count("--budget-steps", optarg, 1, UINT64_MAX); break;
		case O_BUNDLES:
			opts.max_bundles = (uint32_t)opt_count("--budget-bundles", optarg, 1, UINT32_MAX);
			break;
		case O_SMT:
			opts.smt_timeout_ms = (unsigned)opt_count("--smt-timeout", optarg, 1, UINT32_MAX);
			break;
		case O_RLIMIT: opts.smt_rlimit = opt_count("--smt-rlimit", optarg, 0, UINT64_MAX); break;
		case O_BUDGET: opts.budget = opt_number("--budget", optarg, 0, false); break;
		case O_TIMING: opts.timing = true; break;
		case O_CACHE: opts.cache = optarg; break;
		default: opt_usage(usage, EXIT_TROUBLE);
		}
	}

	/* the budget counts from the start: reading the stream is part of it */
	opts.deadline = start + opts.budget;
	struct stream_in *in = stream_in_open((const char *const *)argv + optind, argc - optind);
	enum exit_status status = dexec_run(&opts, in, stdout);
	stream_in_close(in);
	return close_stdout(status);
}
