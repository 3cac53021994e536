/* core/base/error.c */
#include "core/base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *gtr_strerror(gtr_errcode code)
{
	switch (code) {
	case GTR_OK: return "no error";
	case GTR_E_NOTTRACE: return "not a Go execution trace";
	case GTR_E_GZIP: return "gzip-compressed input";
	case GTR_E_VERSION: return "unsupported trace version";
	case GTR_E_TRUNCATED: return "truncated trace";
	case GTR_E_VARINT: return "bad varint";
	case GTR_E_BATCHLEN: return "batch length past the end of the file";
	case GTR_E_EVTYPE: return "unknown event type";
	case GTR_E_NOSTRING: return "reference to a missing string";
	case GTR_E_NOSTACK: return "reference to a missing stack";
	case GTR_E_CORRUPT: return "corrupt trace";
	case GTR_E_NOMEM: return "out of memory";
	case GTR_E_IO: return "I/O error";
	case GTR_E_USAGE: return "usage error";
	}
	return "unknown error";
}

void gtr_error_clear(gtr_error *e)
{
	memset(e, 0, sizeof *e);
	e->batch = -1;
	e->event = -1;
}

gtr_errcode gtr_error_set(gtr_error *e, gtr_errcode code, uint64_t off, const char *fmt, ...)
{
	if (!e || e->code != GTR_OK)
		return code;
	e->code = code;
	e->off = off;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return code;
}
