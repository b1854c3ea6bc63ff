/*
 * dcheck: check an optimized program against its reference one output
 * location at a time (dcheck(1)).  Options here; the work is in run.c.
 */
#include "dcheck.h"
#include "diag.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: dcheck [--budget SECONDS] [--min-locations N] [--max-locations N] [--seed N]\n"
	"              [--atol X] [--rtol X] [--keep-going] [-v] [FILE...]\n";

static double num(const char *opt, const char *s, double lo)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo))
		die("option '%s': bad number '%s'", opt, s);
	return v;
}

static uint64_t count(const char *opt, const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		die("option '%s': bad count '%s'", opt, s);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "budget", required_argument, 0, 'b' },
		{ "min-locations", required_argument, 0, 'm' },
		{ "max-locations", required_argument, 0, 'M' },
		{ "seed", required_argument, 0, 's' },
		{ "atol", required_argument, 0, 'a' },
		{ "rtol", required_argument, 0, 'r' },
		{ "keep-going", no_argument, 0, 'k' },
		{ "verbose", no_argument, 0, 'v' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct dcheck_opts o = { 60.0, 5, 0, 0, 1e-2, 1e-2, false };
	int c;
	diag_set_prog("dcheck");
	while ((c = getopt_long(argc, argv, "kvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o.budget = num("--budget", optarg, 0); break;
		case 'm': o.min_locations = count("--min-locations", optarg); break;
		case 'M': o.max_locations = count("--max-locations", optarg); break;
		case 's': o.seed = count("--seed", optarg); break;
		case 'a': o.atol = num("--atol", optarg, 0); break;
		case 'r': o.rtol = num("--rtol", optarg, 0); break;
		case 'k': o.keep_going = true; break;
		case 'v': diag_set_verbose(true); break;
		case 'h': fputs(usage, stdout); return close_stdout(EXIT_OK);
		default: fputs(usage, stderr); return EXIT_TROUBLE;
		}
	}
	int status = dcheck_run(&o, (const char *const *)argv + optind, argc - optind);
	return close_stdout(status);
}
