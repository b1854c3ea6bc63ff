/*
 * opt.h: numbers given to command-line options, parsed one way for every
 * tool: the whole value must be a number (no trailing characters, no sign
 * where a count is asked for), within its range, with errno checked.
 *
 * opt_count and opt_number print "PROG: option '--OPT': bad number 'VALUE'
 * (what is allowed)" and exit with EXIT_TROUBLE when the value does not
 * fit (die, diag.h); opt_parse_count and opt_parse_number are the checks
 * alone, for callers that report on their own.
 */
#ifndef DIRIGO_OPT_H
#define DIRIGO_OPT_H

#include <stdbool.h>
#include <stdint.h>

/* A decimal whole number in [lo, hi]. */
bool opt_parse_count(const char *s, uint64_t lo, uint64_t hi, uint64_t *v);
uint64_t opt_count(const char *opt, const char *s, uint64_t lo, uint64_t hi);

/* A number >= lo (strtod syntax); infinity only when inf_ok; never NaN. */
bool opt_parse_number(const char *s, double lo, bool inf_ok, double *v);
double opt_number(const char *opt, const char *s, double lo, bool inf_ok);

/* The one usage style: every tool keeps its text in a static "usage: ..."
 * string that names each of its options (long and short forms, those of
 * its man page's OPTIONS) and prints it with opt_usage: on standard output
 * and exit 0 for -h/--help (status EXIT_OK), on standard error and exit
 * with status otherwise. */
_Noreturn void opt_usage(const char *text, int status);

#endif
