/*
 * run.h: run a program under the CUDA runtime shim (record-only, or over
 * the real runtime on a GPU) and collect the trace records it writes.
 */
#ifndef DIRIGO_DTRACE_RUN_H
#define DIRIGO_DTRACE_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libcommon/stream.h"

/* The runtime to preload: $DIRIGO_CUDART, else <exe dir>/../lib/
 * libdirigo-cudart.so, else <exe dir>/../lib/dirigo/libdirigo-cudart.so.
 * Returns a heap string, or NULL (message printed) if none exists. */
char *run_find_shim(void);

/* Whether the shim can trace over the real runtime here: dlopens the shim
 * in a child process and asks it (dirigo_trace_gpu_probe).  Returns 0 when
 * the real libcudart loads and sees a GPU, 1 when it does not load, 2 when
 * it sees no GPU, 3 when the shim cannot be asked; msg (cap bytes) says
 * why, or names the real runtime. */
int run_gpu_probe(const char *shim, char *msg, size_t cap);

struct run {
	const char *shim;          /* path of libdirigo-cudart.so */
	bool gpu;                  /* forward to the real runtime (--gpu) */
	char *const *argv;         /* program and its arguments */
	uint64_t max_data;         /* passed to the shim */
	struct stream_out *out;    /* the shim's records are copied here */
	/* results */
	bool started;              /* the program could be executed */
	int status;                /* exit status, 128+N for signal N */
	int signal;                /* the signal that ended it, or 0 */
	bool truncated;            /* records ended in the middle of one */
	bool unsupported;          /* a "tunsupported" record came: the
	                              runtime met a call it cannot record */
	uint64_t records;          /* records copied */
};

/* Runs r->argv with its stdout sent to our stderr, copies every whole
 * record the runtime writes to r->out as it comes, and waits for the
 * program.  Returns false on trouble before or while running (message
 * printed; r->started says whether the program ran). */
bool run_program(struct run *r);

#endif
