/*
 * core/analysis/scan_impl.h: what core/analysis/scan.c (the parallel greedy analysis and
 * its v2 walk) shares with core/analysis/scan_v1.c (the v1 walk). Internal.
 */
#ifndef GTR_CORE_SCAN_IMPL_H
#define GTR_CORE_SCAN_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analysis/scan.h"
#include "core/v1/v1.h"
#include "core/v2/v2.h"

/* For a function of the walks that takes a constant (a pass, a CPU
 * feature): each caller gets its own copy, without the other cases. */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* How far two pauses on different Ms may seem to overlap. */
#define STW_SKEW_NS 1000
#define CHAIN_KEEP (GTR_CHAIN_LEN + 1)

/* One batch of a stream. */
typedef struct sbatch {
	size_t b;     /* index into gtr_v2_index.batches (v1: gtr_v1_index.batches) */
	uint32_t gen; /* its generation's index (v1: 0) */
} sbatch;

/* v2: every batch of one M; v1: every batch of one P. */
typedef struct stream {
	uint64_t m;      /* the M (v1: the P) */
	size_t first, n; /* into scan.sb */
	uint64_t bytes;
} stream;

/* A stream's walk state; also what is recorded at each batch start. */
typedef struct mstate {
	int64_t g, p;     /* the goroutine and P the M holds, -1 none */
	int64_t last;     /* local time of the previous event */
	int64_t okey;     /* v2: order key of the previous event, 0 none (see scan_okey) */
	int64_t start;    /* the open slice: local start time */
	int64_t slice_p;
	uint16_t start_ev;
	uint8_t open;
	uint8_t stw_open;
	uint8_t pnew;     /* v2: p was started in the syscall of g, so is not the
			   * syscall's P (its end need not wait for a steal) */
	size_t stw;       /* the worker's pause this stream has open */
	/* v1 only */
	int64_t cg;       /* the goroutine Go's parser has on the P, 0 none */
	int64_t sc_t;     /* a GoSysCall of goroutine sc_g at local time sc_t, whose */
	int64_t sc_g;     /* next event on the P says whether it blocked */
	uint64_t sc_ticks;
	uint8_t sc;       /* 1: such a GoSysCall is pending */
} mstate;

/* A slice as the workers keep it; strings and stacks stay ids. */
typedef struct cslice {
	int64_t start, end; /* local times */
	int64_t g, p;
	uint64_t reason, end_stack;
	uint32_t gen;       /* table of reason and end_stack */
	uint32_t stream;
	uint16_t start_ev, end_ev;
	uint8_t end_state, truncated;
} cslice;

typedef struct cstw {
	int64_t start, end;
	int64_t kstart, kend; /* order keys (see scan_okey); v1: the local times */
	int64_t g, p;
	uint64_t kind;
	uint32_t gen, stream;
	uint8_t truncated, open;
	uint8_t is_end;     /* v1, pass 1: the end of a pause, not a pause (see scan_v1.c) */
} cstw;

typedef struct cprocs {
	int64_t ts;
	uint64_t procs;
	uint32_t gen, stream;
} cprocs;

/*
 * v2: a ProcSteal of P p from M m (another M's), or a ProcStart on M m
 * while its own stream still has it holding P p (in a syscall): Go's
 * reader lets that start happen only after the steal (see steal_order).
 */
typedef struct csteal {
	int64_t m, p, t;
	int start; /* 1: the ProcStart that waits for a steal; 0: a steal */
} csteal;

/* A goroutine whose history pass 2 fetches, up to `start`. */
typedef struct track {
	int64_t g;
	int64_t start;   /* local time of the slice start (or of the pause) */
	int64_t key;     /* its order key (see scan_okey) */
	int64_t from;    /* pass 2 has walked every batch of keys [from, key]; INT64_MIN: all before */
	uint32_t stream; /* where that event is */
	uint8_t at_start_resume; /* the start event itself sets the resume stack */
	uint8_t done;    /* its history is known */
} track;

/* Pass 2's work: batches [from, to) of stream si. */
typedef struct hunit {
	uint32_t si;
	size_t from, to;
} hunit;

/* Where an event is in the order pass 2 and the waiters go by: its
 * order key, then its stream, then its local time (see scan_okey). */
typedef struct opos {
	int64_t key;
	uint32_t stream;
	int64_t t;
} opos;

static inline int opos_cmp(const opos *a, const opos *b)
{
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	return a->t < b->t ? -1 : a->t > b->t;
}

/* What one worker found of one track. */
typedef struct hist {
	struct {
		opos at;
		uint16_t type;
	} chain[CHAIN_KEEP];  /* ring, the latest first after sorting */
	uint8_t nchain;
	opos create_at;       /* key -1: none */
	gtr_stackref create;
	opos resume_at;       /* key -1: none */
	int resume_kind;      /* 0 stack, 1 create */
	gtr_stackref resume;
	opos undet_at;        /* the earliest status with a stack; key -1: none */
	gtr_stackref undet;   /* its stack: the resume stack when nothing later sets one */
} hist;

typedef struct scan scan;

/* The v2 walk decodes a batch's varints WALK_CHUNK bytes at a time and
 * keeps at least WALK_CARRY of them ahead (an event's, and zeros past). */
#define WALK_CHUNK 2048
/* v1: record lengths are computed this many bytes at a time. */
#define SCAN_LENS_CHUNK 4096
#define WALK_CARRY (GTR_MAX_ARGS + 2)

typedef struct worker {
	scan *s;
	pthread_t th;
	int started;
	int rc;
	gtr_error err;
	cslice *heap;
	size_t nheap, capheap;
	cslice *trunc;
	size_t ntrunc, captrunc;
	cstw *stw;
	size_t nstw, capstw;
	cprocs *procs;
	size_t nprocs, capprocs;
	csteal *steals;       /* v2, pass 1: steals and the starts that wait for them */
	size_t nsteals, capsteals;
	uint64_t events, nslices, orphan_ends;
	int64_t *genmax;      /* per generation: the largest local time */
	int64_t maxlocal;
	int64_t gomax_t;      /* v1, pass 1: the worker's first Gomaxprocs */
	uint32_t gomax_si;
	hist *hs;             /* pass 2: per track */
	uint64_t vals[WALK_CHUNK + 2 * WALK_CARRY]; /* v2: decoded varints */
	uint64_t bits[WALK_CHUNK / 64];
	uint32_t v32[WALK_CHUNK + 2 * WALK_CARRY]; /* v2, pass 1: the values, 32 bits */
	uint8_t step[WALK_CHUNK + 2 * WALK_CARRY]; /* and for each, 1 + nwire of it as a type */
	uint8_t lens[SCAN_LENS_CHUNK]; /* v1, pass 1: record_lens of a batch's bytes */
	struct v1ev *v1ev;    /* v1, pass 1: decoded events (scan_v1.c) */
} worker;

struct scan {
	const gtr_trace *t;
	const gtr_v2_index *ix;
	size_t top;
	sbatch *sb;
	size_t nsb;
	stream *streams;
	size_t nstreams;
	size_t *order;        /* streams, largest first */
	mstate *snaps;        /* per sb entry: the state before its first event */
	int64_t *gensync;     /* per generation: the local time of its Sync */
	int64_t *genend;      /* per generation: the time of its last event */
	int64_t *koff;        /* per generation: what its order keys add to Go's times */
	int64_t *kmax;        /* per generation: the largest order key it may have */
	int64_t *endraw;      /* per ms entry: Go's time of its last event (pre-pass) */
	uint64_t *pilen;      /* per ms entry: events its generation's Sync pushes later */
	int64_t *pilehi;      /* and the local time of the last of them, INT64_MIN none */
	uint8_t *pileall;     /* 1: it pushes all of them (the generation ends in the pile) */
	atomic_int keybad;    /* pass 1 met a key past kmax: order keys do not hold */
	int waiter_tie;       /* a waiter walk met a key equal to its pause's (wseek.tie) */
	uint32_t *gen_of;     /* per gtr_v2_index.ms entry: its generation */
	/* The pre-pass, per ms entry then per CPU batch (see chain_gens). */
	size_t *cpub;         /* the CPU-sample batches */
	size_t ncpub;
	uint64_t *endn;       /* ticks of the last batch; samples of a CPU batch */
	int64_t *endpeak;     /* its last event's time, timed from far back */
	atomic_size_t next;   /* work queue */
	/* Progress: event bytes walked by both passes, told by the calling
	 * thread only (the callback need not be thread-safe then). */
	atomic_uint_fast64_t done;
	uint64_t total, told;
	int pass;
	/* Pass 1 records, per sb entry, the least and greatest goroutine id
	 * its batch creates (INT64_MAX, INT64_MIN: none): pass 2 looks for
	 * a creation only where it can be. */
	int64_t *cmin, *cmax;
	/* pass 2 */
	int64_t tlast;        /* the latest local time any track needs */
	uint8_t *walked;      /* per sb entry: pass 2 has walked its batch */
	hunit *units;         /* this round's work */
	size_t nunits;
	track *tracks;
	size_t ntracks;
	int64_t *tkeys;       /* open addressing: goroutine -> first track, -1 empty */
	size_t *tidx;
	size_t tcap;
	uint64_t tbits[64];   /* a filter of the tracked goroutines (see scan_maybe_tracked) */
	struct worker *ws0;   /* the calling thread's worker */
	uint8_t nwire[GTR_V2_NUM_EVENTS]; /* v2: varints after a walked event's type, 0: not walked */
	/* v2, pass 1's fast walk (walk_v2_fast): per type below 64, its
	 * varints with the type's (0: not walked) and its class (F_*). */
	uint8_t fstep[64];
	uint8_t fcls[64];
	int fast;             /* pass 1 takes the fast walk */
	atomic_int retry;     /* it met what it does not take: pass 1 again, the other walk */
	/* v1 */
	int v1;
	uint16_t v1desc[256]; /* pass 1's fast walk: what an event of each tag byte is (scan_v1.c) */
	uint8_t v1lens[256];  /* and its count of values for record_lens */
	const gtr_v1_index *x1;
	int64_t gomax_t;      /* the first Gomaxprocs (the end of the trace's start): */
	uint32_t gomax_si;    /* local time and stream; INT64_MAX: none */
};

enum { MODE_PASS1 = 1, MODE_WAITER, MODE_PASS2, MODE_ENDS, MODE_PILE };

/* A printed time in a generation's start pile of more events than this
 * (see pile_walk in scan.c) sends greedy to the ordered path. */
#define SCAN_PILE_MAX 10000

/* What a waiter walk is looking for, and finds. */
typedef struct wseek {
	int64_t ts, te;   /* the pause, order keys */
	int bylocal;      /* only the order key of the event at local time ts: key */
	int64_t key;
	int after;        /* events with key ts come after the pause's start */
	int pkonly;       /* only pk is wanted */
	int64_t pk;       /* the key of the last event before ts, INT64_MIN none */
	int tie;          /* an event with key ts starts or ends the slice */
	int tie_end;      /* the slice ends at key te: Go's heap decides */
	int tie_seen;     /* the state before the first event with key ts: */
	uint8_t pre_open;
	int64_t pre_g, pre_start;
	int passed;       /* the walk has gone past ts */
	int found;        /* a slice was open at ts */
	int done;
	cslice sl;        /* that slice; end set when it stopped before te */
	int stopped;
	opos stop;        /* where it stopped */
} wseek;

typedef struct walk {
	scan *s;
	worker *w;
	uint32_t si;      /* stream index */
	size_t to;        /* the walk stops before this batch of the stream */
	int mode;
	mstate st;
	int64_t key;        /* order key of the event applied (v1: its local time) */
	uint32_t gen;
	int64_t cmin, cmax; /* pass 1: goroutine ids the batch creates (see scan.cmin) */
	int64_t thr;        /* pass 1, v1 fast walk: scan_heap_threshold of the worker */
	wseek *seek;
} walk;

enum { R_NONE, R_STACK, R_CREATE, R_UNDET };

/*
 * One emitted event (Go's reader may make several of one wire event):
 * its local time, the context goroutine, and at most one goroutine
 * transition (from, to, id, stack of the transition), which is all the
 * greedy analysis looks at.
 */
typedef struct emit {
	uint16_t type;
	int64_t evg;       /* the context goroutine, -1 none */
	uint64_t stack;    /* the event's own stack */
	int has_tr;
	uint8_t from, to;
	int64_t id;
	uint64_t tr_stack;
	uint64_t reason;   /* v2: a string id; v1: the wire type (see gtr_v1_block_reason) */
	uint8_t quiet;     /* pass 2 notes nothing of it: it repeats an event already noted */
	uint8_t status;    /* v2: a GoStatus, whose stack may be the goroutine's first known */
} emit;

/* Makes e a transition of goroutine id between two states. */
static inline void scan_tr(emit *e, int64_t id, uint8_t from, uint8_t to)
{
	e->has_tr = 1;
	e->id = id;
	e->from = from;
	e->to = to;
}

/* Pushes a slice into the worker's top-K heap (it may not enter). */
void scan_heap_push(worker *w, const cslice *s);

/* A slice shorter than this does not enter the worker's heap. */
static inline int64_t scan_heap_threshold(const worker *w)
{
	return w->nheap == w->capheap ? w->heap[0].end - w->heap[0].start : INT64_MIN;
}

/* Applies one emitted event at local time t (see scan.c). */
int scan_apply(walk *k, int64_t t, const emit *e);
int scan_nomem(gtr_error *err);
/* Fills scan.order: the streams, largest first (the work queue's order). */
void scan_order_streams(scan *s);
/* Pass 2: the first track of goroutine g, or -1. */
ptrdiff_t scan_track_find(const scan *s, int64_t g);
/* Counts `bytes` of events walked, for the progress line (not for waiter walks). */
void scan_progress(walk *k, uint64_t bytes);

/* 0 when goroutine g is surely not tracked in pass 2. */
static inline int scan_maybe_tracked(const scan *s, int64_t g)
{
	uint64_t h = (uint64_t)g * 0x9e3779b97f4a7c15ull >> 52;
	return g >= 0 && (s->tbits[h >> 6] >> (h & 63) & 1);
}

/* scan_apply, but only where the pass can use the event: pass 1 looks at
 * transitions only, pass 2 at the tracked goroutines. */
static inline int scan_wants_in(const scan *s, int mode, const emit *e)
{
	if (mode == MODE_PASS1)
		return e->has_tr;
	if (mode == MODE_PASS2)
		return scan_maybe_tracked(s, e->evg) || (e->has_tr && scan_maybe_tracked(s, e->id));
	return 1;
}

static inline int scan_wants(const walk *k, const emit *e)
{
	return scan_wants_in(k->s, k->mode, e);
}

static inline int scan_emit(walk *k, int64_t t, const emit *e)
{
	return scan_wants(k, e) ? scan_apply(k, t, e) : 0;
}

/* Pass 1: a batch creates goroutine g (see scan.cmin). */
static inline void created(int64_t *cmin, int64_t *cmax, uint64_t g)
{
	int64_t v = g > INT64_MAX ? INT64_MAX : (int64_t)g;
	if (v < *cmin)
		*cmin = v;
	if (v > *cmax)
		*cmax = v;
}

/* Local time of the next event of a stream, which Go's reader read at `raw`. */
static inline int64_t scan_tick(mstate *st, int64_t raw)
{
	int64_t t = raw > st->last ? raw : st->last + 1;
	st->last = t;
	return t;
}

/*
 * v2: the order key of the next event of a stream, which Go's reader read
 * at `raw` in a generation whose keys add koff (scan.koff). Go's reader
 * puts every event of a generation after all of the previous one, and in
 * a generation merges the Ms' events by the time it read (raw), not by
 * the time it shows: where a generation's first events were written
 * before the previous one's last, it shows them all at the previous
 * one's end, one ns apart, in the order of their raw times. Local times
 * lose that order between threads; order keys keep it: a key is the raw
 * time plus the generation's offset, which puts every generation after
 * the previous one, and no less than the stream's previous key. Events of
 * different threads whose keys are equal Go orders by how its heap of
 * threads happens to be, which no thread alone can know (see wseek.tie).
 */
static inline int64_t scan_okey(mstate *st, int64_t raw, int64_t koff)
{
	int64_t k = (int64_t)((uint64_t)raw + (uint64_t)koff);
	if (k < st->okey)
		k = st->okey;
	st->okey = k;
	return k;
}

/*
 * v1 local times are clock ticks since the first event, times 256: the
 * low bits keep a P's events in one tick apart, so that the time shown
 * (scan_v1_ns) is the tick's, as Go's reader shows it.
 */
#define SCAN_V1_SUB 8
#define SCAN_V1_MAX_TICKS (INT64_C(1) << 54) /* more: the ordered path reads it */

static inline int64_t scan_v1_local(const gtr_v1_index *x, uint64_t ticks)
{
	int64_t rel = (int64_t)(ticks - x->min_ticks);
	if (rel < 0)
		rel = 0;
	if (rel > SCAN_V1_MAX_TICKS)
		rel = SCAN_V1_MAX_TICKS;
	return rel << SCAN_V1_SUB;
}

/* v1 (core/analysis/scan_v1.c): the P streams, the walk, the CPU samples of pass 2,
 * and the pauses from the begins and ends pass 1 found (in place; returns
 * how many). */
int scan_v1_streams(scan *s);
int scan_v1_walk(walk *k, size_t from, gtr_error *err);
/* Pass 1 over a whole P stream, most events read in place. */
int scan_v1_walk_fast(walk *k, gtr_error *err);
/* Fills scan.v1desc. */
void scan_v1_classes(scan *s);
int scan_v1_samples(scan *s, worker *w, gtr_error *err);
int64_t scan_v1_last_sample(const scan *s);
/* A local time as ns since the first event, as gtr_v1_ns converts its tick. */
uint64_t scan_v1_ns(const scan *s, int64_t local);
size_t scan_v1_pauses(cstw *stw, size_t n);

#endif
