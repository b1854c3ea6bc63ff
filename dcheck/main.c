/*
 * dcheck: check an optimized program against its reference one output
 * location at a time (dcheck(1)).  Options here; the work is in run.c.
 */
#include "libcommon/axioms.h"
#include "dcheck.h"
#include "libcommon/deadline.h"
#include "libcommon/diag.h"
#include "libcommon/opt.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: dcheck [--budget SECONDS | --all] [--min-locations N] [--max-locations N]\n"
	"              [--order heuristic|sequential|random] [--seed N] [-j N | --jobs N] [--shard I/N]\n"
	"              [--atol X] [--rtol X] [--axioms LIST|none] [--smt-timeout MS] [--smt-rlimit N]\n"
	"              [-k | --keep-going] [--no-value-numbering] [--timing] [-v | --verbose] [FILE...]\n"
	"       dcheck --merge FILE...\n"
	"       dcheck -h | --help\n";

static void shard_arg(const char *s, struct dcheck_opts *o)
{
	unsigned i, n;
	char end;
	if (sscanf(s, "%u/%u%c", &i, &n, &end) != 2 || n == 0 || i >= n)
		die("option '--shard': bad value '%s' (I/N with 0 <= I < N)", s);
	o->shard = i;
	o->nshards = n;
}

int main(int argc, char **argv)
{
	enum { O_ORDER = 256, O_ALL, O_SHARD, O_MERGE, O_AXIOMS, O_SMT_TIMEOUT, O_SMT_RLIMIT, O_TIMING, O_NO_VNUM };
	static const struct option longopts[] = {
		{ "budget", required_argument, 0, 'b' },
		{ "min-locations", required_argument, 0, 'm' },
		{ "max-locations", required_argument, 0, 'M' },
		{ "seed", required_argument, 0, 's' },
		{ "atol", required_argument, 0, 'a' },
		{ "rtol", required_argument, 0, 'r' },
		{ "keep-going", no_argument, 0, 'k' },
		{ "jobs", required_argument, 0, 'j' },
		{ "order", required_argument, 0, O_ORDER },
		{ "all", no_argument, 0, O_ALL },
		{ "shard", required_argument, 0, O_SHARD },
		{ "merge", no_argument, 0, O_MERGE },
		{ "axioms", required_argument, 0, O_AXIOMS },
		{ "smt-timeout", required_argument, 0, O_SMT_TIMEOUT },
		{ "smt-rlimit", required_argument, 0, O_SMT_RLIMIT },
		{ "timing", no_argument, 0, O_TIMING },
		{ "no-value-numbering", no_argument, 0, O_NO_VNUM },
		{ "verbose", no_argument, 0, 'v' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct dcheck_opts o;
	memset(&o, 0, sizeof o);
	o.budget = 60.0;
	o.min_locations = 5;
	o.atol = o.rtol = 1e-2;
	o.order = ORDER_HEURISTIC;
	o.axioms = AX_DEFAULT;
	o.smt_timeout_ms = 0;
	o.smt_rlimit = DCHECK_DEFAULT_RLIMIT;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o.jobs = ncpu > 0 ? (unsigned)ncpu : 1;
	double start = deadline_now();
	bool merge = false, budget_given = false;
	int c;
	diag_set_prog("dcheck");
	while ((c = getopt_long(argc, argv, "j:kvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o.budget = opt_number("--budget", optarg, 0, true); budget_given = true; break;
		case 'm': o.min_locations = opt_count("--min-locations", optarg, 0, UINT64_MAX); break;
		case 'M': o.max_locations = opt_count("--max-locations", optarg, 0, UINT64_MAX); break;
		case 's': o.seed = opt_count("--seed", optarg, 0, UINT64_MAX); break;
		case 'a': o.atol = opt_number("--atol", optarg, 0, true); break;
		case 'r': o.rtol = opt_number("--rtol", optarg, 0, true); break;
		case 'k': o.keep_going = true; break;
		case O_NO_VNUM: o.no_vnum = true; break;
		case 'j': o.jobs = (unsigned)opt_count("--jobs", optarg, 1, 1024); break;
		case O_ORDER: {
			int k = order_parse(optarg);
			if (k < 0)
				die("option '--order': unknown order '%s' (heuristic, sequential or random)", optarg);
			o.order = (enum order_kind)k;
			break;
		}
		case O_ALL: o.all = true; break;
		case O_SHARD: shard_arg(optarg, &o); break;
		case O_MERGE: merge = true; break;
		case O_AXIOMS: {
			const char *bad;
			int m = ax_parse(optarg, &bad);
			if (m < 0)
				die("option '--axioms': unknown axioms '%.*s' (gelu-tanh, fast-math, all or none)",
				    (int)strcspn(bad, ","), bad);
			o.axioms = (unsigned)m;
			break;
		}
		case O_SMT_TIMEOUT:
			o.smt_timeout_ms = (unsigned)opt_count("--smt-timeout", optarg, 0, UINT_MAX);
			break;
		case O_SMT_RLIMIT: o.smt_rlimit = opt_count("--smt-rlimit", optarg, 0, UINT64_MAX); break;
		case O_TIMING: o.timing = true; break;
		case 'v': diag_set_verbose(true); break;
		case 'h': opt_usage(usage, EXIT_OK);
		default: opt_usage(usage, EXIT_TROUBLE);
		}
	}
	if (merge)
		return close_stdout(dcheck_merge((const char *const *)argv + optind, argc - optind));
	if (o.all) {
		if (budget_given)
			die("options '--all' and '--budget' exclude each other");
		o.budget = -1;
		o.max_locations = 0;
	}
	/* the budget counts from the start: reading the stream is part of it */
	o.deadline = o.budget >= 0 ? start + o.budget : DEADLINE_NONE;
	struct stream_in *in = stream_in_open((const char *const *)argv + optind, argc - optind);
	enum exit_status status = dcheck_run(&o, in, stdout);
	stream_in_close(in);
	return close_stdout(status);
}
