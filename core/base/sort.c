/*
 * core/base/sort.c: a stable sort by 64-bit keys in linear time (see sort.h).
 */
#include "core/base/sort.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/error.h"

#define DIGIT 11
#define BUCKETS (1u << DIGIT)

int gtr_sort_order(const uint64_t *key, size_t n, uint32_t *order)
{
	if (n < 2)
		return 0;
	uint64_t lo = key[order[0]], hi = lo;
	for (size_t i = 1; i < n; i++) {
		uint64_t k = key[order[i]];
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	const uint64_t span = hi - lo;
	if (span == 0)
		return 0;
	/* The keys less their least, beside the indices, in two buffers
	 * each pass reads one of and writes the other. */
	uint64_t *k0 = malloc(2 * n * sizeof *k0);
	uint32_t *i0 = malloc(2 * n * sizeof *i0);
	if (!k0 || !i0) {
		free(k0);
		free(i0);
		return GTR_E_NOMEM;
	}
	uint64_t *const kbuf = k0, *k1 = k0 + n;
	uint32_t *const ibuf = i0, *i1 = i0 + n;
	for (size_t i = 0; i < n; i++) {
		k0[i] = key[order[i]] - lo;
		i0[i] = order[i];
	}
	for (unsigned sh = 0; sh < 64 && (span >> sh) != 0; sh += DIGIT) {
		size_t at[BUCKETS] = {0};
		for (size_t i = 0; i < n; i++)
			at[k0[i] >> sh & (BUCKETS - 1)]++;
		if (at[k0[0] >> sh & (BUCKETS - 1)] == n)
			continue; /* one digit for all: the pass would move nothing */
		size_t sum = 0;
		for (size_t d = 0; d < BUCKETS; d++) {
			size_t c = at[d];
			at[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			size_t to = at[k0[i] >> sh & (BUCKETS - 1)]++;
			k1[to] = k0[i];
			i1[to] = i0[i];
		}
		uint64_t *kt = k0;
		k0 = k1;
		k1 = kt;
		uint32_t *it = i0;
		i0 = i1;
		i1 = it;
	}
	memcpy(order, i0, n * sizeof *order);
	free(kbuf);
	free(ibuf);
	return 0;
}

int gtr_sort_u64(uint64_t *v, size_t n)
{
	if (n < 2)
		return 0;
	uint64_t lo = v[0], hi = v[0];
	for (size_t i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	const uint64_t span = hi - lo;
	if (span == 0)
		return 0;
	/* The values themselves, between v and one buffer as large: no
	 * indices (sorting a million values took 36 bytes each, besides). */
	uint64_t *tmp = malloc(n * sizeof *tmp);
	if (!tmp)
		return GTR_E_NOMEM;
	uint64_t *a = v, *b = tmp;
	for (unsigned sh = 0; sh < 64 && (span >> sh) != 0; sh += DIGIT) {
		size_t at[BUCKETS] = {0};
		for (size_t i = 0; i < n; i++)
			at[(a[i] - lo) >> sh & (BUCKETS - 1)]++;
		if (at[(a[0] - lo) >> sh & (BUCKETS - 1)] == n)
			continue; /* one digit for all: the pass would move nothing */
		size_t sum = 0;
		for (size_t d = 0; d < BUCKETS; d++) {
			size_t c = at[d];
			at[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			b[at[(a[i] - lo) >> sh & (BUCKETS - 1)]++] = a[i];
		uint64_t *t = a;
		a = b;
		b = t;
	}
	if (a != v)
		memcpy(v, a, n * sizeof *v);
	free(tmp);
	return 0;
}
