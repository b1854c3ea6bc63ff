/*
 * fatbin.c: find and decompress the PTX entries of an NVIDIA fatbinary
 * (layout in fatbin.h).  Reads are bounds-checked against the size the
 * caller knows, so a damaged fatbinary gives FATBIN_BAD, never a crash.
 */
#include "libcommon/fatbin.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#define FATBIN_HEADER_SIZE 16
#define ENTRY_MIN_HEADER   64        /* fields up to uncompressed_size */
#define PTX_MAX_BYTES      (1ull << 31)

static uint16_t rd16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static enum fatbin_status fail(enum fatbin_status st, char *err, size_t errlen,
                               const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static enum fatbin_status fail(enum fatbin_status st, char *err, size_t errlen,
                               const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return st;
}

const void *fatbin_unwrap(const void *arg)
{
	const unsigned char *p = arg;
	if (!p)
		return NULL;
	if (rd32(p) == FATBIN_MAGIC)
		return p;
	if (rd32(p) != FATBIN_WRAPPER_MAGIC)
		return NULL;
	const void *data;
	memcpy(&data, p + 8, sizeof data);
	if (!data || rd32(data) != FATBIN_MAGIC)
		return NULL;
	return data;
}

size_t fatbin_size(const void *data)
{
	const unsigned char *p = data;
	if (!p || rd32(p) != FATBIN_MAGIC)
		return 0;
	return (size_t)rd16(p + 6) + (size_t)rd64(p + 8);
}

struct entry {
	uint16_t kind;
	uint32_t header_size, compressed_size, arch;
	uint64_t payload_size, flags, uncompressed_size;
	const unsigned char *payload;
};

/* Decodes the entry header at p (room bytes left); false if it does not fit. */
static bool entry_read(const unsigned char *p, size_t room, struct entry *e)
{
	if (room < ENTRY_MIN_HEADER)
		return false;
	e->kind = rd16(p);
	e->header_size = rd32(p + 4);
	e->payload_size = rd64(p + 8);
	e->compressed_size = rd32(p + 16);
	e->arch = rd32(p + 28);
	e->flags = rd64(p + 40);
	e->uncompressed_size = rd64(p + 56);
	if (e->header_size < ENTRY_MIN_HEADER || e->header_size > room ||
	    e->payload_size > room - e->header_size)
		return false;
	e->payload = p + e->header_size;
	return true;
}

/* The PTX text of entry e in arena a, NUL-terminated. */
static enum fatbin_status entry_text(const struct entry *e, struct arena *a,
                                     struct fatbin_ptx *out, char *err, size_t errlen)
{
	if (e->flags & FATBIN_FLAG_ZSTD) {
		size_t csize = e->compressed_size ? e->compressed_size : e->payload_size;
		if (csize > e->payload_size)
			return fail(FATBIN_BAD, err, errlen, "ptx entry (sm_%u): compressed size %zu beyond its payload",
			            e->arch, csize);
		unsigned long long n = ZSTD_getFrameContentSize(e->payload, csize);
		if (n == ZSTD_CONTENTSIZE_ERROR)
			return fail(FATBIN_BAD, err, errlen, "ptx entry (sm_%u): not a zstd frame", e->arch);
		if (n == ZSTD_CONTENTSIZE_UNKNOWN)
			n = e->uncompressed_size;
		if (n == 0 || n > PTX_MAX_BYTES)
			return fail(FATBIN_BAD, err, errlen, "ptx entry (sm_%u): implausible size %llu", e->arch, n);
		char *text = arena_alloc(a, n + 1);
		size_t got = ZSTD_decompress(text, n, e->payload, csize);
		if (ZSTD_isError(got))
			return fail(FATBIN_BAD, err, errlen, "ptx entry (sm_%u): zstd: %s", e->arch,
			            ZSTD_getErrorName(got));
		text[got] = '\0';
		out->text = text;
	} else if (e->flags & FATBIN_FLAG_LZ4) {
		return fail(FATBIN_UNSUPPORTED, err, errlen,
		            "ptx entry (sm_%u): unsupported compression (lz4, flags 0x%llx); "
		            "rebuild with nvcc --compress-mode=none or a newer nvcc",
		            e->arch, (unsigned long long)e->flags);
	} else {
		out->text = arena_strndup(a, (const char *)e->payload, e->payload_size);
	}
	out->len = strlen(out->text);
	out->arch = e->arch;
	return FATBIN_OK;
}

enum fatbin_status fatbin_find_ptx(const void *data, size_t avail, struct arena *a,
                                   struct fatbin_ptx *out, char *err, size_t errlen)
{
	const unsigned char *p = data;
	memset(out, 0, sizeof *out);
	if (!p || avail < FATBIN_HEADER_SIZE || rd32(p) != FATBIN_MAGIC)
		return fail(FATBIN_BAD, err, errlen, "not a fatbinary (bad magic)");
	size_t hsize = rd16(p + 6);
	uint64_t body = rd64(p + 8);
	if (hsize < FATBIN_HEADER_SIZE || hsize > avail || body > avail - hsize)
		return fail(FATBIN_BAD, err, errlen, "fatbinary header: size %llu beyond the data",
		            (unsigned long long)body);
	const unsigned char *q = p + hsize, *end = q + body;
	const struct entry *best = NULL;
	struct entry e, beste;
	while (q < end) {
		if (!entry_read(q, (size_t)(end - q), &e))
			return fail(FATBIN_BAD, err, errlen, "fatbinary entry at offset %zu: damaged header",
			            (size_t)(q - p));
		if (e.kind == FATBIN_KIND_ELF && e.arch > out->elf_arch)
			out->elf_arch = e.arch;
		if (e.kind == FATBIN_KIND_PTX) {
			out->nptx++;
			if (!best || e.arch > beste.arch) {
				beste = e;
				best = &beste;
			}
		}
		q = e.payload + e.payload_size;
	}
	if (!best)
		return fail(FATBIN_NO_PTX, err, errlen, "fatbinary has no ptx entry");
	struct fatbin_ptx seen = *out;
	enum fatbin_status st = entry_text(best, a, out, err, errlen);
	out->nptx = seen.nptx;
	out->elf_arch = seen.elf_arch;
	return st;
}
