/*
 * core/analysis/stats.h: where each goroutine's time went, the goroutine analysis
 * of `go tool trace` on the command line.
 *
 * gtr_stats_run reads every event once and splits each goroutine's life
 * the way Go's own summarizer (internal/trace/summary.go) does: execution
 * (Running), scheduler wait (Runnable), block time by reason (Waiting),
 * syscall time (Syscall), plus the time it spent in GC mark assists,
 * which overlaps the others. It also counts the goroutine's on-processor
 * slices (DESIGN.md) and keeps their lengths in a log-bucketed histogram.
 * The goroutines are then grouped by start function.
 *
 * A goroutine's row is final when it exits or the trace ends: it is then
 * added to its start function's and dropped, unless gtr_stats_keep asks
 * for it. Memory follows the goroutines alive at once, the start
 * functions, the stacks that name them and the rows kept (a histogram
 * holds at most GTR_HIST_BINS bins); never the number of events, nor of
 * goroutines that have come and gone.
 */
#ifndef GTR_CORE_STATS_H
#define GTR_CORE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/engine.h"
#include "core/trace/trace.h"
#include "io/map.h"
#include "io/out.h"

/*
 * Block reasons, grouped. Go's reasons map to them as follows (v1 traces
 * get the names Go's converter gives them):
 *   chan    "chan send", "chan receive"
 *   select  "select"
 *   sync    "sync", "sync.(*Cond).Wait"
 *   net     "network"
 *   sleep   "sleep"
 *   GC      "GC mark assist wait for work", "GC background sweeper wait",
 *           "wait until GC ends", "GC weak to strong wait"
 *   other   everything else: "", "unspecified", "system goroutine wait",
 *           "preempted", "wait for debug call", "synctest", ...
 * A goroutine that blocks "forever" is treated, as Go does, like one that
 * exited: its time stops being counted.
 */
typedef enum gtr_block {
	GTR_BLOCK_CHAN = 0,
	GTR_BLOCK_SELECT,
	GTR_BLOCK_SYNC,
	GTR_BLOCK_NET,
	GTR_BLOCK_SLEEP,
	GTR_BLOCK_GC,
	GTR_BLOCK_OTHER,
	GTR_BLOCK_N
} gtr_block;

/* "chan", "select", "sync", "net", "sleep", "GC", "other". */
const char *gtr_block_name(gtr_block b);

/* The group of one of Go's block reasons. */
gtr_block gtr_block_of_reason(gtr_str reason);

/*
 * A histogram of durations in ns: exact below GTR_HIST_SUB ns, then
 * GTR_HIST_SUB bins per power of two. A percentile read from it is within
 * 1/(2*GTR_HIST_SUB) (0.8%) of the exact nearest-rank value; min and max
 * are exact. Bins are kept sparse and sorted, so a histogram costs 16
 * bytes per distinct bin used, at most GTR_HIST_BINS of them.
 */
#define GTR_HIST_SUB 64
#define GTR_HIST_BINS (GTR_HIST_SUB + (64 - 6) * GTR_HIST_SUB)

typedef struct gtr_hist_bin {
	uint32_t idx;
	uint64_t count;
} gtr_hist_bin;

typedef struct gtr_hist {
	gtr_hist_bin *bins;
	uint32_t nbins, cap;
	uint64_t count, min, max;
} gtr_hist;

/* Adds one value. 0 or GTR_E_NOMEM (the histogram is then unchanged). */
int gtr_hist_add(gtr_hist *h, uint64_t v);

/* Adds every value of src to dst. 0 or GTR_E_NOMEM. */
int gtr_hist_merge(gtr_hist *dst, const gtr_hist *src);

/* Nearest-rank percentile q (0..100); 0 for an empty histogram. */
uint64_t gtr_hist_percentile(const gtr_hist *h, double q);

/* The bin of v. */
static inline uint32_t gtr_hist_index(uint64_t v)
{
	if (v < GTR_HIST_SUB)
		return (uint32_t)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= 6 */
	uint64_t m = (v >> (e - 6)) - GTR_HIST_SUB;   /* 0..63 */
	return (uint32_t)(GTR_HIST_SUB + (e - 6) * GTR_HIST_SUB + m);
}

/* The smallest value of a bin (for tests). */
uint64_t gtr_hist_lower(uint32_t idx);

void gtr_hist_free(gtr_hist *h);

/* Empties h, keeping its room for bins. */
void gtr_hist_reset(gtr_hist *h);

/* The same histogram with a count for every bin (30 KB): adding a value
 * is an increment, for the few rows that take most values. */
typedef struct gtr_hist_dense {
	uint64_t counts[GTR_HIST_BINS];
	uint32_t lo, hi;             /* the bins used are within [lo, hi] */
	uint64_t count, min, max;
} gtr_hist_dense;

static inline void gtr_hist_dense_add(gtr_hist_dense *d, uint64_t v)
{
	uint32_t idx = gtr_hist_index(v);
	d->counts[idx]++;
	if (d->count == 0) {
		d->lo = d->hi = idx;
		d->min = d->max = v;
	} else {
		d->lo = idx < d->lo ? idx : d->lo;
		d->hi = idx > d->hi ? idx : d->hi;
		d->min = v < d->min ? v : d->min;
		d->max = v > d->max ? v : d->max;
	}
	d->count++;
}

/* Adds every value of src to dst, then empties src. 0 or GTR_E_NOMEM
 * (src is then unchanged). */
int gtr_hist_take_dense(gtr_hist *dst, gtr_hist_dense *src);

/* Times in ns. Every field but gc_assist is disjoint from the others. */
typedef struct gtr_times {
	uint64_t exec;       /* Running */
	uint64_t sched_wait; /* Runnable: waiting for a P */
	uint64_t block[GTR_BLOCK_N];
	uint64_t syscall;    /* in a system call, with or without its P */
	uint64_t gc_assist;  /* inside GC mark assists (overlaps exec and block) */
} gtr_times;

static inline uint64_t gtr_times_block(const gtr_times *t)
{
	uint64_t s = 0;
	for (int i = 0; i < GTR_BLOCK_N; i++)
		s += t->block[i];
	return s;
}

static inline void gtr_times_add(gtr_times *dst, const gtr_times *src)
{
	dst->exec += src->exec;
	dst->sched_wait += src->sched_wait;
	for (int i = 0; i < GTR_BLOCK_N; i++)
		dst->block[i] += src->block[i];
	dst->syscall += src->syscall;
	dst->gc_assist += src->gc_assist;
}

/* One goroutine. */
typedef struct gtr_gstats {
	int64_t id;
	gtr_str func;   /* its start function, "?" when the trace does not say */
	size_t fn;      /* index into gtr_stats.fs */
	gtr_times t;
	gtr_hist slices; /* its on-processor slices */
} gtr_gstats;

/* The goroutines of one start function, added up. */
typedef struct gtr_fstats {
	gtr_str func;
	size_t goroutines;
	gtr_times t;
	gtr_hist slices;
} gtr_fstats;

typedef struct gtr_stats {
	gtr_gstats *gs;      /* the rows kept (gtr_stats_keep), by goroutine id */
	size_t ngs;
	size_t goroutines;   /* every goroutine the trace names, kept or not */
	gtr_fstats *fs;      /* by function name (bytewise) */
	size_t nfs;
	gtr_times total;
	gtr_hist slices;     /* every slice of the trace */
	uint64_t events;
	uint64_t first_ts, last_ts;
	/* The Go release that wrote the trace, when a runtime frame's file
	 * path names it (a GOROOT such as /usr/lib/go-1.22 or sdk/go1.22.3);
	 * empty otherwise. */
	char runtime_version[32];
} gtr_stats;


/*
 * Finds a Go release in a runtime source path such as
 * "/usr/local/go1.22.3/src/runtime/proc.go" and writes it ("go1.22.3")
 * into buf. Returns 1 when found, else 0.
 */
int gtr_runtime_version_from_path(gtr_str file, char *buf, size_t cap);

/* The table and ordering of `gtr stats`. */
typedef enum gtr_stats_key {
	GTR_SK_EXEC = 0,
	GTR_SK_SCHED,
	GTR_SK_BLOCK,
	GTR_SK_CHAN,
	GTR_SK_SELECT,
	GTR_SK_SYNC,
	GTR_SK_NET,
	GTR_SK_SLEEP,
	GTR_SK_GC,
	GTR_SK_OTHER,
	GTR_SK_SYSCALL,
	GTR_SK_ASSIST,
	GTR_SK_SLICES,
	GTR_SK_P50,
	GTR_SK_P99,
	GTR_SK_MAX,
	GTR_SK_GOROUTINES,
	GTR_SK_ID,
	GTR_SK_NAME,
	GTR_SK_N
} gtr_stats_key;

/*
 * The goroutine rows a run keeps: every one (all), or the first top of
 * the goroutine table ordered by sort, as gtr_report_stats orders it, and
 * in either case the rows of ids (ascending).
 */
typedef struct gtr_stats_keep {
	int all;
	size_t top;
	gtr_stats_key sort;
	const int64_t *ids;
	size_t nids;
	/* Also keeps the rows for which pin(pin_ctx, id) is nonzero, asked
	 * when the goroutine's row is final. */
	int (*pin)(void *pin_ctx, int64_t id);
	void *pin_ctx;
} gtr_stats_keep;

/*
 * Runs the analysis over t, keeping the goroutine rows keep asks for
 * (every one when keep is NULL). On success *out owns the result, whose
 * function names point into t's tables: keep t open while using them.
 * Free with gtr_stats_free. t may be shared between threads; a result
 * belongs to one.
 */
int gtr_stats_run(const gtr_trace *t, const gtr_stats_keep *keep, gtr_stats **out,
		  gtr_error *err);

/* gtr_stats_run on the engine with `jobs` threads (core/analysis/engine.h). */
int gtr_stats_run_jobs(const gtr_trace *t, const gtr_stats_keep *keep, unsigned jobs,
		       gtr_stats **out, gtr_error *err);

/* The same as a sink of the engine: begin, gtr_engine_run, end or abort. */
typedef struct gtr_stats_acc gtr_stats_acc;
int gtr_stats_begin(const gtr_trace *t, const gtr_stats_keep *keep, gtr_stats_acc **acc,
		    gtr_error *err);
gtr_sink gtr_stats_sink(gtr_stats_acc *acc);
int gtr_stats_end(gtr_stats_acc *acc, gtr_stats **out, gtr_error *err);
void gtr_stats_abort(gtr_stats_acc *acc);
void gtr_stats_free(gtr_stats *s);

/*
 * For an analysis that times goroutines its own way (gtr_stats_fast): a
 * goroutine's final row (its slices are taken: the caller must not free
 * them), named as gtr_stats_run names it (by the stack name_stack of
 * table name_table, its creation stack when name_is_create; 0: none).
 * 0 or GTR_E_NOMEM. Then the events and times the header shows.
 */
int gtr_stats_put(gtr_stats_acc *acc, const gtr_gstats *row, uint32_t name_table,
		  uint64_t name_stack, int name_is_create);
void gtr_stats_span(gtr_stats_acc *acc, uint64_t events, uint64_t first_ts, uint64_t last_ts);

/* What gtr_stats_fast did, for -v. */
typedef struct gtr_stats_fast_info {
	int ordered;        /* 1: it ran gtr_stats_run_jobs */
	unsigned jobs;      /* worker threads (0 when ordered) */
	uint64_t gens;      /* generations walked */
	double sec_walk, sec_merge; /* wall seconds: the workers, the merges between them */
	char why[160];      /* why it ran the ordered path, else empty */
} gtr_stats_fast_info;

/*
 * gtr_stats_run_jobs without Go's global order (core/analysis/stats_fast.c):
 * `jobs` workers (0: one per CPU) walk each generation's threads in
 * parallel; then the goroutines' times are joined. Times are Go's but
 * for its spacing of events that share a nanosecond (see the file).
 * Runs the ordered path instead, and says why in `info` (may be NULL),
 * for v1 traces, partial or lenient reads, and what only the global
 * order can tell.
 */
int gtr_stats_fast(const gtr_trace *t, const gtr_stats_keep *keep, unsigned jobs,
		   gtr_stats **out, gtr_stats_fast_info *info, gtr_error *err);

/*
 * The order of a table's rows. A key meant for the other table falls
 * back to a neighbour (goroutines -> exec for goroutines, id -> name for
 * functions); gtr_stats_key_value is the value a row sorts by (0 for
 * name); gtr_stats_row_order compares two rows: larger value first (ids
 * and names ascending), then by name, then by goroutine id.
 */
gtr_stats_key gtr_stats_table_key(gtr_stats_key k, int funcs);
uint64_t gtr_stats_key_value(gtr_stats_key k, const gtr_times *t, const gtr_hist *h,
			     size_t goroutines, int64_t id);
int gtr_stats_row_order(gtr_stats_key k, uint64_t ka, gtr_str fa, int64_t ida, uint64_t kb,
			gtr_str fb, int64_t idb);

/* Parses a --sort key name; -1 when unknown. */
int gtr_stats_key_parse(const char *name);
const char *gtr_stats_key_name(gtr_stats_key k);

enum { GTR_STATS_TEXT = 0, GTR_STATS_JSON, GTR_STATS_CSV, GTR_STATS_JSONL };
enum { GTR_STATS_BY_BOTH = 0, GTR_STATS_BY_FUNC, GTR_STATS_BY_G };

typedef struct gtr_stats_report_opts {
	const char *file;   /* shown in the header */
	int format;         /* GTR_STATS_TEXT, _JSON, _CSV or _JSONL */
	int by;             /* which tables: GTR_STATS_BY_* */
	gtr_stats_key sort; /* larger first; ids and names ascending */
	size_t top;         /* rows per table; 0 for all */
	const gtr_map *input; /* the mapping read, to say if the file shrank; NULL: none */
} gtr_stats_report_opts;

/* Writes the report. 0, or GTR_E_NOMEM with *err filled. */
int gtr_report_stats(const gtr_trace *t, const gtr_stats *s, const gtr_stats_report_opts *opts,
		     gtr_out *o, gtr_error *err);

#endif
