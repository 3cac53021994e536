/*
 * core/analysis/stats_fast.c: `gtr stats --fast`, the goroutine analysis
 * without Go's global order (v2 traces).
 *
 * A generation at a time, worker threads walk its threads' (Ms') event
 * batches, each M on its own, as Go's runtime wrote them. What a
 * goroutine's time needs is either on one M or a sum:
 *
 *  - The time in a state is the sum over its intervals of end - start:
 *    each transition adds its time to the state it leaves and takes it
 *    from the state it enters, wherever it happened, so the order of the
 *    sums does not matter. At the end of the trace, the state a living
 *    goroutine is left in is the one it entered once more than it left.
 *  - A slice (Running, until it stops, blocks, yields, exits or enters
 *    a syscall) begins and ends on the M that runs it.
 *  - What Waiting is for is said where the wait begins (the goroutine's
 *    own M) and the time it ends where it is unblocked (another M). Go
 *    numbers the starts and unblocks of a goroutine in a generation: a
 *    wait begun after the start numbered s, or after the generation's
 *    status of the goroutine (s = 0), ends with the unblock numbered
 *    s + 1, or, begun in an earlier generation, with the first unblock of
 *    this one. Between generations, the waits joined so are matched.
 *
 * Times are Go's (its time of each event, and the generation's Sync
 * before every event of the generation) but for one thing: Go's reader
 * makes the times of its global order strictly increasing, 1 ns apart
 * where events of different threads share a nanosecond, or where a
 * generation's first events were written before the previous one's
 * last; here such events keep their own times (or the Sync's + 1 ns).
 * A duration therefore differs from Go's by at most the number of
 * events in such a pile (tests/statsfast.sh measures it, and the README
 * states the bound).
 *
 * It runs the ordered path instead, with the reason in -v, for v1
 * traces, partial or lenient reads, anything that does not decode, and
 * what one M alone cannot tell: an event of the goroutine an M runs when
 * the M's first events do not say which (a goroutine in a syscall since
 * before the trace, reported by another M), an unblock that no wait
 * matches, a goroutine alive at the end in no single state, and the end
 * of a goroutine in a syscall on an M whose P another M may have taken.
 * Like `greedy --fast`, it does not check all that Go's reader checks of
 * the order of events between threads.
 */
#include "core/analysis/stats.h"
#include "core/base/idmap.h"
#include "core/base/sort.h"
#include "core/base/vec.h"
#include "core/v2/v2.h"
#include "io/meter.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The states a goroutine's time is kept for, and their sums. */
enum { S_RUNNING, S_RUNNABLE, S_SYSCALL, S_WAITING, S_N };
enum { SUM_ASSIST = S_WAITING, SUM_N }; /* sums: the three states, then assists */

#define HINTS 4096
#define REASON_IDS 1024
#define PART_SLICES 3
/* A share that had DENSE_AFTER slices counts the next ones in a dense
 * histogram, DENSE_MAX of them per worker and generation. */
#define DENSE_AFTER 64
#define DENSE_MAX 32

/* What is kept of a goroutine: a worker's share of it in a generation,
 * and (added up) the goroutine alive in the merges. */
typedef struct gacc {
	int64_t sum[SUM_N];          /* signed: + leaving, - entering */
	int32_t net[S_N];            /* entries - exits, per state */
	int32_t assist;              /* begins - ends */
	uint8_t dead;                /* it exited, or blocked forever */
	uint8_t name_kind;           /* 0 none, 1 a stack it was seen with, 2 its creation's */
	uint32_t name_gen;
	int64_t name_t;
	uint64_t name_stack;
	int64_t dead_t;
} gacc;

/* A stack that may name the goroutine: its creation's (kind 2) wins,
 * else the earliest it was seen with (kind 1). */
static void name_offer(gacc *a, uint8_t kind, uint32_t gen, int64_t t, uint64_t stack)
{
	if (kind == 2 || (kind == 1 && a->name_kind < 2 &&
			  (!a->name_kind || gen < a->name_gen ||
			   (gen == a->name_gen && t < a->name_t)))) {
		a->name_kind = kind;
		a->name_gen = gen;
		a->name_t = t;
		a->name_stack = stack;
	}
}

/* Adds src to dst. */
static void gacc_add(gacc *dst, const gacc *src)
{
	for (int s = 0; s < SUM_N; s++)
		dst->sum[s] += src->sum[s];
	for (int s = 0; s < S_N; s++)
		dst->net[s] += src->net[s];
	dst->assist += src->assist;
	if (src->dead && (!dst->dead || src->dead_t < dst->dead_t)) {
		dst->dead = 1;
		dst->dead_t = src->dead_t;
	}
	if (src->name_kind)
		name_offer(dst, src->name_kind, src->name_gen, src->name_t, src->name_stack);
}

/* A goroutine's share of one generation on one worker. */
typedef struct gpart {
	int64_t g;
	gacc a;
	uint8_t q;      /* its shard */
	/* its first slices here, the others in a histogram of the worker's
	 * (1 + index in worker.hists, 0 none), past DENSE_AFTER in a dense
	 * one, added when the share is merged */
	uint8_t nsl;
	uint8_t dense;  /* 1 + index in worker.dense: its slices, once many */
	uint32_t hist;
	uint32_t slot;  /* the merge's: its goroutine's slot among those alive */
	uint64_t sl[PART_SLICES];
} gpart;

/*
 * What a worker found in a generation that its merge joins, for the
 * goroutine of share `part`: a wait's start (its number, time, and its
 * reason group in part's top bits: REC_BLOCK) or an unblock (number,
 * time). Numbers count the starts of a goroutine in a generation: one
 * past 32 bits sends the run to the ordered path.
 */
#define REC_BLOCK 29
typedef struct rec {
	uint32_t part, seq;
	int64_t t;
} rec;

typedef struct recs {
	rec *v;
	size_t n, cap;
} recs;

/* A worker's records of one generation for the goroutines of one shard,
 * so that a shard's merge reads only its own. */
typedef struct bucket {
	recs ws, we;         /* wait starts, unblocks */
	uint32_t *parts;     /* the shares, by index */
	size_t nparts, capparts;
} bucket;

/* A ProcSteal of P p from M m at time t; prev: the one before of the
 * same P and M (1 + index, 0 none), once merged. */
typedef struct steal {
	int64_t p;
	uint64_t m;
	int64_t t;
	size_t prev;
} steal;

/* A GoSyscallEndBlocked of goroutine g (or a ProcStart, g -1) on M m
 * that still has the P p of the syscall begun at `begin`: Go's reader
 * puts it after that P's steal. */
typedef struct lateend {
	int64_t g, p;
	uint64_t gseq;  /* the number of the goroutine's next start */
	uint64_t m;
	int64_t begin, t;
	uint32_t begin_gen;
	int64_t next;  /* the M's next event, INT64_MAX none */
} lateend;

/* What an M holds, kept across generations. */
typedef struct mst {
	int64_t g, p;      /* -1: none */
	uint64_t seq;      /* g's number: its start's, 0 after its status */
	int64_t sys_t;     /* when its goroutine's syscall began */
	uint32_t sys_gen;  /* and in which generation */
	size_t late;       /* 1 + the index of its lateend awaiting its next event, 0 none */
	int64_t start;     /* the open slice's start */
	uint8_t running;   /* a slice is open */
	uint8_t known;     /* g is known (an M's first events may not say) */
	uint8_t pnew;
} mst;

typedef struct worker {
	struct fast *f;
	gtr_idpage *gidx;           /* goroutine -> 1 + index in parts (this generation) */
	gpart *parts;
	size_t nparts, capparts;
	bucket *bk;                 /* per shard */
	gtr_hist *hists;            /* the slices of shares that had many (kept: their bins are reused) */
	size_t nhists, madehists, caphists;
	gtr_hist_dense *dense[DENSE_MAX]; /* made when first needed, kept */
	unsigned ndense;
	steal *pst;                 /* its ProcStarts: P, M, time */
	size_t npst, cappst;
	steal *st;
	size_t nst, capst;
	lateend *le;
	size_t nle, caple;
	gtr_idmap *reasons;         /* (gen, string id) -> block group + 1 */
	uint16_t rsn[REASON_IDS];   /* the same for this generation's first ids */
	size_t rsn_gen;             /* 1 + the generation rsn is of, 0 none */
	uint32_t hint[HINTS];       /* see part() */
	uint64_t *vals;             /* a batch's varints, decoded */
	size_t capvals;
	uint64_t events;
	uint64_t steals;            /* ProcSteals of another M's P */
	uint64_t dsys;              /* GoDestroySyscalls on an M that has a P */
	int64_t tmax;               /* the latest time it gave an event */
	int rc;                     /* 0, GTR_E_NOMEM, or 1: go ordered (why set) */
	char why[160];
} worker;

/* A goroutine alive, as the merges have it. */
typedef struct glive {
	int64_t id;
	gtr_hist slices;            /* (its row's times are made from `a` when it is retired) */
	gacc a;
	int64_t wsum[GTR_BLOCK_N];  /* its waits' times, by reason (joined in the merges) */
	int64_t wait_t;             /* when its open wait began */
	int8_t wait;                /* the block group of its open wait, -1 none */
	uint8_t gone;               /* retired: its row is final, and goes to the analysis
				     * in put_rows, which then drops it */
} glive;

typedef struct shard shard;

typedef struct fast {
	const gtr_trace *t;
	const gtr_v2_index *ix;
	gtr_stats_acc *acc;
	unsigned jobs;
	worker *ws;
	/* this generation */
	size_t gen;
	int64_t sync;               /* its Sync's time */
	atomic_size_t next;         /* its next M */
	/* Ms across generations */
	gtr_idmap *midx;            /* M -> index in ms */
	mst *ms;
	size_t nms, capms;
	size_t *unit_m;             /* per M of this generation: index in ms */
	size_t capunit;
	/* the pile at this generation's start (see pile()): per M of the
	 * generation, how many of its first events are in it, and where
	 * their times start in pile_t */
	size_t *pn, *poff;
	size_t cappn, cappoff;
	int64_t *pile_t;
	size_t cappile;
	struct tcur *tc;
	size_t captc;
	uint32_t *pm;               /* the pile's events' Ms, in Go's order */
	size_t cappm;
	int64_t base;               /* Go's time of the first Sync: times are since */
	uint64_t steals, dsys;      /* the workers' counts, so far */
	struct shard *sh;           /* the goroutines alive, in `jobs` shards */
	gtr_idmap *stolen;          /* (P, M) -> 1 + index in steals of the latest */
	steal *steals_v;            /* every steal so far */
	size_t nsteals_v, capsteals_v;
	int64_t last;               /* the latest time so far */
	uint64_t events;
	int put_rc;                 /* put_rows: 0, or GTR_E_NOMEM */
	char why[160];
} fast;

/* Keeps the first reason the ordered path must run; returns 1, which
 * a walk or a merge returns for it. */
static int why_ordered(char *why, size_t cap, const char *what)
{
	if (!why[0])
		snprintf(why, cap, "%s", what);
	return 1;
}
#define FAIL(x, what) why_ordered((x)->why, sizeof (x)->why, what)

/* The shard of goroutine g: ids spread by a multiplicative hash, then
 * scaled to the shards (no division per record). */
static unsigned shard_of(const fast *f, int64_t g)
{
	uint32_t h = (uint32_t)(((uint64_t)g * UINT64_C(0x9e3779b97f4a7c15)) >> 32);
	return (unsigned)(((uint64_t)h * f->jobs) >> 32);
}

/* 0, GTR_E_NOMEM, or 1 (go ordered). */
static int push(worker *w, recs *r, uint32_t part, uint64_t seq, int64_t t)
{
	if (seq > UINT32_MAX)
		return FAIL(w, "a goroutine started more than 2^32 times in a generation");
	if (r->n == r->cap && gtr_grow(&r->v, &r->cap, r->n + 1, sizeof *r->v) < 0)
		return GTR_E_NOMEM;
	r->v[r->n++] = (rec){part, (uint32_t)seq, t};
	return 0;
}

/* part(), past the hint: the index, or a new share. */
static gpart *part_slow(worker *w, int64_t g, uint32_t *hint)
{
	uint32_t *slot = gtr_idpage_slot(w->gidx, (uint64_t)g);
	if (!slot)
		return NULL;
	if (*slot) {
		*hint = *slot;
		return &w->parts[*slot - 1];
	}
	unsigned q = shard_of(w->f, g);
	bucket *b = &w->bk[q];
	if (w->nparts >= (UINT32_C(1) << REC_BLOCK) - 1 ||
	    gtr_grow(&w->parts, &w->capparts, w->nparts + 1, sizeof *w->parts) < 0 ||
	    gtr_grow(&b->parts, &b->capparts, b->nparts + 1, sizeof *b->parts) < 0)
		return NULL;
	b->parts[b->nparts++] = (uint32_t)w->nparts;
	gpart *p = &w->parts[w->nparts++];
	memset(p, 0, sizeof *p);
	p->g = g;
	p->q = (uint8_t)q;
	*hint = *slot = (uint32_t)w->nparts;
	return p;
}

/* The worker's share of goroutine g in this generation (NULL: out of
 * memory). First the share this worker found for an id with the same
 * low bits, if it is g's (goroutine ids count up: those of one
 * generation mostly differ there); else the map. */
static inline gpart *part(worker *w, int64_t g)
{
	uint32_t *hint = &w->hint[(uint64_t)g & (HINTS - 1)];
	if (*hint && *hint <= w->nparts && w->parts[*hint - 1].g == g)
		return &w->parts[*hint - 1];
	return part_slow(w, g, hint);
}

static int state_of(uint8_t gs)
{
	switch (gs) {
	case GTR_GS_RUNNING: return S_RUNNING;
	case GTR_GS_RUNNABLE: return S_RUNNABLE;
	case GTR_GS_SYSCALL: return S_SYSCALL;
	case GTR_GS_WAITING: return S_WAITING;
	default: return -1;
	}
}

/* The block group of reason string id of this generation; 0xff: "forever".
 * A GoBlock names its reason by a string id of its generation: the first
 * ids (most reasons) are kept in an array, the others in a map. */
static int block_of(worker *w, uint64_t id)
{
	fast *f = w->f;
	if (w->rsn_gen != f->gen + 1) {
		memset(w->rsn, 0, sizeof w->rsn);
		w->rsn_gen = f->gen + 1;
	}
	uint64_t v;
	if (id < REASON_IDS && w->rsn[id])
		return w->rsn[id] - 1;
	if (id >= REASON_IDS && gtr_idmap_get(w->reasons, f->gen, id, &v))
		return (int)v - 1;
	gtr_str s = {"", 0};
	if (id)
		gtr_v2_string(f->t, (uint32_t)f->gen, id, &s);
	int b = s.n == 7 && memcmp(s.p, "forever", 7) == 0 ? 0xff : (int)gtr_block_of_reason(s);
	if (id < REASON_IDS)
		w->rsn[id] = (uint16_t)(b + 1);
	else if (gtr_idmap_put(w->reasons, f->gen, id, (uint64_t)b + 1) < 0)
		return -1;
	return b;
}

/*
 * Goroutine g goes from one state to another at time t. `block`: the
 * reason group when it enters Waiting (0xff: forever); `seq`: its number
 * then (a wait's start), or the unblock's; `stack`: the transition's.
 */
static int trans(worker *w, int64_t g, uint8_t from, uint8_t to, int64_t t, int block, uint64_t seq,
		 uint64_t stack)
{
	fast *f = w->f;
	gpart *p = part(w, g);
	if (!p)
		return GTR_E_NOMEM;
	bucket *b = &w->bk[p->q];
	uint32_t pi = (uint32_t)(p - w->parts);
	if (stack)
		name_offer(&p->a, from == GTR_GS_NOTEXIST ? 2 : 1, (uint32_t)f->gen, t, stack);
	int sf = state_of(from), st = state_of(to);
	if (from == GTR_GS_UNDETERMINED) {
		/* Found so at the first Sync: in that state since. */
		t = 0;
	} else if (sf >= 0) {
		if (sf == S_WAITING) {
			int rc = push(w, &b->we, pi, seq, t);
			if (rc != 0)
				return rc;
		} else {
			p->a.sum[sf] += t;
		}
		p->a.net[sf]--;
	}
	if (to == GTR_GS_NOTEXIST || (st == S_WAITING && block == 0xff)) {
		p->a.dead = 1;
		p->a.dead_t = t;
		return 0;
	}
	if (st < 0)
		return 0;
	p->a.net[st]++;
	if (st == S_WAITING)
		return push(w, &b->ws, pi | (uint32_t)block << REC_BLOCK,
			    from == GTR_GS_UNDETERMINED ? 0 : seq, t);
	p->a.sum[st] -= t;
	return 0;
}

static int slice_end(worker *w, mst *m, int64_t t)
{
	if (!m->running)
		return 0;
	m->running = 0;
	uint64_t len = t > m->start ? (uint64_t)(t - m->start) : 0;
	gpart *p = part(w, m->g);
	if (!p)
		return GTR_E_NOMEM;
	if (p->nsl < PART_SLICES) {
		p->sl[p->nsl++] = len;
		return 0;
	}
	if (p->dense) {
		gtr_hist_dense_add(w->dense[p->dense - 1], len);
		return 0;
	}
	if (!p->hist) {
		if (w->nhists >= UINT32_MAX - 1 ||
		    gtr_grow(&w->hists, &w->caphists, w->nhists + 1, sizeof *w->hists) < 0)
			return GTR_E_NOMEM;
		if (w->nhists == w->madehists) /* a fresh one */
			w->hists[w->madehists++] = (gtr_hist){0};
		gtr_hist_reset(&w->hists[w->nhists]);
		p->hist = (uint32_t)++w->nhists;
	}
	gtr_hist *h = &w->hists[p->hist - 1];
	if (h->count >= DENSE_AFTER && w->ndense < DENSE_MAX) {
		gtr_hist_dense **d = &w->dense[w->ndense];
		if (!*d && !(*d = calloc(1, sizeof **d)))
			return GTR_E_NOMEM;
		p->dense = (uint8_t)++w->ndense;
		gtr_hist_dense_add(*d, len);
		return 0;
	}
	return gtr_hist_add(h, len);
}

static void slice_start(mst *m, int64_t t)
{
	m->running = 1;
	m->start = t;
}

/* The M's goroutine, for an event that acts on it: 0, or 1 (go ordered). */
static int need_g(worker *w, const mst *m)
{
	if (!m->known || m->g < 0)
		return FAIL(w, "an event of the goroutine an M runs, where the M's events do not "
				     "say which (only Go's order can tell)");
	return 0;
}

static const uint8_t gstate_of_status[] = {GTR_GS_UNDETERMINED, GTR_GS_RUNNABLE, GTR_GS_RUNNING,
					   GTR_GS_SYSCALL, GTR_GS_WAITING};

/* One event of M m at time t. 0, GTR_E_NOMEM, or 1 (go ordered). */
static int step(worker *w, mst *m, uint64_t mid, unsigned type, const uint64_t *a, int64_t t)
{
	fast *f = w->f;
	int rc = 0;
	w->events++;
	if (m->late) {
		w->le[m->late - 1].next = t;
		m->late = 0;
	}
	switch (type) {
	case GTR_V2_EV_PROC_STATUS:
		if (a[1] == GTR_V2_PROC_RUNNING || a[1] == GTR_V2_PROC_SYSCALL) {
			m->p = (int64_t)a[0];
			m->pnew = 0;
		}
		break;
	case GTR_V2_EV_PROC_START:
		if (gtr_grow(&w->pst, &w->cappst, w->npst + 1, sizeof *w->pst) < 0)
			return GTR_E_NOMEM;
		w->pst[w->npst++] = (steal){(int64_t)a[0], mid, t, 0};
		if (m->p != -1) {
			/* Still with the P of a syscall: Go's reader starts the
			 * new one after that P's steal. */
			if (gtr_grow(&w->le, &w->caple, w->nle + 1, sizeof *w->le) < 0)
				return GTR_E_NOMEM;
			w->le[w->nle++] = (lateend){-1, m->p, 0, mid, m->sys_t, t, m->sys_gen, INT64_MAX};
			m->late = w->nle;
		}
		m->p = (int64_t)a[0];
		m->pnew = m->known && m->g != -1;
		break;
	case GTR_V2_EV_PROC_STOP:
		m->p = -1;
		m->pnew = 0;
		break;
	case GTR_V2_EV_PROC_STEAL:
		if (a[2] == mid && m->p == (int64_t)a[0]) {
			m->p = -1;
			m->pnew = 0;
		} else if (a[2] != mid) {
			w->steals++; /* see GoDestroySyscall */
			if (gtr_grow(&w->st, &w->capst, w->nst + 1, sizeof *w->st) < 0)
				return GTR_E_NOMEM;
			w->st[w->nst++] = (steal){(int64_t)a[0], a[2], t, 0};
		}
		break;
	case GTR_V2_EV_GO_STATUS:
	case GTR_V2_EV_GO_STATUS_STACK: {
		int64_t g = (int64_t)a[0];
		uint64_t status = a[2];
		if (status < GTR_V2_GO_RUNNABLE || status > GTR_V2_GO_WAITING)
			return FAIL(w, "a goroutine status Go's reader refuses");
		uint8_t to = gstate_of_status[status];
		uint64_t stack = type == GTR_V2_EV_GO_STATUS_STACK ? a[3] : 0;
		if (f->gen == 0 &&
		    (rc = trans(w, g, GTR_GS_UNDETERMINED, to, t, GTR_BLOCK_OTHER, 0, stack)) != 0)
			return rc;
		if (status == GTR_V2_GO_RUNNING || (status == GTR_V2_GO_SYSCALL && a[1] == mid)) {
			if (m->known && m->g != g && m->g != -1 && m->running)
				return FAIL(w, "an M that runs two goroutines at once");
			m->g = g;
			m->known = 1;
			m->seq = 0;
			if (f->gen == 0 && status == GTR_V2_GO_RUNNING)
				slice_start(m, t);
		}
		break;
	}
	case GTR_V2_EV_GO_CREATE:
	case GTR_V2_EV_GO_CREATE_BLOCKED:
		return trans(w, (int64_t)a[0], GTR_GS_NOTEXIST,
			     type == GTR_V2_EV_GO_CREATE ? GTR_GS_RUNNABLE : GTR_GS_WAITING, t,
			     GTR_BLOCK_OTHER, 0, a[1]);
	case GTR_V2_EV_GO_CREATE_SYSCALL:
		if ((rc = trans(w, (int64_t)a[0], GTR_GS_NOTEXIST, GTR_GS_SYSCALL, t, 0, 0, 0)) != 0)
			return rc;
		m->g = (int64_t)a[0];
		m->known = 1;
		m->seq = 0;
		break;
	case GTR_V2_EV_GO_START: {
		if ((rc = trans(w, (int64_t)a[0], GTR_GS_RUNNABLE, GTR_GS_RUNNING, t, 0, a[1], 0)) != 0)
			return rc;
		m->g = (int64_t)a[0];
		m->known = 1;
		m->seq = a[1];
		slice_start(m, t);
		break;
	}
	case GTR_V2_EV_GO_DESTROY:
	case GTR_V2_EV_GO_STOP:
	case GTR_V2_EV_GO_BLOCK: {
		if (need_g(w, m))
			return 1;
		uint8_t to = type == GTR_V2_EV_GO_DESTROY ? GTR_GS_NOTEXIST
			     : type == GTR_V2_EV_GO_STOP  ? GTR_GS_RUNNABLE
							  : GTR_GS_WAITING;
		int block = 0;
		if (to == GTR_GS_WAITING && (block = block_of(w, a[0])) < 0)
			return GTR_E_NOMEM;
		if ((rc = slice_end(w, m, t)) != 0 ||
		    (rc = trans(w, m->g, GTR_GS_RUNNING, to, t, block, m->seq,
				to == GTR_GS_NOTEXIST ? 0 : a[1])) != 0)
			return rc;
		m->g = -1;
		break;
	}
	case GTR_V2_EV_GO_UNBLOCK:
		return trans(w, (int64_t)a[0], GTR_GS_WAITING, GTR_GS_RUNNABLE, t, 0, a[1], 0);
	case GTR_V2_EV_GO_SWITCH:
	case GTR_V2_EV_GO_SWITCH_DESTROY: {
		/* Go's reader: the unblock of the next goroutine, the block
		 * (or exit) of this one, the start of the next, 1 ns apart. */
		if (need_g(w, m))
			return 1;
		int64_t ng = (int64_t)a[0], cur = m->g;
		if (ng == cur)
			return FAIL(w, "a goroutine that switches to itself");
		w->events += 2;
		if ((rc = trans(w, ng, GTR_GS_WAITING, GTR_GS_RUNNABLE, t, 0, a[1], 0)) != 0 ||
		    (rc = slice_end(w, m, t + 1)) != 0 ||
		    (rc = trans(w, cur, GTR_GS_RUNNING,
				type == GTR_V2_EV_GO_SWITCH ? GTR_GS_WAITING : GTR_GS_NOTEXIST, t + 1,
				GTR_BLOCK_OTHER, m->seq, 0)) != 0 ||
		    (rc = trans(w, ng, GTR_GS_RUNNABLE, GTR_GS_RUNNING, t + 2, 0, a[1], 0)) != 0)
			return rc;
		m->g = ng;
		m->seq = a[1];
		slice_start(m, t + 2);
		if (t + 2 > w->tmax)
			w->tmax = t + 2;
		break;
	}
	case GTR_V2_EV_GO_SYSCALL_BEGIN:
		if (need_g(w, m))
			return 1;
		m->sys_t = t;
		m->sys_gen = (uint32_t)f->gen;
		if ((rc = slice_end(w, m, t)) != 0)
			return rc;
		return trans(w, m->g, GTR_GS_RUNNING, GTR_GS_SYSCALL, t, 0, 0, a[1]);
	case GTR_V2_EV_GO_SYSCALL_END:
		if (need_g(w, m))
			return 1;
		if ((rc = trans(w, m->g, GTR_GS_SYSCALL, GTR_GS_RUNNING, t, 0, 0, 0)) != 0)
			return rc;
		slice_start(m, t);
		break;
	case GTR_V2_EV_GO_SYSCALL_END_BLOCKED:
		if (need_g(w, m))
			return 1;
		if (m->p != -1 && !m->pnew) {
			/* Another M stole the P: Go's reader waits for that. */
			if (gtr_grow(&w->le, &w->caple, w->nle + 1, sizeof *w->le) < 0)
				return GTR_E_NOMEM;
			w->le[w->nle++] = (lateend){m->g, m->p, m->seq + 1, mid, m->sys_t, t, m->sys_gen,
						    INT64_MAX};
			m->late = w->nle;
			m->p = -1;
		}
		m->pnew = 0;
		if ((rc = trans(w, m->g, GTR_GS_SYSCALL, GTR_GS_RUNNABLE, t, 0, 0, 0)) != 0)
			return rc;
		m->g = -1;
		break;
	case GTR_V2_EV_GO_DESTROY_SYSCALL:
		if (need_g(w, m))
			return 1;
		if (m->p != -1) {
			/* Go's reader gives the P up first, as a steal, unless
			 * another M took it before (the merge checks none did). */
			w->events++;
			w->dsys++;
			m->p = -1;
		}
		if ((rc = trans(w, m->g, GTR_GS_SYSCALL, GTR_GS_NOTEXIST, t, 0, 0, 0)) != 0)
			return rc;
		m->g = -1;
		break;
	case GTR_V2_EV_GC_MARK_ASSIST_BEGIN:
	case GTR_V2_EV_GC_MARK_ASSIST_END: {
		if (!m->known || m->g < 0)
			break; /* Go's summarizer skips it too: no goroutine */
		gpart *p = part(w, m->g);
		if (!p)
			return GTR_E_NOMEM;
		int begin = type == GTR_V2_EV_GC_MARK_ASSIST_BEGIN;
		p->a.sum[SUM_ASSIST] += begin ? -t : t;
		p->a.assist += begin ? 1 : -1;
		break;
	}
	case GTR_V2_EV_GC_MARK_ASSIST_ACTIVE:
		/* Assisting at the generation's start: since the first Sync,
		 * or (later generations) on from the assist before. */
		if (f->gen == 0) {
			gpart *p = part(w, (int64_t)a[0]);
			if (!p)
				return GTR_E_NOMEM;
			/* (since 0: times count from the first Sync) */
			p->a.assist++;
		}
		break;
	default:
		break;
	}
	return 0;
}

/* Walks the batches of the i-th M of this generation. */
static int walk_m(worker *w, size_t i)
{
	fast *f = w->f;
	const gtr_v2_index *ix = f->ix;
	const gtr_v2_gen *g = &ix->gens[f->gen];
	const gtr_v2_mbatches *mb = &ix->ms[g->ms_first + i];
	const gtr_kernels *kn = &f->t->kernels;
	/* The M's state, on this thread's stack while it walks: Ms next to
	 * each other in f->ms, walked by other threads, share cache lines. */
	mst ml = f->ms[f->unit_m[i]], *m = &ml;
	/* its first events may be in the generation's pile */
	size_t npt = f->pn[i], e = 0;
	const int64_t *pt = npt ? f->pile_t + f->poff[i] : NULL;
	for (size_t k = 0; k < mb->n; k++) {
		/* A batch is a run of varints (each type byte is one too),
		 * decoded at once by the kernels; what does not decode, or
		 * does not make whole events, goes to the ordered path, which
		 * says where. */
		const gtr_v2_batch *bt = &ix->batches[ix->mb[mb->first + k]];
		const uint8_t *p = f->t->data + bt->data, *end = p + bt->len;
		size_t n = kn->uvarint_count(p, end);
		if (gtr_grow(&w->vals, &w->capvals, n + GTR_MAX_ARGS + 1, sizeof *w->vals) < 0)
			return GTR_E_NOMEM;
		if (n && kn->uvarint_decode_n(p, end, w->vals, n) != (ptrdiff_t)bt->len)
			return FAIL(w, "an event that does not decode (the ordered path says where)");
		memset(w->vals + n, 0, (GTR_MAX_ARGS + 1) * sizeof *w->vals);
		/* Go's batch cursor: times accumulate from the scaled base,
		 * and a zero running time re-reads the base. */
		int64_t last = 0;
		for (size_t v = 0; v < n;) {
			uint64_t type = w->vals[v];
			const gtr_v2_layout *l = type < GTR_V2_NUM_EVENTS ? &ix->lay[type] : NULL;
			if (!l || !l->valid || !(l->flags & GTR_V2_TIMED) || (l->flags & GTR_V2_DATA) ||
			    n - v < 1 + (size_t)l->wire_args)
				return FAIL(w, "an event that does not decode (the ordered path "
						     "says where)");
			const uint64_t *a = w->vals + v + 1;
			v += 1 + l->wire_args;
			if (last == 0)
				last = gtr_v2_ns(g->ns_per_tick, bt->time);
			last = (int64_t)((uint64_t)gtr_v2_ns(g->ns_per_tick, a[0]) + (uint64_t)last);
			/* Every event of a generation comes after its Sync. */
			int64_t t = last - f->base;
			if (e < npt)
				t = pt[e++];
			else if (t <= f->sync)
				t = f->sync + 1;
			if (t > w->tmax)
				w->tmax = t;
			int rc = step(w, m, mb->m, (unsigned)type, a + 1, t);
			if (rc != 0)
				return rc;
		}
	}
	m->late = 0; /* its next event is in a later generation */
	f->ms[f->unit_m[i]] = ml;
	return 0;
}

static int put_rows(fast *f);

static void *work(void *arg)
{
	worker *w = arg;
	fast *f = w->f;
	size_t n = f->ix->gens[f->gen].nms;
	/* The first worker gives the generation before's rows to the
	 * analysis first, while the others walk (the Ms are shared out as
	 * each worker comes for one). */
	if (w == f->ws)
		put_rows(f);
	for (;;) {
		size_t i = atomic_fetch_add_explicit(&f->next, 1, memory_order_relaxed);
		if (i >= n || w->rc)
			break;
		w->rc = walk_m(w, i);
	}
	return NULL;
}

/* Runs fn on each of n items (stride bytes apart): the first on the
 * calling thread, each other on a thread of its own, or on the calling
 * thread too when one cannot start. n is at most 64 (gtr_stats_fast). */
static void on_threads(void *(*fn)(void *), void *items, size_t stride, unsigned n)
{
	pthread_t th[64];
	int started[64] = {0};
	unsigned char *it = items;
	for (unsigned i = 1; i < n; i++)
		started[i] = pthread_create(&th[i], NULL, fn, it + i * stride) == 0;
	fn(it);
	for (unsigned i = 1; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			fn(it + i * stride);
	}
}

/* A shard of the goroutines alive (by id, modulo the workers), merged by
 * a thread of its own between generations. */
struct shard {
	fast *f;
	unsigned q;
	glive *lv;                  /* the goroutines alive, by id (as unsigned): slots */
	size_t nlv, caplv;
	uint64_t *pk, *pw;          /* this generation's shares: goroutine; worker << 32 | share */
	uint32_t *po;               /* the shares in goroutine order */
	size_t cappk, cappw, cappo;
	gtr_idmap *lmap;            /* (seq, g) -> time: a start that must come after a steal */
	uint64_t *wk, *uk;          /* the join's keys: waits begun, unblocks */
	int64_t *wt;                /* the waits' starts */
	uint8_t *wb;                /* their block groups, | WAIT_JOINED */
	size_t capwt, capwb;
	int64_t *ut;                /* the unblocks' times */
	size_t capwk, capuk, caput;
	size_t *dead;               /* slots of goroutines that exited in this generation */
	size_t ndead, capdead;
	int64_t end;                /* finish: the trace's end; else -1 */
	int rc;                     /* 0, GTR_E_NOMEM, or 1: go ordered (why set) */
	char why[160];
};

/* The goroutine alive with id g, or NULL (a binary search). */
static glive *lv_find(shard *h, int64_t g)
{
	size_t lo = 0, hi = h->nlv;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((uint64_t)h->lv[mid].id < (uint64_t)g)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nlv && h->lv[lo].id == g ? &h->lv[lo] : NULL;
}

static uint64_t nonneg(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}

/* Goroutine l is retired: its row is final (put_rows gives it to the
 * analysis). 0 or GTR_E_NOMEM. */
static int retire(shard *h, size_t slot)
{
	if (gtr_grow(&h->dead, &h->capdead, h->ndead + 1, sizeof *h->dead) < 0)
		return GTR_E_NOMEM;
	h->dead[h->ndead++] = slot;
	h->lv[slot].gone = 1;
	return 0;
}

/* The final row of l (its slices taken), an assist still open ending
 * at `end`. */
static gtr_gstats row_of(glive *l, int64_t end)
{
	gtr_gstats row = {.id = l->id, .slices = l->slices};
	if (l->a.assist > 0)
		l->a.sum[SUM_ASSIST] += end;
	row.t.exec = nonneg(l->a.sum[S_RUNNING]);
	row.t.sched_wait = nonneg(l->a.sum[S_RUNNABLE]);
	row.t.syscall = nonneg(l->a.sum[S_SYSCALL]);
	row.t.gc_assist = nonneg(l->a.sum[SUM_ASSIST]);
	for (int b = 0; b < GTR_BLOCK_N; b++)
		row.t.block[b] = nonneg(l->wsum[b]);
	l->slices = (gtr_hist){0}; /* taken */
	return row;
}

static int cmp_steal(const void *a, const void *b)
{
	const steal *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* The generation's steals, after those before, in time order (so that
 * each P and M's chain of them is). */
static int merge_steals(fast *f)
{
	size_t first = f->nsteals_v;
	for (unsigned j = 0; j < f->jobs; j++) {
		worker *w = &f->ws[j];
		if (!w->nst)
			continue;
		if (gtr_grow(&f->steals_v, &f->capsteals_v, f->nsteals_v + w->nst,
			     sizeof *f->steals_v) < 0)
			return GTR_E_NOMEM;
		memcpy(f->steals_v + f->nsteals_v, w->st, w->nst * sizeof *w->st);
		f->nsteals_v += w->nst;
		w->nst = 0;
	}
	if (f->nsteals_v > first)
		qsort(f->steals_v + first, f->nsteals_v - first, sizeof *f->steals_v, cmp_steal);
	for (size_t i = first; i < f->nsteals_v; i++) {
		steal *s = &f->steals_v[i];
		uint64_t v;
		s->prev = gtr_idmap_get(f->stolen, (uint64_t)s->p, s->m, &v) ? (size_t)v : 0;
		if (gtr_idmap_put(f->stolen, (uint64_t)s->p, s->m, i + 1) < 0)
			return GTR_E_NOMEM;
	}
	return 0;
}

/* A cursor over an M's events in a generation, for their own times. */
typedef struct tcur {
	size_t k;               /* its next batch */
	const uint8_t *p, *end; /* what is left of the batch */
	uint64_t btime;         /* the batch's base time, ticks */
	int64_t last;           /* Go's batch cursor (as walk_m's) */
	int64_t t;              /* the event's own time; INT64_MAX: no more */
	unsigned ranks;         /* the places it takes in Go's order */
	unsigned type;          /* the event's type */
	uint64_t a[2];          /* its first two arguments after the time (0: none) */
} tcur;

/* The next event of the i-th M of this generation: its time (as walk_m
 * computes it) and ranks. What does not decode ends the cursor (the walk
 * then says so). */
static void tcur_next(const fast *f, size_t i, tcur *c)
{
	const gtr_v2_index *ix = f->ix;
	const gtr_v2_gen *g = &ix->gens[f->gen];
	const gtr_v2_mbatches *mb = &ix->ms[g->ms_first + i];
	c->t = INT64_MAX;
	while (c->p >= c->end) {
		if (c->k >= mb->n)
			return;
		const gtr_v2_batch *bt = &ix->batches[ix->mb[mb->first + c->k++]];
		c->p = f->t->data + bt->data;
		c->end = c->p + bt->len;
		c->btime = bt->time;
		c->last = 0;
	}
	uint64_t type, dt = 0, v;
	int n = gtr_uvarint_decode(c->p, c->end, &type);
	if (n <= 0 || type >= GTR_V2_NUM_EVENTS)
		return;
	const gtr_v2_layout *l = &ix->lay[type];
	if (!l->valid || !(l->flags & GTR_V2_TIMED) || (l->flags & GTR_V2_DATA) || !l->wire_args)
		return;
	const uint8_t *q = c->p + n;
	c->a[0] = c->a[1] = 0;
	for (unsigned a = 0; a < l->wire_args; a++) {
		if ((n = gtr_uvarint_decode(q, c->end, a ? &v : &dt)) <= 0)
			return;
		if (a && a <= 2)
			c->a[a - 1] = v;
		q += n;
	}
	c->type = (unsigned)type;
	c->p = q;
	if (c->last == 0)
		c->last = gtr_v2_ns(g->ns_per_tick, c->btime);
	c->last = (int64_t)((uint64_t)gtr_v2_ns(g->ns_per_tick, dt) + (uint64_t)c->last);
	c->t = c->last - f->base;
	c->ranks = type == GTR_V2_EV_GO_SWITCH || type == GTR_V2_EV_GO_SWITCH_DESTROY ? 3 : 1;
}

/* Syscall ends of shard h's goroutines that Go's reader puts after
 * their P's steal (rare: a map and a check against each ProcStart of
 * the generation, bounded). 0, GTR_E_NOMEM, or 1 (go ordered). */
static int late_ends(shard *h)
{
	fast *f = h->f;
	size_t pushed = 0;
	uint64_t nle = 0, npst = 0;
	for (unsigned j = 0; j < f->jobs; j++) {
		nle += f->ws[j].nle;
		npst += f->ws[j].npst;
	}
	if (!nle)
		return 0;
	if (npst > UINT64_C(50000000) / nle)
		return FAIL(h, "too many syscall ends that wait for a steal in one generation");
	for (unsigned j = 0; j < f->jobs; j++) {
		const worker *w = &f->ws[j];
		for (size_t i = 0; i < w->nle; i++) {
			const lateend *e = &w->le[i];
			if (shard_of(f, e->g) != h->q)
				continue;
			/* The first steal of that P from that M after the syscall began. */
			uint64_t v;
			const steal *first = NULL;
			size_t k = gtr_idmap_get(f->stolen, (uint64_t)e->p, e->m, &v) ? (size_t)v : 0;
			for (; k; k = f->steals_v[k - 1].prev) {
				if (f->steals_v[k - 1].t <= e->begin)
					break;
				first = &f->steals_v[k - 1];
			}
			if (!first) {
				/* A generation's statuses since the syscall began say
				 * afresh where the P is: nothing to wait for. */
				if (e->begin_gen < f->gen)
					continue;
				return FAIL(h, "a syscall end whose P no M stole (only Go's order can tell)");
			}
			int64_t at = first->t + 1;
			/* Another M that took that P before the steal waits for it too. */
			for (unsigned jj = 0; jj < f->jobs; jj++) {
				const worker *x = &f->ws[jj];
				for (size_t k2 = 0; k2 < x->npst; k2++) {
					const steal *s = &x->pst[k2];
					if (s->p == e->p && s->m != e->m && s->t > e->begin && s->t <= first->t)
						return FAIL(h, "a P started by an M before Go's reader lets "
							       "it (only Go's order can tell)");
				}
			}
			if (at <= e->t)
				continue;
			if (at >= e->next)
				return FAIL(h, "an M whose events Go's reader puts after a steal written "
					       "later (only Go's order can tell)");
			if (e->g < 0)
				continue;
			glive *l = lv_find(h, e->g);
			if (!l)
				return FAIL(h, "a syscall end of a goroutine never seen");
			l->a.sum[S_SYSCALL] += at - e->t;
			l->a.sum[S_RUNNABLE] -= at - e->t;
			/* Its next start then waits too: it must come later. */
			if (gtr_idmap_put(h->lmap, e->gseq, (uint64_t)e->g, (uint64_t)at) < 0)
				return GTR_E_NOMEM;
			pushed++;
		}
	}
	if (!pushed)
		return 0;
	/* Rare: the generation's GoStarts read again, at the walk's times. */
	const gtr_v2_gen *g = &f->ix->gens[f->gen];
	for (size_t i = 0; i < g->nms; i++) {
		tcur c = {0};
		for (size_t e = 0;; e++) {
			tcur_next(f, i, &c);
			if (c.t == INT64_MAX)
				break;
			int64_t t = e < f->pn[i] ? f->pile_t[f->poff[i] + e] : c.t <= f->sync ? f->sync + 1 : c.t;
			uint64_t at;
			if (c.type == GTR_V2_EV_GO_START && shard_of(f, (int64_t)c.a[0]) == h->q &&
			    gtr_idmap_get(h->lmap, c.a[1], c.a[0], &at) && t <= (int64_t)at)
				return FAIL(h, "a goroutine started before the steal Go's reader waits "
					       "for (only Go's order can tell)");
		}
	}
	gtr_idmap_clear(h->lmap);
	return 0;
}

/*
 * Joins the waits begun in this generation by shard h's goroutines to
 * the unblocks that end them: the wait after the start numbered s (0:
 * after the generation's status) ends with the unblock numbered s + 1;
 * a wait from an earlier generation, with the first. Both lists are
 * sorted by (goroutine slot, number) and walked together, so that the
 * goroutines are visited in slot order, not looked up. Keys pack the
 * slot, the number (a wait's + 1, so that it is the unblock's that ends
 * it) and the record's index, in as many bits as the generation needs
 * (past 64, the ordered path runs). A wait's time, its end less its
 * start, goes to its reason group.
 * 0, GTR_E_NOMEM, or 1 (go ordered).
 */
#define WAIT_JOINED 0x80
static int join_waits(shard *h)
{
	fast *f = h->f;
	size_t nw = 0, nu = 0;
	uint64_t top = 0; /* the largest number, a wait's + 1 */
	for (unsigned j = 0; j < f->jobs; j++) {
		const recs *ws = &f->ws[j].bk[h->q].ws, *we = &f->ws[j].bk[h->q].we;
		nw += ws->n;
		nu += we->n;
		for (size_t i = 0; i < ws->n; i++)
			top = (uint64_t)ws->v[i].seq + 1 > top ? (uint64_t)ws->v[i].seq + 1 : top;
		for (size_t i = 0; i < we->n; i++)
			top = we->v[i].seq > top ? we->v[i].seq : top;
	}
	if (!nw && !nu)
		return 0;
	const unsigned qb = gtr_bit_len(top), ib = gtr_bit_len(nw > nu ? nw : nu);
	if (gtr_bit_len(h->nlv) + qb + ib > 64)
		return FAIL(h, "more goroutines alive, or starts of one, than the join counts");
	if (gtr_grow(&h->wk, &h->capwk, nw + 1, sizeof *h->wk) < 0 ||
	    gtr_grow(&h->wt, &h->capwt, nw + 1, sizeof *h->wt) < 0 ||
	    gtr_grow(&h->wb, &h->capwb, nw + 1, sizeof *h->wb) < 0 ||
	    gtr_grow(&h->uk, &h->capuk, nu + 1, sizeof *h->uk) < 0 ||
	    gtr_grow(&h->ut, &h->caput, nu + 1, sizeof *h->ut) < 0)
		return GTR_E_NOMEM;
	const uint32_t part_mask = (UINT32_C(1) << REC_BLOCK) - 1;
	const uint64_t imask = (UINT64_C(1) << ib) - 1, qmask = (UINT64_C(1) << qb) - 1;
	size_t iw = 0, iu = 0;
	for (unsigned j = 0; j < f->jobs; j++) {
		const worker *w = &f->ws[j];
		const recs *ws = &w->bk[h->q].ws, *we = &w->bk[h->q].we;
		for (size_t i = 0; i < ws->n; i++, iw++) {
			const rec *r = &ws->v[i];
			uint64_t slot = w->parts[r->part & part_mask].slot;
			h->wk[iw] = (slot << qb | ((uint64_t)r->seq + 1)) << ib | iw;
			h->wt[iw] = r->t;
			h->wb[iw] = (uint8_t)(r->part >> REC_BLOCK);
		}
		for (size_t i = 0; i < we->n; i++, iu++) {
			const rec *r = &we->v[i];
			uint64_t slot = w->parts[r->part].slot;
			h->uk[iu] = (slot << qb | r->seq) << ib | iu;
			h->ut[iu] = r->t;
		}
	}
	if (gtr_sort_u64(h->wk, nw) < 0 || gtr_sort_u64(h->uk, nu) < 0)
		return GTR_E_NOMEM;
	for (size_t i = 1; i < nw; i++)
		if (h->wk[i] >> ib == h->wk[i - 1] >> ib)
			return FAIL(h, "two waits of a goroutine with one number");
	size_t k = 0;
	for (size_t i = 0; i < nu; i++) {
		uint64_t key = h->uk[i] >> ib, seq = key & qmask;
		glive *l = &h->lv[key >> qb];
		while (k < nw && h->wk[k] >> ib < key)
			k++;
		int block;
		int64_t start;
		if (seq >= 1 && k < nw && h->wk[k] >> ib == key) {
			size_t x = (size_t)(h->wk[k++] & imask);
			block = h->wb[x];
			start = h->wt[x];
			h->wb[x] |= WAIT_JOINED;
		} else if (seq == 1 && l->wait >= 0) {
			block = l->wait;
			start = l->wait_t;
			l->wait = -1;
		} else {
			return FAIL(h, "an unblock that no wait matches");
		}
		l->wsum[block] += h->ut[h->uk[i] & imask] - start;
	}
	/* Waits still open go on into the next generation. */
	for (k = 0; k < nw; k++) {
		size_t x = (size_t)(h->wk[k] & imask);
		if (h->wb[x] & WAIT_JOINED)
			continue;
		glive *l = &h->lv[h->wk[k] >> (ib + qb)];
		if (l->wait >= 0)
			return FAIL(h, "a goroutine with two waits open");
		l->wait = (int8_t)h->wb[x];
		l->wait_t = h->wt[x];
	}
	return 0;
}

/* Adds share p of worker w to l, which is in slot `slot`. */
static int add_share(shard *h, worker *w, gpart *p, glive *l, size_t slot)
{
	p->slot = (uint32_t)slot;
	for (unsigned k = 0; k < p->nsl; k++)
		if (gtr_hist_add(&l->slices, p->sl[k]) < 0)
			return GTR_E_NOMEM;
	if (p->hist && gtr_hist_merge(&l->slices, &w->hists[p->hist - 1]) < 0)
		return GTR_E_NOMEM;
	if (p->dense && gtr_hist_take_dense(&l->slices, w->dense[p->dense - 1]) < 0)
		return GTR_E_NOMEM;
	if (p->a.dead && !l->a.dead) {
		if (gtr_grow(&h->dead, &h->capdead, h->ndead + 1, sizeof *h->dead) < 0)
			return GTR_E_NOMEM;
		h->dead[h->ndead++] = slot;
	}
	gacc_add(&l->a, &p->a);
	return 0;
}

/*
 * The workers' shares of this generation into the goroutines alive, by
 * a merge of two lists sorted by goroutine: those alive (kept so) and
 * the shares (sorted here). The goroutines new to it are counted first,
 * then the merge runs from the ends, in place, each goroutine's shares
 * taken in their order. Each share learns its goroutine's slot.
 * 0 or GTR_E_NOMEM.
 */
static int merge_shares(shard *h)
{
	fast *f = h->f;
	size_t n = 0;
	for (unsigned j = 0; j < f->jobs; j++)
		n += f->ws[j].bk[h->q].nparts;
	if (n > UINT32_MAX || gtr_grow(&h->pk, &h->cappk, n + 1, sizeof *h->pk) < 0 ||
	    gtr_grow(&h->pw, &h->cappw, n + 1, sizeof *h->pw) < 0 ||
	    gtr_grow(&h->po, &h->cappo, n + 1, sizeof *h->po) < 0)
		return GTR_E_NOMEM;
	size_t k = 0;
	for (unsigned j = 0; j < f->jobs; j++) {
		const worker *w = &f->ws[j];
		const bucket *b = &w->bk[h->q];
		for (size_t i = 0; i < b->nparts; i++, k++) {
			h->pk[k] = (uint64_t)w->parts[b->parts[i]].g;
			h->pw[k] = (uint64_t)j << 32 | b->parts[i];
			h->po[k] = (uint32_t)k;
		}
	}
	if (gtr_sort_order(h->pk, n, h->po) < 0)
		return GTR_E_NOMEM;
	size_t fresh = 0, i = 0;
	for (k = 0; k < n; k++) {
		uint64_t g = h->pk[h->po[k]];
		if (k && h->pk[h->po[k - 1]] == g)
			continue;
		while (i < h->nlv && (uint64_t)h->lv[i].id < g)
			i++;
		fresh += !(i < h->nlv && (uint64_t)h->lv[i].id == g);
	}
	if (gtr_grow(&h->lv, &h->caplv, h->nlv + fresh + 1, sizeof *h->lv) < 0)
		return GTR_E_NOMEM;
	size_t to = h->nlv + fresh;
	i = h->nlv;
	for (k = n; k > 0;) {
		uint64_t g = h->pk[h->po[k - 1]];
		size_t k0 = k - 1;
		while (k0 > 0 && h->pk[h->po[k0 - 1]] == g)
			k0--;
		for (; i > 0 && (uint64_t)h->lv[i - 1].id > g; i--)
			if (--to != i - 1)
				h->lv[to] = h->lv[i - 1];
		if (i > 0 && (uint64_t)h->lv[i - 1].id == g) {
			i--;
			if (--to != i)
				h->lv[to] = h->lv[i];
		} else {
			h->lv[--to] = (glive){.id = (int64_t)g, .wait = -1};
		}
		for (size_t kk = k0; kk < k; kk++) {
			uint64_t jw = h->pw[h->po[kk]];
			worker *w = &f->ws[jw >> 32];
			int rc = add_share(h, w, &w->parts[(uint32_t)jw], &h->lv[to], to);
			if (rc < 0)
				return rc;
		}
		k = k0;
	}
	h->nlv += fresh;
	return 0;
}

/* After a generation, for the goroutines of shard h: the workers'
 * shares into those alive, the waits joined, the slices counted, those
 * that exited retired. Each record names its worker's share, and the
 * share its goroutine's slot: no look-up per record.
 * 0, GTR_E_NOMEM, or 1 (go ordered). */
static int merge_shard(shard *h)
{
	int rc;
	if ((rc = merge_shares(h)) != 0)
		return rc;
	if ((rc = late_ends(h)) != 0)
		return rc;
	if ((rc = join_waits(h)) != 0)
		return rc;
	/* Goroutines that exited: their rows are final (ids are not reused).
	 * One blocked forever would stay until the end; its clocks stopped
	 * too, so it goes now as well. */
	for (size_t i = 0; i < h->ndead; i++) {
		glive *l = &h->lv[h->dead[i]];
		if (l->wait >= 0)
			return FAIL(h, "a goroutine that exited while waiting");
		for (int k = 0; k < S_N; k++)
			if (l->a.net[k] != 0)
				return FAIL(h, "a goroutine that exited in no single state");
		l->gone = 1;
	}
	return 0;
}

/* The trace's end, for the goroutines of shard h: every clock stops,
 * open slices end. */
static int finish_shard(shard *h)
{
	fast *f = h->f;
	int64_t end = h->end;
	for (size_t i = 0; i < f->nms; i++) {
		const mst *m = &f->ms[i];
		if (!m->running || shard_of(f, m->g) != h->q)
			continue;
		glive *l = lv_find(h, m->g);
		if (!l)
			return FAIL(h, "a slice of a goroutine never seen");
		if (gtr_hist_add(&l->slices, end > m->start ? (uint64_t)(end - m->start) : 0) < 0)
			return GTR_E_NOMEM;
	}
	for (size_t s = 0; s < h->nlv; s++) {
		glive *l = &h->lv[s];
		int open = -1;
		for (int k = 0; k < S_N; k++) {
			if (l->a.net[k] == 1 && open < 0)
				open = k;
			else if (l->a.net[k] != 0)
				return FAIL(h, "a goroutine alive at the end in no single state");
		}
		if (open < 0)
			return FAIL(h, "a goroutine alive at the end in no state");
		if (open == S_WAITING) {
			if (l->wait < 0)
				return FAIL(h, "a goroutine waiting at the end for no reason");
			l->wsum[l->wait] += end - l->wait_t;
		} else {
			l->a.sum[open] += end;
		}
		if (retire(h, s) < 0)
			return GTR_E_NOMEM;
	}
	return 0;
}

static void *shard_work(void *arg)
{
	shard *h = arg;
	if (!h->rc)
		h->rc = h->end >= 0 ? finish_shard(h) : merge_shard(h);
	return NULL;
}

/* Gives the rows the shards made final to the analysis, in the shards'
 * order, and drops their goroutines (only one thread at a time may: the
 * calling thread's worker, as it starts the next generation's walk, or
 * the end). The rows are freed instead once it failed. The rows wait
 * in the goroutines alive, not copied out. 0 or GTR_E_NOMEM. */
static int put_rows(fast *f)
{
	for (unsigned q = 0; q < f->jobs; q++) {
		shard *h = &f->sh[q];
		if (!h->ndead)
			continue;
		for (size_t i = 0; i < h->ndead; i++) {
			glive *l = &h->lv[h->dead[i]];
			gtr_gstats row = row_of(l, l->a.dead ? l->a.dead_t : h->end);
			if (f->put_rc == 0 &&
			    gtr_stats_put(f->acc, &row, l->a.name_gen, l->a.name_kind ? l->a.name_stack : 0,
					  l->a.name_kind == 2) < 0)
				f->put_rc = GTR_E_NOMEM;
			else if (f->put_rc != 0)
				gtr_hist_free(&row.slices);
		}
		size_t n = 0;
		for (size_t i = 0; i < h->nlv; i++)
			if (!h->lv[i].gone)
				h->lv[n++] = h->lv[i];
		h->nlv = n;
		h->ndead = 0;
	}
	return f->put_rc;
}

/* Runs every shard (merge, or finish when end >= 0), one thread each.
 * The rows made final wait in the shards for put_rows.
 * 0, GTR_E_NOMEM, or 1. */
static int run_shards(fast *f, int64_t end)
{
	for (unsigned q = 0; q < f->jobs; q++)
		f->sh[q].end = end;
	on_threads(shard_work, f->sh, sizeof *f->sh, f->jobs);
	int rc = 0;
	for (unsigned q = 0; q < f->jobs; q++) {
		shard *h = &f->sh[q];
		if (h->rc < 0 && rc >= 0)
			rc = h->rc;
		else if (h->rc > 0 && !rc) {
			rc = 1;
			why_ordered(f->why, sizeof f->why, h->why);
		}
	}
	for (unsigned j = 0; j < f->jobs; j++) {
		worker *w = &f->ws[j];
		w->nparts = w->nle = w->npst = w->nhists = w->ndense = 0;
		for (unsigned q = 0; q < f->jobs; q++) {
			bucket *b = &w->bk[q];
			b->ws.n = b->we.n = b->nparts = 0;
		}
		gtr_idpage_clear(w->gidx);
	}
	return rc;
}

/* The time of generation gi's Sync: its earliest batch, after the last event before. */
static int64_t sync_time(const fast *f, size_t gi)
{
	const gtr_v2_gen *g = &f->ix->gens[gi];
	int64_t t = gtr_v2_ns(g->ns_per_tick, g->min_ts) - f->base;
	return gi && t <= f->last ? f->last + 1 : t;
}

/* CPU samples: Go's reader gives them in its order too. */
static void count_samples(fast *f, size_t gi)
{
	const gtr_v2_index *ix = f->ix;
	const gtr_v2_gen *g = &ix->gens[gi];
	const uint8_t *d = f->t->data;
	for (size_t bi = g->first; bi < g->first + g->n; bi++) {
		const gtr_v2_batch *b = &ix->batches[bi];
		if (b->kind != GTR_V2_B_CPU)
			continue;
		uint64_t p = b->data + 1, end = b->data + b->len, v[5];
		while (p < end) {
			f->events++;
			if (gtr_v2_next_sample(d, &p, end, v) == 0)
				continue;
			int64_t t = gtr_v2_ns(g->ns_per_tick, v[0]) - f->base;
			if (t <= f->sync)
				t = f->sync + 1;
			if (t > f->last)
				f->last = t;
		}
	}
}

static int can_fast(const gtr_trace *t, gtr_stats_fast_info *info)
{
	const char *why = NULL;
	const gtr_trace_info *ti = gtr_trace_get_info(t);
	gtr_loss l;
	gtr_trace_loss(t, &l);
	if (ti->family != GTR_FAMILY_V2)
		why = "a v1 trace";
	else if (t->flags & GTR_OPEN_LENIENT)
		why = "a lenient read";
	else if (gtr_loss_any(&l))
		why = "part of the trace was lost";
	if (!why) {
		const gtr_v2_index *ix = gtr_v2_idx(t);
		for (size_t g = 0; g < ix->ngens && !why; g++)
			if (ix->gens[g].partial || ix->gens[g].tolerant)
				why = "a partial generation";
		for (size_t b = 0; b < ix->nbatches && !why; b++)
			if (ix->batches[b].kind == GTR_V2_B_BROKEN)
				why = "a broken batch";
		if (!ix->ngens)
			why = "no generation";
	}
	if (why && info)
		snprintf(info->why, sizeof info->why, "%s", why);
	return why == NULL;
}

static void fast_free(fast *f)
{
	if (f->ws)
		for (unsigned j = 0; j < f->jobs; j++) {
			worker *w = &f->ws[j];
			gtr_idpage_free(w->gidx);
			gtr_idmap_free(w->reasons);
			free(w->parts);
			for (unsigned q = 0; w->bk && q < f->jobs; q++) {
				free(w->bk[q].ws.v);
				free(w->bk[q].we.v);
				free(w->bk[q].parts);
			}
			free(w->bk);
			for (size_t i = 0; i < w->madehists; i++)
				gtr_hist_free(&w->hists[i]);
			free(w->hists);
			for (unsigned i = 0; i < DENSE_MAX; i++)
				free(w->dense[i]);
			free(w->pst);
			free(w->vals);
			free(w->st);
			free(w->le);
		}
	free(f->ws);
	if (f->sh)
		for (unsigned q = 0; q < f->jobs; q++) {
			shard *h = &f->sh[q];
			for (size_t s = 0; s < h->nlv; s++)
				gtr_hist_free(&h->lv[s].slices);
			free(h->lv);
			free(h->pk);
			free(h->pw);
			free(h->po);
			gtr_idmap_free(h->lmap);
			free(h->wk);
			free(h->wt);
			free(h->wb);
			free(h->uk);
			free(h->ut);
			free(h->dead);
		}
	free(f->sh);
	gtr_idmap_free(f->midx);
	gtr_idmap_free(f->stolen);
	free(f->steals_v);
	free(f->ms);
	free(f->unit_m);
	free(f->pn);
	free(f->poff);
	free(f->pile_t);
	free(f->tc);
	free(f->pm);
}

#define PILE_MAX (UINT64_C(1) << 22)

/*
 * Go's reader makes its times strictly increasing: an event at or before
 * the time it gave last takes that time + 1. At a generation's start,
 * events its Ms wrote before the last one of the generation before (or
 * at its Sync's time) so pile up, 1 ns apart in Go's order, which takes
 * them by their own times across the Ms: a pile of thousands of events
 * pushed by as many ns in a busy program. Here the pile is built the
 * same way, the Ms' events taken by their times until one comes after
 * the time the pile has reached; each M's piled events are a prefix of
 * its own (their times increase), whose times the walk then takes.
 * Where Go's order takes an event out of time order (an event waiting
 * for another M's), its place in the pile, and so its time, may differ
 * by the few ns of the events it passes. 0, GTR_E_NOMEM, or 1.
 */
static int pile(fast *f)
{
	const gtr_v2_gen *g = &f->ix->gens[f->gen];
	size_t nms = g->nms;
	if (gtr_grow(&f->pn, &f->cappn, nms + 1, sizeof *f->pn) < 0 ||
	    gtr_grow(&f->poff, &f->cappoff, nms + 1, sizeof *f->poff) < 0 ||
	    gtr_grow(&f->tc, &f->captc, nms + 1, sizeof *f->tc) < 0)
		return GTR_E_NOMEM;
	for (size_t i = 0; i < nms; i++) {
		f->pn[i] = 0;
		f->tc[i] = (tcur){0};
		tcur_next(f, i, &f->tc[i]);
	}
	size_t n = 0;
	int64_t at = f->sync; /* the time Go gave last */
	for (;;) {
		size_t best = nms;
		for (size_t i = 0; i < nms; i++)
			if (f->tc[i].t <= at && (best == nms || f->tc[i].t < f->tc[best].t))
				best = i;
		if (best == nms)
			break;
		/* Each piled event looks at every thread's next: a pile
		 * of a million events over a thousand threads would take
		 * seconds, so past 2^26 looks the ordered path runs. */
		if (n >= PILE_MAX || (uint64_t)n * nms > UINT64_C(1) << 26)
			return why_ordered(f->why, sizeof f->why,
					   "a generation whose first events pile up too far to count "
					   "(only Go's order can tell)");
		if (gtr_grow(&f->pm, &f->cappm, n + 1, sizeof *f->pm) < 0 ||
		    gtr_grow(&f->pile_t, &f->cappile, n + 1, sizeof *f->pile_t) < 0)
			return GTR_E_NOMEM;
		f->pm[n] = (uint32_t)best;
		f->pile_t[n++] = at + 1;
		f->pn[best]++;
		at += f->tc[best].ranks;
		tcur_next(f, best, &f->tc[best]);
	}
	/* Each M's times together, in its order. */
	size_t off = 0;
	for (size_t i = 0; i < nms; i++) {
		f->poff[i] = off;
		off += f->pn[i];
	}
	if (n) {
		if (gtr_grow(&f->pile_t, &f->cappile, 2 * n, sizeof *f->pile_t) < 0)
			return GTR_E_NOMEM;
		int64_t *by = f->pile_t + n;
		for (size_t i = 0; i < nms; i++)
			f->tc[i].k = f->poff[i]; /* (reused as each M's next place) */
		for (size_t k = 0; k < n; k++)
			by[f->tc[f->pm[k]].k++] = f->pile_t[k];
		memmove(f->pile_t, by, n * sizeof *by);
	}
	if (at > f->last)
		f->last = at;
	return 0;
}

/* Readies generation gi: its Sync, and each of its Ms' state. */
static int begin_gen(fast *f, size_t gi)
{
	const gtr_v2_index *ix = f->ix;
	const gtr_v2_gen *g = &ix->gens[gi];
	f->gen = gi;
	if (gi == 0)
		f->base = gtr_v2_ns(g->ns_per_tick, g->min_ts);
	f->sync = sync_time(f, gi);
	if (f->sync > f->last)
		f->last = f->sync;
	f->events++; /* the Sync */
	if (gtr_grow(&f->unit_m, &f->capunit, g->nms ? g->nms : 1, sizeof *f->unit_m) < 0)
		return GTR_E_NOMEM;
	for (size_t i = 0; i < g->nms; i++) {
		uint64_t mid = ix->ms[g->ms_first + i].m, v;
		if (!gtr_idmap_get(f->midx, 0, mid, &v)) {
			if (gtr_grow(&f->ms, &f->capms, f->nms + 1, sizeof *f->ms) < 0 ||
			    gtr_idmap_put(f->midx, 0, mid, f->nms) < 0)
				return GTR_E_NOMEM;
			f->ms[f->nms] = (mst){.g = -1, .p = -1};
			v = f->nms++;
		}
		f->unit_m[i] = (size_t)v;
		/* Go numbers a goroutine's starts afresh in each generation,
		 * from its status (0): so is the one an M still runs, even
		 * when its status is written by another M, or later. */
		f->ms[v].seq = 0;
	}
	if (g->nms > UINT32_MAX)
		return why_ordered(f->why, sizeof f->why, "more threads in a generation than counted");
	int rc = pile(f);
	if (rc != 0)
		return rc;
	atomic_store(&f->next, 0);
	return 0;
}

static int run(fast *f, gtr_stats_fast_info *info)
{
	double walk = 0, mer = 0;
	for (size_t gi = 0; gi < f->ix->ngens; gi++) {
		int rc = begin_gen(f, gi);
		if (rc != 0)
			return rc;
		double t0 = gtr_seconds();
		on_threads(work, f->ws, sizeof *f->ws, f->jobs);
		double t1 = gtr_seconds();
		walk += t1 - t0;
		if (f->put_rc)
			return f->put_rc;
		for (unsigned j = 0; j < f->jobs; j++) {
			worker *w = &f->ws[j];
			if (w->rc < 0)
				return w->rc;
			if (w->rc > 0)
				return why_ordered(f->why, sizeof f->why, w->why);
			f->events += w->events;
			f->steals += w->steals;
			f->dsys += w->dsys;
			w->events = w->steals = w->dsys = 0;
			if (w->tmax > f->last)
				f->last = w->tmax;
		}
		if (f->dsys && f->steals)
			return why_ordered(f->why, sizeof f->why,
					    "a goroutine that exits in a syscall, and a P stolen "
					    "(whether first is Go's order's)");
		count_samples(f, gi);
		if ((rc = merge_steals(f)) != 0 || (rc = run_shards(f, -1)) != 0)
			return rc;
		mer += gtr_seconds() - t1;
	}
	if (info) {
		info->sec_walk = walk;
		info->sec_merge = mer;
		info->gens = f->ix->ngens;
	}
	/* The closing Sync, 1 ns past the last event. */
	int64_t end = f->last + 1;
	f->events++;
	int rc = put_rows(f); /* the last generation's */
	if (rc != 0)
		return rc;
	rc = run_shards(f, end);
	if (rc != 0)
		return rc;
	if ((rc = put_rows(f)) != 0)
		return rc;
	gtr_stats_span(f->acc, f->events, 0, (uint64_t)end);
	return 0;
}

int gtr_stats_fast(const gtr_trace *t, const gtr_stats_keep *keep, unsigned jobs,
		   gtr_stats **out, gtr_stats_fast_info *info, gtr_error *err)
{
	*out = NULL;
	if (info)
		memset(info, 0, sizeof *info);
	if (!can_fast(t, info))
		goto ordered;
	if (jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = n > 0 ? (unsigned)n : 1;
	}
	if (jobs > 64)
		jobs = 64;
	fast f = {.t = t, .ix = gtr_v2_idx(t), .jobs = jobs};
	int rc = gtr_stats_begin(t, keep, &f.acc, err);
	if (rc < 0)
		return rc;
	f.ws = calloc(jobs, sizeof *f.ws);
	f.sh = calloc(jobs, sizeof *f.sh);
	f.midx = gtr_idmap_create();
	f.stolen = gtr_idmap_create();
	if (!f.ws || !f.sh || !f.midx || !f.stolen)
		rc = GTR_E_NOMEM;
	for (unsigned j = 0; rc == 0 && j < jobs; j++) {
		f.ws[j].f = &f;
		f.ws[j].gidx = gtr_idpage_create();
		f.ws[j].reasons = gtr_idmap_create();
		f.sh[j].f = &f;
		f.sh[j].q = j;
		f.ws[j].bk = calloc(jobs, sizeof *f.ws[j].bk);
		f.sh[j].lmap = gtr_idmap_create();
		if (!f.ws[j].gidx ||
		    !f.ws[j].reasons || !f.ws[j].bk || !f.sh[j].lmap)
			rc = GTR_E_NOMEM;
	}
	if (rc == 0)
		rc = run(&f, info);
	fast_free(&f);
	if (rc < 0) {
		gtr_stats_abort(f.acc);
		return gtr_error_set(err, rc, 0, "out of memory");
	}
	if (rc > 0) {
		gtr_stats_abort(f.acc);
		if (info)
			snprintf(info->why, sizeof info->why, "%s", f.why);
		goto ordered;
	}
	if (info)
		info->jobs = jobs;
	return gtr_stats_end(f.acc, out, err);
ordered:
	if (info)
		info->ordered = 1;
	return gtr_stats_run_jobs(t, keep, jobs, out, err);
}
