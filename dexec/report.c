/*
 * report.c: what dexec tells people about a launch: "unsupported" reasons,
 * findings and timeouts, with messages that name the kernel, the PTX line
 * and the .cu line (from .loc), so that a reader can go straight to the
 * source.
 */
#include "dexec.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *dx_src(struct dx_launch *L, const struct ptx_instr *in)
{
	const char *f;
	unsigned line;
	if (!ptx_user_loc(L->mod, in, &f, &line))
		return NULL;
	const char *slash = strrchr(f, '/');
	return arena_printf(&L->a, "%s:%u", slash ? slash + 1 : f, line);
}

const char *dx_instr_name(struct dx_launch *L, const struct ptx_instr *in)
{
	size_t n = strlen(in->opcode) + 1;
	for (unsigned i = 0; i < in->nmods; i++)
		n += strlen(in->mods[i]) + 1;
	char *s = arena_alloc(&L->a, n), *p = s;
	p += sprintf(p, "%s", in->opcode);
	for (unsigned i = 0; i < in->nmods; i++)
		p += sprintf(p, ".%s", in->mods[i]);
	return s;
}

static const char *src_path(struct dx_launch *L, const struct ptx_instr *in, unsigned *line)
{
	const char *f;
	return ptx_user_loc(L->mod, in, &f, line) ? f : NULL;
}

const char *dx_value_name(struct dx_launch *L, uint32_t value)
{
	const struct obl_launch *l = L->l;
	for (uint32_t i = 0; i < l->nargs; i++)
		if (l->args[i].is_ptr && (l->args[i].vin == value || l->args[i].vout == value))
			return arena_printf(&L->a, "arg '%s'", l->args[i].param);
	for (uint32_t i = 0; i < l->nsyms; i++)
		if (l->syms[i].vin == value)
			return arena_printf(&L->a, "symbol '%s'", l->syms[i].symbol);
	return arena_printf(&L->a, "value %u", value);
}

int dx_timeout(struct dx_launch *L)
{
	if (L->timeout || L->unsup)
		return -1;
	L->timeout = true;
	const struct ptx_instr *in = L->cur;
	const char *src = dx_src(L, in);
	const char *phase = L->phase ? L->phase : "executing";
	L->to.prog = L->l->prog;
	L->to.launch = L->id;
	L->to.kernel = L->l->kernel;
	L->to.line = in ? in->line : 0;
	L->to.doing = phase;
	const char *at = !in ? "" :
	                 arena_printf(&L->a, " '%s' at PTX line %u%s%s%s", dx_instr_name(L, in), in->line,
	                              src ? " (" : "", src ? src : "", src ? ")" : "");
	L->to.message = arena_printf(&L->a, "kernel '%s': the budget ran out while %s%s, after %llu steps "
	                             "over %u logical threads", L->l->kernel, phase, at,
	                             (unsigned long long)L->steps, L->nbundles);
	return -1;
}

bool dx_out_of_time(struct dx_launch *L)
{
	if (L->timeout)
		return true;
	if (!deadline_tick(&L->dl))
		return false;
	dx_timeout(L);
	return true;
}

int dx_unsupported(struct dx_launch *L, const struct ptx_instr *in, const char *what,
                   const char *fmt, ...)
{
	if (L->unsup || L->timeout)
		return -1;
	if (deadline_passed(L->opts->deadline))
		return dx_timeout(L);
	char detail[512] = "";
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(detail, sizeof detail, fmt, ap);
		va_end(ap);
	}
	const char *src = dx_src(L, in);
	char where[128] = "";
	if (in)
		snprintf(where, sizeof where, " at PTX line %u%s%s%s", in->line,
		         src ? " (" : "", src ? src : "", src ? ")" : "");
	L->unsup = true;
	L->uns.prog = L->l->prog;
	L->uns.launch = L->id;
	L->uns.kernel = L->l->kernel;
	L->uns.line = in ? in->line : 0;
	L->uns.what = arena_strdup(&L->a, what);
	L->uns.message = arena_printf(&L->a, "kernel '%s': %s%s%s", L->l->kernel,
	                              detail[0] ? detail : what, where,
	                              detail[0] ? "" : " is not supported");
	return -1;
}

struct sym_finding *dx_finding(struct dx_launch *L, const struct ptx_instr *in, const char *cls,
                               const uint32_t tid[3], const uint32_t ctaid[3],
                               uint32_t value, int64_t off, const char *message)
{
	/* the first is the witness; more of one instruction add nothing but
	 * records, without bound (one an iteration of a loop) */
	unsigned at = in ? in->line : 0;
	if (L->fence && (!strcmp(cls, "shared-race") || !strcmp(cls, "warp-sync") || !strcmp(cls, "global-race"))) {
		/* a fence may order the two accesses (instr.c, do_fence) */
		dx_unsupported(L, in, "fence", "a %s unless the memory fence %s (PTX line %u) orders the "
		               "threads, which dirigo does not model; the accesses", cls,
		               dx_instr_name(L, L->fence), L->fence->line);
		return NULL;
	}
	for (size_t k = 0; k < L->findings.len; k++)
		if (L->findings.items[k].line == at && strcmp(L->findings.items[k].cls, cls) == 0)
			return NULL;
	struct sym_finding f;
	memset(&f, 0, sizeof f);
	f.cls = cls;
	f.prog = L->l->prog;
	f.launch = L->id;
	f.kernel = L->l->kernel;
	f.line = in ? in->line : 0;
	unsigned line = 0;
	f.src_file = src_path(L, in, &line);
	f.src_line = f.src_file ? line : 0;
	if (tid && ctaid) {
		f.has_thread = true;
		memcpy(f.tid, tid, sizeof f.tid);
		memcpy(f.ctaid, ctaid, sizeof f.ctaid);
	}
	f.has_addr = value != NO_VALUE;
	f.value = value;
	f.off = off;
	f.message = message;
	VEC_PUSH(L->findings, f);
	return &L->findings.items[L->findings.len - 1];
}
