/*
 * run.h: one dexec run over an obligation stream (run.c): records are
 * taken as they pass through; at the end every launch is executed and its
 * records appended.
 */
#ifndef DIRIGO_DEXEC_RUN_H
#define DIRIGO_DEXEC_RUN_H

#include "dexec.h"

struct dx_src { const char *file; size_t index; };   /* where a launch record was */

struct dx_mod {                  /* a module, parsed on first use */
	bool done;
	const struct ptx_module *mod;
	const char *err;         /* why it does not parse */
};

struct dx_cache;
struct dx_entry;

struct dx_run {
	struct obligation o;
	struct dx_opts opts;
	struct arena a;          /* parsed modules, names */
	struct dx_mod *mods;     /* by module id */
	bool *unclean;           /* by module id: an unsupported launch ran it (opts.module_unclean) */
	VEC(struct dx_src) srcs; /* by launch id */
	struct smt *smt;
	const char *file;        /* the last input named, for messages */
	int status;              /* the worst outcome so far */
	uint32_t timeouts;       /* launches the deadline stopped */
	uint32_t not_started;    /* launches after the deadline */
	size_t findings;         /* finding records passed through */
	struct dx_cache *cache;  /* opts.cache opened, or NULL */
	struct smt_stats smt_stats;  /* of the launches' solvers, summed */
	uint32_t solvers;        /* solvers summed */
};

void dx_run_init(struct dx_run *r, const struct dx_opts *opts);
void dx_run_release(struct dx_run *r);          /* NULL ok */
/* Takes one record read from the input (after it was passed through).
 * Returns 0, or -1 for a bad record (message printed). */
int  dx_run_take(struct dx_run *r, const struct record *rec);
/* Checks the obligation, executes every launch and writes its records to
 * w.  Returns the exit status of the run (EXIT_TROUBLE for bad input,
 * before anything is written). */
int  dx_run_finish(struct dx_run *r, struct stream_out *w);

/* dexec over the whole input, to out (the work of main).  Returns the
 * exit status. */
enum exit_status dexec_run(const struct dx_opts *opts, struct stream_in *in, FILE *out);

/* ---- cache.c: --cache DIR ------------------------------------------------- */

/* Opens (creating it if needed) the cache directory for runs with opts;
 * NULL after a message when it cannot be used. */
struct dx_cache *dx_cache_open(const char *dir, const struct dx_opts *opts);
void dx_cache_close(struct dx_cache *c);       /* NULL ok */
/* Writes the records of launch i of o from the cache to w, relocated to
 * this stream's ids, and updates *status (and sets *unsup when the launch
 * was unsupported): true on a hit, false (nothing written) on a miss.
 * init: whether the module's __device__ variables still hold their
 * initialisers at this launch (dx_opts.module_unclean), part of the key. */
bool dx_cache_get(struct dx_cache *c, const struct obligation *o, uint32_t i, bool init,
                  struct stream_out *w, int *status, bool *unsup);
/* An entry for launch i being written: dx_entry_out gives the stream its
 * records also go to (one call per record), dx_entry_drop says it must
 * not be kept, dx_cache_end stores it (or not).  NULL (no entry) when it
 * cannot be written; the functions accept NULL. */
struct dx_entry *dx_cache_begin(struct dx_cache *c, const struct obligation *o, uint32_t i,
                                bool init);
struct stream_out *dx_entry_out(struct dx_entry *e);
void dx_entry_drop(struct dx_entry *e);
void dx_cache_end(struct dx_cache *c, struct dx_entry *e);

#endif
