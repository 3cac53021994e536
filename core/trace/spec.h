/*
 * core/trace/spec.h: the event tables of every trace version.
 *
 * One table per version, indexed by the event type number that the
 * version writes. Argument names follow Go's convention: a name, then an
 * optional `_type` suffix; `_string` marks a string id that reports
 * resolve, and the arg named by stack_arg is the event's own stack id.
 * Arguments are those after the timestamp.
 */
#ifndef GTR_CORE_SPEC_H
#define GTR_CORE_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/event.h"

typedef struct gtr_spec {
	const char *name;               /* NULL for a number the version does not use */
	uint8_t nargs;
	int8_t stack_arg;               /* index of the event's stack in args, -1 if none */
	const char *args[GTR_MAX_ARGS]; /* names, in wire order */
} gtr_spec;

/*
 * The table for a trace version (5 for "go 1.5 trace" ... 26), or NULL
 * for a version gtr does not read. *n receives its length.
 */
const gtr_spec *gtr_specs(int version, size_t *n);

#endif
