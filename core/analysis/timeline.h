/*
 * core/analysis/timeline.h: how busy each P (and, for v2 traces, each M) was over
 * the trace, at a fixed number of time buckets.
 *
 * A P is busy while a goroutine runs on it: gtr_timeline_run reads every
 * event once, follows the goroutine transitions into and out of Running
 * (the slices of DESIGN.md) and adds each slice to the buckets of its P
 * and its M. The GC row holds the time a GC cycle was in progress. The
 * bucket width starts from the span the index measured and doubles,
 * merging neighbours, whenever an event falls past the last bucket, so
 * the span need not be exact. Memory is bounded by rows x buckets and the
 * goroutines running at once, never by the number of events or of
 * goroutines: a picture of a multi-GB trace costs what a picture of a
 * small one costs.
 */
#ifndef GTR_CORE_TIMELINE_H
#define GTR_CORE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/engine.h"
#include "core/trace/trace.h"

#define GTR_TIMELINE_BUCKETS 2000      /* default buckets per row */
#define GTR_TIMELINE_MIN_BUCKETS 16
#define GTR_TIMELINE_MAX_BUCKETS 20000
#define GTR_TIMELINE_MAX_ROWS 1024     /* rows kept; slices on later Ps and Ms are only counted */

typedef enum gtr_row_kind {
	GTR_ROW_P = 0,
	GTR_ROW_M,
	GTR_ROW_GC,
} gtr_row_kind;

typedef struct gtr_timeline_row {
	gtr_row_kind kind;
	int64_t id;        /* P or M id; 0 for the GC row */
	uint64_t slices;   /* slices that ran on it (GC: cycles) */
	double busy_ns;    /* its total busy time */
	double *busy;      /* busy ns in each bucket, nbuckets of them */
} gtr_timeline_row;

typedef struct gtr_timeline {
	uint64_t bucket_ns;  /* width of a bucket */
	size_t nbuckets;     /* buckets used: they cover [0, nbuckets * bucket_ns) */
	uint64_t end_ns;     /* last event's time, ns since the first */
	uint64_t events;
	gtr_timeline_row *rows; /* Ps by id, then Ms by id, then GC (when the trace has one) */
	size_t nrows;
	uint64_t dropped_slices; /* slices on Ps or Ms past GTR_TIMELINE_MAX_ROWS: not drawn */
} gtr_timeline;

typedef struct gtr_timeline_opts {
	size_t buckets; /* per row, GTR_TIMELINE_MIN_BUCKETS..MAX_BUCKETS; 0: the default */
} gtr_timeline_opts;

/*
 * Runs over t. On success *out owns the result; free it with
 * gtr_timeline_free. Returns 0 or a negative gtr_errcode with *err
 * filled. t may be shared between threads; a result belongs to one.
 */
int gtr_timeline_run(const gtr_trace *t, const gtr_timeline_opts *opts, gtr_timeline **out,
		     gtr_error *err);
void gtr_timeline_free(gtr_timeline *tl);

/* The same as a sink of the engine: begin, gtr_engine_run, end or abort. */
typedef struct gtr_timeline_acc gtr_timeline_acc;
int gtr_timeline_begin(const gtr_trace *t, const gtr_timeline_opts *opts, gtr_timeline_acc **acc,
		       gtr_error *err);
gtr_sink gtr_timeline_sink(gtr_timeline_acc *acc);
int gtr_timeline_end(gtr_timeline_acc *acc, gtr_timeline **out, gtr_error *err);
void gtr_timeline_abort(gtr_timeline_acc *acc);

/* Busy fraction (0..1) of bucket b of a row; the last bucket counts only up to end_ns. */
double gtr_timeline_frac(const gtr_timeline *tl, const gtr_timeline_row *row, size_t b);

#endif
