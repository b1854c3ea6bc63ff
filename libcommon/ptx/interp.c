/*
 * interp.c: runs a kernel launch concretely (see interp.h): blocks one
 * after another, the warps of a block until each waits at a barrier, the
 * lanes of a warp in lockstep at the smallest pc among them; calls and
 * returns with per-lane frames; shuffles, votes and barriers; bounds
 * checked memory.  Arithmetic lives in interp-ops.c, decoding in
 * interp-decode.c.
 */
#include "libcommon/ptx/interp-impl.h"
#include "libcommon/deadline.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAME_HDR 3                 /* uint64 units of struct frame_hdr */
#define MAX_DEPTH 1024
#define DEFAULT_MAX_STEPS UINT64_C(2000000000)
#define DEADLINE_EVERY 4096        /* warp-instructions between looks at the clock */

_Static_assert(sizeof(struct frame_hdr) <= FRAME_HDR * sizeof(uint64_t), "frame header");

/* ---- errors ---- */

bool interp_fail(struct ictx *c, enum interp_status st, const struct dinst *in,
                 const struct lane *L, const char *fmt, ...)
{
	if (c->status != INTERP_OK)
		return false;
	c->status = st;
	struct interp_error *e = c->err;
	if (!e)
		return false;
	memset(e, 0, sizeof *e);
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	char where[96] = "";
	if (L) {
		e->has_thread = true;
		memcpy(e->tid, L->tid, sizeof e->tid);
		memcpy(e->ctaid, c->ctaid, sizeof e->ctaid);
		snprintf(where, sizeof where, " (thread (%u,%u,%u) block (%u,%u,%u))", L->tid[0],
		         L->tid[1], L->tid[2], c->ctaid[0], c->ctaid[1], c->ctaid[2]);
	}
	if (in && in->src) {
		struct arena a = ARENA_INIT;
		e->line = in->src->line;
		snprintf(e->msg, sizeof e->msg, "line %u: %s: %s%s", in->src->line,
		         ptx_instr_text(&a, in->src), what, where);
		arena_release(&a);
	} else {
		snprintf(e->msg, sizeof e->msg, "%s%s", what, where);
	}
	return false;
}

/* ---- memory ---- */

static const struct region *find_region(struct ictx *c, uint64_t addr)
{
	const struct program *p = c->p;
	const struct region *r = &p->regions[c->last_region];
	if (c->last_region < p->nregions && addr - r->base < r->bytes)
		return r;
	uint32_t lo = 0, hi = p->nregions;
	while (lo < hi) {                 /* first region with base > addr */
		uint32_t mid = (lo + hi) / 2;
		if (p->regions[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	r = &p->regions[lo - 1];
	if (addr - r->base >= r->bytes)
		return NULL;
	c->last_region = lo - 1;
	return r;
}

static const char *space_name(unsigned s)
{
	switch (s) {
	case PS_GLOBAL: return "global";
	case PS_SHARED: return "shared";
	case PS_LOCAL: return "local";
	case PS_CONST: return "const";
	case PS_PARAM: return "param";
	default: return "generic";
	}
}

/* The bits of [off, off+n) in a validity map: a read needs them all set
 * (else the error), a store sets them, a red leaves them. */
static bool valid_access(struct ictx *c, struct lane *L, const struct dinst *in, uint8_t *valid,
                         uint64_t off, unsigned n, unsigned how, uint64_t addr)
{
	if (how == IM_RED)
		return true;
	for (uint64_t i = off; i < off + n; i++) {
		uint8_t bit = (uint8_t)(1u << (i & 7));
		if (how == IM_WRITE) {
			valid[i >> 3] |= bit;
		} else if (!(valid[i >> 3] & bit)) {
			interp_fail(c, INTERP_UNCOMPUTED, in, L, "%s of global address 0x%" PRIx64
			            " (%u bytes): byte %" PRIu64 " of its buffer was not computed",
			            how == IM_ATOM ? "atomic update" : "read", addr, n, i);
			if (c->err)
				c->err->addr = addr;
			return false;
		}
	}
	return true;
}

uint8_t *interp_mem_at(struct ictx *c, struct lane *L, const struct dinst *in,
                       unsigned space, uint64_t addr, unsigned n, unsigned how)
{
	bool write = how != IM_READ;
	uint64_t a = addr;
	if (n > 1 && (addr & (n - 1))) {
		if (c->err)
			c->err->addr = addr;
		interp_fail(c, INTERP_FAULT, in, L, "misaligned %s address 0x%" PRIx64 " for %u bytes",
		            space_name(space), addr, n);
		if (c->err)
			c->err->addr = addr;
		return NULL;
	}
	if (space == PS_GENERIC) {
		if (a - IW_SHARED < IW_SIZE) {
			space = PS_SHARED;
			a -= IW_SHARED;
		} else if (a - IW_LOCAL < IW_SIZE) {
			space = PS_LOCAL;
			a -= IW_LOCAL;
		}
	}
	const char *why;
	switch (space) {
	case PS_SHARED:
		if (a < c->p->shared_size && n <= c->p->shared_size - a)
			return c->shared + a;
		why = "outside shared memory";
		break;
	case PS_LOCAL:
		if (a < L->local_top && n <= L->local_top - a)
			return L->local + a;
		why = "outside the thread's local memory";
		break;
	default: {
		const struct region *r = find_region(c, a);
		if (!r) {
			/* the nearest region below, to say how far past its end */
			for (uint32_t i = 0; i < c->p->nregions; i++)
				if (c->p->regions[i].base <= a)
					r = &c->p->regions[i];
			if (r && a - r->base - r->bytes < (UINT64_C(1) << 32)) {
				interp_fail(c, INTERP_FAULT, in, L, "%s %s address 0x%" PRIx64 " (%u bytes): "
				            "%" PRIu64 " bytes past the end of the buffer at 0x%" PRIx64
				            " (%" PRIu64 " bytes)", write ? "write to" : "read of",
				            space_name(space), addr, n, a - r->base - r->bytes, r->base,
				            r->bytes);
				if (c->err)
					c->err->addr = addr;
				return NULL;
			}
			r = NULL;
		}
		if (r && n <= r->bytes - (a - r->base)) {
			if (space == PS_CONST && r->space != PS_CONST) {
				why = "not constant memory";
				break;
			}
			if (write && r->space == PS_CONST) {
				why = "a write to constant memory";
				break;
			}
			if (r->valid && !valid_access(c, L, in, r->valid, a - r->base, n, how, addr))
				return NULL;
			return r->data + (a - r->base);
		}
		why = r ? "which runs past the end of its buffer" : "outside every buffer";
		break;
	}
	}
	interp_fail(c, INTERP_FAULT, in, L, "%s %s address 0x%" PRIx64 " (%u bytes) %s",
	            write ? "write to" : "read of", space_name(space), addr, n, why);
	if (c->err)
		c->err->addr = addr;
	return NULL;
}

/* ---- frames ---- */

static void lane_refresh(struct ictx *c, struct lane *L)
{
	const struct frame_hdr *h = (const struct frame_hdr *)(L->stack + L->frame);
	L->R = L->stack + L->frame + FRAME_HDR;
	L->P = (uint8_t *)(L->R + c->p->funcs[h->func].nslots);
}

static bool push_frame(struct ictx *c, struct lane *L, uint32_t fi, uint32_t ret_pc,
                       uint32_t call, const struct dinst *in)
{
	const struct dfunc *df = &c->p->funcs[fi];
	if (L->depth >= MAX_DEPTH)
		return interp_fail(c, INTERP_FAULT, in, L, "calls nested deeper than %u", MAX_DEPTH);
	uint32_t need = FRAME_HDR + df->nslots + df->param_size / 8;
	if (L->stack_top + need > L->stack_cap) {
		uint32_t cap = L->stack_cap ? L->stack_cap : 256;
		while (L->stack_top + need > cap)
			cap *= 2;
		L->stack = xrealloc(L->stack, cap * sizeof *L->stack);
		L->stack_cap = cap;
	}
	uint32_t lbase = (L->local_top + 15) & ~UINT32_C(15);
	if (lbase + df->local_size >= L->local_cap) {
		uint32_t cap = L->local_cap ? L->local_cap : 256;
		while (lbase + df->local_size >= cap)
			cap *= 2;
		L->local = xrealloc(L->local, cap);
		L->local_cap = cap;
	}
	memset(L->local + lbase, 0xff, df->local_size);
	uint32_t fo = L->stack_top;
	struct frame_hdr *h = (struct frame_hdr *)(L->stack + fo);
	h->func = fi;
	h->ret_pc = ret_pc;
	h->call = call;
	h->prev_frame = L->frame;
	h->prev_local = L->local_top;
	uint64_t *R = L->stack + fo + FRAME_HDR;
	memset(R, 0, df->nregs * sizeof *R);
	memcpy(R + df->nregs, df->consts, (df->nslots - df->nregs) * sizeof *R);
	R[df->slot_local] = lbase;
	memset(R + df->nslots, 0, df->param_size);
	L->local_top = lbase + df->local_size;
	L->stack_top = fo + need;
	L->frame = fo;
	L->depth++;
	lane_refresh(c, L);
	return true;
}

static bool do_call(struct ictx *c, struct lane *L, const struct dinst *in, uint32_t pc)
{
	const struct dcall *dc = &c->p->calls[in->target];
	uint32_t caller = L->frame;
	if (!push_frame(c, L, dc->func, pc + 1, in->target, in))
		return false;
	const struct dfunc *g = &c->p->funcs[dc->func];
	const uint64_t *cR = L->stack + caller + FRAME_HDR;
	const struct frame_hdr *ch = (const struct frame_hdr *)(L->stack + caller);
	const uint8_t *cP = (const uint8_t *)(cR + c->p->funcs[ch->func].nslots);
	for (uint32_t i = 0; i < dc->nargs; i++) {
		uint32_t n = dc->arg_size[i], fsz = g->f->params[i].size;
		memcpy(L->P + g->formal_off[i], cP + dc->arg_off[i], n < fsz ? n : fsz);
	}
	L->pc = g->start;
	return true;
}

/* Returns from the current frame; false for the entry frame (the thread
 * exits). */
static bool do_ret(struct ictx *c, struct lane *L)
{
	const struct frame_hdr *h = (const struct frame_hdr *)(L->stack + L->frame);
	if (L->depth <= 1)
		return false;
	const struct dcall *dc = &c->p->calls[h->call];
	const struct dfunc *g = &c->p->funcs[h->func];
	uint32_t fo = L->frame, prev = h->prev_frame, ret_pc = h->ret_pc, prev_local = h->prev_local;
	const uint8_t *gP = L->P;
	const struct frame_hdr *ch = (const struct frame_hdr *)(L->stack + prev);
	uint8_t *cP = (uint8_t *)(L->stack + prev + FRAME_HDR + c->p->funcs[ch->func].nslots);
	for (uint32_t i = 0; i < dc->nrets; i++) {
		uint32_t n = dc->ret_size[i], fsz = g->f->rets[i].size;
		memcpy(cP + dc->ret_off[i], gP + g->ret_off[i], n < fsz ? n : fsz);
	}
	L->frame = prev;
	L->stack_top = fo;
	L->local_top = prev_local;
	L->depth--;
	L->pc = ret_pc;
	lane_refresh(c, L);
	return true;
}

/* ---- collectives ---- */

static bool shfl(struct ictx *c, struct lane *lanes, const struct dinst *in, uint32_t mask)
{
	uint32_t val[WARP];
	for (uint32_t m = mask; m; m &= m - 1) {
		unsigned l = (unsigned)__builtin_ctz(m);
		val[l] = (uint32_t)lanes[l].R[in->a];
	}
	for (uint32_t m = mask; m; m &= m - 1) {
		unsigned l = (unsigned)__builtin_ctz(m);
		struct lane *L = &lanes[l];
		uint32_t b = (uint32_t)L->R[in->b] & 31, cc = (uint32_t)L->R[in->c];
		uint32_t segmask = (cc >> 8) & 31, cval = cc & 31;
		uint32_t maxl = (l & segmask) | (cval & ~segmask), minl = l & segmask;
		int32_t j;
		bool ok;
		switch (in->sub) {
		case SH_UP: j = (int32_t)l - (int32_t)b; ok = j >= (int32_t)maxl; break;
		case SH_DOWN: j = (int32_t)(l + b); ok = j <= (int32_t)maxl; break;
		case SH_BFLY: j = (int32_t)(l ^ b); ok = j <= (int32_t)maxl; break;
		default: j = (int32_t)(minl | (b & ~segmask)); ok = j <= (int32_t)maxl; break;
		}
		if (!ok)
			j = (int32_t)l;
		if (!(mask >> j & 1))
			return interp_fail(c, INTERP_FAULT, in, L, "reads lane %d, which does not take part",
			                   j);
		L->R[in->d] = val[j];
		if (in->d2 != NOREG)
			L->R[in->d2] = ok;
	}
	return true;
}

static void vote(struct lane *lanes, const struct dinst *in, uint32_t mask)
{
	uint32_t member = (uint32_t)lanes[__builtin_ctz(mask)].R[in->e] & mask;
	uint32_t ballot = 0;
	for (uint32_t m = member; m; m &= m - 1) {
		unsigned l = (unsigned)__builtin_ctz(m);
		if (((lanes[l].R[in->a] & 1) != 0) != (in->sub2 != 0))
			ballot |= UINT32_C(1) << l;
	}
	uint64_t r;
	switch (in->sub) {
	case V_ALL: r = ballot == member; break;
	case V_ANY: r = ballot != 0; break;
	case V_UNI: r = ballot == 0 || ballot == member; break;
	default: r = ballot; break;
	}
	for (uint32_t m = mask; m; m &= m - 1)
		lanes[__builtin_ctz(m)].R[in->d] = r;
}

/* ---- scheduling ---- */

static bool collective(struct ictx *c, struct lane *lanes, uint32_t present, uint32_t *maskp,
                       uint32_t pc, const struct dinst *in, bool *wait)
{
	uint32_t mask = *maskp;
	for (uint32_t m = present & ~mask; m; m &= m - 1) {
		unsigned l = (unsigned)__builtin_ctz(m);
		if (lanes[l].state == L_WAIT_WARP && lanes[l].pc == pc) {
			lanes[l].state = L_RUN;
			mask |= UINT32_C(1) << l;
		}
	}
	*maskp = mask;
	struct lane *first = &lanes[__builtin_ctz(mask)];
	uint32_t member = (uint32_t)first->R[in->e];
	if (member & ~present)
		return interp_fail(c, INTERP_FAULT, in, first, "member mask 0x%08x names lanes beyond "
		                   "the block (lanes present: 0x%08x)", member, present);
	uint32_t missing = member & ~mask;
	if (missing) {
		for (uint32_t m = missing; m; m &= m - 1) {
			unsigned l = (unsigned)__builtin_ctz(m);
			if (lanes[l].state == L_EXITED)
				return interp_fail(c, INTERP_FAULT, in, first, "lane %u of member mask "
				                   "0x%08x has exited", l, member);
		}
		for (uint32_t m = mask; m; m &= m - 1) {
			unsigned l = (unsigned)__builtin_ctz(m);
			lanes[l].state = L_WAIT_WARP;
			lanes[l].pc = pc;
		}
		*wait = true;
		return true;
	}
	*wait = false;
	if (in->op == I_SHFL)
		return shfl(c, lanes, in, mask);
	if (in->op == I_VOTE)
		vote(lanes, in, mask);
	return true;
}

/* Runs the lanes of one warp until none can run (all exited or waiting). */
static bool run_warp(struct ictx *c, struct lane *lanes, uint32_t present)
{
	const struct dinst *code = c->p->code;
	for (;;) {
		uint32_t mask = 0, minpc = UINT32_MAX, other = UINT32_MAX;
		for (uint32_t m = present; m; m &= m - 1) {
			unsigned l = (unsigned)__builtin_ctz(m);
			if (lanes[l].state != L_RUN)
				continue;
			uint32_t pc = lanes[l].pc;
			if (pc < minpc) {
				if (minpc < other)
					other = minpc;
				minpc = pc;
				mask = UINT32_C(1) << l;
			} else if (pc == minpc) {
				mask |= UINT32_C(1) << l;
			} else if (pc < other) {
				other = pc;
			}
		}
		if (!mask)
			return true;
		uint32_t pc = minpc;
		bool writeback = true;
		while (pc < other) {
			const struct dinst *in = &code[pc];
			c->steps += (uint64_t)__builtin_popcount(mask);
			c->warp_steps++;
			if (c->steps > c->max_steps)
				return interp_fail(c, INTERP_LIMIT, in, &lanes[__builtin_ctz(mask)],
				                   "step limit of %" PRIu64 " instructions reached",
				                   c->max_steps);
			if (!(c->warp_steps & (DEADLINE_EVERY - 1)) && deadline_passed(c->deadline))
				return interp_fail(c, INTERP_TIMEOUT, in, &lanes[__builtin_ctz(mask)],
				                   "the budget ran out after %" PRIu64 " instructions",
				                   c->steps);
			if (in->op < I_SIMPLE_END) {
				if (!interp_exec(c, lanes, in, mask))
					return false;
				pc++;
				continue;
			}
			if (in->guard != NOREG) {
				uint32_t act = 0;
				for (uint32_t m = mask; m; m &= m - 1) {
					unsigned l = (unsigned)__builtin_ctz(m);
					if (((lanes[l].R[in->guard] & 1) != 0) != (in->guard_neg != 0))
						act |= UINT32_C(1) << l;
				}
				if (!act) {
					pc++;
					continue;
				}
				if (act != mask) {
					for (uint32_t m = mask & ~act; m; m &= m - 1)
						lanes[__builtin_ctz(m)].pc = pc + 1;
					if (pc + 1 < other)
						other = pc + 1;
					mask = act;
				}
			}
			if (in->op == I_BRA) {
				pc = in->target;
				continue;
			}
			if (in->op == I_CALL) {
				for (uint32_t m = mask; m; m &= m - 1)
					if (!do_call(c, &lanes[__builtin_ctz(m)], in, pc))
						return false;
				pc = c->p->funcs[c->p->calls[in->target].func].start;
				continue;
			}
			if (in->op == I_BAR_ARRIVE) {
				pc++;
				continue;
			}
			if (in->op == I_TRAP)
				return interp_fail(c, INTERP_FAULT, in, &lanes[__builtin_ctz(mask)], "trap");
			if (in->op == I_SHFL || in->op == I_VOTE || in->op == I_WARPSYNC) {
				bool wait = false;
				if (!collective(c, lanes, present, &mask, pc, in, &wait))
					return false;
				if (wait) {
					writeback = false;
					break;
				}
				pc++;
				continue;
			}
			/* ret, exit, bar: lanes leave the common pc */
			writeback = false;
			for (uint32_t m = mask; m; m &= m - 1) {
				struct lane *L = &lanes[__builtin_ctz(m)];
				L->pc = pc;
				if (in->op == I_BAR || in->op == I_BAR_RED) {
					L->state = L_WAIT_BAR;
					if (in->op == I_BAR_RED)
						L->barval = ((L->R[in->c] & 1) != 0) != (in->sub2 != 0);
				} else if (in->op == I_EXIT || !do_ret(c, L)) {
					L->state = L_EXITED;
				}
			}
			break;
		}
		if (writeback)
			for (uint32_t m = mask; m; m &= m - 1)
				lanes[__builtin_ctz(m)].pc = pc;
	}
}

static bool release_barrier(struct ictx *c)
{
	uint32_t n = c->nwarps * WARP;
	uint64_t count = 0;
	bool all = true, any = false;
	for (uint32_t t = 0; t < n; t++) {
		struct lane *L = &c->lanes[t];
		if (L->state != L_WAIT_BAR)
			continue;
		count += L->barval;
		all = all && L->barval;
		any = any || L->barval;
	}
	for (uint32_t t = 0; t < n; t++) {
		struct lane *L = &c->lanes[t];
		if (L->state != L_WAIT_BAR)
			continue;
		const struct dinst *in = &c->p->code[L->pc];
		if (in->op == I_BAR_RED)
			L->R[in->d] = in->sub == 0 ? count : in->sub == 1 ? all : any;
		L->state = L_RUN;
		L->pc++;
	}
	return true;
}

static bool run_block(struct ictx *c)
{
	const struct dfunc *ef = &c->p->funcs[c->p->entry];
	for (uint32_t t = 0; t < c->nwarps * WARP; t++) {
		struct lane *L = &c->lanes[t];
		L->lane = t % WARP;
		L->warp = t / WARP;
		L->stack_top = L->local_top = L->frame = L->depth = 0;
		if (t >= c->nthreads) {
			L->state = L_ABSENT;
			continue;
		}
		L->tid[0] = t % c->block[0];
		L->tid[1] = t / c->block[0] % c->block[1];
		L->tid[2] = t / (c->block[0] * c->block[1]);
		L->state = L_RUN;
		L->pc = ef->start;
		if (!push_frame(c, L, c->p->entry, UINT32_MAX, UINT32_MAX, NULL))
			return false;
	}
	memset(c->shared, 0xff, c->p->shared_size);
	for (;;) {
		for (uint32_t w = 0; w < c->nwarps; w++) {
			uint32_t present = 0;
			uint32_t lo = w * WARP;
			for (uint32_t l = 0; l < WARP; l++)
				if (lo + l < c->nthreads)
					present |= UINT32_C(1) << l;
			if (!run_warp(c, &c->lanes[lo], present))
				return false;
		}
		uint32_t alive = 0, bar = 0;
		struct lane *stuck = NULL;
		for (uint32_t t = 0; t < c->nthreads; t++) {
			struct lane *L = &c->lanes[t];
			if (L->state == L_EXITED)
				continue;
			alive++;
			if (L->state == L_WAIT_BAR)
				bar++;
			else if (L->state == L_WAIT_WARP && !stuck)
				stuck = L;
		}
		if (!alive)
			return true;
		if (stuck)
			return interp_fail(c, INTERP_FAULT, &c->p->code[stuck->pc], stuck,
			                   "lanes of the member mask never arrive");
		if (bar == alive)
			release_barrier(c);
	}
}

enum interp_status interp_launch(const struct ptx_module *m, const char *entry,
                                 const uint32_t grid[3], const uint32_t block[3],
                                 uint32_t shmem, const void *const *args,
                                 const struct interp_mem *mem,
                                 const struct interp_opts *opts,
                                 struct interp_stats *stats,
                                 struct interp_error *err)
{
	struct program prog;
	struct ictx c;
	memset(&c, 0, sizeof c);
	c.m = m;
	c.p = &prog;
	c.err = err;
	if (err)
		memset(err, 0, sizeof *err);
	c.max_steps = opts && opts->max_steps ? opts->max_steps : DEFAULT_MAX_STEPS;
	c.deadline = opts && opts->deadline > 0 ? opts->deadline : DEADLINE_NONE;
	uint64_t nt = (uint64_t)block[0] * block[1] * block[2];
	if (!grid[0] || !grid[1] || !grid[2] || !nt || nt > 1024) {
		memset(&prog, 0, sizeof prog);
		interp_fail(&c, INTERP_BADARG, NULL, NULL, "bad launch geometry grid (%u,%u,%u) block "
		            "(%u,%u,%u)", grid[0], grid[1], grid[2], block[0], block[1], block[2]);
		return c.status;
	}
	struct interp_mem nomem = { NULL, 0 };
	if (interp_decode(&c, m, entry, mem ? mem : &nomem, shmem, args) != INTERP_OK) {
		interp_program_free(&prog);
		return c.status;
	}
	memcpy(c.grid, grid, sizeof c.grid);
	memcpy(c.block, block, sizeof c.block);
	c.nthreads = (uint32_t)nt;
	c.nwarps = (c.nthreads + WARP - 1) / WARP;
	c.lanes = xcalloc(c.nwarps * WARP, sizeof *c.lanes);
	c.shared = xmalloc(prog.shared_size + 1);
	if (opts && opts->blocks) {
		for (size_t i = 0; i < opts->nblocks && c.status == INTERP_OK; i++) {
			const uint32_t *b = opts->blocks[i];
			if (b[0] >= grid[0] || b[1] >= grid[1] || b[2] >= grid[2]) {
				interp_fail(&c, INTERP_BADARG, NULL, NULL, "block (%u,%u,%u) is outside the "
				            "grid (%u,%u,%u)", b[0], b[1], b[2], grid[0], grid[1], grid[2]);
				break;
			}
			memcpy(c.ctaid, b, sizeof c.ctaid);
			run_block(&c);
		}
	}
	for (uint32_t z = 0; !(opts && opts->blocks) && z < grid[2] && c.status == INTERP_OK; z++)
		for (uint32_t y = 0; y < grid[1] && c.status == INTERP_OK; y++)
			for (uint32_t x = 0; x < grid[0] && c.status == INTERP_OK; x++) {
				c.ctaid[0] = x;
				c.ctaid[1] = y;
				c.ctaid[2] = z;
				run_block(&c);
			}
	if (stats) {
		stats->steps = c.steps;
		stats->warp_steps = c.warp_steps;
	}
	for (uint32_t t = 0; t < c.nwarps * WARP; t++) {
		free(c.lanes[t].stack);
		free(c.lanes[t].local);
	}
	free(c.lanes);
	free(c.shared);
	interp_program_free(&prog);
	return c.status;
}
