/*
 * dcat: print dirigo streams as JSON Lines, or (-r) turn JSON Lines back
 * into a stream.  See dcat(1).
 */
#include "convert.h"
#include "libcommon/diag.h"
#include "libcommon/opt.h"
#include "libcommon/stream.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: dcat [FILE...]                    stream -> JSON Lines\n"
	"       dcat -r | --reverse [FILE...]     JSON Lines -> stream\n"
	"       dcat -h | --help\n";

static enum exit_status to_stream(char **files, int n)
{
	struct stream_out *w = stream_out_new(stdout);
	enum exit_status status = EXIT_OK;
	for (int i = 0; i < (n ? n : 1) && status == EXIT_OK; i++) {
		const char *name = n ? files[i] : "-";
		FILE *f = strcmp(name, "-") == 0 ? stdin : fopen(name, "r");
		if (!f) {
			warn("cannot open '%s': %s", name, strerror(errno));
			status = EXIT_TROUBLE;
			break;
		}
		status = json_to_stream(f, f == stdin ? "<stdin>" : name, w);
		if (f != stdin)
			fclose(f);
	}
	if (stream_out_free(w) < 0)
		status = EXIT_TROUBLE;
	return status;
}

static enum exit_status to_json(char **files, int n)
{
	struct stream_in *in = stream_in_open((const char *const *)files, n);
	enum exit_status status = stream_to_json(in, stdout);
	stream_in_close(in);
	return status;
}

int main(int argc, char **argv)
{
	diag_set_prog("dcat");
	bool reverse = false;
	static const struct option longopts[] = {
		{ "reverse", no_argument, 0, 'r' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "rh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': reverse = true; break;
		case 'h': opt_usage(usage, EXIT_OK);
		default: opt_usage(usage, EXIT_TROUBLE);
		}
	}
	if (reverse && isatty(1)) {
		warn("refusing to write a binary stream to a terminal; redirect the output");
		return EXIT_TROUBLE;
	}
	enum exit_status status = reverse ? to_stream(argv + optind, argc - optind)
	                     : to_json(argv + optind, argc - optind);
	return close_stdout(status);
}
