/*
 * core/trace/trace.h: an opened trace, its index, and an ordered event reader.
 *
 * gtr_trace_open runs the detect and index stages over a byte span that
 * the caller keeps alive (io/map.h provides one): the header is checked,
 * every batch is located and the string, stack and frequency tables are
 * found. The resulting gtr_trace is immutable and may be read by any
 * number of threads at once. A gtr_reader then yields every event in
 * the order Go's own reader gives them; each reader belongs to one
 * thread.
 *
 * Every function that can fail returns a negative gtr_errcode and fills
 * the gtr_error it was given (which may be NULL).
 */
#ifndef GTR_CORE_TRACE_H
#define GTR_CORE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/trace/event.h"
#include "core/trace/spec.h"
#include "simd/isa.h"

typedef enum gtr_family {
	GTR_FAMILY_V1 = 1, /* Go 1.5 to 1.21 */
	GTR_FAMILY_V2 = 2, /* Go 1.22 and later */
} gtr_family;

/* Newest and oldest trace versions gtr reads, as the N of "go 1.N trace". */
#define GTR_VERSION_OLDEST 5
#define GTR_VERSION_NEWEST 26

typedef struct gtr_trace_info {
	int version;        /* N of "go 1.N trace" */
	gtr_family family;
	uint64_t bytes;     /* size of the input */
	uint64_t batches;   /* event batches */
	uint64_t generations; /* v2 generations; 1 for v1 */
	uint64_t strings;   /* entries in the string tables */
	uint64_t stacks;    /* entries in the stack tables */
	uint64_t freq;      /* timestamp ticks per second (first generation for v2) */
	uint64_t span_ns;   /* last event's time minus the first's */
} gtr_trace_info;

typedef struct gtr_trace gtr_trace;

/*
 * Checks the header of a span: fills *version and *family, or returns
 * GTR_E_NOTTRACE, GTR_E_GZIP or GTR_E_VERSION.
 */
int gtr_detect(const uint8_t *data, size_t size, int *version, gtr_family *family, gtr_error *err);

/*
 * Detects and indexes the trace in data[0..size), on the calling thread
 * alone (gtr_trace_open_opts may use more). The span must outlive the
 * trace; `k` chooses the scan kernels (NULL: scalar). On success *out
 * owns the index; free it with gtr_trace_free.
 */
int gtr_trace_open(gtr_trace **out, const uint8_t *data, size_t size, const gtr_kernels *k,
		   gtr_error *err);

/* Flags of gtr_trace_open_ex. */
enum {
	/*
	 * A trace cut short opens: its complete part is read and the cut
	 * is recorded in the loss record (v2: the generations before the
	 * cut, and the cut one when its frequency was written; v1: only
	 * when the cut falls after the Frequency event, which Go writes
	 * when tracing stops). Corrupt content is still an error.
	 */
	GTR_OPEN_PARTIAL = 1,
	/*
	 * Also skip what cannot be decoded (a broken batch, a generation
	 * without frequency, bytes where a batch header should be, events
	 * that cannot be ordered, references to strings and stacks that do
	 * not exist) and read a trace of a newer Go with the newest decoder
	 * gtr has. Everything skipped is recorded; implies GTR_OPEN_PARTIAL.
	 */
	GTR_OPEN_LENIENT = 2,
};

/*
 * gtr_trace_open with flags (0: as gtr_trace_open). When the input is
 * truncated and GTR_OPEN_PARTIAL is given, this succeeds if anything
 * complete is left; gtr_trace_loss then says what was lost.
 */
int gtr_trace_open_ex(gtr_trace **out, const uint8_t *data, size_t size, const gtr_kernels *k,
		      unsigned flags, gtr_error *err);
void gtr_trace_free(gtr_trace *t);

/* What a long run is doing, as a progress callback is told. */
typedef enum gtr_phase {
	GTR_PHASE_INDEX = 0, /* gtr_trace_open's pass over the file */
	GTR_PHASE_DECODE,    /* a reader going through the events */
	GTR_PHASE_REDUCE,    /* after the events: merging, resolving, writing */
} gtr_phase;

/* "index", "decode", "reduce". */
const char *gtr_phase_name(gtr_phase p);

/*
 * Told `done` of `total` bytes of `phase`. The index pass calls it at
 * batch granularity; a reader, every few thousand events, with the
 * bytes estimated from how far its events have got through the trace's
 * time span. Calls are spaced at least GTR_PROGRESS_STEP bytes apart
 * (or 1/1000 of the input, if larger), and each pass ends with a call
 * where done == total. It runs on the thread of the open or the reader
 * that made the progress: with readers on several threads it must be
 * thread-safe. It must not call back into the trace.
 */
typedef void (*gtr_progress_fn)(void *ctx, gtr_phase phase, uint64_t done, uint64_t total);

#define GTR_PROGRESS_STEP (1u << 20)

/* Options of gtr_trace_open_opts. */
typedef struct gtr_open_opts {
	size_t sz;                  /* sizeof(gtr_open_opts): lets the struct grow */
	unsigned flags;             /* GTR_OPEN_* */
	const gtr_kernels *kernels; /* NULL: scalar */
	gtr_progress_fn progress;   /* NULL: none; kept for the trace's readers */
	void *progress_ctx;
	unsigned jobs;              /* threads the index may use; 0: one per online CPU */
	uint64_t split_min;         /* the smallest trace whose index is split between
				     * threads; 0: GTR_SPLIT_MIN (tests set it low) */
} gtr_open_opts;

#define GTR_SPLIT_MIN (UINT64_C(32) << 20)

/* gtr_trace_open with options (NULL: as gtr_trace_open). */
int gtr_trace_open_opts(gtr_trace **out, const uint8_t *data, size_t size,
			const gtr_open_opts *opts, gtr_error *err);

/*
 * One kind of loss: how many things of that kind were skipped, the
 * bytes they take, where the first one is, what was wrong with it, and
 * the time their events covered, when it is known.
 */
typedef struct gtr_loss_item {
	uint64_t count;
	uint64_t bytes;
	uint64_t first_off;
	uint64_t from_ns, to_ns; /* ns since the trace's first event; valid when has_time */
	int has_time;
	char why[256];           /* the first one's problem, one line, no offset prefix */
} gtr_loss_item;

/*
 * What a partial or lenient read left out. Filled by the decoders as
 * they meet it (at open, and while readers run); never printed by the
 * library.
 */
typedef struct gtr_loss {
	int truncated;            /* the input ends inside a batch, an event or a generation */
	uint64_t truncated_at;    /* where the complete part ends */
	uint64_t truncated_bytes; /* bytes from there to the end, not read */
	uint64_t truncated_batches; /* batches of the cut part not read (complete or not) */
	int64_t truncated_after_ns; /* events after this time are missing; -1 unknown */
	char truncated_why[256];  /* the decoder's description of the cut */
	gtr_loss_item batches;    /* broken batches skipped (lenient) */
	gtr_loss_item generations; /* generations skipped: no frequency or clock (lenient) */
	gtr_loss_item garbage;    /* bytes skipped to find the next batch (lenient) */
	gtr_loss_item events;     /* events dropped because they could not be ordered */
	gtr_loss_item forced;     /* events let through although what they wait for was lost */
	gtr_loss_item refs;       /* references to missing strings or stacks, read as none */
	int no_freq;              /* the frequency was cut off: times are ticks, shown as ns */
	int version_found;        /* nonzero: a newer version, read as version_read */
	int version_read;
} gtr_loss;

/* 1 when anything at all was lost. */
int gtr_loss_any(const gtr_loss *l);

/*
 * Copies what was lost so far into *out: what the open found, and the
 * most any reader of t has found (readers record theirs when they end
 * or are freed). Thread-safe.
 */
void gtr_trace_loss(const gtr_trace *t, gtr_loss *out);

const gtr_trace_info *gtr_trace_get_info(const gtr_trace *t);
const gtr_spec *gtr_trace_specs(const gtr_trace *t, size_t *n);

/* The spec index of the event type named `name` in t's version, or -1. */
int gtr_trace_type(const gtr_trace *t, const char *name);
const uint8_t *gtr_trace_data(const gtr_trace *t);

/* Resolves string `id` of table `table`. 0, or GTR_E_NOSTRING. */
int gtr_trace_string(const gtr_trace *t, uint32_t table, uint64_t id, gtr_str *out);

typedef struct gtr_frame {
	uint64_t pc;
	gtr_str func; /* empty when the trace has no symbols (Go 1.5) */
	gtr_str file;
	uint64_t line;
} gtr_frame;

/*
 * Resolves stack `id` of table `table` into at most `max` frames,
 * innermost first; *n receives the number of frames written. Returns 0,
 * GTR_E_NOSTACK, or a decoding error.
 */
int gtr_trace_stack(const gtr_trace *t, uint32_t table, uint64_t id, gtr_frame *frames,
		    size_t max, size_t *n, gtr_error *err);

/* Event counts and encoded bytes per event type, as on the wire. */
typedef struct gtr_footprint {
	uint64_t count[256];
	uint64_t bytes[256];
	uint64_t events;      /* all counted events */
	uint64_t total_bytes; /* the whole input, header included */
} gtr_footprint;

int gtr_trace_footprint(const gtr_trace *t, gtr_footprint *fp, gtr_error *err);

typedef struct gtr_reader gtr_reader;

/* A reader over every event of t, in Go's order. */
int gtr_reader_open(gtr_reader **out, const gtr_trace *t, gtr_error *err);

/*
 * Fills *ev with the next event. Returns 1 for an event, 0 at the end,
 * or a negative gtr_errcode (the reader is then finished).
 */
int gtr_reader_next(gtr_reader *r, gtr_event *ev, gtr_error *err);
void gtr_reader_free(gtr_reader *r);

/*
 * The furthest r has put an event past the time its thread gave it, in
 * ns, so far. Go's reader makes times strictly increasing in its order:
 * events that share a nanosecond are spaced 1 ns apart, and an event
 * that must come after another thread's later-stamped one (the runtime
 * stamped the two out of order) is put just after it. 0 for v1 traces,
 * whose times Go's reader keeps.
 */
uint64_t gtr_reader_pushed(const gtr_reader *r);

/* Who writes a trace version: "Go 1.23 or 1.24" for 23. */
const char *gtr_version_writers(int version);

#endif
