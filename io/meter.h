/*
 * io/meter.h: a byte progress bar on one terminal line, for long runs.
 *
 *   gtr: decode greedy  [##########..........]  48%  412.3 MiB/858.0 MiB  318.4 MiB/s
 *
 * The line is rewritten in place and erased by gtr_meter_end. In
 * GTR_METER_AUTO mode nothing is drawn unless the descriptor is a
 * terminal, and not before the run has lasted GTR_METER_DELAY_MS, so that
 * quick commands, pipes and CI logs stay clean; GTR_METER_ON draws at
 * once, wherever the descriptor goes. Redraws are spaced
 * GTR_METER_EVERY_MS apart. The rate is that of the current phase: a new
 * label, or a count that goes back, starts a new one. Not thread-safe:
 * one meter, updated from one thread at a time.
 */
#ifndef GTR_IO_METER_H
#define GTR_IO_METER_H

#include <stddef.h>
#include <stdint.h>

#define GTR_METER_DELAY_MS 500
#define GTR_METER_EVERY_MS 100

typedef enum gtr_meter_mode {
	GTR_METER_AUTO = 0, /* on a terminal, after GTR_METER_DELAY_MS */
	GTR_METER_OFF,
	GTR_METER_ON,       /* always, at once */
} gtr_meter_mode;

typedef struct gtr_meter {
	int fd;
	int on;          /* may draw at all */
	int wait;        /* hold back until the delay has passed */
	int drawn;       /* a line is on the screen */
	size_t width;    /* terminal columns */
	int64_t t0;      /* ns, monotonic: when the meter started */
	int64_t phase_t0; /* when the current phase started */
	int64_t last;    /* when the line was last drawn */
	uint64_t last_done;
	char what[48];   /* the current phase's label */
} gtr_meter;

/* Sets up a meter on fd. */
void gtr_meter_init(gtr_meter *m, int fd, gtr_meter_mode mode);

/* `done` of `total` bytes of `what` ("decode", "index"); total 0: unknown. */
void gtr_meter_update(gtr_meter *m, const char *what, uint64_t done, uint64_t total);

/* Erases the line, if one is drawn; the meter may be updated again after. */
void gtr_meter_end(gtr_meter *m);

/* Seconds on the monotonic clock, for timing phases. */
double gtr_seconds(void);

/* Writes bytes for people into buf: "512 B", "12.3 KiB", "1.02 GiB". */
void gtr_meter_bytes(char *buf, size_t cap, double bytes);

#endif
