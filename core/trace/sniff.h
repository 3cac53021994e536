/*
 * core/trace/sniff.h: what an input that is not a Go execution trace is.
 *
 * People hand a trace reader the files that lie next to their traces: a
 * CPU profile, the JSON the trace viewer exports, the archive the trace
 * came in, the test binary, a log. gtr_detect names them, so that the
 * error says what the file is and what to use instead.
 */
#ifndef GTR_CORE_SNIFF_H
#define GTR_CORE_SNIFF_H

#include <stddef.h>
#include <stdint.h>

/*
 * A phrase for what data[0..n) is ("this is a pprof profile: use go
 * tool pprof"), or NULL when it looks like nothing known. Static
 * storage; looks at most at the first few KiB.
 */
const char *gtr_sniff(const uint8_t *data, size_t n);

#endif
