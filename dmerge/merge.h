/*
 * merge.h: turning two traces into one obligation (the work of dmerge).
 *
 * Feed every record of the input to merge_record, in order; the first
 * trace is the reference (prog 0), the second the optimized program
 * (prog 1).  merge_finish matches inputs and outputs (CUDA copies by
 * order, torch inputs by role and name or order, torch outputs by order),
 * checks their sizes, trims the common prefix of torch ops and writes the
 * obligation.
 */
#ifndef DMERGE_MERGE_H
#define DMERGE_MERGE_H

#include <stdbool.h>

#include "formats/obligation.h"
#include "libcommon/stream.h"
#include "formats/trace.h"

struct merge;

struct merge *merge_new(void);
void merge_free(struct merge *m);      /* NULL ok */
/* 1: consumed; 0: not a trace record (pass it through); -1: bad input
 * (message printed). */
int  merge_record(struct merge *m, const struct record *rec);
/* Writes the obligation and the findings dmerge makes (shape-mismatch);
 * returns EXIT_OK, EXIT_BUG when it wrote a finding, or EXIT_TROUBLE after
 * a message saying why the two programs cannot be matched. */
int  merge_finish(struct merge *m, struct stream_out *w);
/* Trimming of the common prefix of torch ops (off by default). */
void merge_set_trim(struct merge *m, bool on);
/* Cutting identical tails (off by default): dmerge(1), "Identical tails". */
void merge_set_tails(struct merge *m, bool on);

/* dmerge over the whole input: the obligation, then the records it does
 * not know, to out.  Returns the exit status. */
enum exit_status dmerge_run(struct stream_in *in, FILE *out, bool trim, bool tails);

#endif
