/*
 * test-reloc.c: sym_relocate (formats/symbolic.c), the relocation of a
 * launch's records that dexec --cache replays: ids mapped in every place
 * a writes, finding or unsupported record names them (load and base
 * variable nodes, shared load spaces, write values, finding values,
 * launch and program), the same bytes when the map is the identity, and
 * refusal, with nothing written, of a record that names a value outside
 * the map or a type it does not know.
 */
#include "libcommon/diag.h"
#include "formats/symbolic.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes the records fn writes to a temporary file; returns its path. */
static char *file_of(void (*fn)(struct stream_out *, void *), void *arg)
{
	char *path = xstrdup("/tmp/test-reloc-XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "wb");
	struct stream_out *w = stream_out_new(f);
	out_header(w, "symbolic", NULL);
	fn(w, arg);
	stream_out_close(w, EXIT_OK);
	fclose(f);
	return path;
}

static void the_records(struct stream_out *w, void *arg)
{
	struct ectx *cx = arg;
	const struct expr *t = e_tid(cx, 0), *off = e_op2(cx, EOP_MUL, e_resize(cx, t, 64, false), e_bv(cx, 4, 64));
	const struct expr *base = e_var(cx, EVAR_BASE(7), SORT_BV(64));
	const struct expr *sh = e_load(cx, SYM_SHARED_SPACE(3), ET_F32, e_bv(cx, SYM_SH_CODE(1, 0) | 4, 64));
	const struct expr *ld = e_load(cx, 7, ET_F32, off);
	const struct expr *opq = e_opaque(cx, SYM_OPAQUE_TAG(3, 0), SORT_REAL, 1, &ld);
	const struct expr *val = e_op2(cx, EOP_FADD, e_op2(cx, EOP_FADD, ld, sh), opq);
	struct sym_write wr[2] = {
		{ 8, e_bool(cx, true), off, val, ET_F32, 0, 10, 0, SA_NONE, NULL, 0 },
		{ 9, e_bool(cx, true), off, e_op1(cx, EOP_U2R, SORT_REAL, 0, base), ET_F32, 1, 11, 0, SA_ADD, NULL, 1 },
	};
	struct sym_writes ws;
	memset(&ws, 0, sizeof ws);
	ws.launch = 3;
	ws.prog = 1;
	ws.kernel = "k";
	ws.bundles = 1;
	ws.writes = wr;
	ws.nwrites = 2;
	struct sym_opaque origin = { 12, "k.cu", 3, "mov.b32 %r1, %f1;", "bit reinterpretation" };
	ws.opaques = &origin;
	ws.nopaques = 1;
	sym_write_writes(w, &ws);
	struct sym_finding f;
	memset(&f, 0, sizeof f);
	f.cls = "oob-global";
	f.prog = 1;
	f.launch = 3;
	f.kernel = "k";
	f.has_addr = true;
	f.value = 7;
	f.off = 4096;
	f.message = "m";
	sym_write_finding(w, &f);
	struct sym_unsupported u = { 1, 3, "k", 5, "instruction", "n" };
	sym_write_unsupported(w, &u);
}

struct relocated { const char *in; const struct sym_reloc *m; int refused; };

static void relocate_all(struct stream_out *w, void *arg)
{
	struct relocated *r = arg;
	const char *files[1] = { r->in };
	struct stream_in *in = stream_in_open(files, 1);
	struct record rec;
	while (stream_in_next(in, &rec) > 0)
		if (strcmp(rec.type, "header") != 0 && strcmp(rec.type, "end") != 0 &&
		    !sym_relocate(w, &rec, r->m))
			r->refused++;
	stream_in_close(in);
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = xmalloc(1 << 16);
	*n = fread(buf, 1, 1 << 16, f);
	fclose(f);
	return buf;
}

int main(void)
{
	struct ectx *cx = ectx_new();
	char *orig = file_of(the_records, cx);

	uint32_t from[3] = { 7, 8, 9 }, to[3] = { 7, 8, 9 };
	struct sym_reloc id = { 3, 1, 3, 3, from, to };
	struct relocated r = { orig, &id, 0 };
	char *same = file_of(relocate_all, &r);
	size_t n1, n2;
	char *a = slurp(orig, &n1), *b = slurp(same, &n2);
	ok(r.refused == 0 && n1 == n2 && memcmp(a, b, n1) == 0, "the identity gives the same bytes (%zu)", n1);
	free(b);

	uint32_t to2[3] = { 20, 21, 22 };
	struct sym_reloc m = { 0, 0, 3, 3, from, to2 };
	r = (struct relocated){ orig, &m, 0 };
	char *moved = file_of(relocate_all, &r);
	ok(r.refused == 0, "every record relocates");
	const char *files[1] = { moved };
	struct stream_in *in = stream_in_open(files, 1);
	struct record rec;
	struct arena ar = ARENA_INIT;
	bool writes_ok = false, finding_ok = false, uns_ok = false;
	while (stream_in_next(in, &rec) > 0) {
		bool okr = true;
		if (strcmp(rec.type, "writes") == 0) {
			struct sym_writes ws;
			struct ectx *c2 = ectx_new();
			if (sym_read_writes(&rec, c2, &ar, &ws) && ws.launch == 0 && ws.prog == 0 &&
			    ws.nwrites == 1 && ws.writes[0].value == 21 && ws.natomics == 1 &&
			    ws.atomics[0].value == 22) {
				const struct expr *v = ws.writes[0].val;
				bool load = false, shared = false, opaque = false;
				for (unsigned i = 0; i < v->nargs; i++) {    /* fadd is flattened */
					const struct expr *x = v->args[i];
					opaque |= x->op == EOP_OPAQUE && EOPQ_TAGOF(x->u) == SYM_OPAQUE_TAG(0, 0) &&
					          sym_opaque_of(&ws, x) != NULL;
					load |= x->op == EOP_LOAD && x->space == 20;
					shared |= x->op == EOP_LOAD && x->space == SYM_SHARED_SPACE(0);
				}
				const struct expr *bv = ws.atomics[0].val->args[0];
				writes_ok = load && shared && opaque && bv->op == EOP_VAR && bv->u == EVAR_BASE(20);
			}
			ectx_free(c2);
		} else if (strcmp(rec.type, "finding") == 0) {
			finding_ok = rec_u64(&rec, "value", &okr) == 20 && rec_u64(&rec, "launch", &okr) == 0 &&
			             rec_u64(&rec, "prog", &okr) == 0;
		} else if (strcmp(rec.type, "unsupported") == 0) {
			uns_ok = rec_u64(&rec, "launch", &okr) == 0 && rec_u64(&rec, "line", &okr) == 5;
		}
	}
	stream_in_close(in);
	ok(writes_ok, "writes: launch, program, write and atomic values, load, shared, base var and "
	   "opaque nodes");
	ok(finding_ok, "finding: value, launch and program");
	ok(uns_ok, "unsupported: launch, the rest kept");

	uint32_t short_from[2] = { 7, 8 };
	struct sym_reloc part = { 0, 0, 3, 2, short_from, to2 };
	r = (struct relocated){ orig, &part, 0 };
	char *refused = file_of(relocate_all, &r);
	b = slurp(refused, &n2);
	ok(r.refused == 1, "a writes record naming a value outside the map is refused");
	struct sym_reloc other = { 0, 0, 4, 3, from, to2 };
	r = (struct relocated){ orig, &other, 0 };
	char *wrong = file_of(relocate_all, &r);
	ok(r.refused == 3, "records of another launch are refused");
	free(b);
	unlink(orig);
	unlink(same);
	unlink(moved);
	unlink(refused);
	unlink(wrong);
	free(orig);
	free(same);
	free(moved);
	free(refused);
	free(wrong);
	free(a);
	arena_release(&ar);
	ectx_free(cx);
	return done_testing();
}
