/*
 * torch.h: the torch records of a trace stream (dirigo-trace(5), section
 * TORCH RECORDS), written by the recorder in dtrace-cuda/python and read by
 * dmerge, dcheck and dreplay.  This file and torch.c are the only C code
 * that knows their layouts.
 *
 * Model: a "tensor" record names an immutable tensor value, a strided view
 * (shape, stride, offset in elements, dtype) of one version of one storage.
 * An "op" record is one aten call: every schema argument by name, the
 * tensors it returns ("outs") and the tensors it wrote in place
 * ("mutated": each a new version of its storage).  "tinput" records say
 * which tensors the program starts from (inputs, parameters, buffers,
 * constants), "toutput" which it returns, "tunsupported" why it cannot be
 * modelled.
 *
 * Readers: torch_read_X(rec, a, out) decodes a record whose "t" is X into
 * *out, copying strings, arrays and bytes into arena a; false (after
 * rec_error messages naming the bad fields) when a field is missing or
 * mistyped.  Unknown fields are ignored.  Writers append one whole record.
 */
#ifndef DIRIGO_FORMATS_TORCH_H
#define DIRIGO_FORMATS_TORCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcommon/expr.h"
#include "libcommon/stream.h"

#define TORCH_MAX_DIMS 8
#define TORCH_NO_TENSOR UINT32_MAX

/* The shape of a tensor as the op table binds it (engine/ops/ops.h):
 * ndim extents, row-major, no strides. */
struct op_shape {
	unsigned ndim;
	int64_t dim[TORCH_MAX_DIMS];
};

struct torch_tensor {              /* "tensor": a tensor value */
	uint32_t tensor;               /* id */
	uint32_t storage, version;
	enum etype dtype;              /* bool is recorded as u8 */
	uint32_t ndim;
	int64_t shape[TORCH_MAX_DIMS];
	int64_t stride[TORCH_MAX_DIMS];/* in elements */
	int64_t offset;                /* in elements, into the storage */
	const char *device;            /* "cpu", "cuda" */
	const void *data;              /* optional: row-major elements, or NULL */
	size_t ndata;
};

enum torch_arg_kind {
	TARG_NONE, TARG_TENSOR, TARG_BOOL, TARG_INT, TARG_FLOAT, TARG_STR,
	TARG_DTYPE, TARG_INTS, TARG_FLOATS, TARG_BOOLS, TARG_TENSORS
};

struct torch_arg {                 /* one schema argument of an op */
	const char *name;              /* schema name: "self", "stride", ... */
	enum torch_arg_kind kind;
	int64_t i;                     /* INT, BOOL (0/1) */
	double f;                      /* FLOAT */
	const char *s;                 /* STR, DTYPE ("f32") */
	uint32_t tensor;               /* TENSOR */
	uint32_t n;                    /* INTS, FLOATS, BOOLS, TENSORS: length */
	int64_t *ints;                 /* INTS, BOOLS */
	double *floats;                /* FLOATS */
	uint32_t *tensors;             /* TENSORS (TORCH_NO_TENSOR for None) */
};

struct torch_mut {                 /* an argument written in place */
	const char *arg;               /* its schema name */
	uint32_t tensor;               /* the value it has afterwards */
};

struct torch_op {                  /* "op": one aten call */
	uint64_t seq;                  /* 0, 1, ... in program order */
	const char *op;                /* "aten::add.Tensor", "aten::relu" */
	struct torch_arg *args;
	uint32_t nargs;
	uint32_t *outs;                /* returned tensors (TORCH_NO_TENSOR: none) */
	uint32_t nouts;
	struct torch_mut *muts;
	uint32_t nmuts;
	bool random;                   /* a random op: its results are fresh,
	                                  unconstrained inputs (field "random") */
};

enum torch_role { TR_INPUT, TR_PARAM, TR_BUFFER, TR_CONSTANT };

struct torch_input {               /* "tinput" */
	uint32_t tensor;
	enum torch_role role;
	const char *name;              /* "arg0", "conv.weight", ... */
	const void *data;              /* optional: the bytes, row-major */
	size_t ndata;
	const char *hash;              /* with data: FNV-1a 64, 16 hex digits */
};

struct torch_output {              /* "toutput" */
	uint32_t tensor;
	const char *name;              /* "out0", ... */
};

struct torch_unsupported {         /* "tunsupported" */
	const char *op;                /* the aten op, e.g. "aten::bernoulli_.float" */
	const char *message;
};

const char *torch_role_name(enum torch_role r);     /* "input", ... */
const char *torch_arg_kind_name(enum torch_arg_kind k);

/* Looking up arguments of an op by schema name: NULL when absent. */
const struct torch_arg *torch_op_arg(const struct torch_op *op, const char *name);
/* Elements of the tensor (product of the shape; 1 for a scalar). */
uint64_t torch_tensor_numel(const struct torch_tensor *t);

void torch_write_tensor(struct stream_out *w, const struct torch_tensor *r);
void torch_write_op(struct stream_out *w, const struct torch_op *r);
/* The fields of an op record after "t" (seq, op, args, outs, mutated), for
 * records that carry a call inside (the obligation's "op"). */
void torch_write_call(struct stream_out *w, const struct torch_op *r);
void torch_write_input(struct stream_out *w, const struct torch_input *r);
void torch_write_output(struct stream_out *w, const struct torch_output *r);
void torch_write_unsupported(struct stream_out *w, const struct torch_unsupported *r);

bool torch_read_tensor(const struct record *rec, struct arena *a, struct torch_tensor *r);
bool torch_read_op(const struct record *rec, struct arena *a, struct torch_op *r);
bool torch_read_input(const struct record *rec, struct arena *a, struct torch_input *r);
bool torch_read_output(const struct record *rec, struct arena *a, struct torch_output *r);
bool torch_read_unsupported(const struct record *rec, struct arena *a, struct torch_unsupported *r);

#endif
