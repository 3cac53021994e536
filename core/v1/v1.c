/*
 * core/v1/v1.c: index, tables and batch decoding of v1 traces (go 1.5 to
 * go 1.21), and the gtr_v1_* hooks behind core/trace/trace.h.
 *
 * gtr_v1_open makes one sequential pass over the file. It cannot jump
 * from batch to batch (v1 batches carry no length), so it walks every
 * event by its encoded size, decoding only what the index needs: batch
 * headers, timestamps (for the time span), the string, stack and
 * frequency tables, and the few events that Go orders by a key rather
 * than by their place in a batch (see gtr_v1_oob in v1.h).
 */
#include "core/v1/v1.h"
#include "core/trace/spec_impl.h"
#include "core/v1/v1_order.h"
#include "core/base/vec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Values before an event's arguments: the timestamp, and go 1.5's sequence number. */
static unsigned lead_values(int version)
{
	return version == 5 ? 2 : 1;
}

static int timed(unsigned typ)
{
	return typ != GTR_V1_BATCH && typ != GTR_V1_FREQUENCY && typ != GTR_V1_STACK &&
	       typ != GTR_V1_STRING && typ != GTR_V1_TIMERGOROUTINE;
}

/*
 * Decodes one uvarint of data[*pos..lim). `lim` is the end of the input
 * or of a length-prefixed argument list; running past the former is a
 * truncation, past the latter a corrupt length.
 */
static int read_uv(const gtr_trace *t, uint64_t *pos, uint64_t lim, uint64_t *v, uint64_t evoff,
		   gtr_error *err)
{
	int k = gtr_uvarint_decode(t->data + *pos, t->data + lim, v);
	if (k > 0) {
		*pos += (uint64_t)k;
		return 0;
	}
	if (k == GTR_UVARINT_OVERFLOW)
		return gtr_error_set(err, GTR_E_VARINT, *pos,
				     "bad varint at offset %llu (event at offset %llu): over 10 bytes or 64 bits",
				     (unsigned long long)*pos, (unsigned long long)evoff);
	if (lim >= t->size)
		return gtr_error_set(err, GTR_E_TRUNCATED, evoff,
				     "truncated trace: the input ends (at byte %zu) inside the event at offset %llu",
				     t->size, (unsigned long long)evoff);
	return gtr_error_set(err, GTR_E_CORRUPT, evoff,
			     "event at offset %llu: a varint runs past the event's stated length",
			     (unsigned long long)evoff);
}

/* Skips n uvarints with the scan kernel. */
static int skip_uv(const gtr_trace *t, uint64_t *pos, uint64_t lim, size_t n, uint64_t evoff,
		   gtr_error *err)
{
	if (n == 0)
		return 0;
	ptrdiff_t k = t->kernels.uvarint_skip(t->data + *pos, t->data + lim, n);
	if (k >= 0) {
		*pos += (uint64_t)k;
		return 0;
	}
	/* Let the scalar decoder find which varint failed, and how. */
	for (size_t i = 0; i < n; i++) {
		uint64_t v;
		int rc = read_uv(t, pos, lim, &v, evoff, err);
		if (rc < 0)
			return rc;
	}
	return gtr_error_set(err, GTR_E_CORRUPT, evoff, "event at offset %llu: undecodable arguments",
			     (unsigned long long)evoff);
}

/*
 * The layout of one event's values: either `count` inline varints from
 * `pos`, or (count == SIZE_MAX) a list that ends at `lim`.
 */
typedef struct vals {
	uint64_t pos, lim;
	size_t count;
} vals;

static int open_vals(const gtr_trace *t, uint64_t *pos, unsigned field, unsigned lead, vals *vs,
		     uint64_t evoff, gtr_error *err)
{
	if (field < 3) {
		vs->pos = *pos;
		vs->lim = t->size;
		vs->count = field + lead;
		return 0;
	}
	uint64_t len;
	int rc = read_uv(t, pos, t->size, &len, evoff, err);
	if (rc < 0)
		return rc;
	if (len > t->size - *pos)
		return gtr_error_set(err, GTR_E_TRUNCATED, evoff,
				     "truncated trace: the event at offset %llu says its arguments take %llu "
				     "bytes, but the input ends %llu bytes later",
				     (unsigned long long)evoff, (unsigned long long)len,
				     (unsigned long long)(t->size - *pos));
	vs->pos = *pos;
	vs->lim = *pos + len;
	vs->count = SIZE_MAX;
	*pos += len;
	return 0;
}

/*
 * Reads up to `max` values of a list; *n receives how many. For an
 * inline list `pos` then points past it; a length-prefixed one must be
 * consumed exactly unless `partial`.
 */
static int read_vals(const gtr_trace *t, vals *vs, uint64_t *out, size_t max, size_t *n,
		     int partial, uint64_t evoff, gtr_error *err)
{
	size_t i = 0;
	if (vs->count != SIZE_MAX) {
		size_t want = vs->count < max ? vs->count : max;
		if (want) {
			ptrdiff_t k = t->kernels.uvarint_decode_n(t->data + vs->pos, t->data + vs->lim,
								  out, want);
			if (k < 0) {
				/* Let the scalar decoder say which varint failed, and how. */
				for (; i < want; i++) {
					int rc = read_uv(t, &vs->pos, vs->lim, &out[i], evoff, err);
					if (rc < 0)
						return rc;
				}
				return gtr_error_set(err, GTR_E_CORRUPT, evoff,
						     "event at offset %llu: undecodable arguments",
						     (unsigned long long)evoff);
			}
			vs->pos += (uint64_t)k;
		}
		i = want;
		if (!partial && vs->count > want) {
			int rc = skip_uv(t, &vs->pos, vs->lim, vs->count - want, evoff, err);
			if (rc < 0)
				return rc;
		}
		*n = partial ? want : vs->count;
		return 0;
	}
	while (vs->pos < vs->lim && i < max) {
		int rc = read_uv(t, &vs->pos, vs->lim, &out[i], evoff, err);
		if (rc < 0)
			return rc;
		i++;
	}
	*n = i;
	if (!partial && vs->pos < vs->lim) {
		/* More values than the caller has room for: count them for the message. */
		while (vs->pos < vs->lim) {
			uint64_t v;
			int rc = read_uv(t, &vs->pos, vs->lim, &v, evoff, err);
			if (rc < 0)
				return rc;
			(*n)++;
		}
	}
	return 0;
}

/* Skips a String event's body; returns the id, the bytes' offset and length. */
static int read_string(const gtr_trace *t, uint64_t *pos, uint64_t *id, uint64_t *soff, uint64_t *slen,
		       uint64_t evoff, gtr_error *err)
{
	int rc = read_uv(t, pos, t->size, id, evoff, err);
	if (rc == 0)
		rc = read_uv(t, pos, t->size, slen, evoff, err);
	if (rc < 0)
		return rc;
	if (*slen > t->size - *pos)
		return gtr_error_set(err, GTR_E_TRUNCATED, evoff,
				     "truncated trace: the string at offset %llu has %llu bytes, but the input "
				     "ends %llu bytes later",
				     (unsigned long long)evoff, (unsigned long long)*slen,
				     (unsigned long long)(t->size - *pos));
	*soff = *pos;
	*pos += *slen;
	return 0;
}

/* Reads the length-prefixed message that follows a UserLog event's arguments. */
static int read_log_data(const gtr_trace *t, uint64_t *pos, gtr_str *out, uint64_t evoff, gtr_error *err)
{
	uint64_t len;
	int rc = read_uv(t, pos, t->size, &len, evoff, err);
	if (rc < 0)
		return rc;
	if (len > GTR_V1_MAX_STRING)
		return gtr_error_set(err, GTR_E_CORRUPT, evoff,
				     "UserLog at offset %llu: message of %llu bytes (the limit is %d)",
				     (unsigned long long)evoff, (unsigned long long)len, GTR_V1_MAX_STRING);
	if (len > t->size - *pos)
		return gtr_error_set(err, GTR_E_TRUNCATED, evoff,
				     "truncated trace: the UserLog message at offset %llu has %llu bytes, but "
				     "the input ends %llu bytes later",
				     (unsigned long long)evoff, (unsigned long long)len,
				     (unsigned long long)(t->size - *pos));
	if (out) {
		out->p = (const char *)t->data + *pos;
		out->n = (size_t)len;
	}
	*pos += len;
	return 0;
}

/* Values a Stack event must have for `frames` frames. */
static uint64_t stack_values(int version, uint64_t frames)
{
	return 2 + (version == 5 ? 1 : 4) * frames;
}

static void index_free(gtr_v1_index *x)
{
	if (!x)
		return;
	free(x->batches);
	free(x->byp);
	free(x->procs);
	gtr_idmap_free(x->strings);
	gtr_idmap_free(x->stacks);
	gtr_idmap_free(x->timers);
	free(x->oob);
	free(x->oob_order);
	free(x);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* Which arguments of each type name stacks and strings, from the spec table. */
static void arg_kinds(const gtr_trace *t, gtr_v1_index *x)
{
	for (size_t typ = 0; typ < t->nspecs && typ < GTR_V1_NTYPES; typ++) {
		const gtr_spec *s = &t->specs[typ];
		if (!s->name || !timed((unsigned)typ))
			continue;
		for (unsigned i = 0; i < s->nargs; i++) {
			if (!strcmp(s->args[i], "stack") || !strcmp(s->args[i], "new_stack"))
				x->stack_args[typ] |= (uint8_t)(1u << i);
			else if (ends_with(s->args[i], "_string"))
				x->string_args[typ] |= (uint8_t)(1u << i);
		}
	}
}

static const gtr_v1_index *X(const gtr_trace *t)
{
	return t->impl;
}

/* Sort keys: qsort needs the index, so the keys are copied alongside it. */
typedef struct pkey {
	int64_t p;
	size_t i;
} pkey;

static int cmp_pkey(const void *a, const void *b)
{
	const pkey *x = a, *y = b;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

typedef struct okey {
	uint64_t key, off;
	size_t i;
} okey;

static int cmp_okey(const void *a, const void *b)
{
	const okey *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int group_batches(gtr_v1_index *x)
{
	size_t n = x->nbatches;
	if (n == 0)
		return 0;
	pkey *k = malloc(n * sizeof *k);
	x->byp = malloc(n * sizeof *x->byp);
	x->procs = malloc(n * sizeof *x->procs);
	if (!k || !x->byp || !x->procs) {
		free(k);
		return GTR_E_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		k[i] = (pkey){x->batches[i].p, i};
	qsort(k, n, sizeof *k, cmp_pkey);
	for (size_t i = 0; i < n; i++) {
		x->byp[i] = k[i].i;
		if (i == 0 || k[i].p != k[i - 1].p)
			x->procs[x->nprocs++] = (gtr_v1_proc){k[i].p, i, 0};
		x->procs[x->nprocs - 1].n++;
	}
	free(k);
	return 0;
}

static int order_oob(gtr_v1_index *x)
{
	size_t n = x->noob;
	if (n == 0)
		return 0;
	okey *k = malloc(n * sizeof *k);
	x->oob_order = malloc(n * sizeof *x->oob_order);
	if (!k || !x->oob_order) {
		free(k);
		return GTR_E_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		k[i] = (okey){x->oob[i].key, x->oob[i].off, i};
	qsort(k, n, sizeof *k, cmp_okey);
	for (size_t i = 0; i < n; i++)
		x->oob_order[i] = k[i].i;
	free(k);
	return 0;
}

typedef struct builder {
	size_t cap_batches, cap_oob;
	int have_ticks;
} builder;

static void see_ticks(gtr_v1_index *x, builder *b, uint64_t ticks)
{
	if (!b->have_ticks) {
		x->min_ticks = x->max_ticks = ticks;
		b->have_ticks = 1;
		return;
	}
	if (ticks < x->min_ticks)
		x->min_ticks = ticks;
	if (ticks > x->max_ticks)
		x->max_ticks = ticks;
}

/* Adds what the record walk counted (by tag byte) to the index's counts (by type). */
static void fold_walk(gtr_v1_index *x, gtr_walk_sums *ws)
{
	for (unsigned tag = 0; tag < 256; tag++) {
		unsigned typ = tag & 0x3f;
		if (typ < GTR_V1_NTYPES) {
			x->count[typ] += ws->count[tag];
			x->bytes[typ] += ws->bytes[tag];
		}
		ws->count[tag] = ws->bytes[tag] = 0;
	}
}

static int add_oob(gtr_v1_index *x, builder *b, uint64_t off, uint64_t key, uint64_t ticks)
{
	if (gtr_grow(&x->oob, &b->cap_oob, x->noob + 1, sizeof *x->oob) < 0)
		return GTR_E_NOMEM;
	x->oob[x->noob++] = (gtr_v1_oob){off, key, ticks};
	return 0;
}

/* The state of an index pass, which may stop at a position and go on. */
typedef struct vstate {
	uint64_t pos, to;      /* the pass stops at the first event at or past `to`, */
	int to_batch;          /* or the first batch header, if set */
	uint64_t ticks, seq, nevents, ev_at;
	int64_t batch, index;
	builder b;
	gtr_walk_sums *ws;     /* the record walk's counts (NULL for go 1.5) */
	uint8_t walk[256];     /* its counts of values by tag byte */
	uint8_t plain[64];     /* types the fast paths may take */
	int strict;            /* an error ends the pass: no recovery */
	int cut;               /* the pass ended at the input's cut (recorded in t->loss) */
	int helper;            /* not the opening thread: no progress reports */
} vstate;

/* A pass from the trace's first event to its end. */
static int vstate_init(vstate *ps, gtr_trace *t, gtr_v1_index *x, gtr_error *err)
{
	const unsigned lead = lead_values(t->info.version);
	memset(ps, 0, sizeof *ps);
	ps->pos = ps->ev_at = 16;
	ps->to = t->size;
	ps->batch = ps->index = -1;
	/* The cursor's lean events (lean_one): their count of arguments plus one. */
	for (unsigned typ = 0; typ < t->nspecs && typ < 64; typ++)
		x->lean[typ] = lead == 1 && t->specs[typ].name && timed(typ) &&
					       typ != GTR_V1_CPUSAMPLE && typ != GTR_V1_USERLOG &&
					       t->specs[typ].nargs <= GTR_MAX_ARGS
				       ? (uint8_t)(t->specs[typ].nargs + 1)
				       : 0;

	/* Types the fast path below may take: timed, with nothing the index needs but the time. */
	for (unsigned typ = 0; typ < t->nspecs && typ < 64; typ++)
		ps->plain[typ] = t->specs[typ].name && timed(typ) && typ != GTR_V1_GOSYSEXIT &&
			     typ != GTR_V1_CPUSAMPLE && typ != GTR_V1_USERLOG;

	/*
	 * Runs of plain events go to the record walk of simd/, which steps
	 * from event to event by the ends of their varints and sums the time
	 * deltas: an inline event of its type's count of arguments, or a
	 * length-prefixed one (of which, like the checked path below, it
	 * reads only the time). Go 1.5 events lead with a sequence number as
	 * well, which the walk does not keep: they take the paths below.
	 */
	if (lead == 1) {
		for (unsigned tag = 0; tag < 256; tag++) {
			unsigned typ = tag & 0x3f, field = tag >> 6;
			if (!ps->plain[typ])
				continue;
			if (field == 3)
				ps->walk[tag] = GTR_WALK_LIST;
			else if (field == t->specs[typ].nargs)
				ps->walk[tag] = (uint8_t)(field + lead);
		}
		ps->ws = calloc(1, sizeof *ps->ws);
		if (!ps->ws)
			return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	return 0;
}

static void vstate_free(vstate *ps)
{
	free(ps->ws);
	ps->ws = NULL;
}

/*
 * The index pass over [ps->pos, ps->to). Each event is checked as far as its size and the
 * index depend on it; arguments the index does not need are skipped
 * (their varints are still checked for length, inline ones by the scan
 * kernel) and fully decoded later by the batch decoder.
 */
/* A known event type starts at p, or the input ends there. */
static int known_at(const gtr_trace *t, uint64_t p)
{
	if (p >= t->size)
		return p == t->size;
	unsigned typ = t->data[p] & 0x3f;
	return typ < t->nspecs && t->specs[typ].name != NULL;
}

/*
 * Reading leniently: the next place after `from` where decoding can
 * start again, or the end of the input. That is a Batch event (a P that
 * may exist, its clock), or one of the events Go writes after the last
 * batch, when tracing stops (Frequency, or a length-prefixed Stack),
 * followed by an event of a known type.
 */
static uint64_t next_batch(const gtr_trace *t, uint64_t from)
{
	const uint8_t *d = t->data;
	const unsigned lead = lead_values(t->info.version);
	/* Untimed events: their count of values (field + lead) is the spec's count of args. */
	const unsigned nbatch = t->specs[GTR_V1_BATCH].nargs, nfreq = t->specs[GTR_V1_FREQUENCY].nargs;
	for (uint64_t q = from + 1; q < t->size; q++) {
		unsigned typ = d[q] & 0x3f, field = d[q] >> 6, want = 0;
		if (typ == GTR_V1_BATCH && field < 3 && field + lead == nbatch)
			want = nbatch;
		else if (typ == GTR_V1_FREQUENCY && field < 3 && field + lead == nfreq)
			want = nfreq;
		else if (typ == GTR_V1_STACK && field == 3)
			want = 1;
		if (want == 0 || want > 4)
			continue;
		uint64_t p = q + 1, v[4];
		unsigned i = 0;
		for (; i < want; i++) {
			int k = gtr_uvarint_decode(d + p, d + t->size, &v[i]);
			if (k <= 0)
				break;
			p += (uint64_t)k;
		}
		if (i < want)
			continue;
		if (typ == GTR_V1_BATCH && v[0] >= GTR_V1_MAX_PROCS && v[0] != UINT64_MAX)
			continue;
		if (typ == GTR_V1_FREQUENCY && (v[0] < 1000 || v[0] > UINT64_C(1) << 40))
			continue;
		if (typ == GTR_V1_STACK) {
			if (v[0] > t->size - p)
				continue;
			p += v[0];
		}
		if (known_at(t, p))
			return q;
	}
	return t->size;
}

static int build_pass(gtr_trace *t, gtr_v1_index *x, vstate *ps, gtr_error *err)
{
	const uint8_t *d = t->data;
	const uint64_t size = t->size;
	const int v5 = t->info.version == 5;
	const unsigned lead = lead_values(t->info.version);
	const int partial = (t->flags & (GTR_OPEN_PARTIAL | GTR_OPEN_LENIENT)) != 0;
	const int lenient = (t->flags & GTR_OPEN_LENIENT) != 0;
	builder b = ps->b;
	uint64_t pos = ps->pos, ticks = ps->ticks, seq = ps->seq, nevents = ps->nevents;
	uint64_t ev_at = ps->ev_at; /* the event being indexed, for recovery */
	int64_t batch = ps->batch, index = ps->index;
	gtr_walk_sums *const ws = ps->ws;
	const uint8_t *const walk = ps->walk, *const plain = ps->plain;
	const gtr_uvarint_walk_fn walk_fn = t->kernels.uvarint_walk;
	uint64_t v[8];
	size_t n;
	int rc = 0;

#define FAIL(expr)                                                                         \
	do {                                                                               \
		rc = (expr);                                                               \
		goto fail;                                                                 \
	} while (0)
#define TRY(expr)                                                                          \
	do {                                                                               \
		if ((rc = (expr)) < 0)                                                     \
			goto fail;                                                         \
	} while (0)
#define SAVE()                                                                             \
	do {                                                                               \
		ps->b = b;                                                                 \
		ps->pos = pos;                                                             \
		ps->ticks = ticks;                                                         \
		ps->seq = seq;                                                             \
		ps->nevents = nevents;                                                     \
		ps->ev_at = ev_at;                                                         \
		ps->batch = batch;                                                         \
		ps->index = index;                                                         \
	} while (0)

	const unsigned batch_tag = GTR_V1_BATCH | (t->specs[GTR_V1_BATCH].nargs - lead) << 6;
loop:
	while (pos < size && (pos < ps->to || (ps->to_batch && d[pos] != batch_tag))) {
		if (ws && walk[d[pos]] && batch >= 0 && b.have_ticks && size - pos >= GTR_PAD) {
			size_t nrec;
			ws->sum = ticks;
			ws->min = x->min_ticks;
			ws->max = x->max_ticks;
			pos += walk_fn(d + pos, d + size, walk, ws, &nrec);
			ticks = ws->sum;
			x->min_ticks = ws->min;
			x->max_ticks = ws->max;
			index += (int64_t)nrec;
			nevents += nrec;
			if (nrec)
				continue;
		}
		const uint64_t off = ev_at = pos;
		const uint8_t byte = d[pos++];
		const unsigned typ = byte & 0x3f, field = byte >> 6;
		index++;

		/*
		 * Most events are small, timed and inline: decode the time and step
		 * over the rest here, without bounds checks while far enough from
		 * the end for any valid encoding. Anything unusual (a long varint,
		 * a wrong count) falls through to the checked path.
		 */
		if (field < 3 && plain[typ] && batch >= 0 && size - pos >= 64 &&
		    field == t->specs[typ].nargs) {
			const uint8_t *q = d + pos, *start = q;
			uint64_t lv[2] = {0, 0};
			unsigned count = field + lead, i = 0;
			for (; i < count; i++) {
				uint64_t val = 0;
				unsigned shift = 0, k = 0;
				while (k < GTR_UVARINT_MAX - 1 && (q[k] & 0x80)) {
					val |= (uint64_t)(q[k] & 0x7f) << shift;
					shift += 7;
					k++;
				}
				if (q[k] & 0x80 || (k == GTR_UVARINT_MAX - 1 && q[k] > 1))
					break;
				val |= (uint64_t)q[k] << shift;
				if (i < lead)
					lv[i] = val;
				q += k + 1;
			}
			if (i == count) {
				pos += (uint64_t)(q - start);
				if (v5)
					seq += lv[0];
				ticks += lv[lead - 1];
				see_ticks(x, &b, ticks);
				x->count[typ]++;
				x->bytes[typ] += pos - off;
				nevents++;
				continue;
			}
		}
		if (typ >= t->nspecs || !t->specs[typ].name)
			FAIL(gtr_error_set(err, GTR_E_EVTYPE, off,
					   "unknown event type %u at offset %llu (not in go 1.%d traces)", typ,
					   (unsigned long long)off, t->info.version));
		const gtr_spec *s = &t->specs[typ];

		if (typ == GTR_V1_STRING) {
			uint64_t id, soff, slen;
			TRY(read_string(t, &pos, &id, &soff, &slen, off, err));
			if (id == 0 || slen == 0 || slen > GTR_V1_MAX_STRING)
				FAIL(gtr_error_set(err, GTR_E_CORRUPT, off,
						   "string at offset %llu has %s (id %llu, %llu bytes)",
						   (unsigned long long)off,
						   id == 0 ? "the invalid id 0"
							   : slen == 0 ? "length 0" : "a length over 1e6",
						   (unsigned long long)id, (unsigned long long)slen));
			int put = gtr_idmap_put(x->strings, 0, id, soff << 20 | slen);
			if (put < 0)
				FAIL(gtr_error_set(err, GTR_E_NOMEM, off, "out of memory"));
			if (put == 1)
				FAIL(gtr_error_set(err, GTR_E_CORRUPT, off,
						   "string at offset %llu has the duplicate id %llu",
						   (unsigned long long)off, (unsigned long long)id));
			goto counted;
		}

		/* The batch decoder steps over a header by its count of values. */
		if (typ == GTR_V1_BATCH && field == 3)
			FAIL(gtr_error_set(err, GTR_E_CORRUPT, off,
					   "Batch at offset %llu has a length-prefixed argument list",
					   (unsigned long long)off));
		vals vs;
		TRY(open_vals(t, &pos, field, lead, &vs, off, err));

		if (typ == GTR_V1_STACK) {
			TRY(read_vals(t, &vs, v, 2, &n, 1, off, err));
			if (n < 2)
				FAIL(gtr_error_set(err, GTR_E_CORRUPT, off,
						   "Stack at offset %llu has %zu arguments, want at least 2",
						   (unsigned long long)off, n));
			if (v[1] > GTR_V1_MAX_FRAMES)
				FAIL(gtr_error_set(err, GTR_E_CORRUPT, off,
						   "Stack at offset %llu has a bad number of frames: %llu",
						   (unsigned long long)off, (unsigned long long)v[1]));
			uint64_t want = stack_values(t->info.version, v[1]);
			if (vs.count != SIZE_MAX) {
				if (vs.count != want)
					FAIL(gtr_error_set(err, GTR_E_CORRUPT, off,
							   "Stack at offset %llu has %zu arguments, want %llu",
							   (unsigned long long)off, vs.count,
							   (unsigned long long)want));
				TRY(skip_uv(t, &vs.pos, size, vs.count - 2, off, err));
				pos = vs.pos;
			} else {
				uint64_t p = vs.pos;
				TRY(skip_uv(t, &p, vs.lim, (size_t)(want - 2), off, err));
				if (p != vs.lim)
					FAIL(gtr_error_set(err, GTR_E_CORRUPT, off,
							   "Stack at offset %llu has more arguments than its "
							   "%llu frames need",
							   (unsigned long long)off, (unsigned long long)v[1]));
			}
			if (v[0] != 0) {
				uint64_t val = off | (v[1] == 0 ? GTR_V1_STACK_EMPTY : 0);
				if (gtr_idmap_put(x->stacks, 0, v[0], val) < 0)
					FAIL(gtr_error_set(err, GTR_E_NOMEM, off, "out of memory"));
			}
			goto counted;
		}

		/* How many values the index needs from this event. */
		size_t need = 0, expect = s->nargs;
		if (timed(typ)) {
			expect += lead;
			need = lead;
			if (typ == GTR_V1_GOSYSEXIT)
				need = lead + 3;
			else if (typ == GTR_V1_CPUSAMPLE)
				need = lead + 1;
		} else {
			need = s->nargs;
		}
		if (vs.count != SIZE_MAX && vs.count != expect)
			FAIL(gtr_error_set(err, GTR_E_CORRUPT, off,
					   "%s at offset %llu has %zu arguments, want %zu", s->name,
					   (unsigned long long)off, vs.count, expect));
		TRY(read_vals(t, &vs, v, need, &n, vs.count == SIZE_MAX, off, err));
		if (n < need)
			FAIL(gtr_error_set(err, GTR_E_CORRUPT, off,
					   "%s at offset %llu has %zu arguments, want %zu", s->name,
					   (unsigned long long)off, n, expect));
		if (vs.count != SIZE_MAX)
			pos = vs.pos;
		if (typ == GTR_V1_USERLOG)
			TRY(read_log_data(t, &pos, NULL, off, err));

		switch (typ) {
		case GTR_V1_BATCH:
			if (!ps->helper)
				gtr_index_progress(t, off);
			if (gtr_grow(&x->batches, &b.cap_batches, x->nbatches + 1, sizeof *x->batches) < 0)
				FAIL(gtr_error_set(err, GTR_E_NOMEM, off, "out of memory"));
			/* (Unless recovery already ended it, at an undecodable event.) */
			if (x->nbatches && x->batches[x->nbatches - 1].end == size)
				x->batches[x->nbatches - 1].end = off;
			ticks = v5 ? v[2] : v[1];
			seq = v5 ? v[1] : 0;
			x->batches[x->nbatches++] = (gtr_v1_batch){off, size, ticks, seq, (int64_t)v[0]};
			batch++;
			index = 0;
			break;
		case GTR_V1_FREQUENCY:
			x->freq = v[0];
			break;
		case GTR_V1_TIMERGOROUTINE:
			if (gtr_idmap_put(x->timers, 0, v[0], 1) < 0)
				FAIL(gtr_error_set(err, GTR_E_NOMEM, off, "out of memory"));
			break;
		default:
			if (batch < 0)
				FAIL(gtr_error_set(err, GTR_E_CORRUPT, off,
						   "%s at offset %llu comes before the first batch", s->name,
						   (unsigned long long)off));
			if (typ == GTR_V1_CPUSAMPLE) {
				/* Go orders samples by the time they were taken and, like Go, the
				 * sample's own delta does not move the batch's clock. */
				uint64_t at = v[lead];
				see_ticks(x, &b, at);
				if (add_oob(x, &b, off, at, at) < 0)
					FAIL(gtr_error_set(err, GTR_E_NOMEM, off, "out of memory"));
				break;
			}
			if (v5)
				seq += v[0];
			ticks += v[lead - 1];
			see_ticks(x, &b, ticks);
			if (typ == GTR_V1_GOSYSEXIT) {
				/* Written when the goroutine got a P back, it carries the time the
				 * syscall returned (and, in go 1.5, the sequence number then);
				 * Go moves it there. */
				uint64_t real = v[lead + 2];
				uint64_t at = real ? real : ticks;
				uint64_t key = v5 ? v[lead + 1] : at;
				uint64_t now = v5 ? seq : ticks;
				if (real)
					see_ticks(x, &b, real);
				if (key < now && add_oob(x, &b, off, key, at) < 0)
					FAIL(gtr_error_set(err, GTR_E_NOMEM, off, "out of memory"));
			}
			break;
		}
counted:
		x->count[typ]++;
		x->bytes[typ] += pos - off;
		nevents++;
	}
done:
	SAVE();
	return 0;
fail:
	if (!ps->strict && rc != GTR_E_NOMEM && err && err->code != GTR_OK &&
	    ((partial && rc == GTR_E_TRUNCATED) || lenient)) {
		/* The batch in progress ends where its undecodable event starts;
		 * one that ended at an earlier skip stays ended there: what the
		 * skip left out is not part of it again. */
		if (x->nbatches && x->batches[x->nbatches - 1].end == size)
			x->batches[x->nbatches - 1].end = ev_at;
		if (partial && rc == GTR_E_TRUNCATED) {
			t->loss.truncated = 1;
			t->loss.truncated_at = ev_at;
			t->loss.truncated_bytes = size - ev_at;
			snprintf(t->loss.truncated_why, sizeof t->loss.truncated_why, "%s", err->msg);
			gtr_error_clear(err);
			ps->cut = 1;
			goto done;
		}
		uint64_t next = next_batch(t, ev_at);
		gtr_loss_add(&t->loss.batches, ev_at, next - ev_at,
			     "batch %lld, event at byte %llu: %s; skipped to byte %llu",
			     (long long)batch, (unsigned long long)ev_at, err->msg, (unsigned long long)next);
		if (b.have_ticks)
			gtr_loss_time(&t->loss.batches, ticks, ticks);
		gtr_error_clear(err);
		pos = next;
		goto loop;
	}
	if (err && err->code != GTR_OK && err->batch < 0 && batch >= 0) {
		err->batch = batch;
		err->event = index;
	}
	SAVE();
	return rc;
}

#undef FAIL
#undef TRY
#undef SAVE

/* After the pass: the tables, the orders, and what a cut or a missing
 * Frequency means. */
static int build_finish(gtr_trace *t, gtr_v1_index *x, vstate *ps, gtr_error *err)
{
	const uint64_t size = t->size;
	const int partial = (t->flags & (GTR_OPEN_PARTIAL | GTR_OPEN_LENIENT)) != 0;
	int rc = 0;
#define FAIL(expr)                                                                         \
	do {                                                                               \
		rc = (expr);                                                               \
		goto fail;                                                                 \
	} while (0)
	if (ps->ws)
		fold_walk(x, ps->ws);
	if (x->freq == 0 && partial && !t->loss.truncated) {
		/* Cut at an event boundary: incomplete all the same. */
		t->loss.truncated = 1;
		t->loss.truncated_at = size;
		snprintf(t->loss.truncated_why, sizeof t->loss.truncated_why,
			 "no Frequency event: the trace ends at byte %zu, before what is written "
			 "when tracing stops",
			 size);
	}
	if (x->freq == 0 && t->loss.truncated && partial) {
		/* The Frequency event comes when tracing stops, after the cut: no
		 * time can be converted. Times stay in ticks, one shown as one ns,
		 * and every report says so. */
		x->freq = 1000000000;
		t->loss.no_freq = 1;
	}
	if (x->freq == 0 && t->loss.truncated)
		FAIL(gtr_error_set(err, GTR_E_TRUNCATED, t->loss.truncated_at,
				   "%s; a v1 trace (go 1.21 and older) gets its Frequency event when "
				   "tracing stops, so no time in what was written before the cut can be "
				   "computed",
				   t->loss.truncated_why));
	if (x->freq == 0)
		FAIL(gtr_error_set(err, GTR_E_CORRUPT, size,
				   "no Frequency event: the trace is incomplete (truncated, or not stopped); "
				   "it ends at byte %zu after %llu whole events",
				   t->size, (unsigned long long)ps->nevents));
	if (x->freq > INT64_MAX)
		FAIL(gtr_error_set(err, GTR_E_CORRUPT, size, "the Frequency event gives an invalid tick rate: %llu",
				   (unsigned long long)x->freq));
	if (group_batches(x) < 0 || order_oob(x) < 0)
		FAIL(gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory"));
	/* A reader keeps a cursor per P; no machine runs this many, a hostile file could. */
	if (x->nprocs > GTR_V1_MAX_PROCS)
		FAIL(gtr_error_set(err, GTR_E_CORRUPT, 16,
				   "the trace names %zu different Ps (more than %d: not a real trace)",
				   x->nprocs, GTR_V1_MAX_PROCS));
	if (t->loss.truncated)
		t->loss.truncated_after_ns = (int64_t)gtr_v1_ns(x, x->max_ticks);
	if (t->loss.batches.has_time) {
		/* Recorded in ticks: now they can be converted. */
		t->loss.batches.from_ns = gtr_v1_ns(x, t->loss.batches.from_ns);
		t->loss.batches.to_ns = gtr_v1_ns(x, t->loss.batches.to_ns);
	}
	return 0;
fail:
	return rc;
#undef FAIL
}

/* ---- the index pass on two threads ---- */

/*
 * A big trace is indexed by two threads: the opening one from the start,
 * a helper from a batch header near the middle (plausible_batch says
 * which). The helper's part counts only if the opening thread's pass
 * ends exactly on that header, neither met an error, and its string ids
 * are new; else the opening thread goes on alone where it stopped, as
 * the pass of one thread would have, so what it finds and says is the
 * same either way.
 */
static gtr_v1_index *index_new(void)
{
	gtr_v1_index *x = calloc(1, sizeof *x);
	if (!x)
		return NULL;
	x->strings = gtr_idmap_create();
	x->stacks = gtr_idmap_create();
	x->timers = gtr_idmap_create();
	if (!x->strings || !x->stacks || !x->timers) {
		index_free(x);
		return NULL;
	}
	return x;
}

/* Whether a batch header starts at q: its tag, a P and a clock, then 32
 * events (or a table, or the end) that parse as a go 1.7+ trace's. */
static int plausible_batch(const gtr_trace *t, uint64_t q)
{
	const uint8_t *d = t->data, *end = d + t->size;
	/* The header's count field covers its values but the lead one's. */
	const unsigned nb = t->specs[GTR_V1_BATCH].nargs;
	if (nb != 2 || d[q] != (GTR_V1_BATCH | (nb - 1) << 6))
		return 0;
	const uint8_t *r = d + q + 1;
	uint64_t v[2];
	for (unsigned i = 0; i < 2; i++)
		if (gtr_uvarint_next(&r, end, &v[i]) < 0)
			return 0;
	if (v[0] >= GTR_V1_MAX_PROCS && v[0] != UINT64_MAX)
		return 0;
	for (unsigned i = 0; i < 32 && r < end; i++) {
		unsigned typ = r[0] & 0x3f, field = r[0] >> 6;
		if (typ >= t->nspecs || !t->specs[typ].name || typ == GTR_V1_BATCH)
			return 0;
		if (!timed(typ))
			return 1; /* a table: it says enough */
		r++;
		if (field == 3) {
			uint64_t len;
			if (gtr_uvarint_next(&r, end, &len) < 0 || len > (uint64_t)(end - r))
				return 0;
			r += len;
			continue;
		}
		if (field != t->specs[typ].nargs)
			return 0;
		for (unsigned j = 0; j <= field; j++)
			if (gtr_uvarint_next(&r, end, &v[0]) < 0)
				return 0;
	}
	return 1;
}

typedef struct vhelper {
	gtr_trace *t;
	gtr_v1_index *x; /* its part */
	uint64_t start;  /* the batch header its part starts at */
	vstate ps;
	gtr_error err;
	int rc;
} vhelper;

static void *vhelper_run(void *arg)
{
	vhelper *h = arg;
	/* Find the batch header, then index from it into a fresh part. */
	h->rc = build_pass(h->t, h->x, &h->ps, &h->err);
	if (h->rc < 0 || h->ps.pos >= h->t->size)
		return NULL;
	uint64_t at = h->ps.pos;
	gtr_v1_index *fresh = index_new();
	if (!fresh) {
		h->rc = GTR_E_NOMEM;
		return NULL;
	}
	index_free(h->x);
	h->x = fresh;
	vstate_free(&h->ps);
	if ((h->rc = vstate_init(&h->ps, h->t, h->x, &h->err)) < 0)
		return NULL;
	h->ps.pos = h->ps.ev_at = at;
	h->ps.strict = 1;
	h->ps.helper = 1;
	h->start = at;
	h->rc = build_pass(h->t, h->x, &h->ps, &h->err);
	return NULL;
}

/* Adds the helper's part to x. Returns 0; -1, with x unchanged, when
 * the pass of one thread would have found a string id twice; or
 * GTR_E_NOMEM. */
static int merge_part(gtr_v1_index *x, vstate *ps, const gtr_v1_index *y, const vstate *py, uint64_t split)
{
	uint64_t table, id, v, old;
	size_t it = 0;
	while (gtr_idmap_next(y->strings, &it, &table, &id, &v))
		if (gtr_idmap_get(x->strings, table, id, &old))
			return -1;
	if (gtr_grow(&x->batches, &ps->b.cap_batches, x->nbatches + y->nbatches, sizeof *x->batches) < 0 ||
	    gtr_grow(&x->oob, &ps->b.cap_oob, x->noob + y->noob, sizeof *x->oob) < 0)
		return GTR_E_NOMEM;
	it = 0;
	while (gtr_idmap_next(y->strings, &it, &table, &id, &v))
		if (gtr_idmap_put(x->strings, table, id, v) < 0)
			return GTR_E_NOMEM;
	it = 0;
	while (gtr_idmap_next(y->stacks, &it, &table, &id, &v))
		if (gtr_idmap_put(x->stacks, table, id, v) < 0)
			return GTR_E_NOMEM;
	it = 0;
	while (gtr_idmap_next(y->timers, &it, &table, &id, &v))
		if (gtr_idmap_put(x->timers, table, id, v) < 0)
			return GTR_E_NOMEM;
	/* The opening part's last batch ends where the helper's first begins. */
	if (x->nbatches)
		x->batches[x->nbatches - 1].end = split;
	/* (An empty list may have no array: no memcpy from or to NULL.) */
	if (y->nbatches)
		memcpy(x->batches + x->nbatches, y->batches, y->nbatches * sizeof *x->batches);
	x->nbatches += y->nbatches;
	if (y->noob)
		memcpy(x->oob + x->noob, y->oob, y->noob * sizeof *x->oob);
	x->noob += y->noob;
	for (size_t i = 0; i < GTR_V1_NTYPES; i++) {
		x->count[i] += y->count[i];
		x->bytes[i] += y->bytes[i];
	}
	if (py->b.have_ticks) {
		if (!ps->b.have_ticks || y->min_ticks < x->min_ticks)
			x->min_ticks = y->min_ticks;
		if (!ps->b.have_ticks || y->max_ticks > x->max_ticks)
			x->max_ticks = y->max_ticks;
		ps->b.have_ticks = 1;
	}
	if (y->freq)
		x->freq = y->freq;
	ps->pos = py->pos;
	ps->nevents += py->nevents;
	ps->ev_at = py->ev_at;
	ps->ticks = py->ticks;
	ps->batch += py->batch + 1;
	ps->index = py->index;
	return 0;
}

static int build(gtr_trace *t, gtr_v1_index *x, gtr_error *err)
{
	vstate ps;
	int rc = vstate_init(&ps, t, x, err);
	vhelper h = {.t = t};
	pthread_t th;
	int helping = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned jobs = t->jobs ? t->jobs : cpus > 0 ? (unsigned)cpus : 1;
	if (rc == 0 && jobs > 1 && t->size >= t->split_min && ps.ws && !(t->flags & GTR_OPEN_LENIENT)) {
		uint64_t guess = 0;
		for (uint64_t q = t->size / 2 > 16 ? t->size / 2 : 16; q < t->size / 2 + (UINT64_C(1) << 20) && q < t->size; q++)
			if (plausible_batch(t, q)) {
				guess = q;
				break;
			}
		if (guess && (h.x = index_new()) && vstate_init(&h.ps, t, h.x, &h.err) == 0) {
			/* Both passes stop at the first batch header after the guess:
			 * the opening one in the true parse, the helper's in the one
			 * from the guess, which soon falls in step with it if the
			 * guess was off. The helper indexes from there. */
			h.ps.pos = h.ps.ev_at = guess;
			h.ps.to = guess + 1;
			h.ps.to_batch = 1;
			h.ps.strict = 1;
			h.ps.helper = 1;
			gtr_error_clear(&h.err);
			if (pthread_create(&th, NULL, vhelper_run, &h) == 0) {
				helping = 1;
				ps.to = guess + 1;
				ps.to_batch = 1;
			}
		}
	}
	if (rc == 0)
		rc = build_pass(t, x, &ps, err);
	if (helping) {
		pthread_join(th, NULL);
		if (h.ps.ws)
			fold_walk(h.x, h.ps.ws);
		int m = rc == 0 && !ps.cut && h.rc == 0 && h.start == ps.pos && ps.pos < t->size
				? merge_part(x, &ps, h.x, &h.ps, ps.pos)
				: -1;
		if (m == GTR_E_NOMEM) {
			rc = gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
		} else if (rc == 0 && !ps.cut && m < 0) {
			/* The opening thread goes on from where it is. */
			ps.to = t->size;
			ps.to_batch = 0;
			rc = build_pass(t, x, &ps, err);
		}
	}
	if (rc == 0)
		rc = build_finish(t, x, &ps, err);
	else if (ps.ws)
		fold_walk(x, ps.ws);
	vstate_free(&ps);
	vstate_free(&h.ps);
	index_free(h.x);
	return rc;
}

int gtr_v1_open(gtr_trace *t, gtr_error *err)
{
	gtr_v1_index *x = calloc(1, sizeof *x);
	if (!x)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	x->version = t->info.version;
	x->strings = gtr_idmap_create();
	x->stacks = gtr_idmap_create();
	x->timers = gtr_idmap_create();
	if (!x->strings || !x->stacks || !x->timers) {
		index_free(x);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	if (!t->specs) {
		index_free(x);
		return gtr_error_set(err, GTR_E_VERSION, 5, "no event table for go 1.%d traces",
				     t->info.version);
	}
	arg_kinds(t, x);
	/* A partial or lenient open recovers from some errors: they go to a
	 * scratch record, and only the one that stops it reaches err. */
	gtr_error scratch;
	gtr_error_clear(&scratch);
	int rc = build(t, x, t->flags ? &scratch : err);
	if (rc < 0) {
		if (t->flags && err && err->code == GTR_OK)
			*err = scratch;
		index_free(x);
		return rc;
	}
	t->impl = x;
	t->info.batches = x->nbatches;
	t->info.generations = 1;
	t->info.strings = gtr_idmap_count(x->strings);
	t->info.stacks = gtr_idmap_count(x->stacks);
	t->info.freq = x->freq;
	t->info.span_ns = gtr_v1_ns(x, x->max_ticks);
	return 0;
}

void gtr_v1_free(gtr_trace *t)
{
	index_free(t->impl);
	t->impl = NULL;
}

uint64_t gtr_v1_ns(const gtr_v1_index *x, uint64_t ticks)
{
	/* As Go: float64(ticks - min) * (1e9 / float64(freq)), truncated. */
	int64_t dt = (int64_t)(ticks - x->min_ticks);
	double ns = (double)dt * (1e9 / (double)x->freq);
	if (!(ns > 0))
		return 0;
	if (ns >= 9.2e18)
		return (uint64_t)INT64_MAX;
	return (uint64_t)(int64_t)ns;
}

int gtr_v1_string(const gtr_trace *t, uint32_t table, uint64_t id, gtr_str *out)
{
	const gtr_v1_index *x = X(t);
	uint64_t v;
	if (table != 0)
		return GTR_E_NOSTRING;
	if (id == 0) {
		/* The runtime writes id 0 for the empty string. */
		*out = (gtr_str){"", 0};
		return 0;
	}
	if (!gtr_idmap_get(x->strings, 0, id, &v))
		return GTR_E_NOSTRING;
	out->p = (const char *)t->data + (v >> 20);
	out->n = (size_t)(v & ((1u << 20) - 1));
	return 0;
}

uint64_t gtr_v1_stack_or_zero(const gtr_v1_index *x, uint64_t id)
{
	uint64_t v;
	if (id == 0 || !gtr_idmap_get(x->stacks, 0, id, &v) || (v & GTR_V1_STACK_EMPTY))
		return 0;
	return id;
}

int gtr_v1_stack(const gtr_trace *t, uint32_t table, uint64_t id, gtr_frame *frames, size_t max,
		 size_t *n, gtr_error *err)
{
	const gtr_v1_index *x = X(t);
	uint64_t v;
	*n = 0;
	if (id == 0)
		return 0;
	if (table != 0 || !gtr_idmap_get(x->stacks, 0, id, &v))
		return gtr_error_set(err, GTR_E_NOSTACK, 0, "no stack with id %llu in the trace",
				     (unsigned long long)id);
	uint64_t off = v & ~GTR_V1_STACK_EMPTY, pos = off + 1;
	vals vs;
	uint64_t head[2];
	size_t got;
	int rc = open_vals(t, &pos, t->data[off] >> 6, lead_values(t->info.version), &vs, off, err);
	if (rc == 0)
		rc = read_vals(t, &vs, head, 2, &got, 1, off, err);
	if (rc < 0)
		return rc;
	const int v5 = t->info.version == 5;
	const unsigned per = v5 ? 1 : 4;
	for (uint64_t i = 0; i < head[1] && *n < max; i++) {
		uint64_t f[4] = {0};
		for (unsigned j = 0; j < per; j++) {
			rc = read_uv(t, &vs.pos, vs.lim, &f[j], off, err);
			if (rc < 0)
				return rc;
		}
		gtr_frame *fr = &frames[(*n)++];
		memset(fr, 0, sizeof *fr);
		fr->pc = f[0];
		if (!v5) {
			if (gtr_v1_string(t, 0, f[1], &fr->func) < 0 || gtr_v1_string(t, 0, f[2], &fr->file) < 0)
				return gtr_error_set(err, GTR_E_NOSTRING, off,
						     "stack %llu (offset %llu) names a missing string (%llu or %llu)",
						     (unsigned long long)id, (unsigned long long)off,
						     (unsigned long long)f[1], (unsigned long long)f[2]);
			fr->line = f[3];
		}
	}
	return 0;
}

int gtr_v1_footprint(const gtr_trace *t, gtr_footprint *fp, gtr_error *err)
{
	const gtr_v1_index *x = X(t);
	(void)err;
	for (size_t i = 0; i < GTR_V1_NTYPES; i++) {
		fp->count[i] = x->count[i];
		fp->bytes[i] = x->bytes[i];
		fp->events += x->count[i];
	}
	return 0;
}

/* ---- batch decoding ---- */

void gtr_v1_cursor_init(gtr_v1_cursor *c, const gtr_trace *t, size_t batch, uint64_t g)
{
	const gtr_v1_index *x = X(t);
	const gtr_v1_batch *b = &x->batches[batch];
	c->t = t;
	c->pos = b->off;
	c->end = b->end;
	c->ticks = b->ticks;
	c->seq = b->seq;
	c->g = g;
	c->p = b->p;
	c->batch = (int64_t)batch;
	c->index = 0;
	c->loss = NULL;
	c->unchecked = 0;
	/* The header was checked by the index pass: step over its inline values. */
	unsigned count = (t->data[b->off] >> 6) + lead_values(t->info.version);
	ptrdiff_t k = gtr_uvarint_skip_scalar(t->data + b->off + 1, t->data + b->end, count);
	c->pos = k >= 0 ? b->off + 1 + (uint64_t)k : b->end;
}

static int check_refs(const gtr_trace *t, gtr_v1_event *ev, gtr_loss *loss, gtr_error *err)
{
	const gtr_v1_index *x = X(t);
	unsigned sm = x->stack_args[ev->type], tm = x->string_args[ev->type];
	uint64_t v;
	for (unsigned i = 0; (sm | tm) >> i; i++) {
		uint64_t id = ev->args[i];
		if (id == 0)
			continue;
		if (gtr_v1_tolerant(t) && (((sm >> i & 1) && !gtr_idmap_get(x->stacks, 0, id, &v)) ||
					   ((tm >> i & 1) && !gtr_idmap_get(x->strings, 0, id, &v)))) {
			if (loss)
				gtr_loss_add(&loss->refs, ev->off, 0,
					     "%s at offset %llu refers to %s %llu, which the trace does "
					     "not have",
					     t->specs[ev->type].name, (unsigned long long)ev->off,
					     sm >> i & 1 ? "stack" : "string", (unsigned long long)id);
			ev->args[i] = 0;
			continue;
		}
		if ((sm >> i & 1) && !gtr_idmap_get(x->stacks, 0, id, &v))
			return gtr_error_set(err, GTR_E_NOSTACK, ev->off,
					     "%s at offset %llu refers to stack %llu, which the trace does not have",
					     t->specs[ev->type].name, (unsigned long long)ev->off,
					     (unsigned long long)id);
		if ((tm >> i & 1) && !gtr_idmap_get(x->strings, 0, id, &v))
			return gtr_error_set(err, GTR_E_NOSTRING, ev->off,
					     "%s at offset %llu refers to string %llu, which the trace does not have",
					     t->specs[ev->type].name, (unsigned long long)ev->off,
					     (unsigned long long)id);
	}
	return 0;
}

/*
 * Decodes the event at `off` (a timed event) into ev's type, args and
 * data; `lead` receives go 1.5's sequence delta and the time delta.
 * Tables come back with ev->type set and nargs 0; the caller skips them.
 */
static int decode_one(const gtr_trace *t, uint64_t *pos, uint64_t end, gtr_v1_event *ev, uint64_t lead[2],
		      gtr_loss *loss, gtr_error *err)
{
	const uint64_t off = *pos;
	if (off >= end)
		return gtr_error_set(err, GTR_E_TRUNCATED, off, "truncated trace at offset %llu",
				     (unsigned long long)off);
	const uint8_t byte = t->data[(*pos)++];
	const unsigned typ = byte & 0x3f, field = byte >> 6;
	const unsigned nlead = lead_values(t->info.version);
	if (typ >= t->nspecs || !t->specs[typ].name)
		return gtr_error_set(err, GTR_E_EVTYPE, off, "unknown event type %u at offset %llu", typ,
				     (unsigned long long)off);
	const gtr_spec *s = &t->specs[typ];
	ev->off = off;
	ev->type = (uint8_t)typ;
	ev->nargs = 0;
	ev->data = (gtr_str){NULL, 0};
	if (typ == GTR_V1_STRING) {
		uint64_t id, soff, slen;
		return read_string(t, pos, &id, &soff, &slen, off, err);
	}
	vals vs;
	int rc = open_vals(t, pos, field, nlead, &vs, off, err);
	if (rc < 0)
		return rc;
	if (!timed(typ)) {
		if (vs.count != SIZE_MAX)
			return skip_uv(t, pos, t->size, vs.count, off, err);
		return 0;
	}
	uint64_t v[GTR_MAX_ARGS + 2];
	size_t n, expect = s->nargs + nlead;
	rc = read_vals(t, &vs, v, expect, &n, 0, off, err);
	if (rc < 0)
		return rc;
	if (n != expect)
		return gtr_error_set(err, GTR_E_CORRUPT, off, "%s at offset %llu has %zu arguments, want %zu",
				     s->name, (unsigned long long)off, n, expect);
	if (vs.count != SIZE_MAX)
		*pos = vs.pos;
	lead[0] = nlead == 2 ? v[0] : 0;
	lead[1] = v[nlead - 1];
	ev->nargs = s->nargs;
	for (unsigned i = 0; i < s->nargs; i++)
		ev->args[i] = v[nlead + i];
	if (typ == GTR_V1_USERLOG) {
		rc = read_log_data(t, pos, &ev->data, off, err);
		if (rc < 0)
			return rc;
	}
	return check_refs(t, ev, loss, err);
}

/*
 * The common event, read inline: timed, of a type in x->lean (its count
 * of arguments, no trailing data), inline or length-prefixed, whole in
 * the batch. Returns 1, or 0 for anything else (decode_one reads it and
 * says what is wrong). Stacks and strings it names are checked unless
 * the cursor says not to.
 */
static inline int lean_one(gtr_v1_cursor *c, gtr_v1_event *ev, gtr_error *err, int *rc)
{
	const gtr_v1_index *x = X(c->t);
	const uint8_t *d = c->t->data;
	uint64_t off = c->pos;
	unsigned typ = d[off] & 0x3f, field = d[off] >> 6;
	unsigned nargs = x->lean[typ];
	const uint8_t *p = d + off + 1, *end = d + c->end;
	if (!nargs--)
		return 0;
	if (field == 3) {
		/* Three arguments or more: their length in bytes first. */
		uint64_t len;
		if (nargs < 3 || gtr_uvarint_next(&p, end, &len) < 0 || len > (uint64_t)(end - p))
			return 0;
		end = p + len;
	} else if (field != nargs) {
		return 0;
	}
	/* The time delta, then the arguments straight into place. */
	uint64_t dt;
	if (gtr_uvarint_next(&p, end, &dt) < 0)
		return 0;
	for (unsigned j = 0; j < nargs; j++)
		if (gtr_uvarint_next(&p, end, &ev->args[j]) < 0)
			return 0;
	if (field == 3 && p != end)
		return 0;
	c->index++;
	ev->off = off;
	ev->type = (uint8_t)typ;
	ev->nargs = (uint8_t)nargs;
	ev->data = (gtr_str){NULL, 0};
	if (!c->unchecked && (x->stack_args[typ] | x->string_args[typ]) &&
	    (*rc = check_refs(c->t, ev, c->loss, err)) < 0) {
		if (err && err->batch < 0) {
			err->batch = c->batch;
			err->event = c->index;
		}
		return 1;
	}
	c->pos = (uint64_t)(p - d);
	c->ticks += dt;
	gtr_v1_cursor_stamp(c, ev);
	ev->g = gtr_v1_event_g(typ, nargs ? ev->args[0] : 0, &c->g);
	*rc = 1;
	return 1;
}

int gtr_v1_cursor_next(gtr_v1_cursor *c, gtr_v1_event *ev, gtr_error *err)
{
	const gtr_trace *t = c->t;
	for (;;) {
		if (c->pos >= c->end)
			return 0;
		int lean_rc;
		if (lean_one(c, ev, err, &lean_rc))
			return lean_rc;
		uint64_t lead[2];
		c->index++;
		int rc = decode_one(t, &c->pos, c->end, ev, lead, c->loss, err);
		if (rc < 0) {
			if (err && err->batch < 0) {
				err->batch = c->batch;
				err->event = c->index;
			}
			return rc;
		}
		unsigned typ = ev->type;
		if (typ == GTR_V1_BATCH) {
			/* Batches end where the next begins; this can only be a hostile edit. */
			c->pos = c->end;
			return 0;
		}
		if (!timed(typ) || typ == GTR_V1_CPUSAMPLE)
			continue;
		if (t->info.version == 5)
			c->seq += lead[0];
		c->ticks += lead[1];
		gtr_v1_cursor_stamp(c, ev);
		/* Which goroutine the event belongs to, as Go's parsers decide it. */
		ev->g = gtr_v1_event_g(typ, ev->nargs ? ev->args[0] : 0, &c->g);
		return 1;
	}
}

static int64_t batch_of(const gtr_v1_index *x, uint64_t off)
{
	size_t lo = 0, hi = x->nbatches;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->batches[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)lo - 1;
}

int gtr_v1_decode_oob(const gtr_trace *t, size_t i, gtr_v1_event *ev, gtr_loss *loss,
		      gtr_error *err)
{
	const gtr_v1_index *x = X(t);
	const gtr_v1_oob *o = &x->oob[i];
	uint64_t pos = o->off, lead[2];
	int rc = decode_one(t, &pos, t->size, ev, lead, loss, err);
	ev->batch = batch_of(x, o->off);
	ev->index = -1;
	if (rc < 0) {
		if (err && err->batch < 0)
			err->batch = ev->batch;
		return rc;
	}
	ev->ticks = o->ticks;
	ev->seq = o->key;
	ev->blocked = 0;
	ev->oob = 1;
	if (ev->type == GTR_V1_CPUSAMPLE) {
		ev->g = ev->args[2];
		ev->p = ev->args[1] == UINT64_MAX ? -1 : (int64_t)ev->args[1];
	} else {
		ev->g = ev->args[0];
		ev->p = ev->batch >= 0 ? x->batches[ev->batch].p : -1;
	}
	return 0;
}

ptrdiff_t gtr_v1_oob_find(const gtr_v1_index *x, uint64_t off)
{
	size_t lo = 0, hi = x->noob;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->oob[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->noob && x->oob[lo].off == off ? (ptrdiff_t)lo : -1;
}

/* ---- reader hooks: the ordering lives in core/v1/v1_order.c ---- */

int gtr_v1_reader_open(gtr_reader *r, gtr_error *err)
{
	return gtr_v1_order_open(&r->impl, r->t, &r->loss, err);
}

int gtr_v1_reader_next(gtr_reader *r, gtr_event *ev, gtr_error *err)
{
	return gtr_v1_order_next(r->impl, ev, err);
}

void gtr_v1_reader_free(gtr_reader *r)
{
	gtr_v1_order_free(r->impl);
	r->impl = NULL;
}

const gtr_format_ops gtr_v1_ops = {
	.name = "v1",
	.open = gtr_v1_open,
	.free = gtr_v1_free,
	.string = gtr_v1_string,
	.stack = gtr_v1_stack,
	.footprint = gtr_v1_footprint,
	.reader_open = gtr_v1_reader_open,
	.reader_next = gtr_v1_reader_next,
	.reader_free = gtr_v1_reader_free,
	.specs = gtr_v1_specs,
};
