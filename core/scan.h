/*
 * core/scan.h: `gtr greedy` without Go's global event order.
 *
 * gtr_scan_greedy computes the same gtr_greedy as gtr_greedy_run, but
 * its workers walk whole per-thread event streams (v2: every batch of
 * one M, across generations, in order) with per-stream state only: a
 * slice opens and closes on the M that runs it, so it needs nothing of
 * the other Ms. A second parallel pass fetches what needs a goroutine's
 * history (its creation stack, the stack it resumed at, its last
 * events) for the few goroutines that get printed, and checks that the
 * times it reports are the ones Go's reader would give (see scan.c:
 * Go's reader makes times strictly increasing in its global order).
 *
 * Where it cannot vouch for the answer it runs gtr_greedy_run instead:
 * v1 traces, partial or lenient reads, anything that was lost, and the
 * rare trace whose printed times depend on the order of events that
 * happened within a microsecond of each other on different threads.
 */
#ifndef GTR_CORE_SCAN_H
#define GTR_CORE_SCAN_H

#include <stddef.h>

#include "greedy.h"

/* What gtr_scan_greedy did, for -v. */
typedef struct gtr_scan_info {
	int ordered;        /* 1: it ran gtr_greedy_run */
	unsigned jobs;      /* worker threads used (0 when ordered) */
	char why[160];      /* why it ran the ordered path, else empty */
} gtr_scan_info;

/*
 * gtr_greedy_run with `jobs` worker threads (0: one per online CPU).
 * On success *out owns the result (gtr_greedy_free). `info` may be NULL.
 * t may be shared; the call is not reentrant per result.
 */
int gtr_scan_greedy(const gtr_trace *t, size_t top, unsigned jobs, gtr_greedy **out,
		    gtr_scan_info *info, gtr_error *err);

#endif
