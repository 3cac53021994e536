/*
 * core/base/samplestat.h: statistics of small samples, as CI gates need.
 *
 * Nothing here assumes a distribution. A sample is summarized by its
 * median with a confidence interval made of two order statistics (the
 * binomial argument: the median lies between x(k) and x(n+1-k) with
 * probability 1 - 2 P(Binomial(n, 1/2) < k)); two samples are compared
 * with the Mann-Whitney U test, two-sided, exact (ties included) up to
 * GTR_UTEST_EXACT_MAX values in all, by the normal approximation with
 * the tie correction above that.
 *
 * Pure functions over caller-owned arrays: thread-safe; the ones that
 * need scratch memory allocate it and return a negative value (or NAN)
 * when they cannot.
 */
#ifndef GTR_CORE_SAMPLESTAT_H
#define GTR_CORE_SAMPLESTAT_H

#include <stddef.h>

/* The exact U distribution is computed up to this many values in all. */
#define GTR_UTEST_EXACT_MAX 200

typedef struct gtr_summary {
	size_t n;
	double median;
	double lo, hi;     /* the confidence interval; valid when has_ci */
	int has_ci;        /* 0: too few values for the level asked */
	double confidence; /* the interval's actual level (>= the one asked) */
} gtr_summary;

/*
 * Summarizes x[0..n) (not modified; n may be 0) at the confidence level
 * asked (0.95). Returns 0, or -1 when out of memory.
 */
int gtr_summarize(const double *x, size_t n, double confidence, gtr_summary *s);

/* The fewest values that give a median a finite interval at `confidence` (6 for 0.95). */
size_t gtr_ci_min_samples(double confidence);

/*
 * The two-sided p-value of the Mann-Whitney U test of a[0..na) against
 * b[0..nb): the probability, when both come from one distribution, of
 * a rank sum at least as far from its mean as the one seen. 1 when a
 * side is empty or every value is equal; NAN when out of memory.
 */
double gtr_utest(const double *a, size_t na, const double *b, size_t nb);

/* The smallest p-value gtr_utest can give for samples of these sizes (no ties). */
double gtr_utest_min_p(size_t na, size_t nb);

/* The fewest values per side for which gtr_utest can give p < alpha (4 for 0.05). */
size_t gtr_utest_min_samples(double alpha);

#endif
