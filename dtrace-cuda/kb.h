/*
 * kb.h: dtrace-cuda --kernelbench, trace a KernelBench pair (a reference
 * and an optimized program) into two traces ready for dmerge; see
 * dtrace-cuda(1), section KERNELBENCH.
 */
#ifndef DIRIGO_DTRACE_KB_H
#define DIRIGO_DTRACE_KB_H

#include <stdbool.h>
#include <stdint.h>

struct kb {
	const char *ref, *opt;        /* REF.py, OPT.py or OPT.cu */
	const char *dir;              /* -o DIR: DIR/ref.trace, DIR/opt.trace */
	const char *ref_out, *opt_out;/* or these two; neither: both on stdout */
	const char *seed;             /* decimal */
	uint64_t max_data;
	const char *shim;             /* the runtime to preload */
	bool gpu;                     /* over the real runtime (--gpu) */
	bool build_only;              /* build the extension, trace nothing */
	bool compute;                 /* compute every torch op (no trace by shape) */
};

/* The exit status of a side traced by shape that needs values it did not
 * compute (dirigo_trace/shapes.py, shim/poison.c): trace it again,
 * computing. */
#define KB_RETRACE 4

/* Traces one program (main.c's trace_one): returns an exit status. */
typedef int (*kb_tracer)(const char *shim, bool gpu, const char *name, char *const *argv,
                         const char *output, uint64_t max_data, bool unsupported);

/* Builds the optimized program's extension (not traced, cached), then,
 * unless build_only, traces each side with trace: into the files, else
 * both on standard output, the reference's trace first.  Returns the exit
 * status: 2 trouble, else 3 when a side is unsupported, else 0. */
int kb_trace(const struct kb *kb, kb_tracer trace);

#endif
