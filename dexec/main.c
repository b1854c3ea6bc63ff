/*
 * main.c: dexec, the symbolic executor of kernel launches (dexec(1)).
 * Reads an obligation stream, passes every record through, and appends
 * for each launch its write set (or why it is unsupported) and findings.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "run.h"
#include "stream.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: dexec [-v] [--budget-steps N] [--budget-bundles N] [--smt-timeout MS]\n"
	           "             [--timing] [FILE...]\n");
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

int main(int argc, char **argv)
{
	diag_set_prog("dexec");
	struct dx_opts opts = { DX_DEFAULT_STEPS, DX_DEFAULT_BUNDLES, 10000, false, NULL };
	enum { O_STEPS = 256, O_BUNDLES, O_SMT, O_TIMING };
	static const struct option longopts[] = {
		{ "budget-steps", required_argument, NULL, O_STEPS },
		{ "budget-bundles", required_argument, NULL, O_BUNDLES },
		{ "smt-timeout", required_argument, NULL, O_SMT },
		{ "timing", no_argument, NULL, O_TIMING },
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
		case O_TIMING:
			opts.timing = true;
			break;
		default:
			usage(stderr);
			return EXIT_TROUBLE;
		}
	}

	struct stream_in *in = stream_in_open((const char *const *)argv + optind, argc - optind);
	int status = dexec_run(&opts, in, stdout);
	stream_in_close(in);
	return close_stdout(status);
}
