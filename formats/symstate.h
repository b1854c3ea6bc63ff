/*
 * symstate.h: a symbolic stream gathered whole (dirigo-symbolic(5)): the
 * obligation, dexec's write sets, findings, unsupported and unfinished
 * launches, taken record by record while a stage passes its input through,
 * then checked against each other and indexed by launch (symstate.c).
 * Back-projection (engine/resolve.h) and slicing are built from it.
 */
#ifndef DIRIGO_SYMSTATE_H
#define DIRIGO_SYMSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/obligation.h"
#include "formats/symbolic.h"
#include "libcommon/arena.h"
#include "libcommon/expr.h"
#include "libcommon/stream.h"

struct sym_state {
	struct obligation obl;
	struct ectx *cx;                    /* owns the write expressions */
	struct arena arena;                 /* writes, findings, unsupported */
	VEC(struct sym_writes) writes;      /* in stream order */
	VEC(struct sym_finding) findings;
	VEC(struct sym_unsupported) unsupported;
	VEC(struct sym_timeout) timeouts;   /* launches dexec did not finish */
	struct sym_writes **by_launch;      /* after sym_state_finish: by launch id, NULL if none */
	const char **launch_unsupported;    /* by launch id: reason, or NULL */
	const char **launch_timeout;        /* by launch id: why it has no write set, or NULL */
};

/* cx is borrowed: it must outlive the state. */
void sym_state_init(struct sym_state *s, struct ectx *cx);
void sym_state_release(struct sym_state *s);          /* NULL ok */
/* 1 if rec was an obligation, writes, finding, unsupported or timeout record and
 * was stored; 0 if it is another record; -1 after printing what is wrong
 * with it (naming the file and record). */
int  sym_state_take(struct sym_state *s, const struct record *rec);
/* Checks the gathered obligation and write sets against each other and
 * indexes them; false after printing what is wrong, naming file.  When
 * need_symbolic, a stream whose launches have no write sets at all (dexec
 * was not run) is an error too. */
bool sym_state_finish(struct sym_state *s, const char *file, bool need_symbolic);

#endif
