/*
 * core/gate/check.h: many traces at once against a baseline, for CI.
 *
 * gtr_check_run processes a list of traces with a pool of threads, one
 * trace per worker at a time. Each worker maps its trace, computes the
 * content fingerprint (XXH3 64-bit, streamed over the mapped bytes),
 * opens it, and computes its gtr_metrics (core/analysis/diff.h); then it compares
 * them with the baseline entry of the same name. Workers share only the
 * read-only inputs, options and baseline, and write only their own
 * result slots; the next trace is handed out by an atomic counter.
 *
 * A trace that cannot be read becomes an error of that trace; the others
 * are still checked. Reports (text, JSON, JUnit XML) and the baseline
 * are written from the results by the functions below.
 */
#ifndef GTR_CORE_CHECK_H
#define GTR_CORE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/diff.h"
#include "core/gate/inputs.h"
#include "core/base/json.h"
#include "io/map.h"
#include "io/out.h"
#include "io/progress.h"
#include "simd/isa.h"

/* The inputs (gtr_check_input) and the walk below directories: core/gate/inputs.h. */

typedef struct gtr_baseline_entry {
	char *name;
	uint64_t fingerprint;
	int have_fingerprint;
	uint64_t bytes;
	gtr_metrics m;
} gtr_baseline_entry;

/* Entries sorted by name. Immutable once loaded: shared by the workers. */
typedef struct gtr_baseline {
	gtr_baseline_entry *e;
	size_t n;
} gtr_baseline;

/*
 * Reads a baseline (or a `check --report-json` report, which holds the
 * same per-trace objects) from a JSON span. 0, or GTR_E_CORRUPT /
 * GTR_E_NOMEM with *err filled.
 */
int gtr_baseline_parse(const char *text, size_t len, gtr_baseline **out, gtr_error *err);
/*
 * One entry of a baseline from its JSON object: 1 when read, 0 when the
 * object has nothing to compare against (no name or no metrics: an
 * unreadable trace in a report), GTR_E_NOMEM. *e owns what it holds
 * whatever the result; release with gtr_metrics_free(&e->m) and free(e->name).
 */
int gtr_baseline_entry_read(const gtr_json *obj, gtr_baseline_entry *e);
/*
 * The fields a baseline keeps of a trace, after its name: "fingerprint",
 * "bytes", "go", "metrics", "top_slices", "functions" (no braces around
 * them). gtr_baseline_entry_read reads them back.
 */
void gtr_baseline_write_fields(gtr_out *o, uint64_t fp, uint64_t bytes, const gtr_metrics *m);
void gtr_baseline_free(gtr_baseline *b);
const gtr_baseline_entry *gtr_baseline_find(const gtr_baseline *b, const char *name);

typedef enum gtr_check_status {
	GTR_CHECK_OK = 0,
	GTR_CHECK_NEW,       /* not in the baseline */
	GTR_CHECK_REGRESSED, /* a metric went past its threshold */
	GTR_CHECK_ERROR,     /* the trace could not be read */
} gtr_check_status;

typedef struct gtr_check_result {
	const gtr_check_input *in;
	gtr_check_status status;
	uint64_t fingerprint;
	uint64_t bytes;
	gtr_metrics m;                 /* when status is not ERROR */
	const gtr_baseline_entry *base; /* NULL when new */
	int changed;                   /* the fingerprint differs from the baseline's */
	gtr_change *changes;           /* gtr_compare against base */
	size_t nchanges;
	gtr_verdict verdict;
	char error[320];               /* one line, when status is ERROR */
	char warning[320];             /* one line, when a lenient read skipped something */
	double seconds;                /* wall time spent on this trace */
} gtr_check_result;

typedef struct gtr_check_opts {
	const gtr_baseline *baseline;  /* NULL: every trace is new */
	const gtr_thresholds *th;
	const gtr_kernels *kernels;    /* NULL: scalar */
	size_t ntop;                   /* top slices kept per trace */
	unsigned jobs;                 /* worker threads, >= 1 */
	gtr_io_mode io;
	gtr_progress *progress;        /* NULL: none */
	unsigned open_flags;           /* GTR_OPEN_* for every trace (0: strict) */
	uint64_t max_input;            /* a stream given as a trace: its limit (0: GTR_MAP_MAX_INPUT) */
} gtr_check_opts;

/*
 * A check is two steps: measure each trace (the expensive part, in
 * parallel, no baseline needed), then judge the measurements against the
 * baseline. A sharded check measures on many machines, carries the
 * measurements over in part files (core/gate/shard.h) and judges once.
 *
 * gtr_check_measure fills, for each of the n inputs, everything of its
 * result up to the comparison: fingerprint, bytes, metrics, error,
 * warning, seconds; status is GTR_CHECK_ERROR or, until judged,
 * GTR_CHECK_NEW. *out receives n results in input order (free with
 * gtr_check_results_free). Returns 0, or GTR_E_NOMEM when the pool could
 * not be set up; errors of single traces are in their results. Only
 * opts->baseline and opts->th are not used.
 */
int gtr_check_measure(const gtr_check_input *in, size_t n, const gtr_check_opts *opts,
		      gtr_check_result **out, gtr_error *err);
/*
 * Compares each measured result (not GTR_CHECK_ERROR) with the baseline
 * entry of its name (b may be NULL: every trace is new) and sets base,
 * changed, changes, verdict and status. The results must be sorted by
 * name, and b must outlive them.
 */
void gtr_check_judge(gtr_check_result *r, size_t n, const gtr_baseline *b,
		     const gtr_thresholds *th);
/* gtr_check_measure, then gtr_check_judge with opts->baseline and opts->th. */
int gtr_check_run(const gtr_check_input *in, size_t n, const gtr_check_opts *opts,
		  gtr_check_result **out, gtr_error *err);
void gtr_check_results_free(gtr_check_result *r, size_t n);

typedef struct gtr_check_summary {
	size_t traces, ok, regressed, errors, fresh, changed, unchanged;
	size_t not_checked; /* baseline entries that no input matched */
} gtr_check_summary;

void gtr_check_summarize(const gtr_check_result *r, size_t n, const gtr_baseline *b,
			 gtr_check_summary *s);

typedef struct gtr_check_report_opts {
	const char *baseline_path;
	const gtr_baseline *baseline;
	const gtr_thresholds *th;
	unsigned jobs;
	int updated;      /* the baseline was rewritten with these results */
	int exit_status;
	int quiet;        /* text: only problems and the summary */
	double seconds;   /* wall time of the whole check */
} gtr_check_report_opts;

/* One line per trace and a summary. */
void gtr_check_write_text(const gtr_check_result *r, size_t n, const gtr_check_report_opts *opts,
			  gtr_out *o);
/* The report as JSON, schema gtr.check.v1. */
void gtr_check_write_json(const gtr_check_result *r, size_t n, const gtr_check_report_opts *opts,
			  gtr_out *o);
/*
 * The traces of the report as JSON Lines, for a warehouse: one object per
 * trace, schema gtr.check.row.v1, holding "schema" and then the members
 * of that trace's object in the gtr.check.v1 report.
 */
void gtr_check_write_jsonl(const gtr_check_result *r, size_t n, gtr_out *o);
/* The report as JUnit XML: a test case per trace; regressions fail, unreadable traces error. */
void gtr_check_write_junit(const gtr_check_result *r, size_t n, const gtr_check_report_opts *opts,
			   gtr_out *o);
/*
 * The new baseline, schema gtr.baseline.v1: the results that have
 * metrics, and the entries of `old` that no result replaces (traces not
 * checked this time, or that could not be read).
 */
void gtr_check_write_baseline(const gtr_check_result *r, size_t n, const gtr_baseline *old,
			      gtr_out *o);

#endif
