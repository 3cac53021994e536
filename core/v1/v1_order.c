/*
 * core/v1/v1_order.c: the order of a v1 trace's events and their state
 * transitions. Three stages, each pulling from the one before:
 *
 *  merge    per-P cursors merged as Go's parsers do (order1005 for go
 *           1.5: by sequence number; order1007 since: the earliest of the
 *           events whose goroutine is in the state they expect);
 *  place    syscall exits and CPU samples put where the time they carry
 *           sorts them, as Go's final stable sort by time does;
 *  convert  Go 1.15's fake Ps and goroutines, and the transitions of Go
 *           1.27's conversion of v1 events to the v2 model.
 */
#include "core/v1/v1_order.h"

#include <stdlib.h>
#include <string.h>

/* ---- per-goroutine and per-P state ---- */

/* Go's gStatus, as order1007 tracks it. */
enum { G_DEAD, G_RUNNABLE, G_RUNNING, G_WAITING };

enum {
	E_PREINIT = 1, /* created before the first Gomaxprocs, status not yet known */
	E_SEEN = 2,    /* P: its first ProcStart or ProcStop has been converted */
	E_THREAD = 4,  /* P: `thread` holds the thread of its running ProcStart */
};

typedef struct ent {
	uint64_t id;
	uint64_t seq;     /* ordering: the goroutine's sequence number */
	uint64_t thread;  /* P: thread id of its last ProcStart */
	int32_t waiters;  /* procs whose next event waits on this goroutine, -1 none */
	uint8_t used;
	uint8_t status;   /* ordering: G_* */
	uint8_t flags;    /* E_* */
	uint8_t last;     /* type of the goroutine's last scheduling event (NetpollP) */
} ent;

typedef struct table {
	ent *e;
	size_t cap, n; /* cap: 0 or a power of two */
} table;

static size_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return (size_t)x;
}

static ent *slot(const table *t, uint64_t id)
{
	size_t mask = t->cap - 1;
	for (size_t i = mix(id) & mask;; i = (i + 1) & mask)
		if (!t->e[i].used || t->e[i].id == id)
			return &t->e[i];
}

static ent *tget(const table *t, uint64_t id)
{
	if (!t->cap)
		return NULL;
	ent *e = slot(t, id);
	return e->used ? e : NULL;
}

/* Finds or adds id; NULL when out of memory. Pointers die at the next tput. */
static ent *tput(table *t, uint64_t id)
{
	if ((t->n + 1) * 4 > t->cap * 3) {
		size_t ncap = t->cap ? t->cap * 2 : 64;
		ent *ne = calloc(ncap, sizeof *ne);
		if (!ne)
			return NULL;
		table nt = {ne, ncap, t->n};
		for (size_t i = 0; i < t->cap; i++)
			if (t->e[i].used)
				*slot(&nt, t->e[i].id) = t->e[i];
		free(t->e);
		*t = nt;
	}
	ent *e = slot(t, id);
	if (!e->used) {
		memset(e, 0, sizeof *e);
		e->used = 1;
		e->id = id;
		e->waiters = -1;
		t->n++;
	}
	return e;
}

/* Removes id (backward-shift deletion: no tombstones). Pointers die. */
static void tdel(table *t, uint64_t id)
{
	if (!t->cap)
		return;
	size_t mask = t->cap - 1, i = (size_t)(slot(t, id) - t->e);
	if (!t->e[i].used)
		return;
	t->e[i].used = 0;
	t->n--;
	for (size_t j = (i + 1) & mask; t->e[j].used; j = (j + 1) & mask) {
		size_t h = mix(t->e[j].id) & mask;
		if (((j - h) & mask) >= ((j - i) & mask)) {
			t->e[i] = t->e[j];
			t->e[j].used = 0;
			i = j;
		}
	}
}

/* ---- the reader ---- */

enum { P_PENDING, P_HEAP, P_WAIT, P_DONE };

typedef struct proc {
	gtr_v1_cursor cur;
	gtr_v1_event head; /* the P's next event, when has_head */
	size_t next;       /* batches of the P opened so far */
	int32_t link;      /* next proc waiting on the same goroutine */
	uint8_t open, has_head, state;
} proc;

typedef struct delayed {
	uint64_t key;
	gtr_v1_event ev;
} delayed;

typedef struct order {
	const gtr_trace *t;
	const gtr_v1_index *x;
	int v5;
	uint64_t last_ticks, last_off; /* go 1.5: the latest time handed out, and where */

	/* merge */
	proc *procs;
	size_t nprocs;
	size_t *heap, nheap;
	size_t *pend, npend;
	size_t nwaiting;
	table gs;
	ent gc; /* the GC's sequence, which GCStart events follow */
	int started;
	uint64_t checks, merged; /* readiness checks made, events merged */
	uint64_t forced_off;     /* the last event let through by release_waiting */

	/* place */
	gtr_v1_event m; /* merged event waiting for earlier out-of-band ones */
	uint64_t mkey;
	int has_m, merged_all;
	gtr_v1_event out; /* an out-of-band event on its way out */
	uint8_t *emitted; /* one bit per index oob entry */
	size_t oob_next;  /* into x->oob_order */
	delayed *late;    /* syscall exits that carry a time after their place */
	size_t nlate, cap_late;

	/* convert */
	table ps;
	int64_t mcache_p, mcache_m;
	int mcache_valid;
	int preinit;
	uint64_t *created;
	size_t ncreated, cap_created;
	gtr_transition *xbuf;
	size_t xcap;

	int failed;
	gtr_error saved;
	gtr_loss *loss; /* the reader's */
	int tolerant;   /* lenient: skip and record what cannot be decoded or ordered */
	int unstick;    /* lenient or cut short: let through what waits for what was lost */
} order;

static int nomem(gtr_error *err)
{
	return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
}

/* Loads the P's next event, opening its next batch when one ends. */
static int load_head(order *o, proc *pr, size_t pi, gtr_error *err)
{
	const gtr_v1_proc *info = &o->x->procs[pi];
	for (;;) {
		if (pr->open) {
			int rc = gtr_v1_cursor_next(&pr->cur, &pr->head, err);
			if (rc < 0 && o->tolerant && rc != GTR_E_NOMEM && err) {
				/* The rest of the batch cannot be decoded: skip it. */
				uint64_t at = err->off > pr->cur.pos ? err->off : pr->cur.pos;
				uint64_t bytes = pr->cur.end > at ? pr->cur.end - at : 0;
				gtr_loss_add(&o->loss->batches, at, bytes, "batch %lld: %s; the rest of it skipped",
					     (long long)pr->cur.batch, err->msg);
				uint64_t ns = gtr_v1_ns(o->x, pr->cur.ticks);
				gtr_loss_time(&o->loss->batches, ns, ns);
				gtr_error_clear(err);
				pr->cur.pos = pr->cur.end;
				rc = 0;
			}
			if (rc < 0)
				return rc;
			if (rc > 0)
				return pr->has_head = 1;
		}
		if (pr->next >= info->n)
			return pr->has_head = 0;
		/* The goroutine running on the P carries over into its next batch. */
		uint64_t g = pr->open ? pr->cur.g : 0;
		gtr_v1_cursor_init(&pr->cur, o->t, o->x->byp[info->first + pr->next++], g);
		pr->cur.loss = o->loss;
		pr->open = 1;
	}
}

/* ---- merge: Go's order1007 state machine ---- */

enum { K_NONE, K_G, K_GC };
enum { N_SET, N_KEEP, N_INC };

/* What an event needs of its goroutine's state to be next, and what it makes of it. */
typedef struct req {
	uint8_t kind, anyseq, status, nstatus, nmode;
	uint64_t g, seq, nseq;
} req;

static req requirement(const order *o, const gtr_v1_event *ev)
{
	req r = {K_NONE, 0, 0, 0, N_SET, 0, 0, 0};
	if (o->v5)
		return r;
	switch (ev->type) {
	case GTR_V1_GOCREATE:
		r = (req){K_G, 0, G_DEAD, G_RUNNABLE, N_SET, ev->args[0], 0, 1};
		break;
	case GTR_V1_GOWAITING:
	case GTR_V1_GOINSYSCALL:
		r = (req){K_G, 0, G_RUNNABLE, G_WAITING, N_SET, ev->g, 1, 2};
		break;
	case GTR_V1_GOSTART:
	case GTR_V1_GOSTARTLABEL:
		r = (req){K_G, 0, G_RUNNABLE, G_RUNNING, N_SET, ev->g, ev->args[1], ev->args[1] + 1};
		break;
	case GTR_V1_GOSTARTLOCAL:
		/* Written on the P that made it runnable, so that event is merged already. */
		r = (req){K_G, 1, G_RUNNABLE, G_RUNNING, N_INC, ev->g, 0, 0};
		break;
	case GTR_V1_GOBLOCK:
	case GTR_V1_GOBLOCKSEND:
	case GTR_V1_GOBLOCKRECV:
	case GTR_V1_GOBLOCKSELECT:
	case GTR_V1_GOBLOCKSYNC:
	case GTR_V1_GOBLOCKCOND:
	case GTR_V1_GOBLOCKNET:
	case GTR_V1_GOSLEEP:
	case GTR_V1_GOSYSBLOCK:
	case GTR_V1_GOBLOCKGC:
		r = (req){K_G, 1, G_RUNNING, G_WAITING, N_KEEP, ev->g, 0, 0};
		break;
	case GTR_V1_GOSCHED:
	case GTR_V1_GOPREEMPT:
		r = (req){K_G, 1, G_RUNNING, G_RUNNABLE, N_KEEP, ev->g, 0, 0};
		break;
	case GTR_V1_GOUNBLOCK:
	case GTR_V1_GOSYSEXIT:
		r = (req){K_G, 0, G_WAITING, G_RUNNABLE, N_SET, ev->args[0], ev->args[1], ev->args[1] + 1};
		break;
	case GTR_V1_GOUNBLOCKLOCAL:
	case GTR_V1_GOSYSEXITLOCAL:
		r = (req){K_G, 1, G_WAITING, G_RUNNABLE, N_INC, ev->args[0], 0, 0};
		break;
	case GTR_V1_GCSTART:
		r = (req){K_GC, 0, G_DEAD, G_DEAD, N_SET, 0, ev->args[0], ev->args[0] + 1};
		break;
	}
	return r;
}

static int ready(const order *o, const req *r)
{
	if (r->kind == K_NONE)
		return 1;
	const ent *e = r->kind == K_GC ? &o->gc : tget(&o->gs, r->g);
	uint64_t seq = e ? e->seq : 0;
	uint8_t status = e ? e->status : G_DEAD;
	return (r->anyseq || r->seq == seq) && r->status == status;
}

static ent *state_of(order *o, const req *r)
{
	return r->kind == K_GC ? &o->gc : tput(&o->gs, r->g);
}

static int wait_on(order *o, size_t pi, const req *r)
{
	ent *e = state_of(o, r);
	if (!e)
		return GTR_E_NOMEM;
	o->procs[pi].link = e->waiters;
	e->waiters = (int32_t)pi;
	o->procs[pi].state = P_WAIT;
	o->nwaiting++;
	return 0;
}

/* The goroutine changed state: its waiters get another look. */
static void wake(order *o, const req *r)
{
	if (r->kind == K_NONE)
		return;
	ent *e = r->kind == K_GC ? &o->gc : tget(&o->gs, r->g);
	if (!e)
		return;
	for (int32_t i = e->waiters; i >= 0;) {
		proc *pr = &o->procs[i];
		int32_t next = pr->link;
		pr->state = P_PENDING;
		o->pend[o->npend++] = (size_t)i;
		o->nwaiting--;
		i = next;
	}
	e->waiters = -1;
}

static uint64_t merge_key(const order *o, const gtr_v1_event *ev)
{
	return o->v5 ? ev->seq : ev->ticks;
}

/* Ties go to the lower P, so that the order is the same on every run. */
static int before(const order *o, size_t a, size_t b)
{
	uint64_t ka = merge_key(o, &o->procs[a].head), kb = merge_key(o, &o->procs[b].head);
	return ka < kb || (ka == kb && a < b);
}

static void heap_push(order *o, size_t pi)
{
	size_t j = o->nheap++;
	o->heap[j] = pi;
	while (j > 0) {
		size_t i = (j - 1) / 2;
		if (!before(o, o->heap[j], o->heap[i]))
			break;
		size_t tmp = o->heap[i];
		o->heap[i] = o->heap[j];
		o->heap[j] = tmp;
		j = i;
	}
	o->procs[pi].state = P_HEAP;
}

static size_t heap_pop(order *o)
{
	size_t top = o->heap[0];
	o->heap[0] = o->heap[--o->nheap];
	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < o->nheap && before(o, o->heap[l], o->heap[m]))
			m = l;
		if (r < o->nheap && before(o, o->heap[r], o->heap[m]))
			m = r;
		if (m == i)
			break;
		size_t tmp = o->heap[i];
		o->heap[i] = o->heap[m];
		o->heap[m] = tmp;
		i = m;
	}
	return top;
}

int gtr_v1_sampled(const gtr_trace *t, uint64_t g, uint64_t from, uint64_t to, gtr_error *err)
{
	const gtr_v1_index *x = t->impl;
	size_t lo = 0, hi = x->noob;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->oob[x->oob_order[mid]].key < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < x->noob; i++) {
		const gtr_v1_oob *e = &x->oob[x->oob_order[i]];
		if (e->key >= to)
			break;
		if ((t->data[e->off] & 0x3f) != GTR_V1_CPUSAMPLE)
			continue;
		gtr_v1_event s;
		int rc = gtr_v1_decode_oob(t, x->oob_order[i], &s, NULL, err);
		if (rc < 0)
			return rc;
		if (s.g == g)
			return 1;
	}
	return 0;
}

/*
 * Go 1.27 turns a GoSysCall into a syscall that blocked when the next
 * event of the goroutine in the final order is its GoSysBlock. That is
 * the next event of the same P (the runtime writes GoSysBlock to the P
 * the syscall left), unless a CPU sample of the goroutine falls between.
 */
static int syscall_blocked(const order *o, const gtr_v1_event *sc, const proc *pr, gtr_error *err)
{
	if (!pr->has_head || pr->head.type != GTR_V1_GOSYSBLOCK || pr->head.g != sc->g)
		return 0;
	if (o->t->info.version < 19 || o->x->noob == 0)
		return 1;
	int rc = gtr_v1_sampled(o->t, sc->g, sc->ticks, pr->head.ticks, err);
	return rc < 0 ? rc : !rc;
}

static int no_order(order *o, gtr_error *err)
{
	for (size_t i = 0; i < o->nprocs; i++) {
		const proc *pr = &o->procs[i];
		if (pr->state != P_WAIT)
			continue;
		int rc = gtr_error_set(err, GTR_E_CORRUPT, pr->head.off,
				       "no consistent ordering of events possible: %s at offset %llu (P %lld) "
				       "waits for goroutine %llu, which never reaches the state it needs",
				       o->t->specs[pr->head.type].name, (unsigned long long)pr->head.off,
				       (long long)pr->cur.p, (unsigned long long)requirement(o, &pr->head).g);
		if (err) {
			err->batch = pr->head.batch;
			err->event = pr->head.index;
		}
		return rc;
	}
	return gtr_error_set(err, GTR_E_CORRUPT, 0, "no consistent ordering of events possible");
}

static int start(order *o, gtr_error *err)
{
	o->started = 1;
	for (size_t i = 0; i < o->nprocs; i++) {
		int rc = load_head(o, &o->procs[i], i, err);
		if (rc < 0)
			return rc;
		if (rc > 0)
			o->pend[o->npend++] = i;
		else
			o->procs[i].state = P_DONE;
	}
	return 0;
}

/*
 * Real traces need 1 to 1.3 readiness checks per event. A hostile one
 * can make every P wait on one goroutine that changes state at every
 * event, which costs checks per P per event (Go's merge too): refuse it
 * rather than take quadratic time.
 */
static int over_budget(const order *o)
{
	return o->checks > 8 * o->merged + 4 * (uint64_t)o->nprocs + (1u << 16);
}

static int too_slow(order *o, gtr_error *err)
{
	return gtr_error_set(err, GTR_E_CORRUPT, 0,
			     "events cannot be ordered in reasonable time: %llu checks for %llu events "
			     "(Ps waiting on goroutines that never get to the state they need)",
			     (unsigned long long)o->checks, (unsigned long long)o->merged);
}

/*
 * A tolerant read with every P waiting: what the earliest waiting event
 * waits for was lost (cut off, or in a broken batch). The event is let
 * through as if its goroutine had reached the state it needs, so that
 * the goroutine's later events are not lost with it; it is recorded.
 * An event that still cannot go after that is dropped.
 */
static int release_waiting(order *o, gtr_error *err)
{
	/* The scan counts against the time budget, as readiness checks do. */
	o->checks += o->nprocs;
	if (over_budget(o))
		return too_slow(o, err);
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < o->nprocs; i++)
		if (o->procs[i].state == P_WAIT && (best == SIZE_MAX || before(o, i, best)))
			best = i;
	if (best == SIZE_MAX)
		return no_order(o, err);
	proc *pr = &o->procs[best];
	req r = requirement(o, &pr->head);
	ent *e = r.kind == K_GC ? &o->gc : tget(&o->gs, r.g);
	if (!e)
		return no_order(o, err);
	for (int32_t *link = &e->waiters; *link >= 0; link = &o->procs[*link].link) {
		if ((size_t)*link == best) {
			*link = pr->link;
			break;
		}
	}
	o->nwaiting--;
	/* Let through the first time; dropped if it is stuck again. */
	int let = pr->head.off != o->forced_off;
	gtr_loss_item *it = let ? &o->loss->forced : &o->loss->events;
	uint64_t ns = gtr_v1_ns(o->x, pr->head.ticks);
	gtr_loss_add(it, pr->head.off, 0,
		     "%s at offset %llu (P %lld) waits for goroutine %llu, which never reaches the "
		     "state it needs",
		     o->t->specs[pr->head.type].name, (unsigned long long)pr->head.off,
		     (long long)pr->cur.p, (unsigned long long)r.g);
	gtr_loss_time(it, ns, ns);
	if (let) {
		o->forced_off = pr->head.off;
		if (!r.anyseq)
			e->seq = r.seq;
		e->status = r.status;
		pr->state = P_PENDING;
		o->pend[o->npend++] = best;
		return 0;
	}
	int rc = load_head(o, pr, best, err);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		pr->state = P_PENDING;
		o->pend[o->npend++] = best;
	} else {
		pr->state = P_DONE;
	}
	return 0;
}

/* Tolerant reads: is the earliest waiting event far behind the next ready one? */
static int far_behind(order *o)
{
	size_t w = SIZE_MAX;
	for (size_t i = 0; i < o->nprocs; i++)
		if (o->procs[i].state == P_WAIT && (w == SIZE_MAX || before(o, i, w)))
			w = i;
	if (w == SIZE_MAX)
		return 0;
	uint64_t next = gtr_v1_ns(o->x, o->procs[o->heap[0]].head.ticks);
	uint64_t wait = gtr_v1_ns(o->x, o->procs[w].head.ticks);
	return next > wait + GTR_FORCE_SLACK_NS;
}

/* The next event in merge order: 1, 0 at the end, or an error. */
static int merge_next(order *o, gtr_v1_event *out, gtr_error *err)
{
	int rc;
	if (!o->started && (rc = start(o, err)) < 0)
		return rc;
	for (;;) {
		while (o->npend) {
			if (++o->checks > 8 * o->merged && over_budget(o))
				return too_slow(o, err);
			size_t pi = o->pend[--o->npend];
			req r = requirement(o, &o->procs[pi].head);
			if (ready(o, &r))
				heap_push(o, pi);
			else if (wait_on(o, pi, &r) < 0)
				return nomem(err);
		}
		if (!o->nheap && o->nwaiting && o->unstick) {
			if ((rc = release_waiting(o, err)) < 0)
				return rc;
			continue;
		}
		if (o->nheap && o->nwaiting && o->unstick && !o->v5 && far_behind(o)) {
			/* What it waits for was lost: let it through in its place
			 * in time, not after everything else. */
			if ((rc = release_waiting(o, err)) < 0)
				return rc;
			continue;
		}
		if (!o->nheap)
			return o->nwaiting ? no_order(o, err) : 0;
		size_t pi = heap_pop(o);
		proc *pr = &o->procs[pi];
		req r = requirement(o, &pr->head);
		ent *e = NULL;
		if (r.kind != K_NONE && !(e = state_of(o, &r)))
			return nomem(err);
		/* Another P's event may have moved the goroutine since this one was found ready. */
		if (e && !((r.anyseq || r.seq == e->seq) && r.status == e->status)) {
			o->procs[pi].link = e->waiters;
			e->waiters = (int32_t)pi;
			pr->state = P_WAIT;
			o->nwaiting++;
			continue;
		}
		if (e) {
			e->seq = r.nmode == N_SET ? r.nseq : r.nmode == N_INC ? e->seq + 1 : e->seq;
			e->status = r.nstatus;
		}
		*out = pr->head;
		o->merged++;
		rc = load_head(o, pr, pi, err);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			pr->state = P_PENDING;
			o->pend[o->npend++] = pi;
		} else {
			pr->state = P_DONE;
		}
		if (out->type == GTR_V1_GOSYSCALL) {
			rc = syscall_blocked(o, out, pr, err);
			if (rc < 0)
				return rc;
			out->blocked = (uint8_t)rc;
		}
		wake(o, &r);
		return 1;
	}
}

/* ---- place: out-of-band events sorted in by their key ---- */

static int oob_peek(order *o, size_t *idx, uint64_t *key)
{
	const gtr_v1_index *x = o->x;
	while (o->oob_next < x->noob) {
		size_t i = x->oob_order[o->oob_next];
		if (!(o->emitted[i >> 3] >> (i & 7) & 1)) {
			*idx = i;
			*key = x->oob[i].key;
			return 1;
		}
		o->oob_next++;
	}
	return 0;
}

static size_t late_min(const order *o)
{
	size_t best = 0;
	for (size_t i = 1; i < o->nlate; i++)
		if (o->late[i].key < o->late[best].key)
			best = i;
	return best;
}

/*
 * A merged event's key, or 0 when it is not to be emitted now: a syscall
 * exit already emitted from the oob table, or one held back until the
 * time it carries.
 */
static int classify(order *o, gtr_v1_event *ev, uint64_t *key, gtr_error *err)
{
	*key = merge_key(o, ev);
	if (ev->type != GTR_V1_GOSYSEXIT)
		return 1;
	ptrdiff_t i = gtr_v1_oob_find(o->x, ev->off);
	if (i >= 0) {
		if (o->emitted[i >> 3] >> (i & 7) & 1)
			return 0;
		o->emitted[i >> 3] |= (uint8_t)(1u << (i & 7));
		ev->ticks = o->x->oob[i].ticks;
		*key = o->x->oob[i].key;
		return 1;
	}
	/* Go gives every syscall exit the time it carries, when it carries one. */
	uint64_t real = ev->args[2];
	if (real)
		ev->ticks = real;
	uint64_t k = o->v5 ? ev->args[1] : ev->ticks;
	if (k <= *key) {
		*key = k;
		return 1;
	}
	/* Later than its place (clock skew between CPUs): hold it back. */
	if (o->nlate == o->cap_late) {
		size_t ncap = o->cap_late ? o->cap_late * 2 : 8;
		delayed *nl = realloc(o->late, ncap * sizeof *nl);
		if (!nl)
			return nomem(err);
		o->late = nl;
		o->cap_late = ncap;
	}
	o->late[o->nlate++] = (delayed){k, *ev};
	return 0;
}

/* The next event in Go's final order, in storage of o valid until the next call. */
static int place_next(order *o, const gtr_v1_event **out, gtr_error *err)
{
	for (;;) {
		if (!o->has_m && !o->merged_all) {
			int rc = merge_next(o, &o->m, err);
			if (rc < 0)
				return rc;
			if (rc == 0) {
				o->merged_all = 1;
			} else {
				rc = classify(o, &o->m, &o->mkey, err);
				if (rc < 0)
					return rc;
				o->has_m = rc;
				continue;
			}
		}
		size_t oi = 0, li = 0;
		uint64_t ok = 0;
		int have_o = oob_peek(o, &oi, &ok);
		int have_l = o->nlate > 0;
		if (have_l)
			li = late_min(o);
		if (!o->has_m && !have_o && !have_l)
			return 0;
		/* Of equal keys, the merged event was merged first and goes first. */
		int use_o = have_o && (!o->has_m || ok < o->mkey);
		int use_l = have_l && (!o->has_m || o->late[li].key < o->mkey);
		if (use_o && use_l) {
			if (o->late[li].key < ok)
				use_o = 0;
			else
				use_l = 0;
		}
		if (use_o) {
			o->emitted[oi >> 3] |= (uint8_t)(1u << (oi & 7));
			o->oob_next++;
			int rc = gtr_v1_decode_oob(o->t, oi, &o->out, o->loss, err);
			*out = &o->out;
			return rc < 0 ? rc : 1;
		}
		if (use_l) {
			o->out = o->late[li].ev;
			o->late[li] = o->late[--o->nlate];
			*out = &o->out;
			return 1;
		}
		o->has_m = 0;
		*out = &o->m;
		return 1;
	}
}

/* ---- convert: Go 1.15's g and p, Go 1.27's transitions ---- */

static int add_trans(order *o, gtr_event *ev, gtr_transition tr)
{
	if (ev->ntrans < GTR_MAX_TRANS) {
		ev->trans[ev->ntrans++] = tr;
		return 0;
	}
	if (ev->nxtrans == o->xcap) {
		size_t ncap = o->xcap ? o->xcap * 2 : 16;
		gtr_transition *nb = realloc(o->xbuf, ncap * sizeof *nb);
		if (!nb)
			return GTR_E_NOMEM;
		o->xbuf = nb;
		o->xcap = ncap;
	}
	o->xbuf[ev->nxtrans++] = tr;
	return 0;
}

static gtr_transition gtrans(int64_t id, gtr_gstate from, gtr_gstate to, gtr_str reason, uint64_t stack)
{
	return (gtr_transition){GTR_RES_G, (uint8_t)from, (uint8_t)to, id, reason, stack, 0};
}

static gtr_transition ptrans(int64_t id, gtr_pstate from, gtr_pstate to)
{
	return (gtr_transition){GTR_RES_P, (uint8_t)from, (uint8_t)to, id, {"", 0}, 0, 0};
}

gtr_str gtr_v1_block_reason(unsigned typ)
{
	switch (typ) {
	case GTR_V1_GOSTOP: return GTR_STR("forever");
	case GTR_V1_GOSCHED: return GTR_STR("runtime.Gosched");
	case GTR_V1_GOPREEMPT: return GTR_STR("preempted");
	case GTR_V1_GOSLEEP: return GTR_STR("sleep");
	case GTR_V1_GOBLOCKSEND: return GTR_STR("chan send");
	case GTR_V1_GOBLOCKRECV: return GTR_STR("chan receive");
	case GTR_V1_GOBLOCKSELECT: return GTR_STR("select");
	case GTR_V1_GOBLOCKSYNC: return GTR_STR("sync");
	case GTR_V1_GOBLOCKCOND: return GTR_STR("sync.(*Cond).Wait");
	case GTR_V1_GOBLOCKNET: return GTR_STR("network");
	case GTR_V1_GOBLOCKGC: return GTR_STR("GC mark assist wait for work");
	}
	return GTR_STR("");
}

/* The goroutine's entry in the conversion state, NULL when out of memory. */
static ent *gent(order *o, uint64_t g)
{
	return tput(&o->gs, g);
}

static int set_last(order *o, uint64_t g, unsigned typ)
{
	ent *e = gent(o, g);
	if (!e)
		return GTR_E_NOMEM;
	e->last = (uint8_t)typ;
	return 0;
}

static int transitions(order *o, const gtr_v1_event *src, unsigned typ, gtr_event *ev)
{
	/* The goroutine an event happens on; Go 1.27 has no goroutine 0. */
	const int64_t g = src->g == 0 ? -1 : (int64_t)src->g;
	const gtr_str none = {"", 0};
	ent *e;
	int rc = 0;
	switch (typ) {
	case GTR_V1_GOMAXPROCS:
		/* The end of the trace's start: goroutines created before it and not
		 * seen since were runnable (or idle) when tracing began. */
		if (!o->preinit)
			break;
		o->preinit = 0;
		for (size_t i = 0; i < o->ncreated && rc == 0; i++) {
			e = tget(&o->gs, o->created[i]);
			if (!e || !(e->flags & E_PREINIT))
				continue;
			e->flags &= (uint8_t)~E_PREINIT;
			rc = add_trans(o, ev, gtrans((int64_t)o->created[i], GTR_GS_UNDETERMINED,
						    GTR_GS_RUNNABLE, none, 0));
		}
		o->ncreated = 0;
		break;
	case GTR_V1_PROCSTART:
	case GTR_V1_PROCSTOP: {
		if (!(e = tput(&o->ps, (uint64_t)ev->p)))
			return GTR_E_NOMEM;
		int seen = e->flags & E_SEEN;
		e->flags |= E_SEEN;
		if (typ == GTR_V1_PROCSTART)
			rc = add_trans(o, ev, ptrans(ev->p, seen ? GTR_PS_IDLE : GTR_PS_UNDETERMINED,
						    GTR_PS_RUNNING));
		else
			rc = add_trans(o, ev, ptrans(ev->p, seen ? GTR_PS_RUNNING : GTR_PS_UNDETERMINED,
						    GTR_PS_IDLE));
		break;
	}
	case GTR_V1_GOCREATE:
		if (o->preinit) {
			if (!(e = gent(o, src->args[0])))
				return GTR_E_NOMEM;
			if (!(e->flags & E_PREINIT)) {
				if (o->ncreated == o->cap_created) {
					size_t ncap = o->cap_created ? o->cap_created * 2 : 64;
					uint64_t *nc = realloc(o->created, ncap * sizeof *nc);
					if (!nc)
						return GTR_E_NOMEM;
					o->created = nc;
					o->cap_created = ncap;
				}
				o->created[o->ncreated++] = src->args[0];
				e->flags |= E_PREINIT;
			}
			break;
		}
		rc = add_trans(o, ev, gtrans((int64_t)src->args[0], GTR_GS_NOTEXIST, GTR_GS_RUNNABLE, none,
					    src->args[1]));
		break;
	case GTR_V1_GOSTART:
		if (o->preinit) {
			if ((e = tget(&o->gs, src->args[0])))
				e->flags &= (uint8_t)~E_PREINIT;
			rc = add_trans(o, ev, gtrans((int64_t)src->args[0], GTR_GS_UNDETERMINED,
						    GTR_GS_RUNNING, none, 0));
			break;
		}
		/* fallthrough */
	case GTR_V1_GOSTARTLABEL:
		rc = add_trans(o, ev, gtrans((int64_t)src->args[0], GTR_GS_RUNNABLE, GTR_GS_RUNNING, none, 0));
		break;
	case GTR_V1_GOEND:
		rc = add_trans(o, ev, gtrans(g, GTR_GS_RUNNING, GTR_GS_NOTEXIST, none, 0));
		/* Goroutine ids are never reused: forget it, so that memory
		 * follows the goroutines alive, not all the trace ever had.
		 * (None waits on it: nothing can happen to it any more.) */
		if ((e = tget(&o->gs, (uint64_t)g)) && e->waiters < 0)
			tdel(&o->gs, (uint64_t)g);
		break;
	case GTR_V1_GOUNBLOCK:
		rc = add_trans(o, ev, gtrans((int64_t)src->args[0], GTR_GS_WAITING, GTR_GS_RUNNABLE, none, 0));
		break;
	case GTR_V1_GOSYSCALL:
		rc = add_trans(o, ev, gtrans(g, GTR_GS_RUNNING, GTR_GS_SYSCALL, none,
					    gtr_v1_stack_or_zero(o->x, ev->stack)));
		/* Go 1.27 gives a syscall that did not block a 1 ns stay in Syscall. */
		if (rc == 0 && !src->blocked) {
			gtr_transition back = gtrans(g, GTR_GS_SYSCALL, GTR_GS_RUNNING, none, 0);
			back.later = 1;
			rc = add_trans(o, ev, back);
		}
		break;
	case GTR_V1_GOSYSEXIT:
		rc = add_trans(o, ev, gtrans(g, GTR_GS_SYSCALL, GTR_GS_RUNNABLE, none, 0));
		break;
	case GTR_V1_GOWAITING:
	case GTR_V1_GOINSYSCALL:
		if ((e = tget(&o->gs, src->args[0])))
			e->flags &= (uint8_t)~E_PREINIT;
		rc = add_trans(o, ev, gtrans((int64_t)src->args[0], GTR_GS_UNDETERMINED,
					    typ == GTR_V1_GOWAITING ? GTR_GS_WAITING : GTR_GS_SYSCALL, none, 0));
		break;
	default: {
		/* GoSched, GoPreempt, GoStop, GoSleep and the GoBlocks. */
		uint8_t to = gtr_v1_stop_state(typ);
		if (to != GTR_GS_UNDETERMINED)
			rc = add_trans(o, ev, gtrans(g, GTR_GS_RUNNING, (gtr_gstate)to, gtr_v1_block_reason(typ),
						    gtr_v1_stack_or_zero(o->x, ev->stack)));
		break;
	}
	}
	return rc;
}

static int timer_goroutine(const gtr_v1_index *x, uint64_t g)
{
	uint64_t v;
	return gtr_idmap_count(x->timers) && gtr_idmap_get(x->timers, 0, g, &v);
}

static int convert(order *o, const gtr_v1_event *src, gtr_event *ev)
{
	const gtr_v1_index *x = o->x;
	const gtr_spec *s = &o->t->specs[src->type];
	unsigned typ = src->type;
	/* The Local events differ from the others only in how they are ordered. */
	if (typ == GTR_V1_GOSTARTLOCAL)
		typ = GTR_V1_GOSTART;
	else if (typ == GTR_V1_GOUNBLOCKLOCAL)
		typ = GTR_V1_GOUNBLOCK;
	else if (typ == GTR_V1_GOSYSEXITLOCAL)
		typ = GTR_V1_GOSYSEXIT;

	ev->ts = gtr_v1_ns(x, src->ticks);
	ev->off = src->off;
	ev->table = 0;
	ev->type = src->type;
	ev->nargs = src->nargs;
	memcpy(ev->args, src->args, sizeof ev->args);
	ev->stack = s->stack_arg >= 0 ? src->args[s->stack_arg] : 0;
	ev->data = src->data;
	ev->ntrans = 0;
	ev->xtrans = NULL;
	ev->nxtrans = 0;

	/* Go 1.15's goroutine and P for the event, fake Ps included. */
	int64_t g = (int64_t)src->g, p = src->p;
	switch (typ) {
	case GTR_V1_GCSTART:
		p = GTR_V1_GCP;
		/* fallthrough */
	case GTR_V1_GCDONE:
	case GTR_V1_GCSTWSTART:
	case GTR_V1_GCSTWDONE:
		g = 0;
		break;
	case GTR_V1_GOSYSEXIT:
		p = GTR_V1_SYSCALLP;
		break;
	case GTR_V1_GOUNBLOCK: {
		if (timer_goroutine(x, src->g))
			p = GTR_V1_TIMERP;
		const ent *e = tget(&o->gs, src->args[0]);
		if (e && e->last == GTR_V1_GOBLOCKNET && p != GTR_V1_TIMERP)
			p = GTR_V1_NETPOLLP;
		break;
	}
	}
	ev->g = g;
	ev->p = p;

	/* The goroutine's last scheduling event, which decides NetpollP above. */
	int rc = 0;
	switch (typ) {
	case GTR_V1_GOCREATE:
	case GTR_V1_GOUNBLOCK:
		rc = set_last(o, src->args[0], typ);
		break;
	case GTR_V1_GOSTART:
	case GTR_V1_GOSTARTLABEL:
		rc = set_last(o, src->g, 0);
		break;
	case GTR_V1_GOWAITING:
	case GTR_V1_GOINSYSCALL:
	case GTR_V1_GOSCHED:
	case GTR_V1_GOPREEMPT:
	case GTR_V1_GOSYSCALL:
	case GTR_V1_GOSYSEXIT:
	case GTR_V1_GOSLEEP:
	case GTR_V1_GOBLOCK:
	case GTR_V1_GOBLOCKSEND:
	case GTR_V1_GOBLOCKRECV:
	case GTR_V1_GOBLOCKSELECT:
	case GTR_V1_GOBLOCKSYNC:
	case GTR_V1_GOBLOCKCOND:
	case GTR_V1_GOBLOCKNET:
	case GTR_V1_GOBLOCKGC:
		rc = set_last(o, src->g, typ);
		break;
	}
	if (rc < 0)
		return rc;

	/* The thread: Go 1.27 knows it from the P's ProcStart. */
	ev->m = -1;
	if (typ == GTR_V1_PROCSTART) {
		ent *e = tput(&o->ps, (uint64_t)p);
		if (!e)
			return GTR_E_NOMEM;
		e->thread = src->args[0];
		e->flags |= E_THREAD;
		o->mcache_valid = 0;
	}
	if (p != -1 && typ != GTR_V1_CPUSAMPLE) {
		/* Events come in runs from one P: remember the last answer. */
		if (!o->mcache_valid || o->mcache_p != p) {
			const ent *e = tget(&o->ps, (uint64_t)p);
			o->mcache_p = p;
			o->mcache_m = e && (e->flags & E_THREAD) ? (int64_t)e->thread : -1;
			o->mcache_valid = 1;
		}
		ev->m = o->mcache_m;
	}

	rc = transitions(o, src, typ, ev);
	if (rc < 0)
		return rc;
	if (typ == GTR_V1_PROCSTOP) {
		ent *e = tget(&o->ps, (uint64_t)p);
		if (e)
			e->flags &= (uint8_t)~E_THREAD;
		o->mcache_valid = 0;
	}
	if (ev->nxtrans)
		ev->xtrans = o->xbuf;
	return 0;
}

/* ---- entry points ---- */

void gtr_v1_order_free(void *p)
{
	order *o = p;
	if (!o)
		return;
	free(o->procs);
	free(o->heap);
	free(o->pend);
	free(o->gs.e);
	free(o->ps.e);
	free(o->emitted);
	free(o->late);
	free(o->created);
	free(o->xbuf);
	free(o);
}

int gtr_v1_order_open(void **out, const gtr_trace *t, gtr_loss *loss, gtr_error *err)
{
	const gtr_v1_index *x = t->impl;
	order *o = calloc(1, sizeof *o);
	*out = NULL;
	if (!o)
		return nomem(err);
	o->t = t;
	o->x = x;
	o->v5 = t->info.version == 5;
	o->preinit = 1;
	o->loss = loss;
	o->tolerant = (t->flags & GTR_OPEN_LENIENT) != 0;
	o->unstick = gtr_v1_tolerant(t);
	o->nprocs = x->nprocs;
	size_t n = x->nprocs ? x->nprocs : 1;
	o->procs = calloc(n, sizeof *o->procs);
	o->heap = malloc(n * sizeof *o->heap);
	o->pend = malloc(n * sizeof *o->pend);
	o->emitted = calloc(x->noob / 8 + 1, 1);
	if (!o->procs || !o->heap || !o->pend || !o->emitted) {
		gtr_v1_order_free(o);
		return nomem(err);
	}
	o->gc.waiters = -1;
	for (size_t i = 0; i < o->nprocs; i++)
		o->procs[i].link = -1;
	*out = o;
	return 0;
}

int gtr_v1_order_next(void *p, gtr_event *ev, gtr_error *err)
{
	order *o = p;
	if (o->failed) {
		if (err && err->code == GTR_OK)
			*err = o->saved;
		return o->saved.code;
	}
	/* Cleared by hand: gtr_error_clear would wipe the message buffer on every event. */
	gtr_error local;
	local.code = GTR_OK;
	local.off = 0;
	local.batch = -1;
	local.event = -1;
	local.msg[0] = 0;
	const gtr_v1_event *src = NULL;
	int rc = place_next(o, &src, &local);
	if (rc > 0 && o->v5) {
		/* Go orders a go 1.5 trace by sequence numbers, then refuses it
		 * when that order is not also the order of the times. */
		if (src->ticks < o->last_ticks && !o->unstick) {
			rc = gtr_error_set(&local, GTR_E_CORRUPT, src->off,
					   "time stamps out of order: the event at byte %llu comes after "
					   "the event at byte %llu by sequence numbers but is %llu ticks "
					   "earlier",
					   (unsigned long long)src->off, (unsigned long long)o->last_off,
					   (unsigned long long)(o->last_ticks - src->ticks));
		} else if (src->ticks < o->last_ticks) {
			uint64_t ns = gtr_v1_ns(o->x, src->ticks);
			gtr_loss_add(&o->loss->forced, src->off, 0,
				     "time stamps out of order: the event at byte %llu comes after the "
				     "event at byte %llu by sequence numbers but is earlier",
				     (unsigned long long)src->off, (unsigned long long)o->last_off);
			gtr_loss_time(&o->loss->forced, ns, ns);
		}
		if (src->ticks > o->last_ticks) {
			o->last_ticks = src->ticks;
			o->last_off = src->off;
		}
	}
	if (rc > 0) {
		rc = convert(o, src, ev);
		if (rc < 0)
			nomem(&local);
		else
			rc = 1;
	}
	if (rc < 0) {
		o->failed = 1;
		o->saved = local;
		if (err && err->code == GTR_OK)
			*err = local;
		return local.code;
	}
	return rc;
}
