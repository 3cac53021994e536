/* core/analysis/greedy.c: slices, the top-N heap, Tmax_stw and the measured pauses. */
#include "core/analysis/greedy.h"
#include "core/base/idmap.h"
#include "core/base/vec.h"

#include <stdlib.h>
#include <string.h>

typedef struct gstate {
	int64_t id;
	uint8_t state;
	uint8_t nchain, chead;
	uint16_t chain[GTR_CHAIN_LEN]; /* ring of recent event types */
	int64_t running;               /* index in the running set, -1 if not running */
	int64_t waiter;                /* its entry in the open pause's waiters, -1 none */
	uint64_t seen;                 /* time of its latest event */
	gtr_slice cur;                 /* the open slice while running */
	gtr_stackref resume, create;
} gstate;

struct gtr_greedy_acc {
	const gtr_trace *t;
	size_t top;
	gtr_greedy *res;
	gtr_idmap *gids; /* goroutine id -> index in gs */
	gstate *gs;
	size_t ngs, capgs;
	size_t *spare; /* slots of gs freed by goroutines that exited */
	size_t nspare, capspare;
	size_t *running; /* indices into gs of the goroutines now Running */
	size_t nrunning, caprunning;
	gtr_slice *heap; /* min-heap: the root is the slice that ranks last */
	size_t nheap, capheap;
	size_t capstw, capwaiters, capprocs;
	int64_t open_stw; /* index of the pause in progress, -1 none */
	int stw_depth;    /* v1: begins not yet ended (go 1.5 and 1.6 log one per P) */
	int ty_procs, ty_stw_begin, ty_stw_end;
	int v1;
	gtr_idmap *topg; /* goroutines whose slices entered the heap, when asked */
};
typedef struct gtr_greedy_acc run;

int gtr_slice_cmp(const gtr_slice *a, const gtr_slice *b)
{
	uint64_t da = a->end - a->start, db = b->end - b->start;
	if (da != db)
		return da > db ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->g != b->g)
		return a->g < b->g ? -1 : 1;
	return 0;
}

uint64_t gtr_percentile(const uint64_t *sorted, size_t n, double q)
{
	if (n == 0)
		return 0;
	/* Nearest rank: the smallest value with at least q% at or below it. */
	size_t rank = (size_t)((q / 100.0) * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static void heap_swap(gtr_slice *h, size_t i, size_t j)
{
	gtr_slice tmp = h[i];
	h[i] = h[j];
	h[j] = tmp;
}

/* Heap order: the parent ranks after (is shorter than) its children. */
static int heap_above(const gtr_slice *a, const gtr_slice *b)
{
	return gtr_slice_cmp(a, b) > 0;
}

static void heap_push(run *r, const gtr_slice *s)
{
	gtr_slice *h = r->heap;
	/* Remember who ever made the top: a failed put only costs a name. */
	if (r->topg && (r->nheap < r->capheap || heap_above(&h[0], s)))
		(void)gtr_idmap_put(r->topg, 0, (uint64_t)s->g, 1);
	if (r->nheap == r->capheap) {
		if (!heap_above(&h[0], s))
			return;
		h[0] = *s;
		for (size_t i = 0;;) {
			size_t l = 2 * i + 1, rt = l + 1, m = i;
			if (l < r->nheap && heap_above(&h[l], &h[m]))
				m = l;
			if (rt < r->nheap && heap_above(&h[rt], &h[m]))
				m = rt;
			if (m == i)
				break;
			heap_swap(h, i, m);
			i = m;
		}
		return;
	}
	size_t i = r->nheap++;
	h[i] = *s;
	while (i > 0 && heap_above(&h[i], &h[(i - 1) / 2])) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static gstate *gstate_of(run *r, int64_t id)
{
	uint64_t idx;
	if (gtr_idmap_get_hot(r->gids, 0, (uint64_t)id, &idx))
		return &r->gs[idx];
	if (r->nspare) {
		idx = r->spare[--r->nspare];
	} else {
		if (gtr_grow(&r->gs, &r->capgs, r->ngs + 1, sizeof *r->gs) < 0)
			return NULL;
		idx = r->ngs++;
	}
	if (gtr_idmap_put(r->gids, 0, (uint64_t)id, idx) < 0)
		return NULL;
	gstate *g = &r->gs[idx];
	memset(g, 0, sizeof *g);
	g->id = id;
	g->running = -1;
	g->waiter = -1;
	return g;
}

static void chain_add(gstate *g, uint16_t type)
{
	g->chain[g->chead] = type;
	g->chead = (uint8_t)((g->chead + 1) % GTR_CHAIN_LEN);
	if (g->nchain < GTR_CHAIN_LEN)
		g->nchain++;
}

static void chain_copy(const gstate *g, gtr_slice *s)
{
	s->nchain = g->nchain;
	size_t first = (g->chead + GTR_CHAIN_LEN - g->nchain) % GTR_CHAIN_LEN;
	for (size_t i = 0; i < g->nchain; i++)
		s->chain[i] = g->chain[(first + i) % GTR_CHAIN_LEN];
}

static int start_slice(run *r, gstate *g, const gtr_event *ev, uint64_t ts)
{
	if (gtr_grow(&r->running, &r->caprunning, r->nrunning + 1, sizeof *r->running) < 0)
		return GTR_E_NOMEM;
	g->running = (int64_t)r->nrunning;
	r->running[r->nrunning++] = (size_t)(g - r->gs);
	gtr_slice *s = &g->cur;
	/* Field by field: clearing the whole slice took a sixth of greedy's time. */
	s->end = 0;
	s->end_state = 0;
	s->truncated = 0;
	s->reason = (gtr_str){0};
	s->end_ev = 0;
	s->end_stack = (gtr_stackref){0};
	s->start = ts;
	s->g = g->id;
	s->p = ev->p;
	s->start_ev = ev->type;
	s->start_stack = g->resume;
	s->create_stack = g->create;
	chain_copy(g, s);
	return 0;
}

static void end_slice(run *r, gstate *g, uint64_t ts, const gtr_event *ev, const gtr_transition *tr,
		      int lost)
{
	gtr_slice *s = &g->cur;
	s->end = ts < s->start ? s->start : ts;
	if (ev) {
		s->end_state = tr->to;
		s->reason = tr->reason;
		s->end_ev = ev->type;
		if (ev->g == g->id && ev->stack)
			s->end_stack = (gtr_stackref){ev->table, ev->stack};
	} else {
		s->truncated = lost ? GTR_END_LOST : 1;
		s->end_state = GTR_GS_RUNNING;
	}
	r->res->nslices++;
	heap_push(r, s);
	/* Leave the running set (swap-remove). */
	size_t at = (size_t)g->running, last = r->running[--r->nrunning];
	r->running[at] = last;
	r->gs[last].running = (int64_t)at;
	g->running = -1;
	/* The stop of a goroutine the open pause is waiting for. */
	if (g->waiter >= 0 && ev) {
		gtr_stw_waiter *w = &r->res->waiters[g->waiter];
		w->stopped = s->end;
		w->stack = s->end_stack;
		w->reason = s->reason;
		w->end_state = s->end_state;
		g->waiter = -1;
	}
}

static int stw_begin(run *r, const gtr_event *ev)
{
	gtr_greedy *res = r->res;
	if (gtr_grow(&res->stw, &r->capstw, res->nstw + 1, sizeof *res->stw) < 0 ||
	    gtr_grow(&res->waiters, &r->capwaiters, res->nwaiters + r->nrunning, sizeof *res->waiters) < 0)
		return GTR_E_NOMEM;
	gtr_stw *s = &res->stw[res->nstw];
	memset(s, 0, sizeof *s);
	s->start = ev->ts;
	s->g = ev->g;
	s->p = ev->p;
	s->culprit = -1;
	s->first_waiter = res->nwaiters;
	if (r->v1) {
		/* v1 numbers the kind: 0 mark termination, 1 sweep termination. */
		if (ev->nargs >= 1)
			s->kind = ev->args[0] == 0 ? GTR_STR("GC mark termination")
						   : GTR_STR("GC sweep termination");
		else
			s->kind = GTR_STR("GC");
	} else if (ev->nargs >= 1) {
		gtr_str k;
		if (gtr_trace_string(r->t, ev->table, ev->args[0], &k) == 0 && k.n)
			s->kind = k;
		else
			s->kind = GTR_STR("(kind not in the trace)");
	}
	for (size_t i = 0; i < r->nrunning; i++) {
		gstate *g = &r->gs[r->running[i]];
		if (g->id == ev->g)
			continue;
		gtr_stw_waiter *w = &res->waiters[res->nwaiters];
		memset(w, 0, sizeof *w);
		w->g = g->id;
		w->p = g->cur.p;
		w->create_stack = g->create;
		g->waiter = (int64_t)res->nwaiters++;
		s->nwaiters++;
	}
	r->open_stw = (int64_t)res->nstw++;
	return 0;
}

int gtr_stw_waiter_qsort(const void *a, const void *b)
{
	const gtr_stw_waiter *x = a, *y = b;
	if (x->stopped != y->stopped)
		return x->stopped < y->stopped ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

static void stw_end(run *r, uint64_t ts, int truncated)
{
	gtr_greedy *res = r->res;
	gtr_stw *s = &res->stw[r->open_stw];
	s->end = ts;
	s->truncated = (uint8_t)truncated;
	for (size_t i = 0; i < s->nwaiters; i++) {
		gtr_stw_waiter *w = &res->waiters[s->first_waiter + i];
		if (w->stopped == 0) {
			/* Still on its P when the world restarted: it did not delay the stop. */
			uint64_t idx;
			if (gtr_idmap_get(r->gids, 0, (uint64_t)w->g, &idx))
				r->gs[idx].waiter = -1;
		}
	}
	/* No goroutine refers to these entries any more: put them in a
	 * stated order (not the order of the running set), so that any
	 * reader of the trace lists them alike. The culprit stopped last. */
	if (s->nwaiters)
		qsort(&res->waiters[s->first_waiter], s->nwaiters, sizeof *res->waiters, gtr_stw_waiter_qsort);
	if (s->nwaiters && res->waiters[s->first_waiter + s->nwaiters - 1].stopped)
		s->culprit = (int64_t)s->nwaiters - 1;
	r->open_stw = -1;
}

static int on_event(run *r, const gtr_event *ev)
{
	gtr_greedy *res = r->res;
	res->events++;
	if (res->events == 1)
		res->first_ts = ev->ts;
	res->last_ts = ev->ts;
	int type = ev->type;
	if (type == r->ty_procs && ev->nargs >= 1 &&
	    (res->nprocs == 0 || res->procs[res->nprocs - 1].procs != ev->args[0])) {
		/* A change, not the value written again (v2 writes it at every
		 * generation's start): repeats would change nothing below. */
		if (gtr_grow(&res->procs, &r->capprocs, res->nprocs + 1, sizeof *res->procs) < 0)
			return GTR_E_NOMEM;
		res->procs[res->nprocs++] = (gtr_procs_change){ev->ts, ev->args[0]};
		if (ev->args[0] > res->maxprocs)
			res->maxprocs = ev->args[0];
	}
	for (unsigned i = 0, nt = gtr_event_ntrans(ev); i < nt; i++) {
		const gtr_transition *tr = gtr_event_trans(ev, i);
		if (tr->res != GTR_RES_G)
			continue;
		gstate *g = gstate_of(r, tr->id);
		if (!g)
			return GTR_E_NOMEM;
		if (tr->from == GTR_GS_NOTEXIST && tr->stack)
			g->create = (gtr_stackref){ev->table, tr->stack};
		else if (tr->from == GTR_GS_UNDETERMINED && tr->stack && !g->create.id)
			g->resume = (gtr_stackref){ev->table, tr->stack};
		if (g->running >= 0 && tr->to != GTR_GS_RUNNING)
			end_slice(r, g, ev->ts + tr->later, ev, tr, 0);
		else if (g->running >= 0 && tr->from != GTR_GS_RUNNING)
			/* Running again before it stopped: a tolerant read lost
			 * the event that stopped it. */
			end_slice(r, g, g->seen, NULL, NULL, 1);
		if (tr->from == GTR_GS_NOTEXIST)
			g->resume = g->create;
		if (tr->to == GTR_GS_RUNNING && g->running < 0 && start_slice(r, g, ev, ev->ts + tr->later) < 0)
			return GTR_E_NOMEM;
		if (tr->from == GTR_GS_RUNNING && ev->g == g->id && ev->stack)
			g->resume = (gtr_stackref){ev->table, ev->stack};
		g->state = tr->to;
	}
	/* The chains: this event joins the history of each goroutine it involves. */
	if (ev->g >= 0) {
		gstate *g = gstate_of(r, ev->g);
		if (!g)
			return GTR_E_NOMEM;
		chain_add(g, ev->type);
		g->seen = ev->ts;
	}
	for (unsigned i = 0, nt = gtr_event_ntrans(ev); i < nt; i++)
		if (gtr_event_trans(ev, i)->res == GTR_RES_G && gtr_event_trans(ev, i)->id != ev->g) {
			gstate *g = gstate_of(r, gtr_event_trans(ev, i)->id);
			if (!g)
				return GTR_E_NOMEM;
			chain_add(g, ev->type);
			g->seen = ev->ts;
		}
	/* A goroutine that exited needs no state: memory stays bounded by the
	 * goroutines alive at once, not by all the trace ever had. */
	for (unsigned i = 0, nt = gtr_event_ntrans(ev); i < nt; i++) {
		const gtr_transition *tr = gtr_event_trans(ev, i);
		uint64_t idx;
		if (tr->res != GTR_RES_G || tr->to != GTR_GS_NOTEXIST ||
		    !gtr_idmap_get_hot(r->gids, 0, (uint64_t)tr->id, &idx))
			continue;
		if (r->gs[idx].running >= 0)
			continue;
		if (gtr_grow(&r->spare, &r->capspare, r->nspare + 1, sizeof *r->spare) < 0)
			return GTR_E_NOMEM;
		gtr_idmap_del(r->gids, 0, (uint64_t)tr->id);
		r->spare[r->nspare++] = (size_t)idx;
	}
	if (type == r->ty_stw_begin && r->ty_stw_begin >= 0) {
		/* In v1 each P may log the same pause: one pause lasts from
		 * the first begin to the last end. v2 logs it once, so a
		 * second begin means a tolerant read lost the first's end. */
		if (r->open_stw >= 0 && r->v1) {
			r->stw_depth++;
			return 0;
		}
		if (r->open_stw >= 0)
			stw_end(r, r->res->stw[r->open_stw].start, GTR_END_LOST);
		r->stw_depth = 1;
		return stw_begin(r, ev);
	}
	/* v2: the goroutine that stopped the world restarts it; the end of
	 * a pause already given up as lost closes nothing. */
	if (type == r->ty_stw_end && r->ty_stw_end >= 0 && r->open_stw >= 0 &&
	    (r->v1 || ev->g == r->res->stw[r->open_stw].g) && --r->stw_depth <= 0)
		stw_end(r, ev->ts, 0);
	return 0;
}

static int cmp_slice_qsort(const void *a, const void *b)
{
	return gtr_slice_cmp(a, b);
}

void gtr_greedy_free(gtr_greedy *g)
{
	if (!g)
		return;
	free(g->top);
	free(g->est);
	free(g->procs);
	free(g->stw);
	free(g->waiters);
	free(g);
}

static void run_free(run *r)
{
	gtr_idmap_free(r->gids);
	gtr_idmap_free(r->topg);
	free(r->gs);
	free(r->spare);
	free(r->running);
	free(r->heap);
	gtr_greedy_free(r->res);
	free(r);
}

static int sink_event(void *self, const gtr_event *ev)
{
	return on_event(self, ev);
}

int gtr_greedy_begin(const gtr_trace *t, size_t top, gtr_greedy_acc **out, gtr_error *err)
{
	*out = NULL;
	run *r = calloc(1, sizeof *r);
	if (!r)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	r->t = t;
	r->open_stw = -1;
	r->top = top;
	r->res = calloc(1, sizeof *r->res);
	r->gids = gtr_idmap_create();
	r->capheap = top > GTR_GREEDY_KEEP ? top : GTR_GREEDY_KEEP;
	r->heap = malloc(r->capheap * sizeof *r->heap);
	if (!r->res || !r->gids || !r->heap) {
		run_free(r);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	r->v1 = gtr_trace_get_info(t)->family == GTR_FAMILY_V1;
	r->ty_procs = gtr_trace_type(t, r->v1 ? "Gomaxprocs" : "ProcsChange");
	r->ty_stw_begin = gtr_trace_type(t, r->v1 ? "GCSTWStart" : "STWBegin");
	r->ty_stw_end = gtr_trace_type(t, r->v1 ? "GCSTWDone" : "STWEnd");
	*out = r;
	return 0;
}

gtr_sink gtr_greedy_sink(gtr_greedy_acc *r)
{
	return (gtr_sink){.self = r, .on_event = sink_event};
}

int gtr_greedy_track_top(gtr_greedy_acc *r)
{
	if (!r->topg && !(r->topg = gtr_idmap_create()))
		return GTR_E_NOMEM;
	return 0;
}

int gtr_greedy_was_top(void *acc, int64_t g)
{
	const run *r = acc;
	uint64_t v;
	return r->topg && gtr_idmap_get(r->topg, 0, (uint64_t)g, &v);
}

void gtr_greedy_abort(gtr_greedy_acc *r)
{
	if (r)
		run_free(r);
}

uint64_t gtr_procs_in_force(const gtr_procs_change *p, size_t n, uint64_t end, uint64_t *ns)
{
	uint64_t best = 0, best_ns = 0;
	int have = 0;
	/* Few distinct values: a quadratic sum over them is fine. */
	for (size_t i = 0; i < n; i++) {
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = p[j].procs == p[i].procs;
		if (seen)
			continue;
		uint64_t total = 0;
		for (size_t j = i; j < n; j++) {
			if (p[j].procs != p[i].procs)
				continue;
			uint64_t to = j + 1 < n ? p[j + 1].ts : end;
			total += to > p[j].ts ? to - p[j].ts : 0;
		}
		if (!have || total > best_ns) {
			best = p[i].procs;
			best_ns = total;
			have = 1;
		}
	}
	if (ns)
		*ns = best_ns;
	return best;
}

void gtr_greedy_close(gtr_greedy_acc *r)
{
	/* What is still running at the end is reported, marked truncated. */
	while (r->nrunning > 0)
		end_slice(r, &r->gs[r->running[r->nrunning - 1]], r->res->last_ts, NULL, NULL, 0);
	if (r->open_stw >= 0)
		stw_end(r, r->res->last_ts, 1);
}

int gtr_greedy_end(gtr_greedy_acc *r, gtr_greedy **out, gtr_error *err)
{
	*out = NULL;
	size_t top = r->top;
	gtr_greedy_close(r);

	gtr_greedy *res = r->res;
	qsort(r->heap, r->nheap, sizeof *r->heap, cmp_slice_qsort);
	res->ntop = r->nheap < top ? r->nheap : top;
	res->procs_in_force = gtr_procs_in_force(res->procs, res->nprocs, res->last_ts, &res->procs_in_force_ns);
	size_t procs = res->procs_in_force ? (size_t)res->procs_in_force : 1;
	res->tmax_exact = procs <= r->capheap;
	res->nest = r->nheap < procs ? r->nheap : procs;
	res->top = malloc((res->ntop ? res->ntop : 1) * sizeof *res->top);
	res->est = malloc((res->nest ? res->nest : 1) * sizeof *res->est);
	if (!res->top || !res->est) {
		run_free(r);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	memcpy(res->top, r->heap, res->ntop * sizeof *res->top);
	memcpy(res->est, r->heap, res->nest * sizeof *res->est);
	for (size_t i = 0; i < res->nest; i++)
		res->tmax_stw += gtr_slice_dur(&res->est[i]);
	r->res = NULL;
	run_free(r);
	*out = res;
	return 0;
}

int gtr_greedy_run(const gtr_trace *t, size_t top, gtr_greedy **out, gtr_error *err)
{
	return gtr_greedy_run_jobs(t, top, 1, out, err);
}

int gtr_greedy_run_jobs(const gtr_trace *t, size_t top, unsigned jobs, gtr_greedy **out,
			gtr_error *err)
{
	*out = NULL;
	gtr_greedy_acc *r;
	int rc = gtr_greedy_begin(t, top, &r, err);
	if (rc < 0)
		return rc;
	gtr_sink sk = gtr_greedy_sink(r);
	rc = gtr_engine_run(t, &sk, 1, &(gtr_engine_opts){.jobs = jobs}, NULL, err);
	if (rc < 0) {
		gtr_greedy_abort(r);
		return rc;
	}
	return gtr_greedy_end(r, out, err);
}
