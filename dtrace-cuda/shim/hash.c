/*
 * hash.c: the trace's content hash (FNV-1a 64, formats/trace.c) for the
 * torch recorder, which hashes the bytes of the tensors a program starts
 * from (tinput "hash"); in C it takes a millisecond where Python takes
 * seconds for a large parameter.
 *
 *   dirigo_trace_hash(p, n, hex)   writes the hash of n bytes at p as 16
 *                                  hex digits and a NUL into hex
 */
#include "shim.h"

SHIM_EXPORT void dirigo_trace_hash(const void *p, size_t n, char hex[17]);

void dirigo_trace_hash(const void *p, size_t n, char hex[17])
{
	trace_hash_hex(p, n, hex);
}
