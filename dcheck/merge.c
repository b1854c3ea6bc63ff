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

enum exit_status dcheck_merge(const char *const *files, int nfiles)
{
	if (nfiles < 1) {
		warn("--merge needs the verdict streams of the shards");
		return EXIT_TROUBLE;
	}
	struct ectx *cx = ectx_new();
	struct sym_state st;
	struct arena keep;
	arena_init(&keep);
	sym_state_init(&st, cx);
	msgpack_sbuffer buf;
	msgpack_sbuffer_init(&buf);
	VEC(struct entry) ents = { 0 };
	VEC(struct vd_equal_output) eqs = { 0 };
	struct stream_out *out = stream_out_new(stdout);
	struct vd_verdict *vs = xcalloc((size_t)nfiles, sizeof *vs);
	int status = EXIT_OK;
	size_t npass0 = 0;

	for (int f = 0; f < nfiles && status == EXIT_OK; f++) {
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
				if (!vd_read_location(&rec, &keep, &e.loc)) {
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
				pack(&buf, &rec, &e.off, &e.len);
				VEC_PUSH(ents, e);
				last = &ents.items[ents.len - 1];
				continue;
			}
			if (!strcmp(rec.type, "witness")) {
				if (!last || last->wlen) {
					rec_error(&rec, "a witness without its location");
					k = -1;
					break;
				}
				pack(&buf, &rec, &last->woff, &last->wlen);
				continue;
			}
			last = NULL;
			if (!strcmp(rec.type, "equal-output")) {
				/* every shard writes the same ones: the first stream's count */
				struct vd_equal_output e;
				if (!vd_read_equal_output(&rec, &keep, &e)) {
					k = -1;
					break;
				}
				if (f == 0)
					VEC_PUSH(eqs, e);
			}
			if (!strcmp(rec.type, "verdict")) {
				if (!vd_read_verdict(&rec, &keep, &vs[f])) {
					k = -1;
					break;
				}
				seen_verdict = true;
				continue;
			}
			if (strcmp(rec.type, "header"))
				npass++;
			if (f == 0) {
				if (sym_state_take(&st, &rec) < 0) {
					k = -1;
					break;
				}
				out_pass(out, &rec, "verdict", NULL);
			}
		}
		stream_in_close(in);
		if (k < 0) {
			status = EXIT_TROUBLE;
		} else if (!seen_verdict) {
			warn("%s: no verdict record (an unfinished shard?)", files[f]);
			status = EXIT_TROUBLE;
		} else if (!vs[f].sharded && nfiles > 1) {
			warn("%s: not a shard's stream (no field 'shard')", files[f]);
			status = EXIT_TROUBLE;
		} else if (f == 0) {
			npass0 = npass;
		} else if (npass != npass0) {
			warn("%s: the input records differ from those of '%s'", files[f], files[0]);
			status = EXIT_TROUBLE;
		}
	}
	if (status != EXIT_OK)
		goto out;
	if (!sym_state_finish(&st, files[0], true)) {
		status = EXIT_TROUBLE;
		goto out;
	}

	/* the shards must be one check's, all of them, once each */
	const struct vd_verdict *v0 = &vs[0];
	uint32_t n = v0->sharded ? v0->nshards : 1;
	bool *have = xcalloc(n, sizeof *have);
	for (int f = 0; f < nfiles && status == EXIT_OK; f++) {
		const struct vd_verdict *v = &vs[f];
		uint32_t i = v->sharded ? v->shard : 0, vn = v->sharded ? v->nshards : 1;
		if (vn != n || !same_str(v->order, v0->order) || v->seed != v0->seed ||
		    !same_str(v->axioms, v0->axioms) || v->min_locations != v0->min_locations ||
		    v->atol != v0->atol || v->rtol != v0->rtol || v->locations != v0->locations) {
			warn("%s: a shard of another check than '%s' (shard count, order, seed, axioms or tolerances differ)",
			     files[f], files[0]);
			status = EXIT_TROUBLE;
		} else if (have[i]) {
			warn("%s: shard %u/%u given twice", files[f], i, n);
			status = EXIT_TROUBLE;
		}
		have[i] = true;
	}
	for (uint32_t i = 0; i < n && status == EXIT_OK; i++)
		if (!have[i]) {
			warn("shard %u/%u is missing", i, n);
			status = EXIT_TROUBLE;
		}
	free(have);
	if (status != EXIT_OK)
		goto out;

	/* the single run's stop: at the first bug in order, if a shard stopped at one */
	bool at_bug = false, budget = false, limit = false;
	for (int f = 0; f < nfiles; f++) {
		at_bug |= same_str(vs[f].stopped, "first-bug");
		budget |= same_str(vs[f].stopped, "budget");
		limit |= same_str(vs[f].stopped, "max-locations");
	}
	if (ents.len)
		qsort(ents.items, ents.len, sizeof *ents.items, entry_cmp);
	uint64_t cut = UINT64_MAX;
	for (size_t i = 0; i < ents.len; i++) {
		if (i && ents.items[i].pos == ents.items[i - 1].pos) {
			warn("%s: position %llu checked by two shards", ents.items[i].file,
			     (unsigned long long)ents.items[i].pos);
			status = EXIT_TROUBLE;
			goto out;
		}
		enum loc_result r = ents.items[i].loc.result;
		if (at_bug && cut == UINT64_MAX && (r == LR_DIFFER || r == LR_UNINIT))
			cut = ents.items[i].pos;
	}

	struct tally t;
	memset(&t, 0, sizeof t);
	t.v.locations = v0->locations;
	for (size_t i = 0; i < eqs.len; i++)
		tally_count_equal(&t, &eqs.items[i]);
	for (size_t i = 0; i < ents.len && ents.items[i].pos <= cut; i++) {
		const struct entry *e = &ents.items[i];
		unpack_out(out, &buf, e->off, e->len);
		if (e->wlen)
			unpack_out(out, &buf, e->woff, e->wlen);
		tally_count(&t, &e->loc, &st.obl, &keep);
	}
	t.v.order = v0->order;
	t.v.seed = v0->seed;
	t.v.axioms = v0->axioms;
	t.v.stopped = cut != UINT64_MAX ? "first-bug" : budget ? "budget" : limit ? "max-locations" : "all";
	for (int f = 0; f < nfiles; f++) {
		if (vs[f].has_estimate && (!t.v.has_estimate || vs[f].estimate_s > t.v.estimate_s)) {
			t.v.has_estimate = true;
			t.v.estimate_s = vs[f].estimate_s;
		}
		if (vs[f].has_elapsed && (!t.v.has_elapsed || vs[f].elapsed_s > t.v.elapsed_s)) {
			t.v.has_elapsed = true;
			t.v.elapsed_s = vs[f].elapsed_s;
		}
	}
	struct dcheck_opts o;
	memset(&o, 0, sizeof o);
	o.min_locations = v0->min_locations;
	o.atol = v0->atol;
	o.rtol = v0->rtol;
	tally_conclude(&t, &o, &st, &keep);
	vd_write_verdict(out, &t.v);
	note("%s: %s", verdict_result_name(t.v.result), t.v.message);
	status = verdict_status(t.v.result);
out:
	status = stream_out_close(out, status);
	free(vs);
	VEC_FREE(ents);
	VEC_FREE(eqs);
	msgpack_sbuffer_destroy(&buf);
	sym_state_release(&st);
	ectx_free(cx);
	arena_release(&keep);
	return status;
}
