/*
 * core/analysis/zoom.h: what the report's viewer needs to zoom into a
 * trace of any size, in bounded memory.
 *
 * gtr_zoom_run reads every event once and keeps:
 * - the longest slices (DESIGN.md), up to a cap, each with its goroutine,
 *   P, start function and how it ended. Every slice longer than
 *   `exact_above` is kept, so a view in which a pixel is at least
 *   `exact_above` ns wide can draw each slice wider than a pixel, exactly;
 * - the busy time of every slice per P at a fine, fixed number of
 *   buckets, from which the part of the slices not kept can be shaded;
 * - counters over time: heap in use and its goal, goroutines running,
 *   runnable, waiting and in syscalls, as exact change points while they
 *   are few and as min/max per bucket always.
 * Memory is bounded by the caps (slices, P rows x buckets, points per
 * counter) and the goroutines alive at once, never by the number of
 * events.
 */
#ifndef GTR_CORE_ZOOM_H
#define GTR_CORE_ZOOM_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/engine.h"
#include "core/trace/trace.h"

#define GTR_ZOOM_SLICES 1000000    /* default cap on the slices kept */
#define GTR_ZOOM_MAX_SLICES 1000000
#define GTR_ZOOM_BUCKETS 8192      /* busy buckets per P row */
#define GTR_ZOOM_MAX_ROWS 256      /* P rows with busy buckets; later Ps are only counted */
#define GTR_ZOOM_COUNTER_BUCKETS 4096
#define GTR_ZOOM_COUNTER_POINTS 20000 /* exact change points kept per counter */

typedef struct gtr_zoom_slice {
	uint64_t start, end;  /* ns since the trace's first event */
	int64_t g;
	int64_t p;            /* -1: no P */
	uint32_t fn;          /* index into funcs */
	uint16_t ended;       /* index into ends */
} gtr_zoom_slice;

/*
 * Sorts v[0..n) in the page's order (by P, then start, then goroutine)
 * in place, as gtr_zoom_finish does: quicksort, and heapsort for what is
 * left after `depth` levels (-1: twice log2(n); 0: heapsort at once).
 * For tests, and the selection of the slices kept sorts likewise.
 */
void gtr_zoom_sort(gtr_zoom_slice *v, size_t n, int depth);

/* How slices ended: the state the goroutine went to and Go's reason. */
typedef struct gtr_zoom_end {
	uint8_t state;        /* gtr_gstate */
	uint8_t truncated;    /* 1: running at the trace's end; 2: GTR_END_LOST */
	gtr_str reason;       /* points into the trace or static storage */
} gtr_zoom_end;

typedef enum gtr_zoom_counter {
	GTR_ZC_HEAP_ALLOC = 0,
	GTR_ZC_HEAP_GOAL,
	GTR_ZC_G_RUNNING,
	GTR_ZC_G_RUNNABLE,
	GTR_ZC_G_WAITING,
	GTR_ZC_G_SYSCALL,
	GTR_ZC_N,
} gtr_zoom_counter;

typedef struct gtr_zoom_series {
	int seen;             /* the trace had any value of it */
	uint64_t *ts, *val;   /* exact changes, in time order; NULL when they passed the cap */
	size_t n, cap;
	int overflow;         /* the changes passed GTR_ZOOM_COUNTER_POINTS */
	uint64_t *min, *max;  /* per bucket: the values it held (when set[b]) */
	uint64_t *last;       /* per bucket: the value at its end (when set[b]) */
	uint8_t *set;         /* per bucket: a change fell in it */
	uint64_t cur;         /* the value now */
} gtr_zoom_series;

typedef struct gtr_zoom_row {
	int64_t p;
	uint64_t *busy;       /* ns of slices per bucket, nbuckets of them */
} gtr_zoom_row;

typedef struct gtr_zoom {
	gtr_zoom_slice *slices; /* the kept slices, by P, then start */
	size_t nslices;
	uint64_t total;         /* every slice seen */
	uint64_t exact_above;   /* every slice longer than this is kept; 0: every slice is */
	uint64_t no_p;          /* slices without a P (kept with p = -1) */
	gtr_str *funcs;         /* start functions; funcs[0] is "?" */
	size_t nfuncs;
	gtr_zoom_end *ends;
	size_t nends;
	gtr_zoom_row *rows;     /* by P id */
	size_t nrows;
	uint64_t dropped_rows;  /* slices on Ps past GTR_ZOOM_MAX_ROWS: in no row's busy */
	uint64_t bucket_ns;     /* busy buckets: [0, nbuckets * bucket_ns) */
	size_t nbuckets;
	gtr_zoom_series counters[GTR_ZC_N];
	uint64_t cbucket_ns;    /* counter buckets */
	size_t ncbuckets;
	uint64_t end_ns;        /* the last event's time */
	char *names;            /* storage of the names made here (PCs of traces without symbols) */
} gtr_zoom;

typedef struct gtr_zoom_opts {
	size_t slices; /* cap on the slices kept, 1..GTR_ZOOM_MAX_SLICES; 0: GTR_ZOOM_SLICES */
} gtr_zoom_opts;

/*
 * Runs over t. On success *out owns the result, whose strings point into
 * t (keep t open while it is used); free it with gtr_zoom_free. Returns
 * 0 or a negative gtr_errcode with *err filled. t may be shared between
 * threads; a result belongs to one.
 */
int gtr_zoom_run(const gtr_trace *t, const gtr_zoom_opts *opts, gtr_zoom **out, gtr_error *err);

/* The same as a sink of the engine: begin, gtr_engine_run, finish or abort. */
typedef struct gtr_zoom_acc gtr_zoom_acc;
int gtr_zoom_begin(const gtr_trace *t, const gtr_zoom_opts *opts, gtr_zoom_acc **acc, gtr_error *err);
gtr_sink gtr_zoom_sink(gtr_zoom_acc *acc);
int gtr_zoom_finish(gtr_zoom_acc *acc, gtr_zoom **out, gtr_error *err);
void gtr_zoom_abort(gtr_zoom_acc *acc);
void gtr_zoom_free(gtr_zoom *z);

/* The name of a counter: "heap_alloc", "heap_goal", "g_running", ... */
const char *gtr_zoom_counter_name(gtr_zoom_counter c);

#endif
