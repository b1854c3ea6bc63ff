/*
 * expr.h: the hash-consed expression DAG shared by every stage.
 *
 * An expression is an immutable node in an expression context (struct ectx);
 * structurally equal expressions are the same pointer, so equality is ==.
 * Constructors simplify as they build (constant folding, affine
 * normalisation of bitvector sums, flattening and ordering of commutative
 * real operations), so callers never simplify by hand.
 *
 * Sorts: bool, bitvector of width 1..64, real.  Floats of every width are
 * modelled as reals (paper 3.3.1); their source type is kept only where a
 * concrete evaluation needs it (elem/load leaves, conversions).
 *
 * Memory: every node lives in the context's arena and dies with ectx_free.
 */
#ifndef DIRIGO_EXPR_H
#define DIRIGO_EXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "libcommon/arena.h"

/* A sort packed into 16 bits: kind in the low byte, bitvector width above. */
typedef uint16_t sort_t;
enum { SK_BOOL = 1, SK_BV = 2, SK_REAL = 3 };
#define SORT_BOOL       ((sort_t)SK_BOOL)
#define SORT_REAL       ((sort_t)SK_REAL)
#define SORT_BV(w)      ((sort_t)(SK_BV | ((w) << 8)))
#define SORT_KIND(s)    ((s) & 0xff)
#define SORT_WIDTH(s)   ((unsigned)(s) >> 8)

/* Element types of memory: what a load/store moves and how a concrete
 * evaluator reads the bytes.  Float types have real sort, the rest bv. */
enum etype {
	ET_NONE = 0,
	ET_U8, ET_S8, ET_U16, ET_S16, ET_U32, ET_S32, ET_U64, ET_S64,
	ET_F16, ET_BF16, ET_F32, ET_F64,
	ET__COUNT
};
unsigned    etype_size(enum etype t);          /* bytes */
bool        etype_is_float(enum etype t);
sort_t      etype_sort(enum etype t);
const char *etype_name(enum etype t);          /* "f32", "s32", ... */
enum etype  etype_parse(const char *name);     /* ET_NONE if unknown */

enum eop {
	/* leaves */
	EOP_BOOL,      /* u = 0/1 */
	EOP_BV,        /* u = value (masked to width) */
	EOP_REAL,      /* d = value (a double, taken as the exact rational) */
	EOP_TID,       /* u = dim 0..2, bv32 */
	EOP_CTAID,     /* u = dim 0..2, bv32 */
	EOP_ELEM,      /* element of a stored tensor value: space, off, et */
	EOP_INPUT,     /* element of a shared program input: space=input id, off, et */
	EOP_LOAD,      /* unresolved read: space, et; args[0] = byte offset (bv64) */
	EOP_UNDEF,     /* the paper's bottom, of any sort; u = reason tag */
	EOP_VAR,       /* free variable of any sort; u = id (see EVAR_BASE) */

	/* bitvector arithmetic (args and result of one width unless noted) */
	EOP_ADD, EOP_SUB, EOP_MUL, EOP_NEG,
	EOP_UDIV, EOP_SDIV, EOP_UREM, EOP_SREM,   /* x/0 as in SMT-LIB */
	EOP_MULHI_U, EOP_MULHI_S,                 /* high half of the product */
	EOP_SHL, EOP_LSHR, EOP_ASHR,              /* shift counts >= width clamp */
	EOP_AND, EOP_OR, EOP_XOR, EOP_NOT,
	EOP_UMIN, EOP_UMAX, EOP_SMIN, EOP_SMAX,
	EOP_ZEXT, EOP_SEXT,                       /* to the node's width */
	EOP_EXTRACT,                              /* bits [u+width-1 : u] of args[0] */
	EOP_CONCAT,                               /* args[0] high, args[1] low */
	EOP_POPC, EOP_CLZ, EOP_BREV,

	/* comparisons -> bool */
	EOP_EQ,                                   /* any sort (bool: iff) */
	EOP_ULT, EOP_ULE, EOP_SLT, EOP_SLE,       /* bitvectors */
	EOP_FLT, EOP_FLE,                         /* reals */

	/* booleans */
	EOP_LAND, EOP_LOR, EOP_LNOT,              /* n-ary and/or */
	EOP_ITE,                                  /* args: cond, then, else */

	/* reals */
	EOP_FADD, EOP_FMUL,                       /* n-ary, flattened */
	EOP_FSUB, EOP_FNEG, EOP_FDIV,
	EOP_FMIN, EOP_FMAX, EOP_FABS,
	EOP_FUN,                                  /* uninterpreted/real function; u = enum efun */

	/* conversions */
	EOP_S2R, EOP_U2R,                         /* bitvector -> real */
	EOP_R2S, EOP_R2U,                         /* real -> bitvector; u = enum rmode */
	EOP_BOOL2BV,                              /* bool -> bv of node width (1/0) */

	/* values without exact semantics (see "Opaque values" below) */
	EOP_OPAQUE,                               /* u = EOPQ(kind, float type, tag); any sort */

	EOP__COUNT
};

/* Variable ids with a fixed meaning.  EVAR_BASE(v): the (unknown) device
 * address of the buffer holding value v, a bv64; pointer registers in dexec
 * are EVAR_BASE(v) + offset, split again with e_affine at each access. */
#define EVAR_BASE(v)      ((1ull << 40) | (uint64_t)(v))
#define EVAR_IS_BASE(id)  (((id) >> 40) == 1)
#define EVAR_BASE_VALUE(id) ((uint32_t)(id))

/* Mathematical functions of reals, uninterpreted for the solver and
 * evaluated exactly (libm) by the concrete evaluator. */
enum efun {
	EF_SQRT, EF_RSQRT, EF_RCP_APPROX, EF_EXP, EF_EXP2, EF_LOG, EF_LOG2,
	EF_LOG1P, EF_TANH, EF_ERF, EF_POW, EF_SIN, EF_COS, EF_SIGMOID,
	EF_FLOOR, EF_CEIL, EF_TRUNC, EF_RINT,     /* to integral value, as reals */
	EF__COUNT
};
const char *efun_name(enum efun f);
enum efun   efun_parse(const char *name);     /* EF__COUNT if unknown */

enum rmode { RM_RN, RM_RZ, RM_RM, RM_RP };   /* nearest-even, zero, -inf, +inf */
const char *rmode_name(enum rmode m);          /* "rn", "rz", "rm", "rp" */
int         rmode_parse(const char *name);     /* -1 if unknown */

/* Operator names as used in records and messages ("add", "fadd", "tid"). */
const char *eop_name(enum eop op);
enum eop    eop_parse(const char *name);       /* EOP__COUNT if unknown */
/* Sort names: "bool", "real", "bv32".  sort_parse returns 0 if bad. */
const char *sort_name(sort_t s, char buf[8]);
sort_t      sort_parse(const char *name);

struct expr {
	uint16_t op;          /* enum eop */
	sort_t   sort;
	uint8_t  et;          /* enum etype, for ELEM/INPUT/LOAD/conversions */
	uint8_t  nargs;       /* at most E_MAX_ARGS */
	uint8_t  flags;       /* EXPR_F_*: what the subtree mentions */
	uint32_t id;          /* dense, creation order: children have smaller ids */
	uint32_t hash;
	uint32_t space;       /* ELEM/INPUT/LOAD: value or input id */
	uint32_t cxid;        /* ectx_id of the context that owns the node */
	union {
		uint64_t u;   /* BV, BOOL, TID/CTAID dim, EXTRACT low bit, FUN, rmode, VAR id */
		double   d;   /* REAL */
	};
	uint64_t off;         /* ELEM/INPUT: byte offset */
	const struct expr *args[];
};

#define E_MAX_ARGS 255
enum { EXPR_F_THREAD = 1, EXPR_F_DATA = 2, EXPR_F_UNDEF = 4, EXPR_F_OPAQUE = 8 };

/*
 * Opaque values.  An OPAQUE node is an uninterpreted function of its
 * arguments: what an instruction without exact semantics computes from its
 * operands.  Its tag names where it comes from (dexec: launch << 32 | the
 * entry of the launch's table of origins, see dirigo-symbolic(5)); nodes of
 * one tag are one function, so equal arguments give equal values.  An
 * opaque node counts as data (EXPR_F_DATA) and marks everything above it
 * (EXPR_F_OPAQUE): it may flow into values, never into an address or a
 * branch, and a location whose value still holds one is undecided unless
 * it is equal for every meaning of the function.  Concrete evaluation of
 * an opaque node fails.
 *
 * Two kinds are bit reinterpretations of floats of type FT (f16, bf16,
 * f32, f64; W = its width), each a fixed function whatever its tag:
 *   EOPQ_BITS   bvW of one real x: the IEEE bits of x as an FT
 *               (__float_as_int; the real zero has the bits of +0)
 *   EOPQ_FLOAT  real of one bvW k: the FT whose bits are k (__int_as_float)
 * The constructors give them exact meaning where the bits feed a known idiom
 * (expr-bits.c): round trips, sign clear/flip/copy with the sign-bit masks,
 * sign tests, the order-preserving integer key k <s 0 ? k ^ 0x7f..f : k and
 * comparisons, min and max of such keys.
 */
enum eopq_kind { EOPQ_FN = 0, EOPQ_BITS = 1, EOPQ_FLOAT = 2 };
#define EOPQ_TAG_MASK        0x00ffffffffffffffull
#define EOPQ(kind, ft, tag)  (((uint64_t)(kind) << 60) | ((uint64_t)(ft) << 56) | ((tag) & EOPQ_TAG_MASK))
#define EOPQ_KIND(u)         ((enum eopq_kind)((u) >> 60))
#define EOPQ_FT(u)           ((enum etype)(((u) >> 56) & 0xf))
#define EOPQ_TAGOF(u)        ((u) & EOPQ_TAG_MASK)

/*
 * Canonical forms the constructors produce (others may rely on them):
 *  - bitvector sums are affine: one n-ary ADD whose arguments are terms
 *    (sorted by id), each either t or MUL(t, c) with c a constant != 1,
 *    and the constant last (omitted when 0); SUB, NEG and SHL by a constant
 *    never survive.  A sum of more than E_MAX_ARGS terms is an ADD of ADDs.
 *    A product of two non-constants is a MUL with args sorted by id.
 *  - FSUB a b becomes FADD(a, FNEG b); FADD/FMUL are flattened (up to
 *    E_MAX_ARGS arguments), sorted by id, constants folded only where the
 *    result is exact in double, and the constant is last.
 *  - LAND/LOR are flattened, deduplicated and sorted by id.
 *  - Commutative binary ops (AND, OR, XOR, MUL, min/max, EQ) order args by id.
 *  - R2S/R2U saturate to the destination range (NaN gives 0), as PTX cvt.
 *  - Real constants are never -0.0.
 */

struct ectx;

struct ectx *ectx_new(void);
/* A number identifying the context among those alive in the process
 * (every node carries it in cxid); smt uses it to drop stale memos. */
uint32_t ectx_id(const struct ectx *cx);
void ectx_free(struct ectx *cx);              /* NULL ok */
size_t ectx_count(const struct ectx *cx);     /* nodes created */
/* Tells the constructors which LOAD spaces hold floats that a program reads
 * as integers (fn true: e.g. host input): there the key idiom J(k) of an
 * integer load is built on the bits of the float load (expr-bits.c), so
 * that the load resolves as the float it is.  NULL (the default): never. */
void ectx_set_float_mem(struct ectx *cx, bool (*fn)(uint32_t space, void *user), void *user);

/* ---- constructors (all simplify) ---------------------------------------- */

const struct expr *e_bool(struct ectx *cx, bool v);
const struct expr *e_bv(struct ectx *cx, uint64_t v, unsigned width);
const struct expr *e_real(struct ectx *cx, double v);
const struct expr *e_tid(struct ectx *cx, unsigned dim);
const struct expr *e_ctaid(struct ectx *cx, unsigned dim);
const struct expr *e_elem(struct ectx *cx, uint32_t space, uint64_t off, enum etype et);
const struct expr *e_input(struct ectx *cx, uint32_t input, uint64_t off, enum etype et);
/* An unresolved load; if addr is a constant it is still a LOAD (resolution
 * is the caller's business, see e_subst). */
const struct expr *e_load(struct ectx *cx, uint32_t space, enum etype et, const struct expr *addr);
const struct expr *e_undef(struct ectx *cx, sort_t sort);
const struct expr *e_var(struct ectx *cx, uint64_t id, sort_t sort);
/* An undef carrying a reason tag in u (distinct tags: distinct nodes, so
 * the solver treats them as independent unknowns); e_undef is tag 0. */
const struct expr *e_undef_tag(struct ectx *cx, sort_t sort, uint64_t tag);
/* Tags of the undefined reals that stand for the infinite float constants
 * (dexec): max absorbs -inf and min +inf (canon.h); every other use keeps
 * the value undefined. */
#define E_UNDEF_NINF 0xD1F0001ull
#define E_UNDEF_PINF 0xD1F0002ull
/* Whether e is the tagged infinity of that sign (-1, +1; 0: either). */
bool e_is_inf(const struct expr *e, int sign);
/* max (op EOP_FMAX) or min (EOP_FMIN) of a and b with the tagged
 * infinities taken into account: max absorbs -inf (max(-inf, x) = x) and
 * +inf wins, min the other way; a select with an infinite arm, up to depth
 * selects deep, is distributed, max(c ? -inf : v, 0) = c ? 0 : max(v, 0),
 * so that a masked_fill(-inf) before a relu or a max leaves no infinity
 * behind.  (The engine's canonical n-ary max, canon.c, does the same on
 * canonical forms.) */
const struct expr *e_fminmax_inf(struct ectx *cx, enum eop op, const struct expr *a,
                                 const struct expr *b, unsigned depth);

/* Generic constructor: op with n arguments; sort is the result sort where
 * the op does not determine it (ZEXT/SEXT/EXTRACT/R2S/R2U/BOOL2BV/ITE may pass
 * 0 to infer where possible); aux is the u payload (EXTRACT low bit, FUN
 * function, R2S/R2U rounding mode).  Checks argument sorts (abort on misuse:
 * that is a bug in the caller, not bad input). */
const struct expr *e_op(struct ectx *cx, enum eop op, sort_t sort, uint64_t aux,
                        unsigned n, const struct expr *const *args);
/* The checks e_op makes, without aborting: NULL if op(sort, aux, args) is
 * well-formed, else a short message saying what is wrong (static text).
 * Only for non-leaf ops (leaves have their own constructors). */
const char *e_op_check(enum eop op, sort_t sort, uint64_t aux,
                       unsigned n, const struct expr *const *args);
const struct expr *e_op1(struct ectx *cx, enum eop op, sort_t sort, uint64_t aux, const struct expr *a);
const struct expr *e_op2(struct ectx *cx, enum eop op, const struct expr *a, const struct expr *b);
const struct expr *e_ite(struct ectx *cx, const struct expr *c, const struct expr *t, const struct expr *f);
const struct expr *e_not(struct ectx *cx, const struct expr *b);
const struct expr *e_and(struct ectx *cx, const struct expr *a, const struct expr *b);
const struct expr *e_or(struct ectx *cx, const struct expr *a, const struct expr *b);
const struct expr *e_fun(struct ectx *cx, enum efun f, unsigned n, const struct expr *const *args);
/* An opaque value: the uninterpreted function tag of the n arguments, of
 * sort sort (a fresh tag gives a fresh unknown). */
const struct expr *e_opaque(struct ectx *cx, uint64_t tag, sort_t sort, unsigned n,
                            const struct expr *const *args);
/* The bits of real a as float type ft (a bitvector of ft's width), or the
 * float of type ft whose bits are bitvector a (a real), tagged with tag;
 * exact where an idiom of expr-bits.c applies, constants folded.  NULL if
 * ft is not a float type or a's sort does not fit it. */
const struct expr *e_reinterp(struct ectx *cx, uint64_t tag, const struct expr *a, enum etype ft);
/* Width change: zero/sign extend or truncate as needed. */
const struct expr *e_resize(struct ectx *cx, const struct expr *a, unsigned width, bool is_signed);

/* ---- queries ------------------------------------------------------------- */

bool e_is_const(const struct expr *e);               /* BOOL, BV or REAL leaf */
bool e_is_true(const struct expr *e);
bool e_is_false(const struct expr *e);
/* True if e mentions TID/CTAID (threads), LOAD/ELEM/INPUT (data), UNDEF. */
bool e_has_thread(const struct expr *e);
bool e_has_data(const struct expr *e);
bool e_has_undef(const struct expr *e);
bool e_has_opaque(const struct expr *e);
/* The first OPAQUE node below e (depth first, arguments in order), or NULL. */
const struct expr *e_first_opaque(const struct expr *e);

/* An affine view of a bitvector expression: const + sum coef_i * term_i
 * (mod 2^width), where terms are non-constant, non-sum subexpressions.
 * Returns the number of terms (at most max), or -1 if there are more. */
struct affine_term { const struct expr *term; uint64_t coef; };
int e_affine(const struct expr *e, uint64_t *konst, struct affine_term *terms, int max);

/* ---- substitution and evaluation ----------------------------------------- */

/* Rebuilds e bottom-up, replacing each leaf (and each LOAD after its address
 * has been rebuilt) by fn's answer; fn returns NULL to keep the node.  The
 * result is simplified.  Memoised within one call. */
typedef const struct expr *(*e_leaf_fn)(struct ectx *cx, const struct expr *leaf, void *user);
const struct expr *e_subst(struct ectx *cx, const struct expr *e, e_leaf_fn fn, void *user);
/* The same substitution over many roots, each node rebuilt once however
 * many of the roots share it; only nodes with a data leaf (ELEM, INPUT,
 * LOAD) below them are entered, so fn sees only those leaves.  The memo
 * lives until e_subst_many_free (NULL ok). */
struct e_subst_many;
struct e_subst_many *e_subst_many_new(struct ectx *cx, e_leaf_fn fn, void *user);
const struct expr *e_subst_many(struct e_subst_many *s, const struct expr *e);
void e_subst_many_free(struct e_subst_many *s);
/* Substitute concrete thread coordinates (tid[3], ctaid[3]).  Parts that
 * depend on the coordinates and integer constants alone (addresses,
 * thread conditions) are computed, not built node by node. */
const struct expr *e_at_thread(struct ectx *cx, const struct expr *e,
                               const uint32_t tid[3], const uint32_t ctaid[3]);
/* The same for many expressions at one thread, each node computed once
 * however many of them share it (the memo lives until
 * e_thread_memo_free, NULL ok; e_thread_memo_size: nodes it holds). */
struct e_thread_memo;
struct e_thread_memo *e_thread_memo_new(struct ectx *cx, const uint32_t tid[3], const uint32_t ctaid[3]);
const struct expr *e_thread_memo_at(struct e_thread_memo *m, const struct expr *e);
bool e_thread_memo_is(const struct e_thread_memo *m, const uint32_t tid[3], const uint32_t ctaid[3]);
size_t e_thread_memo_size(const struct e_thread_memo *m);
void e_thread_memo_free(struct e_thread_memo *m);

/* Concrete evaluation.  Reals are computed in the chosen precision, rounding
 * after every operation (F32: IEEE binary32, as the GPU would; F64; or
 * EXACT: long double, a best effort for comparing with the solver). */
enum emode { EM_F32, EM_F64, EM_EXACT };
struct evalue { uint64_t u; long double r; bool b; bool undef; };
/* Values of leaves (ELEM, INPUT, LOAD with constant address, VAR, TID, ...):
 * fill *out and return true, or return false (evaluation fails). */
typedef bool (*e_leaf_val_fn)(const struct expr *leaf, struct evalue *out, void *user);
bool e_eval(const struct expr *e, enum emode mode, e_leaf_val_fn fn, void *user, struct evalue *out);
/* One node's value from its arguments' values (av[i] for x->args[i]; a
 * LOAD's address is not evaluated): what e_eval does at each node, for a
 * caller that evaluates one DAG at many points without the per-call
 * bookkeeping of e_eval. */
bool e_eval_node(const struct expr *x, enum emode mode, e_leaf_val_fn fn, void *user,
                 const struct evalue *const *av, struct evalue *out);
/* One real function in the precision of mode (y: pow's exponent). */
long double efun_eval(enum efun f, enum emode mode, long double x, long double y);
/* One expression evaluated (EM_EXACT) at many points (expr-prog.c): a
 * point is an array of 32-bit slots, and slot(leaf) says which slot a
 * leaf that is not a constant takes (< 16), or -1.  eprog_new is NULL
 * where a leaf has no slot, e mentions data or undefined values, holds a
 * LOAD, or has more than max_nodes nodes; eprog_run is NULL where a node
 * cannot be evaluated or the value is undefined (the value lives until
 * the next run).  A run computes again only the nodes that depend on a
 * slot changed since the last run. */
struct eprog;
typedef int (*eprog_slot_fn)(const struct expr *leaf, void *user);
/* The slot of a thread's coordinates: tid.x..z 0-2, ctaid.x..z 3-5. */
int eprog_thread_slot(const struct expr *leaf, void *user);
struct eprog *eprog_new(const struct expr *e, eprog_slot_fn slot, void *user, uint32_t max_nodes);
bool eprog_uses(const struct eprog *p, unsigned slot);
const struct evalue *eprog_run(struct eprog *p, const uint32_t *x);
void eprog_free(struct eprog *p);                                  /* NULL ok */

/* ---- printing and serialization ------------------------------------------ */

/* Human-readable infix text, e.g. "(in0[12] + in1[12]) * 2"; long
 * expressions are cut with "..." after max bytes. */
char *e_print(struct arena *a, const struct expr *e, size_t max);

/* A table of nodes in topological order, for records: e_table_add returns
 * the node's index in the table (adding its children first). */
struct etable;
struct etable *etable_new(void);
void etable_free(struct etable *t);
uint32_t etable_add(struct etable *t, const struct expr *e);
uint32_t etable_len(const struct etable *t);
const struct expr *etable_get(const struct etable *t, uint32_t i);
/* Index of a node already in the table, or UINT32_MAX. */
uint32_t etable_index(const struct etable *t, const struct expr *e);

#endif
