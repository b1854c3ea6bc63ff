/*
 * dexec.h: internals of dexec, the symbolic executor of kernel launches
 * (paper 3.3).  Private to dexec/: nothing outside includes it.
 *
 * One launch is executed by a worklist of bundles (logical threads).  A
 * bundle stands for the threads whose (tid, ctaid) satisfy its domain, a
 * bool expression over TID/CTAID.  Registers hold expressions; a branch on
 * a thread-dependent predicate splits the bundle, one on data runs both
 * arms and merges them (merge.c).  Global stores append to the launch's
 * write set; loads become LOAD leaves of the value read.
 *
 * Files: main.c (options, stream), run.c (obligation: modules, launches,
 * records), exec.c (bundles, branching, budgets, solver memo), instr.c
 * (arithmetic, logic, conversions, comparisons), operand.c (registers,
 * immediates, special registers, sort coercions), mem.c (parameters,
 * loads, stores, bounds, store-to-load forwarding), atomic.c (atom, red
 * and the compare-and-swap loop idiom), merge.c (branches on data whose
 * arms rejoin), gread.c (loads of buffers the launch also writes),
 * report.c (findings and unsupported records with their messages),
 * opaque.c (opaque values for what has no exact meaning, and their
 * origins).
 */
#ifndef DIRIGO_DEXEC_H
#define DIRIGO_DEXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "libcommon/arena.h"
#include "libcommon/deadline.h"
#include "libcommon/expr.h"
#include "formats/obligation.h"
#include "libcommon/ptx/ptx.h"
#include "libcommon/smt.h"
#include "formats/symbolic.h"

struct dx_opts {
	uint64_t budget_steps;       /* instruction steps per launch */
	uint32_t max_bundles;        /* bundles per launch */
	unsigned smt_timeout_ms;     /* per solver query, wall clock (timeout); 0: none */
	uint64_t smt_rlimit;         /* per solver query, Z3 resource units (unknown); 0: none */
	bool timing;                 /* record the execution time ("ms") */
	/* run.c: by module id, whether an earlier launch of the module may
	 * have stored to its __device__ variables (it was unsupported); NULL:
	 * unknown, so their initialisers are never trusted */
	const bool *module_unclean;
	double budget;               /* seconds for the whole run (--budget); < 0: none */
	double deadline;             /* when the budget ends (deadline.h) */
	const char *cache;           /* --cache DIR, or NULL */
};

#define DX_DEFAULT_STEPS    50000000ull
#define DX_DEFAULT_BUNDLES  65536u
#define DX_TABLE_MAX        4096u    /* entries of a module table indexed by thread */
#define DX_DEFAULT_BUDGET   60.0          /* seconds */
/* Z3 resource units per query: thread queries are small bitvector
 * problems (at most 30000 units on real matmul and softmax kernels
 * with every query sent to the solver), about 1 to 4 seconds; one that
 * needs more is "unknown" on every machine alike. */
#define DX_DEFAULT_RLIMIT   2000000ull

/* Variable ids for the addresses of module variables (__constant__,
 * __device__, .shared): DX_SYMVAR(i) is the address of module->vars[i],
 * DX_SYMVAR(DX_FNVAR | i) that of the kernel's fn->vars[i].  They never
 * reach a record: an access through one is resolved or refused. */
#define DX_SYMVAR(i)        ((0xD1ull << 40) | (uint64_t)(i))
#define DX_IS_SYMVAR(id)    (((id) >> 40) == 0xD1)
#define DX_SYMVAR_INDEX(id) ((uint32_t)(id))
#define DX_FNVAR            0x80000000u   /* index bit: fn->vars, not module->vars */

/* A store a bundle made, for store-to-load forwarding: an immutable list
 * (newest first) shared by the bundles split from one another.  An
 * atomic the bundle made is an entry with val NULL: an older plain store
 * it may overlap is not forwarded past it (what the location holds after
 * the atomic depends on the other threads). */
struct dx_store {
	const struct dx_store *next;
	uint32_t vin;                /* the value the store's buffer held */
	const struct expr *off;      /* bv64 byte offset */
	const struct expr *val;      /* what was stored (after any merge); NULL: an atomic */
	const struct expr *guard;    /* thread condition of the store, or NULL */
	unsigned size;               /* bytes */
};

/* A branch on data whose arms a bundle is running (merge.c): immutable,
 * shared by the bundles split inside an arm.  Or a branch on tid/ctaid
 * whose arms store nothing (tdom set): the bundle runs each arm with
 * its domain cut to the arm's threads, and gets tdom back at the join. */
struct dx_arm {
	const struct dx_arm *up;     /* the enclosing data branch, or NULL */
	const struct expr *tdom;     /* a branch on threads: the domain at the branch */
	const struct expr **regs0;   /* a branch on threads: the registers at the branch */
	unsigned join;               /* where the arms rejoin */
	unsigned other;              /* the taken arm's first instruction */
	const struct expr *cond;     /* the branch condition (taken) */
	const struct expr *dcond;    /* the condition of the arm being run, with up's */
	const struct expr **saved;   /* registers at the branch (first arm), or those
	                                the fall-through arm left (second arm) */
	bool second;                 /* running the taken arm */
	const struct ptx_instr *in;  /* the branch */
};

struct dx_bundle {
	const struct expr *dom;      /* which threads this bundle stands for */
	unsigned pc;                 /* next instruction */
	const struct expr **regs;    /* fn->nregs, NULL = never written (heap) */
	const struct dx_store *stores;
	uint32_t seq;                /* stores made so far (program order) */
	/* shared memory and warps (shared.c, warp.c) */
	uint32_t epoch;              /* barrier epochs passed (bar.sync) */
	uint32_t sub;                /* warp epochs (bar.warp.sync) since the last barrier */
	const struct dx_store *shstores;   /* own shared stores of this (epoch, sub) */
	const struct dx_arm *arm;    /* innermost data branch being run (merge.c), or NULL */
};

struct dx_memo;                      /* solver answers by condition */

/* A bundle that ended after a barrier (the others count as arrived at
 * every later one): its domain, and the waiting threads a barrier showed
 * never to share a block with it (shared.c), or NULL. */
struct dx_exited { const struct expr *dom, *apart; };

/* One global store or atomic of a bundle (race.c checks the pairs of a
 * plain store and an atomic on one location that nothing orders). */
struct dx_gacc {
	uint32_t vout;               /* the value written */
	uint32_t vin;                /* the value before the launch (for messages) */
	const struct expr *dom;      /* threads (thread-only part) */
	const struct expr *off;      /* bv64 byte offset */
	unsigned size;
	uint32_t epoch;              /* block barriers passed */
	bool atomic;
	bool sure;                   /* no data-dependent guard: it happens */
	const struct ptx_instr *in;
	uint32_t sub;                /* warp epochs (bar.warp.sync) since the barrier */
};
struct dx_merge;                     /* control flow of the kernel, for data branches (merge.c) */
struct dx_func;                      /* the function a launch executes (prepare.c) */

/* Decoded opcodes, one per instruction of the kernel. */
enum dx_op {
	DO_OTHER = 0,
	DO_MOV, DO_LD, DO_LDU, DO_ST, DO_CVTA, DO_CVT,
	DO_ADD, DO_SUB, DO_MUL, DO_MAD, DO_FMA, DO_DIV, DO_REM,
	DO_SHL, DO_SHR, DO_AND, DO_OR, DO_XOR, DO_NOT, DO_CNOT,
	DO_MIN, DO_MAX, DO_NEG, DO_ABS, DO_SELP, DO_SETP, DO_SET,
	DO_RCP, DO_SQRT, DO_RSQRT, DO_EX2, DO_LG2, DO_TANH, DO_SIN, DO_COS,
	DO_COPYSIGN, DO_POPC, DO_CLZ, DO_BREV,
	DO_BRA, DO_RET, DO_EXIT,
	DO_BAR, DO_BARRIER, DO_SHFL, DO_VOTE, DO_ACTIVEMASK,
	DO_ATOM, DO_RED,             /* atom, red and dirigo.red (atomic.c) */
	DO__COUNT
};

/* One launch being executed. */
struct dx_launch {
	/* what is executed */
	const struct obligation *o;
	const struct obl_launch *l;
	uint32_t id;                 /* launch id */
	const struct ptx_module *mod;
	const struct ptx_func *fn;
	const unsigned char *ops;    /* enum dx_op per instruction */
	const struct ptx_instr *fence;   /* the kernel's first memory fence, or NULL */
	const struct dx_opts *opts;
	struct smt *smt;
	struct smt_geom geom;

	/* state, freed with the launch */
	struct ectx *cx;
	struct arena a;
	VEC(struct dx_bundle *) work;
	uint32_t nbundles;           /* bundles made (the first included) */
	uint64_t steps;
	struct dx_memo *memo;
	uint32_t quick, solver;      /* conditions decided without and with the solver */
	const struct expr **scratch; /* fn->nregs, for predicated execution */
	struct dx_merge *merge;      /* made at the first data branch (merge.c) */

	/* results */
	VEC(struct sym_write) writes;
	VEC(struct sym_finding) findings;
	bool unsup;
	struct sym_unsupported uns;
	/* the budget (report.c): the deadline passed; what was going on */
	bool timeout;
	struct sym_timeout to;
	struct deadline_check dl;
	const struct ptx_instr *cur; /* the instruction being executed or released */
	const char *phase;           /* what the launch was doing ("executing", ...) */

	/* shared memory, barriers, warps (shared.c, warp.c, race.c) */
	struct dx_shared *sh;        /* layout, accesses of the epoch, shared writes */
	struct dx_ents_memo *ents;   /* block offsets of accesses, by (dom, off) (race-enum.c) */
	struct dx_race_seen *rseen;  /* epochs whose race check found nothing (race.c) */
	VEC(struct dx_bundle *) waiting;   /* bundles stopped at a barrier or warp op */
	VEC(struct dx_exited) exited;      /* the bundles that ended after a barrier */

	/* atomics (atomic.c) */
	const unsigned char *aused;  /* per instruction: an atom whose result is read */
	VEC(uint32_t) atom_vins;     /* values updated atomically (their versions before) */
	VEC(struct dx_gacc) gacc;    /* global stores and atomics, for their races (race.c) */
	bool grace_found;            /* a global-race reported */

	/* opaque values (opaque.c): their origins, for the writes record */
	VEC(struct sym_opaque) opaques;
	VEC(const struct ptx_instr *) opaque_ins;   /* the instruction of each entry */
	uint64_t nfresh;             /* reads of special registers without a value */

	/* global loads of buffers the launch writes (gread.c) */
	struct dx_gread *gr;
};

/* ---- exec.c ------------------------------------------------------------ */

/* Prepares L for launch l of o (module mod, kernel fn already found) and
 * runs it: afterwards L->writes/findings hold the results, or L->unsup is
 * set.  The caller writes the records, then calls dx_launch_release. */
void dx_launch_run(struct dx_launch *L, const struct obligation *o, uint32_t id,
                   const struct ptx_module *mod, const struct ptx_func *fn,
                   const struct dx_opts *opts, struct smt *smt);
void dx_launch_release(struct dx_launch *L);
/* Is some thread of the launch in cond?  Constants answer without the
 * solver; answers are memoised; UNKNOWN is returned as is.  On SAT with
 * tid/ctaid non-NULL, a witness thread. */
enum smt_result dx_sat(struct dx_launch *L, const struct expr *cond,
                       uint32_t tid[3], uint32_t ctaid[3]);
/* The decoded opcode of the name (DO_OTHER if unknown). */
enum dx_op dx_decode(const char *opcode);

/* ---- quick.c, affine.c: thread conditions without the solver ------------ */

/* The second thread of a pair query (race.c): a bv32 variable per dim. */
#define DX_T2VAR(d)        ((0xD2ull << 40) | (uint64_t)(d))
#define DX_IS_T2VAR(id)    (((id) >> 40) == 0xD2)
/* Decides cond (as dx_sat) by evaluation or the affine prover: SMT_SAT
 * (with a witness in tid/ctaid when non-NULL), SMT_UNSAT, or -1 when it
 * cannot tell.  Exact: the answers are the solver's. */
int dx_quick_sat(struct dx_launch *L, const struct expr *cond, uint32_t tid[3], uint32_t ctaid[3]);
/* A thread expression compiled for evaluation at many points (eprog_run,
 * eprog_uses, eprog_free): a point is tid[3], ctaid[3], the second
 * thread's tid[3], DX_NCOORD slots; NULL when it has leaves other than
 * constants and coordinates, or is too large. */
#define DX_NCOORD 9
struct eprog *dx_qprog_new(const struct expr *e);
/* True when no thread of the launch satisfies cond, shown by linear
 * reasoning over the coordinates; false when that cannot be shown. */
bool dx_affine_unsat(struct dx_launch *L, const struct expr *cond);
/* The same for many boxes of the coordinates (branch and bound): cond
 * prepared once (NULL when it cannot be), then shown empty within the
 * box lo[k] <= x_k <= hi[k] of each coordinate (NULL: the geometry). */
struct dx_affine;
struct dx_affine *dx_affine_new(struct dx_launch *L, const struct expr *cond);
bool dx_affine_empty(struct dx_affine *a, const uint32_t *lo, const uint32_t *hi);
void dx_affine_free(struct dx_affine *a);                          /* NULL ok */

/* ---- instr.c ----------------------------------------------------------- */

/* Executes one non-memory, non-control instruction of bundle b.
 * Returns 0, or -1 after dx_unsupported. */
int dx_alu(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in, enum dx_op op);

/* ---- operand.c --------------------------------------------------------- */

/* The sort registers of type t hold: bool, real or bv(bits). */
sort_t dx_sort_of(enum ptx_type t);
/* Operand op read as sort want; NULL after dx_unsupported. */
const struct expr *dx_get(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                          const struct ptx_operand *op, sort_t want);
/* Operand op as it is (a register's expression with its own sort); for a
 * register never written, an undef of the register's sort. */
const struct expr *dx_get_raw(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                              const struct ptx_operand *op);
/* e coerced to sort want: widths change, constant bits reinterpret, LOAD
 * leaves change type; anything else is unsupported (NULL). */
const struct expr *dx_coerce(struct dx_launch *L, const struct ptx_instr *in,
                             const struct expr *e, sort_t want);
/* Writes v into destination operand op (register or '_'), fitting
 * bitvectors to the register's width.  Returns 0 or -1 (unsupported). */
int dx_set(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
           const struct ptx_operand *op, const struct expr *v);
/* A real constant from IEEE bits of width 16/32/64; NULL (after
 * dx_unsupported) for infinities and NaNs, which reals lack. */
const struct expr *dx_real_bits(struct dx_launch *L, const struct ptx_instr *in,
                                uint64_t bits, unsigned width);

/* The variable a DX_SYMVAR index names. */
const struct ptx_var *dx_var(struct dx_launch *L, uint32_t index);

/* ---- mem.c ------------------------------------------------------------- */

/* ld/ldu/st/cvta of bundle b; guard is the instruction's predicate value
 * (NULL when it has none), for a store with the data condition of the arm
 * b runs (dx_arm_cond) and'ed in; a load takes that from b.  The bounds
 * of an access are checked for the threads that may make it; under a
 * condition on data, one that may be out of bounds is a finding too.
 * Returns 0 or -1 (unsupported). */
int dx_load(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
            const struct expr *guard);
int dx_store(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
             const struct expr *guard);

/* Store-to-load forwarding over the stores list s for an access of vin at
 * off (bv64) of size bytes read as et by the threads of dom: *out is the
 * newest matching store's value merged with older ones where a store was
 * conditional, miss where nothing older matches, or NULL when no store
 * overlaps.  0 or -1 (unsupported). */
int dx_forward(struct dx_launch *L, const struct ptx_instr *in, const struct expr *dom,
               const struct dx_store *s, uint32_t vin, const struct expr *off, unsigned size,
               enum etype et, const struct expr *miss, const struct expr **out);

/* dx_forward for a load whose buffer the launch writes: where the
 * thread's own stores may overlap the load in a way forwarding cannot
 * follow (some threads' offsets equal, others not), 1 and nothing marked
 * unsupported: the back-projection decides per thread (gread.c). */
int dx_forward_soft(struct dx_launch *L, const struct ptx_instr *in, const struct expr *dom,
                    const struct dx_store *s, uint32_t vin, const struct expr *off, unsigned size,
                    enum etype et, const struct expr *miss, const struct expr **out);

/* The target of an atomic access of size bytes through address operand
 * aop by the threads of dom (thread-only): shared memory (*shared, *off
 * in the window) or a global buffer (*vin read, *vout written, *off);
 * the bounds are checked as for a store.  0, 1 after a finding (skip the
 * access), -1 unsupported. */
int dx_atomic_target(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                     const struct ptx_operand *aop, const struct expr *dom, unsigned size,
                     bool data_guard, bool *shared, uint32_t *vin, uint32_t *vout,
                     const struct expr **off);

/* ---- atomic.c: atom and red (dexec(1)) --------------------------------------- */

/* The pseudo-instruction of a rolled-up compare-and-swap loop:
 * dirigo.red.SPACE.OP.TYPE [addr], x (OP max, min or add on f32/f64). */
#define DX_OP_RED "dirigo.red"
/* Before execution: rolls up the compare-and-swap loops of nvcc's
 * atomicMax/atomicMin-on-float idiom into DX_OP_RED and marks the atom
 * instructions whose result is read (L->aused).  Returns the number of
 * loops rolled up. */
unsigned dx_atomic_prepare(struct dx_launch *L, struct dx_func *df);
/* Executes atom/red/dirigo.red of bundle b under guard (NULL: none): an
 * atomic contribution to the launch's write set (global) or to the
 * block's shared writes of the epoch.  Returns 0 or -1 (unsupported). */
int dx_atomic(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
              const struct expr *guard);
/* After execution: plain stores and atomics on one global location that
 * nothing orders are a "global-race" finding (race.c); a value updated
 * atomically must not also be read by the launch (what a read sees
 * depends on the order).  0 or -1. */
int dx_atomic_finish(struct dx_launch *L);
/* Records a global store or atomic of bundle b for the race check. */
void dx_global_access(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                      uint32_t vin, uint32_t vout, const struct expr *dom, const struct expr *off,
                      unsigned size, bool atomic, bool sure);

/* ---- merge.c: branches whose arms rejoin (on data; on threads, no stores) - */

/* Bundle b is at instruction in, a branch on the data condition g: runs
 * its arms in turn (the fall-through one first; b->pc is set) to merge
 * them where they rejoin.  -1 after dx_unsupported when they cannot be
 * merged: a loop exit ("loop exit depends on data"), or a barrier, warp
 * operation, atomic or exit before the join ("data-dependent branch"). */
int dx_merge_branch(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                    const struct expr *g);
/* A branch on tid/ctaid (g over threads only) whose arms rejoin with no
 * store, barrier, warp operation, atomic or exit on the way: the bundle
 * runs the arms in turn, each with its domain cut to the threads that
 * take it, and merges the registers at the join, instead of splitting in
 * two for the rest of the kernel.  Arms with branches of their own are
 * merged only when both is set (the caller found threads on both sides).
 * 1 when it does, 0 when the branch is not such a one. */
int dx_merge_thread_branch(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                           const struct expr *g, bool both);
/* Takes b back to the branch on threads whose arm it runs, which is then
 * split as any (an arm needs a split or branches on data, or leaves an
 * index, pointer or predicate over the threads that differs between the
 * arms and is live at the join): true; false when b runs no arm on
 * threads (then it may split where it is).  Arms make no stores, so the
 * registers, domain and pc (the branch, in) are all there is to restore. */
bool dx_thread_arm_undo(struct dx_launch *L, struct dx_bundle *b);
/* Called before each instruction of a bundle running arms: at a join,
 * goes on to the taken arm or merges the registers (ite over the branch
 * condition).  0 or -1 (unsupported). */
int dx_merge_join(struct dx_launch *L, struct dx_bundle *b);
/* The data condition under which the bundle's current instruction runs
 * (every enclosing arm's), or NULL outside arms: it guards stores and is
 * assumed by bounds checks. */
const struct expr *dx_arm_cond(const struct dx_bundle *b);
void dx_merge_free(struct dx_merge *m);              /* NULL ok */

/* ---- fold.c ------------------------------------------------------------ */

/* e with the thread-index arithmetic the launch geometry decides folded
 * (signed division and rounding of nonnegative indices, masks of values
 * below the mask, comparisons the bounds decide): the same value for
 * every thread of the launch.  Bounded: past its node budget the rest of
 * e is kept as it is. */
const struct expr *dx_fold(struct dx_launch *L, const struct expr *e);
/* dom and c, where a conjunct of dom that c implies is dropped, or dom
 * itself when a conjunct implies c (comparisons of one left side against
 * right sides a constant apart: a loop's exit tests over its trips). */
const struct expr *dx_dom_and(struct dx_launch *L, const struct expr *dom, const struct expr *c);

/* ---- report.c ---------------------------------------------------------- */

/* Marks the launch unsupported (the first reason wins) and returns -1.
 * what is short ("data-dependent branch"); the message is built from it,
 * the kernel, the PTX line and the .cu line of in (NULL: none).  After
 * the deadline it marks nothing: the launch is a timeout, whatever made
 * the caller give up (a solver query interrupted by the clock). */
int dx_unsupported(struct dx_launch *L, const struct ptx_instr *in, const char *what,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Marks the launch as stopped by the deadline (the first call wins),
 * recording what it was doing (L->phase at L->cur) for the timeout
 * record.  Returns -1. */
int dx_timeout(struct dx_launch *L);
/* Has the deadline passed?  Looks at the clock every few calls; marks
 * the launch (dx_timeout) when it has. */
bool dx_out_of_time(struct dx_launch *L);
/* Appends a finding of class cls for instruction in at witness thread;
 * value/off describe the access (value NO_VALUE: none).  One finding a
 * class per instruction and launch: when the launch has one already (a
 * loop out of bounds at every iteration), nothing is added and the
 * result is NULL, else the new finding, for the caller to complete. */
struct sym_finding *dx_finding(struct dx_launch *L, const struct ptx_instr *in, const char *cls,
                const uint32_t tid[3], const uint32_t ctaid[3],
                uint32_t value, int64_t off, const char *message);
/* "ld.global.nc.f32": the opcode and modifiers of in; in L's arena. */
const char *dx_instr_name(struct dx_launch *L, const struct ptx_instr *in);
/* "add.cu:12" for the .loc of in, or NULL; in L's arena. */
const char *dx_src(struct dx_launch *L, const struct ptx_instr *in);
/* The name people know a value by in this launch: "arg 'c'" or
 * "symbol 'poly'"; in L's arena. */
const char *dx_value_name(struct dx_launch *L, uint32_t value);

/* ---- opaque.c: values without exact meaning (expr.h, "Opaque values") ---- */

/* Prepares L->cx for the bit idioms: which loads hold floats of the host. */
void dx_opaque_init(struct dx_launch *L);
/* Does value v of o hold bytes from the host or a torch op (an integer
 * read of it resolves as recorded contents), following copies, rather
 * than a kernel's stores or nothing?  What a launch gives depends on it
 * (the cache's key holds it per buffer). */
bool dx_value_from_host(const struct obligation *o, uint32_t v);
/* Byte at of value v when its versions make it a constant (data or memset,
 * through the versions before it): true with *byte set.  Reads of
 * __constant__ variables the host wrote are folded to these bytes
 * (mem.c), so the launch cache keys them (cache.c). */
bool dx_value_byte(const struct obligation *o, uint32_t v, uint64_t at, uint8_t *byte);

/* The tag of the opaque values instruction in makes for reason what (one
 * entry of L->opaques per instruction and reason). */
uint64_t dx_opaque_tag(struct dx_launch *L, const struct ptx_instr *in, const char *what);
/* Gives every destination of in an opaque value of its sources (what:
 * why it has no exact meaning).  For an instruction that is not a pure
 * function of its register operands (memory, control, warp, carry flag),
 * marks the launch unsupported instead.  0 or -1. */
int dx_opaque_instr(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in, const char *what);
/* A fresh unknown for a read of special register name (without '%'). */
const struct expr *dx_opaque_sreg(struct dx_launch *L, const struct ptx_instr *in, const char *name);
/* For messages: "an opaque value (bit reinterpretation at PTX line 12,
 * x.cu:4: mov.b32 %r1, %f1;)" for the first opaque value of e. */
const char *dx_opaque_name(struct dx_launch *L, const struct expr *e);

/* ---- shared.c: shared memory and block barriers (paper 3.3.3) ------------ */

struct dx_shared;
/* Lays out the kernel's shared variables (static ones in order, extern
 * ones after them, sized by the launch's dynamic shared memory) and
 * prepares the epoch state.  Returns 0 or -1 (unsupported). */
int dx_shared_init(struct dx_launch *L);
void dx_shared_free(struct dx_shared *sh);            /* NULL ok */
/* Does addr (an address expression) point into shared memory? */
bool dx_shared_addr(struct dx_launch *L, const struct expr *addr);
/* The offset in the block's shared window of addr, checked against the
 * bounds of the variable it is based on for every thread of dom (an
 * "oob-shared" finding when not: returns 1; data_guard: dom holds a
 * condition on data, which the message names).  0 with *off, or -1. */
int dx_shared_target(struct dx_launch *L, const struct ptx_instr *in, const struct expr *addr,
                     const struct expr *dom, unsigned size, bool is_store, bool data_guard,
                     const struct expr **off);
/* The value bundle b reads at shared offset off (its own stores of this
 * epoch forwarded, else a LOAD of the epoch's shared view); NULL after
 * dx_unsupported.  Records the access. */
const struct expr *dx_shared_read(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                                  const struct expr *dom, const struct expr *off, enum etype et);
/* Records a store of v (already merged for a data guard) at off by the
 * threads of dom; guard is the thread-only guard (NULL if none). */
void dx_shared_write(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                     const struct expr *dom, const struct expr *off, const struct expr *v,
                     enum etype et, const struct expr *guard);
/* Records an atomic contribution (op, enum sym_atom_op) of v at off by
 * the threads of dom (whose data part guards it); tdom is its thread
 * part, for the race check (a plain store or load of the same epoch to
 * the location races with it, another atomic does not). */
void dx_shared_atomic(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                      const struct expr *dom, const struct expr *tdom, const struct expr *off,
                      const struct expr *v, const struct expr *cmp, enum etype et, unsigned op);
/* The shared writes made so far (for the record) and the window size. */
const struct sym_shwrite *dx_shared_writes(const struct dx_launch *L, uint32_t *n, uint64_t *bytes);
/* Releases the bundles waiting at block barriers (every waiting bundle
 * is at a bar.sync): checks the epoch for races and the block for
 * divergence, commits the epoch, and moves them back to the worklist.
 * Returns 0 or -1 (unsupported). */
int dx_barrier_release(struct dx_launch *L);
/* Called at the end of a launch: checks the last epoch for races. */
void dx_shared_finish(struct dx_launch *L);
/* Is the barrier instruction in supported (bar.sync/barrier.sync with the
 * whole block)?  0, or -1 after dx_unsupported. */
int dx_barrier_check(struct dx_launch *L, const struct ptx_instr *in);

/* ---- race.c: overlapping accesses of one epoch ------------------------------ */

/* One shared access of the current epoch. */
struct dx_acc {
	const struct expr *dom;      /* threads that make it */
	const struct expr *off;      /* bv64 offset in the shared window */
	unsigned size;
	bool write;
	bool atomic;                 /* an atomic (not a write here): races with plain accesses only */
	uint32_t sub;                /* warp epoch of the bundle */
	const struct ptx_instr *in;
};
/* Checks every pair of accesses (one a write at least, or an atomic and
 * a plain access) for a thread pair of one block: different warps =
 * "shared-race", one warp in the same warp epoch = "warp-sync".  found[0], found[1] say whether each class was
 * already reported (then it is not checked again). */
void dx_race_check(struct dx_launch *L, const struct dx_acc *acc, size_t n, bool found[2]);
void dx_race_seen_free(struct dx_race_seen *s);                    /* NULL ok */
/* race-enum.c: the pairs of one epoch's accesses that may race, found by
 * trying every thread of a block (accesses whose offsets do not depend
 * on the block).  dx_race_enum_new returns NULL when it cannot help. */
struct dx_race_enum;
struct dx_race_enum *dx_race_enum_new(struct dx_launch *L, const struct dx_acc *acc, size_t n,
                                      const bool found[2]);
/* For accesses i and j and kind (0 shared-race, 1 warp-sync): 0 no
 * thread pair races, 1 a race with its threads (t1 of access i, t2 of
 * access j; any block), -1 undecided here (ask the solver). */
int dx_race_enum_pair(struct dx_race_enum *re, size_t i, size_t j, unsigned kind,
                      uint32_t t1[3], uint32_t t2[3]);
void dx_race_enum_free(struct dx_race_enum *re);                  /* NULL ok */
/* The launch's memo of block offsets (dx_enum_overlap's). */
void dx_ents_memo_free(struct dx_ents_memo *m);                   /* NULL ok */
/* Do a thread of (dom1, off1) and a thread of (dom2, off2) of one block
 * (the same thread allowed) touch overlapping bytes (s1, s2 bytes from
 * each offset)?  1 yes, with the threads and the block; 0 no; -1 cannot
 * tell without the solver. */
int dx_enum_overlap(struct dx_launch *L, const struct expr *dom1, const struct expr *off1, unsigned s1,
                    const struct expr *dom2, const struct expr *off2, unsigned s2,
                    uint32_t t1[3], uint32_t t2[3], uint32_t c[3]);
/* Checks every pair of a plain global store and an atomic to one value
 * (L->gacc) for two threads that touch overlapping bytes with nothing to
 * order them: of different blocks (no grid-wide barrier), or of one
 * block in one barrier epoch.  One "global-race" finding at most, and
 * only for accesses that surely happen. */
void dx_global_race_check(struct dx_launch *L);
/* The same over the whole grid: e with both coordinates renamed to a
 * second thread anywhere in the grid; "the second thread is in the
 * thread's block" (thread: and is the thread itself); e at a concrete
 * pair; and the pair query (as dx_sat2; t1 NULL: no witness asked). */
const struct expr *dx_other_grid(struct dx_launch *L, const struct expr *e);
/* "the second thread is in the thread's warp" (with dx_same2(L, false)). */
const struct expr *dx_same_warp2(struct dx_launch *L);
/* A volatile, relaxed, acquire or release access: not a data race with
 * another such access (PTX memory model: morally strong). */
bool dx_strong(const struct ptx_instr *in);
const struct expr *dx_same2(struct dx_launch *L, bool thread);
const struct expr *dx_at_pair(struct dx_launch *L, const struct expr *e, const uint32_t t1[3],
                              const uint32_t c1[3], const uint32_t t2[3], const uint32_t c2[3]);
enum smt_result dx_sat_grid2(struct dx_launch *L, const struct expr *cond, uint32_t t1[3],
                             uint32_t c1[3], uint32_t t2[3], uint32_t c2[3]);
/* Thread-pair queries: e with its threads renamed to a second thread of
 * the same block (TID leaves become variables bounded by the block), and
 * the witness of a pair condition made with it.  dx_sat2 returns as
 * dx_sat; on SAT t1/c1 and t2 (c2 = c1) hold the pair. */
const struct expr *dx_other(struct dx_launch *L, const struct expr *e);
enum smt_result dx_sat2(struct dx_launch *L, const struct expr *cond,
                        uint32_t t1[3], uint32_t c1[3], uint32_t t2[3]);
/* The linear thread index in the block and the warp of a thread. */
const struct expr *dx_lin_tid(struct dx_launch *L, const struct expr *tx, const struct expr *ty,
                              const struct expr *tz);

/* ---- gread.c: global loads of buffers the launch writes -------------------- */

struct dx_gread;
/* May the launch store to value vin (through a pointer argument)?  A
 * static look at the kernel (which parameters' pointers can reach a
 * store address), made once; *vout is the value the launch writes. */
bool dx_gread_may_write(struct dx_launch *L, uint32_t vin, uint32_t *vout);
/* What bundle b reads at byte offset off of buffer vin (written as vout)
 * as et, for the threads of dom (thread-only; sure: no data guard): the
 * thread's own stores forwarded, or a LOAD leaf of SYM_GREAD_SPACE
 * settled when the launch ends.  NULL after dx_unsupported. */
const struct expr *dx_gread_load(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
                                 const struct expr *dom, uint32_t vin, uint32_t vout,
                                 const struct expr *off, enum etype et, bool sure);
/* After execution: settles every read (the buffer before the launch or
 * the thread's own store where no other thread's store can reach the
 * location; else the leaf stays for the back-projection, and a pair of
 * threads shown to race is a "global-race" finding) and rewrites the
 * write set.  0 or -1 (unsupported). */
int dx_gread_finish(struct dx_launch *L);
/* The table of the reads left (the record's "reads"). */
const struct sym_gread *dx_greads(const struct dx_launch *L, uint32_t *n);
/* The value read by a SYM_GREAD_SPACE leaf e of this launch (NO_VALUE if
 * e is none). */
uint32_t dx_gread_vin(const struct dx_launch *L, const struct expr *e);
void dx_gread_free(struct dx_gread *g);              /* NULL ok */

/* ---- warp.c: warp primitives (paper 3.3.4) ---------------------------------- */

/* Resolves the group of bundles waiting at warp instruction pc (shfl,
 * vote, activemask, bar.warp.sync): computes every member's result from
 * the members holding the partner lanes, and moves them on.  0 or -1. */
int dx_warp_release(struct dx_launch *L, unsigned pc);
/* Where e may be undefined (a shuffle read an inactive lane): a bool over
 * the thread, false when never.  Data conditions count as possibly true. */
const struct expr *dx_undef_cond(struct dx_launch *L, const struct expr *e);
/* Checks that v, used at a sink (stored value, address, branch) by the
 * threads of dom, is never undefined: 0 if so, 1 after a "shfl-undef"
 * finding, -1 unsupported. */
int dx_undef_sink(struct dx_launch *L, const struct ptx_instr *in, const struct expr *dom,
                  const struct expr *v, const char *what);

/* ---- prepare.c, call.c, local.c, rollup.c: before execution ------------ */

/* The function a launch executes: the kernel with its calls inlined,
 * its .local variables given slot registers and nvcc's transcendental
 * idioms rolled up (paper 4.1).  L->fn points at f: dx_prepare always
 * makes one, so dx_func_of(L->fn) is valid during execution. */
struct dx_func {
	struct ptx_func f;           /* first member */
	uint32_t *slot;              /* per f.vars[i]: first slot register of a
	                                .local variable, UINT32_MAX if none */
	int cc_reg;                  /* the carry flag register (add.cc), or -1 */
};
#define dx_func_of(fn) ((const struct dx_func *)(fn))

/* Opcodes beyond enum dx_op, decoded by dx_decode_ext (instr.c): the
 * pseudo-instructions of the pre-passes and the rarer integer ops. */
enum dx_op_ext {
	DO_FUN = DO__COUNT,          /* dirigo.fun d, EF, x[, y]: d = EF(x[, y]) */
	DO_NOP,                      /* dirigo.nop: an instruction rolled up */
	DO_LDL, DO_STL,              /* ld.local / st.local on slot registers */
	DO_BFIND, DO_BFE, DO_BFI, DO_PRMT, DO_MUL24, DO_MAD24,
	DO_ADDC, DO_SUBC,            /* addc/subc; add.cc/sub.cc are DO_ADD/DO_SUB */
	DO_TESTP,
	DO_FENCE,                    /* membar, fence.sc / fence.acq_rel: a no-op (instr.c) */
	DO_EXT__COUNT
};
/* Opcode names of the pseudo-instructions. */
#define DX_OP_FUN "dirigo.fun"
#define DX_OP_NOP "dirigo.nop"
#define DX_OP_LDL "dirigo.ldl"
#define DX_OP_STL "dirigo.stl"

/* The opcode of a name that dx_decode does not know (DO_OTHER if none). */
int dx_decode_ext(const char *opcode);

/* Builds the function launch L executes from kernel fn (in L's arena).
 * On a construct it cannot prepare (recursion, a call through a pointer,
 * a parameter layout it does not understand) it marks L unsupported and
 * returns fn itself wrapped so that nothing runs. */
const struct ptx_func *dx_prepare(struct dx_launch *L, const struct ptx_func *fn);

/* call.c: inlines every call of df (recursively; recursion and calls
 * without a body are unsupported).  Returns 0 or -1 (unsupported). */
int dx_inline_calls(struct dx_launch *L, struct dx_func *df);
/* local.c: gives each .local variable of df slot registers and turns
 * ld.local/st.local into DO_LDL/DO_STL.  Returns 0 or -1. */
int dx_local_prepare(struct dx_launch *L, struct dx_func *df);
/* local.c: executes DO_LDL/DO_STL for bundle b.  Returns 0 or -1. */
int dx_local_access(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in, bool store);
/* rollup.c: replaces each recognised transcendental idiom of df by a
 * DO_FUN pseudo-instruction (and DO_NOPs).  Returns the number rolled up. */
unsigned dx_rollup(struct dx_launch *L, struct dx_func *df);

/* prepare.c: helpers for the passes.  Adds a register (name copied into
 * L's arena) and returns its index. */
int dx_func_add_reg(struct dx_launch *L, struct dx_func *df, const char *name, enum ptx_type t);

/* Undef tags of the non-finite float constants (operand.c): -inf and
 * +inf are kept as distinguished undefined reals that max (-inf) and min
 * (+inf) absorb; every other use is unsupported. */
#define DX_UNDEF_NINF E_UNDEF_NINF
#define DX_UNDEF_PINF E_UNDEF_PINF

#endif
