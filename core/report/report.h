/*
 * core/report/report.h: the text reports over an opened trace.
 *
 * Each report writes to a gtr_out and returns 0 or a negative
 * gtr_errcode with *err filled; none of them prints errors itself.
 */
#ifndef GTR_CORE_REPORT_H
#define GTR_CORE_REPORT_H

#include <stdint.h>

#include "core/trace/trace.h"
#include "io/map.h"
#include "io/out.h"

/* Per event type count and bytes, in the layout of go tool trace -d=footprint. */
int gtr_report_footprint(const gtr_trace *t, gtr_out *o, gtr_error *err);

typedef struct gtr_dump_opts {
	int stacks;        /* print each event's stack, a frame a line */
	int transitions;   /* print state transitions instead of events */
	int64_t goid;      /* only this goroutine; -1 for all */
	uint64_t from, to; /* only events with from <= ts <= to */
	unsigned jobs;     /* engine threads (core/analysis/engine.h); 0: its default */
} gtr_dump_opts;

/* Every event (or transition) in time order, one line each. Streams. */
int gtr_report_dump(const gtr_trace *t, const gtr_dump_opts *opts, gtr_out *o, gtr_error *err);

/* Writes s quoted, with \" \\ and \xNN escapes for what is not printable. */
void gtr_out_quoted(gtr_out *o, gtr_str s);

/* Writes one stack, a "\tfunc file:line" line per frame. */
int gtr_report_stack(const gtr_trace *t, uint32_t table, uint64_t stack, gtr_out *o,
		     gtr_error *err);



/*
 * How a slice ended, in the greedy report's words ("blocked on chan
 * receive", "syscall", "still running when the trace ended
 * (truncated)"): state is the gtr_gstate the goroutine went to,
 * truncated 0, 1 or GTR_END_LOST. Written into buf (cap > 0); returns it.
 */
gtr_str gtr_fmt_ending(uint8_t state, gtr_str reason, int truncated, char *buf, size_t cap);

/* Writes s as a JSON string literal. */
void gtr_out_json_str(gtr_out *o, gtr_str s);

/* Writes a duration for people: "950 ns", "120.5 µs", "7.486 ms", "1.234 s". */
void gtr_out_dur(gtr_out *o, uint64_t ns);

/*
 * A duration in the unit that fits: "950ns", "120.5µs", "7.486ms",
 * "1.234s". `sep` goes between number and unit ("" or " "); `micro` is
 * the microsecond unit ("µs", or "us" where only ASCII will do).
 */
void gtr_fmt_dur(char *buf, size_t cap, uint64_t ns, const char *sep, const char *micro);

/* Longest line gtr_loss_lines writes, its NUL included. */
#define GTR_LOSS_LINE 640

/*
 * Describes a loss record (core/trace/trace.h), one line per kind of loss that
 * occurred, without newlines: what was skipped, its bytes, where the
 * first one is and why, and the time it covered. Writes at most `max`
 * lines; returns how many.
 */
size_t gtr_loss_lines(const gtr_loss *l, char lines[][GTR_LOSS_LINE], size_t max);

/* Bytes of the input the read did not use. */
uint64_t gtr_loss_bytes(const gtr_loss *l);

/* One line summing the loss up, for a file of file_bytes bytes. */
void gtr_loss_summary(const gtr_loss *l, uint64_t file_bytes, char *buf, size_t cap);

/*
 * A read that was partial, as the machine outputs say it: the trace's
 * loss record, and whether the file shrank under the read (io/map.h),
 * in which case what was read past its new end was zeros, not the file.
 */
typedef struct gtr_partial {
	gtr_loss loss;
	int shrank;
	uint64_t size_was, size_now; /* the file's size when mapped, and after it shrank */
	uint64_t zeros_from;         /* the first offset read as zeros */
} gtr_partial;

/*
 * Fills *p from trace t and the mapping m it was read from (NULL when
 * not a mapped file). Returns 1 when the read was partial, else 0. Call
 * it after the analyses have read t. Thread-safe as gtr_trace_loss is.
 */
int gtr_partial_get(gtr_partial *p, const gtr_trace *t, const gtr_map *m);

/*
 * Writes the member `"loss":{...}` of a JSON report (no comma around it)
 * when p is not NULL and the read was partial, and nothing otherwise, so
 * that a whole read keeps its output. Returns 1 if it wrote. The member:
 * truncated, truncated_at and truncated_after_ns (when truncated),
 * bytes_not_decoded, batches_skipped, generations_skipped,
 * events_dropped, events_forced, references_missing, times_in_ticks,
 * shrank (when the file shrank: {"size_was", "size_now", "zeros_from"}),
 * and lines, the loss in words.
 */
int gtr_out_loss_json(gtr_out *o, const gtr_partial *p);

#include "core/analysis/greedy.h"

typedef struct gtr_greedy_report_opts {
	const char *file; /* shown in the header */
	const gtr_map *input; /* the mapping read, to say if the file shrank; NULL: none */
	int json;
	size_t stack_depth; /* frames per stack; 0 for all */
	int color;          /* text: headings in ANSI colour (for a terminal) */
} gtr_greedy_report_opts;

/* The greedy report, as text in the proposal's layout or as JSON. */
int gtr_report_greedy(const gtr_trace *t, const gtr_greedy *g, const gtr_greedy_report_opts *opts,
		      gtr_out *o, gtr_error *err);
#endif
