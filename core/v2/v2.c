/*
 * core/v2/v2.c: the v2 index (one pass over the batch headers), the string
 * and stack tables, footprint counts, and the batch decoder that both
 * the ordered reader and future workers use.
 */
#include "core/v2/v2.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/map.h"
#include "core/trace/spec_impl.h"
#include "core/base/vec.h"

int gtr_v2_fail(gtr_error *err, gtr_errcode code, uint64_t off, int64_t batch, int64_t event,
		const char *fmt, ...)
{
	if (!err || err->code != GTR_OK)
		return code;
	char msg[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	gtr_error_set(err, code, off, "%s", msg);
	err->batch = batch;
	err->event = event;
	return code;
}

const char *gtr_v2_name(const gtr_trace *t, unsigned type, char buf[16])
{
	if (type < t->nspecs && t->specs[type].name)
		return t->specs[type].name;
	snprintf(buf, 16, "type %u", type & 0xffu);
	return buf;
}

int gtr_v2_has_string(const gtr_v2_index *ix, uint32_t gen, uint64_t id)
{
	uint64_t v;
	return id == 0 || gtr_idvec_get(ix->strings, gen, id, &v);
}

int gtr_v2_has_stack(const gtr_v2_index *ix, uint32_t gen, uint64_t id)
{
	uint64_t v;
	return id == 0 || gtr_idvec_get(ix->stacks, gen, id, &v);
}

/* ------------------------------------------------------------------ */
/* The batch decoder. */

void gtr_v2_cursor_init(gtr_v2_cursor *c, const gtr_trace *t, size_t batch, double ns_per_tick)
{
	const gtr_v2_index *ix = gtr_v2_idx(t);
	const gtr_v2_batch *b = &ix->batches[batch];
	c->data = t->data;
	c->lay = ix->lay;
	c->decode_n = t->kernels.uvarint_decode_n;
	c->t = t;
	c->pos = b->data;
	c->end = b->data + b->len;
	c->base = b->time;
	c->ns_per_tick = ns_per_tick;
	c->last = 0;
	c->batch = (int64_t)batch;
	c->event = 0;
}

/*
 * After a kernel failed on n varints at p, finds which one broke and
 * reports it: a varint cut by the end of its batch, or one too long.
 */
static int varint_error(gtr_error *err, const uint8_t *data, uint64_t p, uint64_t end, size_t n,
			int64_t batch, int64_t event, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v;
		int k = gtr_uvarint_decode(data + p, data + end, &v);
		if (k == GTR_UVARINT_SHORT)
			return gtr_v2_fail(err, GTR_E_TRUNCATED, p, batch, event,
					   "truncated trace: batch %lld ends at byte %llu inside %s",
					   (long long)batch, (unsigned long long)end, what);
		if (k < 0)
			return gtr_v2_fail(err, GTR_E_VARINT, p, batch, event,
					   "bad varint at byte %llu in %s (longer than 10 bytes)",
					   (unsigned long long)p, what);
		p += (uint64_t)k;
	}
	return gtr_v2_fail(err, GTR_E_CORRUPT, p, batch, event, "undecodable %s", what);
}

int gtr_v2_cursor_next(gtr_v2_cursor *c, gtr_v2_raw *ev, gtr_error *err)
{
	if (c->pos >= c->end)
		return 0;
	unsigned type = c->data[c->pos];
	const gtr_v2_layout *l = &c->lay[type < GTR_V2_NUM_EVENTS ? type : 0];
	char nb[16];
	if (type >= GTR_V2_NUM_EVENTS || !l->valid)
		return gtr_v2_fail(err, GTR_E_EVTYPE, c->pos, c->batch, c->event,
				   "unknown event type %u at byte %llu (batch %lld)", type,
				   (unsigned long long)c->pos, (long long)c->batch);
	if (!(l->flags & GTR_V2_TIMED))
		return gtr_v2_fail(err, GTR_E_CORRUPT, c->pos, c->batch, c->event,
				   "%s event at byte %llu inside an event batch (batch %lld)",
				   gtr_v2_name(c->t, type, nb), (unsigned long long)c->pos,
				   (long long)c->batch);
	uint64_t v[GTR_MAX_ARGS + 1];
	size_t n = l->wire_args;
	/* An event has a few varints, most of one byte: decoded in line, a
	 * call to the bulk kernel per event cost more than the decoding. The
	 * kernel decodes again what the inline path cannot, for its error. */
	const uint8_t *p = c->data + c->pos + 1, *q = p, *e = c->data + c->end;
	size_t i = 0;
	while (i < n && gtr_uvarint_next(&q, e, &v[i]) == 0)
		i++;
	ptrdiff_t k = i == n ? q - p : c->decode_n(p, e, v, n);
	if (k < 0)
		return varint_error(err, c->data, c->pos + 1, c->end, n, c->batch, c->event,
				    gtr_v2_name(c->t, type, nb));
	/* Go's batch cursor: times accumulate from the scaled base, and a
	 * zero running time means "not started" (it re-reads the base). */
	if (c->last == 0)
		c->last = gtr_v2_ns(c->ns_per_tick, c->base);
	ev->time = (int64_t)((uint64_t)gtr_v2_ns(c->ns_per_tick, v[0]) + (uint64_t)c->last);
	c->last = ev->time;
	ev->off = c->pos;
	ev->type = (uint8_t)type;
	ev->nargs = (uint8_t)(n - 1);
	memcpy(ev->args, v + 1, (n - 1) * sizeof v[0]);
	ev->batch = c->batch;
	ev->event = c->event;
	c->pos += 1 + (uint64_t)k;
	c->event++;
	return 1;
}

/* ------------------------------------------------------------------ */
/* The index. */

typedef struct builder {
	gtr_trace *t;
	gtr_v2_index *ix;
	gtr_error *err;
	const uint8_t *d;
	uint64_t size;
	int version;
	size_t capb, capg, capms, capmb;
	int open;             /* a generation is being read */
	int have_freq, have_snap;
	gtr_idmap *mrank;     /* (gen, m) -> index into ix->ms */
	int partial, lenient; /* GTR_OPEN_PARTIAL, GTR_OPEN_LENIENT */
	int cut;              /* the last error was the end of the input */
	gtr_loss *loss;       /* the trace's */
} builder;

/*
 * Reading leniently, an error in a batch whose header was sound skips
 * that batch: records it, marks it broken, forgets the error and returns
 * 1. Otherwise returns 0 and the error stands.
 */
static int skip_batch(builder *b, int rc, size_t bi)
{
	if (!b->lenient || rc == GTR_E_NOMEM)
		return 0;
	gtr_v2_batch *bt = &b->ix->batches[bi];
	gtr_loss_add(&b->loss->batches, bt->off, bt->data + bt->len - bt->off,
		     "batch %zu at byte %llu: %s", bi, (unsigned long long)bt->off, b->err->msg);
	bt->kind = GTR_V2_B_BROKEN;
	gtr_error_clear(b->err);
	return 1;
}

static int nomem(builder *b)
{
	return gtr_v2_fail(b->err, GTR_E_NOMEM, 0, -1, -1, "out of memory");
}

/* Reads one header varint at *p; the file may end anywhere. */
static int header_uv(builder *b, uint64_t *p, uint64_t *v, size_t batch, uint64_t start)
{
	int k = gtr_uvarint_decode(b->d + *p, b->d + b->size, v);
	if (k == GTR_UVARINT_SHORT && (b->cut = 1))
		return gtr_v2_fail(b->err, GTR_E_TRUNCATED, *p, (int64_t)batch, -1,
				   "truncated trace: batch %zu at byte %llu: the file ends inside its "
				   "header, %llu bytes remain",
				   batch, (unsigned long long)start,
				   (unsigned long long)(b->size - start));
	if (k < 0)
		return gtr_v2_fail(b->err, GTR_E_VARINT, *p, (int64_t)batch, -1,
				   "bad varint at byte %llu in the header of batch %zu (longer than 10 "
				   "bytes)",
				   (unsigned long long)*p, batch);
	*p += (uint64_t)k;
	return 0;
}

/* Reads a varint inside batch data [.., end). */
static int data_uv(builder *b, uint64_t *p, uint64_t end, uint64_t *v, size_t batch, int64_t event,
		   const char *what)
{
	int k = gtr_uvarint_decode(b->d + *p, b->d + end, v);
	if (k == GTR_UVARINT_SHORT)
		return gtr_v2_fail(b->err, GTR_E_TRUNCATED, *p, (int64_t)batch, event,
				   "truncated trace: batch %zu ends at byte %llu inside %s", batch,
				   (unsigned long long)end, what);
	if (k < 0)
		return gtr_v2_fail(b->err, GTR_E_VARINT, *p, (int64_t)batch, event,
				   "bad varint at byte %llu in %s (longer than 10 bytes)",
				   (unsigned long long)*p, what);
	*p += (uint64_t)k;
	return 0;
}

static int parse_sync(builder *b, size_t bi)
{
	const gtr_v2_batch *bt = &b->ix->batches[bi];
	gtr_v2_gen *g = &b->ix->gens[b->ix->ngens - 1];
	uint64_t p = bt->data, end = bt->data + bt->len;
	int64_t ev = 0;
	if (b->version >= 25)
		p++; /* the Sync byte that made it a sync batch */
	while (p < end) {
		uint64_t at = p;
		unsigned type = b->d[p++];
		uint64_t v;
		int rc;
		if (type == GTR_V2_EV_FREQUENCY) {
			if (b->have_freq)
				return gtr_v2_fail(b->err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
						   "generation %llu has two Frequency events",
						   (unsigned long long)g->num);
			if ((rc = data_uv(b, &p, end, &v, bi, ev, "a Frequency event")) < 0)
				return rc;
			if (v == 0)
				return gtr_v2_fail(b->err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
						   "generation %llu has a frequency of 0",
						   (unsigned long long)g->num);
			b->have_freq = 1;
			g->freq = v;
			/* Go's frequency: ns per tick, computed exactly this way. */
			g->ns_per_tick = 1.0 / ((double)v / 1e9);
		} else if (type == GTR_V2_EV_CLOCK_SNAPSHOT && b->version >= 25) {
			if (b->have_snap)
				return gtr_v2_fail(b->err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
						   "generation %llu has two ClockSnapshot events",
						   (unsigned long long)g->num);
			for (int i = 0; i < 4; i++)
				if ((rc = data_uv(b, &p, end, &v, bi, ev, "a ClockSnapshot event")) < 0)
					return rc;
			b->have_snap = 1;
		} else {
			return gtr_v2_fail(b->err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
					   "expected a Frequency or ClockSnapshot event at byte %llu in "
					   "sync batch %zu, found type %u",
					   (unsigned long long)at, bi, type);
		}
		ev++;
	}
	return 0;
}

static int parse_strings(builder *b, size_t bi)
{
	const gtr_v2_batch *bt = &b->ix->batches[bi];
	uint64_t p = bt->data + 1, end = bt->data + bt->len;
	int64_t ev = 1;
	while (p < end) {
		uint64_t at = p, id, len;
		int rc;
		if (b->d[p] != GTR_V2_EV_STRING)
			return gtr_v2_fail(b->err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
					   "expected a String event at byte %llu in string batch %zu, "
					   "found type %u",
					   (unsigned long long)at, bi, b->d[p]);
		p++;
		if ((rc = data_uv(b, &p, end, &id, bi, ev, "a String event")) < 0 ||
		    (rc = data_uv(b, &p, end, &len, bi, ev, "a String event")) < 0)
			return rc;
		if (len > GTR_V2_MAX_STRING)
			return gtr_v2_fail(b->err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
					   "string %llu at byte %llu is %llu bytes long, the maximum is %u",
					   (unsigned long long)id, (unsigned long long)at,
					   (unsigned long long)len, GTR_V2_MAX_STRING);
		if (len > end - p)
			return gtr_v2_fail(b->err, GTR_E_TRUNCATED, at, (int64_t)bi, ev,
					   "truncated trace: string %llu at byte %llu needs %llu bytes, "
					   "its batch has %llu left",
					   (unsigned long long)id, (unsigned long long)at,
					   (unsigned long long)len, (unsigned long long)(end - p));
		if (id == 0)
			return gtr_v2_fail(b->err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
					   "string at byte %llu has the reserved id 0",
					   (unsigned long long)at);
		rc = gtr_idvec_put(b->ix->strings, bt->gen, id, p << 16 | len);
		if (rc < 0)
			return nomem(b);
		if (rc == 1)
			return gtr_v2_fail(b->err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
					   "two strings with id %llu in generation %llu",
					   (unsigned long long)id,
					   (unsigned long long)b->ix->gens[bt->gen].num);
		b->ix->gens[bt->gen].strings++;
		p += len;
		ev++;
	}
	return 0;
}

static int parse_stacks(builder *b, size_t bi)
{
	const gtr_v2_batch *bt = &b->ix->batches[bi];
	uint64_t p = bt->data + 1, end = bt->data + bt->len;
	int64_t ev = 1;
	uint64_t fr[4 * GTR_V2_MAX_FRAMES];
	gtr_uvarint_decode_n_fn decode_n = b->t->kernels.uvarint_decode_n;
	while (p < end) {
		uint64_t at = p, id, nframes;
		int rc;
		if (b->d[p] != GTR_V2_EV_STACK)
			return gtr_v2_fail(b->err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
					   "expected a Stack event at byte %llu in stack batch %zu, "
					   "found type %u",
					   (unsigned long long)at, bi, b->d[p]);
		p++;
		if ((rc = data_uv(b, &p, end, &id, bi, ev, "a Stack event")) < 0 ||
		    (rc = data_uv(b, &p, end, &nframes, bi, ev, "a Stack event")) < 0)
			return rc;
		if (nframes > GTR_V2_MAX_FRAMES)
			return gtr_v2_fail(b->err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
					   "stack %llu at byte %llu has %llu frames, the maximum is %u",
					   (unsigned long long)id, (unsigned long long)at,
					   (unsigned long long)nframes, GTR_V2_MAX_FRAMES);
		uint64_t frames_at = p;
		ptrdiff_t k = decode_n(b->d + p, b->d + end, fr, (size_t)nframes * 4);
		if (k < 0)
			return varint_error(b->err, b->d, p, end, (size_t)nframes * 4, (int64_t)bi, ev,
					    "a Stack event");
		/* Frames name their function and file by string id: check
		 * them now, as Go does when it loads a generation. */
		for (uint64_t i = 0; i < nframes; i++) {
			for (int j = 1; j <= 2; j++) {
				uint64_t sid = fr[4 * i + (uint64_t)j];
				if (!gtr_v2_has_string(b->ix, bt->gen, sid) &&
				    b->ix->gens[bt->gen].tolerant) {
					gtr_loss_add(&b->loss->refs, at, 0,
						     "stack %llu at byte %llu names string %llu, which "
						     "generation %llu does not have",
						     (unsigned long long)id, (unsigned long long)at,
						     (unsigned long long)sid,
						     (unsigned long long)b->ix->gens[bt->gen].num);
				} else if (!gtr_v2_has_string(b->ix, bt->gen, sid))
					return gtr_v2_fail(
						b->err, GTR_E_NOSTRING, at, (int64_t)bi, ev,
						"stack %llu at byte %llu: frame %llu names %s string "
						"%llu, which generation %llu does not have",
						(unsigned long long)id, (unsigned long long)at,
						(unsigned long long)i, j == 1 ? "function" : "file",
						(unsigned long long)sid,
						(unsigned long long)b->ix->gens[bt->gen].num);
			}
		}
		p += (uint64_t)k;
		if (id == 0)
			return gtr_v2_fail(b->err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
					   "stack at byte %llu has the reserved id 0",
					   (unsigned long long)at);
		rc = gtr_idvec_put(b->ix->stacks, bt->gen, id, frames_at << 8 | nframes);
		if (rc < 0)
			return nomem(b);
		if (rc == 1)
			return gtr_v2_fail(b->err, GTR_E_CORRUPT, at, (int64_t)bi, ev,
					   "two stacks with id %llu in generation %llu",
					   (unsigned long long)id,
					   (unsigned long long)b->ix->gens[bt->gen].num);
		b->ix->gens[bt->gen].stacks++;
		ev++;
	}
	return 0;
}

static int start_gen(builder *b, uint64_t num, uint64_t off)
{
	gtr_v2_index *ix = b->ix;
	if (ix->ngens >= UINT32_MAX)
		return gtr_v2_fail(b->err, GTR_E_CORRUPT, off, -1, -1, "too many generations");
	if (gtr_grow(&ix->gens, &b->capg, ix->ngens + 1, sizeof *ix->gens) < 0)
		return nomem(b);
	gtr_v2_gen *g = &ix->gens[ix->ngens++];
	memset(g, 0, sizeof *g);
	g->num = num;
	g->off = off;
	g->first = ix->nbatches;
	g->ms_first = ix->nms;
	g->tolerant = (uint8_t)b->lenient;
	b->open = 1;
	b->have_freq = 0;
	b->have_snap = 0;
	return 0;
}

static uint64_t ns_at(const gtr_v2_gen *g, uint64_t ticks)
{
	int64_t ns = gtr_v2_ns(g->ns_per_tick, ticks);
	return ns > 0 ? (uint64_t)ns : 0;
}

/*
 * Reading leniently: decodes an event or CPU-sample batch once, so that
 * a broken one is skipped here rather than stopping a reader later.
 */
static int validate_batch(builder *b, const gtr_v2_gen *g, size_t bi)
{
	const gtr_v2_batch *bt = &b->ix->batches[bi];
	const uint8_t *d = b->d;
	uint64_t from = ns_at(g, bt->time), to = from;
	int rc = 0;
	if (bt->kind == GTR_V2_B_EVENTS) {
		gtr_v2_cursor c;
		gtr_v2_raw ev;
		gtr_v2_cursor_init(&c, b->t, bi, g->ns_per_tick);
		while ((rc = gtr_v2_cursor_next(&c, &ev, b->err)) > 0)
			if (ev.time > 0 && (uint64_t)ev.time > to)
				to = (uint64_t)ev.time;
	} else if (bt->kind == GTR_V2_B_CPU) {
		uint64_t p = bt->data + 1, end = bt->data + bt->len, v;
		while (p < end && rc == 0) {
			if (d[p] != GTR_V2_EV_CPU_SAMPLE) {
				rc = gtr_v2_fail(b->err, GTR_E_CORRUPT, p, (int64_t)bi, -1,
						 "expected a CPUSample event at byte %llu, found type %u",
						 (unsigned long long)p, d[p]);
				break;
			}
			p++;
			for (int i = 0; i < 5 && rc == 0; i++)
				rc = data_uv(b, &p, end, &v, bi, -1, "a CPUSample event");
		}
	}
	if (rc >= 0)
		return 0;
	if (!skip_batch(b, rc, bi))
		return rc;
	if (bt->kind == GTR_V2_B_BROKEN && from)
		gtr_loss_time(&b->loss->batches, from, to);
	return 0;
}

/* Ends the open generation at `end`: tables, per-M grouping, checks. */
static int close_gen(builder *b, uint64_t end)
{
	gtr_v2_index *ix = b->ix;
	uint32_t gi = (uint32_t)(ix->ngens - 1);
	gtr_v2_gen *g = &ix->gens[gi];
	int rc;
	b->open = 0;
	g->end = end;
	g->n = ix->nbatches - g->first;
	if (!b->have_freq || (b->version >= 25 && !b->have_snap)) {
		const char *what = !b->have_freq ? "frequency" : "clock snapshot";
		if (!b->lenient)
			return gtr_v2_fail(b->err, GTR_E_CORRUPT, g->off, -1, -1,
					   "generation %llu (bytes %llu to %llu) has no %s",
					   (unsigned long long)g->num, (unsigned long long)g->off,
					   (unsigned long long)end, what);
		/* Its times cannot be known: the whole generation goes. */
		gtr_loss_add(&b->loss->generations, g->off, end - g->off,
			     "generation %llu (bytes %llu to %llu, %zu batches) has no %s",
			     (unsigned long long)g->num, (unsigned long long)g->off,
			     (unsigned long long)end, g->n, what);
		ix->nbatches = g->first;
		ix->ngens--;
		return 0;
	}
	/* Strings first: stack frames refer to them. */
	for (size_t i = g->first; i < g->first + g->n; i++)
		if (ix->batches[i].kind == GTR_V2_B_STRINGS && (rc = parse_strings(b, i)) < 0 &&
		    !skip_batch(b, rc, i))
			return rc;
	for (size_t i = g->first; i < g->first + g->n; i++)
		if (ix->batches[i].kind == GTR_V2_B_STACKS && (rc = parse_stacks(b, i)) < 0 &&
		    !skip_batch(b, rc, i))
			return rc;
	if (b->lenient) {
		for (size_t i = g->first; i < g->first + g->n; i++)
			if ((rc = validate_batch(b, g, i)) < 0)
				return rc;
	}
	/* Group the event batches by M, Ms in order of first appearance,
	 * batches in file order: the reader's per-M cursors walk these. */
	size_t nev = 0;
	for (size_t i = g->first; i < g->first + g->n; i++) {
		const gtr_v2_batch *bt = &ix->batches[i];
		if (bt->kind != GTR_V2_B_EVENTS)
			continue;
		uint64_t r;
		if (!gtr_idmap_get(b->mrank, gi, bt->m, &r)) {
			if (gtr_grow(&ix->ms, &b->capms, ix->nms + 1, sizeof *ix->ms) < 0)
				return nomem(b);
			r = ix->nms - g->ms_first;
			ix->ms[ix->nms++] = (gtr_v2_mbatches){bt->m, 0, 0};
			if (gtr_idmap_put(b->mrank, gi, bt->m, r) < 0)
				return nomem(b);
		}
		ix->ms[g->ms_first + r].n++;
		nev++;
	}
	g->nms = ix->nms - g->ms_first;
	if (gtr_grow(&ix->mb, &b->capmb, ix->nmb + nev, sizeof *ix->mb) < 0)
		return nomem(b);
	size_t at = ix->nmb;
	for (size_t j = g->ms_first; j < ix->nms; j++) {
		ix->ms[j].first = at;
		at += ix->ms[j].n;
		ix->ms[j].n = 0; /* refilled below */
	}
	for (size_t i = g->first; i < g->first + g->n; i++) {
		const gtr_v2_batch *bt = &ix->batches[i];
		if (bt->kind != GTR_V2_B_EVENTS)
			continue;
		uint64_t r;
		gtr_idmap_get(b->mrank, gi, bt->m, &r);
		gtr_v2_mbatches *mb = &ix->ms[g->ms_first + r];
		ix->mb[mb->first + mb->n++] = i;
	}
	ix->nmb += nev;
	return 0;
}

static int classify(builder *b, gtr_v2_batch *bt, size_t bi)
{
	if (bt->exp != 0) {
		bt->kind = GTR_V2_B_EXP;
		return 0;
	}
	bt->kind = GTR_V2_B_EVENTS;
	if (bt->len == 0)
		return 0;
	unsigned first = b->d[bt->data];
	if (first == GTR_V2_EV_STRINGS)
		bt->kind = GTR_V2_B_STRINGS;
	else if (first == GTR_V2_EV_STACKS)
		bt->kind = GTR_V2_B_STACKS;
	else if (first == GTR_V2_EV_CPU_SAMPLES)
		bt->kind = GTR_V2_B_CPU;
	else if ((first == GTR_V2_EV_FREQUENCY && b->version < 25) ||
		 (first == GTR_V2_EV_SYNC && b->version >= 25))
		bt->kind = GTR_V2_B_SYNC;
	else if (first == GTR_V2_EV_END_OF_GENERATION)
		return gtr_v2_fail(b->err, GTR_E_CORRUPT, bt->data, (int64_t)bi, 0,
				   "EndOfGeneration at byte %llu inside batch %zu",
				   (unsigned long long)bt->data, bi);
	return 0;
}

static int read_batch(builder *b, uint64_t *pos)
{
	gtr_v2_index *ix = b->ix;
	uint64_t start = *pos, p = start + 1;
	size_t bi = ix->nbatches;
	unsigned type = b->d[start];
	uint64_t gen, m, time, len;
	unsigned exp = 0;
	int rc;
	if (type == GTR_V2_EV_EXPERIMENTAL_BATCH) {
		if (p >= b->size && (b->cut = 1))
			return gtr_v2_fail(b->err, GTR_E_TRUNCATED, p, (int64_t)bi, -1,
					   "truncated trace: batch %zu at byte %llu: the file ends inside "
					   "its header, 1 byte remains",
					   bi, (unsigned long long)start);
		exp = b->d[p++];
	}
	if ((rc = header_uv(b, &p, &gen, bi, start)) < 0 ||
	    (rc = header_uv(b, &p, &m, bi, start)) < 0 ||
	    (rc = header_uv(b, &p, &time, bi, start)) < 0 ||
	    (rc = header_uv(b, &p, &len, bi, start)) < 0)
		return rc;
	/* No writer makes a batch over 64 KiB, so a larger length is a
	 * damaged header; a plausible one that runs past the end of the
	 * file means the file was cut. */
	if (len > GTR_V2_MAX_BATCH)
		return gtr_v2_fail(b->err, GTR_E_BATCHLEN, start, (int64_t)bi, -1,
				   "batch %zu at byte %llu claims %llu bytes, more than the format's "
				   "maximum of %u (%llu bytes remain in the file)",
				   bi, (unsigned long long)start, (unsigned long long)len,
				   GTR_V2_MAX_BATCH, (unsigned long long)(b->size - p));
	int cut = 0;
	if (len > b->size - p && (b->cut = 1)) {
		rc = gtr_v2_fail(b->err, GTR_E_TRUNCATED, start, (int64_t)bi, -1,
				 "truncated trace: batch %zu at byte %llu needs %llu bytes, only "
				 "%llu remain",
				 bi, (unsigned long long)start, (unsigned long long)len,
				 (unsigned long long)(b->size - p));
		/* A partial read keeps the whole events of a cut event batch
		 * of the open generation (tables are read whole or not at all). */
		unsigned first = p < b->size ? b->d[p] : 0;
		if (!b->partial || !b->open || exp || p >= b->size ||
		    gen != ix->gens[ix->ngens - 1].num || first == GTR_V2_EV_STRINGS ||
		    first == GTR_V2_EV_STACKS || first == GTR_V2_EV_CPU_SAMPLES ||
		    first == GTR_V2_EV_FREQUENCY || first == GTR_V2_EV_SYNC)
			return rc;
		len = b->size - p;
		cut = 1;
	}
	if (gen == 0)
		return gtr_v2_fail(b->err, GTR_E_CORRUPT, start, (int64_t)bi, -1,
				   "batch %zu at byte %llu has the invalid generation number 0", bi,
				   (unsigned long long)start);
	if (!b->open) {
		if ((rc = start_gen(b, gen, start)) < 0)
			return rc;
	} else {
		uint64_t cur = ix->gens[ix->ngens - 1].num;
		if ((b->version < 26 || b->lenient) && gen == cur + 1) {
			/* Before 1.26 the next generation starts where the
			 * number changes. */
			if ((rc = close_gen(b, start)) < 0 || (rc = start_gen(b, gen, start)) < 0)
				return rc;
		} else if (gen != cur) {
			return gtr_v2_fail(b->err, GTR_E_CORRUPT, start, (int64_t)bi, -1,
					   b->version < 26
						   ? "batch %zu at byte %llu belongs to generation %llu "
						     "inside generation %llu: generations out of order"
						   : "batch %zu at byte %llu belongs to generation %llu "
						     "inside generation %llu: missing EndOfGeneration",
					   bi, (unsigned long long)start, (unsigned long long)gen,
					   (unsigned long long)cur);
		}
	}
	/* Closing a generation may have dropped its batches. */
	bi = ix->nbatches;
	if (gtr_grow(&ix->batches, &b->capb, bi + 1, sizeof *ix->batches) < 0)
		return nomem(b);
	gtr_v2_batch *bt = &ix->batches[bi];
	memset(bt, 0, sizeof *bt);
	bt->off = start;
	bt->data = p;
	bt->m = m;
	bt->time = time;
	bt->len = (uint32_t)len;
	bt->gen = (uint32_t)(ix->ngens - 1);
	bt->type = (uint8_t)type;
	bt->exp = (uint8_t)exp;
	bt->cut = (uint8_t)cut;
	ix->nbatches++;
	*pos = p + len;
	if (cut) {
		/* Keep what decodes: up to the event the end cuts. */
		gtr_v2_cursor c;
		gtr_v2_raw ev;
		gtr_error scratch;
		gtr_v2_cursor_init(&c, b->t, bi, 1.0);
		uint64_t whole = c.pos;
		while (gtr_v2_cursor_next(&c, &ev, &scratch) > 0)
			whole = c.pos;
		bt->len = (uint32_t)(whole - p);
		*pos = whole;
		return 0;
	}
	if ((rc = classify(b, bt, bi)) < 0 && !skip_batch(b, rc, bi))
		return rc;
	gtr_v2_gen *g = &ix->gens[bt->gen];
	if (g->min_ts == 0 || time < g->min_ts)
		g->min_ts = time;
	if (bt->kind == GTR_V2_B_SYNC && (rc = parse_sync(b, bi)) < 0 && !skip_batch(b, rc, bi))
		return rc;
	return 0;
}

/* Last event time of the trace: the end of each M's last batch in the
 * last generation, without decoding anything else. */
static int last_time(gtr_trace *t, int64_t *out, gtr_error *err)
{
	const gtr_v2_index *ix = gtr_v2_idx(t);
	*out = INT64_MIN;
	if (ix->ngens == 0)
		return 0;
	const gtr_v2_gen *g = &ix->gens[ix->ngens - 1];
	for (size_t j = g->ms_first; j < g->ms_first + g->nms; j++) {
		const gtr_v2_mbatches *mb = &ix->ms[j];
		gtr_v2_cursor c;
		gtr_v2_raw ev;
		int rc;
		gtr_v2_cursor_init(&c, t, ix->mb[mb->first + mb->n - 1], g->ns_per_tick);
		while ((rc = gtr_v2_cursor_next(&c, &ev, err)) > 0)
			if (ev.time > *out)
				*out = ev.time;
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void index_free(gtr_v2_index *ix)
{
	if (!ix)
		return;
	free(ix->batches);
	free(ix->gens);
	free(ix->ms);
	free(ix->mb);
	gtr_idvec_free(ix->strings);
	gtr_idvec_free(ix->stacks);
	free(ix);
}

/*
 * The input ends at `at` inside a batch (or, 1.26 on, before the open
 * generation's EndOfGeneration). The open generation is kept, marked
 * partial, when its frequency was read (it comes first); otherwise it
 * is dropped.
 */
static int cut_at(builder *b, uint64_t at)
{
	gtr_v2_index *ix = b->ix;
	gtr_loss *l = b->loss;
	l->truncated = 1;
	snprintf(l->truncated_why, sizeof l->truncated_why, "%s", b->err->msg);
	gtr_error_clear(b->err);
	uint64_t from = at;
	if (at < b->size)
		l->truncated_batches++; /* the one the end cuts */
	if (b->open) {
		gtr_v2_gen *g = &ix->gens[ix->ngens - 1];
		if (b->have_freq && (b->version < 25 || b->have_snap)) {
			g->partial = 1;
			g->tolerant = 1;
			int rc = close_gen(b, at);
			if (rc < 0)
				return rc;
		} else {
			l->truncated_batches += ix->nbatches - g->first;
			from = g->off;
			ix->nbatches = g->first;
			ix->ngens--;
			b->open = 0;
		}
	}
	l->truncated_at = from;
	l->truncated_bytes = b->size - from;
	return 0;
}

/* A batch header that reads well and is followed by what may follow a batch. */
static int plausible_batch(builder *b, uint64_t q)
{
	const gtr_v2_index *ix = b->ix;
	unsigned type = b->d[q];
	uint64_t p = q + 1, v[4];
	if (type == GTR_V2_EV_EXPERIMENTAL_BATCH && b->version >= 23)
		p++;
	else if (type != GTR_V2_EV_EVENT_BATCH)
		return 0;
	for (int i = 0; i < 4; i++) {
		if (p >= b->size)
			return 0;
		int k = gtr_uvarint_decode(b->d + p, b->d + b->size, &v[i]);
		if (k <= 0)
			return 0;
		p += (uint64_t)k;
	}
	if (v[0] == 0 || v[3] > GTR_V2_MAX_BATCH || v[3] > b->size - p)
		return 0;
	if (ix->ngens) {
		uint64_t cur = ix->gens[ix->ngens - 1].num;
		if (v[0] != cur && v[0] != cur + 1)
			return 0;
	}
	uint64_t next = p + v[3];
	if (next == b->size)
		return 1;
	unsigned nt = b->d[next];
	return nt == GTR_V2_EV_EVENT_BATCH || (nt == GTR_V2_EV_EXPERIMENTAL_BATCH && b->version >= 23) ||
	       (nt == GTR_V2_EV_END_OF_GENERATION && b->version >= 26);
}

/* Reading leniently: skips from `from` to the next plausible batch header. */
static uint64_t resync(builder *b, uint64_t from)
{
	uint64_t q = from + 1;
	while (q < b->size && !plausible_batch(b, q))
		q++;
	gtr_loss_add(&b->loss->garbage, from, q - from, "%s", b->err->msg);
	gtr_error_clear(b->err);
	return q;
}

int gtr_v2_open(gtr_trace *t, gtr_error *err)
{
	gtr_v2_index *ix = calloc(1, sizeof *ix);
	/* A partial or lenient open keeps going after errors: they go to a
	 * scratch record, and only the one that stops it reaches err. */
	gtr_error scratch;
	gtr_error_clear(&scratch);
	gtr_prefault pf = {0};
	builder b = {.t = t, .ix = ix, .err = &scratch, .d = t->data, .size = t->size,
		     .version = t->info.version, .loss = &t->loss,
		     .partial = (t->flags & (GTR_OPEN_PARTIAL | GTR_OPEN_LENIENT)) != 0,
		     .lenient = (t->flags & GTR_OPEN_LENIENT) != 0};
	int rc = 0;
	if (!ix)
		return gtr_v2_fail(err, GTR_E_NOMEM, 0, -1, -1, "out of memory");
	t->impl = ix; /* batch cursors look the index up through t */
	ix->strings = gtr_idvec_create();
	ix->stacks = gtr_idvec_create();
	b.mrank = gtr_idmap_create();
	if (!ix->strings || !ix->stacks || !b.mrank) {
		rc = nomem(&b);
		goto fail;
	}
	if (gtr_v2_layouts(t->info.version, ix->lay) < 0) {
		rc = gtr_v2_fail(err, GTR_E_VERSION, 5, -1, -1, "go 1.%d is not a v2 trace version",
				 t->info.version);
		goto fail;
	}
	/* Table values pack offsets above 16 bits. */
	if ((uint64_t)t->size >> 47) {
		rc = gtr_v2_fail(err, GTR_E_CORRUPT, 0, -1, -1, "input too large (%zu bytes)", t->size);
		goto fail;
	}
	/* The index reads a header every batch, and so faults in nearly
	 * every page of a mapped file: a second thread, if it may use one,
	 * takes the faults of the second half while this one reads the first. */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned jobs = t->jobs ? t->jobs : cpus > 0 ? (unsigned)cpus : 1;
	if (jobs > 1 && t->size >= t->split_min)
		(void)gtr_prefault_start(&pf, t->data + t->size / 2, t->size - t->size / 2);
	uint64_t pos = 16;
	while (pos < b.size) {
		unsigned type = b.d[pos];
		uint64_t start = pos;
		if (type == GTR_V2_EV_END_OF_GENERATION && b.version >= 26) {
			if (!b.open) {
				rc = gtr_v2_fail(b.err, GTR_E_CORRUPT, pos, -1, -1,
						 "EndOfGeneration at byte %llu ends an empty generation "
						 "(no frequency)",
						 (unsigned long long)pos);
				if (!b.lenient)
					goto fail;
				pos = resync(&b, pos);
				continue;
			}
			if ((rc = close_gen(&b, pos + 1)) < 0)
				goto fail;
			ix->neog++;
			pos++;
			continue;
		}
		if (type != GTR_V2_EV_EVENT_BATCH &&
		    !(type == GTR_V2_EV_EXPERIMENTAL_BATCH && b.version >= 23)) {
			char nb[16];
			if (type >= GTR_V2_NUM_EVENTS || !ix->lay[type].valid)
				rc = gtr_v2_fail(b.err, GTR_E_EVTYPE, pos, -1, -1,
						 "unknown event type %u at byte %llu, where a batch "
						 "should start",
						 type, (unsigned long long)pos);
			else
				rc = gtr_v2_fail(b.err, GTR_E_CORRUPT, pos, -1, -1,
						 "expected a batch at byte %llu, found a %s event",
						 (unsigned long long)pos, gtr_v2_name(t, type, nb));
			if (!b.lenient)
				goto fail;
			pos = resync(&b, pos);
			continue;
		}
		gtr_index_progress(t, pos);
		b.cut = 0;
		if ((rc = read_batch(&b, &pos)) == 0 && b.cut) {
			/* Its whole events were kept; the rest of the file is cut. */
			if ((rc = cut_at(&b, pos)) < 0)
				goto fail;
			if (pos < b.size && t->loss.truncated_batches)
				t->loss.truncated_batches--; /* read in part, not left out */
			break;
		}
		if (rc < 0) {
			if (rc == GTR_E_NOMEM)
				goto fail;
			if (b.cut && b.partial) {
				if ((rc = cut_at(&b, start)) < 0)
					goto fail;
				break;
			}
			if (!b.lenient)
				goto fail;
			pos = resync(&b, start);
		}
	}
	gtr_prefault_join(&pf);
	if (b.open) {
		if (b.version >= 26) {
			const gtr_v2_gen *g = &ix->gens[ix->ngens - 1];
			rc = gtr_v2_fail(b.err, GTR_E_TRUNCATED, b.size, -1, -1,
					 "truncated trace: generation %llu (from byte %llu) has no "
					 "EndOfGeneration; the file ends at byte %llu",
					 (unsigned long long)g->num, (unsigned long long)g->off,
					 (unsigned long long)b.size);
			if (!b.partial || (rc = cut_at(&b, b.size)) < 0)
				goto fail;
		} else if ((rc = close_gen(&b, b.size)) < 0) {
			goto fail;
		}
	}
	if (ix->ngens == 0 && (t->loss.truncated || t->loss.generations.count ||
			       t->loss.batches.count || t->loss.garbage.count)) {
		/* Nothing complete is left to read. */
		if (t->loss.truncated)
			rc = gtr_v2_fail(b.err, GTR_E_TRUNCATED, t->loss.truncated_at, -1, -1,
					 "%s; no generation is complete before it",
					 t->loss.truncated_why);
		else
			rc = gtr_v2_fail(b.err, GTR_E_CORRUPT, 16, -1, -1,
					 "no generation could be decoded: %s",
					 t->loss.generations.count ? t->loss.generations.why
					 : t->loss.batches.count ? t->loss.batches.why
								 : t->loss.garbage.why);
		goto fail;
	}
	gtr_idmap_free(b.mrank);
	b.mrank = NULL;
	t->impl = ix;

	t->info.batches = ix->nbatches;
	t->info.generations = ix->ngens;
	t->info.strings = gtr_idvec_count(ix->strings);
	t->info.stacks = gtr_idvec_count(ix->stacks);
	t->info.freq = ix->ngens ? ix->gens[0].freq : 0;
	t->info.span_ns = 0;
	int64_t last;
	if ((rc = last_time(t, &last, b.err)) < 0)
		goto fail;
	if (ix->ngens) {
		const gtr_v2_gen *lg = &ix->gens[ix->ngens - 1];
		int64_t first = gtr_v2_ns(ix->gens[0].ns_per_tick, ix->gens[0].min_ts);
		if (last > first)
			t->info.span_ns = (uint64_t)last - (uint64_t)first;
		/* Past the cut: after the last event read, or anything in a
		 * generation cut short (an M may have written none of it). */
		if (t->loss.truncated)
			t->loss.truncated_after_ns = lg->partial ? (int64_t)ns_at(lg, lg->min_ts)
								 : (last > 0 ? last : 0);
		gtr_loss_rebase(&t->loss, first);
	}
	return 0;
fail:
	gtr_prefault_join(&pf);
	if (err && err->code == GTR_OK)
		*err = scratch;
	t->impl = NULL;
	gtr_idmap_free(b.mrank);
	index_free(ix);
	return rc;
}

void gtr_v2_free(gtr_trace *t)
{
	index_free(t->impl);
	t->impl = NULL;
}

int gtr_v2_string(const gtr_trace *t, uint32_t table, uint64_t id, gtr_str *out)
{
	const gtr_v2_index *ix = gtr_v2_idx(t);
	uint64_t v;
	if (id == 0) {
		*out = (gtr_str){"", 0};
		return 0;
	}
	if (!ix || table >= ix->ngens || !gtr_idvec_get(ix->strings, table, id, &v))
		return GTR_E_NOSTRING;
	out->p = (const char *)t->data + (v >> 16);
	out->n = (size_t)(v & 0xffff);
	return 0;
}

int gtr_v2_stack(const gtr_trace *t, uint32_t table, uint64_t id, gtr_frame *frames, size_t max,
		 size_t *n, gtr_error *err)
{
	const gtr_v2_index *ix = gtr_v2_idx(t);
	uint64_t v;
	*n = 0;
	if (id == 0)
		return 0;
	if (!ix || table >= ix->ngens || !gtr_idvec_get(ix->stacks, table, id, &v))
		return gtr_v2_fail(err, GTR_E_NOSTACK, 0, -1, -1,
				   "stack %llu is not in table %u", (unsigned long long)id, table);
	uint64_t p = v >> 8, nframes = v & 0xff;
	const uint8_t *end = t->data + t->size;
	for (uint64_t i = 0; i < nframes && *n < max; i++) {
		uint64_t f[4];
		ptrdiff_t k = gtr_uvarint_decode_n_scalar(t->data + p, end, f, 4);
		if (k < 0)
			return gtr_v2_fail(err, GTR_E_CORRUPT, p, -1, -1, "undecodable frame of stack %llu",
					   (unsigned long long)id);
		p += (uint64_t)k;
		gtr_frame *fr = &frames[(*n)++];
		fr->pc = f[0];
		fr->line = f[3];
		int nofunc = gtr_v2_string(t, table, f[1], &fr->func) < 0;
		int nofile = gtr_v2_string(t, table, f[2], &fr->file) < 0;
		if ((nofunc || nofile) && ix->gens[table].tolerant) {
			/* Counted when the generation was indexed. */
			if (nofunc)
				fr->func = (gtr_str){"?", 1};
			if (nofile)
				fr->file = (gtr_str){"?", 1};
		} else if (nofunc || nofile)
			return gtr_v2_fail(err, GTR_E_NOSTRING, p, -1, -1,
					   "frame of stack %llu names a missing string",
					   (unsigned long long)id);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Footprint: what Go's raw reader counts, batch headers included. */

/*
 * Whether every varint in d[from, to) may be canonical: no byte 0 right
 * after a continuation byte, which is how a padded varint ends (a
 * canonical one ends in 0 only when it is the one byte 0). Bytes that
 * are not varints (a string's) may look so too: then the batch is
 * counted the slow way, which is exact either way.
 */
static int maybe_canonical(const uint8_t *d, uint64_t from, uint64_t to)
{
	const uint64_t hi = 0x8080808080808080ull, lo = 0x7f7f7f7f7f7f7f7full;
	uint64_t carry = 0; /* bit 7: the byte before the word is a continuation */
	uint64_t i = from;
	for (; i + 8 <= to; i += 8) {
		uint64_t x = gtr_load64(d + i);
		uint64_t zero = ~(((x & lo) + lo) | x) & hi;
		uint64_t cont = ((x & hi) << 8) | carry;
		if (zero & cont)
			return 0;
		carry = (x >> 56) & 0x80;
	}
	for (int prev = carry != 0; i < to; i++) {
		if (d[i] == 0 && prev)
			return 0;
		prev = d[i] >= 0x80;
	}
	return 1;
}

/*
 * The records footprint's walk may count in one step: those of a fixed
 * number of varints (frames and inline bytes are counted one by one).
 */
static void footprint_nvals(const gtr_v2_index *ix, uint8_t nvals[256])
{
	memset(nvals, 0, 256);
	for (unsigned type = 0; type < GTR_V2_NUM_EVENTS && type < 256; type++) {
		const gtr_v2_layout *l = &ix->lay[type];
		if (l->valid && !(l->flags & (GTR_V2_FRAMES | GTR_V2_DATA)) && l->wire_args >= 1 &&
		    l->wire_args <= 8)
			nvals[type] = l->wire_args;
	}
}

static int footprint_batch(const gtr_trace *t, size_t bi, const uint8_t nvals[256], gtr_footprint *fp,
			   gtr_error *err)
{
	const gtr_v2_index *ix = gtr_v2_idx(t);
	const gtr_v2_batch *bt = &ix->batches[bi];
	const uint8_t *d = t->data;
	if (bt->kind == GTR_V2_B_BROKEN)
		return 0; /* skipped, and counted in the trace's loss record */
	gtr_uvarint_decode_n_fn decode_n = t->kernels.uvarint_decode_n;
	/* The raw reader sees the header as an event with canonical varints
	 * (the runtime pads the length to 10 bytes; Go counts it as short). */
	uint64_t hb = 1 + gtr_v2_uvarint_len(ix->gens[bt->gen].num) + gtr_v2_uvarint_len(bt->m) +
		      gtr_v2_uvarint_len(bt->time) + gtr_v2_uvarint_len(bt->len);
	if (bt->type == GTR_V2_EV_EXPERIMENTAL_BATCH) {
		/* Its data is the event's payload, opaque to the raw reader. */
		fp->count[bt->type]++;
		fp->bytes[bt->type] += hb + gtr_v2_uvarint_len(bt->exp) + bt->len;
		return 0;
	}
	fp->count[bt->type]++;
	fp->bytes[bt->type] += hb;
	uint64_t p = bt->data, end = bt->data + bt->len;
	uint64_t v[4 * GTR_V2_MAX_FRAMES];
	int64_t ev = 0;
	char nb[16];
	/* Where the runtime wrote canonical varints (always, so far), a
	 * record's bytes are what Go counts, and the walk counts runs of
	 * simple records; what it leaves is decoded below. */
	const int walk = maybe_canonical(d, p, end);
	while (p < end) {
		/* A record whose nvals[type] values all end in the 8 bytes
		 * after its type byte: one load and a few bit operations. */
		while (walk && end - p >= 9) {
			const unsigned type = d[p], n = nvals[type];
			uint64_t ends = gtr_uvarint_ends8(gtr_load64(d + p + 1));
			for (unsigned k = 1; k < n; k++)
				ends &= ends - 1;
			if (n == 0 || ends == 0)
				break;
			const uint64_t size = 2 + ((unsigned)__builtin_ctzll(ends) >> 3);
			fp->count[type]++;
			fp->bytes[type] += size;
			p += size;
			ev++;
		}
		if (p >= end)
			break;
		uint64_t at = p;
		unsigned type = d[p++];
		const gtr_v2_layout *l = &ix->lay[type < GTR_V2_NUM_EVENTS ? type : 0];
		if (type >= GTR_V2_NUM_EVENTS || !l->valid)
			return gtr_v2_fail(err, GTR_E_EVTYPE, at, (int64_t)bi, ev,
					   "unknown event type %u at byte %llu (batch %zu)", type,
					   (unsigned long long)at, bi);
		uint64_t bytes = 1;
		ptrdiff_t k = decode_n(d + p, d + end, v, l->wire_args);
		if (k < 0)
			return varint_error(err, d, p, end, l->wire_args, (int64_t)bi, ev,
					    gtr_v2_name(t, type, nb));
		p += (uint64_t)k;
		for (unsigned i = 0; i < l->wire_args; i++)
			bytes += gtr_v2_uvarint_len(v[i]);
		if (l->flags & GTR_V2_FRAMES) {
			uint64_t left = v[1]; /* nframes */
			while (left > 0) {
				size_t chunk = left > GTR_V2_MAX_FRAMES ? GTR_V2_MAX_FRAMES : (size_t)left;
				k = decode_n(d + p, d + end, v, 4 * chunk);
				if (k < 0)
					return varint_error(err, d, p, end, 4 * chunk, (int64_t)bi, ev,
							    gtr_v2_name(t, type, nb));
				p += (uint64_t)k;
				for (size_t i = 0; i < 4 * chunk; i++)
					bytes += gtr_v2_uvarint_len(v[i]);
				left -= chunk;
			}
		}
		if (l->flags & GTR_V2_DATA) {
			uint64_t len;
			int kk = gtr_uvarint_decode(d + p, d + end, &len);
			if (kk <= 0)
				return varint_error(err, d, p, end, 1, (int64_t)bi, ev,
						    gtr_v2_name(t, type, nb));
			p += (uint64_t)kk;
			if (len > end - p)
				return gtr_v2_fail(err, GTR_E_TRUNCATED, at, (int64_t)bi, ev,
						   "truncated trace: %s event at byte %llu needs %llu "
						   "bytes, its batch has %llu left",
						   gtr_v2_name(t, type, nb), (unsigned long long)at,
						   (unsigned long long)len, (unsigned long long)(end - p));
			p += len;
			bytes += gtr_v2_uvarint_len(len) + len;
		}
		fp->count[type]++;
		fp->bytes[type] += bytes;
		ev++;
	}
	return 0;
}

/* One thread's share of the batches, counted apart. */
typedef struct fp_part {
	const gtr_trace *t;
	const uint8_t *nvals;
	size_t from, to;    /* batches [from, to) */
	gtr_footprint fp;
	gtr_error err;
	int rc;
} fp_part;

static void *fp_count(void *arg)
{
	fp_part *p = arg;
	for (size_t i = p->from; i < p->to && p->rc == 0; i++)
		p->rc = footprint_batch(p->t, i, p->nvals, &p->fp, &p->err);
	return NULL;
}

/*
 * Counting needs no order: the batches are split in as many contiguous
 * parts of about equal bytes as there are threads, counted in parallel
 * and added up; the error of the earliest part that failed is the one
 * a walk in order meets first.
 */
int gtr_v2_footprint(const gtr_trace *t, gtr_footprint *fp, gtr_error *err)
{
	const gtr_v2_index *ix = gtr_v2_idx(t);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned jobs = t->jobs ? t->jobs : cpus > 0 ? (unsigned)cpus : 1;
	if (jobs > 16)
		jobs = 16;
	if (t->size < t->split_min || ix->nbatches < 2 * (size_t)jobs)
		jobs = 1;
	fp_part *parts = calloc(16, sizeof *parts); /* 4 KiB each: off the stack */
	if (!parts)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	uint8_t nvals[256];
	footprint_nvals(ix, nvals);
	uint64_t total = 0, acc = 0;
	for (size_t i = 0; i < ix->nbatches; i++)
		total += ix->batches[i].len;
	size_t k = 0;
	parts[0].from = 0;
	for (size_t i = 0; i < ix->nbatches && k + 1 < jobs; i++) {
		acc += ix->batches[i].len;
		if (acc * jobs >= total * (k + 1)) {
			parts[k].to = i + 1;
			parts[++k].from = i + 1;
		}
	}
	parts[k].to = ix->nbatches;
	size_t nparts = k + 1;
	pthread_t th[16];
	int started[16] = {0};
	for (size_t j = 0; j < nparts; j++) {
		parts[j].t = t;
		parts[j].nvals = nvals;
		gtr_error_clear(&parts[j].err);
		if (j > 0 && pthread_create(&th[j], NULL, fp_count, &parts[j]) == 0)
			started[j] = 1;
	}
	fp_count(&parts[0]);
	for (size_t j = 1; j < nparts; j++) {
		if (started[j])
			pthread_join(th[j], NULL);
		else
			fp_count(&parts[j]);
	}
	for (size_t j = 0; j < nparts; j++) {
		if (parts[j].rc < 0) {
			int rc = parts[j].rc;
			if (err)
				*err = parts[j].err;
			free(parts);
			return rc;
		}
		for (int i = 0; i < 256; i++) {
			fp->count[i] += parts[j].fp.count[i];
			fp->bytes[i] += parts[j].fp.bytes[i];
		}
	}
	free(parts);
	fp->count[GTR_V2_EV_END_OF_GENERATION] += ix->neog;
	fp->bytes[GTR_V2_EV_END_OF_GENERATION] += ix->neog;
	fp->events = 0;
	for (int i = 0; i < 256; i++)
		fp->events += fp->count[i];
	return 0;
}

const gtr_format_ops gtr_v2_ops = {
	.name = "v2",
	.open = gtr_v2_open,
	.free = gtr_v2_free,
	.string = gtr_v2_string,
	.stack = gtr_v2_stack,
	.footprint = gtr_v2_footprint,
	.reader_open = gtr_v2_reader_open,
	.reader_next = gtr_v2_reader_next,
	.reader_free = gtr_v2_reader_free,
	.specs = gtr_v2_specs,
};

int gtr_v2_next_sample(const uint8_t *d, uint64_t *p, uint64_t end, uint64_t v[5])
{
	uint64_t q = *p + 1; /* past the event's type */
	int i = 0;
	for (; i < 5 && q < end; i++) {
		int k = gtr_uvarint_decode(d + q, d + end, &v[i]);
		if (k <= 0)
			break;
		q += (uint64_t)k;
	}
	*p = i < 5 ? end : q;
	return i;
}
