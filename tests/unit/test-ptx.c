/*
 * test-ptx.c: unit tests of the PTX front end (libcommon/ptx): hand-written
 * snippets for each construct, the nvcc output in tests/fixtures (made by
 * scripts/make-fixtures.sh), error messages, printing round trips, and a
 * garbling pass that must never crash or leak.
 *
 * Run from the top of the tree (fixtures are read from tests/fixtures, or
 * from $DIRIGO_FIXTURES).
 */
#include "tap.h"
#include "libcommon/ptx/ptx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct ptx_module *parse(struct arena *a, const char *text)
{
	char err[256];
	struct ptx_module *m = ptx_parse(a, text, strlen(text), err, sizeof err);
	if (!m)
		printf("# parse error: %s\n", err);
	return m;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = xrealloc(buf, cap);
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		if (k == 0)
			break;
		n += k;
	}
	fclose(f);
	*len = n;
	return buf;
}

static const struct ptx_instr *find_instr(const struct ptx_func *f, const char *text,
                                          struct arena *a)
{
	for (unsigned i = 0; i < f->ninstrs; i++)
		if (strcmp(ptx_instr_text(a, &f->instrs[i]), text) == 0)
			return &f->instrs[i];
	return NULL;
}

static unsigned count_opcode(const struct ptx_func *f, const char *opcode)
{
	unsigned n = 0;
	for (unsigned i = 0; i < f->ninstrs; i++)
		n += strcmp(f->instrs[i].opcode, opcode) == 0;
	return n;
}

/* ---- hand-written snippets ---- */

static const char module_text[] =
	"//\n// a hand-written module\n//\n"
	".version 8.5\n"
	".target sm_90a, texmode_independent, debug\n"
	".address_size 64\n"
	"/* a block\n   comment */\n"
	".global .align 4 .b8 bytes[8] = {1, 2, 3, 255};\n"
	".const .align 4 .f32 coef[3] = {0f3F800000, 1.5, -2};\n"
	".visible .global .align 8 .u64 ptrs[2] = {generic(bytes), bytes+4};\n"
	".global .u32 word = 0xFFFFFFFF;\n"
	".global .s32 neg = -1;\n"
	".extern .shared .align 16 .b8 smem[];\n"
	".weak .global .align 4 .u32 grid[2][3];\n"
	".extern .func (.param .b32 func_retval0) helper\n"
	"(\n\t.param .b64 helper_param_0\n);\n"
	"\n"
	".visible .entry kern(\n"
	"\t.param .u64 .ptr .global .align 16 kern_param_0,\n"
	"\t.param .align 8 .b8 kern_param_1[16],\n"
	"\t.param .u32 kern_param_2,\n"
	"\t.param .f64 kern_param_3\n"
	")\n"
	".maxntid 256, 1, 1\n"
	".minnctapersm 2\n"
	".maxnreg 64\n"
	"{\n"
	"\t.local .align 8 .b8 __local_depot0[32];\n"
	"\t.reg .pred %p<3>;\n"
	"\t.reg .b32 %r<10>;\n"
	"\t.reg .f32 %f<6>;\n"
	"\t.reg .b64 %rd<5>;\n"
	"\t.reg .f64 %fd1;\n"
	"\t.shared .align 4 .f32 tile[64];\n"
	"\t.loc 1 10 3\n"
	"\tld.param.u64 %rd1, [kern_param_0];\n"
	"\tmov.u32 %r1, %tid.x;\n"
	"\tmov.u32 %r2, %ntid.y;\n"
	"\tmov.u32 %r3, %envreg3;\n"
	"\tmov.u64 %rd2, %clock64;\n"
	"\tmov.u32 %r4, %dynamic_smem_size;\n"
	"\tsetp.ge.and.s32 %p1, %r1, 16, %p2;\n"
	"\t.pragma \"nounroll\";\n"
	"$L__BB0_1:\n"
	"\t.loc 2 440 9, function_name $L__info_string0, inlined_at 1 12 4\n"
	"\t@%p1 bra $L__BB0_3;\n"
	"\t@!%p2 bra.uni $L__BB0_1;\n"
	"\tld.global.nc.v4.f32 {%f1, %f2, _, %f4}, [%rd1+16];\n"
	"\tst.shared.f32 [tile+8], %f1;\n"
	"\tld.global.u32 %r5, [%rd1+-4];\n"
	"\tld.shared.u32 %r6, [smem];\n"
	"\tcvt.rn.f32.s32 %f5, %r5;\n"
	"\tmov.b32 %f3, 0f3F800000;\n"
	"\tmov.f64 %fd1, 0d3FF0000000000000;\n"
	"\tmov.b32 %r7, 0xFFFFFFFF;\n"
	"\tadd.s32 %r8, %r7, -1;\n"
	"\tshfl.sync.down.b32 %r9|%p3, %r8, 16, 31, -1;\n"
	"\tatom.global.add.f32 %f2, [%rd1], %f3;\n"
	"\tbar.sync 0;\n"
	"\tmembar.gl;\n"
	"\tprmt.b32 %r1, %r2, %r3, 0x3210;\n"
	"\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [texref, {%f5, %f5}];\n"
	"\tfma.rn.ftz.f32 %f1, %f2, %f3, -0f3F800000;\n"
	"\t{ // callseq 0, 0\n"
	"\t.reg .b32 temp_param_reg;\n"
	"\t.param .b64 param0;\n"
	"\tst.param.b64 [param0+0], %rd1;\n"
	"\t.param .b32 retval0;\n"
	"\tcall.uni (retval0), \n\thelper, \n\t(\n\tparam0\n\t);\n"
	"\tld.param.b32 %r2, [retval0+0];\n"
	"\t} // callseq 0\n"
	"\tprototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);\n"
	"\tcall (retval0), %rd2, (param0), prototype_0;\n"
	"\tcall.uni helper2, ();\n"
	"$L__BB0_3:\n"
	"\t.loc 1 20 1\n"
	"\tret;\n"
	"\texit;\n"
	"}\n"
	".func (.param .align 16 .b8 func_retval0[16]) helper2()\n"
	".noreturn\n"
	"{\n"
	"\ttrap;\n"
	"}\n"
	".func (.param .b32 func_retval0) helper(\n\t.param .b64 helper_param_0\n)\n"
	"{\n"
	"\tret;\n"
	"}\n"
	"\t.file 1 \"/path/x.cu\", 1700000000, 1234\n"
	"\t.file\t2 \"/usr/include/y.h\"\n"
	"\t.section\t.debug_str\n"
	"\t{\n"
	"$L__info_string0:\n"
	".b8 95,90,0\n"
	"\t}\n";

static void test_module(void)
{
	struct arena a = ARENA_INIT;
	struct ptx_module *m = parse(&a, module_text);
	ok(m != NULL, "hand-written module parses");
	if (!m) {
		arena_release(&a);
		return;
	}
	is_str(m->version, "8.5", "version");
	is_str(m->target, "sm_90a", "target");
	is_int(m->ntarget_opts, 3, "three target items");
	is_str(m->target_opts[2], "debug", "target debug");
	is_int(m->address_size, 64, "address size");
	is_int(m->nfiles, 3, "files up to 2");
	is_str(m->files[1], "/path/x.cu", ".file 1 with timestamp and size");
	is_str(m->files[2], "/usr/include/y.h", ".file 2");

	/* variables */
	is_int(m->nvars, 7, "module variables");
	const struct ptx_var *v = ptx_find_var(m, NULL, "bytes");
	ok(v && v->space == PS_GLOBAL && v->size == 8 && v->align == 4 && v->init, "bytes: .global, 8 bytes");
	ok(v && v->init && v->init[0] == 1 && v->init[3] == 255 && v->init[4] == 0, "bytes: initialiser, zero-padded");
	v = ptx_find_var(m, NULL, "coef");
	float fl[3] = { 0, 0, 0 };
	if (v && v->init)
		memcpy(fl, v->init, sizeof fl);
	ok(v && v->space == PS_CONST && v->type == PT_F32 && v->size == 12, "coef: .const .f32[3]");
	ok(fl[0] == 1.0f && fl[1] == 1.5f && fl[2] == -2.0f, "coef: 0f, decimal and integer initialisers");
	v = ptx_find_var(m, NULL, "ptrs");
	ok(v && v->is_visible && v->size == 16 && v->ninit_syms == 2, "ptrs: two address initialisers");
	if (v && v->ninit_syms == 2) {
		ok(v->init_syms[0].generic && strcmp(v->init_syms[0].sym, "bytes") == 0 &&
		   v->init_syms[0].offset == 0 && v->init_syms[0].size == 8, "generic(bytes)");
		ok(!v->init_syms[1].generic && v->init_syms[1].addend == 4 && v->init_syms[1].offset == 8,
		   "bytes+4");
	}
	v = ptx_find_var(m, NULL, "word");
	ok(v && v->init && v->init[0] == 0xff && v->init[3] == 0xff && v->align == 4, "word = 0xFFFFFFFF");
	v = ptx_find_var(m, NULL, "neg");
	ok(v && v->init && v->init[0] == 0xff && v->init[3] == 0xff, "neg = -1");
	v = ptx_find_var(m, NULL, "smem");
	ok(v && v->space == PS_SHARED && v->is_extern && v->size == 0 && v->align == 16, "extern shared smem[]");
	v = ptx_find_var(m, NULL, "grid");
	ok(v && v->size == 24 && !v->init, "grid[2][3]");

	/* functions */
	is_int(m->nfuncs, 3, "extern prototype merged with its definition");
	is_int(ptx_entry_count(m), 1, "one entry");
	const struct ptx_func *f = ptx_find_func(m, "kern");
	ok(f && f->is_entry && f->is_visible && f->has_body, "kern is a visible entry");
	if (!f) {
		arena_release(&a);
		return;
	}
	is_int(f->nparams, 4, "kern: 4 params");
	const struct ptx_param *p = f->params;
	ok(p[0].type == PT_U64 && p[0].size == 8 && p[0].align == 8 && p[0].is_ptr_hint &&
	   p[0].ptr_space == PS_GLOBAL && p[0].ptr_align == 16, "param 0: .u64 .ptr .global .align 16");
	ok(p[1].type == PT_B8 && p[1].size == 16 && p[1].align == 8 && p[1].offset == 8,
	   "param 1: .align 8 .b8 [16] at 8");
	ok(p[2].size == 4 && p[2].offset == 24, "param 2: .u32 at 24");
	ok(p[3].size == 8 && p[3].offset == 32, "param 3: .f64 aligned to 32");
	is_int(f->param_size, 40, "param buffer size");
	ok(f->maxntid[0] == 256 && f->maxntid[1] == 1 && f->maxntid[2] == 1, ".maxntid 256, 1, 1");
	ok(f->reqntid[0] == 0, "no .reqntid");
	is_int(f->minnctapersm, 2, ".minnctapersm");
	is_int(f->maxnreg, 64, ".maxnreg");
	ok(ptx_find_var(m, f, "__local_depot0") && ptx_find_var(m, f, "__local_depot0")->space == PS_LOCAL,
	   "function .local variable");
	ok(ptx_find_var(m, f, "tile") && ptx_find_var(m, f, "tile")->size == 256, "function .shared variable");
	ok(ptx_find_var(m, f, "param0") && ptx_find_var(m, f, "param0")->space == PS_PARAM,
	   "call-sequence .param variable");
	is_int(f->nlabels, 2, "two labels (the prototype is none)");
	is_int(ptx_label_target(f, "$L__BB0_1"), 7, "label BB0_1");
	is_int(ptx_label_target(f, "$L__BB0_3"), f->ninstrs - 2, "label BB0_3");
	is_int(ptx_label_target(f, "nope"), -1, "missing label");
	int r5 = ptx_find_reg(f, "%r5");
	ok(r5 >= 0 && f->regs[r5].type == PT_B32, "%%r<10> declares %%r5 as .b32");
	ok(ptx_find_reg(f, "%r10") < 0, "%%r<10> stops at %%r9");
	ok(ptx_find_reg(f, "%fd1") >= 0 && f->regs[ptx_find_reg(f, "%fd1")].type == PT_F64, "single .reg");

	const struct ptx_instr *in = &f->instrs[0];
	is_str(in->opcode, "ld", "ld opcode");
	ok(in->nmods == 2 && strcmp(in->mods[0], "param") == 0 && in->type == PT_U64, "ld.param.u64");
	ok(in->ops[1].kind == PO_ADDR && in->ops[1].base_is_sym && in->ops[1].imm == 0, "[kern_param_0]");
	ok(in->loc_file == 1 && in->loc_line == 10, "loc of the first instruction");
	ok(in->ops[0].kind == PO_REG && in->ops[0].reg == ptx_find_reg(f, "%rd1"), "register index");
	ok(f->instrs[1].ops[1].kind == PO_SREG && strcmp(f->instrs[1].ops[1].name, "%tid.x") == 0, "%%tid.x");
	ok(f->instrs[2].ops[1].kind == PO_SREG, "%%ntid.y");
	ok(f->instrs[3].ops[1].kind == PO_SREG, "%%envreg3");
	ok(f->instrs[4].ops[1].kind == PO_SREG, "%%clock64");
	ok(f->instrs[5].ops[1].kind == PO_SREG, "%%dynamic_smem_size");
	in = &f->instrs[6];
	ok(in->type == PT_S32 && in->nmods == 3 && ptx_has_mod(in, "and") && !ptx_has_mod(in, "or"),
	   "setp.ge.and.s32");
	ok(ptx_instr_mod_of(in, (const char *[]){ "lt", "ge", NULL }) &&
	   strcmp(ptx_instr_mod_of(in, (const char *[]){ "lt", "ge", NULL }), "ge") == 0, "mod_of");
	in = &f->instrs[7];
	ok(in->guard && strcmp(in->guard, "%p1") == 0 && !in->guard_neg &&
	   in->guard_reg == ptx_find_reg(f, "%p1"), "@%%p1 guard");
	ok(in->ops[0].kind == PO_LABEL && in->ops[0].imm == (int64_t)f->ninstrs - 2, "bra target resolved");
	ok(in->loc_file == 2 && in->loc_line == 440, ".loc with inlined_at");
	ok(in->call_file == 1 && in->call_line == 12, "inlined_at: the call site");
	{
		const char *file = NULL;
		unsigned line = 0;
		ok(ptx_user_loc(m, in, &file, &line) && line == 440 && !strcmp(file, "/usr/include/y.h"),
		   "user loc: a header of the program's own is its line");
		const char *saved = m->files[2];
		((const char **)m->files)[2] = "/usr/local/cuda/targets/x86_64-linux/include/sm_20_atomic_functions.hpp";
		ok(ptx_user_loc(m, in, &file, &line) && line == 12 && !strcmp(file, "/path/x.cu"),
		   "user loc: inside a toolkit header, the call site");
		((const char **)m->files)[2] = saved;
		ok(ptx_user_loc(m, &f->instrs[0], &file, &line) && line == 10 && !strcmp(file, "/path/x.cu"),
		   "user loc: a .loc without inlined_at");
	}
	in = &f->instrs[8];
	ok(in->guard_neg && in->ops[0].imm == 7 && ptx_has_mod(in, "uni"), "@!%%p2 bra.uni backwards");
	in = &f->instrs[9];
	ok(in->ops[0].kind == PO_VEC && in->ops[0].nelems == 4 && in->ops[0].elems[2].kind == PO_SINK,
	   "vector with a sink");
	ok(in->ops[1].kind == PO_ADDR && !in->ops[1].base_is_sym && in->ops[1].imm == 16, "[%%rd1+16]");
	ok(ptx_instr_space(in) == PS_GLOBAL && ptx_instr_vec(in) == 4 && in->type == PT_F32,
	   "ld.global.nc.v4.f32");
	in = &f->instrs[10];
	ok(in->ops[0].base_is_sym && strcmp(in->ops[0].name, "tile") == 0 && in->ops[0].imm == 8, "[tile+8]");
	ok(ptx_instr_space(in) == PS_SHARED, "st.shared");
	is_int(f->instrs[11].ops[1].imm, -4, "[%rd1+-4]");
	ok(f->instrs[12].ops[1].base_is_sym && f->instrs[12].ops[1].imm == 0, "[smem]");
	in = &f->instrs[13];
	ok(in->type == PT_S32 && in->type2 == PT_F32, "cvt.rn.f32.s32: type s32, type2 f32");
	in = &f->instrs[14];
	ok(in->ops[1].kind == PO_FIMM && in->ops[1].fwidth == 32 && in->ops[1].bits == 0x3F800000, "0f3F800000");
	in = &f->instrs[15];
	ok(in->ops[1].kind == PO_FIMM && in->ops[1].fwidth == 64 && in->ops[1].bits == 0x3FF0000000000000ull,
	   "0d3FF0000000000000");
	is_int(f->instrs[16].ops[1].imm, 0xFFFFFFFFll, "0xFFFFFFFF");
	is_int(f->instrs[17].ops[2].imm, -1, "-1");
	in = &f->instrs[18];
	ok(in->ops[0].kind == PO_PAIR && in->ops[0].nelems == 2 &&
	   strcmp(in->ops[0].elems[0].name, "%r9") == 0 && strcmp(in->ops[0].elems[1].name, "%p3") == 0 &&
	   in->ops[0].elems[1].reg == ptx_find_reg(f, "%p3"), "%%r9|%%p3 pair");
	ok(in->nops == 5 && in->ops[4].imm == -1, "shfl operands");
	in = &f->instrs[19];
	ok(strcmp(in->opcode, "atom") == 0 && in->type == PT_F32 && ptx_has_mod(in, "add"), "atom.global.add.f32");
	ok(strcmp(f->instrs[20].opcode, "bar") == 0 && f->instrs[20].ops[0].imm == 0, "bar.sync 0");
	ok(strcmp(f->instrs[21].opcode, "membar") == 0 && f->instrs[21].nops == 0, "membar.gl");
	is_int(f->instrs[22].ops[3].imm, 0x3210, "prmt selector");
	in = &f->instrs[23];
	ok(in->ops[1].kind == PO_ADDR && in->ops[1].base_is_sym && in->ops[1].nelems == 1 &&
	   in->ops[1].elems[0].kind == PO_VEC, "tex [texref, {..}]");
	ok(in->type == PT_F32 && in->type2 == PT_F32, "tex types");
	in = &f->instrs[24];
	ok(in->ops[3].kind == PO_FIMM && in->ops[3].bits == 0xBF800000u, "-0f3F800000");
	in = &f->instrs[26];
	ok(strcmp(in->opcode, "call") == 0 && in->nops == 3 && in->ops[0].kind == PO_PARAMLIST &&
	   in->ops[0].nelems == 1 && in->ops[1].kind == PO_SYM && strcmp(in->ops[1].name, "helper") == 0 &&
	   in->ops[2].kind == PO_PARAMLIST && in->ops[2].nelems == 1, "call.uni (retval0), helper, (param0)");
	in = &f->instrs[28];
	ok(in->nops == 4 && in->ops[1].kind == PO_REG && in->ops[3].kind == PO_SYM, "call with a prototype");
	in = &f->instrs[29];
	ok(in->nops == 2 && in->ops[1].kind == PO_PARAMLIST && in->ops[1].nelems == 0, "call with ()");
	ok(strcmp(f->instrs[f->ninstrs - 1].opcode, "exit") == 0, "exit");
	ok(f->instrs[f->ninstrs - 1].loc_line == 20, "loc of the last instruction");

	const struct ptx_func *h = ptx_find_func(m, "helper");
	ok(h && h->has_body && !h->is_extern && h->nrets == 1 && h->rets[0].size == 4 && h->nparams == 1,
	   "helper: definition replaces the prototype");
	const struct ptx_func *h2 = ptx_find_func(m, "helper2");
	ok(h2 && h2->noreturn && h2->nparams == 0 && h2->nrets == 1 && h2->rets[0].size == 16 &&
	   h2->rets[0].align == 16, "helper2: 16-byte return, .noreturn");
	ok(h2 && h2->ninstrs == 1 && h2->instrs[0].loc_line == 0, "loc resets per function");
	arena_release(&a);
}

/* ---- printing ---- */

static void test_round_trip(void)
{
	static const char *const lines[] = {
		"ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16]",
		"@%p1 bra $L__BB0_2",
		"@!%p2 st.shared.f32 [smem+8], %f1",
		"ld.global.u32 %r1, [%rd1+-4]",
		"shfl.sync.down.b32 %r1|%p1, %r2, 16, 31, -1",
		"mov.b32 %f1, 0f3F800000",
		"mov.f64 %fd1, 0dBFF0000000000000",
		"setp.ge.and.s32 %p1, %r1, %r2, !%p2",
		"call.uni (retval0), foo, (param0, param1)",
		"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex, {%f5, %f6}]",
		"mov.u32 %r1, %ctaid.x",
		"ld.global.v2.f32 {_, %f2}, [%rd3]",
		"ret",
	};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		struct arena a = ARENA_INIT;
		char *text = arena_printf(&a, ".version 8.0\n.target sm_80\n.address_size 64\n"
		                          ".entry k() {\n.reg .pred %%p<3>;\n%s;\n$L__BB0_2:\n}\n", lines[i]);
		struct ptx_module *m = parse(&a, text);
		const char *got = m && m->nfuncs == 1 && m->funcs[0].ninstrs == 1 ?
		                  ptx_instr_text(&a, &m->funcs[0].instrs[0]) : NULL;
		is_str(got, lines[i], "round trip");
		arena_release(&a);
	}
	/* Equal forms print the same way. */
	struct arena a = ARENA_INIT;
	struct ptx_module *m = parse(&a, ".entry k() { mov.b32 %r1, 0xff; ld.u32 %r2, [%rd1+0]; }");
	ok(m && strcmp(ptx_instr_text(&a, &m->funcs[0].instrs[0]), "mov.b32 %r1, 255") == 0 &&
	   strcmp(ptx_instr_text(&a, &m->funcs[0].instrs[1]), "ld.u32 %r2, [%rd1]") == 0,
	   "hex immediates and +0 offsets print canonically");
	arena_release(&a);
}

/* ---- errors ---- */

static void test_errors(void)
{
	static const struct { const char *text, *err; } cases[] = {
		{ ".version 8.0\n.entry k()\n{\n  ret;\n}\n}\n", "6:1: unexpected token '}'" },
		{ ".entry k() {\n    add.s32 %r1, %r2 %r3;\n}\n", "2:22: unexpected token '%r3', expected ';'" },
		{ ".entry k() {\n  bra $L__nowhere;\n}\n", "2:7: undefined label '$L__nowhere'" },
		{ ".entry k() {\nL: ret;\nL: ret;\n}\n", "3:1: duplicate label 'L'" },
		{ ".entry k() {\n  ret;\n", "3:1: unexpected end of input" },
		{ "/* open", "1:1: unterminated comment" },
		{ ".entry k() { mov.b32 %f1, 0f3F80; }", "1:27: bad float literal" },
		{ ".entry k() { mov.b32 %r1, 99999999999999999999; }", "1:27: integer literal too large" },
		{ ".frobnicate 3;", "1:1: unsupported directive '.frobnicate'" },
		{ ".entry k(.param .u32 a, ) {}", "1:25: unexpected token ')', expected '.param'" },
		{ ".global .b8 x[2] = {1, 2, 3};", "1:13: too many initialisers for 'x'" },
		{ ".entry k() { .reg .b32 %r<99999999>; }", "1:24: register declaration too large" },
		{ ".entry k() { mov.b32 %r1, #; }", "1:27: unexpected character" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct arena a = ARENA_INIT;
		char err[128];
		struct ptx_module *m = ptx_parse(&a, cases[i].text, strlen(cases[i].text), err, sizeof err);
		ok(m == NULL, "error case %zu fails", i);
		is_str(m ? "" : err, cases[i].err, "error message");
		arena_release(&a);
	}
	/* A short error buffer is truncated, not overrun; a NULL one is fine. */
	struct arena a = ARENA_INIT;
	char small[8];
	ok(!ptx_parse(&a, "}", 1, small, sizeof small) && strcmp(small, "1:1: un") == 0, "short error buffer");
	ok(!ptx_parse(&a, "}", 1, NULL, 0), "no error buffer");
	/* The text need not be NUL-terminated: only len bytes are read. */
	const char text[] = ".entry k() { ret; }garbage";
	ok(ptx_parse(&a, text, 19, NULL, 0) != NULL, "length-delimited input");
	arena_release(&a);
}

/* ---- garbled input ---- */

static uint64_t rng_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* Truncations and random byte changes of text: each either parses or fails
 * with a "LINE:COL: " message; none may crash (the sanitizer build also
 * checks for leaks and bad reads). */
static void garble(const char *name, const char *text, size_t len, unsigned rounds)
{
	static const char junk[] = "{}[]()<>;:,.@!|+-_%$\"/*\n 0f0x9.";
	uint64_t seed = len;
	char *buf = xmalloc(len + 1);
	unsigned fails = 0, bad_msgs = 0;
	size_t step = len / rounds + 1;
	for (size_t cut = 0; cut < len; cut += step) {
		struct arena a = ARENA_INIT;
		char err[256];
		if (!ptx_parse(&a, text, cut, err, sizeof err)) {
			fails++;
			unsigned l, c;
			bad_msgs += sscanf(err, "%u:%u: ", &l, &c) != 2;
		}
		arena_release(&a);
	}
	for (unsigned r = 0; r < rounds; r++) {
		memcpy(buf, text, len);
		unsigned edits = 1 + (unsigned)(rng_next(&seed) % 4);
		for (unsigned e = 0; e < edits; e++) {
			size_t at = (size_t)(rng_next(&seed) % len);
			buf[at] = rng_next(&seed) % 2 ? junk[rng_next(&seed) % (sizeof junk - 1)]
			                                : (char)rng_next(&seed);
		}
		struct arena a = ARENA_INIT;
		char err[256];
		if (!ptx_parse(&a, buf, len, err, sizeof err)) {
			fails++;
			unsigned l, c;
			bad_msgs += sscanf(err, "%u:%u: ", &l, &c) != 2;
		}
		arena_release(&a);
	}
	free(buf);
	ok(bad_msgs == 0, "garbled %s: %u failures, all with a position", name, fails);
}

/* ---- nvcc output ---- */

static const char *fixture_dir(void)
{
	const char *d = getenv("DIRIGO_FIXTURES");
	return d && *d ? d : "tests/fixtures";
}

static struct ptx_module *load_fixture(struct arena *a, const char *name, char **text, size_t *len)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", fixture_dir(), name);
	*text = read_file(path, len);
	if (!*text) {
		ok(0, "read %s", path);
		return NULL;
	}
	char err[256];
	struct ptx_module *m = ptx_parse(a, *text, *len, err, sizeof err);
	if (!ok(m != NULL, "%s parses", name))
		printf("#   %s\n", err);
	return m;
}

static void check_entry(const struct ptx_module *m, const char *name, unsigned nparams,
                        const unsigned *sizes, unsigned ninstrs)
{
	const struct ptx_func *f = ptx_find_func(m, name);
	ok(f && f->is_entry && f->has_body, "entry %s", name);
	if (!f)
		return;
	is_int(f->nparams, nparams, "param count");
	unsigned bad = 0;
	for (unsigned i = 0; i < nparams && i < f->nparams; i++)
		bad += f->params[i].size != sizes[i];
	ok(bad == 0, "%s: param sizes", name);
	is_int(f->ninstrs, ninstrs, "instruction count");
}

static void test_fixtures(void)
{
	struct arena a = ARENA_INIT;
	char *text;
	size_t len;
	struct ptx_module *m;

	if ((m = load_fixture(&a, "vec_add.ptx", &text, &len))) {
		is_str(m->version, "9.0", "vec_add: version");
		is_str(m->target, "sm_90", "vec_add: target");
		is_str(m->files[1], "vec_add.cu", "vec_add: .file 1 without the checkout path");
		check_entry(m, "_Z7vec_addPKfS0_Pfi", 4, (unsigned[]){ 8, 8, 8, 4 }, 22);
		const struct ptx_func *f = ptx_find_func(m, "_Z7vec_addPKfS0_Pfi");
		if (f) {
			is_int(f->nlabels, 1, "vec_add: one label");
			is_int(ptx_label_target(f, "$L__BB0_2"), 21, "vec_add: $L__BB0_2 before ret");
			const struct ptx_instr *in = find_instr(f, "@%p1 bra $L__BB0_2", &a);
			ok(in && in->loc_line == 5 && in->ops[0].imm == 21, "vec_add: guarded branch, line 5");
			in = find_instr(f, "st.global.f32 [%rd10], %f3", &a);
			ok(in && in->loc_line == 6 && ptx_instr_space(in) == PS_GLOBAL, "vec_add: store, line 6");
			in = find_instr(f, "mad.lo.s32 %r1, %r3, %r4, %r5", &a);
			ok(in && in->loc_line == 4 && in->type == PT_S32, "vec_add: index computation");
			is_int(count_opcode(f, "ld"), 6, "vec_add: 6 loads");
		}
		free(text);
	}
	if ((m = load_fixture(&a, "grid_stride.ptx", &text, &len))) {
		check_entry(m, "_Z5saxpyifPKfPf", 4, (unsigned[]){ 4, 4, 8, 8 }, 25);
		const struct ptx_func *f = ptx_find_func(m, "_Z5saxpyifPKfPf");
		if (f) {
			is_int(f->nlabels, 2, "saxpy: loop and exit labels");
			ok(f->params[2].offset == 8, "saxpy: pointer param aligned to 8");
			int back = -1;
			for (unsigned i = 0; i < f->ninstrs; i++)
				if (f->instrs[i].ops && f->instrs[i].ops[0].kind == PO_LABEL &&
				    f->instrs[i].ops[0].imm <= (int64_t)i)
					back = (int)i;
			ok(back > 0, "saxpy: a backward branch (the loop)");
			ok(find_instr(f, "mov.u32 %r1, %nctaid.x", &a) || count_opcode(f, "mov") >= 3,
			   "saxpy: reads the grid size");
		}
		free(text);
	}
	if ((m = load_fixture(&a, "grid2d.ptx", &text, &len))) {
		check_entry(m, "_Z15transpose_scalePKfPfiif", 5, (unsigned[]){ 8, 8, 4, 4, 4 }, 29);
		const struct ptx_func *f = ptx_find_func(m, "_Z15transpose_scalePKfPfiif");
		unsigned y = 0;
		for (unsigned i = 0; f && i < f->ninstrs; i++)
			for (unsigned j = 0; j < f->instrs[i].nops; j++)
				y += f->instrs[i].ops[j].kind == PO_SREG &&
				     strstr(f->instrs[i].ops[j].name, ".y") != NULL;
		is_int(y, 3, "grid2d: %tid.y %ntid.y %ctaid.y");
		free(text);
	}
	if ((m = load_fixture(&a, "reduce.ptx", &text, &len))) {
		check_entry(m, "_Z9block_sumPKfPfi", 3, (unsigned[]){ 8, 8, 4 }, 76);
		const struct ptx_func *f = ptx_find_func(m, "_Z9block_sumPKfPfi");
		if (f) {
			ok(f->maxntid[0] == 256 && f->maxntid[1] == 1, "reduce: __launch_bounds__ -> .maxntid");
			ok(f->nvars == 1 && f->vars[0].space == PS_SHARED && f->vars[0].size == 1024 &&
			   f->vars[0].align == 4, "reduce: demoted __shared__ buffer");
			is_int(count_opcode(f, "bar"), 4, "reduce: four bar.sync (the s = 32 step is peeled)");
			is_int(count_opcode(f, "shfl"), 5, "reduce: five shfl.sync");
			const struct ptx_instr *in = find_instr(f, "shfl.sync.down.b32 %r14|%p6, %r9, %r12, %r11, %r13", &a);
			ok(in && in->ops[0].kind == PO_PAIR && in->loc_file == 2 && in->loc_line == 440,
			   "reduce: shfl pair destination, inlined .loc");
			is_int(f->nlabels, 5, "reduce: labels");
		}
		ok(m->nfiles == 3 && m->files[2] && strstr(m->files[2], "sm_30_intrinsics.hpp"),
		   "reduce: .file 2 of the intrinsics header");
		free(text);
	}
	if ((m = load_fixture(&a, "activations.ptx", &text, &len))) {
		is_int(ptx_entry_count(m), 2, "activations: two entries");
		check_entry(m, "_Z7sigmoidPKfPfi", 3, (unsigned[]){ 8, 8, 4 }, 37);
		check_entry(m, "_Z9gelu_tanhPKfPfi", 3, (unsigned[]){ 8, 8, 4 }, 48);
		const struct ptx_func *f = ptx_find_func(m, "_Z7sigmoidPKfPfi");
		ok(f && count_opcode(f, "ex2") == 1, "sigmoid: expf expands to one ex2");
		const struct ptx_instr *in = f ? find_instr(f, "ex2.approx.ftz.f32 %f17, %f15", &a) : NULL;
		ok(in && in->nmods == 3 && ptx_has_mod(in, "approx") && in->type == PT_F32, "sigmoid: ex2.approx.ftz.f32");
		f = ptx_find_func(m, "_Z9gelu_tanhPKfPfi");
		unsigned fimm = 0;
		for (unsigned i = 0; f && i < f->ninstrs; i++)
			for (unsigned j = 0; j < f->instrs[i].nops; j++)
				fimm += f->instrs[i].ops[j].kind == PO_FIMM && f->instrs[i].ops[j].fwidth == 32;
		ok(fimm >= 10, "gelu_tanh: float immediates (%u)", fimm);
		free(text);
	}
	if ((m = load_fixture(&a, "const_call.ptx", &text, &len))) {
		const struct ptx_var *v = ptx_find_var(m, NULL, "poly");
		float pv[4] = { 0, 0, 0, 0 };
		if (v && v->init && v->size == 16)
			memcpy(pv, v->init, sizeof pv);
		ok(v && v->space == PS_CONST && pv[0] == 1.0f && pv[1] == -0.5f && pv[3] == 2.0f,
		   "const_call: __constant__ table with its values");
		const struct ptx_func *h = ptx_find_func(m, "_Z6hornerfi");
		ok(h && !h->is_entry && h->nrets == 1 && h->rets[0].size == 4 && h->nparams == 1,
		   "const_call: .func with a return parameter");
		check_entry(m, "_Z9eval_polyPKfPfi6affine", 4, (unsigned[]){ 8, 8, 4, 16 }, 23);
		const struct ptx_func *f = ptx_find_func(m, "_Z9eval_polyPKfPfi6affine");
		if (f) {
			ok(f->params[3].align == 4 && f->params[3].offset == 20 && f->param_size == 36,
			   "const_call: struct parameter layout");
			const struct ptx_instr *in = find_instr(f, "call.uni (retval0), _Z6hornerfi, (param0)", &a);
			ok(in && in->loc_line == 19, "const_call: call.uni across lines");
			ok(find_instr(f, "ld.param.f32 %f2, [_Z9eval_polyPKfPfi6affine_param_3+4]", &a) != NULL,
			   "const_call: load of a struct field");
		}
		free(text);
	}
	if ((m = load_fixture(&a, "matmul.ptx", &text, &len))) {
		is_int(ptx_entry_count(m), 3, "matmul: three entries");
		const struct ptx_func *f = ptx_find_func(m, "_Z7stencilILi384EEvPKfPfi");
		ok(f && f->ninstrs > 3000, "matmul: stencil<384> has %u instructions", f ? f->ninstrs : 0);
		/* Speed: best of a few parses of the whole module. */
		double best = 1e9;
		for (int r = 0; r < 5; r++) {
			struct arena b = ARENA_INIT;
			struct timespec t0, t1;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			struct ptx_module *mm = ptx_parse(&b, text, len, NULL, 0);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
			if (mm && ms < best)
				best = ms;
			arena_release(&b);
		}
		printf("# matmul.ptx: %zu bytes parsed in %.2f ms\n", len, best);
		ok(best < 100.0, "matmul.ptx parses in %.2f ms", best);
		garble("matmul.ptx", text, len, 200);
		free(text);
	}
	if ((m = load_fixture(&a, "reduce.ptx", &text, &len))) {
		garble("reduce.ptx", text, len, 400);
		free(text);
	}
	arena_release(&a);
}

/* A register declared again in an inner { } scope (nvcc does this for
 * __syncthreads_count) is a different register from the outer one. */
static void test_scopes(void)
{
	static const char text[] =
		".version 9.0\n.target sm_90\n.address_size 64\n"
		".visible .entry k()\n{\n"
		"\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n"
		"\tsetp.eq.u32 %p1, %r1, 0;\n"
		"\t{\n\t.reg .pred %p1;\n\tsetp.ne.u32 %p1, %r2, 0;\n"
		"\tbar.red.popc.u32 %r2, 0, %p1;\n\t}\n"
		"\t@%p1 bra L;\nL:\n\tret;\n}\n";
	struct arena a = ARENA_INIT;
	struct ptx_module *m = parse(&a, text);
	const struct ptx_func *f = m ? ptx_find_func(m, "k") : NULL;
	ok(f && f->ninstrs == 5, "scoped body parses");
	if (f && f->ninstrs == 5) {
		int outer = f->instrs[0].ops[0].reg, inner = f->instrs[1].ops[0].reg;
		ok(outer != inner, "inner %%p1 is a new register");
		is_int(f->instrs[2].ops[2].reg, inner, "inner uses see the inner register");
		is_int(f->instrs[3].guard_reg, outer, "after the scope, %%p1 is the outer one again");
	}
	arena_release(&a);
}

int main(void)
{
	test_scopes();
	test_module();
	test_round_trip();
	test_errors();
	garble("module", module_text, strlen(module_text), 1000);
	test_fixtures();
	return done_testing();
}
