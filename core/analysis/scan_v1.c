/*
 * core/analysis/scan_v1.c: the parallel greedy analysis of core/analysis/scan.c over v1
 * traces (go 1.6 to go 1.21).
 *
 * A v1 trace is written per P, and everything a slice needs happens on
 * the P that runs it: the GoStart that begins it and the event that
 * stops it are in the P's batches, which are in time order in the file.
 * So a stream here is every batch of one P, and the walk follows Go's
 * parser (the goroutine the P runs carries over from batch to batch)
 * and Go 1.27's conversion of the events into goroutine transitions
 * (core/v1/v1_order.c), with per-P state only:
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
#include "core/analysis/scan_impl.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/vec.h"

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

/*
 * One event of a v1 walk, which the cursor decoded: the goroutine
 * transition it makes (as core/v1/v1_order.c converts it), a pending
 * syscall it decides, pauses and GOMAXPROCS changes. cg_after is the
 * goroutine Go's parser has on the P after it. Returns 0 or an error.
 */
static int v1_event(walk *k, const gtr_v1_event *ev, uint64_t cg_after, preinit *pi, int64_t *cmin,
		    int64_t *cmax, gtr_error *err)
{
	scan *s = k->s;
	const gtr_v1_index *x = s->x1;
	const gtr_trace *t = s->t;
	mstate *st = &k->st;
	worker *w = k->w;
	int rc = 0;
	int64_t tm = scan_tick(st, scan_v1_local(x, ev->ticks));
	if (st->sc && (rc = syscall_decide(k, ev, err)) < 0)
		return rc;
	unsigned typ = ev->type;
	int8_t sa = t->specs[typ].stack_arg;
	/* The goroutine of a transition; Go 1.27 has no goroutine 0. */
	int64_t g = ev->g == 0 ? -1 : (int64_t)ev->g;
	int pre = k->mode == MODE_PASS2 && tm < s->gomax_t;
	emit e = {.type = (uint16_t)typ, .evg = (int64_t)ev->g,
		  .stack = sa >= 0 ? ev->args[sa] : 0, .id = -1};
	if (k->mode == MODE_PASS1)
		w->events++;
	switch (typ) {
	case GTR_V1_GOSTART:
	case GTR_V1_GOSTARTLOCAL:
	case GTR_V1_GOSTARTLABEL:
		scan_tr(&e, (int64_t)ev->args[0], pre ? GTR_GS_UNDETERMINED : GTR_GS_RUNNABLE, GTR_GS_RUNNING);
		if (pre)
			pre_drop(pi, e.id);
		break;
	case GTR_V1_GOEND:
		scan_tr(&e, g, GTR_GS_RUNNING, GTR_GS_NOTEXIST);
		break;
	case GTR_V1_GOUNBLOCK:
	case GTR_V1_GOUNBLOCKLOCAL:
		scan_tr(&e, (int64_t)ev->args[0], GTR_GS_WAITING, GTR_GS_RUNNABLE);
		break;
	case GTR_V1_GOSYSCALL:
		scan_tr(&e, g, GTR_GS_RUNNING, GTR_GS_SYSCALL);
		break;
	case GTR_V1_GOSYSEXIT:
	case GTR_V1_GOSYSEXITLOCAL:
		scan_tr(&e, (int64_t)ev->args[0], GTR_GS_SYSCALL, GTR_GS_RUNNABLE);
		/* At the time it carries, which Go orders it by. */
		tm = scan_v1_local(x, exit_ticks(x, ev));
		if (k->mode == MODE_PASS1 && tm > w->maxlocal)
			w->maxlocal = tm;
		break;
	case GTR_V1_GOWAITING:
	case GTR_V1_GOINSYSCALL:
		scan_tr(&e, (int64_t)ev->args[0], GTR_GS_UNDETERMINED, typ == GTR_V1_GOWAITING ? GTR_GS_WAITING : GTR_GS_SYSCALL);
		if (pre)
			pre_drop(pi, e.id);
		break;
	case GTR_V1_GOCREATE:
		if (k->mode == MODE_PASS1)
			created(cmin, cmax, ev->args[0]);
		if (pre) {
			/* The trace's start lists the goroutines that exist. */
			int64_t ng = (int64_t)ev->args[0];
			if (scan_track_find(s, ng) >= 0) {
				if (gtr_grow(&pi->g, &pi->cap, pi->n + 1, sizeof *pi->g) < 0) {
					rc = scan_nomem(err);
					return rc;
				}
				pre_drop(pi, ng);
				pi->g[pi->n++] = ng;
			}
			break;
		}
		scan_tr(&e, (int64_t)ev->args[0], GTR_GS_NOTEXIST, GTR_GS_RUNNABLE);
		e.tr_stack = ev->args[1];
		break;
	case GTR_V1_GOMAXPROCS:
		if (k->mode == MODE_PASS1) {
			if (gtr_grow(&w->procs, &w->capprocs, w->nprocs + 1,
				     sizeof *w->procs) < 0) {
				rc = scan_nomem(err);
				return rc;
			}
			w->procs[w->nprocs++] = (cprocs){tm, ev->args[0], 0, k->si};
			if (tm < w->gomax_t || (tm == w->gomax_t && k->si < w->gomax_si)) {
				w->gomax_t = tm;
				w->gomax_si = k->si;
			}
		}
		if (k->mode == MODE_PASS2 && tm == s->gomax_t && k->si == s->gomax_si) {
			/* The start is over: what it listed and nothing moved is runnable. */
			for (size_t j = 0; j < pi->n; j++) {
				emit r = {.type = (uint16_t)typ, .evg = -1, .has_tr = 1,
					  .from = GTR_GS_UNDETERMINED, .to = GTR_GS_RUNNABLE,
					  .id = pi->g[j]};
				if ((rc = scan_apply(k, tm, &r)) < 0)
					return rc;
			}
			pi->n = 0;
		}
		break;
	case GTR_V1_GCSTWSTART:
	case GTR_V1_GCSTWDONE:
		e.evg = 0;
		if (k->mode == MODE_PASS1 &&
		    add_stw_mark(k, tm, ev, typ == GTR_V1_GCSTWDONE) < 0) {
			rc = scan_nomem(err);
			return rc;
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
		return rc;
	if (typ == GTR_V1_GOSYSCALL) {
		st->sc = 1;
		st->sc_t = tm;
		st->sc_g = (int64_t)ev->g;
		st->sc_ticks = ev->ticks;
	}
	st->cg = (int64_t)cg_after;
	return 0;
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
			if ((rc = v1_event(k, &ev, c.g, &pi, &cmin, &cmax, err)) < 0)
				goto out;
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

/* ---- pass 1's fast walk ---- */

/*
 * Pass 1 reads most events in place, without the cursor: an event of a
 * type the cursor's lean decoder takes, inline or with a one-byte
 * length, whose values all end within the 8 bytes after its tag (or its
 * length), and that decides no pending syscall. Its transition is the
 * one v1_event makes of it. Everything else goes through the cursor and
 * v1_event, one event at a time.
 *
 * What the walk needs of an event comes from its tag byte alone: a
 * descriptor per tag (scan.v1desc) with its class, its count of values
 * (the time included) and whether a length comes first; 0 sends it to
 * the cursor.
 */
enum { V1_SLOW, V1_NONE, V1_START, V1_STOP, V1_END, V1_UNBLOCK, V1_CREATE, V1_SYSCALL };
/* What a class does: a transition of the first argument's goroutine (or
 * of the P's), to Running, after which the P has that goroutine, or none. */
enum { V1F_TR = 1, V1F_IDA0 = 2, V1F_RUN = 4, V1F_GSET = 8, V1F_GCLR = 16 };
#define V1D_CLS(d) ((d) & 7)
#define V1D_N(d) ((d) >> 3 & 7)
#define V1D_LIST(d) ((d) >> 6 & 1)
#define V1D_FLAGS(d) ((d) >> 7 & 0x1f)
#define V1D_SYSBLOCK (1u << 12) /* a GoSysBlock: it may say a pending syscall blocked */

void scan_v1_classes(scan *s)
{
	memset(s->v1desc, 0, sizeof s->v1desc);
	memset(s->v1lens, 0, sizeof s->v1lens);
	if (s->t->info.version < 7)
		return; /* go 1.5 leads with a sequence number too */
	for (unsigned tag = 0; tag < 256; tag++) {
		unsigned typ = tag & 0x3f, field = tag >> 6, n = typ < GTR_V1_NTYPES ? s->x1->lean[typ] : 0;
		if (!n || n > 5 || (field < 3 ? n != field + 1 : n < 4))
			continue;
		uint8_t c = V1_NONE;
		switch (typ) {
		case GTR_V1_GOSTART:
		case GTR_V1_GOSTARTLOCAL:
			c = V1_START;
			break;
		case GTR_V1_GOEND:
			c = V1_END;
			break;
		case GTR_V1_GOUNBLOCK:
		case GTR_V1_GOUNBLOCKLOCAL:
			c = V1_UNBLOCK;
			break;
		case GTR_V1_GOCREATE:
			c = V1_CREATE;
			break;
		case GTR_V1_GOSYSCALL:
			c = V1_SYSCALL;
			break;
		case GTR_V1_GOSYSEXIT:
		case GTR_V1_GOSYSEXITLOCAL:
		case GTR_V1_GOWAITING:
		case GTR_V1_GOINSYSCALL:
		case GTR_V1_GOMAXPROCS:
		case GTR_V1_GCSTWSTART:
		case GTR_V1_GCSTWDONE:
		case GTR_V1_GOSTARTLABEL:
		case GTR_V1_TIMERGOROUTINE:
			c = V1_SLOW;
			break;
		default:
			if (gtr_v1_stop_state(typ) != GTR_GS_UNDETERMINED)
				c = V1_STOP;
			break;
		}
		static const uint8_t flags[] = {
			[V1_START] = V1F_TR | V1F_IDA0 | V1F_RUN | V1F_GSET,
			[V1_STOP] = V1F_TR | V1F_GCLR,
			[V1_END] = V1F_TR | V1F_GCLR,
			[V1_UNBLOCK] = V1F_TR | V1F_IDA0,
			[V1_CREATE] = V1F_TR | V1F_IDA0,
			[V1_SYSCALL] = V1F_TR,
		};
		/* GoSysBlock: no transition, but the P has no goroutine after it. */
		unsigned fl = flags[c] | (typ == GTR_V1_GOSYSBLOCK ? V1F_GCLR : 0);
		if (c != V1_SLOW) {
			s->v1desc[tag] = (uint16_t)(c | n << 3 | (field == 3) << 6 | fl << 7 |
						    (typ == GTR_V1_GOSYSBLOCK ? V1D_SYSBLOCK : 0));
			s->v1lens[tag] = field == 3 ? GTR_WALK_LIST : (uint8_t)n;
		}
	}
}

/* BMI2's pdep and pext, for the walk compiled for CPUs that have them. */
#if defined(__x86_64__)
#define HAVE_BMI2_ASM 1
static inline uint64_t pdep64(uint64_t x, uint64_t m)
{
	uint64_t r;
	__asm__("pdep %2, %1, %0" : "=r"(r) : "r"(x), "r"(m));
	return r;
}

static inline uint64_t pext64(uint64_t x, uint64_t m)
{
	uint64_t r;
	__asm__("pext %2, %1, %0" : "=r"(r) : "r"(x), "r"(m));
	return r;
}
#endif

/* The n-th (1 to 5) lowest set bit of e alone; 0 when e has fewer. */
static ALWAYS_INLINE uint64_t nth_bit(uint64_t e, unsigned n, const int bmi2)
{
#ifdef HAVE_BMI2_ASM
	if (bmi2)
		return pdep64(UINT64_C(1) << (n - 1), e);
#endif
	(void)bmi2;
	uint64_t m1 = e & (e - 1), m2 = m1 & (m1 - 1), m3 = m2 & (m2 - 1), m4 = m3 & (m3 - 1);
	uint64_t r = n <= 1 ? e : n == 2 ? m1 : n == 3 ? m2 : n == 4 ? m3 : m4;
	return r & (0 - r);
}

/* The value of the varint at the start of x whose flag bits are below `keep`. */
static ALWAYS_INLINE uint64_t value_below(uint64_t x, uint64_t keep, const int bmi2)
{
#ifdef HAVE_BMI2_ASM
	if (bmi2)
		return pext64(x & keep, UINT64_C(0x7f7f7f7f7f7f7f7f));
#endif
	(void)bmi2;
	return gtr_uvarint_squeeze8(x & keep);
}

/* What the fast walk's loops keep between calls. */
typedef struct v1hot {
	uint64_t q, rel, cg, open, nev, nsl;
	int64_t sg, start, last;
	/* A GoSysCall whose next event on the P says whether it blocked. */
	uint64_t sc, sc_rel;
	int64_t sc_t, sc_g;
} v1hot;

/* One event the decoding loop read, for the slice loop. */
typedef struct v1ev {
	uint64_t q;     /* where it starts */
	uint64_t rel;   /* ticks since the trace's first, after it */
	int64_t tm;     /* its local time */
	uint64_t g0;    /* its first argument (if it has one) */
	uint16_t desc;
	uint8_t tag;
	uint8_t len;    /* its bytes */
} v1ev;

#define V1_HOT_EVENTS 256

/*
 * The decoding loop: from h->q, up to V1_HOT_EVENTS events that the walk
 * reads in place, while q < lim, into ev[]; returns how many. It stops
 * before an event it does not take (desc 0, no record length, values
 * past 8 bytes). lq[q - lbase] is the record length at q (lens), else
 * unused.
 * Every event's 18 bytes from its start are readable.
 */
static ALWAYS_INLINE size_t v1_decode_in(const v1hot *h, uint64_t lim, const uint8_t *d, const uint16_t *desc,
					 const uint8_t *lq, uint64_t lbase, v1ev *ev, const int bmi2,
					 const int lens)
{
	uint64_t q = h->q, rel = h->rel;
	int64_t last = h->last;
	size_t n = 0;
	while (q < lim && n < V1_HOT_EVENTS) {
		const unsigned tag = d[q], dsc = desc[tag];
		const unsigned rlen = lens ? lq[q - lbase] : 0;
		uint64_t next = q + rlen, vp, xv, e;
		if (lens) {
			if (!dsc || !rlen)
				break;
			vp = q + 1 + V1D_LIST(dsc);
			xv = gtr_load64(d + vp);
			e = gtr_uvarint_ends8(xv);
		} else {
			/*
			 * The next event's place comes from the tag byte and the
			 * bytes after it, not from desc (a second load in a row):
			 * a tag's top two bits are its count of values past the
			 * time (desc says so for every tag it takes), or 3 for a
			 * list, whose length is the byte after the tag. desc then
			 * only checks, off the path from one event to the next.
			 */
			const unsigned field = tag >> 6;
			const uint64_t x1 = gtr_load64(d + q + 1), x2 = gtr_load64(d + q + 2);
			const uint64_t e1 = gtr_uvarint_ends8(x1);
			const uint64_t end1 = nth_bit(e1, field + 1, bmi2);
			const uint64_t inl = q + 2 + ((unsigned)__builtin_ctzll(end1 | UINT64_C(1) << 63) >> 3);
			const uint64_t lst = q + 2 + (x1 & 0xff);
			const uint64_t islist = 0 - (uint64_t)(field == 3);
			next = (inl & ~islist) | (lst & islist);
			vp = q + 1 + (islist & 1);
			xv = (x1 & ~islist) | (x2 & islist);
			e = gtr_uvarint_ends8(xv);
			if (!dsc)
				break;
			/* The values all end where the event does (a list: within its length). */
			const uint64_t last_end = islist ? nth_bit(e, V1D_N(dsc), bmi2) : end1;
			const uint64_t bytes = ((unsigned)__builtin_ctzll(last_end | UINT64_C(1) << 63) >> 3) + 1;
			if (!last_end || vp + bytes != next)
				break;
		}
		/* The time, then the first argument (which an event of one value
		 * does not have: g0 is then not used), each of 8 bytes at most
		 * (record_lens says so, or the event's values end within 8). */
		const uint64_t k0 = e & (0 - e);
		rel += value_below(xv, k0 | (k0 - 1), bmi2);
		const unsigned sh = ((unsigned)__builtin_ctzll(k0) + 1) & 63;
		uint64_t g0;
		if (lens) {
			const uint64_t xa = gtr_load64(d + vp + (sh >> 3)), ea = gtr_uvarint_ends8(xa);
			const uint64_t ka = ea & (0 - ea);
			g0 = value_below(xa, ka | (ka - 1), bmi2);
		} else {
			const uint64_t e1 = e >> sh, k1 = e1 & (0 - e1);
			g0 = value_below(xv >> sh, k1 | (k1 - 1), bmi2);
		}
		/* scan_v1_local (can_scan made sure the ticks fit it), made later
		 * than the P's last event. */
		const int64_t local = (int64_t)(rel << SCAN_V1_SUB);
		last = local > last ? local : last + 1;
		ev[n] = (v1ev){q, rel, last, g0, (uint16_t)dsc, (uint8_t)tag, (uint8_t)(next - q)};
		n++;
		q = next;
	}
	return n;
}

/* The decoding loop of each walk, a function of its own: compilers
 * allocate registers per function. Those for a CPU with BMI2 also have
 * BMI1 (the ISAs that choose them require both): its bit instructions
 * halve the code of the varint arithmetic. */
#if defined(__x86_64__)
#define TARGET_BMI __attribute__((target("bmi,bmi2")))
#else
#define TARGET_BMI
#endif
#define V1_DECODE(name, bmi2, lens, target)                                                           \
	static __attribute__((noinline)) target size_t name(const v1hot *h, uint64_t lim, const uint8_t *d, \
							      const uint16_t *desc, const uint8_t *lq,    \
							      uint64_t lbase,                             \
							      v1ev *ev)                                   \
	{                                                                                              \
		return v1_decode_in(h, lim, d, desc, lq, lbase, ev, bmi2, lens);                       \
	}
V1_DECODE(v1_decode_lens, 1, 1, TARGET_BMI)
V1_DECODE(v1_decode_bmi2, 1, 0, TARGET_BMI)
V1_DECODE(v1_decode_plain, 0, 0, )

/*
 * The slice loop: the n decoded events, apply()'s slice logic for each
 * (a slice ends when its goroutine leaves Running or another one starts
 * on the P; one starts with a goroutine that was not running here). It
 * stops before an event that ends a slice which may enter the heap
 * (dur >= thr): the caller sends that one through the cursor. Returns
 * the events applied. Selects, not branches: the classes of consecutive
 * events are as good as random to a branch predictor.
 */
static __attribute__((noinline)) size_t v1_slices(v1hot *h, const v1ev *ev, size_t n, int64_t thr,
						   uint16_t *start_ev, int64_t *cmin, int64_t *cmax)
{
	uint64_t cg = h->cg, open = h->open, nsl = h->nsl, sc = h->sc, sc_rel = h->sc_rel;
	int64_t sg = h->sg, start = h->start, sc_t = h->sc_t, sc_g = h->sc_g;
	size_t i = 0;
	for (; i < n; i++) {
		const v1ev *e = &ev[i];
		const unsigned f = V1D_FLAGS(e->desc);
		const int64_t tm = e->tm;
		if (__builtin_expect(sc, 0)) {
			/* syscall_decide: the goroutine's GoSysBlock says its syscall
			 * blocked, unless a CPU sample of it falls between (the
			 * cursor's path looks); anything else, that it runs again
			 * from the GoSysCall's time. */
			if ((e->desc & V1D_SYSBLOCK) && (int64_t)cg == sc_g)
				break;
			const int64_t id = sc_g == 0 ? -1 : sc_g;
			if (!(open && sg == id)) {
				if (open && sc_t - start >= thr)
					break;
				nsl += open;
				open = 1;
				sg = id;
				start = sc_t;
				*start_ev = GTR_V1_GOSYSCALL;
			}
			sc = 0;
		}
		const int64_t id = (f & V1F_IDA0) ? (int64_t)e->g0 : cg ? (int64_t)cg : -1;
		const uint64_t run = f >> 2 & 1, same = (uint64_t)(id == sg);
		const uint64_t end = (f & V1F_TR) & open & (run ^ same);
		const uint64_t begin = run & ~(open & same);
		if (__builtin_expect(end && (tm < start ? start : tm) - start >= thr, 0))
			break;
		nsl += end;
		open = (open & ~end) | begin;
		start = begin ? tm : start;
		sg = begin ? id : sg;
		*start_ev = begin ? (uint16_t)(e->tag & 0x3f) : *start_ev;
		if (__builtin_expect(V1D_CLS(e->desc) == V1_SYSCALL, 0)) {
			sc = 1;
			sc_t = tm;
			sc_g = (int64_t)cg;
			sc_rel = e->rel;
		}
		cg = (f & V1F_GSET) ? e->g0 : (f & V1F_GCLR) ? 0 : cg;
		if (__builtin_expect(V1D_CLS(e->desc) == V1_CREATE, 0))
			created(cmin, cmax, e->g0);
	}
	h->cg = cg;
	h->open = open;
	h->nsl = nsl;
	h->sg = sg;
	h->start = start;
	h->sc = sc;
	h->sc_rel = sc_rel;
	h->sc_t = sc_t;
	h->sc_g = sc_g;
	h->nev += i;
	return i;
}

/* The loops' state to mstate and back (the position, ticks and the P's
 * goroutine are the cursor's, kept apart). */
static void to_state(const v1hot *h, mstate *st, uint64_t min_ticks)
{
	st->g = h->sg;
	st->start = h->start;
	st->last = h->last;
	st->open = (uint8_t)h->open;
	st->cg = (int64_t)h->cg;
	st->sc = (uint8_t)h->sc;
	st->sc_t = h->sc_t;
	st->sc_g = h->sc_g;
	st->sc_ticks = h->sc_rel + min_ticks;
}

static void from_state(v1hot *h, const mstate *st, uint64_t min_ticks)
{
	h->sg = st->g;
	h->start = st->start;
	h->last = st->last;
	h->open = st->open;
	h->sc = st->sc;
	h->sc_t = st->sc_t;
	h->sc_g = st->sc_g;
	h->sc_rel = st->sc_ticks - min_ticks;
}

/*
 * The walk, for a CPU with BMI2 or without, and with or without the
 * record lengths of the batch computed ahead (record_lens: the next
 * event is then one load away, not a select on the value bytes away).
 */
static ALWAYS_INLINE int v1_walk_fast_in(walk *k, gtr_error *err, const int bmi2, const int lens)
{
	scan *s = k->s;
	const stream *sm = &s->streams[k->si];
	const gtr_v1_index *x = s->x1;
	const gtr_trace *t = s->t;
	const uint8_t *const d = t->data;
	mstate *st = &k->st;
	worker *w = k->w;
	preinit pi = {0};
	int rc = 0;
	v1hot h = {0};
	k->gen = 0;
	st->p = (int64_t)sm->m;
	for (size_t i = 0; i < sm->n; i++) {
		const sbatch *b = &s->sb[sm->first + i];
		/* The fast path starts slices on this P only (v1 streams are Ps). */
		st->slice_p = st->p;
		k->cmin = INT64_MAX;
		k->cmax = INT64_MIN;
		s->snaps[sm->first + i] = *st;
		gtr_v1_cursor c;
		gtr_v1_cursor_init(&c, t, b->b, (uint64_t)st->cg);
		c.unchecked = 1;
		const uint64_t qe = c.end;
		/* The fast path reads 18 bytes from an event's start. */
		const uint64_t qfast = qe > 18 ? qe - 17 : 0;
		/* Ticks since the trace's first. */
		h.q = c.pos;
		h.rel = c.ticks - x->min_ticks;
		h.cg = c.g;
		from_state(&h, st, x->min_ticks);
		uint64_t lhi = h.q; /* w->lens[q - lbase] is the length of the record at q < lhi */
		uint64_t lbase = h.q;
		while (h.q < qe) {
			if (h.q < qfast) {
				uint64_t lim = qfast;
				if (lens) {
					if (h.q >= lhi) {
						lbase = h.q;
						lhi = qfast - h.q > SCAN_LENS_CHUNK ? h.q + SCAN_LENS_CHUNK : qfast;
						t->kernels.record_lens(d + h.q, lhi - h.q, d + qe, s->v1lens, w->lens);
					}
					lim = lhi;
				}
				size_t n = (lens ? v1_decode_lens : bmi2 ? v1_decode_bmi2 : v1_decode_plain)(
					&h, lim, d, s->v1desc, w->lens, lbase, w->v1ev);
				size_t m = v1_slices(&h, w->v1ev, n, k->thr, &st->start_ev, &k->cmin, &k->cmax);
				if (m) {
					/* Where the applied events leave the walk. */
					const v1ev *e = &w->v1ev[m - 1];
					h.q = e->q + e->len;
					h.rel = e->rel;
					h.last = e->tm;
				}
				/* More may follow, or a chunk of record lengths ends here. */
				if ((m == n && n > 0) || (lens && n == 0 && h.q == lhi && h.q < qfast))
					continue;
			}
			/* One event through the cursor (tables and samples are
			 * stepped over): what the hot loop stopped at. */
			to_state(&h, st, x->min_ticks);
			gtr_v1_event ev;
			c.pos = h.q;
			c.ticks = h.rel + x->min_ticks;
			c.g = h.cg;
			rc = gtr_v1_cursor_next(&c, &ev, err);
			if (rc < 0)
				goto out;
			h.q = c.pos;
			h.rel = c.ticks - x->min_ticks;
			h.cg = c.g;
			if (rc == 0)
				break;
			if ((rc = v1_event(k, &ev, c.g, &pi, &k->cmin, &k->cmax, err)) < 0)
				goto out;
			from_state(&h, st, x->min_ticks);
			k->thr = scan_heap_threshold(w);
		}
		to_state(&h, st, x->min_ticks);
		scan_progress(k, x->batches[b->b].end - x->batches[b->b].off);
		s->cmin[sm->first + i] = k->cmin;
		s->cmax[sm->first + i] = k->cmax;
		if (st->last > w->maxlocal)
			w->maxlocal = st->last;
	}
	/* The P's last event: a pending syscall did not block. */
	if (st->sc)
		rc = syscall_decide(k, NULL, err);
out:
	w->events += h.nev;
	w->nslices += h.nsl;
	free(pi.g);
	return rc < 0 ? rc : 0;
}

int scan_v1_walk_fast(walk *k, gtr_error *err)
{
	k->thr = scan_heap_threshold(k->w);
	if (!k->w->v1ev && !(k->w->v1ev = malloc(V1_HOT_EVENTS * sizeof *k->w->v1ev)))
		return scan_nomem(err);
#ifdef HAVE_BMI2_ASM
	/* The AVX2 and AVX-512 kernels need BMI2 too: the CPU has it. Only
	 * AVX-512 computes record lengths faster than the walk selects. */
	if (k->s->t->kernels.isa >= GTR_ISA_AVX512)
		return v1_walk_fast_in(k, err, 1, 1);
	if (k->s->t->kernels.isa >= GTR_ISA_AVX2)
		return v1_walk_fast_in(k, err, 1, 0);
#endif
	return v1_walk_fast_in(k, err, 0, 0);
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
