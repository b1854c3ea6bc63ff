/*
 * dmerge: merge the traces of a reference and an optimized program into one
 * equivalence obligation.  See dmerge(1).
 */
#include "libcommon/diag.h"
#include "merge.h"
#include "libcommon/opt.h"
#include "libcommon/stream.h"

#include <getopt.h>

static const char usage[] =
	"usage: dmerge [-v | --verbose] [--trim | --no-trim] [--tails | --no-tails]\n"
	"              [REF.trace OPT.trace | -]\n"
	"       cat ref.trace opt.trace | dmerge > x.obl\n"
	"       dmerge -h | --help\n";

int main(int argc, char **argv)
{
	diag_set_prog("dmerge");
	static const struct option longopts[] = {
		{ "verbose", no_argument, 0, 'v' },
		{ "no-trim", no_argument, 0, 'T' },
		{ "trim", no_argument, 0, 't' },
		{ "no-tails", no_argument, 0, 'L' },
		{ "tails", no_argument, 0, 'l' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	/* Off by default: a witness that sets a trimmed result cannot yet be
	 * mapped back to the programs' inputs, so it could not be confirmed. */
	/* Tails off by default too: a difference at a cut is unknown, so a
	 * bug that checking the output itself would confirm is lost. */
	bool trim = false, tails = false;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v': diag_set_verbose(true); break;
		case 'T': trim = false; break;
		case 't': trim = true; break;
		case 'L': tails = false; break;
		case 'l': tails = true; break;
		case 'h': opt_usage(usage, EXIT_OK);
		default: opt_usage(usage, EXIT_TROUBLE);
		}
	}
	struct stream_in *in = stream_in_open((const char *const *)argv + optind, argc - optind);
	enum exit_status status = dmerge_run(in, stdout, trim, tails);
	stream_in_close(in);
	return close_stdout(status);
}
