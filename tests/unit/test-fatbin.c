/*
 * test-fatbin.c: fatbinary parsing (libcommon/fatbin.c) on fatbinaries
 * built here with the layout nvcc 13 writes: plain and zstd PTX, several
 * archs, SASS only, LZ4, and damaged ones.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "libcommon/fatbin.h"
#include "tap.h"

#define ENTRY_HEADER 72

struct fb { unsigned char buf[8192]; size_t len; };

static void put16(unsigned char *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

static void fb_start(struct fb *f)
{
	memset(f, 0, sizeof *f);
	put32(f->buf, FATBIN_MAGIC);
	put16(f->buf + 4, 1);
	put16(f->buf + 6, 16);
	f->len = 16;
}

/* Appends an entry; zstd compresses the payload first. */
static void fb_add(struct fb *f, uint16_t kind, uint32_t arch, uint64_t flags,
                   const void *payload, size_t n)
{
	unsigned char tmp[4096];
	size_t csize = n;
	const void *data = payload;
	if (flags & FATBIN_FLAG_ZSTD) {
		csize = ZSTD_compress(tmp, sizeof tmp, payload, n, 3);
		data = tmp;
	}
	size_t padded = (csize + 7) & ~(size_t)7;
	unsigned char *e = f->buf + f->len;
	put16(e, kind);
	put16(e + 2, 0x101);
	put32(e + 4, ENTRY_HEADER);
	put64(e + 8, padded);
	put32(e + 16, (flags & FATBIN_FLAG_ZSTD) ? (uint32_t)csize : 0);
	put32(e + 28, arch);
	put64(e + 40, flags | 0x11);
	put64(e + 56, (flags & FATBIN_FLAG_ZSTD) ? n : 0);
	memcpy(e + ENTRY_HEADER, data, csize);
	f->len += ENTRY_HEADER + padded;
	put64(f->buf + 8, f->len - 16);
}

static const char ptx75[] = ".version 9.0\n.target sm_75\n.address_size 64\n// seventy-five\n";
static const char ptx90[] = ".version 9.0\n.target sm_90\n.address_size 64\n// ninety\n";
static const char elf[] = "\177ELF fake cubin";

int main(void)
{
	struct fb f;
	struct fatbin_ptx p;
	struct arena a = ARENA_INIT;
	char err[256];

	fb_start(&f);
	fb_add(&f, FATBIN_KIND_ELF, 75, 0, elf, sizeof elf);
	fb_add(&f, FATBIN_KIND_PTX, 75, 0, ptx75, strlen(ptx75));
	is_int(fatbin_size(f.buf), f.len, "fatbin_size reads the header");
	is_int(fatbin_find_ptx(f.buf, f.len, &a, &p, err, sizeof err), FATBIN_OK, "plain ptx: found");
	is_str(p.text, ptx75, "plain ptx: text");
	is_int(p.len, strlen(ptx75), "plain ptx: length");
	is_int(p.arch, 75, "plain ptx: arch");
	is_int(p.elf_arch, 75, "plain ptx: elf arch seen");

	fb_start(&f);
	fb_add(&f, FATBIN_KIND_PTX, 75, FATBIN_FLAG_ZSTD, ptx75, strlen(ptx75));
	fb_add(&f, FATBIN_KIND_PTX, 90, FATBIN_FLAG_ZSTD, ptx90, strlen(ptx90));
	fb_add(&f, FATBIN_KIND_ELF, 90, 0, elf, sizeof elf);
	is_int(fatbin_find_ptx(f.buf, SIZE_MAX, &a, &p, err, sizeof err), FATBIN_OK, "zstd ptx: found");
	is_str(p.text, ptx90, "zstd ptx: the highest arch is taken");
	is_int(p.nptx, 2, "zstd ptx: both entries counted");

	unsigned char wrapper[24] = { 0 };
	const void *data = f.buf;
	put32(wrapper, FATBIN_WRAPPER_MAGIC);
	put32(wrapper + 4, 1);
	memcpy(wrapper + 8, &data, sizeof data);
	ok(fatbin_unwrap(wrapper) == f.buf, "unwrap: the wrapper's data");
	ok(fatbin_unwrap(f.buf) == f.buf, "unwrap: a bare fatbinary");
	ok(fatbin_unwrap(elf) == NULL, "unwrap: neither");

	fb_start(&f);
	fb_add(&f, FATBIN_KIND_ELF, 90, 0, elf, sizeof elf);
	is_int(fatbin_find_ptx(f.buf, f.len, &a, &p, err, sizeof err), FATBIN_NO_PTX, "sass only: no ptx");
	is_int(p.elf_arch, 90, "sass only: its arch is known");

	fb_start(&f);
	fb_add(&f, FATBIN_KIND_PTX, 80, FATBIN_FLAG_LZ4, ptx75, strlen(ptx75));
	is_int(fatbin_find_ptx(f.buf, f.len, &a, &p, err, sizeof err), FATBIN_UNSUPPORTED, "lz4: unsupported");
	ok(strstr(err, "unsupported compression") != NULL, "lz4: says so (%s)", err);

	fb_start(&f);
	fb_add(&f, FATBIN_KIND_PTX, 75, 0, ptx75, strlen(ptx75));
	is_int(fatbin_find_ptx(f.buf, f.len - 8, &a, &p, err, sizeof err), FATBIN_BAD, "truncated: bad");
	put32(f.buf + 16 + 4, 100000);
	is_int(fatbin_find_ptx(f.buf, f.len, &a, &p, err, sizeof err), FATBIN_BAD, "entry header too big: bad");
	is_int(fatbin_find_ptx(elf, sizeof elf, &a, &p, err, sizeof err), FATBIN_BAD, "bad magic: bad");

	fb_start(&f);
	fb_add(&f, FATBIN_KIND_PTX, 75, FATBIN_FLAG_ZSTD, ptx75, strlen(ptx75));
	f.buf[16 + ENTRY_HEADER] ^= 0xff;
	is_int(fatbin_find_ptx(f.buf, f.len, &a, &p, err, sizeof err), FATBIN_BAD, "damaged zstd frame: bad");

	arena_release(&a);
	return done_testing();
}
