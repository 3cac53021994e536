/*
 * core/v2/v2_spec.c: the event tables of trace versions 1.22, 1.23, 1.25 and
 * 1.26, indexed by wire event number, with Go's names (tracev2).
 *
 * Timed events list their arguments after the timestamp; structural
 * events (EventBatch, Stack, String, CPUSample, ...) list all of theirs,
 * since footprint reports count them too. A version's table holds the
 * events that version writes, with one addition: "Sync" (50) is in every
 * table, because the reader emits a Sync event at each generation
 * boundary whatever the version (1.22 and 1.23 mark it with a lone
 * Frequency batch instead of a Sync batch).
 */
#include <string.h>

#include "core/trace/spec_impl.h"
#include "core/v2/v2.h"

#define E(num, name, stack, n, ...) [num] = {name, n, stack, {__VA_ARGS__}},

/* Go 1.22. */
#define EV122(X)                                                                                   \
	X(1, "EventBatch", -1, 4, "gen", "m", "time", "size")                                      \
	X(2, "Stacks", -1, 0, NULL)                                                                \
	X(3, "Stack", -1, 2, "id", "nframes")                                                      \
	X(4, "Strings", -1, 0, NULL)                                                               \
	X(5, "String", -1, 1, "id")                                                                \
	X(6, "CPUSamples", -1, 0, NULL)                                                            \
	X(7, "CPUSample", 4, 5, "time", "m", "p", "g", "stack")                                    \
	X(8, "Frequency", -1, 1, "freq")                                                           \
	X(9, "ProcsChange", 1, 2, "procs_value", "stack")                                          \
	X(10, "ProcStart", -1, 2, "p", "p_seq")                                                    \
	X(11, "ProcStop", -1, 0, NULL)                                                             \
	X(12, "ProcSteal", -1, 3, "p", "p_seq", "m")                                               \
	X(13, "ProcStatus", -1, 2, "p", "pstatus")                                                 \
	X(14, "GoCreate", 2, 3, "new_g", "new_stack", "stack")                                     \
	X(15, "GoCreateSyscall", -1, 1, "new_g")                                                   \
	X(16, "GoStart", -1, 2, "g", "g_seq")                                                      \
	X(17, "GoDestroy", -1, 0, NULL)                                                            \
	X(18, "GoDestroySyscall", -1, 0, NULL)                                                     \
	X(19, "GoStop", 1, 2, "reason_string", "stack")                                            \
	X(20, "GoBlock", 1, 2, "reason_string", "stack")                                           \
	X(21, "GoUnblock", 2, 3, "g", "g_seq", "stack")                                            \
	X(22, "GoSyscallBegin", 1, 2, "p_seq", "stack")                                            \
	X(23, "GoSyscallEnd", -1, 0, NULL)                                                         \
	X(24, "GoSyscallEndBlocked", -1, 0, NULL)                                                  \
	X(25, "GoStatus", -1, 3, "g", "m", "gstatus")                                              \
	X(26, "STWBegin", 1, 2, "kind_string", "stack")                                            \
	X(27, "STWEnd", -1, 0, NULL)                                                               \
	X(28, "GCActive", -1, 1, "gc_seq")                                                         \
	X(29, "GCBegin", 1, 2, "gc_seq", "stack")                                                  \
	X(30, "GCEnd", -1, 1, "gc_seq")                                                            \
	X(31, "GCSweepActive", -1, 1, "p")                                                         \
	X(32, "GCSweepBegin", 0, 1, "stack")                                                       \
	X(33, "GCSweepEnd", -1, 2, "swept_value", "reclaimed_value")                               \
	X(34, "GCMarkAssistActive", -1, 1, "g")                                                    \
	X(35, "GCMarkAssistBegin", 0, 1, "stack")                                                  \
	X(36, "GCMarkAssistEnd", -1, 0, NULL)                                                      \
	X(37, "HeapAlloc", -1, 1, "heapalloc_value")                                               \
	X(38, "HeapGoal", -1, 1, "heapgoal_value")                                                 \
	X(39, "GoLabel", -1, 1, "label_string")                                                    \
	X(40, "UserTaskBegin", 3, 4, "task", "parent_task", "name_string", "stack")                \
	X(41, "UserTaskEnd", 1, 2, "task", "stack")                                                \
	X(42, "UserRegionBegin", 2, 3, "task", "name_string", "stack")                             \
	X(43, "UserRegionEnd", 2, 3, "task", "name_string", "stack")                               \
	X(44, "UserLog", 3, 4, "task", "key_string", "value_string", "stack")

/* Added in Go 1.23: coroutine switches, GoStatus with a stack, experiments. */
#define EV123(X)                                                                                   \
	X(45, "GoSwitch", -1, 2, "g", "g_seq")                                                     \
	X(46, "GoSwitchDestroy", -1, 2, "g", "g_seq")                                              \
	X(47, "GoCreateBlocked", 2, 3, "new_g", "new_stack", "stack")                              \
	X(48, "GoStatusStack", 3, 4, "g", "m", "gstatus", "stack")                                 \
	X(49, "ExperimentalBatch", -1, 4, "exp", "gen", "m", "time")

#define EVSYNC(X) X(50, "Sync", -1, 0, NULL)

/* Added in Go 1.25: the sync batch's clock snapshot. */
#define EV125(X) X(51, "ClockSnapshot", -1, 3, "mono", "sec", "nsec")

/* Added in Go 1.26: the in-band end of a generation. */
#define EV126(X) X(52, "EndOfGeneration", -1, 0, NULL)

/* Experimental AllocFree events (1.23), numbered after MaxEvent = 127. */
#define EVEXP(X)                                                                                   \
	X(128, "Span", -1, 3, "id", "npages_value", "kindclass")                                   \
	X(129, "SpanAlloc", -1, 3, "id", "npages_value", "kindclass")                              \
	X(130, "SpanFree", -1, 1, "id")                                                            \
	X(131, "HeapObject", -1, 2, "id", "type")                                                  \
	X(132, "HeapObjectAlloc", -1, 2, "id", "type")                                             \
	X(133, "HeapObjectFree", -1, 1, "id")                                                      \
	X(134, "GoroutineStack", -1, 2, "id", "order")                                             \
	X(135, "GoroutineStackAlloc", -1, 2, "id", "order")                                        \
	X(136, "GoroutineStackFree", -1, 1, "id")

static const gtr_spec specs122[GTR_V2_EV_SYNC + 1] = {EV122(E) EVSYNC(E)};
static const gtr_spec specs123[GTR_V2_NUM_EVENTS] = {EV122(E) EV123(E) EVSYNC(E) EVEXP(E)};
static const gtr_spec specs125[GTR_V2_NUM_EVENTS] = {EV122(E) EV123(E) EVSYNC(E) EV125(E)
							     EVEXP(E)};
static const gtr_spec specs126[GTR_V2_NUM_EVENTS] = {EV122(E) EV123(E) EVSYNC(E) EV125(E)
							     EV126(E) EVEXP(E)};

const gtr_spec *gtr_v2_specs(int version, size_t *n)
{
	switch (version) {
	case 22: *n = sizeof specs122 / sizeof specs122[0]; return specs122;
	case 23: *n = GTR_V2_NUM_EVENTS; return specs123;
	case 25: *n = GTR_V2_NUM_EVENTS; return specs125;
	case 26: *n = GTR_V2_NUM_EVENTS; return specs126;
	}
	*n = 0;
	return NULL;
}

/* Timed events carry a timestamp delta first; Go's IsTimedEvent. */
static int is_timed(unsigned type)
{
	return (type >= GTR_V2_EV_PROCS_CHANGE && type <= GTR_V2_EV_GO_STATUS_STACK) ||
	       type == GTR_V2_EV_CLOCK_SNAPSHOT ||
	       (type >= GTR_V2_EV_SPAN && type <= GTR_V2_EV_GOROUTINE_STACK_FREE);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

int gtr_v2_layouts(int version, gtr_v2_layout lay[GTR_V2_NUM_EVENTS])
{
	size_t n;
	const gtr_spec *specs = gtr_v2_specs(version, &n);
	memset(lay, 0, GTR_V2_NUM_EVENTS * sizeof *lay);
	if (!specs)
		return -1;
	for (unsigned type = 1; type < n; type++) {
		const gtr_spec *s = &specs[type];
		gtr_v2_layout *l = &lay[type];
		/* Sync is in every table for the reader's sake, but before 1.25
		 * it is no wire event. */
		if (!s->name || (type == GTR_V2_EV_SYNC && version < 25))
			continue;
		l->valid = 1;
		l->flags = (uint8_t)((is_timed(type) ? GTR_V2_TIMED : 0) |
				     (type == GTR_V2_EV_STACK ? GTR_V2_FRAMES : 0) |
				     (type == GTR_V2_EV_STRING || type == GTR_V2_EV_EXPERIMENTAL_BATCH
					      ? GTR_V2_DATA
					      : 0));
		l->wire_args = (uint8_t)(s->nargs + (is_timed(type) ? 1 : 0));
		for (unsigned i = 0; i < s->nargs; i++) {
			if (strcmp(s->args[i], "stack") == 0 || strcmp(s->args[i], "new_stack") == 0)
				l->stack_mask |= (uint8_t)(1u << i);
			if (ends_with(s->args[i], "_string"))
				l->string_mask |= (uint8_t)(1u << i);
		}
	}
	return 0;
}
