/*
 * core/analysis/diff.h: the figures two traces are compared on, and the comparison.
 *
 * gtr_metrics_compute runs the greedy analysis (core/analysis/greedy.h) and the
 * goroutine analysis (core/analysis/stats.h) over a trace and keeps what `gtr
 * diff` and `gtr check` compare: Tmax_stw, the measured pauses (count,
 * p50, p99, max), the slices (count, p50, p99, max), the time totals, the
 * top slices with their functions, and each start function's execution
 * time and longest slice. A gtr_metrics owns all its memory and no longer
 * needs the trace: it can outlive it, and be moved between threads.
 *
 * gtr_compare_runs compares two sets of runs of one case (a baseline and
 * this time, or A and B), metric by metric, on the medians:
 *
 * - with enough runs on both sides for the Mann-Whitney U test to reach
 *   alpha (4 and 4 at 0.05), a metric changed only when the test says
 *   so at the case's level (alpha, split with Holm's step-down method
 *   over the trace's totals compared, and again over the functions'
 *   figures, so that a case with many metrics is not more likely to fail
 *   by chance) and its median moved by more than its threshold and, for
 *   a duration, by more than the minimum delta (a share: min_share);
 * - with fewer (one run a side, say), the verdict is not statistical:
 *   only the metrics marked stable enough for it (gtr_thresholds.few)
 *   are held to their thresholds.
 *
 * A metric regresses when it grows past its threshold (in percent of the
 * baseline's median) and improves when the change back would be a
 * regression (it shrinks below 1/(1 + pct/100)), so that swapping the
 * two sides swaps the verdicts.
 */
#ifndef GTR_CORE_DIFF_H
#define GTR_CORE_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/greedy.h"
#include "core/analysis/stats.h"
#include "core/trace/trace.h"
#include "io/out.h"

/* Trace-level metrics, then the per-function ones (GTR_FM_*). */
typedef enum gtr_metric {
	GTR_M_TMAX_STW = 0, /* sum of the top GOMAXPROCS slices */
	GTR_M_STW_COUNT,    /* measured stop-the-world pauses */
	GTR_M_STW_P50,
	GTR_M_STW_P99,
	GTR_M_STW_MAX,
	GTR_M_SLICES,       /* on-processor slices */
	GTR_M_MAX_SLICE,
	GTR_M_SLICE_P50,    /* from the histogram: within 0.8% */
	GTR_M_SLICE_P99,
	GTR_M_EXEC,         /* time totals over all goroutines (core/analysis/stats.h) */
	GTR_M_SCHED_WAIT,
	GTR_M_BLOCK,
	GTR_M_SYSCALL,
	GTR_M_GC_ASSIST,
	GTR_M_STW_TIME,     /* time in stop-the-world: the measured pauses added up */
	/*
	 * Ratios to the execution time (ppm), derived from the totals above
	 * (gtr_metrics_derive): a machine that is busier, slower or faster
	 * stretches a trace's times together, and a ratio of two of them
	 * holds still where the times do not.
	 */
	GTR_M_STW_PER_EXEC,    /* stw_time / exec */
	GTR_M_ASSIST_PER_EXEC, /* gc_assist / exec */
	GTR_M_WAIT_PER_EXEC,   /* sched_wait / exec */
	GTR_M_N,
	GTR_FM_EXEC = GTR_M_N, /* a start function's execution time */
	GTR_FM_MAX_SLICE,      /* a start function's longest slice */
	GTR_FM_SHARE,          /* a start function's share of all execution time (ppm) */
	GTR_METRICS_ALL
} gtr_metric;

/* "tmax_stw", "max_slice", ... as --threshold and the JSON reports name them. */
const char *gtr_metric_name(int m);
/* "Tmax_stw", "max slice", ... for people. */
const char *gtr_metric_label(int m);
/* 1 for durations in ns, 0 for counts and shares. */
int gtr_metric_is_time(int m);
/* 1 for shares and ratios, in parts per million. */
int gtr_metric_is_share(int m);
/* 1 for the ratios computed from other metrics: not stored in baselines, derived on reading. */
int gtr_metric_is_derived(int m);
/* "ns", "count" or "ppm". */
const char *gtr_metric_unit(int m);
/* The metric called `name`, or -1. */
int gtr_metric_lookup(const char *name);


typedef struct gtr_func_metrics {
	char *func;
	uint64_t goroutines;
	uint64_t exec;      /* ns */
	uint64_t max_slice; /* ns */
	uint64_t slices;
} gtr_func_metrics;

typedef struct gtr_top_slice {
	char *func;
	uint64_t duration; /* ns */
	int64_t g;
	int truncated;
} gtr_top_slice;

typedef struct gtr_metrics {
	int version;          /* N of "go 1.N trace" */
	int family;           /* gtr_family */
	char runtime[32];     /* "go1.22.3" when the trace says, else "" */
	uint64_t span_ns, events, maxprocs;
	uint64_t v[GTR_M_N];  /* indexed by gtr_metric */
	uint8_t known[GTR_M_N]; /* 0: not recorded (an older baseline) */
	gtr_top_slice *top;   /* longest first */
	size_t ntop;
	gtr_func_metrics *funcs; /* sorted by name (bytewise) */
	size_t nfuncs;
	int partial;          /* the trace was read in part (cut, or damaged and read leniently) */
} gtr_metrics;

/*
 * Fills *m for trace t, keeping its `ntop` longest slices. Returns 0 or a
 * negative gtr_errcode with *err filled (*m is then empty). Free with
 * gtr_metrics_free. t may be shared between threads.
 */
int gtr_metrics_compute(const gtr_trace *t, size_t ntop, gtr_metrics *m, gtr_error *err);

/* gtr_metrics_compute on the engine with `jobs` threads (core/analysis/analyze.c). */
int gtr_metrics_compute_jobs(const gtr_trace *t, size_t ntop, unsigned jobs, gtr_metrics *m,
			     gtr_error *err);

/* Fills *m from a greedy result and the stats rows of its top goroutines. */
int gtr_metrics_fill(gtr_metrics *m, const gtr_trace *t, const gtr_greedy *g, const gtr_stats *s);

/* Frees what *m owns and zeroes it; fine on a zeroed gtr_metrics. */
void gtr_metrics_free(gtr_metrics *m);

/* The function `func` of m, or NULL. */
const gtr_func_metrics *gtr_metrics_func(const gtr_metrics *m, const char *func);

/* Sets the derived ratios (GTR_M_*_PER_EXEC) from the totals they are made of, where known. */
void gtr_metrics_derive(gtr_metrics *m);

/* Sorts m->funcs by name; for metrics built by hand (a baseline being read). */
void gtr_metrics_sort_funcs(gtr_metrics *m);

/* A start function's share of all execution time, in ppm. */
uint64_t gtr_func_share(const gtr_metrics *m, const gtr_func_metrics *f);

/* A function's share is compared only where it is at least this on a side (5%, in ppm). */
#define GTR_FUNC_MIN_SHARE 50000

typedef struct gtr_thresholds {
	double pct[GTR_METRICS_ALL]; /* percent; < 0: not checked */
	uint8_t few[GTR_METRICS_ALL]; /* 1: checked also when the runs are too few for the test */
	uint64_t min_delta;          /* a duration must also change by more than this (ns) */
	uint64_t min_share;          /* a share must also change by more than this (ppm) */
	double alpha;                /* the U test's level for a whole case */
} gtr_thresholds;

/*
 * The defaults, chosen by measuring unchanged reruns (tests/gatetest.sh):
 * +20% on exec, sched_wait, stw_time, gc_assist and func_share, alpha
 * 0.05, min delta 1 ms, min share 1 point; none stable enough for a
 * verdict without statistics.
 */
void gtr_thresholds_default(gtr_thresholds *th);

/*
 * Applies "metric=pct[,metric=pct...]" (pct a number, optionally with %,
 * or "off"). A threshold given so also applies with too few runs for the
 * test. Returns 0, or -1 with a reason in why.
 */
int gtr_thresholds_parse(gtr_thresholds *th, const char *spec, char *why, size_t cap);

/*
 * The runs a side the U test needs to call a change of a trace's metric
 * at alpha, Holm's method over the trace's metrics gated (5 for 3 at 0.05).
 */
size_t gtr_thresholds_min_runs(const gtr_thresholds *th);

/* Parses alpha for --alpha: a number in (0, 0.5]. Returns 0 or -1. */
int gtr_alpha_parse(const char *s, double *alpha);

typedef enum gtr_verdict {
	GTR_SAME = 0,
	GTR_WORSE = 1,
	GTR_BETTER = -1,
} gtr_verdict;

typedef struct gtr_change {
	int metric;          /* gtr_metric */
	const char *func;    /* for GTR_FM_*: the function (owned by the compared metrics) */
	uint64_t base, cur;  /* the medians (with one run, its value) */
	double pct;          /* (cur - base) / base * 100; meaningless when base == 0 */
	double threshold;    /* percent */
	gtr_verdict verdict;
	size_t nb, nc;       /* runs on each side */
	double p;            /* the U test's p-value; -1 when the runs are too few for it */
	double level;        /* what p had to be below (alpha after Holm's split) */
	int significant;     /* p < level */
	double lo_b, hi_b, lo_c, hi_c; /* 95% intervals of the medians; valid when has_ci_* */
	int has_ci_b, has_ci_c;
} gtr_change;

/* How a case was compared. */
typedef enum gtr_cmp_mode {
	GTR_CMP_STAT = 0, /* the U test, enough runs on both sides */
	GTR_CMP_FEW,      /* too few runs for it: thresholds on the stable metrics only */
} gtr_cmp_mode;

typedef struct gtr_cmp_info {
	gtr_cmp_mode mode;
	size_t nb, nc;  /* runs */
	size_t need;    /* runs per side the test needs at this alpha */
	size_t tested;  /* metrics the test was run on (Holm's family) */
	size_t funcs_untested; /* functions' figures past what the runs can test (see gtr_compare_runs) */
	double alpha;
} gtr_cmp_info;

/*
 * Compares the runs cur[0..nc) against base[0..nb) (each at least one).
 * *out receives the trace-level changes checked (whatever their verdict)
 * and the per-function ones that changed; free it with free(). *info (may
 * be NULL) says how. Returns the verdict: GTR_WORSE when anything
 * regressed, GTR_BETTER when something improved and nothing regressed,
 * else GTR_SAME; GTR_E_NOMEM on failure.
 */
int gtr_compare_runs(const gtr_metrics *const *base, size_t nb, const gtr_metrics *const *cur,
		     size_t nc, const gtr_thresholds *th, gtr_change **out, size_t *n,
		     gtr_cmp_info *info);

/* gtr_compare_runs of one run against one. */
int gtr_compare(const gtr_metrics *base, const gtr_metrics *cur, const gtr_thresholds *th,
		gtr_change **out, size_t *n);

/* The change from base to cur in percent: +inf from 0 to more, 0 from 0 to 0. */
double gtr_pct_of(uint64_t base, uint64_t cur);

#endif
