/*
 * state.c: the record-only runtime's global state (see shim.h): start-up
 * from the environment, the lock, the trace writer, the live buffer table.
 *
 * Environment: DIRIGO_TRACE_FD (where records go; unset: record nothing),
 * DIRIGO_TRACE_MAX_DATA (bytes of h2d data kept per copy).  They are read
 * on the first CUDA call, not at load: the library is preloaded into every
 * process the traced command starts (a shell, a launcher script), and only
 * the first that uses CUDA claims the trace.  Both are then removed, and
 * the descriptor closed on exec, so that programs it runs do not write into
 * the same trace; children forked without exec write nothing, and the
 * stream is flushed before every fork, so a child's exit cannot write the
 * parent's buffered records a second time.
 * DIRIGO_CUDART_MODE (forward.c) stays: programs it runs must find the
 * same runtime behind the shim.
 */
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcommon/diag.h"

struct shim shim = { .lock = PTHREAD_MUTEX_INITIALIZER };
_Thread_local bool shim_quiet;

/* pthread_atfork's prepare handler: the lock is not taken, since fork may
 * come from a thread that holds it (the child's state is dropped anyway). */
static void flush_before_fork(void)
{
	if (shim.f && getpid() == shim.pid)
		fflush(shim.f);
}

static void shim_init(void)
{
	extern char *program_invocation_name;
	diag_set_prog("dtrace-cuda");
	shim.pid = getpid();
	shim.prog = program_invocation_name;
	shim.max_data = 1u << 20;
	const char *s = getenv("DIRIGO_TRACE_MAX_DATA");
	if (s && *s)
		shim.max_data = strtoull(s, NULL, 10);
	s = getenv("DIRIGO_TRACE_FD");
	if (s && *s) {
		int fd = atoi(s);
		if (fd < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
			shim_fatal("DIRIGO_TRACE_FD=%s: %s", s, strerror(errno));
		shim.f = fdopen(fd, "w");
		if (!shim.f)
			shim_fatal("DIRIGO_TRACE_FD=%s: %s", s, strerror(errno));
		shim.w = stream_out_new(shim.f);
		pthread_atfork(flush_before_fork, NULL, NULL);
	}
	unsetenv("DIRIGO_TRACE_FD");
	unsetenv("DIRIGO_TRACE_MAX_DATA");
	shim.ready = true;
}

__attribute__((destructor)) static void shim_dtor(void)
{
	if (shim.f && getpid() == shim.pid)
		fflush(shim.f);
}

void shim_lock(void)
{
	pthread_mutex_lock(&shim.lock);
	if (!shim.ready)
		shim_init();
}

void shim_unlock(void)
{
	pthread_mutex_unlock(&shim.lock);
}

struct stream_out *shim_out(void)
{
	if (!shim.w || getpid() != shim.pid || shim.suppress > 0 || shim_quiet)
		return NULL;
	return shim.w;
}

void shim_flush(void)
{
	if (shim.f && fflush(shim.f) != 0)
		shim_fatal("cannot write the trace: %s", strerror(errno));
}

/* Prints "dtrace-cuda: PROG: " what msg and ends the process with status. */
static _Noreturn void shim_exit(int status, const char *what, const char *msg)
{
	extern char *program_invocation_name;
	fflush(NULL);
	/* one write, as diag.c's messages: the program's threads may print too */
	fprintf(stderr, "dtrace-cuda: %s: %s%s\n", shim.prog ? shim.prog : program_invocation_name,
	        what, msg);
	_exit(status);
}

void shim_warn(const char *fmt, ...)
{
	extern char *program_invocation_name;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* one write, as diag.c's messages: the program's threads may print too */
	fprintf(stderr, "dtrace-cuda: %s: warning: %s\n", shim.prog ? shim.prog : program_invocation_name, msg);
}

void shim_fatal(const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	shim_exit(EXIT_TROUBLE, "", msg);
}

void shim_unsupported(const char *call, const char *fmt, ...)
{
	char msg[2048];
	int n = snprintf(msg, sizeof msg, "%s: ", call);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
	va_end(ap);
	shim_lock();
	struct stream_out *w = shim_out();
	if (w) {
		trace_write_unsupported(w, call, msg);
		shim_flush();
	}
	shim_unlock();
	shim_exit(EXIT_UNDECIDED, "unsupported: ", msg);
}

/* Index of the first live buffer whose base is > p. */
static size_t buf_upper(uintptr_t p)
{
	size_t lo = 0, hi = shim.bufs.len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (shim.bufs.items[mid].base <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct shim_buf *shim_buf_add(uintptr_t base, uint64_t bytes, enum trace_alloc_kind kind,
                              void *mem, uint32_t module, const char *symbol)
{
	bool hidden = shim.suppress > 0 || shim_quiet;
	struct shim_buf b = { .base = base, .bytes = bytes, .id = hidden ? TRACE_NO_BUF : shim.next_buf++,
	                      .kind = kind, .mem = mem, .hidden = hidden };
	size_t at = buf_upper(base);
	VEC_PUSH(shim.bufs, b);
	memmove(&shim.bufs.items[at + 1], &shim.bufs.items[at],
	        (shim.bufs.len - 1 - at) * sizeof b);
	shim.bufs.items[at] = b;
	struct stream_out *w = shim_out();
	if (w) {
		struct trace_alloc r = { .buf = b.id, .bytes = bytes, .kind = kind,
		                         .module = module, .symbol = symbol };
		trace_write_alloc(w, &r);
		shim_flush();
	}
	return &shim.bufs.items[at];
}

struct shim_buf *shim_buf_find(uintptr_t p)
{
	size_t at = buf_upper(p);
	if (at == 0)
		return NULL;
	struct shim_buf *b = &shim.bufs.items[at - 1];
	return p - b->base < b->bytes ? b : NULL;
}

void shim_buf_remove(struct shim_buf *b)
{
	struct stream_out *w = b->hidden ? NULL : shim_out();
	if (w) {
		struct trace_free r = { .buf = b->id };
		trace_write_free(w, &r);
		shim_flush();
	}
	size_t at = (size_t)(b - shim.bufs.items);
	memmove(b, b + 1, (shim.bufs.len - at - 1) * sizeof *b);
	shim.bufs.len--;
}
