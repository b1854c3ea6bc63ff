/*
 * merge-impl.h: what merge.c (CUDA events, matching, writing) and torch.c
 * (torch records, common prefix) share.  Internal to dmerge.
 */
#ifndef DMERGE_MERGE_IMPL_H
#define DMERGE_MERGE_IMPL_H

#include "merge.h"
#include "formats/torch.h"
#include "formats/symbolic.h"

/* Tensor and storage ids of a torch trace index tables grown to them: an
 * id at record N is below N + MERGE_ID_SLACK (dmerge(1), LIMITS), which
 * bounds the tables by the size of the input. */
#define MERGE_ID_SLACK 65536u

/* A tensor of a trace: a view of one version of one storage. */
struct tview {
	bool known;
	uint32_t storage, version;
	struct obl_view v;          /* geometry (v.value unused) */
	const void *data;           /* optional: its elements, row-major */
	size_t ndata;
};

struct trand {                  /* a result of a random op: an input */
	uint32_t value;
	const char *name;           /* "aten::bernoulli_.float#3.0" */
	const void *data;           /* what the op made while tracing (replay) */
	size_t ndata;
	uint64_t bytes;
	struct obl_view v;
};

/* A torch storage of a trace: a buffer of the obligation. */
struct tstore {
	bool seen;
	uint32_t cur;               /* current value, NO_VALUE before the first */
	uint32_t tver;              /* the trace's version of cur */
	uint64_t bytes;             /* the furthest byte any view reaches */
};

struct tin {                    /* a tinput (not a constant) */
	uint32_t value, tensor;
	enum torch_role role;
	const char *name, *hash;
	const void *data;
	size_t ndata;
	uint64_t bytes;
	struct obl_view v;
};

struct tout {                   /* a toutput */
	uint32_t value;
	const char *name;
	struct obl_view v;          /* contiguous (dmerge copies a strided result) */
};

struct buffer {
	uint64_t bytes;
	uint32_t cur;               /* current value id */
	bool live;
	bool is_symbol;
	uint32_t module;            /* trace module id (symbols) */
	const char *symbol;
};

struct host_copy {              /* an h2d or d2h copy, for matching */
	uint32_t value;             /* h2d: the new version; d2h: the version read */
	uint64_t off, bytes;
	const void *data;
	size_t ndata;
	const char *hash;
	uint32_t buf;
};

struct prog {
	const char *name;
	VEC(struct buffer) bufs;
	VEC(uint32_t) module_ids;   /* trace module id -> obligation module id */
	VEC(struct host_copy) h2d;
	VEC(struct host_copy) d2h;
	bool ended;
	int64_t status;
	/* torch (torch.c) */
	VEC(struct tview) views;    /* by trace tensor id */
	VEC(struct tstore) stores;  /* by trace storage id */
	VEC(struct tin) tins;       /* tinput records (constants excluded) */
	VEC(struct tout) touts;     /* toutput records */
	VEC(struct trand) rands;    /* results of random ops */
	VEC(uint32_t) ops;          /* obligation op ids, in order */
	VEC(uint32_t) op_cuda;      /* per op: CUDA events before it */
	uint32_t cuda_events;       /* copies, memsets and launches so far */
	uint64_t last_seq;
};

struct merge {
	struct arena arena;
	struct prog progs[2];
	int nprogs;                 /* traces seen so far */
	struct obligation ob;       /* being built (values, modules, launches) */
	/* h2d values must point at shared inputs, known only at the end: they
	 * are patched in merge_finish. */
	bool no_trim;               /* --no-trim */
	bool no_tails;              /* --no-tails */
	/* Findings dmerge makes itself (shape-mismatch), written after the
	 * obligation; they name no launch (launch UINT32_MAX). */
	VEC(struct sym_finding) findings;
};


/* merge.c */
/* A new version of buffer buf (def etc. in v); returns its id. */
uint32_t merge_new_value(struct merge *m, int p, uint32_t buf, struct obl_value v);
/* The live buffer buf, or NULL after a message naming rec. */
struct buffer *merge_get_buf(struct prog *pr, const struct record *rec, uint32_t buf);
/* [off, off+n) lies in b, else false after a message. */
bool merge_in_range(const struct record *rec, const struct buffer *b, uint64_t off, uint64_t n);

/* torch.c */
/* The program has torch records (a trace that mixes torch ops with its
 * own kernels): its host copies are not the program's inputs and outputs. */
bool torch_mixed(const struct prog *pr);
/* A copy (1) in a mixed trace, or one that reaches a torch storage; -1
 * after a message. */
int  torch_copy(struct merge *m, int p, const struct record *rec, const struct trace_copy *c);
/* A memset of a torch storage: 1, or -1 after a message. */
int  torch_memset(struct merge *m, int p, const struct record *rec, const struct trace_memset *s);
/* 1: a torch record, taken; 0: not one; -1: bad input (message printed). */
int  torch_take(struct merge *m, int p, const struct record *rec);
/* The launch argument args[i] of rec points into a torch storage
 * ({"storage": id, "off": bytes}): 1 with *sid, *off; 0 if not; -1 after
 * a message. */
int  torch_launch_arg(struct merge *m, int p, const struct record *rec, uint32_t i,
                      uint32_t *sid, uint64_t *off);
/* A new version of storage sid (def etc. in v); returns its id. */
uint32_t torch_new_value(struct merge *m, int p, uint32_t sid, struct obl_value v);
/* At the end, after the CUDA inputs and outputs are in m->ob: storage
 * values get their buffer ids (after the program's CUDA buffers) and
 * sizes; torch inputs and outputs are matched and appended to m->ob
 * (false after a message); the common prefix is trimmed. */
bool torch_finish(struct merge *m);
void torch_free(struct prog *pr);

#endif
