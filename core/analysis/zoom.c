/* core/analysis/zoom.c: the longest slices with their goroutines, fine busy buckets, counters. */
#include "core/analysis/zoom.h"
#include "core/analysis/greedy.h"
#include "core/base/idmap.h"
#include "core/base/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v1 traces put timers, netpoll, syscalls and GC on pseudo-Ps from here up. */
#define V1_FAKE_P 1000000

#define MAX_FRAMES 128
#define MAX_ENDS 1024 /* kinds of ending kept apart; later ones share the last */
#define NO_FN UINT32_MAX

/* A goroutine that exists: its state, its function once known, its open slice. */
typedef struct gz {
	int64_t id;
	uint64_t start;   /* of the open slice */
	int64_t p;
	uint32_t fn;      /* NO_FN until its first slice */
	uint32_t ctable;  /* the stack it was created with, or first seen with */
	uint64_t cstack;
	uint8_t outer;    /* cstack is where it was seen, not created: take the outermost frame */
	uint8_t state;    /* gtr_gstate as this pass counts it */
	uint8_t running;
} gz;

/* A name being collected: in the trace (s), or made here (at offset off of names). */
typedef struct fname {
	gtr_str s;
	size_t off;
	int made;
} fname;

struct gtr_zoom_acc {
	const gtr_trace *t;
	gtr_zoom *z;
	gtr_idpool gs;          /* gz by goroutine id */
	gtr_zoom_slice *heap;   /* the kept slices, and those that came since the last selection */
	size_t nheap, capheap;  /* capheap: the cap on slices kept */
	size_t allocheap;       /* grown as slices come: a short trace does not pay for the cap */
	gtr_zoom_slice floor;   /* once have_floor: the last of those kept; what ranks after it goes */
	int have_floor;
	gtr_idmap *stackfn;     /* (table, stack << 1 | outer) -> function index */
	gtr_idmap *namefn;      /* (length, hash of the name) -> function index */
	fname *names;
	size_t nnames, capnames;
	size_t namebytes, capnamebytes;
	size_t capends;
	gtr_idmap *prow;        /* P -> busy row */
	size_t caprows;
	size_t nb;              /* busy buckets per row, fixed */
	int64_t counts[8];      /* goroutines per gtr_gstate */
	int ty_heap, ty_goal;
	int v1;
};
typedef struct gtr_zoom_acc run;

const char *gtr_zoom_counter_name(gtr_zoom_counter c)
{
	static const char *const names[GTR_ZC_N] = {"heap_alloc", "heap_goal", "g_running",
						     "g_runnable", "g_waiting", "g_syscall"};
	return (unsigned)c < GTR_ZC_N ? names[c] : "?";
}

/*
 * ---- the kept slices: the longest capheap of them ----
 *
 * Slices go into a buffer a quarter larger than the cap. When it fills,
 * a selection moves the capheap that rank first to its front and drops
 * the rest; the last of those kept is then the floor, and a slice that
 * ranks after it is dropped on arrival. A slice costs a comparison, and
 * the selections a few per slice kept, on memory read in order (a heap
 * of a million slices cost a cache miss per level of every sift).
 */

/* a ranks after b: shorter, or as long and later, or as long, as early and a higher goroutine. */
static int ranks_after(const gtr_zoom_slice *a, const gtr_zoom_slice *b)
{
	uint64_t da = a->end - a->start, db = b->end - b->start;
	if (da != db)
		return da < db;
	if (a->start != b->start)
		return a->start > b->start;
	return a->g > b->g;
}

static void swap_slices(gtr_zoom_slice *a, gtr_zoom_slice *b)
{
	gtr_zoom_slice t = *a;
	*a = *b;
	*b = t;
}

typedef int (*slice_before)(const gtr_zoom_slice *a, const gtr_zoom_slice *b);

static void sift_down(gtr_zoom_slice *v, size_t root, size_t n, slice_before before)
{
	for (;;) {
		size_t c = 2 * root + 1;
		if (c >= n)
			return;
		if (c + 1 < n && before(&v[c], &v[c + 1]))
			c++;
		if (!before(&v[root], &v[c]))
			return;
		swap_slices(&v[root], &v[c]);
		root = c;
	}
}

/*
 * Sorts v[0..n) by `before`, in place: the kept slices are a million of
 * 40 bytes, and qsort would take as much again for its merge. Quicksort
 * on a median of three, insertion sort for short ranges, heapsort past a
 * depth of twice log2(n). Equal slices may come in any order.
 */
static void sort_slices(gtr_zoom_slice *v, size_t n, slice_before before, int depth)
{
	while (n > 16) {
		if (depth-- == 0) {
			for (size_t i = n / 2; i-- > 0;)
				sift_down(v, i, n, before);
			for (size_t i = n - 1; i > 0; i--) {
				swap_slices(&v[0], &v[i]);
				sift_down(v, 0, i, before);
			}
			return;
		}
		size_t mid = n / 2;
		if (before(&v[mid], &v[0]))
			swap_slices(&v[0], &v[mid]);
		if (before(&v[n - 1], &v[0]))
			swap_slices(&v[0], &v[n - 1]);
		if (before(&v[n - 1], &v[mid]))
			swap_slices(&v[mid], &v[n - 1]);
		const gtr_zoom_slice pivot = v[mid];
		size_t i = 0, j = n - 1;
		for (;;) {
			while (before(&v[i], &pivot))
				i++;
			while (before(&pivot, &v[j]))
				j--;
			if (i >= j)
				break;
			swap_slices(&v[i], &v[j]);
			i++;
			j--;
		}
		/* v[0..j] come no later than the pivot, v[j+1..n) no earlier:
		 * recurse into the smaller side, loop on the larger. */
		if (j + 1 < n - j - 1) {
			sort_slices(v, j + 1, before, depth);
			v += j + 1;
			n -= j + 1;
		} else {
			sort_slices(v + j + 1, n - j - 1, before, depth);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && before(&v[k], &v[k - 1]); k--)
			swap_slices(&v[k], &v[k - 1]);
}

static int sort_depth(size_t n)
{
	return 2 * (64 - __builtin_clzll((unsigned long long)n | 1));
}

/* a ranks before b: ranks_after, the other way. */
static int ranks_before(const gtr_zoom_slice *a, const gtr_zoom_slice *b)
{
	return ranks_after(b, a);
}

/*
 * Moves the k slices of v[0..n) that rank first to v[0..k), in no order
 * (0 < k < n). Quickselect on a median of three, Hoare's partition; past
 * a depth of twice log2(n) (an input made to defeat the pivots), the
 * range left is sorted instead.
 */
static void select_first(gtr_zoom_slice *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n, kk = (ptrdiff_t)k;
	int budget = 2 * (64 - __builtin_clzll((unsigned long long)n));
	while (hi - lo > 16) {
		if (budget-- == 0) {
			sort_slices(v + lo, (size_t)(hi - lo), ranks_before, sort_depth((size_t)(hi - lo)));
			return;
		}
		ptrdiff_t mid = lo + (hi - lo) / 2;
		if (ranks_after(&v[lo], &v[mid]))
			swap_slices(&v[lo], &v[mid]);
		if (ranks_after(&v[lo], &v[hi - 1]))
			swap_slices(&v[lo], &v[hi - 1]);
		if (ranks_after(&v[mid], &v[hi - 1]))
			swap_slices(&v[mid], &v[hi - 1]);
		const gtr_zoom_slice pivot = v[mid];
		ptrdiff_t i = lo - 1, j = hi;
		for (;;) {
			do
				i++;
			while (ranks_after(&pivot, &v[i]));
			do
				j--;
			while (ranks_after(&v[j], &pivot));
			if (i >= j)
				break;
			swap_slices(&v[i], &v[j]);
		}
		/* v[lo..j] rank no later than the pivot, v[j+1..hi) no earlier. */
		if (kk <= j + 1)
			hi = j + 1;
		else
			lo = j + 1;
		if (lo >= kk || hi <= kk)
			return;
	}
	sort_slices(v + lo, (size_t)(hi - lo), ranks_before, sort_depth((size_t)(hi - lo)));
}

static void drop_dur(run *r, uint64_t d)
{
	if (d > r->z->exact_above)
		r->z->exact_above = d;
}

/* Keeps the capheap slices that rank first; the others are dropped. */
static void compact_kept(run *r)
{
	gtr_zoom_slice *v = r->heap;
	size_t n = r->nheap, k = r->capheap;
	if (n <= k)
		return;
	select_first(v, n, k);
	for (size_t i = k; i < n; i++)
		drop_dur(r, v[i].end - v[i].start);
	size_t last = 0;
	for (size_t i = 1; i < k; i++)
		if (ranks_after(&v[i], &v[last]))
			last = i;
	r->floor = v[last];
	r->have_floor = 1;
	r->nheap = k;
}

static int keep_slice(run *r, const gtr_zoom_slice *s)
{
	if (r->have_floor && ranks_after(s, &r->floor)) {
		drop_dur(r, s->end - s->start);
		return 0;
	}
	const size_t limit = r->capheap + (r->capheap / 4 ? r->capheap / 4 : 1);
	if (r->nheap == r->allocheap) {
		size_t want = r->allocheap * 2 < limit ? r->allocheap * 2 : limit;
		gtr_zoom_slice *nh = realloc(r->heap, want * sizeof *nh);
		if (!nh)
			return GTR_E_NOMEM;
		r->heap = nh;
		r->allocheap = want;
	}
	r->heap[r->nheap++] = *s;
	if (r->nheap == limit)
		compact_kept(r);
	return 0;
}

/* ---- names of start functions ---- */

static uint64_t hash_str(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

static const char *name_ptr(const run *r, const fname *f)
{
	return f->made ? r->z->names + f->off : f->s.p;
}

/* The index of a name, added when new. */
static int64_t name_index(run *r, const char *p, size_t n, int made_here)
{
	uint64_t h = hash_str(p, n), v;
	if (gtr_idmap_get(r->namefn, n, h, &v) && r->names[v].s.n == n &&
	    memcmp(name_ptr(r, &r->names[v]), p, n) == 0)
		return (int64_t)v;
	if (gtr_grow(&r->names, &r->capnames, r->nnames + 1, sizeof *r->names) < 0)
		return GTR_E_NOMEM;
	fname *f = &r->names[r->nnames];
	memset(f, 0, sizeof *f);
	f->s.n = n;
	if (made_here) {
		if (gtr_grow(&r->z->names, &r->capnamebytes, r->namebytes + n + 1, 1) < 0)
			return GTR_E_NOMEM;
		memcpy(r->z->names + r->namebytes, p, n);
		r->z->names[r->namebytes + n] = 0;
		f->off = r->namebytes;
		f->made = 1;
		r->namebytes += n + 1;
	} else {
		f->s.p = p;
	}
	/* A collision of hashes keeps the first name in the map: the second is only listed twice. */
	if (gtr_idmap_put(r->namefn, n, h, r->nnames) < 0)
		return GTR_E_NOMEM;
	return (int64_t)r->nnames++;
}

/*
 * The function a goroutine started in, as the greedy report names it:
 * the top frame of its creation stack, or else the outermost frame of
 * the stack it was first seen with; a PC when the trace has no symbols.
 */
static int64_t func_of(run *r, const gz *g)
{
	if (!g->cstack)
		return 0;
	uint64_t key = g->cstack << 1 | g->outer, v;
	if (gtr_idmap_get(r->stackfn, g->ctable, key, &v))
		return (int64_t)v;
	gtr_frame f[MAX_FRAMES];
	size_t n = 0;
	gtr_error e;
	gtr_error_clear(&e);
	int64_t idx = 0;
	if (gtr_trace_stack(r->t, g->ctable, g->cstack, f, MAX_FRAMES, &n, &e) == 0 && n) {
		const gtr_frame *pick = g->outer ? &f[n - 1] : &f[0];
		if (pick->func.n) {
			idx = name_index(r, pick->func.p, pick->func.n, 0);
		} else {
			char buf[32];
			int k = snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)pick->pc);
			idx = name_index(r, buf, k > 0 ? (size_t)k : 0, 1);
		}
	}
	if (idx < 0 || gtr_idmap_put(r->stackfn, g->ctable, key, (uint64_t)idx) < 0)
		return GTR_E_NOMEM;
	return idx;
}

/* ---- how slices ended ---- */

static int end_index(run *r, uint8_t state, uint8_t truncated, gtr_str reason)
{
	gtr_zoom *z = r->z;
	for (size_t i = 0; i < z->nends; i++)
		if (z->ends[i].state == state && z->ends[i].truncated == truncated &&
		    z->ends[i].reason.n == reason.n && memcmp(z->ends[i].reason.p, reason.p, reason.n) == 0)
			return (int)i;
	if (z->nends == MAX_ENDS)
		return MAX_ENDS - 1;
	if (gtr_grow(&z->ends, &r->capends, z->nends + 1, sizeof *z->ends) < 0)
		return GTR_E_NOMEM;
	z->ends[z->nends] = (gtr_zoom_end){.state = state, .truncated = truncated, .reason = reason};
	return (int)z->nends++;
}

/* ---- busy buckets per P ---- */

static void coarsen_busy(run *r)
{
	gtr_zoom *z = r->z;
	size_t half = (r->nb + 1) / 2;
	for (size_t k = 0; k < z->nrows; k++) {
		uint64_t *b = z->rows[k].busy;
		for (size_t i = 0; i < half; i++)
			b[i] = b[2 * i] + (2 * i + 1 < r->nb ? b[2 * i + 1] : 0);
		memset(b + half, 0, (r->nb - half) * sizeof *b);
	}
	z->bucket_ns *= 2;
}

static int64_t row_of(run *r, int64_t p)
{
	uint64_t v;
	if (gtr_idmap_get_hot(r->prow, 0, (uint64_t)p, &v))
		return (int64_t)v;
	gtr_zoom *z = r->z;
	if (z->nrows >= GTR_ZOOM_MAX_ROWS)
		return -1;
	if (gtr_grow(&z->rows, &r->caprows, z->nrows + 1, sizeof *z->rows) < 0)
		return GTR_E_NOMEM;
	uint64_t *busy = calloc(r->nb, sizeof *busy);
	if (!busy || gtr_idmap_put(r->prow, 0, (uint64_t)p, z->nrows) < 0) {
		free(busy);
		return GTR_E_NOMEM;
	}
	z->rows[z->nrows] = (gtr_zoom_row){.p = p, .busy = busy};
	return (int64_t)z->nrows++;
}

static int add_busy(run *r, int64_t p, uint64_t s, uint64_t e)
{
	if (p < 0 || e <= s)
		return 0;
	int64_t row = row_of(r, p);
	if (row < -1)
		return (int)row;
	if (row < 0) {
		r->z->dropped_rows++;
		return 0;
	}
	gtr_zoom *z = r->z;
	while ((e - 1) / z->bucket_ns >= r->nb && z->bucket_ns <= UINT64_MAX / 4)
		coarsen_busy(r);
	uint64_t w = z->bucket_ns, *busy = z->rows[row].busy;
	for (uint64_t b = s / w; s < e; b++) {
		if (b >= r->nb) {
			busy[r->nb - 1] += e - s;
			break;
		}
		uint64_t bend = b + 1 > UINT64_MAX / w ? UINT64_MAX : (b + 1) * w;
		uint64_t upto = e < bend ? e : bend;
		busy[b] += upto - s;
		s = upto;
	}
	return 0;
}

/* ---- counters ---- */

static void coarsen_counters(run *r)
{
	gtr_zoom *z = r->z;
	size_t n = GTR_ZOOM_COUNTER_BUCKETS, half = n / 2;
	for (int c = 0; c < GTR_ZC_N; c++) {
		gtr_zoom_series *s = &z->counters[c];
		for (size_t i = 0; i < half; i++) {
			size_t a = 2 * i, b = 2 * i + 1;
			uint8_t set = s->set[a] | s->set[b];
			uint64_t mn = s->set[a] ? s->min[a] : s->min[b], mx = s->set[a] ? s->max[a] : s->max[b];
			if (s->set[a] && s->set[b]) {
				mn = s->min[a] < s->min[b] ? s->min[a] : s->min[b];
				mx = s->max[a] > s->max[b] ? s->max[a] : s->max[b];
			}
			s->last[i] = s->set[b] ? s->last[b] : s->last[a];
			s->set[i] = set;
			s->min[i] = mn;
			s->max[i] = mx;
		}
		memset(s->set + half, 0, n - half);
	}
	z->cbucket_ns *= 2;
}

static int set_counter(run *r, gtr_zoom_counter c, uint64_t ts, uint64_t v)
{
	gtr_zoom *z = r->z;
	gtr_zoom_series *s = &z->counters[c];
	if (s->seen && s->cur == v)
		return 0;
	uint64_t before = s->seen ? s->cur : v;
	s->seen = 1;
	s->cur = v;
	if (!s->overflow) {
		if (s->n == GTR_ZOOM_COUNTER_POINTS) {
			s->overflow = 1;
			free(s->ts);
			free(s->val);
			s->ts = s->val = NULL;
			s->n = s->cap = 0;
		} else {
			size_t cap = s->cap;
			if (gtr_grow(&s->ts, &cap, s->n + 1, sizeof *s->ts) < 0 ||
			    gtr_grow(&s->val, &s->cap, s->n + 1, sizeof *s->val) < 0)
				return GTR_E_NOMEM;
			s->ts[s->n] = ts;
			s->val[s->n++] = v;
		}
	}
	uint64_t b = ts / z->cbucket_ns; /* one division: they cost */
	while (b >= GTR_ZOOM_COUNTER_BUCKETS && z->cbucket_ns <= UINT64_MAX / 4) {
		coarsen_counters(r);
		b = ts / z->cbucket_ns;
	}
	if (b >= GTR_ZOOM_COUNTER_BUCKETS)
		b = GTR_ZOOM_COUNTER_BUCKETS - 1;
	if (!s->set[b]) {
		s->set[b] = 1;
		s->min[b] = s->max[b] = before;
	}
	if (v < s->min[b])
		s->min[b] = v;
	if (v > s->max[b])
		s->max[b] = v;
	s->last[b] = v;
	return 0;
}

/* The counters of the states whose counts an event changed (bit st of `changed`). */
static int count_states(run *r, uint64_t ts, unsigned changed)
{
	static const struct {
		gtr_zoom_counter c;
		gtr_gstate st;
	} m[] = {{GTR_ZC_G_RUNNING, GTR_GS_RUNNING}, {GTR_ZC_G_RUNNABLE, GTR_GS_RUNNABLE},
		 {GTR_ZC_G_WAITING, GTR_GS_WAITING}, {GTR_ZC_G_SYSCALL, GTR_GS_SYSCALL}};
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		if (!(changed >> m[i].st & 1) && r->z->counters[m[i].c].seen)
			continue; /* set_counter would find the same value */
		int64_t v = r->counts[m[i].st];
		int rc = set_counter(r, m[i].c, ts, v < 0 ? 0 : (uint64_t)v);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- the pass ---- */

static int end_slice(run *r, gz *g, uint64_t ts, uint8_t state, uint8_t truncated,
		     gtr_str reason)
{
	g->running = 0;
	gtr_zoom_slice s = {.start = g->start, .end = ts < g->start ? g->start : ts, .g = g->id,
			    .p = g->p, .fn = g->fn};
	int e = end_index(r, state, truncated, reason);
	if (e < 0)
		return e;
	s.ended = (uint16_t)e;
	r->z->total++;
	r->z->no_p += s.p < 0;
	if (keep_slice(r, &s) < 0)
		return GTR_E_NOMEM;
	return add_busy(r, s.p, s.start, s.end);
}

static int on_event(run *r, const gtr_event *ev)
{
	gtr_zoom *z = r->z;
	if (ev->ts > z->end_ns)
		z->end_ns = ev->ts;
	unsigned changed = 0; /* bit st: counts[st] moved */
	for (unsigned i = 0, nt = gtr_event_ntrans(ev); i < nt; i++) {
		const gtr_transition *tr = gtr_event_trans(ev, i);
		if (tr->res != GTR_RES_G)
			continue;
		/* When it happens: a v1 syscall that did not block ends 1 ns later, as greedy and dump count it. */
		uint64_t ts = ev->ts + tr->later;
		gz *g = gtr_idpool_find(&r->gs, (uint64_t)tr->id);
		if (!g) {
			if (tr->to == GTR_GS_NOTEXIST)
				continue;
			if (!(g = gtr_idpool_add(&r->gs, (uint64_t)tr->id)))
				return GTR_E_NOMEM;
			g->id = tr->id;
			g->fn = NO_FN;
			g->state = GTR_GS_UNDETERMINED;
		}
		if (tr->stack && tr->from == GTR_GS_NOTEXIST) {
			g->ctable = ev->table;
			g->cstack = tr->stack;
			g->outer = 0;
		} else if (tr->stack && tr->from == GTR_GS_UNDETERMINED && !g->cstack) {
			g->ctable = ev->table;
			g->cstack = tr->stack;
			g->outer = 1;
		}
		if (g->running && tr->to != GTR_GS_RUNNING) {
			int rc = end_slice(r, g, ts, tr->to, 0, tr->reason);
			if (rc < 0)
				return rc;
		} else if (g->running && tr->from != GTR_GS_RUNNING) {
			/* Running again before it stopped: a tolerant read lost what stopped it. */
			int rc = end_slice(r, g, ts, GTR_GS_RUNNING, GTR_END_LOST, (gtr_str){"", 0});
			if (rc < 0)
				return rc;
		}
		if (tr->to == GTR_GS_RUNNING && !g->running) {
			if (g->fn == NO_FN) {
				int64_t fn = func_of(r, g);
				if (fn < 0)
					return (int)fn;
				g->fn = (uint32_t)fn;
			}
			g->running = 1;
			g->start = ts;
			g->p = ev->p >= 0 && !(r->v1 && ev->p >= V1_FAKE_P) ? ev->p : -1;
		}
		if (g->state < 8) {
			r->counts[g->state]--;
			changed |= 1u << g->state;
		}
		g->state = tr->to;
		if (g->state < 8) {
			r->counts[g->state]++;
			changed |= 1u << g->state;
		}
		if (tr->to == GTR_GS_NOTEXIST)
			gtr_idpool_drop(&r->gs, (uint64_t)tr->id);
	}
	if (changed) {
		int rc = count_states(r, ev->ts, changed);
		if (rc < 0)
			return rc;
	}
	if (ev->nargs >= 1 && ev->type == r->ty_heap && r->ty_heap >= 0)
		return set_counter(r, GTR_ZC_HEAP_ALLOC, ev->ts, ev->args[0]);
	if (ev->nargs >= 1 && ev->type == r->ty_goal && r->ty_goal >= 0)
		return set_counter(r, GTR_ZC_HEAP_GOAL, ev->ts, ev->args[0]);
	return 0;
}

/* The page's order: by P, then start (then goroutine: what else makes
 * two slices of one P start at once is a broken trace). */
static int kept_before(const gtr_zoom_slice *x, const gtr_zoom_slice *y)
{
	if (x->p != y->p)
		return x->p < y->p;
	if (x->start != y->start)
		return x->start < y->start;
	return x->g < y->g;
}

void gtr_zoom_sort(gtr_zoom_slice *v, size_t n, int depth)
{
	sort_slices(v, n, kept_before, depth < 0 ? sort_depth(n) : depth);
}

static int cmp_row(const void *a, const void *b)
{
	const gtr_zoom_row *x = a, *y = b;
	return x->p < y->p ? -1 : x->p > y->p;
}

void gtr_zoom_free(gtr_zoom *z)
{
	if (!z)
		return;
	free(z->slices);
	free(z->funcs);
	free(z->ends);
	for (size_t i = 0; i < z->nrows; i++)
		free(z->rows[i].busy);
	free(z->rows);
	for (int c = 0; c < GTR_ZC_N; c++) {
		gtr_zoom_series *s = &z->counters[c];
		free(s->ts);
		free(s->val);
		free(s->min);
		free(s->max);
		free(s->last);
		free(s->set);
	}
	free(z->names);
	free(z);
}

static void acc_free(run *r)
{
	gtr_idpool_free(&r->gs);
	gtr_idmap_free(r->stackfn);
	gtr_idmap_free(r->namefn);
	gtr_idmap_free(r->prow);
	free(r->names);
	free(r->heap);
	gtr_zoom_free(r->z);
	free(r);
}

static int sink_event(void *self, const gtr_event *ev)
{
	return on_event(self, ev);
}

int gtr_zoom_begin(const gtr_trace *t, const gtr_zoom_opts *opts, gtr_zoom_acc **acc, gtr_error *err)
{
	*acc = NULL;
	size_t cap = opts && opts->slices ? opts->slices : GTR_ZOOM_SLICES;
	if (cap > GTR_ZOOM_MAX_SLICES)
		return gtr_error_set(err, GTR_E_USAGE, 0, "%zu slices: at most %d, please", cap,
				     GTR_ZOOM_MAX_SLICES);
	run *rp = calloc(1, sizeof *rp);
	if (!rp)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	run r = {.t = t, .nb = GTR_ZOOM_BUCKETS};
	int rc = 0;
	r.z = calloc(1, sizeof *r.z);
	r.stackfn = gtr_idmap_create();
	r.namefn = gtr_idmap_create();
	r.prow = gtr_idmap_create();
	int pool_rc = gtr_idpool_init(&r.gs, sizeof(gz));
	r.capheap = cap;
	r.allocheap = cap < 4096 ? cap : 4096;
	r.heap = malloc(r.allocheap * sizeof *r.heap);
	if (!r.z || !r.stackfn || !r.namefn || !r.prow || pool_rc < 0 || !r.heap) {
		rc = gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
		goto fail;
	}
	gtr_zoom *z = r.z;
	for (int c = 0; c < GTR_ZC_N; c++) {
		gtr_zoom_series *s = &z->counters[c];
		s->min = malloc(GTR_ZOOM_COUNTER_BUCKETS * sizeof *s->min);
		s->max = malloc(GTR_ZOOM_COUNTER_BUCKETS * sizeof *s->max);
		s->last = malloc(GTR_ZOOM_COUNTER_BUCKETS * sizeof *s->last);
		s->set = calloc(GTR_ZOOM_COUNTER_BUCKETS, 1);
		if (!s->min || !s->max || !s->last || !s->set) {
			rc = gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
			goto fail;
		}
	}
	if (name_index(&r, "?", 1, 1) < 0) {
		rc = gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
		goto fail;
	}
	const gtr_trace_info *info = gtr_trace_get_info(t);
	r.v1 = info->family == GTR_FAMILY_V1;
	r.ty_heap = gtr_trace_type(t, "HeapAlloc");
	r.ty_goal = gtr_trace_type(t, "HeapGoal");
	z->bucket_ns = info->span_ns / r.nb + 1;
	z->cbucket_ns = info->span_ns / GTR_ZOOM_COUNTER_BUCKETS + 1;
	*rp = r;
	*acc = rp;
	return 0;
fail:
	*rp = r;
	acc_free(rp);
	return rc;
}

gtr_sink gtr_zoom_sink(gtr_zoom_acc *r)
{
	return (gtr_sink){.self = r, .on_event = sink_event};
}

void gtr_zoom_abort(gtr_zoom_acc *r)
{
	if (r)
		acc_free(r);
}

int gtr_zoom_finish(gtr_zoom_acc *r, gtr_zoom **out, gtr_error *err)
{
	*out = NULL;
	int rc = 0;
	gtr_zoom *z = r->z;
	/* What still runs at the end runs until the last event. */
	for (size_t i = 0; i < r->gs.n; i++) {
		gz *g = gtr_idpool_at(&r->gs, i);
		if (g && g->running &&
		    (rc = end_slice(r, g, z->end_ns, GTR_GS_RUNNING, 1, (gtr_str){"", 0})) < 0) {
			gtr_error_set(err, rc, 0, "out of memory");
			goto fail;
		}
	}
	while ((z->end_ns) / z->bucket_ns >= r->nb && z->bucket_ns <= UINT64_MAX / 4)
		coarsen_busy(r);
	uint64_t used = z->end_ns / z->bucket_ns + 1;
	z->nbuckets = used < r->nb ? (size_t)used : r->nb;
	while (z->end_ns / z->cbucket_ns >= GTR_ZOOM_COUNTER_BUCKETS && z->cbucket_ns <= UINT64_MAX / 4)
		coarsen_counters(r);
	used = z->end_ns / z->cbucket_ns + 1;
	z->ncbuckets = used < GTR_ZOOM_COUNTER_BUCKETS ? (size_t)used : GTR_ZOOM_COUNTER_BUCKETS;
	if (z->nrows)
		qsort(z->rows, z->nrows, sizeof *z->rows, cmp_row);
	compact_kept(r);
	/* The buffer's spare quarter goes back before the report is made. */
	if (r->nheap && r->nheap < r->allocheap) {
		gtr_zoom_slice *nh = realloc(r->heap, r->nheap * sizeof *nh);
		if (nh) {
			r->heap = nh;
			r->allocheap = r->nheap;
		}
	}
	z->slices = r->heap;
	z->nslices = r->nheap;
	r->heap = NULL;
	gtr_zoom_sort(z->slices, z->nslices, -1);
	z->funcs = malloc(r->nnames * sizeof *z->funcs);
	if (!z->funcs) {
		rc = gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < r->nnames; i++)
		z->funcs[i] = (gtr_str){name_ptr(r, &r->names[i]), r->names[i].s.n};
	z->nfuncs = r->nnames;
	*out = z;
	r->z = NULL;
	acc_free(r);
	return 0;
fail:
	acc_free(r);
	return rc;
}

int gtr_zoom_run(const gtr_trace *t, const gtr_zoom_opts *opts, gtr_zoom **out, gtr_error *err)
{
	*out = NULL;
	gtr_zoom_acc *r;
	int rc = gtr_zoom_begin(t, opts, &r, err);
	if (rc < 0)
		return rc;
	gtr_sink sk = gtr_zoom_sink(r);
	rc = gtr_engine_run(t, &sk, 1, &(gtr_engine_opts){.jobs = 1}, NULL, err);
	if (rc < 0) {
		gtr_zoom_abort(r);
		return rc;
	}
	return gtr_zoom_finish(r, out, err);
}
