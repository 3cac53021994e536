/* core/base/samplestat.c: medians with confidence intervals, the Mann-Whitney U test. */
#include "core/base/samplestat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* log C(n, k), as a sum (lgamma may write a global: not for threads). */
static double log_choose(size_t n, size_t k)
{
	if (k > n - k)
		k = n - k;
	double l = 0;
	for (size_t i = 1; i <= k; i++)
		l += log((double)(n - k + i) / (double)i);
	return l;
}

/* P(Binomial(n, 1/2) <= k), each term in logs so that big n stays finite. */
static double binom_cdf_half(size_t n, size_t k)
{
	double sum = 0;
	for (size_t i = 0; i <= k && i <= n; i++)
		sum += exp(log_choose(n, i) - (double)n * log(2.0));
	return sum > 1 ? 1 : sum;
}

/* The largest k (1-based) with 1 - 2 P(X < k) >= confidence; 0 when none. */
static size_t ci_order(size_t n, double confidence, double *level)
{
	size_t best = 0;
	for (size_t k = 1; 2 * k <= n + 1; k++) {
		double lvl = 1 - 2 * binom_cdf_half(n, k - 1);
		if (lvl + 1e-12 < confidence)
			break;
		best = k;
		*level = lvl;
	}
	return best;
}

size_t gtr_ci_min_samples(double confidence)
{
	for (size_t n = 2; n < 1000; n++) {
		double lvl;
		if (ci_order(n, confidence, &lvl))
			return n;
	}
	return 1000;
}

int gtr_summarize(const double *x, size_t n, double confidence, gtr_summary *s)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	if (n == 0)
		return 0;
	double *v = malloc(n * sizeof *v);
	if (!v)
		return -1;
	memcpy(v, x, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_dbl);
	s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	double lvl = 0;
	size_t k = ci_order(n, confidence, &lvl);
	if (k) {
		s->has_ci = 1;
		s->lo = v[k - 1];
		s->hi = v[n - k];
		s->confidence = lvl;
	}
	free(v);
	return 0;
}

typedef struct ranked {
	double v;
	int side; /* 0: a, 1: b */
} ranked;

static int cmp_ranked(const void *pa, const void *pb)
{
	const ranked *x = pa, *y = pb;
	return x->v < y->v ? -1 : x->v > y->v;
}

double gtr_utest(const double *a, size_t na, const double *b, size_t nb)
{
	if (na == 0 || nb == 0)
		return 1;
	size_t n = na + nb;
	ranked *r = malloc(n * sizeof *r);
	long *rank2 = malloc(n * sizeof *rank2); /* twice the mid-rank: an integer */
	if (!r || !rank2) {
		free(r);
		free(rank2);
		return NAN;
	}
	for (size_t i = 0; i < na; i++)
		r[i] = (ranked){a[i], 0};
	for (size_t i = 0; i < nb; i++)
		r[na + i] = (ranked){b[i], 1};
	qsort(r, n, sizeof *r, cmp_ranked);
	long obs = 0;      /* twice a's rank sum */
	double ties = 0;   /* sum of t^3 - t over groups of ties */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && r[j].v == r[i].v)
			j++;
		long mid2 = (long)(i + 1 + j); /* ranks i+1..j: twice their mean */
		for (size_t k = i; k < j; k++) {
			rank2[k] = mid2;
			if (r[k].side == 0)
				obs += mid2;
		}
		double t = (double)(j - i);
		ties += t * t * t - t;
		i = j;
	}
	long mean2 = (long)(na * (n + 1)); /* twice the mean rank sum of a */
	long dev = labs(obs - mean2);
	double p;
	if (ties == (double)n * n * n - (double)n) {
		p = 1; /* every value equal */
	} else if (n <= GTR_UTEST_EXACT_MAX) {
		/* Counts of the ways to pick k of the first i values with a given
		 * (twice) rank sum: the permutation distribution with these ties. */
		long maxs = 0;
		for (size_t i = 0; i < n; i++)
			maxs += rank2[i];
		size_t w = (size_t)maxs + 1;
		double *cnt = calloc((na + 1) * w, sizeof *cnt);
		if (!cnt) {
			free(r);
			free(rank2);
			return NAN;
		}
		cnt[0] = 1;
		long reach = 0;
		for (size_t i = 0; i < n; i++) {
			size_t top = i + 1 < na ? i + 1 : na;
			reach += rank2[i];
			for (size_t k = top; k >= 1; k--) {
				double *dst = cnt + k * w, *src = cnt + (k - 1) * w;
				for (long s = reach; s >= rank2[i]; s--)
					dst[s] += src[s - rank2[i]];
			}
		}
		double total = 0, tail = 0;
		const double *row = cnt + na * w;
		for (size_t s = 0; s < w; s++) {
			total += row[s];
			if (labs((long)s - mean2) >= dev)
				tail += row[s];
		}
		free(cnt);
		p = total > 0 ? tail / total : 1;
	} else {
		double dn = (double)n, da = (double)na, db = (double)nb;
		double var = da * db / 12.0 * ((dn + 1) - ties / (dn * (dn - 1)));
		double z = ((double)dev / 2.0 - 0.5) / sqrt(var);
		p = z <= 0 ? 1 : erfc(z / sqrt(2.0));
	}
	free(r);
	free(rank2);
	return p > 1 ? 1 : p;
}

double gtr_utest_min_p(size_t na, size_t nb)
{
	if (na == 0 || nb == 0)
		return 1;
	/* 2 / C(na + nb, na): only the two most extreme orders are as far out. */
	double p = 2 * exp(-log_choose(na + nb, na));
	return p > 1 ? 1 : p;
}

size_t gtr_utest_min_samples(double alpha)
{
	for (size_t n = 1; n < 1000; n++)
		if (gtr_utest_min_p(n, n) < alpha)
			return n;
	return 1000;
}
