/*
 * bundle.c: the repro bundle (--bundle FILE.tar.gz), a gzip-compressed
 * POSIX tar archive written with libarchive.  Everything lies under one
 * folder named after the file (FILE without .tar.gz or .tgz):
 *
 *   README              what the bundle holds and how to replay it
 *   report.txt          the report for people, as dreplay wrote it
 *   report.sarif.json   the same for code-scanning tools (SARIF 2.1.0)
 *   witnesses.json      per witness: the location, the values, the files
 *   witness-N/input-I[-NAME].npy
 *                       every shared input at witness N (the traced bytes
 *                       with the witness's elements written over them),
 *                       flat, in the type the witness gives it (else f32)
 *   pair.ver            the verdict stream dreplay read: dreplay pair.ver
 *                       replays every witness again with the PTX interpreter
 *   replay.py           loads the .npy files, checks them against the
 *                       witness, and replays it (see replay_py below)
 *
 * dmerge trims no common prefix (paper 4.6), so the witness inputs are the
 * original programs' inputs directly: nothing is back-projected.
 */
#include "dreplay.h"
#include "libcommon/diag.h"

#include <archive.h>
#include <archive_entry.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <time.h>

static const char *prog_name(const struct sym_state *st, uint32_t p)
{
	return p < 2 && st->obl.names[p] ? st->obl.names[p] : p ? "opt" : "ref";
}

enum etype input_etype(const struct obligation *ob, const struct replayed *rep, size_t nrep, uint32_t i)
{
	for (size_t k = 0; k < nrep; k++)
		for (uint32_t j = 0; j < rep[k].w.ninputs; j++)
			if (rep[k].w.inputs[j].input == i)   /* bf16: its raw bits */
				return rep[k].w.inputs[j].et == ET_BF16 ? ET_U16 : rep[k].w.inputs[j].et;
	return ob->inputs.items[i].bytes % 4 == 0 ? ET_F32 : ET_U8;
}

struct writer {
	struct archive *ar;
	const char *top;
	time_t now;
	const char *path;
	bool ok;
};

static void add(struct writer *w, const char *name, mode_t perm, const void *p1, size_t n1,
                const void *p2, size_t n2)
{
	if (!w->ok)
		return;
	struct archive_entry *e = archive_entry_new();
	char *full = xmalloc(strlen(w->top) + strlen(name) + 2);
	sprintf(full, "%s/%s", w->top, name);
	archive_entry_set_pathname(e, full);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, perm);
	archive_entry_set_size(e, (la_int64_t)(n1 + n2));
	archive_entry_set_mtime(e, w->now, 0);
	if (archive_write_header(w->ar, e) != ARCHIVE_OK ||
	    (n1 && archive_write_data(w->ar, p1, n1) != (la_ssize_t)n1) ||
	    (n2 && archive_write_data(w->ar, p2, n2) != (la_ssize_t)n2)) {
		warn("cannot write bundle '%s': %s", w->path, archive_error_string(w->ar));
		w->ok = false;
	}
	archive_entry_free(e);
	free(full);
}

static void add_text(struct writer *w, const char *name, mode_t perm, const char *text)
{
	add(w, name, perm, text, strlen(text), NULL, 0);
}

/* A file-name-safe copy of s (letters, digits, '-', '_', '.'). */
static char *safe(struct arena *a, const char *s)
{
	char *r = arena_strdup(a, s);
	for (char *p = r; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '_' || *p == '.'))
			*p = '_';
	return r;
}

/* Input i at witness rp as a .npy file; its name goes in the json list. */
static void add_npy(struct writer *w, const struct report_data *d, size_t k, uint32_t i, json_t *files,
                    struct arena *a)
{
	const struct obligation *ob = &d->st->obl;
	const struct obl_input *in = &ob->inputs.items[i];
	enum etype et = input_etype(ob, d->rep, d->nrep, i);
	const char *descr = npy_descr(et);
	uint64_t n = in->bytes / etype_size(et);
	unsigned char head[256];
	size_t hl = npy_header(head, sizeof head, descr, n);
	const char *name = arena_printf(a, "witness-%zu/input-%u%s%s.npy", k + 1, i, in->name ? "-" : "",
	                                in->name ? safe(a, in->name) : "");
	add(w, name, 0644, head, hl, d->rep[k].inputs[i], n * etype_size(et));
	json_array_append_new(files, json_pack("{s:i, s:s*, s:s, s:s, s:I}", "input", (json_int_t)i, "name",
	                                       in->name, "file", name, "dtype", descr, "elements",
	                                       (json_int_t)n));
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_string(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

static json_t *site(const struct sym_state *st, const struct replayed *rp, uint32_t p)
{
	uint32_t l = rp->writer[p];
	const struct store_site *s = &rp->site[p];
	json_t *j = json_pack("{s:s}", "program", prog_name(st, p));
	if (l != NO_VALUE) {
		json_object_set_new(j, "launch", json_integer(l));
		json_object_set_new(j, "kernel", json_string(st->obl.launches.items[l].kernel));
	}
	if (s->line)
		json_object_set_new(j, "ptx_line", json_integer(s->line));
	if (s->src_file) {
		json_object_set_new(j, "file", json_string(s->src_file));
		json_object_set_new(j, "line", json_integer(s->src_line));
	}
	return j;
}

static json_t *witness_json(const struct report_data *d, size_t k, json_t *files)
{
	const struct replayed *rp = &d->rep[k];
	const struct rp_replay *r = &rp->r;
	json_t *ins = json_array();
	for (uint32_t j = 0; j < rp->w.ninputs; j++) {
		const struct vd_input *v = &rp->w.inputs[j];
		json_array_append_new(ins, json_pack("{s:i, s:I, s:o}", "input", (json_int_t)v->input, "index",
		                                     (json_int_t)(v->off / etype_size(v->et)), "value",
		                                     num(v->value)));
	}
	json_t *j = json_pack("{s:I, s:i, s:I, s:I, s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
	                      "witness", (json_int_t)(k + 1), "output", (json_int_t)rp->w.output, "index",
	                      (json_int_t)rp->w.index, "off", (json_int_t)rp->w.off, "type",
	                      etype_name(rp->w.et), "confirmed", r->confirmed, "ref_f32", num(r->ref_f32),
	                      "opt_f32", num(r->opt_f32), "tol", num(r->tol), "inputs", ins, "files", files,
	                      "ref_store", site(d->st, rp, 0), "opt_store", site(d->st, rp, 1), "output_bytes",
	                      json_integer((json_int_t)d->st->obl.outputs.items[rp->w.output].bytes));
	if (r->ptx_ran) {
		json_object_set_new(j, "ref_ptx", num(r->ref_ptx));
		json_object_set_new(j, "opt_ptx", num(r->opt_ptx));
	}
	return j;
}

static const char readme_fmt[] =
	"dirigo repro bundle: %s (reference) vs %s (optimized)\n"
	"\n"
	"verdict: %s: %s\n"
	"\n"
	"Files\n"
	"  report.txt          the report dreplay wrote (dreplay(1))\n"
	"  report.sarif.json   the same for code-scanning tools (SARIF 2.1.0)\n"
	"  witnesses.json      each witness: output location, input elements, values,\n"
	"                      the store that wrote the location in each program\n"
	"  witness-N/*.npy     every shared input of the programs at witness N: the\n"
	"                      bytes the trace kept (zeros where it kept none) with\n"
	"                      the witness's elements written over them; flat arrays\n"
	"                      (NumPy .npy v1.0), float32 unless the witness says\n"
	"                      otherwise\n"
	"  pair.ver            the verdict stream (dirigo-verdict(5)) dreplay read:\n"
	"                      it holds both programs' PTX, launches and copies\n"
	"  replay.py           loads the .npy files and replays the mismatch\n"
	"\n"
	"Replaying on the CPU (no GPU needed): with dirigo's tools on PATH,\n"
	"\n"
	"  python3 replay.py            # checks the .npy files, then runs the next line\n"
	"  dreplay pair.ver | dcat | jq -c 'select(.t==\"replay\")'\n"
	"\n"
	"dreplay runs both whole programs (every recorded launch) with its PTX\n"
	"interpreter in float32 on the witness inputs and compares the location\n"
	"(ref_ptx, opt_ptx).  numpy is used when installed, never required.\n"
	"\n"
	"Replaying on a GPU: these are standalone CUDA programs (no PyTorch\n"
	"operators), so there is no PyTorch form of them to run: a GPU run needs a\n"
	"GPU and the original binaries (%s and %s).  The binaries fill their own\n"
	"inputs; to run them on the witness, feed them the .npy arrays in place of\n"
	"those inputs (input I is the I-th buffer the program copies to the device).\n"
	"dreplay --gpu (on a machine with a GPU) is the intended way; see\n"
	"dreplay(1) for its state.\n"
	"\n"
	"Witnesses map to the original programs directly: dmerge trims no common\n"
	"prefix, so no witness needs back-projecting through trimmed operations.\n";

/* The replay script.  Python 3, numpy optional (a small .npy reader is
 * built in), dirigo's tools looked up on PATH. */
static const char replay_py[] =
	"#!/usr/bin/env python3\n"
	"\"\"\"Replay the mismatch dirigo found (see README).\n"
	"\n"
	"1. Loads every witness-N/*.npy and checks that the witness's input elements\n"
	"   hold the values in witnesses.json.\n"
	"2. These programs are standalone CUDA programs without PyTorch operators:\n"
	"   there is no PyTorch/numpy form of them.  Rerunning them needs a GPU and\n"
	"   the original binaries (see gpu_commands).  On the CPU, the mismatch is\n"
	"   replayed by dirigo's PTX interpreter (CPU_COMMANDS), which this script\n"
	"   runs when dreplay and dcat are on PATH.\n"
	"\n"
	"Exit status: 1 the mismatch replays, 0 it does not, 2 trouble,\n"
	"3 dirigo's tools were not found (the commands are printed).\n"
	"\"\"\"\n"
	"import json, os, shutil, struct, subprocess, sys\n"
	"\n"
	"HERE = os.path.dirname(os.path.abspath(__file__))\n"
	"CPU_COMMANDS = ['dreplay pair.ver | dcat | jq -c \\'select(.t==\"replay\")\\'']\n"
	"\n"
	"def gpu_commands(ref, opt):\n"
	"    return ['nvcc -cudart shared -o {0} {0}.cu    # the original sources, as built for tracing'.format(ref),\n"
	"            'nvcc -cudart shared -o {0} {0}.cu'.format(opt),\n"
	"            'dtrace-cuda --name {0} -o {0}.trace -- ./{0}'.format(ref),\n"
	"            'dtrace-cuda --name {0} -o {0}.trace -- ./{0}'.format(opt),\n"
	"            'cat {0}.trace {1}.trace | dmerge | dexec | dcheck | dreplay --gpu'.format(ref, opt)]\n"
	"\n"
	"def load_npy(path):\n"
	"    try:\n"
	"        import numpy\n"
	"        return list(numpy.load(path).tolist())\n"
	"    except ImportError:\n"
	"        pass\n"
	"    with open(path, 'rb') as f:\n"
	"        data = f.read()\n"
	"    if data[:6] != b'\\x93NUMPY':\n"
	"        raise ValueError(path + ': not a .npy file')\n"
	"    hlen = struct.unpack('<H', data[8:10])[0]\n"
	"    header = eval(data[10:10 + hlen].decode('latin1'), {'__builtins__': {}}, {'False': False, 'True': True})\n"
	"    codes = {'<f4': 'f', '<f8': 'd', '<f2': 'e', '|u1': 'B', '|i1': 'b', '<u2': 'H', '<i2': 'h',\n"
	"             '<u4': 'I', '<i4': 'i', '<u8': 'Q', '<i8': 'q'}\n"
	"    code = codes[header['descr']]\n"
	"    n = header['shape'][0]\n"
	"    return list(struct.unpack('<%d%s' % (n, code), data[10 + hlen:10 + hlen + n * struct.calcsize(code)]))\n"
	"\n"
	"def close(a, b):\n"
	"    return a == b or abs(a - b) <= 1e-6 * max(abs(a), abs(b))\n"
	"\n"
	"def main():\n"
	"    os.chdir(HERE)\n"
	"    with open('witnesses.json') as f:\n"
	"        bundle = json.load(f)\n"
	"    witnesses = bundle['witnesses']\n"
	"    for w in witnesses:\n"
	"        arrays = {x['input']: load_npy(x['file']) for x in w['files']}\n"
	"        for e in w['inputs']:\n"
	"            got = arrays[e['input']][e['index']]\n"
	"            if not close(float(got), float(e['value'])):\n"
	"                print('witness %d: input %d[%d] is %r in the .npy file, %r in the witness' %\n"
	"                      (w['witness'], e['input'], e['index'], got, e['value']), file=sys.stderr)\n"
	"                return 2\n"
	"        print('witness %d: output %d element %d: ref %s, opt %s (%s); %d input elements checked' %\n"
	"              (w['witness'], w['output'], w['index'], w.get('ref_ptx', w['ref_f32']),\n"
	"               w.get('opt_ptx', w['opt_f32']), 'confirmed' if w['confirmed'] else 'not confirmed',\n"
	"               len(w['inputs'])))\n"
	"    print('These are standalone CUDA programs without PyTorch operators: no PyTorch/numpy')\n"
	"    print('replay exists.  A GPU run needs a GPU and the original binaries:')\n"
	"    for c in gpu_commands(bundle['reference'], bundle['optimized']):\n"
	"        print('    ' + c)\n"
	"    if not (shutil.which('dreplay') and shutil.which('dcat')):\n"
	"        print('dreplay/dcat not on PATH; the CPU replay (PTX interpreter) is:')\n"
	"        for c in CPU_COMMANDS:\n"
	"            print('    ' + c)\n"
	"        return 3\n"
	"    print('replaying on the CPU with the PTX interpreter: dreplay pair.ver')\n"
	"    rep = subprocess.run(['dreplay', '--report', os.devnull, 'pair.ver'], stdout=subprocess.PIPE)\n"
	"    if rep.returncode not in (0, 1, 3):\n"
	"        return 2\n"
	"    lines = subprocess.run(['dcat'], input=rep.stdout, stdout=subprocess.PIPE, check=True).stdout\n"
	"    replays = [r for r in map(json.loads, lines.decode().splitlines()) if r.get('t') == 'replay']\n"
	"    again = False\n"
	"    for w, r in zip(witnesses, replays):\n"
	"        print('witness %d replayed: ref %s, opt %s: %s' % (w['witness'], r.get('ref_ptx', r['ref_f32']),\n"
	"              r.get('opt_ptx', r['opt_f32']), 'CONFIRMED' if r['confirmed'] else 'NOT CONFIRMED'))\n"
	"        again = again or r['confirmed']\n"
	"    return 1 if again else 0\n"
	"\n"
	"if __name__ == '__main__':\n"
	"    sys.exit(main())\n";

bool bundle_write(const char *path, const struct report_data *d, const char *report, size_t reportlen,
                  const void *stream, size_t streamlen)
{
	const struct sym_state *st = d->st;
	const struct obligation *ob = &st->obl;
	struct arena a;
	arena_init(&a);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *top = arena_strdup(&a, base);
	size_t n = strlen(top);
	if (n > 7 && strcmp(top + n - 7, ".tar.gz") == 0)
		top[n - 7] = 0;
	else if (n > 4 && strcmp(top + n - 4, ".tgz") == 0)
		top[n - 4] = 0;
	if (!*top)
		top = "repro";
	struct writer w = { archive_write_new(), safe(&a, top), time(NULL), path, true };
	if (archive_write_set_format_pax_restricted(w.ar) != ARCHIVE_OK ||
	    archive_write_add_filter_gzip(w.ar) != ARCHIVE_OK ||
	    archive_write_open_filename(w.ar, path) != ARCHIVE_OK) {
		warn("cannot write bundle '%s': %s", path, archive_error_string(w.ar));
		archive_write_free(w.ar);
		arena_release(&a);
		return false;
	}
	const char *r = prog_name(st, 0), *o = prog_name(st, 1);
	add_text(&w, "README", 0644,
	         arena_printf(&a, readme_fmt, r, o, verdict_result_name(d->summary->result),
	                      d->summary->message ? d->summary->message : "", r, o));
	add(&w, "report.txt", 0644, report, reportlen, NULL, 0);
	char *sarif = sarif_text(d);
	add(&w, "report.sarif.json", 0644, sarif, strlen(sarif), "\n", 1);
	free(sarif);
	json_t *all = json_array();
	for (size_t k = 0; k < d->nrep; k++) {
		json_t *files = json_array();
		if (d->rep[k].inputs)
			for (uint32_t i = 0; i < ob->inputs.len; i++)
				add_npy(&w, d, k, i, files, &a);
		json_array_append_new(all, witness_json(d, k, files));
	}
	json_t *top_json = json_pack("{s:s, s:s, s:o}", "reference", r, "optimized", o, "witnesses", all);
	char *wj = top_json ? json_dumps(top_json, JSON_INDENT(2)) : NULL;
	json_decref(top_json);
	if (!wj)
		die("cannot build witnesses.json");
	add(&w, "witnesses.json", 0644, wj, strlen(wj), "\n", 1);
	free(wj);
	add(&w, "pair.ver", 0644, stream, streamlen, NULL, 0);
	add_text(&w, "replay.py", 0755, replay_py);
	if (archive_write_close(w.ar) != ARCHIVE_OK && w.ok) {
		warn("cannot write bundle '%s': %s", path, archive_error_string(w.ar));
		w.ok = false;
	}
	archive_write_free(w.ar);
	arena_release(&a);
	return w.ok;
}
