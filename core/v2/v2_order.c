/*
 * core/v2/v2_order.c: the goroutine / P / M state machine that orders v2
 * events and derives their state transitions, with the preconditions and
 * effects of Go's reader (internal/trace/order.go), so that the order and
 * the transitions are the same as Go's.
 *
 * Checks that only catch broken traces without changing the order (user
 * region nesting, task ids, pairing of GC sweep / mark assist / STW
 * ranges) are not made.
 */
#include "core/v2/v2_order.h"
#include "core/base/idmap.h"

#include <stdlib.h>
#include <string.h>

/* Open addressing, linear probing, backward-shift deletion: goroutines
 * come and go all the time, and tombstones would pile up. */
typedef struct slot {
	int64_t key;
	uint8_t used;
	uint8_t status;   /* G: GTR_V2_GO_*, P: GTR_V2_PROC_* */
	uint64_t seq_gen; /* sequence counter: generation and number */
	uint64_t seq;
	int64_t g, p;     /* M: the goroutine and P it holds, -1 for none */
} slot;

typedef struct smap {
	slot *s;
	size_t cap; /* power of two, or 0 */
	size_t n;
	uint64_t mul;  /* odd, from gtr_hash_seed: see home */
} smap;

/* Multiply-shift with a random odd multiplier: two keys share a home
 * with a chance of at most 2 in cap, whatever keys the trace chose, as
 * long as it cannot know the multiplier (a fixed one, the golden ratio,
 * let a hostile trace put every goroutine in one probe run). */
static size_t home(const smap *m, int64_t key)
{
	return (size_t)(((uint64_t)key * m->mul) >> (64 - __builtin_ctzll(m->cap)));
}

static slot *find(const smap *m, int64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = home(m, key);; i = (i + 1) & (m->cap - 1)) {
		slot *s = &m->s[i];
		if (!s->used)
			return NULL;
		if (s->key == key)
			return s;
	}
}

static int rehash(smap *m, size_t ncap)
{
	slot *ns = calloc(ncap, sizeof *ns);
	if (!ns)
		return GTR_E_NOMEM;
	slot *old = m->s;
	size_t ocap = m->cap;
	m->s = ns;
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++) {
		if (!old[i].used)
			continue;
		size_t j = home(m, old[i].key);
		while (ns[j].used)
			j = (j + 1) & (ncap - 1);
		ns[j] = old[i];
	}
	free(old);
	return 0;
}

/* Inserts a zeroed slot for a key that is not present. */
static slot *insert(smap *m, int64_t key)
{
	/* At most half full: a miss (a new goroutine) probes few slots. */
	if ((m->n + 1) * 2 > m->cap && rehash(m, m->cap ? m->cap * 2 : 16) < 0)
		return NULL;
	size_t i = home(m, key);
	while (m->s[i].used)
		i = (i + 1) & (m->cap - 1);
	slot *s = &m->s[i];
	memset(s, 0, sizeof *s);
	s->key = key;
	s->used = 1;
	m->n++;
	return s;
}

static void erase(smap *m, slot *s)
{
	size_t mask = m->cap - 1, i = (size_t)(s - m->s);
	m->s[i].used = 0;
	m->n--;
	/* Pull back later entries of the run that hashed at or before i. */
	for (size_t j = (i + 1) & mask; m->s[j].used; j = (j + 1) & mask) {
		size_t h = home(m, m->s[j].key);
		if (((j - h) & mask) >= ((j - i) & mask)) {
			m->s[i] = m->s[j];
			m->s[j].used = 0;
			i = j;
		}
	}
}

enum { GC_UNDETERMINED, GC_NOT_RUNNING, GC_RUNNING };

#define QCAP 4 /* one advance queues at most three events */

struct gtr_v2_order {
	const gtr_spec *specs;
	size_t nspecs;
	smap gs, ps, ms;
	uint64_t initial_gen; /* number of the first generation, 0 before */
	uint64_t gc_seq;
	int gc_state;
	int force; /* gtr_v2_order_force: let the event happen whatever the state */
	gtr_v2_out q[QCAP];
	unsigned qhead, qlen;
};

gtr_v2_order *gtr_v2_order_create(const gtr_spec *specs, size_t nspecs)
{
	gtr_v2_order *o = calloc(1, sizeof *o);
	if (!o)
		return NULL;
	o->specs = specs;
	o->nspecs = nspecs;
	o->gs.mul = gtr_hash_seed() | 1;
	o->ps.mul = gtr_hash_seed() | 1;
	o->ms.mul = gtr_hash_seed() | 1;
	return o;
}

void gtr_v2_order_free(gtr_v2_order *o)
{
	if (!o)
		return;
	free(o->gs.s);
	free(o->ps.s);
	free(o->ms.s);
	free(o);
}

size_t gtr_v2_order_probe_max(const gtr_v2_order *o)
{
	const smap *m = &o->gs;
	size_t most = 0;
	for (size_t i = 0; i < m->cap; i++)
		if (m->s[i].used && ((i - home(m, m->s[i].key)) & (m->cap - 1)) + 1 > most)
			most = ((i - home(m, m->s[i].key)) & (m->cap - 1)) + 1;
	return most;
}

gtr_v2_out *gtr_v2_order_next(gtr_v2_order *o)
{
	if (!o->qlen)
		return NULL;
	gtr_v2_out *out = &o->q[o->qhead];
	o->qhead = (o->qhead + 1) % QCAP;
	o->qlen--;
	return out;
}

typedef struct ctx {
	int64_t g, p, m;
} ctx;

/* What an event needs of its context (Go's schedReqs). */
enum { MUST_NOT, MAY, MUST };

/* The state of one advance: the event, where it happened, and errors. */
typedef struct adv {
	gtr_v2_order *o;
	const gtr_v2_raw *ev;
	uint64_t gen;
	uint32_t table;
	gtr_error *err;
	ctx cur, next; /* context before the event, and after it */
} adv;

static int corrupt(adv *a, const char *what, int64_t id)
{
	const gtr_spec *s = a->ev->type < a->o->nspecs ? &a->o->specs[a->ev->type] : NULL;
	return gtr_v2_fail(a->err, GTR_E_CORRUPT, a->ev->off, a->ev->batch, a->ev->event,
			   "inconsistent trace at byte %llu: %s event: %s (id %lld)",
			   (unsigned long long)a->ev->off, s && s->name ? s->name : "?", what,
			   (long long)id);
}

static int nomem(adv *a)
{
	return gtr_v2_fail(a->err, GTR_E_NOMEM, a->ev->off, a->ev->batch, a->ev->event,
			   "out of memory");
}

static int check_ctx(adv *a, ctx c, int rm, int rp, int rg)
{
	if (a->o->force)
		return 0;
	if ((rm == MUST && c.m == -1) || (rm == MUST_NOT && c.m != -1))
		return corrupt(a, rm == MUST ? "expected a thread" : "expected no thread", c.m);
	if ((rp == MUST && c.p == -1) || (rp == MUST_NOT && c.p != -1))
		return corrupt(a, rp == MUST ? "expected a proc" : "expected no proc", c.p);
	if ((rg == MUST && c.g == -1) || (rg == MUST_NOT && c.g != -1))
		return corrupt(a, rg == MUST ? "expected a goroutine" : "expected no goroutine", c.g);
	return 0;
}

/* The common requirement of events of running user code. */
static int check_user(adv *a)
{
	return check_ctx(a, a->cur, MUST, MUST, MUST);
}

static int succeeds(uint64_t gen, uint64_t seq, const slot *s)
{
	return gen == s->seq_gen && seq == s->seq + 1;
}

/* Queues an event of type `type` in context c, at the advancing event's
 * time and offset, with args (nargs as the spec says; the array holds
 * GTR_MAX_ARGS), or NULL for none. */
static gtr_v2_out *push(adv *a, ctx c, unsigned type, const uint64_t *args)
{
	gtr_v2_order *o = a->o;
	gtr_v2_out *out = &o->q[(o->qhead + o->qlen++) % QCAP];
	const gtr_spec *s = &o->specs[type];
	/* Field by field: clearing the whole entry cost a tenth of the
	 * reader's time. Arguments past nargs stay zero for readers that
	 * look at a fixed slot. */
	out->time = a->ev->time;
	out->reason[0] = out->reason[1] = 0;
	out->batch = a->ev->batch;
	out->event = a->ev->event;
	out->ev.ts = 0;
	out->ev.off = a->ev->off;
	out->ev.g = c.g;
	out->ev.p = c.p;
	out->ev.m = c.m;
	out->ev.table = a->table;
	out->ev.type = (uint16_t)type;
	out->ev.nargs = s->nargs;
	out->ev.ntrans = 0;
	out->ev.data = (gtr_str){0};
	out->ev.xtrans = NULL;
	out->ev.nxtrans = 0;
	unsigned n = s->nargs <= GTR_MAX_ARGS ? s->nargs : GTR_MAX_ARGS;
	/* Whole arrays, then the tail cleared: copies of a constant size are
	 * a few moves, where one of n words was a call. */
	if (args)
		memcpy(out->ev.args, args, sizeof out->ev.args);
	else
		memset(out->ev.args, 0, sizeof out->ev.args);
	for (unsigned i = n; i < GTR_MAX_ARGS; i++)
		out->ev.args[i] = 0;
	out->ev.stack = s->stack_arg >= 0 ? out->ev.args[s->stack_arg] : 0;
	return out;
}

static gtr_v2_out *push_ev(adv *a, ctx c)
{
	return push(a, c, a->ev->type, a->ev->args);
}

static void trans(gtr_v2_out *out, int res, int from, int to, int64_t id, uint64_t reason,
		  uint64_t stack)
{
	gtr_transition *t = &out->ev.trans[out->ev.ntrans];
	out->reason[out->ev.ntrans] = reason;
	out->ev.ntrans++;
	t->res = (uint8_t)res;
	t->from = (uint8_t)from;
	t->to = (uint8_t)to;
	t->id = id;
	t->stack = stack;
}

static int go_state(uint64_t status)
{
	static const uint8_t m[] = {GTR_GS_UNDETERMINED, GTR_GS_RUNNABLE, GTR_GS_RUNNING,
				    GTR_GS_SYSCALL, GTR_GS_WAITING};
	return m[status];
}

static int proc_state(uint64_t status)
{
	static const uint8_t m[] = {GTR_PS_UNDETERMINED, GTR_PS_RUNNING, GTR_PS_IDLE, GTR_PS_RUNNING,
				    GTR_PS_IDLE};
	return m[status];
}

/* Forcing: the slot for id, made when missing (NULL: out of memory). */
static slot *forced_slot(smap *m, int64_t id)
{
	slot *s = find(m, id);
	return s ? s : insert(m, id);
}

/* Forcing: no other thread holds P pid, or runs goroutine gid, any more. */
static void forced_detach(gtr_v2_order *o, int64_t self, int64_t pid, int64_t gid)
{
	for (size_t i = 0; i < o->ms.cap; i++) {
		slot *m = &o->ms.s[i];
		if (!m->used || m->key == self)
			continue;
		if (pid != -1 && m->p == pid)
			m->p = -1;
		if (gid != -1 && m->g == gid)
			m->g = -1;
	}
}

/* ---- Ps ---- */

static int proc_status(adv *a)
{
	gtr_v2_order *o = a->o;
	int64_t pid = (int64_t)a->ev->args[0];
	uint64_t status = a->ev->args[1], shown = status;
	if (status > GTR_V2_PROC_SYSCALL_ABANDONED)
		return corrupt(a, "invalid proc status", pid);
	int old = proc_state(status);
	slot *s = find(&o->ps, pid);
	if (s) {
		if (status == GTR_V2_PROC_SYSCALL_ABANDONED && s->status == GTR_V2_PROC_SYSCALL) {
			/* Nothing was lost: still the syscall we know about. */
			old = GTR_PS_RUNNING;
			shown = GTR_V2_PROC_SYSCALL;
		} else if (status == GTR_V2_PROC_SYSCALL_ABANDONED &&
			   s->status == GTR_V2_PROC_SYSCALL_ABANDONED) {
			old = GTR_PS_IDLE;
		} else if (s->status != status) {
			return corrupt(a, "inconsistent proc status", pid);
		}
		s->seq_gen = a->gen;
		s->seq = 0;
	} else {
		if (!(s = insert(&o->ps, pid)))
			return nomem(a);
		s->status = (uint8_t)status;
		s->seq_gen = a->gen;
		old = a->gen == o->initial_gen ? GTR_PS_UNDETERMINED : GTR_PS_NOTEXIST;
	}
	if (status == GTR_V2_PROC_RUNNING || status == GTR_V2_PROC_SYSCALL)
		a->next.p = pid;
	ctx c = a->cur;
	if (status == GTR_V2_PROC_SYSCALL_ABANDONED && old == GTR_PS_RUNNING) {
		/* The P is about to be stolen and its status may come from
		 * another thread: report it in the context it is bound to. */
		int found = 0;
		for (size_t i = 0; i < o->ms.cap; i++) {
			const slot *m = &o->ms.s[i];
			/* One thread holds it; were there more (a broken
			 * trace), the lowest M, whatever the map's layout. */
			if (m->used && m->p == pid && (!found || m->key < c.m)) {
				c = (ctx){m->g, pid, m->key};
				found = 1;
			}
		}
		if (!found)
			return corrupt(a, "no thread holds the proc about to be stolen", pid);
	}
	trans(push_ev(a, c), GTR_RES_P, old, proc_state(shown), pid, 0, 0);
	return 1;
}

static int proc_start(adv *a)
{
	int64_t pid = (int64_t)a->ev->args[0];
	slot *s = find(&a->o->ps, pid);
	if (!s || s->status != GTR_V2_PROC_IDLE || !succeeds(a->gen, a->ev->args[1], s) ||
	    a->cur.p != -1) {
		if (!a->o->force)
			return 0;
		if (!(s = forced_slot(&a->o->ps, pid)))
			return nomem(a);
		forced_detach(a->o, a->cur.m, pid, -1);
	}
	int rc = check_ctx(a, a->cur, MUST, MUST_NOT, MAY);
	if (rc < 0)
		return rc;
	s->status = GTR_V2_PROC_RUNNING;
	s->seq_gen = a->gen;
	s->seq = a->ev->args[1];
	a->next.p = pid;
	trans(push_ev(a, a->cur), GTR_RES_P, GTR_PS_IDLE, GTR_PS_RUNNING, pid, 0, 0);
	return 1;
}

static int proc_stop(adv *a)
{
	slot *s = find(&a->o->ps, a->cur.p);
	if (!s)
		return corrupt(a, "proc does not exist", a->cur.p);
	if (s->status != GTR_V2_PROC_RUNNING && s->status != GTR_V2_PROC_SYSCALL)
		return corrupt(a, "proc is not running", a->cur.p);
	int rc = check_ctx(a, a->cur, MUST, MUST, MAY);
	if (rc < 0)
		return rc;
	s->status = GTR_V2_PROC_IDLE;
	a->next.p = -1;
	trans(push_ev(a, a->cur), GTR_RES_P, GTR_PS_RUNNING, GTR_PS_IDLE, a->cur.p, 0, 0);
	return 1;
}

static int proc_steal(adv *a)
{
	int64_t pid = (int64_t)a->ev->args[0];
	slot *s = find(&a->o->ps, pid);
	if (!s ||
	    (s->status != GTR_V2_PROC_SYSCALL && s->status != GTR_V2_PROC_SYSCALL_ABANDONED) ||
	    !succeeds(a->gen, a->ev->args[1], s)) {
		if (!a->o->force)
			return 0;
		if (!(s = forced_slot(&a->o->ps, pid)))
			return nomem(a);
		/* Lost with what was cut: whoever held it lets go. */
		s->status = GTR_V2_PROC_SYSCALL_ABANDONED;
		forced_detach(a->o, a->cur.m, pid, -1);
	}
	int rc = check_ctx(a, a->cur, MUST, MAY, MAY);
	if (rc < 0)
		return rc;
	int abandoned = s->status == GTR_V2_PROC_SYSCALL_ABANDONED;
	s->status = GTR_V2_PROC_IDLE;
	s->seq_gen = a->gen;
	s->seq = a->ev->args[1];
	/* After SyscallAbandoned the M it was on may have moved on: leave
	 * the Ms alone, and report the P as going from Idle to Idle. */
	int from = abandoned ? GTR_PS_IDLE : GTR_PS_RUNNING;
	if (!abandoned) {
		int64_t mid = (int64_t)a->ev->args[2];
		if (mid == a->cur.m) {
			if (a->cur.p != pid)
				return corrupt(a, "self-steal of a proc this thread does not hold", pid);
			a->next.p = -1;
		} else {
			slot *m = find(&a->o->ms, mid);
			if (!m)
				return corrupt(a, "proc stolen from a thread never seen", mid);
			if (m->p != pid)
				return corrupt(a, "proc stolen from a thread that does not hold it", pid);
			/* The victim's GoSyscallEndBlocked may now proceed. */
			m->p = -1;
		}
	}
	trans(push_ev(a, a->cur), GTR_RES_P, from, GTR_PS_IDLE, pid, 0, 0);
	return 1;
}

/* ---- goroutines ---- */

static int go_status(adv *a)
{
	gtr_v2_order *o = a->o;
	int64_t gid = (int64_t)a->ev->args[0], mid = (int64_t)a->ev->args[1];
	uint64_t status = a->ev->args[2];
	if (status > GTR_V2_GO_WAITING)
		return corrupt(a, "invalid goroutine status", gid);
	int old = go_state(status);
	slot *s = find(&o->gs, gid);
	if (s) {
		if (s->status != status)
			return corrupt(a, "inconsistent goroutine status", gid);
		s->seq_gen = a->gen;
		s->seq = 0;
	} else if (a->gen == o->initial_gen) {
		if (!(s = insert(&o->gs, gid)))
			return nomem(a);
		s->status = (uint8_t)status;
		s->seq_gen = a->gen;
		old = GTR_GS_UNDETERMINED;
	} else {
		return corrupt(a, "status of a new goroutine after the first generation", gid);
	}
	ctx c = a->cur;
	if (status == GTR_V2_GO_RUNNING) {
		a->next.g = gid;
	} else if (status == GTR_V2_GO_SYSCALL) {
		if (mid == -1)
			return corrupt(a, "goroutine in a syscall without a thread", gid);
		if (mid == a->cur.m) {
			if (a->gen != o->initial_gen && a->cur.g != gid)
				return corrupt(a, "syscalling goroutine on the wrong thread", gid);
			a->next.g = gid;
		} else {
			/* A goroutine blocked in a syscall on another M for the
			 * whole generation: report it on that M. */
			slot *m = find(&o->ms, mid);
			if (m) {
				if (m->g != gid)
					return corrupt(a, "syscalling goroutine on the wrong thread", gid);
				c.g = m->g;
			} else {
				if (!(m = insert(&o->ms, mid)))
					return nomem(a);
				m->g = gid;
				m->p = -1;
			}
			c.m = mid;
		}
	}
	uint64_t stack = a->ev->type == GTR_V2_EV_GO_STATUS_STACK ? a->ev->args[3] : 0;
	trans(push_ev(a, c), GTR_RES_G, old, go_state(status), gid, 0, stack);
	return 1;
}

static int go_create(adv *a)
{
	gtr_v2_order *o = a->o;
	int rc = check_ctx(a, a->cur, MUST, MUST, MAY);
	if (rc < 0)
		return rc;
	slot *s = find(&o->gs, a->cur.g);
	if (s && s->status != GTR_V2_GO_RUNNING)
		return corrupt(a, "creating goroutine is not running", a->cur.g);
	int64_t ng = (int64_t)a->ev->args[0];
	if (find(&o->gs, ng))
		return corrupt(a, "goroutine created twice", ng);
	int blocked = a->ev->type == GTR_V2_EV_GO_CREATE_BLOCKED;
	if (!(s = insert(&o->gs, ng)))
		return nomem(a);
	s->status = blocked ? GTR_V2_GO_WAITING : GTR_V2_GO_RUNNABLE;
	s->seq_gen = a->gen;
	trans(push_ev(a, a->cur), GTR_RES_G, GTR_GS_NOTEXIST,
	      blocked ? GTR_GS_WAITING : GTR_GS_RUNNABLE, ng, 0, a->ev->args[1]);
	return 1;
}

/* GoDestroy, GoStop, GoBlock: the running goroutine leaves its M. */
static int go_stop_exec(adv *a)
{
	gtr_v2_order *o = a->o;
	int rc = check_user(a);
	if (rc < 0)
		return rc;
	slot *s = find(&o->gs, a->cur.g);
	if (!s)
		return corrupt(a, "goroutine does not exist", a->cur.g);
	if (s->status != GTR_V2_GO_RUNNING)
		return corrupt(a, "goroutine is not running", a->cur.g);
	gtr_v2_out *out;
	switch (a->ev->type) {
	case GTR_V2_EV_GO_DESTROY:
		erase(&o->gs, s);
		out = push_ev(a, a->cur);
		trans(out, GTR_RES_G, GTR_GS_RUNNING, GTR_GS_NOTEXIST, a->cur.g, 0, 0);
		break;
	case GTR_V2_EV_GO_STOP:
		s->status = GTR_V2_GO_RUNNABLE;
		out = push_ev(a, a->cur);
		trans(out, GTR_RES_G, GTR_GS_RUNNING, GTR_GS_RUNNABLE, a->cur.g, a->ev->args[0],
		      a->ev->args[1]);
		break;
	default:
		s->status = GTR_V2_GO_WAITING;
		out = push_ev(a, a->cur);
		trans(out, GTR_RES_G, GTR_GS_RUNNING, GTR_GS_WAITING, a->cur.g, a->ev->args[0],
		      a->ev->args[1]);
		break;
	}
	a->next.g = -1;
	return 1;
}

static int go_start(adv *a)
{
	int64_t gid = (int64_t)a->ev->args[0];
	slot *s = find(&a->o->gs, gid);
	if (!s || s->status != GTR_V2_GO_RUNNABLE || !succeeds(a->gen, a->ev->args[1], s)) {
		if (!a->o->force)
			return 0;
		if (!(s = forced_slot(&a->o->gs, gid)))
			return nomem(a);
		forced_detach(a->o, a->cur.m, -1, gid);
	}
	int rc = check_ctx(a, a->cur, MUST, MUST, MUST_NOT);
	if (rc < 0)
		return rc;
	s->status = GTR_V2_GO_RUNNING;
	s->seq_gen = a->gen;
	s->seq = a->ev->args[1];
	a->next.g = gid;
	trans(push_ev(a, a->cur), GTR_RES_G, GTR_GS_RUNNABLE, GTR_GS_RUNNING, gid, 0, 0);
	return 1;
}

static int go_unblock(adv *a)
{
	int64_t gid = (int64_t)a->ev->args[0];
	slot *s = find(&a->o->gs, gid);
	if (!s || s->status != GTR_V2_GO_WAITING || !succeeds(a->gen, a->ev->args[1], s)) {
		if (!a->o->force)
			return 0;
		if (!(s = forced_slot(&a->o->gs, gid)))
			return nomem(a);
	}
	/* Anything may unblock a goroutine (sysmon, too): no context check. */
	s->status = GTR_V2_GO_RUNNABLE;
	s->seq_gen = a->gen;
	s->seq = a->ev->args[1];
	trans(push_ev(a, a->cur), GTR_RES_G, GTR_GS_WAITING, GTR_GS_RUNNABLE, gid, 0, 0);
	return 1;
}

/* GoSwitch(Destroy): unblock the next goroutine, block (or destroy) the
 * current one, start the next one; Go reports three events. */
static int go_switch(adv *a)
{
	gtr_v2_order *o = a->o;
	int rc = check_user(a);
	if (rc < 0)
		return rc;
	slot *cs = find(&o->gs, a->cur.g);
	if (!cs)
		return corrupt(a, "goroutine does not exist", a->cur.g);
	if (cs->status != GTR_V2_GO_RUNNING)
		return corrupt(a, "goroutine is not running", a->cur.g);
	int64_t ng = (int64_t)a->ev->args[0];
	uint64_t seq = a->ev->args[1];
	if (ng == a->cur.g)
		return corrupt(a, "goroutine switches to itself", ng);
	slot *ns = find(&o->gs, ng);
	if (!ns || ns->status != GTR_V2_GO_WAITING || !succeeds(a->gen, seq, ns)) {
		if (!o->force)
			return 0;
		if (!(ns = forced_slot(&o->gs, ng)))
			return nomem(a);
		cs = find(&o->gs, a->cur.g); /* inserting may move slots */
	}
	trans(push_ev(a, a->cur), GTR_RES_G, GTR_GS_WAITING, GTR_GS_RUNNABLE, ng, 0, 0);
	if (a->ev->type == GTR_V2_EV_GO_SWITCH) {
		static const uint64_t no_reason_no_stack[GTR_MAX_ARGS] = {0};
		cs->status = GTR_V2_GO_WAITING;
		trans(push(a, a->cur, GTR_V2_EV_GO_BLOCK, no_reason_no_stack), GTR_RES_G,
		      GTR_GS_RUNNING, GTR_GS_WAITING, a->cur.g, 0, 0);
	} else {
		erase(&o->gs, cs);
		ns = find(&o->gs, ng); /* erasing may move slots */
		trans(push(a, a->cur, GTR_V2_EV_GO_DESTROY, NULL), GTR_RES_G, GTR_GS_RUNNING,
		      GTR_GS_NOTEXIST, a->cur.g, 0, 0);
	}
	ns->status = GTR_V2_GO_RUNNING;
	ns->seq_gen = a->gen;
	ns->seq = seq;
	a->next.g = ng;
	ctx start = a->cur;
	start.g = -1;
	uint64_t args[GTR_MAX_ARGS] = {(uint64_t)ng, seq};
	trans(push(a, start, GTR_V2_EV_GO_START, args), GTR_RES_G, GTR_GS_RUNNABLE, GTR_GS_RUNNING,
	      ng, 0, 0);
	return 1;
}

static int go_syscall_begin(adv *a)
{
	gtr_v2_order *o = a->o;
	int rc = check_user(a);
	if (rc < 0)
		return rc;
	slot *s = find(&o->gs, a->cur.g);
	if (!s)
		return corrupt(a, "goroutine does not exist", a->cur.g);
	if (s->status != GTR_V2_GO_RUNNING)
		return corrupt(a, "goroutine is not running", a->cur.g);
	s->status = GTR_V2_GO_SYSCALL;
	slot *p = find(&o->ps, a->cur.p);
	if (!p)
		return corrupt(a, "proc does not exist", a->cur.p);
	p->status = GTR_V2_PROC_SYSCALL;
	/* The P sequence number only disambiguates steals; on a running P
	 * it must line up. */
	if (!succeeds(a->gen, a->ev->args[0], p))
		return corrupt(a, "proc sequence number out of order", a->cur.p);
	p->seq_gen = a->gen;
	p->seq = a->ev->args[0];
	trans(push_ev(a, a->cur), GTR_RES_G, GTR_GS_RUNNING, GTR_GS_SYSCALL, a->cur.g, 0,
	      a->ev->args[1]);
	return 1;
}

static int go_syscall_end(adv *a)
{
	gtr_v2_order *o = a->o;
	int rc = check_user(a);
	if (rc < 0)
		return rc;
	slot *s = find(&o->gs, a->cur.g);
	if (!s)
		return corrupt(a, "goroutine does not exist", a->cur.g);
	if (s->status != GTR_V2_GO_SYSCALL)
		return corrupt(a, "goroutine is not in a syscall", a->cur.g);
	s->status = GTR_V2_GO_RUNNING;
	slot *p = find(&o->ps, a->cur.p);
	if (!p)
		return corrupt(a, "proc does not exist", a->cur.p);
	if (p->status != GTR_V2_PROC_SYSCALL)
		return corrupt(a, "proc is not in a syscall", a->cur.p);
	p->status = GTR_V2_PROC_RUNNING;
	trans(push_ev(a, a->cur), GTR_RES_G, GTR_GS_SYSCALL, GTR_GS_RUNNING, a->cur.g, 0, 0);
	return 1;
}

static int go_syscall_end_blocked(adv *a)
{
	gtr_v2_order *o = a->o;
	/* The event says the P was lost during the syscall: wait until the
	 * trace shows it stolen or stopped. */
	if (a->cur.p != -1) {
		slot *p = find(&o->ps, a->cur.p);
		if (!p)
			return corrupt(a, "proc does not exist", a->cur.p);
		if (p->status == GTR_V2_PROC_SYSCALL && !o->force)
			return 0;
	}
	int rc = check_ctx(a, a->cur, MUST, MAY, MUST);
	if (rc < 0)
		return rc;
	slot *s = find(&o->gs, a->cur.g);
	if (!s)
		return corrupt(a, "goroutine does not exist", a->cur.g);
	if (s->status != GTR_V2_GO_SYSCALL)
		return corrupt(a, "goroutine is not in a syscall", a->cur.g);
	s->status = GTR_V2_GO_RUNNABLE;
	a->next.g = -1;
	trans(push_ev(a, a->cur), GTR_RES_G, GTR_GS_SYSCALL, GTR_GS_RUNNABLE, a->cur.g, 0, 0);
	return 1;
}

static int go_create_syscall(adv *a)
{
	gtr_v2_order *o = a->o;
	int rc = check_ctx(a, a->cur, MUST, MAY, MUST_NOT);
	if (rc < 0)
		return rc;
	int64_t ng = (int64_t)a->ev->args[0];
	if (find(&o->gs, ng))
		return corrupt(a, "goroutine created twice", ng);
	slot *s = insert(&o->gs, ng);
	if (!s)
		return nomem(a);
	s->status = GTR_V2_GO_SYSCALL;
	s->seq_gen = a->gen;
	a->next.g = ng;
	trans(push_ev(a, a->cur), GTR_RES_G, GTR_GS_NOTEXIST, GTR_GS_SYSCALL, ng, 0, 0);
	return 1;
}

static int go_destroy_syscall(adv *a)
{
	gtr_v2_order *o = a->o;
	int rc = check_ctx(a, a->cur, MUST, MAY, MUST);
	if (rc < 0)
		return rc;
	slot *s = find(&o->gs, a->cur.g);
	if (!s)
		return corrupt(a, "goroutine does not exist", a->cur.g);
	if (s->status != GTR_V2_GO_SYSCALL)
		return corrupt(a, "goroutine is not in a syscall", a->cur.g);
	erase(&o->gs, s);
	a->next.g = -1;
	if (a->cur.p != -1) {
		/* The thread id may be reused: give up the P now, as a steal
		 * from ourselves, so that a later M with the same id cannot
		 * be confused with this one. */
		slot *p = find(&o->ps, a->cur.p);
		if (!p)
			return corrupt(a, "proc does not exist", a->cur.p);
		if (p->status != GTR_V2_PROC_SYSCALL)
			return corrupt(a, "proc is not in a syscall", a->cur.p);
		p->status = GTR_V2_PROC_SYSCALL_ABANDONED;
		a->next.p = -1;
		uint64_t args[GTR_MAX_ARGS] = {(uint64_t)a->cur.p};
		trans(push(a, a->cur, GTR_V2_EV_PROC_STEAL, args), GTR_RES_P, GTR_PS_RUNNING,
		      GTR_PS_IDLE, a->cur.p, 0, 0);
	}
	trans(push_ev(a, a->cur), GTR_RES_G, GTR_GS_SYSCALL, GTR_GS_NOTEXIST, a->cur.g, 0, 0);
	return 1;
}

/* ---- GC, annotations, and the rest ---- */

static int gc_active(adv *a)
{
	gtr_v2_order *o = a->o;
	uint64_t seq = a->ev->args[0];
	if (a->gen == o->initial_gen) {
		if (o->gc_state != GC_UNDETERMINED)
			return corrupt(a, "GCActive in the first generation after another GC event", 0);
		o->gc_seq = seq;
		o->gc_state = GC_RUNNING;
		push_ev(a, a->cur);
		return 1;
	}
	if (seq != o->gc_seq + 1 && !o->force)
		return 0;
	if (o->gc_state != GC_RUNNING && !o->force)
		return corrupt(a, "GCActive while no GC runs", (int64_t)seq);
	o->gc_seq = seq;
	int rc = check_user(a);
	if (rc < 0)
		return rc;
	push_ev(a, a->cur);
	return 1;
}

static int gc_begin(adv *a)
{
	gtr_v2_order *o = a->o;
	uint64_t seq = a->ev->args[0];
	if (o->gc_state == GC_UNDETERMINED) {
		o->gc_seq = seq;
		o->gc_state = GC_RUNNING;
		push_ev(a, a->cur);
		return 1;
	}
	if (seq != o->gc_seq + 1 && !o->force)
		return 0;
	if (o->gc_state == GC_RUNNING && !o->force)
		return corrupt(a, "GCBegin while a GC runs", (int64_t)seq);
	o->gc_seq = seq;
	o->gc_state = GC_RUNNING;
	int rc = check_user(a);
	if (rc < 0)
		return rc;
	push_ev(a, a->cur);
	return 1;
}

static int gc_end(adv *a)
{
	gtr_v2_order *o = a->o;
	uint64_t seq = a->ev->args[0];
	if (seq != o->gc_seq + 1 && !o->force)
		return 0;
	if (o->gc_state != GC_RUNNING && !o->force)
		return corrupt(a, "GCEnd while no GC runs", (int64_t)seq);
	o->gc_seq = seq;
	o->gc_state = GC_NOT_RUNNING;
	int rc = check_user(a);
	if (rc < 0)
		return rc;
	push_ev(a, a->cur);
	return 1;
}

/* Events that only need a context: rm/rp/rg as in check_ctx. */
static int simple(adv *a, int rm, int rp, int rg)
{
	int rc = check_ctx(a, a->cur, rm, rp, rg);
	if (rc < 0)
		return rc;
	push_ev(a, a->cur);
	return 1;
}

/* Events of the running goroutine that Go checks against its state. */
static int goroutine_bound(adv *a)
{
	int rc = check_user(a);
	if (rc < 0)
		return rc;
	if (!find(&a->o->gs, a->cur.g))
		return corrupt(a, "no state for the current goroutine", a->cur.g);
	push_ev(a, a->cur);
	return 1;
}

static int dispatch(adv *a)
{
	switch (a->ev->type) {
	case GTR_V2_EV_PROC_STATUS: return proc_status(a);
	case GTR_V2_EV_PROC_START: return proc_start(a);
	case GTR_V2_EV_PROC_STOP: return proc_stop(a);
	case GTR_V2_EV_PROC_STEAL: return proc_steal(a);
	case GTR_V2_EV_GO_STATUS:
	case GTR_V2_EV_GO_STATUS_STACK: return go_status(a);
	case GTR_V2_EV_GO_CREATE:
	case GTR_V2_EV_GO_CREATE_BLOCKED: return go_create(a);
	case GTR_V2_EV_GO_CREATE_SYSCALL: return go_create_syscall(a);
	case GTR_V2_EV_GO_START: return go_start(a);
	case GTR_V2_EV_GO_DESTROY:
	case GTR_V2_EV_GO_STOP:
	case GTR_V2_EV_GO_BLOCK: return go_stop_exec(a);
	case GTR_V2_EV_GO_DESTROY_SYSCALL: return go_destroy_syscall(a);
	case GTR_V2_EV_GO_UNBLOCK: return go_unblock(a);
	case GTR_V2_EV_GO_SWITCH:
	case GTR_V2_EV_GO_SWITCH_DESTROY: return go_switch(a);
	case GTR_V2_EV_GO_SYSCALL_BEGIN: return go_syscall_begin(a);
	case GTR_V2_EV_GO_SYSCALL_END: return go_syscall_end(a);
	case GTR_V2_EV_GO_SYSCALL_END_BLOCKED: return go_syscall_end_blocked(a);
	case GTR_V2_EV_GC_ACTIVE: return gc_active(a);
	case GTR_V2_EV_GC_BEGIN: return gc_begin(a);
	case GTR_V2_EV_GC_END: return gc_end(a);
	case GTR_V2_EV_PROCS_CHANGE:
	case GTR_V2_EV_GO_LABEL:
	case GTR_V2_EV_USER_LOG:
	case GTR_V2_EV_USER_TASK_BEGIN:
	case GTR_V2_EV_USER_TASK_END: return simple(a, MUST, MUST, MUST);
	case GTR_V2_EV_HEAP_ALLOC:
	case GTR_V2_EV_HEAP_GOAL:
	case GTR_V2_EV_GC_SWEEP_BEGIN:
	case GTR_V2_EV_GC_SWEEP_END: return simple(a, MUST, MUST, MAY);
	case GTR_V2_EV_GC_SWEEP_ACTIVE:
		if (!find(&a->o->ps, (int64_t)a->ev->args[0]))
			return corrupt(a, "GCSweepActive for an unknown proc", (int64_t)a->ev->args[0]);
		push_ev(a, a->cur);
		return 1;
	case GTR_V2_EV_GC_MARK_ASSIST_ACTIVE:
		/* It may name a goroutine that is not running. */
		if (!find(&a->o->gs, (int64_t)a->ev->args[0]))
			return corrupt(a, "mark assist of an unknown goroutine", (int64_t)a->ev->args[0]);
		push_ev(a, a->cur);
		return 1;
	case GTR_V2_EV_STW_BEGIN:
	case GTR_V2_EV_STW_END:
	case GTR_V2_EV_GC_MARK_ASSIST_BEGIN:
	case GTR_V2_EV_GC_MARK_ASSIST_END:
	case GTR_V2_EV_USER_REGION_BEGIN:
	case GTR_V2_EV_USER_REGION_END: return goroutine_bound(a);
	default:
		if (a->ev->type >= GTR_V2_EV_SPAN && a->ev->type <= GTR_V2_EV_GOROUTINE_STACK_FREE)
			return simple(a, MUST, MAY, MAY);
		return corrupt(a, "event type cannot be ordered", a->ev->type);
	}
}

int gtr_v2_order_force(gtr_v2_order *o, const gtr_v2_raw *ev, int64_t m, uint64_t gen,
		       uint32_t table, gtr_error *err)
{
	o->force = 1;
	int rc = gtr_v2_order_advance(o, ev, m, gen, table, err);
	o->force = 0;
	return rc;
}

int gtr_v2_order_advance(gtr_v2_order *o, const gtr_v2_raw *ev, int64_t m, uint64_t gen,
			 uint32_t table, gtr_error *err)
{
	if (o->initial_gen == 0)
		o->initial_gen = gen;
	adv a = {.o = o, .ev = ev, .gen = gen, .table = table, .err = err};
	a.cur = (ctx){-1, -1, m};
	slot *ms = NULL;
	if (m != -1) {
		ms = find(&o->ms, m);
		if (!ms) {
			/* Go creates the M's state on the first look, even
			 * when the event cannot advance yet. */
			if (!(ms = insert(&o->ms, m)))
				return gtr_v2_fail(err, GTR_E_NOMEM, ev->off, -1, -1, "out of memory");
			ms->g = -1;
			ms->p = -1;
		}
		a.cur.g = ms->g;
		a.cur.p = ms->p;
	}
	a.next = a.cur;
	unsigned qlen = o->qlen;
	const slot *mslots = o->ms.s;
	int rc = dispatch(&a);
	if (rc <= 0) {
		o->qlen = qlen; /* drop anything queued before an error */
		return rc;
	}
	if (m != -1) {
		/* Ms are never erased: the slot moved only if a handler added
		 * one and the table grew. */
		if (o->ms.s != mslots)
			ms = find(&o->ms, m);
		ms->g = a.next.g;
		ms->p = a.next.p;
	}
	return 1;
}
