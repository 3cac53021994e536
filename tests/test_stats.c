/* tests/test_stats.c: histograms, block reasons, runtime paths, and a real trace's invariants. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/diff.h"
#include "core/analysis/greedy.h"
#include "core/analysis/stats.h"
#include "io/map.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A small deterministic generator, so that failures reproduce. */
static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

Test(hist, bins_are_ordered_and_cover_every_value)
{
	cr_assert_eq(gtr_hist_index(0), 0);
	cr_assert_eq(gtr_hist_index(63), 63);
	cr_assert_eq(gtr_hist_index(64), 64);
	cr_assert_eq(gtr_hist_index(UINT64_MAX), GTR_HIST_BINS - 1);
	uint32_t prev = 0;
	for (uint64_t v = 1; v < 100000; v += v / 50 + 1) {
		uint32_t i = gtr_hist_index(v);
		cr_assert_geq(i, prev);
		cr_assert_leq(gtr_hist_lower(i), v, "v %llu in bin %u from %llu", (unsigned long long)v, i,
			      (unsigned long long)gtr_hist_lower(i));
		cr_assert_gt(gtr_hist_lower(i + 1), v);
		prev = i;
	}
	for (uint32_t i = 0; i + 1 < GTR_HIST_BINS; i++) {
		cr_assert_eq(gtr_hist_index(gtr_hist_lower(i)), i);
		cr_assert_lt(gtr_hist_lower(i), gtr_hist_lower(i + 1));
	}
}

Test(hist, empty_and_single)
{
	gtr_hist h = {0};
	cr_assert_eq(gtr_hist_percentile(&h, 50), 0);
	cr_assert_eq(gtr_hist_add(&h, 123456789), 0);
	cr_assert_eq(gtr_hist_percentile(&h, 50), 123456789);
	cr_assert_eq(gtr_hist_percentile(&h, 99), 123456789);
	cr_assert_eq(h.min, 123456789);
	cr_assert_eq(h.max, 123456789);
	gtr_hist_free(&h);
}

/* p50 and p99 within 1/128 of the exact nearest-rank values: the stated precision. */
static void check_precision(uint64_t *v, size_t n)
{
	gtr_hist h = {0};
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(gtr_hist_add(&h, v[i]), 0);
	qsort(v, n, sizeof *v, cmp_u64);
	cr_assert_eq(h.count, n);
	cr_assert_eq(h.min, v[0]);
	cr_assert_eq(h.max, v[n - 1]);
	cr_assert_leq(h.nbins, GTR_HIST_BINS);
	double qs[] = {1, 10, 50, 90, 99, 99.9, 100};
	for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
		uint64_t exact = gtr_percentile(v, n, qs[k]);
		uint64_t got = gtr_hist_percentile(&h, qs[k]);
		uint64_t d = got > exact ? got - exact : exact - got;
		cr_assert_leq(d, exact / 128, "p%g: exact %llu, histogram %llu", qs[k],
			      (unsigned long long)exact, (unsigned long long)got);
	}
	gtr_hist_free(&h);
}

Test(hist, percentiles_within_stated_precision)
{
	enum { N = 20000 };
	uint64_t *v = malloc(N * sizeof *v), s = 0x9e3779b97f4a7c15ull;
	/* Uniform over a wide range, log-uniform, a few values, and tiny ones. */
	for (size_t i = 0; i < N; i++)
		v[i] = rng(&s) % 100000000;
	check_precision(v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = (uint64_t)1 << (rng(&s) % 40) | (rng(&s) & 1023);
	check_precision(v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = 1000 + (rng(&s) % 3) * 7777;
	check_precision(v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = rng(&s) % 200;
	check_precision(v, N);
	for (size_t i = 0; i < 7; i++)
		v[i] = rng(&s) % 5000000;
	check_precision(v, 7);
	free(v);
}

/* The same values in the same bins. */
static void assert_hist_eq(const gtr_hist *a, const gtr_hist *b)
{
	cr_assert_eq(a->count, b->count);
	cr_assert_eq(a->min, b->min);
	cr_assert_eq(a->max, b->max);
	cr_assert_eq(a->nbins, b->nbins);
	for (uint32_t i = 0; i < a->nbins; i++) {
		cr_assert_eq(a->bins[i].idx, b->bins[i].idx);
		cr_assert_eq(a->bins[i].count, b->bins[i].count);
	}
}

Test(hist, merge_equals_adding_everything)
{
	gtr_hist a = {0}, b = {0}, all = {0};
	uint64_t s = 42;
	for (int i = 0; i < 5000; i++) {
		uint64_t x = rng(&s) % 10000000;
		cr_assert_eq(gtr_hist_add(i % 3 ? &a : &b, x), 0);
		cr_assert_eq(gtr_hist_add(&all, x), 0);
	}
	cr_assert_eq(gtr_hist_merge(&a, &b), 0);
	assert_hist_eq(&a, &all);
	gtr_hist empty = {0};
	cr_assert_eq(gtr_hist_merge(&a, &empty), 0);
	cr_assert_eq(a.count, all.count);
	gtr_hist_free(&a);
	gtr_hist_free(&b);
	gtr_hist_free(&all);
}

/* A dense histogram taken into a sparse one equals adding its values
 * there; it is empty after, and can be filled again. */
Test(hist, dense_taken_equals_adding_everything)
{
	gtr_hist a = {0}, all = {0};
	gtr_hist_dense *d = calloc(1, sizeof *d);
	cr_assert_not_null(d);
	uint64_t s = 7;
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 4000; i++) {
			/* spread over many powers of two, 0 and the largest bins included */
			uint64_t x = i == 0 ? 0 : i == 1 ? UINT64_MAX : rng(&s) >> (rng(&s) % 64);
			if (i % 4)
				gtr_hist_dense_add(d, x);
			else
				cr_assert_eq(gtr_hist_add(&a, x), 0);
			cr_assert_eq(gtr_hist_add(&all, x), 0);
		}
		cr_assert_eq(gtr_hist_take_dense(&a, d), 0);
		cr_assert_eq(d->count, 0);
		for (uint32_t i = 0; i < GTR_HIST_BINS; i++)
			cr_assert_eq(d->counts[i], 0, "bin %u left", i);
		assert_hist_eq(&a, &all);
	}
	cr_assert_eq(gtr_hist_take_dense(&a, d), 0); /* empty: nothing */
	cr_assert_eq(a.count, all.count);
	gtr_hist_reset(&a);
	cr_assert_eq(a.count, 0);
	cr_assert_eq(gtr_hist_percentile(&a, 50), 0);
	cr_assert_eq(gtr_hist_add(&a, 5), 0);
	cr_assert_eq(a.nbins, 1);
	cr_assert_eq(a.min, 5);
	free(d);
	gtr_hist_free(&a);
	gtr_hist_free(&all);
}

Test(stats, block_reasons_group_as_documented)
{
	struct {
		const char *reason;
		gtr_block b;
	} cases[] = {
		{"chan send", GTR_BLOCK_CHAN},
		{"chan receive", GTR_BLOCK_CHAN},
		{"select", GTR_BLOCK_SELECT},
		{"sync", GTR_BLOCK_SYNC},
		{"sync.(*Cond).Wait", GTR_BLOCK_SYNC},
		{"network", GTR_BLOCK_NET},
		{"sleep", GTR_BLOCK_SLEEP},
		{"GC mark assist wait for work", GTR_BLOCK_GC},
		{"GC background sweeper wait", GTR_BLOCK_GC},
		{"wait until GC ends", GTR_BLOCK_GC},
		{"GC weak to strong wait", GTR_BLOCK_GC},
		{"", GTR_BLOCK_OTHER},
		{"unspecified", GTR_BLOCK_OTHER},
		{"system goroutine wait", GTR_BLOCK_OTHER},
		{"preempted", GTR_BLOCK_OTHER},
		{"synctest", GTR_BLOCK_OTHER},
		{"chan", GTR_BLOCK_OTHER},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_assert_eq(gtr_block_of_reason((gtr_str){cases[i].reason, strlen(cases[i].reason)}),
			     cases[i].b, "%s", cases[i].reason);
	cr_assert_str_eq(gtr_block_name(GTR_BLOCK_GC), "GC");
}

Test(stats, runtime_release_from_goroot_paths)
{
	struct {
		const char *path, *want;
	} cases[] = {
		{"/usr/local/go1.22.3/src/runtime/proc.go", "go1.22.3"},
		{"/home/u/sdk/go1.21rc2/src/runtime/mgc.go", "go1.21rc2"},
		{"/root/go/pkg/mod/golang.org/toolchain@v0.0.1-go1.23.4.linux-amd64/src/runtime/proc.go",
		 "go1.23.4"},
		{"/usr/lib/go-1.19/src/runtime/chan.go", "go1.19"},
		{"/opt/homebrew/Cellar/go/1.22.5/libexec/src/runtime/proc.go", "go1.22.5"},
		{"/usr/local/go/src/runtime/proc.go", NULL},
		{"runtime/proc.go", NULL},
		{"/home/x/go1.22.3/src/main.go", NULL},
		{"/home/cargo1.5/src/runtime/x.go", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[32] = "";
		int ok = gtr_runtime_version_from_path((gtr_str){cases[i].path, strlen(cases[i].path)}, buf,
						       sizeof buf);
		if (cases[i].want) {
			cr_assert(ok, "%s", cases[i].path);
			cr_assert_str_eq(buf, cases[i].want);
		} else {
			cr_assert_not(ok, "%s gave %s", cases[i].path, buf);
		}
	}
}

Test(stats, sort_keys_parse)
{
	cr_assert_eq(gtr_stats_key_parse("exec"), GTR_SK_EXEC);
	cr_assert_eq(gtr_stats_key_parse("p99"), GTR_SK_P99);
	cr_assert_eq(gtr_stats_key_parse("name"), GTR_SK_NAME);
	cr_assert_eq(gtr_stats_key_parse("sched_wait"), GTR_SK_SCHED);
	cr_assert_eq(gtr_stats_key_parse("nope"), -1);
	for (int k = 0; k < GTR_SK_N; k++)
		cr_assert_eq(gtr_stats_key_parse(gtr_stats_key_name((gtr_stats_key)k)), k);
}

/* Goroutine rows in the order of the table gtr_report_stats prints for k. */
static gtr_stats_key sort_key;

static int cmp_report_order(const void *pa, const void *pb)
{
	const gtr_gstats *a = pa, *b = pb;
	gtr_stats_key k = gtr_stats_table_key(sort_key, 0);
	return gtr_stats_row_order(k, gtr_stats_key_value(k, &a->t, &a->slices, 1, a->id), a->func,
				   a->id, gtr_stats_key_value(k, &b->t, &b->slices, 1, b->id),
				   b->func, b->id);
}

static void same_row(const gtr_gstats *a, const gtr_gstats *b)
{
	cr_assert_eq(a->id, b->id);
	cr_assert_eq(a->func.n, b->func.n);
	cr_assert_eq(memcmp(a->func.p, b->func.p, a->func.n), 0);
	cr_assert_eq(memcmp(&a->t, &b->t, sizeof a->t), 0, "G%lld", (long long)a->id);
	cr_assert_eq(a->slices.count, b->slices.count);
	cr_assert_eq(a->slices.max, b->slices.max);
	cr_assert_eq(gtr_hist_percentile(&a->slices, 50), gtr_hist_percentile(&b->slices, 50));
}

/*
 * A run that keeps the first n rows for a key keeps exactly the first n
 * of every row in that order, and the same functions and totals; one that
 * keeps given goroutines keeps those.
 */
static void check_keep(const gtr_trace *t, const gtr_stats *all)
{
	gtr_gstats *sorted = malloc(all->ngs * sizeof *sorted);
	cr_assert_not_null(sorted);
	for (int key = 0; key < GTR_SK_N; key++) {
		memcpy(sorted, all->gs, all->ngs * sizeof *sorted);
		sort_key = (gtr_stats_key)key;
		qsort(sorted, all->ngs, sizeof *sorted, cmp_report_order);
		static const size_t tops[] = {1, 3, 7, 1000000};
		for (size_t ti = 0; ti < sizeof tops / sizeof tops[0]; ti++) {
			gtr_stats_keep keep = {.top = tops[ti], .sort = (gtr_stats_key)key};
			gtr_stats *s;
			gtr_error e;
			gtr_error_clear(&e);
			cr_assert_eq(gtr_stats_run(t, &keep, &s, &e), 0, "%s", e.msg);
			size_t want = tops[ti] < all->ngs ? tops[ti] : all->ngs;
			cr_assert_eq(s->ngs, want, "%s top %zu: %zu rows", gtr_stats_key_name(key), tops[ti],
				     s->ngs);
			cr_assert_eq(s->goroutines, all->goroutines);
			cr_assert_eq(s->nfs, all->nfs);
			cr_assert_eq(memcmp(&s->total, &all->total, sizeof s->total), 0);
			for (size_t i = 0; i < s->nfs; i++)
				cr_assert_eq(s->fs[i].goroutines, all->fs[i].goroutines);
			/* Kept rows come back in id order: put them in the table's. */
			qsort(s->gs, s->ngs, sizeof *s->gs, cmp_report_order);
			for (size_t i = 0; i < s->ngs; i++)
				same_row(&s->gs[i], &sorted[i]);
			gtr_stats_free(s);
		}
	}
	/* Pinned goroutines: the last, the first and one in the middle, and none else. */
	int64_t ids[3] = {all->gs[0].id, all->gs[all->ngs / 2].id, all->gs[all->ngs - 1].id};
	gtr_stats_keep keep = {.ids = ids, .nids = all->ngs >= 3 ? 3 : 1};
	gtr_stats *s;
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_stats_run(t, &keep, &s, &e), 0, "%s", e.msg);
	cr_assert_eq(s->ngs, keep.nids);
	for (size_t i = 0; i < s->ngs; i++)
		cr_assert_eq(s->gs[i].id, ids[i]);
	same_row(&s->gs[s->ngs - 1], &all->gs[all->ngs >= 3 ? all->ngs - 1 : 0]);
	gtr_stats_free(s);
	free(sorted);
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
	gtr_stats *s;
	cr_assert_eq(gtr_stats_run(t, NULL, &s, &e), 0, "%s", e.msg);
	gtr_greedy *g;
	cr_assert_eq(gtr_greedy_run(t, 3, &g, &e), 0, "%s", e.msg);
	cr_assert_gt(s->ngs, 0);
	cr_assert_gt(s->nfs, 0);

	/* Goroutines add up to functions, functions to the total. */
	gtr_times byg = {0}, byf = {0};
	uint64_t slices = 0, maxslice = 0;
	size_t gors = 0;
	for (size_t i = 0; i < s->ngs; i++) {
		const gtr_gstats *gs = &s->gs[i];
		if (i)
			cr_assert_lt(s->gs[i - 1].id, gs->id);
		cr_assert_gt(gs->func.n, 0);
		cr_assert_lt(gs->fn, s->nfs);
		cr_assert_eq(s->fs[gs->fn].func.n, gs->func.n);
		cr_assert_eq(memcmp(s->fs[gs->fn].func.p, gs->func.p, gs->func.n), 0);
		gtr_times_add(&byg, &gs->t);
		slices += gs->slices.count;
		if (gs->slices.max > maxslice)
			maxslice = gs->slices.max;
		/* A goroutine cannot have run longer than the trace. */
		cr_assert_leq(gs->t.exec, s->last_ts - s->first_ts + 1);
	}
	for (size_t i = 0; i < s->nfs; i++) {
		gtr_times_add(&byf, &s->fs[i].t);
		gors += s->fs[i].goroutines;
	}
	cr_assert_eq(gors, s->ngs);
	cr_assert_eq(s->goroutines, s->ngs);
	check_keep(t, s);
	cr_assert_eq(memcmp(&byg, &s->total, sizeof byg), 0);
	cr_assert_eq(memcmp(&byf, &s->total, sizeof byf), 0);
	/* The slices are greedy's slices. */
	cr_assert_eq(slices, g->nslices);
	cr_assert_eq(s->slices.count, g->nslices);
	cr_assert_eq(maxslice, gtr_slice_dur(&g->top[0]));
	cr_assert_eq(s->slices.max, maxslice);

	/* The metrics diff and check use agree with both analyses. */
	gtr_metrics mt;
	cr_assert_eq(gtr_metrics_compute(t, 3, &mt, &e), 0, "%s", e.msg);
	cr_assert_eq(mt.v[GTR_M_TMAX_STW], g->tmax_stw);
	cr_assert_eq(mt.v[GTR_M_MAX_SLICE], maxslice);
	cr_assert_eq(mt.v[GTR_M_STW_COUNT], g->nstw);
	cr_assert_eq(mt.v[GTR_M_EXEC], s->total.exec);
	cr_assert_eq(mt.nfuncs, s->nfs);
	for (size_t i = 1; i < mt.nfuncs; i++)
		cr_assert_lt(strcmp(mt.funcs[i - 1].func, mt.funcs[i].func), 0);
	cr_assert_eq(mt.ntop, g->ntop);
	gtr_metrics_free(&mt);

	gtr_greedy_free(g);
	gtr_stats_free(s);
	gtr_trace_free(t);
	gtr_map_close(&m);
}

Test(stats, greedy_coarse_go126_adds_up) { check_trace("corpora/traces/greedy-coarse-go1.26.trace"); }
Test(stats, gcpressure_go126_adds_up) { check_trace("corpora/traces/gcpressure-go1.26.trace"); }
Test(stats, syscalls_go122_adds_up) { check_trace("corpora/traces/syscalls-go1.22.trace"); }
Test(stats, churn_go121_adds_up) { check_trace("corpora/traces/churn-go1.21.trace"); }
Test(stats, gcpressure_go115_adds_up) { check_trace("corpora/traces/gcpressure-go1.15.trace"); }
