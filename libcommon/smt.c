/*
 * smt.c: the Z3 layer (smt.h), the only file of dirigo that includes z3.h.
 *
 * Translation (memoised per solver by node id, dropped when nodes of
 * another expression context arrive or on smt_reset_memo):
 *   bitvectors  -> Z3 bitvectors (MULHI by widening to 2w; shifts by
 *                  widening so that counts >= width give 0 or sign fill)
 *   reals       -> Z3 reals; constants are the exact rationals of the
 *                  doubles; non-finite constants become unknowns
 *   S2R/U2R     -> int2real(bv2int); R2S/R2U round exactly (RN by halves,
 *                  ties to even) and saturate like PTX cvt
 *   EOP_FUN     -> uninterpreted Real -> Real functions (pow: Real x Real)
 *                  with sound facts (sqrt >= 0, exp > 0, tanh in (-1,1) and
 *                  odd, exp and exp2 bounded by their values at a few
 *                  steps, the signs of log and log1p, ...);
 *                  floor/ceil/trunc/rint are exact, rcp_approx is
 *                  1/x (fast-math taken as exact, paper 4.2)
 *   UNDEF       -> a fresh unknown per node
 *   INPUT/ELEM/VAR/TID/CTAID -> named constants ("in3@12:f32", "tid.x")
 *   LOAD        -> an uninterpreted function of the address
 *
 * Limits: every check runs under the solver's resource limit (Z3's
 * rlimit: deterministic, the same answer on an idle and on a loaded
 * machine; running out is SMT_UNKNOWN) and, as the outer bound, under a
 * wall-clock limit: the stage's deadline and the optional per-query
 * timeout, enforced by one watchdog thread that interrupts the context
 * (Z3's own "timeout" parameter is not honoured by every tactic of the
 * combined solver).  Running out of time is SMT_TIMEOUT / EQ_TIMEOUT,
 * never an answer.
 *
 * Z3 runs in reference-counting mode: every AST kept across calls holds a
 * reference (the memo's entries, the cached sorts and functions, and the
 * "scratch" list of one public call, released when it returns).  Errors
 * never abort: the error handler is a no-op and calls check the error code.
 */
#include "libcommon/smt.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <z3.h>

#include "libcommon/deadline.h"
#include "libcommon/diag.h"

struct memo_ent {
	Z3_ast ast;
	Z3_ast fact;        /* facts of a function application, or NULL */
	uint32_t stamp;     /* visit mark of collect() */
};

struct smt {
	Z3_context z;
	unsigned timeout_ms;            /* per check, wall clock; 0: none */
	uint64_t rlimit;                /* per check, Z3 resource units; 0: none */
	double deadline;                /* the stage's (deadline.h) */
	bool timed_out;                 /* the last check ran out of time */
	struct smt_stats stats;
	bool stats_rlimit;              /* measure the rlimit each check used */
	uint32_t cxid;                  /* context of the memoised nodes */
	struct memo_ent *memo;          /* indexed by node id */
	size_t memo_cap;
	VEC(uint32_t) memo_ids;
	uint32_t stamp;
	VEC(Z3_ast) scratch;            /* references held for one call */
	Z3_sort real, bv[65];
	Z3_func_decl fun[EF__COUNT];
	Z3_solver tsolver;              /* for thread queries */
	bool failed;                    /* a Z3 error in this call */
};

static void on_error(Z3_context z, Z3_error_code e)
{
	(void)z;
	(void)e;   /* recorded in the context; callers check Z3_get_error_code */
}

static bool zerr(struct smt *s)
{
	if (Z3_get_error_code(s->z) != Z3_OK)
		s->failed = true;
	return s->failed;
}

/* Holds a reference to a until the end of the current public call. */
static Z3_ast K(struct smt *s, Z3_ast a)
{
	if (!a) {
		s->failed = true;
		return a;
	}
	Z3_inc_ref(s->z, a);
	VEC_PUSH(s->scratch, a);
	return a;
}

static void scratch_release(struct smt *s)
{
	for (size_t i = 0; i < s->scratch.len; i++)
		Z3_dec_ref(s->z, s->scratch.items[i]);
	s->scratch.len = 0;
}

static Z3_params make_params(struct smt *s)
{
	Z3_params p = Z3_mk_params(s->z);
	Z3_params_inc_ref(s->z, p);
	if (s->rlimit)
		Z3_params_set_uint(s->z, p, Z3_mk_string_symbol(s->z, "rlimit"),
		                   s->rlimit > 0xffffffffu ? 0xffffffffu : (unsigned)s->rlimit);
	return p;
}

static Z3_solver new_solver(struct smt *s, bool bv)
{
	Z3_solver so = bv ? Z3_mk_simple_solver(s->z) : Z3_mk_solver(s->z);
	Z3_solver_inc_ref(s->z, so);
	Z3_params p = make_params(s);
	Z3_solver_set_params(s->z, so, p);
	Z3_params_dec_ref(s->z, p);
	return so;
}

/* ---- the wall-clock limit: one watchdog for every context ------------------ */

struct watch {
	struct watch *next;
	Z3_context z;
	double until;                   /* monotonic seconds */
	bool fired;
};

static struct {
	pthread_once_t once;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct watch *list;
} wd = { PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL };

#define WATCH_REPEAT 0.1            /* seconds between interrupts of a check that goes on */

static void *watchdog(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&wd.mu);
	for (;;) {
		double now = deadline_now(), next = DEADLINE_NONE;
		for (struct watch *w = wd.list; w; w = w->next) {
			if (w->until <= now) {
				/* under the lock: the check is still running */
				Z3_interrupt(w->z);
				w->fired = true;
				w->until = now + WATCH_REPEAT;
			}
			if (w->until < next)
				next = w->until;
		}
		if (isinf(next)) {
			pthread_cond_wait(&wd.cv, &wd.mu);
			continue;
		}
		/* the condition variable uses CLOCK_REALTIME: wait for the
		 * interval, measured again on the monotonic clock next round */
		double dt = next - deadline_now();
		if (dt <= 0)
			continue;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		double sec = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + dt;
		ts.tv_sec = (time_t)sec;
		ts.tv_nsec = (long)((sec - (double)ts.tv_sec) * 1e9);
		if (ts.tv_nsec >= 1000000000L)
			ts.tv_nsec = 999999999L;
		pthread_cond_timedwait(&wd.cv, &wd.mu, &ts);
	}
	return NULL;
}

static void watchdog_start(void)
{
	pthread_t t;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, watchdog, NULL) != 0)
		die("cannot start the solver's watchdog thread");
	pthread_attr_destroy(&at);
}

/* The resource units the solver has used so far (Z3 counts them per
 * context, across checks). */
static uint64_t rlimit_count(struct smt *s, Z3_solver so)
{
	uint64_t n = 0;
	Z3_stats st = Z3_solver_get_statistics(s->z, so);
	Z3_stats_inc_ref(s->z, st);
	for (unsigned i = 0; i < Z3_stats_size(s->z, st); i++)
		if (Z3_stats_is_uint(s->z, st, i) && !strcmp(Z3_stats_get_key(s->z, st, i), "rlimit count"))
			n = Z3_stats_get_uint_value(s->z, st, i);
	Z3_stats_dec_ref(s->z, st);
	return n;
}

/* The wall-clock limit of what s does next: the stage's deadline, or
 * sooner the per-query timeout. */
static double until_of(const struct smt *s)
{
	double until = s->deadline;
	if (s->timeout_ms) {
		double t = deadline_now() + s->timeout_ms / 1e3;
		if (t < until)
			until = t;
	}
	return until;
}

/* Puts w (for s's context, until w->until) under the watchdog, which
 * interrupts the context from then on until watch_end. */
static bool watch_begin(struct smt *s, struct watch *w, double until)
{
	*w = (struct watch){ NULL, s->z, until, false };
	if (isinf(until))
		return false;
	pthread_once(&wd.once, watchdog_start);
	pthread_mutex_lock(&wd.mu);
	w->next = wd.list;
	wd.list = w;
	pthread_cond_signal(&wd.cv);
	pthread_mutex_unlock(&wd.mu);
	return true;
}

static void watch_end(struct watch *w, bool watched)
{
	if (!watched)
		return;
	pthread_mutex_lock(&wd.mu);
	for (struct watch **p = &wd.list; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
	pthread_mutex_unlock(&wd.mu);
}

/* Z3_solver_check under the limits; s->timed_out says whether an
 * undecided answer was the wall clock's doing. */
static Z3_lbool check(struct smt *s, Z3_solver so)
{
	double until = until_of(s);
	s->timed_out = false;
	s->stats.checks++;
	if (deadline_passed(until)) {
		s->timed_out = true;
		s->stats.timeouts++;
		return Z3_L_UNDEF;
	}
	struct watch w;
	bool watched = watch_begin(s, &w, until);
	uint64_t before = s->stats_rlimit ? rlimit_count(s, so) : 0;
	Z3_lbool r = Z3_solver_check(s->z, so);
	watch_end(&w, watched);
	if (r == Z3_L_UNDEF) {
		if (w.fired || deadline_passed(until)) {
			s->timed_out = true;
			s->stats.timeouts++;
		} else {
			s->stats.unknown++;
		}
	}
	if (s->stats_rlimit) {
		uint64_t used = rlimit_count(s, so) - before;
		if (used > s->stats.rlimit_max)
			s->stats.rlimit_max = used;
	}
	return r;
}

void smt_set_deadline(struct smt *s, double deadline)
{
	s->deadline = deadline;
}

void smt_set_stats(struct smt *s, bool rlimit)
{
	s->stats_rlimit = rlimit;
}

const struct smt_stats *smt_get_stats(const struct smt *s)
{
	return &s->stats;
}

struct smt *smt_new(unsigned timeout_ms, uint64_t rlimit)
{
	struct smt *s = xcalloc(1, sizeof *s);
	Z3_config cfg = Z3_mk_config();
	Z3_set_param_value(cfg, "model", "true");
	s->z = Z3_mk_context_rc(cfg);
	Z3_del_config(cfg);
	Z3_set_error_handler(s->z, on_error);
	s->timeout_ms = timeout_ms;
	s->rlimit = rlimit;
	s->deadline = DEADLINE_NONE;
	s->real = Z3_mk_real_sort(s->z);
	Z3_inc_ref(s->z, Z3_sort_to_ast(s->z, s->real));
	s->tsolver = new_solver(s, true);
	return s;
}

void smt_reset_memo(struct smt *s)
{
	for (size_t i = 0; i < s->memo_ids.len; i++) {
		struct memo_ent *m = &s->memo[s->memo_ids.items[i]];
		if (m->ast)
			Z3_dec_ref(s->z, m->ast);
		if (m->fact)
			Z3_dec_ref(s->z, m->fact);
		m->ast = m->fact = NULL;
	}
	s->memo_ids.len = 0;
	s->cxid = 0;
}

void smt_free(struct smt *s)
{
	if (!s)
		return;
	smt_reset_memo(s);
	scratch_release(s);
	for (unsigned i = 0; i <= 64; i++)
		if (s->bv[i])
			Z3_dec_ref(s->z, Z3_sort_to_ast(s->z, s->bv[i]));
	for (unsigned i = 0; i < EF__COUNT; i++)
		if (s->fun[i])
			Z3_dec_ref(s->z, Z3_func_decl_to_ast(s->z, s->fun[i]));
	Z3_dec_ref(s->z, Z3_sort_to_ast(s->z, s->real));
	Z3_solver_dec_ref(s->z, s->tsolver);
	Z3_del_context(s->z);
	free(s->memo);
	VEC_FREE(s->memo_ids);
	VEC_FREE(s->scratch);
	free(s);
}

static Z3_sort bvsort(struct smt *s, unsigned w)
{
	if (!s->bv[w]) {
		s->bv[w] = Z3_mk_bv_sort(s->z, w);
		Z3_inc_ref(s->z, Z3_sort_to_ast(s->z, s->bv[w]));
	}
	return s->bv[w];
}

static Z3_sort zsort(struct smt *s, sort_t so)
{
	switch (SORT_KIND(so)) {
	case SK_BOOL: return Z3_mk_bool_sort(s->z);
	case SK_BV: return bvsort(s, SORT_WIDTH(so));
	default: return s->real;
	}
}

static Z3_func_decl fundecl(struct smt *s, enum efun f)
{
	if (!s->fun[f]) {
		Z3_sort dom[2] = { s->real, s->real };
		s->fun[f] = Z3_mk_func_decl(s->z, Z3_mk_string_symbol(s->z, efun_name(f)),
		                            f == EF_POW ? 2 : 1, dom, s->real);
		Z3_inc_ref(s->z, Z3_func_decl_to_ast(s->z, s->fun[f]));
	}
	return s->fun[f];
}

/* Switches the memo to the context of e if needed; false if e is foreign
 * to the other expressions of the same query (checked by the caller). */
static void memo_for(struct smt *s, const struct expr *e)
{
	if (s->cxid != e->cxid) {
		smt_reset_memo(s);
		s->cxid = e->cxid;
	}
}

static struct memo_ent *memo_at(struct smt *s, uint32_t id)
{
	if (id >= s->memo_cap) {
		size_t cap = s->memo_cap ? s->memo_cap : 1024;
		while (cap <= id)
			cap *= 2;
		s->memo = xrealloc(s->memo, cap * sizeof *s->memo);
		memset(s->memo + s->memo_cap, 0, (cap - s->memo_cap) * sizeof *s->memo);
		s->memo_cap = cap;
	}
	return &s->memo[id];
}

/* ---- building blocks ---------------------------------------------------------- */

static Z3_ast rnum(struct smt *s, double d)
{
	/* A double is m * 2^e exactly; its decimal expansion is finite and
	 * glibc prints it exactly given enough digits. */
	int e;
	double f = frexp(d, &e);               /* d = f * 2^e, 0.5 <= |f| < 1 */
	int k = 53 - e;                        /* fraction digits needed, at most */
	if (k < 0)
		k = 0;
	char buf[1700];
	snprintf(buf, sizeof buf, "%.*f", k, d);
	(void)f;
	return K(s, Z3_mk_numeral(s->z, buf, s->real));
}

static Z3_ast inum(struct smt *s, const char *v)
{
	return K(s, Z3_mk_numeral(s->z, v, Z3_mk_int_sort(s->z)));
}

static Z3_ast named(struct smt *s, const char *name, sort_t so)
{
	return K(s, Z3_mk_const(s->z, Z3_mk_string_symbol(s->z, name), zsort(s, so)));
}

static Z3_ast bvnum(struct smt *s, uint64_t v, unsigned w)
{
	return K(s, Z3_mk_unsigned_int64(s->z, v, bvsort(s, w)));
}

static Z3_ast mk_ite(struct smt *s, Z3_ast c, Z3_ast t, Z3_ast f)
{
	return K(s, Z3_mk_ite(s->z, c, t, f));
}

static Z3_ast mk_and2(struct smt *s, Z3_ast a, Z3_ast b)
{
	Z3_ast v[2] = { a, b };
	return K(s, Z3_mk_and(s->z, 2, v));
}

static Z3_ast mk_or2(struct smt *s, Z3_ast a, Z3_ast b)
{
	Z3_ast v[2] = { a, b };
	return K(s, Z3_mk_or(s->z, 2, v));
}

static Z3_ast mk_implies(struct smt *s, Z3_ast a, Z3_ast b)
{
	return K(s, Z3_mk_implies(s->z, a, b));
}

static Z3_ast mk_eq(struct smt *s, Z3_ast a, Z3_ast b)
{
	return K(s, Z3_mk_eq(s->z, a, b));
}

static Z3_ast mk_lt(struct smt *s, Z3_ast a, Z3_ast b) { return K(s, Z3_mk_lt(s->z, a, b)); }
static Z3_ast mk_le(struct smt *s, Z3_ast a, Z3_ast b) { return K(s, Z3_mk_le(s->z, a, b)); }
static Z3_ast mk_neg(struct smt *s, Z3_ast a) { return K(s, Z3_mk_unary_minus(s->z, a)); }

static Z3_ast mk_add2(struct smt *s, Z3_ast a, Z3_ast b)
{
	Z3_ast v[2] = { a, b };
	return K(s, Z3_mk_add(s->z, 2, v));
}

static Z3_ast mk_mul2(struct smt *s, Z3_ast a, Z3_ast b)
{
	Z3_ast v[2] = { a, b };
	return K(s, Z3_mk_mul(s->z, 2, v));
}

static Z3_ast mk_abs(struct smt *s, Z3_ast a)
{
	return mk_ite(s, mk_le(s, rnum(s, 0), a), a, mk_neg(s, a));
}

/* floor(x) as an integer */
static Z3_ast mk_floor_int(struct smt *s, Z3_ast x)
{
	return K(s, Z3_mk_real2int(s->z, x));
}

/* Rounds real x to an integer (Int sort) by mode m, exactly. */
static Z3_ast mk_round_int(struct smt *s, Z3_ast x, enum rmode m)
{
	Z3_ast fl = mk_floor_int(s, x);
	Z3_ast ce = mk_neg(s, mk_floor_int(s, mk_neg(s, x)));
	switch (m) {
	case RM_RM: return fl;
	case RM_RP: return ce;
	case RM_RZ: return mk_ite(s, mk_le(s, rnum(s, 0), x), fl, ce);
	default: {
		/* nearest, ties to even */
		Z3_ast fr = K(s, Z3_mk_sub(s->z, 2, (Z3_ast[]){ x, K(s, Z3_mk_int2real(s->z, fl)) }));
		Z3_ast half = rnum(s, 0.5);
		Z3_ast one = inum(s, "1");
		Z3_ast up = mk_add2(s, fl, one);
		Z3_ast even = mk_eq(s, K(s, Z3_mk_mod(s->z, fl, inum(s, "2"))), inum(s, "0"));
		return mk_ite(s, mk_lt(s, fr, half), fl,
		              mk_ite(s, mk_lt(s, half, fr), up, mk_ite(s, even, fl, up)));
	}
	}
}

static Z3_ast mk_r2bv(struct smt *s, Z3_ast x, enum rmode m, unsigned w, bool sgn)
{
	Z3_ast i = mk_round_int(s, x, m);
	char lo[32], hi[32];
	if (sgn) {
		snprintf(lo, sizeof lo, "-%llu", 1ull << (w - 1));
		snprintf(hi, sizeof hi, "%llu", (1ull << (w - 1)) - 1);
	} else {
		snprintf(lo, sizeof lo, "0");
		snprintf(hi, sizeof hi, "%llu", (unsigned long long)(w >= 64 ? ~0ull : (1ull << w) - 1));
	}
	Z3_ast zl = inum(s, lo), zh = inum(s, hi);
	Z3_ast c = mk_ite(s, mk_lt(s, i, zl), zl, mk_ite(s, mk_lt(s, zh, i), zh, i));
	return K(s, Z3_mk_int2bv(s->z, w, c));
}

/* Z3 bitvector width of an AST */
static unsigned zw(struct smt *s, Z3_ast a)
{
	return Z3_get_bv_sort_size(s->z, Z3_get_sort(s->z, a));
}

static Z3_ast resize(struct smt *s, Z3_ast a, unsigned w, bool sgn)
{
	unsigned wa = zw(s, a);
	if (wa == w)
		return a;
	if (wa > w)
		return K(s, Z3_mk_extract(s->z, w - 1, 0, a));
	return K(s, sgn ? Z3_mk_sign_ext(s->z, w - wa, a) : Z3_mk_zero_ext(s->z, w - wa, a));
}

static Z3_ast app(struct smt *s, enum efun f, Z3_ast x)
{
	return K(s, Z3_mk_app(s->z, fundecl(s, f), 1, &x));
}

/* Points c where monotone functions get a step bound: x <= c gives
 * f(x) <= f(c) and x >= -c gives f(x) >= f(-c) (exp, exp2), so that a
 * value below a threshold (softplus's exp(x) for x < -20 against
 * log1p(exp(x))) is known to be small: linear facts, cheap to carry. */
static const double steps[] = { -1, -2, -5, -10, -20, -40, -80 };
#define NSTEPS (sizeof steps / sizeof *steps)

/* f(c) rounded up (down: -1) to a double that bounds the true value:
 * libm's exp is within an ulp, two steps away is outside it. */
static double bound_exp(double c, int dir)
{
	double v = exp(c), to = dir > 0 ? INFINITY : 0;
	return nextafter(nextafter(v, to), to);
}

/* Sound facts about r = f(x). */
static Z3_ast fun_facts(struct smt *s, enum efun f, Z3_ast r, Z3_ast x)
{
	Z3_ast zero = rnum(s, 0), one = rnum(s, 1), m1 = rnum(s, -1);
	Z3_ast v[8 + 2 * NSTEPS];
	unsigned n = 0;
	switch (f) {
	case EF_SQRT:
		v[n++] = mk_le(s, zero, r);
		v[n++] = mk_implies(s, mk_le(s, zero, x), mk_eq(s, mk_mul2(s, r, r), x));
		break;
	case EF_RSQRT:
		v[n++] = mk_implies(s, mk_lt(s, zero, x), mk_lt(s, zero, r));
		break;
	case EF_EXP:
		v[n++] = mk_lt(s, zero, r);
		v[n++] = mk_le(s, mk_add2(s, one, x), r);   /* e^x >= 1 + x */
		v[n++] = mk_implies(s, mk_eq(s, x, zero), mk_eq(s, r, one));
		v[n++] = mk_implies(s, mk_le(s, x, zero), mk_le(s, r, one));
		for (size_t i = 0; i < NSTEPS; i++) {
			double c = steps[i];
			v[n++] = mk_implies(s, mk_le(s, x, rnum(s, c)), mk_le(s, r, rnum(s, bound_exp(c, 1))));
			v[n++] = mk_implies(s, mk_le(s, rnum(s, -c), x), mk_le(s, rnum(s, bound_exp(-c, -1)), r));
		}
		break;
	case EF_EXP2:
		v[n++] = mk_lt(s, zero, r);
		v[n++] = mk_implies(s, mk_eq(s, x, zero), mk_eq(s, r, one));
		v[n++] = mk_implies(s, mk_le(s, x, zero), mk_le(s, r, one));
		v[n++] = mk_implies(s, mk_le(s, zero, x), mk_le(s, one, r));
		for (size_t i = 0; i < NSTEPS; i++) {   /* 2^c is exact */
			double c = steps[i];
			v[n++] = mk_implies(s, mk_le(s, x, rnum(s, c)), mk_le(s, r, rnum(s, ldexp(1, (int)c))));
			v[n++] = mk_implies(s, mk_le(s, rnum(s, -c), x), mk_le(s, rnum(s, ldexp(1, (int)-c)), r));
		}
		break;
	case EF_LOG: case EF_LOG2:
		v[n++] = mk_implies(s, mk_eq(s, x, one), mk_eq(s, r, zero));
		v[n++] = mk_implies(s, mk_le(s, one, x), mk_le(s, zero, r));    /* monotone */
		v[n++] = mk_implies(s, mk_and2(s, mk_lt(s, zero, x), mk_le(s, x, one)), mk_le(s, r, zero));
		if (f == EF_LOG)   /* ln x <= x - 1 */
			v[n++] = mk_implies(s, mk_lt(s, zero, x), mk_le(s, r, mk_add2(s, x, m1)));
		break;
	case EF_LOG1P:
		v[n++] = mk_implies(s, mk_eq(s, x, zero), mk_eq(s, r, zero));
		v[n++] = mk_implies(s, mk_lt(s, m1, x), mk_le(s, r, x));
		v[n++] = mk_implies(s, mk_le(s, zero, x), mk_le(s, zero, r));   /* monotone */
		v[n++] = mk_implies(s, mk_and2(s, mk_lt(s, m1, x), mk_le(s, x, zero)), mk_le(s, r, zero));
		break;
	case EF_TANH: case EF_ERF: {
		v[n++] = mk_and2(s, mk_lt(s, m1, r), mk_lt(s, r, one));
		v[n++] = mk_implies(s, mk_lt(s, zero, x), mk_lt(s, zero, r));
		v[n++] = mk_implies(s, mk_lt(s, x, zero), mk_lt(s, r, zero));
		v[n++] = mk_implies(s, mk_eq(s, x, zero), mk_eq(s, r, zero));
		v[n++] = mk_eq(s, app(s, f, mk_neg(s, x)), mk_neg(s, r));   /* odd */
		if (f == EF_TANH)   /* |tanh x| <= |x| */
			v[n++] = mk_le(s, mk_abs(s, r), mk_abs(s, x));
		break;
	}
	case EF_SIGMOID:
		v[n++] = mk_and2(s, mk_lt(s, zero, r), mk_lt(s, r, one));
		v[n++] = mk_implies(s, mk_eq(s, x, zero), mk_eq(s, r, rnum(s, 0.5)));
		v[n++] = mk_eq(s, mk_add2(s, app(s, f, mk_neg(s, x)), r), one);
		break;
	case EF_SIN: case EF_COS:
		v[n++] = mk_and2(s, mk_le(s, m1, r), mk_le(s, r, one));
		break;
	default:
		break;
	}
	if (n == 0)
		return NULL;
	return K(s, Z3_mk_and(s->z, n, v));
}

/* ---- translation ---------------------------------------------------------------- */

static Z3_ast leaf_name(struct smt *s, const struct expr *e)
{
	char name[96];
	char sb[8];
	switch (e->op) {
	case EOP_TID: case EOP_CTAID:
		snprintf(name, sizeof name, "%s.%c", e->op == EOP_TID ? "tid" : "ctaid", "xyz"[e->u % 3]);
		break;
	case EOP_INPUT: case EOP_ELEM:
		snprintf(name, sizeof name, "%s%u@%llu:%s", e->op == EOP_INPUT ? "in" : "v",
		         (unsigned)e->space, (unsigned long long)e->off, etype_name((enum etype)e->et));
		break;
	case EOP_VAR:
		snprintf(name, sizeof name, "var%llu:%s", (unsigned long long)e->u, sort_name(e->sort, sb));
		break;
	default:   /* UNDEF: one unknown per node */
		snprintf(name, sizeof name, "undef#%u", (unsigned)e->id);
		break;
	}
	return named(s, name, e->sort);
}

static Z3_ast tr_fold(struct smt *s, const struct expr *e, const Z3_ast *a,
                      Z3_ast (*op)(Z3_context, Z3_ast, Z3_ast))
{
	Z3_ast r = a[0];
	for (unsigned i = 1; i < e->nargs; i++)
		r = K(s, op(s->z, r, a[i]));
	return r;
}

static Z3_ast tr_popc(struct smt *s, Z3_ast x, unsigned wx, unsigned w)
{
	Z3_ast r = bvnum(s, 0, w);
	for (unsigned i = 0; i < wx; i++)
		r = K(s, Z3_mk_bvadd(s->z, r, resize(s, K(s, Z3_mk_extract(s->z, i, i, x)), w, false)));
	return r;
}

static Z3_ast tr_clz(struct smt *s, Z3_ast x, unsigned wx, unsigned w)
{
	Z3_ast r = bvnum(s, wx, w);
	for (unsigned i = 0; i < wx; i++) {   /* from the low bit up: the highest set bit wins */
		Z3_ast bit = K(s, Z3_mk_extract(s->z, i, i, x));
		r = mk_ite(s, mk_eq(s, bit, bvnum(s, 1, 1)), bvnum(s, wx - 1 - i, w), r);
	}
	return r;
}

/* An opaque value is an uninterpreted function of its arguments: one per
 * tag, and one per float type for the bit reinterpretations (a fixed
 * function whatever the instruction that made it).  What holds for every
 * meaning of the function holds for the true one. */
static Z3_ast tr_opaque(struct smt *s, const struct expr *e, const Z3_ast *a)
{
	char name[96], sb[8];
	int n;
	if (EOPQ_KIND(e->u) == EOPQ_FN)
		n = snprintf(name, sizeof name, "opaque#%llx", (unsigned long long)EOPQ_TAGOF(e->u));
	else
		n = snprintf(name, sizeof name, "%s.%s", EOPQ_KIND(e->u) == EOPQ_BITS ? "bits" : "float",
		             etype_name(EOPQ_FT(e->u)));
	Z3_sort dom[E_MAX_ARGS];
	for (unsigned i = 0; i < e->nargs; i++) {
		dom[i] = zsort(s, e->args[i]->sort);
		if (n > 0 && (size_t)n < sizeof name - 8)
			n += snprintf(name + n, sizeof name - (size_t)n, ":%s", sort_name(e->args[i]->sort, sb));
	}
	Z3_func_decl f = Z3_mk_func_decl(s->z, Z3_mk_string_symbol(s->z, name), e->nargs, dom, zsort(s, e->sort));
	return K(s, Z3_mk_app(s->z, f, e->nargs, a));
}

static Z3_ast tr_node(struct smt *s, const struct expr *e, const Z3_ast *a, Z3_ast *fact)
{
	Z3_context z = s->z;
	unsigned w = SORT_WIDTH(e->sort);
	*fact = NULL;
	switch (e->op) {
	case EOP_BOOL: return K(s, e->u ? Z3_mk_true(z) : Z3_mk_false(z));
	case EOP_BV: return bvnum(s, e->u, w);
	case EOP_REAL:
		if (!isfinite(e->d))
			return leaf_name(s, e);   /* an unknown: not a real number */
		return rnum(s, e->d);
	case EOP_TID: case EOP_CTAID: case EOP_INPUT: case EOP_ELEM: case EOP_VAR: case EOP_UNDEF:
		return leaf_name(s, e);
	case EOP_LOAD: {
		char name[64];
		snprintf(name, sizeof name, "load%u:%s", (unsigned)e->space, etype_name((enum etype)e->et));
		Z3_sort dom = bvsort(s, 64);
		Z3_func_decl f = Z3_mk_func_decl(z, Z3_mk_string_symbol(z, name), 1, &dom, zsort(s, e->sort));
		return K(s, Z3_mk_app(z, f, 1, a));
	}
	case EOP_ADD: return tr_fold(s, e, a, Z3_mk_bvadd);
	case EOP_SUB: return K(s, Z3_mk_bvsub(z, a[0], a[1]));
	case EOP_MUL: return K(s, Z3_mk_bvmul(z, a[0], a[1]));
	case EOP_NEG: return K(s, Z3_mk_bvneg(z, a[0]));
	case EOP_UDIV: return K(s, Z3_mk_bvudiv(z, a[0], a[1]));
	case EOP_SDIV: return K(s, Z3_mk_bvsdiv(z, a[0], a[1]));
	case EOP_UREM: return K(s, Z3_mk_bvurem(z, a[0], a[1]));
	case EOP_SREM: return K(s, Z3_mk_bvsrem(z, a[0], a[1]));
	case EOP_MULHI_U: case EOP_MULHI_S: {
		bool sg = e->op == EOP_MULHI_S;
		Z3_ast p = K(s, Z3_mk_bvmul(z, resize(s, a[0], 2 * w, sg), resize(s, a[1], 2 * w, sg)));
		return K(s, Z3_mk_extract(z, 2 * w - 1, w, p));
	}
	case EOP_SHL: case EOP_LSHR: case EOP_ASHR: {
		unsigned wc = zw(s, a[1]), W = wc > w ? wc : w;
		Z3_ast x = resize(s, a[0], W, e->op == EOP_ASHR), c = resize(s, a[1], W, false);
		Z3_ast r = K(s, e->op == EOP_SHL ? Z3_mk_bvshl(z, x, c)
		               : e->op == EOP_LSHR ? Z3_mk_bvlshr(z, x, c) : Z3_mk_bvashr(z, x, c));
		return resize(s, r, w, false);
	}
	case EOP_AND: return K(s, Z3_mk_bvand(z, a[0], a[1]));
	case EOP_OR: return K(s, Z3_mk_bvor(z, a[0], a[1]));
	case EOP_XOR: return K(s, Z3_mk_bvxor(z, a[0], a[1]));
	case EOP_NOT: return K(s, Z3_mk_bvnot(z, a[0]));
	case EOP_UMIN: return mk_ite(s, K(s, Z3_mk_bvule(z, a[0], a[1])), a[0], a[1]);
	case EOP_UMAX: return mk_ite(s, K(s, Z3_mk_bvuge(z, a[0], a[1])), a[0], a[1]);
	case EOP_SMIN: return mk_ite(s, K(s, Z3_mk_bvsle(z, a[0], a[1])), a[0], a[1]);
	case EOP_SMAX: return mk_ite(s, K(s, Z3_mk_bvsge(z, a[0], a[1])), a[0], a[1]);
	case EOP_ZEXT: return resize(s, a[0], w, false);
	case EOP_SEXT: return resize(s, a[0], w, true);
	case EOP_EXTRACT: return K(s, Z3_mk_extract(z, (unsigned)e->u + w - 1, (unsigned)e->u, a[0]));
	case EOP_CONCAT: return K(s, Z3_mk_concat(z, a[0], a[1]));
	case EOP_POPC: return tr_popc(s, a[0], zw(s, a[0]), w);
	case EOP_CLZ: return tr_clz(s, a[0], zw(s, a[0]), w);
	case EOP_BREV: {
		Z3_ast r = K(s, Z3_mk_extract(z, 0, 0, a[0]));
		for (unsigned i = 1; i < w; i++)
			r = K(s, Z3_mk_concat(z, r, K(s, Z3_mk_extract(z, i, i, a[0]))));
		return r;
	}
	case EOP_EQ: return mk_eq(s, a[0], a[1]);
	case EOP_ULT: return K(s, Z3_mk_bvult(z, a[0], a[1]));
	case EOP_ULE: return K(s, Z3_mk_bvule(z, a[0], a[1]));
	case EOP_SLT: return K(s, Z3_mk_bvslt(z, a[0], a[1]));
	case EOP_SLE: return K(s, Z3_mk_bvsle(z, a[0], a[1]));
	case EOP_FLT: return mk_lt(s, a[0], a[1]);
	case EOP_FLE: return mk_le(s, a[0], a[1]);
	case EOP_LAND: return K(s, Z3_mk_and(z, e->nargs, a));
	case EOP_LOR: return K(s, Z3_mk_or(z, e->nargs, a));
	case EOP_LNOT: return K(s, Z3_mk_not(z, a[0]));
	case EOP_ITE: return mk_ite(s, a[0], a[1], a[2]);
	case EOP_FADD: return e->nargs == 1 ? a[0] : K(s, Z3_mk_add(z, e->nargs, a));
	case EOP_FMUL: return e->nargs == 1 ? a[0] : K(s, Z3_mk_mul(z, e->nargs, a));
	case EOP_FSUB: return K(s, Z3_mk_sub(z, 2, a));
	case EOP_FNEG: return mk_neg(s, a[0]);
	case EOP_FDIV: return K(s, Z3_mk_div(z, a[0], a[1]));
	case EOP_FMIN: return mk_ite(s, mk_le(s, a[0], a[1]), a[0], a[1]);
	case EOP_FMAX: return mk_ite(s, mk_le(s, a[1], a[0]), a[0], a[1]);
	case EOP_FABS: return mk_abs(s, a[0]);
	case EOP_FUN:
		switch (e->u) {
		case EF_FLOOR: case EF_CEIL: case EF_TRUNC: case EF_RINT: {
			enum rmode m = e->u == EF_FLOOR ? RM_RM : e->u == EF_CEIL ? RM_RP
			             : e->u == EF_TRUNC ? RM_RZ : RM_RN;
			return K(s, Z3_mk_int2real(z, mk_round_int(s, a[0], m)));
		}
		case EF_RCP_APPROX:
			return K(s, Z3_mk_div(z, rnum(s, 1), a[0]));
		default: {
			Z3_ast r = K(s, Z3_mk_app(z, fundecl(s, (enum efun)e->u), e->nargs, a));
			if (e->u == EF_POW)
				*fact = mk_implies(s, mk_lt(s, rnum(s, 0), a[0]), mk_lt(s, rnum(s, 0), r));
			else
				*fact = fun_facts(s, (enum efun)e->u, r, a[0]);
			return r;
		}
		}
	case EOP_S2R: case EOP_U2R:
		return K(s, Z3_mk_int2real(z, K(s, Z3_mk_bv2int(z, a[0], e->op == EOP_S2R))));
	case EOP_R2S: case EOP_R2U:
		return mk_r2bv(s, a[0], (enum rmode)e->u, w, e->op == EOP_R2S);
	case EOP_BOOL2BV:
		return mk_ite(s, a[0], bvnum(s, 1, w), bvnum(s, 0, w));
	case EOP_OPAQUE:
		return tr_opaque(s, e, a);
	}
	s->failed = true;
	return NULL;
}

/* The Z3 term of e (memoised); NULL after a Z3 error. */
static Z3_ast tr(struct smt *s, const struct expr *e)
{
	memo_for(s, e);
	if (memo_at(s, e->id)->ast)
		return memo_at(s, e->id)->ast;
	VEC(const struct expr *) stack = { 0 };
	Z3_ast av[E_MAX_ARGS];
	VEC_PUSH(stack, e);
	while (stack.len && !s->failed) {
		const struct expr *x = stack.items[stack.len - 1];
		if (memo_at(s, x->id)->ast) {
			stack.len--;
			continue;
		}
		bool ready = true;
		for (unsigned i = 0; i < x->nargs; i++)
			if (!memo_at(s, x->args[i]->id)->ast) {
				VEC_PUSH(stack, x->args[i]);
				ready = false;
			}
		if (!ready)
			continue;
		stack.len--;
		for (unsigned i = 0; i < x->nargs; i++)
			av[i] = s->memo[x->args[i]->id].ast;
		Z3_ast fact;
		Z3_ast r = tr_node(s, x, av, &fact);
		if (zerr(s) || !r)
			break;
		struct memo_ent *m = memo_at(s, x->id);
		Z3_inc_ref(s->z, r);
		m->ast = r;
		if (fact) {
			Z3_inc_ref(s->z, fact);
			m->fact = fact;
		}
		VEC_PUSH(s->memo_ids, x->id);
	}
	VEC_FREE(stack);
	return s->failed ? NULL : s->memo[e->id].ast;
}

/* Function applications (with facts) and free leaves below e. */
struct collected {
	VEC(const struct expr *) funs;
	VEC(const struct expr *) leaves;
};

static void collect(struct smt *s, const struct expr *e, struct collected *c)
{
	VEC(const struct expr *) stack = { 0 };
	VEC_PUSH(stack, e);
	while (stack.len) {
		const struct expr *x = stack.items[--stack.len];
		struct memo_ent *m = memo_at(s, x->id);
		if (m->stamp == s->stamp)
			continue;
		m->stamp = s->stamp;
		if (x->op == EOP_FUN && m->fact)
			VEC_PUSH(c->funs, x);
		if (x->op == EOP_INPUT || x->op == EOP_ELEM || x->op == EOP_VAR)
			VEC_PUSH(c->leaves, x);
		for (unsigned i = 0; i < x->nargs; i++)
			VEC_PUSH(stack, x->args[i]);
	}
	VEC_FREE(stack);
}

/* ---- thread queries -------------------------------------------------------------------- */

static enum smt_result thread_query(struct smt *s, const struct smt_geom *g, const struct expr *cond,
                                    const uint32_t *xt, const uint32_t *xc,
                                    uint32_t tid[3], uint32_t ctaid[3])
{
	for (unsigned d = 0; d < 3; d++)
		if (g->ntid[d] == 0 || g->nctaid[d] == 0)
			return SMT_UNSAT;
	if (e_is_false(cond))
		return SMT_UNSAT;
	if (e_is_true(cond) && !xt) {
		if (tid)
			memset(tid, 0, 3 * sizeof *tid);
		if (ctaid)
			memset(ctaid, 0, 3 * sizeof *ctaid);
		return SMT_SAT;
	}
	s->failed = false;
	Z3_ast c = e_is_true(cond) ? K(s, Z3_mk_true(s->z)) : tr(s, cond);
	if (!c) {
		scratch_release(s);
		return SMT_UNKNOWN;
	}
	Z3_solver so = s->tsolver;
	Z3_solver_push(s->z, so);
	Z3_ast var[6], same[6];
	for (unsigned d = 0; d < 6; d++) {
		char name[16];
		snprintf(name, sizeof name, "%s.%c", d < 3 ? "tid" : "ctaid", "xyz"[d % 3]);
		var[d] = named(s, name, SORT_BV(32));
		uint32_t lim = d < 3 ? g->ntid[d] : g->nctaid[d - 3];
		Z3_solver_assert(s->z, so, K(s, Z3_mk_bvult(s->z, var[d], bvnum(s, lim, 32))));
		if (xt)
			same[d] = mk_eq(s, var[d], bvnum(s, d < 3 ? xt[d] : xc[d - 3], 32));
	}
	if (xt)
		Z3_solver_assert(s->z, so, K(s, Z3_mk_not(s->z, K(s, Z3_mk_and(s->z, 6, same)))));
	Z3_solver_assert(s->z, so, c);
	Z3_lbool r = check(s, so);
	enum smt_result res = r == Z3_L_TRUE ? SMT_SAT : r == Z3_L_FALSE ? SMT_UNSAT :
	                      s->timed_out ? SMT_TIMEOUT : SMT_UNKNOWN;
	if (res == SMT_SAT && (tid || ctaid)) {
		Z3_model m = Z3_solver_get_model(s->z, so);
		Z3_model_inc_ref(s->z, m);
		for (unsigned d = 0; d < 6; d++) {
			Z3_ast v = NULL;
			uint64_t u = 0;
			if (Z3_model_eval(s->z, m, var[d], true, &v) && v)
				Z3_get_numeral_uint64(s->z, v, &u);
			if (d < 3 && tid)
				tid[d] = (uint32_t)u;
			if (d >= 3 && ctaid)
				ctaid[d - 3] = (uint32_t)u;
		}
		Z3_model_dec_ref(s->z, m);
	}
	Z3_solver_pop(s->z, so, 1);
	if (zerr(s) && res != SMT_TIMEOUT)
		res = SMT_UNKNOWN;
	scratch_release(s);
	return res;
}

enum smt_result smt_thread_sat(struct smt *s, const struct smt_geom *g,
                               const struct expr *cond,
                               uint32_t tid[3], uint32_t ctaid[3])
{
	return thread_query(s, g, cond, NULL, NULL, tid, ctaid);
}

enum smt_result smt_thread_sat_except(struct smt *s, const struct smt_geom *g,
                                      const struct expr *cond,
                                      const uint32_t tid[3], const uint32_t ctaid[3],
                                      uint32_t tid_out[3], uint32_t ctaid_out[3])
{
	return thread_query(s, g, cond, tid, ctaid, tid_out, ctaid_out);
}

/* ---- equivalence ---------------------------------------------------------------------- */

const char *smt_equiv_name(enum smt_equiv_result r)
{
	switch (r) {
	case EQ_EQUAL: return "equal";
	case EQ_DIFFER: return "differ";
	case EQ_WITHIN_TOL: return "within-tolerance";
	case EQ_UNCONFIRMED: return "unconfirmed";
	case EQ_UNKNOWN: return "unknown";
	case EQ_TIMEOUT: return "timeout";
	}
	return "?";
}

struct point {
	const struct expr **leaf;
	double *val;
	unsigned n;
};

static bool point_leaf(const struct expr *leaf, struct evalue *out, void *user)
{
	const struct point *p = user;
	for (unsigned i = 0; i < p->n; i++)
		if (p->leaf[i] == leaf) {
			memset(out, 0, sizeof *out);
			if (leaf->sort == SORT_REAL)
				out->r = p->val[i];
			else if (leaf->sort == SORT_BOOL)
				out->b = p->val[i] != 0;
			else
				out->u = p->val[i] < 0 ? (uint64_t)(int64_t)p->val[i]
				        : p->val[i] < 0x1p64 ? (uint64_t)p->val[i] : ~(uint64_t)0;
			return true;
		}
	return false;
}

static bool exceeds(long double x, long double y, const struct smt_equiv_opts *o)
{
	/* NaN against a number is a difference (a float32 replay sees it);
	 * NaN against NaN is not */
	if (isnan(x) || isnan(y))
		return isnan(x) != isnan(y);
	long double d = fabsl(x - y);
	return d > (long double)o->atol + (long double)o->rtol * fabsl(y);
}

/* Evaluates a and b at the point; true if they differ beyond tolerance. */
static bool confirm(const struct expr *a, const struct expr *b, const struct point *p,
                    const struct smt_equiv_opts *o, long double *va, long double *vb)
{
	struct evalue x, y;
	if (!e_eval(a, EM_EXACT, point_leaf, (void *)p, &x) ||
	    !e_eval(b, EM_EXACT, point_leaf, (void *)p, &y) || x.undef || y.undef)
		return false;
	if (a->sort == SORT_REAL) {
		*va = x.r;
		*vb = y.r;
		return exceeds(x.r, y.r, o);
	}
	if (a->sort == SORT_BOOL) {
		*va = x.b;
		*vb = y.b;
		return x.b != y.b;
	}
	*va = (long double)x.u;
	*vb = (long double)y.u;
	return x.u != y.u;
}

static double numeral_double(struct smt *s, Z3_ast v, bool *ok)
{
	*ok = false;
	if (!v)
		return 0;
	if (Z3_get_sort_kind(s->z, Z3_get_sort(s->z, v)) == Z3_BOOL_SORT) {
		*ok = true;
		return Z3_get_bool_value(s->z, v) == Z3_L_TRUE;
	}
	Z3_ast_kind k = Z3_get_ast_kind(s->z, v);
	if (k != Z3_NUMERAL_AST && !Z3_is_algebraic_number(s->z, v))
		return 0;
	if (Z3_get_sort_kind(s->z, Z3_get_sort(s->z, v)) == Z3_BV_SORT) {
		uint64_t u = 0;
		*ok = Z3_get_numeral_uint64(s->z, v, &u);
		return (double)u;
	}
	Z3_string str = Z3_get_numeral_decimal_string(s->z, v, 40);
	if (!str || zerr(s))
		return 0;
	char buf[512];
	snprintf(buf, sizeof buf, "%s", str);
	char *q = strchr(buf, '?');
	if (q)
		*q = 0;
	*ok = true;
	return strtod(buf, NULL);
}

enum smt_equiv_result smt_equiv(struct smt *s, const struct expr *a, const struct expr *b,
                                const struct smt_equiv_opts *o, struct arena *arena,
                                struct smt_witness *w)
{
	if (a == b)
		return EQ_EQUAL;
	if (a->cxid != b->cxid || a->sort != b->sort)
		return EQ_UNKNOWN;
	s->failed = false;
	enum smt_equiv_result res = EQ_UNKNOWN;
	Z3_ast za = tr(s, a), zb = za ? tr(s, b) : NULL;
	if (!za || !zb) {
		scratch_release(s);
		return EQ_UNKNOWN;
	}
	struct collected c = { { 0 }, { 0 } };
	s->stamp++;
	collect(s, a, &c);
	collect(s, b, &c);

	Z3_solver so = new_solver(s, SORT_KIND(a->sort) == SK_BV);
	Z3_model model = NULL;
	/* Z3 simplifies and internalises terms as it takes them (assert,
	 * push), which for the term of a large reduction can take longer than
	 * any check: the whole query is under the wall-clock limit */
	struct watch wq;
	bool wq_on = watch_begin(s, &wq, until_of(s));
	for (size_t i = 0; i < c.funs.len; i++)
		Z3_solver_assert(s->z, so, s->memo[c.funs.items[i]->id].fact);

	/* 1: can they differ at all? */
	Z3_solver_push(s->z, so);
	s->timed_out = false;
	if (!wq.fired)
		Z3_solver_assert(s->z, so, K(s, Z3_mk_not(s->z, mk_eq(s, za, zb))));
	Z3_lbool r = wq.fired ? Z3_L_UNDEF : check(s, so);
	if (wq.fired)
		s->timed_out = true;
	Z3_solver_pop(s->z, so, 1);
	if (r == Z3_L_FALSE) {
		res = EQ_EQUAL;
		goto out;
	}
	if (r != Z3_L_TRUE || zerr(s)) {
		if (s->timed_out)
			res = EQ_TIMEOUT;
		goto out;
	}

	/* 2: beyond the tolerance, inputs bounded */
	Z3_solver_push(s->z, so);
	if (a->sort == SORT_REAL) {
		Z3_ast d = K(s, Z3_mk_sub(s->z, 2, (Z3_ast[]){ za, zb }));
		Z3_ast tol = mk_add2(s, rnum(s, o->atol), mk_mul2(s, rnum(s, o->rtol), mk_abs(s, zb)));
		Z3_solver_assert(s->z, so, mk_or2(s, mk_lt(s, tol, d), mk_lt(s, d, mk_neg(s, tol))));
		if (o->bound > 0)
			for (size_t i = 0; i < c.leaves.len; i++) {
				const struct expr *l = c.leaves.items[i];
				if (l->sort != SORT_REAL)
					continue;
				Z3_ast x = s->memo[l->id].ast;
				Z3_solver_assert(s->z, so, mk_and2(s, mk_le(s, rnum(s, -o->bound), x),
				                                      mk_le(s, x, rnum(s, o->bound))));
			}
	} else {
		Z3_solver_assert(s->z, so, K(s, Z3_mk_not(s->z, mk_eq(s, za, zb))));
	}

	struct point p;
	p.n = (unsigned)c.leaves.len;
	p.leaf = c.leaves.items;
	p.val = xcalloc(p.n + 1, sizeof *p.val);
	double *snap = xcalloc(p.n + 1, sizeof *snap);
	res = EQ_UNCONFIRMED;
	for (unsigned round = 0; round <= o->max_refine; round++) {
		r = check(s, so);
		if (r == Z3_L_FALSE) {
			res = EQ_WITHIN_TOL;
			break;
		}
		if (r != Z3_L_TRUE || zerr(s)) {
			res = s->timed_out ? EQ_TIMEOUT : EQ_UNKNOWN;
			break;
		}
		model = Z3_solver_get_model(s->z, so);
		Z3_model_inc_ref(s->z, model);
		bool ok = true;
		for (unsigned i = 0; i < p.n && ok; i++) {
			Z3_ast v = NULL;
			Z3_model_eval(s->z, model, s->memo[p.leaf[i]->id].ast, true, &v);
			p.val[i] = numeral_double(s, v, &ok);
			snap[i] = p.leaf[i]->sort == SORT_REAL ? (double)(float)p.val[i] : p.val[i];
		}
		long double va, vb;
		if (ok) {
			/* prefer float32 values, so that a float32 replay agrees */
			struct point ps = { p.leaf, snap, p.n };
			bool hit = confirm(a, b, &ps, o, &va, &vb);
			if (hit)
				memcpy(p.val, snap, p.n * sizeof *snap);
			else
				hit = confirm(a, b, &p, o, &va, &vb);
			if (hit) {
				res = EQ_DIFFER;
				if (w) {
					w->ninputs = p.n;
					w->inputs = ARENA_NEWN(arena, struct smt_assign, p.n ? p.n : 1);
					for (unsigned i = 0; i < p.n; i++)
						w->inputs[i] = (struct smt_assign){ p.leaf[i], p.val[i] };
					w->a = (double)va;
					w->b = (double)vb;
				}
				break;
			}
		}
		if (!ok || round == o->max_refine)
			break;
		/* refine: the true value of every application at the model's point */
		unsigned added = 0;
		for (size_t i = 0; i < c.funs.len; i++) {
			const struct expr *f = c.funs.items[i];
			Z3_ast args[2], vals[2];
			long double x[2] = { 0, 0 };
			bool good = true;
			for (unsigned j = 0; j < f->nargs && good; j++) {
				args[j] = s->memo[f->args[j]->id].ast;
				vals[j] = NULL;
				Z3_model_eval(s->z, model, args[j], true, &vals[j]);
				x[j] = numeral_double(s, vals[j], &good);
				if (good)
					K(s, vals[j]);
			}
			if (!good)
				continue;
			long double fv = efun_eval((enum efun)f->u, EM_EXACT, x[0], x[1]);
			if (!isfinite((double)fv))
				continue;
			Z3_ast conds[2];
			for (unsigned j = 0; j < f->nargs; j++)
				conds[j] = mk_eq(s, args[j], vals[j]);
			Z3_ast pre = f->nargs == 1 ? conds[0] : K(s, Z3_mk_and(s->z, f->nargs, conds));
			Z3_solver_assert(s->z, so, mk_implies(s, pre, mk_eq(s, s->memo[f->id].ast,
			                                                   rnum(s, (double)fv))));
			added++;
		}
		Z3_model_dec_ref(s->z, model);
		model = NULL;
		if (!added || zerr(s))
			break;
	}
	free(p.val);
	free(snap);
	Z3_solver_pop(s->z, so, 1);
out:
	watch_end(&wq, wq_on);
	if (wq.fired && res != EQ_EQUAL && res != EQ_DIFFER)
		res = EQ_TIMEOUT;   /* interrupted: what was not decided ran out of time */
	if (model)
		Z3_model_dec_ref(s->z, model);
	if (zerr(s) && res != EQ_DIFFER && res != EQ_TIMEOUT)
		res = EQ_UNKNOWN;
	Z3_solver_dec_ref(s->z, so);
	VEC_FREE(c.funs);
	VEC_FREE(c.leaves);
	scratch_release(s);
	return res;
}
