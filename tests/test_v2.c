/*
 * tests/test_v2.c: the v2 trace family (core/v2*.c): event tables, the
 * index and footprint, the ordered reader, and the errors on damaged
 * input.
 *
 * Most tests run on a small trace written here event by event (so that
 * every count, offset and transition is known; its expected events are
 * those `go tool trace -d=parsed` prints for it), the rest on the real
 * traces of corpora/traces, found under $GTR_ROOT or the current
 * directory.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace/spec.h"
#include "core/trace/trace.h"
#include "core/v2/v2.h"
#include "core/v2/v2_order.h"
#include "io/map.h"

/* ------------------------------------------------------------------ */
/* Event tables. */

static const int v2_versions[] = {22, 23, 25, 26};

Test(v2_spec, names_and_args_follow_go)
{
	for (size_t k = 0; k < 4; k++) {
		size_t n;
		const gtr_spec *s = gtr_specs(v2_versions[k], &n);
		cr_assert_not_null(s, "go 1.%d", v2_versions[k]);
		cr_assert_str_eq(s[1].name, "EventBatch");
		cr_assert_eq(s[1].nargs, 4);
		cr_assert_str_eq(s[3].name, "Stack");
		cr_assert_str_eq(s[5].name, "String");
		cr_assert_str_eq(s[7].name, "CPUSample");
		cr_assert_eq(s[7].nargs, 5);
		cr_assert_str_eq(s[7].args[0], "time");
		cr_assert_eq(s[7].stack_arg, 4);
		cr_assert_str_eq(s[8].name, "Frequency");
		cr_assert_str_eq(s[14].name, "GoCreate");
		cr_assert_eq(s[14].nargs, 3);
		cr_assert_str_eq(s[14].args[0], "new_g");
		cr_assert_str_eq(s[14].args[1], "new_stack");
		cr_assert_eq(s[14].stack_arg, 2);
		cr_assert_str_eq(s[16].name, "GoStart");
		cr_assert_str_eq(s[16].args[1], "g_seq");
		cr_assert_eq(s[16].stack_arg, -1);
		cr_assert_str_eq(s[19].name, "GoStop");
		cr_assert_str_eq(s[19].args[0], "reason_string");
		cr_assert_eq(s[19].stack_arg, 1);
		cr_assert_str_eq(s[26].name, "STWBegin");
		cr_assert_str_eq(s[26].args[0], "kind_string");
		cr_assert_str_eq(s[44].name, "UserLog");
		cr_assert_eq(s[44].stack_arg, 3);
		/* The reader's generation boundary has a name everywhere. */
		cr_assert_str_eq(s[50].name, "Sync");
	}
}

Test(v2_spec, each_version_has_its_events)
{
	size_t n22, n23, n25, n26;
	const gtr_spec *s22 = gtr_specs(22, &n22), *s23 = gtr_specs(23, &n23);
	const gtr_spec *s25 = gtr_specs(25, &n25), *s26 = gtr_specs(26, &n26);
	cr_assert_null(s22[45].name); /* GoSwitch came with 1.23 */
	cr_assert_null(s22[49].name);
	cr_assert_eq(n22, 51);
	cr_assert_str_eq(s23[45].name, "GoSwitch");
	cr_assert_str_eq(s23[48].name, "GoStatusStack");
	cr_assert_eq(s23[48].stack_arg, 3);
	cr_assert_str_eq(s23[49].name, "ExperimentalBatch");
	cr_assert_null(s23[51].name);
	cr_assert_str_eq(s25[51].name, "ClockSnapshot");
	cr_assert_null(s25[52].name);
	cr_assert_str_eq(s26[52].name, "EndOfGeneration");
	/* Experimental events keep Go's numbers, after MaxEvent (127). */
	cr_assert_eq(n23, 137);
	cr_assert_str_eq(s23[128].name, "Span");
	cr_assert_str_eq(s26[131].name, "HeapObject");
	cr_assert_str_eq(s26[136].name, "GoroutineStackFree");
	cr_assert_null(s26[127].name);
	size_t n;
	cr_assert_null(gtr_specs(24, &n));
	cr_assert_eq(n, 0);
	cr_assert_null(gtr_specs(27, &n));
}

Test(v2_spec, tables_are_well_formed)
{
	for (size_t k = 0; k < 4; k++) {
		size_t n;
		const gtr_spec *s = gtr_specs(v2_versions[k], &n);
		cr_assert_null(s[0].name);
		for (size_t i = 0; i < n; i++) {
			if (!s[i].name)
				continue;
			cr_assert_leq(s[i].nargs, GTR_MAX_ARGS, "%s", s[i].name);
			for (size_t a = 0; a < s[i].nargs; a++)
				cr_assert_not_null(s[i].args[a], "%s arg %zu", s[i].name, a);
			if (s[i].stack_arg >= 0) {
				cr_assert_lt(s[i].stack_arg, s[i].nargs, "%s", s[i].name);
				const char *a = s[i].args[s[i].stack_arg];
				cr_assert(strlen(a) >= 5 && strcmp(a + strlen(a) - 5, "stack") == 0,
					  "%s: main stack arg %s", s[i].name, a);
			}
			for (size_t j = 0; j < i; j++)
				cr_assert(!s[j].name || strcmp(s[i].name, s[j].name) != 0, "%s twice",
					  s[i].name);
		}
	}
}

/* ------------------------------------------------------------------ */
/* A trace written event by event. */

typedef struct tbuf {
	uint8_t *p;
	size_t n, cap;
} tbuf;

static void put(tbuf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		cr_assert_not_null(b->p);
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void byte1(tbuf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void uv(tbuf *b, uint64_t v)
{
	while (v >= 0x80) {
		byte1(b, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	byte1(b, (uint8_t)v);
}

/* The runtime writes batch lengths padded to 10 bytes. */
static void uv10(tbuf *b, uint64_t v)
{
	for (int i = 0; i < 9; i++, v >>= 7)
		byte1(b, (uint8_t)(v | 0x80));
	byte1(b, (uint8_t)v);
}

/* An event: its type, then its varints. */
static void ev_n(tbuf *b, uint8_t type, const uint64_t *args, size_t n)
{
	byte1(b, type);
	for (size_t i = 0; i < n; i++)
		uv(b, args[i]);
}

#define EV(b, type, ...)                                                                           \
	ev_n(b, type, (const uint64_t[]){__VA_ARGS__},                                             \
	     sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

/* A stack frame: pc, function and file string ids, line. */
static void frame(tbuf *b, uint64_t pc, uint64_t func, uint64_t file, uint64_t line)
{
	uv(b, pc);
	uv(b, func);
	uv(b, file);
	uv(b, line);
}

static void str(tbuf *b, uint64_t id, const char *s)
{
	EV(b, 5, id);
	uv(b, strlen(s));
	put(b, s, strlen(s));
}

#define NOM UINT64_MAX /* the M of batches written by no thread */

/* Appends a batch around `content`; returns the header's offset. */
static size_t batch(tbuf *out, uint64_t gen, uint64_t m, uint64_t time, tbuf *content,
		    uint64_t len)
{
	size_t at = out->n;
	byte1(out, 1);
	uv(out, gen);
	uv(out, m);
	uv(out, time);
	uv10(out, len);
	put(out, content->p, content->n);
	free(content->p);
	*content = (tbuf){0};
	return at;
}

enum {
	F_BAD_REASON = 1,  /* GoBlock names string 99 */
	F_BAD_STACK = 2,   /* GoCreate names stack 99 */
	F_NO_FREQ = 4,     /* generation 1 has no Frequency */
	F_BAD_TYPE = 8,    /* M 2's ProcStop becomes type 127 */
	F_LONG_VARINT = 16, /* a GoStart argument has 11 bytes */
	F_HUGE_LEN = 32,   /* M 2's batch claims 100000 bytes */
	F_HDR_VARINT = 64, /* M 2's batch time has 11 bytes */
	F_BAD_FRAME = 128, /* stack 1's first frame names function string 99 */
	F_PADDED = 256,    /* GoUnblock's sequence number takes 2 bytes, not 1 */
};

typedef struct synth {
	tbuf b;
	size_t off_m1, off_m2;      /* batch headers */
	size_t off_block, off_create, off_gostart, off_badtype, off_stack;
	size_t gen_end[2];          /* offsets just past each generation */
	size_t nbatches;
} synth;

static void long_varint(tbuf *b)
{
	for (int i = 0; i < 10; i++)
		byte1(b, 0xff);
	byte1(b, 0x01);
}

/*
 * Two generations. In the first, M 1 runs goroutine 1 on P 0, creates
 * and runs goroutine 2 (which unblocks 1, makes a syscall and exits),
 * runs 1 again and stops it; M 2 starts P 1 and wants to start
 * goroutine 1 earlier than M 1 stops it, so the reader must hold M 2
 * back until then. One CPU sample. The second generation only restates
 * the Ps. Frequency 1e9: a tick is a nanosecond.
 */
static synth build(int version, unsigned flags)
{
	synth s = {0};
	tbuf *o = &s.b, c = {0};
	char hdr[16] = {0};
	snprintf(hdr, sizeof hdr, "go 1.%d trace", version);
	put(o, hdr, 16);
	for (uint64_t gen = 1; gen <= 2; gen++) {
		uint64_t t0 = gen == 1 ? 900 : 2000;
		if (version >= 25) {
			byte1(&c, 50); /* Sync */
			if (!(flags & F_NO_FREQ) || gen == 2)
				EV(&c, 8, 1000000000);
			EV(&c, 51, 0, 1, 2, 3);
			batch(o, gen, NOM, t0, &c, c.n);
			s.nbatches++;
		} else if (!(flags & F_NO_FREQ) || gen == 2) {
			EV(&c, 8, 1000000000);
			batch(o, gen, NOM, t0, &c, c.n);
			s.nbatches++;
		}
		if (gen == 2) {
			EV(&c, 13, 0, 0, 2);
			EV(&c, 13, 0, 1, 2);
			s.nbatches++;
			batch(o, gen, 1, 2000, &c, c.n);
			if (version >= 26)
				byte1(o, 52);
			s.gen_end[1] = o->n;
			break;
		}
		size_t base = o->n + 1 + 1 + 1 + 2 + 10; /* where M 1's data starts */
		EV(&c, 13, 0, 0, 1);            /* ProcStatus P0 running */
		EV(&c, 25, 1, 1, 1, 2); /* GoStatus g1 running */
		s.off_create = base + c.n;
		EV(&c, 14, 5, 2, (flags & F_BAD_STACK ? 99 : 2), 1);
		s.off_block = base + c.n;
		EV(&c, 20, 5, (flags & F_BAD_REASON ? 99 : 1), 1);
		s.off_gostart = base + c.n;
		if (flags & F_LONG_VARINT) {
			byte1(&c, 16);
			uv(&c, 5);
			long_varint(&c);
			uv(&c, 1);
		} else {
			EV(&c, 16, 5, 2, 1); /* GoStart g2 */
		}
		if (flags & F_PADDED) {
			byte1(&c, 21); /* GoUnblock g1, its sequence number padded */
			uv(&c, 5);
			uv(&c, 1);
			byte1(&c, 0x81);
			byte1(&c, 0x00);
			uv(&c, 2);
		} else {
			EV(&c, 21, 5, 1, 1, 2); /* GoUnblock g1 */
		}
		EV(&c, 22, 5, 1, 2);            /* GoSyscallBegin */
		EV(&c, 23, 5);                                      /* GoSyscallEnd */
		EV(&c, 17, 5);                                      /* GoDestroy g2 */
		EV(&c, 16, 5, 1, 2);            /* GoStart g1 */
		EV(&c, 19, 5, 5, 1);            /* GoStop "yield" */
		EV(&c, 11, 5);                                      /* ProcStop */
		s.off_m1 = batch(o, gen, 1, 1000, &c, c.n);
		s.nbatches++;

		EV(&c, 13, 0, 1, 2);  /* ProcStatus P1 idle */
		EV(&c, 10, 10, 1, 1); /* ProcStart P1 */
		EV(&c, 16, 10, 1, 3); /* GoStart g1, too early */
		EV(&c, 17, 80);                           /* GoDestroy g1 */
		size_t stop_at = c.n;
		EV(&c, 11, 10);                           /* ProcStop */
		if (flags & F_BAD_TYPE)
			c.p[stop_at] = 127;
		s.off_m2 = o->n;
		if (flags & F_HDR_VARINT) {
			byte1(o, 1);
			uv(o, gen);
			uv(o, 2);
			long_varint(o);
			uv10(o, c.n);
			put(o, c.p, c.n);
			free(c.p);
			c = (tbuf){0};
		} else {
			s.off_badtype = o->n + 1 + 1 + 1 + 2 + 10 + stop_at;
			batch(o, gen, 2, 1000, &c, flags & F_HUGE_LEN ? 100000 : c.n);
		}
		s.nbatches++;

		byte1(&c, 6); /* CPUSamples */
		EV(&c, 7, 1030, 1, 0, 2, 2);
		batch(o, gen, NOM, t0, &c, c.n);
		byte1(&c, 2); /* Stacks */
		s.off_stack = o->n + 24 + c.n; /* header: 1 + 1 + 10 + 2 + 10 */
		EV(&c, 3, 1, 2);
		frame(&c, 0x401000, flags & F_BAD_FRAME ? 99 : 2, 3, 10);
		frame(&c, 0x402000, 4, 3, 20);
		EV(&c, 3, 2, 1);
		frame(&c, 0x401010, 2, 3, 11);
		batch(o, gen, NOM, t0, &c, c.n);
		byte1(&c, 4); /* Strings */
		str(&c, 1, "chan receive");
		str(&c, 2, "main.main");
		str(&c, 3, "/src/main.go");
		str(&c, 4, "runtime.goexit");
		str(&c, 5, "yield");
		batch(o, gen, NOM, t0, &c, c.n);
		s.nbatches += 3;
		if (version >= 26)
			byte1(o, 52);
		s.gen_end[0] = o->n;
	}
	return s;
}

static int open_span(const uint8_t *d, size_t n, gtr_trace **t, gtr_error *e)
{
	gtr_error_clear(e);
	return gtr_trace_open(t, d, n, NULL, e);
}

/* Opens, runs the footprint and reads every event: the first error. */
static int read_all(const uint8_t *d, size_t n, gtr_error *e, size_t *nev)
{
	gtr_trace *t;
	*nev = 0;
	int rc = open_span(d, n, &t, e);
	if (rc < 0)
		return rc;
	static gtr_footprint fp;
	rc = gtr_trace_footprint(t, &fp, e);
	gtr_reader *r = NULL;
	if (rc == 0)
		rc = gtr_reader_open(&r, t, e);
	gtr_event ev;
	while (rc == 0 && (rc = gtr_reader_next(r, &ev, e)) > 0) {
		(*nev)++;
		rc = 0;
	}
	gtr_reader_free(r);
	gtr_trace_free(t);
	return rc;
}

/* What `go tool trace -d=parsed` prints for build(v, 0), as
 * M P G, kind, Time minus the first Sync's, and the transition. */
typedef struct want {
	int64_t m, p, g;
	const char *type;
	uint64_t ts;
	int res; /* 0: no transition */
	int64_t id;
	int from, to;
	const char *reason;
	uint64_t stack; /* the transition's stack */
} want;

#define G GTR_RES_G
#define P GTR_RES_P
static const want want_events[] = {
	{-1, -1, -1, "Sync", 0, 0, 0, 0, 0, NULL, 0},
	{1, -1, -1, "ProcStatus", 100, P, 0, GTR_PS_UNDETERMINED, GTR_PS_RUNNING, "", 0},
	{2, -1, -1, "ProcStatus", 101, P, 1, GTR_PS_UNDETERMINED, GTR_PS_IDLE, "", 0},
	{1, 0, -1, "GoStatus", 102, G, 1, GTR_GS_UNDETERMINED, GTR_GS_RUNNING, "", 0},
	{1, 0, 1, "GoCreate", 106, G, 2, GTR_GS_NOTEXIST, GTR_GS_RUNNABLE, "", 2},
	{2, -1, -1, "ProcStart", 110, P, 1, GTR_PS_IDLE, GTR_PS_RUNNING, "", 0},
	{1, 0, 1, "GoBlock", 111, G, 1, GTR_GS_RUNNING, GTR_GS_WAITING, "chan receive", 1},
	{1, 0, -1, "GoStart", 116, G, 2, GTR_GS_RUNNABLE, GTR_GS_RUNNING, "", 0},
	{1, 0, 2, "GoUnblock", 121, G, 1, GTR_GS_WAITING, GTR_GS_RUNNABLE, "", 0},
	{1, 0, 2, "GoSyscallBegin", 126, G, 2, GTR_GS_RUNNING, GTR_GS_SYSCALL, "", 2},
	{1, 0, 2, "GoSyscallEnd", 131, G, 2, GTR_GS_SYSCALL, GTR_GS_RUNNING, "", 0},
	{1, 0, 2, "GoDestroy", 136, G, 2, GTR_GS_RUNNING, GTR_GS_NOTEXIST, "", 0},
	{1, 0, -1, "GoStart", 141, G, 1, GTR_GS_RUNNABLE, GTR_GS_RUNNING, "", 0},
	{1, 0, 1, "GoStop", 146, G, 1, GTR_GS_RUNNING, GTR_GS_RUNNABLE, "yield", 1},
	/* M 2's GoStart of goroutine 1 was stamped 120, but could only
	 * happen now; Go moves it to one past the previous event. */
	{2, 1, -1, "GoStart", 147, G, 1, GTR_GS_RUNNABLE, GTR_GS_RUNNING, "", 0},
	/* The sample (130) waits until the earliest M's next event is
	 * later than it; then it, too, is moved past the previous event. */
	{1, 0, 2, "CPUSample", 148, 0, 0, 0, 0, NULL, 0},
	{1, 0, -1, "ProcStop", 151, P, 0, GTR_PS_RUNNING, GTR_PS_IDLE, "", 0},
	{2, 1, 1, "GoDestroy", 200, G, 1, GTR_GS_RUNNING, GTR_GS_NOTEXIST, "", 0},
	{2, 1, -1, "ProcStop", 210, P, 1, GTR_PS_RUNNING, GTR_PS_IDLE, "", 0},
	{-1, -1, -1, "Sync", 1100, 0, 0, 0, 0, NULL, 0},
	{1, -1, -1, "ProcStatus", 1100 + 1, P, 0, GTR_PS_IDLE, GTR_PS_IDLE, "", 0},
	{1, -1, -1, "ProcStatus", 1100 + 2, P, 1, GTR_PS_IDLE, GTR_PS_IDLE, "", 0},
	{-1, -1, -1, "Sync", 1100 + 3, 0, 0, 0, 0, NULL, 0},
};
#undef G
#undef P

static void check_events(int version)
{
	synth s = build(version, 0);
	gtr_trace *t;
	gtr_error e;
	cr_assert_eq(open_span(s.b.p, s.b.n, &t, &e), 0, "go 1.%d: %s", version, e.msg);
	size_t ns;
	const gtr_spec *specs = gtr_trace_specs(t, &ns);
	gtr_reader *r;
	cr_assert_eq(gtr_reader_open(&r, t, &e), 0);
	gtr_event ev;
	size_t i = 0, nwant = sizeof want_events / sizeof want_events[0];
	int rc;
	while ((rc = gtr_reader_next(r, &ev, &e)) > 0) {
		cr_assert_lt(i, nwant, "go 1.%d: more events than Go's reader gives", version);
		const want *w = &want_events[i];
		cr_assert_lt(ev.type, ns);
		cr_assert_str_eq(specs[ev.type].name, w->type, "go 1.%d event %zu", version, i);
		cr_assert_eq(ev.ts, w->ts, "go 1.%d event %zu (%s): ts %llu", version, i, w->type,
			     (unsigned long long)ev.ts);
		cr_assert_eq(ev.m, w->m, "event %zu", i);
		cr_assert_eq(ev.p, w->p, "event %zu", i);
		cr_assert_eq(ev.g, w->g, "event %zu", i);
		cr_assert_eq(ev.table, i < 19 ? 0u : 1u, "event %zu", i);
		cr_assert_eq(ev.ntrans, w->res ? 1 : 0, "event %zu", i);
		if (w->res) {
			const gtr_transition *tr = &ev.trans[0];
			cr_assert_eq(tr->res, w->res, "event %zu", i);
			cr_assert_eq(tr->id, w->id, "event %zu", i);
			cr_assert_eq(tr->from, w->from, "event %zu", i);
			cr_assert_eq(tr->to, w->to, "event %zu", i);
			cr_assert_eq(tr->reason.n, strlen(w->reason), "event %zu", i);
			cr_assert(memcmp(tr->reason.p, w->reason, tr->reason.n) == 0, "event %zu", i);
			cr_assert_eq(tr->stack, w->stack, "event %zu", i);
		}
		if (ev.type != 50)
			cr_assert_eq(s.b.p[ev.off], ev.type, "event %zu: offset %llu", i,
				     (unsigned long long)ev.off);
		i++;
	}
	cr_assert_eq(rc, 0, "go 1.%d: %s", version, e.msg);
	cr_assert_eq(i, nwant);
	cr_assert_eq(gtr_reader_next(r, &ev, &e), 0);
	gtr_reader_free(r);
	gtr_trace_free(t);
	free(s.b.p);
}

Test(v2_reader, events_and_transitions_1_22)
{
	check_events(22);
}

Test(v2_reader, events_and_transitions_1_26)
{
	check_events(26);
}

Test(v2_reader, args_and_stacks)
{
	synth s = build(25, 0);
	gtr_trace *t;
	gtr_error e;
	cr_assert_eq(open_span(s.b.p, s.b.n, &t, &e), 0, "%s", e.msg);
	gtr_reader *r;
	cr_assert_eq(gtr_reader_open(&r, t, &e), 0);
	gtr_event ev;
	int seen = 0;
	while (gtr_reader_next(r, &ev, &e) > 0) {
		if (ev.off == s.off_create) {
			/* GoCreate new_g=2 new_stack=2 stack=1 */
			cr_assert_eq(ev.nargs, 3);
			cr_assert_eq(ev.args[0], 2);
			cr_assert_eq(ev.args[1], 2);
			cr_assert_eq(ev.args[2], 1);
			cr_assert_eq(ev.stack, 1);
			seen++;
		}
	}
	cr_assert_eq(seen, 1);
	gtr_frame fr[4];
	size_t n;
	cr_assert_eq(gtr_trace_stack(t, 0, 1, fr, 4, &n, &e), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(fr[0].pc, 0x401000);
	cr_assert_eq(fr[0].func.n, 9);
	cr_assert(memcmp(fr[0].func.p, "main.main", 9) == 0);
	cr_assert(memcmp(fr[0].file.p, "/src/main.go", 12) == 0);
	cr_assert_eq(fr[0].line, 10);
	cr_assert(memcmp(fr[1].func.p, "runtime.goexit", 14) == 0);
	cr_assert_eq(fr[1].line, 20);
	cr_assert_eq(gtr_trace_stack(t, 0, 1, fr, 1, &n, &e), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(gtr_trace_stack(t, 0, 0, fr, 4, &n, &e), 0);
	cr_assert_eq(n, 0);
	gtr_error_clear(&e);
	cr_assert_eq(gtr_trace_stack(t, 0, 3, fr, 4, &n, &e), GTR_E_NOSTACK);
	cr_assert_eq(gtr_trace_stack(t, 1, 1, fr, 4, &n, &e), GTR_E_NOSTACK); /* not in gen 2 */
	gtr_str str;
	cr_assert_eq(gtr_trace_string(t, 0, 1, &str), 0);
	cr_assert_eq(str.n, 12);
	cr_assert(memcmp(str.p, "chan receive", 12) == 0);
	cr_assert_eq(gtr_trace_string(t, 0, 0, &str), 0);
	cr_assert_eq(str.n, 0);
	cr_assert_eq(gtr_trace_string(t, 0, 6, &str), GTR_E_NOSTRING);
	cr_assert_eq(gtr_trace_string(t, 9, 1, &str), GTR_E_NOSTRING);
	gtr_reader_free(r);
	gtr_trace_free(t);
	free(s.b.p);
}

/* Go counts an event's canonical bytes: a padded varint counts as short. */
Test(v2_index, footprint_counts_padded_varints_short)
{
	synth a = build(26, 0), b = build(26, F_PADDED);
	cr_assert_eq(b.b.n, a.b.n + 1);
	gtr_trace *ta, *tb;
	gtr_error e;
	cr_assert_eq(open_span(a.b.p, a.b.n, &ta, &e), 0, "%s", e.msg);
	cr_assert_eq(open_span(b.b.p, b.b.n, &tb, &e), 0, "%s", e.msg);
	static gtr_footprint fa, fb;
	cr_assert_eq(gtr_trace_footprint(ta, &fa, &e), 0, "%s", e.msg);
	cr_assert_eq(gtr_trace_footprint(tb, &fb, &e), 0, "%s", e.msg);
	cr_assert_eq(fa.count[21], 1);
	for (int i = 0; i < 256; i++) {
		cr_assert_eq(fb.count[i], fa.count[i], "type %d", i);
		cr_assert_eq(fb.bytes[i], fa.bytes[i], "type %d: %llu bytes, %llu unpadded", i,
			     (unsigned long long)fb.bytes[i], (unsigned long long)fa.bytes[i]);
	}
	gtr_trace_free(ta);
	gtr_trace_free(tb);
	free(a.b.p);
	free(b.b.p);
}

Test(v2_index, info_and_footprint)
{
	for (size_t k = 0; k < 4; k++) {
		int v = v2_versions[k];
		synth s = build(v, 0);
		gtr_trace *t;
		gtr_error e;
		cr_assert_eq(open_span(s.b.p, s.b.n, &t, &e), 0, "go 1.%d: %s", v, e.msg);
		const gtr_trace_info *in = gtr_trace_get_info(t);
		cr_assert_eq(in->family, GTR_FAMILY_V2);
		cr_assert_eq(in->generations, 2);
		cr_assert_eq(in->batches, s.nbatches);
		cr_assert_eq(in->strings, 5);
		cr_assert_eq(in->stacks, 2);
		cr_assert_eq(in->freq, 1000000000);
		cr_assert_eq(in->span_ns, 2000 - 900, "span %llu", (unsigned long long)in->span_ns);
		static gtr_footprint fp;
		cr_assert_eq(gtr_trace_footprint(t, &fp, &e), 0, "%s", e.msg);
		cr_assert_eq(fp.count[1], s.nbatches);
		cr_assert_eq(fp.count[5], 5);
		cr_assert_eq(fp.count[3], 2);
		cr_assert_eq(fp.count[2], 1);
		cr_assert_eq(fp.count[4], 1);
		cr_assert_eq(fp.count[6], 1);
		cr_assert_eq(fp.count[7], 1);
		cr_assert_eq(fp.count[8], 2);
		cr_assert_eq(fp.count[13], 4);
		cr_assert_eq(fp.count[16], 3);
		cr_assert_eq(fp.count[17], 2);
		cr_assert_eq(fp.count[11], 2);
		cr_assert_eq(fp.count[50], v >= 25 ? 2 : 0);
		cr_assert_eq(fp.count[51], v >= 25 ? 2 : 0);
		cr_assert_eq(fp.count[52], v >= 26 ? 2 : 0);
		/* Go counts each varint at its shortest: the 10-byte batch
		 * lengths count as 1 or 2 bytes; everything else was written
		 * short. So every byte but the padding is accounted for. */
		uint64_t sum = 0, events = 0;
		for (int i = 0; i < 256; i++) {
			sum += fp.bytes[i];
			events += fp.count[i];
		}
		cr_assert_eq(fp.events, events);
		cr_assert_eq(fp.total_bytes, s.b.n);
		cr_assert_eq(sum + 16 + 9 * s.nbatches, s.b.n, "go 1.%d", v);
		/* GoStart dt=5 g=2 g_seq=1 and friends: 4 bytes each. */
		cr_assert_eq(fp.bytes[16], 12);
		cr_assert_eq(fp.bytes[5], 5 * 3 + 12 + 9 + 12 + 14 + 5);
		gtr_trace_free(t);
		free(s.b.p);
	}
}

/* ------------------------------------------------------------------ */
/* Damaged input: the right error, at an offset inside the file. */

static void expect_error(int version, unsigned flags, int code, size_t off, const char *needle)
{
	synth s = build(version, flags);
	gtr_error e;
	size_t nev;
	int rc = read_all(s.b.p, s.b.n, &e, &nev);
	cr_assert_eq(rc, code, "go 1.%d flags %#x: got %d (%s)", version, flags, rc, e.msg);
	cr_assert_eq(e.code, code);
	cr_assert_eq(e.off, off, "go 1.%d flags %#x: offset %llu, want %zu (%s)", version, flags,
		     (unsigned long long)e.off, off, e.msg);
	cr_assert_leq(e.off, s.b.n);
	if (needle)
		cr_assert(strstr(e.msg, needle), "message \"%s\" lacks \"%s\"", e.msg, needle);
	free(s.b.p);
}

/* Where build(version, 0) puts things. */
static synth layout(int version)
{
	synth s = build(version, 0);
	free(s.b.p);
	s.b = (tbuf){0};
	return s;
}

Test(v2_errors, missing_string)
{
	expect_error(22, F_BAD_REASON, GTR_E_NOSTRING, layout(22).off_block, "string 99");
	expect_error(26, F_BAD_REASON, GTR_E_NOSTRING, layout(26).off_block, "string 99");
}

Test(v2_errors, missing_stack)
{
	expect_error(23, F_BAD_STACK, GTR_E_NOSTACK, layout(23).off_create, "stack 99");
}

Test(v2_errors, stack_frame_names_a_missing_string)
{
	expect_error(25, F_BAD_FRAME, GTR_E_NOSTRING, layout(25).off_stack, "function string 99");
}

Test(v2_errors, generation_without_frequency)
{
	expect_error(22, F_NO_FREQ, GTR_E_CORRUPT, 16, "no frequency");
	expect_error(26, F_NO_FREQ, GTR_E_CORRUPT, 16, "no frequency");
}

Test(v2_errors, unknown_event_type)
{
	synth s = build(25, F_BAD_TYPE);
	expect_error(25, F_BAD_TYPE, GTR_E_EVTYPE, s.off_badtype, "127");
	gtr_trace *t;
	gtr_error e;
	cr_assert_eq(open_span(s.b.p, s.b.n, &t, &e), 0);
	static gtr_footprint fp;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_trace_footprint(t, &fp, &e), GTR_E_EVTYPE);
	cr_assert_eq(e.off, s.off_badtype);
	cr_assert_eq(e.batch, 2, "batch %lld", (long long)e.batch);
	cr_assert_eq(e.event, 4, "event %lld", (long long)e.event);
	gtr_trace_free(t);
	free(s.b.p);
}

Test(v2_errors, bad_varint)
{
	/* In an event: found by the footprint and the reader. */
	expect_error(22, F_LONG_VARINT, GTR_E_VARINT, layout(22).off_gostart + 2, "varint");
	/* In a batch header: found by the index. */
	expect_error(26, F_HDR_VARINT, GTR_E_VARINT, layout(26).off_m2 + 3, "varint");
}

Test(v2_errors, batch_length_past_the_end)
{
	synth s = build(26, 0);
	expect_error(26, F_HUGE_LEN, GTR_E_BATCHLEN, s.off_m2, "100000");
	/* A plausible length that runs past the end is a cut file. */
	size_t cut = s.off_m2 + 20;
	gtr_error e;
	size_t nev;
	cr_assert_eq(read_all(s.b.p, cut, &e, &nev), GTR_E_TRUNCATED);
	cr_assert(strstr(e.msg, "only"), "%s", e.msg);
	cr_assert_eq(e.off, s.off_m2);
	cr_assert_eq(e.batch, 2);
	free(s.b.p);
}

/* Every cut of a 1.26 trace is an error, but at a generation's end. */
Test(v2_errors, truncated_everywhere_1_26)
{
	synth s = build(26, 0);
	for (size_t cut = 0; cut < s.b.n; cut++) {
		gtr_error e;
		size_t nev;
		int rc = read_all(s.b.p, cut, &e, &nev);
		if (cut == 16 || cut == s.gen_end[0]) { /* no generation, or one whole */
			cr_assert_eq(rc, 0, "cut %zu: %s", cut, e.msg);
			continue;
		}
		cr_assert_lt(rc, 0, "cut %zu", cut);
		if (cut >= 16)
			cr_assert_eq(rc, GTR_E_TRUNCATED, "cut %zu: %d %s", cut, rc, e.msg);
		cr_assert_leq(e.off, cut, "cut %zu", cut);
		cr_assert(strstr(e.msg, "truncated") || cut < 16, "cut %zu: %s", cut, e.msg);
	}
	free(s.b.p);
}

/* Before 1.26 a cut between batches can leave a valid trace; inside a
 * batch it cannot. */
Test(v2_errors, truncated_everywhere_1_22)
{
	synth s = build(22, 0);
	for (size_t cut = 16; cut < s.b.n; cut++) {
		gtr_error e;
		size_t nev;
		int rc = read_all(s.b.p, cut, &e, &nev);
		if (rc < 0)
			cr_assert_leq(e.off, cut, "cut %zu", cut);
		if (cut > s.off_m1 && cut < s.off_m2)
			cr_assert_eq(rc, GTR_E_TRUNCATED, "cut %zu: %d %s", cut, rc, e.msg);
	}
	free(s.b.p);
}

/* ------------------------------------------------------------------ */
/* Real traces. */

static int map_corpus(gtr_map *m, const char *name)
{
	const char *root = getenv("GTR_ROOT");
	char path[4096];
	snprintf(path, sizeof path, "%s/corpora/traces/%s", root && *root ? root : ".", name);
	return gtr_map_open(m, path, GTR_IO_AUTO);
}

static const char *const corpus[] = {
	"greedy-go1.22.trace", "greedy-go1.23.trace", "greedy-go1.25.trace", "greedy-go1.26.trace",
	"syscalls-go1.24.trace", "annotations-go1.27.trace",
};

/* Invariants that hold for any good trace. */
static void check_real(const gtr_map *m, const char *name)
{
	gtr_trace *t;
	gtr_error e;
	cr_assert_eq(open_span(m->data, m->size, &t, &e), 0, "%s: %s", name, e.msg);
	const gtr_trace_info *in = gtr_trace_get_info(t);
	cr_assert_geq(in->generations, 1, "%s", name);
	cr_assert_gt(in->freq, 0);
	cr_assert_gt(in->strings, 0);
	cr_assert_gt(in->stacks, 0);
	static gtr_footprint fp;
	cr_assert_eq(gtr_trace_footprint(t, &fp, &e), 0, "%s: %s", name, e.msg);
	cr_assert_eq(fp.count[1] + fp.count[49], in->batches, "%s", name);
	uint64_t sum = 0;
	for (int i = 0; i < 256; i++)
		sum += fp.bytes[i];
	/* Only the 10-byte batch lengths are longer than Go counts them. */
	cr_assert_leq(sum + 16, m->size);
	cr_assert_leq(m->size - (sum + 16), 9 * in->batches, "%s", name);

	size_t ns;
	const gtr_spec *specs = gtr_trace_specs(t, &ns);
	gtr_reader *r;
	cr_assert_eq(gtr_reader_open(&r, t, &e), 0);
	gtr_event ev;
	uint64_t real[256] = {0}, syncs = 0, n = 0, last = 0;
	int rc;
	while ((rc = gtr_reader_next(r, &ev, &e)) > 0) {
		cr_assert_lt(ev.type, ns);
		cr_assert_not_null(specs[ev.type].name, "%s: type %u", name, ev.type);
		if (n++ == 0)
			cr_assert_eq(ev.type, 50, "%s: the first event is a Sync", name);
		else
			cr_assert_gt(ev.ts, last, "%s: event %llu", name, (unsigned long long)n);
		last = ev.ts;
		syncs += ev.type == 50;
		/* Events Go's reader derives (GoSwitch's GoStart, ...) sit at
		 * the offset of an event of another type. */
		if (ev.off < m->size && m->data[ev.off] == ev.type)
			real[ev.type]++;
		cr_assert_leq(ev.ntrans, GTR_MAX_TRANS);
		for (int i = 0; i < ev.ntrans; i++) {
			const gtr_transition *tr = &ev.trans[i];
			cr_assert(tr->res == GTR_RES_G || tr->res == GTR_RES_P);
			cr_assert_leq(tr->to, tr->res == GTR_RES_G ? GTR_GS_SYSCALL : GTR_PS_IDLE);
			gtr_frame fr[8];
			size_t nf;
			cr_assert_eq(gtr_trace_stack(t, ev.table, tr->stack, fr, 8, &nf, &e), 0);
		}
		gtr_frame fr[8];
		size_t nf;
		cr_assert_eq(gtr_trace_stack(t, ev.table, ev.stack, fr, 8, &nf, &e), 0, "%s", name);
	}
	cr_assert_eq(rc, 0, "%s: %s", name, e.msg);
	cr_assert_eq(ev.type, 50, "%s: the last event is a Sync", name);
	cr_assert_eq(syncs, in->generations + 1, "%s", name);
	/* Each wire event of an M's batch comes out exactly once. */
	for (unsigned i = 9; i <= 48; i++)
		cr_assert_eq(real[i], fp.count[i], "%s: %s: %llu read, %llu on the wire", name,
			     specs[i].name, (unsigned long long)real[i],
			     (unsigned long long)fp.count[i]);
	cr_assert_eq(real[7], fp.count[7], "%s: CPU samples", name);
	gtr_reader_free(r);
	gtr_trace_free(t);
}

Test(v2_corpus, invariants)
{
	int found = 0;
	for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
		gtr_map m;
		if (map_corpus(&m, corpus[i]) < 0)
			continue;
		found++;
		check_real(&m, corpus[i]);
		gtr_map_close(&m);
	}
	if (!found)
		cr_skip_test("no corpora/traces (set GTR_ROOT to the repository)");
}

/* Cuts of a real trace: an error that says where, never a crash. */
Test(v2_corpus, truncated)
{
	gtr_map m;
	if (map_corpus(&m, "greedy-go1.26.trace") < 0)
		cr_skip_test("no corpora/traces (set GTR_ROOT to the repository)");
	for (size_t cut = 16; cut < m.size; cut += cut < 2048 ? 1 : 61) {
		/* A private copy of exactly `cut` bytes, so that the
		 * sanitizers see any read past the end. */
		uint8_t *d = malloc(cut);
		memcpy(d, m.data, cut);
		gtr_error e;
		size_t nev;
		int rc = read_all(d, cut, &e, &nev);
		free(d);
		if (rc == 0)
			continue; /* cut at the end of a generation */
		cr_assert_eq(rc, GTR_E_TRUNCATED, "cut %zu: %d %s", cut, rc, e.msg);
		cr_assert_leq(e.off, cut, "cut %zu", cut);
	}
	gtr_map_close(&m);
}

/* Flipped bytes anywhere: whatever happens, an error code or success. */
Test(v2_corpus, damaged)
{
	gtr_map m;
	if (map_corpus(&m, "annotations-go1.27.trace") < 0)
		cr_skip_test("no corpora/traces (set GTR_ROOT to the repository)");
	uint8_t *d = malloc(m.size);
	cr_assert_not_null(d);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int it = 0; it < 300; it++) {
		memcpy(d, m.data, m.size);
		for (int k = 0; k < 4; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			d[16 + x % (m.size - 16)] ^= (uint8_t)(x >> 32 | 1);
		}
		gtr_error e;
		size_t nev;
		int rc = read_all(d, m.size, &e, &nev);
		cr_assert_leq(rc, 0);
		if (rc < 0) {
			cr_assert_eq(e.code, rc);
			cr_assert_leq(e.off, m.size, "%s", e.msg);
			cr_assert_neq(e.msg[0], 0);
		}
	}
	free(d);
	gtr_map_close(&m);
}

/* ------------------------------------------------------------------ */
/* The order's goroutine table, against ids a hostile trace chooses. */

static void order_step(gtr_v2_order *o, uint8_t type, uint8_t nargs, const uint64_t *args)
{
	gtr_v2_raw ev = {.type = type, .nargs = nargs, .batch = 0, .event = 0};
	memcpy(ev.args, args, nargs * sizeof *args);
	gtr_error err = {0};
	cr_assert_eq(gtr_v2_order_advance(o, &ev, 1, 1, 0, &err), 1, "event type %u: %s", type, err.msg);
	while (gtr_v2_order_next(o))
		;
}

/* Goroutine ids g * K^-1 (mod 2^64) for K the golden-ratio multiplier
 * (those below 2^63): g * K^-1 * K = g, so a table that hashed by that
 * product's top bits would give all of them the first slot, and each new
 * goroutine would probe past every other. */
Test(v2_order, chosen_goroutine_ids_do_not_share_a_probe_run)
{
	enum { N = 50000 };
	size_t ns;
	const gtr_spec *specs = gtr_specs(26, &ns);
	gtr_v2_order *o = gtr_v2_order_create(specs, ns);
	cr_assert_not_null(o);
	const uint64_t k = UINT64_C(0x9e3779b97f4a7c15);
	uint64_t kinv = k;
	for (int i = 0; i < 5; i++)
		kinv *= 2 - k * kinv;
	order_step(o, GTR_V2_EV_PROC_STATUS, 2, (uint64_t[]){0, GTR_V2_PROC_RUNNING});
	order_step(o, GTR_V2_EV_GO_STATUS, 3, (uint64_t[]){1, 1, GTR_V2_GO_RUNNING});
	for (uint64_t g = 2, made = 0; made < N; g++) {
		uint64_t id = g * kinv;
		if (id >> 63) /* ids stay below 2^63 */
			continue;
		order_step(o, GTR_V2_EV_GO_CREATE, 3, (uint64_t[]){id, 0, 0});
		made++;
	}
	size_t most = gtr_v2_order_probe_max(o);
	cr_assert_lt(most, 200, "a probe run of %zu slots for %d goroutines", most, N + 1);
	gtr_v2_order_free(o);
}
