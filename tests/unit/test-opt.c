/*
 * test-opt.c: the numbers of command-line options (libcommon/opt.c).
 */
#include "tap.h"

#include "libcommon/diag.h"
#include "libcommon/opt.h"

#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>

static jmp_buf back;
static void no_exit(void) { longjmp(back, 1); }

int main(void)
{
	diag_set_prog("test-opt");
	uint64_t v = 99;
	ok(opt_parse_count("0", 0, 10, &v) && v == 0, "0 is a count");
	ok(opt_parse_count("1024", 1, 1024, &v) && v == 1024, "the upper bound is in range");
	ok(!opt_parse_count("1025", 1, 1024, &v), "above the range refused");
	ok(!opt_parse_count("0", 1, 1024, &v), "below the range refused");
	ok(opt_parse_count("18446744073709551615", 0, UINT64_MAX, &v) && v == UINT64_MAX,
	   "the largest 64-bit count");
	ok(!opt_parse_count("18446744073709551616", 0, UINT64_MAX, &v), "overflow refused (errno)");
	ok(!opt_parse_count("-1", 0, UINT64_MAX, &v), "a negative count refused");
	ok(!opt_parse_count("+1", 0, UINT64_MAX, &v), "a sign refused");
	ok(!opt_parse_count(" 1", 0, UINT64_MAX, &v), "leading blanks refused");
	ok(!opt_parse_count("12x", 0, UINT64_MAX, &v), "trailing garbage refused");
	ok(!opt_parse_count("", 0, UINT64_MAX, &v), "an empty value refused");
	ok(!opt_parse_count("4294967296", 0, UINT32_MAX, &v), "above a 32-bit range refused");
	is_int(v, UINT64_MAX, "a refused value leaves the result alone");

	double d = 0;
	ok(opt_parse_number("2.5", 0, false, &d) && d == 2.5, "a number");
	ok(opt_parse_number("0", 0, false, &d) && d == 0, "the lower bound is in range");
	ok(opt_parse_number("1e-3", 0, false, &d) && d == 1e-3, "exponent notation");
	ok(!opt_parse_number("-1", 0, false, &d), "below the lower bound refused");
	ok(!opt_parse_number("nan", 0, true, &d), "NaN refused");
	ok(!opt_parse_number("inf", 0, false, &d), "infinity refused where not allowed");
	ok(opt_parse_number("inf", 0, true, &d) && isinf(d), "and accepted where allowed");
	ok(!opt_parse_number("1e999", 0, false, &d), "overflow refused (errno)");
	ok(opt_parse_number("1e-320", 0, false, &d), "a denormal is still a number");
	ok(!opt_parse_number("3s", 0, false, &d), "trailing garbage refused");
	ok(!opt_parse_number("", 0, false, &d), "an empty value refused");
	ok(!opt_parse_number(" 3", 0, false, &d), "leading blanks refused");

	/* the dying forms: the message names the option and the value */
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	diag_set_out(f);
	diag_set_die_hook(no_exit);
	volatile int died = 0;
	if (setjmp(back) == 0)
		opt_count("--jobs", "many", 1, 1024);
	else
		died = 1;
	fflush(f);
	ok(died, "opt_count dies on a bad value");
	is_str(buf, "test-opt: option '--jobs': bad number 'many' (a whole number from 1 to 1024)\n",
	       "and says which option, which value and what is allowed");
	rewind(f);
	died = 0;
	if (setjmp(back) == 0)
		opt_number("--budget", "-2", 0, false);
	else
		died = 1;
	fputc(0, f);
	fflush(f);
	ok(died, "opt_number dies on a bad value");
	is_str(buf, "test-opt: option '--budget': bad number '-2' (a finite number, at least 0)\n",
	       "and says which option, which value and what is allowed");
	ok(opt_count("--seed", "7", 0, UINT64_MAX) == 7 && opt_number("--atol", "0.5", 0, true) == 0.5,
	   "good values come back");
	diag_set_out(NULL);
	diag_set_die_hook(NULL);
	fclose(f);
	free(buf);
	return done_testing();
}
