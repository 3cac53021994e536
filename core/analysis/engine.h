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
 * a few fixed-size chunks while other threads run the sinks on the
 * chunks before them. Sinks that share no state run on threads of their
 * own (the calling thread is one), each taking every chunk in order; a
 * chunk is written again once the last of them is done with it. Every
 * sink sees the same events, in the same order, with the same times and
 * transitions as on one thread: the reader is the same code, only on
 * another thread, so each analysis is exact by construction, and
 * tests/enginetest.sh checks that every command prints the same bytes
 * with -j 1, -j 2 and -j 3. Memory is the chunks (GTR_ENGINE_CHUNKS of
 * GTR_ENGINE_CHUNK events) beyond what the reader and the sinks hold.
 *
 * An error of the read (a corrupt or truncated trace) reaches the sinks'
 * caller after every event before it, and a sink's error is the one of
 * the earliest event (the first sink's, within one event), as on one
 * thread.
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
	/* Nonzero: this sink reads the state of the sink before it while
	 * both run, so it runs on the same thread, right after it. */
	int with_prev;
} gtr_sink;

typedef struct gtr_engine_opts {
	/* 1: read and analyse on the caller's thread. N > 1: the read runs
	 * ahead on its own thread, and the sinks run on up to N threads, a
	 * group of sinks (see with_prev) on each. 0: the machine's CPUs. */
	unsigned jobs;
} gtr_engine_opts;

/* What the engine did, for -v. */
typedef struct gtr_engine_info {
	unsigned threads;  /* 1, or more when the read ran ahead on its own thread */
	unsigned sink_threads; /* the threads that ran the sinks */
	uint64_t events;   /* events handed to the sinks */
	uint64_t chunks;   /* chunks passed between the threads */
	uint64_t waits;    /* times the sinks waited for the read */
	/* CPU seconds of the read and of the sinks (the same thread when
	 * threads is 1; summed over the sinks' threads); on idle CPUs the
	 * wall time is about the read's or the busiest sink thread's. */
	double read_cpu_s, sink_cpu_s, sink_cpu_max_s;
	uint64_t pushed_ns; /* gtr_reader_pushed at the end */
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
