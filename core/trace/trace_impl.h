/*
 * core/trace/trace_impl.h: what core/trace/trace.c shares with the format decoders
 * (core/v1*.c, core/v2*.c). Not part of the public API.
 */
#ifndef GTR_CORE_TRACE_IMPL_H
#define GTR_CORE_TRACE_IMPL_H

#include <pthread.h>

#include "core/trace/trace.h"

struct gtr_trace {
	const uint8_t *data;
	size_t size;
	gtr_kernels kernels;
	gtr_trace_info info;
	const struct gtr_format_ops *ops; /* the family's, from the table of versions */
	const gtr_spec *specs;
	size_t nspecs;
	void *impl; /* the family's index, owned */
	unsigned flags;       /* GTR_OPEN_*; LENIENT implies PARTIAL */
	gtr_loss loss;        /* what the open skipped; fixed once open returns */
	pthread_mutex_t lock; /* guards rloss */
	gtr_loss rloss;       /* the most any reader has skipped */
	gtr_progress_fn progress; /* NULL: nobody is told */
	void *progress_ctx;
	uint64_t progress_step;   /* bytes between two calls */
	uint64_t progress_next;   /* the index pass's next call */
	unsigned jobs;            /* threads the index may use (gtr_open_opts.jobs) */
	uint64_t split_min;       /* gtr_open_opts.split_min, 0 made GTR_SPLIT_MIN */
};

struct gtr_reader {
	const gtr_trace *t;
	void *impl;    /* the family's reader state, owned */
	gtr_loss loss; /* what this reader skipped */
	uint64_t nev;           /* events returned, to space progress calls */
	uint64_t progress_next; /* bytes at which it tells next */
	uint64_t pushed;        /* gtr_reader_pushed */
};

/*
 * The index pass has reached byte `off`: tells the progress callback when
 * it has moved on by a step since the last call. Cheap enough per batch.
 */
static inline void gtr_index_progress(gtr_trace *t, uint64_t off)
{
	if (t->progress && off >= t->progress_next) {
		t->progress_next = off + t->progress_step;
		t->progress(t->progress_ctx, GTR_PHASE_INDEX, off, t->size);
	}
}

/* Records one more lost thing of a kind: the first one gives `off` and why. */
void gtr_loss_add(gtr_loss_item *it, uint64_t off, uint64_t bytes, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Widens the time range of a kind of loss to cover [from, to]. */
void gtr_loss_time(gtr_loss_item *it, uint64_t from, uint64_t to);

/* Moves the times of every item back by `base` (raw clock -> since the first event). */
void gtr_loss_rebase(gtr_loss *l, int64_t base);

/*
 * A format family: the operations every family implements, in one table
 * (core/v1/v1.c and core/v2/v2.c define theirs). `open` fills t->impl and
 * t->info (everything but version, family and bytes, which are set before
 * it is called) and must free what it allocated on failure.
 */
typedef struct gtr_format_ops {
	const char *name; /* "v1", "v2" */
	int (*open)(gtr_trace *t, gtr_error *err);
	void (*free)(gtr_trace *t);
	int (*string)(const gtr_trace *t, uint32_t table, uint64_t id, gtr_str *out);
	int (*stack)(const gtr_trace *t, uint32_t table, uint64_t id, gtr_frame *frames, size_t max,
		     size_t *n, gtr_error *err);
	int (*footprint)(const gtr_trace *t, gtr_footprint *fp, gtr_error *err);
	int (*reader_open)(gtr_reader *r, gtr_error *err);
	int (*reader_next)(gtr_reader *r, gtr_event *ev, gtr_error *err);
	void (*reader_free)(gtr_reader *r);
	/* The family's event table for one of its versions. */
	const gtr_spec *(*specs)(int version, size_t *n);
} gtr_format_ops;

extern const gtr_format_ops gtr_v1_ops;
extern const gtr_format_ops gtr_v2_ops;

/*
 * The table of versions (core/trace/trace.c): one row per "go 1.N trace"
 * header gtr reads. Adding a version starts here (core/README.md).
 */
typedef struct gtr_version_row {
	int version;              /* N of "go 1.N trace" */
	gtr_family family;
	const gtr_format_ops *ops;
	const char *writers;      /* the Go releases that write it */
} gtr_version_row;

/* The row of `version`, or NULL when gtr does not read it. */
const gtr_version_row *gtr_version_row_of(int version);

/*
 * A tolerant read lets through an event that waits for what was lost
 * (gtr_v1/v2 ordering) when it is stuck, or when the next event that can
 * go is this much later: more than the skew between the clocks of
 * threads that a real wait stays well within.
 */
#define GTR_FORCE_SLACK_NS 1000000

#endif
