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
	           "             [--timing] [--cache DIR] [FILE...]\n");
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

/* What dexec writes, which a rerun on its own output replaces: write sets,
 * and the findings and unsupported records of launches (dmerge's, for
 * torch ops and output shapes, name no launch and stay). */
static bool own_record(const struct record *rec)
{
	if (strcmp(rec->type, "writes") == 0)
		return true;
	if (strcmp(rec->type, "unsupported") != 0 && strcmp(rec->type, "finding") != 0)
		return false;
	bool ok = true;
	return rec_u64_opt(rec, "launch", UINT32_MAX, &ok) != UINT32_MAX;
}

int main(int argc, char **argv)
{
	diag_set_prog("dexec");
	struct dx_opts opts = { DX_DEFAULT_STEPS, DX_DEFAULT_BUNDLES, 10000, false };
	enum { O_STEPS = 256, O_BUNDLES, O_SMT, O_TIMING, O_CACHE };
	const char *cache = NULL;
	static const struct option longopts[] = {
		{ "budget-steps", required_argument, NULL, O_STEPS },
		{ "budget-bundles", required_argument, NULL, O_BUNDLES },
		{ "smt-timeout", required_argument, NULL, O_SMT },
		{ "timing", no_argument, NULL, O_TIMING },
		{ "cache", required_argument, NULL, O_CACHE },
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
		case O_CACHE:
			cache = optarg;
			break;
		default:
			usage(stderr);
			return EXIT_TROUBLE;
		}
	}

	struct dx_run run;
	dx_run_init(&run, &opts);
	if (cache && !(run.cache = dx_cache_open(cache, &opts))) {
		dx_run_release(&run);
		return close_stdout(EXIT_TROUBLE);
	}
	struct stream_in *in = stream_in_open((const char *const *)argv + optind, argc - optind);
	struct stream_out *w = stream_out_new(stdout);
	struct record rec;
	int status = EXIT_OK, k;
	while ((k = stream_in_next(in, &rec)) == 1) {
		if (!rec_require_kind(&rec, "obligation", "dmerge")) {
			status = EXIT_TROUBLE;
			goto out;
		}
		if (own_record(&rec))
			continue;
		if (dx_run_take(&run, &rec) < 0) {
			status = EXIT_TROUBLE;
			goto out;
		}
		out_pass(w, &rec, "symbolic", NULL);
	}
	if (k < 0) {
		status = EXIT_TROUBLE;
		goto out;
	}
	status = dx_run_finish(&run, w);
out:
	stream_in_close(in);
	if (stream_out_free(w) < 0)
		status = EXIT_TROUBLE;
	dx_run_release(&run);
	return close_stdout(status);
}
