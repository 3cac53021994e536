/*
 * core/trace.h: an opened trace, its index, and an ordered event reader.
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

#include "error.h"
#include "event.h"
#include "spec.h"
#include "../simd/isa.h"

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
 * Detects and indexes the trace in data[0..size). The span must outlive
 * the trace; `k` chooses the scan kernels (NULL: scalar). On success
 * *out owns the index; free it with gtr_trace_free.
 */
int gtr_trace_open(gtr_trace **out, const uint8_t *data, size_t size, const gtr_kernels *k,
		   gtr_error *err);
void gtr_trace_free(gtr_trace *t);

const gtr_trace_info *gtr_trace_get_info(const gtr_trace *t);
const gtr_spec *gtr_trace_specs(const gtr_trace *t, size_t *n);
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

#endif
