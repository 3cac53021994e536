/*
 * tests/test_views.c: the analyses of gtr tasks, regions, mmu and
 * goroutine on real traces: what holds whatever the trace (their figures
 * are compared with Go's by tests/viewstest.sh).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/goroutine.h"
#include "core/analysis/mmu.h"
#include "core/analysis/stats.h"
#include "core/analysis/tasks.h"
#include "io/map.h"

typedef struct opened {
	gtr_map m;
	gtr_trace *t;
} opened;

static int open_rel(opened *o, const char *rel)
{
	char path[4096];
	const char *root = getenv("GTR_ROOT");
	snprintf(path, sizeof path, "%s/%s", root ? root : ".", rel);
	if (gtr_map_open(&o->m, path, GTR_IO_AUTO) < 0)
		return -1;
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_trace_open(&o->t, o->m.data, o->m.size, NULL, &e), 0, "%s: %s", rel, e.msg);
	return 0;
}

static void close_rel(opened *o)
{
	gtr_trace_free(o->t);
	gtr_map_close(&o->m);
}

static const char *const annotated[] = {
	"corpora/traces/annotations-go1.15.trace", "corpora/traces/annotations-go1.21.trace",
	"corpora/traces/annotations-go1.22.trace", "corpora/traces/annotations-go1.26.trace",
	"corpora/traces/tasks-go1.26.trace",
};

/* Counts add up, percentiles are ordered, the longest come first and are what the types say. */
Test(tasks, figures_are_consistent)
{
	for (size_t i = 0; i < sizeof annotated / sizeof annotated[0]; i++) {
		opened o;
		if (open_rel(&o, annotated[i]) < 0)
			cr_skip_test("%s is missing", annotated[i]);
		gtr_error e;
		gtr_error_clear(&e);
		gtr_annot *a;
		gtr_annot_opts opts = {.top = 1000000};
		cr_assert_eq(gtr_annot_run(o.t, &opts, &a, &e), 0, "%s", e.msg);
		cr_assert_gt(a->ntasks, 0, "%s: no tasks", annotated[i]);
		uint64_t count = 0, complete = 0, regions = 0, rcomplete = 0;
		for (size_t k = 0; k < a->ntask_types; k++) {
			const gtr_annot_type *ty = &a->task_types[k];
			count += ty->count;
			complete += ty->complete;
			cr_assert(ty->p50_ns <= ty->p90_ns && ty->p90_ns <= ty->p99_ns && ty->p99_ns <= ty->max_ns);
			cr_assert(ty->max_ns <= ty->total_ns);
		}
		for (size_t k = 0; k < a->nregion_types; k++) {
			regions += a->region_types[k].count;
			rcomplete += a->region_types[k].complete;
		}
		cr_assert_eq(count, a->ntasks);
		cr_assert_eq(regions, a->nregions);
		/* -n larger than all: every complete one is listed, longest first. */
		cr_assert_eq(a->ntop_tasks, complete, "%s", annotated[i]);
		cr_assert_eq(a->ntop_regions, rcomplete, "%s", annotated[i]);
		for (size_t k = 1; k < a->ntop_tasks; k++)
			cr_assert_geq(a->top_tasks[k - 1].end - a->top_tasks[k - 1].start,
				      a->top_tasks[k].end - a->top_tasks[k].start);
		for (size_t k = 1; k < a->ntop_regions; k++)
			cr_assert_geq(a->top_regions[k - 1].end - a->top_regions[k - 1].start,
				      a->top_regions[k].end - a->top_regions[k].start);
		/* Every listed task is found by its id, with the same times. */
		uint64_t logs = 0;
		for (size_t k = 0; k < a->ntop_tasks; k++) {
			const gtr_task *tk = gtr_annot_task(a, a->top_tasks[k].id);
			cr_assert_not_null(tk);
			cr_assert_eq(tk->start, a->top_tasks[k].start);
		}
		for (size_t k = 0; k < a->ntasks_kept; k++)
			logs += a->tasks[k].nlogs;
		cr_assert_eq(logs + a->nlogs_notask, a->nlogs);
		gtr_annot_free(a);
		close_rel(&o);
	}
}

/* Collecting a task's logs keeps exactly as many as the task counts, in time order. */
Test(tasks, collected_logs)
{
	opened o;
	if (open_rel(&o, annotated[3]) < 0)
		cr_skip_test("missing");
	gtr_error e;
	gtr_error_clear(&e);
	gtr_annot *a, *b;
	gtr_annot_opts opts = {.top = 5};
	cr_assert_eq(gtr_annot_run(o.t, &opts, &a, &e), 0, "%s", e.msg);
	uint64_t ids[5];
	for (size_t k = 0; k < a->ntop_tasks; k++)
		ids[k] = a->top_tasks[k].id;
	for (size_t k = 1; k < a->ntop_tasks; k++) /* sorted, as collect wants */
		for (size_t j = k; j > 0 && ids[j - 1] > ids[j]; j--) {
			uint64_t x = ids[j];
			ids[j] = ids[j - 1];
			ids[j - 1] = x;
		}
	opts.collect = ids;
	opts.ncollect = a->ntop_tasks;
	cr_assert_eq(gtr_annot_run(o.t, &opts, &b, &e), 0, "%s", e.msg);
	uint64_t want = 0, rwant = 0;
	for (size_t k = 0; k < a->ntop_tasks; k++) {
		want += a->top_tasks[k].nlogs;
		rwant += a->top_tasks[k].nregions;
	}
	cr_assert_eq(b->nlogs_kept, want);
	cr_assert_eq(b->nregions_kept, rwant);
	for (size_t k = 1; k < b->nlogs_kept; k++)
		cr_assert(b->logs[k - 1].task < b->logs[k].task ||
			  (b->logs[k - 1].task == b->logs[k].task && b->logs[k - 1].ts <= b->logs[k].ts));
	gtr_annot_free(a);
	gtr_annot_free(b);
	close_rel(&o);
}

static const char *const gc[] = {
	"corpora/traces/gcpressure-go1.15.trace", "corpora/traces/gcpressure-go1.19.trace",
	"corpora/traces/gcpressure-go1.21.trace", "corpora/traces/gcpressure-go1.22.trace",
	"corpora/traces/gcpressure-go1.26.trace", "corpora/traces/greedy-coarse-go1.26.trace",
};

/*
 * Counting more as GC never leaves the program more; a P's own
 * utilization is never better than the system's, where GOMAXPROCS does
 * not change (a system window's mean is the mean of the Ps'); the whole
 * span's MMU is the function's mean.
 */
Test(mmu, orders_between_variants)
{
	for (size_t i = 0; i < sizeof gc / sizeof gc[0]; i++) {
		opened o;
		if (open_rel(&o, gc[i]) < 0)
			cr_skip_test("%s is missing", gc[i]);
		gtr_error e;
		gtr_error_clear(&e);
		unsigned variants[] = {GTR_MMU_STW, GTR_MMU_STW | GTR_MMU_ASSIST, GTR_MMU_DEFAULT,
				       GTR_MMU_DEFAULT | GTR_MMU_SWEEP};
		gtr_mmu *m[4], *perp;
		for (size_t v = 0; v < 4; v++) {
			gtr_mmu_opts mo = {.flags = variants[v]};
			cr_assert_eq(gtr_mmu_run(o.t, &mo, &m[v], &e), 0, "%s", e.msg);
			cr_assert_gt(m[v]->npoints, 5);
			for (size_t p = 0; p < m[v]->npoints; p++) {
				cr_assert(m[v]->points[p].mmu >= 0 && m[v]->points[p].mmu <= 1);
				if (v)
					cr_assert_leq(m[v]->points[p].mmu, m[v - 1]->points[p].mmu + 1e-12,
						      "%s: variant %zu window %llu", gc[i], v,
						      (unsigned long long)m[v]->points[p].window_ns);
			}
		}
		gtr_mmu_opts mo = {.flags = GTR_MMU_DEFAULT | GTR_MMU_PER_P};
		cr_assert_eq(gtr_mmu_run(o.t, &mo, &perp, &e), 0, "%s", e.msg);
		for (size_t p = 0; p < perp->npoints && p < m[2]->npoints; p++)
			cr_assert_leq(perp->points[p].mmu, m[2]->points[p].mmu + 1e-9, "%s window %llu", gc[i],
				      (unsigned long long)perp->points[p].window_ns);
		/* A window where the worst is, no other gives less: shift it and look. */
		for (size_t p = 0; p < m[2]->npoints; p++) {
			uint64_t w = m[2]->points[p].window_ns, at;
			double mu = gtr_mmu_at(m[2], w, &at);
			cr_assert_eq(mu, m[2]->points[p].mmu);
			cr_assert_geq(at, m[2]->start_ns);
			cr_assert_leq(at + (w < m[2]->end_ns - m[2]->start_ns ? w : m[2]->end_ns - m[2]->start_ns),
				      m[2]->end_ns);
		}
		for (size_t v = 0; v < 4; v++)
			gtr_mmu_free(m[v]);
		gtr_mmu_free(perp);
		close_rel(&o);
	}
}

/* A goroutine's state times add up to its life, and its Running time is what gtr stats counts. */
Test(goroutine, states_add_up_and_match_stats)
{
	const char *rel = "corpora/traces/churn-go1.26.trace";
	opened o;
	if (open_rel(&o, rel) < 0)
		cr_skip_test("missing");
	gtr_error e;
	gtr_error_clear(&e);
	gtr_stats *s;
	gtr_stats_keep keep = {.all = 1};
	cr_assert_eq(gtr_stats_run(o.t, &keep, &s, &e), 0, "%s", e.msg);
	size_t checked = 0;
	for (size_t i = 0; i < s->ngs && checked < 12; i += 1 + s->ngs / 12) {
		const gtr_gstats *gs = &s->gs[i];
		gtr_goroutine *g;
		gtr_goroutine_opts go = {.id = gs->id, .max_trans = 10, .top_slices = 3};
		cr_assert_eq(gtr_goroutine_run(o.t, &go, &g, &e), 0, "%s", e.msg);
		cr_assert(g->found);
		cr_assert_eq(g->state_ns[GTR_GS_RUNNING], gs->t.exec, "G%lld: %llu against %llu",
			     (long long)gs->id, (unsigned long long)g->state_ns[GTR_GS_RUNNING],
			     (unsigned long long)gs->t.exec);
		cr_assert_eq(g->nslices, gs->slices.count);
		uint64_t sum = 0;
		for (int k = 0; k < GTR_GSTATES; k++)
			sum += g->state_ns[k];
		if (g->exited_ns >= 0) {
			int64_t born = g->created_ns >= 0 ? g->created_ns : g->first_ns;
			cr_assert_eq(sum, (uint64_t)(g->exited_ns - born), "G%lld", (long long)gs->id);
		}
		uint64_t nt = 0;
		for (int a = 0; a < GTR_GSTATES; a++)
			for (int b = 0; b < GTR_GSTATES; b++)
				nt += g->pair[a][b];
		cr_assert_eq(nt, g->ntrans);
		cr_assert_leq(g->ntrans_kept, 10);
		gtr_goroutine_free(g);
		checked++;
	}
	cr_assert_gt(checked, 5);
	gtr_stats_free(s);
	close_rel(&o);
}
