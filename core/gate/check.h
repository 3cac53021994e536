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

/* One run in a baseline: its trace's fingerprint, size and figures. */
typedef struct gtr_baseline_entry {
	char *name;            /* a v1 baseline's trace name; may be NULL in v2 */
	uint64_t fingerprint;
	int have_fingerprint;
	uint64_t bytes;
	gtr_metrics m;
} gtr_baseline_entry;

/* A case of a baseline: its runs, oldest first. */
typedef struct gtr_baseline_case {
	char *name;
	gtr_baseline_entry *runs;
	size_t nruns;
} gtr_baseline_case;

/* Cases sorted by name. Immutable once loaded: shared by the workers. */
typedef struct gtr_baseline {
	gtr_baseline_case *c;
	size_t n;
	int schema;            /* 1: gtr.baseline.v1 (one run a trace), 2: gtr.baseline.v2 */
} gtr_baseline;

/* Runs a case keeps in a baseline unless told (--max-runs): the oldest go first. */
#define GTR_BASELINE_MAX_RUNS 10

/*
 * Reads a baseline from a JSON span: gtr.baseline.v2 (cases with runs),
 * gtr.baseline.v1 (a trace a case, one run each), or a `check
 * --report-json` report (gtr.check.v1 or v2). Everything is validated:
 * a wrong type, a missing field, an unknown schema, a byte order mark
 * give GTR_E_CORRUPT with err->off at the value and the JSON path in the
 * message ("$.cases[2].runs[0].metrics.exec_ns: ..."). GTR_E_NOMEM too.
 */
int gtr_baseline_parse(const char *text, size_t len, gtr_baseline **out, gtr_error *err);
/*
 * One run from its JSON object (a v1 trace, a v2 run, a report's run):
 * 1 when read, 0 when the object has nothing to compare against (no
 * metrics: an unreadable trace in a report), GTR_E_NOMEM. Does not
 * validate (gtr_baseline_parse does). *e owns what it holds whatever the
 * result; release with gtr_metrics_free(&e->m) and free(e->name).
 */
int gtr_baseline_entry_read(const gtr_json *obj, gtr_baseline_entry *e);
/*
 * The fields a baseline keeps of a run: "fingerprint", "bytes", "go",
 * "partial", "metrics", "top_slices", "functions" (no braces around them).
 * gtr_baseline_entry_read reads them back.
 */
void gtr_baseline_write_fields(gtr_out *o, uint64_t fp, uint64_t bytes, const gtr_metrics *m);
void gtr_baseline_free(gtr_baseline *b);
const gtr_baseline_case *gtr_baseline_find(const gtr_baseline *b, const char *name);

typedef enum gtr_check_status {
	GTR_CHECK_OK = 0,
	GTR_CHECK_NEW,       /* not in the baseline */
	GTR_CHECK_REGRESSED, /* a metric went past its threshold */
	GTR_CHECK_ERROR,     /* a trace of it could not be read */
	GTR_CHECK_MISSING,   /* in the baseline, but no trace of it was given */
} gtr_check_status;

/* One trace measured. */
typedef struct gtr_check_result {
	const gtr_check_input *in;
	gtr_check_status status;       /* ERROR, or OK once measured */
	uint64_t fingerprint;
	uint64_t bytes;
	gtr_metrics m;                 /* when status is not ERROR */
	char error[320];               /* one line, when status is ERROR */
	char warning[320];             /* one line, when a lenient read skipped something */
	double seconds;                /* wall time spent on this trace */
} gtr_check_result;

/* One case judged: its runs measured against its runs in the baseline. */
typedef struct gtr_check_case {
	const char *name;              /* the inputs' or the baseline's */
	const gtr_check_result *runs;  /* nruns results (none when MISSING) */
	size_t nruns;
	size_t errors, partial;        /* runs that could not be read; read in part */
	const gtr_baseline_case *base; /* NULL when new */
	gtr_check_status status;
	int changed;                   /* some fingerprint is not among the baseline's */
	gtr_change *changes;           /* gtr_compare_runs against base */
	size_t nchanges;
	gtr_cmp_info info;
	gtr_verdict verdict;
} gtr_check_case;

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
	int fast;                      /* measure without Go's global order (gtr_metrics_compute_fast) */
} gtr_check_opts;

/*
 * A check is two steps: measure each trace (the expensive part, in
 * parallel, no baseline needed), then judge the measurements against the
 * baseline, case by case.
 *
 * gtr_check_measure fills, for each of the n inputs, its result:
 * fingerprint, bytes, metrics, error, warning, seconds; status is
 * GTR_CHECK_ERROR or GTR_CHECK_OK. *out receives n results in input order
 * (free with gtr_check_results_free). Returns 0, or GTR_E_NOMEM when the
 * pool could not be set up; errors of single traces are in their results.
 * Only opts->baseline and opts->th are not used.
 */
int gtr_check_measure(const gtr_check_input *in, size_t n, const gtr_check_opts *opts,
		      gtr_check_result **out, gtr_error *err);
/*
 * Groups the results (sorted by gtr_check_input_cmp) into cases, compares
 * each with the baseline case of its name (b may be NULL: every case is
 * new), and adds a MISSING case for each baseline case no result has.
 * *cases receives them sorted by name (free with gtr_check_cases_free);
 * they point into r and b, which must outlive them. 0 or GTR_E_NOMEM.
 */
int gtr_check_judge(const gtr_check_result *r, size_t n, const gtr_baseline *b,
		    const gtr_thresholds *th, gtr_check_case **cases, size_t *ncases);
void gtr_check_cases_free(gtr_check_case *c, size_t n);
void gtr_check_results_free(gtr_check_result *r, size_t n);

typedef struct gtr_check_summary {
	size_t cases, runs, ok, regressed, errors, fresh, missing, changed, unchanged;
	size_t partial;     /* runs read in part */
	size_t stat, few;   /* cases compared with the test / without (too few runs) */
} gtr_check_summary;

void gtr_check_summarize(const gtr_check_case *c, size_t n, gtr_check_summary *s);

typedef struct gtr_check_report_opts {
	const char *baseline_path;
	const gtr_thresholds *th;
	unsigned jobs;
	int updated;      /* the baseline was rewritten with these results */
	int exit_status;
	int quiet;        /* text: only problems and the summary */
	int fail_on_missing; /* a MISSING case fails the check */
	double seconds;   /* wall time of the whole check */
} gtr_check_report_opts;

/* The exit status a check's cases call for: 3 regressed, 1 error or missing (when it fails), 0. */
int gtr_check_exit_status(const gtr_check_case *c, size_t n, int fail_on_missing);

/* One line per case and a summary. */
void gtr_check_write_text(const gtr_check_case *c, size_t n, const gtr_check_report_opts *opts,
			  gtr_out *o);
/* The report as JSON, schema gtr.check.v2. */
void gtr_check_write_json(const gtr_check_case *c, size_t n, const gtr_check_report_opts *opts,
			  gtr_out *o);
/*
 * The cases of the report as JSON Lines, for a warehouse: one object per
 * case, schema gtr.check.row.v2, holding "schema" and then the members of
 * that case's object in the gtr.check.v2 report.
 */
void gtr_check_write_jsonl(const gtr_check_case *c, size_t n, gtr_out *o);
/*
 * The report as JUnit XML: a test case per case; regressions fail, cases
 * with an unreadable trace error, missing ones fail (or are skipped).
 */
void gtr_check_write_junit(const gtr_check_case *c, size_t n, const gtr_check_report_opts *opts,
			   gtr_out *o);
/*
 * The new baseline, schema gtr.baseline.v2: for each case checked, its
 * old runs and this check's readable ones, the newest max_runs kept; the
 * cases of `old` that were not checked, as they were.
 */
void gtr_check_write_baseline(const gtr_check_case *c, size_t n, const gtr_baseline *old,
			      size_t max_runs, gtr_out *o);

#endif
