/*
 * io/out.h: a buffered writer over a file descriptor.
 *
 * Reports write many small pieces; this keeps them out of the kernel
 * until a buffer is full. The first write error (EPIPE when the reader
 * went away, say) is remembered and every later call becomes a no-op,
 * so callers check once, at gtr_out_flush. One writer per thread.
 */
#ifndef GTR_IO_OUT_H
#define GTR_IO_OUT_H

#include <stddef.h>
#include <stdint.h>

#define GTR_OUT_BUFSZ (64 * 1024)

typedef struct gtr_out {
	int fd;
	int err;    /* 0, or the errno of the first failed write */
	size_t len;
	char buf[GTR_OUT_BUFSZ];
} gtr_out;

void gtr_out_init(gtr_out *o, int fd);
void gtr_out_write(gtr_out *o, const void *p, size_t n);
void gtr_out_str(gtr_out *o, const char *s);
void gtr_out_char(gtr_out *o, char c);
void gtr_out_u64(gtr_out *o, uint64_t v);
void gtr_out_i64(gtr_out *o, int64_t v);
void gtr_out_printf(gtr_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes out what is buffered. Returns 0 or the first errno seen. */
int gtr_out_flush(gtr_out *o);

#endif
