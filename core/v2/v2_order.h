/*
 * core/v2/v2_order.h: the scheduler state machine behind the v2 reader.
 *
 * Events of different Ms are only partially ordered by their
 * timestamps; what really orders them is the state of goroutines, Ps
 * and Ms and the sequence numbers some events carry. The reader offers
 * candidate events (the next one of each M); gtr_v2_order_advance says
 * whether a candidate may happen now and, if so, applies it and queues
 * the events it stands for (one, or up to three when Go's reader splits
 * it: GoSwitch becomes GoSwitch + GoBlock/GoDestroy + GoStart;
 * GoDestroySyscall on a P adds a ProcSteal), each with the state
 * transitions Go's reader reports for it.
 *
 * State is per goroutine, P and M only (and the GC sequence), so memory
 * follows the number of live goroutines and threads, not of events. An
 * order object belongs to one reader and one thread.
 */
#ifndef GTR_CORE_V2_ORDER_H
#define GTR_CORE_V2_ORDER_H

#include <stdint.h>

#include "core/trace/event.h"
#include "core/trace/spec.h"
#include "core/v2/v2.h"

typedef struct gtr_v2_order gtr_v2_order;

/* An event the ordering let through, not yet handed to the caller. */
typedef struct gtr_v2_out {
	gtr_event ev;                   /* all but ts and trans[].reason */
	int64_t time;                   /* Go's time, ns, before the monotonic fix-up */
	uint64_t reason[GTR_MAX_TRANS]; /* string id of trans[i].reason, 0 for none */
	int64_t batch, event;           /* where it was read, for errors (-1: none) */
} gtr_v2_out;

/* `specs` is the trace version's table (for each event's main stack). */
gtr_v2_order *gtr_v2_order_create(const gtr_spec *specs, size_t nspecs);
void gtr_v2_order_free(gtr_v2_order *o);

/*
 * Tries to advance ev, the next event of thread m (-1: no thread), in
 * the generation numbered `gen` whose table index is `table`. Returns 1
 * when it advanced (events are queued), 0 when it cannot happen yet,
 * or a negative gtr_errcode when the trace contradicts itself.
 */
int gtr_v2_order_advance(gtr_v2_order *o, const gtr_v2_raw *ev, int64_t m, uint64_t gen,
			 uint32_t table, gtr_error *err);

/*
 * As gtr_v2_order_advance, for a tolerant read stuck on ev because what
 * it waits for was lost: ev happens whatever the state says (the states
 * it needs are made so), unless it contradicts the state outright.
 * Returns 1, or a negative gtr_errcode.
 */
int gtr_v2_order_force(gtr_v2_order *o, const gtr_v2_raw *ev, int64_t m, uint64_t gen,
		       uint32_t table, gtr_error *err);

/*
 * Pops the oldest queued event: NULL when none is queued. It stays valid,
 * and the caller may change it, until the next call on o.
 */
gtr_v2_out *gtr_v2_order_next(gtr_v2_order *o);

/* The most slots a lookup of a goroutine it knows probes (1: none
 * moved), for tests: ids chosen to share a slot must not make it the
 * number of goroutines. */
size_t gtr_v2_order_probe_max(const gtr_v2_order *o);

#endif
