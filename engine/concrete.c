/*
 * replay.c: executes one program of an obligation concretely (see
 * replay.h).  Each buffer of the program holds its current bytes; a value
 * that is read later (the source of a copy, or an output) is copied aside
 * when a newer version of its buffer replaces it.  Launches run in place
 * on the buffers through the PTX interpreter, each module parsed once.
 * Torch ops run element by element through their formulas (engine/ops,
 * op_elem_value), rounding to float32 after every operation (float64 for
 * f64 results); all results of an op are computed before any is stored,
 * so in-place ops read what was there.
 *
 * A sliced run (replay_opts.slice) computes only what the slice needs
 * (concrete.h): launches run the blocks it names, ops the elements it
 * names, and every buffer carries a validity map (vbits.h) so that a read
 * of anything the slice did not compute stops the run instead of giving a
 * value.  Buffers are then allocated zeroed (untouched pages cost
 * nothing) and written only over the bytes needed.
 */
#include "engine/concrete.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/deadline.h"
#include "engine/ops/ops.h"
#include "libcommon/ptx/ptx.h"
#include "engine/vbits.h"

/* Buffer i of a program lives at BUF_BASE(i): 4 GiB apart, so that an
 * access past a buffer's end lands in a gap and is reported. */
#define BUF_BASE(i) (UINT64_C(0x10000000000) + ((uint64_t)(i) << 32))
#define MAX_BUFS 20000u

struct rbuf {
	uint8_t *data;
	uint8_t *valid;              /* sliced runs: validity map (vbits.h) */
	uint64_t bytes;
	uint32_t cur;                /* current value, NO_VALUE before allocation */
	const char *symbol;
};

struct rp {
	const struct obligation *o;
	uint32_t prog;
	struct rbuf *bufs; uint32_t nbufs;
	uint8_t **saved;             /* per value: bytes kept aside, or NULL */
	uint8_t **saved_valid;       /* sliced runs: their validity maps */
	const struct replay_slice *slice;   /* NULL: the whole program */
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

/* ---- slices ------------------------------------------------------------------ */

static const struct slice_need *need_of(const struct rp *r, uint32_t v)
{
	return &r->slice->need[v];
}

/* The validity map of value v in a sliced run (as value_bytes), or NULL. */
static const uint8_t *value_valid(struct rp *r, uint32_t v)
{
	const struct obl_value *val = &r->o->values.items[v];
	if (val->buf < r->nbufs && r->bufs[val->buf].cur == v)
		return r->bufs[val->buf].valid;
	return r->saved_valid[v];
}

/* Value v's bytes [lo, hi) are all computed (always, in whole runs). */
static bool computed(struct rp *r, uint32_t v, uint64_t lo, uint64_t hi)
{
	if (!r->slice)
		return true;
	const uint8_t *m = value_valid(r, v);
	return m && vb_all(m, lo, hi);
}

/* Copies of data and map holding only the needed bytes of value v (zeros
 * and clear bits elsewhere). */
static void keep_needed(struct rp *r, uint32_t v, const uint8_t *data, const uint8_t *valid,
                        uint64_t bytes, uint8_t **kdata, uint8_t **kvalid)
{
	const struct slice_need *n = need_of(r, v);
	*kdata = xcalloc((size_t)bytes + 1, 1);
	*kvalid = vb_new(bytes);
	for (uint32_t i = 0; i < n->n; i++) {
		uint64_t lo = n->r[i].lo, hi = n->r[i].hi < bytes ? n->r[i].hi : bytes;
		if (lo >= hi)
			continue;
		memcpy(*kdata + lo, data + lo, hi - lo);
		vb_copy(*kvalid, lo, valid, lo, hi - lo);
	}
}

/* After value v is defined in a sliced run: only its needed bytes stay
 * valid (a launch's other blocks and an op's other elements were not
 * run, and nothing downstream reads the rest). */
static void restrict_to_need(struct rp *r, const struct obl_value *v)
{
	struct rbuf *b = &r->bufs[v->buf];
	const struct slice_need *n = need_of(r, v->value);
	uint8_t *m = vb_new(b->bytes);
	for (uint32_t i = 0; i < n->n; i++) {
		uint64_t lo = n->r[i].lo, hi = n->r[i].hi < b->bytes ? n->r[i].hi : b->bytes;
		if (lo < hi)
			vb_copy(m, lo, b->valid, lo, hi - lo);
	}
	free(b->valid);
	b->valid = m;
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
			r->bufs[i] = (struct rbuf){ NULL, NULL, 0, NO_VALUE, NULL };
		r->nbufs = n;
	}
	struct rbuf *b = &r->bufs[v->buf];
	if (b->cur != NO_VALUE && r->needed[b->cur] && !r->saved[b->cur]) {
		if (!r->slice) {
			r->saved[b->cur] = xmalloc(b->bytes + 1);
			memcpy(r->saved[b->cur], b->data, b->bytes);
		} else if (need_of(r, b->cur)->n) {
			keep_needed(r, b->cur, b->data, b->valid, b->bytes, &r->saved[b->cur],
			            &r->saved_valid[b->cur]);
		}
	}
	if (v->bytes >= (UINT64_C(1) << 32) - (UINT64_C(1) << 20))
		return fail(r, INTERP_BADARG, "value %u: buffer of %" PRIu64 " bytes is too large",
		            v->value, v->bytes);
	if (r->slice && (b->cur == NO_VALUE || v->prev == NO_VALUE || b->bytes != v->bytes)) {
		/* as below, over the needed bytes only: 0xFF where the whole run
		 * has it, then what carries over from the version before */
		const struct slice_need *n = need_of(r, v->value);
		uint8_t *d = xcalloc((size_t)v->bytes + 1, 1), *m = vb_new(v->bytes);
		for (uint32_t i = 0; i < n->n; i++) {
			uint64_t lo = n->r[i].lo, hi = n->r[i].hi < v->bytes ? n->r[i].hi : v->bytes;
			if (lo < hi) {
				memset(d + lo, 0xff, hi - lo);
				vb_set(m, lo, hi);
			}
		}
		if (b->cur != NO_VALUE && v->prev != NO_VALUE) {
			uint64_t keep = b->bytes < v->bytes ? b->bytes : v->bytes;
			for (uint32_t i = 0; i < n->n; i++) {
				uint64_t lo = n->r[i].lo, hi = n->r[i].hi < keep ? n->r[i].hi : keep;
				if (lo < hi) {
					memcpy(d + lo, b->data + lo, hi - lo);
					vb_copy(m, lo, b->valid, lo, hi - lo);
				}
			}
		}
		free(b->data);
		free(b->valid);
		b->data = d;
		b->valid = m;
		b->bytes = v->bytes;
	} else if (b->cur == NO_VALUE || v->prev == NO_VALUE || b->bytes != v->bytes) {
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
	const struct slice_launch *sl = r->slice ? &r->slice->launch[lid] : NULL;
	if (sl && sl->mode == SM_SKIP) {
		/* no block writes what is needed: it is what the versions before held */
		for (size_t v = 0; v < o->values.len; v++) {
			const struct obl_value *val = &o->values.items[v];
			if (val->prog == r->prog && val->def == VD_LAUNCH && val->launch == lid)
				restrict_to_need(r, val);
		}
		return true;
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
		ib[nib++] = (struct interp_buf){ BUF_BASE(b), rb->bytes, rb->data, sym, rb->valid };
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
		struct interp_opts opts = { .max_steps = r->max_steps, .deadline = r->deadline };
		if (sl && sl->mode == SM_PART) {
			opts.blocks = (const uint32_t (*)[3])sl->blocks;
			opts.nblocks = sl->nblocks;
		}
		struct interp_stats st = { 0, 0 };
		struct interp_error e;
		enum interp_status s = interp_launch(m, l->kernel, grid, block, (uint32_t)l->shmem,
		                                     args, &mem, &opts, &st, &e);
		r->steps += st.steps;
		r->launches++;
		if (s != INTERP_OK)
			ok = fail(r, s, "launch %u of '%s' (program %u): %s", lid, l->kernel, r->prog, e.msg);
	}
	for (size_t v = 0; ok && sl && v < o->values.len; v++) {
		const struct obl_value *val = &o->values.items[v];
		if (val->prog == r->prog && val->def == VD_LAUNCH && val->launch == lid)
			restrict_to_need(r, val);
	}
	for (uint32_t i = 0; i < l->nargs; i++)
		free(raw[i]);
	free(raw);
	free(args);
	free(ib);
	return ok;
}

/* ---- torch ops ---------------------------------------------------------------- */

struct opctx {
	struct rp *r;
	const struct obl_op *op;
	const struct op_inst *in;
	bool failed;
	bool uncomputed;             /* sliced runs: an operand element not computed */
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
	uint64_t at = obl_view_elem(w, flat) * etype_size(w->dtype);
	if (!computed(c->r, w->value, at, at + etype_size(w->dtype))) {
		c->failed = c->uncomputed = true;
		return NULL;
	}
	return b + at;
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

/* The values op k defines, by result (NO_VALUE for an alias, or a result
 * whose storage another result defines). */
static void op_values(const struct obligation *o, const struct obl_op *op, uint32_t k,
                      uint32_t nres, uint32_t *vals)
{
	for (uint32_t res = 0; res < nres; res++) {
		const struct obl_view *w = obl_op_view(op, obl_op_result(op, res));
		vals[res] = NO_VALUE;
		if (!w)
			continue;
		const struct obl_value *v = &o->values.items[w->value];
		if (v->def == VD_OP && v->op == k && v->result == res)
			vals[res] = w->value;
	}
}

/* Runs torch op k: every value it defines, computed from what the
 * operands hold now, then stored.  In a sliced run, only the elements the
 * slice names (none: the results only take over their buffers). */
static bool run_op(struct rp *r, uint32_t k)
{
	const struct obligation *o = r->o;
	const struct obl_op *op = &o->ops.items[k];
	const struct slice_op *so = r->slice ? &r->slice->op[k] : NULL;
	uint32_t nres = op->call.nouts + op->call.nmuts;
	uint32_t *vals = xcalloc(nres + 1, sizeof *vals);
	op_values(o, op, k, nres, vals);
	if (so && so->mode == SM_SKIP) {
		bool ok = true;
		for (uint32_t res = 0; res < nres && ok; res++)
			if (vals[res] != NO_VALUE && (ok = take_over(r, &o->values.items[vals[res]])))
				restrict_to_need(r, &o->values.items[vals[res]]);
		free(vals);
		return ok;
	}
	struct op_inst in;
	char err[256];
	if (op->unsupported) {
		free(vals);
		return fail(r, INTERP_UNSUPPORTED, "torch op %u '%s' is unsupported: %s", k, op->call.op,
		            op->unsupported);
	}
	if (!op_bind(&op->call, obl_op_shape, (void *)op, &r->arena, &in, err, sizeof err)) {
		free(vals);
		return fail(r, INTERP_UNSUPPORTED, "torch op %u: %s", k, err);
	}
	struct opctx c = { r, op, &in, false, false };
	struct op_leaves lv = { NULL, opnd_val, opnd_int, &c };
	uint8_t **tmp = xcalloc(nres + 1, sizeof *tmp);
	bool part = so && so->mode == SM_PART, ok = true;
	for (uint32_t res = 0; res < nres && ok; res++) {
		if (vals[res] == NO_VALUE)
			continue;
		const struct obl_view *w = obl_op_view(op, obl_op_result(op, res));
		if (w->dtype == ET_F16 || w->dtype == ET_BF16) {
			ok = fail(r, INTERP_UNSUPPORTED, "torch op %u '%s': %s results are not replayed", k,
			          op->call.op, etype_name(w->dtype));
			break;
		}
		uint64_t n = part ? so->nflat[res] : obl_view_numel(w);
		unsigned es = etype_size(w->dtype);
		tmp[res] = xmalloc(n * es + 1);
		enum emode mode = w->dtype == ET_F64 ? EM_F64 : EM_F32;
		for (uint64_t i = 0; i < n && ok; i++) {
			uint64_t f = part ? so->flat[res][i] : i;
			long double x;
			if (f >= obl_view_numel(w)) {
				ok = fail(r, INTERP_BADARG, "torch op %u: element %llu of result %u is outside "
				          "it", k, (unsigned long long)f, res);
				break;
			}
			if (!(i & 63) && deadline_passed(r->deadline)) {
				ok = fail(r, INTERP_TIMEOUT, "torch op %u '%s': the budget ran out at result %u "
				          "element %llu of %llu", k, op->call.op, res, (unsigned long long)i,
				          (unsigned long long)n);
				break;
			}
			if (!op_elem_value(&in, res, f, mode, &lv, &x)) {
				if (c.uncomputed) {
					ok = fail(r, INTERP_UNCOMPUTED, "torch op %u '%s': result %u element %llu "
					          "reads an operand element the slice did not compute", k,
					          op->call.op, res, (unsigned long long)f);
					break;
				}
				if (in.res_formula[res] >= 0 || c.failed) {
					ok = fail(r, INTERP_UNSUPPORTED, "torch op %u '%s': result %u element %llu "
					          "cannot be computed", k, op->call.op, res, (unsigned long long)f);
					break;
				}
				memset(tmp[res] + i * es, 0xff, es);   /* no formula: never read */
				continue;
			}
			if (c.uncomputed) {
				ok = fail(r, INTERP_UNCOMPUTED, "torch op %u '%s': result %u element %llu reads "
				          "an operand element the slice did not compute", k, op->call.op, res,
				          (unsigned long long)f);
				break;
			}
			if (c.failed) {
				ok = fail(r, INTERP_UNSUPPORTED, "torch op %u '%s': an operand cannot be read", k,
				          op->call.op);
				break;
			}
			store_elem(w->dtype, tmp[res] + i * es, x);
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
		struct rbuf *b = &r->bufs[v->buf];
		uint64_t n = part ? so->nflat[res] : obl_view_numel(w);
		if ((obl_view_extent(w)) * es > v->bytes) {
			ok = fail(r, INTERP_BADARG, "torch op %u: result %u is outside value %u", k, res,
			          v->value);
			break;
		}
		for (uint64_t i = 0; i < n; i++) {
			uint64_t at = obl_view_elem(w, part ? so->flat[res][i] : i) * es;
			memcpy(b->data + at, tmp[res] + i * es, es);
			if (b->valid)
				vb_set(b->valid, at, at + es);
		}
		if (so)
			restrict_to_need(r, v);
	}
	for (uint32_t res = 0; res < nres; res++)
		free(tmp[res]);
	free(tmp);
	free(vals);
	return ok;
}

/* The bytes of input v->input for value v, or NULL after the error. */
static const uint8_t *input_bytes(struct rp *r, const struct obl_value *v, const void *const *inputs)
{
	const struct obligation *o = r->o;
	if (v->input >= o->inputs.len) {
		fail(r, INTERP_BADARG, "value %u: bad input %u", v->value, v->input);
		return NULL;
	}
	const struct obl_input *in = &o->inputs.items[v->input];
	const void *data = inputs && inputs[v->input] ? inputs[v->input] : NULL;
	if (!data && in->data && in->ndata >= in->bytes)
		data = in->data;
	if (!data) {
		fail(r, INTERP_BADARG, "no bytes for input %u", v->input);
		return NULL;
	}
	if (!in_range(r, v, v->off, v->len, v->bytes) || v->len > in->bytes) {
		fail(r, INTERP_BADARG, "value %u: input %u (%" PRIu64 " bytes) does not fit "
		     "[%" PRIu64 ", +%" PRIu64 ")", v->value, v->input, in->bytes, v->off, v->len);
		return NULL;
	}
	return data;
}

/* define() for a value of a sliced run that is not a launch's or an op's:
 * the event's bytes are written where they are needed, and only the
 * needed bytes stay valid. */
static bool define_part(struct rp *r, const struct obl_value *v, const void *const *inputs)
{
	const struct obligation *o = r->o;
	const uint8_t *src = NULL, *srcvalid = NULL;
	if (!take_over(r, v))
		return false;
	struct rbuf *b = &r->bufs[v->buf];
	const struct slice_need *n = need_of(r, v->value);
	uint64_t lo = v->def == VD_UNINIT ? 0 : v->off, len = v->def == VD_UNINIT ? v->bytes : v->len;
	if (n->n && !in_range(r, v, lo, len, v->bytes))
		return false;
	if (n->n && v->def == VD_COPY) {
		if (!in_range(r, v, v->src_off, v->len, o->values.items[v->src].bytes))
			return false;
		src = value_bytes(r, v->src);
		srcvalid = value_valid(r, v->src);
		if (!src || !srcvalid)
			return fail(r, INTERP_BADARG, "value %u: copy source %u is not available",
			            v->value, v->src);
	}
	if (n->n && v->def == VD_INPUT && !(src = input_bytes(r, v, inputs)))
		return false;
	for (uint32_t i = 0; i < n->n; i++) {
		uint64_t a = n->r[i].lo > lo ? n->r[i].lo : lo;
		uint64_t z = n->r[i].hi < lo + len ? n->r[i].hi : lo + len;
		if (a >= z)
			continue;
		switch (v->def) {
		case VD_UNINIT: memset(b->data + a, 0xff, z - a); break;
		case VD_MEMSET: memset(b->data + a, v->fill, z - a); break;
		case VD_INPUT: memcpy(b->data + a, src + (a - lo), z - a); break;
		case VD_DATA: memcpy(b->data + a, (const uint8_t *)v->data + (a - lo), z - a); break;
		case VD_COPY:
			memcpy(b->data + a, src + v->src_off + (a - lo), z - a);
			vb_copy(b->valid, a, srcvalid, v->src_off + (a - lo), z - a);
			continue;
		default: continue;
		}
		vb_set(b->valid, a, z);
	}
	restrict_to_need(r, v);
	return true;
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
	if (r->slice)
		return define_part(r, v, inputs);
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
		const uint8_t *data = input_bytes(r, v, inputs);
		if ((ok = data != NULL))
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
	r.slice = opts && opts->slice && opts->slice->prog == prog ? opts->slice : NULL;
	r.deadline = opts && opts->deadline > 0 ? opts->deadline : DEADLINE_NONE;
	arena_init(&r.arena);
	size_t nv = o->values.len;
	r.saved = xcalloc(nv + 1, sizeof *r.saved);
	r.saved_valid = xcalloc(nv + 1, sizeof *r.saved_valid);
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
			ro->data = r.slice ? xcalloc(op->bytes + 1, 1) : xmalloc(op->bytes + 1);
			const uint8_t *b = value_bytes(&r, val->value);
			if (!b || op->off[prog] > val->bytes || op->bytes > val->bytes - op->off[prog]) {
				ok = fail(&r, INTERP_BADARG, "output %zu: [%" PRIu64 ", +%" PRIu64 ") not in "
				          "value %u", i, op->off[prog], op->bytes, val->value);
				break;
			}
			if (!r.slice) {
				memcpy(ro->data, b + op->off[prog], op->bytes);
				continue;
			}
			/* the needed bytes, and which of them the slice computed */
			const struct slice_need *n = need_of(&r, val->value);
			const uint8_t *m = value_valid(&r, val->value);
			uint64_t lo = op->off[prog], hi = lo + op->bytes;
			ro->valid = vb_new(op->bytes);
			for (uint32_t k = 0; m && k < n->n; k++) {
				uint64_t a = n->r[k].lo > lo ? n->r[k].lo : lo, z = n->r[k].hi < hi ? n->r[k].hi : hi;
				if (a < z) {
					memcpy(ro->data + (a - lo), b + a, z - a);
					vb_copy(ro->valid, a - lo, m, a, z - a);
				}
			}
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
	for (size_t v = 0; v < nv; v++) {
		free(r.saved[v]);
		free(r.saved_valid[v]);
	}
	for (uint32_t b = 0; b < r.nbufs; b++) {
		free(r.bufs[b].data);
		free(r.bufs[b].valid);
	}
	free(r.bufs);
	free(r.saved);
	free(r.saved_valid);
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
	for (uint32_t i = 0; i < r->nouts; i++) {
		free(r->outs[i].data);
		free(r->outs[i].valid);
	}
	free(r->outs);
	memset(r, 0, sizeof *r);
}
