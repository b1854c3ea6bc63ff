/*
 * diag.h: exit statuses and messages for people.
 *
 * Every message goes to stderr as one line "PROG: message", lowercase, no
 * final period, the failing thing first.  The exit statuses are those of
 * dirigo(7), like diff(1) extended.
 */
#ifndef DIRIGO_DIAG_H
#define DIRIGO_DIAG_H

#include <stdbool.h>
#include <stdio.h>

enum exit_status {
	EXIT_OK = 0,          /* nothing wrong found */
	EXIT_BUG = 1,         /* a bug was found (here or upstream) */
	EXIT_TROUBLE = 2,     /* usage, bad input, internal error */
	EXIT_UNDECIDED = 3,   /* unsupported feature, or budget spent too early */
};

/* Set once by main; used as the message prefix. */
void diag_set_prog(const char *name);
const char *diag_prog(void);

void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the message and exits with EXIT_TROUBLE. */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* For progress lines: printed only when verbose or stderr is a terminal. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag_set_verbose(bool on);
bool diag_verbose(void);

/* Where messages go (stderr unless set otherwise, for a fuzz harness),
 * and a function die calls instead of exiting (a harness that goes on with
 * the next input; it must not return). */
FILE *diag_out(void);
void diag_set_out(FILE *f);
void diag_set_die_hook(void (*hook)(void));

/* Combine two statuses into the one that describes both: trouble beats bug
 * beats undecided beats ok. */
enum exit_status exit_worst(enum exit_status a, enum exit_status b);

/* Close stdout and report a failed write (ENOSPC, EPIPE) as trouble.
 * Returns the status to exit with. */
enum exit_status close_stdout(enum exit_status status);

#endif
