/*
 * replay.c: executes one program of an obligation concretely (see
 * replay.h).  Each buffer of the program holds its current bytes; a value
 * that is read later (the source of a copy, or an output) is copied aside
 * when a newer version of its buffer replaces it.  Launches run in place
 * on the buffers through the PTX interpreter, each module parsed once.
 * Torch ops run element by element through their formulas (libcommon/ops,
 * op_elem_value), rounding to float32 after every operation (float64 for
 * f64 results); all results of an op are computed before any is stored,
 * so in-place ops read what was there.
 */
#include "concrete.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deadline.h"
#include "ops/ops.h"
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
	bool *op_done;               /* per torch op: executed */
	struct ptx_module **mods;    /* per module: parsed, or NULL */
	struct arena arena;
	char *err; size_t errlen;
	enum interp_status status;
	uint64_t steps;
	uint32_t launches;
	uint64_t max_steps;
	double deadline;
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
		struct interp_opts opts = { r->max_steps, r->deadline };
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

/* ---- torch ops ---------------------------------------------------------------- */

static uint64_t view_elem(const struct obl_view *w, uint64_t flat)
{
	uint64_t at = (uint64_t)w->offset;
	for (uint32_t d = w->ndim; d-- > 0;) {
		uint64_t s = (uint64_t)w->shape[d];
		at += (s ? flat % s : 0) * (uint64_t)w->stride[d];
		flat = s ? flat / s : 0;
	}
	return at;
}

struct opctx {
	struct rp *r;
	const struct obl_op *op;
	const struct op_inst *in;
	bool failed;
};

/* The bytes of operand k's element flat, or NULL. */
static const uint8_t *opnd_at(struct opctx *c, unsigned k, uint64_t flat, enum etype *et)
{
	const struct obl_view *w = k < c->in->nin ? obl_op_view(c->op, c->in->in_tensor[k]) : NULL;
	const uint8_t *b = w ? value_bytes(c->r, w->value) : NULL;
	if (!b || flat >= obl_view_numel(w)) {
		c->failed = true;
		return NULL;
	}
	*et = w->dtype;
	return b + view_elem(w, flat) * etype_size(w->dtype);
}

static int64_t int_at(enum etype et, const uint8_t *p)
{
	uint64_t u = 0;
	unsigned n = etype_size(et);
	for (unsigned i = 0; i < n; i++)
		u |= (uint64_t)p[i] << (8 * i);
	bool sgn = et == ET_S8 || et == ET_S16 || et == ET_S32 || et == ET_S64;
	if (sgn && n < 8 && (u >> (8 * n - 1)) & 1)
		u |= ~0ull << (8 * n);
	return (int64_t)u;
}

static long double opnd_val(void *user, unsigned k, uint64_t flat)
{
	struct opctx *c = user;
	enum etype et;
	const uint8_t *p = opnd_at(c, k, flat, &et);
	if (!p)
		return 0;
	if (et == ET_F32) {
		float f;
		memcpy(&f, p, 4);
		return f;
	}
	if (et == ET_F64) {
		double d;
		memcpy(&d, p, 8);
		return d;
	}
	if (et == ET_F16 || et == ET_BF16) {
		c->failed = true;            /* half precision is not replayed */
		return 0;
	}
	return (long double)int_at(et, p);
}

static int64_t opnd_int(void *user, unsigned k, uint64_t flat)
{
	struct opctx *c = user;
	enum etype et;
	const uint8_t *p = opnd_at(c, k, flat, &et);
	if (!p || etype_is_float(et)) {
		c->failed = true;
		return 0;
	}
	return int_at(et, p);
}

static void store_elem(enum etype et, uint8_t *p, long double x)
{
	if (et == ET_F32) {
		float f = (float)x;
		memcpy(p, &f, 4);
	} else if (et == ET_F64) {
		double d = (double)x;
		memcpy(p, &d, 8);
	} else {
		int64_t i = x != x ? 0 : x >= 9.2e18L ? INT64_MAX : x <= -9.2e18L ? INT64_MIN : (int64_t)x;
		uint64_t u = (uint64_t)i;
		for (unsigned k = 0; k < etype_size(et); k++)
			p[k] = (uint8_t)(u >> (8 * k));
	}
}

/* Runs torch op k: every value it defines, computed from what the
 * operands hold now, then stored. */
static bool run_op(struct rp *r, uint32_t k)
{
	const struct obligation *o = r->o;
	const struct obl_op *op = &o->ops.items[k];
	struct op_inst in;
	char err[256];
	if (op->unsupported)
		return fail(r, INTERP_UNSUPPORTED, "torch op %u '%s' is unsupported: %s", k, op->call.op,
		            op->unsupported);
	if (!op_bind(&op->call, obl_op_shape, (void *)op, &in, err, sizeof err))
		return fail(r, INTERP_UNSUPPORTED, "torch op %u: %s", k, err);
	struct opctx c = { r, op, &in, false };
	struct op_leaves lv = { NULL, opnd_val, opnd_int, &c };
	uint32_t nres = op->call.nouts + op->call.nmuts;
	uint8_t **tmp = xcalloc(nres + 1, sizeof *tmp);
	uint32_t *vals = xcalloc(nres + 1, sizeof *vals);
	bool ok = true;
	for (uint32_t res = 0; res < nres && ok; res++) {
		const struct obl_view *w = obl_op_view(op, obl_op_result(op, res));
		vals[res] = NO_VALUE;
		if (!w)
			continue;
		const struct obl_value *v = &o->values.items[w->value];
		if (v->def != VD_OP || v->op != k || v->result != res)
			continue;             /* an alias, or another result's storage */
		vals[res] = w->value;
		if (w->dtype == ET_F16 || w->dtype == ET_BF16) {
			ok = fail(r, INTERP_UNSUPPORTED, "torch op %u '%s': %s results are not replayed", k,
			          op->call.op, etype_name(w->dtype));
			break;
		}
		uint64_t n = obl_view_numel(w);
		unsigned es = etype_size(w->dtype);
		tmp[res] = xmalloc(n * es + 1);
		enum emode mode = w->dtype == ET_F64 ? EM_F64 : EM_F32;
		for (uint64_t f = 0; f < n && ok; f++) {
			long double x;
			if (!(f & 63) && deadline_passed(r->deadline)) {
				ok = fail(r, INTERP_TIMEOUT, "torch op %u '%s': the budget ran out at result %u "
				          "element %llu of %llu", k, op->call.op, res, (unsigned long long)f,
				          (unsigned long long)n);
				break;
			}
			if (!op_elem_value(&in, res, f, mode, &lv, &x)) {
				if (in.res_formula[res] >= 0 || c.failed) {
					ok = fail(r, INTERP_UNSUPPORTED, "torch op %u '%s': result %u element %llu "
					          "cannot be computed", k, op->call.op, res, (unsigned long long)f);
					break;
				}
				memset(tmp[res] + f * es, 0xff, es);   /* no formula: never read */
				continue;
			}
			if (c.failed) {
				ok = fail(r, INTERP_UNSUPPORTED, "torch op %u '%s': an operand cannot be read", k,
				          op->call.op);
				break;
			}
			store_elem(w->dtype, tmp[res] + f * es, x);
		}
	}
	for (uint32_t res = 0; res < nres && ok; res++) {
		if (vals[res] == NO_VALUE)
			continue;
		const struct obl_value *v = &o->values.items[vals[res]];
		const struct obl_view *w = obl_op_view(op, obl_op_result(op, res));
		unsigned es = etype_size(w->dtype);
		if (!take_over(r, v)) {
			ok = false;
			break;
		}
		uint8_t *d = r->bufs[v->buf].data;
		uint64_t n = obl_view_numel(w);
		if ((obl_view_extent(w)) * es > v->bytes) {
			ok = fail(r, INTERP_BADARG, "torch op %u: result %u is outside value %u", k, res,
			          v->value);
			break;
		}
		for (uint64_t f = 0; f < n; f++)
			memcpy(d + view_elem(w, f) * es, tmp[res] + f * es, es);
	}
	for (uint32_t res = 0; res < nres; res++)
		free(tmp[res]);
	free(tmp);
	free(vals);
	return ok;
}

static bool define(struct rp *r, const struct obl_value *v, const void *const *inputs)
{
	const struct obligation *o = r->o;
	if (v->def == VD_OP) {
		if (v->op >= o->ops.len || o->ops.items[v->op].prog != r->prog)
			return fail(r, INTERP_BADARG, "value %u: bad op %u", v->value, v->op);
		if (r->op_done[v->op])
			return true;
		r->op_done[v->op] = true;
		return run_op(r, v->op);
	}
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
	case VD_DATA:
		if ((ok = in_range(r, v, v->off, v->len, v->bytes)))
			memcpy(d + v->off, v->data, v->len);
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
	r.deadline = opts && opts->deadline > 0 ? opts->deadline : DEADLINE_NONE;
	arena_init(&r.arena);
	size_t nv = o->values.len;
	r.saved = xcalloc(nv + 1, sizeof *r.saved);
	r.needed = xcalloc(nv + 1, sizeof *r.needed);
	r.done = xcalloc(o->launches.len + 1, sizeof *r.done);
	r.op_done = xcalloc(o->ops.len + 1, sizeof *r.op_done);
	r.mods = xcalloc(o->modules.len + 1, sizeof *r.mods);
	bool ok = prog < 2 ? true : fail(&r, INTERP_BADARG, "no program %u", prog);
	for (size_t v = 0; ok && v < nv; v++) {
		const struct obl_value *val = &o->values.items[v];
		if (val->prog == prog && val->def == VD_COPY && val->src < nv)
			r.needed[val->src] = true;
	}
	/* values torch ops read */
	for (size_t k = 0; ok && k < o->ops.len; k++) {
		const struct obl_op *op = &o->ops.items[k];
		for (uint32_t i = 0; op->prog == prog && i < op->nviews; i++)
			if (op->views[i].value < nv)
				r.needed[op->views[i].value] = true;
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
	free(r.op_done);
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
