/*
 * core/report/html_report.h: `gtr report`, one self-contained HTML page.
 *
 * The page needs no network and no server: its HTML, CSS and script are
 * inline (core/report/report.html, made into a C array by the Makefile), a
 * Content-Security-Policy forbids any fetch, and the data is one JSON
 * object in a <script type="application/json"> element. For each trace
 * the object holds the gtr.greedy.v1 report (top slices with stacks,
 * Tmax_stw, the pauses with the goroutines they waited for), the
 * gtr.stats.v1 report by function, the busy timeline (core/analysis/timeline.h)
 * with every measured pause, and the histogram of slice durations; for
 * two traces, the gtr.diff.v1 report. Its size is bounded by the number of
 * rows x buckets, the top-N slices and the capped number of pauses and
 * functions, never by the size of the trace.
 *
 * With a zoom result (core/analysis/zoom.h) the object also holds, per
 * trace, the viewer's data: the kept slices of each P in a compact text
 * (numbers as base-32 digits, one character each, in the 64 characters
 * A-Z a-z 0-9 - _: the 32 last ones mark a digit that more follow), at
 * most GTR_HTML_ZOOM_BYTES of them, the shortest left out first; the busy
 * time of the slices left out, per P at a fine resolution; and the
 * counters.
 *
 * With the user annotations (core/analysis/tasks.h) it holds per task
 * and region type the count and durations, at most GTR_HTML_ANNOT_TYPES
 * types of each, and the longest GTR_HTML_ANNOT_TOP complete tasks and
 * regions (the annotation's own top list, so that the page draws the
 * instances `gtr tasks -n` and `gtr regions -n` list), the first
 * GTR_HTML_ANNOT_STACKS with their stack, type names cut at 256 bytes; with an MMU result
 * (core/analysis/mmu.h) its curve, at most GTR_MMU_MAX_WINDOWS points.
 * These add well under 2 MB, so the page stays under 20 MB whatever the
 * trace.
 */
#ifndef GTR_CORE_HTML_REPORT_H
#define GTR_CORE_HTML_REPORT_H

#include <stddef.h>

#include "core/analysis/diff.h"
#include "core/report/diff_report.h"
#include "core/analysis/greedy.h"
#include "core/analysis/mmu.h"
#include "core/analysis/stats.h"
#include "core/analysis/tasks.h"
#include "core/analysis/timeline.h"
#include "core/analysis/zoom.h"
#include "core/trace/trace.h"
#include "io/out.h"

#define GTR_HTML_FUNC_ROWS 50    /* default rows of the per-function table */
#define GTR_HTML_MAX_PAUSES 2000 /* default pauses drawn: the longest, when there are more */
/* Bytes of the page's slices and goroutines at most: the shortest slices are left out past it. */
#define GTR_HTML_ZOOM_BYTES (14u << 20)
/* Longest complete tasks and regions in the page, each: the annotation's `top` for the report. */
#define GTR_HTML_ANNOT_TOP 2000
/* Task and region types in the page at most, each (the most frequent); their instances still drawn. */
#define GTR_HTML_ANNOT_TYPES 1000
/* Of the longest tasks and regions, those listed with their stack. */
#define GTR_HTML_ANNOT_STACKS 50

/* One trace's results, all computed from `trace`, which stays open while the page is written. */
typedef struct gtr_html_trace {
	const char *file;              /* the name shown */
	const gtr_trace *trace;
	const gtr_greedy *greedy;      /* its top slices are the ones drawn and listed */
	const gtr_stats *stats;
	const gtr_timeline *timeline;
	const gtr_zoom *zoom;          /* the viewer's slices and counters; NULL: none */
	const gtr_annot *annot;        /* tasks and regions; NULL: the trace cannot have them */
	const gtr_mmu *mmu;            /* the MMU curve; NULL: none */
	const char *warning;           /* shown above its pictures (what a partial read lost); NULL: none */
} gtr_html_trace;

typedef struct gtr_html_opts {
	size_t stack_depth;           /* frames per stack; 0: all */
	size_t func_rows;             /* 0: GTR_HTML_FUNC_ROWS */
	size_t max_pauses;            /* 0: GTR_HTML_MAX_PAUSES */
	size_t zoom_bytes;            /* 0: GTR_HTML_ZOOM_BYTES */
	const char *generator;        /* "gtr 0.1.0", shown in the footer */
	/* Two traces: the diff view of diff_a (before) and diff_b (after). */
	const gtr_metrics *diff_a, *diff_b;
	const gtr_diff_opts *diff;
} gtr_html_opts;

/*
 * Writes the page for n traces (1, or 2 with the diff metrics set) to o.
 * Returns 0, or a negative gtr_errcode with *err filled (GTR_E_NOMEM,
 * GTR_E_IO when scratch memory for the embedded reports cannot be had).
 */
int gtr_report_html(const gtr_html_trace *traces, size_t n, const gtr_html_opts *opts, gtr_out *o,
		    gtr_error *err);

/* The page's HTML around the data, for tests: the template and its length. */
const char *gtr_html_template(size_t *len);

#endif
