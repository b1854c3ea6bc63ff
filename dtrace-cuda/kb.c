/*
 * kb.c: dtrace-cuda --kernelbench.  The work is done in Python by
 * dirigo_trace.kernelbench (dtrace-cuda/python), once per side under the
 * runtime, whose trace it shares (see shim/torch.c).  The optimized side
 * imports its extension from the cache, or builds it first (the compilers
 * run without the runtime preloaded: ext.py's _env); --build-only runs the
 * build alone, untraced, so that a corpus is built ahead and no trace time
 * holds a build.  No separate build runs before a trace: it cost a start of
 * Python and an import of torch (about 2 s of CPU) when the extension was
 * cached too.
 *
 * Found through the environment, else next to the executable:
 * DIRIGO_PYTHONPATH (else ../dtrace-cuda/python, ../lib/dirigo/python),
 * DIRIGO_PYTHON (else what dirigo-python in that folder prints,
 * else python3).  The extension cache is the Python side's choice
 * (dirigo_trace/extcache.py: $DIRIGO_EXT_CACHE, else the user's).
 *
 * Without -o, --ref-out or --opt-out both traces go to standard output,
 * one after the other (dmerge reads concatenated streams).  The two sides
 * are traced at once, each in a child process, into scratch files
 * (OUTPUT.part, or one in $TMPDIR), by shape unless --compute
 * (dirigo_trace/shapes.py), and traced again computing when the trace by
 * shape stops for values (status 4); only finished traces reach their
 * place, the reference's first.
 */
#include "kb.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libcommon/arena.h"
#include "libcommon/diag.h"

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *exe_dir(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n < 0)
		return xstrdup(".");
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	return xstrdup(exe);
}

static char *join(const char *a, const char *b)
{
	char *p = xmalloc(strlen(a) + strlen(b) + 2);
	sprintf(p, "%s/%s", a, b);
	return p;
}

/* The python3 to run: $DIRIGO_PYTHON, else dirigo-python's answer. */
static char *find_python(const char *pydir)
{
	const char *env = getenv("DIRIGO_PYTHON");
	if (env && *env)
		return xstrdup(env);
	char *script = join(pydir, "dirigo-python");
	char line[PATH_MAX] = "";
	if (access(script, X_OK) == 0) {
		FILE *p = popen(script, "r");
		if (p) {
			if (!fgets(line, sizeof line, p))
				line[0] = '\0';
			if (pclose(p) != 0)
				line[0] = '\0';
		}
	}
	free(script);
	line[strcspn(line, "\n")] = '\0';
	if (!line[0]) {
		warn("no python3 that imports torch (install python3-torch, or set DIRIGO_PYTHON)");
		return NULL;
	}
	return xstrdup(line);
}

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

/* Runs argv (not traced) with its stdout on our stderr; its exit status,
 * or -1 when it could not run. */
static int run_plain(char *const *argv)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(argv[0], argv);
		warn("cannot run '%s': %s", argv[0], strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int worse(int a, int b)
{
	if (a == EXIT_TROUBLE || b == EXIT_TROUBLE)
		return EXIT_TROUBLE;
	if (a == EXIT_UNDECIDED || b == EXIT_UNDECIDED)
		return EXIT_UNDECIDED;
	return a ? a : b;
}

/* A scratch file for the trace of a side going to output (NULL: standard
 * output): OUTPUT.part beside it, else one in $TMPDIR.  NULL on failure. */
static char *scratch_for(const char *output)
{
	if (output) {
		char *p = xmalloc(strlen(output) + 8);
		sprintf(p, "%s.part", output);
		return p;
	}
	const char *tmp = getenv("TMPDIR");
	char *p = xmalloc(strlen(tmp && *tmp ? tmp : "/tmp") + 32);
	sprintf(p, "%s/dtrace-cuda.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(p);
	if (fd < 0) {
		warn("cannot make a scratch file '%s': %s", p, strerror(errno));
		free(p);
		return NULL;
	}
	close(fd);
	return p;
}

/* Puts the finished trace in scratch where it goes: renamed to output, or
 * copied to standard output.  Returns false on failure (message). */
static bool deliver(const char *scratch, const char *output)
{
	if (output) {
		if (rename(scratch, output) != 0) {
			warn("cannot rename '%s' to '%s': %s", scratch, output, strerror(errno));
			return false;
		}
		return true;
	}
	FILE *f = fopen(scratch, "rb");
	if (!f) {
		warn("cannot read '%s': %s", scratch, strerror(errno));
		return false;
	}
	char buf[1 << 16];
	size_t n;
	bool ok = true;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		if (fwrite(buf, 1, n, stdout) != n) {
			warn("write error on standard output: %s", strerror(errno));
			ok = false;
			break;
		}
	if (ferror(f)) {
		warn("cannot read '%s': %s", scratch, strerror(errno));
		ok = false;
	}
	fclose(f);
	unlink(scratch);
	return ok && fflush(stdout) == 0;
}

/* Traces one side into the file scratch: by shape first unless
 * kb->compute, and again computing when the trace by shape needs values
 * (the side exits KB_RETRACE).  argv ends with two free slots for
 * "--shapes" and NULL.  Returns the side's exit status. */
static int trace_side(const struct kb *kb, kb_tracer trace, const char *side, char **argv,
                      int argc, const char *scratch)
{
	bool shapes = !kb->compute;
	int status;
	for (;;) {
		argv[argc] = shapes ? "--shapes" : NULL;
		argv[argc + 1] = NULL;
		status = trace(kb->shim, kb->gpu, side, argv, scratch, kb->max_data, true);
		if (status != KB_RETRACE || !shapes)
			break;
		note("side '%s' needs values the trace by shape does not compute; tracing it "
		     "again, computing every torch op", side);
		shapes = false;
	}
	if (status == KB_RETRACE) {
		warn("the computing trace of '%s' stopped for values it should have (status %d)",
		     side, KB_RETRACE);
		status = EXIT_TROUBLE;
	}
	return status;
}

/* Runs trace_side in a child process; its pid, or -1 when it cannot fork. */
static pid_t trace_side_child(const struct kb *kb, kb_tracer trace, const char *side,
                              char **argv, int argc, const char *scratch)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(trace_side(kb, trace, side, argv, argc, scratch));
	return pid;
}

static int wait_side(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return EXIT_TROUBLE;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_TROUBLE;
}

int kb_trace(const struct kb *kb, kb_tracer trace)
{
	int status = EXIT_TROUBLE;
	char *dir = exe_dir();
	char *pydir = NULL, *python = NULL, *ref_out = NULL, *opt_out = NULL;
	const char *env = getenv("DIRIGO_PYTHONPATH");
	if (env && *env) {
		pydir = xstrdup(env);
	} else {
		pydir = join(dir, "../dtrace-cuda/python");
		if (!is_dir(pydir)) {
			free(pydir);
			pydir = join(dir, "../lib/dirigo/python");
		}
	}
	if (!is_dir(pydir)) {
		warn("cannot find the torch recorder (dirigo_trace) in '%s' (set DIRIGO_PYTHONPATH)",
		     pydir);
		goto out;
	}
	if (!(python = find_python(pydir)))
		goto out;
	env_prepend("PYTHONPATH", pydir);
	for (const char **p = (const char *[]){ kb->ref, kb->opt, NULL }; *p; p++)
		if (access(*p, R_OK) != 0) {
			warn("cannot read '%s': %s", *p, strerror(errno));
			goto out;
		}
	if (kb->dir) {
		if (mkdir(kb->dir, 0777) != 0 && errno != EEXIST) {
			warn("cannot make '%s': %s", kb->dir, strerror(errno));
			goto out;
		}
		ref_out = join(kb->dir, "ref.trace");
		opt_out = join(kb->dir, "opt.trace");
	} else if (kb->ref_out) {
		ref_out = xstrdup(kb->ref_out);
		opt_out = xstrdup(kb->opt_out);
	}

	if (kb->build_only) {
		char *build_argv[] = { python, "-m", "dirigo_trace.kernelbench", "build",
		                       (char *)kb->ref, (char *)kb->opt, NULL };
		int rc = run_plain(build_argv);
		if (rc == EXIT_UNDECIDED) {
			/* the extension needs a library dirigo does not model (named) */
			warn("'%s' is unsupported", kb->opt);
			status = EXIT_UNDECIDED;
		} else if (rc != 0) {
			warn("cannot build '%s' (status %d)", kb->opt, rc);
		} else {
			status = EXIT_OK;
		}
		goto out;
	}
	char maxd[32];
	snprintf(maxd, sizeof maxd, "%llu", (unsigned long long)kb->max_data);
	/* The two sides run at once, each in a process of its own, into their
	 * scratch files; then the traces go where they belong, ref first. */
	status = EXIT_OK;
	const char *sides[2] = { "ref", "opt" };
	const char *outs[2] = { ref_out, opt_out };
	char *scratch[2] = { NULL, NULL };
	char *argv[2][13];
	pid_t pid[2] = { -1, -1 };
	int st[2] = { EXIT_TROUBLE, EXIT_TROUBLE };
	int argc = 11;
	for (int i = 0; i < 2; i++) {
		char *a[13] = { python, "-m", "dirigo_trace.kernelbench", "trace", (char *)sides[i],
		                (char *)kb->ref, (char *)kb->opt, "--seed", (char *)kb->seed,
		                "--max-data", maxd, NULL, NULL };
		memcpy(argv[i], a, sizeof a);
		if (!(scratch[i] = scratch_for(outs[i])))
			continue;
		pid[i] = trace_side_child(kb, trace, sides[i], argv[i], argc, scratch[i]);
		if (pid[i] < 0)      /* cannot fork: in this process, in turn */
			st[i] = trace_side(kb, trace, sides[i], argv[i], argc, scratch[i]);
	}
	for (int i = 0; i < 2; i++) {
		if (pid[i] > 0)
			st[i] = wait_side(pid[i]);
		if (scratch[i] && !deliver(scratch[i], outs[i]))
			st[i] = EXIT_TROUBLE;
		status = worse(status, st[i]);
		free(scratch[i]);
	}
out:
	free(dir);
	free(pydir);
	free(python);
	free(ref_out);
	free(opt_out);
	return status;
}
