/*
 * core/scan_v1.c: the parallel greedy analysis of core/scan.c over v1
 * traces (go 1.6 to go 1.21).
 *
 * A v1 trace is written per P, and everything a slice needs happens on
 * the P that runs it: the GoStart that begins it and the event that
 * stops it are in the P's batches, which are in time order in the file.
 * So a stream here is every batch of one P, and the walk follows Go's
 * parser (the goroutine the P runs carries over from batch to batch)
 * and Go 1.27's conversion of the events into goroutine transitions
 * (core/v1_order.c), with per-P state only:
 *
 *  - A GoSysCall leaves Running; it enters Running again at once unless
 *    the next event of its P is the goroutine's GoSysBlock (and no CPU
 *    sample of it falls between). The walk decides that at the P's next
 *    event and only then starts the slice, at the GoSysCall's time.
 *  - Go's merge puts events of different Ps in time order (ties to the
 *    lower P), as the streams are numbered. Local times are the trace's
 *    clock ticks, with room for 256 events of a P in one tick to be made
 *    strictly increasing (scan_impl.h): a time shown is its event's own.
 *  - Before the first Gomaxprocs (the trace's start) a GoCreate changes
 *    no state, and at the Gomaxprocs each goroutine it named and nothing
 *    has moved since becomes runnable: pass 2 tracks that on the P that
 *    logged the start, where the runtime writes all of it.
 *  - Pauses: go 1.6 logs one GCSTWStart/GCSTWDone per P; pass 1 keeps
 *    every begin and end and scan_v1_pauses counts them in time order,
 *    one pause from the first begin to the last end, as the ordered
 *    path does.
 *  - CPU samples and syscall exits carry their own time, which Go sorts
 *    them by: a syscall exit is noted at that time, and pass 2 notes the
 *    samples of the tracked goroutines from the index's table.
 */
#include "scan_impl.h"

#include <stdlib.h>

#include "vec.h"

int scan_v1_streams(scan *s)
{
	const gtr_v1_index *x = s->x1;
	size_t np = x->nprocs ? x->nprocs : 1, nb = x->nbatches ? x->nbatches : 1;
	s->sb = malloc(nb * sizeof *s->sb);
	s->snaps = malloc(nb * sizeof *s->snaps);
	s->streams = malloc(np * sizeof *s->streams);
	s->order = malloc(np * sizeof *s->order);
	if (!s->sb || !s->snaps || !s->streams || !s->order)
		return GTR_E_NOMEM;
	/* Streams in P order: Go's merge breaks ties in time by P. */
	s->nsb = 0;
	for (size_t i = 0; i < x->nprocs; i++) {
		const gtr_v1_proc *pr = &x->procs[i];
		stream *sm = &s->streams[i];
		*sm = (stream){.m = (uint64_t)pr->p, .first = s->nsb, .n = pr->n};
		for (size_t j = 0; j < pr->n; j++) {
			size_t b = x->byp[pr->first + j];
			s->sb[s->nsb++] = (sbatch){b, 0};
			sm->bytes += x->batches[b].end - x->batches[b].off;
		}
	}
	s->nstreams = x->nprocs;
	scan_order_streams(s);
	return 0;
}

/* Pass 1 keeps the begins and ends of pauses as they are. */
static int add_stw_mark(walk *k, int64_t t, const gtr_v1_event *ev, int end)
{
	worker *w = k->w;
	if (gtr_grow(&w->stw, &w->capstw, w->nstw + 1, sizeof *w->stw) < 0)
		return GTR_E_NOMEM;
	w->stw[w->nstw++] = (cstw){.start = t, .g = 0, .p = k->st.p,
				   .kind = ev->nargs >= 1 ? ev->args[0] + 1 : 0,
				   .stream = k->si, .open = !end, .is_end = (uint8_t)end};
	return 0;
}

uint64_t scan_v1_ns(const scan *s, int64_t local)
{
	return gtr_v1_ns(s->x1, s->x1->min_ticks + (uint64_t)(local >> SCAN_V1_SUB));
}

/* The time a syscall exit carries (Go moves the event there). */
static uint64_t exit_ticks(const gtr_v1_index *x, const gtr_v1_event *ev)
{
	ptrdiff_t i = gtr_v1_oob_find(x, ev->off);
	if (i >= 0)
		return x->oob[i].ticks;
	return ev->args[2] ? ev->args[2] : ev->ticks;
}

/* Goroutines a GoCreate named before the trace's start ended (pass 2, tracked ones). */
typedef struct preinit {
	int64_t *g;
	size_t n, cap;
} preinit;

static void pre_drop(preinit *pi, int64_t g)
{
	for (size_t i = 0; i < pi->n; i++)
		if (pi->g[i] == g) {
			pi->g[i] = pi->g[--pi->n];
			return;
		}
}

/* A pending GoSysCall, decided by the P's next event `next` (NULL: none). */
static int syscall_decide(walk *k, const gtr_v1_event *next, gtr_error *err)
{
	mstate *st = &k->st;
	st->sc = 0;
	if (next && next->type == GTR_V1_GOSYSBLOCK && (int64_t)next->g == st->sc_g) {
		const gtr_trace *t = k->s->t;
		if (t->info.version < 19 || k->s->x1->noob == 0)
			return 0;
		int rc = gtr_v1_sampled(t, (uint64_t)st->sc_g, st->sc_ticks, next->ticks, err);
		if (rc <= 0)
			return rc; /* blocked, unless sampled in between */
	}
	/* It did not block: Running again, at the GoSysCall's time. */
	int64_t g = st->sc_g == 0 ? -1 : st->sc_g;
	emit r = {.type = GTR_V1_GOSYSCALL, .evg = st->sc_g, .has_tr = 1, .from = GTR_GS_SYSCALL,
		  .to = GTR_GS_RUNNING, .id = g, .quiet = 1};
	return scan_apply(k, st->sc_t, &r);
}

int scan_v1_walk(walk *k, size_t from, gtr_error *err)
{
	scan *s = k->s;
	const stream *sm = &s->streams[k->si];
	const gtr_v1_index *x = s->x1;
	const gtr_trace *t = s->t;
	mstate *st = &k->st;
	worker *w = k->w;
	preinit pi = {0};
	int rc = 0;
	k->gen = 0;
	st->p = (int64_t)sm->m;
	for (size_t i = from; i < k->to; i++) {
		const sbatch *b = &s->sb[sm->first + i];
		int64_t cmin = INT64_MAX, cmax = INT64_MIN; /* pass 1: goroutines it creates */
		if (k->mode == MODE_PASS1)
			s->snaps[sm->first + i] = *st;
		gtr_v1_cursor c;
		gtr_v1_event ev;
		gtr_v1_cursor_init(&c, t, b->b, (uint64_t)st->cg);
		c.unchecked = 1; /* only the printed stacks are looked up */
		while ((rc = gtr_v1_cursor_next(&c, &ev, err)) > 0) {
			int64_t tm = scan_tick(st, scan_v1_local(x, ev.ticks));
			if (st->sc && (rc = syscall_decide(k, &ev, err)) < 0)
				goto out;
			unsigned typ = ev.type;
			int8_t sa = t->specs[typ].stack_arg;
			/* The goroutine of a transition; Go 1.27 has no goroutine 0. */
			int64_t g = ev.g == 0 ? -1 : (int64_t)ev.g;
			int pre = k->mode == MODE_PASS2 && tm < s->gomax_t;
			emit e = {.type = (uint16_t)typ, .evg = (int64_t)ev.g,
				  .stack = sa >= 0 ? ev.args[sa] : 0, .id = -1};
			if (k->mode == MODE_PASS1)
				w->events++;
			switch (typ) {
			case GTR_V1_GOSTART:
			case GTR_V1_GOSTARTLOCAL:
			case GTR_V1_GOSTARTLABEL:
				scan_tr(&e, (int64_t)ev.args[0], pre ? GTR_GS_UNDETERMINED : GTR_GS_RUNNABLE, GTR_GS_RUNNING);
				if (pre)
					pre_drop(&pi, e.id);
				break;
			case GTR_V1_GOEND:
				scan_tr(&e, g, GTR_GS_RUNNING, GTR_GS_NOTEXIST);
				break;
			case GTR_V1_GOUNBLOCK:
			case GTR_V1_GOUNBLOCKLOCAL:
				scan_tr(&e, (int64_t)ev.args[0], GTR_GS_WAITING, GTR_GS_RUNNABLE);
				break;
			case GTR_V1_GOSYSCALL:
				scan_tr(&e, g, GTR_GS_RUNNING, GTR_GS_SYSCALL);
				break;
			case GTR_V1_GOSYSEXIT:
			case GTR_V1_GOSYSEXITLOCAL:
				scan_tr(&e, (int64_t)ev.args[0], GTR_GS_SYSCALL, GTR_GS_RUNNABLE);
				/* At the time it carries, which Go orders it by. */
				tm = scan_v1_local(x, exit_ticks(x, &ev));
				if (k->mode == MODE_PASS1 && tm > w->maxlocal)
					w->maxlocal = tm;
				break;
			case GTR_V1_GOWAITING:
			case GTR_V1_GOINSYSCALL:
				scan_tr(&e, (int64_t)ev.args[0], GTR_GS_UNDETERMINED, typ == GTR_V1_GOWAITING ? GTR_GS_WAITING : GTR_GS_SYSCALL);
				if (pre)
					pre_drop(&pi, e.id);
				break;
			case GTR_V1_GOCREATE:
				if (k->mode == MODE_PASS1)
					created(&cmin, &cmax, ev.args[0]);
				if (pre) {
					/* The trace's start lists the goroutines that exist. */
					int64_t ng = (int64_t)ev.args[0];
					if (scan_track_find(s, ng) >= 0) {
						if (gtr_grow(&pi.g, &pi.cap, pi.n + 1, sizeof *pi.g) < 0) {
							rc = scan_nomem(err);
							goto out;
						}
						pre_drop(&pi, ng);
						pi.g[pi.n++] = ng;
					}
					break;
				}
				scan_tr(&e, (int64_t)ev.args[0], GTR_GS_NOTEXIST, GTR_GS_RUNNABLE);
				e.tr_stack = ev.args[1];
				break;
			case GTR_V1_GOMAXPROCS:
				if (k->mode == MODE_PASS1) {
					if (gtr_grow(&w->procs, &w->capprocs, w->nprocs + 1,
						     sizeof *w->procs) < 0) {
						rc = scan_nomem(err);
						goto out;
					}
					w->procs[w->nprocs++] = (cprocs){tm, ev.args[0], 0, k->si};
					if (tm < w->gomax_t || (tm == w->gomax_t && k->si < w->gomax_si)) {
						w->gomax_t = tm;
						w->gomax_si = k->si;
					}
				}
				if (k->mode == MODE_PASS2 && tm == s->gomax_t && k->si == s->gomax_si) {
					/* The start is over: what it listed and nothing moved is runnable. */
					for (size_t j = 0; j < pi.n; j++) {
						emit r = {.type = (uint16_t)typ, .evg = -1, .has_tr = 1,
							  .from = GTR_GS_UNDETERMINED, .to = GTR_GS_RUNNABLE,
							  .id = pi.g[j]};
						if ((rc = scan_apply(k, tm, &r)) < 0)
							goto out;
					}
					pi.n = 0;
				}
				break;
			case GTR_V1_GCSTWSTART:
			case GTR_V1_GCSTWDONE:
				e.evg = 0;
				if (k->mode == MODE_PASS1 &&
				    add_stw_mark(k, tm, &ev, typ == GTR_V1_GCSTWDONE) < 0) {
					rc = scan_nomem(err);
					goto out;
				}
				break;
			case GTR_V1_GCSTART:
			case GTR_V1_GCDONE:
				e.evg = 0;
				break;
			default:
				/* GoSched, GoPreempt, GoStop, GoSleep and the GoBlocks. */
				if (gtr_v1_stop_state(typ) != GTR_GS_UNDETERMINED) {
					scan_tr(&e, g, GTR_GS_RUNNING, gtr_v1_stop_state(typ));
					e.reason = typ;
				}
				break;
			}
			if ((rc = scan_emit(k, tm, &e)) < 0)
				goto out;
			if (typ == GTR_V1_GOSYSCALL) {
				st->sc = 1;
				st->sc_t = tm;
				st->sc_g = (int64_t)ev.g;
				st->sc_ticks = ev.ticks;
			}
			st->cg = (int64_t)c.g;
			if (k->mode == MODE_WAITER && k->seek->done)
				goto out;
		}
		if (rc < 0)
			goto out;
		scan_progress(k, x->batches[b->b].end - x->batches[b->b].off);
		if (k->mode == MODE_PASS1) {
			s->cmin[sm->first + i] = cmin;
			s->cmax[sm->first + i] = cmax;
			if (st->last > w->maxlocal)
				w->maxlocal = st->last;
		}
	}
	/* The P's last event: a pending syscall did not block. */
	if (st->sc && k->to == sm->n)
		rc = syscall_decide(k, NULL, err);
out:
	free(pi.g);
	return rc < 0 ? rc : 0;
}

int scan_v1_samples(scan *s, worker *w, gtr_error *err)
{
	const gtr_v1_index *x = s->x1;
	walk k = {.s = s, .w = w, .si = (uint32_t)s->nstreams, .mode = MODE_PASS2};
	k.st.g = k.st.p = -1;
	for (size_t i = 0; i < x->noob; i++) {
		const gtr_v1_oob *o = &x->oob[x->oob_order[i]];
		if ((s->t->data[o->off] & 0x3f) != GTR_V1_CPUSAMPLE)
			continue;
		/* After the P's events of the same tick, as Go's merge puts it. */
		int64_t tm = scan_v1_local(x, o->ticks) + ((1 << SCAN_V1_SUB) - 1);
		if (tm > s->tlast)
			continue;
		gtr_v1_event ev;
		int rc = gtr_v1_decode_oob(s->t, x->oob_order[i], &ev, NULL, err);
		if (rc < 0)
			return rc;
		emit e = {.type = GTR_V1_CPUSAMPLE, .evg = (int64_t)ev.g, .id = -1};
		if ((rc = scan_apply(&k, tm, &e)) < 0)
			return rc;
	}
	return 0;
}

int64_t scan_v1_last_sample(const scan *s)
{
	const gtr_v1_index *x = s->x1;
	/* A sample's key is its time: the table is in time order. */
	for (size_t i = x->noob; i-- > 0;) {
		const gtr_v1_oob *o = &x->oob[x->oob_order[i]];
		if ((s->t->data[o->off] & 0x3f) == GTR_V1_CPUSAMPLE)
			return scan_v1_local(x, o->ticks) + ((1 << SCAN_V1_SUB) - 1);
	}
	return INT64_MIN;
}

static int cmp_mark(const void *a, const void *b)
{
	const cstw *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

size_t scan_v1_pauses(cstw *stw, size_t n)
{
	if (n)
		qsort(stw, n, sizeof *stw, cmp_mark);
	size_t out = 0;
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		cstw m = stw[i];
		if (!m.is_end) {
			if (depth++ == 0)
				stw[out++] = m;
		} else if (depth > 0 && --depth == 0) {
			stw[out - 1].end = m.start;
			stw[out - 1].open = 0;
		}
	}
	return out;
}
