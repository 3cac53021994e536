/*
 * core/v1/v1.h: the v1 trace family (go 1.5 to go 1.21) inside core/.
 * Internal: shared by core/v1/v1.c (index, tables, batch decoding),
 * core/v1/v1_spec.c (event tables) and core/v1/v1_order.c (ordering and
 * state transitions).
 *
 * A v1 trace is a 16-byte header and a stream of events. Each event
 * starts with a type byte: the low 6 bits are the event type, the top 2
 * the number of arguments minus one (minus two for go 1.5, whose events
 * carry a sequence number too); 3 means the arguments are preceded by
 * their length in bytes. Arguments are uvarints. Events are grouped in
 * per-P batches that start with an EvBatch event and have no length:
 * a batch ends where the next one starts. Timestamps are deltas from the
 * previous event of the batch, in ticks. String, Stack and Frequency
 * events are tables that may appear anywhere.
 */
#ifndef GTR_CORE_V1_H
#define GTR_CORE_V1_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/idmap.h"
#include "core/trace/trace_impl.h"

/* Wire event types, identical in every v1 version that has them. */
enum {
	GTR_V1_NONE = 0,
	GTR_V1_BATCH = 1,
	GTR_V1_FREQUENCY = 2,
	GTR_V1_STACK = 3,
	GTR_V1_GOMAXPROCS = 4,
	GTR_V1_PROCSTART = 5,
	GTR_V1_PROCSTOP = 6,
	GTR_V1_GCSTART = 7,
	GTR_V1_GCDONE = 8,
	GTR_V1_GCSTWSTART = 9,
	GTR_V1_GCSTWDONE = 10,
	GTR_V1_GCSWEEPSTART = 11,
	GTR_V1_GCSWEEPDONE = 12,
	GTR_V1_GOCREATE = 13,
	GTR_V1_GOSTART = 14,
	GTR_V1_GOEND = 15,
	GTR_V1_GOSTOP = 16,
	GTR_V1_GOSCHED = 17,
	GTR_V1_GOPREEMPT = 18,
	GTR_V1_GOSLEEP = 19,
	GTR_V1_GOBLOCK = 20,
	GTR_V1_GOUNBLOCK = 21,
	GTR_V1_GOBLOCKSEND = 22,
	GTR_V1_GOBLOCKRECV = 23,
	GTR_V1_GOBLOCKSELECT = 24,
	GTR_V1_GOBLOCKSYNC = 25,
	GTR_V1_GOBLOCKCOND = 26,
	GTR_V1_GOBLOCKNET = 27,
	GTR_V1_GOSYSCALL = 28,
	GTR_V1_GOSYSEXIT = 29,
	GTR_V1_GOSYSBLOCK = 30,
	GTR_V1_GOWAITING = 31,
	GTR_V1_GOINSYSCALL = 32,
	GTR_V1_HEAPALLOC = 33,
	GTR_V1_NEXTGC = 34,
	GTR_V1_TIMERGOROUTINE = 35,
	GTR_V1_FUTILEWAKEUP = 36,
	GTR_V1_STRING = 37,
	GTR_V1_GOSTARTLOCAL = 38,
	GTR_V1_GOUNBLOCKLOCAL = 39,
	GTR_V1_GOSYSEXITLOCAL = 40,
	GTR_V1_GOSTARTLABEL = 41,
	GTR_V1_GOBLOCKGC = 42,
	GTR_V1_GCMARKASSISTSTART = 43,
	GTR_V1_GCMARKASSISTDONE = 44,
	GTR_V1_USERTASKCREATE = 45,
	GTR_V1_USERTASKEND = 46,
	GTR_V1_USERREGION = 47,
	GTR_V1_USERLOG = 48,
	GTR_V1_CPUSAMPLE = 49,
	GTR_V1_NTYPES = 50,
};

/* The fake Ps Go's reader moves some events to (as `go tool trace` prints them). */
#define GTR_V1_TIMERP 1000001
#define GTR_V1_NETPOLLP 1000002
#define GTR_V1_SYSCALLP 1000003
#define GTR_V1_GCP 1000004

/* Go rejects longer strings and stacks; so do we, which bounds lookups. */
#define GTR_V1_MAX_STRING 1000000
#define GTR_V1_MAX_FRAMES 1000

/* More Ps than any machine runs: refused, as the reader keeps state per P. */
#define GTR_V1_MAX_PROCS 65536

typedef struct gtr_v1_batch {
	uint64_t off;   /* the EvBatch event */
	uint64_t end;   /* where the next batch starts, or the end of the input */
	uint64_t ticks; /* base timestamp */
	uint64_t seq;   /* base sequence number (go 1.5 only) */
	int64_t p;      /* -1 for the runtime's global buffer */
} gtr_v1_batch;

/* The batches of one P, in file order (which is their time order). */
typedef struct gtr_v1_proc {
	int64_t p;
	size_t first; /* into gtr_v1_index.byp */
	size_t n;
} gtr_v1_proc;

/*
 * An event whose place in Go's order is given by a key rather than by
 * its batch: a CPU sample (key: the time the sample was taken) or a
 * syscall exit written after the syscall ended (key: the time it ended,
 * or for go 1.5 its sequence number). Go sorts these into the stream.
 */
typedef struct gtr_v1_oob {
	uint64_t off;
	uint64_t key;   /* ticks, or the sequence number for go 1.5 */
	uint64_t ticks; /* the event's time */
} gtr_v1_oob;

typedef struct gtr_v1_index {
	int version;
	gtr_v1_batch *batches; /* file order */
	size_t nbatches;
	size_t *byp;           /* batch indices grouped by P, file order within a P */
	gtr_v1_proc *procs;    /* sorted by P */
	size_t nprocs;
	gtr_idmap *strings;    /* id -> offset << 20 | length of the bytes */
	gtr_idmap *stacks;     /* id -> offset of the Stack event, bit 63: no frames */
	uint64_t freq;
	gtr_idmap *timers;     /* timer goroutines (go 1.5 to 1.13): id -> 1 */
	uint64_t min_ticks, max_ticks;
	gtr_v1_oob *oob;       /* file order */
	size_t noob;
	size_t *oob_order;     /* oob sorted by (key, offset) */
	uint64_t count[GTR_V1_NTYPES];
	uint64_t bytes[GTR_V1_NTYPES];
	/* Per type: its count of arguments plus one when the cursor reads it
	 * inline (timed, no trailing data, not go 1.5), else 0. */
	uint8_t lean[64];
	/* Per type: which arguments are stack ids and which string ids. */
	uint8_t stack_args[GTR_V1_NTYPES];
	uint8_t string_args[GTR_V1_NTYPES];
} gtr_v1_index;

#define GTR_V1_STACK_EMPTY (UINT64_C(1) << 63)

/* One decoded event, before ordering. */
typedef struct gtr_v1_event {
	uint64_t off;
	uint64_t ticks;  /* time it was written (for an oob event: its key time) */
	uint64_t seq;    /* go 1.5: global sequence number */
	uint64_t g;      /* Go's ev.G: the P's goroutine, or the one the event names */
	uint8_t type;
	uint8_t nargs;
	uint8_t blocked; /* GoSysCall: the next event of the goroutine is GoSysBlock */
	uint8_t oob;     /* came from the oob table, not from a batch */
	uint64_t args[GTR_MAX_ARGS];
	gtr_str data;
	int64_t p;
	int64_t batch;   /* for errors */
	int64_t index;
} gtr_v1_event;

/*
 * A position inside one batch. Decoding a batch needs only the index
 * and the goroutine the P was running when the batch started (which the
 * previous batch of the same P leaves in `g`), so batches can be decoded
 * independently, by any number of threads.
 */
typedef struct gtr_v1_cursor {
	const gtr_trace *t;
	uint64_t pos, end;
	uint64_t ticks, seq;
	uint64_t g;
	int64_t p;
	int64_t batch;
	int64_t index; /* events read in this batch, the EvBatch event being 0 */
	gtr_loss *loss; /* a tolerant read counts missing references here; may be NULL */
	uint8_t unchecked; /* 1: the stacks and strings events name are not looked up */
} gtr_v1_cursor;

/* The events that stop a goroutine with a reason, by the state it goes to. */
#define GTR_V1_BIT(typ) (UINT64_C(1) << (typ))
#define GTR_V1_STOP_RUNNABLE (GTR_V1_BIT(GTR_V1_GOSCHED) | GTR_V1_BIT(GTR_V1_GOPREEMPT))
#define GTR_V1_STOP_WAITING                                                                    \
	(GTR_V1_BIT(GTR_V1_GOSTOP) | GTR_V1_BIT(GTR_V1_GOSLEEP) | GTR_V1_BIT(GTR_V1_GOBLOCK) |   \
	 GTR_V1_BIT(GTR_V1_GOBLOCKSEND) | GTR_V1_BIT(GTR_V1_GOBLOCKRECV) |                       \
	 GTR_V1_BIT(GTR_V1_GOBLOCKSELECT) | GTR_V1_BIT(GTR_V1_GOBLOCKSYNC) |                     \
	 GTR_V1_BIT(GTR_V1_GOBLOCKCOND) | GTR_V1_BIT(GTR_V1_GOBLOCKNET) |                        \
	 GTR_V1_BIT(GTR_V1_GOBLOCKGC))

/*
 * The state a goroutine goes to when it stops running by an event of
 * type `typ` that has a reason (gtr_v1_block_reason): Runnable or
 * Waiting; GTR_GS_UNDETERMINED for every other event.
 */
static inline uint8_t gtr_v1_stop_state(unsigned typ)
{
	if (typ >= 64)
		return GTR_GS_UNDETERMINED;
	if (GTR_V1_STOP_RUNNABLE >> typ & 1)
		return GTR_GS_RUNNABLE;
	if (GTR_V1_STOP_WAITING >> typ & 1)
		return GTR_GS_WAITING;
	return GTR_GS_UNDETERMINED;
}

/*
 * Which goroutine a timed event of type `typ` belongs to, as Go's
 * parsers decide it, given the goroutine *g the P runs (0: none) and
 * its first argument; updates *g for the P's next event.
 */
static inline uint64_t gtr_v1_event_g(unsigned typ, uint64_t arg0, uint64_t *g)
{
	uint64_t was = *g;
	switch (typ) {
	case GTR_V1_GOSTART:
	case GTR_V1_GOSTARTLOCAL:
	case GTR_V1_GOSTARTLABEL:
		return *g = arg0;
	case GTR_V1_GOSYSEXIT:
	case GTR_V1_GOWAITING:
	case GTR_V1_GOINSYSCALL:
		return arg0;
	default:
		/* A goroutine that ends or stops leaves the P without one. */
		if (typ < 64 && ((GTR_V1_STOP_RUNNABLE | GTR_V1_STOP_WAITING | GTR_V1_BIT(GTR_V1_GOEND) |
				  GTR_V1_BIT(GTR_V1_GOSYSBLOCK)) >> typ & 1))
			*g = 0;
		return was;
	}
}

/* What a cursor stamps on each timed event it hands out. */
static inline void gtr_v1_cursor_stamp(const gtr_v1_cursor *c, gtr_v1_event *ev)
{
	ev->ticks = c->ticks;
	ev->seq = c->seq;
	ev->p = c->p;
	ev->batch = c->batch;
	ev->index = c->index;
	ev->blocked = 0;
	ev->oob = 0;
}

/* Positions c at the first event of batch `batch`; g as above (0: none). */
void gtr_v1_cursor_init(gtr_v1_cursor *c, const gtr_trace *t, size_t batch, uint64_t g);

/*
 * Decodes the next timed event of the batch into *ev, skipping tables
 * (strings, stacks, frequency) and CPU samples (which are ordered by the
 * oob table). Returns 1, 0 at the end of the batch, or a negative
 * gtr_errcode with err filled (offset, batch and event index).
 */
int gtr_v1_cursor_next(gtr_v1_cursor *c, gtr_v1_event *ev, gtr_error *err);

/* Decodes oob entry i (a CPU sample or a syscall exit) on its own; loss as in the cursor. */
int gtr_v1_decode_oob(const gtr_trace *t, size_t i, gtr_v1_event *ev, gtr_loss *loss,
		      gtr_error *err);

/*
 * A tolerant read (lenient, or of a truncated trace) reads references to
 * missing strings and stacks as none and goes on past what it cannot
 * decode or order, recording it.
 */
static inline int gtr_v1_tolerant(const gtr_trace *t)
{
	return (t->flags & GTR_OPEN_LENIENT) || t->loss.truncated;
}

/* The stack's id with no frames, or missing, reads as 0 (as Go does). */
uint64_t gtr_v1_stack_or_zero(const gtr_v1_index *x, uint64_t id);

/* Binary search of the oob table by offset: its index, or -1. */
ptrdiff_t gtr_v1_oob_find(const gtr_v1_index *x, uint64_t off);

/* Go 1.27's reason for a goroutine leaving Running by event `type` ("" none). */
gtr_str gtr_v1_block_reason(unsigned type);

/*
 * Whether a CPU sample of goroutine g was taken at ticks in [from, to):
 * 1, 0, or a negative gtr_errcode. (A GoSysCall followed on its P by
 * the goroutine's GoSysBlock blocked, unless such a sample falls between.)
 */
int gtr_v1_sampled(const gtr_trace *t, uint64_t g, uint64_t from, uint64_t to, gtr_error *err);

/* Nanoseconds since the first event, as Go converts ticks. */
uint64_t gtr_v1_ns(const gtr_v1_index *x, uint64_t ticks);

/* The hooks of gtr_v1_ops (core/trace/trace_impl.h). */
int gtr_v1_open(gtr_trace *t, gtr_error *err);
void gtr_v1_free(gtr_trace *t);
int gtr_v1_string(const gtr_trace *t, uint32_t table, uint64_t id, gtr_str *out);
int gtr_v1_stack(const gtr_trace *t, uint32_t table, uint64_t id, gtr_frame *frames, size_t max,
		 size_t *n, gtr_error *err);
int gtr_v1_footprint(const gtr_trace *t, gtr_footprint *fp, gtr_error *err);
int gtr_v1_reader_open(gtr_reader *r, gtr_error *err);
int gtr_v1_reader_next(gtr_reader *r, gtr_event *ev, gtr_error *err);
void gtr_v1_reader_free(gtr_reader *r);

#endif
