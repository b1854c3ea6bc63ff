/*
 * main.c: dexec, the symbolic executor of kernel launches (dexec(1)).
 * Reads an obligation stream, passes every record through, and appends
 * for each launch its write set (or why it is unsupported) and findings.
 */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deadline.h"
#include "diag.h"
#include "run.h"
#include "stream.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: dexec [-v] [--budget SECONDS] [--budget-steps N] [--budget-bundles N]\n"
	           "             [--smt-rlimit N] [--smt-timeout MS] [--timing] [FILE...]\n");
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || x == 0)
		return false;
	*v = x;
	return true;
}

/* 0 allowed (no limit), unlike parse_u64. */
static bool parse_count(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		return false;
	*v = x;
	return true;
}

/* A budget in seconds: a finite number >= 0. */
static bool parse_seconds(const char *s, double *v)
{
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || end == s || *end || !(x >= 0) || isinf(x))
		return false;
	*v = x;
	return true;
}

int main(int argc, char **argv)
{
	diag_set_prog("dexec");
	double start = deadline_now();
	struct dx_opts opts = {
		.budget_steps = DX_DEFAULT_STEPS, .max_bundles = DX_DEFAULT_BUNDLES,
		.smt_timeout_ms = 0, .smt_rlimit = DX_DEFAULT_RLIMIT, .timing = false,
		.budget = DX_DEFAULT_BUDGET, .deadline = DEADLINE_NONE,
	};
	enum { O_STEPS = 256, O_BUNDLES, O_SMT, O_RLIMIT, O_TIMING, O_BUDGET };
	static const struct option longopts[] = {
		{ "budget-steps", required_argument, NULL, O_STEPS },
		{ "budget-bundles", required_argument, NULL, O_BUNDLES },
		{ "smt-timeout", required_argument, NULL, O_SMT },
		{ "smt-rlimit", required_argument, NULL, O_RLIMIT },
		{ "timing", no_argument, NULL, O_TIMING },
		{ "budget", required_argument, NULL, O_BUDGET },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	uint64_t v;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			diag_set_verbose(true);
			break;
		case 'h':
			usage(stdout);
			return close_stdout(EXIT_OK);
		case O_STEPS:
		case O_BUNDLES:
		case O_SMT:
			if (!parse_u64(optarg, &v) || (c != O_STEPS && v > UINT32_MAX)) {
				warn("bad number '%s' for --%s", optarg, longopts[c - O_STEPS].name);
				return EXIT_TROUBLE;
			}
			if (c == O_STEPS)
				opts.budget_steps = v;
			else if (c == O_BUNDLES)
				opts.max_bundles = (uint32_t)v;
			else
				opts.smt_timeout_ms = (unsigned)v;
			break;
		case O_RLIMIT:
			if (!parse_count(optarg, &v)) {
				warn("bad number '%s' for --smt-rlimit", optarg);
				return EXIT_TROUBLE;
			}
			opts.smt_rlimit = v;
			break;
		case O_BUDGET:
			if (!parse_seconds(optarg, &opts.budget)) {
				warn("bad number of seconds '%s' for --budget", optarg);
				return EXIT_TROUBLE;
			}
			break;
		case O_TIMING:
			opts.timing = true;
			break;
		default:
			usage(stderr);
			return EXIT_TROUBLE;
		}
	}

	/* the budget counts from the start: reading the stream is part of it */
	opts.deadline = start + opts.budget;
	struct stream_in *in = stream_in_open((const char *const *)argv + optind, argc - optind);
	int status = dexec_run(&opts, in, stdout);
	stream_in_close(in);
	return close_stdout(status);
}
