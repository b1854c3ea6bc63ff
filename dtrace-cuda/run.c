/*
 * run.c: spawn the traced program with the runtime shim preloaded, and copy
 * the records it writes on a pipe to the trace output.
 *
 * Record mode (--no-gpu): the program finds the shim two ways: LD_PRELOAD
 * names it, and a scratch folder on LD_LIBRARY_PATH holds libcudart.so.N
 * links to it, so the program's NEEDED libcudart.so.13 resolves to the
 * same file (the loader keeps one copy) and no real CUDA runtime is loaded.
 * Forward mode (--gpu): only LD_PRELOAD; the program loads the real runtime
 * and the shim hands its calls on ($DIRIGO_CUDART_MODE=forward).
 */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <msgpack.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dlfcn.h>

#include "libcommon/arena.h"
#include "libcommon/diag.h"

static const char *const cudart_names[] = { "libcudart.so.13", "libcudart.so.12", "libcudart.so" };

char *run_find_shim(void)
{
	const char *env = getenv("DIRIGO_CUDART");
	if (env && *env) {
		if (access(env, R_OK) == 0)
			return realpath(env, NULL);
		warn("DIRIGO_CUDART=%s: %s", env, strerror(errno));
		return NULL;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n < 0) {
		warn("cannot find my own executable: %s", strerror(errno));
		return NULL;
	}
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	const char *tries[] = { "../lib/libdirigo-cudart.so", "../lib/dirigo/libdirigo-cudart.so" };
	for (size_t i = 0; i < 2; i++) {
		char path[PATH_MAX + 64];
		snprintf(path, sizeof path, "%s/%s", exe, tries[i]);
		if (access(path, R_OK) == 0)
			return realpath(path, NULL);
	}
	warn("cannot find libdirigo-cudart.so in %s/../lib or %s/../lib/dirigo "
	     "(set DIRIGO_CUDART)", exe, exe);
	return NULL;
}

int run_gpu_probe(const char *shim, char *msg, size_t cap)
{
	int p[2];
	snprintf(msg, cap, "cannot ask the runtime shim");
	if (pipe2(p, O_CLOEXEC) != 0)
		return 3;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return 3;
	}
	if (pid == 0) {
		/* the real runtime starts threads: only in a child that ends */
		char buf[1024];
		int rc = 3;
		close(p[0]);
		void *h = dlopen(shim, RTLD_NOW | RTLD_LOCAL);
		int (*probe)(char *, size_t) = h ? (int (*)(char *, size_t))dlsym(h,
		                               "dirigo_trace_gpu_probe") : NULL;
		if (probe)
			rc = probe(buf, sizeof buf);
		else
			snprintf(buf, sizeof buf, "cannot load '%s': %s", shim, dlerror());
		if (write(p[1], buf, strlen(buf)) < 0)
			_exit(3);
		_exit(rc);
	}
	close(p[1]);
	size_t got = 0;
	ssize_t n;
	while (got + 1 < cap && ((n = read(p[0], msg + got, cap - 1 - got)) > 0 ||
	                         (n < 0 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	msg[got] = '\0';
	close(p[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 3;
	if (!WIFEXITED(st)) {
		snprintf(msg, cap, "the probe of the real CUDA runtime was killed by signal %d",
		         WTERMSIG(st));
		return 3;
	}
	return WEXITSTATUS(st) <= 3 ? WEXITSTATUS(st) : 3;
}

/* A scratch folder with the libcudart links; NULL on failure (message). */
static char *libdir_make(const char *shim)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xmalloc(strlen(tmp && *tmp ? tmp : "/tmp") + 32);
	sprintf(dir, "%s/dtrace-cuda.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		warn("cannot make a scratch folder '%s': %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	for (size_t i = 0; i < sizeof cudart_names / sizeof *cudart_names; i++) {
		char *link = xmalloc(strlen(dir) + 32);
		sprintf(link, "%s/%s", dir, cudart_names[i]);
		if (symlink(shim, link) != 0)
			warn("cannot link '%s': %s", link, strerror(errno));
		free(link);
	}
	return dir;
}

static void libdir_remove(char *dir)
{
	if (!dir)
		return;
	for (size_t i = 0; i < sizeof cudart_names / sizeof *cudart_names; i++) {
		char *link = xmalloc(strlen(dir) + 32);
		sprintf(link, "%s/%s", dir, cudart_names[i]);
		unlink(link);
		free(link);
	}
	rmdir(dir);
	free(dir);
}

/* NAME=VALUE prepended to an existing ':'-separated list, or VALUE. */
static void env_prepend(const char *name, const char *value)
{
	const char *old = getenv(name);
	if (!old || !*old) {
		setenv(name, value, 1);
		return;
	}
	char *v = xmalloc(strlen(value) + strlen(old) + 2);
	sprintf(v, "%s:%s", value, old);
	setenv(name, v, 1);
	free(v);
}

/* In the child: never returns.  Reports exec failure as errno on errfd. */
static _Noreturn void child(const struct run *r, const char *libdir, int tracefd, int errfd)
{
	char num[32];
	snprintf(num, sizeof num, "%d", tracefd);
	setenv("DIRIGO_TRACE_FD", num, 1);
	snprintf(num, sizeof num, "%llu", (unsigned long long)r->max_data);
	setenv("DIRIGO_TRACE_MAX_DATA", num, 1);
	setenv("DIRIGO_CUDART_MODE", r->gpu ? "forward" : "record", 1);
	env_prepend("LD_PRELOAD", r->shim);
	if (libdir)
		env_prepend("LD_LIBRARY_PATH", libdir);
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(127);
	execvp(r->argv[0], r->argv);
	int e = errno;
	if (write(errfd, &e, sizeof e) != (ssize_t)sizeof e)
		_exit(127);
	_exit(127);
}

/* Writes one record the runtime sent to r->out.  Records are decoded and
 * encoded again (msgpack-c's streaming reader does not keep the bytes of an
 * object that arrived in pieces); both sides use msgpack-c's packer.  The
 * header and the end record are the tracer's: the program sends neither. */
static bool forward(struct run *r, const msgpack_object *o)
{
	const msgpack_object *t = obj_get(o, "t");
	if (obj_is_str(t, "header") || obj_is_str(t, "end") || !out_raw_object(r->out, o))
		return false;
	if (obj_is_str(t, "tunsupported"))
		r->unsupported = true;
	r->records++;
	return true;
}

/* Reads the trace pipe to its end, forwarding every whole record. */
static bool collect(struct run *r, int fd)
{
	msgpack_unpacker u;
	msgpack_unpacked obj;
	if (!msgpack_unpacker_init(&u, 1 << 16))
		die("out of memory");
	msgpack_unpacked_init(&obj);
	bool ok = true;
	for (;;) {
		if (!msgpack_unpacker_reserve_buffer(&u, 1 << 16))
			die("out of memory");
		ssize_t n = read(fd, msgpack_unpacker_buffer(&u), msgpack_unpacker_buffer_capacity(&u));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			warn("cannot read the trace: %s", strerror(errno));
			ok = false;
			break;
		}
		if (n == 0)
			break;
		if (!ok)
			continue;     /* drain, so that the program is not blocked */
		msgpack_unpacker_buffer_consumed(&u, (size_t)n);
		msgpack_unpack_return ret;
		while ((ret = msgpack_unpacker_next(&u, &obj)) == MSGPACK_UNPACK_SUCCESS)
			if (!forward(r, &obj.data))
				break;
		if (ret != MSGPACK_UNPACK_CONTINUE) {
			warn("the trace of '%s' is damaged (record %llu)", r->argv[0],
			     (unsigned long long)r->records);
			ok = false;
		}
	}
	if (ok && msgpack_unpacker_message_size(&u) > 0) {
		r->truncated = true;
		ok = false;
	}
	msgpack_unpacked_destroy(&obj);
	msgpack_unpacker_destroy(&u);
	return ok;
}

bool run_program(struct run *r)
{
	int tp[2], ep[2];
	r->started = false;
	char *libdir = NULL;
	if (!r->gpu && !(libdir = libdir_make(r->shim)))
		return false;
	if (pipe(tp) != 0 || pipe2(ep, O_CLOEXEC) != 0 || fcntl(tp[0], F_SETFD, FD_CLOEXEC) != 0) {
		warn("cannot make a pipe: %s", strerror(errno));
		libdir_remove(libdir);
		return false;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		warn("cannot fork: %s", strerror(errno));
		libdir_remove(libdir);
		return false;
	}
	if (pid == 0) {
		close(ep[0]);
		child(r, libdir, tp[1], ep[1]);
	}
	close(tp[1]);
	close(ep[1]);
	int e = 0;
	ssize_t got;
	while ((got = read(ep[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(ep[0]);
	bool ok = true;
	if (got == (ssize_t)sizeof e) {
		warn("cannot run '%s': %s", r->argv[0], strerror(e));
		ok = false;
	} else {
		r->started = true;
		ok = collect(r, tp[0]);
	}
	close(tp[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	libdir_remove(libdir);
	if (WIFSIGNALED(st)) {
		r->signal = WTERMSIG(st);
		r->status = 128 + r->signal;
	} else {
		r->status = WEXITSTATUS(st);
	}
	return ok;
}
