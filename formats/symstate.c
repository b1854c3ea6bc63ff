/*
 * symstate.c: gather a symbolic stream (the obligation, dexec's write
 * sets, findings, unsupported and unfinished launches) while a stage
 * passes its input through, then check the records against each other and
 * index them (symstate.h).
 */
#include "formats/symstate.h"
#include "libcommon/diag.h"

#include <string.h>

void sym_state_init(struct sym_state *s, struct ectx *cx)
{
	memset(s, 0, sizeof *s);
	obligation_init(&s->obl);
	arena_init(&s->arena);
	s->cx = cx;
}

void sym_state_release(struct sym_state *s)
{
	if (!s)
		return;
	obligation_release(&s->obl);
	arena_release(&s->arena);
	VEC_FREE(s->writes);
	VEC_FREE(s->findings);
	VEC_FREE(s->unsupported);
	VEC_FREE(s->timeouts);
	free(s->by_launch);
	free(s->launch_unsupported);
	free(s->launch_timeout);
	s->by_launch = NULL;
	s->launch_unsupported = NULL;
	s->launch_timeout = NULL;
}

int sym_state_take(struct sym_state *s, const struct record *rec)
{
	int r = obligation_take(&s->obl, rec);
	if (r != 0)
		return r;
	if (strcmp(rec->type, "writes") == 0) {
		struct sym_writes w;
		if (!sym_read_writes(rec, s->cx, &s->arena, &w))
			return -1;
		if (w.launch >= s->obl.launches.len || s->obl.launches.items[w.launch].prog != w.prog) {
			rec_error(rec, "launch %u is not a launch of program %u", w.launch, w.prog);
			return -1;
		}
		for (uint32_t i = 0; i < w.nwrites; i++) {
			uint32_t v = w.writes[i].value;
			if (v >= s->obl.values.len || s->obl.values.items[v].def != VD_LAUNCH ||
			    s->obl.values.items[v].launch != w.launch) {
				rec_error(rec, "write %u: value %u is not defined by launch %u", i, v, w.launch);
				return -1;
			}
		}
		for (uint32_t i = 0; i < w.nreads; i++) {
			uint32_t v = w.reads[i].value;
			if (v >= s->obl.values.len || s->obl.values.items[v].def != VD_LAUNCH ||
			    s->obl.values.items[v].launch != w.launch) {
				rec_error(rec, "read %u: value %u is not defined by launch %u", i, v, w.launch);
				return -1;
			}
		}
		VEC_PUSH(s->writes, w);
		return 1;
	}
	if (strcmp(rec->type, "finding") == 0) {
		struct sym_finding f;
		if (!sym_read_finding(rec, &s->arena, &f))
			return -1;
		VEC_PUSH(s->findings, f);
		return 1;
	}
	if (strcmp(rec->type, "unsupported") == 0) {
		struct sym_unsupported u;
		if (!sym_read_unsupported(rec, &s->arena, &u))
			return -1;
		VEC_PUSH(s->unsupported, u);
		return 1;
	}
	if (strcmp(rec->type, "timeout") == 0) {
		struct sym_timeout t;
		if (!sym_read_timeout(rec, &s->arena, &t))
			return -1;
		if (t.launch >= s->obl.launches.len || s->obl.launches.items[t.launch].prog != t.prog) {
			rec_error(rec, "launch %u is not a launch of program %u", t.launch, t.prog);
			return -1;
		}
		VEC_PUSH(s->timeouts, t);
		return 1;
	}
	return 0;
}

bool sym_state_finish(struct sym_state *s, const char *file, bool need_symbolic)
{
	if (!obligation_check(&s->obl, file))
		return false;
	size_t nl = s->obl.launches.len;
	s->by_launch = xcalloc(nl ? nl : 1, sizeof *s->by_launch);
	s->launch_unsupported = xcalloc(nl ? nl : 1, sizeof *s->launch_unsupported);
	for (size_t i = 0; i < s->writes.len; i++) {
		struct sym_writes *w = &s->writes.items[i];
		if (s->by_launch[w->launch]) {
			warn("%s: launch %u has two write sets", file, w->launch);
			return false;
		}
		s->by_launch[w->launch] = w;
	}
	for (size_t i = 0; i < s->unsupported.len; i++) {
		const struct sym_unsupported *u = &s->unsupported.items[i];
		if (u->launch < nl && !s->launch_unsupported[u->launch])
			s->launch_unsupported[u->launch] =
				arena_printf(&s->arena, "launch %u (%s) is unsupported: %s",
				             u->launch, u->kernel, u->what);
	}
	s->launch_timeout = xcalloc(nl ? nl : 1, sizeof *s->launch_timeout);
	for (size_t i = 0; i < s->timeouts.len; i++) {
		const struct sym_timeout *t = &s->timeouts.items[i];
		if (s->by_launch[t->launch]) {
			warn("%s: launch %u has a write set and a timeout record", file, t->launch);
			return false;
		}
		if (!s->launch_timeout[t->launch])
			s->launch_timeout[t->launch] =
				arena_printf(&s->arena, "launch %u (%s) was not finished: dexec ran out of time (%s)",
				             t->launch, t->kernel, t->doing);
	}
	if (need_symbolic && nl && !s->writes.len && !s->unsupported.len && !s->timeouts.len) {
		warn("%s: no write sets in the stream (run dexec first)", file);
		return false;
	}
	return true;
}
