/*
 * vbits.h: validity maps of sliced replays (concrete.h): one bit per byte
 * of a buffer, bit i % 8 of map[i / 8] for byte i, set where the byte
 * holds what a whole run would hold there.  Small inline helpers over
 * byte ranges [lo, hi); whole bytes of the map are handled at once.
 */
#ifndef DIRIGO_VBITS_H
#define DIRIGO_VBITS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "libcommon/arena.h"

/* A map for bytes bytes, every bit clear (heap; free with free). */
static inline uint8_t *vb_new(uint64_t bytes)
{
	return xcalloc((size_t)(bytes / 8 + 1), 1);
}

static inline void vb_set(uint8_t *m, uint64_t lo, uint64_t hi)
{
	while (lo < hi && (lo & 7))
		m[lo >> 3] |= (uint8_t)(1u << (lo & 7)), lo++;
	if (hi - lo >= 8 && lo < hi) {
		uint64_t whole = (hi - lo) >> 3;
		memset(m + (lo >> 3), 0xff, (size_t)whole);
		lo += whole << 3;
	}
	while (lo < hi)
		m[lo >> 3] |= (uint8_t)(1u << (lo & 7)), lo++;
}

/* Whether every bit of [lo, hi) is set. */
static inline bool vb_all(const uint8_t *m, uint64_t lo, uint64_t hi)
{
	for (; lo < hi; lo++) {
		if (!(lo & 7) && hi - lo >= 8) {
			if (m[lo >> 3] != 0xff)
				return false;
			lo += 7;
			continue;
		}
		if (!(m[lo >> 3] & (1u << (lo & 7))))
			return false;
	}
	return true;
}

/* Bits [slo, slo+n) of src onto [dlo, dlo+n) of dst (dst and src may be
 * the same map only when the ranges do not overlap). */
static inline void vb_copy(uint8_t *dst, uint64_t dlo, const uint8_t *src, uint64_t slo, uint64_t n)
{
	if (!((dlo ^ slo) & 7)) {
		uint64_t i = 0;
		while (i < n && ((dlo + i) & 7)) {
			uint64_t d = dlo + i, s = slo + i;
			uint8_t bit = (uint8_t)(1u << (d & 7));
			dst[d >> 3] = (uint8_t)((dst[d >> 3] & ~bit) | (src[s >> 3] & bit));
			i++;
		}
		if (n - i >= 8) {
			uint64_t whole = (n - i) >> 3;
			memcpy(dst + ((dlo + i) >> 3), src + ((slo + i) >> 3), (size_t)whole);
			i += whole << 3;
		}
		for (; i < n; i++) {
			uint64_t d = dlo + i, s = slo + i;
			uint8_t bit = (uint8_t)(1u << (d & 7));
			dst[d >> 3] = (uint8_t)((dst[d >> 3] & ~bit) | (src[s >> 3] & bit));
		}
		return;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t d = dlo + i, s = slo + i;
		uint8_t bit = (uint8_t)(1u << (d & 7));
		bool on = (src[s >> 3] >> (s & 7)) & 1;
		dst[d >> 3] = (uint8_t)(on ? dst[d >> 3] | bit : dst[d >> 3] & ~bit);
	}
}

#endif
