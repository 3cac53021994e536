/*
 * tests/fuzz/fuzz_scan.c: what fuzz_cli leaves out, over inputs of both
 * families: `greedy --fast` (the per-stream workers, on one thread and on
 * two, fast walk and generic walk, its report with stacks resolved),
 * `stats --fast` (one thread and two, with its JSON report), and
 * the one read of `gtr report` (greedy, stats, timeline, zoom, tasks and
 * regions, MMU and the metrics of a comparison, each a sink of the
 * engine) written as its HTML page, the views of `gtr tasks`, `regions`,
 * `mmu` and `goroutine` as text and JSON, and the profiles of `gtr
 * pprof`, over the input opened strictly, partially and leniently.
 * Seeds: every trace fuzz_cli takes.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "core/analysis/analyze.h"
#include "core/analysis/goroutine.h"
#include "core/analysis/pprof.h"
#include "core/analysis/scan.h"
#include "core/analysis/stats.h"
#include "core/report/html_report.h"
#include "core/report/pprof_proto.h"
#include "core/report/report.h"
#include "core/report/views_report.h"

#include "fuzz_modes.h"

static void fast_greedy(const gtr_trace *t, unsigned jobs, unsigned flags)
{
	gtr_greedy *g = NULL;
	gtr_scan_info info;
	gtr_error err;
	gtr_error_clear(&err);
	if (gtr_scan_greedy(t, 5, jobs, flags, &g, &info, &err) < 0)
		return;
	gtr_greedy_report_opts json = {.file = "fuzz", .json = 1, .stack_depth = 3};
	gtr_out_init(&out, devnull);
	gtr_report_greedy(t, g, &json, &out, &err);
	gtr_out_flush(&out);
	gtr_greedy_free(g);
}

/* `stats --fast`, on one thread and on two, with its report. */
static void fast_stats(const gtr_trace *t, unsigned jobs)
{
	gtr_stats *s = NULL;
	gtr_stats_keep keep = {.top = 3};
	gtr_stats_fast_info info;
	gtr_error err;
	gtr_error_clear(&err);
	if (gtr_stats_fast(t, &keep, jobs, &s, &info, &err) < 0)
		return;
	gtr_stats_report_opts ro = {.file = "fuzz", .format = GTR_STATS_JSON, .top = 3};
	gtr_out_init(&out, devnull);
	gtr_report_stats(t, s, &ro, &out, &err);
	gtr_out_flush(&out);
	gtr_stats_free(s);
}

static void report(const gtr_trace *t)
{
	gtr_stats_keep keep = {.top = 3};
	gtr_timeline_opts topts = {0};
	gtr_zoom_opts zopts = {.slices = 64};
	gtr_annot_opts aopts = {.top = 8};
	gtr_mmu_opts mopts = {0};
	gtr_analyze_opts o = {.jobs = 2, .greedy_top = 5, .stats = &keep, .timeline = &topts,
			      .zoom = &zopts, .annot = gtr_annot_supported(t) ? &aopts : NULL,
			      .mmu = &mopts, .metrics_top = 3};
	gtr_analysis an;
	gtr_error err;
	gtr_error_clear(&err);
	if (gtr_analyze(t, &o, &an, &err) < 0)
		return;
	gtr_html_trace ht = {.file = "fuzz", .trace = t, .greedy = an.greedy, .stats = an.stats,
			     .timeline = an.timeline, .zoom = an.zoom, .annot = an.annot, .mmu = an.mmu};
	/* A small page budget, so that the cut of the slices runs too. */
	gtr_html_opts ho = {.stack_depth = 4, .zoom_bytes = 256, .generator = "fuzz"};
	gtr_out_init(&out, devnull);
	gtr_report_html(&ht, 1, &ho, &out, &err);
	gtr_out_flush(&out);
	for (int json = 0; json < 2; json++) {
		gtr_views_opts vo = {.file = "fuzz", .json = json, .stack_depth = 3, .logs = 2, .task = -1};
		gtr_out_init(&out, devnull);
		if (an.annot) {
			gtr_report_tasks(t, an.annot, &vo, &out, &err);
			gtr_report_regions(t, an.annot, &vo, &out, &err);
		}
		if (an.mmu)
			gtr_report_mmu(t, an.mmu, &vo, &out, &err);
		gtr_out_flush(&out);
	}
	gtr_analysis_free(&an);
}

/* `gtr goroutine` of the goroutine of id `salt` mod 8, and every profile of `gtr pprof`. */
static void views(const gtr_trace *t, size_t salt)
{
	gtr_error err;
	gtr_goroutine_opts go = {.id = (int64_t)(salt % 8), .max_trans = 8, .top_slices = 4, .jobs = 1};
	gtr_goroutine *g = NULL;
	gtr_error_clear(&err);
	if (gtr_goroutine_run(t, &go, &g, &err) == 0) {
		for (int json = 0; json < 2; json++) {
			gtr_views_opts vo = {.file = "fuzz", .json = json, .stack_depth = 3, .task = -1};
			gtr_out_init(&out, devnull);
			gtr_report_goroutine(t, g, &vo, &out, &err);
			gtr_out_flush(&out);
		}
		gtr_goroutine_free(g);
	}
	for (int k = GTR_PPROF_SCHED; k <= GTR_PPROF_SYSCALL; k++) {
		gtr_pprof p;
		gtr_error_clear(&err);
		if (gtr_pprof_compute(t, (gtr_pprof_kind)k, &p, &err) == 0) {
			gtr_out_init(&out, devnull);
			gtr_pprof_write(t, &p, &out, &err);
			gtr_out_flush(&out);
		}
		gtr_pprof_release(&p); /* after a failure too */
	}
}

static void run_all(const gtr_trace *t, size_t salt)
{
	fast_greedy(t, 1, 0);
	fast_greedy(t, 2, 0);
	fast_greedy(t, 2, GTR_SCAN_GENERIC);
	fast_stats(t, 1);
	fast_stats(t, 2);
	report(t);
	views(t, salt);
}
