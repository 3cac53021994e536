/*
 * core/analysis/engine.h: one read of a trace feeds every analysis.
 *
 * An analysis is a sink: a function that takes each event in Go's
 * global order (the order of gtr_reader_next, the reference), and one
 * that runs after the last. gtr_engine_run reads the trace once and
 * hands every event to every sink, so that `report`, `diff` and `check`
 * compute greedy, stats, the timeline and the metrics from one read.
 *
 * With more than one job, the read runs ahead on its own thread: it
 * decodes, orders and derives the transitions of the next events into
 * a few fixed-size chunks while the calling thread runs the sinks on
 * the chunks before them. The sinks see the same events, in the same
 * order, with the same times and transitions as on one thread: the
 * reader is the same code, only on another thread, so each analysis is
 * exact by construction, and tests/enginetest.sh checks that every
 * command prints the same bytes with -j 1 and -j 2. Memory is the
 * chunks (GTR_ENGINE_CHUNKS of GTR_ENGINE_CHUNK events) beyond what
 * the reader and the sinks hold.
 *
 * An error of the read (a corrupt or truncated trace) reaches the sinks'
 * caller after every event before it, as on one thread.
 */
#ifndef GTR_CORE_ENGINE_H
#define GTR_CORE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

#define GTR_ENGINE_CHUNK 4096 /* events per chunk */
#define GTR_ENGINE_CHUNKS 4   /* chunks in flight */

/* What a sink returns to stop the read early, with no error (dump's reader went away). */
#define GTR_SINK_STOP 1

typedef struct gtr_sink {
	void *self;
	/* One event, in order: 0 goes on, GTR_SINK_STOP ends the read with
	 * success, a negative gtr_errcode ends it with that error. */
	int (*on_event)(void *self, const gtr_event *ev);
} gtr_sink;

typedef struct gtr_engine_opts {
	unsigned jobs; /* threads: 1 reads and analyses on the caller's thread; 0: 2 when the machine has 2 CPUs or more */
} gtr_engine_opts;

/* What the engine did, for -v. */
typedef struct gtr_engine_info {
	unsigned threads;  /* 1, or 2 when the read ran ahead on its own thread */
	uint64_t events;   /* events handed to the sinks */
	uint64_t chunks;   /* chunks passed between the threads */
	uint64_t waits;    /* times the sinks waited for the read */
	/* CPU seconds of the read and of the sinks (the same thread when
	 * threads is 1): on two idle CPUs the wall time is about the larger. */
	double read_cpu_s, sink_cpu_s;
	char why[128];     /* why it used one thread when more were asked, else empty */
} gtr_engine_info;

/*
 * Reads t once, giving every event to sinks[0..n) in turn. Returns 0 at
 * the end of the trace, or the first error of the read or of a sink (a
 * sink's error is given the offset of the event it failed on). `info`
 * may be NULL.
 */
int gtr_engine_run(const gtr_trace *t, const gtr_sink *sinks, size_t n, const gtr_engine_opts *opts,
		   gtr_engine_info *info, gtr_error *err);

#endif
