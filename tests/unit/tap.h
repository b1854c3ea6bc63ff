/*
 * tap.h: a minimal TAP producer for the C unit tests (run by prove).
 *
 *	ok(cond, "name %d", i);  is(a, b, "name");  done_testing();
 */
#ifndef DIRIGO_TAP_H
#define DIRIGO_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(a, b, name) do { long long _a = (long long)(a), _b = (long long)(b); \
	if (!ok(_a == _b, "%s", name)) printf("#   got %lld, expected %lld\n", _a, _b); } while (0)
#define is_str(a, b, name) do { const char *_a = (a), *_b = (b); \
	if (!ok(_a && _b && strcmp(_a, _b) == 0, "%s", name)) \
		printf("#   got '%s', expected '%s'\n", _a ? _a : "(null)", _b ? _b : "(null)"); } while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
