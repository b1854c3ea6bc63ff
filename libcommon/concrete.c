/*
 * replay.c: executes one program of an obligation concretely (see
 * replay.h).  Each buffer of the program holds its current bytes; a value
 * that is read later (the source of a copy, or an output) is copied aside
 * when a newer version of its buffer replaces it.  Launches run in place
 * on the buffers through the PTX interpreter, each module parsed once.
 */
#include "concrete.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"

/* Buffer i of a program lives at BUF_BASE(i): 4 GiB apart, so that an
 * access past a buffer's end lands in a gap and is reported. */
#define BUF_BASE(i) (UINT64_C(0x10000000000) + ((uint64_t)(i) << 32))
#define MAX_BUFS 20000u

struct rbuf {
	uint8_t *data;
	uint64_t bytes;
	uint32_t cur;                /* current value, NO_VALUE before allocation */
	const char *symbol;
};

struct rp {
	const struct obligation *o;
	uint32_t prog;
	struct rbuf *bufs; uint32_t nbufs;
	uint8_t **saved;             /* per value: bytes kept aside, or NULL */
	bool *needed;                /* per value: read after it may be replaced */
	bool *done;                  /* per launch: executed */
	struct ptx_module **mods;    /* per module: parsed, or NULL */
	struct arena arena;
	char *err; size_t errlen;
	enum interp_status status;
	uint64_t steps;
	uint32_t launches;
	uint64_t max_steps;
};

static bool fail(struct rp *r, enum interp_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool fail(struct rp *r, enum interp_status st, const char *fmt, ...)
{
	r->status = st;
	if (r->err && r->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err, r->errlen, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* The bytes of value v (current in its buffer, or kept aside). */
static const uint8_t *value_bytes(struct rp *r, uint32_t v)
{
	const struct obl_value *val = &r->o->values.items[v];
	if (val->buf < r->nbufs && r->bufs[val->buf].cur == v)
		return r->bufs[val->buf].data;
	return r->saved[v];
}

/* Value v becomes the current version of its buffer. */
static bool take_over(struct rp *r, const struct obl_value *v)
{
	if (v->buf >= MAX_BUFS)
		return fail(r, INTERP_BADARG, "value %u: buffer %u out of range", v->value, v->buf);
	if (v->buf >= r->nbufs) {
		uint32_t n = v->buf + 1;
		r->bufs = xrealloc(r->bufs, n * sizeof *r->bufs);
		for (uint32_t i = r->nbufs; i < n; i++)
			r->bufs[i] = (struct rbuf){ NULL, 0, NO_VALUE, NULL };
		r->nbufs = n;
	}
	struct rbuf *b = &r->bufs[v->buf];
	if (b->cur != NO_VALUE && r->needed[b->cur] && !r->saved[b->cur]) {
		r->saved[b->cur] = xmalloc(b->bytes + 1);
		memcpy(r->saved[b->cur], b->data, b->bytes);
	}
	if (v->bytes >= (UINT64_C(1) << 32) - (UINT64_C(1) << 20))
		return fail(r, INTERP_BADARG, "value %u: buffer of %" PRIu64 " bytes is too large",
		            v->value, v->bytes);
	if (b->cur == NO_VALUE || v->prev == NO_VALUE || b->bytes != v->bytes) {
		uint8_t *d = xmalloc(v->bytes + 1);
		memset(d, 0xff, v->bytes);
		if (b->cur != NO_VALUE && v->prev != NO_VALUE)
			memcpy(d, b->data, b->bytes < v->bytes ? b->bytes : v->bytes);
		free(b->data);
		b->data = d;
		b->bytes = v->bytes;
	}
	b->cur = v->value;
	b->symbol = v->symbol;
	return true;
}

static bool in_range(struct rp *r, const struct obl_value *v, uint64_t off, uint64_t len,
                     uint64_t bytes)
{
	if (off > bytes || len > bytes - off)
		return fail(r, INTERP_BADARG, "value %u: range [%" PRIu64 ", +%" PRIu64 ") outside "
		            "%" PRIu64 " bytes", v->value, off, len, bytes);
	return true;
}

static struct ptx_module *module(struct rp *r, uint32_t id)
{
	if (r->mods[id])
		return r->mods[id];
	const struct obl_module *om = &r->o->modules.items[id];
	char perr[256];
	r->mods[id] = ptx_parse(&r->arena, om->ptx, om->ptxlen, perr, sizeof perr);
	if (!r->mods[id])
		fail(r, INTERP_BADARG, "module %u: %s", id, perr);
	return r->mods[id];
}

static bool run_launch(struct rp *r, uint32_t lid)
{
	const struct obligation *o = r->o;
	const struct obl_launch *l = &o->launches.items[lid];
	if (l->module >= o->modules.len)
		return fail(r, INTERP_BADARG, "launch %u names module %u", lid, l->module);
	struct ptx_module *m = module(r, l->module);
	if (!m)
		return false;
	const struct ptx_func *f = ptx_find_func(m, l->kernel);
	if (!f || !f->is_entry)
		return fail(r, INTERP_BADARG, "launch %u: no kernel '%s' in module %u", lid, l->kernel,
		            l->module);
	if (l->nargs != f->nparams)
		return fail(r, INTERP_BADARG, "launch %u of '%s': %u arguments for %u parameters", lid,
		            l->kernel, l->nargs, f->nparams);
	uint32_t grid[3], block[3];
	for (int k = 0; k < 3; k++) {
		if (l->grid[k] > UINT32_MAX || l->block[k] > 1024 || l->shmem > UINT32_MAX)
			return fail(r, INTERP_BADARG, "launch %u: geometry out of range", lid);
		grid[k] = (uint32_t)l->grid[k];
		block[k] = (uint32_t)l->block[k];
	}
	/* values this launch defines: keep what they replace if it is read later */
	for (size_t v = 0; v < o->values.len; v++) {
		const struct obl_value *val = &o->values.items[v];
		if (val->prog == r->prog && val->def == VD_LAUNCH && val->launch == lid)
			if (!take_over(r, val))
				return false;
	}
	/* every live buffer of the program, symbols bound by name where listed */
	struct interp_buf *ib = xcalloc(r->nbufs + 1, sizeof *ib);
	unsigned nib = 0;
	for (uint32_t b = 0; b < r->nbufs; b++) {
		struct rbuf *rb = &r->bufs[b];
		if (rb->cur == NO_VALUE)
			continue;
		const char *sym = NULL;
		if (rb->symbol) {
			for (uint32_t s = 0; s < l->nsyms; s++)
				if (strcmp(l->syms[s].symbol, rb->symbol) == 0)
					sym = rb->symbol;
			if (!sym)
				continue;      /* the kernel uses the variable's initialiser */
		}
		ib[nib++] = (struct interp_buf){ BUF_BASE(b), rb->bytes, rb->data, sym };
	}
	uint8_t **raw = xcalloc(l->nargs + 1, sizeof *raw);
	const void **args = xcalloc(l->nargs + 1, sizeof *args);
	bool ok = true;
	for (uint32_t i = 0; i < l->nargs && ok; i++) {
		const struct obl_arg *a = &l->args[i];
		uint32_t psize = f->params[i].size;
		raw[i] = xcalloc(psize + 8, 1);
		memcpy(raw[i], a->raw, a->size < psize ? a->size : psize);
		if (a->is_ptr) {
			if (a->vin >= o->values.len || o->values.items[a->vin].prog != r->prog) {
				ok = fail(r, INTERP_BADARG, "launch %u argument %u: bad value %u", lid, i, a->vin);
				break;
			}
			uint64_t p = BUF_BASE(o->values.items[a->vin].buf) + a->off;
			memcpy(raw[i], &p, psize < 8 ? psize : 8);
		}
		args[i] = raw[i];
	}
	if (ok) {
		struct interp_mem mem = { ib, nib };
		struct interp_opts opts = { r->max_steps };
		struct interp_stats st = { 0, 0 };
		struct interp_error e;
		enum interp_status s = interp_launch(m, l->kernel, grid, block, (uint32_t)l->shmem,
		                                     args, &mem, &opts, &st, &e);
		r->steps += st.steps;
		r->launches++;
		if (s != INTERP_OK)
			ok = fail(r, s, "launch %u of '%s' (program %u): %s", lid, l->kernel, r->prog, e.msg);
	}
	for (uint32_t i = 0; i < l->nargs; i++)
		free(raw[i]);
	free(raw);
	free(args);
	free(ib);
	return ok;
}

static bool define(struct rp *r, const struct obl_value *v, const void *const *inputs)
{
	const struct obligation *o = r->o;
	if (v->def == VD_LAUNCH) {
		if (v->launch >= o->launches.len || o->launches.items[v->launch].prog != r->prog)
			return fail(r, INTERP_BADARG, "value %u: bad launch %u", v->value, v->launch);
		if (r->done[v->launch])
			return true;
		r->done[v->launch] = true;
		return run_launch(r, v->launch);
	}
	if (v->def == VD_COPY && (v->src >= o->values.len || o->values.items[v->src].prog != r->prog))
		return fail(r, INTERP_BADARG, "value %u: bad copy source %u", v->value, v->src);
	/* a copy from the same buffer reads the version it replaces */
	const uint8_t *src = NULL;
	uint8_t *tmp = NULL;
	if (v->def == VD_COPY) {
		const struct obl_value *sv = &o->values.items[v->src];
		if (!in_range(r, v, v->src_off, v->len, sv->bytes))
			return false;
		src = value_bytes(r, v->src);
		if (!src)
			return fail(r, INTERP_BADARG, "value %u: copy source %u is not available",
			            v->value, v->src);
		tmp = xmalloc(v->len + 1);
		memcpy(tmp, src + v->src_off, v->len);
	}
	if (!take_over(r, v)) {
		free(tmp);
		return false;
	}
	uint8_t *d = r->bufs[v->buf].data;
	bool ok = true;
	switch (v->def) {
	case VD_UNINIT:
		memset(d, 0xff, v->bytes);
		break;
	case VD_INPUT: {
		if (v->input >= o->inputs.len) {
			ok = fail(r, INTERP_BADARG, "value %u: bad input %u", v->value, v->input);
			break;
		}
		const struct obl_input *in = &o->inputs.items[v->input];
		const void *data = inputs && inputs[v->input] ? inputs[v->input] : NULL;
		if (!data && in->data && in->ndata >= in->bytes)
			data = in->data;
		if (!data) {
			ok = fail(r, INTERP_BADARG, "no bytes for input %u", v->input);
			break;
		}
		if (!in_range(r, v, v->off, v->len, v->bytes) || v->len > in->bytes) {
			ok = fail(r, INTERP_BADARG, "value %u: input %u (%" PRIu64 " bytes) does not fit "
			          "[%" PRIu64 ", +%" PRIu64 ")", v->value, v->input, in->bytes, v->off, v->len);
			break;
		}
		memcpy(d + v->off, data, v->len);
		break;
	}
	case VD_MEMSET:
		if ((ok = in_range(r, v, v->off, v->len, v->bytes)))
			memset(d + v->off, v->fill, v->len);
		break;
	case VD_COPY:
		if ((ok = in_range(r, v, v->off, v->len, v->bytes)))
			memcpy(d + v->off, tmp, v->len);
		break;
	default:
		break;
	}
	free(tmp);
	return ok;
}

bool replay_program(const struct obligation *o, uint32_t prog, const void *const *inputs,
                    const struct replay_opts *opts, struct replay_result *out,
                    char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	struct rp r;
	memset(&r, 0, sizeof r);
	r.o = o;
	r.prog = prog;
	r.err = err;
	r.errlen = errlen;
	r.max_steps = opts ? opts->max_steps : 0;
	arena_init(&r.arena);
	size_t nv = o->values.len;
	r.saved = xcalloc(nv + 1, sizeof *r.saved);
	r.needed = xcalloc(nv + 1, sizeof *r.needed);
	r.done = xcalloc(o->launches.len + 1, sizeof *r.done);
	r.mods = xcalloc(o->modules.len + 1, sizeof *r.mods);
	bool ok = prog < 2 ? true : fail(&r, INTERP_BADARG, "no program %u", prog);
	for (size_t v = 0; ok && v < nv; v++) {
		const struct obl_value *val = &o->values.items[v];
		if (val->prog == prog && val->def == VD_COPY && val->src < nv)
			r.needed[val->src] = true;
	}
	for (size_t i = 0; ok && i < o->outputs.len; i++) {
		const struct obl_output *op = &o->outputs.items[i];
		uint32_t v = op->value[prog];
		if (v >= nv || o->values.items[v].prog != prog)
			ok = fail(&r, INTERP_BADARG, "output %zu: bad value %u for program %u", i, v, prog);
		else
			r.needed[v] = true;
	}
	for (size_t v = 0; ok && v < nv; v++)
		if (o->values.items[v].prog == prog)
			ok = define(&r, &o->values.items[v], inputs);
	if (ok) {
		out->outs = xcalloc(o->outputs.len + 1, sizeof *out->outs);
		out->nouts = (uint32_t)o->outputs.len;
		for (size_t i = 0; i < o->outputs.len; i++) {
			const struct obl_output *op = &o->outputs.items[i];
			const struct obl_value *val = &o->values.items[op->value[prog]];
			struct replay_output *ro = &out->outs[i];
			ro->output = (uint32_t)i;
			ro->bytes = op->bytes;
			ro->data = xmalloc(op->bytes + 1);
			const uint8_t *b = value_bytes(&r, val->value);
			if (!b || op->off[prog] > val->bytes || op->bytes > val->bytes - op->off[prog]) {
				ok = fail(&r, INTERP_BADARG, "output %zu: [%" PRIu64 ", +%" PRIu64 ") not in "
				          "value %u", i, op->off[prog], op->bytes, val->value);
				break;
			}
			memcpy(ro->data, b + op->off[prog], op->bytes);
		}
	}
	out->steps = r.steps;
	out->launches = r.launches;
	out->status = ok ? INTERP_OK : r.status;
	if (!ok) {
		enum interp_status st = out->status;
		replay_result_release(out);
		out->status = st;
	}
	for (size_t v = 0; v < nv; v++)
		free(r.saved[v]);
	for (uint32_t b = 0; b < r.nbufs; b++)
		free(r.bufs[b].data);
	free(r.bufs);
	free(r.saved);
	free(r.needed);
	free(r.done);
	free(r.mods);
	arena_release(&r.arena);
	return ok;
}

void replay_result_release(struct replay_result *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->nouts; i++)
		free(r->outs[i].data);
	free(r->outs);
	memset(r, 0, sizeof *r);
}
