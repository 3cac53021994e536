/*
 * core/v1/v1_spec.c: the event tables of trace versions go 1.5 to go 1.21.
 *
 * Names and arguments follow the EventDescriptions of Go's v1 parsers
 * (internal/trace in Go 1.15 for 1.5 to 1.11, internal/trace/internal/
 * tracev1 for 1.19 and 1.21), with three changes that make a table
 * self-describing: the event's own stack is a final argument named
 * "stack"; string ids carry a `_string` suffix (named after the string
 * Go resolves them to); and GoCreate's id of the new goroutine's stack
 * is "new_stack" ("new_pc" in go 1.5, where it is a PC), so that it
 * does not clash with the event's own stack. The timestamp (and go 1.5's
 * sequence number) are not arguments. A table is indexed by the wire
 * event type; unused numbers have a NULL name.
 */
#include "core/trace/spec_impl.h"
#include "core/v1/v1.h"

#define EV(name, n, stk, ...) {name, n, stk, {__VA_ARGS__}}
#define EV0(name) {name, 0, -1, {NULL}}

/* Rows every version has, with the same arguments. */
#define ROWS_ALL                                                                   \
	[GTR_V1_STACK] = EV("Stack", 2, -1, "id", "siz"),                          \
	[GTR_V1_GOMAXPROCS] = EV("Gomaxprocs", 2, 1, "procs", "stack"),            \
	[GTR_V1_PROCSTART] = EV("ProcStart", 1, -1, "thread"),                     \
	[GTR_V1_PROCSTOP] = EV0("ProcStop"),                                       \
	[GTR_V1_GCDONE] = EV0("GCDone"),                                           \
	[GTR_V1_GCSTWDONE] = EV0("GCSTWDone"),                                     \
	[GTR_V1_GCSWEEPSTART] = EV("GCSweepStart", 1, 0, "stack"),                 \
	[GTR_V1_GOEND] = EV0("GoEnd"),                                             \
	[GTR_V1_GOSTOP] = EV("GoStop", 1, 0, "stack"),                             \
	[GTR_V1_GOSCHED] = EV("GoSched", 1, 0, "stack"),                           \
	[GTR_V1_GOPREEMPT] = EV("GoPreempt", 1, 0, "stack"),                       \
	[GTR_V1_GOSLEEP] = EV("GoSleep", 1, 0, "stack"),                           \
	[GTR_V1_GOBLOCK] = EV("GoBlock", 1, 0, "stack"),                           \
	[GTR_V1_GOBLOCKSEND] = EV("GoBlockSend", 1, 0, "stack"),                   \
	[GTR_V1_GOBLOCKRECV] = EV("GoBlockRecv", 1, 0, "stack"),                   \
	[GTR_V1_GOBLOCKSELECT] = EV("GoBlockSelect", 1, 0, "stack"),               \
	[GTR_V1_GOBLOCKSYNC] = EV("GoBlockSync", 1, 0, "stack"),                   \
	[GTR_V1_GOBLOCKCOND] = EV("GoBlockCond", 1, 0, "stack"),                   \
	[GTR_V1_GOBLOCKNET] = EV("GoBlockNet", 1, 0, "stack"),                     \
	[GTR_V1_GOSYSCALL] = EV("GoSysCall", 1, 0, "stack"),                       \
	[GTR_V1_GOSYSEXIT] = EV("GoSysExit", 3, -1, "g", "seq", "ts"),             \
	[GTR_V1_GOSYSBLOCK] = EV0("GoSysBlock"),                                   \
	[GTR_V1_GOWAITING] = EV("GoWaiting", 1, -1, "g"),                          \
	[GTR_V1_GOINSYSCALL] = EV("GoInSyscall", 1, -1, "g"),                      \
	[GTR_V1_HEAPALLOC] = EV("HeapAlloc", 1, -1, "mem"),                        \
	[GTR_V1_FUTILEWAKEUP] = EV0("FutileWakeup")

/* Rows of go 1.7 and later (which dropped go 1.5's sequence numbers). */
#define ROWS_1_7                                                                   \
	[GTR_V1_BATCH] = EV("Batch", 2, -1, "p", "ticks"),                         \
	[GTR_V1_FREQUENCY] = EV("Frequency", 1, -1, "freq"),                       \
	[GTR_V1_GCSTART] = EV("GCStart", 2, 1, "seq", "stack"),                    \
	[GTR_V1_GOCREATE] = EV("GoCreate", 3, 2, "g", "new_stack", "stack"),       \
	[GTR_V1_GOSTART] = EV("GoStart", 2, -1, "g", "seq"),                       \
	[GTR_V1_GOUNBLOCK] = EV("GoUnblock", 3, 2, "g", "seq", "stack"),           \
	[GTR_V1_TIMERGOROUTINE] = EV("TimerGoroutine", 1, -1, "g"),                \
	[GTR_V1_STRING] = EV("String", 1, -1, "id"),                               \
	[GTR_V1_GOSTARTLOCAL] = EV("GoStartLocal", 1, -1, "g"),                    \
	[GTR_V1_GOUNBLOCKLOCAL] = EV("GoUnblockLocal", 2, 1, "g", "stack"),        \
	[GTR_V1_GOSYSEXITLOCAL] = EV("GoSysExitLocal", 2, -1, "g", "ts")

#define ROWS_1_8                                                                   \
	[GTR_V1_GOSTARTLABEL] = EV("GoStartLabel", 3, -1, "g", "seq", "label_string"), \
	[GTR_V1_GOBLOCKGC] = EV("GoBlockGC", 1, 0, "stack")

/* 1.9 also gave GCSweepDone its arguments. */
#define ROWS_1_9                                                                   \
	[GTR_V1_GCMARKASSISTSTART] = EV("GCMarkAssistStart", 1, 0, "stack"),       \
	[GTR_V1_GCMARKASSISTDONE] = EV0("GCMarkAssistDone")

#define SWEEPDONE_OLD [GTR_V1_GCSWEEPDONE] = EV0("GCSweepDone")
#define SWEEPDONE_1_9 [GTR_V1_GCSWEEPDONE] = EV("GCSweepDone", 2, -1, "swept", "reclaimed")
#define STW_OLD [GTR_V1_GCSTWSTART] = EV0("GCSTWStart")
#define STW_1_10 [GTR_V1_GCSTWSTART] = EV("GCSTWStart", 1, -1, "kindid")
#define NEXTGC [GTR_V1_NEXTGC] = EV("NextGC", 1, -1, "mem")
#define HEAPGOAL [GTR_V1_NEXTGC] = EV("HeapGoal", 1, -1, "mem")

#define ROWS_1_11                                                                  \
	[GTR_V1_USERTASKCREATE] =                                                  \
		EV("UserTaskCreate", 4, 3, "taskid", "pid", "name_string", "stack"), \
	[GTR_V1_USERTASKEND] = EV("UserTaskEnd", 2, 1, "taskid", "stack"),         \
	[GTR_V1_USERREGION] =                                                      \
		EV("UserRegion", 4, 3, "taskid", "mode", "name_string", "stack"),  \
	[GTR_V1_USERLOG] = EV("UserLog", 3, 2, "id", "category_string", "stack")

#define ROWS_1_19 [GTR_V1_CPUSAMPLE] = EV("CPUSample", 4, 3, "ts", "p", "g", "stack")

static const gtr_spec v1_5[GTR_V1_STRING] = {
	ROWS_ALL,
	SWEEPDONE_OLD,
	STW_OLD,
	NEXTGC,
	[GTR_V1_BATCH] = EV("Batch", 3, -1, "p", "seq", "ticks"),
	[GTR_V1_FREQUENCY] = EV("Frequency", 2, -1, "freq", "unused"),
	[GTR_V1_GCSTART] = EV("GCStart", 1, 0, "stack"),
	[GTR_V1_GOCREATE] = EV("GoCreate", 3, 2, "g", "new_pc", "stack"),
	[GTR_V1_GOSTART] = EV("GoStart", 1, -1, "g"),
	[GTR_V1_GOUNBLOCK] = EV("GoUnblock", 2, 1, "g", "stack"),
	[GTR_V1_TIMERGOROUTINE] = EV("TimerGoroutine", 2, -1, "g", "unused"),
};

static const gtr_spec v1_7[GTR_V1_GOSTARTLABEL] = {
	ROWS_ALL, ROWS_1_7, SWEEPDONE_OLD, STW_OLD, NEXTGC,
};

static const gtr_spec v1_8[GTR_V1_GCMARKASSISTSTART] = {
	ROWS_ALL, ROWS_1_7, ROWS_1_8, SWEEPDONE_OLD, STW_OLD, NEXTGC,
};

static const gtr_spec v1_9[GTR_V1_USERTASKCREATE] = {
	ROWS_ALL, ROWS_1_7, ROWS_1_8, ROWS_1_9, SWEEPDONE_1_9, STW_OLD, NEXTGC,
};

static const gtr_spec v1_10[GTR_V1_USERTASKCREATE] = {
	ROWS_ALL, ROWS_1_7, ROWS_1_8, ROWS_1_9, SWEEPDONE_1_9, STW_1_10, NEXTGC,
};

static const gtr_spec v1_11[GTR_V1_CPUSAMPLE] = {
	ROWS_ALL, ROWS_1_7, ROWS_1_8, ROWS_1_9, ROWS_1_11, SWEEPDONE_1_9, STW_1_10, NEXTGC,
};

/* 1.19 added CPU samples and renamed NextGC; 1.21 only widened GCSTWStart's kinds. */
static const gtr_spec v1_19[GTR_V1_NTYPES] = {
	ROWS_ALL, ROWS_1_7, ROWS_1_8, ROWS_1_9, ROWS_1_11, ROWS_1_19, SWEEPDONE_1_9, STW_1_10, HEAPGOAL,
};

#define TABLE(t) (*n = sizeof(t) / sizeof((t)[0]), (t))

const gtr_spec *gtr_v1_specs(int version, size_t *n)
{
	switch (version) {
	case 5: return TABLE(v1_5);
	case 7: return TABLE(v1_7);
	case 8: return TABLE(v1_8);
	case 9: return TABLE(v1_9);
	case 10: return TABLE(v1_10);
	case 11: return TABLE(v1_11);
	case 19:
	case 21: return TABLE(v1_19);
	}
	*n = 0;
	return NULL;
}
