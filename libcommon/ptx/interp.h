/*
 * interp.h: a concrete PTX interpreter that runs every thread of a kernel
 * launch on the CPU with the GPU's IEEE float32 semantics (dreplay uses it
 * to confirm witnesses independently of the symbolic model).
 *
 * Threads of a block run in warps of 32: the lanes of a warp that stand at
 * the same instruction execute it together (the lanes at the smallest
 * instruction index go first, so divergent paths reconverge where they
 * meet); shfl/vote/bar.warp.sync wait for every lane of their member mask;
 * bar.sync waits for every live thread of the block.  Blocks run one after
 * another.  Approximate instructions (ex2.approx, sin.approx, rcp.approx,
 * div.approx, tanh.approx ...) use the C library's correctly rounded or
 * near-correct functions, so they may differ from a GPU in the last bits.
 *
 * Address space: device buffers are given by the caller at distinct base
 * addresses (INTERP_BUF_BASE(i) is a good choice); shared memory, local
 * memory and module variables without a buffer live in windows of their
 * own above every buffer.  A memory access outside every buffer, variable
 * or window is an error naming the PTX line, the thread, the block and the
 * address; so is a misaligned access.  Nothing the kernel does can crash
 * the caller.
 *
 * There is no global state: launches may run in parallel on different
 * memories.
 */
#ifndef DIRIGO_PTX_INTERP_H
#define DIRIGO_PTX_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcommon/ptx/ptx.h"

/* The base address of the i-th device buffer of a launch (i < 100). */
#define INTERP_BUF_BASE(i) (UINT64_C(0x10000000000) * (uint64_t)((i) + 1))

/* One device buffer: bytes at data, seen by the kernel at [base, base+bytes).
 * With symbol set, the buffer backs the module's .global or .const variable
 * of that name (its base is then the variable's address).  Buffers must not
 * overlap and must lie below 0x700000000000. */
struct interp_buf {
	uint64_t base;
	uint64_t bytes;
	void *data;
	const char *symbol;     /* NULL, or a module variable name */
	/* NULL, or one bit per byte (bit i % 8 of valid[i / 8] for byte i):
	 * whether the byte holds what it must (a sliced replay computes part
	 * of a buffer).  Reading a byte whose bit is clear fails with
	 * INTERP_UNCOMPUTED; a store sets the bits of the bytes it writes; an
	 * atom reads (its bits must be set), a red (no result) leaves them as
	 * they are. */
	uint8_t *valid;
};

struct interp_mem {
	struct interp_buf *bufs;
	unsigned nbufs;
};

enum interp_status {
	INTERP_OK = 0,
	INTERP_FAULT,           /* the kernel did something wrong: a bad access,
	                           a collective some lanes never reach, trap */
	INTERP_UNSUPPORTED,     /* an instruction or construct not implemented */
	INTERP_LIMIT,           /* the step limit was reached */
	INTERP_BADARG,          /* the launch itself is wrong (entry, geometry, args) */
	INTERP_UNCOMPUTED,      /* a read of bytes the caller marked as not computed
	                           (interp_buf.valid) */
	INTERP_TIMEOUT,         /* the deadline passed (interp_opts.deadline) */
};

/* What went wrong.  msg is one line, e.g. "line 57: st.global.f32 [%rd7],
 * %f19: address 0x10000000400 outside every buffer (thread (3,0,0) block
 * (1,0,0))"; line is 0 and has_thread false where they do not apply. */
struct interp_error {
	char msg[512];
	unsigned line;
	bool has_thread;
	uint32_t tid[3], ctaid[3];
	uint64_t addr;
};

struct interp_opts {
	uint64_t max_steps;     /* thread-instructions per launch; 0: 2e9 */
	/* NULL: every block of the grid, x fastest; else only these nblocks
	 * blocks (ctaid x, y, z), one after another in the order given */
	const uint32_t (*blocks)[3];
	size_t nblocks;
	double deadline;        /* deadline.h; 0 or DEADLINE_NONE: none */
};

struct interp_stats {
	uint64_t steps;         /* thread-instructions executed */
	uint64_t warp_steps;    /* warp-instructions executed */
};

/*
 * Executes the launch of entry of m over grid x block threads with shmem
 * bytes of dynamic shared memory.  args[i] points at the raw bytes of
 * parameter i (its size is the parameter's size; a pointer parameter holds
 * a device address: a buffer's base plus an offset).  Buffers of mem are
 * read and written in place.  opts and stats may be NULL.
 *
 * Module .global/.const variables that no buffer backs are created for this
 * launch from their initialisers (their writes are lost afterwards).
 * Uninitialised shared and local memory holds 0xFF bytes (a NaN pattern).
 *
 * Returns INTERP_OK, or another status after filling *err (err may be NULL).
 * Memory written before a failure stays written.
 */
enum interp_status interp_launch(const struct ptx_module *m, const char *entry,
                                 const uint32_t grid[3], const uint32_t block[3],
                                 uint32_t shmem, const void *const *args,
                                 const struct interp_mem *mem,
                                 const struct interp_opts *opts,
                                 struct interp_stats *stats,
                                 struct interp_error *err);

#endif
