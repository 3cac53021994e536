/*
 * core/base/duration.h: durations as the command line writes them.
 *
 * One syntax for every option that takes a duration (--fail-over,
 * --min-delta, --from, --window, ...): that of Go's time.ParseDuration,
 * which Go users already write. A duration is a sequence of decimal
 * numbers, each with an optional fraction and a required unit: "300ms",
 * "1.5us", "1h2m3.5s". The units are ns, us, µs (U+00B5 or U+03BC), ms,
 * s, m and h. "0" alone needs no unit. A sign is accepted as Go does, but
 * a duration below zero is refused (every option is a length of time or
 * a time since the trace began), as is one past Go's limit of 2^63-1 ns.
 */
#ifndef GTR_CORE_BASE_DURATION_H
#define GTR_CORE_BASE_DURATION_H

#include <stddef.h>
#include <stdint.h>

/* The longest duration (Go's time.Duration holds 2^63-1 ns, about 292 years). */
#define GTR_DURATION_MAX ((uint64_t)INT64_MAX)

/*
 * Parses s into *ns. Returns 0, or -1 with *ns untouched and, when why is
 * not NULL, one line in why[0..cap) that quotes s and says what is wrong
 * ("missing unit in \"10\" ..."). Thread-safe; s is read, never kept.
 */
int gtr_duration_parse(const char *s, uint64_t *ns, char *why, size_t cap);

#endif
