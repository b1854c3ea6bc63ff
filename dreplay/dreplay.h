/*
 * dreplay.h: the parts of dreplay (main.c: options; run.c: the stream;
 * replay.c: one witness evaluated concretely; report.c: text for people;
 * sarif.c: SARIF 2.1.0 for code-scanning tools; bundle.c and npy.c: the
 * repro bundle; gpu.c: --gpu).
 */
#ifndef DIRIGO_DREPLAY_H
#define DIRIGO_DREPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/replay.h"
#include "engine/resolve.h"
#include "formats/verdict.h"

/* Seconds the stage may take by default (--budget). */
#define DREPLAY_BUDGET 60.0

struct dreplay_opts {
	double atol, rtol;
	const char *report;          /* file for the text report; NULL: stderr */
	const char *sarif;           /* file for the SARIF report, or NULL */
	const char *bundle;          /* repro bundle (.tar.gz) to write, or NULL */
	bool gpu;                    /* --gpu: rerun the programs on a GPU */
	bool whole;                  /* --whole: run whole programs, never a slice */
	double budget;               /* seconds (--budget) */
	double deadline;             /* when the budget ends (deadline.h) */
};

#define DREPLAY_DEFAULT_BUDGET 60.0     /* seconds */
#define DREPLAY_RLIMIT 2000000ull         /* Z3 resource units per resolver query */

/* How the programs are run at a witness (confirm.c). */
struct confirm_opts {
	bool whole;                  /* never by slice */
	double budget;               /* seconds, for messages */
	double deadline;             /* when the runs stop (deadline.h; DEADLINE_NONE: never) */
};

/* dreplay over the input, writing the stream to out.  Returns the exit
 * status. */
enum exit_status dreplay_run(const struct dreplay_opts *o, struct stream_in *in, FILE *out);

/* Where a program stored the witness location: the PTX line of the store
 * and its .cu file and line when the PTX has .loc information. */
struct store_site {
	uint32_t line;               /* PTX line, 0 if not found */
	uint32_t module;             /* the launch's module */
	const char *src_file;        /* NULL if unknown */
	uint32_t src_line;
};

/* Everything the report needs, gathered from the stream and the replays. */
struct replayed {
	struct vd_witness w;
	struct rp_replay r;
	uint32_t writer[2];          /* launch that wrote the location per program, or NO_VALUE */
	struct store_site site[2];   /* the store of writer[p] that wrote it */
	uint8_t **inputs;            /* bytes of every shared input at the witness, or NULL */
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
 * *out; message set when it cannot be evaluated.  The programs are run as
 * co says.  When the deadline (co->deadline; the resolver's too) passes
 * first, out->r.timeout is set and message says what it was doing. */
void replay_witness(struct resolver *r, const struct sym_state *st, const struct vd_witness *w,
                    double atol, double rtol, const struct confirm_opts *co, struct arena *a,
                    struct replayed *out);

/* Runs both programs concretely at witness w on input bytes in (see
 * witness_inputs): by slice unless co->whole, the whole programs when no
 * slice holds, stopped at co->deadline (then rp->timeout and message).
 * Sets rp's ptx_* fields, slice counts and note. */
void confirm_run(const struct sym_state *st, const struct vd_witness *w, uint8_t **in,
                 const struct confirm_opts *co, struct arena *a, struct rp_replay *rp);

void report_write(FILE *f, const struct report_data *d);

/* The bytes of every shared input for a run at witness w: the data the
 * trace kept (zeros where it was not kept) with the witness's elements
 * written over it; in arena a.  NULL after a message in *err. */
uint8_t **witness_inputs(const struct obligation *ob, const struct vd_witness *w,
                         struct arena *a, const char **err);

/* The element type of shared input i as the bundle writes it: the type of
 * the witness elements that name it, else f32 when its size allows. */
enum etype input_etype(const struct obligation *ob, const struct replayed *rep, size_t nrep,
                       uint32_t i);

/* SARIF 2.1.0 (one run, a result per finding, never-written output and
 * confirmed witness) to path; false after a message. */
bool sarif_write(const char *path, const struct report_data *d);
/* The same as one JSON text (malloc'd). */
char *sarif_text(const struct report_data *d);

/* The repro bundle (see dreplay(1)): a gzip-compressed tar archive at path
 * holding README, report.txt, report.sarif.json, replay.py, pair.ver (the
 * stream dreplay read, len bytes at stream) and witness-N/input-I.npy.
 * false after a message. */
bool bundle_write(const char *path, const struct report_data *d, const char *report, size_t reportlen,
                  const void *stream, size_t streamlen);

/* NumPy .npy v1.0: the dtype string of et (NULL for bf16), and the header
 * of a flat array of n elements into buf (cap bytes); returns its length,
 * a multiple of 64, or 0 when it does not fit. */
const char *npy_descr(enum etype et);
size_t npy_header(unsigned char *buf, size_t cap, const char *descr, uint64_t n);

/* --gpu: true when a CUDA device can be used; else false with the reason
 * in msg (msglen bytes). */
bool gpu_probe(char *msg, size_t msglen);

#endif
