/*
 * core/base/vec.h: growing an array, overflow-safe.
 *
 * Every table in gtr that grows as it reads (goroutines, batches, pauses)
 * goes through gtr_grow, so that a count read from a hostile file can
 * never wrap a size computation.
 */
#ifndef GTR_CORE_VEC_H
#define GTR_CORE_VEC_H

#include <stdint.h>
#include <stdlib.h>

#include "core/base/error.h"

/*
 * Makes *pp (an array of *cap elements of `elem` bytes; pass the address
 * of the pointer) hold at least `need` elements, doubling. Returns 0, or
 * GTR_E_NOMEM with *pp and *cap unchanged.
 */
static inline int gtr_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return GTR_E_NOMEM;
		ncap *= 2;
	}
	void *q = realloc(*(void **)pp, ncap * elem);
	if (!q)
		return GTR_E_NOMEM;
	*(void **)pp = q;
	*cap = ncap;
	return 0;
}

#endif
