/*
 * replay.c: encode and decode the records of dirigo-replay(5).
 */
#include "formats/replay.h"

#include <string.h>

static const char *const shown_names[] = {
	[RS_NONE] = "none", [RS_PROGRAMS] = "programs", [RS_MODEL_ONLY] = "model-only",
};

const char *rp_shown_name(enum rp_shown s)
{
	return s < RS__COUNT ? shown_names[s] : "none";
}

/* NaN and infinities are written as msgpack floats like any other value. */
void rp_write_replay(struct stream_out *w, const struct rp_replay *r)
{
	out_begin(w, "replay");
	out_ku64(w, "output", r->output);
	out_ku64(w, "index", r->index);
	out_ku64(w, "off", r->off);
	out_kf64(w, "ref_f32", r->ref_f32);
	out_kf64(w, "opt_f32", r->opt_f32);
	out_kf64(w, "ref_f64", r->ref_f64);
	out_kf64(w, "opt_f64", r->opt_f64);
	out_kf64(w, "diff", r->diff);
	out_kf64(w, "tol", r->tol);
	out_kbool(w, "confirmed", r->confirmed);
	out_kstr(w, "shown", rp_shown_name(r->shown));
	if (r->message)
		out_kstr(w, "message", r->message);
	if (r->ptx_ran) {
		out_kf64(w, "ref_ptx", r->ref_ptx);
		out_kf64(w, "opt_ptx", r->opt_ptx);
	}
	if (r->ptx_error)
		out_kstr(w, "ptx_error", r->ptx_error);
	if (r->ptx_run) {
		out_kstr(w, "ptx_run", r->ptx_run);
		out_kf64(w, "ptx_ms", r->ptx_ms);
		if (strcmp(r->ptx_run, "slice") == 0) {
			out_ku64(w, "blocks", r->blocks);
			out_ku64(w, "blocks_all", r->blocks_all);
			out_ku64(w, "elems", r->elems);
			out_ku64(w, "elems_all", r->elems_all);
		}
	}
	if (r->slice_note)
		out_kstr(w, "slice_note", r->slice_note);
	if (r->timeout)
		out_kbool(w, "timeout", true);
	out_end(w);
}

void rp_write_report(struct stream_out *w, const struct rp_report *r)
{
	out_begin(w, "report");
	out_kstr(w, "result", verdict_result_name(r->result));
	out_ku64(w, "witnesses", r->witnesses);
	out_ku64(w, "confirmed", r->confirmed);
	out_ku64(w, "findings", r->findings);
	out_kstr(w, "message", r->message ? r->message : "");
	out_end(w);
}

bool rp_read_replay(const struct record *rec, struct arena *a, struct rp_replay *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	uint64_t out = rec_u64(rec, "output", &ok);
	r->index = rec_u64(rec, "index", &ok);
	r->off = rec_u64_opt(rec, "off", 0, &ok);
	r->ref_f32 = rec_f64(rec, "ref_f32", &ok);
	r->opt_f32 = rec_f64(rec, "opt_f32", &ok);
	r->ref_f64 = rec_f64(rec, "ref_f64", &ok);
	r->opt_f64 = rec_f64(rec, "opt_f64", &ok);
	r->diff = rec_f64(rec, "diff", &ok);
	r->tol = rec_f64(rec, "tol", &ok);
	const msgpack_object *c = rec_get(rec, "confirmed");
	if (!c || c->type != MSGPACK_OBJECT_BOOLEAN) {
		if (ok)
			rec_error(rec, "field 'confirmed' missing or not a boolean");
		ok = false;
	} else {
		r->confirmed = c->via.boolean;
	}
	r->message = rec_str_opt(rec, "message", a, &ok);
	const char *sh = rec_str_opt(rec, "shown", a, &ok);
	r->shown = r->confirmed ? RS_PROGRAMS : RS_NONE;
	for (int i = 0; sh && i < RS__COUNT; i++)
		if (strcmp(sh, shown_names[i]) == 0)
			r->shown = (enum rp_shown)i;
	r->ptx_error = rec_str_opt(rec, "ptx_error", a, &ok);
	const msgpack_object *rp = rec_get(rec, "ref_ptx"), *op = rec_get(rec, "opt_ptx");
	r->ptx_ran = rp && op && obj_f64(rp, &r->ref_ptx) && obj_f64(op, &r->opt_ptx);
	r->ptx_run = rec_str_opt(rec, "ptx_run", a, &ok);
	r->slice_note = rec_str_opt(rec, "slice_note", a, &ok);
	const msgpack_object *ms = rec_get(rec, "ptx_ms");
	if (ms && !obj_f64(ms, &r->ptx_ms)) {
		if (ok)
			rec_error(rec, "field 'ptx_ms' is not a number");
		ok = false;
	}
	r->blocks = rec_u64_opt(rec, "blocks", 0, &ok);
	r->blocks_all = rec_u64_opt(rec, "blocks_all", 0, &ok);
	r->elems = rec_u64_opt(rec, "elems", 0, &ok);
	r->elems_all = rec_u64_opt(rec, "elems_all", 0, &ok);
	r->timeout = rec_bool_opt(rec, "timeout", false, &ok);
	r->output = (uint32_t)out;
	return ok && out <= UINT32_MAX;
}

bool rp_read_report(const struct record *rec, struct arena *a, struct rp_report *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	const char *s = rec_str(rec, "result", a, &ok);
	int v = verdict_result_parse(s);
	if (s && v < 0) {
		rec_error(rec, "field 'result': unknown value '%s'", s);
		ok = false;
	}
	r->result = v < 0 ? VR_UNKNOWN : (enum verdict_result)v;
	r->witnesses = rec_u64(rec, "witnesses", &ok);
	r->confirmed = rec_u64(rec, "confirmed", &ok);
	r->findings = rec_u64(rec, "findings", &ok);
	r->message = rec_str_opt(rec, "message", a, &ok);
	return ok;
}
