/*
 * sarif.c: the report for code-scanning tools, SARIF 2.1.0 (OASIS): one
 * run of the tool "dirigo" with one result per dexec finding, per output
 * location that reads never-written memory, and per witness that replay
 * confirmed (an unconfirmed witness is never reported as a bug).  Results
 * point at the .cu file and line when the PTX carried .loc information:
 * a finding's own line, a witness's store in the optimized program (the
 * reference's store is a related location).  Every result also names its
 * kernel as a logical location, and keeps the PTX line in its properties.
 */
#include "dreplay.h"
#include "libcommon/diag.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

static const char *prog_name(const struct sym_state *st, uint32_t p)
{
	return p < 2 && st->obl.names[p] ? st->obl.names[p] : p ? "opt" : "ref";
}

/* A URI for a path: file:///abs for absolute paths, the path itself
 * (relative reference) otherwise; bytes outside RFC 3986's unreserved set
 * and '/' are percent-encoded. */
static json_t *uri(const char *path)
{
	size_t n = strlen(path);
	char *s = xmalloc(3 * n + 8), *q = s;
	if (path[0] == '/')
		q += sprintf(q, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			*q++ = (char)*p;
		else
			q += sprintf(q, "%%%02X", *p);
	}
	*q = 0;
	json_t *j = json_string(s);
	free(s);
	return j;
}

static json_t *physical(const char *file, uint32_t line)
{
	return json_pack("{s:{s:{s:o}, s:{s:i}}}", "physicalLocation", "artifactLocation", "uri", uri(file),
	                 "region", "startLine", (json_int_t)line);
}

static json_t *logical(const char *kernel)
{
	return json_pack("[{s:s, s:s}]", "name", kernel ? kernel : "?", "kind", "function");
}

/* The index of rule id in rules, added with its description when new. */
static int rule(json_t *rules, const char *id, const char *text)
{
	size_t i;
	json_t *r;
	json_array_foreach(rules, i, r)
		if (strcmp(json_string_value(json_object_get(r, "id")), id) == 0)
			return (int)i;
	json_array_append_new(rules, json_pack("{s:s, s:{s:s}, s:{s:s}}", "id", id, "shortDescription",
	                                       "text", text, "defaultConfiguration", "level", "error"));
	return (int)json_array_size(rules) - 1;
}

static const char *describe(const char *cls)
{
	static const struct { const char *cls, *text; } known[] = {
		{ "oob-global", "global-memory access outside every buffer" },
		{ "oob-shared", "shared-memory access outside the block's window" },
		{ "shared-race", "cross-thread shared-memory race" },
		{ "warp-sync", "warp-synchronous programming without synchronization" },
		{ "barrier-divergence", "barrier under divergent control flow" },
		{ "shfl-inactive", "warp shuffle with a full mask under a predicated warp" },
		{ "shfl-undef", "warp shuffle reading a lane outside the block or inactive" },
		{ "uninit-shared", "read of never-written shared memory" },
		{ "global-race", "plain store and atomic update of one global location that no barrier orders" },
		{ "uninit-output", "output location reads never-written memory" },
		{ "shape-mismatch", "an output has a different shape in the two programs" },
		{ "wrong-result", "the optimized program computes a different value (confirmed witness)" },
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(known[i].cls, cls) == 0)
			return known[i].text;
	return "violation of the CUDA programming model found by dexec";
}

static json_t *result(json_t *rules, const char *id, const char *text)
{
	int ri = rule(rules, id, describe(id));
	return json_pack("{s:s, s:i, s:s, s:{s:s}}", "ruleId", id, "ruleIndex", (json_int_t)ri, "level",
	                 "error", "message", "text", text);
}

static json_t *finding(json_t *rules, const struct sym_state *st, const struct sym_finding *x)
{
	json_t *r = result(rules, x->cls, x->message);
	json_t *loc = x->src_file ? physical(x->src_file, x->src_line) : json_object();
	json_object_set_new(loc, "logicalLocations", logical(x->kernel));
	json_object_set_new(r, "locations", json_pack("[o]", loc));
	json_t *pr = x->launch == UINT32_MAX ?     /* dmerge's: no launch */
	             json_pack("{s:s, s:s}", "program", prog_name(st, x->prog), "output", x->kernel) :
	             json_pack("{s:s, s:i, s:s}", "program", prog_name(st, x->prog), "launch",
	                       (json_int_t)x->launch, "kernel", x->kernel);
	if (x->line)
		json_object_set_new(pr, "ptxLine", json_integer(x->line));
	if (x->has_thread) {
		json_object_set_new(pr, "thread", json_pack("[i,i,i]", (json_int_t)x->tid[0],
		                                             (json_int_t)x->tid[1], (json_int_t)x->tid[2]));
		json_object_set_new(pr, "block", json_pack("[i,i,i]", (json_int_t)x->ctaid[0],
		                                           (json_int_t)x->ctaid[1], (json_int_t)x->ctaid[2]));
	}
	json_object_set_new(r, "properties", pr);
	return r;
}

static json_t *site_location(const struct sym_state *st, const struct replayed *rp, uint32_t p)
{
	const struct store_site *s = &rp->site[p];
	json_t *loc = s->src_file ? physical(s->src_file, s->src_line) : json_object();
	uint32_t l = rp->writer[p];
	json_object_set_new(loc, "logicalLocations",
	                    logical(l == NO_VALUE ? NULL : st->obl.launches.items[l].kernel));
	char text[160];
	if (s->line)
		snprintf(text, sizeof text, "the store in %s (PTX line %u)", prog_name(st, p), s->line);
	else
		snprintf(text, sizeof text, "%s: the store is not known", prog_name(st, p));
	json_object_set_new(loc, "message", json_pack("{s:s}", "text", text));
	return loc;
}

static json_t *witness(json_t *rules, const struct report_data *d, const struct replayed *rp)
{
	const struct sym_state *st = d->st;
	const struct rp_replay *r = &rp->r;
	double ref = r->ptx_ran ? r->ref_ptx : r->ref_f32, opt = r->ptx_ran ? r->opt_ptx : r->opt_f32;
	const char *oname = st->obl.outputs.items[rp->w.output].name;
	char text[512];
	snprintf(text, sizeof text, "output %u%s%s%s element %llu differs: %s %.9g, %s %.9g (%s); "
	         "tolerance %.9g", rp->w.output, oname ? " (" : "", oname ? oname : "", oname ? ")" : "",
	         (unsigned long long)rp->w.index, prog_name(st, 0), ref, prog_name(st, 1), opt,
	         r->ptx_ran ? "both programs run by the PTX interpreter, float32" : "float32 evaluation",
	         r->tol);
	json_t *res = result(rules, "wrong-result", text);
	json_object_set_new(res, "locations", json_pack("[o]", site_location(st, rp, 1)));
	json_object_set_new(res, "relatedLocations", json_pack("[o]", site_location(st, rp, 0)));
	json_t *ins = json_array();
	for (uint32_t k = 0; k < rp->w.ninputs; k++)
		json_array_append_new(ins, json_pack("{s:i, s:i, s:f}", "input", (json_int_t)rp->w.inputs[k].input,
		                                     "index", (json_int_t)(rp->w.inputs[k].off /
		                                                           etype_size(rp->w.inputs[k].et)),
		                                     "value", rp->w.inputs[k].value));
	json_t *pr = json_pack("{s:i, s:i, s:f, s:f, s:f, s:o}", "output", (json_int_t)rp->w.output,
	                       "index", (json_int_t)rp->w.index, "ref", ref, "opt", opt, "tolerance", r->tol,
	                       "inputs", ins);
	if (rp->site[1].line)
		json_object_set_new(pr, "ptxLine", json_integer(rp->site[1].line));
	json_object_set_new(res, "properties", pr);
	return res;
}

char *sarif_text(const struct report_data *d)
{
	const struct sym_state *st = d->st;
	json_t *rules = json_array(), *results = json_array();
	for (size_t i = 0; i < st->findings.len; i++)
		json_array_append_new(results, finding(rules, st, &st->findings.items[i]));
	for (size_t i = 0; i < d->nuninit; i++) {
		const struct vd_location *l = &d->uninit[i];
		char text[256];
		snprintf(text, sizeof text, "output %u element %llu (byte %llu) reads never-written memory",
		         l->output, (unsigned long long)l->index, (unsigned long long)l->off);
		json_t *r = result(rules, "uninit-output", text);
		json_object_set_new(r, "properties", json_pack("{s:i, s:i}", "output", (json_int_t)l->output,
		                                                "index", (json_int_t)l->index));
		json_array_append_new(results, r);
	}
	for (size_t i = 0; i < d->nrep; i++)
		if (d->rep[i].r.confirmed)
			json_array_append_new(results, witness(rules, d, &d->rep[i]));
	json_t *root = json_pack(
		"{s:s, s:s, s:[{s:{s:{s:s, s:o}}, s:o, s:{s:s, s:s, s:s, s:I, s:I}}]}",
		"$schema", "https://json.schemastore.org/sarif-2.1.0.json", "version", "2.1.0", "runs",
		"tool", "driver", "name", "dirigo",
		"rules", rules, "results", results, "properties", "verdict",
		verdict_result_name(d->summary->result), "reference", prog_name(st, 0), "optimized",
		prog_name(st, 1), "witnesses", (json_int_t)d->summary->witnesses, "confirmed",
		(json_int_t)d->summary->confirmed);
	if (!root)                     /* json_pack took rules and results */
		die("cannot build the SARIF report");
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	json_decref(root);
	if (!text)
		die("cannot build the SARIF report");
	return text;
}

bool sarif_write(const char *path, const struct report_data *d)
{
	char *text = sarif_text(d);
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok)
		warn("cannot write SARIF report '%s': %s", path, strerror(errno));
	free(text);
	return ok;
}
