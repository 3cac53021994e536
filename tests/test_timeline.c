/*
 * tests/test_timeline.c: the busy timeline, the progress callback, and
 * the page of `gtr report` (its template and its embedded JSON).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/analysis/greedy.h"
#include "core/report/html_report.h"
#include "core/base/json.h"
#include "core/analysis/stats.h"
#include "core/analysis/timeline.h"
#include "io/map.h"

typedef struct opened {
	gtr_map m;
	gtr_trace *t;
} opened;

static int open_rel(opened *o, const char *rel, const gtr_open_opts *opts)
{
	char path[4096];
	const char *root = getenv("GTR_ROOT");
	snprintf(path, sizeof path, "%s/%s", root ? root : ".", rel);
	if (gtr_map_open(&o->m, path, GTR_IO_AUTO) < 0)
		return -1;
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_trace_open_opts(&o->t, o->m.data, o->m.size, opts, &e), 0, "%s: %s", rel, e.msg);
	return 0;
}

static void close_rel(opened *o)
{
	gtr_trace_free(o->t);
	gtr_map_close(&o->m);
}

static const char *const traces[] = {
	"corpora/traces/greedy-coarse-go1.26.trace", "corpora/traces/churn-go1.22.trace",
	"corpora/traces/churn-go1.21.trace",         "corpora/traces/gcpressure-go1.15.trace",
	"corpora/traces/procs-go1.26.trace",
};

/* Every P's busy time adds up to the execution time the goroutine analysis counts. */
Test(timeline, busy_time_adds_up_to_execution_time)
{
	for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
		opened o;
		if (open_rel(&o, traces[i], NULL) < 0)
			cr_skip_test("%s is missing", traces[i]);
		gtr_error e;
		gtr_error_clear(&e);
		gtr_timeline *tl;
		gtr_stats *s;
		cr_assert_eq(gtr_timeline_run(o.t, NULL, &tl, &e), 0, "%s", e.msg);
		cr_assert_eq(gtr_stats_run(o.t, NULL, &s, &e), 0, "%s", e.msg);
		double p = 0, m = 0, pb = 0;
		size_t np = 0, nm = 0;
		for (size_t r = 0; r < tl->nrows; r++) {
			const gtr_timeline_row *row = &tl->rows[r];
			double sum = 0;
			for (size_t b = 0; b < tl->nbuckets; b++) {
				double f = gtr_timeline_frac(tl, row, b);
				cr_assert(f >= 0 && f <= 1, "%s: fraction %f", traces[i], f);
				sum += row->busy[b];
			}
			cr_assert_float_eq(sum, row->busy_ns, 1 + row->busy_ns * 1e-9, "%s row %zu", traces[i], r);
			if (row->kind == GTR_ROW_P) {
				p += row->busy_ns;
				np++;
				pb += sum;
			} else if (row->kind == GTR_ROW_M) {
				m += row->busy_ns;
				nm++;
			}
			/* Ps by id, then Ms by id, then GC. */
			if (r)
				cr_assert(tl->rows[r - 1].kind < row->kind ||
					  (tl->rows[r - 1].kind == row->kind && tl->rows[r - 1].id < row->id));
		}
		cr_assert_gt(np, 0, "%s has no P rows", traces[i]);
		cr_assert_leq(tl->nbuckets, GTR_TIMELINE_BUCKETS);
		cr_assert_geq((double)tl->nbuckets * (double)tl->bucket_ns, (double)tl->end_ns);
		/* A goroutine runs on one P: its running time is some P's busy time. */
		double exec = (double)s->total.exec;
		cr_assert(p <= exec * 1.0001 + 1000 && p >= exec * 0.98, "%s: P busy %.0f, exec %.0f",
			  traces[i], p, exec);
		if (gtr_trace_get_info(o.t)->family == GTR_FAMILY_V2)
			cr_assert(nm > 0 && m <= exec * 1.0001 + 1000 && m >= exec * 0.98,
				  "%s: M busy %.0f, exec %.0f", traces[i], m, exec);
		else
			cr_assert_eq(nm, 0, "%s: a v1 trace has no Ms", traces[i]);
		gtr_stats_free(s);
		gtr_timeline_free(tl);
		close_rel(&o);
	}
}

/* Few buckets: the width doubles as events come past the end, and nothing is lost. */
Test(timeline, coarse_buckets_keep_the_totals)
{
	opened o;
	if (open_rel(&o, traces[0], NULL) < 0)
		cr_skip_test("%s is missing", traces[0]);
	gtr_error e;
	gtr_error_clear(&e);
	gtr_timeline *fine, *coarse;
	gtr_timeline_opts few = {.buckets = GTR_TIMELINE_MIN_BUCKETS};
	cr_assert_eq(gtr_timeline_run(o.t, NULL, &fine, &e), 0, "%s", e.msg);
	cr_assert_eq(gtr_timeline_run(o.t, &few, &coarse, &e), 0, "%s", e.msg);
	cr_assert_leq(coarse->nbuckets, GTR_TIMELINE_MIN_BUCKETS);
	cr_assert_eq(coarse->nrows, fine->nrows);
	for (size_t r = 0; r < fine->nrows; r++) {
		double a = 0, b = 0;
		for (size_t k = 0; k < fine->nbuckets; k++)
			a += fine->rows[r].busy[k];
		for (size_t k = 0; k < coarse->nbuckets; k++)
			b += coarse->rows[r].busy[k];
		cr_assert_float_eq(a, b, 1 + a * 1e-9);
		cr_assert_eq(fine->rows[r].slices, coarse->rows[r].slices);
	}
	gtr_timeline_free(fine);
	gtr_timeline_free(coarse);
	gtr_timeline_opts bad = {.buckets = GTR_TIMELINE_MAX_BUCKETS + 1};
	gtr_timeline *none = (gtr_timeline *)1;
	cr_assert_eq(gtr_timeline_run(o.t, &bad, &none, &e), GTR_E_USAGE);
	cr_assert_null(none);
	close_rel(&o);
}

typedef struct calls {
	size_t n[3];
	uint64_t last[3], total[3];
	int backwards, ended[3];
} calls;

static void count_call(void *ctx, gtr_phase ph, uint64_t done, uint64_t total)
{
	calls *c = ctx;
	cr_assert_lt((unsigned)ph, 3u);
	if (c->ended[ph] && ph == GTR_PHASE_DECODE) {
		c->ended[ph] = 0; /* a new reader: a new pass */
		c->last[ph] = 0;
	}
	if (done < c->last[ph])
		c->backwards = 1;
	c->n[ph]++;
	c->last[ph] = done;
	c->total[ph] = total;
	if (done == total)
		c->ended[ph] = 1;
}

/* The library tells its progress through the callback only: index, then each reader's pass. */
Test(timeline, progress_is_told_per_phase_and_ends_at_the_total)
{
	calls c = {0};
	gtr_open_opts oo = {.sz = sizeof oo, .progress = count_call, .progress_ctx = &c};
	opened o;
	if (open_rel(&o, traces[0], &oo) < 0)
		cr_skip_test("%s is missing", traces[0]);
	uint64_t size = o.m.size;
	cr_assert_geq(c.n[GTR_PHASE_INDEX], 1);
	cr_assert_eq(c.last[GTR_PHASE_INDEX], size);
	cr_assert_eq(c.total[GTR_PHASE_INDEX], size);
	gtr_error e;
	gtr_error_clear(&e);
	gtr_timeline *tl;
	cr_assert_eq(gtr_timeline_run(o.t, NULL, &tl, &e), 0, "%s", e.msg);
	cr_assert_geq(c.n[GTR_PHASE_DECODE], 2, "a pass is told at least once on the way and once at its end");
	cr_assert_eq(c.last[GTR_PHASE_DECODE], size);
	cr_assert_eq(c.backwards, 0, "progress went backwards within a pass");
	size_t once = c.n[GTR_PHASE_DECODE];
	gtr_timeline_free(tl);
	cr_assert_eq(gtr_timeline_run(o.t, NULL, &tl, &e), 0, "%s", e.msg);
	cr_assert_eq(c.n[GTR_PHASE_DECODE], 2 * once, "a second reader tells its own pass");
	cr_assert_eq(c.backwards, 0);
	gtr_timeline_free(tl);
	close_rel(&o);

	/* An older caller's smaller options read as zero past its size. */
	gtr_open_opts old = {.sz = sizeof(size_t) + sizeof(unsigned), .progress = count_call};
	opened o2;
	cr_assert_eq(open_rel(&o2, traces[0], &old), 0);
	close_rel(&o2);
}

Test(timeline, phase_names)
{
	cr_assert_str_eq(gtr_phase_name(GTR_PHASE_INDEX), "index");
	cr_assert_str_eq(gtr_phase_name(GTR_PHASE_DECODE), "decode");
	cr_assert_str_eq(gtr_phase_name(GTR_PHASE_REDUCE), "reduce");
	cr_assert_str_eq(gtr_phase_name((gtr_phase)9), "?");
}

static size_t count(const char *hay, size_t n, const char *needle)
{
	size_t k = 0, len = strlen(needle);
	for (const char *p = hay; (p = memmem(p, n - (size_t)(p - hay), needle, len)); p += len)
		k++;
	return k;
}

/* The page: one data mark in the template; the written page holds one JSON object that parses. */
Test(timeline, page_embeds_one_json_object)
{
	size_t tlen;
	const char *tpl = gtr_html_template(&tlen);
	cr_assert_eq(count(tpl, tlen, "@GTR_DATA@"), 1);
	cr_assert_eq(count(tpl, tlen, "http://"), 0, "the page must fetch nothing");
	cr_assert_eq(count(tpl, tlen, "https://"), 0, "the page must fetch nothing");

	opened o;
	if (open_rel(&o, traces[0], NULL) < 0)
		cr_skip_test("%s is missing", traces[0]);
	gtr_error e;
	gtr_error_clear(&e);
	gtr_greedy *g;
	gtr_stats *s;
	gtr_timeline *tl;
	cr_assert_eq(gtr_greedy_run(o.t, 10, &g, &e), 0, "%s", e.msg);
	cr_assert_eq(gtr_stats_run(o.t, NULL, &s, &e), 0, "%s", e.msg);
	cr_assert_eq(gtr_timeline_run(o.t, NULL, &tl, &e), 0, "%s", e.msg);
	gtr_html_trace ht = {.file = "a</script><b>.trace", .trace = o.t, .greedy = g, .stats = s,
			     .timeline = tl, .warning = "cut <here>"};
	gtr_html_opts ho = {.generator = "gtr test"};
	int fd = memfd_create("page", 0);
	cr_assert_geq(fd, 0);
	static gtr_out out;
	gtr_out_init(&out, fd);
	cr_assert_eq(gtr_report_html(&ht, 1, &ho, &out, &e), 0, "%s", e.msg);
	cr_assert_eq(gtr_out_flush(&out), 0);
	off_t size = lseek(fd, 0, SEEK_END);
	char *page = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	cr_assert_neq(page, MAP_FAILED);
	/* A name that holds "</script>" cannot end the data early. */
	cr_assert_eq(count(page, (size_t)size, "</script>"), count(tpl, tlen, "</script>"));
	const char *open_tag = "id=\"gtr-data\">";
	const char *a = memmem(page, (size_t)size, open_tag, strlen(open_tag));
	cr_assert_not_null(a);
	a += strlen(open_tag);
	const char *b = memmem(a, (size_t)(page + size - a), "</script>", 9);
	cr_assert_not_null(b);
	gtr_json *j;
	cr_assert_eq(gtr_json_parse(a, (size_t)(b - a), &j, &e), 0, "%s", e.msg);
	const gtr_json *t0 = &gtr_json_get(j, "traces")->items[0];
	cr_assert_str_eq(gtr_json_string(gtr_json_get(t0, "file")), "a</script><b>.trace");
	cr_assert_str_eq(gtr_json_string(gtr_json_get(gtr_json_get(t0, "greedy"), "schema")), "gtr.greedy.v1");
	cr_assert_str_eq(gtr_json_string(gtr_json_get(gtr_json_get(t0, "stats"), "schema")), "gtr.stats.v1");
	const gtr_json *rows = gtr_json_get(gtr_json_get(t0, "timeline"), "rows");
	cr_assert_not_null(rows);
	cr_assert_geq(rows->n, g->maxprocs, "a row for every P up to GOMAXPROCS");
	uint64_t buckets;
	cr_assert(gtr_json_uint(gtr_json_get(gtr_json_get(t0, "timeline"), "buckets"), &buckets));
	for (size_t i = 0; i < rows->n; i++) {
		const char *busy = gtr_json_string(gtr_json_get(&rows->items[i], "busy"));
		cr_assert(strlen(busy) == buckets || strlen(busy) == 0);
	}
	const gtr_json *top = gtr_json_get(gtr_json_get(t0, "greedy"), "top");
	cr_assert_eq(top->n, g->ntop);
	cr_assert_eq(gtr_json_get(j, "diff")->type, GTR_JSON_NULL);
	gtr_json_free(j);
	munmap(page, (size_t)size);
	close(fd);
	gtr_timeline_free(tl);
	gtr_stats_free(s);
	gtr_greedy_free(g);
	close_rel(&o);
}

/*
 * With many Ps a pause waits for many goroutines, and a v1 trace repeats
 * GOMAXPROCS at every start of the world: the page keeps the 32 waiters
 * that stopped last (the one that made the world wait among them, with the
 * only stack) and only the changes of GOMAXPROCS.
 */
Test(timeline, page_stays_small_with_many_waiters)
{
	opened o;
	if (open_rel(&o, traces[0], NULL) < 0)
		cr_skip_test("%s is missing", traces[0]);
	gtr_error e;
	gtr_error_clear(&e);
	gtr_stats *s;
	gtr_timeline *tl;
	cr_assert_eq(gtr_stats_run(o.t, NULL, &s, &e), 0, "%s", e.msg);
	cr_assert_eq(gtr_timeline_run(o.t, NULL, &tl, &e), 0, "%s", e.msg);
	enum { NW = 100, NP = 1000 };
	static gtr_stw_waiter w[NW];
	static gtr_procs_change pc[NP];
	for (int i = 0; i < NW; i++)
		/* Every one stopped 1 ms after the pause began, but waiter 7, later. */
		w[i] = (gtr_stw_waiter){.g = 100 + i, .p = i, .stopped = 2000000 + (i == 7) * 500000,
					.stack = {0, 1}};
	for (int i = 0; i < NP; i++)
		pc[i] = (gtr_procs_change){.ts = (uint64_t)i * 1000, .procs = i < NP / 2 ? 8 : 16};
	gtr_stw stw = {.start = 1000000, .end = 3000000, .kind = GTR_STR("GC sweep termination"),
		       .g = 1, .p = 0, .first_waiter = 0, .nwaiters = NW, .culprit = 7};
	gtr_slice top = {.start = 0, .end = 100, .g = 1, .p = 0};
	gtr_greedy g = {.top = &top, .ntop = 1, .nslices = 1, .est = &top, .nest = 1, .tmax_stw = 100,
			.tmax_exact = 1, .maxprocs = 16, .procs = pc, .nprocs = NP, .stw = &stw,
			.nstw = 1, .waiters = w, .nwaiters = NW, .events = 1, .last_ts = 4000000};
	gtr_html_trace ht = {.file = "many.trace", .trace = o.t, .greedy = &g, .stats = s, .timeline = tl};
	gtr_html_opts ho = {0};
	int fd = memfd_create("page", 0);
	static gtr_out out;
	gtr_out_init(&out, fd);
	cr_assert_eq(gtr_report_html(&ht, 1, &ho, &out, &e), 0, "%s", e.msg);
	cr_assert_eq(gtr_out_flush(&out), 0);
	off_t size = lseek(fd, 0, SEEK_END);
	char *page = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	const char *open_tag = "id=\"gtr-data\">";
	const char *a = memmem(page, (size_t)size, open_tag, strlen(open_tag)) + strlen(open_tag);
	const char *b = memmem(a, (size_t)(page + size - a), "</script>", 9);
	gtr_json *j;
	cr_assert_eq(gtr_json_parse(a, (size_t)(b - a), &j, &e), 0, "%s", e.msg);
	const gtr_json *gr = gtr_json_get(&gtr_json_get(j, "traces")->items[0], "greedy");
	const gtr_json *pause = &gtr_json_get(gtr_json_get(gr, "stw"), "top")->items[0];
	const gtr_json *wf = gtr_json_get(pause, "waited_for");
	uint64_t total;
	cr_assert(gtr_json_uint(gtr_json_get(pause, "waited_for_total"), &total));
	cr_assert_eq(total, NW);
	cr_assert_eq(wf->n, 32);
	size_t culprits = 0, stacks = 0;
	for (size_t i = 0; i < wf->n; i++) {
		const gtr_json *mw = gtr_json_get(&wf->items[i], "made_world_wait");
		uint64_t gid;
		cr_assert(gtr_json_uint(gtr_json_get(&wf->items[i], "g"), &gid));
		if (mw->boolean) {
			culprits++;
			cr_assert_eq(gid, 107);
		}
		stacks += gtr_json_get(&wf->items[i], "stack") != NULL;
		if (i)
			cr_assert_lt(gtr_json_get(&wf->items[i - 1], "g")->uint, gid, "in the report's order");
	}
	cr_assert_eq(culprits, 1);
	cr_assert_eq(stacks, 1, "only the last to stop keeps its stack");
	const gtr_json *changes = gtr_json_get(gtr_json_get(gr, "gomaxprocs"), "changes");
	cr_assert_eq(changes->n, 2);
	cr_assert(gtr_json_uint(gtr_json_get(gtr_json_get(gr, "gomaxprocs"), "changes_total"), &total));
	cr_assert_eq(total, NP);
	cr_assert_lt(size, 200000);
	gtr_json_free(j);
	munmap(page, (size_t)size);
	close(fd);
	gtr_timeline_free(tl);
	gtr_stats_free(s);
	close_rel(&o);
}
