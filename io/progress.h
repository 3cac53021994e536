/*
 * io/progress.h: a one-line progress display on a terminal.
 *
 * Shows "[done/total] what" on one line of a terminal, rewritten in
 * place, and erases it at the end. It draws nothing when the descriptor
 * is not a terminal, so that logs and pipes stay clean. Any number of
 * threads may call gtr_progress_step on one display; the line is written
 * under a lock.
 */
#ifndef GTR_IO_PROGRESS_H
#define GTR_IO_PROGRESS_H

#include <pthread.h>
#include <stddef.h>

typedef struct gtr_progress {
	int fd;
	int on;       /* fd is a terminal */
	size_t total, done;
	size_t width; /* terminal columns */
	pthread_mutex_t lock;
} gtr_progress;

/* Sets up a display of `total` steps on fd (on only when fd is a terminal). */
void gtr_progress_init(gtr_progress *p, int fd, size_t total);

/* Counts one step as done (when `finished`) and shows `what`. */
void gtr_progress_step(gtr_progress *p, const char *what, int finished);

/* Erases the line and releases the lock. */
void gtr_progress_end(gtr_progress *p);

#endif
