/*
 * run.h: run a program under the record-only CUDA runtime and collect the
 * trace records it writes.
 */
#ifndef DIRIGO_DTRACE_RUN_H
#define DIRIGO_DTRACE_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The runtime to preload: $DIRIGO_CUDART, else <exe dir>/../lib/
 * libdirigo-cudart.so, else <exe dir>/../lib/dirigo/libdirigo-cudart.so.
 * Returns a heap string, or NULL (message printed) if none exists. */
char *run_find_shim(void);

struct run {
	const char *shim;          /* path of libdirigo-cudart.so */
	char *const *argv;         /* program and its arguments */
	uint64_t max_data;         /* passed to the shim */
	FILE *out;                 /* the shim's records are copied here */
	/* results */
	bool started;              /* the program could be executed */
	int status;                /* exit status, 128+N for signal N */
	int signal;                /* the signal that ended it, or 0 */
	bool truncated;            /* records ended in the middle of one */
	uint64_t records;          /* records copied */
};

/* Runs r->argv with its stdout sent to our stderr, copies every whole
 * record the runtime writes to r->out as it comes, and waits for the
 * program.  Returns false on trouble before or while running (message
 * printed; r->started says whether the program ran). */
bool run_program(struct run *r);

#endif
