/* core/analysis/pprof.c: blocking and scheduler latency by stack (see pprof.h). */
#include "pprof.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/idmap.h"
#include "core/base/vec.h"
#include "core/analysis/engine.h"

const char *gtr_pprof_kind_name(gtr_pprof_kind k)
{
	switch (k) {
	case GTR_PPROF_SCHED: return "sched";
	case GTR_PPROF_SYNC: return "sync";
	case GTR_PPROF_NET: return "net";
	case GTR_PPROF_SYSCALL: return "syscall";
	}
	return "?";
}

int gtr_pprof_kind_parse(const char *s, gtr_pprof_kind *k)
{
	if (strcmp(s, "sched") == 0)
		*k = GTR_PPROF_SCHED;
	else if (strcmp(s, "sync") == 0 || strcmp(s, "block") == 0)
		*k = GTR_PPROF_SYNC;
	else if (strcmp(s, "net") == 0 || strcmp(s, "io") == 0)
		*k = GTR_PPROF_NET;
	else if (strcmp(s, "syscall") == 0)
		*k = GTR_PPROF_SYSCALL;
	else
		return -1;
	return 0;
}

void gtr_pprof_release(gtr_pprof *p)
{
	if (!p)
		return;
	free(p->recs);
	memset(p, 0, sizeof *p);
}

/* An interval held back until we know whether its goroutine ever runs. */
typedef struct pending {
	int64_t g;
	uint32_t table;
	uint64_t stack, ns;
} pending;

typedef struct acc {
	gtr_pprof *p;
	size_t cap;
	gtr_idmap *index; /* (table, stack) -> position in p->recs */
	pending *pend;
	size_t npend, cappend;
	uint64_t seq;
} acc;

static int add(acc *a, uint32_t table, uint64_t stack, uint64_t ns)
{
	gtr_pprof *p = a->p;
	uint64_t i;
	if (!gtr_idmap_get(a->index, table, stack, &i)) {
		if (gtr_grow(&p->recs, &a->cap, p->n + 1, sizeof *p->recs) < 0)
			return GTR_E_NOMEM;
		i = p->n++;
		p->recs[i] = (gtr_pprof_rec){.table = table, .stack = stack};
		if (gtr_idmap_put(a->index, table, stack, i) < 0)
			return GTR_E_NOMEM;
	}
	p->recs[i].count++;
	p->recs[i].ns += ns;
	p->recs[i].last = ++a->seq;
	p->count++;
	p->ns += ns;
	return 0;
}

/* Commits (or, keep == 0, forgets) the held-back intervals of goroutine g. */
static int settle(acc *a, int64_t g, int keep)
{
	size_t j = 0;
	int rc = 0;
	for (size_t i = 0; i < a->npend; i++) {
		if (a->pend[i].g != g) {
			a->pend[j++] = a->pend[i];
			continue;
		}
		if (keep && rc == 0)
			rc = add(a, a->pend[i].table, a->pend[i].stack, a->pend[i].ns);
	}
	a->npend = j;
	return rc;
}

/* ---- v2: goroutine state transitions (Go 1.26's cmd/trace) -------------- */

typedef struct gstate {
	uint8_t tracking; /* in the profiled state since ts */
	uint8_t ran;      /* has been Running: its life has begun */
	uint32_t pending; /* intervals held back */
	uint32_t table;
	uint64_t ts, stack;
} gstate;

static int contains(gtr_str s, const char *w)
{
	size_t n = strlen(w);
	for (size_t i = 0; i + n <= s.n; i++)
		if (memcmp(s.p + i, w, n) == 0)
			return 1;
	return 0;
}

static int str_is(gtr_str s, const char *w)
{
	return s.n == strlen(w) && memcmp(s.p, w, s.n) == 0;
}

static int wanted(gtr_pprof_kind k, gtr_str reason)
{
	switch (k) {
	case GTR_PPROF_SYNC:
		return contains(reason, "chan") || contains(reason, "sync") || contains(reason, "select");
	case GTR_PPROF_NET: return str_is(reason, "network");
	default: return 1;
	}
}

static int on_v2(acc *a, gtr_idpool *gs, gtr_pprof_kind kind, const gtr_event *ev)
{
	uint8_t want = kind == GTR_PPROF_SCHED   ? GTR_GS_RUNNABLE
		       : kind == GTR_PPROF_SYSCALL ? GTR_GS_SYSCALL
						   : GTR_GS_WAITING;
	unsigned nt = gtr_event_ntrans(ev);
	for (unsigned i = 0; i < nt; i++) {
		const gtr_transition *tr = gtr_event_trans(ev, i);
		if (tr->res != GTR_RES_G)
			continue;
		gstate *g = gtr_idpool_find(gs, (uint64_t)tr->id);
		if (!g && !(g = gtr_idpool_add(gs, (uint64_t)tr->id)))
			return GTR_E_NOMEM;
		if (!g->tracking) {
			if (tr->to == want && wanted(kind, tr->reason)) {
				g->tracking = 1;
				g->ts = ev->ts;
				g->table = ev->table;
				g->stack = ev->stack;
			}
		} else if (tr->to != want) {
			g->tracking = 0;
			uint64_t ns = ev->ts > g->ts ? ev->ts - g->ts : 0;
			if (ns > 0 && g->ran) {
				int rc = add(a, g->table, g->stack, ns);
				if (rc < 0)
					return rc;
			} else if (ns > 0) {
				if (gtr_grow(&a->pend, &a->cappend, a->npend + 1, sizeof *a->pend) < 0)
					return GTR_E_NOMEM;
				a->pend[a->npend++] = (pending){tr->id, g->table, g->stack, ns};
				g->pending++;
			}
		}
		if (tr->from == tr->to)
			continue;
		if (tr->to == GTR_GS_RUNNING && !g->ran) {
			/* Its life begins now: what came before is left out. */
			g->ran = 1;
			if (g->pending)
				settle(a, tr->id, 0);
			g->pending = 0;
		}
		if (tr->to == GTR_GS_NOTEXIST ||
		    (tr->to == GTR_GS_WAITING && str_is(tr->reason, "forever"))) {
			if (g->pending) {
				int rc = settle(a, tr->id, 1);
				if (rc < 0)
					return rc;
			}
			gtr_idpool_drop(gs, (uint64_t)tr->id);
		}
	}
	return 0;
}

/* ---- v1: events linked as Go 1.21's parser links them ------------------- */

enum { K_NONE = 0, K_CREATE, K_UNBLOCK, K_BLOCK_SYNC, K_BLOCK_NET, K_SYSCALL, K_OTHER };

/* What an event type does here. */
enum {
	T_IGNORE = 0,
	T_CREATE,   /* args[0] becomes runnable; links to its GoStart */
	T_START,    /* args[0] starts */
	T_UNBLOCK,  /* args[0] is unblocked */
	T_SYSEXIT,  /* args[0] leaves a syscall */
	T_ARG_OTHER, /* args[0] gets a new pending event that counts for nothing */
	T_SELF,     /* ev->g gets this event: kind in v1kind[] */
	T_END,      /* ev->g exits */
};

typedef struct v1g {
	uint8_t kind;
	uint64_t ts, stack;
} v1g;

typedef struct v1map {
	uint8_t what[256];
	uint8_t kind[256];
} v1map;

static void v1_map(const gtr_trace *t, v1map *m)
{
	static const struct {
		const char *name;
		uint8_t what, kind;
	} rows[] = {
		{"GoCreate", T_CREATE, K_CREATE},
		{"GoStart", T_START, 0},
		{"GoStartLocal", T_START, 0},
		{"GoStartLabel", T_START, 0},
		{"GoUnblock", T_UNBLOCK, K_UNBLOCK},
		{"GoUnblockLocal", T_UNBLOCK, K_UNBLOCK},
		{"GoSysExit", T_SYSEXIT, K_OTHER},
		{"GoSysExitLocal", T_SYSEXIT, K_OTHER},
		{"GoWaiting", T_ARG_OTHER, K_OTHER},
		{"GoInSyscall", T_ARG_OTHER, K_OTHER},
		{"GoSched", T_SELF, K_OTHER},
		{"GoPreempt", T_SELF, K_OTHER},
		{"GoSysCall", T_SELF, K_SYSCALL},
		{"GoSleep", T_SELF, K_OTHER},
		{"GoBlock", T_SELF, K_OTHER},
		{"GoBlockSend", T_SELF, K_BLOCK_SYNC},
		{"GoBlockRecv", T_SELF, K_BLOCK_SYNC},
		{"GoBlockSelect", T_SELF, K_BLOCK_SYNC},
		{"GoBlockSync", T_SELF, K_BLOCK_SYNC},
		{"GoBlockCond", T_SELF, K_BLOCK_SYNC},
		{"GoBlockGC", T_SELF, K_BLOCK_SYNC},
		{"GoBlockNet", T_SELF, K_BLOCK_NET},
		{"GoEnd", T_END, 0},
	};
	memset(m, 0, sizeof *m);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		int ty = gtr_trace_type(t, rows[i].name);
		if (ty >= 0 && ty < 256) {
			m->what[ty] = rows[i].what;
			m->kind[ty] = rows[i].kind;
		}
	}
}

/* The interval of a pending event that ends now, if this profile counts it. */
static int v1_close(acc *a, gtr_pprof_kind kind, const v1g *g, uint8_t ender, uint64_t ts)
{
	int counts = 0;
	switch (g->kind) {
	case K_CREATE:
	case K_UNBLOCK: counts = kind == GTR_PPROF_SCHED && ender == T_START; break;
	case K_BLOCK_SYNC: counts = kind == GTR_PPROF_SYNC && ender == T_UNBLOCK; break;
	case K_BLOCK_NET: counts = kind == GTR_PPROF_NET && ender == T_UNBLOCK; break;
	case K_SYSCALL: counts = kind == GTR_PPROF_SYSCALL && ender == T_SYSEXIT; break;
	}
	if (!counts || g->stack == 0 || ts <= g->ts)
		return 0;
	return add(a, 0, g->stack, ts - g->ts);
}

static int on_v1(acc *a, gtr_idpool *gs, gtr_pprof_kind kind, const v1map *m, const gtr_event *ev)
{
	uint8_t what = ev->type < 256 ? m->what[ev->type] : T_IGNORE;
	if (what == T_IGNORE)
		return 0;
	int64_t id = what == T_SELF || what == T_END ? ev->g : (int64_t)ev->args[0];
	if (id < 0)
		return 0;
	v1g *g = gtr_idpool_find(gs, (uint64_t)id);
	if (what == T_END) {
		gtr_idpool_drop(gs, (uint64_t)id);
		return 0;
	}
	if (!g && !(g = gtr_idpool_add(gs, (uint64_t)id)))
		return GTR_E_NOMEM;
	if (what == T_START || what == T_UNBLOCK || what == T_SYSEXIT) {
		int rc = v1_close(a, kind, g, what, ev->ts);
		if (rc < 0)
			return rc;
	}
	if (what == T_START) {
		g->kind = K_NONE;
		return 0;
	}
	g->kind = m->kind[ev->type];
	g->ts = ev->ts;
	g->stack = ev->stack;
	return 0;
}

/* Go 1.21 counts only events whose stack has frames. */
static void v1_drop_empty(const gtr_trace *t, gtr_pprof *p)
{
	size_t j = 0;
	for (size_t i = 0; i < p->n; i++) {
		gtr_frame f;
		size_t n = 0;
		if (gtr_trace_stack(t, p->recs[i].table, p->recs[i].stack, &f, 1, &n, NULL) < 0 || n == 0) {
			p->count -= p->recs[i].count;
			p->ns -= p->recs[i].ns;
			continue;
		}
		p->recs[j++] = p->recs[i];
	}
	p->n = j;
}

typedef struct pstate {
	acc a;
	gtr_idpool gs;
	v1map map;
	gtr_pprof_kind kind;
	int v1;
} pstate;

static int on_event(void *self, const gtr_event *ev)
{
	pstate *s = self;
	return s->v1 ? on_v1(&s->a, &s->gs, s->kind, &s->map, ev) : on_v2(&s->a, &s->gs, s->kind, ev);
}

int gtr_pprof_compute(const gtr_trace *t, gtr_pprof_kind kind, gtr_pprof *out, gtr_error *err)
{
	memset(out, 0, sizeof *out);
	out->kind = kind;
	const gtr_trace_info *info = gtr_trace_get_info(t);
	out->span_ns = info->span_ns;
	pstate s = {.a = {.p = out}, .kind = kind, .v1 = info->family == GTR_FAMILY_V1};
	int rc = gtr_idpool_init(&s.gs, s.v1 ? sizeof(v1g) : sizeof(gstate));
	s.a.index = gtr_idmap_create();
	if (rc < 0 || !s.a.index) {
		rc = gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
		goto out;
	}
	if (s.v1)
		v1_map(t, &s.map);
	/* The engine reads ahead on a second thread while this one counts. */
	gtr_sink sink = {.self = &s, .on_event = on_event};
	gtr_engine_opts eo = {.jobs = 0};
	rc = gtr_engine_run(t, &sink, 1, &eo, NULL, err);
	if (rc < 0)
		goto out;
	/* Goroutines that never ran: Go does not clip their intervals. */
	for (size_t i = 0; i < s.a.npend && rc == 0; i++)
		rc = add(&s.a, s.a.pend[i].table, s.a.pend[i].stack, s.a.pend[i].ns);
	if (rc < 0) {
		rc = gtr_error_set(err, rc, 0, "out of memory");
		goto out;
	}
	if (s.v1)
		v1_drop_empty(t, out);
out:
	gtr_idpool_free(&s.gs);
	gtr_idmap_free(s.a.index);
	free(s.a.pend);
	return rc;
}
