/*
 * bigstack.c: run a piece of work on a thread with a large stack
 * (bigstack.h).
 */
#include "libcommon/bigstack.h"

#include <pthread.h>

struct call {
	int (*fn)(void *);
	void *arg;
	int result;
};

static void *trampoline(void *p)
{
	struct call *c = p;
	c->result = c->fn(c->arg);
	return NULL;
}

int run_big_stack(int (*fn)(void *), void *arg)
{
	struct call c = { fn, arg, 0 };
	pthread_attr_t at;
	pthread_t th;
	if (pthread_attr_init(&at) != 0)
		return fn(arg);
	int ok = pthread_attr_setstacksize(&at, BIG_STACK_BYTES) == 0 &&
	         pthread_create(&th, &at, trampoline, &c) == 0;
	pthread_attr_destroy(&at);
	if (!ok)
		return fn(arg);
	pthread_join(th, NULL);
	return c.result;
}
