/*
 * core/analysis/scan.c: the greedy analysis over per-M event streams, in parallel.
 *
 * Pre-pass: each generation's end time, from the last batch of each M
 * in it and its CPU samples (see chain_gens), in parallel.
 *
 * Pass 1: workers take whole M streams (every event batch of one M, in
 * every generation, in order) and walk them with per-stream state only:
 * the goroutine and the P the M holds, and the slice it runs. A slice
 * begins and ends on the M that runs it, so a slice that a batch or a
 * generation boundary cuts simply continues in the same walk; nothing
 * is stitched. Each worker keeps its own top-K heap, pauses, GOMAXPROCS
 * changes and counts, and records the walk's state at each batch start.
 *
 * Times. Go's reader makes times strictly increasing in its global order
 * (an event not later than the previous one gets the previous time plus
 * one ns), and puts a generation's events after its Sync, after all of
 * the previous generation. A stream applies the rule to its own events,
 * starting each generation at that generation's Sync as the pre-pass
 * placed it: the "local" time. It is never later than Go's time, and
 * equals it unless events of other threads share its nanosecond (or
 * the few before it): then Go's is later by at most their number. The
 * output shows local times; scan.h says by how much they differ.
 *
 * Order. Local times keep each stream's order, not the order between
 * streams where a generation's start piles events up. What depends on
 * the latter (the waiters, pass 2) goes by order keys (scan_okey), which
 * pass 1 records with the local times: Go's merge order of the threads,
 * but for events of different Ms with equal keys (see find_waiters).
 *
 * Between the passes the main thread merges the heaps, sorts the pauses,
 * and for the pauses that get printed finds the goroutines still running
 * on other Ms when each began, by walking those Ms from the batch whose
 * recorded key precedes the pause's.
 *
 * Pass 2, in parallel again, fetches what the printed goroutines did
 * before their printed slices: their creation stack, the stack each
 * resumed at, and their last events. It walks only the batches that can
 * hold these: those of every M around each slice's start, in a time
 * window that grows until it holds the history (fetch_history), and
 * those that create a goroutine it looks for (pass 1 records the range
 * of goroutine ids each batch creates). Each walk starts from the state
 * pass 1 recorded at its first batch. The events come from several Ms
 * and are put in order by order key, then by M (the streams are
 * numbered in M order), then by local time: where two Ms' events have
 * the same key, Go's order may differ.
 *
 * Memory: per-batch state (like the index), the pauses and GOMAXPROCS
 * changes (like the ordered path), K slices per worker, and the small
 * tracked set. Never per event or per goroutine.
 */
#include "core/analysis/scan_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/sort.h"
#include "core/base/vec.h"
#include "io/meter.h"

/* ---- heaps and orders ---- */

static int cslice_cmp(const cslice *a, const cslice *b)
{
	int64_t da = a->end - a->start, db = b->end - b->start;
	if (da != db)
		return da > db ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->g != b->g)
		return a->g < b->g ? -1 : 1;
	return 0;
}

static int cslice_qsort(const void *a, const void *b)
{
	return cslice_cmp(a, b);
}

void scan_heap_push(worker *w, const cslice *s)
{
	cslice *h = w->heap;
	if (w->nheap == w->capheap) {
		if (cslice_cmp(&h[0], s) <= 0)
			return;
		h[0] = *s;
		for (size_t i = 0;;) {
			size_t l = 2 * i + 1, r = l + 1, m = i;
			if (l < w->nheap && cslice_cmp(&h[l], &h[m]) > 0)
				m = l;
			if (r < w->nheap && cslice_cmp(&h[r], &h[m]) > 0)
				m = r;
			if (m == i)
				break;
			cslice x = h[i];
			h[i] = h[m];
			h[m] = x;
			i = m;
		}
		return;
	}
	size_t i = w->nheap++;
	h[i] = *s;
	while (i > 0 && cslice_cmp(&h[i], &h[(i - 1) / 2]) > 0) {
		cslice x = h[i];
		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

/* ---- the walk ---- */


/* Track lookup: the first track of goroutine g, or -1. */
ptrdiff_t scan_track_find(const scan *s, int64_t g)
{
	if (!s->tcap || g < 0)
		return -1;
	for (size_t i = ((uint64_t)g * 0x9e3779b97f4a7c15ull >> 17) & (s->tcap - 1);;
	     i = (i + 1) & (s->tcap - 1)) {
		if (s->tkeys[i] == -1)
			return -1;
		if (s->tkeys[i] == g)
			return (ptrdiff_t)s->tidx[i];
	}
}


/*
 * Pass 2: event `type` at local time t involves goroutine g (as ev->g or
 * by a transition): record it for every track of g it precedes.
 */
static void note(walk *k, int64_t g, int64_t t, uint16_t type, int create, uint64_t cstack,
		 int resume, uint64_t rstack)
{
	scan *s = k->s;
	ptrdiff_t first = scan_track_find(s, g);
	if (first < 0)
		return;
	const opos here = {k->key, k->si, t};
	for (size_t i = (size_t)first; i < s->ntracks && s->tracks[i].g == g; i++) {
		const track *tr = &s->tracks[i];
		hist *h = &k->w->hs[i];
		/* On the track's own stream, local times order the events; on
		 * another, the order key, where one that shares the start's
		 * comes first: a goroutine's events on another M at the
		 * instant it starts running here are what made it runnable. */
		int same = k->si == tr->stream;
		/* CPU samples (si past the streams) come after the events of
		 * their very key: Go's reader takes one only when it is earlier
		 * than every thread's next event. */
		int before = same ? t < tr->start
			     : s->v1 || k->si >= s->nstreams ? k->key < tr->key : k->key <= tr->key;
		int at = same && t == tr->start;
		if (create && cstack && (before || at) && opos_cmp(&here, &h->create_at) >= 0) {
			h->create_at = here;
			h->create = (gtr_stackref){k->gen, cstack};
		}
		if (resume && (before || (at && tr->at_start_resume)) && opos_cmp(&here, &h->resume_at) >= 0) {
			if (resume == R_CREATE) {
				h->resume_at = here;
				h->resume_kind = 1;
			} else if (rstack && resume == R_STACK) {
				h->resume_at = here;
				h->resume_kind = 0;
				h->resume = (gtr_stackref){k->gen, rstack};
			} else if (rstack && resume == R_UNDET && h->create_at.key < 0 &&
				   (h->undet_at.key < 0 || opos_cmp(&here, &h->undet_at) < 0)) {
				/* Go's reader takes the stack of the status that
				 * first tells it of the goroutine, in whatever
				 * generation that is: the earliest one. */
				h->undet_at = here;
				h->undet = (gtr_stackref){k->gen, rstack};
			}
		}
		if (before) {
			/* Keep the latest CHAIN_KEEP: replace the oldest. */
			size_t slot = h->nchain;
			if (h->nchain == CHAIN_KEEP) {
				slot = 0;
				for (size_t j = 1; j < CHAIN_KEEP; j++)
					if (opos_cmp(&h->chain[j].at, &h->chain[slot].at) < 0)
						slot = j;
				if (opos_cmp(&h->chain[slot].at, &here) > 0)
					continue;
			} else {
				h->nchain++;
			}
			h->chain[slot].at = here;
			h->chain[slot].type = type;
		}
	}
}


int scan_nomem(gtr_error *err)
{
	return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
}

/* The walk's steps take the pass as a constant: each walk below is
 * compiled once per pass, without the tests of the others. */

static ALWAYS_INLINE void end_slice(walk *k, int64_t t, const emit *e, int64_t g, const int mode)
{
	mstate *st = &k->st;
	if (mode == MODE_PASS1) {
		/* Most slices are shorter than the heap's shortest: count them only. */
		worker *w = k->w;
		int64_t end = t < st->start ? st->start : t;
		if (w->nheap == w->capheap && end - st->start < w->heap[0].end - w->heap[0].start) {
			w->nslices++;
			st->open = 0;
			return;
		}
	} else if (mode == MODE_PASS2) {
		st->open = 0;
		return;
	}
	cslice sl;
	sl.start = st->start;
	sl.end = t < st->start ? st->start : t;
	sl.g = g;
	sl.p = st->slice_p;
	sl.reason = e->reason;
	sl.end_stack = e->evg == g ? e->stack : 0;
	sl.gen = k->gen;
	sl.stream = k->si;
	sl.start_ev = st->start_ev;
	sl.end_ev = e->type;
	sl.end_state = e->to;
	sl.truncated = 0;
	st->open = 0;
	if (mode == MODE_PASS1) {
		k->w->nslices++;
		scan_heap_push(k->w, &sl);
	} else if (mode == MODE_WAITER && k->seek->found && !k->seek->done) {
		wseek *q = k->seek;
		q->done = 1;
		if (k->key == q->te)
			q->tie_end = 1;
		if (k->key < q->te) {
			q->stopped = 1;
			q->stop = (opos){k->key, k->si, t};
			sl.start = q->sl.start;
			sl.start_ev = q->sl.start_ev;
			q->sl = sl;
		}
	}
}

/* Applies one emitted event at local time t. */
static ALWAYS_INLINE int apply(walk *k, int64_t t, const emit *e, const int mode)
{
	mstate *st = &k->st;
	if (mode == MODE_PASS2 && !e->quiet) {
		int resume = R_NONE;
		uint64_t rstack = 0;
		if (e->has_tr) {
			if (e->from == GTR_GS_NOTEXIST)
				resume = R_CREATE;
			else if (e->from == GTR_GS_RUNNING && e->evg == e->id && e->stack)
				resume = R_STACK, rstack = e->stack;
			else if ((e->from == GTR_GS_UNDETERMINED || e->status) && e->tr_stack)
				resume = R_UNDET, rstack = e->tr_stack;
		}
		if (e->evg >= 0)
			note(k, e->evg, t, e->type, 0, 0,
			     e->has_tr && e->id == e->evg ? resume : R_NONE, rstack);
		if (e->has_tr && e->id != e->evg)
			note(k, e->id, t, e->type, e->from == GTR_GS_NOTEXIST, e->tr_stack,
			     resume, rstack);
	}
	if (mode == MODE_WAITER) {
		wseek *q = k->seek;
		if (q->bylocal) {
			if (t >= q->ts) {
				q->key = k->key;
				q->done = 1;
			}
			return 0;
		}
		/* Events whose key is the pause's come before it here; if
		 * they start or end this stream's slice, Go's order may say
		 * otherwise (wseek.tie). */
		if (!q->passed && k->key < q->ts)
			q->pk = k->key;
		if (!q->passed && k->key == q->ts && !q->tie_seen) {
			q->tie_seen = 1;
			q->pre_open = st->open;
			q->pre_g = st->g;
			q->pre_start = st->start;
		}
		if (!q->passed && (k->key > q->ts || (q->after && k->key == q->ts))) {
			q->passed = 1;
			if (q->tie_seen && !q->after &&
			    (q->pre_open != st->open ||
			     (st->open && (q->pre_g != st->g || q->pre_start != st->start))))
				q->tie = 1;
			if (q->pkonly) {
				q->done = 1;
				return 0;
			}
			if (st->open) {
				q->found = 1;
				q->sl.start = st->start;
				q->sl.start_ev = st->start_ev;
				q->sl.g = st->g;
				q->sl.p = st->slice_p;
				q->sl.stream = k->si;
			} else {
				q->done = 1;
			}
		}
	}
	if (!e->has_tr)
		return 0;
	/* A slice: from a transition to Running to the next one out of it. */
	if (st->open && e->id == st->g && e->to != GTR_GS_RUNNING)
		end_slice(k, t, e, st->g, mode);
	if (e->to == GTR_GS_RUNNING && !(st->open && st->g == e->id)) {
		if (st->open) /* another goroutine's status says it runs here */
			end_slice(k, t, e, st->g, mode);
		st->open = 1;
		st->g = e->id;
		st->start = t;
		st->slice_p = st->p;
		st->start_ev = e->type;
	}
	return 0;
}

int scan_apply(walk *k, int64_t t, const emit *e)
{
	if (k->s->v1)
		k->key = t; /* v1 local times are Go's */
	return apply(k, t, e, k->mode);
}

/* scan_emit, with the walk of v2 calling apply in line. A function, so
 * that its time is taken whether or not the pass wants the event. */
static ALWAYS_INLINE int emit_v2(walk *k, int64_t t, const emit *e, const int mode)
{
	return scan_wants_in(k->s, mode, e) ? apply(k, t, e, mode) : 0;
}

static int add_stw(walk *k, int64_t t, uint64_t kind)
{
	worker *w = k->w;
	mstate *st = &k->st;
	if (st->stw_open) {
		w->stw[st->stw].end = t;
		w->stw[st->stw].kend = k->key;
		w->stw[st->stw].truncated = 1;
		w->stw[st->stw].open = 0;
	}
	if (gtr_grow(&w->stw, &w->capstw, w->nstw + 1, sizeof *w->stw) < 0)
		return GTR_E_NOMEM;
	w->stw[w->nstw] = (cstw){.start = t, .kstart = k->key, .g = st->g, .p = st->p, .kind = kind, .gen = k->gen,
				 .stream = k->si, .open = 1};
	st->stw = w->nstw++;
	st->stw_open = 1;
	return 0;
}

/* gtr_v2_ns, inlined: the walk converts every event's time. */
static inline int64_t ns_of(double ns_per_tick, uint64_t ticks)
{
	double x = (double)ticks * ns_per_tick;
	if (!(x < 9223372036854775808.0) || x < -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

/*
 * Walks stream si from its batch position `from` with state k->st, to
 * its end (or, for a waiter walk, until the question is answered).
 */
void scan_progress(walk *k, uint64_t bytes)
{
	scan *s = k->s;
	if (k->mode != MODE_PASS1)
		return;
	uint64_t d = atomic_fetch_add_explicit(&s->done, bytes, memory_order_relaxed) + bytes;
	if (k->w == s->ws0 && s->t->progress && d >= s->told + s->t->progress_step && d < s->total) {
		s->told = d;
		s->t->progress(s->t->progress_ctx, GTR_PHASE_DECODE, d, s->total);
	}
}

static int cmp_steal(const void *a, const void *b)
{
	const csteal *x = a, *y = b;
	if (x->m != y->m)
		return x->m < y->m ? -1 : 1;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->start - y->start; /* at one time, the steal first */
}

/*
 * An M that held a P in a syscall and starts another (or the same) P, or
 * ends the syscall blocked without one, must have lost the first to a
 * ProcSteal, written by another M; Go's reader lets the start (the end)
 * happen only after that steal. Where the steal was written
 * later than the start (sysmon writes it after it took the P, the M may
 * be quicker), Go's reader moves the start and what follows it on that M
 * past the steal, tens of microseconds at times, which the fast path's
 * times cannot follow. Returns 1 when some start of an (M, P) has no steal
 * of that P from that M written since the previous start (or ever), 0
 * when every one has, or GTR_E_NOMEM.
 */
static int steal_late(worker *ws, unsigned jobs)
{
	size_t n = 0;
	for (unsigned i = 0; i < jobs; i++)
		n += ws[i].nsteals;
	if (n == 0)
		return 0;
	csteal *all = malloc(n * sizeof *all);
	if (!all)
		return GTR_E_NOMEM;
	n = 0;
	for (unsigned i = 0; i < jobs; i++) {
		if (ws[i].nsteals)
			memcpy(all + n, ws[i].steals, ws[i].nsteals * sizeof *all);
		n += ws[i].nsteals;
	}
	qsort(all, n, sizeof *all, cmp_steal);
	int late = 0, have = 0;
	for (size_t i = 0; i < n && !late; i++) {
		if (i == 0 || all[i].m != all[i - 1].m || all[i].p != all[i - 1].p)
			have = 0;
		if (!all[i].start)
			have = 1;
		else if (!have)
			late = 1;
		else
			have = 0;
	}
	free(all);
	return late;
}

static int add_steal(worker *w, csteal c)
{
	if (gtr_grow(&w->steals, &w->capsteals, w->nsteals + 1, sizeof *w->steals) < 0)
		return GTR_E_NOMEM;
	w->steals[w->nsteals++] = c;
	return 0;
}

/*
 * One v2 event of type `type` with arguments a[] at local time t (Go's
 * reader read it at `raw`): the M's state, and the emitted events the
 * pass can use. Returns 0 or GTR_E_NOMEM.
 */
static ALWAYS_INLINE int step_v2(walk *k, uint64_t type, const uint64_t *a, int64_t t, int64_t raw,
				 const int mode)
{
	scan *s = k->s;
	mstate *st = &k->st;
	worker *w = k->w;
	const stream *sm = &s->streams[k->si];
	const uint32_t gen = k->gen;
	emit e = {.type = (uint16_t)type, .evg = st->g, .id = -1};
	switch (type) {
	case GTR_V2_EV_PROC_STATUS:
		if (a[1] == GTR_V2_PROC_RUNNING || a[1] == GTR_V2_PROC_SYSCALL) {
			st->p = (int64_t)a[0];
			st->pnew = 0;
		}
		emit_v2(k, t, &e, mode);
		break;
	case GTR_V2_EV_PROC_START:
		if (mode == MODE_PASS1 && st->p != -1 &&
		    add_steal(w, (csteal){.m = sm->m, .p = st->p, .t = t, .start = 1}) < 0)
			return GTR_E_NOMEM;
		st->p = (int64_t)a[0];
		st->pnew = st->g != -1; /* a goroutine leaving a syscall */
		emit_v2(k, t, &e, mode);
		break;
	case GTR_V2_EV_PROC_STOP:
		st->p = -1;
		st->pnew = 0;
		emit_v2(k, t, &e, mode);
		break;
	case GTR_V2_EV_PROC_STEAL:
		if (a[2] == sm->m && st->p == (int64_t)a[0]) {
			st->p = -1;
			st->pnew = 0;
		}
		else if (mode == MODE_PASS1 && a[2] != sm->m &&
			 add_steal(w, (csteal){.m = (int64_t)a[2], .p = (int64_t)a[0], .t = t}) < 0)
			return GTR_E_NOMEM;
		emit_v2(k, t, &e, mode);
		break;
	case GTR_V2_EV_GO_STATUS:
	case GTR_V2_EV_GO_STATUS_STACK: {
		e.has_tr = 1;
		e.id = (int64_t)a[0];
		uint64_t status = a[2];
		static const uint8_t gs[] = {GTR_GS_UNDETERMINED, GTR_GS_RUNNABLE,
					     GTR_GS_RUNNING, GTR_GS_SYSCALL,
					     GTR_GS_WAITING};
		e.to = status <= GTR_V2_GO_WAITING ? gs[status] : GTR_GS_UNDETERMINED;
		e.from = gen == 0 ? GTR_GS_UNDETERMINED : e.to;
		e.tr_stack = type == GTR_V2_EV_GO_STATUS_STACK ? a[3] : 0;
		e.status = 1;
		if (status == GTR_V2_GO_SYSCALL && a[1] != sm->m)
			e.evg = e.id; /* reported on the M it is on */
		emit_v2(k, t, &e, mode);
		if (status == GTR_V2_GO_RUNNING ||
		    (status == GTR_V2_GO_SYSCALL && a[1] == sm->m))
			st->g = e.id;
		break;
	}
	case GTR_V2_EV_GO_CREATE:
	case GTR_V2_EV_GO_CREATE_BLOCKED:
		if (mode == MODE_PASS1)
			created(&k->cmin, &k->cmax, a[0]);
		e.stack = a[2];
		scan_tr(&e, (int64_t)a[0], GTR_GS_NOTEXIST, type == GTR_V2_EV_GO_CREATE ? GTR_GS_RUNNABLE : GTR_GS_WAITING);
		e.tr_stack = a[1];
		emit_v2(k, t, &e, mode);
		break;
	case GTR_V2_EV_GO_CREATE_SYSCALL:
		if (mode == MODE_PASS1)
			created(&k->cmin, &k->cmax, a[0]);
		scan_tr(&e, (int64_t)a[0], GTR_GS_NOTEXIST, GTR_GS_SYSCALL);
		emit_v2(k, t, &e, mode);
		st->g = e.id;
		break;
	case GTR_V2_EV_GO_START:
		scan_tr(&e, (int64_t)a[0], GTR_GS_RUNNABLE, GTR_GS_RUNNING);
		emit_v2(k, t, &e, mode);
		st->g = e.id;
		break;
	case GTR_V2_EV_GO_DESTROY:
	case GTR_V2_EV_GO_STOP:
	case GTR_V2_EV_GO_BLOCK:
		e.has_tr = 1;
		e.id = st->g;
		e.from = GTR_GS_RUNNING;
		if (type == GTR_V2_EV_GO_DESTROY) {
			e.to = GTR_GS_NOTEXIST;
		} else {
			e.to = type == GTR_V2_EV_GO_STOP ? GTR_GS_RUNNABLE
							   : GTR_GS_WAITING;
			e.reason = a[0];
			e.stack = a[1];
		}
		emit_v2(k, t, &e, mode);
		st->g = -1;
		break;
	case GTR_V2_EV_GO_UNBLOCK:
		e.stack = a[2];
		scan_tr(&e, (int64_t)a[0], GTR_GS_WAITING, GTR_GS_RUNNABLE);
		emit_v2(k, t, &e, mode);
		break;
	case GTR_V2_EV_GO_SWITCH:
	case GTR_V2_EV_GO_SWITCH_DESTROY: {
		/* Go's reader: GoSwitch, then GoBlock or GoDestroy of
		 * the current goroutine, then GoStart of the next. */
		int64_t ng = (int64_t)a[0], cur = st->g;
		scan_tr(&e, ng, GTR_GS_WAITING, GTR_GS_RUNNABLE);
		emit_v2(k, t, &e, mode);
		emit b2 = {.evg = cur, .has_tr = 1, .id = cur, .from = GTR_GS_RUNNING};
		if (type == GTR_V2_EV_GO_SWITCH) {
			b2.type = GTR_V2_EV_GO_BLOCK;
			b2.to = GTR_GS_WAITING;
		} else {
			b2.type = GTR_V2_EV_GO_DESTROY;
			b2.to = GTR_GS_NOTEXIST;
		}
		/* Each of the two takes its ns whether or not this pass wants
		 * it: pass 2 must see the start where pass 1 put it. */
		emit_v2(k, scan_tick(st, raw), &b2, mode);
		emit s3 = {.type = GTR_V2_EV_GO_START, .evg = -1, .has_tr = 1, .id = ng,
			   .from = GTR_GS_RUNNABLE, .to = GTR_GS_RUNNING};
		st->g = -1;
		emit_v2(k, scan_tick(st, raw), &s3, mode);
		st->g = ng;
		if (mode == MODE_PASS1)
			w->events += 2;
		break;
	}
	case GTR_V2_EV_GO_SYSCALL_BEGIN:
		e.stack = a[1];
		scan_tr(&e, st->g, GTR_GS_RUNNING, GTR_GS_SYSCALL);
		e.tr_stack = a[1];
		emit_v2(k, t, &e, mode);
		break;
	case GTR_V2_EV_GO_SYSCALL_END:
		scan_tr(&e, st->g, GTR_GS_SYSCALL, GTR_GS_RUNNING);
		emit_v2(k, t, &e, mode);
		break;
	case GTR_V2_EV_GO_SYSCALL_END_BLOCKED:
		/* Still holding the P it entered the syscall with: another M
		 * stole it, and Go's reader lets this event happen only after
		 * that steal (steal_late). */
		if (st->p != -1 && !st->pnew) {
			if (mode == MODE_PASS1 &&
			    add_steal(w, (csteal){.m = sm->m, .p = st->p, .t = t, .start = 1}) < 0)
				return GTR_E_NOMEM;
			st->p = -1;
		}
		st->pnew = 0;
		scan_tr(&e, st->g, GTR_GS_SYSCALL, GTR_GS_RUNNABLE);
		emit_v2(k, t, &e, mode);
		st->g = -1;
		break;
	case GTR_V2_EV_GO_DESTROY_SYSCALL:
		if (st->p != -1) {
			/* Go's reader adds a ProcSteal of the P first. */
			emit ps = {.type = GTR_V2_EV_PROC_STEAL, .evg = st->g, .id = -1};
			emit_v2(k, t, &ps, mode);
			t = scan_tick(st, raw);
			st->p = -1;
			if (mode == MODE_PASS1)
				w->events++;
		}
		scan_tr(&e, st->g, GTR_GS_SYSCALL, GTR_GS_NOTEXIST);
		emit_v2(k, t, &e, mode);
		st->g = -1;
		break;
	case GTR_V2_EV_STW_BEGIN:
		e.stack = a[1];
		emit_v2(k, t, &e, mode);
		if (mode == MODE_PASS1 && add_stw(k, t, a[0]) < 0)
			return GTR_E_NOMEM;
		break;
	case GTR_V2_EV_STW_END:
		emit_v2(k, t, &e, mode);
		if (mode == MODE_PASS1) {
			if (st->stw_open) {
				w->stw[st->stw].end = t;
				w->stw[st->stw].kend = k->key;
				w->stw[st->stw].open = 0;
				st->stw_open = 0;
			} else {
				w->orphan_ends++;
			}
		}
		break;
	case GTR_V2_EV_PROCS_CHANGE:
		e.stack = a[1];
		emit_v2(k, t, &e, mode);
		if (mode == MODE_PASS1) {
			if (gtr_grow(&w->procs, &w->capprocs, w->nprocs + 1,
				     sizeof *w->procs) < 0)
				return GTR_E_NOMEM;
			w->procs[w->nprocs++] = (cprocs){t, a[0], gen, k->si};
		}
		break;
	default:
		emit_v2(k, t, &e, mode);
		break;
	}
	return 0;
}

static ALWAYS_INLINE int walk_v2_in(walk *k, size_t from, gtr_error *err, const int mode)
{
	scan *s = k->s;
	const stream *sm = &s->streams[k->si];
	const gtr_v2_index *ix = s->ix;
	const gtr_kernels *kn = &s->t->kernels;
	mstate *st = &k->st;
	worker *w = k->w;
	uint32_t gen = UINT32_MAX;
	if (from > 0)
		gen = s->sb[sm->first + from - 1].gen;
	for (size_t i = from; i < k->to; i++) {
		const sbatch *b = &s->sb[sm->first + i];
		k->cmin = INT64_MAX; /* pass 1: the goroutines it creates */
		k->cmax = INT64_MIN;
		if (b->gen != gen) {
			gen = b->gen;
			k->gen = gen;
			/* Every event of a generation comes after its Sync. */
			if (s->gensync[gen] > st->last)
				st->last = s->gensync[gen];
		}
		k->gen = gen;
		if (mode == MODE_PASS1)
			s->snaps[sm->first + i] = *st;
		const gtr_v2_batch *bt = &ix->batches[b->b];
		const uint8_t *p = s->t->data + bt->data, *end = p + bt->len;
		double npt = ix->gens[gen].ns_per_tick;
		const int64_t koff = s->koff[gen];
		/* A whole ns_per_tick (Go 1.26 on Linux: 64) times a tick count
		 * below 2^53 / it is exact in a double: the product is Go's. */
		uint64_t whole = npt >= 1 && npt <= 1048576 && npt == (double)(uint64_t)npt ? (uint64_t)npt : 0;
		uint64_t exact = whole ? (UINT64_C(1) << 53) / whole : 0;
		int64_t clast = 0;
		/* The batch is a run of varints (each type byte is one too),
		 * decoded a chunk at a time: vals[iv, nv) are still to walk.
		 * An error sends greedy to the ordered path, which says where
		 * exactly; the offsets here are the chunk's. */
		size_t iv = 0, nv = 0;
		for (;;) {
			if (nv - iv < WALK_CARRY && p < end) {
				memmove(w->vals, w->vals + iv, (nv - iv) * sizeof *w->vals);
				nv -= iv;
				iv = 0;
				const uint8_t *ce = end - p > WALK_CHUNK ? p + WALK_CHUNK : end;
				size_t cnt = kn->uvarint_marks(p, ce, w->bits);
				ptrdiff_t r = cnt ? kn->uvarint_decode_n(p, end, w->vals + nv, cnt) : -1;
				if (r <= 0)
					return gtr_error_set(err, GTR_E_VARINT, (uint64_t)(p - s->t->data),
							     "bad varint");
				p += r;
				nv += cnt;
				/* What an event reads past its own values is defined. */
				memset(w->vals + nv, 0, WALK_CARRY * sizeof *w->vals);
			}
			if (iv == nv)
				break;
			uint64_t type = w->vals[iv];
			unsigned nw = type < GTR_V2_NUM_EVENTS ? s->nwire[type] : 0;
			if (!nw)
				return gtr_error_set(err, GTR_E_CORRUPT, (uint64_t)(p - s->t->data),
						     "unexpected event type %" PRIu64, type);
			if (nv - iv <= nw) {
				if (p < end)
					continue; /* the chunk ended inside the event */
				return gtr_error_set(err, GTR_E_TRUNCATED, (uint64_t)(p - s->t->data),
						     "batch ends inside an event");
			}
			const uint64_t *v = w->vals + iv + 1;
			iv += 1 + nw;
			/* Go's batch cursor: a zero running time re-reads the base. */
			if (clast == 0)
				clast = ns_of(npt, bt->time);
			uint64_t d = v[0] < exact ? v[0] * whole : (uint64_t)ns_of(npt, v[0]);
			int64_t raw = (int64_t)(d + (uint64_t)clast);
			clast = raw;
			int64_t t = scan_tick(st, raw);
			k->key = scan_okey(st, raw, koff);
			const uint64_t *a = v + 1;
			if (mode == MODE_PASS1)
				w->events++;
			if (step_v2(k, type, a, t, raw, mode) < 0)
				return scan_nomem(err);
			if (mode == MODE_WAITER && k->seek->done)
				return 0;
		}
		scan_progress(k, bt->len);
		if (mode == MODE_PASS1) {
			if (st->okey > s->kmax[gen])
				atomic_store_explicit(&s->keybad, 1, memory_order_relaxed);
			s->cmin[sm->first + i] = k->cmin;
			s->cmax[sm->first + i] = k->cmax;
			if (st->last > w->genmax[gen])
				w->genmax[gen] = st->last;
			if (st->last > w->maxlocal)
				w->maxlocal = st->last;
		}
	}
	return 0;
}

static int walk_v2(walk *k, size_t from, gtr_error *err)
{
	switch (k->mode) {
	case MODE_PASS1:
		return walk_v2_in(k, from, err, MODE_PASS1);
	case MODE_PASS2:
		return walk_v2_in(k, from, err, MODE_PASS2);
	default:
		return walk_v2_in(k, from, err, MODE_WAITER);
	}
}

/* ---- pass 1's fast walk (v2) ---- */

/*
 * Pass 1 spends most of its time on the events that only start or stop
 * a slice. walk_v2_fast takes those without a branch on the type: a
 * batch's varints are decoded a chunk at a time into 32 bits with, for
 * each, how many varints an event of that type would take (the next
 * event's position is then one load away), and each event's class says
 * what it does to the M's goroutine and slice. The other events, the
 * rare ones (statuses, Ps, pauses, switches), go to step_v2 as in the
 * generic walk. What the fast walk cannot take (a value it needs that
 * does not fit in 32 bits, a type or a batch it does not expect, a
 * clock that is not a whole number of ns per tick) makes pass 1 start
 * over with the generic walk, which also says what is wrong, if
 * anything is.
 */
enum {
	F_TR = 1,      /* a goroutine transition */
	F_IDA0 = 2,    /* of the goroutine in the first argument, else of the M's */
	F_RUN = 4,     /* to Running */
	F_GSET = 8,    /* the M's goroutine is then that one */
	F_GCLR = 16,   /* the M has no goroutine then */
	F_CREATE = 32, /* it creates the goroutine in the first argument */
	F_RARE = 64,   /* step_v2 takes it */
};
#define FAST_RETRY 1

/* What the fast walk keeps in registers: the M's state (see mstate) and
 * the worker's counts. */
typedef struct fstate {
	int64_t g, p, last, start, slice_p;
	uint64_t start_ev, open;
	int64_t raw;      /* Go's time of the previous event */
	int64_t thr;      /* a slice shorter than this does not enter the heap */
	int64_t cmin, cmax;
	uint64_t nslices;
} fstate;

static void fast_classes(scan *s)
{
	static const struct {
		uint8_t type, cls;
	} fast[] = {
		{GTR_V2_EV_GO_START, F_TR | F_IDA0 | F_RUN | F_GSET},
		{GTR_V2_EV_GO_STOP, F_TR | F_GCLR},
		{GTR_V2_EV_GO_BLOCK, F_TR | F_GCLR},
		{GTR_V2_EV_GO_DESTROY, F_TR | F_GCLR},
		{GTR_V2_EV_GO_UNBLOCK, F_TR | F_IDA0},
		{GTR_V2_EV_GO_CREATE, F_TR | F_IDA0 | F_CREATE},
		{GTR_V2_EV_GO_CREATE_BLOCKED, F_TR | F_IDA0 | F_CREATE},
		{GTR_V2_EV_GO_SYSCALL_BEGIN, F_TR},
		{GTR_V2_EV_GO_SYSCALL_END, F_TR | F_RUN},
	};
	/* What step_v2 does more than a transition to goroutines and slices. */
	static const uint8_t rare[] = {
		GTR_V2_EV_PROC_STATUS,         GTR_V2_EV_PROC_START,       GTR_V2_EV_PROC_STOP,
		GTR_V2_EV_PROC_STEAL,          GTR_V2_EV_GO_STATUS,        GTR_V2_EV_GO_STATUS_STACK,
		GTR_V2_EV_GO_CREATE_SYSCALL,   GTR_V2_EV_GO_SYSCALL_END_BLOCKED, GTR_V2_EV_GO_DESTROY_SYSCALL,
		GTR_V2_EV_GO_SWITCH,           GTR_V2_EV_GO_SWITCH_DESTROY, GTR_V2_EV_STW_BEGIN,
		GTR_V2_EV_STW_END,             GTR_V2_EV_PROCS_CHANGE,
	};
	memset(s->fstep, 0, sizeof s->fstep);
	memset(s->fcls, 0, sizeof s->fcls);
	for (unsigned t = 0; t < 64 && t < GTR_V2_NUM_EVENTS; t++)
		if (s->nwire[t])
			s->fstep[t] = (uint8_t)(1 + s->nwire[t]);
	for (size_t i = 0; i < sizeof fast / sizeof *fast; i++)
		s->fcls[fast[i].type] = fast[i].cls;
	for (size_t i = 0; i < sizeof rare / sizeof *rare; i++)
		s->fcls[rare[i]] = F_RARE;
}


static void fast_to_state(const fstate *f, walk *k)
{
	mstate *st = &k->st;
	st->g = f->g;
	st->p = f->p;
	st->last = f->last;
	st->start = f->start;
	st->slice_p = f->slice_p;
	st->start_ev = (uint16_t)f->start_ev;
	st->open = (uint8_t)f->open;
	k->cmin = f->cmin;
	k->cmax = f->cmax;
}

static void fast_from_state(fstate *f, const walk *k)
{
	const mstate *st = &k->st;
	f->g = st->g;
	f->p = st->p;
	f->last = st->last;
	f->start = st->start;
	f->slice_p = st->slice_p;
	f->start_ev = st->start_ev;
	f->open = st->open;
	f->cmin = k->cmin;
	f->cmax = k->cmax;
	f->thr = scan_heap_threshold(k->w);
}

/* A slice the fast walk ends at time t by event v (type, time, arguments)
 * that may enter the heap: what end_slice would push. */
static __attribute__((noinline)) int fast_push(walk *k, fstate *f, const uint32_t *v, int64_t t, int run)
{
	uint32_t type = v[0];
	uint64_t reason = 0, stack = 0;
	uint8_t to = GTR_GS_RUNNING;
	if (!run) {
		switch (type) {
		case GTR_V2_EV_GO_STOP:
		case GTR_V2_EV_GO_BLOCK:
			reason = v[2];
			stack = v[3];
			to = type == GTR_V2_EV_GO_STOP ? GTR_GS_RUNNABLE : GTR_GS_WAITING;
			break;
		case GTR_V2_EV_GO_DESTROY:
			to = GTR_GS_NOTEXIST;
			break;
		case GTR_V2_EV_GO_UNBLOCK:
		case GTR_V2_EV_GO_CREATE:
			stack = v[4];
			to = GTR_GS_RUNNABLE;
			break;
		case GTR_V2_EV_GO_CREATE_BLOCKED:
			stack = v[4];
			to = GTR_GS_WAITING;
			break;
		case GTR_V2_EV_GO_SYSCALL_BEGIN:
			stack = v[3];
			to = GTR_GS_SYSCALL;
			break;
		default:
			return FAST_RETRY;
		}
	}
	if (reason == GTR_UVARINT32_LONG || stack == GTR_UVARINT32_LONG)
		return FAST_RETRY;
	cslice sl = {.start = f->start, .end = t < f->start ? f->start : t, .g = f->g, .p = f->slice_p,
		     .reason = reason, .end_stack = stack, .gen = k->gen, .stream = k->si,
		     .start_ev = (uint16_t)f->start_ev, .end_ev = (uint16_t)type, .end_state = to};
	scan_heap_push(k->w, &sl);
	f->thr = scan_heap_threshold(k->w);
	return 0;
}

/*
 * An event step_v2 takes, its arguments widened. Pass 1 must know each
 * one it reads, but for two kinds of them: an M it only compares with
 * this stream's, which a value too long for 32 bits does not equal when
 * this M's id fits; and what it does not read: the stacks of statuses,
 * pauses and GOMAXPROCS changes, and the M of a goroutine status but a
 * syscall's (a goroutine that no M runs has ~0 there, and the runtime
 * writes such statuses in a batch of no M, ~0 too).
 */
static __attribute__((noinline)) int fast_rare(walk *k, fstate *f, const uint32_t *v, int64_t t)
{
	const uint32_t type = v[0];
	const uint64_t m = k->s->streams[k->si].m;
	unsigned mcmp = 0, unread = 0; /* bit j: argument j */
	switch (type) {
	case GTR_V2_EV_GO_STATUS_STACK:
		unread = 1u << 3;
		/* fall through */
	case GTR_V2_EV_GO_STATUS:
		if (v[4] == GTR_V2_GO_SYSCALL)
			mcmp = 1u << 1;
		else
			unread |= 1u << 1;
		break;
	case GTR_V2_EV_PROC_STEAL:
		mcmp = 1u << 2;
		break;
	case GTR_V2_EV_STW_BEGIN:
	case GTR_V2_EV_PROCS_CHANGE:
		unread = 1u << 1;
		break;
	}
	uint64_t a[WALK_CARRY];
	for (unsigned j = 0; j + 1 < k->s->nwire[type]; j++) {
		uint64_t x = v[2 + j];
		if (x == GTR_UVARINT32_LONG) {
			if ((mcmp >> j & 1) && m < GTR_UVARINT32_LONG)
				x = UINT64_MAX;
			else if (unread >> j & 1)
				x = 0;
			else
				return FAST_RETRY;
		}
		a[j] = x;
	}
	fast_to_state(f, k);
	/* Raw times only grow in a batch: k->st.okey is the batch's start's. */
	k->key = f->raw + k->s->koff[k->gen];
	if (k->key < k->st.okey)
		k->key = k->st.okey;
	int rc = step_v2(k, type, a, t, f->raw, MODE_PASS1);
	fast_from_state(f, k);
	return rc;
}

/*
 * One event at v (type, time delta, arguments): 0, FAST_RETRY or an
 * error. The classes of consecutive events are as good as random to a
 * branch predictor: what depends on them is written as selects. *f
 * stays in registers; the rare paths take a copy.
 */
static ALWAYS_INLINE int fast_event(walk *k, fstate *f, const uint32_t *v, uint64_t whole,
				    const uint8_t *fcls)
{
	const uint32_t type = v[0], ts = v[1], a0 = v[2];
	const unsigned cls = fcls[type];
	/* A goroutine that does not fit must not become the M's: any other
	 * id that does not fit then differs from it, as it should. */
	if (__builtin_expect(ts == GTR_UVARINT32_LONG || (a0 == GTR_UVARINT32_LONG && (cls & F_GSET)), 0))
		return FAST_RETRY;
	/* A whole ns per tick times a 32-bit count is exact: Go's product. */
	f->raw = (int64_t)((uint64_t)f->raw + ts * whole);
	const int64_t t = f->raw > f->last ? f->raw : f->last + 1;
	f->last = t;
	if (__builtin_expect(cls & (F_RARE | F_CREATE), 0)) {
		if (cls & F_RARE) {
			fstate x = *f;
			int rc = fast_rare(k, &x, v, t);
			*f = x;
			return rc;
		}
		const int64_t c = a0 == GTR_UVARINT32_LONG ? INT64_MAX : (int64_t)a0;
		f->cmin = c < f->cmin ? c : f->cmin;
		f->cmax = c > f->cmax ? c : f->cmax;
	}
	/* apply(), for a transition of goroutine id: a slice ends when its
	 * goroutine leaves Running, or another one enters it on this M; one
	 * starts when a goroutine enters Running that was not running here. */
	const int64_t id = (cls & F_IDA0) ? (int64_t)a0 : f->g;
	const unsigned run = (cls >> 2) & 1, same = id == f->g, open = (unsigned)f->open;
	const unsigned end = (cls & F_TR) & open & (run ^ same);
	const unsigned start = run & ~(open & same);
	f->nslices += end;
	if (__builtin_expect(end && (t < f->start ? f->start : t) - f->start >= f->thr, 0)) {
		fstate x = *f;
		int rc = fast_push(k, &x, v, t, (int)run);
		*f = x;
		if (rc)
			return rc;
	}
	f->open = (open & ~end) | start;
	f->start = start ? t : f->start;
	f->slice_p = start ? f->p : f->slice_p;
	f->start_ev = start ? type : f->start_ev;
	const int64_t g = start || (cls & F_GSET) ? id : f->g;
	f->g = (cls & F_GCLR) ? -1 : g;
	return 0;
}

/*
 * The hot loop of walk_v2_fast, a function of its own with no call in
 * it, so that its values stay in registers: the events from iv while
 * iv + WALK_CARRY <= lim, up to the first that it leaves to fast_event
 * (a rare or creating class, a bad type, a value that does not fit, a
 * slice that may enter the heap), before which it stops. Returns the
 * position it stopped at; *events counts those it applied.
 */
static __attribute__((noinline)) size_t fast_hot(fstate *f, const uint32_t *V, const uint8_t *S, size_t iv,
						 size_t lim, uint64_t whole, const uint8_t *fcls, uint32_t gen,
						 uint64_t *events)
{
	int64_t g = f->g, p = f->p, last = f->last, start = f->start, slice_p = f->slice_p, raw = f->raw;
	const int64_t thr = f->thr;
	uint64_t start_ev = f->start_ev, open = f->open, nsl = f->nslices, n = 0;
	(void)gen;
	while (iv + WALK_CARRY <= lim) {
		const uint32_t *v = V + iv;
		const unsigned stp = S[iv];
		const uint32_t type = v[0], ts = v[1], a0 = v[2];
		const unsigned cls = fcls[type];
		if (__builtin_expect(!stp || (cls & (F_RARE | F_CREATE)) || ts == GTR_UVARINT32_LONG ||
				     (a0 == GTR_UVARINT32_LONG && (cls & F_GSET)), 0))
			break;
		const int64_t nraw = (int64_t)((uint64_t)raw + ts * whole);
		const int64_t t = nraw > last ? nraw : last + 1;
		const int64_t id = (cls & F_IDA0) ? (int64_t)a0 : g;
		const int run = (cls & F_RUN) != 0;
		const int end = (cls & F_TR) && open && (run ? id != g : id == g);
		const int begin = run && !(open && id == g);
		if (__builtin_expect(end && (t < start ? start : t) - start >= thr, 0))
			break;
		raw = nraw;
		last = t;
		nsl += (uint64_t)end;
		open = (uint64_t)((open && !end) || begin);
		start = begin ? t : start;
		slice_p = begin ? p : slice_p;
		start_ev = begin ? type : start_ev;
		g = begin || (cls & F_GSET) ? id : g;
		g = (cls & F_GCLR) ? -1 : g;
		iv += stp;
		n++;
	}
	f->g = g;
	f->last = last;
	f->start = start;
	f->slice_p = slice_p;
	f->raw = raw;
	f->start_ev = start_ev;
	f->open = open;
	f->nslices = nsl;
	*events += n;
	return iv;
}

/*
 * The fast walks' window of values V (and their steps S): while fewer
 * than WALK_CARRY are left after iv and the batch has more, the rest
 * moves to the front and decode32_lut appends a chunk; the WALK_CARRY
 * values past the last are zeroed for the hot loop's reads ahead. 0, or
 * FAST_RETRY when decode32_lut takes no varint (bad or cut).
 */
static int fast_refill(const scan *s, const uint8_t **pp, const uint8_t *end, uint32_t *V, uint8_t *S, size_t *piv,
		       size_t *pnv)
{
	const uint8_t *p = *pp;
	size_t iv = *piv, nv = *pnv;
	while (nv - iv < WALK_CARRY && p < end) {
		memmove(V, V + iv, (nv - iv) * sizeof *V);
		memmove(S, S + iv, nv - iv);
		nv -= iv;
		iv = 0;
		const uint8_t *ce = end - p > WALK_CHUNK ? p + WALK_CHUNK : end;
		size_t used;
		ptrdiff_t cnt = s->t->kernels.uvarint_decode32_lut(p, ce, end, s->fstep, V + nv, S + nv, &used);
		if (cnt <= 0)
			return FAST_RETRY;
		p += used;
		nv += (size_t)cnt;
		memset(V + nv, 0, WALK_CARRY * sizeof *V);
	}
	*pp = p;
	*piv = iv;
	*pnv = nv;
	return 0;
}

/* Pass 1 over stream k->si: 0, FAST_RETRY, or a negative error. */
static int walk_v2_fast(walk *k, gtr_error *err)
{
	scan *s = k->s;
	const stream *sm = &s->streams[k->si];
	const gtr_v2_index *ix = s->ix;
	mstate *st = &k->st;
	worker *w = k->w;
	uint32_t *V = w->v32;
	uint8_t *S = w->step;
	uint32_t gen = UINT32_MAX;
	uint64_t events = 0;
	fstate f;
	for (size_t i = 0; i < sm->n; i++) {
		if (atomic_load_explicit(&s->retry, memory_order_relaxed))
			return FAST_RETRY; /* another worker's stream: pass 1 starts over */
		const sbatch *b = &s->sb[sm->first + i];
		if (b->gen != gen) {
			gen = b->gen;
			if (s->gensync[gen] > st->last)
				st->last = s->gensync[gen];
		}
		k->gen = gen;
		k->cmin = INT64_MAX;
		k->cmax = INT64_MIN;
		s->snaps[sm->first + i] = *st;
		const gtr_v2_batch *bt = &ix->batches[b->b];
		double npt = ix->gens[gen].ns_per_tick;
		if (!(npt >= 1 && npt <= 1048576 && npt == (double)(uint64_t)npt))
			return FAST_RETRY;
		const uint64_t whole = (uint64_t)npt;
		const uint8_t *p = s->t->data + bt->data, *end = p + bt->len;
		fast_from_state(&f, k);
		f.raw = ns_of(npt, bt->time);
		f.nslices = 0;
		const uint64_t events0 = events;
		size_t iv = 0, nv = 0;
		int rc = 0;
		for (;;) {
			if (fast_refill(s, &p, end, V, S, &iv, &nv))
				return FAST_RETRY;
			/* Events whose values are all here: the hot loop, and
			 * fast_event for one where it stops. */
			while (iv + WALK_CARRY <= nv) {
				iv = fast_hot(&f, V, S, iv, nv, whole, s->fcls, k->gen, &events);
				if (iv + WALK_CARRY > nv)
					break;
				const unsigned stp = S[iv];
				if (stp == 0)
					return FAST_RETRY;
				if ((rc = fast_event(k, &f, V + iv, whole, s->fcls)) != 0)
					break;
				iv += stp;
				events++;
			}
			if (rc)
				break;
			if (p < end)
				continue;
			/* The batch's last events. */
			while (iv < nv) {
				const unsigned stp = S[iv];
				if (stp == 0 || iv + stp > nv)
					return FAST_RETRY;
				if ((rc = fast_event(k, &f, V + iv, whole, s->fcls)) != 0)
					break;
				iv += stp;
				events++;
			}
			break;
		}
		if (rc)
			return rc < 0 ? (rc == GTR_E_NOMEM ? scan_nomem(err) : rc) : rc;
		fast_to_state(&f, k);
		if (events != events0) {
			/* The batch's last event (raw times only grow in a batch). */
			int64_t key = f.raw + s->koff[gen];
			if (key > st->okey)
				st->okey = key;
			if (st->okey > s->kmax[gen])
				atomic_store_explicit(&s->keybad, 1, memory_order_relaxed);
		}
		w->nslices += f.nslices;
		s->cmin[sm->first + i] = k->cmin;
		s->cmax[sm->first + i] = k->cmax;
		scan_progress(k, bt->len);
		if (st->last > w->genmax[gen])
			w->genmax[gen] = st->last;
		if (st->last > w->maxlocal)
			w->maxlocal = st->last;
	}
	w->events += events;
	return 0;
}

static int walk_stream(walk *k, size_t from, gtr_error *err)
{
	return k->s->v1 ? scan_v1_walk(k, from, err) : walk_v2(k, from, err);
}

static void mstate_init(mstate *st)
{
	memset(st, 0, sizeof *st);
	st->g = st->p = -1;
}

static int last_batch(scan *s, worker *w, size_t j, gtr_error *err);
static int pile_walk(scan *s, size_t j, gtr_error *err);
static int cpu_batch(scan *s, size_t j, gtr_error *err);

static void *work(void *arg)
{
	worker *w = arg;
	scan *s = w->s;
	size_t n = s->pass == MODE_ENDS ? s->ix->nms + s->ncpub
		   : s->pass == MODE_PILE ? s->ix->nms
		   : s->pass == MODE_PASS2 ? s->nunits : s->nstreams;
	for (;;) {
		size_t j = atomic_fetch_add(&s->next, 1);
		if (j >= n)
			break;
		if (s->pass == MODE_PILE) {
			int rc = pile_walk(s, j, &w->err);
			if (rc < 0) {
				w->rc = rc;
				break;
			}
			continue;
		}
		if (s->pass == MODE_ENDS) {
			int rc = j < s->ix->nms ? last_batch(s, w, j, &w->err)
						: cpu_batch(s, j - s->ix->nms, &w->err);
			if (rc < 0) {
				w->rc = rc;
				break;
			}
			continue;
		}
		if (s->pass == MODE_PASS2) {
			const hunit *u = &s->units[j];
			walk k = {.s = s, .w = w, .si = u->si, .to = u->to, .mode = MODE_PASS2};
			k.st = s->snaps[s->streams[u->si].first + u->from];
			int rc = walk_stream(&k, u->from, &w->err);
			if (rc < 0) {
				w->rc = rc;
				break;
			}
			continue;
		}
		walk k = {.s = s, .w = w, .si = (uint32_t)s->order[j],
			  .to = s->streams[s->order[j]].n, .mode = s->pass};
		mstate_init(&k.st);
		int rc;
		if (s->pass == MODE_PASS1 && s->v1 && s->fast) {
			rc = scan_v1_walk_fast(&k, &w->err);
		} else if (s->pass == MODE_PASS1 && s->fast) {
			rc = walk_v2_fast(&k, &w->err);
			if (rc == FAST_RETRY) {
				atomic_store(&s->retry, 1);
				break;
			}
		} else {
			rc = walk_stream(&k, 0, &w->err);
		}
		if (rc < 0) {
			w->rc = rc;
			break;
		}
		if (s->pass == MODE_PASS1) {
			if (k.st.open) {
				if (gtr_grow(&w->trunc, &w->captrunc, w->ntrunc + 1, sizeof *w->trunc) < 0) {
					w->rc = scan_nomem(&w->err);
					break;
				}
				w->trunc[w->ntrunc++] = (cslice){.start = k.st.start, .g = k.st.g,
								 .p = k.st.slice_p, .stream = k.si,
								 .start_ev = k.st.start_ev,
								 .end_state = GTR_GS_RUNNING,
								 .truncated = 1};
			}
		}
	}
	return NULL;
}

/* Forgets what pass 1 found, to run it again. */
static void pass1_reset(scan *s, worker *ws, unsigned jobs, size_t ngens)
{
	for (unsigned i = 0; i < jobs; i++) {
		worker *w = &ws[i];
		w->nheap = w->ntrunc = w->nstw = w->nprocs = w->nsteals = 0;
		w->events = w->nslices = w->orphan_ends = 0;
		w->maxlocal = INT64_MIN;
		for (size_t g = 0; g <= ngens; g++)
			w->genmax[g] = INT64_MIN;
	}
	atomic_store(&s->retry, 0);
	atomic_store(&s->keybad, 0);
	atomic_store(&s->done, 0);
	s->told = 0;
}

/* Runs pass `pass` on `jobs` workers (the calling thread is one). */
static int run_pass(scan *s, worker *ws, unsigned jobs, int pass, gtr_error *err)
{
	s->pass = pass;
	atomic_store(&s->next, 0);
	for (unsigned i = 1; i < jobs; i++) {
		if (pthread_create(&ws[i].th, NULL, work, &ws[i]) != 0)
			break;
		ws[i].started = 1;
	}
	work(&ws[0]);
	for (unsigned i = 1; i < jobs; i++)
		if (ws[i].started) {
			pthread_join(ws[i].th, NULL);
			ws[i].started = 0;
		}
	for (unsigned i = 0; i < jobs; i++)
		if (ws[i].rc < 0) {
			if (err)
				*err = ws[i].err;
			return ws[i].rc;
		}
	return 0;
}

/* ---- set-up ---- */

static int cmp_ms(const void *a, const void *b, void *ctx)
{
	const gtr_v2_mbatches *ms = ctx;
	const gtr_v2_mbatches *x = &ms[*(const size_t *)a], *y = &ms[*(const size_t *)b];
	if (x->m != y->m)
		return x->m < y->m ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int cmp_bytes(const void *a, const void *b, void *ctx)
{
	const stream *st = ctx;
	uint64_t x = st[*(const size_t *)a].bytes, y = st[*(const size_t *)b].bytes;
	if (x != y)
		return x > y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

void scan_order_streams(scan *s)
{
	for (size_t i = 0; i < s->nstreams; i++)
		s->order[i] = i;
	qsort_r(s->order, s->nstreams, sizeof *s->order, cmp_bytes, s->streams);
}

/* The M streams: every gen's per-M batch lists, grouped by M, in generation order. */
static int build_streams(scan *s)
{
	const gtr_v2_index *ix = s->ix;
	size_t *idx = malloc((ix->nms ? ix->nms : 1) * sizeof *idx);
	s->sb = malloc((ix->nmb ? ix->nmb : 1) * sizeof *s->sb);
	s->streams = malloc((ix->nms ? ix->nms : 1) * sizeof *s->streams);
	s->order = malloc((ix->nms ? ix->nms : 1) * sizeof *s->order);
	s->snaps = malloc((ix->nmb ? ix->nmb : 1) * sizeof *s->snaps);
	s->gensync = malloc((ix->ngens + 1) * sizeof *s->gensync);
	s->genend = malloc((ix->ngens + 1) * sizeof *s->genend);
	s->koff = malloc((ix->ngens + 1) * sizeof *s->koff);
	s->kmax = malloc((ix->ngens + 1) * sizeof *s->kmax);
	s->endraw = malloc((ix->nms ? ix->nms : 1) * sizeof *s->endraw);
	s->pilen = malloc((ix->nms ? ix->nms : 1) * sizeof *s->pilen);
	s->pilehi = malloc((ix->nms ? ix->nms : 1) * sizeof *s->pilehi);
	s->pileall = malloc((ix->nms ? ix->nms : 1) * sizeof *s->pileall);
	s->gen_of = malloc((ix->nms ? ix->nms : 1) * sizeof *s->gen_of);
	s->ncpub = 0;
	for (size_t b = 0; b < ix->nbatches; b++)
		s->ncpub += ix->batches[b].kind == GTR_V2_B_CPU;
	s->cpub = malloc((s->ncpub ? s->ncpub : 1) * sizeof *s->cpub);
	s->endn = malloc((ix->nms + s->ncpub + 1) * sizeof *s->endn);
	s->endpeak = malloc((ix->nms + s->ncpub + 1) * sizeof *s->endpeak);
	if (!idx || !s->sb || !s->streams || !s->order || !s->snaps || !s->gensync ||
	    !s->genend || !s->koff || !s->kmax || !s->endraw || !s->pilen || !s->pilehi || !s->pileall || !s->gen_of || !s->cpub || !s->endn || !s->endpeak) {
		free(idx);
		return GTR_E_NOMEM;
	}
	for (size_t b = 0, j = 0; b < ix->nbatches; b++)
		if (ix->batches[b].kind == GTR_V2_B_CPU)
			s->cpub[j++] = b;
	/* ms entries are in generation order; the index of an entry's
	 * generation follows from the generation's ms range. */
	uint32_t *gen_of = s->gen_of;
	for (size_t g = 0; g < ix->ngens; g++)
		for (size_t j = 0; j < ix->gens[g].nms; j++)
			gen_of[ix->gens[g].ms_first + j] = (uint32_t)g;
	for (size_t i = 0; i < ix->nms; i++)
		idx[i] = i;
	qsort_r(idx, ix->nms, sizeof *idx, cmp_ms, ix->ms);
	s->nsb = 0;
	s->nstreams = 0;
	for (size_t i = 0; i < ix->nms; i++) {
		const gtr_v2_mbatches *mb = &ix->ms[idx[i]];
		if (i == 0 || mb->m != ix->ms[idx[i - 1]].m) {
			s->streams[s->nstreams++] = (stream){.m = mb->m, .first = s->nsb};
		}
		stream *sm = &s->streams[s->nstreams - 1];
		for (size_t j = 0; j < mb->n; j++) {
			size_t b = ix->mb[mb->first + j];
			s->sb[s->nsb++] = (sbatch){b, gen_of[idx[i]]};
			sm->n++;
			sm->bytes += ix->batches[b].len;
		}
	}
	scan_order_streams(s);
	free(idx);
	return 0;
}

/*
 * Generations in time. Go's reader hands out every event of a
 * generation, CPU samples included, before the next generation's Sync,
 * and times them after the previous one: where a generation's last
 * events were written after the next one's first (by up to 22 ms in a
 * 200 MB trace of Go 1.26), the next one's early events all come later
 * than they were written. The
 * walk does the same with the generation's end time T: the Sync of
 * generation g+1 is at max(its smallest batch time, T_g + 1), and every
 * stream takes it as the time before its first event of g+1. Go's
 * reader further spaces the events it pushes past T_g one ns apart
 * across all threads; a stream does so over its own events only.
 *
 * T_g is the latest of the generation's events as the walk times them
 * (the last event of an M in a generation is in its last batch) and of
 * its CPU samples. Ticking through a batch is max-plus linear: started
 * at time s, n ticks with the events' times r_i end at max(s + n, peak),
 * peak = max_i(r_i + n - 1 - i). So the pre-pass decodes each M's last
 * batch of each generation once, in parallel, for (n, peak), and the
 * generations are then chained in order with s = the generation's Sync.
 * That is a lower bound of the stream's end (its earlier batches may
 * start the last one later than the Sync); it is exact unless their
 * events were pushed past the start of the last batch. Then the next
 * generation begins a few ns too early: its events are still later than
 * their own thread's, and still never later than Go's times.
 */
static inline int64_t tick_from(int64_t last, int64_t raw)
{
	return last == INT64_MIN || raw > last ? raw : last + 1;
}

/* The ticks of an event in the walk: a switch is three events, a
 * GoDestroySyscall on a P two (counted as one here). */
static inline unsigned end_ticks(unsigned type)
{
	return type == GTR_V2_EV_GO_SWITCH || type == GTR_V2_EV_GO_SWITCH_DESTROY ? 3 : 1;
}

/*
 * last_batch by the fast walk's decoding, which reads the times alone:
 * 0 with *pn and *ppeak as the cursor's loop gives them, or FAST_RETRY
 * for anything else (the cursor then reads the batch, and says what is
 * wrong with it, if anything is).
 */
static int last_batch_fast(scan *s, worker *w, const gtr_v2_batch *bt, double npt, uint64_t *pn,
			   int64_t *ppeak, int64_t *praw)
{
	if (!(npt >= 1 && npt <= 1048576 && npt == (double)(uint64_t)npt))
		return FAST_RETRY;
	const uint64_t whole = (uint64_t)npt;
	const int64_t base = ns_of(npt, bt->time);
	const uint8_t *p = s->t->data + bt->data, *end = p + bt->len;
	uint32_t *V = w->v32;
	uint8_t *S = w->step;
	size_t iv = 0, nv = 0;
	int64_t last = 0, peak = INT64_MIN;
	uint64_t n = 0;
	for (;;) {
		if (fast_refill(s, &p, end, V, S, &iv, &nv))
			return FAST_RETRY;
		if (iv == nv)
			break;
		const unsigned stp = S[iv];
		if (stp == 0 || iv + stp > nv || V[iv + 1] == GTR_UVARINT32_LONG)
			return FAST_RETRY;
		/* The cursor's times: a zero running time re-reads the base. */
		if (last == 0)
			last = base;
		last = (int64_t)((uint64_t)V[iv + 1] * whole + (uint64_t)last);
		const unsigned k = end_ticks(V[iv]);
		for (unsigned i = 0; i < k; i++)
			peak = tick_from(peak, last);
		n += k;
		iv += stp;
	}
	*pn = n;
	*ppeak = peak;
	*praw = last;
	return 0;
}

static int last_batch(scan *s, worker *w, size_t j, gtr_error *err)
{
	const gtr_v2_index *ix = s->ix;
	const gtr_v2_mbatches *mb = &ix->ms[j];
	s->endn[j] = 0;
	s->endpeak[j] = INT64_MIN;
	s->endraw[j] = INT64_MIN;
	if (!mb->n)
		return 0;
	const size_t bi = ix->mb[mb->first + mb->n - 1];
	const double npt = ix->gens[s->gen_of[j]].ns_per_tick;
	if (s->fast && last_batch_fast(s, w, &ix->batches[bi], npt, &s->endn[j], &s->endpeak[j],
				       &s->endraw[j]) == 0)
		return 0;
	gtr_v2_cursor c;
	gtr_v2_raw ev;
	int64_t peak = INT64_MIN;
	uint64_t n = 0;
	int rc;
	gtr_v2_cursor_init(&c, s->t, bi, npt);
	while ((rc = gtr_v2_cursor_next(&c, &ev, err)) > 0) {
		const unsigned k = end_ticks(ev.type);
		for (unsigned i = 0; i < k; i++)
			peak = tick_from(peak, ev.time);
		n += k;
		s->endraw[j] = ev.time;
	}
	s->endn[j] = n;
	s->endpeak[j] = peak;
	return rc;
}

/* A CPU-sample batch: its samples (events of Go's order too) and the
 * latest of their times. */
static int cpu_batch(scan *s, size_t j, gtr_error *err)
{
	const gtr_v2_index *ix = s->ix;
	const gtr_v2_batch *bt = &ix->batches[s->cpub[j]];
	uint64_t p = bt->data + 1, end = bt->data + bt->len, v[5];
	double npt = ix->gens[bt->gen].ns_per_tick;
	int64_t peak = INT64_MIN;
	uint64_t n = 0;
	(void)err;
	while (p < end) {
		n++;
		if (gtr_v2_next_sample(s->t->data, &p, end, v) > 0)
			peak = tick_from(peak, gtr_v2_ns(npt, v[0]));
	}
	s->endn[ix->nms + j] = n;
	s->endpeak[ix->nms + j] = peak;
	return 0;
}

/*
 * Piles. Where a generation's first events were written before the
 * previous one's last, Go's reader shows them all after its Sync, one ns
 * apart across all threads, where a stream spaces only its own: a time
 * there may be early by about the number of the other threads' events in
 * the pile. pile_walk counts, for ms entry j, the events its walk pushes
 * later than written from the generation's Sync on, until one is not.
 */
static int pile_walk(scan *s, size_t j, gtr_error *err)
{
	const gtr_v2_index *ix = s->ix;
	const gtr_v2_mbatches *mb = &ix->ms[j];
	const uint32_t g = s->gen_of[j];
	const double npt = ix->gens[g].ns_per_tick;
	int64_t last = s->gensync[g];
	uint64_t n = 0;
	s->pilen[j] = 0;
	s->pilehi[j] = INT64_MIN;
	s->pileall[j] = 0;
	for (size_t q = 0; q < mb->n; q++) {
		gtr_v2_cursor c;
		gtr_v2_raw ev;
		int rc;
		gtr_v2_cursor_init(&c, s->t, ix->mb[mb->first + q], npt);
		while ((rc = gtr_v2_cursor_next(&c, &ev, err)) > 0) {
			if (ev.time > last)
				goto caught_up;
			const unsigned k = end_ticks(ev.type);
			last += k;
			n += k;
		}
		if (rc < 0)
			return rc;
	}
	s->pileall[j] = n > 0;
caught_up:
	s->pilen[j] = n;
	s->pilehi[j] = n ? last : INT64_MIN;
	return 0;
}

/*
 * Whether local time t may be off Go's by more than SCAN_PILE_MAX:
 * it lies in generation g's pile (from its Sync to the last pushed
 * event of any M) of more events than that, counting the pile of the
 * previous generation when it lasts to that one's end (the Sync comes
 * as early as its end then). pilemax[g]: that count.
 */
static int in_big_pile(const scan *s, const uint64_t *pilemax, int64_t t)
{
	const gtr_v2_index *ix = s->ix;
	size_t lo = 0, hi = ix->ngens; /* the last generation whose Sync is not after t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->gensync[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	const size_t g = lo - 1;
	if (pilemax[g] <= SCAN_PILE_MAX)
		return 0;
	for (size_t j = ix->gens[g].ms_first; j < ix->gens[g].ms_first + ix->gens[g].nms; j++)
		if (s->pilen[j] && t <= s->pilehi[j])
			return 1;
	return 0;
}

/* pilemax[g] for in_big_pile. */
static void pile_sizes(const scan *s, uint64_t *pilemax)
{
	const gtr_v2_index *ix = s->ix;
	uint64_t carry = 0;
	for (size_t g = 0; g < ix->ngens; g++) {
		uint64_t n = 0;
		int all = 0;
		for (size_t j = ix->gens[g].ms_first; j < ix->gens[g].ms_first + ix->gens[g].nms; j++) {
			n += s->pilen[j];
			all |= s->pileall[j];
		}
		pilemax[g] = n + carry;
		carry = all ? pilemax[g] : 0;
	}
}

/* After the pre-pass: each generation's Sync and end, in order. */
static void chain_gens(scan *s)
{
	const gtr_v2_index *ix = s->ix;
	int64_t prev = INT64_MIN;
	size_t cj = 0;
	for (size_t g = 0; g < ix->ngens; g++) {
		int64_t sync = gtr_v2_ns(ix->gens[g].ns_per_tick, ix->gens[g].min_ts);
		if (prev != INT64_MIN && sync <= prev)
			sync = prev + 1;
		int64_t end = sync;
		for (size_t j = ix->gens[g].ms_first; j < ix->gens[g].ms_first + ix->gens[g].nms; j++) {
			if (!s->endn[j])
				continue;
			int64_t e = sync + (int64_t)s->endn[j];
			if (s->endpeak[j] > e)
				e = s->endpeak[j];
			if (e > end)
				end = e;
		}
		for (; cj < s->ncpub && ix->batches[s->cpub[cj]].gen == g; cj++)
			if (s->endpeak[ix->nms + cj] > end)
				end = s->endpeak[ix->nms + cj];
		s->gensync[g] = sync;
		s->genend[g] = end;
		prev = end;
	}
	/* Order keys (scan_okey): each generation's from above the previous
	 * one's, its largest the raw time of the last event of an M's last
	 * batch in it, which pass 1 checks (scan.keybad). */
	int64_t kprev = INT64_MIN, off = 0;
	for (size_t g = 0; g < ix->ngens; g++) {
		int64_t lo = gtr_v2_ns(ix->gens[g].ns_per_tick, ix->gens[g].min_ts), hi = INT64_MIN;
		if (kprev != INT64_MIN && lo + off <= kprev)
			off = kprev - lo + 1;
		for (size_t j = ix->gens[g].ms_first; j < ix->gens[g].ms_first + ix->gens[g].nms; j++)
			if (s->endn[j] && s->endraw[j] > hi)
				hi = s->endraw[j];
		s->koff[g] = off;
		s->kmax[g] = hi == INT64_MIN ? INT64_MIN : hi + off;
		if (hi != INT64_MIN && hi + off > kprev)
			kprev = hi + off;
	}
}

/* Why the parallel path cannot answer: the ordered one will. */
static int give_up(gtr_scan_info *info, const char *why)
{
	if (info && !info->why[0])
		snprintf(info->why, sizeof info->why, "%s", why);
	return 1;
}

static int can_scan(const gtr_trace *t, gtr_scan_info *info)
{
	const gtr_trace_info *ti = gtr_trace_get_info(t);
	if (ti->family == GTR_FAMILY_V1 && ti->version == 5)
		return !give_up(info, "a go 1.5 trace (ordered by sequence numbers, not time)");
	if (t->flags & GTR_OPEN_LENIENT)
		return !give_up(info, "a lenient read");
	gtr_loss l;
	gtr_trace_loss(t, &l);
	if (gtr_loss_any(&l))
		return !give_up(info, "part of the trace was lost");
	if (ti->family == GTR_FAMILY_V1) {
		const gtr_v1_index *x = t->impl;
		if (x->max_ticks - x->min_ticks >= (uint64_t)SCAN_V1_MAX_TICKS)
			return !give_up(info, "a clock that spans more ticks than the walk counts");
		return 1;
	}
	const gtr_v2_index *ix = gtr_v2_idx(t);
	for (size_t g = 0; g < ix->ngens; g++)
		if (ix->gens[g].partial || ix->gens[g].tolerant)
			return !give_up(info, "a partial generation");
	for (size_t b = 0; b < ix->nbatches; b++)
		if (ix->batches[b].kind == GTR_V2_B_BROKEN)
			return !give_up(info, "a broken batch");
	return 1;
}

/* ---- between the passes ---- */

static int cmp_cstw_start(const void *a, const void *b)
{
	const cstw *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The pauses by start, equal starts in the order they come (what glibc's
 * qsort, a merge sort, gave), in linear time: a trace holds tens of
 * thousands. Without memory for it, qsort.
 */
static void sort_stw(cstw *a, size_t n)
{
	uint64_t *key = n > 1 && n <= UINT32_MAX ? malloc(n * sizeof *key) : NULL;
	uint32_t *order = key ? malloc(n * sizeof *order) : NULL;
	cstw *out = order ? malloc(n * sizeof *out) : NULL;
	if (out) {
		for (size_t i = 0; i < n; i++) {
			key[i] = (uint64_t)a[i].start ^ UINT64_C(1) << 63; /* signed order */
			order[i] = (uint32_t)i;
		}
	}
	if (out && gtr_sort_order(key, n, order) == 0) {
		for (size_t i = 0; i < n; i++)
			out[i] = a[order[i]];
		memcpy(a, out, n * sizeof *a);
	} else if (n > 1) {
		qsort(a, n, sizeof *a, cmp_cstw_start);
	}
	free(key);
	free(order);
	free(out);
}

static int cmp_procs(const void *a, const void *b)
{
	const cprocs *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int cmp_track(const void *a, const void *b)
{
	const track *x = a, *y = b;
	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The order key recorded before sb entry i (v1: the local time). */
static inline int64_t snap_key(const scan *s, size_t i)
{
	return s->v1 ? s->snaps[i].last : s->snaps[i].okey;
}

/* The first batch of stream si whose state was recorded at key t or
 * later (its events are all t or later), or the stream's length. */
static size_t first_at(const scan *s, uint32_t si, int64_t t)
{
	const stream *sm = &s->streams[si];
	size_t lo = 0, hi = sm->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (snap_key(s, sm->first + mid) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The batch of stream si holding the events just after key t: the last
 * one whose state was recorded before t. Returns its position in the stream. */
static size_t locate(const scan *s, uint32_t si, int64_t t)
{
	size_t i = first_at(s, si, t);
	return i ? i - 1 : 0;
}

/* A printed pause's waiters. */
typedef struct pwait {
	size_t stw;       /* index into the merged pauses */
	cslice *w;
	size_t n, cap;
} pwait;

static int cmp_stop(const void *a, const void *b)
{
	return opos_cmp(a, b);
}

/*
 * The slice stream si runs when the pause p starts, and whether it stops
 * before p ends (wseek). With `after`, the stream's events whose key is
 * p's start come after it; with `pkonly`, only wseek.pk is wanted.
 */
static int seek_waiter(scan *s, const cstw *p, uint32_t si, int after, int pkonly, worker *w0,
		       wseek *q, gtr_error *err)
{
	const stream *sm = &s->streams[si];
	*q = (wseek){.ts = p->kstart, .te = p->open ? INT64_MAX : p->kend, .pk = INT64_MIN,
		     .after = after, .pkonly = pkonly};
	if (!sm->n)
		return 0;
	size_t from = locate(s, si, p->kstart);
	if (snap_key(s, sm->first + from) >= p->kstart)
		return 0; /* the stream starts after the pause did */
	walk k = {.s = s, .w = w0, .si = si, .to = sm->n, .mode = MODE_WAITER, .seek = q};
	k.st = s->snaps[sm->first + from];
	return walk_stream(&k, from, err);
}

static int find_waiters(scan *s, const cstw *p, pwait *pw, worker *w0, gtr_error *err)
{
	opos *stops = NULL; /* where each waiter stopped; t: its index in pw->w */
	size_t cap = 0;
	wseek *qs = malloc((s->nstreams ? s->nstreams : 1) * sizeof *qs);
	if (!qs)
		return scan_nomem(err);
	int rc = 0;
	for (uint32_t si = 0; si < s->nstreams && rc >= 0; si++)
		rc = seek_waiter(s, p, si, 0, si == p->stream && !s->v1, w0, &qs[si], err);
	/*
	 * v2: where an event of another M has the pause's key and starts or
	 * ends its slice, Go's heap of Ms orders the two: the M it took the
	 * previous event from (the largest key before the pause's) stays on
	 * top while its events are not later. If that is neither M, which
	 * comes first depends on the heap's layout: the ordered path answers.
	 */
	int64_t top = INT64_MIN;
	uint32_t ltop = UINT32_MAX;
	for (uint32_t si = 0; si < s->nstreams && rc >= 0; si++) {
		if (qs[si].pk > top) {
			top = qs[si].pk;
			ltop = si;
		} else if (qs[si].pk == top && top != INT64_MIN) {
			ltop = UINT32_MAX; /* two Ms: the layout again */
		}
	}
	for (uint32_t si = 0; si < s->nstreams && rc >= 0; si++) {
		/* v2: the M that stopped the world runs the pause. (v1: the
		 * goroutine that stopped it runs on; Go counts it.) */
		if (si == p->stream && !s->v1)
			continue;
		wseek q = qs[si];
		if (!s->v1 && q.tie && ltop == p->stream)
			rc = seek_waiter(s, p, si, 1, 0, w0, &q, err);
		else if (!s->v1 && q.tie && ltop != si)
			s->waiter_tie = 1;
		if (rc < 0)
			break;
		if (!s->v1 && q.tie_end)
			s->waiter_tie = 1;
		if (!q.found || !q.stopped || q.sl.g == p->g)
			continue;
		if (gtr_grow(&pw->w, &pw->cap, pw->n + 1, sizeof *pw->w) < 0 ||
		    gtr_grow(&stops, &cap, pw->n + 1, sizeof *stops) < 0) {
			rc = scan_nomem(err);
			break;
		}
		stops[pw->n] = q.stop;
		stops[pw->n].t = (int64_t)pw->n;
		pw->w[pw->n++] = q.sl;
	}
	/*
	 * Each stopped after the pause began, in the order of their keys, as
	 * in Go's order, whose times only grow; local times of different Ms
	 * may not say so where a generation's start piles events up (scan.h):
	 * such a stop is shown 1 ns after the pause's start or the previous stop.
	 */
	if (pw->n > 1)
		qsort(stops, pw->n, sizeof *stops, cmp_stop);
	int64_t prev = p->start;
	for (size_t i = 0; i < pw->n; i++) {
		cslice *c = &pw->w[stops[i].t];
		if (c->end <= prev)
			c->end = prev + 1;
		prev = c->end;
	}
	free(stops);
	free(qs);
	return rc < 0 ? rc : 0;
}

static int cmp_stw_dur(const void *a, const void *b, void *ctx)
{
	const cstw *st = ctx;
	const cstw *x = &st[*(const size_t *)a], *y = &st[*(const size_t *)b];
	int64_t dx = x->end - x->start, dy = y->end - y->start;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * byd[0..] the pauses of the nshow longest (cmp_stw_dur's order: longest
 * first, then by start) and every other as long as the last of them, in
 * that order; returns how many. The length they must reach comes from a
 * min-heap of the nshow longest lengths; only those pauses are sorted.
 */
static size_t longest_stw(const cstw *stw, size_t nstw, size_t nshow, size_t *byd)
{
	if (nshow == 0 || nstw == 0)
		return 0;
	if (nshow > nstw)
		nshow = nstw;
	int64_t *h = malloc(nshow * sizeof *h);
	size_t m = 0;
	if (!h) {
		for (size_t i = 0; i < nstw; i++)
			byd[i] = i;
		qsort_r(byd, nstw, sizeof *byd, cmp_stw_dur, (void *)stw);
		int64_t dcut = stw[byd[nshow - 1]].end - stw[byd[nshow - 1]].start;
		while (nshow < nstw && stw[byd[nshow]].end - stw[byd[nshow]].start >= dcut)
			nshow++;
		return nshow;
	}
	for (size_t i = 0; i < nstw; i++) {
		int64_t d = stw[i].end - stw[i].start;
		size_t j;
		if (m < nshow) {
			/* Sift up. */
			for (j = m++; j > 0 && h[(j - 1) / 2] > d; j = (j - 1) / 2)
				h[j] = h[(j - 1) / 2];
		} else if (d > h[0]) {
			/* Replace the least, sift down. */
			for (j = 0;;) {
				size_t c = 2 * j + 1;
				if (c >= m)
					break;
				if (c + 1 < m && h[c + 1] < h[c])
					c++;
				if (h[c] >= d)
					break;
				h[j] = h[c];
				j = c;
			}
		} else {
			continue;
		}
		h[j] = d;
	}
	const int64_t dcut = h[0];
	free(h);
	m = 0;
	for (size_t i = 0; i < nstw; i++)
		if (stw[i].end - stw[i].start >= dcut)
			byd[m++] = i;
	qsort_r(byd, m, sizeof *byd, cmp_stw_dur, (void *)stw);
	return m;
}

static int add_track(scan *s, size_t *cap, int64_t g, int64_t start, int64_t key, uint32_t si,
		     int at_start)
{
	if (gtr_grow(&s->tracks, cap, s->ntracks + 1, sizeof *s->tracks) < 0)
		return GTR_E_NOMEM;
	s->tracks[s->ntracks++] = (track){.g = g, .start = start, .key = key, .stream = si,
					  .at_start_resume = (uint8_t)at_start};
	return 0;
}

/* The order key of the event of stream si at local time t (v1: t). */
static int key_at(scan *s, worker *w0, uint32_t si, int64_t t, int64_t *key, gtr_error *err)
{
	*key = t;
	if (s->v1)
		return 0;
	const stream *sm = &s->streams[si];
	size_t lo = 0, hi = sm->n; /* the first batch whose state was recorded at t or later */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->snaps[sm->first + mid].last < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t from = lo ? lo - 1 : 0;
	wseek q = {.ts = t, .bylocal = 1};
	walk k = {.s = s, .w = w0, .si = si, .to = sm->n, .mode = MODE_WAITER, .seek = &q};
	k.st = s->snaps[sm->first + from];
	int rc = walk_stream(&k, from, err);
	if (rc < 0)
		return rc;
	if (q.done)
		*key = q.key;
	return 0;
}

static int index_tracks(scan *s)
{
	if (s->ntracks)
		qsort(s->tracks, s->ntracks, sizeof *s->tracks, cmp_track);
	size_t cap = 16;
	while (cap < 2 * s->ntracks)
		cap *= 2;
	s->tcap = cap;
	s->tkeys = malloc(cap * sizeof *s->tkeys);
	s->tidx = malloc(cap * sizeof *s->tidx);
	if (!s->tkeys || !s->tidx)
		return GTR_E_NOMEM;
	for (size_t i = 0; i < cap; i++)
		s->tkeys[i] = -1;
	for (size_t i = 0; i < s->ntracks; i++) {
		if (i && s->tracks[i].g == s->tracks[i - 1].g)
			continue;
		int64_t g = s->tracks[i].g;
		uint64_t h = (uint64_t)g * 0x9e3779b97f4a7c15ull >> 52;
		s->tbits[h >> 6] |= UINT64_C(1) << (h & 63);
		size_t j = ((uint64_t)g * 0x9e3779b97f4a7c15ull >> 17) & (cap - 1);
		while (s->tkeys[j] != -1)
			j = (j + 1) & (cap - 1);
		s->tkeys[j] = g;
		s->tidx[j] = i;
	}
	return 0;
}

/* The track of (g, start), which must exist. */
static size_t track_of(const scan *s, int64_t g, int64_t start)
{
	size_t lo = 0, hi = s->ntracks;
	track key = {.g = g, .start = start};
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_track(&s->tracks[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A local time as the report shows it: ns since the trace's first event. */
static uint64_t out_ns(const scan *s, int64_t local, int64_t base)
{
	return s->v1 ? scan_v1_ns(s, local) : (uint64_t)(local - base);
}

/* A slice's reason: a string of the trace (v2) or the event's (v1). */
static void scan_reason(const scan *s, uint32_t gen, uint64_t reason, gtr_str *out)
{
	if (s->v1)
		*out = gtr_v1_block_reason((unsigned)reason);
	else if (reason)
		gtr_trace_string(s->t, gen, reason, out);
}

typedef struct merged_hist {
	gtr_stackref create, resume;
	uint16_t chain[GTR_CHAIN_LEN];
	uint8_t nchain;
} merged_hist;

typedef struct chain_ev {
	opos at;
	uint16_t type;
} chain_ev;

static int cmp_chain(const void *a, const void *b)
{
	const chain_ev *x = a, *y = b;
	return opos_cmp(&x->at, &y->at);
}

static void merge_hist(const scan *s, worker *ws, unsigned jobs, size_t ti, merged_hist *out)
{
	memset(out, 0, sizeof *out);
	opos ct = {.key = -1}, rt = {.key = -1}, ut = {.key = -1};
	int rkind = 0;
	gtr_stackref rst = {0, 0}, ust = {0, 0};
	chain_ev all[64];
	size_t n = 0;
	for (unsigned i = 0; i < jobs; i++) {
		const hist *h = &ws[i].hs[ti];
		if (h->create_at.key >= 0 && opos_cmp(&h->create_at, &ct) >= 0) {
			ct = h->create_at;
			out->create = h->create;
		}
		if (h->resume_at.key >= 0 && opos_cmp(&h->resume_at, &rt) >= 0) {
			rt = h->resume_at;
			rkind = h->resume_kind;
			rst = h->resume;
		}
		if (h->undet_at.key >= 0 && (ut.key < 0 || opos_cmp(&h->undet_at, &ut) < 0)) {
			ut = h->undet_at;
			ust = h->undet;
		}
		for (size_t j = 0; j < h->nchain && n < 64; j++, n++) {
			all[n].at = h->chain[j].at;
			all[n].type = h->chain[j].type;
		}
	}
	(void)s;
	if (rt.key >= 0)
		out->resume = rkind == 1 ? out->create : rst;
	else if (ut.key >= 0 && ct.key < 0)
		out->resume = ust;
	qsort(all, n, sizeof all[0], cmp_chain);
	size_t first = n > GTR_CHAIN_LEN ? n - GTR_CHAIN_LEN : 0;
	for (size_t j = first; j < n; j++) {
		if (all[j].type == 0xffff)
			continue; /* a creation seen only for its stack */
		out->chain[out->nchain++] = all[j].type;
	}
}

/* ---- pass 2: the tracked goroutines' history ---- */

/* The event bytes of sb entry i. */
static uint64_t batch_bytes(const scan *s, size_t i)
{
	if (s->v1)
		return s->x1->batches[s->sb[i].b].end - s->x1->batches[s->sb[i].b].off;
	return s->ix->batches[s->sb[i].b].len;
}

/* Marks batches [lo, hi] of stream si for this round, unless walked. */
static void need_range(scan *s, uint8_t *need, uint32_t si, size_t lo, size_t hi)
{
	const stream *sm = &s->streams[si];
	for (size_t i = lo; i <= hi && i < sm->n; i++)
		need[sm->first + i] = !s->walked[sm->first + i];
}

/* A batch that may create a tracked goroutine before that track's start. */
static int may_create(const scan *s, size_t sbi)
{
	int64_t lo = s->cmin[sbi], hi = s->cmax[sbi], at = snap_key(s, sbi);
	if (lo > hi)
		return 0;
	size_t a = 0, b = s->ntracks; /* the first track of a goroutine >= lo */
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (s->tracks[mid].g < lo)
			a = mid + 1;
		else
			b = mid;
	}
	/* Tracks of one goroutine are in start order: its last starts latest. */
	for (; a < s->ntracks && s->tracks[a].g <= hi; a++)
		if ((a + 1 == s->ntracks || s->tracks[a + 1].g != s->tracks[a].g) &&
		    (s->tracks[a].key > at || (!s->v1 && s->tracks[a].key == at)))
			return 1;
	return 0;
}

/* This round's units: the marked batches, in runs, the longest first. */
static int cmp_unit(const void *a, const void *b)
{
	const hunit *x = a, *y = b;
	size_t nx = x->to - x->from, ny = y->to - y->from;
	if (nx != ny)
		return nx > ny ? -1 : 1;
	if (x->si != y->si)
		return x->si < y->si ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

static int make_units(scan *s, const uint8_t *need, size_t *cap)
{
	s->nunits = 0;
	for (uint32_t si = 0; si < s->nstreams; si++) {
		const stream *sm = &s->streams[si];
		for (size_t i = 0; i < sm->n;) {
			if (!need[sm->first + i]) {
				i++;
				continue;
			}
			size_t j = i;
			while (j < sm->n && need[sm->first + j])
				j++;
			if (gtr_grow(&s->units, cap, s->nunits + 1, sizeof *s->units) < 0)
				return GTR_E_NOMEM;
			s->units[s->nunits++] = (hunit){si, i, j};
			for (size_t q = i; q < j; q++)
				s->walked[sm->first + q] = 1;
			i = j;
		}
	}
	if (s->nunits)
		qsort(s->units, s->nunits, sizeof *s->units, cmp_unit);
	return 0;
}

/*
 * Whether what the workers found of track ti is its whole history:
 * the window [from, start] has been walked on every stream, so every
 * event of it there was noted. The chain is whole when its CHAIN_KEEP
 * latest events are in the window, or the goroutine was created in it
 * (nothing of it comes before); the resume stack when the latest event
 * that sets it is (a creation is one).
 */
static int history_known(const scan *s, const worker *ws, unsigned jobs, size_t ti)
{
	const track *tr = &s->tracks[ti];
	if (tr->from == INT64_MIN)
		return 1;
	int64_t create = -1, resume = -1;
	size_t in = 0;
	for (unsigned i = 0; i < jobs; i++) {
		const hist *h = &ws[i].hs[ti];
		if (h->create_at.key > create)
			create = h->create_at.key;
		if (h->resume_at.key > resume)
			resume = h->resume_at.key;
		for (size_t j = 0; j < h->nchain; j++)
			in += h->chain[j].at.key >= tr->from;
	}
	int created = create >= 0 && create >= tr->from;
	return (in >= CHAIN_KEEP || created) && resume >= 0 && resume >= tr->from;
}

/*
 * v2: the CPU samples of the tracked goroutines, which are events of Go's
 * order too (a goroutine's last events may be samples taken while it
 * ran). Go's reader takes a sample before the first event of any thread
 * written after it: its key is its time in its generation's keys. Every
 * sample is noted, whatever the windows: its place is known.
 */
static int note_samples(scan *s, worker *w, gtr_error *err)
{
	const gtr_v2_index *ix = s->ix;
	walk k = {.s = s, .w = w, .si = (uint32_t)s->nstreams, .mode = MODE_PASS2};
	k.st.g = k.st.p = -1;
	for (size_t j = 0; j < s->ncpub; j++) {
		const gtr_v2_batch *bt = &ix->batches[s->cpub[j]];
		uint64_t p = bt->data + 1, end = bt->data + bt->len, v[5];
		double npt = ix->gens[bt->gen].ns_per_tick;
		k.gen = bt->gen;
		while (p < end) {
			if (gtr_v2_next_sample(s->t->data, &p, end, v) < 5)
				break;
			int64_t g = (int64_t)v[3];
			if (!scan_maybe_tracked(s, g))
				continue;
			k.key = gtr_v2_ns(npt, v[0]) + s->koff[bt->gen];
			emit e = {.type = GTR_V2_EV_CPU_SAMPLE, .evg = g, .id = -1};
			int rc = scan_apply(&k, k.key, &e);
			if (rc < 0)
				return rc == GTR_E_NOMEM ? scan_nomem(err) : rc;
		}
	}
	return 0;
}

/*
 * Pass 2, in rounds. Each track's window [from, start] starts about a
 * batch long and grows fourfold until history_known says it holds the
 * track's history, or until it holds everything before the start. A
 * round walks, on every stream, the batches that overlap a window still
 * growing and that no round has walked (an event is noted once); the
 * first round also walks every batch that may create a tracked goroutine
 * (scan.cmin), so a creation is found wherever it is. `first` is the
 * trace's first local time, `span` its length.
 */
static int fetch_history(scan *s, worker *ws, unsigned jobs, int64_t first, int64_t span,
			 gtr_scan_info *info, gtr_error *err)
{
	size_t cap = 0;
	uint8_t *need = calloc(s->nsb ? s->nsb : 1, 1);
	if (!need)
		return scan_nomem(err);
	/* The first windows: about a batch of the busiest stream. */
	size_t most = 1;
	for (size_t i = 0; i < s->nstreams; i++)
		if (s->streams[i].n > most)
			most = s->streams[i].n;
	int64_t w0 = span / (int64_t)most;
	if (w0 < 1)
		w0 = 1;
	for (size_t k = 0; k < s->ntracks; k++) {
		track *tr = &s->tracks[k];
		tr->from = tr->key - first > w0 ? tr->key - w0 : INT64_MIN;
	}
	int rc = s->v1 ? 0 : note_samples(s, &ws[0], err);
	for (int round = 0; rc == 0; round++) {
		memset(need, 0, s->nsb);
		for (size_t k = 0; k < s->ntracks; k++) {
			const track *tr = &s->tracks[k];
			if (tr->done)
				continue;
			for (uint32_t si = 0; si < s->nstreams; si++) {
				/* v2: events on other Ms with the start's key come before it (note). */
				size_t hi = first_at(s, si, s->v1 ? tr->key : tr->key + 1);
				if (hi > 0)
					need_range(s, need, si, locate(s, si, tr->from), hi - 1);
			}
		}
		if (round == 0) {
			for (size_t i = 0; i < s->nsb; i++)
				if (!need[i] && may_create(s, i))
					need[i] = 1;
			/* v1: before the trace's start (its first Gomaxprocs) the
			 * runtime lists the goroutines that exist, on the P that
			 * logs the start; one walk must see the list and its end. */
			if (s->v1 && s->gomax_si < s->nstreams)
				need_range(s, need, s->gomax_si, 0,
					   first_at(s, s->gomax_si, s->gomax_t + 1));
		}
		if ((rc = make_units(s, need, &cap)) < 0) {
			rc = scan_nomem(err);
			break;
		}
		/* Windows whose batches were all walked in earlier rounds
		 * need no walk, but they still grow until their history is
		 * known: a window may widen within the batches of one round
		 * (a stream's batch that began long before it) and only reach
		 * new ones some rounds later. */
		if (s->nunits) {
			info->rounds++;
			for (size_t u = 0; u < s->nunits; u++)
				for (size_t i = s->units[u].from; i < s->units[u].to; i++)
					info->pass2_bytes += batch_bytes(s, s->streams[s->units[u].si].first + i);
			if ((rc = run_pass(s, ws, jobs, MODE_PASS2, err)) < 0)
				break;
		}
		int growing = 0;
		for (size_t k = 0; k < s->ntracks; k++) {
			track *tr = &s->tracks[k];
			if (tr->done || (tr->done = (uint8_t)history_known(s, ws, jobs, k)))
				continue;
			int64_t w = tr->key - tr->from;
			tr->from = w <= (tr->key - first) / 4 ? tr->key - 4 * w : INT64_MIN;
			growing = 1;
		}
		if (!growing)
			break;
	}
	free(need);
	return rc;
}

int gtr_scan_greedy(const gtr_trace *t, size_t top, unsigned jobs, unsigned flags, gtr_greedy **out,
		    gtr_scan_info *info, gtr_error *err)
{
	if (info)
		memset(info, 0, sizeof *info);
	*out = NULL;
	if (!can_scan(t, info)) {
		if (info)
			info->ordered = 1;
		return gtr_greedy_run(t, top, out, err);
	}
	if (jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = n > 0 ? (unsigned)n : 1;
	}
	if (jobs > 256)
		jobs = 256;
	/* gomax_t: no event counts as the trace's start until pass 1 finds it. */
	scan s = {.t = t, .top = top, .gomax_t = INT64_MIN};
	s.v1 = gtr_trace_get_info(t)->family == GTR_FAMILY_V1;
	if (s.v1)
		s.x1 = t->impl;
	else
		s.ix = gtr_v2_idx(t);
	const gtr_v2_index *ix = s.ix;
	/* v1 has no generations: one table of strings and stacks. */
	size_t ngens = s.v1 ? 1 : ix->ngens;
	worker *ws = calloc(jobs, sizeof *ws);
	gtr_greedy *res = calloc(1, sizeof *res);
	cslice *all = NULL;
	cstw *stw = NULL;
	cprocs *procs = NULL;
	pwait *pw = NULL;
	size_t npw = 0, *byd = NULL;
	int rc = 0, fallback = 0;
	if (!ws || !res || (s.v1 ? scan_v1_streams(&s) : build_streams(&s)) < 0) {
		rc = scan_nomem(err);
		goto out;
	}
	s.cmin = malloc((s.nsb ? s.nsb : 1) * sizeof *s.cmin);
	s.cmax = malloc((s.nsb ? s.nsb : 1) * sizeof *s.cmax);
	s.walked = calloc(s.nsb ? s.nsb : 1, 1);
	if (!s.cmin || !s.cmax || !s.walked) {
		rc = scan_nomem(err);
		goto out;
	}
	s.ws0 = &ws[0];
	/* The walk's buffer keeps WALK_CARRY values ahead: no event may need more. */
	for (unsigned i = 0; !s.v1 && i < GTR_V2_NUM_EVENTS; i++)
		if (ix->lay[i].valid && (ix->lay[i].flags & GTR_V2_TIMED) &&
		    ix->lay[i].wire_args < WALK_CARRY)
			s.nwire[i] = ix->lay[i].wire_args;
	if (!s.v1)
		fast_classes(&s);
	else
		scan_v1_classes(&s);
	s.fast = !(flags & GTR_SCAN_GENERIC);
	for (size_t i = 0; i < s.nstreams; i++)
		s.total += s.streams[i].bytes;
	if (jobs > s.nstreams && s.nstreams)
		jobs = (unsigned)s.nstreams;
	if (jobs == 0)
		jobs = 1;
	size_t capk = top > GTR_GREEDY_KEEP ? top : GTR_GREEDY_KEEP;
	for (unsigned i = 0; i < jobs; i++) {
		ws[i].s = &s;
		ws[i].capheap = capk;
		ws[i].heap = malloc(capk * sizeof *ws[i].heap);
		ws[i].genmax = malloc((ngens + 1) * sizeof *ws[i].genmax);
		ws[i].maxlocal = INT64_MIN;
		ws[i].gomax_t = INT64_MAX;
		ws[i].gomax_si = UINT32_MAX;
		gtr_error_clear(&ws[i].err);
		if (!ws[i].heap || !ws[i].genmax) {
			rc = scan_nomem(err);
			goto out;
		}
		for (size_t g = 0; g <= ngens; g++)
			ws[i].genmax[g] = INT64_MIN;
	}

	/* ---- the generations' ends ---- */
	double t0 = gtr_seconds(), t1;
	gtr_scan_info tinfo = {0}; /* the phases' times, when info is NULL */
	if (!info)
		info = &tinfo;
	if (!s.v1 && run_pass(&s, ws, jobs, MODE_ENDS, err) < 0) {
		fallback = give_up(info, "an error in a generation's last batch");
		goto out;
	}
	if (!s.v1) {
		chain_gens(&s);
		if (run_pass(&s, ws, jobs, MODE_PILE, err) < 0) {
			fallback = give_up(info, "an error in a generation's first batches");
			goto out;
		}
	}
	t1 = gtr_seconds();
	info->sec_ends = t1 - t0;
	t0 = t1;

	/* ---- pass 1 ---- */
	rc = run_pass(&s, ws, jobs, MODE_PASS1, err);
	if (rc == 0 && atomic_load(&s.retry)) {
		/* The fast walk met what it does not take: the generic one. */
		s.fast = 0;
		pass1_reset(&s, ws, jobs, ngens);
		rc = run_pass(&s, ws, jobs, MODE_PASS1, err);
	}
	t1 = gtr_seconds();
	info->sec_pass1 = t1 - t0;
	t0 = t1;
	if (rc < 0) {
		/* The ordered path says what is wrong, as it always has. */
		rc = 0;
		fallback = give_up(info, "an error in pass 1");
		goto out;
	}
	if (!s.v1 && (rc = steal_late(ws, jobs)) != 0) {
		fallback = give_up(info, rc < 0 ? "out of memory checking the steals of Ps"
						: "an M starts a P, or leaves a syscall without one, before the "
						  "steal of the P it held in the syscall is written: only "
						  "Go's order can tell");
		rc = 0;
		goto out;
	}
	if (!s.v1 && atomic_load(&s.keybad)) {
		fallback = give_up(info, "an M's events of a generation are not in time order across its "
					 "batches: only Go's order can tell");
		goto out;
	}

	/* The trace's end: its latest event, then (v2) the closing Sync.
	 * v1 times count from the first event already. */
	if (!s.v1 && ix->ngens == 0) {
		fallback = give_up(info, "no generation");
		goto out;
	}
	int64_t base = s.v1 ? 0 : s.gensync[0] > 0 ? s.gensync[0] : 1;
	int64_t maxlocal = s.v1 ? scan_v1_last_sample(&s) : s.genend[ix->ngens - 1];
	uint64_t events = 0, nslices = 0, orphans = 0;
	int64_t gomax_t = INT64_MAX; /* v1: the first Gomaxprocs any worker saw */
	uint32_t gomax_si = UINT32_MAX;
	size_t nall = 0, nstw = 0, nprocs = 0;
	for (unsigned i = 0; i < jobs; i++) {
		worker *w = &ws[i];
		if (w->maxlocal > maxlocal)
			maxlocal = w->maxlocal;
		events += w->events;
		nslices += w->nslices + w->ntrunc;
		orphans += w->orphan_ends;
		nall += w->nheap + w->ntrunc;
		nstw += w->nstw;
		nprocs += w->nprocs;
		if (w->gomax_t < gomax_t || (w->gomax_t == gomax_t && w->gomax_si < gomax_si)) {
			gomax_t = w->gomax_t;
			gomax_si = w->gomax_si;
		}
	}
	/* From now on (pass 2), events before it are the trace's start. */
	s.gomax_t = gomax_t;
	s.gomax_si = gomax_si;
	/* The closing Sync is one past the last event (a generation's own
	 * Sync or a CPU sample may be the last). */
	int64_t end_local = s.v1 ? maxlocal : maxlocal + 1;
	all = malloc((nall ? nall : 1) * sizeof *all);
	stw = malloc((nstw ? nstw : 1) * sizeof *stw);
	procs = malloc((nprocs ? nprocs : 1) * sizeof *procs);
	if (!all || !stw || !procs) {
		rc = scan_nomem(err);
		goto out;
	}
	nall = nstw = nprocs = 0;
	for (unsigned i = 0; i < jobs; i++) {
		worker *w = &ws[i];
		/* An empty list may have no array at all: no memcpy from NULL. */
		if (w->nheap)
			memcpy(all + nall, w->heap, w->nheap * sizeof *all);
		nall += w->nheap;
		for (size_t j = 0; j < w->ntrunc; j++) {
			cslice c = w->trunc[j];
			c.end = end_local;
			c.gen = (uint32_t)(ngens - 1);
			all[nall++] = c;
		}
		if (w->nstw)
			memcpy(stw + nstw, w->stw, w->nstw * sizeof *stw);
		nstw += w->nstw;
		if (w->nprocs)
			memcpy(procs + nprocs, w->procs, w->nprocs * sizeof *procs);
		nprocs += w->nprocs;
	}
	qsort(all, nall, sizeof *all, cslice_qsort);
	if (nall > capk)
		nall = capk;
	if (s.v1)
		nstw = scan_v1_pauses(stw, nstw);
	sort_stw(stw, nstw);
	qsort(procs, nprocs, sizeof *procs, cmp_procs);
	{
		/* Changes only, as the ordered path keeps them: a value written
		 * again (at every generation's start) is dropped, so that only
		 * changes are shown and must lie outside big piles. Repeats
		 * that Go orders differently in a pile are still repeats. */
		size_t k = 0;
		for (size_t i = 0; i < nprocs; i++)
			if (k == 0 || procs[k - 1].procs != procs[i].procs)
				procs[k++] = procs[i];
		nprocs = k;
	}
	for (size_t i = 0; i < nstw; i++) {
		if (stw[i].open) {
			stw[i].end = end_local;
			stw[i].kend = INT64_MAX;
			stw[i].truncated = 1;
		}
		if (s.v1) { /* v1 local times are Go's */
			stw[i].kstart = stw[i].start;
			if (!stw[i].open)
				stw[i].kend = stw[i].end;
		}
		/* Pauses are serialised; on different Ms they may seem to
		 * overlap by the few ns the threads' clocks disagree, which Go's
		 * order irons out. A real overlap is not this path's to judge. */
		if (i + 1 < nstw && stw[i].end > stw[i + 1].start + STW_SKEW_NS) {
			fallback = give_up(info, "overlapping stop-the-world pauses");
			goto out;
		}
	}
	if (orphans && nstw) {
		fallback = give_up(info, "a stop-the-world end without its start");
		goto out;
	}

	/* CPU samples (and v2's Syncs) are events of the ordered stream too. */
	if (s.v1) {
		res->events = events + s.x1->count[GTR_V1_CPUSAMPLE];
	} else {
		res->events = events + ix->ngens + 1;
		for (size_t j = 0; j < s.ncpub; j++)
			res->events += s.endn[ix->nms + j];
	}
	res->nslices = (size_t)nslices;
	res->first_ts = 0;
	res->last_ts = out_ns(&s, end_local, base);
	for (size_t i = 0; i < nprocs; i++)
		if (procs[i].procs > res->maxprocs)
			res->maxprocs = procs[i].procs;
	{
		gtr_procs_change *pc = malloc((nprocs ? nprocs : 1) * sizeof *pc);
		if (!pc) {
			rc = scan_nomem(err);
			goto out;
		}
		for (size_t i = 0; i < nprocs; i++)
			pc[i] = (gtr_procs_change){out_ns(&s, procs[i].ts, base), procs[i].procs};
		res->procs_in_force = gtr_procs_in_force(pc, nprocs, res->last_ts, &res->procs_in_force_ns);
		free(pc);
	}
	size_t nprocs_max = (size_t)(res->procs_in_force ? res->procs_in_force : 1);
	res->tmax_exact = nprocs_max <= capk;
	res->ntop = nall < top ? nall : top;
	res->nest = nall < nprocs_max ? nall : nprocs_max;

	/* ---- what gets printed ---- */
	size_t cut = res->ntop > res->nest ? res->ntop : res->nest;
	/* Pauses by length: the printed ones (and those as long) get waiters. */
	byd = malloc((nstw ? nstw : 1) * sizeof *byd);
	if (!byd) {
		rc = scan_nomem(err);
		goto out;
	}
	size_t nshow = longest_stw(stw, nstw, top > 10 ? top : 10, byd);
	pw = calloc(nshow ? nshow : 1, sizeof *pw);
	if (!pw) {
		rc = scan_nomem(err);
		goto out;
	}
	npw = nshow;
	for (size_t i = 0; i < nshow; i++) {
		pw[i].stw = byd[i];
		if ((rc = find_waiters(&s, &stw[byd[i]], &pw[i], &ws[0], err)) < 0) {
			rc = 0;
			fallback = give_up(info, "an error looking for waiters");
			goto out;
		}
	}
	if (!s.v1) {
		/* What gets printed must not lie in a big pile (in_big_pile). */
		uint64_t *pilemax = malloc((ix->ngens ? ix->ngens : 1) * sizeof *pilemax);
		if (!pilemax) {
			rc = scan_nomem(err);
			goto out;
		}
		pile_sizes(&s, pilemax);
		int big = 0;
		for (size_t i = 0; i < cut && !big; i++)
			big = in_big_pile(&s, pilemax, all[i].start) || in_big_pile(&s, pilemax, all[i].end);
		for (size_t i = 0; i < nstw && !big; i++)
			big = in_big_pile(&s, pilemax, stw[i].start) || in_big_pile(&s, pilemax, stw[i].end);
		for (size_t i = 0; i < nprocs && !big; i++)
			big = in_big_pile(&s, pilemax, procs[i].ts);
		for (size_t i = 0; i < npw && !big; i++)
			for (size_t j = 0; j < pw[i].n && !big; j++)
				big = in_big_pile(&s, pilemax, pw[i].w[j].end);
		free(pilemax);
		if (big) {
			fallback = give_up(info, "a time shown is in a pile of over 10000 events Go's reader "
						 "spaces 1 ns apart: only Go's order can tell");
			goto out;
		}
	}
	if (s.waiter_tie) {
		fallback = give_up(info, "a goroutine starts or stops on one M at the very time a pause "
					 "starts or ends on another: only Go's order can tell");
		goto out;
	}

	t1 = gtr_seconds();
	info->sec_waiters = t1 - t0;
	t0 = t1;

	/* ---- pass 2: the tracked goroutines ---- */
	size_t tcap = 0;
	s.tlast = INT64_MIN;
	for (size_t i = 0; i < cut; i++) {
		/* The event that started it set the stack it resumed at. */
		int at = s.v1 ? all[i].start_ev == GTR_V1_GOSYSCALL
			      : all[i].start_ev == GTR_V2_EV_GO_STATUS_STACK;
		int64_t key;
		if (key_at(&s, &ws[0], all[i].stream, all[i].start, &key, err) < 0) {
			rc = 0;
			fallback = give_up(info, "an error in pass 2");
			goto out;
		}
		if (add_track(&s, &tcap, all[i].g, all[i].start, key, all[i].stream, at) < 0) {
			rc = scan_nomem(err);
			goto out;
		}
	}
	for (size_t i = 0; i < npw; i++)
		for (size_t j = 0; j < pw[i].n; j++)
			if (add_track(&s, &tcap, pw[i].w[j].g, stw[pw[i].stw].start, stw[pw[i].stw].kstart,
				      UINT32_MAX, 0) < 0) {
				rc = scan_nomem(err);
				goto out;
			}
	if (index_tracks(&s) < 0) {
		rc = scan_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < s.ntracks; i++)
		if (s.tracks[i].start > s.tlast)
			s.tlast = s.tracks[i].start;
	for (unsigned i = 0; i < jobs; i++) {
		ws[i].hs = calloc(s.ntracks ? s.ntracks : 1, sizeof *ws[i].hs);
		if (!ws[i].hs) {
			rc = scan_nomem(err);
			goto out;
		}
		for (size_t j = 0; j < s.ntracks; j++)
			ws[i].hs[j].create_at.key = ws[i].hs[j].resume_at.key = ws[i].hs[j].undet_at.key = -1;
	}
	if (s.v1) {
		rc = fetch_history(&s, ws, jobs, 0, end_local, info, err);
	} else {
		/* Order keys: from the first generation's first to the last's largest. */
		int64_t kfirst = s.koff[0] + gtr_v2_ns(ix->gens[0].ns_per_tick, ix->gens[0].min_ts);
		int64_t klast = kfirst;
		for (size_t g = 0; g < ix->ngens; g++)
			if (s.kmax[g] > klast)
				klast = s.kmax[g];
		rc = fetch_history(&s, ws, jobs, kfirst, klast - kfirst + 1, info, err);
	}
	info->sec_pass2 = gtr_seconds() - t0;
	if (rc < 0 ||
	    (s.v1 && (rc = scan_v1_samples(&s, &ws[0], err)) < 0)) {
		rc = 0;
		fallback = give_up(info, "an error in pass 2");
		goto out;
	}
	/* ---- the result ---- */
	res->top = malloc((res->ntop ? res->ntop : 1) * sizeof *res->top);
	res->est = malloc((res->nest ? res->nest : 1) * sizeof *res->est);
	res->stw = malloc((nstw ? nstw : 1) * sizeof *res->stw);
	res->procs = malloc((nprocs ? nprocs : 1) * sizeof *res->procs);
	size_t nw = 0;
	for (size_t i = 0; i < npw; i++)
		nw += pw[i].n;
	res->waiters = malloc((nw ? nw : 1) * sizeof *res->waiters);
	if (!res->top || !res->est || !res->stw || !res->procs || !res->waiters) {
		rc = scan_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < cut; i++) {
		const cslice *c = &all[i];
		gtr_slice sl;
		memset(&sl, 0, sizeof sl);
		sl.start = out_ns(&s, c->start, base);
		sl.end = out_ns(&s, c->end, base);
		sl.g = c->g;
		sl.p = c->p;
		sl.end_state = c->end_state;
		sl.truncated = c->truncated;
		scan_reason(&s, c->gen, c->reason, &sl.reason);
		sl.start_ev = c->start_ev;
		sl.end_ev = c->end_ev;
		if (c->end_stack)
			sl.end_stack = (gtr_stackref){c->gen, c->end_stack};
		merged_hist mh;
		merge_hist(&s, ws, jobs, track_of(&s, c->g, c->start), &mh);
		sl.start_stack = mh.resume;
		sl.create_stack = mh.create;
		memcpy(sl.chain, mh.chain, sizeof sl.chain);
		sl.nchain = mh.nchain;
		if (i < res->ntop)
			res->top[i] = sl;
		if (i < res->nest) {
			res->est[i] = sl;
			res->tmax_stw += gtr_slice_dur(&sl);
		}
	}
	for (size_t i = 0; i < nprocs; i++)
		res->procs[i] = (gtr_procs_change){out_ns(&s, procs[i].ts, base), procs[i].procs};
	res->nprocs = nprocs;
	/* Pauses in time order; waiters, for the printed ones, by when they stopped. */
	size_t *pwof = malloc((nstw ? nstw : 1) * sizeof *pwof);
	if (!pwof) {
		rc = scan_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < nstw; i++)
		pwof[i] = SIZE_MAX;
	for (size_t i = 0; i < npw; i++)
		pwof[pw[i].stw] = i;
	for (size_t i = 0; i < nstw; i++) {
		const cstw *c = &stw[i];
		gtr_stw *o = &res->stw[i];
		memset(o, 0, sizeof *o);
		o->start = out_ns(&s, c->start, base);
		o->end = out_ns(&s, c->end, base);
		if (s.v1)
			o->kind = c->kind == 0   ? GTR_STR("GC")
				  : c->kind == 1 ? GTR_STR("GC mark termination")
						 : GTR_STR("GC sweep termination");
		else if (c->kind)
			gtr_trace_string(t, c->gen, c->kind, &o->kind);
		o->g = c->g;
		o->p = c->p;
		o->truncated = c->truncated;
		o->culprit = -1;
		o->first_waiter = res->nwaiters;
		if (pwof[i] == SIZE_MAX)
			continue;
		pwait *q = &pw[pwof[i]];
		for (size_t j = 0; j < q->n; j++) {
			const cslice *ww = &q->w[j];
			gtr_stw_waiter *wo = &res->waiters[res->nwaiters++];
			memset(wo, 0, sizeof *wo);
			wo->g = ww->g;
			wo->p = ww->p;
			wo->stopped = out_ns(&s, ww->end, base);
			if (ww->end_stack)
				wo->stack = (gtr_stackref){ww->gen, ww->end_stack};
			scan_reason(&s, ww->gen, ww->reason, &wo->reason);
			wo->end_state = ww->end_state;
			merged_hist mh;
			merge_hist(&s, ws, jobs, track_of(&s, ww->g, c->start), &mh);
			wo->create_stack = mh.create;
			o->nwaiters++;
		}
		/* Every waiter found here stopped: the culprit is the last. */
		if (o->nwaiters) {
			qsort(&res->waiters[o->first_waiter], o->nwaiters, sizeof *res->waiters,
			      gtr_stw_waiter_qsort);
			o->culprit = (int64_t)o->nwaiters - 1;
		}
	}
	free(pwof);
	res->nstw = nstw;
	if (t->progress)
		t->progress(t->progress_ctx, GTR_PHASE_DECODE, s.total, s.total);
	if (info)
		info->jobs = jobs;

out:
	for (unsigned i = 0; ws && i < jobs; i++) {
		free(ws[i].heap);
		free(ws[i].trunc);
		free(ws[i].stw);
		free(ws[i].procs);
		free(ws[i].steals);
		free(ws[i].genmax);
		free(ws[i].hs);
		free(ws[i].v1ev);
	}
	free(ws);
	for (size_t i = 0; i < npw; i++)
		free(pw[i].w);
	free(pw);
	free(byd);
	free(all);
	free(stw);
	free(procs);
	free(s.sb);
	free(s.streams);
	free(s.order);
	free(s.snaps);
	free(s.gensync);
	free(s.genend);
	free(s.koff);
	free(s.kmax);
	free(s.endraw);
	free(s.pilen);
	free(s.pilehi);
	free(s.pileall);
	free(s.gen_of);
	free(s.cpub);
	free(s.endn);
	free(s.endpeak);
	free(s.cmin);
	free(s.cmax);
	free(s.walked);
	free(s.units);
	free(s.tracks);
	free(s.tkeys);
	free(s.tidx);
	if (rc < 0 || fallback) {
		gtr_greedy_free(res);
		if (rc < 0)
			return rc;
		if (info)
			info->ordered = 1;
		/* What the walk found wrong is not said: the ordered path
		 * says it, where exactly, in its own words. */
		if (err)
			gtr_error_clear(err);
		return gtr_greedy_run(t, top, out, err);
	}
	*out = res;
	return 0;
}
