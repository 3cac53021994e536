/*
 * core/analysis/tasks.h: user tasks, regions and logs (runtime/trace's
 * NewTask, StartRegion/WithRegion, Log), from Go 1.11's traces on.
 *
 * gtr_annot_run reads every event once, in Go's order, and follows what
 * Go's summarizer (internal/trace/summary.go) follows:
 *
 *  - a task runs from its TaskBegin to its TaskEnd. A task the trace
 *    names (by an end, a region or a log) without its begin, or without
 *    its end, is incomplete: it began before the trace or outlived it;
 *  - a region belongs to the goroutine that began it. A RegionEnd closes
 *    the goroutine's innermost open region, whatever its type; one with
 *    no open region closes a region begun before the trace. A goroutine
 *    that exits (or blocks "forever") closes its open regions; regions
 *    still open at the end of the trace are incomplete. As in Go, regions
 *    left open by a system goroutine (its start function in package
 *    runtime, runtime.main aside, or unknown) when it ends are not kept.
 *
 * Durations, percentiles and the longest instances count the complete
 * ones; counts count all. Percentiles are exact (nearest rank): the
 * analysis keeps one 8-byte duration per complete instance, besides the
 * tasks themselves and the regions open at once; logs are only counted,
 * but for the tasks named in `collect`, whose logs and regions are kept
 * in full.
 */
#ifndef GTR_CORE_TASKS_H
#define GTR_CORE_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/engine.h"
#include "core/trace/trace.h"

/* How a region ended. */
typedef enum gtr_region_end {
	GTR_REGION_ENDED = 0, /* its RegionEnd */
	GTR_REGION_EXITED,    /* its goroutine exited or blocked for ever */
	GTR_REGION_OPEN,      /* still open when the trace ends */
} gtr_region_end;

typedef struct gtr_task {
	uint64_t id;
	uint64_t parent;          /* 0: none */
	gtr_str type;             /* empty when its begin is not in the trace */
	int64_t start, end;       /* ns since the first event; -1: not in the trace */
	int64_t g, end_g;         /* goroutines that began and ended it; -1: unknown */
	uint32_t table, end_table;
	uint64_t stack, end_stack; /* stacks of its begin and end; 0 when none */
	uint64_t nlogs, nregions, nchildren;
} gtr_task;

typedef struct gtr_region {
	gtr_str type;
	uint64_t task;     /* 0: no task */
	int64_t g;
	int64_t start;     /* -1: begun before the trace */
	int64_t end;       /* its end, the goroutine's exit, or the trace's end (OPEN) */
	uint8_t how;       /* gtr_region_end */
	uint32_t depth;    /* 0 outermost */
	uint32_t table;
	uint64_t stack;    /* stack of its begin, 0 when none */
} gtr_region;

typedef struct gtr_user_log {
	uint64_t task;     /* 0: no task */
	int64_t ts, g;
	gtr_str category, message;
	uint32_t table;
	uint64_t stack;
} gtr_user_log;

/* Per type: counts, and the durations of the complete instances. */
typedef struct gtr_annot_type {
	gtr_str name;
	uint64_t count;    /* every instance */
	uint64_t complete; /* with a begin and an end in the trace */
	uint64_t total_ns, p50_ns, p90_ns, p99_ns, max_ns;
} gtr_annot_type;

typedef struct gtr_annot_opts {
	size_t top;              /* longest complete tasks and regions kept (each) */
	const char *type;        /* only this type (NULL: all): in the longest, and in details */
	const uint64_t *collect; /* tasks whose logs and regions are kept */
	size_t ncollect;
	unsigned jobs;           /* the engine's threads (gtr_annot_run); 0: its default */
} gtr_annot_opts;

typedef struct gtr_annot {
	uint64_t end_ns;            /* the last event's time */
	uint64_t ntasks, nregions, nlogs;
	uint64_t nlogs_notask;      /* logs outside any task */
	gtr_annot_type *task_types; /* by name */
	size_t ntask_types;
	gtr_annot_type *region_types;
	size_t nregion_types;
	gtr_task *top_tasks;        /* longest first; ties: earlier start, lower id */
	size_t ntop_tasks;
	gtr_region *top_regions;    /* longest first; ties: earlier start, lower goroutine */
	size_t ntop_regions;
	gtr_task *tasks;            /* every task, by id */
	size_t ntasks_kept;
	gtr_user_log *logs;         /* of the collected tasks, by task then time */
	size_t nlogs_kept;
	gtr_region *regions;        /* of the collected tasks, by task then start */
	size_t nregions_kept;
} gtr_annot;

/*
 * Runs over t, on the engine (core/analysis/engine.h). On success *out owns the result (its strings point into
 * t, which must outlive it); free it with gtr_annot_free. Returns 0 or a
 * negative gtr_errcode with *err filled.
 */
int gtr_annot_run(const gtr_trace *t, const gtr_annot_opts *opts, gtr_annot **out, gtr_error *err);
void gtr_annot_free(gtr_annot *a);

/*
 * The same as a sink of the engine: begin, gtr_engine_run, then end (which
 * gives the result) or abort. opts must outlive the accumulator.
 */
typedef struct gtr_annot_acc gtr_annot_acc;
int gtr_annot_begin(const gtr_trace *t, const gtr_annot_opts *opts, gtr_annot_acc **acc,
		    gtr_error *err);
gtr_sink gtr_annot_sink(gtr_annot_acc *acc);
int gtr_annot_end(gtr_annot_acc *acc, gtr_annot **out, gtr_error *err);
void gtr_annot_abort(gtr_annot_acc *acc);

/* The task with this id, or NULL. */
const gtr_task *gtr_annot_task(const gtr_annot *a, uint64_t id);

/* 1 when the trace's version can carry user annotations (go 1.11 and later). */
int gtr_annot_supported(const gtr_trace *t);

#endif
