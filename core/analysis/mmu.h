/*
 * core/analysis/mmu.h: minimum mutator utilization (go tool trace's MMU
 * page), from Go 1.5's traces on.
 *
 * The mutator utilization function says, at each instant, which share of
 * the Ps the program has for itself: none during a stop-the-world, and
 * 1 - k/GOMAXPROCS while k Ps do GC work (a mark assist, a background
 * mark worker, sweeping), as the flags choose. gtr_mmu_run builds it in
 * one pass in Go's order, following Go's analyses: for a v2 trace Go
 * 1.22's (internal/trace MutatorUtilizationV2: STW of the GC only), for
 * a v1 trace Go 1.21's (every STW counts), with one change for v2: a
 * background mark worker counts as GC work in the run its label was
 * given in, until it stops running, as in Go's v1 analysis. (Go 1.22 and
 * later never forget that a goroutine was a mark worker: each later run
 * adds a P in GC that is never taken back, and utilization sinks to 0.)
 *
 * The MMU at window w is the least mean utilization over every window
 * of width w inside the function's span (for a window longer than the
 * span, the span). It is exact: the mean over a sliding window is
 * piecewise linear between the times either edge meets a change of the
 * function, so only those positions are tried; each width costs one
 * walk over the changes. Memory is two numbers per change of the
 * function (one series per P with GTR_MMU_PER_P), never per event.
 */
#ifndef GTR_CORE_MMU_H
#define GTR_CORE_MMU_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/engine.h"
#include "core/trace/trace.h"

/* What takes time from the mutator (go tool trace's MMU options). */
enum {
	GTR_MMU_STW = 1,        /* stop-the-world phases */
	GTR_MMU_BACKGROUND = 2, /* background mark workers */
	GTR_MMU_ASSIST = 4,     /* mark assists */
	GTR_MMU_SWEEP = 8,      /* sweeping */
	GTR_MMU_PER_P = 16,     /* one function per P (a P in GC has 0), not the system's */
	GTR_MMU_DEFAULT = GTR_MMU_STW | GTR_MMU_BACKGROUND | GTR_MMU_ASSIST,
};

#define GTR_MMU_MAX_WINDOWS 1000

typedef struct gtr_mmu_point {
	uint64_t window_ns;
	double mmu;          /* 0..1 */
	uint64_t worst_ns;   /* where a window of this width that has it starts (ns since the first event) */
} gtr_mmu_point;

typedef struct gtr_mmu_series gtr_mmu_series;

typedef struct gtr_mmu {
	unsigned flags;
	int v1;
	uint64_t start_ns, end_ns; /* the span of the function(s) */
	size_t nseries;            /* 1, or Ps over the trace with GTR_MMU_PER_P */
	size_t changes;            /* changes of the function(s), in all */
	gtr_mmu_series *series;
	gtr_mmu_point *points;     /* by window */
	size_t npoints;
} gtr_mmu;

typedef struct gtr_mmu_opts {
	unsigned flags;            /* GTR_MMU_*; 0: GTR_MMU_DEFAULT */
	const uint64_t *windows;   /* widths asked for (ns); NULL: 1 us, 2 us, 5 us, 10 us ...
				    * up to the span, and the span */
	size_t nwindows;           /* at most GTR_MMU_MAX_WINDOWS */
	unsigned jobs;             /* the engine's threads (gtr_mmu_run); 0: its default */
} gtr_mmu_opts;

/*
 * Runs over t, on the engine (core/analysis/engine.h). On success *out
 * owns the result; free it with gtr_mmu_free. A trace with no GOMAXPROCS event has no function:
 * nseries and npoints are 0. Returns 0 or a negative gtr_errcode with
 * *err filled.
 */
int gtr_mmu_run(const gtr_trace *t, const gtr_mmu_opts *opts, gtr_mmu **out, gtr_error *err);
void gtr_mmu_free(gtr_mmu *m);

/*
 * The same as a sink of the engine: begin, gtr_engine_run, then end (which
 * gives the result) or abort. opts must outlive the accumulator.
 */
typedef struct gtr_mmu_acc gtr_mmu_acc;
int gtr_mmu_begin(const gtr_trace *t, const gtr_mmu_opts *opts, gtr_mmu_acc **acc, gtr_error *err);
gtr_sink gtr_mmu_sink(gtr_mmu_acc *acc);
int gtr_mmu_end(gtr_mmu_acc *acc, gtr_mmu **out, gtr_error *err);
void gtr_mmu_abort(gtr_mmu_acc *acc);

/* The MMU of one more window width; *worst_ns (may be NULL) where it is found. */
double gtr_mmu_at(const gtr_mmu *m, uint64_t window_ns, uint64_t *worst_ns);

#endif
