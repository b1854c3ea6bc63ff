/*
 * lin.h: an address as an exact affine function of the thread coordinates
 * (engine/resolve-lin.c).  The back-projection inverts store addresses
 * with it; dexec uses it to show that two threads' accesses never meet.
 */
#ifndef DIRIGO_LIN_H
#define DIRIGO_LIN_H

#include <stdbool.h>
#include <stdint.h>

#include "libcommon/expr.h"

/* c0 + sum c[i] * x[i] over (tid.x, tid.y, tid.z, ctaid.x, ctaid.y,
 * ctaid.z), with no wrap-around anywhere inside the launch geometry. */
struct lin { int64_t c0; int64_t c[6]; };

/* n[6]: the geometry (ntid then nctaid).  False if addr (bv64) is not
 * affine in the coordinates or could wrap within the geometry. */
bool lin_of_addr(const struct expr *addr, const uint64_t n[6], struct lin *out);

#endif
