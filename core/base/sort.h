/*
 * core/base/sort.h: a stable sort by 64-bit keys in linear time.
 *
 * The tables gtr sorts after a pass (pauses, their lengths) hold tens of
 * thousands of rows; a comparison sort of them costs milliseconds that a
 * radix sort does not. Being stable, it sorts by several keys when called
 * once per key, the least significant first.
 */
#ifndef GTR_CORE_SORT_H
#define GTR_CORE_SORT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Reorders order[0..n) (indices into key) so that key[order[i]] does not
 * decrease, keeping the order of equal keys: a least-significant-digit
 * radix sort, as many 11-bit digits as the keys' spread needs. n must not
 * exceed UINT32_MAX. Returns 0, or GTR_E_NOMEM with order unchanged.
 */
int gtr_sort_order(const uint64_t *key, size_t n, uint32_t *order);

/* Sorts v[0..n) ascending, with a buffer of n values. Returns 0 or
 * GTR_E_NOMEM (v unchanged). */
int gtr_sort_u64(uint64_t *v, size_t n);

/* The bits v needs: 0 for 0, else one more than its highest set bit's
 * place (what a packed key's field of values up to v takes). */
static inline unsigned gtr_bit_len(uint64_t v)
{
	return v ? 64u - (unsigned)__builtin_clzll(v) : 0;
}

#endif
