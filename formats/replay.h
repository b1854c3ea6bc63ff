/*
 * replay.h: records dreplay adds to the stream (dirigo-replay(5)).
 *
 * replay  one witness evaluated concretely in both programs (float32 as the
 *         GPU computes, and float64), and whether it confirms a bug
 * report  the summary (the last record dreplay writes)
 */
#ifndef DIRIGO_FORMATS_REPLAY_H
#define DIRIGO_FORMATS_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "libcommon/stream.h"
#include "formats/verdict.h"

/* What a replay showed: the programs themselves differ at the witness
 * (confirmed), only the model evaluated again at it differs (the programs
 * could not be run: ptx_error says why), or no difference. */
enum rp_shown { RS_NONE, RS_PROGRAMS, RS_MODEL_ONLY, RS__COUNT };
const char *rp_shown_name(enum rp_shown s);          /* "none", "programs", "model-only" */

struct rp_replay {                   /* "replay" */
	uint32_t output;
	uint64_t index, off;
	double ref_f32, opt_f32;         /* program 0 and 1, IEEE binary32 */
	double ref_f64, opt_f64;         /* the same in binary64 */
	double diff;                     /* |opt_f32 - ref_f32| */
	double tol;                      /* atol + rtol * |ref_f32| */
	bool confirmed;                  /* the programs run on the witness differ there
	                                  * beyond the tolerance (or one side is NaN) */
	enum rp_shown shown;             /* what replay showed */
	const char *message;             /* NULL, or why evaluation failed */
	/* The whole programs executed by the PTX interpreter on the witness
	 * input (independent of the symbolic model): */
	bool ptx_ran;                    /* both programs ran to completion */
	double ref_ptx, opt_ptx;         /* the location's value in each */
	const char *ptx_error;           /* why they did not run, or NULL */
	/* How they were run (optional): only what the witness location needs
	 * (a slice, engine/slice.h), or whole. */
	const char *ptx_run;             /* "slice", "whole", or NULL when not run */
	const char *slice_note;          /* why the slice was not used, or NULL */
	double ptx_ms;                   /* wall time of the runs of both programs */
	uint64_t blocks, blocks_all;     /* slice: blocks run, blocks of those launches */
	uint64_t elems, elems_all;       /* slice: op elements computed, of those ops */
	/* optional: the budget ran out before the replay of this witness
	 * ended (message says what it was doing); never confirmed then */
	bool timeout;
};

struct rp_report {                   /* "report" */
	enum verdict_result result;      /* after replay */
	uint64_t witnesses, confirmed, findings;
	const char *message;
};

void rp_write_replay(struct stream_out *w, const struct rp_replay *r);
void rp_write_report(struct stream_out *w, const struct rp_report *r);
bool rp_read_replay(const struct record *rec, struct arena *a, struct rp_replay *r);
bool rp_read_report(const struct record *rec, struct arena *a, struct rp_report *r);

#endif
