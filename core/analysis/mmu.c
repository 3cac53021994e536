/* core/analysis/mmu.c: the mutator utilization function and its MMU curve. */
#include "core/analysis/mmu.h"
#include "core/base/idmap.h"
#include "core/base/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One utilization function: u[j] holds from t[j] to t[j + 1]. */
struct gtr_mmu_series {
	int64_t *t;
	double *u;
	double *sum; /* sum[j]: its integral from t[0] to t[j] (ns) */
	size_t n, cap;
};

typedef struct pstate {
	int gc;        /* GC work going on on this P */
	size_t series;
} pstate;

/* Per goroutine bits. */
enum { G_IN_ASSIST = 1, G_BG_MARK = 2, G_EXECUTING = 4, G_RUN_OPEN = 8 };

struct gtr_mmu_acc {
	const gtr_trace *t;
	const gtr_mmu_opts *opts;
	gtr_mmu *m;
	unsigned flags;
	size_t capseries;
	pstate *ps;
	size_t nps, capps;
	int stw;
	int stw_gc_open;  /* v2: the open STW is one of the GC's, and counted */
	uint64_t nsync;
	gtr_idmap *gs;    /* goroutine -> G_* bits */
	int64_t last_ts;
	int have_event;
	/* v2 */
	int ty_sync, ty_procs, ty_stw_begin, ty_stw_end, ty_sweep_begin, ty_sweep_end, ty_sweep_active,
	    ty_assist_begin, ty_assist_end, ty_assist_active, ty_label;
	/* v1 */
	int ty_gomaxprocs, ty_stw_start, ty_stw_done, ty_v1_assist_start, ty_v1_assist_done,
	    ty_v1_sweep_start, ty_v1_sweep_done, ty_start, ty_start_local, ty_start_label;
	uint8_t run_ends[256]; /* v1 event types that end a goroutine's run */
};

typedef struct gtr_mmu_acc run;

static int str_is(gtr_str a, const char *b)
{
	size_t n = strlen(b);
	return a.n == n && memcmp(a.p, b, n) == 0;
}

static int str_has_prefix(gtr_str a, const char *b)
{
	size_t n = strlen(b);
	return a.n >= n && memcmp(a.p, b, n) == 0;
}

static int str_contains(gtr_str a, const char *b)
{
	size_t n = strlen(b);
	for (size_t i = 0; i + n <= a.n; i++)
		if (memcmp(a.p + i, b, n) == 0)
			return 1;
	return 0;
}

/* Go's addUtil: a change only, and the lowest value at one instant. */
static int add_util(gtr_mmu_series *s, int64_t t, double u)
{
	/* A series' times never go back, whatever the trace's times do (a
	 * broken trace's may wrap): series_mmu's arithmetic relies on it. */
	if (s->n && t < s->t[s->n - 1])
		t = s->t[s->n - 1];
	if (s->n) {
		if (s->u[s->n - 1] == u)
			return 0;
		if (s->t[s->n - 1] == t) {
			if (u < s->u[s->n - 1])
				s->u[s->n - 1] = u;
			return 0;
		}
	}
	if (s->n == s->cap) {
		size_t c1 = s->cap, c2 = s->cap;
		if (gtr_grow(&s->t, &c1, s->n + 1, sizeof *s->t) < 0 ||
		    gtr_grow(&s->u, &c2, s->n + 1, sizeof *s->u) < 0)
			return GTR_E_NOMEM;
		/* Both grew to the same size, or the first did and the second failed. */
		s->cap = c1 < c2 ? c1 : c2;
	}
	s->t[s->n] = t;
	s->u[s->n] = u;
	s->n++;
	return 0;
}

static int new_series(run *r, int64_t t, size_t *idx)
{
	gtr_mmu *m = r->m;
	if (gtr_grow(&m->series, &r->capseries, m->nseries + 1, sizeof *m->series) < 0)
		return GTR_E_NOMEM;
	memset(&m->series[m->nseries], 0, sizeof *m->series);
	*idx = m->nseries++;
	return add_util(&m->series[*idx], t, 1);
}

static int set_procs(run *r, int64_t ts, uint64_t procs)
{
	int perp = r->flags & GTR_MMU_PER_P;
	/* A hostile value must not allocate without bound; Go runs on fewer Ps. */
	if (procs > 1u << 16)
		procs = 1u << 16;
	if (r->nps > procs) {
		if (perp)
			for (size_t i = procs; i < r->nps; i++)
				if (add_util(&r->m->series[r->ps[i].series], ts, 0) < 0)
					return GTR_E_NOMEM;
		r->nps = (size_t)procs;
	}
	while (r->nps < procs) {
		size_t series = 0;
		if (perp || r->m->nseries == 0) {
			if (new_series(r, ts, &series) < 0)
				return GTR_E_NOMEM;
		}
		if (gtr_grow(&r->ps, &r->capps, r->nps + 1, sizeof *r->ps) < 0)
			return GTR_E_NOMEM;
		r->ps[r->nps++] = (pstate){.series = series};
	}
	return 0;
}

static uint64_t gbits(run *r, int64_t g)
{
	uint64_t v = 0;
	if (g >= 0)
		gtr_idmap_get_hot(r->gs, 0, (uint64_t)g, &v);
	return v;
}

static int set_gbits(run *r, int64_t g, uint64_t v)
{
	if (g < 0)
		return 0;
	if (!v)
		return gtr_idmap_del(r->gs, 0, (uint64_t)g), 0;
	return gtr_idmap_put(r->gs, 0, (uint64_t)g, v) < 0 ? GTR_E_NOMEM : 0;
}

/* GC work on the event's P; nothing when the P is not one of GOMAXPROCS. */
static void p_gc(run *r, int64_t p, int d)
{
	if (p >= 0 && (uint64_t)p < r->nps)
		r->ps[p].gc += d;
}

static gtr_str string_arg(const run *r, const gtr_event *ev, unsigned i)
{
	gtr_str s = {"", 0};
	if (i < ev->nargs && gtr_trace_string(r->t, ev->table, ev->args[i], &s) < 0)
		s = (gtr_str){"", 0};
	return s;
}

static int label_counts(const run *r, gtr_str l)
{
	return (r->flags & GTR_MMU_BACKGROUND) && str_has_prefix(l, "GC ") && !str_is(l, "GC (idle)") &&
	       !((r->flags & GTR_MMU_PER_P) && str_is(l, "GC (dedicated)"));
}

/*
 * A range found active at the start of the first generation has been
 * going on since the trace began: take 1/GOMAXPROCS off everything
 * recorded so far (system view only), as Go does.
 */
static void backfill(run *r)
{
	if ((r->flags & GTR_MMU_PER_P) || !r->m->nseries || !r->nps)
		return;
	gtr_mmu_series *s = &r->m->series[0];
	double d = 1.0 / (double)r->nps;
	for (size_t i = 0; i < s->n; i++) {
		s->u[i] -= d;
		if (s->u[i] < 0)
			s->u[i] = 0;
	}
}

/* An event's time as the series keep it: a trace's times past 2^63 ns
 * (only a broken one has them) stay at the last that fits, so that the
 * series' times never go back and their differences never overflow. */
static int64_t ts_of(const gtr_event *ev)
{
	return ev->ts > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ev->ts;
}

static int on_v2(run *r, const gtr_event *ev)
{
	int type = ev->type;
	if (type == r->ty_sync) {
		r->nsync++;
		return 0;
	}
	if (type == r->ty_procs && ev->nargs >= 1)
		return set_procs(r, ts_of(ev), ev->args[0]);
	if (!r->nps)
		return 0;
	if (type == r->ty_stw_begin) {
		if ((r->flags & GTR_MMU_STW) && str_contains(string_arg(r, ev, 0), "GC")) {
			r->stw++;
			r->stw_gc_open = 1;
		}
		return 0;
	}
	if (type == r->ty_stw_end) {
		if (r->stw_gc_open) {
			r->stw--;
			r->stw_gc_open = 0;
		}
		return 0;
	}
	int active = type == r->ty_sweep_active || type == r->ty_assist_active;
	if (active && r->nsync > 1)
		return 0; /* after a whole generation, nothing is news */
	if (type == r->ty_sweep_begin || type == r->ty_sweep_active) {
		if (r->flags & GTR_MMU_SWEEP) {
			if (active)
				backfill(r);
			p_gc(r, ev->p, 1);
		}
		return 0;
	}
	if (type == r->ty_sweep_end) {
		if (r->flags & GTR_MMU_SWEEP)
			p_gc(r, ev->p, -1);
		return 0;
	}
	if (type == r->ty_assist_begin || type == r->ty_assist_active) {
		if (!(r->flags & GTR_MMU_ASSIST))
			return 0;
		int64_t g = active ? (ev->nargs ? (int64_t)ev->args[0] : -1) : ev->g;
		if (active) {
			/* Only an assist on a goroutine then executing took a P. */
			if (!(gbits(r, ev->g) & G_EXECUTING))
				return 0;
			backfill(r);
		}
		p_gc(r, ev->p, 1);
		return set_gbits(r, g, gbits(r, g) | G_IN_ASSIST);
	}
	if (type == r->ty_assist_end) {
		if (!(r->flags & GTR_MMU_ASSIST))
			return 0;
		p_gc(r, ev->p, -1);
		return set_gbits(r, ev->g, gbits(r, ev->g) & ~(uint64_t)G_IN_ASSIST);
	}
	if (type == r->ty_label) {
		if (label_counts(r, string_arg(r, ev, 0))) {
			p_gc(r, ev->p, 1);
			return set_gbits(r, ev->g, gbits(r, ev->g) | G_BG_MARK);
		}
		return 0;
	}
	return 0;
}

static int executing(uint8_t s)
{
	return s == GTR_GS_RUNNING || s == GTR_GS_SYSCALL;
}

static int on_v2_transitions(run *r, const gtr_event *ev)
{
	/* Go follows goroutines only once GOMAXPROCS is known. */
	if (!r->nps)
		return 0;
	for (unsigned i = 0, nt = gtr_event_ntrans(ev); i < nt; i++) {
		const gtr_transition *tr = gtr_event_trans(ev, i);
		if (tr->res != GTR_RES_G)
			continue;
		uint64_t b = gbits(r, tr->id);
		int was = executing(tr->from), is = executing(tr->to);
		if (!was && is && (b & G_IN_ASSIST))
			p_gc(r, ev->p, 1);
		else if (was && !is && (b & (G_IN_ASSIST | G_BG_MARK)))
			p_gc(r, ev->p, -1);
		/* A worker's label counts for the run it was given in. */
		if (was && !is)
			b &= ~(uint64_t)G_BG_MARK;
		b = is ? b | G_EXECUTING : b & ~(uint64_t)G_EXECUTING;
		if (tr->to == GTR_GS_NOTEXIST)
			b = 0;
		if (set_gbits(r, tr->id, b) < 0)
			return GTR_E_NOMEM;
	}
	return 0;
}

/*
 * Go 1.21 records the utilization only after the events it handles (the
 * others "continue" its loop), and the lowest value at an instant is
 * kept: two events at one instant are seen as one change only if a
 * handled event follows. Returns 1 for such an event, 0 for the others,
 * or a negative gtr_errcode.
 */
static int on_v1(run *r, const gtr_event *ev)
{
	int type = ev->type;
	if (type == r->ty_gomaxprocs && ev->nargs >= 1)
		return set_procs(r, ts_of(ev), ev->args[0]) < 0 ? GTR_E_NOMEM : 1;
	if (type == r->ty_stw_start) {
		if (r->flags & GTR_MMU_STW)
			r->stw++;
		return 1;
	}
	if (type == r->ty_stw_done) {
		if (r->flags & GTR_MMU_STW)
			r->stw--;
		return 1;
	}
	if (type == r->ty_v1_assist_start) {
		if (r->flags & GTR_MMU_ASSIST) {
			p_gc(r, ev->p, 1);
			return set_gbits(r, ev->g, gbits(r, ev->g) | G_IN_ASSIST) < 0 ? GTR_E_NOMEM : 1;
		}
		return 1;
	}
	if (type == r->ty_v1_assist_done) {
		if (r->flags & GTR_MMU_ASSIST) {
			p_gc(r, ev->p, -1);
			return set_gbits(r, ev->g, gbits(r, ev->g) & ~(uint64_t)G_IN_ASSIST) < 0 ? GTR_E_NOMEM : 1;
		}
		return 1;
	}
	if (type == r->ty_v1_sweep_start || type == r->ty_v1_sweep_done) {
		if (r->flags & GTR_MMU_SWEEP)
			p_gc(r, ev->p, type == r->ty_v1_sweep_start ? 1 : -1);
		return 1;
	}
	if (type == r->ty_start || type == r->ty_start_local || type == r->ty_start_label) {
		uint64_t b = gbits(r, ev->g);
		if (type == r->ty_start_label && label_counts(r, string_arg(r, ev, 2))) {
			b |= G_BG_MARK;
			p_gc(r, ev->p, 1);
		}
		if (b & G_IN_ASSIST)
			p_gc(r, ev->p, 1);
		return set_gbits(r, ev->g, b | G_RUN_OPEN) < 0 ? GTR_E_NOMEM : 1;
	}
	if (type >= 0 && type < 256 && r->run_ends[type]) {
		uint64_t b = gbits(r, ev->g);
		if (!(b & G_RUN_OPEN))
			return 0;
		if (b & G_IN_ASSIST)
			p_gc(r, ev->p, -1);
		if (b & G_BG_MARK)
			p_gc(r, ev->p, -1);
		return set_gbits(r, ev->g, b & ~(uint64_t)(G_BG_MARK | G_RUN_OPEN)) < 0 ? GTR_E_NOMEM : 1;
	}
	return 0;
}

/* The utilization now, recorded where it changed. */
static int record(run *r, int64_t ts)
{
	if (!r->nps)
		return 0;
	if (!(r->flags & GTR_MMU_PER_P)) {
		size_t gcps = 0;
		if (r->stw > 0)
			gcps = r->nps;
		else
			for (size_t i = 0; i < r->nps; i++)
				gcps += r->ps[i].gc > 0;
		return add_util(&r->m->series[0], ts, 1 - (double)gcps / (double)r->nps);
	}
	for (size_t i = 0; i < r->nps; i++) {
		double u = r->stw > 0 || r->ps[i].gc > 0 ? 0.0 : 1.0;
		if (add_util(&r->m->series[r->ps[i].series], ts, u) < 0)
			return GTR_E_NOMEM;
	}
	return 0;
}

/* F(x): the integral of s from its start to x, x >= t[*j]; moves *j forward. */
static double integral(const gtr_mmu_series *s, size_t *j, double x)
{
	while (*j + 1 < s->n && (double)s->t[*j + 1] <= x)
		(*j)++;
	return s->sum[*j] + s->u[*j] * (x - (double)s->t[*j]);
}

/*
 * The least mean over windows of width w in one series. The mean is
 * piecewise linear in the window's start, with breaks where an edge
 * meets a change, so the starts tried are the changes and the changes
 * minus w (both sorted, merged), and the two ends.
 */
static double series_mmu(const gtr_mmu_series *s, uint64_t window, int64_t *where)
{
	int64_t t0 = s->t[0], tn = s->t[s->n - 1];
	int64_t span = tn - t0;
	int64_t w = (int64_t)(window > (uint64_t)span ? (uint64_t)span : window);
	*where = t0;
	if (w <= 0)
		return 1;
	int64_t last = tn - w;
	double best = INFINITY;
	size_t a = 0, b = 0; /* next change for starts at t[a], and at t[b] - w */
	size_t jl = 0, jr = 0;
	int64_t x = t0;
	for (;;) {
		double mu = (integral(s, &jr, (double)(x + w)) - integral(s, &jl, (double)x)) / (double)w;
		if (mu < best) {
			best = mu;
			*where = x;
		}
		if (x >= last)
			break;
		while (a < s->n && s->t[a] <= x)
			a++;
		while (b < s->n && s->t[b] - w <= x)
			b++;
		int64_t na = a < s->n ? s->t[a] : INT64_MAX;
		int64_t nb = b < s->n ? s->t[b] - w : INT64_MAX;
		int64_t nx = na < nb ? na : nb;
		x = nx > last ? last : nx;
	}
	return best < 0 ? 0 : best;
}

double gtr_mmu_at(const gtr_mmu *m, uint64_t window_ns, uint64_t *worst_ns)
{
	double best = 1;
	int64_t at = (int64_t)m->start_ns;
	for (size_t i = 0; i < m->nseries; i++) {
		const gtr_mmu_series *s = &m->series[i];
		if (s->n < 2)
			continue;
		int64_t where;
		double mu = series_mmu(s, window_ns, &where);
		if (mu < best) {
			best = mu;
			at = where;
		}
	}
	if (worst_ns)
		*worst_ns = at < 0 ? 0 : (uint64_t)at;
	return best;
}

void gtr_mmu_free(gtr_mmu *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nseries; i++) {
		free(m->series[i].t);
		free(m->series[i].u);
		free(m->series[i].sum);
	}
	free(m->series);
	free(m->points);
	free(m);
}

static int finish(run *r, const gtr_mmu_opts *opts)
{
	gtr_mmu *m = r->m;
	/* Every function ends at 0 at the last event, as Go's do. */
	for (size_t i = 0; i < r->nps; i++)
		if (add_util(&m->series[r->ps[i].series], r->last_ts, 0) < 0)
			return GTR_E_NOMEM;
	int first = 1;
	for (size_t i = 0; i < m->nseries; i++) {
		gtr_mmu_series *s = &m->series[i];
		m->changes += s->n;
		if (!(s->sum = malloc((s->n ? s->n : 1) * sizeof *s->sum)))
			return GTR_E_NOMEM;
		double sum = 0;
		for (size_t j = 0; j < s->n; j++) {
			if (j)
				sum += s->u[j - 1] * (double)(s->t[j] - s->t[j - 1]);
			s->sum[j] = sum;
		}
		if (!s->n)
			continue;
		if (first || (uint64_t)s->t[0] < m->start_ns)
			m->start_ns = (uint64_t)s->t[0];
		if (first || (uint64_t)s->t[s->n - 1] > m->end_ns)
			m->end_ns = (uint64_t)s->t[s->n - 1];
		first = 0;
	}
	if (!m->nseries)
		return 0;
	uint64_t span = m->end_ns - m->start_ns;
	uint64_t deflt[64];
	const uint64_t *w = opts ? opts->windows : NULL;
	size_t nw = opts ? opts->nwindows : 0;
	if (!w) {
		/* 1, 2, 5 per decade from 1 us, then the span itself. */
		nw = 0;
		for (uint64_t dec = 1000; dec <= span && nw < 60; dec *= 10) {
			static const unsigned steps[3] = {1, 2, 5};
			for (int k = 0; k < 3 && dec * steps[k] < span; k++)
				deflt[nw++] = dec * steps[k];
			if (dec > UINT64_MAX / 10)
				break;
		}
		if (span)
			deflt[nw++] = span;
		w = deflt;
	}
	if (nw > GTR_MMU_MAX_WINDOWS)
		nw = GTR_MMU_MAX_WINDOWS;
	if (nw && !(m->points = calloc(nw, sizeof *m->points)))
		return GTR_E_NOMEM;
	for (size_t i = 0; i < nw; i++) {
		m->points[i].window_ns = w[i];
		m->points[i].mmu = gtr_mmu_at(m, w[i], &m->points[i].worst_ns);
	}
	m->npoints = nw;
	return 0;
}

static void acc_free(run *r)
{
	if (!r)
		return;
	gtr_idmap_free(r->gs);
	free(r->ps);
	gtr_mmu_free(r->m);
	free(r);
}

int gtr_mmu_begin(const gtr_trace *t, const gtr_mmu_opts *opts, gtr_mmu_acc **out, gtr_error *err)
{
	*out = NULL;
	if (opts && opts->nwindows > GTR_MMU_MAX_WINDOWS)
		return gtr_error_set(err, GTR_E_USAGE, 0, "%zu windows: at most %d, please", opts->nwindows,
				     GTR_MMU_MAX_WINDOWS);
	run *r = calloc(1, sizeof *r);
	if (!r)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	r->t = t;
	r->opts = opts;
	r->flags = opts && opts->flags ? opts->flags : GTR_MMU_DEFAULT;
	r->m = calloc(1, sizeof *r->m);
	r->gs = gtr_idmap_create();
	if (!r->m || !r->gs) {
		acc_free(r);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	r->m->flags = r->flags;
	int v1 = r->m->v1 = gtr_trace_get_info(t)->family == GTR_FAMILY_V1;
	if (v1) {
		r->ty_gomaxprocs = gtr_trace_type(t, "Gomaxprocs");
		r->ty_stw_start = gtr_trace_type(t, "GCSTWStart");
		r->ty_stw_done = gtr_trace_type(t, "GCSTWDone");
		r->ty_v1_assist_start = gtr_trace_type(t, "GCMarkAssistStart");
		r->ty_v1_assist_done = gtr_trace_type(t, "GCMarkAssistDone");
		r->ty_v1_sweep_start = gtr_trace_type(t, "GCSweepStart");
		r->ty_v1_sweep_done = gtr_trace_type(t, "GCSweepDone");
		r->ty_start = gtr_trace_type(t, "GoStart");
		r->ty_start_local = gtr_trace_type(t, "GoStartLocal");
		r->ty_start_label = gtr_trace_type(t, "GoStartLabel");
		/* The events Go's v1 parser links a GoStart to: the run's end. */
		static const char *ends[] = {"GoEnd", "GoStop", "GoSched", "GoPreempt", "GoSysBlock",
					     "GoSleep", "GoBlock", "GoBlockSend", "GoBlockRecv",
					     "GoBlockSelect", "GoBlockSync", "GoBlockCond", "GoBlockNet",
					     "GoBlockGC"};
		for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
			int ty = gtr_trace_type(t, ends[i]);
			if (ty >= 0 && ty < 256)
				r->run_ends[ty] = 1;
		}
	} else {
		r->ty_sync = gtr_trace_type(t, "Sync");
		r->ty_procs = gtr_trace_type(t, "ProcsChange");
		r->ty_stw_begin = gtr_trace_type(t, "STWBegin");
		r->ty_stw_end = gtr_trace_type(t, "STWEnd");
		r->ty_sweep_begin = gtr_trace_type(t, "GCSweepBegin");
		r->ty_sweep_end = gtr_trace_type(t, "GCSweepEnd");
		r->ty_sweep_active = gtr_trace_type(t, "GCSweepActive");
		r->ty_assist_begin = gtr_trace_type(t, "GCMarkAssistBegin");
		r->ty_assist_end = gtr_trace_type(t, "GCMarkAssistEnd");
		r->ty_assist_active = gtr_trace_type(t, "GCMarkAssistActive");
		r->ty_label = gtr_trace_type(t, "GoLabel");
	}
	*out = r;
	return 0;
}

static int sink_event(void *self, const gtr_event *ev)
{
	run *r = self;
	int rc;
	r->last_ts = ts_of(ev);
	if (r->m->v1) {
		rc = on_v1(r, ev);
		if (rc > 0)
			rc = record(r, ts_of(ev));
	} else {
		rc = on_v2(r, ev);
		if (rc == 0)
			rc = on_v2_transitions(r, ev);
		if (rc == 0)
			rc = record(r, ts_of(ev));
	}
	return rc < 0 ? rc : 0;
}

gtr_sink gtr_mmu_sink(gtr_mmu_acc *acc)
{
	return (gtr_sink){.self = acc, .on_event = sink_event};
}

int gtr_mmu_end(gtr_mmu_acc *r, gtr_mmu **out, gtr_error *err)
{
	*out = NULL;
	int rc = finish(r, r->opts);
	if (rc < 0) {
		acc_free(r);
		return gtr_error_set(err, rc, 0, "out of memory");
	}
	*out = r->m;
	r->m = NULL;
	acc_free(r);
	return 0;
}

void gtr_mmu_abort(gtr_mmu_acc *acc)
{
	acc_free(acc);
}

int gtr_mmu_run(const gtr_trace *t, const gtr_mmu_opts *opts, gtr_mmu **out, gtr_error *err)
{
	*out = NULL;
	gtr_mmu_acc *r;
	int rc = gtr_mmu_begin(t, opts, &r, err);
	if (rc < 0)
		return rc;
	gtr_sink sk = gtr_mmu_sink(r);
	rc = gtr_engine_run(t, &sk, 1, &(gtr_engine_opts){.jobs = opts ? opts->jobs : 1}, NULL, err);
	if (rc < 0) {
		gtr_mmu_abort(r);
		return rc;
	}
	return gtr_mmu_end(r, out, err);
}
