/*
 * dexec.h: internals of dexec, the symbolic executor of kernel launches
 * (paper 3.3).  Private to dexec/: nothing outside includes it.
 *
 * One launch is executed by a worklist of bundles (logical threads).  A
 * bundle stands for the threads whose (tid, ctaid) satisfy its domain, a
 * bool expression over TID/CTAID.  Registers hold expressions; a branch on
 * a thread-dependent predicate splits the bundle.  Global stores append
 * to the launch's write set; loads become LOAD leaves of the value read.
 *
 * Files: main.c (options, stream), run.c (obligation: modules, launches,
 * records), exec.c (bundles, branching, budgets, solver memo), instr.c
 * (arithmetic, logic, conversions, comparisons), operand.c (registers,
 * immediates, special registers, sort coercions), mem.c (parameters,
 * loads, stores, bounds, store-to-load forwarding), report.c (findings and
 * unsupported records with their messages).
 */
#ifndef DIRIGO_DEXEC_H
#define DIRIGO_DEXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "expr.h"
#include "obligation.h"
#include "ptx/ptx.h"
#include "smt.h"
#include "symbolic.h"

struct dx_opts {
	uint64_t budget_steps;       /* instruction steps per launch */
	uint32_t max_bundles;        /* bundles per launch */
	unsigned smt_timeout_ms;     /* per solver query */
	bool timing;                 /* record the execution time ("ms") */
};

#define DX_DEFAULT_STEPS    50000000ull
#define DX_DEFAULT_BUNDLES  65536u

/* Variable ids for the addresses of module variables (__constant__,
 * __device__, .shared): DX_SYMVAR(i) is the address of module->vars[i],
 * DX_SYMVAR(DX_FNVAR | i) that of the kernel's fn->vars[i].  They never
 * reach a record: an access through one is resolved or refused. */
#define DX_SYMVAR(i)        ((0xD1ull << 40) | (uint64_t)(i))
#define DX_IS_SYMVAR(id)    (((id) >> 40) == 0xD1)
#define DX_SYMVAR_INDEX(id) ((uint32_t)(id))
#define DX_FNVAR            0x80000000u   /* index bit: fn->vars, not module->vars */

/* A store a bundle made, for store-to-load forwarding: an immutable list
 * (newest first) shared by the bundles split from one another. */
struct dx_store {
	const struct dx_store *next;
	uint32_t vin;                /* the value the store's buffer held */
	const struct expr *off;      /* bv64 byte offset */
	const struct expr *val;      /* what was stored (after any merge) */
	const struct expr *guard;    /* thread condition of the store, or NULL */
	unsigned size;               /* bytes */
};

struct dx_bundle {
	const struct expr *dom;      /* which threads this bundle stands for */
	unsigned pc;                 /* next instruction */
	const struct expr **regs;    /* fn->nregs, NULL = never written (heap) */
	const struct dx_store *stores;
	uint32_t seq;                /* stores made so far (program order) */
};

struct dx_memo;                      /* solver answers by condition */

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
	const struct expr **scratch; /* fn->nregs, for predicated execution */

	/* results */
	VEC(struct sym_write) writes;
	VEC(struct sym_finding) findings;
	bool unsup;
	struct sym_unsupported uns;
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
 * (NULL when it has none).  Returns 0 or -1 (unsupported). */
int dx_load(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
            const struct expr *guard);
int dx_store(struct dx_launch *L, struct dx_bundle *b, const struct ptx_instr *in,
             const struct expr *guard);

/* ---- report.c ---------------------------------------------------------- */

/* Marks the launch unsupported (the first reason wins) and returns -1.
 * what is short ("data-dependent branch"); the message is built from it,
 * the kernel, the PTX line and the .cu line of in (NULL: none). */
int dx_unsupported(struct dx_launch *L, const struct ptx_instr *in, const char *what,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Appends a finding of class cls for instruction in at witness thread;
 * value/off describe the access (value NO_VALUE: none). */
void dx_finding(struct dx_launch *L, const struct ptx_instr *in, const char *cls,
                const uint32_t tid[3], const uint32_t ctaid[3],
                uint32_t value, int64_t off, const char *message);
/* "ld.global.nc.f32": the opcode and modifiers of in; in L's arena. */
const char *dx_instr_name(struct dx_launch *L, const struct ptx_instr *in);
/* "add.cu:12" for the .loc of in, or NULL; in L's arena. */
const char *dx_src(struct dx_launch *L, const struct ptx_instr *in);
/* The name people know a value by in this launch: "arg 'c'" or
 * "symbol 'poly'"; in L's arena. */
const char *dx_value_name(struct dx_launch *L, uint32_t value);

#endif
