/* core/analysis/engine.c: one ordered read, run ahead on a thread, feeds every sink. */
#include "core/analysis/engine.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/vec.h"

typedef struct chunk {
	gtr_event ev[GTR_ENGINE_CHUNK];
	size_t n;
	/* The transitions past trans[] of the events that have more: the
	 * reader's own array is only valid until its next call. */
	gtr_transition *xt;
	size_t nxt, capxt;
	int rc;          /* <= 0 after ev[n-1]: the end (0) or the error of the read */
	gtr_error err;   /* the read's error, when rc < 0 */
	int last;        /* the read stops after this chunk */
} chunk;

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The sinks' threads: each runs a group of sinks over every chunk. */
#define MAX_SINK_THREADS 16

typedef struct ahead ahead;

typedef struct consumer {
	ahead *a;
	const gtr_sink *sinks; /* sinks[0..n) of the engine's */
	size_t first, n;       /* this thread's: sinks[first..first+n) */
	size_t tail;           /* chunks this thread is done with */
	int done;              /* it takes no more chunks */
	/* Its first failure: at event `seq` (counted from the trace's first),
	 * by sink `sink` (an index into sinks), with rc and err. */
	uint64_t seq;
	size_t sink;
	int rc;
	gtr_error err;
	double cpu_s;
	uint64_t events, chunks;
} consumer;

struct ahead {
	const gtr_trace *t;
	gtr_reader *rd;
	chunk *chunks;   /* a ring of GTR_ENGINE_CHUNKS */
	pthread_mutex_t mu;
	pthread_cond_t filled, emptied;
	size_t head;     /* chunks filled so far */
	consumer *cons;
	size_t ncons;
	/* The earliest event any sink failed on (or asked to stop at): the
	 * read makes no chunk past it, and no thread takes one. */
	uint64_t stop_seq;
	uint64_t waits;
	double read_cpu_s; /* the read thread's, when it ends */
};

static int deliver(const gtr_sink *sinks, size_t n, const gtr_event *ev, gtr_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = sinks[i].on_event(sinks[i].self, ev);
		if (rc > 0)
			return GTR_SINK_STOP;
		if (rc < 0) {
			if (!err || err->code == GTR_OK)
				gtr_error_set(err, rc, ev->off, rc == GTR_E_NOMEM ? "out of memory" : "analysis failed at byte %llu",
					      (unsigned long long)ev->off);
			return rc;
		}
	}
	return 0;
}

/* Points the events of c that have more transitions at their copies in c->xt. */
static void fix_xtrans(chunk *c)
{
	if (!c->nxt)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (c->ev[i].nxtrans)
			c->ev[i].xtrans = c->xt + (uintptr_t)c->ev[i].xtrans;
}

/* Reads the next chunk's worth of events into c. */
static void fill(ahead *a, chunk *c)
{
	c->n = 0;
	c->nxt = 0;
	c->rc = 1;
	c->last = 0;
	gtr_error_clear(&c->err);
	while (c->n < GTR_ENGINE_CHUNK) {
		gtr_event *ev = &c->ev[c->n];
		int rc = gtr_reader_next(a->rd, ev, &c->err);
		if (rc <= 0) {
			c->rc = rc;
			c->last = 1;
			break;
		}
		if (ev->nxtrans) {
			if (gtr_grow(&c->xt, &c->capxt, c->nxt + ev->nxtrans, sizeof *c->xt) < 0) {
				c->rc = gtr_error_set(&c->err, GTR_E_NOMEM, ev->off, "out of memory");
				c->last = 1;
				break;
			}
			memcpy(c->xt + c->nxt, ev->xtrans, ev->nxtrans * sizeof *c->xt);
			/* An index until the chunk is complete (xt may move). */
			ev->xtrans = (const gtr_transition *)(uintptr_t)c->nxt;
			c->nxt += ev->nxtrans;
		}
		c->n++;
	}
	fix_xtrans(c);
}

/* The chunks every sink thread is done with (under mu). */
static size_t min_tail(const ahead *a)
{
	size_t m = a->head;
	for (size_t i = 0; i < a->ncons; i++)
		if (!a->cons[i].done && a->cons[i].tail < m)
			m = a->cons[i].tail;
	return m;
}

static void *read_ahead(void *arg)
{
	ahead *a = arg;
	for (;;) {
		pthread_mutex_lock(&a->mu);
		while (a->head * GTR_ENGINE_CHUNK <= a->stop_seq &&
		       a->head - min_tail(a) == GTR_ENGINE_CHUNKS)
			pthread_cond_wait(&a->emptied, &a->mu);
		int stop = a->head * GTR_ENGINE_CHUNK > a->stop_seq;
		size_t slot = a->head % GTR_ENGINE_CHUNKS;
		pthread_mutex_unlock(&a->mu);
		if (stop)
			break;
		chunk *c = &a->chunks[slot];
		fill(a, c);
		pthread_mutex_lock(&a->mu);
		a->head++;
		pthread_cond_broadcast(&a->filled);
		pthread_mutex_unlock(&a->mu);
		if (c->last)
			break;
	}
	a->read_cpu_s = cpu_now();
	return NULL;
}

/* Gives one event to the thread's sinks; records the first failure. */
static int give(consumer *k, const gtr_event *ev, uint64_t seq)
{
	for (size_t i = k->first; i < k->first + k->n; i++) {
		int rc = k->sinks[i].on_event(k->sinks[i].self, ev);
		if (rc == 0)
			continue;
		k->seq = seq;
		k->sink = i;
		k->rc = rc > 0 ? GTR_SINK_STOP : rc;
		if (rc < 0)
			gtr_error_set(&k->err, rc, ev->off,
				      rc == GTR_E_NOMEM ? "out of memory" : "analysis failed at byte %llu",
				      (unsigned long long)ev->off);
		return 1;
	}
	return 0;
}

/* A sink thread: takes the chunks in order until the last one, or until
 * it or another failed before the next. */
static void consume(consumer *k)
{
	ahead *a = k->a;
	double t0 = cpu_now();
	for (;;) {
		pthread_mutex_lock(&a->mu);
		if (a->head == k->tail && k->tail * GTR_ENGINE_CHUNK <= a->stop_seq)
			a->waits++;
		while (a->head == k->tail && k->tail * GTR_ENGINE_CHUNK <= a->stop_seq)
			pthread_cond_wait(&a->filled, &a->mu);
		int stop = k->tail * GTR_ENGINE_CHUNK > a->stop_seq;
		if (stop) {
			k->done = 1;
			pthread_cond_signal(&a->emptied);
		}
		pthread_mutex_unlock(&a->mu);
		if (stop)
			break;
		chunk *c = &a->chunks[k->tail % GTR_ENGINE_CHUNKS];
		uint64_t seq0 = (uint64_t)k->tail * GTR_ENGINE_CHUNK;
		int failed = 0;
		for (size_t i = 0; i < c->n && !failed; i++)
			failed = give(k, &c->ev[i], seq0 + i);
		k->events += c->n;
		k->chunks++;
		if (!failed && c->rc < 0) {
			/* The read's error comes after every event of the chunk. */
			k->seq = seq0 + c->n;
			k->sink = 0;
			k->rc = c->rc;
			k->err = c->err;
			failed = 1;
		}
		pthread_mutex_lock(&a->mu);
		k->tail++;
		if (failed && k->seq < a->stop_seq)
			a->stop_seq = k->seq;
		if (failed || c->last)
			k->done = 1;
		pthread_cond_signal(&a->emptied);
		pthread_cond_broadcast(&a->filled); /* threads past stop_seq wake and leave */
		pthread_mutex_unlock(&a->mu);
		if (k->done)
			break;
	}
	k->cpu_s = cpu_now() - t0;
}

static void *consume_thread(void *arg)
{
	consume(arg);
	return NULL;
}

/*
 * Splits the sinks into at most `want` groups of whole runs (a sink
 * marked with_prev stays with the one before it), in order. Returns the
 * number of groups; first[] and count[] describe them.
 */
static size_t split(const gtr_sink *sinks, size_t n, size_t want, size_t *first, size_t *count)
{
	size_t runs = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || !sinks[i].with_prev)
			runs++;
	size_t g = runs < want ? runs : want, r = 0, k = 0;
	if (!g)
		return 0;
	/* Run r goes to group r * g / runs: the groups differ by one run at most. */
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && !sinks[i].with_prev)
			r++;
		size_t grp = r * g / runs;
		if (i == 0 || grp != k) {
			k = grp;
			first[k] = i;
			count[k] = 0;
		}
		count[k]++;
	}
	return g;
}

static int run_ahead(const gtr_trace *t, gtr_reader *rd, const gtr_sink *sinks, size_t n,
		     unsigned jobs, gtr_engine_info *info, gtr_error *err)
{
	size_t first[MAX_SINK_THREADS], count[MAX_SINK_THREADS];
	size_t ncons = split(sinks, n, jobs < MAX_SINK_THREADS ? jobs : MAX_SINK_THREADS, first, count);
	if (!ncons) {
		/* No sinks: the read alone, for its errors. */
		first[0] = count[0] = 0;
		ncons = 1;
	}
	ahead a = {.t = t, .rd = rd, .stop_seq = UINT64_MAX};
	consumer cons[MAX_SINK_THREADS];
	a.chunks = calloc(GTR_ENGINE_CHUNKS, sizeof *a.chunks);
	if (!a.chunks)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	for (size_t i = 0; i < ncons; i++) {
		cons[i] = (consumer){.a = &a, .sinks = sinks, .first = first[i], .n = count[i],
				     .seq = UINT64_MAX};
		gtr_error_clear(&cons[i].err);
	}
	a.cons = cons;
	a.ncons = ncons;
	pthread_mutex_init(&a.mu, NULL);
	pthread_cond_init(&a.filled, NULL);
	pthread_cond_init(&a.emptied, NULL);
	/* The sinks' threads first (they wait for the first chunk), group 0
	 * on this one. A group whose thread cannot start joins the group
	 * before it, whose sinks come right before its own; no chunk exists
	 * yet, so no thread is running a sink. */
	pthread_t th, cth[MAX_SINK_THREADS];
	size_t started = 1;
	for (; started < ncons; started++)
		if (pthread_create(&cth[started], NULL, consume_thread, &cons[started]) != 0)
			break;
	if (started < ncons) {
		pthread_mutex_lock(&a.mu);
		for (size_t i = started; i < ncons; i++)
			cons[started - 1].n += count[i];
		a.ncons = started;
		pthread_mutex_unlock(&a.mu);
		snprintf(info->why, sizeof info->why, "%zu of %zu threads for the analyses started",
			 started, ncons);
	}
	int rc = 0;
	if (pthread_create(&th, NULL, read_ahead, &a) != 0) {
		/* No read thread: the others leave, and the caller reads on its own. */
		pthread_mutex_lock(&a.mu);
		a.stop_seq = 0;
		pthread_cond_broadcast(&a.filled);
		pthread_mutex_unlock(&a.mu);
		for (size_t i = 1; i < started; i++)
			pthread_join(cth[i], NULL);
		rc = 1;
		snprintf(info->why, sizeof info->why, "no thread could be started");
	} else {
		consume(&cons[0]);
		for (size_t i = 1; i < started; i++)
			pthread_join(cth[i], NULL);
		pthread_join(th, NULL);
		info->threads = (unsigned)(1 + started);
		info->sink_threads = (unsigned)started;
		info->waits = a.waits;
		info->read_cpu_s = a.read_cpu_s;
		/* The earliest failure, the first sink's within one event. */
		consumer *f = NULL;
		for (size_t i = 0; i < started; i++) {
			consumer *k = &cons[i];
			info->sink_cpu_s += k->cpu_s;
			if (k->cpu_s > info->sink_cpu_max_s)
				info->sink_cpu_max_s = k->cpu_s;
			if (k->rc && (!f || k->seq < f->seq || (k->seq == f->seq && k->sink < f->sink)))
				f = k;
		}
		info->events = cons[0].events;
		info->chunks = cons[0].chunks;
		if (f && f->rc < 0) {
			if (err && err->code == GTR_OK)
				*err = f->err;
			rc = f->rc;
		}
	}
	pthread_cond_destroy(&a.filled);
	pthread_cond_destroy(&a.emptied);
	pthread_mutex_destroy(&a.mu);
	for (size_t i = 0; i < GTR_ENGINE_CHUNKS; i++)
		free(a.chunks[i].xt);
	free(a.chunks);
	return rc;
}

int gtr_engine_run(const gtr_trace *t, const gtr_sink *sinks, size_t n, const gtr_engine_opts *opts,
		   gtr_engine_info *info, gtr_error *err)
{
	gtr_engine_info scratch;
	if (!info)
		info = &scratch;
	memset(info, 0, sizeof *info);
	info->threads = 1;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned jobs = opts && opts->jobs ? opts->jobs : cpus > 1 ? (unsigned)cpus : 1;
	gtr_reader *rd = NULL;
	int rc = gtr_reader_open(&rd, t, err);
	if (rc < 0)
		return rc;
	rc = 1;
	if (jobs > 1)
		rc = run_ahead(t, rd, sinks, n, jobs, info, err);
	if (rc == 1) {
		/* One thread: read and analyse in turn (its CPU time is all the read's). */
		double t0 = cpu_now();
		gtr_event ev;
		while ((rc = gtr_reader_next(rd, &ev, err)) > 0) {
			info->events++;
			if ((rc = deliver(sinks, n, &ev, err)) != 0)
				break;
		}
		info->read_cpu_s = cpu_now() - t0;
	}
	info->pushed_ns = gtr_reader_pushed(rd);
	gtr_reader_free(rd);
	return rc < 0 ? rc : 0;
}
