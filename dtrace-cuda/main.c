/*
 * main.c: dtrace-cuda, run a CUDA program and write its trace
 * (dirigo-trace(5)); see dtrace-cuda(1).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcommon/diag.h"
#include "kb.h"
#include "libcommon/opt.h"
#include "run.h"
#include "libcommon/stream.h"
#include "formats/trace.h"

static const char usage[] =
	"usage: dtrace-cuda [--name NAME] [--gpu | --no-gpu] [--max-data BYTES] [-o FILE | --output FILE]\n"
	"                   -- PROGRAM [ARGS...]\n"
	"       dtrace-cuda --kernelbench [--seed N] [--max-data BYTES] [--compute]\n"
	"                   [-o DIR | --output DIR | --ref-out FILE --opt-out FILE] REF.py OPT.py|OPT.cu\n"
	"       dtrace-cuda --kernelbench --build-only REF.py OPT.py|OPT.cu\n"
	"       dtrace-cuda -h | --help\n";

/* A usage error: the message, then the usage, exit 2. */
static _Noreturn void bad_usage(const char *msg)
{
	warn("%s", msg);
	opt_usage(usage, EXIT_TROUBLE);
}

struct opts {
	const char *name, *output;
	uint64_t max_data;
	int gpu;                  /* 1 --gpu, 0 --no-gpu, -1 unset: see gpu_mode() */
	bool kernelbench, build_only, compute;
	const char *ref_out, *opt_out, *seed;
};

/* Parses the options; returns the index of PROGRAM in argv. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "no-gpu", no_argument, NULL, 'N' },
		{ "gpu", no_argument, NULL, 'G' },
		{ "max-data", required_argument, NULL, 'm' },
		{ "kernelbench", no_argument, NULL, 'K' },
		{ "build-only", no_argument, NULL, 'B' },
		{ "compute", no_argument, NULL, 'C' },
		{ "ref-out", required_argument, NULL, 'R' },
		{ "opt-out", required_argument, NULL, 'P' },
		{ "seed", required_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "+o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': o->name = optarg; break;
		case 'N': o->gpu = 0; break;
		case 'G': o->gpu = 1; break;
		case 'o': o->output = optarg; break;
		case 'K': o->kernelbench = true; break;
		case 'B': o->build_only = true; break;
		case 'C': o->compute = true; break;
		case 'R': o->ref_out = optarg; break;
		case 'P': o->opt_out = optarg; break;
		case 'S':
			/* kept as given: the torch side reads it (a Python int) */
			(void)opt_count("--seed", optarg, 0, UINT64_MAX);
			o->seed = optarg;
			break;
		case 'm': o->max_data = opt_count("--max-data", optarg, 0, UINT64_MAX); break;
		case 'h': opt_usage(usage, EXIT_OK);
		default: opt_usage(usage, EXIT_TROUBLE);
		}
	}
	if (o->kernelbench) {
		if (argc - optind != 2)
			bad_usage("--kernelbench takes a reference and an optimized program");
		if (!o->ref_out != !o->opt_out || (o->output && o->ref_out))
			bad_usage("--kernelbench takes -o DIR, or --ref-out and --opt-out, or neither "
			          "(both traces on standard output)");
		if (o->build_only && (o->output || o->ref_out))
			bad_usage("--build-only writes no trace: it takes no -o, --ref-out or --opt-out");
		return optind;
	}
	if (o->build_only)
		bad_usage("--build-only goes with --kernelbench");
	if (o->compute)
		bad_usage("--compute goes with --kernelbench");
	if (optind >= argc)
		bad_usage("no program to run");
	return optind;
}

/* Says what became of the program; returns the exit status for it.
 * unsupported: status 3 means "unsupported" (the torch recorder's); so it
 * does after a "tunsupported" record of the runtime's (blas.c). */
static int report(const struct run *r, bool unsupported)
{
	const char *prog = r->argv[0];
	if (!r->started)
		return EXIT_TROUBLE;
	/* A side that reads a value not computed ends at once (_exit), with
	 * its records still buffered: kb.c throws that trace away. */
	if (unsupported && !r->signal && r->status == KB_RETRACE)
		return KB_RETRACE;       /* kb.c traces it again, computing */
	if (r->truncated)
		warn("the trace of '%s' ends in the middle of a record", prog);
	if (r->signal) {
		warn("'%s' was killed by signal %d (%s); the trace is written but incomplete",
		     prog, r->signal, strsignal(r->signal));
		return EXIT_TROUBLE;
	}
	if ((unsupported || r->unsupported) && r->status == EXIT_UNDECIDED) {
		warn("'%s' is unsupported (see above); the trace is written", prog);
		return EXIT_UNDECIDED;
	}
	if (r->status != 0) {
		warn("'%s' exited with status %d; the trace is written", prog, r->status);
		return EXIT_TROUBLE;
	}
	return r->truncated ? EXIT_TROUBLE : EXIT_OK;
}

/* Runs argv under the runtime shim and writes its trace, named name, to
 * output (NULL: standard output).  Returns the exit status. */
static int trace_one(const char *shim, bool gpu, const char *name, char *const *argv,
                     const char *output, uint64_t max_data, bool unsupported)
{
	FILE *out = stdout;
	if (output && !(out = fopen(output, "wb"))) {
		warn("cannot open '%s': %s", output, strerror(errno));
		return EXIT_TROUBLE;
	}
	struct stream_out *w = stream_out_new(out);
	struct run r = { .shim = shim, .gpu = gpu, .argv = argv, .max_data = max_data, .out = w };
	trace_write_header(w, name);
	bool ok = run_program(&r);
	int status = report(&r, unsupported);
	/* A side that stops for a value not computed may leave half a
	 * record in the pipe: the trace is thrown away and made again */
	if (!ok && status != KB_RETRACE)
		status = EXIT_TROUBLE;
	/* The end record says the trace is whole: only when the program ran
	 * to its end and everything it did was recorded (dirigo-trace(5)). */
	if (r.started && status != EXIT_TROUBLE) {
		struct trace_end end = { .status = r.status };
		trace_write_end(w, &end);
	}
	status = stream_out_close(w, status);
	if (out != stdout && fclose(out) != 0) {
		warn("write error on '%s': %s", output, strerror(errno));
		status = EXIT_TROUBLE;
	}
	return status;
}

/* Decides the mode: --gpu needs the real runtime and a GPU (else exit 2,
 * saying why); without either option, a GPU is used when /dev/nvidia0
 * exists and the real runtime sees it.  --kernelbench traces on the CPU
 * unless --gpu is given: its torch side is for CPU torch only. */
static bool gpu_mode(const struct opts *o, const char *shim)
{
	char msg[1024];
	if (o->gpu == 0)
		return false;
	if (o->gpu == 1) {
		if (o->kernelbench)
			die("--gpu: --kernelbench over the real CUDA runtime is not implemented yet; "
			    "use --no-gpu");
		if (run_gpu_probe(shim, msg, sizeof msg) != 0)
			die("--gpu: %s; trace on the CPU with --no-gpu", msg);
		return true;
	}
	if (o->kernelbench || access("/dev/nvidia0", F_OK) != 0)
		return false;
	if (run_gpu_probe(shim, msg, sizeof msg) != 0) {
		note("a GPU is present, but %s; tracing on the CPU (--no-gpu)", msg);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	diag_set_prog("dtrace-cuda");
	struct opts o = { .max_data = 1u << 20, .gpu = -1, .seed = "42" };
	int first = parse_opts(argc, argv, &o);
	signal(SIGPIPE, SIG_IGN);

	char *shim = run_find_shim();
	if (!shim)
		return EXIT_TROUBLE;
	bool gpu = gpu_mode(&o, shim);
	int status;
	if (o.kernelbench) {
		struct kb kb = { .ref = argv[first], .opt = argv[first + 1], .dir = o.output,
		                 .ref_out = o.ref_out, .opt_out = o.opt_out, .seed = o.seed,
		                 .max_data = o.max_data, .shim = shim, .gpu = gpu,
		                 .build_only = o.build_only, .compute = o.compute };
		status = kb_trace(&kb, trace_one);
		free(shim);
		return close_stdout(status);
	}
	const char *name = o.name;
	if (!name) {
		const char *slash = strrchr(argv[first], '/');
		name = slash ? slash + 1 : argv[first];
	}
	status = trace_one(shim, gpu, name, argv + first, o.output, o.max_data, false);
	free(shim);
	if (o.output)
		return status;
	return close_stdout(status);
}
