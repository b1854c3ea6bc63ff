/*
 * bigstack.h: run a piece of work on a thread with a large stack.
 *
 * Resolution (resolve.c) and Z3 recurse over the terms they are given: a
 * chain of a few thousand shared-memory reads, within resolve's depth
 * limit, needs more than the main thread's stack, which is whatever
 * ulimit -s says (8 MB, often less; far less than enough under ASan).
 * The stack is reserved, and only what is used is committed.
 */
#ifndef DIRIGO_BIGSTACK_H
#define DIRIGO_BIGSTACK_H

#include <stddef.h>

#define BIG_STACK_BYTES ((size_t)1 << 30)   /* the stack of a worker thread */

/* fn(arg) on a new thread with a stack of BIG_STACK_BYTES, waited for;
 * its result.  Where no such thread can be made, fn(arg) here. */
int run_big_stack(int (*fn)(void *), void *arg);

#endif
