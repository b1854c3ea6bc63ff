/*
 * obligation.h: records of an obligation stream (dirigo-obligation(5)),
 * written by dmerge, read by dexec, dcheck and dreplay.
 *
 * An obligation holds two programs (prog 0: the reference, the first trace;
 * prog 1: the optimized program, the second trace) in SSA form over shared
 * inputs, and the pairs of outputs that must be equal.
 *
 * Values: every state a buffer goes through is a value (an SSA version),
 * with a unique id across both programs.  A value is defined by one event,
 * and bytes outside the event's range [off, off+len) come from prev (the
 * version before), or are uninitialised when there is none:
 *   uninit  a fresh allocation
 *   input   bytes [off, off+len) hold shared input 'input'
 *   memset  bytes [off, off+len) hold the byte 'fill'
 *   copy    bytes [off, off+len) hold value 'src' from byte 'src_off'
 *   launch  launch 'launch' may have written anywhere (its write set, from
 *           dexec, says where); the rest is prev
 *   op      result 'result' of torch op 'op': the elements its view (in the
 *           op's views) covers; the rest is prev.  With 'input' set (a
 *           trimmed common prefix), bytes [off, off+len) are shared input
 *           'input' for checking; replay still runs the op.
 *   data    bytes [off, off+len) hold 'data' (a torch constant)
 *
 * Torch programs: a storage is a buffer like any other (value.storage
 * says which trace storage it is); a tensor is a view (shape, stride,
 * offset in elements, dtype) of one value.  "op" records hold each aten
 * call as recorded, with a view for every tensor it names.
 */
#ifndef DIRIGO_FORMATS_OBLIGATION_H
#define DIRIGO_FORMATS_OBLIGATION_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/torch.h"
#include "libcommon/stream.h"

#define NO_VALUE UINT32_MAX

struct obl_input {                  /* "input" */
	uint32_t input;
	uint64_t bytes;
	const char *name;               /* NULL if unnamed */
	const void *data;               /* original bytes, or NULL if not kept */
	size_t ndata;
	/* torch inputs (optional): element type (ET_NONE if not given) and
	 * shape; role ("input", "param", "buffer", "prefix", "random") */
	enum etype dtype;
	uint32_t ndim;
	int64_t shape[TORCH_MAX_DIMS];
	const char *role;
	/* role "random" (the result of a random op, named by name): the one
	 * program that reads it */
	bool has_prog;
	uint32_t prog;
};

/* Whether input in is the result of a random op (role "random"). */
bool obl_input_random(const struct obl_input *in);

enum value_def { VD_UNINIT, VD_INPUT, VD_MEMSET, VD_COPY, VD_LAUNCH, VD_OP, VD_DATA };

struct obl_value {                  /* "value" */
	uint32_t value, prog, buf, version;
	uint64_t bytes;
	enum value_def def;
	uint32_t prev;                  /* NO_VALUE if none */
	uint64_t off, len;              /* range of input/memset/copy */
	uint32_t input;                 /* input; op: NO_VALUE unless trimmed */
	uint8_t fill;                   /* memset */
	uint32_t src;                   /* copy */
	uint64_t src_off;
	uint32_t launch;                /* launch */
	const char *symbol;             /* buffer backs a __constant__/__device__ symbol */
	uint32_t op, result;            /* op: the op and which of its results */
	const void *data;               /* data: len bytes */
	bool has_storage;               /* the buffer is a torch storage: */
	uint32_t storage;               /* its id in the trace */
	size_t rec;                     /* read: its record index (messages) */
};

/* A tensor as an op sees it: element flat (row-major over shape) of the
 * tensor is element offset + sum(idx[i] * stride[i]) of value 'value'
 * read as dtype. */
struct obl_view {
	uint32_t tensor;                /* the trace's tensor id */
	uint32_t value;
	enum etype dtype;
	uint32_t ndim;
	int64_t shape[TORCH_MAX_DIMS];
	int64_t stride[TORCH_MAX_DIMS];
	int64_t offset;
};

/* The storage element (of the view's value) of row-major index flat of
 * view w: offset plus each coordinate times its stride. */
uint64_t obl_view_elem(const struct obl_view *w, uint64_t flat);

struct obl_op {                     /* "op": one torch (aten) call */
	uint32_t op, prog;              /* id (unique over both programs), program */
	struct torch_op call;           /* as recorded: name, seq, args, outs, mutated */
	struct obl_view *views;         /* every tensor the call names */
	uint32_t nviews;
	const char *unsupported;        /* why it cannot be modelled, or NULL */
	size_t rec;                     /* read: its record index (messages) */
};

struct obl_trimmed {                /* "trimmed": the common prefix dmerge cut */
	uint32_t ops[2];                /* leading ops of each program trimmed */
	uint32_t n;                     /* shared inputs that replace their results: */
	uint32_t *inputs;               /* the input ids */
	uint32_t (*values)[2];          /* the values of each program they stand for */
};

struct obl_module {                 /* "module" */
	uint32_t module, prog;
	const char *ptx;                /* NUL-terminated */
	size_t ptxlen;
	const char *hash;
};

struct obl_arg {
	const char *param;
	uint32_t size;
	const void *raw;                /* size bytes, little-endian */
	bool is_ptr;                    /* points into a buffer: */
	uint32_t vin, vout;             /* its value before and after the launch */
	uint64_t off;                   /* byte offset into the buffer */
};

struct obl_symref {                 /* a module symbol's buffer at launch time */
	const char *symbol;
	uint32_t vin;
};

struct obl_launch {                 /* "launch" */
	uint32_t launch, prog, module;
	uint32_t seq;                   /* index among the program's launches */
	const char *kernel;
	uint64_t grid[3], block[3], shmem;
	struct obl_arg *args;   uint32_t nargs;
	struct obl_symref *syms; uint32_t nsyms;
	size_t rec;                     /* read: its record index (messages) */
};

struct obl_output {                 /* "output" */
	uint32_t output;
	uint64_t bytes;
	const char *name;
	uint32_t value[2];              /* per program */
	uint64_t off[2];
	enum etype dtype;               /* torch outputs: element type, shape; */
	uint32_t ndim;                  /* ET_NONE when not given */
	int64_t shape[TORCH_MAX_DIMS];
	/* a cut (dmerge(1), "Identical tails"): this pair is where both
	 * programs start the same tail_ops ops that make output tail_of, so
	 * that output is equal wherever this pair (and its other cuts) is;
	 * tail_of NO_VALUE: an output of the programs */
	uint32_t tail_of, tail_ops;
	/* a bridge cut (dmerge(1), "Bridges"): the optimized program's value
	 * here takes the place of the reference's in the ops after it; a
	 * check of the output's other cuts takes this pair as equal */
	bool bridge;
	size_t rec;                     /* read: its record index (messages) */
};

const char *value_def_name(enum value_def d);
/* Whether v defines only its bytes [off, off+len), the others coming from
 * prev: def input, memset, copy, data, and op with input (a trimmed
 * prefix's result).  Uninit, launch and op without input define the whole
 * buffer. */
bool obl_value_ranged(const struct obl_value *v);

void obl_write_input(struct stream_out *w, const struct obl_input *r);
void obl_write_value(struct stream_out *w, const struct obl_value *r);
void obl_write_module(struct stream_out *w, const struct obl_module *r);
void obl_write_launch(struct stream_out *w, const struct obl_launch *r);
void obl_write_output(struct stream_out *w, const struct obl_output *r);
void obl_write_op(struct stream_out *w, const struct obl_op *r);
void obl_write_trimmed(struct stream_out *w, const struct obl_trimmed *r);

/* Readers: fill *r from rec (strings and arrays in arena a); false after
 * printing what is wrong with the record. */
bool obl_read_input(const struct record *rec, struct arena *a, struct obl_input *r);
bool obl_read_value(const struct record *rec, struct arena *a, struct obl_value *r);
bool obl_read_module(const struct record *rec, struct arena *a, struct obl_module *r);
bool obl_read_launch(const struct record *rec, struct arena *a, struct obl_launch *r);
bool obl_read_output(const struct record *rec, struct arena *a, struct obl_output *r);
bool obl_read_op(const struct record *rec, struct arena *a, struct obl_op *r);
bool obl_read_trimmed(const struct record *rec, struct arena *a, struct obl_trimmed *r);

/* The view of tensor id t in op o, or NULL. */
const struct obl_view *obl_op_view(const struct obl_op *o, uint32_t t);
/* op_bind's shape callback (engine/ops/ops.h) for an obligation op: user is the
 * struct obl_op; the shape and dtype of tensor come from its view. */
bool obl_op_shape(void *user, uint32_t tensor, struct op_shape *shape, enum etype *et);
/* The tensor id of result r of op o (its outs, then its mutated
 * arguments), or TORCH_NO_TENSOR. */
uint32_t obl_op_result(const struct obl_op *o, uint32_t r);
/* Elements of a view; the element one past the last it reaches (0 when
 * empty); whether it is row-major contiguous. */
uint64_t obl_view_numel(const struct obl_view *v);
uint64_t obl_view_extent(const struct obl_view *v);
bool obl_view_contiguous(const struct obl_view *v);
/* The whole obligation, indexed by id, as dexec/dcheck/dreplay load it. */
struct obligation {
	struct arena arena;
	const char *names[2];
	VEC(struct obl_input) inputs;
	VEC(struct obl_value) values;
	VEC(struct obl_module) modules;
	VEC(struct obl_launch) launches;
	VEC(struct obl_output) outputs;
	VEC(struct obl_op) ops;
	bool has_trimmed;
	struct obl_trimmed trimmed;
	size_t trimmed_rec;             /* record indices, for messages */
	size_t end_rec;
};

void obligation_init(struct obligation *o);
void obligation_release(struct obligation *o);
/* If rec is an obligation record (or the "obligation" record), stores it and
 * returns 1; returns 0 for other records, -1 for a bad record.  Ids must be
 * dense and in order (input i is the i-th input record, ...); the
 * "obligation" record comes once, before every other obligation record,
 * and before the end record (dirigo-obligation(5), ORDER).  Messages name
 * the record.  Other records are looked at, not kept: give it the end
 * record too. */
int  obligation_take(struct obligation *o, const struct record *rec);
/* Checks references between records (values, launches, modules, outputs);
 * false after printing what is wrong, naming 'file' and the record. */
bool obligation_check(const struct obligation *o, const char *file);
/* A verdict rests on at least one output pair, or on a finding upstream
 * (dmerge's shape-mismatch of outputs with different element counts
 * compares nothing): false, after a message naming 'file', when the
 * obligation has no output and 'findings' is 0 (dexec, dcheck and dreplay
 * refuse such a stream with exit 2). */
bool obligation_check_outputs(const struct obligation *o, size_t findings, const char *file);
/* Whether output pair out is two whole values, the reference's first
 * (offsets 0, bytes the size of both): what a bridge cut must be. */
bool obl_output_whole_values(const struct obligation *o, const struct obl_output *out);


/* Starts an obligation stream: the header (stream "obligation") and the
 * "obligation" record naming the two programs. */
void obl_write_start(struct stream_out *w, const char *ref, const char *opt);
#endif
