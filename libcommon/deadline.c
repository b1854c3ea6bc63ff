/*
 * deadline.c: the monotonic clock behind the stage budgets (deadline.h).
 */
#include "libcommon/deadline.h"

#include <stdint.h>
#include <time.h>

double deadline_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double deadline_in(double seconds)
{
	if (!(seconds >= 0) || isinf(seconds))
		return DEADLINE_NONE;
	return deadline_now() + seconds;
}

bool deadline_passed(double d)
{
	return !isinf(d) && deadline_now() >= d;
}

unsigned deadline_ms_left(double d)
{
	if (isinf(d))
		return UINT32_MAX;
	double left = (d - deadline_now()) * 1e3;
	if (left <= 0)
		return 0;
	if (left < 1)
		return 1;
	return left >= (double)UINT32_MAX ? UINT32_MAX - 1 : (unsigned)left;
}

void deadline_check_init(struct deadline_check *c, double at, unsigned every)
{
	c->at = at;
	c->every = every ? every : 1;
	c->n = 0;
	c->passed = false;
}
