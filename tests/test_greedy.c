/* tests/test_greedy.c: the slice order, percentiles, and a real trace's invariants. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/analysis/greedy.h"
#include "io/map.h"

Test(greedy, ties_break_by_duration_then_start_then_goroutine)
{
	gtr_slice a = {.start = 10, .end = 30, .g = 5};
	gtr_slice b = {.start = 0, .end = 20, .g = 9}; /* same length, earlier */
	gtr_slice c = {.start = 0, .end = 20, .g = 3}; /* same length and start, lower g */
	gtr_slice d = {.start = 0, .end = 50, .g = 7}; /* longest */
	cr_assert_lt(gtr_slice_cmp(&b, &a), 0);
	cr_assert_lt(gtr_slice_cmp(&c, &b), 0);
	cr_assert_lt(gtr_slice_cmp(&d, &c), 0);
	cr_assert_eq(gtr_slice_cmp(&a, &a), 0);
}

Test(greedy, nearest_rank_percentiles)
{
	uint64_t v[100];
	for (int i = 0; i < 100; i++)
		v[i] = (uint64_t)i + 1;
	cr_assert_eq(gtr_percentile(v, 100, 50), 50);
	cr_assert_eq(gtr_percentile(v, 100, 99), 99);
	cr_assert_eq(gtr_percentile(v, 100, 100), 100);
	cr_assert_eq(gtr_percentile(v, 1, 99), 1);
	cr_assert_eq(gtr_percentile(v, 0, 50), 0);
	uint64_t two[2] = {3, 8};
	cr_assert_eq(gtr_percentile(two, 2, 50), 3);
	cr_assert_eq(gtr_percentile(two, 2, 99), 8);
}

static void check_trace(const char *rel)
{
	char path[4096];
	const char *root = getenv("GTR_ROOT");
	snprintf(path, sizeof path, "%s/%s", root ? root : ".", rel);
	gtr_map m;
	if (gtr_map_open(&m, path, GTR_IO_AUTO) < 0)
		cr_skip_test("%s is missing", path);
	gtr_trace *t;
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_trace_open(&t, m.data, m.size, NULL, &e), 0, "%s", e.msg);
	gtr_greedy *g;
	cr_assert_eq(gtr_greedy_run(t, 5, &g, &e), 0, "%s", e.msg);
	cr_assert_gt(g->nslices, 0);
	cr_assert_leq(g->ntop, 5);
	uint64_t sum = 0;
	for (size_t i = 0; i < g->nest; i++)
		sum += gtr_slice_dur(&g->est[i]);
	cr_assert_eq(sum, g->tmax_stw);
	for (size_t i = 0; i < g->ntop; i++) {
		const gtr_slice *s = &g->top[i];
		cr_assert_geq(s->end, s->start);
		cr_assert_geq(s->g, 0);
		if (i)
			cr_assert_lt(gtr_slice_cmp(&g->top[i - 1], s), 0, "top list out of order at %zu", i);
		/* The estimate's slices are the head of the same ranking. */
		if (i < g->nest)
			cr_assert_eq(gtr_slice_cmp(&g->est[i], s), 0);
	}
	for (size_t i = 0; i < g->nstw; i++) {
		const gtr_stw *p = &g->stw[i];
		cr_assert_geq(p->end, p->start);
		if (i)
			cr_assert_geq(p->start, g->stw[i - 1].start);
		if (p->culprit >= 0) {
			const gtr_stw_waiter *c = &g->waiters[p->first_waiter + (size_t)p->culprit];
			for (size_t k = 0; k < p->nwaiters; k++)
				cr_assert_leq(g->waiters[p->first_waiter + k].stopped, c->stopped);
		}
	}
	gtr_greedy_free(g);
	gtr_trace_free(t);
	gtr_map_close(&m);
}

Test(greedy, invariants_v2)
{
	check_trace("corpora/traces/greedy-go1.26.trace");
}

Test(greedy, invariants_v1)
{
	check_trace("corpora/traces/greedy-go1.21.trace");
}

Test(greedy, invariants_v1_go111)
{
	check_trace("corpora/traces/greedy-go1.15.trace");
}
