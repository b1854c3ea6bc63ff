/*
 * prepare.c: the function a launch executes, built before execution from
 * the kernel: calls inlined (call.c), .local variables given slot
 * registers (local.c), nvcc's transcendental idioms rolled up into one
 * pseudo-instruction each (rollup.c, paper 4.1), and a register for the
 * carry flag of add.cc/addc when the kernel uses them.  Everything built
 * lives in the launch's arena; the parsed module is never changed.
 */
#include "dexec.h"

#include <string.h>

int dx_func_add_reg(struct dx_launch *L, struct dx_func *df, const char *name, enum ptx_type t)
{
	struct ptx_func *f = &df->f;
	struct ptx_reg *r = arena_alloc(&L->a, (f->nregs + 1) * sizeof *r);
	if (f->nregs)
		memcpy(r, f->regs, f->nregs * sizeof *r);
	r[f->nregs] = (struct ptx_reg){ arena_strdup(&L->a, name), t, 1 };
	f->regs = r;
	return (int)f->nregs++;
}

static bool uses_carry(const struct ptx_func *f)
{
	for (unsigned i = 0; i < f->ninstrs; i++) {
		const struct ptx_instr *in = &f->instrs[i];
		if (ptx_has_mod(in, "cc") || !strcmp(in->opcode, "addc") || !strcmp(in->opcode, "subc"))
			return true;
	}
	return false;
}

const struct ptx_func *dx_prepare(struct dx_launch *L, const struct ptx_func *fn)
{
	struct dx_func *df = arena_alloc(&L->a, sizeof *df);
	memset(df, 0, sizeof *df);
	df->f = *fn;
	df->cc_reg = -1;
	/* a private copy of the instructions, for the passes to rewrite */
	struct ptx_instr *ins = arena_alloc(&L->a, (fn->ninstrs + 1) * sizeof *ins);
	if (fn->ninstrs)
		memcpy(ins, fn->instrs, fn->ninstrs * sizeof *ins);
	df->f.instrs = ins;
	if (dx_inline_calls(L, df) < 0 || dx_local_prepare(L, df) < 0)
		return &df->f;
	dx_rollup(L, df);
	if (uses_carry(&df->f))
		df->cc_reg = dx_func_add_reg(L, df, "%dirigo.cc", PT_PRED);
	return &df->f;
}
