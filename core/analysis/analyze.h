/*
 * core/analysis/analyze.h: several analyses from one read of a trace.
 *
 * `report` wants greedy, stats, the timeline, the viewer's slices, the
 * tasks and regions and the MMU of a trace, and the metrics of diff when
 * it compares two; `diff` and `check` want the
 * metrics. gtr_analyze runs what is asked for as sinks of one engine
 * read (core/analysis/engine.h), so a trace is read once whatever the
 * command asks of it. Each result is what the analysis's own
 * gtr_*_run gives.
 */
#ifndef GTR_CORE_ANALYZE_H
#define GTR_CORE_ANALYZE_H

#include "core/analysis/diff.h"
#include "core/analysis/engine.h"
#include "core/analysis/greedy.h"
#include "core/analysis/mmu.h"
#include "core/analysis/stats.h"
#include "core/analysis/tasks.h"
#include "core/analysis/timeline.h"
#include "core/analysis/zoom.h"

typedef struct gtr_analyze_opts {
	unsigned jobs;                  /* engine threads (gtr_engine_opts) */
	size_t greedy_top;              /* > 0: greedy, with this many top slices */
	const gtr_stats_keep *stats;    /* non-NULL: stats, keeping these rows */
	const gtr_timeline_opts *timeline; /* non-NULL: the timeline */
	size_t metrics_top;             /* > 0: the metrics of diff, with this many top slices */
	const gtr_zoom_opts *zoom;      /* non-NULL: the report's zoomable slices and counters */
	const gtr_annot_opts *annot;    /* non-NULL: tasks, regions and logs (must outlive the call) */
	const gtr_mmu_opts *mmu;        /* non-NULL: the MMU curve (must outlive the call) */
} gtr_analyze_opts;

typedef struct gtr_analysis {
	gtr_greedy *greedy;
	gtr_stats *stats;
	gtr_timeline *timeline;
	gtr_metrics metrics;
	int has_metrics;
	gtr_zoom *zoom;
	gtr_annot *annot;
	gtr_mmu *mmu;
	gtr_engine_info engine;
} gtr_analysis;

/*
 * Reads t once for everything o asks. On success *a owns the results
 * (gtr_analysis_free); on error it holds none of them.
 */
int gtr_analyze(const gtr_trace *t, const gtr_analyze_opts *o, gtr_analysis *a, gtr_error *err);

/* What gtr_metrics_compute_fast did, for -v. */
typedef struct gtr_metrics_fast_info {
	int greedy_ordered, stats_ordered; /* 1: that half ran Go's order */
	char why[330];                     /* why, else empty */
} gtr_metrics_fast_info;

/*
 * gtr_metrics_compute without Go's global order: the slices from
 * gtr_scan_greedy (`greedy --fast`), the times from gtr_stats_fast
 * (`stats --fast`), each of which runs the ordered path where it must.
 * The figures are theirs: the same as the ordered ones within their
 * bounds (README). `info` may be NULL.
 */
int gtr_metrics_compute_fast(const gtr_trace *t, size_t ntop, unsigned jobs, gtr_metrics *m,
			     gtr_metrics_fast_info *info, gtr_error *err);
void gtr_analysis_free(gtr_analysis *a);

#endif
