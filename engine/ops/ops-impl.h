/*
 * ops-impl.h: what the op families share: the value algebra the formulas
 * are written against, index helpers, attribute readers.  Internal to
 * engine/ops.
 *
 * A value V is an expression (symbolic mode: A->cx != NULL) or a number
 * (concrete mode).  Every formula is a function of (A, result, coordinates)
 * that only uses the operations below, so both modes run the same code.
 */
#ifndef DIRIGO_OPS_IMPL_H
#define DIRIGO_OPS_IMPL_H

#include "engine/ops/ops.h"

typedef struct { const struct expr *e; long double r; } V;

struct alg {
	struct ectx *cx;               /* NULL: concrete */
	enum emode mode;
	const struct op_leaves *lv;
	const struct op_inst *in;
	bool fail;                     /* a leaf could not be read */
};

V    a_k(struct alg *A, double c);
V    a_in(struct alg *A, unsigned k, uint64_t flat);
int64_t a_int(struct alg *A, unsigned k, uint64_t flat);
V    a_add(struct alg *A, V x, V y);
V    a_sub(struct alg *A, V x, V y);
V    a_mul(struct alg *A, V x, V y);
V    a_div(struct alg *A, V x, V y);
V    a_neg(struct alg *A, V x);
V    a_abs(struct alg *A, V x);
V    a_min(struct alg *A, V x, V y);
V    a_max(struct alg *A, V x, V y);
V    a_fun(struct alg *A, enum efun f, V x);
V    a_pow(struct alg *A, V x, V y);
V    a_lt(struct alg *A, V x, V y, V t, V f);        /* x < y ? t : f */
V    a_le(struct alg *A, V x, V y, V t, V f);        /* x <= y ? t : f */
V    a_eqz(struct alg *A, V x, V t, V f);            /* x == 0 ? t : f */

/* Sums of many terms: one n-ary node symbolically, left to right concretely. */
struct a_sum { V acc; const struct expr **terms; size_t n, cap; bool any; };
void a_sum_init(struct a_sum *s);
void a_sum_add(struct alg *A, struct a_sum *s, V x);
V    a_sum_end(struct alg *A, struct a_sum *s);     /* 0 for no terms; frees */

/* ---- indices ------------------------------------------------------------ */

void     ix_unravel(uint64_t flat, const struct op_shape *s, int64_t *idx);
uint64_t ix_ravel(const int64_t *idx, const struct op_shape *s);
/* Flat index into operand shape s of the element broadcast to out coordinates
 * idx (of ndim dims), numpy rules. */
uint64_t ix_bcast(const int64_t *idx, unsigned ndim, const struct op_shape *s);
/* Broadcast of a and b into out; false if incompatible. */
bool shape_bcast(const struct op_shape *a, const struct op_shape *b, struct op_shape *out);
/* A dimension index, negative counted from the end; -1 if out of range. */
int  dim_wrap(int64_t d, unsigned ndim);

/* ---- binding ------------------------------------------------------------ */

struct bind {
	const struct torch_op *call;
	struct op_inst *in;
	char *err;
	size_t errlen;
};
bool bind_fail(struct bind *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Operand number of the tensor argument name, or -1 (absent or None). */
int  b_opnd(struct bind *b, const char *name);
const struct torch_arg *b_arg(struct bind *b, const char *name);
/* Numbers (int, float or bool) of an argument; dflt when absent or None. */
double  b_num(struct bind *b, const char *name, double dflt, bool *given);
/* A scalar argument as torch computes with it: cast to the op's compute
 * type (opmath: float for f32, f16 and bf16 results; as given for f64
 * and where the result type is unknown).  x + 1e-5 on an f32 tensor adds
 * the float nearest 1e-5, as a kernel's float eps does. */
double  b_scalar_round(const struct bind *b, double v);
int64_t b_int(struct bind *b, const char *name, int64_t dflt);
/* An int list (or a single int) into v; returns its length, 0 if absent. */
unsigned b_ints(struct bind *b, const char *name, int64_t *v, unsigned max);
const char *b_str(struct bind *b, const char *name, const char *dflt);

/* A family: binds (sets at and res shapes) and evaluates. */
typedef bool (*op_bind_fn)(struct bind *b, int kind);
typedef V    (*op_elem_fn)(struct alg *A, unsigned r, const int64_t *idx);

struct op_def {
	const char *name;              /* "aten::add.Tensor" */
	op_bind_fn bind;
	op_elem_fn elem;
	int kind;
	bool layout;                   /* only rearranges elements */
};

/* Families (one file each): bind sets at, nres, res and res_formula. */
bool ew_bind(struct bind *b, int kind);        V ew_elem(struct alg *A, unsigned r, const int64_t *idx);
bool red_bind(struct bind *b, int kind);       V red_elem(struct alg *A, unsigned r, const int64_t *idx);
bool lin_bind(struct bind *b, int kind);       V lin_elem(struct alg *A, unsigned r, const int64_t *idx);
bool conv_bind(struct bind *b, int kind);      V conv_elem(struct alg *A, unsigned r, const int64_t *idx);
bool norm_bind(struct bind *b, int kind);      V norm_elem(struct alg *A, unsigned r, const int64_t *idx);
void norm_result_attrs(const struct op_inst *in, unsigned r, struct op_attrs *at);
bool pool_bind(struct bind *b, int kind);      V pool_elem(struct alg *A, unsigned r, const int64_t *idx);
bool loss_bind(struct bind *b, int kind);      V loss_elem(struct alg *A, unsigned r, const int64_t *idx);
bool view_bind(struct bind *b, int kind);      V view_elem(struct alg *A, unsigned r, const int64_t *idx);
bool mat_bind(struct bind *b, int kind);       V mat_elem(struct alg *A, unsigned r, const int64_t *idx);

/* The op tables of the families (one file each), ended by a NULL name. */
extern const struct op_def ew_defs[], red_defs[], lin_defs[], conv_defs[],
	norm_defs[], pool_defs[], loss_defs[], view_defs[], mat_defs[];

#endif
