/*
 * verdict.h: records dcheck adds to the stream (dirigo-verdict(5)).
 *
 * location  one output location checked: its result and how it was decided
 * equal-output  a whole output equal at every location by value numbering
 * witness   inputs at which the two programs differ at a location
 * verdict   the summary of the whole check (the last record dcheck writes)
 */
#ifndef DIRIGO_FORMATS_VERDICT_H
#define DIRIGO_FORMATS_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "libcommon/expr.h"
#include "libcommon/stream.h"

enum loc_result {
	LR_EQUAL,             /* equal for all inputs */
	LR_DIFFER,            /* a witness differs beyond the tolerance */
	LR_WITHIN_TOL,        /* may differ, but never beyond the tolerance */
	LR_UNKNOWN,           /* not decided (solver gave up, race, too big) */
	LR_UNSUPPORTED,       /* depends on something dirigo cannot model */
	LR_UNINIT,            /* reads memory that no program step wrote */
	LR_TIMEOUT,           /* not decided: the time ran out (the stage's budget,
	                         or a launch dexec did not finish) */
	LR__COUNT
};
enum loc_how { LH_NONE, LH_STRUCTURAL, LH_SCREEN, LH_SMT, LH__COUNT };

const char *loc_result_name(enum loc_result r);     /* "equal", "within-tolerance", ... */
int         loc_result_parse(const char *s);        /* -1 if unknown */
const char *loc_how_name(enum loc_how h);           /* "none", "structural", ... */
int         loc_how_parse(const char *s);

struct vd_location {                 /* "location" */
	uint32_t output;
	uint64_t index;                  /* element index in the output */
	uint64_t off;                    /* byte offset in the output */
	enum etype et;                   /* element type compared */
	enum loc_result result;
	enum loc_how how;
	double ms;                       /* time spent on the location */
	bool has_ms;                     /* write ms (dcheck --timing) */
	const char *detail;              /* NULL or a sentence for people */
	uint64_t pos;                    /* position in the checking order */
	bool has_pos;                    /* reader: pos was present */
	bool unconfirmed;                /* solver: differs, but no witness confirmed */
	bool opaque;                     /* unknown: the value depends on an opaque value */
};

struct vd_equal_output {            /* "equal-output" */
	uint32_t output;
	uint64_t locations;              /* its locations, all equal */
	const char *how;                 /* "value-number" */
	const char *detail;              /* NULL or a sentence for people */
};

struct vd_input {                    /* one input element of a witness */
	uint32_t input;
	uint64_t off;                    /* byte offset in the input */
	enum etype et;
	double value;
};

struct vd_kernel {                   /* a launch that wrote the location */
	uint32_t prog, launch;
	const char *kernel;
};

struct vd_witness {                  /* "witness" */
	uint32_t output;
	uint64_t index, off;
	enum etype et;
	enum loc_how how;                /* screen or smt */
	struct vd_input *inputs;
	uint32_t ninputs;
	double ref, opt;                 /* exact values (program 0, program 1) */
	struct vd_kernel *kernels;
	uint32_t nkernels;
};

enum verdict_result { VR_BUGGY, VR_CORRECT, VR_UNKNOWN, VR_UNSUPPORTED, VR_TIMEOUT, VR__COUNT };
const char *verdict_result_name(enum verdict_result r);   /* "buggy", "checked-correct", ... */
int         verdict_result_parse(const char *s);

struct vd_verdict {                  /* "verdict" */
	enum verdict_result result;
	uint64_t checked;                /* locations attempted */
	uint64_t equal, within_tol, differ, unknown, unsupported, uninit;
	uint64_t timeout;                /* optional (0 when absent) */
	uint64_t findings;               /* finding records seen upstream */
	uint64_t locations;              /* locations in all outputs */
	double atol, rtol;
	const char *message;
	/* optional (absent from old streams: NULL, 0, false) */
	const char *order;               /* "heuristic", "sequential", "random" */
	uint64_t seed;
	const char *axioms;              /* "gelu-tanh,fast-math", "none" */
	uint64_t min_locations;          /* decided locations required */
	const char *stopped;             /* "first-bug", "budget", "max-locations", "all" */
	uint64_t structural, screen, smt;  /* locations decided by each path */
	uint64_t unconfirmed;            /* solver differences without a confirmed witness */
	uint64_t opaque;                 /* unknown locations that depend on an opaque value */
	uint64_t value_numbered;         /* equal locations of equal-output records */
	bool sharded;
	uint32_t shard, nshards;         /* this stream checked positions = shard mod nshards */
	bool has_estimate;
	double estimate_s;               /* estimated seconds to check every location */
	bool has_elapsed;
	double elapsed_s;                /* seconds the check took */
};

void vd_write_location(struct stream_out *w, const struct vd_location *r);
void vd_write_witness(struct stream_out *w, const struct vd_witness *r);
void vd_write_equal_output(struct stream_out *w, const struct vd_equal_output *r);
void vd_write_verdict(struct stream_out *w, const struct vd_verdict *r);

/* Readers: fill *r from rec (strings and arrays in arena a); false after
 * printing what is wrong with the record. */
bool vd_read_location(const struct record *rec, struct arena *a, struct vd_location *r);
bool vd_read_witness(const struct record *rec, struct arena *a, struct vd_witness *r);
bool vd_read_equal_output(const struct record *rec, struct arena *a, struct vd_equal_output *r);
bool vd_read_verdict(const struct record *rec, struct arena *a, struct vd_verdict *r);

/* Invariants of a verdict stream, checked before anything is concluded
 * from it (dirigo-verdict(5), RULES).  What a reader saw: the location
 * records by result and the finding records. */
struct vd_seen {
	uint64_t by_result[LR__COUNT];
	uint64_t locations;
	uint64_t findings;
	uint64_t value_numbered;         /* of them, in equal-output records */
};
/* Counts location l (read from a stream) in *s. */
void vd_seen_count(struct vd_seen *s, const struct vd_location *l);
/* Counts the locations of an equal-output record in *s. */
void vd_seen_count_equal(struct vd_seen *s, const struct vd_equal_output *e);
/* The verdict record rec (read as *v) against what the stream holds: its
 * counts are those of the location and finding records, they add up, and
 * its result follows from them (checked-correct: at least one location
 * decided equal and nothing buggy; buggy: something buggy).  False after
 * a message naming the record. */
bool vd_check_verdict(const struct record *rec, const struct vd_verdict *v, const struct vd_seen *s);

#endif
