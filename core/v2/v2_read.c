/*
 * core/v2/v2_read.c: the ordered v2 reader (gtr_v2_reader_*).
 *
 * One generation at a time: a cursor per M walks that M's event batches,
 * the cursors sit in a min-heap on the time of their next event, and the
 * state machine (v2_order.c) decides which candidate may happen. The
 * heap, the fallback sort and the CPU-sample sort make the same moves as
 * Go's reader, so that events with equal times come out in Go's order.
 *
 * Besides the events of the M batches, in the order and with the
 * transitions of Go's reader, it yields what Go's reader yields:
 *  - a Sync event (type 50, no args, g/p/m -1) at the start of each
 *    generation, at its smallest batch time, with `table` that
 *    generation and `off` its first byte; and a last one, one ns after
 *    the last event, with `off` the size of the input;
 *  - CPU samples (type 7, args time in ticks, m, p, g, stack) where Go
 *    puts them;
 *  - the events Go derives: GoSwitch(Destroy) is followed by a GoBlock
 *    (reason and stack 0) or GoDestroy of the switching goroutine and a
 *    GoStart of the next one; GoDestroySyscall on a P is preceded by a
 *    ProcSteal (p, 0, 0) of that P. They carry the offset of the event
 *    they come from, whose type byte differs from theirs.
 * Times are Go's: the generation's frequency applied as Go applies it,
 * then made strictly increasing; ts counts from the first Sync.
 *
 * Memory: one generation's cursors and CPU samples, and the state of
 * live goroutines, Ps and Ms.
 */
#include <stdlib.h>
#include <string.h>

#include "core/v2/v2.h"
#include "core/v2/v2_order.h"
#include "core/base/sort.h"
#include "core/base/vec.h"

typedef struct mcur {
	int64_t m;
	const size_t *batches; /* this M's event batches in the generation */
	size_t n, idx;
	int started;           /* c holds batches[idx] */
	gtr_v2_cursor c;
	gtr_v2_raw ev;         /* the next event */
} mcur;

typedef struct sample {
	int64_t time;
	uint64_t ts, m, p, g, stack, off;
	int64_t batch, event;
} sample;

typedef struct sortitem {
	int64_t key;
	size_t idx;
} sortitem;

typedef struct v2_reader {
	const gtr_trace *t;
	const gtr_v2_index *ix;
	gtr_v2_order *order;
	size_t gen;   /* index of the installed generation */
	int have_gen;
	mcur *curs;
	mcur **heap, **tmp;
	size_t ncurs, nheap, capcurs;
	sample *samples;
	sortitem *items;
	size_t nsamples, capsamples, capitems, sidx;
	int64_t last;  /* time of the last event handed out */
	int64_t base;  /* time of the first */
	int have_base;
	int done;
	gtr_loss *loss;     /* the gtr_reader's: what a tolerant generation lost */
	uint64_t *pushed;   /* the gtr_reader's: gtr_reader_pushed */
	uint64_t dropped;   /* events dropped in the installed generation */
	uint64_t advanced;  /* events the state machine let through */
	uint64_t tries;     /* candidates offered out of time order */
} v2_reader;

/*
 * Real traces offer a few candidates out of time order per event. A
 * hostile one can keep the earliest event of thousands of Ms waiting at
 * every step, which costs a sort and a try per M per event (Go's reader
 * too): past this budget it is refused rather than read in quadratic time.
 */
static int over_budget(const v2_reader *r)
{
	return r->tries > 256 * r->advanced + (UINT64_C(1) << 22);
}

/* ns since the first event, for loss records. */
static uint64_t since_base(const v2_reader *r, int64_t time)
{
	return r->have_base && time > r->base ? (uint64_t)time - (uint64_t)r->base : 0;
}

/* ---- pdqsort on (key, idx), making the same comparisons and swaps as
 * Go's slices.SortFunc, so that equal keys end up where Go puts them. */

#define LESS(i, j) (d[i].key < d[j].key)

static void swp(sortitem *d, long i, long j)
{
	sortitem x = d[i];
	d[i] = d[j];
	d[j] = x;
}

static void insertion_sort(sortitem *d, long a, long b)
{
	for (long i = a + 1; i < b; i++)
		for (long j = i; j > a && LESS(j, j - 1); j--)
			swp(d, j, j - 1);
}

static void heap_sift(sortitem *d, long lo, long hi, long first)
{
	long root = lo;
	for (;;) {
		long child = 2 * root + 1;
		if (child >= hi)
			return;
		if (child + 1 < hi && LESS(first + child, first + child + 1))
			child++;
		if (!LESS(first + root, first + child))
			return;
		swp(d, first + root, first + child);
		root = child;
	}
}

static void heap_sort(sortitem *d, long a, long b)
{
	long first = a, hi = b - a;
	for (long i = (hi - 1) / 2; i >= 0; i--)
		heap_sift(d, i, hi, first);
	for (long i = hi - 1; i >= 0; i--) {
		swp(d, first, first + i);
		heap_sift(d, 0, i, first);
	}
}

static void break_patterns(sortitem *d, long a, long b)
{
	long length = b - a;
	if (length < 8)
		return;
	uint64_t r = (uint64_t)length;
	uint64_t modulus = 1ull << gtr_bit_len((uint64_t)length);
	for (long idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1; idx++) {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		long other = (long)(r & (modulus - 1));
		if (other >= length)
			other -= length;
		swp(d, idx, a + other);
	}
}

enum { HINT_UNKNOWN, HINT_INCREASING, HINT_DECREASING };

/* Orders the indexes *x, *y by their items, counting swaps. */
static void order2(const sortitem *d, long *x, long *y, int *swaps)
{
	if (d[*y].key < d[*x].key) {
		long t = *x;
		*x = *y;
		*y = t;
		(*swaps)++;
	}
}

static long median(sortitem *d, long a, long b, long c, int *swaps)
{
	order2(d, &a, &b, swaps);
	order2(d, &b, &c, swaps);
	order2(d, &a, &b, swaps);
	return b;
}

static long choose_pivot(sortitem *d, long a, long b, int *hint)
{
	long l = b - a;
	int swaps = 0;
	long i = a + l / 4 * 1, j = a + l / 4 * 2, k = a + l / 4 * 3;
	if (l >= 8) {
		if (l >= 50) {
			i = median(d, i - 1, i, i + 1, &swaps);
			j = median(d, j - 1, j, j + 1, &swaps);
			k = median(d, k - 1, k, k + 1, &swaps);
		}
		j = median(d, i, j, k, &swaps);
	}
	*hint = swaps == 0 ? HINT_INCREASING : swaps == 12 ? HINT_DECREASING : HINT_UNKNOWN;
	return j;
}

static int partial_insertion_sort(sortitem *d, long a, long b)
{
	long i = a + 1;
	for (int step = 0; step < 5; step++) {
		while (i < b && !LESS(i, i - 1))
			i++;
		if (i == b)
			return 1;
		if (b - a < 50)
			return 0;
		swp(d, i, i - 1);
		if (i - a >= 2)
			for (long j = i - 1; j >= 1 && LESS(j, j - 1); j--)
				swp(d, j, j - 1);
		if (b - i >= 2)
			for (long j = i + 1; j < b && LESS(j, j - 1); j++)
				swp(d, j, j - 1);
	}
	return 0;
}

static long partition(sortitem *d, long a, long b, long pivot, int *already)
{
	swp(d, a, pivot);
	long i = a + 1, j = b - 1;
	while (i <= j && LESS(i, a))
		i++;
	while (i <= j && !LESS(j, a))
		j--;
	if (i > j) {
		swp(d, j, a);
		*already = 1;
		return j;
	}
	swp(d, i, j);
	i++;
	j--;
	for (;;) {
		while (i <= j && LESS(i, a))
			i++;
		while (i <= j && !LESS(j, a))
			j--;
		if (i > j)
			break;
		swp(d, i, j);
		i++;
		j--;
	}
	swp(d, j, a);
	*already = 0;
	return j;
}

static long partition_equal(sortitem *d, long a, long b, long pivot)
{
	swp(d, a, pivot);
	long i = a + 1, j = b - 1;
	for (;;) {
		while (i <= j && !LESS(a, i))
			i++;
		while (i <= j && LESS(a, j))
			j--;
		if (i > j)
			break;
		swp(d, i, j);
		i++;
		j--;
	}
	return i;
}

static void pdqsort(sortitem *d, long a, long b, int limit)
{
	int balanced = 1, partitioned = 1;
	for (;;) {
		long length = b - a;
		if (length <= 12) {
			insertion_sort(d, a, b);
			return;
		}
		if (limit == 0) {
			heap_sort(d, a, b);
			return;
		}
		if (!balanced) {
			break_patterns(d, a, b);
			limit--;
		}
		int hint;
		long pivot = choose_pivot(d, a, b, &hint);
		if (hint == HINT_DECREASING) {
			for (long i = a, j = b - 1; i < j; i++, j--)
				swp(d, i, j);
			pivot = (b - 1) - (pivot - a);
			hint = HINT_INCREASING;
		}
		if (balanced && partitioned && hint == HINT_INCREASING && partial_insertion_sort(d, a, b))
			return;
		if (a > 0 && !LESS(a - 1, pivot)) {
			a = partition_equal(d, a, b, pivot);
			continue;
		}
		int already;
		long mid = partition(d, a, b, pivot, &already);
		partitioned = already;
		long left = mid - a, right = b - mid;
		if (left < right) {
			balanced = left >= length / 8;
			pdqsort(d, a, mid, limit);
			a = mid + 1;
		} else {
			balanced = right >= length / 8;
			pdqsort(d, mid + 1, b, limit);
			b = mid;
		}
	}
}

static void sort_items(sortitem *d, size_t n)
{
	pdqsort(d, 0, (long)n, (int)gtr_bit_len(n));
}

/* ---- the frontier: a binary min-heap on the next event's time, with
 * Go's exact sift rules (ties stay where they are). */

static size_t sift_up(mcur **h, size_t i)
{
	while (i > 0 && h[(i - 1) / 2]->ev.time > h[i]->ev.time) {
		mcur *x = h[i];
		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
	return i;
}

static void sift_down(mcur **h, size_t n, size_t i)
{
	for (;;) {
		size_t m = i;
		int64_t mt = i < n ? h[i]->ev.time : INT64_MAX;
		if (2 * i + 1 < n && h[2 * i + 1]->ev.time < mt) {
			m = 2 * i + 1;
			mt = h[m]->ev.time;
		}
		if (2 * i + 2 < n && h[2 * i + 2]->ev.time < mt)
			m = 2 * i + 2;
		if (m == i)
			return;
		mcur *x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

static void heap_remove(v2_reader *r, size_t i)
{
	mcur **h = r->heap;
	for (; i > 0; i = (i - 1) / 2) {
		mcur *x = h[i];
		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = x;
	}
	h[0] = h[r->nheap - 1];
	r->nheap--;
	sift_down(h, r->nheap, 0);
}

/* ---- cursors ---- */

/* Moves c to its M's next event, across batches: 1, 0 at the end, <0. */
static int mcur_next(v2_reader *r, mcur *c, gtr_error *err)
{
	const gtr_v2_gen *g = &r->ix->gens[r->gen];
	for (;;) {
		if (!c->started) {
			if (c->idx == c->n)
				return 0;
			gtr_v2_cursor_init(&c->c, r->t, c->batches[c->idx], g->ns_per_tick);
			c->started = 1;
		}
		int rc = gtr_v2_cursor_next(&c->c, &c->ev, err);
		if (rc != 0)
			return rc;
		c->idx++;
		c->started = 0;
	}
}

static int nomem(gtr_error *err)
{
	return gtr_v2_fail(err, GTR_E_NOMEM, 0, -1, -1, "out of memory");
}

/* Reads the generation's CPU samples and sorts them by time. */
static int load_samples(v2_reader *r, const gtr_v2_gen *g, gtr_error *err)
{
	const gtr_v2_index *ix = r->ix;
	const uint8_t *d = r->t->data;
	r->nsamples = 0;
	r->sidx = 0;
	for (size_t bi = g->first; bi < g->first + g->n; bi++) {
		const gtr_v2_batch *b = &ix->batches[bi];
		if (b->kind != GTR_V2_B_CPU)
			continue;
		uint64_t p = b->data + 1, end = b->data + b->len;
		int64_t ev = 1;
		while (p < end) {
			uint64_t at = p, v[5];
			if (d[p] != GTR_V2_EV_CPU_SAMPLE)
				return gtr_v2_fail(err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
						   "expected a CPUSample event at byte %llu in CPU "
						   "sample batch %zu, found type %u",
						   (unsigned long long)at, bi, d[p]);
			p++;
			for (int i = 0; i < 5; i++) {
				int k = gtr_uvarint_decode(d + p, d + end, &v[i]);
				if (k == GTR_UVARINT_SHORT)
					return gtr_v2_fail(err, GTR_E_TRUNCATED, p, (int64_t)bi, ev,
							   "truncated trace: batch %zu ends at byte %llu "
							   "inside a CPUSample event",
							   bi, (unsigned long long)end);
				if (k < 0)
					return gtr_v2_fail(err, GTR_E_VARINT, p, (int64_t)bi, ev,
							   "bad varint at byte %llu in a CPUSample event "
							   "(longer than 10 bytes)",
							   (unsigned long long)p);
				p += (uint64_t)k;
			}
			if (gtr_grow(&r->samples, &r->capsamples, r->nsamples + 1,
				    sizeof *r->samples) < 0)
				return nomem(err);
			r->samples[r->nsamples++] = (sample){gtr_v2_ns(g->ns_per_tick, v[0]),
							     v[0], v[1], v[2], v[3], v[4], at,
							     (int64_t)bi, ev};
			ev++;
		}
	}
	if (gtr_grow(&r->items, &r->capitems, r->nsamples, sizeof *r->items) < 0)
		return nomem(err);
	for (size_t i = 0; i < r->nsamples; i++)
		r->items[i] = (sortitem){r->samples[i].time, i};
	sort_items(r->items, r->nsamples);
	return 0;
}

static void sync_event(gtr_v2_out *out, int64_t time, uint32_t table, uint64_t off)
{
	memset(out, 0, sizeof *out);
	out->time = time;
	out->ev.off = off;
	out->ev.g = out->ev.p = out->ev.m = -1;
	out->ev.table = table;
	out->ev.type = GTR_V2_EV_SYNC;
	out->batch = out->event = -1;
}

/* Makes generation gi current and fills *out with its Sync event. */
static int install(v2_reader *r, size_t gi, gtr_v2_out *out, gtr_error *err)
{
	const gtr_v2_index *ix = r->ix;
	const gtr_v2_gen *g = &ix->gens[gi];
	if (r->have_gen && g->tolerant &&
	    (r->dropped || g->num != ix->gens[r->gen].num + 1)) {
		/* What came before is not all there: let this generation's
		 * statuses set the state afresh, as for a first one. */
		gtr_v2_order *fresh = gtr_v2_order_create(r->t->specs, r->t->nspecs);
		if (!fresh)
			return nomem(err);
		gtr_v2_order_free(r->order);
		r->order = fresh;
	}
	r->dropped = 0;
	r->gen = gi;
	r->have_gen = 1;
	r->ncurs = 0;
	r->nheap = 0;
	if (gtr_grow(&r->curs, &r->capcurs, g->nms, sizeof *r->curs) < 0)
		return nomem(err);
	free(r->heap);
	free(r->tmp);
	r->heap = malloc((g->nms ? g->nms : 1) * sizeof *r->heap);
	r->tmp = malloc((g->nms ? g->nms : 1) * sizeof *r->tmp);
	if (!r->heap || !r->tmp)
		return nomem(err);
	for (size_t j = 0; j < g->nms; j++) {
		const gtr_v2_mbatches *mb = &ix->ms[g->ms_first + j];
		mcur *c = &r->curs[r->ncurs];
		memset(c, 0, sizeof *c);
		c->m = (int64_t)mb->m;
		c->batches = &ix->mb[mb->first];
		c->n = mb->n;
		int rc = mcur_next(r, c, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue; /* only empty batches */
		r->ncurs++;
		r->heap[r->nheap++] = c;
		sift_up(r->heap, r->nheap - 1);
	}
	int rc = load_samples(r, g, err);
	if (rc < 0)
		return rc;
	sync_event(out, gtr_v2_ns(g->ns_per_tick, g->min_ts), (uint32_t)gi, g->off);
	return 0;
}

/* Offers the event of heap[i] to the state machine; on success moves
 * that cursor on. 1 advanced, 0 not yet, <0 error. */
/* Moves heap[i]'s thread on to its next event, keeping the heap in
 * order (the thread leaves it when it has none). 1, or an error. */
static int step(v2_reader *r, size_t i, gtr_error *err)
{
	int rc = mcur_next(r, r->heap[i], err);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		if (sift_up(r->heap, i) == i)
			sift_down(r->heap, r->nheap, i);
	} else {
		heap_remove(r, i);
	}
	return 1;
}

static int try_advance(v2_reader *r, size_t i, gtr_error *err)
{
	mcur *c = r->heap[i];
	const gtr_v2_gen *g = &r->ix->gens[r->gen];
	int rc = gtr_v2_order_advance(r->order, &c->ev, c->m, g->num, (uint32_t)r->gen, err);
	if (rc <= 0)
		return rc;
	r->advanced++;
	return step(r, i, err);
}

/* Go checks every string and stack id an event names before handing it
 * out; then times become strictly increasing. */
static int finish(v2_reader *r, gtr_v2_out *out, gtr_event *ev, gtr_error *err)
{
	const gtr_v2_layout *l = &r->ix->lay[out->ev.type];
	uint32_t table = out->ev.table;
	char nb[16];
	uint64_t missing = 0, first_missing = 0;
	if (r->ix->ngens && r->ix->gens[table].tolerant) {
		for (unsigned i = 0; i < out->ev.nargs && i < 8; i++) {
			uint64_t id = out->ev.args[i];
			if (((l->stack_mask >> i & 1) && !gtr_v2_has_stack(r->ix, table, id)) ||
			    ((l->string_mask >> i & 1) && !gtr_v2_has_string(r->ix, table, id))) {
				if (!missing++)
					first_missing = id;
				if (out->ev.stack == id)
					out->ev.stack = 0;
				for (unsigned j = 0; j < out->ev.ntrans; j++)
					if (out->ev.trans[j].stack == id)
						out->ev.trans[j].stack = 0;
				out->ev.args[i] = 0;
			}
		}
		if (out->ev.stack && !gtr_v2_has_stack(r->ix, table, out->ev.stack) && ++missing)
			out->ev.stack = 0;
		for (unsigned j = 0; j < out->ev.ntrans; j++) {
			if (out->ev.trans[j].stack &&
			    !gtr_v2_has_stack(r->ix, table, out->ev.trans[j].stack) && ++missing)
				out->ev.trans[j].stack = 0;
			if (!gtr_v2_has_string(r->ix, table, out->reason[j]) && ++missing)
				out->reason[j] = 0;
		}
	}
	for (unsigned i = 0; i < out->ev.nargs && i < 8; i++) {
		uint64_t id = out->ev.args[i];
		if ((l->stack_mask >> i & 1) && !gtr_v2_has_stack(r->ix, table, id))
			return gtr_v2_fail(err, GTR_E_NOSTACK, out->ev.off, out->batch, out->event,
					   "%s event at byte %llu names stack %llu, which generation "
					   "%llu does not have",
					   gtr_v2_name(r->t, out->ev.type, nb),
					   (unsigned long long)out->ev.off, (unsigned long long)id,
					   (unsigned long long)r->ix->gens[table].num);
		if ((l->string_mask >> i & 1) && !gtr_v2_has_string(r->ix, table, id))
			return gtr_v2_fail(err, GTR_E_NOSTRING, out->ev.off, out->batch, out->event,
					   "%s event at byte %llu names string %llu, which generation "
					   "%llu does not have",
					   gtr_v2_name(r->t, out->ev.type, nb),
					   (unsigned long long)out->ev.off, (unsigned long long)id,
					   (unsigned long long)r->ix->gens[table].num);
	}
	*ev = out->ev;
	for (unsigned i = 0; i < ev->ntrans; i++) {
		if (gtr_v2_string(r->t, table, out->reason[i], &ev->trans[i].reason) < 0)
			return gtr_v2_fail(err, GTR_E_NOSTRING, out->ev.off, out->batch, out->event,
					   "event at byte %llu names missing string %llu",
					   (unsigned long long)out->ev.off,
					   (unsigned long long)out->reason[i]);
	}
	int64_t time = out->time;
	if (time <= r->last) {
		uint64_t push = (uint64_t)r->last + 1 - (uint64_t)time;
		if (push > *r->pushed)
			*r->pushed = push;
		time = (int64_t)((uint64_t)r->last + 1);
	}
	r->last = time;
	if (!r->have_base) {
		r->base = time;
		r->have_base = 1;
	}
	ev->ts = (uint64_t)time - (uint64_t)r->base;
	if (missing) {
		gtr_loss_add(&r->loss->refs, ev->off, 0,
			     "%s event at byte %llu names string or stack %llu, which generation %llu "
			     "does not have",
			     gtr_v2_name(r->t, ev->type, nb), (unsigned long long)ev->off,
			     (unsigned long long)first_missing,
			     (unsigned long long)r->ix->gens[table].num);
		r->loss->refs.count += missing - 1;
		gtr_loss_time(&r->loss->refs, ev->ts, ev->ts);
	}
	return 1;
}

/*
 * In a tolerant generation, an event that contradicts the state, or
 * that nothing lets happen, is dropped (and recorded) so that the rest
 * can go on. Returns 1 when it dropped heap[i]'s event, or the error.
 */
static int drop(v2_reader *r, size_t i, int rc, gtr_error *scratch, gtr_error *err)
{
	mcur *c = r->heap[i];
	const gtr_v2_gen *g = &r->ix->gens[r->gen];
	if (!g->tolerant || rc == GTR_E_NOMEM) {
		if (err && err->code == GTR_OK && scratch != err)
			*err = *scratch;
		return rc;
	}
	char nb[16];
	if (scratch->code == GTR_OK)
		gtr_v2_fail(scratch, GTR_E_CORRUPT, c->ev.off, c->ev.batch, c->ev.event,
			    "%s event at byte %llu on M %lld cannot happen: nothing before it in "
			    "generation %llu lets it",
			    gtr_v2_name(r->t, c->ev.type, nb), (unsigned long long)c->ev.off,
			    (long long)c->m, (unsigned long long)g->num);
	gtr_loss_add(&r->loss->events, c->ev.off, 0, "%s", scratch->msg);
	gtr_loss_time(&r->loss->events, since_base(r, c->ev.time), since_base(r, c->ev.time));
	gtr_error_clear(scratch);
	r->dropped++;
	return step(r, i, err);
}

/*
 * A tolerant generation stuck on heap[0]: forces its event through and
 * records it. Returns 1 when it did, 0 when the event contradicts the
 * state even so (the caller drops it), or an error.
 */
static int force(v2_reader *r, gtr_error *scratch)
{
	mcur *c = r->heap[0];
	const gtr_v2_gen *g = &r->ix->gens[r->gen];
	char nb[16];
	gtr_error_clear(scratch);
	int rc = gtr_v2_order_force(r->order, &c->ev, c->m, g->num, (uint32_t)r->gen, scratch);
	if (rc == GTR_E_NOMEM)
		return rc;
	if (rc <= 0) {
		gtr_error_clear(scratch);
		return 0;
	}
	gtr_loss_add(&r->loss->forced, c->ev.off, 0,
		     "%s event at byte %llu on M %lld: what it waits for in generation %llu was lost",
		     gtr_v2_name(r->t, c->ev.type, nb), (unsigned long long)c->ev.off,
		     (long long)c->m, (unsigned long long)g->num);
	gtr_loss_time(&r->loss->forced, since_base(r, c->ev.time), since_base(r, c->ev.time));
	r->advanced++;
	return step(r, 0, scratch);
}

int gtr_v2_reader_open(gtr_reader *rd, gtr_error *err)
{
	v2_reader *r = calloc(1, sizeof *r);
	if (!r)
		return nomem(err);
	r->t = rd->t;
	r->ix = gtr_v2_idx(rd->t);
	r->loss = &rd->loss;
	r->pushed = &rd->pushed;
	r->order = gtr_v2_order_create(rd->t->specs, rd->t->nspecs);
	if (!r->order) {
		free(r);
		return nomem(err);
	}
	rd->impl = r;
	return 0;
}

int gtr_v2_reader_next(gtr_reader *rd, gtr_event *ev, gtr_error *err)
{
	v2_reader *r = rd->impl;
	const gtr_v2_index *ix = r->ix;
	gtr_v2_out out;
	int rc;
	if (r->done)
		return 0;
	for (;;) {
		gtr_v2_out *q = gtr_v2_order_next(r->order);
		if (q) {
			rc = finish(r, q, ev, err);
			break;
		}
		if (r->nheap == 0 && r->sidx == r->nsamples) {
			size_t next = r->have_gen ? r->gen + 1 : 0;
			if (next < ix->ngens) {
				if ((rc = install(r, next, &out, err)) == 0)
					rc = finish(r, &out, ev, err);
				break;
			}
			/* The closing Sync, one past the last time. */
			r->done = 1;
			sync_event(&out, r->last, ix->ngens ? (uint32_t)(ix->ngens - 1) : 0,
				   r->t->size);
			return finish(r, &out, ev, err);
		}
		if (r->sidx < r->nsamples &&
		    (r->nheap == 0 || r->samples[r->items[r->sidx].idx].time < r->heap[0]->ev.time)) {
			const sample *s = &r->samples[r->items[r->sidx++].idx];
			memset(&out, 0, sizeof out);
			out.time = s->time;
			out.ev.off = s->off;
			out.ev.m = (int64_t)s->m;
			out.ev.p = (int64_t)s->p;
			out.ev.g = s->g == 0 ? -1 : (int64_t)s->g;
			out.ev.table = (uint32_t)r->gen;
			out.ev.type = GTR_V2_EV_CPU_SAMPLE;
			out.ev.nargs = 5;
			uint64_t args[5] = {s->ts, s->m, s->p, s->g, s->stack};
			memcpy(out.ev.args, args, sizeof args);
			out.ev.stack = s->stack;
			out.batch = s->batch;
			out.event = s->event;
			rc = finish(r, &out, ev, err);
			break;
		}
		/* A tolerant generation's contradictions drop events instead. */
		gtr_error scratch, *aerr = err;
		if (ix->gens[r->gen].tolerant) {
			gtr_error_clear(&scratch);
			aerr = &scratch;
		}
		if ((rc = try_advance(r, 0, aerr)) < 0) {
			if ((rc = drop(r, 0, rc, aerr, err)) < 0)
				break;
			continue;
		}
		if (rc == 0)
			r->tries += r->nheap;
		if (rc == 0 && over_budget(r)) {
			const mcur *c = r->heap[0];
			char nb[16];
			if (aerr == err) {
				rc = gtr_v2_fail(err, GTR_E_CORRUPT, c->ev.off, c->ev.batch, c->ev.event,
						 "events cannot be ordered in reasonable time: %llu tries "
						 "for %llu events (generation %llu, earliest waiting: %s at "
						 "byte %llu on M %lld)",
						 (unsigned long long)r->tries,
						 (unsigned long long)r->advanced,
						 (unsigned long long)ix->gens[r->gen].num,
						 gtr_v2_name(r->t, c->ev.type, nb),
						 (unsigned long long)c->ev.off, (long long)c->m);
				break;
			}
			/* Tolerant: the rest of this generation goes, counted. */
			uint64_t left = 0;
			int64_t from = c->ev.time, to = c->ev.time;
			gtr_loss_add(&r->loss->events, c->ev.off, 0,
				     "generation %llu: events cannot be ordered in reasonable time; "
				     "the rest of its events, on %zu threads, were skipped",
				     (unsigned long long)ix->gens[r->gen].num, r->nheap);
			for (size_t i = 0; i < r->nheap; i++) {
				mcur *m = r->heap[i];
				int more = 1;
				for (; more > 0; more = mcur_next(r, m, &scratch), left++) {
					from = m->ev.time < from ? m->ev.time : from;
					to = m->ev.time > to ? m->ev.time : to;
				}
			}
			r->loss->events.count += left - 1;
			gtr_loss_time(&r->loss->events, since_base(r, from), since_base(r, to));
			r->dropped += left;
			r->nheap = 0;
			r->tries = 0;
			r->advanced = 0;
			continue;
		}
		if (rc == 0) {
			/* The earliest event must wait: try the others in time
			 * order, after sorting the heap as Go does (a sorted
			 * array is still a heap). */
			if (gtr_grow(&r->items, &r->capitems, r->nheap + r->nsamples,
				    sizeof *r->items) < 0) {
				rc = nomem(err);
				break;
			}
			/* Samples' order lives in items[0..nsamples); use the tail. */
			sortitem *it = r->items + r->nsamples;
			for (size_t i = 0; i < r->nheap; i++) {
				it[i] = (sortitem){r->heap[i]->ev.time, i};
				r->tmp[i] = r->heap[i];
			}
			sort_items(it, r->nheap);
			for (size_t i = 0; i < r->nheap; i++)
				r->heap[i] = r->tmp[it[i].idx];
			rc = 0;
			size_t i = 1;
			for (; i < r->nheap && rc == 0; i++) {
				/* Tolerant: an event far behind the others waits for
				 * what was lost; it is forced below, in its place in
				 * time, rather than after everything else. */
				if (aerr != err && r->heap[i]->ev.time > r->heap[0]->ev.time + GTR_FORCE_SLACK_NS)
					break;
				if ((rc = try_advance(r, i, aerr)) < 0)
					break;
			}
			if (rc < 0) {
				if ((rc = drop(r, i, rc, aerr, err)) < 0)
					break;
				continue;
			}
			if (rc == 0 && aerr != err) {
				/* What the earliest event waits for was lost: let it
				 * happen, so that what follows it is not lost too. */
				if ((rc = force(r, aerr)) == 0)
					rc = GTR_E_CORRUPT; /* contradicts the state even so */
				if (rc < 0 && (rc = drop(r, 0, rc, aerr, err)) < 0)
					break;
				continue;
			}
			if (rc == 0) {
				const mcur *c = r->heap[0];
				char nb[16];
				rc = gtr_v2_fail(err, GTR_E_CORRUPT, c->ev.off, c->ev.batch, c->ev.event,
						 "inconsistent trace: no event of generation %llu can "
						 "happen next (earliest: %s at byte %llu on M %lld)",
						 (unsigned long long)ix->gens[r->gen].num,
						 gtr_v2_name(r->t, c->ev.type, nb),
						 (unsigned long long)c->ev.off, (long long)c->m);
				break;
			}
		}
	}
	if (rc < 0)
		r->done = 1;
	return rc;
}

void gtr_v2_reader_free(gtr_reader *rd)
{
	v2_reader *r = rd->impl;
	if (!r)
		return;
	gtr_v2_order_free(r->order);
	free(r->curs);
	free(r->heap);
	free(r->tmp);
	free(r->samples);
	free(r->items);
	free(r);
	rd->impl = NULL;
}
