/* core/analysis/goroutine.c: one goroutine's life, in one pass in Go's order. */
#include "core/analysis/goroutine.h"
#include "core/base/idmap.h"
#include "core/base/vec.h"

#include <stdlib.h>
#include <string.h>

struct gtr_goroutine_acc {
	const gtr_trace *t;
	const gtr_goroutine_opts *opts;
	gtr_goroutine_opts o;
	gtr_goroutine *g;
	size_t captrans, capblocks;
	gtr_idmap *blockidx;  /* (table, stack, state) -> first group with them */
	uint64_t sync_ns;     /* the last sync point */
	int clock;            /* the state clock runs */
	uint8_t cur;
	uint64_t since;
	int in_slice;
	gtr_gslice open;
	int in_block;
	gtr_gblock block;     /* the wait under way: reason, stack, state */
	uint64_t block_since;
	int ty_sync, ty_region_begin, ty_region, ty_log;
	int v1;
};

typedef struct gtr_goroutine_acc run;

static int str_eq(gtr_str a, gtr_str b)
{
	return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

static int slice_longer(const gtr_gslice *a, const gtr_gslice *b)
{
	uint64_t da = a->end - a->start, db = b->end - b->start;
	if (da != db)
		return da > db;
	return a->start < b->start;
}

/* Keeps the longest top_slices slices, sorted, by insertion (top_slices is small). */
static void keep_slice(run *r, const gtr_gslice *s)
{
	gtr_goroutine *g = r->g;
	size_t max = r->opts->top_slices, n = g->nslices_kept;
	if (!max)
		return;
	if (n == max && !slice_longer(s, &g->slices[n - 1]))
		return;
	size_t i = n < max ? n : max - 1;
	while (i > 0 && slice_longer(s, &g->slices[i - 1])) {
		g->slices[i] = g->slices[i - 1];
		i--;
	}
	g->slices[i] = *s;
	if (n < max)
		g->nslices_kept++;
}

static int end_block(run *r, uint64_t ts)
{
	gtr_goroutine *g = r->g;
	r->in_block = 0;
	uint64_t d = ts > r->block_since ? ts - r->block_since : 0;
	uint64_t key = (uint64_t)r->block.table * 8 + r->block.state, idx;
	gtr_gblock *b = NULL;
	if (gtr_idmap_get(r->blockidx, key, r->block.stack, &idx)) {
		if (str_eq(g->blocks[idx].reason, r->block.reason))
			b = &g->blocks[idx];
		for (size_t i = idx + 1; !b && i < g->nblocks; i++)
			if (g->blocks[i].table == r->block.table && g->blocks[i].stack == r->block.stack &&
			    g->blocks[i].state == r->block.state && str_eq(g->blocks[i].reason, r->block.reason))
				b = &g->blocks[i];
	}
	if (!b) {
		if (gtr_grow(&g->blocks, &r->capblocks, g->nblocks + 1, sizeof *g->blocks) < 0)
			return GTR_E_NOMEM;
		if (!gtr_idmap_get(r->blockidx, key, r->block.stack, &idx) &&
		    gtr_idmap_put(r->blockidx, key, r->block.stack, g->nblocks) < 0)
			return GTR_E_NOMEM;
		b = &g->blocks[g->nblocks++];
		*b = r->block;
		b->count = b->total_ns = b->max_ns = 0;
	}
	b->count++;
	b->total_ns += d;
	if (d > b->max_ns)
		b->max_ns = d;
	return 0;
}

static int on_transition(run *r, const gtr_event *ev, const gtr_transition *tr)
{
	gtr_goroutine *g = r->g;
	uint64_t ts = ev->ts;
	if (tr->from == tr->to)
		return 0;
	if (!g->found) {
		g->found = 1;
		g->first_ns = (int64_t)(tr->from == GTR_GS_UNDETERMINED ? r->sync_ns : ts);
	}
	g->ntrans++;
	if (tr->from < GTR_GSTATES && tr->to < GTR_GSTATES)
		g->pair[tr->from][tr->to]++;
	if (g->ntrans_kept < r->opts->max_trans) {
		if (gtr_grow(&g->trans, &r->captrans, g->ntrans_kept + 1, sizeof *g->trans) < 0)
			return GTR_E_NOMEM;
		g->trans[g->ntrans_kept++] = (gtr_gtrans){.ts = ts, .from = tr->from, .to = tr->to,
							  .p = ev->p, .reason = tr->reason,
							  .type = ev->type, .table = ev->table,
							  .stack = tr->stack};
	}
	if (tr->from == GTR_GS_NOTEXIST) {
		g->created_ns = (int64_t)ts;
		g->creator = ev->g;
		g->create_table = ev->table;
		g->creator_stack = ev->stack;
		g->start_stack = tr->stack;
	}
	/* The state clock: found in a state at a sync, it has been in it since. */
	if (tr->from == GTR_GS_UNDETERMINED) {
		r->clock = 1;
		r->since = r->sync_ns;
	} else if (r->clock && r->cur < GTR_GSTATES) {
		g->state_ns[r->cur] += ts > r->since ? ts - r->since : 0;
		r->since = ts;
	} else {
		r->clock = 1;
		r->since = ts;
	}
	r->cur = tr->to;
	if (tr->to == GTR_GS_NOTEXIST) {
		g->exited_ns = (int64_t)ts;
		r->clock = 0;
	}
	/* Blocked for ever is as good as gone: Go's summary stops there. */
	if (tr->to == GTR_GS_WAITING && tr->reason.n == 7 && memcmp(tr->reason.p, "forever", 7) == 0)
		r->clock = 0;
	/* Slices. */
	if (r->in_slice && tr->to != GTR_GS_RUNNING) {
		r->in_slice = 0;
		r->open.end = ts < r->open.start ? r->open.start : ts;
		r->open.to = tr->to;
		r->open.reason = tr->reason;
		g->nslices++;
		g->slices_ns += r->open.end - r->open.start;
		keep_slice(r, &r->open);
	}
	if (tr->to == GTR_GS_RUNNING && !r->in_slice) {
		r->in_slice = 1;
		uint64_t start = tr->from == GTR_GS_UNDETERMINED ? r->sync_ns : ts;
		r->open = (gtr_gslice){.start = start, .p = ev->p};
	}
	/* Waits. */
	if (r->in_block && tr->to != r->block.state) {
		int rc = end_block(r, ts);
		if (rc < 0)
			return rc;
	}
	if ((tr->to == GTR_GS_WAITING || tr->to == GTR_GS_SYSCALL) && !r->in_block) {
		r->in_block = 1;
		r->block_since = tr->from == GTR_GS_UNDETERMINED ? r->sync_ns : ts;
		r->block = (gtr_gblock){.reason = tr->reason, .state = tr->to, .table = ev->table,
					.stack = tr->stack};
	}
	return 0;
}

static int on_event(run *r, const gtr_event *ev)
{
	gtr_goroutine *g = r->g;
	if (ev->ts > g->end_ns)
		g->end_ns = ev->ts;
	int type = ev->type;
	if (type == r->ty_sync)
		r->sync_ns = ev->ts;
	for (unsigned i = 0, nt = gtr_event_ntrans(ev); i < nt; i++) {
		const gtr_transition *tr = gtr_event_trans(ev, i);
		if (tr->res == GTR_RES_G && tr->id == g->id) {
			int rc = on_transition(r, ev, tr);
			if (rc < 0)
				return rc;
		}
	}
	if (ev->g == g->id) {
		if (type == r->ty_region_begin || (type == r->ty_region && ev->nargs >= 2 && ev->args[1] == 0))
			g->nregions++;
		else if (type == r->ty_log)
			g->nlogs++;
	}
	return 0;
}

static int cmp_block(const void *a, const void *b)
{
	const gtr_gblock *x = a, *y = b;
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

void gtr_goroutine_free(gtr_goroutine *g)
{
	if (!g)
		return;
	free(g->trans);
	free(g->slices);
	free(g->blocks);
	free(g);
}

static void acc_free(run *r)
{
	if (!r)
		return;
	gtr_idmap_free(r->blockidx);
	gtr_goroutine_free(r->g);
	free(r);
}

int gtr_goroutine_begin(const gtr_trace *t, const gtr_goroutine_opts *opts, gtr_goroutine_acc **out,
			gtr_error *err)
{
	*out = NULL;
	run *r = calloc(1, sizeof *r);
	if (!r)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	r->t = t;
	r->o = *opts;
	if (r->o.top_slices > 10000)
		r->o.top_slices = 10000;
	r->opts = &r->o;
	r->g = calloc(1, sizeof *r->g);
	r->blockidx = gtr_idmap_create();
	if (!r->g || !r->blockidx ||
	    (r->o.top_slices && !(r->g->slices = calloc(r->o.top_slices, sizeof *r->g->slices)))) {
		acc_free(r);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	gtr_goroutine *g = r->g;
	g->id = opts->id;
	g->created_ns = g->creator = g->exited_ns = g->first_ns = -1;
	r->v1 = gtr_trace_get_info(t)->family == GTR_FAMILY_V1;
	r->ty_sync = r->v1 ? -1 : gtr_trace_type(t, "Sync");
	r->ty_region_begin = r->v1 ? -1 : gtr_trace_type(t, "UserRegionBegin");
	r->ty_region = r->v1 ? gtr_trace_type(t, "UserRegion") : -1;
	r->ty_log = gtr_trace_type(t, "UserLog");
	*out = r;
	return 0;
}

static int sink_event(void *self, const gtr_event *ev)
{
	return on_event(self, ev);
}

gtr_sink gtr_goroutine_sink(gtr_goroutine_acc *acc)
{
	return (gtr_sink){.self = acc, .on_event = sink_event};
}

int gtr_goroutine_end(gtr_goroutine_acc *r, gtr_goroutine **out, gtr_error *err)
{
	*out = NULL;
	gtr_goroutine *g = r->g;
	/* The end of the trace stops every clock. */
	if (r->clock && r->cur < GTR_GSTATES)
		g->state_ns[r->cur] += g->end_ns > r->since ? g->end_ns - r->since : 0;
	if (r->in_slice) {
		r->open.end = g->end_ns < r->open.start ? r->open.start : g->end_ns;
		r->open.to = GTR_GS_RUNNING;
		g->nslices++;
		g->slices_ns += r->open.end - r->open.start;
		keep_slice(r, &r->open);
	}
	if (r->in_block) {
		int rc = end_block(r, g->end_ns);
		if (rc < 0) {
			acc_free(r);
			return gtr_error_set(err, rc, 0, "out of memory");
		}
	}
	if (g->nblocks)
		qsort(g->blocks, g->nblocks, sizeof *g->blocks, cmp_block);
	*out = g;
	r->g = NULL;
	acc_free(r);
	return 0;
}

void gtr_goroutine_abort(gtr_goroutine_acc *acc)
{
	acc_free(acc);
}

int gtr_goroutine_run(const gtr_trace *t, const gtr_goroutine_opts *opts, gtr_goroutine **out,
		      gtr_error *err)
{
	*out = NULL;
	gtr_goroutine_acc *r;
	int rc = gtr_goroutine_begin(t, opts, &r, err);
	if (rc < 0)
		return rc;
	gtr_sink sk = gtr_goroutine_sink(r);
	rc = gtr_engine_run(t, &sk, 1, &(gtr_engine_opts){.jobs = opts->jobs}, NULL, err);
	if (rc < 0) {
		gtr_goroutine_abort(r);
		return rc;
	}
	return gtr_goroutine_end(r, out, err);
}
