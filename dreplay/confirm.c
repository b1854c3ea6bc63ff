/*
 * confirm.c: both programs run concretely at a witness, the confirmation
 * that does not rely on the symbolic model.  By slice first: only the
 * blocks and op elements the witness location needs (engine/slice.h),
 * exact where it is computed (a run that would read anything the slice
 * left out stops instead).  When no slice can be planned or it does not
 * hold, the whole programs run, as before slices existed; --whole asks
 * for that directly.
 *
 * The runs look at the stage's deadline themselves (the interpreter and
 * the ops stop with INTERP_TIMEOUT), and happen in a child process so
 * that the budget bounds them whatever the programs do: at the deadline
 * the child is killed.  Either way the witness is a timeout, never
 * confirmed (rp->timeout, message).
 */
#include "dreplay.h"
#include "engine/concrete.h"
#include "libcommon/deadline.h"
#include "libcommon/diag.h"
#include "engine/slice.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child sends back (one write of the whole struct). */
struct outcome {
	int ran;                     /* both programs ran */
	int slice;                   /* ... by slice */
	int timeout;                 /* a run stopped at the deadline (error says which) */
	double val[2];
	uint64_t blocks, blocks_all, elems, elems_all;
	char error[480];             /* why they did not run */
	char note[480];              /* why the slice was not used */
};

/* The element of type et at p. */
static double element(const uint8_t *p, enum etype et)
{
	union { float f; double d; int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; } b = { 0 };
	memcpy(&b, p, etype_size(et));
	switch (et) {
	case ET_F32: return b.f;
	case ET_F64: return b.d;
	case ET_S32: return b.i32;
	case ET_U32: return b.u32;
	case ET_S64: return (double)b.i64;
	case ET_U64: return (double)b.u64;
	default: return NAN;
	}
}

static const char *prog_label(const struct obligation *ob, uint32_t p)
{
	return ob->names[p] ? ob->names[p] : p ? "opt" : "ref";
}

/* Program p at the witness: by slice when sl is given, stopped at
 * deadline.  1 with *val, 0 after a message in msg when the slice does not
 * hold (a fallback is worth it), -1 after a message when the program
 * itself fails, -2 after one when the deadline stopped it. */
static int run_one(const struct sym_state *st, uint32_t p, const struct vd_witness *w, uint8_t **in,
                   const struct replay_slice *sl, double deadline, double *val, char *msg,
                   size_t msglen)
{
	const struct obligation *ob = &st->obl;
	struct replay_opts opts = { .max_steps = 0, .slice = sl, .deadline = deadline };
	struct replay_result res;
	char err[512];
	if (!replay_program(ob, p, (const void *const *)in, &opts, &res, err, sizeof err)) {
		snprintf(msg, msglen, "%s: %.400s", prog_label(ob, p), err);
		if (res.status == INTERP_TIMEOUT)
			return -2;
		return sl && (res.status == INTERP_UNCOMPUTED || res.status == INTERP_BADARG) ? 0 : -1;
	}
	const struct replay_output *o = &res.outs[w->output];
	unsigned size = etype_size(w->et);
	int k = 1;
	if (w->off > o->bytes || size > o->bytes - w->off) {
		snprintf(msg, msglen, "the location lies outside the output");
		k = -1;
	} else if (o->valid) {
		for (unsigned i = 0; i < size && k == 1; i++)
			if (!(o->valid[(w->off + i) >> 3] & (1u << ((w->off + i) & 7)))) {
				snprintf(msg, msglen, "%s: the slice did not compute the location",
				         prog_label(ob, p));
				k = 0;
			}
	}
	if (k == 1)
		*val = element(o->data + w->off, w->et);
	replay_result_release(&res);
	return k;
}

/* Both programs by slice: 1 when they ran (or failed for good: out->error),
 * 0 after out->note when a whole run should be tried. */
static int by_slice(const struct sym_state *st, const struct vd_witness *w, uint8_t **in,
                    double deadline, struct outcome *out)
{
	const struct obligation *ob = &st->obl;
	const struct obl_output *o = &ob->outputs.items[w->output];
	for (uint32_t p = 0; p < 2; p++) {
		struct replay_slice sl;
		char why[400];
		if (!slice_plan(st, p, o->value[p], o->off[p] + w->off, etype_size(w->et), NULL, &sl, why,
		                sizeof why)) {
			snprintf(out->note, sizeof out->note, "%s: no slice: %s", prog_label(ob, p), why);
			return 0;
		}
		int k = run_one(st, p, w, in, &sl, deadline, &out->val[p], why, sizeof why);
		out->blocks += sl.blocks;
		out->blocks_all += sl.blocks_all;
		out->elems += sl.elems;
		out->elems_all += sl.elems_all;
		slice_release(&sl);
		if (k == 0) {
			snprintf(out->note, sizeof out->note, "%s", why);
			return 0;
		}
		if (k < 0) {
			snprintf(out->error, sizeof out->error, "%s", why);
			out->slice = 1;
			out->timeout = k == -2;
			return 1;
		}
	}
	out->ran = out->slice = 1;
	return 1;
}

static void whole(const struct sym_state *st, const struct vd_witness *w, uint8_t **in,
                  double deadline, struct outcome *out)
{
	for (uint32_t p = 0; p < 2; p++) {
		int k = run_one(st, p, w, in, NULL, deadline, &out->val[p], out->error, sizeof out->error);
		if (k != 1) {
			out->timeout = k == -2;
			return;
		}
	}
	out->ran = 1;
}

/* The child: the runs, then the outcome on fd.  A byte 'w' is sent before
 * a whole run starts, so that a parent that stops us knows which run it
 * stopped. */
static void child(int fd, const struct sym_state *st, const struct vd_witness *w, uint8_t **in,
                  const struct confirm_opts *co)
{
	struct outcome out;
	memset(&out, 0, sizeof out);
	if (co->whole || !by_slice(st, w, in, co->deadline, &out)) {
		if (write(fd, "w", 1) != 1)
			_exit(2);
		struct outcome again;
		memset(&again, 0, sizeof again);
		memcpy(again.note, out.note, sizeof again.note);
		out = again;
		whole(st, w, in, co->deadline, &out);
	}
	const char *p = (const char *)&out;
	size_t left = sizeof out;
	while (left) {
		ssize_t n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(2);
		p += n;
		left -= (size_t)n;
	}
	_exit(0);
}

void confirm_run(const struct sym_state *st, const struct vd_witness *w, uint8_t **in,
                 const struct confirm_opts *co, struct arena *a, struct rp_replay *rp)
{
	double t0 = deadline_now();
	if (deadline_passed(co->deadline)) {
		rp->ptx_error = arena_printf(a, "not run: the budget of %g s was spent before this witness",
		                             co->budget);
		rp->timeout = true;
		rp->message = arena_printf(a, "the budget ran out before the programs were run on the "
		                           "witness");
		return;
	}
	int fds[2];
	if (pipe(fds) != 0)
		die("cannot make a pipe for the replay: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		die("cannot fork for the replay: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		child(fds[1], st, w, in, co);
	}
	close(fds[1]);
	struct outcome out;
	memset(&out, 0, sizeof out);
	char *p = (char *)&out;
	size_t got = 0;
	bool marker = false, whole_started = false, timed_out = false;
	while (got < sizeof out) {
		unsigned left = deadline_ms_left(co->deadline);
		int ms = left == UINT32_MAX ? -1 : left > 2000000000u ? 2000000000 : (int)left;
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		int k = poll(&pfd, 1, ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (k == 0) {
			timed_out = true;
			break;
		}
		if (!marker) {
			/* 'w' (a whole run starts), else the outcome's first byte */
			char c;
			ssize_t n = read(fds[0], &c, 1);
			if (n < 0 && errno == EINTR)
				continue;
			if (n != 1)
				break;
			marker = true;
			if (c == 'w')
				whole_started = true;
			else
				p[got++] = c;
			continue;
		}
		ssize_t n = read(fds[0], p + got, sizeof out - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	rp->ptx_ms = (deadline_now() - t0) * 1000;
	if (timed_out) {
		rp->ptx_run = whole_started ? "whole" : "slice";
		rp->ptx_error = arena_printf(a, "stopped at the budget of %g s (%s run)", co->budget,
		                             whole_started ? "the whole-program" : "the sliced");
		rp->timeout = true;
		rp->message = arena_printf(a, "the budget ran out running the programs on the witness (%s)",
		                           rp->ptx_error);
		return;
	}
	if (got < sizeof out) {
		rp->ptx_error = arena_printf(a, "the replay process ended without an outcome (%s %d)",
		                             WIFSIGNALED(status) ? "signal" : "exit status",
		                             WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		return;
	}
	out.error[sizeof out.error - 1] = out.note[sizeof out.note - 1] = 0;
	rp->ptx_run = out.slice ? "slice" : "whole";
	if (out.note[0])
		rp->slice_note = arena_strdup(a, out.note);
	if (out.slice) {
		rp->blocks = out.blocks;
		rp->blocks_all = out.blocks_all;
		rp->elems = out.elems;
		rp->elems_all = out.elems_all;
	}
	if (!out.ran) {
		rp->ptx_error = arena_strdup(a, out.error[0] ? out.error : "the programs did not run");
		if (out.timeout) {
			rp->timeout = true;
			rp->message = arena_printf(a, "the budget ran out running the programs on the "
			                           "witness (%s)", rp->ptx_error);
		}
		return;
	}
	rp->ptx_ran = true;
	rp->ref_ptx = out.val[0];
	rp->opt_ptx = out.val[1];
}
