/*
 * verdict.c: encode and decode the records of dirigo-verdict(5).
 */
#include "formats/verdict.h"

#include <stdio.h>
#include <string.h>

static const char *const lr_names[] = {
	[LR_EQUAL] = "equal", [LR_DIFFER] = "differ", [LR_WITHIN_TOL] = "within-tolerance",
	[LR_UNKNOWN] = "unknown", [LR_UNSUPPORTED] = "unsupported", [LR_UNINIT] = "uninit",
	[LR_TIMEOUT] = "timeout",
};
static const char *const lh_names[] = {
	[LH_NONE] = "none", [LH_STRUCTURAL] = "structural", [LH_SCREEN] = "screen", [LH_SMT] = "smt",
};
static const char *const vr_names[] = {
	[VR_BUGGY] = "buggy", [VR_CORRECT] = "checked-correct", [VR_UNKNOWN] = "unknown",
	[VR_UNSUPPORTED] = "unsupported", [VR_TIMEOUT] = "timeout",
};

static int parse(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

const char *loc_result_name(enum loc_result r) { return r < LR__COUNT ? lr_names[r] : "?"; }
int loc_result_parse(const char *s) { return parse(lr_names, LR__COUNT, s); }
const char *loc_how_name(enum loc_how h) { return h < LH__COUNT ? lh_names[h] : "?"; }
int loc_how_parse(const char *s) { return parse(lh_names, LH__COUNT, s); }
const char *verdict_result_name(enum verdict_result r) { return r < VR__COUNT ? vr_names[r] : "?"; }
int verdict_result_parse(const char *s) { return parse(vr_names, VR__COUNT, s); }

void vd_write_location(struct stream_out *w, const struct vd_location *r)
{
	out_begin(w, "location");
	out_ku64(w, "output", r->output);
	out_ku64(w, "index", r->index);
	out_ku64(w, "off", r->off);
	out_kstr(w, "type", etype_name(r->et));
	out_kstr(w, "result", loc_result_name(r->result));
	out_kstr(w, "how", loc_how_name(r->how));
	out_ku64(w, "pos", r->pos);
	if (r->has_ms)
		out_kf64(w, "ms", r->ms);
	if (r->unconfirmed)
		out_kbool(w, "unconfirmed", true);
	if (r->opaque)
		out_kbool(w, "opaque", true);
	if (r->detail)
		out_kstr(w, "detail", r->detail);
	out_end(w);
}

void vd_write_witness(struct stream_out *w, const struct vd_witness *r)
{
	out_begin(w, "witness");
	out_ku64(w, "output", r->output);
	out_ku64(w, "index", r->index);
	out_ku64(w, "off", r->off);
	out_kstr(w, "type", etype_name(r->et));
	out_kstr(w, "how", loc_how_name(r->how));
	out_key(w, "inputs");
	out_array_begin(w);
	for (uint32_t i = 0; i < r->ninputs; i++) {
		out_map_begin(w);
		out_ku64(w, "input", r->inputs[i].input);
		out_ku64(w, "off", r->inputs[i].off);
		out_kstr(w, "type", etype_name(r->inputs[i].et));
		out_kf64(w, "value", r->inputs[i].value);
		out_map_end(w);
	}
	out_array_end(w);
	out_kf64(w, "ref", r->ref);
	out_kf64(w, "opt", r->opt);
	if (r->nkernels) {
		out_key(w, "kernels");
		out_array_begin(w);
		for (uint32_t i = 0; i < r->nkernels; i++) {
			out_map_begin(w);
			out_ku64(w, "prog", r->kernels[i].prog);
			out_ku64(w, "launch", r->kernels[i].launch);
			out_kstr(w, "kernel", r->kernels[i].kernel);
			out_map_end(w);
		}
		out_array_end(w);
	}
	out_end(w);
}

void vd_write_verdict(struct stream_out *w, const struct vd_verdict *r)
{
	out_begin(w, "verdict");
	out_kstr(w, "result", verdict_result_name(r->result));
	out_ku64(w, "checked", r->checked);
	out_ku64(w, "equal", r->equal);
	out_ku64(w, "within_tol", r->within_tol);
	out_ku64(w, "differ", r->differ);
	out_ku64(w, "unknown", r->unknown);
	out_ku64(w, "unsupported", r->unsupported);
	out_ku64(w, "uninit", r->uninit);
	if (r->timeout)
		out_ku64(w, "timeout", r->timeout);
	out_ku64(w, "findings", r->findings);
	out_ku64(w, "locations", r->locations);
	out_kf64(w, "atol", r->atol);
	out_kf64(w, "rtol", r->rtol);
	if (r->order)
		out_kstr(w, "order", r->order);
	out_ku64(w, "seed", r->seed);
	if (r->axioms)
		out_kstr(w, "axioms", r->axioms);
	out_ku64(w, "min_locations", r->min_locations);
	if (r->stopped)
		out_kstr(w, "stopped", r->stopped);
	out_ku64(w, "structural", r->structural);
	out_ku64(w, "screen", r->screen);
	out_ku64(w, "smt", r->smt);
	out_ku64(w, "unconfirmed", r->unconfirmed);
	out_ku64(w, "opaque", r->opaque);
	if (r->value_numbered)
		out_ku64(w, "value_numbered", r->value_numbered);
	if (r->sharded) {
		char buf[32];
		snprintf(buf, sizeof buf, "%u/%u", r->shard, r->nshards);
		out_kstr(w, "shard", buf);
	}
	if (r->has_estimate)
		out_kf64(w, "estimate_s", r->estimate_s);
	if (r->has_elapsed)
		out_kf64(w, "elapsed_s", r->elapsed_s);
	out_kstr(w, "message", r->message ? r->message : "");
	out_end(w);
}

/* A string field naming one of a fixed set. */
static int named(const struct record *rec, const char *key, struct arena *a,
                 int (*parse_fn)(const char *), bool *ok)
{
	const char *s = rec_str(rec, key, a, ok);
	if (!s)
		return -1;
	int v = parse_fn(s);
	if (v < 0) {
		rec_error(rec, "field '%s': unknown value '%s'", key, s);
		*ok = false;
	}
	return v;
}

static int etype_parse_int(const char *s)
{
	enum etype t = etype_parse(s);
	return t == ET_NONE ? -1 : (int)t;
}

static double f64_field(const struct record *rec, const char *key, bool *ok)
{
	return rec_f64(rec, key, ok);
}

bool vd_read_location(const struct record *rec, struct arena *a, struct vd_location *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	uint64_t out = rec_u64(rec, "output", &ok);
	r->index = rec_u64(rec, "index", &ok);
	r->off = rec_u64(rec, "off", &ok);
	r->et = (enum etype)named(rec, "type", a, etype_parse_int, &ok);
	r->result = (enum loc_result)named(rec, "result", a, loc_result_parse, &ok);
	r->how = (enum loc_how)named(rec, "how", a, loc_how_parse, &ok);
	const msgpack_object *x = rec_get(rec, "ms");
	if (x)
		r->has_ms = obj_f64(x, &r->ms);
	if ((x = rec_get(rec, "pos")))
		r->has_pos = obj_u64(x, &r->pos);
	if ((x = rec_get(rec, "unconfirmed")) && x->type == MSGPACK_OBJECT_BOOLEAN)
		r->unconfirmed = x->via.boolean;
	if ((x = rec_get(rec, "opaque")) && x->type == MSGPACK_OBJECT_BOOLEAN)
		r->opaque = x->via.boolean;
	r->detail = rec_str_opt(rec, "detail", a, &ok);
	if (ok && out > UINT32_MAX) {
		rec_error(rec, "field 'output' out of range");
		ok = false;
	}
	r->output = (uint32_t)out;
	return ok;
}

void vd_write_equal_output(struct stream_out *w, const struct vd_equal_output *r)
{
	out_begin(w, "equal-output");
	out_ku64(w, "output", r->output);
	out_ku64(w, "locations", r->locations);
	out_kstr(w, "how", r->how ? r->how : "value-number");
	if (r->detail)
		out_kstr(w, "detail", r->detail);
	out_end(w);
}

bool vd_read_equal_output(const struct record *rec, struct arena *a, struct vd_equal_output *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	uint64_t out = rec_u64(rec, "output", &ok);
	r->locations = rec_u64(rec, "locations", &ok);
	r->how = rec_str_opt(rec, "how", a, &ok);
	r->detail = rec_str_opt(rec, "detail", a, &ok);
	if (ok && out > UINT32_MAX) {
		rec_error(rec, "field 'output' out of range");
		ok = false;
	}
	if (ok && (!r->how || strcmp(r->how, "value-number") != 0)) {
		rec_error(rec, "field 'how': '%s' is not value-number", r->how ? r->how : "");
		ok = false;
	}
	r->output = (uint32_t)out;
	return ok;
}

bool vd_read_witness(const struct record *rec, struct arena *a, struct vd_witness *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	uint64_t out = rec_u64(rec, "output", &ok);
	r->index = rec_u64(rec, "index", &ok);
	r->off = rec_u64(rec, "off", &ok);
	r->et = (enum etype)named(rec, "type", a, etype_parse_int, &ok);
	r->ref = f64_field(rec, "ref", &ok);
	r->opt = f64_field(rec, "opt", &ok);
	r->how = LH_NONE;
	const msgpack_object *how = rec_get(rec, "how");
	if (how && how->type == MSGPACK_OBJECT_STR) {
		const char *s = obj_strdup(how, a);
		int h = loc_how_parse(s);
		r->how = h < 0 ? LH_NONE : (enum loc_how)h;
	}
	uint32_t n;
	const msgpack_object *in = rec_array(rec, "inputs", &n, &ok);
	if (!ok || out > UINT32_MAX) {
		if (ok)
			rec_error(rec, "field 'output' out of range");
		return false;
	}
	r->output = (uint32_t)out;
	r->inputs = ARENA_NEWN(a, struct vd_input, n ? n : 1);
	r->ninputs = n;
	for (uint32_t i = 0; i < n; i++) {
		const msgpack_object *m = &in[i];
		uint64_t id, off;
		char tname[16] = "";
		const msgpack_object *ty = m->type == MSGPACK_OBJECT_MAP ? obj_get(m, "type") : NULL;
		if (ty && ty->type == MSGPACK_OBJECT_STR && ty->via.str.size < sizeof tname)
			memcpy(tname, ty->via.str.ptr, ty->via.str.size);
		if (m->type != MSGPACK_OBJECT_MAP || !obj_u64(obj_get(m, "input"), &id) || id > UINT32_MAX ||
		    !obj_u64(obj_get(m, "off"), &off) || (r->inputs[i].et = etype_parse(tname)) == ET_NONE ||
		    !obj_f64(obj_get(m, "value"), &r->inputs[i].value)) {
			rec_error(rec, "input %u is malformed (input, off, type, value)", i);
			return false;
		}
		r->inputs[i].input = (uint32_t)id;
		r->inputs[i].off = off;
	}
	const msgpack_object *ks = rec_get(rec, "kernels");
	if (ks && ks->type == MSGPACK_OBJECT_ARRAY) {
		r->kernels = ARENA_NEWN(a, struct vd_kernel, ks->via.array.size + 1);
		for (uint32_t i = 0; i < ks->via.array.size; i++) {
			const msgpack_object *m = &ks->via.array.ptr[i];
			uint64_t p, l;
			const char *k;
			if (m->type != MSGPACK_OBJECT_MAP || !obj_u64(obj_get(m, "prog"), &p) ||
			    !obj_u64(obj_get(m, "launch"), &l) || !(k = obj_strdup(obj_get(m, "kernel"), a)))
				continue;        /* an optional field: skip what is not understood */
			r->kernels[r->nkernels++] = (struct vd_kernel){ (uint32_t)p, (uint32_t)l, k };
		}
	}
	return true;
}

bool vd_read_verdict(const struct record *rec, struct arena *a, struct vd_verdict *r)
{
	bool ok = true;
	memset(r, 0, sizeof *r);
	r->result = (enum verdict_result)named(rec, "result", a, verdict_result_parse, &ok);
	r->checked = rec_u64(rec, "checked", &ok);
	r->equal = rec_u64(rec, "equal", &ok);
	r->differ = rec_u64(rec, "differ", &ok);
	r->unknown = rec_u64(rec, "unknown", &ok);
	r->findings = rec_u64(rec, "findings", &ok);
	r->within_tol = rec_u64_opt(rec, "within_tol", 0, &ok);
	r->unsupported = rec_u64_opt(rec, "unsupported", 0, &ok);
	r->uninit = rec_u64_opt(rec, "uninit", 0, &ok);
	r->timeout = rec_u64_opt(rec, "timeout", 0, &ok);
	r->locations = rec_u64_opt(rec, "locations", 0, &ok);
	const msgpack_object *x;
	r->atol = (x = rec_get(rec, "atol")) && obj_f64(x, &r->atol) ? r->atol : 1e-2;
	r->rtol = (x = rec_get(rec, "rtol")) && obj_f64(x, &r->rtol) ? r->rtol : 1e-2;
	r->message = rec_str_opt(rec, "message", a, &ok);
	r->order = rec_str_opt(rec, "order", a, &ok);
	r->seed = rec_u64_opt(rec, "seed", 0, &ok);
	r->axioms = rec_str_opt(rec, "axioms", a, &ok);
	r->min_locations = rec_u64_opt(rec, "min_locations", 0, &ok);
	r->stopped = rec_str_opt(rec, "stopped", a, &ok);
	r->structural = rec_u64_opt(rec, "structural", 0, &ok);
	r->screen = rec_u64_opt(rec, "screen", 0, &ok);
	r->smt = rec_u64_opt(rec, "smt", 0, &ok);
	r->unconfirmed = rec_u64_opt(rec, "unconfirmed", 0, &ok);
	r->opaque = rec_u64_opt(rec, "opaque", 0, &ok);
	r->value_numbered = rec_u64_opt(rec, "value_numbered", 0, &ok);
	const char *sh = rec_str_opt(rec, "shard", a, &ok);
	if (sh) {
		unsigned i, n;
		char end;
		if (sscanf(sh, "%u/%u%c", &i, &n, &end) != 2 || n == 0 || i >= n) {
			rec_error(rec, "field 'shard': bad value '%s' (I/N with I < N)", sh);
			ok = false;
		} else {
			r->sharded = true;
			r->shard = i;
			r->nshards = n;
		}
	}
	if ((x = rec_get(rec, "estimate_s")))
		r->has_estimate = obj_f64(x, &r->estimate_s);
	if ((x = rec_get(rec, "elapsed_s")))
		r->has_elapsed = obj_f64(x, &r->elapsed_s);
	return ok;
}

void vd_seen_count(struct vd_seen *s, const struct vd_location *l)
{
	if (l->result < LR__COUNT)
		s->by_result[l->result]++;
	s->locations++;
}

void vd_seen_count_equal(struct vd_seen *s, const struct vd_equal_output *e)
{
	s->by_result[LR_EQUAL] += e->locations;
	s->locations += e->locations;
	s->value_numbered += e->locations;
}

bool vd_check_verdict(const struct record *rec, const struct vd_verdict *v, const struct vd_seen *s)
{
	struct { const char *name; uint64_t said, seen; } c[] = {
		{ "equal", v->equal, s->by_result[LR_EQUAL] },
		{ "within_tol", v->within_tol, s->by_result[LR_WITHIN_TOL] },
		{ "differ", v->differ, s->by_result[LR_DIFFER] },
		{ "unknown", v->unknown, s->by_result[LR_UNKNOWN] },
		{ "unsupported", v->unsupported, s->by_result[LR_UNSUPPORTED] },
		{ "uninit", v->uninit, s->by_result[LR_UNINIT] },
		{ "timeout", v->timeout, s->by_result[LR_TIMEOUT] },
		{ "checked", v->checked, s->locations },
		{ "findings", v->findings, s->findings },
		{ "value_numbered", v->value_numbered, s->value_numbered },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		if (c[i].said != c[i].seen) {
			rec_error(rec, "field '%s' says %llu, the stream holds %llu", c[i].name,
			          (unsigned long long)c[i].said, (unsigned long long)c[i].seen);
			return false;
		}
	uint64_t decided = v->equal + v->within_tol;
	bool bad = v->differ || v->uninit || v->findings;
	if (v->locations && v->checked > v->locations && !v->sharded) {
		rec_error(rec, "%llu locations checked of %llu", (unsigned long long)v->checked,
		          (unsigned long long)v->locations);
		return false;
	}
	if (v->result == VR_CORRECT && (!decided || bad)) {
		rec_error(rec, "checked-correct with %llu locations decided equal%s", (unsigned long long)decided,
		          bad ? " and a bug" : "");
		return false;
	}
	if (v->result == VR_TIMEOUT && bad) {
		rec_error(rec, "timeout with a bug already shown (a differing location, an uninitialised one "
		          "or a finding): that is buggy");
		return false;
	}
	if (v->result == VR_BUGGY && !bad) {
		rec_error(rec, "buggy without a differing location, an uninitialised one or a finding");
		return false;
	}
	return true;
}
