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

#include "stream.h"
#include "verdict.h"

struct rp_replay {                   /* "replay" */
	uint32_t output;
	uint64_t index, off;
	double ref_f32, opt_f32;         /* program 0 and 1, IEEE binary32 */
	double ref_f64, opt_f64;         /* the same in binary64 */
	double diff;                     /* |opt_f32 - ref_f32| */
	double tol;                      /* atol + rtol * |ref_f32| */
	bool confirmed;                  /* diff > tol (or exactly one side NaN) */
	const char *message;             /* NULL, or why evaluation failed */
	/* The whole programs executed by the PTX interpreter on the witness
	 * input (independent of the symbolic model): */
	bool ptx_ran;                    /* both programs ran to completion */
	double ref_ptx, opt_ptx;         /* the location's value in each */
	const char *ptx_error;           /* why they did not run, or NULL */
	/* How they were run (optional): only what the witness location needs
	 * (a slice, libcommon/slice.h), or whole. */
	const char *ptx_run;             /* "slice", "whole", or NULL when not run */
	const char *slice_note;          /* why the slice was not used, or NULL */
	double ptx_ms;                   /* wall time of the runs of both programs */
	uint64_t blocks, blocks_all;     /* slice: blocks run, blocks of those launches */
	uint64_t elems, elems_all;       /* slice: op elements computed, of those ops */
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
