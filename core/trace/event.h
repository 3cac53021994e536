/*
 * core/trace/event.h: one decoded event, in a form shared by every format.
 *
 * Decoders fill gtr_event values; analyses and reports read them. An
 * event's arguments keep the meaning and order of its version's spec
 * table (core/trace/spec.h), without the timestamp. String and stack ids are
 * left unresolved: they are looked up, lazily, in the table named by
 * `table` (a v2 generation; always 0 for v1).
 */
#ifndef GTR_CORE_EVENT_H
#define GTR_CORE_EVENT_H

#include <stddef.h>
#include <stdint.h>

#define GTR_MAX_ARGS 8
#define GTR_MAX_TRANS 2

/* A byte string that points into the input or into static storage. */
typedef struct gtr_str {
	const char *p;
	size_t n;
} gtr_str;

#define GTR_STR(s) ((gtr_str){(s), sizeof(s) - 1})

/* Goroutine states, as Go's trace reader names them. */
typedef enum gtr_gstate {
	GTR_GS_UNDETERMINED = 0,
	GTR_GS_NOTEXIST,
	GTR_GS_RUNNABLE,
	GTR_GS_RUNNING,
	GTR_GS_WAITING,
	GTR_GS_SYSCALL,
} gtr_gstate;

/* P states, as Go's trace reader names them. */
typedef enum gtr_pstate {
	GTR_PS_UNDETERMINED = 0,
	GTR_PS_NOTEXIST,
	GTR_PS_RUNNING,
	GTR_PS_IDLE,
} gtr_pstate;

typedef enum gtr_resource {
	GTR_RES_G = 1,
	GTR_RES_P = 2,
} gtr_resource;

/* A state change of a goroutine or a P caused by an event. */
typedef struct gtr_transition {
	uint8_t res;     /* gtr_resource */
	uint8_t from;    /* gtr_gstate or gtr_pstate */
	uint8_t to;
	int64_t id;      /* goroutine or P id */
	gtr_str reason;  /* why, when the trace says ("chan receive"); may be empty */
	uint64_t stack;  /* stack id of the goroutine that changes state, 0 when none */
	/* ns after the event's time at which it happens: 1 for the end of a
	 * v1 syscall that did not block, which Go's reader makes last 1 ns;
	 * else 0. (Last, so that initialisers in order may leave it out.) */
	uint8_t later;
} gtr_transition;

typedef struct gtr_event {
	uint64_t ts;      /* ns since the trace's first event */
	uint64_t off;     /* byte offset of the event in the input */
	int64_t g, p, m;  /* where it happened; -1 when unknown or none */
	uint32_t table;   /* string and stack table the ids refer to */
	uint16_t type;    /* index into the version's spec table */
	uint8_t nargs;
	uint8_t ntrans;
	uint64_t args[GTR_MAX_ARGS];
	uint64_t stack;   /* the event's own stack id, 0 when none */
	gtr_str data;     /* inline bytes carried by the event, else empty */
	gtr_transition trans[GTR_MAX_TRANS];
	/*
	 * Transitions past trans[], for the rare event that has more (a v1
	 * trace's first Gomaxprocs settles every goroutine created before
	 * it). Owned by the reader, valid until its next call; NULL and 0
	 * when there are none.
	 */
	const gtr_transition *xtrans;
	uint32_t nxtrans;
} gtr_event;

/* Every transition of an event, trans[] first, then xtrans[]. */
static inline unsigned gtr_event_ntrans(const gtr_event *ev)
{
	return ev->ntrans + ev->nxtrans;
}

static inline const gtr_transition *gtr_event_trans(const gtr_event *ev, unsigned i)
{
	return i < ev->ntrans ? &ev->trans[i] : &ev->xtrans[i - ev->ntrans];
}

const char *gtr_gstate_name(gtr_gstate s);
const char *gtr_pstate_name(gtr_pstate s);

#endif
