/*
 * core/v2/v2.h: the v2 trace family (Go 1.22 and later), shared by the v2
 * sources (v2.c: index, tables, footprint, lookups; v2_spec.c: event
 * tables; v2_read.c: the ordered reader; v2_order.c: the scheduler state
 * machine). Internal: nothing here is part of the public API.
 *
 * A v2 trace is a 16-byte header followed by batches. Each batch starts
 * with EventBatch (or ExperimentalBatch) and carries its generation, its
 * M, a base timestamp and the length of the bytes that follow, so the
 * index hops from header to header. Batches of one generation hold its
 * string, stack and CPU-sample tables and its frequency ("sync" batch);
 * the rest are per-M event batches. Before 1.26 a generation ends where
 * the generation number changes; 1.26 ends each one with a bare
 * EndOfGeneration byte.
 *
 * The index is immutable once gtr_v2_open returns: any number of threads
 * may read it and decode batches at once.
 */
#ifndef GTR_CORE_V2_H
#define GTR_CORE_V2_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/idmap.h"
#include "core/trace/trace_impl.h"

/* Wire event numbers, as Go numbers them. */
enum {
	GTR_V2_EV_NONE = 0,
	GTR_V2_EV_EVENT_BATCH = 1,
	GTR_V2_EV_STACKS = 2,
	GTR_V2_EV_STACK = 3,
	GTR_V2_EV_STRINGS = 4,
	GTR_V2_EV_STRING = 5,
	GTR_V2_EV_CPU_SAMPLES = 6,
	GTR_V2_EV_CPU_SAMPLE = 7,
	GTR_V2_EV_FREQUENCY = 8,
	GTR_V2_EV_PROCS_CHANGE = 9,
	GTR_V2_EV_PROC_START = 10,
	GTR_V2_EV_PROC_STOP = 11,
	GTR_V2_EV_PROC_STEAL = 12,
	GTR_V2_EV_PROC_STATUS = 13,
	GTR_V2_EV_GO_CREATE = 14,
	GTR_V2_EV_GO_CREATE_SYSCALL = 15,
	GTR_V2_EV_GO_START = 16,
	GTR_V2_EV_GO_DESTROY = 17,
	GTR_V2_EV_GO_DESTROY_SYSCALL = 18,
	GTR_V2_EV_GO_STOP = 19,
	GTR_V2_EV_GO_BLOCK = 20,
	GTR_V2_EV_GO_UNBLOCK = 21,
	GTR_V2_EV_GO_SYSCALL_BEGIN = 22,
	GTR_V2_EV_GO_SYSCALL_END = 23,
	GTR_V2_EV_GO_SYSCALL_END_BLOCKED = 24,
	GTR_V2_EV_GO_STATUS = 25,
	GTR_V2_EV_STW_BEGIN = 26,
	GTR_V2_EV_STW_END = 27,
	GTR_V2_EV_GC_ACTIVE = 28,
	GTR_V2_EV_GC_BEGIN = 29,
	GTR_V2_EV_GC_END = 30,
	GTR_V2_EV_GC_SWEEP_ACTIVE = 31,
	GTR_V2_EV_GC_SWEEP_BEGIN = 32,
	GTR_V2_EV_GC_SWEEP_END = 33,
	GTR_V2_EV_GC_MARK_ASSIST_ACTIVE = 34,
	GTR_V2_EV_GC_MARK_ASSIST_BEGIN = 35,
	GTR_V2_EV_GC_MARK_ASSIST_END = 36,
	GTR_V2_EV_HEAP_ALLOC = 37,
	GTR_V2_EV_HEAP_GOAL = 38,
	GTR_V2_EV_GO_LABEL = 39,
	GTR_V2_EV_USER_TASK_BEGIN = 40,
	GTR_V2_EV_USER_TASK_END = 41,
	GTR_V2_EV_USER_REGION_BEGIN = 42,
	GTR_V2_EV_USER_REGION_END = 43,
	GTR_V2_EV_USER_LOG = 44,
	GTR_V2_EV_GO_SWITCH = 45,         /* 1.23 */
	GTR_V2_EV_GO_SWITCH_DESTROY = 46, /* 1.23 */
	GTR_V2_EV_GO_CREATE_BLOCKED = 47, /* 1.23 */
	GTR_V2_EV_GO_STATUS_STACK = 48,   /* 1.23 */
	GTR_V2_EV_EXPERIMENTAL_BATCH = 49, /* 1.23 */
	GTR_V2_EV_SYNC = 50,              /* 1.25 */
	GTR_V2_EV_CLOCK_SNAPSHOT = 51,    /* 1.25 */
	GTR_V2_EV_END_OF_GENERATION = 52, /* 1.26 */
	/* Experimental events (AllocFree), 1.23; they only occur inside
	 * ExperimentalBatch data. */
	GTR_V2_EV_SPAN = 128,
	GTR_V2_EV_GOROUTINE_STACK_FREE = 136,
	GTR_V2_NUM_EVENTS = 137,
};

/* Limits of the format (tracev2): anything larger is corrupt. */
#define GTR_V2_MAX_BATCH 65536u   /* bytes of data in one batch */
#define GTR_V2_MAX_FRAMES 128u    /* frames in one stack */
#define GTR_V2_MAX_STRING 1024u   /* bytes in one string */

/* Goroutine and P statuses as the runtime writes them. */
enum { GTR_V2_GO_BAD, GTR_V2_GO_RUNNABLE, GTR_V2_GO_RUNNING, GTR_V2_GO_SYSCALL, GTR_V2_GO_WAITING };
enum {
	GTR_V2_PROC_BAD,
	GTR_V2_PROC_RUNNING,
	GTR_V2_PROC_IDLE,
	GTR_V2_PROC_SYSCALL,
	GTR_V2_PROC_SYSCALL_ABANDONED,
};

/* How an event type is laid out on the wire, beyond its gtr_spec. */
enum {
	GTR_V2_TIMED = 1,    /* a timestamp delta precedes the spec's args */
	GTR_V2_FRAMES = 2,   /* 4 varints per frame follow (Stack) */
	GTR_V2_DATA = 4,     /* a length and that many bytes follow */
};

typedef struct gtr_v2_layout {
	uint8_t valid;       /* the version has this event */
	uint8_t flags;       /* GTR_V2_TIMED | GTR_V2_FRAMES | GTR_V2_DATA */
	uint8_t wire_args;   /* varints after the type byte (timestamp included) */
	uint8_t stack_mask;  /* bit i: spec arg i is a stack id */
	uint8_t string_mask; /* bit i: spec arg i is a string id */
} gtr_v2_layout;

/*
 * Fills lay[0..GTR_V2_NUM_EVENTS) for `version` from its spec table.
 * Returns 0, or -1 for a version that is not v2.
 */
int gtr_v2_layouts(int version, gtr_v2_layout lay[GTR_V2_NUM_EVENTS]);

/* What a batch holds, from its header and its first byte. */
typedef enum gtr_v2_kind {
	GTR_V2_B_EVENTS = 0, /* per-M events, in the ordered stream */
	GTR_V2_B_STRINGS,
	GTR_V2_B_STACKS,
	GTR_V2_B_CPU,
	GTR_V2_B_SYNC,       /* frequency (and clock snapshot, 1.25+) */
	GTR_V2_B_EXP,        /* experimental data, opaque */
	GTR_V2_B_BROKEN,     /* undecodable, skipped (lenient) */
} gtr_v2_kind;

typedef struct gtr_v2_batch {
	uint64_t off;   /* offset of the EventBatch / ExperimentalBatch byte */
	uint64_t data;  /* offset of the first byte after the header */
	uint64_t m;     /* M as written (~0: none) */
	uint64_t time;  /* base timestamp, in ticks */
	uint32_t len;   /* bytes of data */
	uint32_t gen;   /* index of its generation */
	uint8_t type;   /* GTR_V2_EV_EVENT_BATCH or GTR_V2_EV_EXPERIMENTAL_BATCH */
	uint8_t kind;   /* gtr_v2_kind */
	uint8_t exp;    /* experiment id, 0 for a plain batch */
	uint8_t cut;    /* the end of the input cut it: len covers its whole events */
} gtr_v2_batch;

/* The event batches of one M in one generation, in file order. */
typedef struct gtr_v2_mbatches {
	uint64_t m;
	size_t first; /* into gtr_v2_index.mb */
	size_t n;
} gtr_v2_mbatches;

typedef struct gtr_v2_gen {
	uint64_t num;        /* generation number as written */
	uint64_t off, end;   /* bytes it covers, EndOfGeneration included */
	size_t first, n;     /* its batches in gtr_v2_index.batches */
	size_t ms_first, nms; /* its Ms (first appearance order) in gtr_v2_index.ms */
	uint64_t min_ts;     /* smallest batch base timestamp, ticks */
	uint64_t freq;       /* ticks per second */
	double ns_per_tick;  /* as Go computes it: 1 / (freq / 1e9) */
	uint64_t strings, stacks;
	uint8_t partial;     /* cut by the end of the input: tables may be missing */
	uint8_t tolerant;    /* partial, or read leniently: missing ids read as none */
} gtr_v2_gen;

typedef struct gtr_v2_index {
	gtr_v2_layout lay[GTR_V2_NUM_EVENTS];
	gtr_v2_batch *batches;
	size_t nbatches;
	gtr_v2_gen *gens;
	size_t ngens;
	gtr_v2_mbatches *ms;
	size_t nms;
	size_t *mb;          /* batch indices, grouped by gtr_v2_mbatches */
	size_t nmb;
	uint64_t neog;       /* EndOfGeneration bytes seen */
	gtr_idvec *strings;  /* (gen, id) -> offset << 16 | length */
	gtr_idvec *stacks;   /* (gen, id) -> offset of first frame << 8 | frames */
} gtr_v2_index;

static inline const gtr_v2_index *gtr_v2_idx(const gtr_trace *t)
{
	return (const gtr_v2_index *)t->impl;
}

/* Converts ticks to Go's nanoseconds (float64 multiply, truncation).
 * Go converts with CVTTSD2SQ, which yields INT64_MIN out of range; in C
 * that conversion would be undefined. Inline: twice per event. */
static inline int64_t gtr_v2_ns(double ns_per_tick, uint64_t ticks)
{
	double x = (double)ticks * ns_per_tick;
	if (!(x < 9223372036854775808.0) || x < -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

/* Canonical (shortest) encoded length of v. */
static inline unsigned gtr_v2_uvarint_len(uint64_t v)
{
	return v ? (unsigned)(64 - __builtin_clzll(v) + 6) / 7 : 1;
}

/*
 * Records an error like gtr_error_set and, when it is the first one,
 * the batch and event indexes (-1 when unknown). Returns code.
 */
int gtr_v2_fail(gtr_error *err, gtr_errcode code, uint64_t off, int64_t batch, int64_t event,
		const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Name of an event type for messages ("GoStart", or "type 77"). */
const char *gtr_v2_name(const gtr_trace *t, unsigned type, char buf[16]);

/* One timed event as decoded from its batch. */
typedef struct gtr_v2_raw {
	uint64_t off;    /* byte offset of the type byte */
	int64_t time;    /* Go's time in ns: frequency-scaled, not yet made monotonic */
	uint8_t type;
	uint8_t nargs;   /* spec args (timestamp excluded) */
	uint64_t args[GTR_MAX_ARGS];
	int64_t batch;   /* index of its batch, and of the event in it, for errors */
	int64_t event;
} gtr_v2_raw;

/*
 * Decodes the events of one event batch, on its own: it needs only the
 * batch, the generation's ns_per_tick and the layouts, so that any
 * thread can decode any batch. Times follow Go's batch cursor: the base
 * timestamp scaled, plus each scaled delta in turn.
 */
typedef struct gtr_v2_cursor {
	const uint8_t *data;          /* the whole input */
	const gtr_v2_layout *lay;
	gtr_uvarint_decode_n_fn decode_n;
	const gtr_trace *t;           /* for names in messages */
	uint64_t pos, end;            /* next event; end of the batch data */
	uint64_t base;                /* batch base timestamp, ticks */
	double ns_per_tick;
	int64_t last;                 /* time of the previous event; 0 before the first */
	int64_t batch;                /* batch index, for errors */
	int64_t event;                /* events decoded so far */
} gtr_v2_cursor;

void gtr_v2_cursor_init(gtr_v2_cursor *c, const gtr_trace *t, size_t batch, double ns_per_tick);

/*
 * Decodes the next event. Returns 1 and fills *ev, 0 at the end of the
 * batch, or a negative gtr_errcode (unknown type, a structural event in
 * an event batch, bad varint, an event cut by the batch end).
 */
int gtr_v2_cursor_next(gtr_v2_cursor *c, gtr_v2_raw *ev, gtr_error *err);

/*
 * The CPUSample event at d[*p] in a CPU-sample batch ending at `end`:
 * decodes its 5 values (time, M, P, goroutine, stack) into v, moves *p
 * past it (to `end` when it is cut short or a varint is bad) and returns
 * how many it decoded.
 */
int gtr_v2_next_sample(const uint8_t *d, uint64_t *p, uint64_t end, uint64_t v[5]);

/* Looks up a string or stack of generation `gen`; id 0 always exists. */
int gtr_v2_has_string(const gtr_v2_index *ix, uint32_t gen, uint64_t id);
int gtr_v2_has_stack(const gtr_v2_index *ix, uint32_t gen, uint64_t id);

/* The hooks of gtr_v2_ops (core/trace/trace_impl.h). */
int gtr_v2_open(gtr_trace *t, gtr_error *err);
void gtr_v2_free(gtr_trace *t);
int gtr_v2_string(const gtr_trace *t, uint32_t table, uint64_t id, gtr_str *out);
int gtr_v2_stack(const gtr_trace *t, uint32_t table, uint64_t id, gtr_frame *frames, size_t max,
		 size_t *n, gtr_error *err);
int gtr_v2_footprint(const gtr_trace *t, gtr_footprint *fp, gtr_error *err);
int gtr_v2_reader_open(gtr_reader *r, gtr_error *err);
int gtr_v2_reader_next(gtr_reader *r, gtr_event *ev, gtr_error *err);
void gtr_v2_reader_free(gtr_reader *r);

#endif
