/* tests/test_sort.c */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/sort.h"

/* A stable reference: insertion sort of the indices by key. */
static void reference(const uint64_t *key, size_t n, uint32_t *order)
{
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (size_t i = 1; i < n; i++) {
		uint32_t x = order[i];
		size_t j = i;
		for (; j > 0 && key[order[j - 1]] > key[x]; j--)
			order[j] = order[j - 1];
		order[j] = x;
	}
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

Test(sort, order_is_stable_and_sorted)
{
	enum { N = 3000 };
	static uint64_t key[N];
	static uint32_t got[N], want[N];
	uint64_t s = 88172645463325252u;
	/* Few distinct keys (ties), keys across all 64 bits, keys that
	 * differ only in their top digit, and keys with a hole in the middle
	 * (digits that are one for all, whose passes are skipped). */
	const uint64_t masks[] = {7, ~UINT64_C(0), UINT64_C(0xfff0000000000000),
				  UINT64_C(0xffe00000000007ff), UINT64_C(0x3ff800007ff), 0};
	for (size_t m = 0; m < sizeof masks / sizeof *masks; m++) {
		for (size_t n = 0; n <= N; n = n ? n * 3 : 1) {
			for (size_t i = 0; i < n; i++) {
				key[i] = rnd(&s) & masks[m];
				got[i] = (uint32_t)i;
			}
			reference(key, n, want);
			cr_assert_eq(gtr_sort_order(key, n, got), 0);
			for (size_t i = 0; i < n; i++)
				cr_assert_eq(got[i], want[i], "mask %zu n %zu: order[%zu] = %u, want %u", m, n, i,
					     got[i], want[i]);
		}
	}
}

Test(sort, order_refines_a_given_order)
{
	/* Sorting by a second key keeps the first key's order among ties. */
	const uint64_t major[] = {2, 1, 2, 1, 0, 2}, minor[] = {5, 9, 1, 9, 3, 1};
	uint32_t order[6] = {0, 1, 2, 3, 4, 5};
	cr_assert_eq(gtr_sort_order(minor, 6, order), 0);
	cr_assert_eq(gtr_sort_order(major, 6, order), 0);
	const uint32_t want[6] = {4, 1, 3, 2, 5, 0};
	for (int i = 0; i < 6; i++)
		cr_assert_eq(order[i], want[i], "order[%d] = %u, want %u", i, order[i], want[i]);
}

Test(sort, u64_in_place)
{
	uint64_t v[] = {UINT64_MAX, 3, 0, 1u << 31, 3, UINT64_MAX - 1, 42};
	const uint64_t want[] = {0, 3, 3, 42, 1u << 31, UINT64_MAX - 1, UINT64_MAX};
	cr_assert_eq(gtr_sort_u64(v, 7), 0);
	for (int i = 0; i < 7; i++)
		cr_assert_eq(v[i], want[i]);
}

static int cmp_u64_test(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Against qsort, with spreads that take an odd and an even number of
 * digit passes (the values end in the buffer, or back in place), and
 * values with a hole in their middle digits (those passes skipped: an
 * odd or even number of passes left). */
Test(sort, u64_agrees_with_qsort)
{
	const uint64_t spans[] = {1000, UINT64_C(1) << 22, UINT64_C(1) << 33, UINT64_MAX, 1, 2};
	uint64_t x = 88172645463325252ull;
	for (size_t s = 0; s < sizeof spans / sizeof *spans; s++) {
		enum { N = 100003 };
		uint64_t *v = malloc(N * sizeof *v), *w = malloc(N * sizeof *w);
		cr_assert(v && w);
		for (size_t i = 0; i < N; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			uint64_t hole = spans[s] == 1 ? (x & 0x7ff) | (x >> 20 & 0xfff) << 44
					: (x & 0x7ff) | (x >> 20 & 0x7ff) << 33;
			v[i] = w[i] = spans[s] <= 2 ? hole
				      : UINT64_C(12345) + (spans[s] == UINT64_MAX ? x : x % spans[s]);
		}
		cr_assert_eq(gtr_sort_u64(v, N), 0);
		qsort(w, N, sizeof *w, cmp_u64_test);
		cr_assert_eq(memcmp(v, w, N * sizeof *v), 0, "span %llu", (unsigned long long)spans[s]);
		free(v);
		free(w);
	}
}
