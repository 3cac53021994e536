/*
 * core/analysis/scan.h: `gtr greedy` without Go's global event order.
 *
 * gtr_scan_greedy computes what gtr_greedy_run computes, but its workers
 * walk whole event streams (v2: every batch of one M, across
 * generations, in order; v1: every batch of one P, see scan_v1.c) with
 * per-stream state only: a slice opens and closes on the M (v1: the P)
 * that runs it, so it needs nothing of the others. A
 * second parallel pass fetches what needs a goroutine's history (its
 * creation stack, the stack it resumed at, its last events) for the few
 * goroutines that get printed.
 *
 * Times are the trace's own: each event's timestamp as Go converts it,
 * made strictly increasing per thread, and per generation (every event
 * of a generation is later than its Sync, which is later than every
 * event and CPU sample of the previous generation). Go's reader (and
 * gtr_greedy_run) also makes times strictly increasing in its global
 * order, so events that share a nanosecond on different threads, and
 * the events a generation's end pushes later, are spaced 1 ns apart
 * across all threads, where this path spaces them over one thread's
 * events only. A time here is therefore never later than Go's and
 * differs from it by the number of events of other threads in such a
 * pile: at most 1 ns on every trace of the test corpus, 14 ns on a
 * 200 MB trace of Go 1.26 whose generations overlap by up to 22 ms
 * (tests/scantest.sh checks 1 us; in Go's stress mode, a generation every
 * few us, piles reach 5 us and it checks 10 us). A time shown in a pile
 * of more than SCAN_PILE_MAX events (scan_impl.h) sends it to the ordered
 * path.
 *
 * What came first between threads (the goroutines still running when a
 * pause began, a goroutine's last events and the stack it resumed at) is
 * not read from those times but from order keys (scan_okey in
 * scan_impl.h): generation, then the time Go's reader merges the threads
 * by, then M. Where the keys of a pause's start and of another M's
 * slice's start or end are equal, Go's reader takes first the M it read
 * the previous event from; a waiter's stop that local times put before
 * its pause's start is shown just after it.
 *
 * It runs gtr_greedy_run instead, and says why in `info`, for go 1.5
 * traces (ordered by sequence numbers), partial or lenient reads,
 * anything that was lost, broken batches, stop-the-world pauses that
 * overlap, and what only Go's global order can tell: such a tie of keys
 * where neither M was read last, a waiter that stops at its pause's end's
 * very key, an M whose events of a generation are not in time order
 * across its batches. It does not check what Go's reader checks of the order
 * of events between threads, nor (v1) that the stacks events name
 * exist: a trace Go refuses for that still gets an answer here.
 */
#ifndef GTR_CORE_SCAN_H
#define GTR_CORE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/greedy.h"

/* What gtr_scan_greedy did, for -v. */
typedef struct gtr_scan_info {
	int ordered;        /* 1: it ran gtr_greedy_run */
	unsigned jobs;      /* worker threads used (0 when ordered) */
	char why[160];      /* why it ran the ordered path, else empty */
	/* Wall-clock seconds of the parallel path's phases: the
	 * generations' ends, pass 1, the pauses' waiters, pass 2. */
	double sec_ends, sec_pass1, sec_waiters, sec_pass2;
	unsigned rounds;    /* pass 2's rounds */
	uint64_t pass2_bytes; /* event bytes pass 2 walked */
} gtr_scan_info;

/* Flags of gtr_scan_greedy. */
enum {
	/* v2: pass 1 takes the generic walk, which the fast one falls back to
	 * when it meets what it does not take (for tests and benchmarks). */
	GTR_SCAN_GENERIC = 1,
};

/*
 * gtr_greedy_run with `jobs` worker threads (0: one per online CPU).
 * On success *out owns the result (gtr_greedy_free). `info` may be NULL.
 * t may be shared; the call is not reentrant per result.
 */
int gtr_scan_greedy(const gtr_trace *t, size_t top, unsigned jobs, unsigned flags, gtr_greedy **out,
		    gtr_scan_info *info, gtr_error *err);

#endif
