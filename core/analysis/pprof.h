/*
 * core/analysis/pprof.h: time goroutines lose, by stack, as `go tool
 * trace -pprof=TYPE` counts it.
 *
 * Four profiles, each a time total and a count per stack:
 *
 *   sched    scheduler latency: from becoming runnable to running.
 *   sync     blocked on channels, select, and sync primitives.
 *   net      blocked on the network poller.
 *   syscall  in system calls.
 *
 * Which intervals count, and which stack they are charged to, follows
 * the Go release that reads the trace's format:
 *
 * - v2 traces (Go 1.22 and later), as Go 1.26's cmd/trace does (Go 1.22
 *   to 1.25 skipped every transition without a stack, so that a GoStart
 *   never ended a runnable interval): an interval runs from a goroutine's
 *   transition into the state (Runnable; Waiting for a reason that
 *   contains "chan", "sync" or "select"; Waiting for "network";
 *   Syscall) to its next transition into another state, and is charged
 *   to the stack of the event that began it: for sched, the unblocking
 *   or creating goroutine's stack, or the goroutine's own when it was
 *   preempted or yielded. Time before a goroutine first runs is left
 *   out, as Go clips each interval to the goroutine's life from its
 *   first start to its end; a goroutine that never runs is not clipped.
 *   Intervals of zero length are not counted.
 *
 * - v1 traces (Go 1.5 to 1.21), as Go 1.21's cmd/trace does: sched is
 *   from a GoCreate or GoUnblock to the goroutine's next GoStart,
 *   charged to the creating or unblocking event's stack; sync from a
 *   GoBlockSend, Recv, Select, Sync, Cond or GC to the GoUnblock; net
 *   from a GoBlockNet to the GoUnblock; syscall from a GoSysCall to the
 *   GoSysExit of a syscall that blocked. Only events with a non-empty
 *   stack count.
 *
 * An interval still open at the end of the trace is not counted, in
 * both. Memory follows the goroutines alive at once and the distinct
 * stacks, not the number of events.
 */
#ifndef GTR_CORE_PPROF_H
#define GTR_CORE_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

typedef enum gtr_pprof_kind {
	GTR_PPROF_SCHED = 0,
	GTR_PPROF_SYNC,
	GTR_PPROF_NET,
	GTR_PPROF_SYSCALL,
} gtr_pprof_kind;

/* "sched", "sync", "net", "syscall". */
const char *gtr_pprof_kind_name(gtr_pprof_kind k);

/* Parses one of those names (Go's "io" and "block" too): 0, or -1. */
int gtr_pprof_kind_parse(const char *s, gtr_pprof_kind *k);

/* One stack's total. stack 0: the interval began at an event without one. */
typedef struct gtr_pprof_rec {
	uint32_t table; /* the stack table the id belongs to */
	uint64_t stack;
	uint64_t count; /* intervals */
	uint64_t ns;    /* their summed length */
	uint64_t last;  /* when its last interval was counted: 1, 2, ... over all recs */
} gtr_pprof_rec;

typedef struct gtr_pprof {
	gtr_pprof_kind kind;
	gtr_pprof_rec *recs; /* one per (table, stack), in order of first use */
	size_t n;
	uint64_t count, ns;  /* over all recs */
	uint64_t span_ns;    /* the trace's length */
} gtr_pprof;

/*
 * Reads every event of t once in Go's order and fills *out (which the
 * caller then releases with gtr_pprof_release, also after a failure).
 * Returns 0 or a negative gtr_errcode with *err filled.
 */
int gtr_pprof_compute(const gtr_trace *t, gtr_pprof_kind kind, gtr_pprof *out, gtr_error *err);

void gtr_pprof_release(gtr_pprof *p);

#endif
