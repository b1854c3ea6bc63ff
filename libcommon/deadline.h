/*
 * deadline.h: the wall-clock budgets of the stages (dirigo(7), "Budgets").
 *
 * A deadline is a point on the monotonic clock, in seconds, or
 * DEADLINE_NONE.  A stage computes one from its --budget when it starts
 * and hands it to every long loop it runs: the symbolic executor's steps,
 * back-projection, the PTX interpreter, and the solver (smt.h), whose
 * per-query wall-clock limit is the time left.  Running out is never a
 * verdict: the stage stops, writes what it has and says "timeout".
 */
#ifndef DIRIGO_DEADLINE_H
#define DIRIGO_DEADLINE_H

#include <math.h>
#include <stdbool.h>

#define DEADLINE_NONE INFINITY

/* Seconds on the monotonic clock. */
double deadline_now(void);
/* The deadline seconds from now; seconds < 0 or infinite: DEADLINE_NONE. */
double deadline_in(double seconds);
/* Has deadline d passed?  DEADLINE_NONE never does. */
bool deadline_passed(double d);
/* Milliseconds left before d, at least 1 while it has not passed, 0 once
 * it has; UINT32 max (4294967295) for DEADLINE_NONE. */
unsigned deadline_ms_left(double d);

/* Counts calls and looks at the clock every 'every' of them, so that a
 * tight loop pays for one clock read per batch. */
struct deadline_check {
	double at;                   /* the deadline */
	unsigned every, n;
	bool passed;                 /* sticky once seen */
};
void deadline_check_init(struct deadline_check *c, double at, unsigned every);
static inline bool deadline_tick(struct deadline_check *c)
{
	if (c->passed)
		return true;
	if (++c->n < c->every)
		return false;
	c->n = 0;
	return c->passed = deadline_passed(c->at);
}

#endif
