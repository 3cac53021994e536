/*
 * tests/test_zoom.c: the report's kept slices (core/analysis/zoom.h) are
 * sorted in place into the page's order, against qsort, on inputs that
 * defeat a quicksort's pivots and with the heapsort that takes over.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/zoom.h"

static int cmp_page(const void *a, const void *b)
{
	const gtr_zoom_slice *x = a, *y = b;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Sorts a copy of v with gtr_zoom_sort at `depth` and compares with qsort
 * by the keys (slices of equal keys may come in any order). */
static void check(const gtr_zoom_slice *v, size_t n, int depth, const char *what)
{
	gtr_zoom_slice *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
	cr_assert(a && b);
	memcpy(a, v, n * sizeof *a);
	memcpy(b, v, n * sizeof *b);
	gtr_zoom_sort(a, n, depth);
	qsort(b, n, sizeof *b, cmp_page);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(cmp_page(&a[i], &b[i]), 0, "%s, depth %d: slice %zu of %zu out of order", what,
			     depth, i, n);
	/* The same slices, none lost or doubled. */
	uint64_t sa = 0, sb = 0;
	for (size_t i = 0; i < n; i++) {
		sa += v[i].end * 31 + v[i].fn;
		sb += a[i].end * 31 + a[i].fn;
	}
	cr_assert_eq(sa, sb, "%s: the slices changed", what);
	free(a);
	free(b);
}

Test(zoom, sort_matches_qsort)
{
	enum { N = 50000 };
	gtr_zoom_slice *v = calloc(N, sizeof *v);
	cr_assert_not_null(v);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	const int depths[] = {-1, 0, 1, 3};
	for (int shape = 0; shape < 6; shape++) {
		const char *what = "";
		for (size_t i = 0; i < N; i++) {
			gtr_zoom_slice *s = &v[i];
			uint64_t r = rnd(&x);
			switch (shape) {
			case 0: what = "random"; s->p = (int64_t)(r % 9) - 1; s->start = r >> 20; break;
			case 1: what = "sorted"; s->p = 0; s->start = i; break;
			case 2: what = "reversed"; s->p = 0; s->start = N - i; break;
			case 3: what = "all equal keys"; s->p = 3; s->start = 7; break;
			case 4: what = "few keys"; s->p = (int64_t)(r % 2); s->start = r % 3; break;
			case 5: /* organ pipe: up, then down */
				what = "organ pipe"; s->p = 1; s->start = i < N / 2 ? i : N - i; break;
			}
			s->g = shape == 3 ? 5 : (int64_t)(rnd(&x) % 1000);
			s->end = s->start + rnd(&x) % 1000;
			s->fn = (uint32_t)(i % 17);
		}
		for (size_t d = 0; d < sizeof depths / sizeof *depths; d++)
			check(v, N, depths[d], what);
	}
	for (size_t n = 0; n < 40; n++)
		check(v, n, -1, "short");
	free(v);
}
