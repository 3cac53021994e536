/*
 * core/analysis/greedy.h: the greediest goroutines and the stop-the-world pauses.
 *
 * A slice is a maximal interval in which one goroutine is Running (see
 * DESIGN.md). gtr_greedy_run reads every event once, keeps the top slices
 * in a bounded heap, and records every measured stop-the-world pause
 * with the goroutines that were still running on other Ps when it began:
 * the last of them to stop made the world wait. Memory is bounded by the
 * number of goroutines, Ps and pauses, never by the number of events.
 */
#ifndef GTR_CORE_GREEDY_H
#define GTR_CORE_GREEDY_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/engine.h"
#include "core/trace/trace.h"

#define GTR_CHAIN_LEN 4

/* A tolerant read lost the event that ended it: when is unknown. A slice
 * keeps the last time its goroutine was seen; a pause has no length. */
#define GTR_END_LOST 2

/* Slices kept for Tmax_stw (per worker on the parallel path): GOMAXPROCS
 * above this makes it a lower bound. */
#define GTR_GREEDY_KEEP 4096

/* A stack as the trace refers to it: resolve with gtr_trace_stack. */
typedef struct gtr_stackref {
	uint32_t table;
	uint64_t id; /* 0: unknown */
} gtr_stackref;

typedef struct gtr_slice {
	uint64_t start, end; /* ns since the trace's first event */
	int64_t g, p;
	uint8_t end_state;   /* gtr_gstate the goroutine went to */
	uint8_t truncated;   /* 1: still running when the trace ended; 2: GTR_END_LOST */
	gtr_str reason;      /* Go's reason for the transition, may be empty */
	uint16_t start_ev, end_ev; /* spec types of the events that started and ended it */
	gtr_stackref start_stack;  /* where it resumed running */
	gtr_stackref end_stack;    /* where it stopped */
	gtr_stackref create_stack; /* where it was created: its start function */
	uint16_t chain[GTR_CHAIN_LEN]; /* the goroutine's events before the slice, oldest first */
	uint8_t nchain;
} gtr_slice;

/* A goroutine that was running on another P when a pause began. */
typedef struct gtr_stw_waiter {
	int64_t g, p;
	uint64_t stopped;    /* when it left the P; 0 while it never did */
	gtr_stackref stack;  /* where it stopped */
	gtr_stackref create_stack;
	gtr_str reason;
	uint8_t end_state;
} gtr_stw_waiter;

typedef struct gtr_stw {
	uint64_t start, end;
	gtr_str kind;        /* "GC mark termination", ... */
	int64_t g, p;        /* who stopped the world */
	size_t first_waiter, nwaiters; /* into gtr_greedy.waiters */
	int64_t culprit;     /* index into waiters of the last to stop, -1 none */
	uint8_t truncated;   /* 1: the trace ended before the pause did; 2: GTR_END_LOST */
} gtr_stw;

typedef struct gtr_procs_change {
	uint64_t ts;
	uint64_t procs;
} gtr_procs_change;

typedef struct gtr_greedy {
	gtr_slice *top;      /* the longest slices, longest first */
	size_t ntop;
	size_t nslices;      /* every slice seen */
	gtr_slice *est;      /* the top GOMAXPROCS slices, longest first */
	size_t nest;
	uint64_t tmax_stw;   /* sum of the durations in est */
	int tmax_exact;      /* 0 when GOMAXPROCS outgrew the kept slices */
	uint64_t maxprocs;   /* the largest GOMAXPROCS the trace set */
	/* The GOMAXPROCS in force for the longest time (from the first
	 * change to the end), and that time: Tmax_stw's N. A test that sets
	 * 16 for a moment of a long run at 2 has 2 in force. */
	uint64_t procs_in_force, procs_in_force_ns;
	gtr_procs_change *procs;
	size_t nprocs;
	gtr_stw *stw;        /* every measured pause, in time order */
	size_t nstw;
	gtr_stw_waiter *waiters;
	size_t nwaiters;
	uint64_t events;
	uint64_t first_ts, last_ts;
} gtr_greedy;

/*
 * Runs the analysis over t, keeping the `top` longest slices. On success
 * *out owns the result; free it with gtr_greedy_free. Not thread-safe per
 * result; t may be shared.
 */
int gtr_greedy_run(const gtr_trace *t, size_t top, gtr_greedy **out, gtr_error *err);

/* gtr_greedy_run on the engine with `jobs` threads (core/analysis/engine.h). */
int gtr_greedy_run_jobs(const gtr_trace *t, size_t top, unsigned jobs, gtr_greedy **out,
			gtr_error *err);

/*
 * The same as a sink of the engine, to run beside other analyses in one
 * read: begin, give gtr_greedy_sink(acc) to gtr_engine_run, then end
 * (which frees acc and fills *out) or, when the read failed, abort.
 */
typedef struct gtr_greedy_acc gtr_greedy_acc;
int gtr_greedy_begin(const gtr_trace *t, size_t top, gtr_greedy_acc **acc, gtr_error *err);
gtr_sink gtr_greedy_sink(gtr_greedy_acc *acc);
int gtr_greedy_end(gtr_greedy_acc *acc, gtr_greedy **out, gtr_error *err);
void gtr_greedy_abort(gtr_greedy_acc *acc);

/*
 * Asks acc to remember every goroutine one of whose slices entered its
 * heap of longest slices; gtr_greedy_was_top(acc, g) then says whether
 * g did, while the read goes on: the top slices at the end are among
 * them (for a stats sink beside it that keeps only their rows).
 */
int gtr_greedy_track_top(gtr_greedy_acc *acc);

/*
 * The GOMAXPROCS in force longest among changes p[0..n) (in time order)
 * up to `end`, and for how long (*ns); the earlier value on a tie; 0 when
 * n is 0.
 */
uint64_t gtr_procs_in_force(const gtr_procs_change *p, size_t n, uint64_t end, uint64_t *ns);
/* Ends what still runs at the end of the read (gtr_greedy_end does it too). */
void gtr_greedy_close(gtr_greedy_acc *acc);
int gtr_greedy_was_top(void *acc, int64_t g);
void gtr_greedy_free(gtr_greedy *g);

/* Orders slices: longer first, then earlier start, then lower goroutine. */
int gtr_slice_cmp(const gtr_slice *a, const gtr_slice *b);

/* qsort order of a pause's waiters: in the order they stopped (those
 * that did not, first), then by goroutine. */
int gtr_stw_waiter_qsort(const void *a, const void *b);

/* Duration of a pause or slice in ns. */
static inline uint64_t gtr_slice_dur(const gtr_slice *s) { return s->end - s->start; }

/* Percentile q (0..100) of n sorted values, nearest rank. */
uint64_t gtr_percentile(const uint64_t *sorted, size_t n, double q);

#endif
