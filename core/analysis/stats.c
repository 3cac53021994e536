/* core/analysis/stats.c: per-goroutine time accounting, slice histograms, grouping by function. */
#include "core/analysis/stats.h"
#include "core/base/idmap.h"
#include "core/base/vec.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Frames read to name a goroutine: its entry function is the outermost. */
#define NAME_FRAMES 256

static const char *const block_names[GTR_BLOCK_N] = {
	"chan", "select", "sync", "net", "sleep", "GC", "other",
};

const char *gtr_block_name(gtr_block b)
{
	return (unsigned)b < GTR_BLOCK_N ? block_names[b] : "other";
}

static int str_is(gtr_str s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && memcmp(s.p, lit, n) == 0;
}

gtr_block gtr_block_of_reason(gtr_str r)
{
	static const struct {
		const char *reason;
		gtr_block b;
	} map[] = {
		{"chan send", GTR_BLOCK_CHAN},
		{"chan receive", GTR_BLOCK_CHAN},
		{"select", GTR_BLOCK_SELECT},
		{"sync", GTR_BLOCK_SYNC},
		{"sync.(*Cond).Wait", GTR_BLOCK_SYNC},
		{"network", GTR_BLOCK_NET},
		{"sleep", GTR_BLOCK_SLEEP},
		{"GC mark assist wait for work", GTR_BLOCK_GC},
		{"GC background sweeper wait", GTR_BLOCK_GC},
		{"wait until GC ends", GTR_BLOCK_GC},
		{"GC weak to strong wait", GTR_BLOCK_GC},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (str_is(r, map[i].reason))
			return map[i].b;
	return GTR_BLOCK_OTHER;
}

/* --- the histogram --- */

uint64_t gtr_hist_lower(uint32_t idx)
{
	if (idx < GTR_HIST_SUB)
		return idx;
	uint32_t k = (idx - GTR_HIST_SUB) / GTR_HIST_SUB, m = (idx - GTR_HIST_SUB) % GTR_HIST_SUB;
	return (uint64_t)(GTR_HIST_SUB + m) << k;
}

static uint64_t hist_width(uint32_t idx)
{
	return idx < GTR_HIST_SUB ? 1 : (uint64_t)1 << ((idx - GTR_HIST_SUB) / GTR_HIST_SUB);
}

/* Position of bin idx in h, or where it would be inserted: a binary
 * search whose step is a select, not a branch (the bins a goroutine's
 * slices fall in are not predictable). */
static uint32_t hist_find(const gtr_hist *h, uint32_t idx)
{
	if (h->nbins == 0)
		return 0;
	const gtr_hist_bin *b = h->bins;
	uint32_t n = h->nbins;
	while (n > 1) {
		uint32_t half = n / 2;
		b += (size_t)(b[half - 1].idx < idx) * half;
		n -= half;
	}
	return (uint32_t)(b - h->bins) + (b->idx < idx);
}

static int hist_add_n(gtr_hist *h, uint32_t idx, uint64_t n)
{
	uint32_t at = hist_find(h, idx);
	if (at < h->nbins && h->bins[at].idx == idx) {
		h->bins[at].count += n;
		return 0;
	}
	if (h->nbins == h->cap) {
		/* Most goroutines run a few times: start small. */
		uint32_t ncap = h->cap ? h->cap * 2 : 2;
		if (ncap > GTR_HIST_BINS)
			ncap = GTR_HIST_BINS;
		gtr_hist_bin *nb = realloc(h->bins, ncap * sizeof *nb);
		if (!nb)
			return GTR_E_NOMEM;
		h->bins = nb;
		h->cap = ncap;
	}
	memmove(&h->bins[at + 1], &h->bins[at], (h->nbins - at) * sizeof *h->bins);
	h->bins[at] = (gtr_hist_bin){idx, n};
	h->nbins++;
	return 0;
}

int gtr_hist_add(gtr_hist *h, uint64_t v)
{
	if (hist_add_n(h, gtr_hist_index(v), 1) < 0)
		return GTR_E_NOMEM;
	if (h->count == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	return 0;
}

int gtr_hist_merge(gtr_hist *dst, const gtr_hist *src)
{
	if (src->count == 0)
		return 0;
	for (uint32_t i = 0; i < src->nbins; i++)
		if (hist_add_n(dst, src->bins[i].idx, src->bins[i].count) < 0)
			return GTR_E_NOMEM;
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	return 0;
}

uint64_t gtr_hist_percentile(const gtr_hist *h, double q)
{
	if (h->count == 0)
		return 0;
	/* Nearest rank, as gtr_percentile: the smallest value with q% at or below it. */
	uint64_t rank = (uint64_t)((q / 100.0) * (double)h->count + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank >= h->count)
		return h->max;
	if (rank == 1)
		return h->min;
	uint64_t seen = 0;
	for (uint32_t i = 0; i < h->nbins; i++) {
		seen += h->bins[i].count;
		if (seen >= rank) {
			/* The middle of the bin, kept inside what was seen. */
			uint32_t idx = h->bins[i].idx;
			uint64_t v = gtr_hist_lower(idx) + (hist_width(idx) - 1) / 2;
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

int gtr_hist_take_dense(gtr_hist *dst, gtr_hist_dense *src)
{
	if (src->count == 0)
		return 0;
	gtr_hist add = {0};
	for (uint32_t i = src->lo; i <= src->hi; i++)
		if (src->counts[i] && hist_add_n(&add, i, src->counts[i]) < 0) {
			gtr_hist_free(&add);
			return GTR_E_NOMEM;
		}
	add.count = src->count;
	add.min = src->min;
	add.max = src->max;
	int rc = gtr_hist_merge(dst, &add);
	gtr_hist_free(&add);
	if (rc < 0)
		return rc;
	memset(&src->counts[src->lo], 0, (src->hi - src->lo + 1) * sizeof *src->counts);
	src->count = 0;
	return 0;
}

void gtr_hist_reset(gtr_hist *h)
{
	h->nbins = 0;
	h->count = h->min = h->max = 0;
}

void gtr_hist_free(gtr_hist *h)
{
	free(h->bins);
	memset(h, 0, sizeof *h);
}

/* --- the Go release in a runtime path --- */

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Reads "1.N" or "1.N.M" (and an rcN/betaN suffix) at p; returns its length or 0. */
static size_t release_at(const char *p, const char *end)
{
	const char *q = p;
	if (q + 3 > end || q[0] != '1' || q[1] != '.' || !is_digit(q[2]))
		return 0;
	q += 2;
	while (q < end && is_digit(*q))
		q++;
	if (q + 1 < end && q[0] == '.' && is_digit(q[1])) {
		q++;
		while (q < end && is_digit(*q))
			q++;
	}
	for (const char *sfx = q; sfx < end;) {
		size_t n = end - sfx >= 4 && memcmp(sfx, "beta", 4) == 0 ? 4
			   : end - sfx >= 2 && memcmp(sfx, "rc", 2) == 0 ? 2
									   : 0;
		if (!n || sfx + n >= end || !is_digit(sfx[n]))
			break;
		q = sfx + n;
		while (q < end && is_digit(*q))
			q++;
		break;
	}
	/* The release must end the path element or a "-"/"." part of it. */
	if (q < end && *q != '/' && *q != '.' && *q != '-' && *q != '_')
		return 0;
	return (size_t)(q - p);
}

int gtr_runtime_version_from_path(gtr_str file, char *buf, size_t cap)
{
	static const char marker[] = "/src/runtime/";
	const size_t mlen = sizeof marker - 1;
	if (file.n < mlen)
		return 0; /* an empty string may have no storage at all */
	const char *p = file.p, *root = NULL;
	for (size_t i = 0; i <= file.n - mlen; i++)
		if (memcmp(p + i, marker, mlen) == 0)
			root = p + i;
	if (!root || !cap)
		return 0;
	/* Right to left through the GOROOT: ".../go1.22.3", "/go-1.22", "/go/1.22.3". */
	for (size_t at = (size_t)(root - p); at-- > 0;) {
		const char *s = p + at, *v = NULL;
		if (s + 3 <= root && memcmp(s, "go1", 3) == 0)
			v = s + 2;
		else if (s + 4 <= root && (memcmp(s, "go-1", 4) == 0 || memcmp(s, "go/1", 4) == 0))
			v = s + 3;
		if (!v)
			continue;
		/* "go" must start a path element or follow a separator ("toolchain@v0.0.1-go1.22.3"). */
		if (s > p && s[-1] != '/' && s[-1] != '-' && s[-1] != '@' && s[-1] != '_')
			continue;
		size_t n = release_at(v, root);
		if (!n || n + 3 > cap)
			continue;
		buf[0] = 'g';
		buf[1] = 'o';
		memcpy(buf + 2, v, n);
		buf[n + 2] = 0;
		return 1;
	}
	return 0;
}

/* --- the order of rows --- */

gtr_stats_key gtr_stats_table_key(gtr_stats_key k, int funcs)
{
	/* Keys that make no sense for a table fall back to a neighbour. */
	if (funcs && k == GTR_SK_ID)
		return GTR_SK_NAME;
	if (!funcs && k == GTR_SK_GOROUTINES)
		return GTR_SK_EXEC;
	return k;
}

uint64_t gtr_stats_key_value(gtr_stats_key k, const gtr_times *t, const gtr_hist *h,
			     size_t goroutines, int64_t id)
{
	switch (k) {
	case GTR_SK_EXEC: return t->exec;
	case GTR_SK_SCHED: return t->sched_wait;
	case GTR_SK_BLOCK: return gtr_times_block(t);
	case GTR_SK_CHAN: return t->block[GTR_BLOCK_CHAN];
	case GTR_SK_SELECT: return t->block[GTR_BLOCK_SELECT];
	case GTR_SK_SYNC: return t->block[GTR_BLOCK_SYNC];
	case GTR_SK_NET: return t->block[GTR_BLOCK_NET];
	case GTR_SK_SLEEP: return t->block[GTR_BLOCK_SLEEP];
	case GTR_SK_GC: return t->block[GTR_BLOCK_GC];
	case GTR_SK_OTHER: return t->block[GTR_BLOCK_OTHER];
	case GTR_SK_SYSCALL: return t->syscall;
	case GTR_SK_ASSIST: return t->gc_assist;
	case GTR_SK_SLICES: return h->count;
	case GTR_SK_P50: return gtr_hist_percentile(h, 50);
	case GTR_SK_P99: return gtr_hist_percentile(h, 99);
	case GTR_SK_MAX: return h->max;
	case GTR_SK_GOROUTINES: return goroutines;
	case GTR_SK_ID: return (uint64_t)id;
	default: return 0;
	}
}

static int cmp_str(gtr_str a, gtr_str b)
{
	size_t n = a.n < b.n ? a.n : b.n;
	int c = n ? memcmp(a.p, b.p, n) : 0;
	if (c)
		return c;
	return a.n < b.n ? -1 : a.n > b.n;
}

int gtr_stats_row_order(gtr_stats_key k, uint64_t ka, gtr_str fa, int64_t ida, uint64_t kb,
			gtr_str fb, int64_t idb)
{
	if (ka != kb)
		return (ka > kb) == (k == GTR_SK_ID || k == GTR_SK_NAME) ? 1 : -1;
	int c = cmp_str(fa, fb);
	if (c)
		return c;
	return ida < idb ? -1 : ida > idb;
}

/* --- the analysis --- */

/*
 * A goroutine is tracked from the first event that names it until it
 * exits or the trace ends. Then its row is final: it is added to its
 * start function's, and kept only if gtr_stats_keep asks for it. Memory
 * follows the goroutines alive at once, the start functions and the
 * stacks that name them, and the rows kept.
 */
typedef struct track {
	uint8_t state;      /* gtr_gstate of the open interval */
	uint8_t open;       /* an interval is being timed */
	uint8_t block;      /* gtr_block while Waiting */
	uint8_t running;    /* a slice is open */
	uint8_t assist;     /* inside a mark assist */
	uint8_t name_is_create;
	uint64_t since;     /* start of the open interval */
	uint64_t slice_start;
	uint64_t assist_start;
	uint32_t name_table;
	uint64_t name_stack; /* the stack that names it, 0 none */
} track;

/* A goroutine alive: its row so far, and its clocks. */
typedef struct live {
	gtr_gstats g;
	track k;
} live;

/* A row kept for the top of the goroutine table, with its sort value. */
typedef struct ranked {
	gtr_gstats g;
	uint64_t key;
} ranked;

struct gtr_stats_acc {
	const gtr_trace *t;
	gtr_stats *res;
	gtr_frame *frames;
	gtr_idpool alive;    /* live, by goroutine id */
	/* Start functions: fs[] by name (a hash of it), and by naming stack. */
	gtr_idmap *fnames;
	gtr_idmap *fstacks;  /* (table, creation?) and stack -> fs index */
	size_t capfs;
	/* Rows kept: every one, or those of keep->ids, in res->gs ... */
	gtr_stats_keep keep;
	size_t capgs;
	/* ... and the first keep.top of the others, a heap with the last on top. */
	ranked *heap;
	size_t nheap, capheap;
	gtr_stats_key gkey;
	uint64_t sync_ts;
	int ty_sync, ty_assist_begin, ty_assist_end, ty_assist_active;
};
typedef struct gtr_stats_acc srun;

static gtr_gstats *g_find(srun *r, int64_t id, track **tk)
{
	live *l = gtr_idpool_find(&r->alive, (uint64_t)id);
	if (!l)
		return NULL;
	*tk = &l->k;
	return &l->g;
}

static gtr_gstats *g_get(srun *r, int64_t id, track **tk)
{
	gtr_gstats *g = g_find(r, id, tk);
	if (g)
		return g;
	live *l = gtr_idpool_add(&r->alive, (uint64_t)id);
	if (!l)
		return NULL;
	l->g.id = id;
	*tk = &l->k;
	return &l->g;
}

/* The index in fs of the start function called name, added when new. */
static int func_index(srun *r, gtr_str name, size_t *fn)
{
	gtr_stats *res = r->res;
	uint64_t h = name.n ? XXH3_64bits(name.p, name.n) : 0, v;
	/* Names whose hashes collide take the next probe. */
	uint64_t probe = 0;
	for (; gtr_idmap_get(r->fnames, h, probe, &v); probe++)
		if (cmp_str(res->fs[v].func, name) == 0) {
			*fn = (size_t)v;
			return 0;
		}
	if (gtr_grow(&res->fs, &r->capfs, res->nfs + 1, sizeof *res->fs) < 0 ||
	    gtr_idmap_put(r->fnames, h, probe, res->nfs) < 0)
		return GTR_E_NOMEM;
	gtr_fstats *f = &res->fs[res->nfs];
	memset(f, 0, sizeof *f);
	f->func = name;
	*fn = res->nfs++;
	return 0;
}

/*
 * The start function of a goroutine: the entry of the stack it was
 * created with, else the outermost frame of the first stack it was seen
 * with, else "?". Notes a runtime release on the way.
 */
static int func_of(srun *r, const track *k, size_t *fn)
{
	gtr_stats *res = r->res;
	uint64_t key = (uint64_t)k->name_table << 1 | k->name_is_create, v;
	if (k->name_stack && gtr_idmap_get(r->fstacks, key, k->name_stack, &v)) {
		*fn = (size_t)v;
		return 0;
	}
	gtr_str name = GTR_STR("?");
	size_t n = 0;
	gtr_error e;
	gtr_error_clear(&e);
	if (k->name_stack &&
	    gtr_trace_stack(r->t, k->name_table, k->name_stack, r->frames, NAME_FRAMES, &n, &e) == 0 && n) {
		/* A creation stack is the entry point; any other has it outermost. */
		const gtr_frame *entry = k->name_is_create ? &r->frames[0] : &r->frames[n - 1];
		if (entry->func.n)
			name = entry->func;
		for (size_t j = 0; j < n && !res->runtime_version[0]; j++)
			gtr_runtime_version_from_path(r->frames[j].file, res->runtime_version,
						      sizeof res->runtime_version);
	}
	if (func_index(r, name, fn) < 0)
		return GTR_E_NOMEM;
	if (k->name_stack && gtr_idmap_put(r->fstacks, key, k->name_stack, *fn) < 0)
		return GTR_E_NOMEM;
	return 0;
}

static int is_pinned(const srun *r, int64_t id)
{
	if (r->keep.pin && r->keep.pin(r->keep.pin_ctx, id))
		return 1;
	size_t lo = 0, hi = r->keep.nids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->keep.ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->keep.nids && r->keep.ids[lo] == id;
}

/* a comes after b in the goroutine table. */
static int ranked_after(const srun *r, const ranked *a, const ranked *b)
{
	return gtr_stats_row_order(r->gkey, a->key, a->g.func, a->g.id, b->key, b->g.func, b->g.id) > 0;
}

static void heap_down(srun *r, size_t i)
{
	ranked *h = r->heap;
	for (;;) {
		size_t c = 2 * i + 1, last = i;
		if (c < r->nheap && ranked_after(r, &h[c], &h[last]))
			last = c;
		if (c + 1 < r->nheap && ranked_after(r, &h[c + 1], &h[last]))
			last = c + 1;
		if (last == i)
			return;
		ranked tmp = h[i];
		h[i] = h[last];
		h[last] = tmp;
		i = last;
	}
}

/* Appends a row to res->gs, which takes its histogram. */
static int push_row(srun *r, const gtr_gstats *g)
{
	gtr_stats *res = r->res;
	if (gtr_grow(&res->gs, &r->capgs, res->ngs + 1, sizeof *res->gs) < 0)
		return GTR_E_NOMEM;
	res->gs[res->ngs++] = *g;
	return 0;
}

/* Keeps or drops a final row; either way the row's histogram is taken. */
static int keep_row(srun *r, gtr_gstats *g)
{
	if (r->keep.all || is_pinned(r, g->id)) {
		if (push_row(r, g) == 0)
			return 0;
		gtr_hist_free(&g->slices);
		return GTR_E_NOMEM;
	}
	if (!r->keep.top) {
		gtr_hist_free(&g->slices);
		return 0;
	}
	ranked in = {*g, gtr_stats_key_value(r->gkey, &g->t, &g->slices, 1, g->id)};
	if (r->nheap < r->keep.top) {
		if (gtr_grow(&r->heap, &r->capheap, r->nheap + 1, sizeof *r->heap) < 0) {
			gtr_hist_free(&in.g.slices);
			return GTR_E_NOMEM;
		}
		/* Up from the bottom while it comes after its parent. */
		size_t i = r->nheap++;
		for (; i > 0 && ranked_after(r, &in, &r->heap[(i - 1) / 2]); i = (i - 1) / 2)
			r->heap[i] = r->heap[(i - 1) / 2];
		r->heap[i] = in;
	} else if (ranked_after(r, &r->heap[0], &in)) {
		gtr_hist_free(&r->heap[0].g.slices);
		r->heap[0] = in;
		heap_down(r, 0);
	} else {
		gtr_hist_free(&in.g.slices);
	}
	return 0;
}

/* Ends a goroutine alive: its row is final. */
static int retire(srun *r, const gtr_gstats *row, const track *clocks)
{
	gtr_gstats g = *row;
	track k = *clocks;
	gtr_idpool_drop(&r->alive, (uint64_t)g.id);
	size_t fn;
	if (func_of(r, &k, &fn) < 0) {
		gtr_hist_free(&g.slices);
		return GTR_E_NOMEM;
	}
	gtr_fstats *f = &r->res->fs[fn];
	g.func = f->func; /* g.fn once the functions are in order (finish) */
	f->goroutines++;
	gtr_times_add(&f->t, &g.t);
	r->res->goroutines++;
	if (gtr_hist_merge(&f->slices, &g.slices) < 0) {
		gtr_hist_free(&g.slices);
		return GTR_E_NOMEM;
	}
	return keep_row(r, &g);
}

/* Adds d to the time of state `st` (block group `b` when Waiting). */
static void add_time(gtr_times *t, uint8_t st, uint8_t b, uint64_t d)
{
	switch (st) {
	case GTR_GS_RUNNING: t->exec += d; break;
	case GTR_GS_RUNNABLE: t->sched_wait += d; break;
	case GTR_GS_WAITING: t->block[b] += d; break;
	case GTR_GS_SYSCALL: t->syscall += d; break;
	default: break;
	}
}

static uint64_t since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* Stops the clocks of a goroutine that exited (or blocked forever) at ts. */
static void finalize(gtr_gstats *g, track *k, uint64_t ts)
{
	if (k->open)
		add_time(&g->t, k->state, k->block, since(ts, k->since));
	if (k->assist)
		g->t.gc_assist += since(ts, k->assist_start);
	k->open = 0;
	k->assist = 0;
}

static int on_transition(srun *r, const gtr_event *ev, const gtr_transition *tr)
{
	if (tr->from == tr->to)
		return 0; /* says nothing new */
	track *k;
	gtr_gstats *g = g_get(r, tr->id, &k);
	if (!g)
		return GTR_E_NOMEM;
	uint64_t ts = ev->ts + tr->later;
	/* What names it: the stack it was created with, else the first one seen. */
	uint64_t stk = tr->stack ? tr->stack : ev->g == tr->id ? ev->stack : 0;
	if (tr->from == GTR_GS_NOTEXIST && tr->stack && !k->name_is_create) {
		k->name_table = ev->table;
		k->name_stack = tr->stack;
		k->name_is_create = 1;
	} else if (!k->name_stack && stk) {
		k->name_table = ev->table;
		k->name_stack = stk;
	}

	if (tr->from == GTR_GS_UNDETERMINED) {
		/* Found in this state at the last sync: it has been there since. */
		add_time(&g->t, tr->to, (uint8_t)gtr_block_of_reason(tr->reason), since(ts, r->sync_ts));
	} else if (k->open) {
		add_time(&g->t, k->state, k->block, since(ts, k->since));
		k->open = 0;
	}
	if (k->running && tr->from == GTR_GS_RUNNING) {
		if (gtr_hist_add(&g->slices, since(ts, k->slice_start)) < 0)
			return GTR_E_NOMEM;
		k->running = 0;
	}
	switch (tr->to) {
	case GTR_GS_RUNNING:
	case GTR_GS_RUNNABLE:
	case GTR_GS_SYSCALL:
		break;
	case GTR_GS_WAITING:
		if (!str_is(tr->reason, "forever"))
			break;
		finalize(g, k, ts);
		return 0;
	case GTR_GS_NOTEXIST:
		/* Goroutine ids are never reused: it is done. */
		finalize(g, k, ts);
		return retire(r, g, k);
	default:
		finalize(g, k, ts);
		return 0;
	}
	k->open = 1;
	k->state = tr->to;
	k->since = ts;
	k->block = (uint8_t)(tr->to == GTR_GS_WAITING ? gtr_block_of_reason(tr->reason) : 0);
	if (tr->to == GTR_GS_RUNNING) {
		k->running = 1;
		k->slice_start = ts;
	}
	return 0;
}

static void on_assist(srun *r, const gtr_event *ev)
{
	int type = ev->type;
	int64_t id = type == r->ty_assist_active ? (ev->nargs ? (int64_t)ev->args[0] : -1) : ev->g;
	track *k;
	gtr_gstats *g;
	if (id < 0 || !(g = g_find(r, id, &k)))
		return; /* Go's summarizer skips goroutines it has not met */
	if (type == r->ty_assist_begin) {
		k->assist = 1;
		k->assist_start = ev->ts;
	} else if (type == r->ty_assist_active) {
		/* Still assisting at a generation's start: count from its sync. */
		if (k->assist)
			g->t.gc_assist += since(r->sync_ts, k->assist_start);
		k->assist = 1;
		k->assist_start = r->sync_ts;
	} else if (k->assist) {
		g->t.gc_assist += since(ev->ts, k->assist_start);
		k->assist = 0;
	}
}

static int on_event(srun *r, const gtr_event *ev)
{
	gtr_stats *res = r->res;
	if (res->events++ == 0) {
		res->first_ts = ev->ts;
		r->sync_ts = ev->ts;
	}
	res->last_ts = ev->ts;
	int type = ev->type;
	if (type == r->ty_sync)
		r->sync_ts = ev->ts;
	for (unsigned i = 0, nt = gtr_event_ntrans(ev); i < nt; i++) {
		const gtr_transition *tr = gtr_event_trans(ev, i);
		if (tr->res == GTR_RES_G) {
			int rc = on_transition(r, ev, tr);
			if (rc < 0)
				return rc;
		}
	}
	if (type >= 0 && (type == r->ty_assist_begin || type == r->ty_assist_end ||
			  type == r->ty_assist_active))
		on_assist(r, ev);
	return 0;
}

/* The end of the trace stops every clock; open slices end there too. */
static int retire_all(srun *r)
{
	uint64_t end = r->res->last_ts;
	for (size_t slot = 0; slot < r->alive.n; slot++) {
		live *l = gtr_idpool_at(&r->alive, slot);
		if (!l)
			continue;
		finalize(&l->g, &l->k, end);
		if (l->k.running && gtr_hist_add(&l->g.slices, since(end, l->k.slice_start)) < 0)
			return GTR_E_NOMEM;
		l->k.running = 0;
		if (retire(r, &l->g, &l->k) < 0)
			return GTR_E_NOMEM;
	}
	return 0;
}

static int cmp_by_id(const void *pa, const void *pb)
{
	const gtr_gstats *a = pa, *b = pb;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int cmp_by_func(const void *pa, const void *pb)
{
	const gtr_fstats *a = pa, *b = pb;
	return cmp_str(a->func, b->func);
}

/*
 * Moves the heap's rows to res->gs, puts the functions in name order (and
 * points each row at its function again) and the rows in id order, and
 * adds up the totals.
 */
static int finish(srun *r)
{
	gtr_stats *res = r->res;
	while (r->nheap) {
		if (push_row(r, &r->heap[r->nheap - 1].g) < 0)
			return GTR_E_NOMEM;
		r->nheap--;
	}
	if (res->nfs > 1)
		qsort(res->fs, res->nfs, sizeof *res->fs, cmp_by_func);
	for (size_t i = 0; i < res->ngs; i++) {
		gtr_fstats key = {.func = res->gs[i].func};
		const gtr_fstats *f = bsearch(&key, res->fs, res->nfs, sizeof *res->fs, cmp_by_func);
		res->gs[i].fn = (size_t)(f - res->fs);
	}
	if (res->ngs > 1)
		qsort(res->gs, res->ngs, sizeof *res->gs, cmp_by_id);
	for (size_t i = 0; i < res->nfs; i++) {
		gtr_times_add(&res->total, &res->fs[i].t);
		if (gtr_hist_merge(&res->slices, &res->fs[i].slices) < 0)
			return GTR_E_NOMEM;
	}
	return 0;
}

int gtr_stats_put(gtr_stats_acc *r, const gtr_gstats *row, uint32_t name_table, uint64_t name_stack,
		  int name_is_create)
{
	track k = {.name_table = name_table, .name_stack = name_stack,
		   .name_is_create = (uint8_t)(name_is_create != 0)};
	return retire(r, row, &k);
}

void gtr_stats_span(gtr_stats_acc *r, uint64_t events, uint64_t first_ts, uint64_t last_ts)
{
	r->res->events = events;
	r->res->first_ts = first_ts;
	r->res->last_ts = last_ts;
}

void gtr_stats_free(gtr_stats *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ngs; i++)
		gtr_hist_free(&s->gs[i].slices);
	for (size_t i = 0; i < s->nfs; i++)
		gtr_hist_free(&s->fs[i].slices);
	gtr_hist_free(&s->slices);
	free(s->gs);
	free(s->fs);
	free(s);
}

static void srun_free(srun *r)
{
	/* Rows still alive: those of freed slots were taken. */
	for (size_t slot = 0; slot < r->alive.n; slot++) {
		live *l = gtr_idpool_at(&r->alive, slot);
		if (l)
			gtr_hist_free(&l->g.slices);
	}
	gtr_idpool_free(&r->alive);
	gtr_idmap_free(r->fnames);
	gtr_idmap_free(r->fstacks);
	for (size_t i = 0; i < r->nheap; i++)
		gtr_hist_free(&r->heap[i].g.slices);
	free(r->heap);
	free(r->frames);
}

static int sink_event(void *self, const gtr_event *ev)
{
	return on_event(self, ev);
}

static void acc_free(srun *r)
{
	srun_free(r);
	gtr_stats_free(r->res);
	free(r);
}

int gtr_stats_begin(const gtr_trace *t, const gtr_stats_keep *keep, gtr_stats_acc **out,
		    gtr_error *err)
{
	*out = NULL;
	srun *r = calloc(1, sizeof *r);
	if (!r)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	r->t = t;
	if (keep)
		r->keep = *keep;
	else
		r->keep.all = 1;
	r->gkey = gtr_stats_table_key(r->keep.sort, 0);
	r->res = calloc(1, sizeof *r->res);
	int pool_rc = gtr_idpool_init(&r->alive, sizeof(live));
	r->fnames = gtr_idmap_create();
	r->fstacks = gtr_idmap_create();
	r->frames = malloc(NAME_FRAMES * sizeof *r->frames);
	if (!r->res || pool_rc < 0 || !r->fnames || !r->fstacks || !r->frames) {
		acc_free(r);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	int v1 = gtr_trace_get_info(t)->family == GTR_FAMILY_V1;
	r->ty_sync = gtr_trace_type(t, "Sync");
	r->ty_assist_begin = gtr_trace_type(t, v1 ? "GCMarkAssistStart" : "GCMarkAssistBegin");
	r->ty_assist_end = gtr_trace_type(t, v1 ? "GCMarkAssistDone" : "GCMarkAssistEnd");
	r->ty_assist_active = v1 ? -1 : gtr_trace_type(t, "GCMarkAssistActive");
	*out = r;
	return 0;
}

gtr_sink gtr_stats_sink(gtr_stats_acc *r)
{
	return (gtr_sink){.self = r, .on_event = sink_event};
}

void gtr_stats_abort(gtr_stats_acc *r)
{
	if (r)
		acc_free(r);
}

int gtr_stats_end(gtr_stats_acc *r, gtr_stats **out, gtr_error *err)
{
	*out = NULL;
	if (retire_all(r) < 0 || finish(r) < 0) {
		acc_free(r);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	*out = r->res;
	r->res = NULL;
	acc_free(r);
	return 0;
}

int gtr_stats_run(const gtr_trace *t, const gtr_stats_keep *keep, gtr_stats **out, gtr_error *err)
{
	return gtr_stats_run_jobs(t, keep, 1, out, err);
}

int gtr_stats_run_jobs(const gtr_trace *t, const gtr_stats_keep *keep, unsigned jobs,
		       gtr_stats **out, gtr_error *err)
{
	*out = NULL;
	gtr_stats_acc *r;
	int rc = gtr_stats_begin(t, keep, &r, err);
	if (rc < 0)
		return rc;
	gtr_sink sk = gtr_stats_sink(r);
	rc = gtr_engine_run(t, &sk, 1, &(gtr_engine_opts){.jobs = jobs}, NULL, err);
	if (rc < 0) {
		gtr_stats_abort(r);
		return rc;
	}
	return gtr_stats_end(r, out, err);
}
