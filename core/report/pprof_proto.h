/*
 * core/report/pprof_proto.h: a profile of core/analysis/pprof.h as the
 * gzip-compressed profile.proto that `go tool pprof` reads.
 *
 * The profile has the shape Go's cmd/trace gives its own: sample types
 * contentions/count and delay/nanoseconds, period type trace/count,
 * period 1, one location per PC (with its function, file and line) and
 * one function per (file, function name). Samples with the same
 * locations are merged.
 */
#ifndef GTR_CORE_PPROF_PROTO_H
#define GTR_CORE_PPROF_PROTO_H

#include "core/analysis/pprof.h"
#include "core/trace/trace.h"
#include "io/out.h"

/*
 * Resolves the stacks of p in t and writes the compressed profile to o.
 * Returns 0 or a negative gtr_errcode with *err filled (GTR_E_NOMEM, or
 * a stack that does not decode). Write errors stay in o->err.
 */
int gtr_pprof_write(const gtr_trace *t, const gtr_pprof *p, gtr_out *o, gtr_error *err);

#endif
