/*
 * core/v1/v1_order.h: Go's order of a v1 trace's events, and the goroutine
 * and P state transitions they make. Internal to core/.
 *
 * v1 batches are written per P and are not ordered across Ps, so the
 * reader keeps one cursor per P and merges them as Go's parsers do: go
 * 1.5 traces by their global sequence numbers, later ones by time among
 * the events whose goroutine is in the state (and at the sequence
 * number) they expect. Syscall exits and CPU samples are then moved to
 * the time they carry (the index lists them), as Go's final sort does.
 * Each event's transitions are those Go 1.27's v1-to-v2 conversion
 * gives it; its g and p are those Go 1.15's `go tool trace -d` prints.
 *
 * Memory: one cursor per P, per-goroutine and per-P state, and a bit per
 * out-of-band event; never the event stream.
 */
#ifndef GTR_CORE_V1_ORDER_H
#define GTR_CORE_V1_ORDER_H

#include "core/v1/v1.h"

/* Opens an ordered reader over t (whose index is built). *out owns it; what a
 * tolerant read skips goes to *loss. */
int gtr_v1_order_open(void **out, const gtr_trace *t, gtr_loss *loss, gtr_error *err);

/* Same contract as gtr_reader_next. */
int gtr_v1_order_next(void *o, gtr_event *ev, gtr_error *err);

void gtr_v1_order_free(void *o);

#endif
