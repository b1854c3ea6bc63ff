/*
 * dreplay.h: the parts of dreplay (main.c: options; run.c: the stream;
 * replay.c: one witness evaluated concretely; report.c: text for people).
 */
#ifndef DIRIGO_DREPLAY_H
#define DIRIGO_DREPLAY_H

#include <stdio.h>

#include "replay.h"
#include "resolve.h"
#include "verdict.h"

struct dreplay_opts {
	double atol, rtol;
	const char *report;          /* file for the text report; NULL: stderr */
};

int dreplay_run(const struct dreplay_opts *o, const char *const *files, int nfiles);

/* Everything the report needs, gathered from the stream and the replays. */
struct replayed {
	struct vd_witness w;
	struct rp_replay r;
	uint32_t writer[2];          /* launch that wrote the location per program, or NO_VALUE */
};

struct report_data {
	const struct sym_state *st;
	const struct vd_verdict *verdict;
	const struct vd_location *uninit;    /* locations reading never-written memory */
	size_t nuninit;
	const struct replayed *rep;
	size_t nrep;
	const struct rp_report *summary;
	double atol, rtol;
};

/* Evaluates the witness in both programs (float32 and float64) and fills
 * *out; message set when it cannot be evaluated. */
void replay_witness(struct resolver *r, const struct sym_state *st, const struct vd_witness *w,
                    double atol, double rtol, struct arena *a, struct replayed *out);

void report_write(FILE *f, const struct report_data *d);

#endif
