/*
 * npy.c: the header of a NumPy .npy file, format version 1.0, for a flat
 * little-endian array.  Debian ships no maintained C library that writes
 * .npy (cnpy is C++ and not packaged; libboost-numpy needs Python), and
 * the format is small:
 *
 *   "\x93NUMPY" 0x01 0x00, a little-endian uint16 HEADER_LEN, then HEADER_LEN
 *   bytes of a Python dict literal {'descr': ..., 'fortran_order': False,
 *   'shape': (N,), } padded with spaces and ended by '\n' so that the data
 *   starts at a multiple of 64 bytes; then the raw elements.
 */
#include "dreplay.h"

#include <stdio.h>
#include <string.h>

const char *npy_descr(enum etype et)
{
	switch (et) {
	case ET_U8: return "|u1";
	case ET_S8: return "|i1";
	case ET_U16: return "<u2";
	case ET_S16: return "<i2";
	case ET_U32: return "<u4";
	case ET_S32: return "<i4";
	case ET_U64: return "<u8";
	case ET_S64: return "<i8";
	case ET_F16: return "<f2";
	case ET_F32: return "<f4";
	case ET_F64: return "<f8";
	default: return NULL;        /* bf16 has no NumPy type */
	}
}

size_t npy_header(unsigned char *buf, size_t cap, const char *descr, uint64_t n)
{
	char dict[160];
	int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%llu,), }",
	                   descr, (unsigned long long)n);
	if (len < 0 || (size_t)len >= sizeof dict)
		return 0;
	size_t total = 10 + (size_t)len + 1;            /* magic, version, length, dict, '\n' */
	total = (total + 63) / 64 * 64;
	if (total > cap || total - 10 > 0xffff)
		return 0;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (unsigned char)((total - 10) & 0xff);
	buf[9] = (unsigned char)((total - 10) >> 8);
	memcpy(buf + 10, dict, (size_t)len);
	memset(buf + 10 + len, ' ', total - 10 - (size_t)len - 1);
	buf[total - 1] = '\n';
	return total;
}
