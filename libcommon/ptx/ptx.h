/*
 * ptx.h: PTX front end: lexer, parser and the IR every tool shares
 * (dtrace-cuda reads entry signatures, dexec executes, dreplay interprets).
 *
 * The parser accepts the PTX that nvcc 12/13 emits (ISA 7.x-9.x): module
 * directives, .global/.const/.shared variables with initialisers, .entry and
 * .func with parameters, register declarations, labels, predicated
 * instructions with any modifiers, vector operands, address operands
 * [reg+imm], [symbol+imm], .loc/.file debug lines, and pragmas.  It does
 * not decide what an instruction means: opcode and modifiers are kept as
 * parsed, in a form that is cheap to inspect.
 *
 * Memory: the module and everything it points to live in one arena.
 * Names (opcodes, modifiers, registers, symbols, labels) are interned per
 * module: two equal names in one module are the same pointer.
 */
#ifndef DIRIGO_PTX_H
#define DIRIGO_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcommon/arena.h"

/* Scalar PTX types (.u32, .f32, .pred, .b64, ...). */
enum ptx_type {
	PT_NONE = 0,
	PT_PRED,
	PT_B8, PT_B16, PT_B32, PT_B64, PT_B128,
	PT_U8, PT_U16, PT_U32, PT_U64,
	PT_S8, PT_S16, PT_S32, PT_S64,
	PT_F16, PT_F16X2, PT_BF16, PT_BF16X2, PT_TF32, PT_F32, PT_F64,
};
unsigned    ptx_type_bits(enum ptx_type t);
bool        ptx_type_is_float(enum ptx_type t);
bool        ptx_type_is_signed(enum ptx_type t);
const char *ptx_type_name(enum ptx_type t);   /* "u32" without the dot */
/* The type named s ("u32" or ".u32"), or PT_NONE. */
enum ptx_type ptx_type_from_name(const char *s);

enum ptx_space { PS_NONE = 0, PS_REG, PS_PARAM, PS_GLOBAL, PS_CONST, PS_SHARED, PS_LOCAL, PS_GENERIC };

enum ptx_opnd_kind {
	PO_REG,       /* %r1, %rd2, %f3, %p1 (name) */
	PO_SREG,      /* special register: %tid.x, %ntid.y, %ctaid.z, %nctaid.x, %laneid, %warpid, ... (name) */
	PO_IMM,       /* integer literal (imm) */
	PO_FIMM,      /* float literal 0fXXXXXXXX or 0dXXXXXXXXXXXXXXXX (bits, width 32/64);
	                 a decimal literal (1.5) is a double: width 64 */
	PO_SYM,       /* a variable or function name (name), e.g. mov.u64 %rd1, smem; */
	PO_ADDR,      /* [base+off]: base is a register or symbol (name, base_is_sym), off = imm;
	                 [1024]: an absolute address, name NULL */
	PO_VEC,       /* {%f1, %f2, _, %f4}: elems/nelems; '_' is an element of kind PO_SINK */
	PO_LABEL,     /* branch target (name); imm = index of the instruction
	                 the label points at (resolved by the parser) */
	PO_SINK,      /* '_' */
	PO_PARAMLIST, /* (a, b) argument list of call: elems/nelems */
	PO_PAIR,      /* a|b destination pair (setp, shfl.sync): elems[0] = a,
	                 elems[1] = b, nelems = 2 */
};

struct ptx_operand {
	enum ptx_opnd_kind kind;
	const char *name;
	bool neg;             /* !%p as a predicate operand */
	bool base_is_sym;     /* PO_ADDR */
	int64_t imm;          /* PO_IMM value; PO_ADDR offset */
	uint64_t bits;        /* PO_FIMM raw bits */
	unsigned fwidth;      /* PO_FIMM: 32 or 64 */
	struct ptx_operand *elems;   /* PO_VEC, PO_PARAMLIST, PO_PAIR; PO_ADDR: the
	                                operands after a comma, [tex, {..}] */
	unsigned nelems;
	int reg;              /* PO_REG, and PO_ADDR with a register base: index
	                         in the function's regs[]; -1 otherwise */
};

/* An instruction.  Operands are as written, destinations first; a
 * destination pair %r1|%p1 is one PO_PAIR operand. */
struct ptx_instr {
	const char *opcode;          /* "add", "ld", "setp", "bar", ... */
	const char **mods;           /* every dotted suffix in order, without dots:
	                                ld.global.nc.v4.f32 -> {"global","nc","v4","f32"} */
	unsigned nmods;
	enum ptx_type type;          /* the last type modifier, PT_NONE if none */
	enum ptx_type type2;         /* the one before it (cvt.f32.s32: type=s32, type2=f32) */
	const char *guard;           /* predicate register of @%p / @!%p, or NULL */
	bool guard_neg;
	int guard_reg;               /* index of guard in the function's regs[], or -1 */
	struct ptx_operand *ops;
	unsigned nops;
	unsigned line;               /* line in the PTX text (1-based) */
	unsigned loc_file, loc_line; /* from the last .loc; 0 if none */
	unsigned call_file, call_line;   /* its inlined_at (the call site of the inlined
	                                    function the line is in); 0 if none */
};

/* True if the instruction has modifier m (without the dot). */
bool ptx_has_mod(const struct ptx_instr *in, const char *m);
/* The state space named by the modifiers (ld.global -> PS_GLOBAL, ld.param
 * -> PS_PARAM, cvta.to.shared -> PS_SHARED), PS_GENERIC if none. */
enum ptx_space ptx_instr_space(const struct ptx_instr *in);
/* Vector width from .v2/.v4/.v8, 1 if none. */
unsigned ptx_instr_vec(const struct ptx_instr *in);
/* The first modifier out of the NULL-terminated list set, or NULL:
 * ptx_instr_mod_of(in, (const char *[]){"eq","ne","lt",NULL}). */
const char *ptx_instr_mod_of(const struct ptx_instr *in, const char *const *set);

struct ptx_param {
	const char *name;
	enum ptx_type type;
	unsigned size;               /* bytes (arrays: whole size) */
	unsigned align;
	bool is_ptr_hint;            /* .ptr attribute present */
	enum ptx_space ptr_space;    /* .ptr .global: PS_GLOBAL; PS_NONE if not given */
	unsigned ptr_align;          /* .ptr .align N: N; 0 if not given */
	unsigned offset;             /* byte offset in the parameter buffer, each
	                                parameter aligned to align */
	unsigned line;
};

struct ptx_var {                 /* module- or function-scope variable */
	const char *name;
	enum ptx_space space;
	enum ptx_type type;
	unsigned size;               /* bytes; 0 for extern .shared arrays */
	unsigned align;
	bool is_extern;
	const unsigned char *init;   /* initialiser bytes (size), or NULL */
	unsigned line;
	/* Initialiser elements that are addresses (sym, generic(sym), sym+4):
	 * their bytes in init are 0, the address is filled in at load time. */
	struct ptx_init_sym *init_syms;  unsigned ninit_syms;
	unsigned vec;                /* .v2/.v4: 2/4; 1 otherwise */
	bool is_visible;             /* .visible */
};

struct ptx_init_sym {
	unsigned offset;             /* byte offset in init */
	unsigned size;               /* element size in bytes */
	const char *sym;
	int64_t addend;              /* sym+addend */
	bool generic;                /* generic(sym) */
};

/* A register of a function: one per name declared with .reg (%r<25> gives
 * %r0..%r24); a register used but not declared gets type PT_NONE.  Names
 * are per function, so a register redeclared in a nested { } scope shares
 * the index of the outer one. */
struct ptx_reg {
	const char *name;
	enum ptx_type type;
	unsigned vec;                /* .reg .v2 .f32: 2; 1 otherwise */
};

struct ptx_label { const char *name; unsigned instr; };   /* index of next instr */

struct ptx_func {
	const char *name;
	bool is_entry;
	struct ptx_param *params;  unsigned nparams;
	struct ptx_param *rets;    unsigned nrets;       /* .func return params */
	struct ptx_var *vars;      unsigned nvars;       /* .shared/.local inside, and the
	                                                    .param of call sequences
	                                                    (their names may repeat) */
	struct ptx_instr *instrs;  unsigned ninstrs;
	struct ptx_label *labels;  unsigned nlabels;
	unsigned maxntid[3], reqntid[3];                 /* 0 if absent */
	unsigned line;
	struct ptx_reg *regs;      unsigned nregs;
	unsigned param_size;       /* bytes of the parameter buffer (aligned end) */
	unsigned minnctapersm, maxnreg;                  /* 0 if absent */
	bool is_visible, is_extern, is_weak;
	bool has_body;             /* false for a prototype (.extern .func f(...);) */
	bool noreturn;
};

struct ptx_module {
	const char *version;        /* ".version 9.0" -> "9.0" */
	const char *target;         /* "sm_52" */
	unsigned address_size;      /* 64 */
	const char **target_opts;   unsigned ntarget_opts;  /* all .target items */
	struct ptx_var *vars;   unsigned nvars;
	struct ptx_func *funcs; unsigned nfuncs;
	const char **files;     unsigned nfiles;         /* .file N "name": files[N]; NULL
	                                                    where no .file N was given */
};

/* The source line people know instruction in by: its .loc, or where that
 * is inside a header of the CUDA toolkit (atomicAdd's body in
 * sm_20_atomic_functions.hpp) and the .loc names a call site, the call
 * site.  False if in has no .loc in a file of m. */
bool ptx_user_loc(const struct ptx_module *m, const struct ptx_instr *in, const char **file,
                  unsigned *line);

/* Parses text (len bytes, need not be NUL-terminated).  On error returns
 * NULL and writes "LINE:COL: message" into err (errlen bytes; err may be
 * NULL); what was allocated in a stays there until arena_release.  A bra to
 * a label the function does not define is an error; registers used without
 * a .reg get type PT_NONE.  .section blocks (debug information) are skipped.
 * Costs about 20 ns per token. */
struct ptx_module *ptx_parse(struct arena *a, const char *text, size_t len,
                             char *err, size_t errlen);

const struct ptx_func *ptx_find_func(const struct ptx_module *m, const char *name);
const struct ptx_var  *ptx_find_var(const struct ptx_module *m, const struct ptx_func *f,
                                    const char *name);
/* Index of the instruction a label points at, or -1. */
int ptx_label_target(const struct ptx_func *f, const char *label);
/* Index of the register named name in f->regs, or -1. */
int ptx_find_reg(const struct ptx_func *f, const char *name);
/* Number of .entry functions with a body. */
unsigned ptx_entry_count(const struct ptx_module *m);

/* A printable form of one instruction, e.g. "ld.global.f32 %f1, [%rd4+8]". */
char *ptx_instr_text(struct arena *a, const struct ptx_instr *in);

#endif
