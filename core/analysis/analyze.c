/* core/analysis/analyze.c: the analyses a command asks for, as sinks of one read. */
#include "core/analysis/analyze.h"
#include "core/analysis/scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gtr_analyze(const gtr_trace *t, const gtr_analyze_opts *o, gtr_analysis *a, gtr_error *err)
{
	memset(a, 0, sizeof *a);
	gtr_greedy_acc *g = NULL, *mg = NULL;
	gtr_stats_acc *s = NULL, *ms = NULL;
	gtr_timeline_acc *tl = NULL;
	gtr_zoom_acc *zm = NULL;
	gtr_annot_acc *an = NULL;
	gtr_mmu_acc *mu = NULL;
	gtr_sink sinks[8];
	size_t n = 0;
	gtr_greedy *mgres = NULL;
	gtr_stats *msres = NULL;
	int rc = 0;
	if (o->greedy_top && (rc = gtr_greedy_begin(t, o->greedy_top, &g, err)) == 0)
		sinks[n++] = gtr_greedy_sink(g);
	if (rc == 0 && o->stats && (rc = gtr_stats_begin(t, o->stats, &s, err)) == 0)
		sinks[n++] = gtr_stats_sink(s);
	if (rc == 0 && o->timeline && (rc = gtr_timeline_begin(t, o->timeline, &tl, err)) == 0)
		sinks[n++] = gtr_timeline_sink(tl);
	if (rc == 0 && o->zoom && (rc = gtr_zoom_begin(t, o->zoom, &zm, err)) == 0)
		sinks[n++] = gtr_zoom_sink(zm);
	if (rc == 0 && o->annot && (rc = gtr_annot_begin(t, o->annot, &an, err)) == 0)
		sinks[n++] = gtr_annot_sink(an);
	if (rc == 0 && o->mmu && (rc = gtr_mmu_begin(t, o->mmu, &mu, err)) == 0)
		sinks[n++] = gtr_mmu_sink(mu);
	if (rc == 0 && o->metrics_top) {
		/* The metrics name the goroutines of the top slices: the stats
		 * beside them keep the rows of those that ever made the top. */
		if ((rc = gtr_greedy_begin(t, o->metrics_top, &mg, err)) == 0 &&
		    (rc = gtr_greedy_track_top(mg)) < 0)
			gtr_error_set(err, rc, 0, "out of memory");
		gtr_stats_keep keep = {.pin = gtr_greedy_was_top, .pin_ctx = mg};
		if (rc == 0 && (rc = gtr_stats_begin(t, &keep, &ms, err)) == 0) {
			sinks[n++] = gtr_greedy_sink(mg);
			sinks[n] = gtr_stats_sink(ms);
			sinks[n++].with_prev = 1; /* it asks greedy's state as it goes */
		}
	}
	if (rc == 0)
		rc = gtr_engine_run(t, sinks, n, &(gtr_engine_opts){.jobs = o->jobs}, &a->engine, err);
	if (rc == 0 && g) {
		rc = gtr_greedy_end(g, &a->greedy, err);
		g = NULL;
	}
	if (rc == 0 && s) {
		rc = gtr_stats_end(s, &a->stats, err);
		s = NULL;
	}
	if (rc == 0 && tl) {
		rc = gtr_timeline_end(tl, &a->timeline, err);
		tl = NULL;
	}
	if (rc == 0 && zm) {
		rc = gtr_zoom_finish(zm, &a->zoom, err);
		zm = NULL;
	}
	if (rc == 0 && an) {
		rc = gtr_annot_end(an, &a->annot, err);
		an = NULL;
	}
	if (rc == 0 && mu) {
		rc = gtr_mmu_end(mu, &a->mmu, err);
		mu = NULL;
	}
	if (rc == 0 && mg) {
		gtr_greedy_close(mg);
		if ((rc = gtr_stats_end(ms, &msres, err)) == 0)
			rc = gtr_greedy_end(mg, &mgres, err);
		ms = NULL;
		mg = NULL;
		if (rc == 0) {
			rc = gtr_metrics_fill(&a->metrics, t, mgres, msres);
			if (rc < 0)
				gtr_error_set(err, rc, 0, "out of memory");
			else
				a->has_metrics = 1;
		}
	}
	gtr_greedy_abort(g);
	gtr_stats_abort(s);
	gtr_timeline_abort(tl);
	gtr_zoom_abort(zm);
	gtr_annot_abort(an);
	gtr_mmu_abort(mu);
	gtr_greedy_abort(mg);
	gtr_stats_abort(ms);
	gtr_greedy_free(mgres);
	gtr_stats_free(msres);
	if (rc < 0)
		gtr_analysis_free(a);
	return rc < 0 ? rc : 0;
}

void gtr_analysis_free(gtr_analysis *a)
{
	gtr_greedy_free(a->greedy);
	gtr_stats_free(a->stats);
	gtr_timeline_free(a->timeline);
	gtr_zoom_free(a->zoom);
	gtr_annot_free(a->annot);
	gtr_mmu_free(a->mmu);
	if (a->has_metrics)
		gtr_metrics_free(&a->metrics);
	memset(a, 0, sizeof *a);
}

int gtr_metrics_compute_jobs(const gtr_trace *t, size_t ntop, unsigned jobs, gtr_metrics *m,
			     gtr_error *err)
{
	gtr_analysis a;
	memset(m, 0, sizeof *m);
	int rc = gtr_analyze(t, &(gtr_analyze_opts){.jobs = jobs, .metrics_top = ntop ? ntop : 1}, &a,
			     err);
	if (rc < 0)
		return rc;
	*m = a.metrics;
	return 0;
}

int gtr_metrics_compute(const gtr_trace *t, size_t ntop, gtr_metrics *m, gtr_error *err)
{
	return gtr_metrics_compute_jobs(t, ntop, 1, m, err);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int gtr_metrics_compute_fast(const gtr_trace *t, size_t ntop, unsigned jobs, gtr_metrics *m,
			     gtr_metrics_fast_info *info, gtr_error *err)
{
	memset(m, 0, sizeof *m);
	if (info)
		memset(info, 0, sizeof *info);
	gtr_greedy *g = NULL;
	gtr_stats *s = NULL;
	gtr_scan_info si;
	gtr_stats_fast_info fi;
	int rc = gtr_scan_greedy(t, ntop ? ntop : 1, jobs, 0, &g, &si, err);
	if (rc < 0)
		return rc;
	/* The rows of the top slices' goroutines: the metrics name them. */
	int64_t *ids = malloc((g->ntop ? g->ntop : 1) * sizeof *ids);
	if (!ids) {
		gtr_greedy_free(g);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	size_t n = 0;
	for (size_t i = 0; i < g->ntop; i++)
		ids[n++] = g->top[i].g;
	qsort(ids, n, sizeof *ids, cmp_i64);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!u || ids[u - 1] != ids[i])
			ids[u++] = ids[i];
	gtr_stats_keep keep = {.ids = ids, .nids = u};
	rc = gtr_stats_fast(t, &keep, jobs, &s, &fi, err);
	if (rc == 0 && (rc = gtr_metrics_fill(m, t, g, s)) < 0)
		gtr_error_set(err, rc, 0, "out of memory");
	if (info) {
		info->greedy_ordered = si.ordered;
		info->stats_ordered = fi.ordered;
		snprintf(info->why, sizeof info->why, "%s%s%s", si.ordered ? si.why : "",
			 si.ordered && fi.ordered ? "; " : "", fi.ordered ? fi.why : "");
	}
	free(ids);
	gtr_greedy_free(g);
	gtr_stats_free(s);
	return rc < 0 ? rc : 0;
}
