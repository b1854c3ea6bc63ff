/*
 * concrete.h: concrete execution of one program of an obligation
 * (formats/obligation.h) on given input bytes: buffers are allocated,
 * value definitions (input, memset, copy, launch) replayed in id order,
 * kernels run by the PTX interpreter (ptx/interp.h) with IEEE float32
 * semantics.  dreplay uses it to confirm witnesses independently of the
 * symbolic model.
 */
#ifndef DIRIGO_CONCRETE_H
#define DIRIGO_CONCRETE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/ops/ops.h"
#include "formats/obligation.h"
#include "libcommon/ptx/interp.h"

/* The bytes of one output pair's value in the replayed program. */
struct replay_output {
	uint32_t output;            /* index in obligation.outputs */
	uint64_t bytes;
	uint8_t *data;              /* bytes [off, off+bytes) of the value; heap */
	uint8_t *valid;             /* sliced runs: one bit per byte of data (as
	                               interp_buf.valid), set where the slice
	                               computed it; NULL in whole runs */
};

struct replay_result {
	struct replay_output *outs; /* one per obligation output, in order */
	uint32_t nouts;
	uint64_t steps;             /* thread-instructions over all launches */
	uint32_t launches;          /* kernel launches executed */
	enum interp_status status;  /* of the failing launch; INTERP_OK if none */
};

/*
 * A slice: the part of one program a replay computes (engine/resolve-slice.c
 * makes one from the write sets, see slice.h).  need[v] is the set of
 * bytes of value v that something downstream reads; a launch runs some of
 * its blocks or none, a torch op computes some elements of each result or
 * none.  A sliced run keeps one validity bit per byte of every buffer:
 * bytes outside need[v] are invalid once v is defined, and reading an
 * invalid byte (a kernel's load, an op's operand) stops the run with
 * INTERP_UNCOMPUTED: a slice that does not hold never gives a value.
 */
struct slice_range { uint64_t lo, hi; };           /* bytes [lo, hi) */
struct slice_need { struct slice_range *r; uint32_t n; };   /* sorted, disjoint, not adjacent */
enum slice_mode { SM_SKIP, SM_PART, SM_WHOLE };
struct slice_launch {
	uint8_t mode;               /* SM_PART: the blocks below */
	uint32_t nblocks;
	uint32_t (*blocks)[3];      /* ctaid (x, y, z), in the launch's order (x fastest) */
};
struct slice_op {
	uint8_t mode;               /* SM_PART: the elements below */
	uint64_t nflat[OP_MAX_RESULTS];
	uint64_t *flat[OP_MAX_RESULTS];   /* row-major indices per result, ascending */
};
struct replay_slice {
	uint32_t prog;
	struct slice_need *need;    /* per value of the obligation */
	struct slice_launch *launch;/* per launch */
	struct slice_op *op;        /* per torch op */
	uint64_t blocks, blocks_all;/* blocks to run; blocks of the launches that run */
	uint64_t elems, elems_all;  /* op elements to compute; elements of those ops */
	uint32_t launches, ops;     /* launches and ops that run (part or whole) */
	struct arena arena;         /* owns everything above */
};

struct replay_opts {
	uint64_t max_steps;         /* per launch, 0: the interpreter's default */
	const struct replay_slice *slice;   /* NULL: the whole program */
	double deadline;            /* deadline.h; 0 or DEADLINE_NONE: none */
};

/*
 * Executes program prog (0 or 1) of o.  inputs[i] points at the bytes of
 * shared input i (o->inputs.items[i].bytes of them); inputs, or one of its
 * entries, may be NULL to use the data the obligation kept for that input.
 * Uninitialised memory reads as 0xFF bytes (a NaN pattern).  Buffers of
 * __constant__/__device__ symbols (value.symbol) back the module variable
 * of that name in the launches that list them.  opts may be NULL.
 *
 * On success fills *out (release it with replay_result_release) and returns
 * true.  On failure returns false with one line in err (errlen bytes) and
 * out->status telling a kernel fault (INTERP_FAULT), an unsupported
 * construct (INTERP_UNSUPPORTED), a spent step budget (INTERP_LIMIT), the
 * deadline passed (INTERP_TIMEOUT), a malformed obligation or input
 * (INTERP_BADARG), or, in a sliced run (opts->slice, for program
 * opts->slice->prog), a read of bytes the slice did not compute
 * (INTERP_UNCOMPUTED); out needs no release then.  A sliced run's outputs
 * hold valid bytes only where outs[i].valid says so.
 */
bool replay_program(const struct obligation *o, uint32_t prog, const void *const *inputs,
                    const struct replay_opts *opts, struct replay_result *out,
                    char *err, size_t errlen);

/* Frees what replay_program put in r; r may be NULL. */
void replay_result_release(struct replay_result *r);

#endif
