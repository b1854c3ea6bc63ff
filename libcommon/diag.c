/*
 * diag.c: messages for people on stderr, exit statuses (see diag.h).
 */
#include "libcommon/diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog = "dirigo";
static bool verbose;
static FILE *out;                 /* NULL: stderr */
static void (*die_hook)(void);

FILE *diag_out(void) { return out ? out : stderr; }
void diag_set_out(FILE *f) { out = f; }
void diag_set_die_hook(void (*hook)(void)) { die_hook = hook; }

void diag_set_prog(const char *name)
{
	const char *slash = strrchr(name, '/');
	prog = slash ? slash + 1 : name;
}

const char *diag_prog(void) { return prog; }
void diag_set_verbose(bool on) { verbose = on; }
bool diag_verbose(void) { return verbose; }

/* One whole line in one write, so messages of threads never interleave. */
static void vmsg(const char *fmt, va_list ap)
{
	char buf[4096];
	int n = snprintf(buf, sizeof buf, "%s: ", prog);
	if (n < 0 || (size_t)n >= sizeof buf)
		n = 0;
	int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof buf - 2)
		len = sizeof buf - 2;
	buf[len++] = '\n';
	buf[len] = 0;
	fputs(buf, diag_out());
}

void warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	if (die_hook)
		die_hook();
	exit(EXIT_TROUBLE);
}

void note(const char *fmt, ...)
{
	if (!verbose && !isatty(2))
		return;
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

static int rank(enum exit_status s)
{
	switch (s) {
	case EXIT_TROUBLE: return 3;
	case EXIT_BUG: return 2;
	case EXIT_UNDECIDED: return 1;
	default: return 0;
	}
}

enum exit_status exit_worst(enum exit_status a, enum exit_status b)
{
	return rank(a) >= rank(b) ? a : b;
}

enum exit_status close_stdout(enum exit_status status)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		warn("write error on standard output: %s", strerror(errno));
		return EXIT_TROUBLE;
	}
	return status;
}
