/*
 * fatbin.h: find the PTX in an NVIDIA fatbinary (the device code that nvcc
 * embeds in a host program and hands to __cudaRegisterFatBinary).
 *
 * Layout, as nvcc 12/13 writes it (little-endian; verified by hexdump of
 * nvcc 13.0 output):
 *   wrapper  {u32 magic 0x466243b1; u32 version; ptr data; ptr filename}
 *   fatbin   {u32 magic 0xBA55ED50; u16 version; u16 header_size;
 *             u64 size of the entries that follow the header}
 *   entry    {u16 kind (1 PTX, 2 ELF); u16 version; u32 header_size;
 *             u64 payload_size (padded); u32 compressed_size; u32 -;
 *             u16 minor; u16 major; u32 arch (75 for sm_75); u32 name_off;
 *             u32 name_len; u64 flags; u64 -; u64 uncompressed_size}
 *             followed by the payload at entry + header_size.
 * Flags: 0x2000 marks the older (LZ4) compression, 0x8000 a zstd frame.
 */
#ifndef DIRIGO_FATBIN_H
#define DIRIGO_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#include "libcommon/arena.h"

#define FATBIN_WRAPPER_MAGIC 0x466243b1u
#define FATBIN_MAGIC         0xBA55ED50u
#define FATBIN_KIND_PTX      1
#define FATBIN_KIND_ELF      2
#define FATBIN_FLAG_LZ4      0x2000u
#define FATBIN_FLAG_ZSTD     0x8000u

enum fatbin_status {
	FATBIN_OK = 0,
	FATBIN_NO_PTX,        /* well formed, but only ELF (SASS) entries */
	FATBIN_BAD,           /* not a fatbinary, or damaged */
	FATBIN_UNSUPPORTED,   /* PTX present, in a compression we cannot undo */
};

struct fatbin_ptx {
	const char *text;     /* NUL-terminated PTX, in the caller's arena */
	size_t len;           /* strlen(text) */
	unsigned arch;        /* e.g. 90 for compute_90 */
	unsigned nptx;        /* PTX entries seen (the highest arch is taken) */
	unsigned elf_arch;    /* highest arch of the ELF (SASS) entries, 0 if none;
	                         set for FATBIN_NO_PTX too */
};

/* The fatbinary a __cudaRegisterFatBinary argument points at: the data
 * field of the wrapper, or the argument itself when it already starts with
 * the fatbinary magic.  NULL if it is neither. */
const void *fatbin_unwrap(const void *arg);

/* Size in bytes of the fatbinary at data (header included), from its
 * header; 0 if data does not start with the fatbinary magic. */
size_t fatbin_size(const void *data);

/* Finds the PTX entry with the highest arch in the fatbinary at data, of
 * at most avail bytes (SIZE_MAX when unknown: the header's size is then
 * trusted), and decompresses it into arena a.  On FATBIN_OK fills *out;
 * otherwise writes a message (lowercase, no final period) into err. */
enum fatbin_status fatbin_find_ptx(const void *data, size_t avail, struct arena *a,
                                   struct fatbin_ptx *out, char *err, size_t errlen);

#endif
