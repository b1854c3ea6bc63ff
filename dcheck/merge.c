/*
 * merge.c: dcheck --merge: the verdict streams of the shards of one check
 * (dcheck --shard I/N for I = 0..N-1, same input and options) into the
 * stream a single run would have written.
 *
 * Every shard's stream holds the same input records, then its locations
 * (each with its position in the order) and a verdict saying which shard
 * it is and why it stopped.  The merge writes the first stream's input
 * records, then every shard's locations (and their witnesses) in order of
 * position, cut after the first bug when a shard stopped there (as the
 * single run would have), and a verdict computed from them as the single
 * run computes it.
 */
#include "dcheck.h"
#include "libcommon/diag.h"

#include <stdlib.h>
#include <string.h>

struct entry {
	uint64_t pos;
	struct vd_location loc;          /* strings in the merge's arena */
	size_t off, len;                 /* the location record, packed */
	size_t woff, wlen;               /* its witness record, if wlen */
	const char *file;
};

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static void pack(msgpack_sbuffer *buf, const struct record *rec, size_t *off, size_t *len)
{
	msgpack_packer pk;
	msgpack_packer_init(&pk, buf, msgpack_sbuffer_write);
	*off = buf->size;
	msgpack_pack_object(&pk, *rec->obj);
	*len = buf->size - *off;
}

static void unpack_out(struct stream_out *out, const msgpack_sbuffer *buf, size_t off, size_t len)
{
	msgpack_unpacked u;
	msgpack_unpacked_init(&u);
	size_t at = 0;
	if (msgpack_unpack_next(&u, buf->data + off, len, &at) == MSGPACK_UNPACK_SUCCESS)
		out_raw_object(out, &u.data);
	msgpack_unpacked_destroy(&u);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* One merge: the shards' streams, what was read of them, the output. */
struct merge {
	const char *const *files;
	int nfiles;
	struct ectx *cx;
	struct sym_state st;             /* the first stream's input records */
	struct arena keep;
	msgpack_sbuffer buf;             /* the location and witness records, packed */
	VEC(struct entry) ents;
	VEC(struct vd_equal_output) eqs;
	struct stream_out *out;
	struct vd_verdict *vs;           /* by stream */
	size_t npass0;                   /* input records of the first stream */
};

/* Reads stream f: keeps its locations and witnesses, its verdict, and
 * (the first stream only) its equal-output records, passing its input
 * records through; EXIT_TROUBLE after saying what is wrong. */
static enum exit_status read_shard(struct merge *M, int f)
{
	const char *const *files = M->files;
	struct stream_in *in = stream_in_open(&files[f], 1);
	struct record rec;
	int k;
	bool seen_verdict = false;
	size_t npass = 0;
	struct entry *last = NULL;
	while ((k = stream_in_next(in, &rec)) > 0) {
		if (!rec_require_kind(&rec, "verdict", "dcheck")) {
			k = -1;
			break;
		}
		if (!strcmp(rec.type, "location")) {
			struct entry e;
			memset(&e, 0, sizeof e);
			if (!vd_read_location(&rec, &M->keep, &e.loc)) {
				k = -1;
				break;
			}
			if (!e.loc.has_pos) {
				rec_error(&rec, "no field 'pos' (made by a dcheck without --shard?)");
				k = -1;
				break;
			}
			e.pos = e.loc.pos;
			e.file = files[f];
			pack(&M->buf, &rec, &e.off, &e.len);
			VEC_PUSH(M->ents, e);
			last = &M->ents.items[M->ents.len - 1];
			continue;
		}
		if (!strcmp(rec.type, "witness")) {
			if (!last || last->wlen) {
				rec_error(&rec, "a witness without its location");
				k = -1;
				break;
			}
			pack(&M->buf, &rec, &last->woff, &last->wlen);
			continue;
		}
		last = NULL;
		if (!strcmp(rec.type, "equal-output")) {
			/* every shard writes the same ones: the first stream's count */
			struct vd_equal_output e;
			if (!vd_read_equal_output(&rec, &M->keep, &e)) {
				k = -1;
				break;
			}
			if (f == 0)
				VEC_PUSH(M->eqs, e);
		}
		if (!strcmp(rec.type, "verdict")) {
			if (!vd_read_verdict(&rec, &M->keep, &M->vs[f])) {
				k = -1;
				break;
			}
			seen_verdict = true;
			continue;
		}
		if (strcmp(rec.type, "header"))
			npass++;
		if (f == 0) {
			if (sym_state_take(&M->st, &rec) < 0) {
				k = -1;
				break;
			}
			out_pass(M->out, &rec, "verdict", NULL);
		}
	}
	stream_in_close(in);
	if (k < 0)
		return EXIT_TROUBLE;
	if (!seen_verdict) {
		warn("%s: no verdict record (an unfinished shard?)", files[f]);
		return EXIT_TROUBLE;
	}
	if (!M->vs[f].sharded && M->nfiles > 1) {
		warn("%s: not a shard's stream (no field 'shard')", files[f]);
		return EXIT_TROUBLE;
	}
	if (f == 0) {
		M->npass0 = npass;
	} else if (npass != M->npass0) {
		warn("%s: the input records differ from those of '%s'", files[f], files[0]);
		return EXIT_TROUBLE;
	}
	return EXIT_OK;
}

/* The shards must be one check's, all of them, once each; false after
 * saying which is not. */
static bool shards_complete(const struct merge *M)
{
	const struct vd_verdict *v0 = &M->vs[0];
	uint32_t n = v0->sharded ? v0->nshards : 1;
	bool *have = xcalloc(n, sizeof *have);
	bool ok = true;
	for (int f = 0; f < M->nfiles && ok; f++) {
		const struct vd_verdict *v = &M->vs[f];
		uint32_t i = v->sharded ? v->shard : 0, vn = v->sharded ? v->nshards : 1;
		if (vn != n || !same_str(v->order, v0->order) || v->seed != v0->seed ||
		    !same_str(v->axioms, v0->axioms) || v->min_locations != v0->min_locations ||
		    v->atol != v0->atol || v->rtol != v0->rtol || v->locations != v0->locations) {
			warn("%s: a shard of another check than '%s' (shard count, order, seed, axioms or tolerances differ)",
			     M->files[f], M->files[0]);
			ok = false;
		} else if (have[i]) {
			warn("%s: shard %u/%u given twice", M->files[f], i, n);
			ok = false;
		} else {
			have[i] = true;   /* i < n: the reader holds i < vn, and vn == n */
		}
	}
	for (uint32_t i = 0; i < n && ok; i++)
		if (!have[i]) {
			warn("shard %u/%u is missing", i, n);
			ok = false;
		}
	free(have);
	return ok;
}

/* Sorts the locations by position and finds the single run's stop: the
 * first bug in order, if a shard stopped at one (UINT64_MAX: none).
 * false after naming a position two shards checked. */
static bool order_locations(struct merge *M, uint64_t *cut)
{
	bool at_bug = false;
	for (int f = 0; f < M->nfiles; f++)
		at_bug |= same_str(M->vs[f].stopped, "first-bug");
	if (M->ents.len)
		qsort(M->ents.items, M->ents.len, sizeof *M->ents.items, entry_cmp);
	*cut = UINT64_MAX;
	for (size_t i = 0; i < M->ents.len; i++) {
		const struct entry *e = &M->ents.items[i];
		if (i && e->pos == e[-1].pos) {
			warn("%s: position %llu checked by two shards", e->file, (unsigned long long)e->pos);
			return false;
		}
		enum loc_result r = e->loc.result;
		if (at_bug && *cut == UINT64_MAX && (r == LR_DIFFER || r == LR_UNINIT))
			*cut = e->pos;
	}
	return true;
}

/* Writes the locations up to cut and the verdict a single run would
 * have written over them; its exit status. */
static enum exit_status write_merged(struct merge *M, uint64_t cut)
{
	const struct vd_verdict *v0 = &M->vs[0];
	bool budget = false, limit = false;
	for (int f = 0; f < M->nfiles; f++) {
		budget |= same_str(M->vs[f].stopped, "budget");
		limit |= same_str(M->vs[f].stopped, "max-locations");
	}
	struct tally t;
	memset(&t, 0, sizeof t);
	t.v.locations = v0->locations;
	for (size_t i = 0; i < M->eqs.len; i++)
		tally_count_equal(&t, &M->eqs.items[i]);
	for (size_t i = 0; i < M->ents.len && M->ents.items[i].pos <= cut; i++) {
		const struct entry *e = &M->ents.items[i];
		unpack_out(M->out, &M->buf, e->off, e->len);
		if (e->wlen)
			unpack_out(M->out, &M->buf, e->woff, e->wlen);
		tally_count(&t, &e->loc, &M->st.obl, &M->keep);
	}
	t.v.order = v0->order;
	t.v.seed = v0->seed;
	t.v.axioms = v0->axioms;
	t.v.stopped = cut != UINT64_MAX ? "first-bug" : budget ? "budget" : limit ? "max-locations" : "all";
	for (int f = 0; f < M->nfiles; f++) {
		const struct vd_verdict *v = &M->vs[f];
		if (v->has_estimate && (!t.v.has_estimate || v->estimate_s > t.v.estimate_s)) {
			t.v.has_estimate = true;
			t.v.estimate_s = v->estimate_s;
		}
		if (v->has_elapsed && (!t.v.has_elapsed || v->elapsed_s > t.v.elapsed_s)) {
			t.v.has_elapsed = true;
			t.v.elapsed_s = v->elapsed_s;
		}
	}
	struct dcheck_opts o;
	memset(&o, 0, sizeof o);
	o.min_locations = v0->min_locations;
	o.atol = v0->atol;
	o.rtol = v0->rtol;
	tally_conclude(&t, &o, &M->st, &M->keep);
	vd_write_verdict(M->out, &t.v);
	note("%s: %s", verdict_result_name(t.v.result), t.v.message);
	return verdict_status(t.v.result);
}

enum exit_status dcheck_merge(const char *const *files, int nfiles)
{
	if (nfiles < 1) {
		warn("--merge needs the verdict streams of the shards");
		return EXIT_TROUBLE;
	}
	struct merge M;
	memset(&M, 0, sizeof M);
	M.files = files;
	M.nfiles = nfiles;
	M.cx = ectx_new();
	arena_init(&M.keep);
	sym_state_init(&M.st, M.cx);
	msgpack_sbuffer_init(&M.buf);
	M.out = stream_out_new(stdout);
	M.vs = xcalloc((size_t)nfiles, sizeof *M.vs);

	enum exit_status status = EXIT_OK;
	uint64_t cut = UINT64_MAX;
	for (int f = 0; f < nfiles && status == EXIT_OK; f++)
		status = read_shard(&M, f);
	if (status == EXIT_OK && !sym_state_finish(&M.st, files[0], true))
		status = EXIT_TROUBLE;
	if (status == EXIT_OK && (!shards_complete(&M) || !order_locations(&M, &cut)))
		status = EXIT_TROUBLE;
	if (status == EXIT_OK)
		status = write_merged(&M, cut);

	status = stream_out_close(M.out, status);
	free(M.vs);
	VEC_FREE(M.ents);
	VEC_FREE(M.eqs);
	msgpack_sbuffer_destroy(&M.buf);
	sym_state_release(&M.st);
	ectx_free(M.cx);
	arena_release(&M.keep);
	return status;
}
