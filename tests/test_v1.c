/*
 * tests/test_v1.c: the v1 trace family (core/v1*.c): event tables, the
 * index and footprint, the ordered reader and its state transitions,
 * and the errors on damaged input.
 *
 * Two kinds of input. A small trace written here event by event, with
 * the corner cases real runtimes rarely write (a syscall exit carrying
 * a time before, and one after, its place in the batch; a CPU sample
 * inside a syscall; a network unblock; goroutines settled by the first
 * Gomaxprocs); its expected events and transitions are those Go 1.15's
 * `go tool trace -d` and Go 1.27's `go tool trace -d=parsed` print for
 * it. And the test traces of the Go toolchains under $GTR_GO_DIR
 * (default /opt/gtr-go), whose expected counts come from the same two
 * commands; those tests are skipped when the toolchains are absent.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace/spec.h"
#include "core/trace/spec_impl.h"
#include "core/trace/trace.h"
#include "core/v1/v1.h"

/* ------------------------------------------------------------------ */
/* Reading traces. */

static const char *go_dir(void)
{
	const char *d = getenv("GTR_GO_DIR");
	return d && *d ? d : "/opt/gtr-go";
}

/* Reads a file into an exact-size buffer (so that a sanitizer sees any over-read). */
static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *d = malloc(len > 0 ? (size_t)len : 1);
	if (!d || fread(d, 1, (size_t)len, f) != (size_t)len) {
		free(d);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*n = (size_t)len;
	return d;
}

/* A test trace of a Go toolchain; skips the test when it is not installed. */
static uint8_t *go_trace(const char *go, const char *dir, const char *name, size_t *n)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/go-%s/src/internal/trace/%s/%s", go_dir(), go, dir, name);
	uint8_t *d = slurp(path, n);
	if (!d)
		cr_skip_test("%s is not installed", path);
	return d;
}

static uint8_t *tracev1_testdata(const char *name, size_t *n)
{
	return go_trace("1.26", "internal/tracev1/testdata", name, n);
}

typedef struct summary {
	int code;         /* 0, or the first error */
	gtr_error err;
	uint64_t events, trans, last_ts;
	int monotonic;
} summary;

/* Opens and reads a whole trace, resolving every stack an event names. */
static summary read_all(const uint8_t *d, size_t n)
{
	summary s = {0};
	s.monotonic = 1;
	gtr_error_clear(&s.err);
	gtr_trace *t;
	s.code = gtr_trace_open(&t, d, n, NULL, &s.err);
	if (s.code < 0)
		return s;
	gtr_reader *r;
	s.code = gtr_reader_open(&r, t, &s.err);
	if (s.code < 0) {
		gtr_trace_free(t);
		return s;
	}
	gtr_event ev;
	int rc;
	while ((rc = gtr_reader_next(r, &ev, &s.err)) > 0) {
		if (ev.ts < s.last_ts)
			s.monotonic = 0;
		s.last_ts = ev.ts;
		s.events++;
		s.trans += ev.ntrans + ev.nxtrans;
		gtr_frame fr[8];
		size_t nf;
		if (ev.stack && (rc = gtr_trace_stack(t, 0, ev.stack, fr, 8, &nf, &s.err)) < 0)
			break;
		if (ev.data.n)
			cr_assert(ev.data.p >= (const char *)d && ev.data.p + ev.data.n <= (const char *)d + n);
	}
	s.code = rc < 0 ? rc : 0;
	gtr_reader_free(r);
	gtr_trace_free(t);
	return s;
}

/* ------------------------------------------------------------------ */
/* A trace written here: an encoder of the v1 wire format. */

typedef struct enc {
	uint8_t buf[4096];
	size_t n;
	uint64_t last;
	size_t freq_at, string_at; /* where synthetic() put its Frequency and first String */
} enc;

static void put_uv(uint8_t *b, size_t *n, uint64_t x)
{
	while (x >= 0x80) {
		b[(*n)++] = (uint8_t)(x | 0x80);
		x >>= 7;
	}
	b[(*n)++] = (uint8_t)x;
}

static void e_header(enc *e, int version)
{
	memset(e, 0, sizeof *e);
	e->n = (size_t)snprintf((char *)e->buf, 17, "go 1.%d trace", version);
	e->n = 16;
}

static void e_batch(enc *e, uint64_t p, uint64_t ticks)
{
	e->buf[e->n++] = 1 | 1 << 6;
	put_uv(e->buf, &e->n, p);
	put_uv(e->buf, &e->n, ticks);
	e->last = ticks;
}

/* A timed event: the time delta, then the arguments, inline or length-prefixed. */
static void e_ev(enc *e, unsigned typ, uint64_t ts, int nargs, const uint64_t *args)
{
	uint8_t body[128];
	size_t bn = 0;
	put_uv(body, &bn, ts - e->last);
	e->last = ts;
	for (int i = 0; i < nargs; i++)
		put_uv(body, &bn, args[i]);
	if (nargs < 3) {
		e->buf[e->n++] = (uint8_t)(typ | (unsigned)nargs << 6);
	} else {
		e->buf[e->n++] = (uint8_t)(typ | 3u << 6);
		put_uv(e->buf, &e->n, bn);
	}
	memcpy(e->buf + e->n, body, bn);
	e->n += bn;
}

#define EV(e, typ, ts, ...)                                                              \
	do {                                                                             \
		const uint64_t a_[] = {0, __VA_ARGS__};                                  \
		e_ev(e, typ, ts, (int)(sizeof a_ / sizeof a_[0]) - 1, a_ + 1);          \
	} while (0)

static void e_string(enc *e, uint64_t id, const char *s)
{
	e->buf[e->n++] = GTR_V1_STRING;
	put_uv(e->buf, &e->n, id);
	put_uv(e->buf, &e->n, strlen(s));
	memcpy(e->buf + e->n, s, strlen(s));
	e->n += strlen(s);
}

static void e_stack(enc *e, uint64_t id, int frames, const uint64_t *pc_fn_file_line)
{
	uint8_t body[256];
	size_t bn = 0;
	put_uv(body, &bn, id);
	put_uv(body, &bn, (uint64_t)frames);
	for (int i = 0; i < 4 * frames; i++)
		put_uv(body, &bn, pc_fn_file_line[i]);
	e->buf[e->n++] = GTR_V1_STACK | 3 << 6;
	put_uv(e->buf, &e->n, bn);
	memcpy(e->buf + e->n, body, bn);
	e->n += bn;
}

/*
 * Two Ps. P0: goroutine 1 (running at the start) creates 5 and 6, wakes
 * 8 (waiting at the start) and blocks; 6 enters a syscall that blocks.
 * P1: 5 makes a syscall that does not block, yields, blocks on the
 * network and is woken by 8; then a syscall that blocks. P1 later: the
 * exits of both syscalls, one written after the time it carries, one
 * carrying a time after its place (clock skew). From go 1.19 a CPU
 * sample of goroutine 6 falls inside its syscall, which makes Go 1.27
 * treat that syscall as one that did not block.
 */
static size_t synthetic(enc *e, int version)
{
	e_header(e, version);
	e_batch(e, 0, 1000);
	EV(e, GTR_V1_GOCREATE, 1010, 1, 1, 1);
	EV(e, GTR_V1_GOCREATE, 1020, 7, 1, 1);
	EV(e, GTR_V1_GOCREATE, 1025, 8, 1, 1);
	EV(e, GTR_V1_GOWAITING, 1026, 8);
	EV(e, GTR_V1_PROCSTART, 1030, 11);
	EV(e, GTR_V1_GOSTART, 1040, 1, 1);
	EV(e, GTR_V1_GOMAXPROCS, 1050, 2, 1);
	EV(e, GTR_V1_GOCREATE, 1060, 5, 1, 1);
	EV(e, GTR_V1_GOCREATE, 1070, 6, 2, 1);
	EV(e, GTR_V1_GOUNBLOCK, 1080, 8, 2, 1);
	EV(e, GTR_V1_GOBLOCK, 1090, 1);
	EV(e, GTR_V1_GOSTARTLOCAL, 1100, 6);
	EV(e, GTR_V1_GOSYSCALL, 1110, 2);
	EV(e, GTR_V1_GOSYSBLOCK, 1200);
	EV(e, GTR_V1_PROCSTOP, 1210);
	e_batch(e, 1, 1000);
	EV(e, GTR_V1_PROCSTART, 1065, 12);
	EV(e, GTR_V1_GOSTART, 1075, 5, 1);
	EV(e, GTR_V1_GOSYSCALL, 1085, 1);
	EV(e, GTR_V1_GOSCHED, 1095, 1);
	EV(e, GTR_V1_GOSTARTLOCAL, 1105, 5);
	EV(e, GTR_V1_GOBLOCKNET, 1115, 1);
	EV(e, GTR_V1_GOSTART, 1125, 8, 3);
	EV(e, GTR_V1_GOUNBLOCK, 1135, 5, 3, 1);
	EV(e, GTR_V1_GOEND, 1145);
	EV(e, GTR_V1_GOSTARTLOCAL, 1150, 5);
	EV(e, GTR_V1_GOSYSCALL, 1160, 1);
	EV(e, GTR_V1_GOSYSBLOCK, 1170);
	EV(e, GTR_V1_PROCSTOP, 1180);
	e_batch(e, 1, 1300);
	EV(e, GTR_V1_PROCSTART, 1310, 12);
	EV(e, GTR_V1_GOSYSEXIT, 1320, 6, 2, 1250);
	EV(e, GTR_V1_GOSTARTLOCAL, 1330, 6);
	EV(e, GTR_V1_GOEND, 1340);
	EV(e, GTR_V1_GOSYSEXIT, 1350, 5, 5, 1360);
	EV(e, GTR_V1_GOSTART, 1400, 5, 6);
	EV(e, GTR_V1_GOEND, 1410);
	EV(e, GTR_V1_PROCSTOP, 1420);
	if (version >= 19) {
		e_batch(e, 0, 1500);
		EV(e, GTR_V1_CPUSAMPLE, 1500, 1150, 0, 6, 2);
		e->last = 1500;
		EV(e, GTR_V1_CPUSAMPLE, 1501, 1330, 3, 6, 1);
	}
	e_batch(e, 0, 1600);
	e->freq_at = e->n;
	e->buf[e->n++] = GTR_V1_FREQUENCY;
	put_uv(e->buf, &e->n, 1000000000); /* one tick per ns */
	e->string_at = e->n;
	e_string(e, 1, "main.f");
	e_string(e, 2, "f.go");
	const uint64_t s1[] = {0x401000, 1, 2, 10};
	const uint64_t s2[] = {0x402000, 1, 2, 20, 0x403000, 1, 2, 30};
	e_stack(e, 1, 1, s1);
	e_stack(e, 2, 2, s2);
	return e->n;
}

typedef struct want_ev {
	uint64_t ts;
	const char *name;
	int64_t p, g;
} want_ev;

/* Go 1.15's `go tool trace -d` for the go 1.11 version, Local names kept. */
static const want_ev synthetic_events[] = {
	{0, "GoCreate", 0, 0},       {10, "GoCreate", 0, 0},       {15, "GoCreate", 0, 0},
	{16, "GoWaiting", 0, 8},     {20, "ProcStart", 0, 0},      {30, "GoStart", 0, 1},
	{40, "Gomaxprocs", 0, 1},    {50, "GoCreate", 0, 1},       {55, "ProcStart", 1, 0},
	{60, "GoCreate", 0, 1},      {65, "GoStart", 1, 5},        {70, "GoUnblock", 0, 1},
	{75, "GoSysCall", 1, 5},     {80, "GoBlock", 0, 1},        {85, "GoSched", 1, 5},
	{90, "GoStartLocal", 0, 6},  {95, "GoStartLocal", 1, 5},   {100, "GoSysCall", 0, 6},
	{105, "GoBlockNet", 1, 5},   {115, "GoStart", 1, 8},       {125, "GoUnblock", 1000002, 8},
	{135, "GoEnd", 1, 8},        {140, "GoStartLocal", 1, 5},  {150, "GoSysCall", 1, 5},
	{160, "GoSysBlock", 1, 5},   {170, "ProcStop", 1, 0},      {190, "GoSysBlock", 0, 6},
	{200, "ProcStop", 0, 0},     {240, "GoSysExit", 1000003, 6}, {300, "ProcStart", 1, 0},
	{320, "GoStartLocal", 1, 6}, {330, "GoEnd", 1, 6},         {350, "GoSysExit", 1000003, 5},
	{390, "GoStart", 1, 5},      {400, "GoEnd", 1, 5},         {410, "ProcStop", 1, 0},
};

typedef struct want_tr {
	char res;
	int64_t id;
	gtr_gstate from, to; /* or gtr_pstate for a P */
	const char *reason;
	uint64_t stack;
} want_tr;

#define U GTR_GS_UNDETERMINED
#define NX GTR_GS_NOTEXIST
#define RB GTR_GS_RUNNABLE
#define RN GTR_GS_RUNNING
#define WT GTR_GS_WAITING
#define SC GTR_GS_SYSCALL

/* Go 1.27's `go tool trace -d=parsed` for the go 1.21 version, in order. */
static const want_tr synthetic_trans_1_21[] = {
	{'G', 8, U, WT, "", 0},
	{'P', 0, (gtr_gstate)GTR_PS_UNDETERMINED, (gtr_gstate)GTR_PS_RUNNING, "", 0},
	{'G', 1, U, RN, "", 0},
	{'G', 7, U, RB, "", 0},
	{'G', 5, NX, RB, "", 1},
	{'P', 1, (gtr_gstate)GTR_PS_UNDETERMINED, (gtr_gstate)GTR_PS_RUNNING, "", 0},
	{'G', 6, NX, RB, "", 2},
	{'G', 5, RB, RN, "", 0},
	{'G', 8, WT, RB, "", 0},
	{'G', 5, RN, SC, "", 1},
	{'G', 5, SC, RN, "", 0},
	{'G', 1, RN, WT, "", 1},
	{'G', 5, RN, RB, "runtime.Gosched", 1},
	{'G', 6, RB, RN, "", 0},
	{'G', 5, RB, RN, "", 0},
	{'G', 6, RN, SC, "", 2},
	{'G', 6, SC, RN, "", 0}, /* the CPU sample: not blocked after all */
	{'G', 5, RN, WT, "network", 1},
	{'G', 8, RB, RN, "", 0},
	{'G', 5, WT, RB, "", 0},
	{'G', 8, RN, NX, "", 0},
	{'G', 5, RB, RN, "", 0},
	{'G', 5, RN, SC, "", 1},
	{'P', 1, (gtr_gstate)GTR_PS_RUNNING, (gtr_gstate)GTR_PS_IDLE, "", 0},
	{'P', 0, (gtr_gstate)GTR_PS_RUNNING, (gtr_gstate)GTR_PS_IDLE, "", 0},
	{'G', 6, SC, RB, "", 0},
	{'P', 1, (gtr_gstate)GTR_PS_IDLE, (gtr_gstate)GTR_PS_RUNNING, "", 0},
	{'G', 6, RB, RN, "", 0},
	{'G', 6, RN, NX, "", 0},
	{'G', 5, SC, RB, "", 0},
	{'G', 5, RB, RN, "", 0},
	{'G', 5, RN, NX, "", 0},
	{'P', 1, (gtr_gstate)GTR_PS_RUNNING, (gtr_gstate)GTR_PS_IDLE, "", 0},
};

static gtr_trace *open_ok(const uint8_t *d, size_t n)
{
	gtr_error err;
	gtr_error_clear(&err);
	gtr_trace *t = NULL;
	int rc = gtr_trace_open(&t, d, n, NULL, &err);
	cr_assert_eq(rc, 0, "open: %s", err.msg);
	return t;
}

/* ------------------------------------------------------------------ */
/* Event tables. */

static const int v1_versions[] = {5, 7, 8, 9, 10, 11, 19, 21};
static const size_t v1_lengths[] = {37, 41, 43, 45, 45, 49, 50, 50};

Test(v1_spec, tables_are_well_formed)
{
	for (size_t k = 0; k < 8; k++) {
		size_t n;
		const gtr_spec *s = gtr_specs(v1_versions[k], &n);
		cr_assert_not_null(s, "go 1.%d", v1_versions[k]);
		cr_assert_eq(n, v1_lengths[k], "go 1.%d has %zu types", v1_versions[k], n);
		cr_assert_null(s[0].name, "type 0 is never written");
		for (size_t i = 1; i < n; i++) {
			cr_assert_not_null(s[i].name, "go 1.%d type %zu", v1_versions[k], i);
			cr_assert_leq(s[i].nargs, GTR_MAX_ARGS);
			for (unsigned a = 0; a < s[i].nargs; a++)
				cr_assert_not_null(s[i].args[a], "%s arg %u", s[i].name, a);
			/* The event's own stack is always the last argument. */
			if (s[i].stack_arg >= 0) {
				cr_assert_eq(s[i].stack_arg, s[i].nargs - 1, "%s", s[i].name);
				cr_assert_str_eq(s[i].args[s[i].stack_arg], "stack", "%s", s[i].name);
			}
			for (unsigned a = 0; a < s[i].nargs; a++)
				if (!strcmp(s[i].args[a], "stack"))
					cr_assert_eq((int)a, s[i].stack_arg, "%s", s[i].name);
		}
	}
}

Test(v1_spec, names_and_args_follow_go)
{
	for (size_t k = 0; k < 8; k++) {
		int v = v1_versions[k];
		size_t n;
		const gtr_spec *s = gtr_specs(v, &n);
		cr_assert_str_eq(s[GTR_V1_BATCH].name, "Batch");
		cr_assert_str_eq(s[GTR_V1_FREQUENCY].name, "Frequency");
		cr_assert_str_eq(s[GTR_V1_STACK].name, "Stack");
		cr_assert_str_eq(s[GTR_V1_GOSTART].name, "GoStart");
		cr_assert_str_eq(s[GTR_V1_GOBLOCKRECV].name, "GoBlockRecv");
		cr_assert_eq(s[GTR_V1_GOBLOCKRECV].stack_arg, 0);
		cr_assert_str_eq(s[GTR_V1_GOSYSEXIT].name, "GoSysExit");
		cr_assert_str_eq(s[GTR_V1_GOSYSEXIT].args[2], "ts");
		cr_assert_str_eq(s[GTR_V1_GOCREATE].name, "GoCreate");
		cr_assert_eq(s[GTR_V1_GOCREATE].stack_arg, 2);
		/* Go 1.5 numbered every event; later versions dropped the numbers and
		 * gave GoStart, GoUnblock and GCStart a goroutine sequence instead. */
		cr_assert_eq(s[GTR_V1_BATCH].nargs, v == 5 ? 3 : 2);
		cr_assert_eq(s[GTR_V1_GOSTART].nargs, v == 5 ? 1 : 2);
		cr_assert_eq(s[GTR_V1_GOUNBLOCK].nargs, v == 5 ? 2 : 3);
		cr_assert_eq(s[GTR_V1_GCSTART].nargs, v == 5 ? 1 : 2);
		cr_assert_eq(s[GTR_V1_GCSWEEPDONE].nargs, v >= 9 ? 2 : 0);
		cr_assert_eq(s[GTR_V1_GCSTWSTART].nargs, v >= 10 ? 1 : 0);
		cr_assert_str_eq(s[GTR_V1_NEXTGC].name, v >= 19 ? "HeapGoal" : "NextGC");
		if (v >= 7) {
			cr_assert_str_eq(s[GTR_V1_STRING].name, "String");
			cr_assert_str_eq(s[GTR_V1_GOSTARTLOCAL].name, "GoStartLocal");
		}
		if (v >= 8) {
			cr_assert_str_eq(s[GTR_V1_GOSTARTLABEL].args[2], "label_string");
			cr_assert_str_eq(s[GTR_V1_GOBLOCKGC].name, "GoBlockGC");
		}
		if (v >= 11) {
			cr_assert_str_eq(s[GTR_V1_USERLOG].name, "UserLog");
			cr_assert_str_eq(s[GTR_V1_USERLOG].args[1], "category_string");
			cr_assert_str_eq(s[GTR_V1_USERTASKCREATE].args[2], "name_string");
		}
		if (v >= 19) {
			cr_assert_str_eq(s[GTR_V1_CPUSAMPLE].name, "CPUSample");
			cr_assert_eq(s[GTR_V1_CPUSAMPLE].stack_arg, 3);
		}
	}
}

Test(v1_spec, only_v1_versions)
{
	const int not_v1[] = {0, 4, 6, 12, 18, 20, 22, 26};
	for (size_t k = 0; k < sizeof not_v1 / sizeof not_v1[0]; k++) {
		size_t n = 99;
		cr_assert_null(gtr_v1_specs(not_v1[k], &n), "go 1.%d", not_v1[k]);
		cr_assert_eq(n, 0);
	}
}

/* ------------------------------------------------------------------ */
/* The written trace: order, g and p, transitions. */

Test(v1_reader, events_as_go_1_15_prints_them)
{
	enc e;
	size_t n = synthetic(&e, 11);
	gtr_trace *t = open_ok(e.buf, n);
	size_t ns;
	const gtr_spec *spec = gtr_trace_specs(t, &ns);
	gtr_reader *r;
	cr_assert_eq(gtr_reader_open(&r, t, NULL), 0);
	gtr_event ev;
	size_t i = 0, want = sizeof synthetic_events / sizeof synthetic_events[0];
	while (gtr_reader_next(r, &ev, NULL) > 0) {
		cr_assert_lt(i, want);
		const want_ev *w = &synthetic_events[i++];
		cr_assert_str_eq(spec[ev.type].name, w->name, "event %zu", i);
		cr_assert_eq(ev.ts, w->ts, "event %zu (%s): ts %llu", i, w->name, (unsigned long long)ev.ts);
		cr_assert_eq(ev.p, w->p, "event %zu (%s): p %lld", i, w->name, (long long)ev.p);
		cr_assert_eq(ev.g, w->g, "event %zu (%s): g %lld", i, w->name, (long long)ev.g);
		cr_assert_lt(ev.off, n);
	}
	cr_assert_eq(i, want);
	gtr_reader_free(r);
	gtr_trace_free(t);
}

static void check_transitions(int version, const want_tr *want, size_t nwant)
{
	enc e;
	size_t n = synthetic(&e, version);
	gtr_trace *t = open_ok(e.buf, n);
	gtr_reader *r;
	cr_assert_eq(gtr_reader_open(&r, t, NULL), 0);
	gtr_event ev;
	size_t i = 0;
	while (gtr_reader_next(r, &ev, NULL) > 0) {
		for (unsigned k = 0; k < ev.ntrans + ev.nxtrans; k++) {
			const gtr_transition *tr = k < ev.ntrans ? &ev.trans[k] : &ev.xtrans[k - ev.ntrans];
			cr_assert_lt(i, nwant, "more transitions than Go gives");
			const want_tr *w = &want[i++];
			cr_assert_eq(tr->res, w->res == 'G' ? GTR_RES_G : GTR_RES_P, "transition %zu", i);
			cr_assert_eq(tr->id, w->id, "transition %zu: id %lld", i, (long long)tr->id);
			cr_assert_eq(tr->from, (uint8_t)w->from, "transition %zu of %lld", i, (long long)w->id);
			cr_assert_eq(tr->to, (uint8_t)w->to, "transition %zu of %lld", i, (long long)w->id);
			cr_assert_eq(tr->reason.n, strlen(w->reason), "transition %zu", i);
			cr_assert(!memcmp(tr->reason.p, w->reason, tr->reason.n), "transition %zu", i);
			cr_assert_eq(tr->stack, w->stack, "transition %zu: stack %llu", i,
				     (unsigned long long)tr->stack);
		}
	}
	cr_assert_eq(i, nwant);
	gtr_reader_free(r);
	gtr_trace_free(t);
}

Test(v1_reader, transitions_as_go_1_27_gives_them)
{
	size_t n = sizeof synthetic_trans_1_21 / sizeof synthetic_trans_1_21[0];
	check_transitions(21, synthetic_trans_1_21, n);

	/* Without the CPU sample (go 1.11) goroutine 6's syscall blocked: the
	 * same transitions, less the 1 ns return to Running. */
	want_tr w11[sizeof synthetic_trans_1_21 / sizeof synthetic_trans_1_21[0]];
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!(i > 0 && synthetic_trans_1_21[i].id == 6 && synthetic_trans_1_21[i].from == SC &&
		      synthetic_trans_1_21[i].to == RN))
			w11[k++] = synthetic_trans_1_21[i];
	check_transitions(11, w11, k);
}

Test(v1_reader, stacks_strings_and_samples)
{
	enc e;
	size_t n = synthetic(&e, 21);
	gtr_trace *t = open_ok(e.buf, n);
	const gtr_trace_info *in = gtr_trace_get_info(t);
	cr_assert_eq(in->version, 21);
	cr_assert_eq(in->family, GTR_FAMILY_V1);
	cr_assert_eq(in->batches, 5);
	cr_assert_eq(in->generations, 1);
	cr_assert_eq(in->strings, 2);
	cr_assert_eq(in->stacks, 2);
	cr_assert_eq(in->freq, 1000000000);
	cr_assert_eq(in->span_ns, 410);

	gtr_frame fr[4];
	size_t nf;
	cr_assert_eq(gtr_trace_stack(t, 0, 2, fr, 4, &nf, NULL), 0);
	cr_assert_eq(nf, 2);
	cr_assert_eq(fr[0].pc, 0x402000);
	cr_assert_eq(fr[1].line, 30);
	cr_assert_eq(fr[1].func.n, 6);
	cr_assert(!memcmp(fr[1].func.p, "main.f", 6));
	cr_assert(!memcmp(fr[1].file.p, "f.go", 4));
	cr_assert_eq(gtr_trace_stack(t, 0, 2, fr, 1, &nf, NULL), 0, "a short buffer gets the innermost frames");
	cr_assert_eq(nf, 1);
	cr_assert_eq(gtr_trace_stack(t, 0, 3, fr, 4, &nf, NULL), GTR_E_NOSTACK);
	cr_assert_eq(gtr_trace_stack(t, 0, 0, fr, 4, &nf, NULL), 0);
	cr_assert_eq(nf, 0);
	gtr_str s;
	cr_assert_eq(gtr_trace_string(t, 0, 2, &s), 0);
	cr_assert(s.n == 4 && !memcmp(s.p, "f.go", 4));
	cr_assert_eq(gtr_trace_string(t, 0, 9, &s), GTR_E_NOSTRING);

	/* CPU samples come in the order of the time they were taken, on the P they name. */
	size_t ns;
	const gtr_spec *spec = gtr_trace_specs(t, &ns);
	gtr_reader *r;
	cr_assert_eq(gtr_reader_open(&r, t, NULL), 0);
	gtr_event ev;
	int samples = 0;
	uint64_t prev = 0;
	while (gtr_reader_next(r, &ev, NULL) > 0) {
		cr_assert_geq(ev.ts, prev);
		prev = ev.ts;
		if (ev.type != GTR_V1_CPUSAMPLE)
			continue;
		cr_assert_str_eq(spec[ev.type].name, "CPUSample");
		cr_assert_eq(ev.g, 6);
		cr_assert_eq(ev.ts, samples == 0 ? 140 : 320);
		cr_assert_eq(ev.p, samples == 0 ? 0 : 3);
		cr_assert_eq(ev.stack, samples == 0 ? 2 : 1);
		samples++;
	}
	cr_assert_eq(samples, 2);
	gtr_reader_free(r);
	gtr_trace_free(t);
}

Test(v1_footprint, written_trace)
{
	enc e;
	size_t n = synthetic(&e, 19);
	gtr_trace *t = open_ok(e.buf, n);
	gtr_footprint fp;
	cr_assert_eq(gtr_trace_footprint(t, &fp, NULL), 0);
	cr_assert_eq(fp.count[GTR_V1_BATCH], 5);
	cr_assert_eq(fp.count[GTR_V1_GOCREATE], 5);
	cr_assert_eq(fp.count[GTR_V1_GOSYSEXIT], 2);
	cr_assert_eq(fp.count[GTR_V1_CPUSAMPLE], 2);
	cr_assert_eq(fp.count[GTR_V1_STRING], 2);
	cr_assert_eq(fp.bytes[GTR_V1_STRING], 2 * 3 + 6 + 4);
	cr_assert_eq(fp.count[GTR_V1_FREQUENCY], 1);
	cr_assert_eq(fp.bytes[GTR_V1_FREQUENCY], 1 + 5);
	cr_assert_eq(fp.count[GTR_V1_PROCSTOP], 3);
	cr_assert_eq(fp.bytes[GTR_V1_PROCSTOP], 3 * 2);
	uint64_t bytes = 0, events = 0;
	for (int i = 0; i < 256; i++) {
		bytes += fp.bytes[i];
		events += fp.count[i];
	}
	cr_assert_eq(bytes + 16, n, "every byte after the header belongs to an event");
	cr_assert_eq(events, fp.events);
	cr_assert_eq(fp.total_bytes, n);
	gtr_trace_free(t);
}

/* ------------------------------------------------------------------ */
/* The Go toolchains' test traces. */

Test(v1_index, info_and_footprint)
{
	size_t n;
	uint8_t *d = tracev1_testdata("http_1_21_good", &n);
	gtr_trace *t = open_ok(d, n);
	const gtr_trace_info *in = gtr_trace_get_info(t);
	cr_assert_eq(in->version, 21);
	cr_assert_eq(in->bytes, n);
	cr_assert_eq(in->batches, 7);
	cr_assert_eq(in->generations, 1);
	cr_assert_eq(in->strings, 67);
	cr_assert_eq(in->stacks, 27);
	cr_assert_eq(in->freq, 35157667);
	cr_assert_eq(in->span_ns, 3326841);

	gtr_footprint fp;
	cr_assert_eq(gtr_trace_footprint(t, &fp, NULL), 0);
	static const struct {
		int type;
		uint64_t count, bytes;
	} want[] = {
		{GTR_V1_BATCH, 7, 72},       {GTR_V1_STRING, 67, 2250},   {GTR_V1_STACK, 27, 1292},
		{GTR_V1_PROCSTART, 199, 785}, {GTR_V1_PROCSTOP, 198, 398}, {GTR_V1_GOSYSEXIT, 48, 288},
		{GTR_V1_GOSTARTLABEL, 6, 39}, {GTR_V1_FREQUENCY, 1, 5},   {GTR_V1_GOINSYSCALL, 1, 3},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		cr_assert_eq(fp.count[want[i].type], want[i].count, "type %d", want[i].type);
		cr_assert_eq(fp.bytes[want[i].type], want[i].bytes, "type %d", want[i].type);
	}
	uint64_t bytes = 0;
	for (int i = 0; i < 256; i++)
		bytes += fp.bytes[i];
	cr_assert_eq(bytes + 16, n);
	cr_assert_eq(fp.events, 938);

	gtr_str s;
	for (uint64_t id = 1; id <= 67; id++)
		cr_assert_eq(gtr_trace_string(t, 0, id, &s), 0, "string %llu", (unsigned long long)id);
	gtr_trace_free(t);
	free(d);
}

Test(v1_reader, first_transitions_1_21)
{
	size_t n;
	uint8_t *d = tracev1_testdata("http_1_21_good", &n);
	gtr_trace *t = open_ok(d, n);
	gtr_reader *r;
	cr_assert_eq(gtr_reader_open(&r, t, NULL), 0);
	gtr_event ev;
	/* As `go tool trace -d=parsed` starts: 17 in a syscall, 2, 3, 4, 18 waiting, P1 running. */
	static const struct {
		char res;
		int64_t id;
		uint8_t from, to;
		uint64_t ts;
	} want[] = {
		{'G', 17, U, SC, 654},   {'G', 2, U, WT, 1166},  {'G', 3, U, WT, 5290},
		{'G', 4, U, WT, 7594},   {'G', 18, U, WT, 10040}, {'P', 1, GTR_PS_UNDETERMINED, GTR_PS_RUNNING, 10125},
		{'G', 1, U, RN, 10211},
	};
	size_t i = 0;
	while (i < sizeof want / sizeof want[0] && gtr_reader_next(r, &ev, NULL) > 0) {
		for (unsigned k = 0; k < ev.ntrans && i < sizeof want / sizeof want[0]; k++, i++) {
			cr_assert_eq(ev.trans[k].res, want[i].res == 'G' ? GTR_RES_G : GTR_RES_P);
			cr_assert_eq(ev.trans[k].id, want[i].id);
			cr_assert_eq(ev.trans[k].from, want[i].from);
			cr_assert_eq(ev.trans[k].to, want[i].to);
			cr_assert_eq(ev.ts, want[i].ts);
		}
	}
	cr_assert_eq(i, sizeof want / sizeof want[0]);
	gtr_reader_free(r);
	gtr_trace_free(t);
	free(d);
}

/* Events as Go 1.15 or Go 1.27 count them, transitions as Go 1.27 does. */
typedef struct known {
	const char *go, *dir, *name;
	uint64_t events, trans;
} known;

static const known known_traces[] = {
	{"1.26", "internal/tracev1/testdata", "fmt_1_21_pprof_good", 1676, 1605},
	{"1.26", "internal/tracev1/testdata", "http_1_19_good", 2005, 2252},
	{"1.26", "internal/tracev1/testdata", "http_1_21_good", 836, 743},
	{"1.26", "internal/tracev1/testdata", "stress_1_11_good", 104474, 98329},
	{"1.26", "internal/tracev1/testdata", "stress_1_19_good", 85206, 78884},
	{"1.26", "internal/tracev1/testdata", "stress_1_21_good", 95766, 90219},
	{"1.26", "internal/tracev1/testdata", "stress_start_stop_1_11_good", 632, 568},
	{"1.26", "internal/tracev1/testdata", "stress_start_stop_1_19_good", 1199, 1092},
	{"1.26", "internal/tracev1/testdata", "stress_start_stop_1_21_good", 459, 365},
	{"1.26", "internal/tracev1/testdata", "user_task_region_1_11_good", 37, 20},
	{"1.26", "internal/tracev1/testdata", "user_task_region_1_19_good", 36, 21},
	{"1.26", "internal/tracev1/testdata", "user_task_region_1_21_good", 39, 22},
	{"1.15", "testdata", "http_1_5_good", 7309, 0},
	{"1.15", "testdata", "http_1_7_good", 38, 0},
	{"1.15", "testdata", "http_1_9_good", 39, 0},
	{"1.15", "testdata", "http_1_10_good", 43, 0},
	{"1.15", "testdata", "http_1_11_good", 55, 0},
	{"1.15", "testdata", "stress_1_5_good", 1279, 0},
	{"1.15", "testdata", "stress_1_5_unordered", 0, 0}, /* refused, as Go refuses it (ErrTimeOrder) */
	{"1.15", "testdata", "stress_1_7_good", 129510, 0},
	{"1.15", "testdata", "stress_1_9_good", 111490, 0},
	{"1.15", "testdata", "stress_1_10_good", 113873, 0},
	{"1.15", "testdata", "stress_start_stop_1_5_good", 1178, 0},
	{"1.15", "testdata", "stress_start_stop_1_7_good", 60, 0},
	{"1.15", "testdata", "stress_start_stop_1_9_good", 1247, 0},
	{"1.15", "testdata", "stress_start_stop_1_10_good", 1237, 0},
	{"1.15", "testdata", "user_task_span_1_11_good", 37, 0},
};

Test(v1_reader, go_test_traces)
{
	int ran = 0;
	for (size_t i = 0; i < sizeof known_traces / sizeof known_traces[0]; i++) {
		const known *k = &known_traces[i];
		char path[1024];
		size_t n;
		snprintf(path, sizeof path, "%s/go-%s/src/internal/trace/%s/%s", go_dir(), k->go, k->dir, k->name);
		uint8_t *d = slurp(path, &n);
		if (!d)
			continue;
		summary s = read_all(d, n);
		if (strcmp(k->name, "stress_1_5_unordered") == 0) {
			/* Sequence order and time order disagree: Go's parser
			 * returns ErrTimeOrder, and the reader refuses it too. */
			cr_assert_eq(s.code, GTR_E_CORRUPT, "%s: %d", k->name, s.code);
			cr_assert(strstr(s.err.msg, "time stamps out of order"), "%s: %s", k->name, s.err.msg);
			free(d);
			ran++;
			continue;
		}
		cr_assert_eq(s.code, 0, "%s: %s", k->name, s.err.msg);
		cr_assert_eq(s.events, k->events, "%s: %llu events", k->name, (unsigned long long)s.events);
		if (k->trans)
			cr_assert_eq(s.trans, k->trans, "%s: %llu transitions", k->name,
				     (unsigned long long)s.trans);
		cr_assert(s.monotonic, "%s: time goes backwards", k->name);
		free(d);
		ran++;
	}
	if (!ran)
		cr_skip_test("no Go test traces under %s", go_dir());
}

/* ------------------------------------------------------------------ */
/* Damaged input. */

/* Offset of the first event of type typ after the header (by walking the index). */
static uint64_t find_event(const uint8_t *d, size_t n, unsigned typ)
{
	gtr_trace *t = open_ok(d, n);
	gtr_reader *r;
	cr_assert_eq(gtr_reader_open(&r, t, NULL), 0);
	gtr_event ev;
	uint64_t off = 0;
	while (!off && gtr_reader_next(r, &ev, NULL) > 0)
		if (ev.type == typ)
			off = ev.off;
	gtr_reader_free(r);
	gtr_trace_free(t);
	cr_assert_neq(off, 0, "no event of type %u", typ);
	return off;
}

static int expect_error(const uint8_t *d, size_t n, int code, const char *what)
{
	summary s = read_all(d, n);
	cr_assert_eq(s.code, code, "%s: got %d (%s)", what, s.code, s.err.msg);
	cr_assert_eq(s.err.code, code);
	cr_assert_leq(s.err.off, n, "%s: offset %llu past the end", what, (unsigned long long)s.err.off);
	cr_assert_neq(s.err.msg[0], 0);
	return (int)s.err.off;
}

Test(v1_errors, truncated_everywhere)
{
	enc e;
	size_t n = synthetic(&e, 21);
	size_t cut_err = 0;
	for (size_t cut = 0; cut < n; cut++) {
		uint8_t *d = malloc(cut ? cut : 1);
		memcpy(d, e.buf, cut);
		summary s = read_all(d, cut);
		cr_assert_lt(s.code, 0, "cut at %zu of %zu reads fine", cut, n);
		cr_assert_leq(s.err.off, cut, "cut at %zu: offset %llu", cut, (unsigned long long)s.err.off);
		cr_assert(s.code == GTR_E_TRUNCATED || s.code == GTR_E_CORRUPT || s.code == GTR_E_NOSTACK ||
			  s.code == GTR_E_NOSTRING || s.code == GTR_E_NOTTRACE,
			  "cut at %zu: code %d (%s)", cut, s.code, s.err.msg);
		cut_err += s.code == GTR_E_TRUNCATED;
		free(d);
	}
	cr_assert_gt(cut_err, n / 4);

	/* Inside a string: says where the string started and how far the input goes. */
	size_t at = e.string_at;
	uint8_t *d = malloc(at + 5);
	memcpy(d, e.buf, at + 5);
	cr_assert_eq(expect_error(d, at + 5, GTR_E_TRUNCATED, "string"), (int)at);
	free(d);
}

Test(v1_errors, truncated_real_trace)
{
	size_t n;
	uint8_t *d = tracev1_testdata("user_task_region_1_19_good", &n);
	for (size_t cut = 0; cut < n; cut += 7) {
		uint8_t *c = malloc(cut ? cut : 1);
		memcpy(c, d, cut);
		summary s = read_all(c, cut);
		cr_assert_lt(s.code, 0, "cut at %zu of %zu reads fine", cut, n);
		cr_assert_leq(s.err.off, cut);
		free(c);
	}
	free(d);
}

Test(v1_errors, bad_varint)
{
	size_t n;
	uint8_t *d = tracev1_testdata("http_1_21_good", &n);
	uint64_t off = find_event(d, n, GTR_V1_PROCSTART);
	cr_assert_lt(off + 12, n);
	memset(d + off + 1, 0xff, 11);
	int at = expect_error(d, n, GTR_E_VARINT, "11-byte varint");
	cr_assert(at > (int)off && at <= (int)off + 11, "offset %d, event at %llu", at, (unsigned long long)off);
	free(d);
}

Test(v1_errors, unknown_event_type)
{
	size_t n;
	uint8_t *d = tracev1_testdata("http_1_19_good", &n);
	uint64_t off = find_event(d, n, GTR_V1_GOSCHED);
	d[off] = (uint8_t)((d[off] & 0xc0) | 50);
	summary s = read_all(d, n);
	cr_assert_eq(s.code, GTR_E_EVTYPE);
	cr_assert_eq(s.err.off, off);
	cr_assert_not_null(strstr(s.err.msg, "50"), "%s", s.err.msg);
	cr_assert_geq(s.err.batch, 0);
	free(d);

	/* A CPU sample is unknown to go 1.11. */
	d = tracev1_testdata("user_task_region_1_11_good", &n);
	off = find_event(d, n, GTR_V1_GOEND);
	d[off] = (uint8_t)((d[off] & 0xc0) | GTR_V1_CPUSAMPLE);
	cr_assert_eq(expect_error(d, n, GTR_E_EVTYPE, "CPUSample in 1.11"), (int)off);
	free(d);
}

static size_t uv_len(uint64_t x)
{
	size_t k = 1;
	while (x >= 0x80) {
		x >>= 7;
		k++;
	}
	return k;
}

/* Gives the table entry of `id` (a stack, or a string) an id nothing refers to. */
static void rename_id(uint8_t *d, uint64_t at, uint64_t id, const gtr_idmap *m)
{
	/* Ids of the same encoded length keep every later offset in place. */
	uint64_t lo = id < 128 ? 1 : 128, hi = id < 128 ? 127 : 16383, fresh = 0, v, old;
	cr_assert_leq(id, 16383);
	for (uint64_t x = hi; x >= lo && !fresh; x--)
		if (!gtr_idmap_get(m, 0, x, &v))
			fresh = x;
	cr_assert_neq(fresh, 0);
	cr_assert_eq(gtr_uvarint_decode(d + at, d + at + 2, &old), (int)uv_len(id), "id %llu at %llu: %02x %02x",
		     (unsigned long long)id, (unsigned long long)at, d[at], d[at + 1]);
	cr_assert_eq(old, id);
	size_t k = 0;
	put_uv(d + at, &k, fresh);
}

Test(v1_errors, missing_stack)
{
	size_t n;
	uint8_t *d = tracev1_testdata("http_1_21_good", &n);
	gtr_trace *t = open_ok(d, n);
	gtr_reader *r;
	cr_assert_eq(gtr_reader_open(&r, t, NULL), 0);
	gtr_event ev;
	uint64_t stack = 0, user = 0;
	while (!stack && gtr_reader_next(r, &ev, NULL) > 0)
		if (ev.type == GTR_V1_GOBLOCK && ev.stack)
			stack = ev.stack, user = ev.off;
	gtr_reader_free(r);
	const gtr_v1_index *x = t->impl;
	uint64_t v;
	cr_assert(gtr_idmap_get(x->stacks, 0, stack, &v));
	uint64_t off = v & ~GTR_V1_STACK_EMPTY, len;
	/* [type][length][id]...: find where the id starts (go 1.21 pads the length to 10 bytes). */
	int k = gtr_uvarint_decode(d + off + 1, d + n, &len);
	cr_assert_gt(k, 0);
	uint8_t *copy = malloc(n);
	memcpy(copy, d, n);
	rename_id(copy, off + 1 + (uint64_t)k, stack, x->stacks);
	gtr_trace_free(t);
	int at = expect_error(copy, n, GTR_E_NOSTACK, "renamed stack");
	cr_assert_leq((uint64_t)at, user, "the first event that names the stack is at or before %llu",
		      (unsigned long long)user);
	free(copy);
	free(d);
}

Test(v1_errors, missing_string)
{
	size_t n;
	uint8_t *d = tracev1_testdata("user_task_region_1_21_good", &n);
	gtr_trace *t = open_ok(d, n);
	gtr_reader *r;
	cr_assert_eq(gtr_reader_open(&r, t, NULL), 0);
	gtr_event ev;
	uint64_t id = 0;
	while (!id && gtr_reader_next(r, &ev, NULL) > 0)
		if (ev.type == GTR_V1_USERTASKCREATE)
			id = ev.args[2];
	gtr_reader_free(r);
	cr_assert_neq(id, 0);
	const gtr_v1_index *x = t->impl;
	uint64_t v;
	cr_assert(gtr_idmap_get(x->strings, 0, id, &v));
	uint64_t bytes = v >> 20, len = v & ((1u << 20) - 1);
	uint8_t *copy = malloc(n);
	memcpy(copy, d, n);
	rename_id(copy, bytes - uv_len(len) - uv_len(id), id, x->strings);
	gtr_trace_free(t);
	expect_error(copy, n, GTR_E_NOSTRING, "renamed string");
	free(copy);
	free(d);
}

Test(v1_errors, no_frequency)
{
	enc e;
	size_t n = synthetic(&e, 11);
	size_t at = e.freq_at;
	cr_assert_eq(e.buf[at], GTR_V1_FREQUENCY);
	e.buf[at] = GTR_V1_TIMERGOROUTINE; /* same layout, one argument */
	summary s = read_all(e.buf, n);
	cr_assert_eq(s.code, GTR_E_CORRUPT);
	cr_assert_not_null(strstr(s.err.msg, "Frequency"), "%s", s.err.msg);
	cr_assert_leq(s.err.off, n);

	/* A real trace keeps its frequency in its footer; the index finds it there. */
	size_t m;
	uint8_t *d = tracev1_testdata("stress_start_stop_1_11_good", &m);
	gtr_trace *t = open_ok(d, m);
	cr_assert_eq(gtr_trace_get_info(t)->freq, 54557361);
	gtr_trace_free(t);
	free(d);
}

Test(v1_errors, events_that_cannot_be_ordered)
{
	enc e;
	size_t n = synthetic(&e, 11);
	/* GoStart of goroutine 8 wants sequence 3; make it 9, which never comes. */
	uint64_t off = 0;
	gtr_trace *t = open_ok(e.buf, n);
	gtr_reader *r;
	cr_assert_eq(gtr_reader_open(&r, t, NULL), 0);
	gtr_event ev;
	while (gtr_reader_next(r, &ev, NULL) > 0)
		if (ev.type == GTR_V1_GOSTART && ev.args[0] == 8)
			off = ev.off;
	gtr_reader_free(r);
	gtr_trace_free(t);
	cr_assert_eq(e.buf[off], GTR_V1_GOSTART | 2 << 6);
	cr_assert_eq(e.buf[off + 3], 3);
	e.buf[off + 3] = 9;
	summary s = read_all(e.buf, n);
	cr_assert_eq(s.code, GTR_E_CORRUPT);
	cr_assert_eq(s.err.off, off);
	cr_assert_not_null(strstr(s.err.msg, "ordering"), "%s", s.err.msg);
	cr_assert_geq(s.err.batch, 0);
	cr_assert_geq(s.err.event, 0);
}

Test(v1_errors, wrong_argument_count)
{
	enc e;
	size_t n = synthetic(&e, 11);
	uint64_t off = find_event(e.buf, n, GTR_V1_PROCSTART);
	/* ProcStart has one argument; claim none. */
	e.buf[off] = GTR_V1_PROCSTART;
	summary s = read_all(e.buf, n);
	cr_assert_lt(s.code, 0);
	cr_assert_leq(s.err.off, n);
}

/* Random damage: always an answer, never a crash (run under the sanitizers). */
Test(v1_errors, damaged_bytes)
{
	enc e;
	size_t n = synthetic(&e, 21);
	uint8_t *d = malloc(n);
	unsigned seed = 12345;
	for (int it = 0; it < 3000; it++) {
		memcpy(d, e.buf, n);
		for (int k = 0; k < 1 + it % 4; k++) {
			seed = seed * 1103515245 + 12345;
			size_t at = 16 + (seed >> 8) % (n - 16);
			seed = seed * 1103515245 + 12345;
			d[at] = (uint8_t)(seed >> 16);
		}
		summary s = read_all(d, n);
		cr_assert_leq(s.code, 0);
		if (s.code < 0) {
			cr_assert_eq(s.err.code, s.code);
			cr_assert_leq(s.err.off, n);
		}
	}
	free(d);
}
