/*
 * opt.c: numbers given to command-line options (see opt.h).
 */
#include "libcommon/opt.h"

#include "libcommon/diag.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

bool opt_parse_count(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	/* strtoull skips blanks and accepts a sign ("-1" is a huge number) */
	if (!s || !isdigit((unsigned char)s[0]))
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

uint64_t opt_count(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	uint64_t v;
	if (opt_parse_count(s, lo, hi, &v))
		return v;
	if (hi == UINT64_MAX)
		die("option '%s': bad number '%s' (a whole number, at least %" PRIu64 ")", opt, s, lo);
	die("option '%s': bad number '%s' (a whole number from %" PRIu64 " to %" PRIu64 ")", opt, s,
	    lo, hi);
}

bool opt_parse_number(const char *s, double lo, bool inf_ok, double *v)
{
	if (!s || !*s || isspace((unsigned char)s[0]))
		return false;
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	/* ERANGE also for an underflow to 0 or a denormal: still a number */
	if ((errno && !(errno == ERANGE && fabs(x) <= 1.0)) || *end || !(x >= lo) ||
	    (!inf_ok && isinf(x)))
		return false;
	*v = x;
	return true;
}

double opt_number(const char *opt, const char *s, double lo, bool inf_ok)
{
	double v;
	if (opt_parse_number(s, lo, inf_ok, &v))
		return v;
	die("option '%s': bad number '%s' (a %snumber, at least %g)", opt, s, inf_ok ? "" : "finite ",
	    lo);
}

void opt_usage(const char *text, int status)
{
	if (status == EXIT_OK) {
		fputs(text, stdout);
		exit(close_stdout(EXIT_OK));
	}
	fputs(text, stderr);
	exit(status);
}
