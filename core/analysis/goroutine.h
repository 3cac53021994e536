/*
 * core/analysis/goroutine.h: one goroutine's life (go tool trace's
 * goroutine page): when and by whom it was created, the time it spent in
 * each state, every transition (the first N; the others only counted),
 * its on-processor slices, and where and why it blocked.
 *
 * gtr_goroutine_run reads every event once, in Go's order, and keeps
 * only what concerns the one goroutine. State times follow Go's
 * summarizer (as `gtr stats` does): a goroutine found in a state at a
 * sync point has been in it since that sync; the end of the trace stops
 * the clock.
 */
#ifndef GTR_CORE_GOROUTINE_H
#define GTR_CORE_GOROUTINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/engine.h"
#include "core/trace/trace.h"

#define GTR_GSTATES 6 /* gtr_gstate values */

typedef struct gtr_gtrans {
	uint64_t ts;
	uint8_t from, to;   /* gtr_gstate */
	int64_t p;          /* P of the event, -1 none */
	gtr_str reason;
	uint16_t type;      /* the event that made it */
	uint32_t table;
	uint64_t stack;     /* the goroutine's stack at the transition, 0 none */
} gtr_gtrans;

/* An on-processor slice. */
typedef struct gtr_gslice {
	uint64_t start, end;
	int64_t p;
	uint8_t to;         /* the state it ended in; GTR_GS_RUNNING: the trace ended */
	gtr_str reason;
} gtr_gslice;

/* Blocks with one reason at one stack. */
typedef struct gtr_gblock {
	gtr_str reason;
	uint8_t state;      /* GTR_GS_WAITING, or GTR_GS_SYSCALL */
	uint32_t table;
	uint64_t stack;
	uint64_t count, total_ns, max_ns;
} gtr_gblock;

typedef struct gtr_goroutine {
	int64_t id;
	int found;                 /* the trace mentions it */
	uint64_t end_ns;           /* the trace's last event */
	/* Creation: -1 when it existed before the trace. */
	int64_t created_ns, creator;
	uint32_t create_table;
	uint64_t creator_stack;    /* where the creator created it */
	uint64_t start_stack;      /* where it starts (its function) */
	int64_t first_ns;          /* first seen (its creation, or the sync it was found at) */
	int64_t exited_ns;         /* -1 when it did not exit in the trace */
	uint64_t state_ns[GTR_GSTATES]; /* time in each state */
	uint64_t ntrans;           /* transitions in all */
	uint64_t pair[GTR_GSTATES][GTR_GSTATES]; /* transitions from -> to */
	gtr_gtrans *trans;         /* the first max_trans */
	size_t ntrans_kept;
	uint64_t nslices, slices_ns;
	gtr_gslice *slices;        /* the longest, longest first; ties: earlier first */
	size_t nslices_kept;
	gtr_gblock *blocks;        /* by total time, longest first */
	size_t nblocks;
	uint64_t nregions, nlogs;  /* user annotations it made */
} gtr_goroutine;

typedef struct gtr_goroutine_opts {
	int64_t id;
	size_t max_trans;  /* transitions kept (0: none) */
	size_t top_slices; /* longest slices kept */
	unsigned jobs;     /* the engine's threads (gtr_goroutine_run); 0: its default */
} gtr_goroutine_opts;

/*
 * Runs over t, on the engine (core/analysis/engine.h). On success *out
 * owns the result (strings point into t);
 * free it with gtr_goroutine_free. A goroutine the trace never mentions
 * gives found == 0. Returns 0 or a negative gtr_errcode with *err filled.
 */
int gtr_goroutine_run(const gtr_trace *t, const gtr_goroutine_opts *opts, gtr_goroutine **out,
		      gtr_error *err);
void gtr_goroutine_free(gtr_goroutine *g);

/* The same as a sink of the engine: begin, gtr_engine_run, then end (which gives the result) or abort. */
typedef struct gtr_goroutine_acc gtr_goroutine_acc;
int gtr_goroutine_begin(const gtr_trace *t, const gtr_goroutine_opts *opts, gtr_goroutine_acc **acc,
			gtr_error *err);
gtr_sink gtr_goroutine_sink(gtr_goroutine_acc *acc);
int gtr_goroutine_end(gtr_goroutine_acc *acc, gtr_goroutine **out, gtr_error *err);
void gtr_goroutine_abort(gtr_goroutine_acc *acc);

#endif
