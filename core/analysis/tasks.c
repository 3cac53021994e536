/* core/analysis/tasks.c: user tasks, regions and logs, in one pass in Go's order. */
#include "core/analysis/tasks.h"
#include "core/base/idmap.h"
#include "core/base/vec.h"

#include <stdlib.h>
#include <string.h>

/* A type name and the durations of its complete instances. */
typedef struct tyrec {
	gtr_str name;
	uint64_t count, total;
	uint64_t *durs;
	size_t ndurs, capdurs;
} tyrec;

/* Types by name: open addressing over indices into recs. */
typedef struct tytab {
	tyrec *recs;
	size_t n, cap;
	uint32_t *slots; /* index + 1; 0 empty */
	size_t nslots;
} tytab;

/* A goroutine: the stack that names it, and its open regions. */
typedef struct gst {
	uint32_t table;
	uint64_t stack;   /* first transition stack, which Go names it by; 0: none yet */
	gtr_region *open;
	size_t nopen, capopen;
} gst;

/* A bounded heap of the longest instances: the root is the least of them. */
typedef struct topheap {
	void *items;
	size_t n, max, cap, elem; /* keeps at most max; cap allocated */
	int (*better)(const void *, const void *);
} topheap;

struct gtr_annot_acc {
	const gtr_trace *t;
	const gtr_annot_opts *opts;
	gtr_annot *a;
	tytab task_types, region_types;
	gtr_idmap *task_index; /* task id -> index in a->tasks */
	size_t captasks;
	gtr_idpool gs;
	topheap top_regions;
	size_t caplogs, capregions;
	int v1;
	int ty_task_begin, ty_task_end, ty_region_begin, ty_region_end, ty_region, ty_log;
	gtr_frame *frames;
};

typedef struct gtr_annot_acc run;

enum { MAX_FRAMES = 1024 };

static uint64_t hash_str(gtr_str s)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < s.n; i++)
		h = (h ^ (unsigned char)s.p[i]) * 1099511628211ull;
	return h;
}

static int str_eq(gtr_str a, gtr_str b)
{
	return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

static int str_is(gtr_str a, const char *b)
{
	return b && a.n == strlen(b) && memcmp(a.p, b, a.n) == 0;
}

/* The record of type `name`, made when first seen; NULL when out of memory. */
static tyrec *ty_get(tytab *tt, gtr_str name)
{
	if (tt->nslots) {
		size_t mask = tt->nslots - 1;
		for (size_t i = hash_str(name) & mask;; i = (i + 1) & mask) {
			uint32_t s = tt->slots[i];
			if (!s)
				break;
			if (str_eq(tt->recs[s - 1].name, name))
				return &tt->recs[s - 1];
		}
	}
	if ((tt->n + 1) * 2 > tt->nslots) {
		size_t ns = tt->nslots ? tt->nslots * 2 : 64;
		uint32_t *slots = calloc(ns, sizeof *slots);
		if (!slots)
			return NULL;
		for (size_t k = 0; k < tt->n; k++) {
			size_t i = hash_str(tt->recs[k].name) & (ns - 1);
			while (slots[i])
				i = (i + 1) & (ns - 1);
			slots[i] = (uint32_t)(k + 1);
		}
		free(tt->slots);
		tt->slots = slots;
		tt->nslots = ns;
	}
	if (tt->n >= UINT32_MAX - 1 || gtr_grow(&tt->recs, &tt->cap, tt->n + 1, sizeof *tt->recs) < 0)
		return NULL;
	size_t i = hash_str(name) & (tt->nslots - 1);
	while (tt->slots[i])
		i = (i + 1) & (tt->nslots - 1);
	tt->slots[i] = (uint32_t)(tt->n + 1);
	tt->recs[tt->n] = (tyrec){.name = name};
	return &tt->recs[tt->n++];
}

static int ty_add(tyrec *r, int complete, uint64_t dur)
{
	r->count++;
	if (!complete)
		return 0;
	if (gtr_grow(&r->durs, &r->capdurs, r->ndurs + 1, sizeof *r->durs) < 0)
		return GTR_E_NOMEM;
	r->durs[r->ndurs++] = dur;
	r->total += dur;
	return 0;
}

static void ty_free(tytab *tt)
{
	for (size_t i = 0; i < tt->n; i++)
		free(tt->recs[i].durs);
	free(tt->recs);
	free(tt->slots);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_type(const void *a, const void *b)
{
	const gtr_annot_type *x = a, *y = b;
	size_t n = x->name.n < y->name.n ? x->name.n : y->name.n;
	int c = n ? memcmp(x->name.p, y->name.p, n) : 0;
	if (c)
		return c;
	return x->name.n < y->name.n ? -1 : x->name.n > y->name.n;
}

/* Nearest rank: the smallest value with at least q of them at or below it. */
static uint64_t rank(const uint64_t *v, size_t n, double q)
{
	if (!n)
		return 0;
	double r = q * (double)n;
	size_t k = (size_t)r;
	if ((double)k < r)
		k++;
	if (k < 1)
		k = 1;
	return v[k > n ? n - 1 : k - 1];
}

/* Sorted per-type figures; NULL with *n 0 when there are none. */
static int ty_finish(tytab *tt, gtr_annot_type **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!tt->n)
		return 0;
	gtr_annot_type *v = calloc(tt->n, sizeof *v);
	if (!v)
		return GTR_E_NOMEM;
	for (size_t i = 0; i < tt->n; i++) {
		tyrec *r = &tt->recs[i];
		if (r->ndurs)
			qsort(r->durs, r->ndurs, sizeof *r->durs, cmp_u64);
		v[i] = (gtr_annot_type){
			.name = r->name,
			.count = r->count,
			.complete = r->ndurs,
			.total_ns = r->total,
			.p50_ns = rank(r->durs, r->ndurs, 0.50),
			.p90_ns = rank(r->durs, r->ndurs, 0.90),
			.p99_ns = rank(r->durs, r->ndurs, 0.99),
			.max_ns = r->ndurs ? r->durs[r->ndurs - 1] : 0,
		};
	}
	qsort(v, tt->n, sizeof *v, cmp_type);
	*out = v;
	*n = tt->n;
	return 0;
}

/* Heap order: the root is the instance every other one beats. */
static void heap_sift_down(topheap *h, size_t i)
{
	unsigned char *b = h->items;
	unsigned char tmp[sizeof(gtr_region) > sizeof(gtr_task) ? sizeof(gtr_region) : sizeof(gtr_task)];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && h->better(b + m * h->elem, b + l * h->elem))
			m = l;
		if (r < h->n && h->better(b + m * h->elem, b + r * h->elem))
			m = r;
		if (m == i)
			return;
		memcpy(tmp, b + i * h->elem, h->elem);
		memcpy(b + i * h->elem, b + m * h->elem, h->elem);
		memcpy(b + m * h->elem, tmp, h->elem);
		i = m;
	}
}

static int heap_push(topheap *h, const void *item)
{
	unsigned char *b = h->items;
	if (!h->max)
		return 0;
	if (h->n == h->cap && h->cap < h->max) {
		/* Grows in steps, so that -n 1000000 costs what it keeps. */
		size_t nc = h->cap ? (h->cap * 2 < h->max ? h->cap * 2 : h->max) : (h->max < 64 ? h->max : 64);
		void *q = realloc(h->items, nc * h->elem);
		if (!q)
			return GTR_E_NOMEM;
		h->items = b = q;
		h->cap = nc;
	}
	if (h->n == h->max) {
		if (!h->better(item, b))
			return 0;
		memcpy(b, item, h->elem);
		heap_sift_down(h, 0);
		return 0;
	}
	memcpy(b + h->n * h->elem, item, h->elem);
	size_t i = h->n++;
	unsigned char tmp[sizeof(gtr_region) > sizeof(gtr_task) ? sizeof(gtr_region) : sizeof(gtr_task)];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!h->better(b + p * h->elem, b + i * h->elem))
			break;
		memcpy(tmp, b + i * h->elem, h->elem);
		memcpy(b + i * h->elem, b + p * h->elem, h->elem);
		memcpy(b + p * h->elem, tmp, h->elem);
		i = p;
	}
	return 0;
}

static int region_better(const void *pa, const void *pb)
{
	const gtr_region *a = pa, *b = pb;
	uint64_t da = (uint64_t)(a->end - a->start), db = (uint64_t)(b->end - b->start);
	if (da != db)
		return da > db;
	if (a->start != b->start)
		return a->start < b->start;
	return a->g < b->g;
}

static int task_better(const void *pa, const void *pb)
{
	const gtr_task *a = pa, *b = pb;
	uint64_t da = (uint64_t)(a->end - a->start), db = (uint64_t)(b->end - b->start);
	if (da != db)
		return da > db;
	if (a->start != b->start)
		return a->start < b->start;
	return a->id < b->id;
}

static int cmp_region_better(const void *a, const void *b)
{
	return region_better(a, b) ? -1 : region_better(b, a) ? 1 : 0;
}

static int cmp_task_better(const void *a, const void *b)
{
	return task_better(a, b) ? -1 : task_better(b, a) ? 1 : 0;
}

static int collected(const run *r, uint64_t task)
{
	const uint64_t *v = r->opts ? r->opts->collect : NULL;
	size_t lo = 0, hi = r->opts ? r->opts->ncollect : 0;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (v[m] == task)
			return 1;
		if (v[m] < task)
			lo = m + 1;
		else
			hi = m;
	}
	return 0;
}

/*
 * A time as tasks, regions and logs keep it. Only a broken trace has
 * times past 2^63 ns; they stay just below, so that an end minus a start
 * (-1 when unknown) never overflows.
 */
static int64_t ann_ts(uint64_t ts)
{
	return ts < (uint64_t)INT64_MAX ? (int64_t)ts : INT64_MAX - 1;
}

/* The task with this id, made (incomplete) when first named. NULL: out of memory. */
static gtr_task *task_get(run *r, uint64_t id)
{
	uint64_t v;
	gtr_annot *a = r->a;
	if (gtr_idmap_get(r->task_index, 0, id, &v))
		return &a->tasks[v];
	if (gtr_grow(&a->tasks, &r->captasks, a->ntasks_kept + 1, sizeof *a->tasks) < 0 ||
	    gtr_idmap_put(r->task_index, 0, id, a->ntasks_kept) < 0)
		return NULL;
	gtr_task *tk = &a->tasks[a->ntasks_kept++];
	*tk = (gtr_task){.id = id, .start = -1, .end = -1, .g = -1, .end_g = -1};
	return tk;
}

static gtr_str string_arg(const run *r, const gtr_event *ev, unsigned i)
{
	gtr_str s = {"", 0};
	if (i < ev->nargs && gtr_trace_string(r->t, ev->table, ev->args[i], &s) < 0)
		s = (gtr_str){"", 0};
	return s;
}

static int type_wanted(const run *r, gtr_str type)
{
	return !r->opts || !r->opts->type || str_is(type, r->opts->type);
}

/* Closes a region: its type's figures, the longest, the collected. */
static int region_close(run *r, gtr_region *rg)
{
	gtr_annot *a = r->a;
	tyrec *ty = ty_get(&r->region_types, rg->type);
	int complete = rg->start >= 0 && rg->how != GTR_REGION_OPEN;
	uint64_t dur = rg->end > rg->start ? (uint64_t)(rg->end - rg->start) : 0;
	if (!ty || ty_add(ty, complete, dur) < 0)
		return GTR_E_NOMEM;
	a->nregions++;
	if (rg->task) {
		gtr_task *tk = task_get(r, rg->task);
		if (!tk)
			return GTR_E_NOMEM;
		tk->nregions++;
	}
	if (complete && type_wanted(r, rg->type) && heap_push(&r->top_regions, rg) < 0)
		return GTR_E_NOMEM;
	if (collected(r, rg->task)) {
		if (gtr_grow(&a->regions, &r->capregions, a->nregions_kept + 1, sizeof *a->regions) < 0)
			return GTR_E_NOMEM;
		a->regions[a->nregions_kept++] = *rg;
	}
	return 0;
}

/* Go's IsSystemGoroutine, on the goroutine's root frame. */
static int system_goroutine(run *r, const gst *g)
{
	if (!g->stack)
		return 1;
	size_t n = 0;
	gtr_error e;
	gtr_error_clear(&e);
	if (gtr_trace_stack(r->t, g->table, g->stack, r->frames, MAX_FRAMES, &n, &e) < 0 || !n)
		return 1;
	gtr_str fn = r->frames[n - 1].func;
	if (!fn.n)
		return 1;
	return !str_is(fn, "runtime.main") && fn.n >= 8 && memcmp(fn.p, "runtime.", 8) == 0;
}

/* A goroutine's end (or the trace's): its open regions close, unless Go would drop them. */
static int g_finish(run *r, gst *g, int64_t ts, gtr_region_end how)
{
	int rc = 0;
	if (g->nopen && !system_goroutine(r, g)) {
		/* Go lists them outermost last; the order does not change what is counted. */
		for (size_t i = g->nopen; i-- > 0 && rc == 0;) {
			g->open[i].end = ts;
			g->open[i].how = (uint8_t)how;
			rc = region_close(r, &g->open[i]);
		}
	}
	free(g->open);
	g->open = NULL;
	g->nopen = g->capopen = 0;
	return rc;
}

static gst *g_get(run *r, int64_t id)
{
	gst *g = gtr_idpool_find(&r->gs, (uint64_t)id);
	return g ? g : gtr_idpool_add(&r->gs, (uint64_t)id);
}

static int on_transition(run *r, const gtr_event *ev, const gtr_transition *tr)
{
	if (tr->res != GTR_RES_G || tr->from == tr->to)
		return 0;
	gst *g = gtr_idpool_find(&r->gs, (uint64_t)tr->id);
	int ends = tr->to == GTR_GS_NOTEXIST || (tr->to == GTR_GS_WAITING && str_is(tr->reason, "forever"));
	if (!g) {
		if (ends)
			return 0;
		if (!(g = gtr_idpool_add(&r->gs, (uint64_t)tr->id)))
			return GTR_E_NOMEM;
	}
	if (!g->stack && tr->stack) {
		g->stack = tr->stack;
		g->table = ev->table;
	}
	if (ends) {
		int rc = g_finish(r, g, ann_ts(ev->ts), GTR_REGION_EXITED);
		gtr_idpool_drop(&r->gs, (uint64_t)tr->id);
		return rc;
	}
	return 0;
}

static int region_begin(run *r, const gtr_event *ev, uint64_t task, gtr_str type)
{
	gst *g = g_get(r, ev->g);
	if (!g || gtr_grow(&g->open, &g->capopen, g->nopen + 1, sizeof *g->open) < 0)
		return GTR_E_NOMEM;
	g->open[g->nopen] = (gtr_region){.type = type, .task = task, .g = ev->g,
					 .start = ann_ts(ev->ts), .depth = (uint32_t)g->nopen,
					 .table = ev->table, .stack = ev->stack};
	g->nopen++;
	return 0;
}

static int region_end(run *r, const gtr_event *ev, uint64_t task, gtr_str type)
{
	gst *g = g_get(r, ev->g);
	if (!g)
		return GTR_E_NOMEM;
	gtr_region rg;
	if (g->nopen) {
		rg = g->open[--g->nopen];
	} else {
		/* Begun before the trace: only its end is known. */
		rg = (gtr_region){.type = type, .task = task, .g = ev->g, .start = -1};
	}
	rg.end = ann_ts(ev->ts);
	rg.how = GTR_REGION_ENDED;
	return region_close(r, &rg);
}

static int on_log(run *r, const gtr_event *ev)
{
	gtr_annot *a = r->a;
	uint64_t task = ev->nargs ? ev->args[0] : 0;
	a->nlogs++;
	if (!task) {
		a->nlogs_notask++;
	} else {
		gtr_task *tk = task_get(r, task);
		if (!tk)
			return GTR_E_NOMEM;
		tk->nlogs++;
	}
	if (!collected(r, task))
		return 0;
	gtr_user_log lg = {.task = task, .ts = ann_ts(ev->ts), .g = ev->g, .table = ev->table,
			   .stack = ev->stack, .category = string_arg(r, ev, 1)};
	lg.message = r->v1 ? ev->data : string_arg(r, ev, 2);
	if (gtr_grow(&a->logs, &r->caplogs, a->nlogs_kept + 1, sizeof *a->logs) < 0)
		return GTR_E_NOMEM;
	a->logs[a->nlogs_kept++] = lg;
	return 0;
}

static uint64_t parent_of(uint64_t p)
{
	/* v1 writes 0 for no parent, v2 ~0. */
	return p == UINT64_MAX ? 0 : p;
}

static int on_event(run *r, const gtr_event *ev)
{
	if (ev->ts > r->a->end_ns)
		r->a->end_ns = ev->ts;
	for (unsigned i = 0, nt = gtr_event_ntrans(ev); i < nt; i++) {
		int rc = on_transition(r, ev, gtr_event_trans(ev, i));
		if (rc < 0)
			return rc;
	}
	int type = ev->type;
	if (type == r->ty_task_begin && ev->nargs >= 3) {
		uint64_t parent = parent_of(ev->args[1]);
		gtr_task *pt = parent ? task_get(r, parent) : NULL;
		if (parent && !pt)
			return GTR_E_NOMEM;
		/* After the parent's: making one may move the others. */
		gtr_task *tk = task_get(r, ev->args[0]);
		if (!tk)
			return GTR_E_NOMEM;
		tk->type = string_arg(r, ev, 2);
		tk->start = ann_ts(ev->ts);
		tk->g = ev->g;
		tk->table = ev->table;
		tk->stack = ev->stack;
		if (parent && !tk->parent) {
			tk->parent = parent;
			pt = task_get(r, parent);
			pt->nchildren++;
		}
		return 0;
	}
	if (type == r->ty_task_end && ev->nargs >= 1) {
		gtr_task *tk = task_get(r, ev->args[0]);
		if (!tk)
			return GTR_E_NOMEM;
		tk->end = ann_ts(ev->ts);
		tk->end_g = ev->g;
		tk->end_table = ev->table;
		tk->end_stack = ev->stack;
		return 0;
	}
	if (type == r->ty_log)
		return on_log(r, ev);
	if (r->v1 && type == r->ty_region && ev->nargs >= 3) {
		/* mode 0 begins, 1 ends. */
		if (ev->args[1] == 0)
			return region_begin(r, ev, ev->args[0], string_arg(r, ev, 2));
		if (ev->args[1] == 1)
			return region_end(r, ev, ev->args[0], string_arg(r, ev, 2));
		return 0;
	}
	if (type == r->ty_region_begin && ev->nargs >= 2)
		return region_begin(r, ev, ev->args[0], string_arg(r, ev, 1));
	if (type == r->ty_region_end && ev->nargs >= 2)
		return region_end(r, ev, ev->args[0], string_arg(r, ev, 1));
	return 0;
}

static int cmp_task_id(const void *a, const void *b)
{
	const gtr_task *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_log(const void *a, const void *b)
{
	const gtr_user_log *x = a, *y = b;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int cmp_region_task(const void *a, const void *b)
{
	const gtr_region *x = a, *y = b;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static int finish(run *r)
{
	gtr_annot *a = r->a;
	/* What is still open stays open at the end of the trace. */
	for (size_t i = 0; i < r->gs.n; i++) {
		gst *g = gtr_idpool_at(&r->gs, i);
		if (g) {
			int rc = g_finish(r, g, ann_ts(a->end_ns), GTR_REGION_OPEN);
			if (rc < 0)
				return rc;
		}
	}
	/* Task 0 is the background, not a task. */
	size_t k = 0;
	for (size_t i = 0; i < a->ntasks_kept; i++)
		if (a->tasks[i].id != 0)
			a->tasks[k++] = a->tasks[i];
	a->ntasks_kept = k;
	a->ntasks = k;
	if (k)
		qsort(a->tasks, k, sizeof *a->tasks, cmp_task_id);
	topheap th = {.max = r->opts ? r->opts->top : 0, .elem = sizeof(gtr_task), .better = task_better};
	for (size_t i = 0; i < k; i++) {
		gtr_task *tk = &a->tasks[i];
		tyrec *ty = ty_get(&r->task_types, tk->type);
		int complete = tk->start >= 0 && tk->end >= 0;
		uint64_t dur = complete && tk->end > tk->start ? (uint64_t)(tk->end - tk->start) : 0;
		if (!ty || ty_add(ty, complete, dur) < 0) {
			free(th.items);
			return GTR_E_NOMEM;
		}
		if (complete && type_wanted(r, tk->type) && heap_push(&th, tk) < 0) {
			free(th.items);
			return GTR_E_NOMEM;
		}
	}
	a->top_tasks = th.items;
	a->ntop_tasks = th.n;
	if (th.n)
		qsort(a->top_tasks, th.n, sizeof *a->top_tasks, cmp_task_better);
	a->top_regions = r->top_regions.items;
	r->top_regions.items = NULL;
	a->ntop_regions = r->top_regions.n;
	if (a->ntop_regions)
		qsort(a->top_regions, a->ntop_regions, sizeof *a->top_regions, cmp_region_better);
	if (a->nlogs_kept)
		qsort(a->logs, a->nlogs_kept, sizeof *a->logs, cmp_log);
	if (a->nregions_kept)
		qsort(a->regions, a->nregions_kept, sizeof *a->regions, cmp_region_task);
	int rc = ty_finish(&r->task_types, &a->task_types, &a->ntask_types);
	if (rc == 0)
		rc = ty_finish(&r->region_types, &a->region_types, &a->nregion_types);
	return rc;
}

void gtr_annot_free(gtr_annot *a)
{
	if (!a)
		return;
	free(a->task_types);
	free(a->region_types);
	free(a->top_tasks);
	free(a->top_regions);
	free(a->tasks);
	free(a->logs);
	free(a->regions);
	free(a);
}

const gtr_task *gtr_annot_task(const gtr_annot *a, uint64_t id)
{
	size_t lo = 0, hi = a->ntasks_kept;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (a->tasks[m].id == id)
			return &a->tasks[m];
		if (a->tasks[m].id < id)
			lo = m + 1;
		else
			hi = m;
	}
	return NULL;
}

int gtr_annot_supported(const gtr_trace *t)
{
	return gtr_trace_get_info(t)->version >= 11;
}

static void acc_free(run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->gs.n; i++) {
		gst *g = gtr_idpool_at(&r->gs, i);
		if (g)
			free(g->open);
	}
	gtr_idpool_free(&r->gs);
	gtr_idmap_free(r->task_index);
	ty_free(&r->task_types);
	ty_free(&r->region_types);
	free(r->top_regions.items);
	free(r->frames);
	gtr_annot_free(r->a);
	free(r);
}

int gtr_annot_begin(const gtr_trace *t, const gtr_annot_opts *opts, gtr_annot_acc **out, gtr_error *err)
{
	*out = NULL;
	run *r = calloc(1, sizeof *r);
	if (!r)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	r->t = t;
	r->opts = opts;
	r->a = calloc(1, sizeof *r->a);
	r->task_index = gtr_idmap_create();
	r->frames = malloc(MAX_FRAMES * sizeof *r->frames);
	int pool_rc = gtr_idpool_init(&r->gs, sizeof(gst));
	r->top_regions = (topheap){.max = opts ? opts->top : 0, .elem = sizeof(gtr_region),
				   .better = region_better};
	if (!r->a || !r->task_index || !r->frames || pool_rc < 0) {
		acc_free(r);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	r->v1 = gtr_trace_get_info(t)->family == GTR_FAMILY_V1;
	r->ty_task_begin = gtr_trace_type(t, r->v1 ? "UserTaskCreate" : "UserTaskBegin");
	r->ty_task_end = gtr_trace_type(t, "UserTaskEnd");
	r->ty_region = r->v1 ? gtr_trace_type(t, "UserRegion") : -1;
	r->ty_region_begin = r->v1 ? -1 : gtr_trace_type(t, "UserRegionBegin");
	r->ty_region_end = r->v1 ? -1 : gtr_trace_type(t, "UserRegionEnd");
	r->ty_log = gtr_trace_type(t, "UserLog");
	*out = r;
	return 0;
}

static int sink_event(void *self, const gtr_event *ev)
{
	return on_event(self, ev);
}

gtr_sink gtr_annot_sink(gtr_annot_acc *acc)
{
	return (gtr_sink){.self = acc, .on_event = sink_event};
}

int gtr_annot_end(gtr_annot_acc *r, gtr_annot **out, gtr_error *err)
{
	*out = NULL;
	int rc = finish(r);
	if (rc < 0) {
		acc_free(r);
		return gtr_error_set(err, rc, 0, "out of memory");
	}
	*out = r->a;
	r->a = NULL;
	acc_free(r);
	return 0;
}

void gtr_annot_abort(gtr_annot_acc *acc)
{
	acc_free(acc);
}

int gtr_annot_run(const gtr_trace *t, const gtr_annot_opts *opts, gtr_annot **out, gtr_error *err)
{
	*out = NULL;
	gtr_annot_acc *r;
	int rc = gtr_annot_begin(t, opts, &r, err);
	if (rc < 0)
		return rc;
	gtr_sink sk = gtr_annot_sink(r);
	rc = gtr_engine_run(t, &sk, 1, &(gtr_engine_opts){.jobs = opts ? opts->jobs : 1}, NULL, err);
	if (rc < 0) {
		gtr_annot_abort(r);
		return rc;
	}
	return gtr_annot_end(r, out, err);
}
