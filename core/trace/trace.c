/* core/trace/trace.c: detect, and dispatch to the format family. */
#include "core/trace/trace_impl.h"
#include "core/trace/sniff.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gtr_version_row versions[] = {
	{5, GTR_FAMILY_V1, &gtr_v1_ops, "Go 1.5 or 1.6"},
	{7, GTR_FAMILY_V1, &gtr_v1_ops, "Go 1.7"},
	{8, GTR_FAMILY_V1, &gtr_v1_ops, "Go 1.8"},
	{9, GTR_FAMILY_V1, &gtr_v1_ops, "Go 1.9"},
	{10, GTR_FAMILY_V1, &gtr_v1_ops, "Go 1.10"},
	{11, GTR_FAMILY_V1, &gtr_v1_ops, "Go 1.11 to 1.18"},
	{19, GTR_FAMILY_V1, &gtr_v1_ops, "Go 1.19 or 1.20"},
	{21, GTR_FAMILY_V1, &gtr_v1_ops, "Go 1.21"},
	{22, GTR_FAMILY_V2, &gtr_v2_ops, "Go 1.22"},
	{23, GTR_FAMILY_V2, &gtr_v2_ops, "Go 1.23 or 1.24"},
	{25, GTR_FAMILY_V2, &gtr_v2_ops, "Go 1.25"},
	{26, GTR_FAMILY_V2, &gtr_v2_ops, "Go 1.26 or 1.27"},
};

const gtr_version_row *gtr_version_row_of(int version)
{
	for (size_t k = 0; k < sizeof versions / sizeof versions[0]; k++)
		if (versions[k].version == version)
			return &versions[k];
	return NULL;
}

const char *gtr_version_writers(int version)
{
	const gtr_version_row *row = gtr_version_row_of(version);
	return row ? row->writers : "an unknown Go release";
}

/* The family's operations, found once at open (a reader calls them per event). */
static const gtr_format_ops *ops_of(const gtr_trace *t)
{
	return t->ops;
}

int gtr_detect(const uint8_t *d, size_t n, int *version, gtr_family *family, gtr_error *err)
{
	if (n >= 2 && d[0] == 0x1f && d[1] == 0x8b)
		return gtr_error_set(err, GTR_E_GZIP, 0,
				     "the input is gzip-compressed; decompress it first (gunzip)");
	static const char magic[] = "go 1.";
	if (n == 0)
		return gtr_error_set(err, GTR_E_NOTTRACE, 0, "empty input: not a Go execution trace");
	/* A file that ends while it still reads like a header was cut short. */
	size_t i = 0;
	for (; i < 5; i++) {
		if (i >= n)
			goto cut;
		if (d[i] != (uint8_t)magic[i]) {
			const char *what = gtr_sniff(d, n);
			if (what)
				return gtr_error_set(err, GTR_E_NOTTRACE, 0, "not a Go execution trace: %s",
						     what);
			return gtr_error_set(err, GTR_E_NOTTRACE, i,
					     "not a Go execution trace: no \"go 1.N trace\" header");
		}
	}
	int v = 0, digits = 0;
	while (i < n && i < 16 && d[i] >= '0' && d[i] <= '9' && digits < 4) {
		v = v * 10 + (d[i] - '0');
		i++;
		digits++;
	}
	static const char tail[] = " trace";
	int ok = digits > 0;
	for (size_t j = 0; ok && j < sizeof tail - 1; j++, i++) {
		if (i >= n)
			goto cut;
		ok = d[i] == (uint8_t)tail[j];
	}
	for (; ok && i < 16; i++) {
		if (i >= n)
			goto cut;
		ok = d[i] == 0;
	}
	if (!ok)
		return gtr_error_set(err, GTR_E_NOTTRACE, i - 1,
				     "not a Go execution trace: malformed \"go 1.N trace\" header");
	const gtr_version_row *row = gtr_version_row_of(v);
	if (row) {
		*version = v;
		*family = row->family;
		return 0;
	}
	return gtr_error_set(err, GTR_E_VERSION, 5,
			     "unsupported trace version go 1.%d (gtr reads go 1.%d to go 1.%d traces)", v,
			     GTR_VERSION_OLDEST, GTR_VERSION_NEWEST);
cut:
	return gtr_error_set(err, GTR_E_TRUNCATED, n,
			     "truncated trace: the file ends after %zu bytes, inside its 16-byte header", n);
}

/* The version a newer trace is read as, with GTR_OPEN_LENIENT. */
static int newer_version(const uint8_t *d, size_t n)
{
	int v = 0, digits = 0;
	for (size_t i = 5; i < n && i < 16 && d[i] >= '0' && d[i] <= '9' && digits < 4; i++, digits++)
		v = v * 10 + (d[i] - '0');
	return v;
}

int gtr_trace_open(gtr_trace **out, const uint8_t *data, size_t size, const gtr_kernels *k,
		   gtr_error *err)
{
	return gtr_trace_open_ex(out, data, size, k, 0, err);
}

static int open_with(gtr_trace **out, const uint8_t *data, size_t size, const gtr_kernels *k,
		     unsigned flags, gtr_progress_fn progress, void *progress_ctx, unsigned jobs,
		     uint64_t split_min, gtr_error *err)
{
	*out = NULL;
	int version, found = 0;
	gtr_family family;
	if (flags & GTR_OPEN_LENIENT)
		flags |= GTR_OPEN_PARTIAL;
	gtr_error derr;
	gtr_error_clear(&derr);
	int rc = gtr_detect(data, size, &version, &family, &derr);
	if (rc == GTR_E_VERSION && (flags & GTR_OPEN_LENIENT) &&
	    (found = newer_version(data, size)) > GTR_VERSION_NEWEST) {
		/* A newer Go: its format most likely extends the newest we know. */
		version = GTR_VERSION_NEWEST;
		family = GTR_FAMILY_V2;
		rc = 0;
	}
	if (rc < 0) {
		if (err && err->code == GTR_OK)
			*err = derr;
		return rc;
	}
	gtr_trace *t = calloc(1, sizeof *t);
	if (!t)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	t->data = data;
	t->size = size;
	t->flags = flags;
	if (k)
		t->kernels = *k;
	else
		gtr_kernels_init(&t->kernels, "scalar");
	t->info.version = version;
	t->info.family = family;
	t->ops = gtr_version_row_of(version)->ops;
	t->info.bytes = size;
	t->loss.truncated_after_ns = -1;
	t->rloss.truncated_after_ns = -1;
	if (found) {
		t->loss.version_found = found;
		t->loss.version_read = version;
	}
	t->specs = gtr_specs(version, &t->nspecs);
	t->progress = progress;
	t->progress_ctx = progress_ctx;
	t->progress_step = size / 1000 > GTR_PROGRESS_STEP ? size / 1000 : GTR_PROGRESS_STEP;
	t->progress_next = t->progress_step;
	t->jobs = jobs;
	t->split_min = split_min ? split_min : GTR_SPLIT_MIN;
	rc = ops_of(t)->open(t, err);
	if (rc < 0) {
		if (found && err) {
			/* Say that the newest decoder was only a guess. */
			char msg[2 * sizeof err->msg];
			snprintf(msg, sizeof msg, "go 1.%d trace read as go 1.%d, the newest gtr knows: %s",
				 found, version, err->msg);
			memcpy(err->msg, msg, sizeof err->msg - 1);
			err->msg[sizeof err->msg - 1] = 0;
		}
		free(t);
		return rc;
	}
	pthread_mutex_init(&t->lock, NULL);
	if (progress)
		progress(progress_ctx, GTR_PHASE_INDEX, size, size);
	*out = t;
	return 0;
}

int gtr_trace_open_ex(gtr_trace **out, const uint8_t *data, size_t size, const gtr_kernels *k,
		      unsigned flags, gtr_error *err)
{
	return open_with(out, data, size, k, flags, NULL, NULL, 1, 0, err);
}

int gtr_trace_open_opts(gtr_trace **out, const uint8_t *data, size_t size,
			const gtr_open_opts *opts, gtr_error *err)
{
	/* Fields past an older caller's sz read as zero. */
	gtr_open_opts o = {0};
	if (opts)
		memcpy(&o, opts, opts->sz && opts->sz < sizeof o ? opts->sz : sizeof o);
	return open_with(out, data, size, o.kernels, o.flags, o.progress, o.progress_ctx, o.jobs, o.split_min,
			 err);
}

const char *gtr_phase_name(gtr_phase p)
{
	static const char *const names[] = {"index", "decode", "reduce"};
	return (unsigned)p < sizeof names / sizeof names[0] ? names[p] : "?";
}

void gtr_trace_free(gtr_trace *t)
{
	if (!t)
		return;
	ops_of(t)->free(t);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* ---- loss records ---- */

void gtr_loss_add(gtr_loss_item *it, uint64_t off, uint64_t bytes, const char *fmt, ...)
{
	if (it->count++ == 0) {
		it->first_off = off;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(it->why, sizeof it->why, fmt, ap);
		va_end(ap);
	}
	it->bytes += bytes;
}

void gtr_loss_time(gtr_loss_item *it, uint64_t from, uint64_t to)
{
	if (to < from)
		to = from;
	if (!it->has_time) {
		it->from_ns = from;
		it->to_ns = to;
		it->has_time = 1;
		return;
	}
	if (from < it->from_ns)
		it->from_ns = from;
	if (to > it->to_ns)
		it->to_ns = to;
}

static uint64_t rebase1(uint64_t v, int64_t base)
{
	return (int64_t)v > base ? v - (uint64_t)base : 0;
}

void gtr_loss_rebase(gtr_loss *l, int64_t base)
{
	gtr_loss_item *items[] = {&l->batches, &l->generations, &l->garbage, &l->events,
				   &l->forced, &l->refs};
	for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
		if (!items[i]->has_time)
			continue;
		items[i]->from_ns = rebase1(items[i]->from_ns, base);
		items[i]->to_ns = rebase1(items[i]->to_ns, base);
	}
	if (l->truncated_after_ns >= 0)
		l->truncated_after_ns = (int64_t)rebase1((uint64_t)l->truncated_after_ns, base);
}

int gtr_loss_any(const gtr_loss *l)
{
	return l->truncated || l->batches.count || l->generations.count || l->garbage.count ||
	       l->events.count || l->forced.count || l->refs.count || l->version_found;
}

/* A reader's findings: every reader of a trace finds the same, or less
 * when it stopped early, so the largest of each kind is kept. */
static void merge_item(gtr_loss_item *into, const gtr_loss_item *from)
{
	if (from->count > into->count)
		*into = *from;
}

static void merge_loss(gtr_loss *into, const gtr_loss *from)
{
	merge_item(&into->batches, &from->batches);
	merge_item(&into->generations, &from->generations);
	merge_item(&into->garbage, &from->garbage);
	merge_item(&into->events, &from->events);
	merge_item(&into->forced, &from->forced);
	merge_item(&into->refs, &from->refs);
}

static void add_item(gtr_loss_item *into, const gtr_loss_item *from)
{
	if (!from->count)
		return;
	if (!into->count) {
		*into = *from;
		return;
	}
	into->count += from->count;
	into->bytes += from->bytes;
	if (from->first_off < into->first_off) {
		into->first_off = from->first_off;
		memcpy(into->why, from->why, sizeof into->why);
	}
	if (from->has_time)
		gtr_loss_time(into, from->from_ns, from->to_ns);
}

void gtr_trace_loss(const gtr_trace *t, gtr_loss *out)
{
	gtr_trace *mt = (gtr_trace *)t;
	*out = t->loss;
	pthread_mutex_lock(&mt->lock);
	gtr_loss r = t->rloss;
	pthread_mutex_unlock(&mt->lock);
	add_item(&out->batches, &r.batches);
	add_item(&out->generations, &r.generations);
	add_item(&out->garbage, &r.garbage);
	add_item(&out->events, &r.events);
	add_item(&out->forced, &r.forced);
	add_item(&out->refs, &r.refs);
}

const gtr_trace_info *gtr_trace_get_info(const gtr_trace *t)
{
	return &t->info;
}

const gtr_spec *gtr_trace_specs(const gtr_trace *t, size_t *n)
{
	*n = t->nspecs;
	return t->specs;
}

int gtr_trace_type(const gtr_trace *t, const char *name)
{
	for (size_t i = 0; i < t->nspecs; i++)
		if (t->specs[i].name && strcmp(t->specs[i].name, name) == 0)
			return (int)i;
	return -1;
}

const uint8_t *gtr_trace_data(const gtr_trace *t)
{
	return t->data;
}

int gtr_trace_string(const gtr_trace *t, uint32_t table, uint64_t id, gtr_str *out)
{
	return ops_of(t)->string(t, table, id, out);
}

int gtr_trace_stack(const gtr_trace *t, uint32_t table, uint64_t id, gtr_frame *frames,
		    size_t max, size_t *n, gtr_error *err)
{
	*n = 0;
	return ops_of(t)->stack(t, table, id, frames, max, n, err);
}

int gtr_trace_footprint(const gtr_trace *t, gtr_footprint *fp, gtr_error *err)
{
	memset(fp, 0, sizeof *fp);
	fp->total_bytes = t->size;
	return ops_of(t)->footprint(t, fp, err);
}

int gtr_reader_open(gtr_reader **out, const gtr_trace *t, gtr_error *err)
{
	*out = NULL;
	gtr_reader *r = calloc(1, sizeof *r);
	if (!r)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	r->t = t;
	int rc = ops_of(t)->reader_open(r, err);
	if (rc < 0) {
		free(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* Tells the trace's progress callback how far r has got: by time, as the
 * events come in time order and the bytes of a trace follow its time. */
static void reader_progress(gtr_reader *r, const gtr_event *ev, int rc)
{
	const gtr_trace *t = r->t;
	uint64_t done = t->size, span = t->info.span_ns;
	if (rc > 0) {
		if (ev->ts < span)
			done = (uint64_t)((double)ev->ts / (double)span * (double)t->size);
		if (done < r->progress_next)
			return;
		r->progress_next = done + t->progress_step;
	} else if (r->progress_next == UINT64_MAX) {
		return; /* the end was told already */
	} else {
		r->progress_next = UINT64_MAX;
	}
	t->progress(t->progress_ctx, GTR_PHASE_DECODE, done, t->size);
}

int gtr_reader_next(gtr_reader *r, gtr_event *ev, gtr_error *err)
{
	int rc = ops_of(r->t)->reader_next(r, ev, err);
	if (r->t->progress && ((++r->nev & 4095) == 0 || rc <= 0))
		reader_progress(r, ev, rc);
	return rc;
}

uint64_t gtr_reader_pushed(const gtr_reader *r)
{
	return r->pushed;
}

void gtr_reader_free(gtr_reader *r)
{
	if (!r)
		return;
	if (gtr_loss_any(&r->loss)) {
		gtr_trace *mt = (gtr_trace *)r->t;
		pthread_mutex_lock(&mt->lock);
		merge_loss(&mt->rloss, &r->loss);
		pthread_mutex_unlock(&mt->lock);
	}
	ops_of(r->t)->reader_free(r);
	free(r);
}

const char *gtr_gstate_name(gtr_gstate s)
{
	static const char *const names[] = {"Undetermined", "NotExist", "Runnable",
					    "Running",      "Waiting",  "Syscall"};
	return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "Bad";
}

const char *gtr_pstate_name(gtr_pstate s)
{
	static const char *const names[] = {"Undetermined", "NotExist", "Running", "Idle"};
	return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "Bad";
}
