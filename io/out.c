/* io/out.c: buffered output. */
#include "out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void gtr_out_init(gtr_out *o, int fd)
{
	o->fd = fd;
	o->err = 0;
	o->len = 0;
}

static void drain(gtr_out *o)
{
	size_t done = 0;
	while (!o->err && done < o->len) {
		ssize_t k = write(o->fd, o->buf + done, o->len - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			o->err = errno;
		else
			done += (size_t)k;
	}
	o->len = 0;
}

void gtr_out_write(gtr_out *o, const void *p, size_t n)
{
	if (o->err)
		return;
	if (o->len + n > GTR_OUT_BUFSZ) {
		drain(o);
		if (n > GTR_OUT_BUFSZ) {
			/* Too big to buffer: send it straight through. */
			const char *c = p;
			while (!o->err && n) {
				ssize_t k = write(o->fd, c, n);
				if (k < 0 && errno == EINTR)
					continue;
				if (k < 0) {
					o->err = errno;
					break;
				}
				c += k;
				n -= (size_t)k;
			}
			return;
		}
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

void gtr_out_str(gtr_out *o, const char *s)
{
	gtr_out_write(o, s, strlen(s));
}

void gtr_out_char(gtr_out *o, char c)
{
	if (o->len == GTR_OUT_BUFSZ)
		drain(o);
	if (!o->err)
		o->buf[o->len++] = c;
}

void gtr_out_u64(gtr_out *o, uint64_t v)
{
	char tmp[24];
	int i = (int)sizeof tmp;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	gtr_out_write(o, tmp + i, sizeof tmp - (size_t)i);
}

void gtr_out_i64(gtr_out *o, int64_t v)
{
	if (v < 0) {
		gtr_out_char(o, '-');
		gtr_out_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		gtr_out_u64(o, (uint64_t)v);
	}
}

void gtr_out_printf(gtr_out *o, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof tmp) {
		gtr_out_write(o, tmp, (size_t)n);
	} else if (n >= 0) {
		/* Rare long line: format it again into a buffer of its size. */
		char *big = malloc((size_t)n + 1);
		if (big) {
			vsnprintf(big, (size_t)n + 1, fmt, again);
			gtr_out_write(o, big, (size_t)n);
			free(big);
		} else {
			o->err = ENOMEM;
		}
	}
	va_end(again);
}

int gtr_out_flush(gtr_out *o)
{
	drain(o);
	return o->err;
}
