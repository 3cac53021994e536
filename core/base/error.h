/*
 * core/base/error.h: error codes and the error record filled by the library.
 *
 * Library code never prints and never exits: a failing call returns a
 * negative gtr_errcode and, when given one, fills a gtr_error with the
 * byte offset, batch and event where decoding stopped. The CLI turns that
 * into one line.
 */
#ifndef GTR_CORE_ERROR_H
#define GTR_CORE_ERROR_H

#include <stdint.h>

typedef enum gtr_errcode {
	GTR_OK = 0,
	GTR_E_NOTTRACE = -1,  /* not a Go execution trace at all */
	GTR_E_GZIP = -2,      /* a gzip stream: decompress it first */
	GTR_E_VERSION = -3,   /* a trace version gtr does not know */
	GTR_E_TRUNCATED = -4, /* the data ends inside something */
	GTR_E_VARINT = -5,    /* a varint longer than 10 bytes */
	GTR_E_BATCHLEN = -6,  /* a batch length past the end of the file */
	GTR_E_EVTYPE = -7,    /* an unknown event type */
	GTR_E_NOSTRING = -8,  /* a reference to a string that does not exist */
	GTR_E_NOSTACK = -9,   /* a reference to a stack that does not exist */
	GTR_E_CORRUPT = -10,  /* inconsistent content (bad count, order, state) */
	GTR_E_NOMEM = -11,
	GTR_E_IO = -12,
	GTR_E_USAGE = -13,
} gtr_errcode;

typedef struct gtr_error {
	gtr_errcode code;
	uint64_t off;  /* byte offset in the input where it went wrong */
	int64_t batch; /* index of the batch, -1 when not in one */
	int64_t event; /* index of the event in its batch, -1 when unknown */
	char msg[240]; /* one line, no trailing newline, no offset */
} gtr_error;

/* Short description of a code ("truncated trace"). */
const char *gtr_strerror(gtr_errcode code);

/*
 * Records an error in *e (which may be NULL) unless one is recorded
 * already, so that the first, most precise report wins. Returns code.
 */
gtr_errcode gtr_error_set(gtr_error *e, gtr_errcode code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Clears *e (batch and event become -1). */
void gtr_error_clear(gtr_error *e);

#endif
