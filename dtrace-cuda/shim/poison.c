/*
 * poison.c: catch reads of values a trace by shape never computed.
 *
 * While tracing by shape (dtrace-cuda(1), --kernelbench), the torch
 * recorder does not compute torch ops: their outputs live in memory mapped
 * with no access (PROT_NONE), whose ranges it registers here.  A program
 * that reads such a value anyway (Tensor.tolist(), numpy(), a host read in
 * an extension, a cudaMemcpy out of a tensor) faults on it; the handler
 * sees that the address lies in a registered range, says so, and ends the
 * process with status DIRIGO_RETRACE (4), which tells dtrace-cuda to trace
 * the program again computing every op.  A fault anywhere else is handed
 * to the handler that was there before (or the default action).
 *
 *   dirigo_trace_poison(base, bytes)   registers [base, base+bytes); 0, or
 *                                      -1 when it cannot (no memory)
 *
 * The recorder registers a few large regions it reserves and carves its
 * results out of, and keeps them to the end, so ranges are never taken
 * back.  The registry is a chain of fixed blocks that only grows, so the
 * handler can walk it at any moment without a lock; a slot is free when
 * its base is 0.  The recorder calls it holding Python's GIL, one call at
 * a time.
 */
#include "shim.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIRIGO_RETRACE 4
#define SLOTS 1024

struct range {
	uintptr_t base, end;
};

struct block {
	struct range r[SLOTS];
	struct block *next;
};

static struct block first;
static struct sigaction old_segv, old_bus;
static volatile sig_atomic_t installed;

SHIM_EXPORT int dirigo_trace_poison(uint64_t base, uint64_t bytes);

static bool poisoned(uintptr_t a)
{
	for (struct block *b = &first; b; b = __atomic_load_n(&b->next, __ATOMIC_ACQUIRE))
		for (int i = 0; i < SLOTS; i++) {
			uintptr_t base = __atomic_load_n(&b->r[i].base, __ATOMIC_ACQUIRE);
			if (base && a >= base && a < b->r[i].end)
				return true;
		}
	return false;
}

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
	if (poisoned((uintptr_t)si->si_addr)) {
		static const char msg[] =
			"dtrace-cuda: the program reads a value that the trace by shape does not "
			"compute\n";
		ssize_t rc = write(STDERR_FILENO, msg, sizeof msg - 1);
		(void)rc;
		_exit(DIRIGO_RETRACE);
	}
	struct sigaction *old = sig == SIGBUS ? &old_bus : &old_segv;
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, si, ctx);
		return;
	}
	if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
		return;
	}
	/* Default action: restore it and return; the access faults again. */
	sigaction(sig, old, NULL);
}

static void install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	installed = 1;
}

int dirigo_trace_poison(uint64_t base, uint64_t bytes)
{
	if (!base || !bytes)
		return 0;
	if (!installed)
		install();
	struct block *b = &first;
	for (;;) {
		for (int i = 0; i < SLOTS; i++)
			if (!b->r[i].base) {
				b->r[i].end = (uintptr_t)(base + bytes);
				__atomic_store_n(&b->r[i].base, (uintptr_t)base, __ATOMIC_RELEASE);
				return 0;
			}
		if (!b->next) {
			struct block *n = calloc(1, sizeof *n);
			if (!n)
				return -1;
			__atomic_store_n(&b->next, n, __ATOMIC_RELEASE);
		}
		b = b->next;
	}
}
