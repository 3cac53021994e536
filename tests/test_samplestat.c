/* tests/test_samplestat.c: medians, their intervals, and the U test against a brute-force count. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/samplestat.h"

/*
 * The two-sided p-value of the rank-sum test by enumeration: every way of
 * choosing which na of the na+nb pooled values are "a", counting those
 * whose rank sum is at least as far from its mean as the one seen (mid
 * ranks for ties). Exponential, for small samples only: the oracle.
 */
static double brute_p(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	double x[24], rank[24];
	cr_assert_leq(n, 24);
	memcpy(x, a, na * sizeof *x);
	memcpy(x + na, b, nb * sizeof *x);
	for (size_t i = 0; i < n; i++) {
		double below = 0, same = 0;
		for (size_t j = 0; j < n; j++) {
			below += x[j] < x[i];
			same += x[j] == x[i];
		}
		rank[i] = below + (same + 1) / 2;
	}
	double seen = 0;
	for (size_t i = 0; i < na; i++)
		seen += rank[i];
	double mean = (double)na * (double)(n + 1) / 2, dev = fabs(seen - mean);
	size_t total = 0, extreme = 0;
	for (unsigned long mask = 0; mask < (1ul << n); mask++) {
		if ((size_t)__builtin_popcountl(mask) != na)
			continue;
		double sum = 0;
		for (size_t i = 0; i < n; i++)
			if (mask >> i & 1)
				sum += rank[i];
		total++;
		extreme += fabs(sum - mean) >= dev - 1e-9;
	}
	return (double)extreme / (double)total;
}

Test(utest, exact_p_equals_the_count_of_rank_assignments)
{
	srand(7);
	for (int round = 0; round < 200; round++) {
		size_t na = 1 + (size_t)(rand() % 8), nb = 1 + (size_t)(rand() % 8);
		double a[8], b[8];
		/* Few distinct values: ties are common, as in counts and coarse clocks. */
		int spread = 2 + rand() % 12;
		for (size_t i = 0; i < na; i++)
			a[i] = rand() % spread;
		for (size_t i = 0; i < nb; i++)
			b[i] = rand() % spread + (round % 3);
		double p = gtr_utest(a, na, b, nb), want = brute_p(a, na, b, nb);
		cr_assert_float_eq(p, want, 1e-9, "round %d: %zu vs %zu values: p %g, by enumeration %g", round,
				   na, nb, p, want);
		cr_assert_float_eq(gtr_utest(b, nb, a, na), p, 1e-12, "symmetric");
	}
}

Test(utest, smallest_p_and_the_runs_it_needs)
{
	double a[5] = {1, 2, 3, 4, 5}, b[5] = {6, 7, 8, 9, 10};
	cr_assert_float_eq(gtr_utest(a, 5, b, 5), 2.0 / 252, 1e-12);
	cr_assert_float_eq(gtr_utest_min_p(5, 5), 2.0 / 252, 1e-12);
	cr_assert_float_eq(gtr_utest_min_p(3, 3), 2.0 / 20, 1e-12);
	cr_assert_eq(gtr_utest_min_samples(0.05), 4, "4 a side: 2/70 < 0.05, 3 a side: 2/20 is not");
	cr_assert_eq(gtr_utest_min_samples(0.05 / 3), 5);
	double same[4] = {3, 3, 3, 3};
	cr_assert_float_eq(gtr_utest(same, 4, same, 4), 1, 1e-12, "all equal: no evidence");
	cr_assert_float_eq(gtr_utest(a, 0, b, 5), 1, 1e-12, "an empty side");
}

Test(utest, normal_approximation_beyond_the_exact_range)
{
	/* 150 a side (300 values): the normal approximation, against shifted samples. */
	double a[150], b[150];
	srand(11);
	for (int i = 0; i < 150; i++) {
		a[i] = rand() % 1000;
		b[i] = rand() % 1000;
	}
	double p = gtr_utest(a, 150, b, 150);
	cr_assert(p > 0.001 && p <= 1, "two draws of one distribution: p %g", p);
	for (int i = 0; i < 150; i++)
		b[i] += 300;
	cr_assert_lt(gtr_utest(a, 150, b, 150), 1e-6, "a shift of 30%% of the range");
}

Test(summary, median_and_interval)
{
	double x[7] = {5, 1, 4, 2, 3, 7, 6};
	gtr_summary s;
	cr_assert_eq(gtr_summarize(x, 7, 0.95, &s), 0);
	cr_assert_eq(s.n, 7);
	cr_assert_float_eq(s.median, 4, 1e-12);
	cr_assert(s.has_ci);
	/* n = 7: x(1) to x(7) covers the median with probability 1 - 2/128 >= 0.95; x(2)..x(6) does not. */
	cr_assert_float_eq(s.lo, 1, 1e-12);
	cr_assert_float_eq(s.hi, 7, 1e-12);
	cr_assert_geq(s.confidence, 0.95);
	double even[4] = {4, 1, 3, 2};
	cr_assert_eq(gtr_summarize(even, 4, 0.95, &s), 0);
	cr_assert_float_eq(s.median, 2.5, 1e-12);
	cr_assert_not(s.has_ci, "4 values cannot bound the median at 95%%");
	cr_assert_eq(gtr_ci_min_samples(0.95), 6);
	cr_assert_eq(gtr_summarize(x, 0, 0.95, &s), 0);
	cr_assert_eq(s.n, 0);
	cr_assert_not(s.has_ci);
}
