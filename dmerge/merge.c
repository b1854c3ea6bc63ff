/*
 * merge.c: SSA construction over traced buffers and matching of the two
 * programs' inputs and outputs (see merge.h and dmerge(1)).
 *
 * Each program is replayed event by event.  A buffer's current value is
 * its latest SSA version; every event that changes it (host copy, memset,
 * device copy, a launch that receives a pointer into it) makes a new
 * version whose bytes outside the event's range come from the previous
 * one.  Host-to-device copies are the program's inputs and device-to-host
 * copies its outputs, matched between the programs by their order.
 */
#include "merge.h"
#include "merge-impl.h"
#include "libcommon/diag.h"
#include "formats/symbolic.h"

#include <string.h>

struct merge *merge_new(void)
{
	struct merge *m = xcalloc(1, sizeof *m);
	arena_init(&m->arena);
	obligation_init(&m->ob);
	return m;
}

void merge_free(struct merge *m)
{
	if (!m)
		return;
	for (int p = 0; p < 2; p++) {
		VEC_FREE(m->progs[p].bufs);
		VEC_FREE(m->progs[p].module_ids);
		VEC_FREE(m->progs[p].h2d);
		VEC_FREE(m->progs[p].d2h);
		torch_free(&m->progs[p]);
	}
	VEC_FREE(m->findings);
	obligation_release(&m->ob);
	arena_release(&m->arena);
	free(m);
}

uint32_t merge_new_value(struct merge *m, int p, uint32_t buf, struct obl_value v)
{
	struct buffer *b = &m->progs[p].bufs.items[buf];
	v.value = (uint32_t)m->ob.values.len;
	v.prog = (uint32_t)p;
	v.buf = buf;
	v.bytes = b->bytes;
	v.symbol = b->is_symbol ? b->symbol : NULL;
	if (v.def != VD_INPUT)
		v.input = NO_VALUE;
	if (b->live) {
		v.prev = b->cur;
		v.version = m->ob.values.items[b->cur].version + 1;
	} else {
		v.prev = NO_VALUE;
		v.version = 0;
	}
	VEC_PUSH(m->ob.values, v);
	b->cur = v.value;
	b->live = true;
	return v.value;
}

struct buffer *merge_get_buf(struct prog *pr, const struct record *rec, uint32_t buf)
{
	if (buf >= pr->bufs.len || !pr->bufs.items[buf].live) {
		rec_error(rec, "buffer %u is not allocated", buf);
		return NULL;
	}
	return &pr->bufs.items[buf];
}

bool merge_in_range(const struct record *rec, const struct buffer *b, uint64_t off, uint64_t n)
{
	if (off > b->bytes || n > b->bytes - off) {
		rec_error(rec, "range [%llu, +%llu) outside a buffer of %llu bytes",
		          (unsigned long long)off, (unsigned long long)n, (unsigned long long)b->bytes);
		return false;
	}
	return true;
}

static int take_alloc(struct merge *m, int p, const struct record *rec)
{
	struct trace_alloc a;
	if (!trace_read_alloc(rec, &m->arena, &a))
		return -1;
	struct prog *pr = &m->progs[p];
	if (a.buf != pr->bufs.len) {
		rec_error(rec, "buffer %u allocated out of order (expected %zu)", a.buf, pr->bufs.len);
		return -1;
	}
	struct buffer b = { .bytes = a.bytes, .is_symbol = a.kind == TA_SYMBOL,
	                    .module = a.module, .symbol = a.symbol };
	VEC_PUSH(pr->bufs, b);
	struct obl_value v = { .def = VD_UNINIT };
	merge_new_value(m, p, a.buf, v);
	return 1;
}

static int take_copy(struct merge *m, int p, const struct record *rec)
{
	struct trace_copy c;
	if (!trace_read_copy(rec, &m->arena, &c))
		return -1;
	struct prog *pr = &m->progs[p];
	if (c.storage != TRACE_NO_BUF || c.src_storage != TRACE_NO_BUF || torch_mixed(pr))
		return torch_copy(m, p, rec, &c);
	struct buffer *b = merge_get_buf(pr, rec, c.buf);
	if (!b || !merge_in_range(rec, b, c.off, c.bytes))
		return -1;
	pr->cuda_events++;
	if (c.dir == TC_H2D) {
		struct obl_value v = { .def = VD_INPUT, .off = c.off, .len = c.bytes,
		                       .input = (uint32_t)pr->h2d.len };
		uint32_t id = merge_new_value(m, p, c.buf, v);
		struct host_copy h = { id, c.off, c.bytes, c.data, c.ndata, c.hash, c.buf };
		VEC_PUSH(pr->h2d, h);
	} else if (c.dir == TC_D2H) {
		struct host_copy h = { b->cur, c.off, c.bytes, NULL, 0, NULL, c.buf };
		VEC_PUSH(pr->d2h, h);
	} else {
		struct buffer *s = merge_get_buf(pr, rec, c.src_buf);
		if (!s || !merge_in_range(rec, s, c.src_off, c.bytes))
			return -1;
		struct obl_value v = { .def = VD_COPY, .off = c.off, .len = c.bytes,
		                       .src = s->cur, .src_off = c.src_off };
		merge_new_value(m, p, c.buf, v);
	}
	return 1;
}

static int take_memset(struct merge *m, int p, const struct record *rec)
{
	struct trace_memset s;
	if (!trace_read_memset(rec, &m->arena, &s))
		return -1;
	if (s.storage != TRACE_NO_BUF)
		return torch_memset(m, p, rec, &s);
	struct buffer *b = merge_get_buf(&m->progs[p], rec, s.buf);
	if (!b || !merge_in_range(rec, b, s.off, s.bytes))
		return -1;
	struct obl_value v = { .def = VD_MEMSET, .off = s.off, .len = s.bytes, .fill = s.value };
	m->progs[p].cuda_events++;
	merge_new_value(m, p, s.buf, v);
	return 1;
}

static int take_module(struct merge *m, int p, const struct record *rec)
{
	struct trace_module tm;
	if (!trace_read_module(rec, &m->arena, &tm))
		return -1;
	struct prog *pr = &m->progs[p];
	/* The id indexes a table grown to it: modules are numbered from 0 in
	 * order, so an id beyond the next one is malformed, not a reason to
	 * grow the table (up to 2^32 entries). */
	if (tm.module > pr->module_ids.len) {
		rec_error(rec, "module %u out of order (the trace has %zu modules before it; modules are "
		          "numbered from 0 in order)", tm.module, pr->module_ids.len);
		return -1;
	}
	while (pr->module_ids.len <= tm.module)
		VEC_PUSH(pr->module_ids, NO_VALUE);
	if (pr->module_ids.items[tm.module] != NO_VALUE) {
		rec_error(rec, "module %u recorded twice", tm.module);
		return -1;
	}
	struct obl_module om = { .module = (uint32_t)m->ob.modules.len, .prog = (uint32_t)p,
	                         .ptx = tm.ptx, .ptxlen = tm.ptxlen, .hash = tm.hash };
	pr->module_ids.items[tm.module] = om.module;
	VEC_PUSH(m->ob.modules, om);
	return 1;
}

static int take_launch(struct merge *m, int p, const struct record *rec)
{
	struct trace_launch tl;
	if (!trace_read_launch(rec, &m->arena, &tl))
		return -1;
	struct prog *pr = &m->progs[p];
	if (tl.module >= pr->module_ids.len || pr->module_ids.items[tl.module] == NO_VALUE) {
		rec_error(rec, "launch of '%s' names module %u, which the trace does not hold",
		          tl.kernel, tl.module);
		return -1;
	}
	struct obl_launch l = {
		.launch = (uint32_t)m->ob.launches.len, .prog = (uint32_t)p,
		.module = pr->module_ids.items[tl.module], .kernel = tl.kernel,
		.shmem = tl.shmem, .nargs = tl.nargs,
	};
	for (uint32_t s = 0; s < m->ob.launches.len; s++)
		if (m->ob.launches.items[s].prog == (uint32_t)p)
			l.seq++;
	memcpy(l.grid, tl.grid, sizeof l.grid);
	memcpy(l.block, tl.block, sizeof l.block);
	pr->cuda_events++;
	l.args = ARENA_NEWN(&m->arena, struct obl_arg, tl.nargs);
	/* Every buffer a pointer argument reaches gets one new version for the
	 * whole launch, even when several arguments point into it. */
	uint32_t *vin_of = ARENA_NEWN(&m->arena, uint32_t, pr->bufs.len + 1);
	uint32_t *vout_of = ARENA_NEWN(&m->arena, uint32_t, pr->bufs.len + 1);
	uint32_t *sout_of = ARENA_NEWN(&m->arena, uint32_t, pr->stores.len + 1);
	for (uint32_t i = 0; i < tl.nargs; i++) {
		const struct trace_arg *ta = &tl.args[i];
		struct obl_arg *a = &l.args[i];
		a->param = ta->param;
		a->size = ta->size;
		a->raw = ta->raw;
		uint32_t sid;
		uint64_t soff;
		int ts = ta->buf == TRACE_NO_BUF ? torch_launch_arg(m, p, rec, i, &sid, &soff) : 0;
		if (ts < 0)
			return -1;
		if (ts > 0) {
			/* a pointer into a torch storage: one new version per launch */
			if (!sout_of[sid]) {
				struct obl_value v = { .def = VD_LAUNCH, .launch = l.launch, .input = NO_VALUE };
				sout_of[sid] = torch_new_value(m, p, sid, v) + 1;
				/* the trace counts the launch as a write: version + 1 */
				m->progs[p].stores.items[sid].tver++;
			}
			a->is_ptr = true;
			a->vout = sout_of[sid] - 1;
			a->vin = m->ob.values.items[a->vout].prev;
			a->off = soff;
			continue;
		}
		if (ta->buf == TRACE_NO_BUF)
			continue;
		struct buffer *b = merge_get_buf(pr, rec, ta->buf);
		if (!b)
			return -1;
		if (!vout_of[ta->buf]) {
			vin_of[ta->buf] = b->cur;
			struct obl_value v = { .def = VD_LAUNCH, .launch = l.launch };
			vout_of[ta->buf] = merge_new_value(m, p, ta->buf, v) + 1;
		}
		a->is_ptr = true;
		a->vin = vin_of[ta->buf];
		a->vout = vout_of[ta->buf] - 1;
		a->off = ta->off;
	}
	/* __constant__ and __device__ symbols of the kernel's module that the
	 * host wrote: the launch reads their current versions. */
	for (uint32_t b = 0; b < pr->bufs.len; b++) {
		struct buffer *sb = &pr->bufs.items[b];
		if (!sb->live || !sb->is_symbol || sb->module >= pr->module_ids.len ||
		    pr->module_ids.items[sb->module] != l.module ||
		    m->ob.values.items[sb->cur].def == VD_UNINIT)
			continue;
		struct obl_symref *ns = ARENA_NEWN(&m->arena, struct obl_symref, l.nsyms + 1);
		if (l.nsyms)
			memcpy(ns, l.syms, l.nsyms * sizeof *ns);
		ns[l.nsyms].symbol = sb->symbol;
		ns[l.nsyms].vin = sb->cur;
		l.syms = ns;
		l.nsyms++;
	}
	VEC_PUSH(m->ob.launches, l);
	return 1;
}

int merge_record(struct merge *m, const struct record *rec)
{
	const char *t = rec->type;
	if (strcmp(t, "header") == 0) {
		if (!rec->stream_kind || strcmp(rec->stream_kind, TRACE_STREAM_KIND) != 0) {
			rec_error(rec, "not a trace (stream '%s'); dmerge reads the traces of two programs",
			          rec->stream_kind ? rec->stream_kind : "?");
			return -1;
		}
		if (m->nprogs == 2) {
			rec_error(rec, "a third trace; dmerge merges exactly two (reference, then optimized)");
			return -1;
		}
		struct prog *pr = &m->progs[m->nprogs++];
		pr->name = arena_strdup(&m->arena, rec->stream_name ? rec->stream_name :
		                        m->nprogs == 1 ? "ref" : "opt");
		return 1;
	}
	int p = m->nprogs - 1;
	if (strcmp(t, "alloc") == 0) return take_alloc(m, p, rec);
	if (strcmp(t, "copy") == 0) return take_copy(m, p, rec);
	if (strcmp(t, "memset") == 0) return take_memset(m, p, rec);
	if (strcmp(t, "module") == 0) return take_module(m, p, rec);
	if (strcmp(t, "launch") == 0) return take_launch(m, p, rec);
	int tt = p >= 0 ? torch_take(m, p, rec) : 0;
	if (tt != 0)
		return tt;
	if (strcmp(t, "free") == 0) {
		struct trace_free f;
		if (!trace_read_free(rec, &m->arena, &f) || !merge_get_buf(&m->progs[p], rec, f.buf))
			return -1;
		m->progs[p].bufs.items[f.buf].live = false;
		return 1;
	}
	if (strcmp(t, "end") == 0) {
		struct trace_end e;
		if (!trace_read_end(rec, &m->arena, &e))
			return -1;
		m->progs[p].ended = true;
		m->progs[p].status = e.status;
		return 1;
	}
	return 0;
}

/* With -v: what was matched, one line. */
static void note_summary(const struct merge *m)
{
	size_t nl[2] = { 0, 0 }, nop[2] = { 0, 0 };
	for (size_t i = 0; i < m->ob.launches.len; i++)
		nl[m->ob.launches.items[i].prog & 1]++;
	for (size_t i = 0; i < m->ob.ops.len; i++)
		nop[m->ob.ops.items[i].prog & 1]++;
	note("merged '%s' (%zu launches, %zu torch ops) and '%s' (%zu launches, %zu torch ops): "
	     "%zu shared inputs, %zu values, %zu output pairs, %zu findings", m->progs[0].name, nl[0],
	     nop[0], m->progs[1].name, nl[1], nop[1], m->ob.inputs.len, m->ob.values.len,
	     m->ob.outputs.len, m->findings.len);
}

int merge_finish(struct merge *m, struct stream_out *w)
{
	struct prog *r = &m->progs[0], *o = &m->progs[1];
	if (m->nprogs != 2) {
		warn("need two traces (reference, then optimized), got %d", m->nprogs);
		return EXIT_TROUBLE;
	}
	for (int p = 0; p < 2; p++) {
		if (!m->progs[p].ended)
			warn("warning: trace of '%s' has no end record (the program may have crashed)",
			     m->progs[p].name);
		else if (m->progs[p].status != 0)
			warn("warning: '%s' exited with status %lld", m->progs[p].name,
			     (long long)m->progs[p].status);
	}
	if (r->h2d.len != o->h2d.len) {
		warn("programs do not match: '%s' copies %zu inputs to the device, '%s' copies %zu",
		     r->name, r->h2d.len, o->name, o->h2d.len);
		return EXIT_TROUBLE;
	}
	if (r->d2h.len != o->d2h.len) {
		warn("programs do not match: '%s' copies %zu outputs back to the host, '%s' copies %zu",
		     r->name, r->d2h.len, o->name, o->d2h.len);
		return EXIT_TROUBLE;
	}
	if (r->d2h.len == 0 && r->touts.len == 0 && o->touts.len == 0) {
		warn("the programs copy nothing back to the host and return no tensor: there are no "
		     "outputs to compare");
		return EXIT_TROUBLE;
	}
	for (size_t i = 0; i < r->h2d.len; i++) {
		const struct host_copy *a = &r->h2d.items[i], *b = &o->h2d.items[i];
		if (a->bytes != b->bytes) {
			warn("programs do not match: input %zu is %llu bytes in '%s' but %llu bytes in '%s'",
			     i, (unsigned long long)a->bytes, r->name, (unsigned long long)b->bytes, o->name);
			return EXIT_TROUBLE;
		}
		if (a->hash && b->hash && strcmp(a->hash, b->hash) != 0)
			note("input %zu holds different data in the two traces; inputs are symbolic, "
			     "the reference's data is kept for replay", i);
	}
	for (size_t i = 0; i < r->d2h.len; i++) {
		const struct host_copy *a = &r->d2h.items[i], *b = &o->d2h.items[i];
		if (a->bytes != b->bytes) {
			warn("programs do not match: output %zu is %llu bytes in '%s' but %llu bytes in '%s'",
			     i, (unsigned long long)a->bytes, r->name, (unsigned long long)b->bytes, o->name);
			return EXIT_TROUBLE;
		}
	}
	for (size_t i = 0; i < r->h2d.len; i++) {
		const struct host_copy *a = &r->h2d.items[i];
		struct obl_input in = { .input = (uint32_t)i, .bytes = a->bytes,
		                        .data = a->data, .ndata = a->ndata };
		VEC_PUSH(m->ob.inputs, in);
	}
	for (size_t i = 0; i < r->d2h.len; i++) {
		struct obl_output out = {
			.output = (uint32_t)i, .bytes = r->d2h.items[i].bytes,
			.value = { r->d2h.items[i].value, o->d2h.items[i].value },
			.off = { r->d2h.items[i].off, o->d2h.items[i].off }, .tail_of = NO_VALUE,
		};
		VEC_PUSH(m->ob.outputs, out);
	}
	if (!torch_finish(m))
		return EXIT_TROUBLE;
	obl_write_start(w, r->name, o->name);
	for (size_t i = 0; i < m->ob.inputs.len; i++)
		obl_write_input(w, &m->ob.inputs.items[i]);
	for (size_t i = 0; i < m->ob.modules.len; i++)
		obl_write_module(w, &m->ob.modules.items[i]);
	for (size_t i = 0; i < m->ob.values.len; i++)
		obl_write_value(w, &m->ob.values.items[i]);
	for (size_t i = 0; i < m->ob.launches.len; i++)
		obl_write_launch(w, &m->ob.launches.items[i]);
	for (size_t i = 0; i < m->ob.ops.len; i++)
		obl_write_op(w, &m->ob.ops.items[i]);
	if (m->ob.has_trimmed)
		obl_write_trimmed(w, &m->ob.trimmed);
	for (size_t i = 0; i < m->ob.outputs.len; i++)
		obl_write_output(w, &m->ob.outputs.items[i]);
	/* Ops without semantics make the verdict unsupported downstream. */
	for (size_t i = 0; i < m->ob.ops.len; i++) {
		const struct obl_op *op = &m->ob.ops.items[i];
		if (!op->unsupported)
			continue;
		struct sym_unsupported u = { op->prog, NO_VALUE, op->call.op, 0,
		                             arena_printf(&m->arena, "torch op '%s'", op->call.op),
		                             op->unsupported };
		sym_write_unsupported(w, &u);
	}
	for (size_t i = 0; i < m->findings.len; i++)
		sym_write_finding(w, &m->findings.items[i]);
	note_summary(m);
	return m->findings.len ? EXIT_BUG : EXIT_OK;
}

void merge_set_trim(struct merge *m, bool on)
{
	m->no_trim = !on;
}

void merge_set_tails(struct merge *m, bool on)
{
	m->no_tails = !on;
}

enum exit_status dmerge_run(struct stream_in *in, FILE *out, bool trim, bool tails)
{
	struct merge *m = merge_new();
	merge_set_trim(m, trim);
	merge_set_tails(m, tails);
	struct stream_out *w = stream_out_new(out);
	/* Records dmerge does not know pass through, after the obligation
	 * (which can only be written once both traces are read). */
	struct stream_out *hw = stream_out_memory();
	struct record rec;
	int r, status = EXIT_OK;
	size_t passed = 0;
	while ((r = stream_in_next(in, &rec)) > 0) {
		int t = merge_record(m, &rec);
		if (t < 0) {
			r = -1;
			break;
		}
		if (t == 0) {
			out_raw(hw, &rec);
			passed++;
		}
	}
	if (r < 0)
		status = EXIT_TROUBLE;
	if (status == EXIT_OK)
		status = merge_finish(m, w);
	if (status != EXIT_TROUBLE && passed)
		stream_out_append(w, hw);
	else
		stream_out_free(hw);
	status = stream_out_close(w, status);
	merge_free(m);
	return status;
}
