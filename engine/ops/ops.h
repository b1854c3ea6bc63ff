/*
 * ops.h: the semantics of torch (aten) operators, one definition per op.
 *
 * Each op in the table has three parts: attribute parsing (from the
 * recorded call, formats/torch.h), result shapes, and a per-element
 * formula.  The formula is written once, against a small value algebra
 * (ops-impl.h) with two back ends:
 *
 *   op_elem_expr   builds a struct expr for one result element over the
 *                  elements of the operands (dcheck: back-projection);
 *   op_elem_value  computes the same element from concrete operand values
 *                  (dreplay), rounding after every operation as e_eval does
 *                  in the chosen mode.
 *
 * The caller decides what operand elements are: leaves are asked of its
 * callbacks by operand number (the tensor arguments of the call in order,
 * see struct op_inst) and row-major flat index into that operand's shape.
 * Tensors of integers used as indices (nll_loss targets) are read
 * concretely in both modes (op_leaves.ival).
 *
 * Floats are reals; the formulas follow torch's CPU kernels where it
 * matters for concrete values (softmax and logsumexp subtract the maximum,
 * batch norm multiplies by rsqrt(var + eps)).
 */
#ifndef DIRIGO_OPS_H
#define DIRIGO_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcommon/arena.h"
#include "libcommon/expr.h"
#include "formats/torch.h"

#define OP_MAX_DIMS TORCH_MAX_DIMS
/* The most tensor arguments one call may have: a cat or stack of a whole
 * sequence (an RNN's 512 steps) is one call.  The operand arrays are sized
 * to the call, in the caller's arena; this bound only keeps a malformed
 * trace from asking for gigabytes (about 90 bytes per operand). */
#define OP_MAX_OPERANDS 65536
#define OP_MAX_RESULTS 8

/* struct op_shape, a tensor's extents, is formats/torch.h's. */
uint64_t op_shape_numel(const struct op_shape *s);

/* Attributes of a bound call; meanings are per op (ops-impl.h). */
struct op_attrs {
	int kind;                          /* variant within the op's family */
	double s[6];                       /* scalar attributes */
	bool has[6];                       /* s[i] given (clamp's min/max) */
	int64_t i[6];                      /* integer attributes */
	int64_t v[4][OP_MAX_DIMS];         /* integer lists (stride, padding, dims) */
	unsigned nv[4];
	int opnd[6];                       /* operands by role, -1 when absent */
};

struct op_def;

struct op_inst {                       /* a recorded call, bound */
	const struct op_def *def;
	unsigned nin;                      /* operands: tensor arguments in order */
	struct op_shape *in;               /* nin of each, in op_bind's arena */
	enum etype *in_et;
	uint32_t *in_tensor;
	int64_t *in_start;                 /* cat: operand j's first index along dim */
	unsigned nres;                     /* results: the call's outs, then its mutated args */
	struct op_shape res[OP_MAX_RESULTS];
	int res_formula[OP_MAX_RESULTS];   /* formula serving result i, -1: none */
	struct op_attrs at;
	enum etype et;                     /* result 0's element type, ET_NONE unknown:
	                                      the type torch computes in, whose
	                                      precision scalar arguments take */
};

/* Shape and element type of a recorded tensor; false if unknown. */
typedef bool (*op_shape_fn)(void *user, uint32_t tensor, struct op_shape *shape, enum etype *et);

/* Binds call: finds its op, reads the operands' shapes through shape,
 * parses the attributes, computes the result shapes and checks them
 * against the recorded results.  The operand arrays of out are allocated
 * in a and live as long as it.  false, with a message in err ("aten::foo:
 * ...", naming the op), when the op is unknown or the call malformed
 * (more than OP_MAX_OPERANDS tensor arguments among them). */
bool op_bind(const struct torch_op *call, op_shape_fn shape, void *user, struct arena *a,
             struct op_inst *out, char *err, size_t errlen);

/* True if an op of that name is in the table. */
bool op_known(const char *name);
/* True if the op only rearranges elements (a view, a copy, a reshape):
 * dmerge may resolve it through tensor geometry instead. */
bool op_is_layout(const char *name);
/* True if result r of the bound call is operand *opnd's elements in the
 * same row-major order (clone, contiguous, reshape, view, detach,
 * _to_copy, and copy_ of the same shape); the caller compares element
 * types.  Value numbering (vnum.h) gives it the operand's number. */
bool op_is_copy(const struct op_inst *in, unsigned r, unsigned *opnd);
/* The attributes of the bound call that result r depends on: in->at,
 * with those that only other results use cleared (batch norm's momentum
 * moves only the running statistics).  Value numbering keys by these. */
void op_result_attrs(const struct op_inst *in, unsigned r, struct op_attrs *out);
/* The formula family of the bound call (its op file: 0 elementwise, 1
 * reductions, ...): with the parsed attributes, what its formula is. */
int op_family(const struct op_inst *in);
/* True if a and b compute the same function of their operands: the same
 * op (after binding: stride [1] and [1, 1] of a 2-D convolution are one
 * attribute), attributes, operand shapes and types, and results, so that
 * equal operands give equal results (dmerge's identical tails). */
bool op_same_call(const struct op_inst *a, const struct op_inst *b);
/* True if the call is a matrix product (lin.c): value numbering keys it
 * by operand roles rather than by op name. */
bool op_is_product(const struct op_inst *in);
/* The names in the table, NULL-terminated (for documentation and tests). */
const char *const *op_names(void);

struct op_leaves {
	/* Symbolic element flat of operand k. */
	const struct expr *(*sym)(struct ectx *cx, void *user, unsigned k, uint64_t flat);
	/* Concrete element (any float type, as a real). */
	long double (*val)(void *user, unsigned k, uint64_t flat);
	/* Concrete integer element (index tensors); may be NULL if no op needs it. */
	int64_t (*ival)(void *user, unsigned k, uint64_t flat);
	void *user;
};

/* Element flat (row-major) of result r as an expression over the operands'
 * elements; NULL when the result has no formula (argmax indices) or an
 * integer operand cannot be read. */
const struct expr *op_elem_expr(struct ectx *cx, const struct op_inst *in, unsigned r,
                                uint64_t flat, const struct op_leaves *lv);
/* The same element computed from concrete operands in mode; false as above. */
bool op_elem_value(const struct op_inst *in, unsigned r, uint64_t flat, enum emode mode,
                   const struct op_leaves *lv, long double *out);

#endif
