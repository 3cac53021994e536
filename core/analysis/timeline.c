/* core/analysis/timeline.c: per-P and per-M busy time, bucketed, in one streaming pass. */
#include "core/analysis/timeline.h"
#include "core/base/idmap.h"
#include "core/base/vec.h"

#include <stdlib.h>
#include <string.h>

/* v1 traces put timers, netpoll, syscalls and GC on pseudo-Ps from here up. */
#define V1_FAKE_P 1000000

enum { NO_ROW = -1 };

/* A running goroutine: only those have one. */
typedef struct gst {
	int64_t prow, mrow; /* rows of the open slice; NO_ROW when none */
	uint64_t start;
} gst;

struct gtr_timeline_acc {
	const gtr_trace *t;
	gtr_timeline *tl;
	size_t nb;          /* buckets per row, fixed */
	size_t caprows;
	gtr_idmap *rowmap;  /* (kind, id) -> row index */
	gtr_idpool running; /* gst, by goroutine id */
	int64_t gc_row;
	int gc_on;
	uint64_t gc_start;
	int ty_gc_begin, ty_gc_end, ty_gc_active;
	int v1;
};
typedef struct gtr_timeline_acc run;

/* Halves the resolution: bucket i now covers what 2i and 2i+1 did. */
static void coarsen(run *r)
{
	gtr_timeline *tl = r->tl;
	size_t half = (r->nb + 1) / 2;
	for (size_t k = 0; k < tl->nrows; k++) {
		double *b = tl->rows[k].busy;
		for (size_t i = 0; i < half; i++)
			b[i] = b[2 * i] + (2 * i + 1 < r->nb ? b[2 * i + 1] : 0);
		memset(b + half, 0, (r->nb - half) * sizeof *b);
	}
	tl->bucket_ns *= 2;
}

/* Makes the buckets reach time `ts`. */
static void cover(run *r, uint64_t ts)
{
	while (ts / r->tl->bucket_ns >= r->nb && r->tl->bucket_ns <= UINT64_MAX / 2)
		coarsen(r);
}

static void add_busy(run *r, int64_t row, uint64_t s, uint64_t e)
{
	if (row < 0)
		return;
	gtr_timeline_row *rw = &r->tl->rows[row];
	rw->slices++;
	if (e <= s)
		return;
	cover(r, e - 1);
	uint64_t w = r->tl->bucket_ns;
	rw->busy_ns += (double)(e - s);
	for (uint64_t b = s / w; s < e; b++) {
		if (b >= r->nb) {
			/* Only when the width could not double any more: pile it on the last. */
			rw->busy[r->nb - 1] += (double)(e - s);
			break;
		}
		/* A hostile clock can make buckets so wide that their end overflows. */
		uint64_t bend = b + 1 > UINT64_MAX / w ? UINT64_MAX : (b + 1) * w;
		uint64_t upto = e < bend ? e : bend;
		rw->busy[b] += (double)(upto - s);
		s = upto;
	}
}

/* The row of (kind, id), made when first seen; NO_ROW past the cap. Negative: no memory. */
static int64_t row_of(run *r, gtr_row_kind kind, int64_t id)
{
	uint64_t v;
	if (gtr_idmap_get_hot(r->rowmap, kind, (uint64_t)id, &v))
		return (int64_t)v;
	gtr_timeline *tl = r->tl;
	if (tl->nrows >= GTR_TIMELINE_MAX_ROWS)
		return NO_ROW;
	if (gtr_grow(&tl->rows, &r->caprows, tl->nrows + 1, sizeof *tl->rows) < 0)
		return GTR_E_NOMEM;
	double *busy = calloc(r->nb, sizeof *busy);
	if (!busy || gtr_idmap_put(r->rowmap, kind, (uint64_t)id, tl->nrows) < 0) {
		free(busy);
		return GTR_E_NOMEM;
	}
	tl->rows[tl->nrows] = (gtr_timeline_row){.kind = kind, .id = id, .busy = busy};
	return (int64_t)tl->nrows++;
}

static void end_slice(run *r, gst *g, uint64_t ts)
{
	uint64_t e = ts < g->start ? g->start : ts;
	add_busy(r, g->prow, g->start, e);
	add_busy(r, g->mrow, g->start, e);
}

static int start_slice(run *r, gst *g, const gtr_event *ev, uint64_t ts)
{
	g->start = ts;
	g->prow = g->mrow = NO_ROW;
	if (ev->p >= 0 && !(r->v1 && ev->p >= V1_FAKE_P)) {
		if ((g->prow = row_of(r, GTR_ROW_P, ev->p)) < NO_ROW)
			return GTR_E_NOMEM;
		r->tl->dropped_slices += g->prow == NO_ROW;
	}
	if (ev->m >= 0 && !r->v1) {
		if ((g->mrow = row_of(r, GTR_ROW_M, ev->m)) < NO_ROW)
			return GTR_E_NOMEM;
		r->tl->dropped_slices += g->mrow == NO_ROW;
	}
	return 0;
}

static int gc_mark(run *r, uint64_t ts, int on)
{
	if (r->gc_row == NO_ROW && (r->gc_row = row_of(r, GTR_ROW_GC, 0)) < NO_ROW)
		return GTR_E_NOMEM;
	if (on && !r->gc_on) {
		r->gc_on = 1;
		r->gc_start = ts;
	} else if (!on && r->gc_on) {
		r->gc_on = 0;
		add_busy(r, r->gc_row, r->gc_start, ts);
	}
	return 0;
}

static int on_event(run *r, const gtr_event *ev)
{
	gtr_timeline *tl = r->tl;
	tl->events++;
	if (ev->ts > tl->end_ns)
		tl->end_ns = ev->ts;
	for (unsigned i = 0, nt = gtr_event_ntrans(ev); i < nt; i++) {
		const gtr_transition *tr = gtr_event_trans(ev, i);
		if (tr->res != GTR_RES_G)
			continue;
		gst *g = gtr_idpool_find(&r->running, (uint64_t)tr->id);
		if (g && tr->to != GTR_GS_RUNNING) {
			end_slice(r, g, ev->ts + tr->later);
			gtr_idpool_drop(&r->running, (uint64_t)tr->id);
		} else if (!g && tr->to == GTR_GS_RUNNING) {
			if (!(g = gtr_idpool_add(&r->running, (uint64_t)tr->id)) ||
			    start_slice(r, g, ev, ev->ts + tr->later) < 0)
				return GTR_E_NOMEM;
		}
	}
	int type = ev->type;
	if (type == r->ty_gc_begin || type == r->ty_gc_active)
		return gc_mark(r, ev->ts, 1);
	if (type == r->ty_gc_end)
		return gc_mark(r, ev->ts, 0);
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const gtr_timeline_row *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void gtr_timeline_free(gtr_timeline *tl)
{
	if (!tl)
		return;
	for (size_t i = 0; i < tl->nrows; i++)
		free(tl->rows[i].busy);
	free(tl->rows);
	free(tl);
}

double gtr_timeline_frac(const gtr_timeline *tl, const gtr_timeline_row *row, size_t b)
{
	if (b >= tl->nbuckets)
		return 0;
	/* In doubles: a hostile clock can make b * bucket_ns overflow. */
	double w = (double)tl->bucket_ns, from = (double)b * w, width = w;
	/* The last bucket is only partly inside the trace. */
	if (b + 1 == tl->nbuckets && (double)tl->end_ns + 1 - from < w)
		width = (double)tl->end_ns + 1 - from;
	if (width <= 0)
		return 0;
	double f = row->busy[b] / width;
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

static void acc_free(run *r)
{
	gtr_idmap_free(r->rowmap);
	gtr_idpool_free(&r->running);
	gtr_timeline_free(r->tl);
	free(r);
}

static int sink_event(void *self, const gtr_event *ev)
{
	return on_event(self, ev);
}

int gtr_timeline_begin(const gtr_trace *t, const gtr_timeline_opts *opts, gtr_timeline_acc **out,
		       gtr_error *err)
{
	*out = NULL;
	size_t nb = opts && opts->buckets ? opts->buckets : GTR_TIMELINE_BUCKETS;
	if (nb < GTR_TIMELINE_MIN_BUCKETS || nb > GTR_TIMELINE_MAX_BUCKETS)
		return gtr_error_set(err, GTR_E_USAGE, 0, "%zu buckets: between %d and %d, please", nb,
				     GTR_TIMELINE_MIN_BUCKETS, GTR_TIMELINE_MAX_BUCKETS);
	run *r = calloc(1, sizeof *r);
	if (!r)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	r->t = t;
	r->nb = nb;
	r->gc_row = NO_ROW;
	r->tl = calloc(1, sizeof *r->tl);
	r->rowmap = gtr_idmap_create();
	int pool_rc = gtr_idpool_init(&r->running, sizeof(gst));
	if (!r->tl || !r->rowmap || pool_rc < 0) {
		acc_free(r);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	r->v1 = gtr_trace_get_info(t)->family == GTR_FAMILY_V1;
	r->ty_gc_begin = gtr_trace_type(t, r->v1 ? "GCStart" : "GCBegin");
	r->ty_gc_end = gtr_trace_type(t, r->v1 ? "GCDone" : "GCEnd");
	r->ty_gc_active = r->v1 ? -1 : gtr_trace_type(t, "GCActive");
	/* Sized from the span the index saw; coarsened if events run past it. */
	r->tl->bucket_ns = gtr_trace_get_info(t)->span_ns / nb + 1;
	*out = r;
	return 0;
}

gtr_sink gtr_timeline_sink(gtr_timeline_acc *r)
{
	return (gtr_sink){.self = r, .on_event = sink_event};
}

void gtr_timeline_abort(gtr_timeline_acc *r)
{
	if (r)
		acc_free(r);
}

int gtr_timeline_end(gtr_timeline_acc *r, gtr_timeline **out, gtr_error *err)
{
	(void)err;
	/* What still runs at the end runs until the last event. */
	for (size_t i = 0; i < r->running.n; i++) {
		gst *g = gtr_idpool_at(&r->running, i);
		if (g)
			end_slice(r, g, r->tl->end_ns);
	}
	if (r->gc_on)
		gc_mark(r, r->tl->end_ns, 0);
	cover(r, r->tl->end_ns);
	gtr_timeline *tl = r->tl;
	uint64_t used = tl->end_ns / tl->bucket_ns + 1;
	tl->nbuckets = used < r->nb ? (size_t)used : r->nb;
	if (tl->nrows) /* rows is NULL when nothing ran */
		qsort(tl->rows, tl->nrows, sizeof *tl->rows, cmp_row);
	*out = tl;
	r->tl = NULL;
	acc_free(r);
	return 0;
}

int gtr_timeline_run(const gtr_trace *t, const gtr_timeline_opts *opts, gtr_timeline **out,
		     gtr_error *err)
{
	*out = NULL;
	gtr_timeline_acc *r;
	int rc = gtr_timeline_begin(t, opts, &r, err);
	if (rc < 0)
		return rc;
	gtr_sink sk = gtr_timeline_sink(r);
	rc = gtr_engine_run(t, &sk, 1, &(gtr_engine_opts){.jobs = 1}, NULL, err);
	if (rc < 0) {
		gtr_timeline_abort(r);
		return rc;
	}
	return gtr_timeline_end(r, out, err);
}
