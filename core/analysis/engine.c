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

typedef struct ahead {
	const gtr_trace *t;
	gtr_reader *rd;
	chunk *chunks;   /* a ring of GTR_ENGINE_CHUNKS */
	pthread_mutex_t mu;
	pthread_cond_t filled, emptied;
	size_t head;     /* chunks filled so far */
	size_t tail;     /* chunks the sinks are done with */
	int stop;        /* the sinks failed: the read stops */
	uint64_t waits;
	double read_cpu_s; /* the read thread's, when it ends */
} ahead;

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

static void *read_ahead(void *arg)
{
	ahead *a = arg;
	for (;;) {
		pthread_mutex_lock(&a->mu);
		while (!a->stop && a->head - a->tail == GTR_ENGINE_CHUNKS)
			pthread_cond_wait(&a->emptied, &a->mu);
		int stop = a->stop;
		size_t slot = a->head % GTR_ENGINE_CHUNKS;
		pthread_mutex_unlock(&a->mu);
		if (stop)
			break;
		chunk *c = &a->chunks[slot];
		fill(a, c);
		pthread_mutex_lock(&a->mu);
		a->head++;
		pthread_cond_signal(&a->filled);
		pthread_mutex_unlock(&a->mu);
		if (c->last)
			break;
	}
	a->read_cpu_s = cpu_now();
	return NULL;
}

/* The sinks' side: takes the chunks in order until the last one. */
static int consume(ahead *a, const gtr_sink *sinks, size_t n, gtr_engine_info *info, gtr_error *err)
{
	for (;;) {
		pthread_mutex_lock(&a->mu);
		if (a->head == a->tail)
			a->waits++;
		while (a->head == a->tail)
			pthread_cond_wait(&a->filled, &a->mu);
		chunk *c = &a->chunks[a->tail % GTR_ENGINE_CHUNKS];
		pthread_mutex_unlock(&a->mu);
		int rc = 0;
		for (size_t i = 0; i < c->n && rc == 0; i++)
			rc = deliver(sinks, n, &c->ev[i], err);
		int stopped = rc == GTR_SINK_STOP;
		info->events += c->n;
		info->chunks++;
		int last = c->last;
		if (rc == 0 && c->rc < 0 && !stopped) {
			if (err)
				*err = c->err;
			rc = c->rc;
		}
		pthread_mutex_lock(&a->mu);
		a->tail++;
		if (rc != 0)
			a->stop = 1;
		pthread_cond_signal(&a->emptied);
		pthread_mutex_unlock(&a->mu);
		if (rc != 0 || last)
			return rc < 0 ? rc : 0;
	}
}

static int run_ahead(const gtr_trace *t, gtr_reader *rd, const gtr_sink *sinks, size_t n,
		     gtr_engine_info *info, gtr_error *err)
{
	ahead a = {.t = t, .rd = rd};
	a.chunks = calloc(GTR_ENGINE_CHUNKS, sizeof *a.chunks);
	if (!a.chunks)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	pthread_mutex_init(&a.mu, NULL);
	pthread_cond_init(&a.filled, NULL);
	pthread_cond_init(&a.emptied, NULL);
	pthread_t th;
	int rc;
	if (pthread_create(&th, NULL, read_ahead, &a) != 0) {
		rc = 1; /* no thread: the caller reads on its own */
		snprintf(info->why, sizeof info->why, "no thread could be started");
	} else {
		info->threads = 2;
		double t0 = cpu_now();
		rc = consume(&a, sinks, n, info, err);
		info->sink_cpu_s = cpu_now() - t0;
		pthread_join(th, NULL);
		info->waits = a.waits;
		info->read_cpu_s = a.read_cpu_s;
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
	unsigned jobs = opts && opts->jobs ? opts->jobs : sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
	gtr_reader *rd = NULL;
	int rc = gtr_reader_open(&rd, t, err);
	if (rc < 0)
		return rc;
	rc = 1;
	if (jobs > 1)
		rc = run_ahead(t, rd, sinks, n, info, err);
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
	gtr_reader_free(rd);
	return rc < 0 ? rc : 0;
}
