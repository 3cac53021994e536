/* core/analysis/diff.c: metrics of a trace, thresholds and their comparison. */
#include "core/analysis/diff.h"
#include "core/analysis/greedy.h"
#include "core/analysis/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct metric_desc {
	const char *name, *label;
	int time;
	double def; /* default threshold, < 0 none */
} metric_desc;

static const metric_desc descs[GTR_METRICS_ALL] = {
	[GTR_M_TMAX_STW] = {"tmax_stw", "Tmax_stw", 1, 20},
	[GTR_M_STW_COUNT] = {"stw_count", "STW count", 0, -1},
	[GTR_M_STW_P50] = {"stw_p50", "STW p50", 1, -1},
	[GTR_M_STW_P99] = {"stw_p99", "STW p99", 1, 20},
	[GTR_M_STW_MAX] = {"stw_max", "STW max", 1, -1},
	[GTR_M_SLICES] = {"slices", "slices", 0, -1},
	[GTR_M_MAX_SLICE] = {"max_slice", "max slice", 1, 20},
	[GTR_M_SLICE_P50] = {"slice_p50", "slice p50", 1, -1},
	[GTR_M_SLICE_P99] = {"slice_p99", "slice p99", 1, -1},
	[GTR_M_EXEC] = {"exec", "exec time", 1, -1},
	[GTR_M_SCHED_WAIT] = {"sched_wait", "sched wait", 1, -1},
	[GTR_M_BLOCK] = {"block", "block time", 1, -1},
	[GTR_M_SYSCALL] = {"syscall", "syscall time", 1, -1},
	[GTR_M_GC_ASSIST] = {"gc_assist", "GC assist", 1, -1},
	[GTR_FM_EXEC] = {"func_exec", "exec time of", 1, -1},
	[GTR_FM_MAX_SLICE] = {"func_max_slice", "max slice of", 1, -1},
};

const char *gtr_metric_name(int m)
{
	return m >= 0 && m < GTR_METRICS_ALL ? descs[m].name : "?";
}

const char *gtr_metric_label(int m)
{
	return m >= 0 && m < GTR_METRICS_ALL ? descs[m].label : "?";
}

int gtr_metric_is_time(int m)
{
	return m >= 0 && m < GTR_METRICS_ALL && descs[m].time;
}

int gtr_metric_lookup(const char *name)
{
	for (int i = 0; i < GTR_METRICS_ALL; i++)
		if (strcmp(descs[i].name, name) == 0)
			return i;
	return -1;
}


/* --- computing --- */

static char *dup_str(gtr_str s)
{
	char *p = malloc(s.n + 1);
	if (p) {
		if (s.n)
			memcpy(p, s.p, s.n);
		p[s.n] = 0;
	}
	return p;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static gtr_str func_of_g(const gtr_stats *s, int64_t g)
{
	size_t lo = 0, hi = s->ngs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->gs[mid].id < g)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->ngs && s->gs[lo].id == g ? s->gs[lo].func : GTR_STR("?");
}

void gtr_metrics_free(gtr_metrics *m)
{
	for (size_t i = 0; i < m->ntop; i++)
		free(m->top[i].func);
	for (size_t i = 0; i < m->nfuncs; i++)
		free(m->funcs[i].func);
	free(m->top);
	free(m->funcs);
	memset(m, 0, sizeof *m);
}

static int fill(gtr_metrics *m, const gtr_trace *t, const gtr_greedy *g, const gtr_stats *s)
{
	const gtr_trace_info *info = gtr_trace_get_info(t);
	m->version = info->version;
	m->family = info->family;
	snprintf(m->runtime, sizeof m->runtime, "%s", s->runtime_version);
	m->span_ns = g->last_ts - g->first_ts;
	m->events = g->events;
	m->maxprocs = g->maxprocs;
	m->v[GTR_M_TMAX_STW] = g->tmax_stw;
	if (g->nstw) {
		uint64_t *d = malloc(g->nstw * sizeof *d);
		if (!d)
			return GTR_E_NOMEM;
		for (size_t i = 0; i < g->nstw; i++)
			d[i] = g->stw[i].end - g->stw[i].start;
		qsort(d, g->nstw, sizeof *d, cmp_u64);
		m->v[GTR_M_STW_COUNT] = g->nstw;
		m->v[GTR_M_STW_P50] = gtr_percentile(d, g->nstw, 50);
		m->v[GTR_M_STW_P99] = gtr_percentile(d, g->nstw, 99);
		m->v[GTR_M_STW_MAX] = d[g->nstw - 1];
		free(d);
	}
	m->v[GTR_M_SLICES] = g->nslices;
	m->v[GTR_M_MAX_SLICE] = g->ntop ? gtr_slice_dur(&g->top[0]) : 0;
	m->v[GTR_M_SLICE_P50] = gtr_hist_percentile(&s->slices, 50);
	m->v[GTR_M_SLICE_P99] = gtr_hist_percentile(&s->slices, 99);
	m->v[GTR_M_EXEC] = s->total.exec;
	m->v[GTR_M_SCHED_WAIT] = s->total.sched_wait;
	m->v[GTR_M_BLOCK] = gtr_times_block(&s->total);
	m->v[GTR_M_SYSCALL] = s->total.syscall;
	m->v[GTR_M_GC_ASSIST] = s->total.gc_assist;
	memset(m->known, 1, sizeof m->known);

	m->top = calloc(g->ntop ? g->ntop : 1, sizeof *m->top);
	m->funcs = calloc(s->nfs ? s->nfs : 1, sizeof *m->funcs);
	if (!m->top || !m->funcs)
		return GTR_E_NOMEM;
	for (size_t i = 0; i < g->ntop; i++, m->ntop++) {
		const gtr_slice *sl = &g->top[i];
		gtr_top_slice *ts = &m->top[i];
		ts->duration = gtr_slice_dur(sl);
		ts->g = sl->g;
		ts->truncated = sl->truncated;
		if (!(ts->func = dup_str(func_of_g(s, sl->g))))
			return GTR_E_NOMEM;
	}
	for (size_t i = 0; i < s->nfs; i++, m->nfuncs++) {
		const gtr_fstats *f = &s->fs[i];
		gtr_func_metrics *fm = &m->funcs[i];
		fm->goroutines = f->goroutines;
		fm->exec = f->t.exec;
		fm->max_slice = f->slices.max;
		fm->slices = f->slices.count;
		if (!(fm->func = dup_str(f->func)))
			return GTR_E_NOMEM;
	}
	return 0;
}

int gtr_metrics_fill(gtr_metrics *m, const gtr_trace *t, const gtr_greedy *g, const gtr_stats *s)
{
	memset(m, 0, sizeof *m);
	int rc = fill(m, t, g, s);
	if (rc < 0)
		gtr_metrics_free(m);
	return rc;
}

static int cmp_func(const void *a, const void *b)
{
	return strcmp(((const gtr_func_metrics *)a)->func, ((const gtr_func_metrics *)b)->func);
}

void gtr_metrics_sort_funcs(gtr_metrics *m)
{
	if (m->nfuncs > 1)
		qsort(m->funcs, m->nfuncs, sizeof *m->funcs, cmp_func);
}

const gtr_func_metrics *gtr_metrics_func(const gtr_metrics *m, const char *func)
{
	size_t lo = 0, hi = m->nfuncs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->funcs[mid].func, func);
		if (c == 0)
			return &m->funcs[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* --- thresholds and comparison --- */

void gtr_thresholds_default(gtr_thresholds *th)
{
	for (int i = 0; i < GTR_METRICS_ALL; i++)
		th->pct[i] = descs[i].def;
	th->min_delta = 0;
}

int gtr_thresholds_parse(gtr_thresholds *th, const char *spec, char *why, size_t cap)
{
	char buf[512];
	if (strlen(spec) >= sizeof buf) {
		snprintf(why, cap, "threshold list too long");
		return -1;
	}
	strcpy(buf, spec);
	char *save = NULL;
	for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		if (!eq) {
			snprintf(why, cap, "'%s' is not METRIC=PERCENT", item);
			return -1;
		}
		*eq = 0;
		int m = gtr_metric_lookup(item);
		if (m < 0) {
			snprintf(why, cap, "unknown metric '%s'", item);
			return -1;
		}
		const char *val = eq + 1;
		if (strcmp(val, "off") == 0) {
			th->pct[m] = -1;
			continue;
		}
		char *end;
		errno = 0;
		double pct = strtod(val, &end);
		if (*end == '%')
			end++;
		if (end == val || *end || errno || !(pct >= 0) || pct > 1e9) {
			snprintf(why, cap, "'%s' is not a percentage (such as 20, 12.5%% or off)", val);
			return -1;
		}
		th->pct[m] = pct;
	}
	return 0;
}

static gtr_verdict judge(int metric, uint64_t base, uint64_t cur, double pct, uint64_t min_delta)
{
	uint64_t floor = gtr_metric_is_time(metric) ? min_delta : 0;
	if (cur > base && cur - base > floor &&
	    (base == 0 || (double)cur > (double)base * (1.0 + pct / 100.0)))
		return GTR_WORSE;
	/* The mirror image: better exactly when going back would be worse. */
	if (cur < base && base - cur > floor && (double)cur * (1.0 + pct / 100.0) < (double)base)
		return GTR_BETTER;
	return GTR_SAME;
}

double gtr_pct_of(uint64_t base, uint64_t cur)
{
	if (base == 0)
		return cur ? INFINITY : 0;
	return ((double)cur - (double)base) / (double)base * 100.0;
}

static int add_change(gtr_change **out, size_t *n, size_t *cap, gtr_change c)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		gtr_change *nc = realloc(*out, ncap * sizeof *nc);
		if (!nc)
			return GTR_E_NOMEM;
		*out = nc;
		*cap = ncap;
	}
	(*out)[(*n)++] = c;
	return 0;
}

int gtr_compare(const gtr_metrics *base, const gtr_metrics *cur, const gtr_thresholds *th,
		gtr_change **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	int worse = 0, better = 0;
	for (int m = 0; m < GTR_M_N; m++) {
		if (th->pct[m] < 0 || !base->known[m] || !cur->known[m])
			continue;
		gtr_change c = {.metric = m, .base = base->v[m], .cur = cur->v[m], .threshold = th->pct[m]};
		c.pct = gtr_pct_of(c.base, c.cur);
		c.verdict = judge(m, c.base, c.cur, c.threshold, th->min_delta);
		worse |= c.verdict == GTR_WORSE;
		better |= c.verdict == GTR_BETTER;
		if (add_change(out, n, &cap, c) < 0)
			goto nomem;
	}
	for (int m = GTR_FM_EXEC; m <= GTR_FM_MAX_SLICE; m++) {
		if (th->pct[m] < 0)
			continue;
		for (size_t i = 0; i < cur->nfuncs; i++) {
			const gtr_func_metrics *fc = &cur->funcs[i];
			const gtr_func_metrics *fb = gtr_metrics_func(base, fc->func);
			if (!fb)
				continue; /* a new function is not a regression */
			gtr_change c = {.metric = m, .func = fc->func, .threshold = th->pct[m]};
			c.base = m == GTR_FM_EXEC ? fb->exec : fb->max_slice;
			c.cur = m == GTR_FM_EXEC ? fc->exec : fc->max_slice;
			c.pct = gtr_pct_of(c.base, c.cur);
			c.verdict = judge(m, c.base, c.cur, c.threshold, th->min_delta);
			if (c.verdict == GTR_SAME)
				continue;
			worse |= c.verdict == GTR_WORSE;
			better |= c.verdict == GTR_BETTER;
			if (add_change(out, n, &cap, c) < 0)
				goto nomem;
		}
	}
	return worse ? GTR_WORSE : better ? GTR_BETTER : GTR_SAME;
nomem:
	free(*out);
	*out = NULL;
	*n = 0;
	return GTR_E_NOMEM;
}
