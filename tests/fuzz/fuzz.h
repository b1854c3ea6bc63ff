/*
 * fuzz.h: what every libFuzzer harness of tests/fuzz shares (see README).
 *
 * A harness feeds one input to one reader or stage function, as a stream
 * read from memory, with messages sent nowhere and output to /dev/null.
 * die() (bad input that a stage gives up on with exit 2) returns to the
 * harness through fz_run instead of exiting, so that the next input runs;
 * anything else that ends the input early (a signal, a sanitizer report,
 * exit) is a finding.
 */
#ifndef DIRIGO_FUZZ_H
#define DIRIGO_FUZZ_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "libcommon/diag.h"
#include "libcommon/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static jmp_buf fz_jmp;
static FILE *fz_devnull;

static void fz_die(void) { longjmp(fz_jmp, 1); }

/* Once per process: messages to /dev/null (FUZZ_VERBOSE=1 keeps them). */
static void fz_init(const char *prog)
{
	diag_set_prog(prog);
	fz_devnull = fopen("/dev/null", "w");
	if (!fz_devnull)
		abort();
	if (!getenv("FUZZ_VERBOSE"))
		diag_set_out(fz_devnull);
	diag_set_die_hook(fz_die);
}

/* The input as an open file (fmemopen does not take empty buffers). */
static FILE *fz_open(const uint8_t *data, size_t size)
{
	static const uint8_t none[1];
	FILE *f = fmemopen((void *)(size ? data : none), size ? size : 1, "rb");
	if (!f)
		abort();
	if (!size)
		fgetc(f);   /* at the end */
	return f;
}

/* Runs fn(in, user) over the input as a stream named "fuzz"; die() inside
 * it returns here (memory it held is leaked: the harness disables leak
 * checks for such inputs by design, see README). */
static int fz_run(const uint8_t *data, size_t size, int (*fn)(struct stream_in *, void *), void *user)
{
	FILE *f = fz_open(data, size);
	struct stream_in *in = stream_in_open_file(f, "fuzz");
	volatile int st = EXIT_TROUBLE;
	if (setjmp(fz_jmp) == 0)
		st = fn(in, user);
	stream_in_close(in);
	fclose(f);
	return st;
}

#endif
