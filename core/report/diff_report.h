/* core/report/diff_report.h: the words, tables and JSON of `gtr diff`. */
#ifndef GTR_CORE_REPORT_DIFF_REPORT_H
#define GTR_CORE_REPORT_DIFF_REPORT_H

#include "core/analysis/diff.h"
#include "core/report/report.h"
#include "io/out.h"

/* One change in words: "max slice +254.4% (12.081 ms -> 42.816 ms)". */
void gtr_out_change(gtr_out *o, const gtr_change *c);

/* A percent change for people: "+254.4%", "-70.7%", "0.0%", "new" (from 0). */
void gtr_out_pct(gtr_out *o, uint64_t base, uint64_t cur);

typedef struct gtr_diff_opts {
	const char *file_a, *file_b;
	int json;
	size_t rows;       /* top slices and function rows shown */
	const gtr_thresholds *th;
	/* Several runs a side (optional): compared as sets, their medians shown. */
	const gtr_metrics *const *runs_a, *const *runs_b;
	size_t na, nb;
	const gtr_partial *partial_a, *partial_b; /* how A and B were read in part; NULL: whole */
} gtr_diff_opts;

/*
 * Writes `gtr diff` of a (before) and b (after), ending with the verdict;
 * *verdict receives it. With opts->runs_a and runs_b, those runs are
 * compared (a and b are one run of each, for the top slices and the
 * functions). 0, or a negative gtr_errcode with *err filled.
 */
int gtr_report_diff(const gtr_metrics *a, const gtr_metrics *b, const gtr_diff_opts *opts,
		    gtr_out *o, gtr_verdict *verdict, gtr_error *err);

#endif
