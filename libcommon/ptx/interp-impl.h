/*
 * interp-impl.h: what the files of the PTX interpreter share (interp.c
 * schedules and runs launches, interp-decode.c turns the PTX IR into the
 * compact form below, interp-ops.c executes one instruction for the lanes
 * of a warp).  Not for use outside libcommon/ptx/interp*.c.
 *
 * Decoded form: every instruction of every function of the module is one
 * struct dinst in one array, indexed by a global pc.  Operands are slots of
 * the frame's register file (uint64_t each): the function's registers,
 * then its constants (immediates and symbol addresses, copied into each new
 * frame), then a few fixed slots (sink, carry, local base).  So the hot
 * loop never looks at operand kinds or names.
 */
#ifndef DIRIGO_PTX_INTERP_IMPL_H
#define DIRIGO_PTX_INTERP_IMPL_H

#include <stdint.h>

#include "libcommon/ptx/interp.h"

/* Windows of the address space (generic addresses). */
#define IW_VARS   UINT64_C(0x700000000000)   /* module variables without a buffer */
#define IW_SHARED UINT64_C(0x7e0000000000)   /* + shared-space address */
#define IW_LOCAL  UINT64_C(0x7f0000000000)   /* + local-space address (per thread) */
#define IW_SIZE   UINT64_C(0x010000000000)

#define WARP 32
#define NOREG UINT32_MAX

enum iop {
	/* simple operations (interp-ops.c), one range per family, each run by
	 * its own function: moves, integer arithmetic, bit operations, floats,
	 * comparisons and selections, conversions, memory */
	I_NOP, I_UNSUPPORTED,
	I_MOV, I_PACK, I_UNPACK, I_SREG, I_ACTIVEMASK,
	I_ADD, I_SUB, I_ADDC, I_SUBC, I_MUL_LO, I_MUL_HI, I_MUL_WIDE, I_MAD_LO, I_MAD_HI,
	I_MAD_WIDE, I_MUL24, I_MAD24, I_SAD, I_DIV, I_REM, I_ABS, I_NEG, I_MIN, I_MAX,
	I_AND, I_OR, I_XOR, I_NOT, I_CNOT, I_SHL, I_SHR, I_POPC, I_CLZ, I_BREV, I_BFIND,
	I_PRMT, I_BFE, I_BFI, I_LOP3, I_SHF,
	I_FADD, I_FSUB, I_FMUL, I_FFMA, I_FDIV, I_FRCP, I_FSQRT, I_FRSQRT, I_FMIN, I_FMAX,
	I_FABS, I_FNEG, I_FCOPYSIGN, I_FEX2, I_FLG2, I_FSIN, I_FCOS, I_FTANH, I_TESTP,
	I_SETP_I, I_SETP_F, I_SET_I, I_SET_F, I_SELP, I_SLCT_I, I_SLCT_F, I_CVT, I_CVTA,
	I_LD, I_ST, I_LDK, I_LDP, I_STP, I_ATOM,
	I_SIMPLE_END,
	/* control and collectives (interp.c) */
	I_BRA = I_SIMPLE_END, I_CALL, I_RET, I_EXIT, I_TRAP, I_BAR, I_BAR_ARRIVE, I_BAR_RED,
	I_SHFL, I_VOTE, I_WARPSYNC,
};

/* flags */
#define DF_SIGNED  0x01
#define DF_FTZ     0x02
#define DF_SAT     0x04
#define DF_F64     0x08     /* float operation on f64 (else f32) */
#define DF_CC      0x10     /* writes the carry flag (.cc) */
#define DF_NAN     0x20     /* min/max .NaN */
#define DF_APPROX  0x40
#define DF_HI      0x80     /* mul24.hi/mad24.hi, shf.r, bfind.shiftamt */

enum rnd { RN = 0, RZ, RM, RP, RNI, RZI, RMI, RPI, RNONE };
enum cmp { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE, C_LO, C_LS, C_HI, C_HS,
           C_EQU, C_NEU, C_LTU, C_LEU, C_GTU, C_GEU, C_NUM, C_NAN };
enum boolop { B_NONE, B_AND, B_OR, B_XOR };
enum atomop { A_ADD, A_MIN, A_MAX, A_EXCH, A_CAS, A_INC, A_DEC, A_AND, A_OR, A_XOR };
enum shflmode { SH_UP, SH_DOWN, SH_BFLY, SH_IDX };
enum votemode { V_ALL, V_ANY, V_UNI, V_BALLOT };
enum sreg { S_TID, S_NTID, S_CTAID, S_NCTAID, S_LANEID, S_WARPID, S_NWARPID,
            S_LANEMASK_EQ, S_LANEMASK_LT, S_LANEMASK_LE, S_LANEMASK_GT, S_LANEMASK_GE,
            S_CLOCK, S_ZERO, S_DSMEM, S_TSMEM };

struct dinst {
	uint8_t op;
	uint8_t w;              /* operation width in bits (1 for .pred) */
	uint8_t flags;
	uint8_t sub;            /* rnd, cmp, atomop, shflmode, votemode, sreg, space ... */
	uint8_t sub2;           /* boolop of setp; cvt source kind; sreg component; atom: 1 for red */
	uint8_t space;          /* enum ptx_space of ld/st/atom/cvta */
	uint8_t vec;            /* ld/st/pack: number of elements */
	uint8_t w2;             /* cvt: source width; ld/st: element bytes */
	uint8_t t, t2;          /* enum ptx_type: destination, source (cvt) */
	uint8_t guard_neg, to;  /* cvta: to (1) or from (0) the space */
	uint32_t guard;         /* slot, or NOREG */
	uint32_t d, d2;         /* destinations (d2: setp/shfl second, carry) */
	uint32_t a, b, c, e;    /* sources */
	uint32_t v[4];          /* ld/st/pack vector elements */
	int64_t imm;            /* address offset, param offset, lut, target */
	uint32_t target;        /* bra: pc; call: function index */
	uint32_t ins;           /* index of the PTX instruction in its function */
	const struct ptx_instr *src;
};

/* A call: where argument and return bytes go (decoded at the call). */
struct dcall {
	uint32_t func;
	uint32_t nargs, nrets;
	uint32_t *arg_off, *arg_size;  /* in the caller's param area */
	uint32_t *ret_off, *ret_size;
};

struct dfunc {
	const struct ptx_func *f;
	uint32_t start, end;         /* pcs */
	uint32_t nslots;             /* registers + constants + fixed slots */
	uint32_t nregs;
	uint64_t *consts;            /* initial values of slots [nregs, nslots) */
	uint32_t slot_sink, slot_carry, slot_local;
	uint32_t param_size;         /* bytes of the frame's param area */
	uint32_t *formal_off;        /* .func: where each param lies in the area */
	uint32_t *ret_off;           /* .func: where each return lies */
	uint32_t local_size;         /* bytes of .local variables per frame */
};

/* A memory region in the flat address space. */
struct region {
	uint64_t base, bytes;
	uint8_t *data;
	uint8_t space;               /* PS_GLOBAL or PS_CONST */
	const char *name;
	uint8_t *valid;              /* interp_buf.valid, or NULL */
};

struct program {
	struct dinst *code;   uint32_t ncode;
	struct dfunc *funcs;  uint32_t nfuncs;
	struct dcall *calls;  uint32_t ncalls;
	uint32_t entry;              /* index in funcs */
	uint32_t shared_size;        /* static + dynamic */
	uint32_t dyn_shared;
	struct region *regions; uint32_t nregions;   /* sorted by base */
	char **why; uint32_t nwhy;   /* reasons of I_UNSUPPORTED (imm indexes) */
	uint8_t *kparams;            /* the kernel's parameter buffer */
	uint32_t kparam_size;
};

/* Per-lane state. */
enum lstate { L_ABSENT, L_RUN, L_WAIT_BAR, L_WAIT_WARP, L_EXITED };

struct frame_hdr {
	uint32_t func, ret_pc, call;   /* call: index in program.calls */
	uint32_t prev_frame;           /* offset in the stack (uint64 units) */
	uint32_t prev_local;
};

struct lane {
	uint64_t *R;                  /* current frame's slots */
	uint8_t *P;                   /* current frame's param area */
	uint32_t pc;
	uint8_t state;
	uint8_t barval;               /* bar.red: this thread's predicate */
	uint32_t tid[3];
	uint32_t lane, warp;
	uint32_t frame;               /* offset of the current frame header */
	uint32_t depth;
	uint64_t *stack; uint32_t stack_top, stack_cap;   /* uint64 units */
	uint8_t *local; uint32_t local_top, local_cap;    /* bytes */
};

struct ictx {
	const struct ptx_module *m;
	struct program *p;
	uint32_t grid[3], block[3], ctaid[3];
	uint32_t nthreads, nwarps;
	uint8_t *shared;
	struct lane *lanes;          /* nthreads, rounded up to whole warps */
	uint64_t steps, warp_steps, max_steps;
	double deadline;                 /* deadline.h, DEADLINE_NONE: none */
	uint32_t last_region;
	struct interp_error *err;
	enum interp_status status;
};

/* Decodes the module for a launch of entry: code, layout of shared memory
 * and module variables (bound to buffers of mem where a symbol names them).
 * Returns INTERP_OK, or a status after filling err. */
enum interp_status interp_decode(struct ictx *c, const struct ptx_module *m,
                                 const char *entry, const struct interp_mem *mem,
                                 uint32_t shmem, const void *const *args);
void interp_program_free(struct program *p);

/* Executes simple instruction in for the lanes of mask (lanes is the
 * warp's first lane).  false after setting c->status and c->err. */
bool interp_exec(struct ictx *c, struct lane *lanes, const struct dinst *in, uint32_t mask);

/* Sets the error of c: status, message "line N: INSTR: fmt (thread ...)"
 * for lane L (NULL: no thread). Returns false. */
bool interp_fail(struct ictx *c, enum interp_status st, const struct dinst *in,
                 const struct lane *L, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* How an instruction touches memory (for the bits of interp_buf.valid). */
enum { IM_READ, IM_WRITE, IM_ATOM, IM_RED };

/* Pointer to n bytes at addr in space for lane L, accessed as how (IM_*),
 * or NULL after setting the error (out of bounds, misaligned, write to
 * constant memory, a read of bytes not computed). */
uint8_t *interp_mem_at(struct ictx *c, struct lane *L, const struct dinst *in,
                       unsigned space, uint64_t addr, unsigned n, unsigned how);

#endif
