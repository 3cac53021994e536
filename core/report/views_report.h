/*
 * core/report/views_report.h: the words of `gtr tasks`, `gtr regions`,
 * `gtr mmu` and `gtr goroutine`, as text or JSON.
 *
 * Each writes to a gtr_out and returns 0 or a negative gtr_errcode with
 * *err filled; none prints errors itself.
 */
#ifndef GTR_CORE_VIEWS_REPORT_H
#define GTR_CORE_VIEWS_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/goroutine.h"
#include "core/analysis/mmu.h"
#include "core/analysis/tasks.h"
#include "core/trace/trace.h"
#include "io/out.h"

typedef struct gtr_views_opts {
	const char *file;   /* shown in the header */
	int json;
	size_t stack_depth; /* frames per stack; 0 for all */
	size_t logs;        /* logs shown per listed task (text) */
	int64_t task;       /* gtr tasks --task: this task's details; -1 none */
} gtr_views_opts;

/* Per task type figures, the longest tasks with their logs, or one task's details. */
int gtr_report_tasks(const gtr_trace *t, const gtr_annot *a, const gtr_views_opts *opts,
		     gtr_out *o, gtr_error *err);

/* Per region type figures and the longest regions. */
int gtr_report_regions(const gtr_trace *t, const gtr_annot *a, const gtr_views_opts *opts,
		       gtr_out *o, gtr_error *err);

/* The MMU curve, and the worst window at each width. */
int gtr_report_mmu(const gtr_trace *t, const gtr_mmu *m, const gtr_views_opts *opts, gtr_out *o,
		   gtr_error *err);

/* One goroutine's life. */
int gtr_report_goroutine(const gtr_trace *t, const gtr_goroutine *g, const gtr_views_opts *opts,
			 gtr_out *o, gtr_error *err);

#endif
