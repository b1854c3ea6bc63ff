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

#include "obligation.h"
#include "ptx/interp.h"

/* The bytes of one output pair's value in the replayed program. */
struct replay_output {
	uint32_t output;            /* index in obligation.outputs */
	uint64_t bytes;
	uint8_t *data;              /* bytes [off, off+bytes) of the value; heap */
};

struct replay_result {
	struct replay_output *outs; /* one per obligation output, in order */
	uint32_t nouts;
	uint64_t steps;             /* thread-instructions over all launches */
	uint32_t launches;          /* kernel launches executed */
	enum interp_status status;  /* of the failing launch; INTERP_OK if none */
};

struct replay_opts {
	uint64_t max_steps;         /* per launch, 0: the interpreter's default */
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
 * deadline passed (INTERP_TIMEOUT), or a malformed obligation or input
 * (INTERP_BADARG); out needs no release then.
 */
bool replay_program(const struct obligation *o, uint32_t prog, const void *const *inputs,
                    const struct replay_opts *opts, struct replay_result *out,
                    char *err, size_t errlen);

/* Frees what replay_program put in r; r may be NULL. */
void replay_result_release(struct replay_result *r);

#endif
