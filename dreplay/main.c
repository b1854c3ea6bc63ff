/*
 * dreplay: confirm dcheck's witnesses by concrete evaluation and report
 * (dreplay(1)).  Options here; the work is in run.c.
 */
#include "dreplay.h"
#include "libcommon/bigstack.h"
#include "libcommon/deadline.h"
#include "libcommon/diag.h"
#include "libcommon/opt.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>

static const char usage[] =
	"usage: dreplay [--atol X] [--rtol X] [--budget SECONDS] [--whole] [--report FILE]\n"
	"               [--sarif FILE] [--bundle FILE.tar.gz] [--gpu] [-v | --verbose] [FILE...]\n"
	"       dreplay -h | --help\n";

struct job {
	const struct dreplay_opts *o;
	struct stream_in *in;
};

static int job(void *p)
{
	struct job *j = p;
	return dreplay_run(j->o, j->in, stdout);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "atol", required_argument, 0, 'a' },
		{ "rtol", required_argument, 0, 'r' },
		{ "report", required_argument, 0, 'o' },
		{ "sarif", required_argument, 0, 's' },
		{ "bundle", required_argument, 0, 'b' },
		{ "gpu", no_argument, 0, 'g' },
		{ "whole", no_argument, 0, 'W' },
		{ "budget", required_argument, 0, 'B' },
		{ "verbose", no_argument, 0, 'v' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	/* NAN: take the tolerance dcheck used, from the verdict record */
	struct dreplay_opts o = { NAN, NAN, NULL, NULL, NULL, false, false, DREPLAY_DEFAULT_BUDGET,
	                          DEADLINE_NONE };
	double start = deadline_now();
	int c;
	diag_set_prog("dreplay");
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': o.atol = opt_number("--atol", optarg, 0, true); break;
		case 'r': o.rtol = opt_number("--rtol", optarg, 0, true); break;
		case 'o': o.report = optarg; break;
		case 's': o.sarif = optarg; break;
		case 'b': o.bundle = optarg; break;
		case 'g': o.gpu = true; break;
		case 'W': o.whole = true; break;
		case 'B': o.budget = opt_number("--budget", optarg, 0, false); break;
		case 'v': diag_set_verbose(true); break;
		case 'h': opt_usage(usage, EXIT_OK);
		default: opt_usage(usage, EXIT_TROUBLE);
		}
	}
	if (o.gpu) {
		/* Checked before reading: without a GPU the run asked for cannot
		 * happen (trouble, with the driver's reason), and it is not
		 * silently replaced by a CPU replay. */
		char msg[256];
		if (!gpu_probe(msg, sizeof msg)) {
			warn("--gpu: no GPU to rerun the programs on: %s; without --gpu the witnesses are "
			     "replayed on the CPU by the PTX interpreter", msg);
			return close_stdout(EXIT_TROUBLE);
		}
		/* Not yet: replaying the recorded launches through the driver
		 * API (see dreplay(1), BUGS).  Say so rather than fall back. */
		warn("--gpu: a GPU is present, but rerunning the programs on it is not implemented yet; "
		     "without --gpu the witnesses are replayed on the CPU by the PTX interpreter");
		return close_stdout(EXIT_UNDECIDED);
	}
	/* the budget counts from the start: reading the stream is part of it */
	o.deadline = start + o.budget;
	struct stream_in *in = stream_in_open((const char *const *)argv + optind, argc - optind);
	/* on a large stack: resolving a witness's location recurses once per
	 * element it reads (bigstack.h) */
	struct job j = { &o, in };
	enum exit_status status = (enum exit_status)run_big_stack(job, &j);
	stream_in_close(in);
	return close_stdout(status);
}
