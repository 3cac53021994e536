/* core/report/html_report.c: the page of `gtr report`: the template around one JSON object. */
#include "core/report/html_report.h"
#include "core/report/report.h"

#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/base/json.h"
#include "core/base/sort.h"
#include "io/name.h"

#include "html_template.h" /* gtr_html_tpl[], made from core/report/report.html by the Makefile */

#define DATA_MARK "@GTR_DATA@"

/* 64 levels of busy per bucket, one character each, JSON- and HTML-safe. */
static const char levels[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* Goroutines listed per pause: those that stopped last. Only the last one's stack is kept. */
#define MAX_WAITERS 32

/* Timeline cells (rows x buckets) in the page: past this, buckets are merged. */
#define MAX_CELLS 300000

/* M rows in the page: the busiest. */
#define MAX_M_ROWS 64

/* Coarse histogram bins per power of two (quarter_octave() is written for 4). */
#define HIST_PER_OCTAVE 4

const char *gtr_html_template(size_t *len)
{
	*len = sizeof gtr_html_tpl - 1; /* the generator appends a NUL */
	return (const char *)gtr_html_tpl;
}

/*
 * Copies bytes into the page's JSON. '<' becomes \u003c, which means the
 * same inside a JSON string and cannot occur outside one, so that no name
 * in a trace can close the <script> element.
 */
static void put_safe(gtr_out *o, const char *p, size_t n)
{
	if (!n)
		return; /* p may be NULL then */
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '<')
			continue;
		gtr_out_write(o, p + from, i - from);
		gtr_out_str(o, "\\u003c");
		from = i + 1;
	}
	gtr_out_write(o, p + from, n - from);
}

/* The inside of a JSON string: quotes, backslashes and controls escaped, '<' too. */
static void put_body(void *ctx, const char *s, size_t n)
{
	gtr_out *o = ctx;
	if (!n)
		return; /* s may be NULL then */
	for (const char *p = s; p < s + n; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\')
			gtr_out_printf(o, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			gtr_out_printf(o, "\\u%04x", c);
		else if (c == '<')
			gtr_out_str(o, "\\u003c");
		else
			gtr_out_char(o, (char)c);
	}
}

static void put_strn(gtr_out *o, const char *s, size_t n)
{
	gtr_out_char(o, '"');
	put_body(o, s, n);
	gtr_out_char(o, '"');
}

/* A file name, through io/name.h's escape (valid UTF-8, lossless), as every writer does. */
static void put_name(gtr_out *o, const char *s)
{
	gtr_out_char(o, '"');
	gtr_name_pieces(s, strlen(s), put_body, o);
	gtr_out_char(o, '"');
}

static void put_str(gtr_out *o, const char *s)
{
	put_strn(o, s, strlen(s));
}

static void put_gstr(gtr_out *o, gtr_str s)
{
	put_strn(o, s.p, s.n);
}

static double num_of(const gtr_json *v)
{
	return v && v->type == GTR_JSON_NUM ? v->num : 0;
}

static void put_json(gtr_out *o, const gtr_json *v);

static int is_culprit(const gtr_json *w)
{
	const gtr_json *mw = gtr_json_get(w, "made_world_wait");
	return mw && mw->type == GTR_JSON_BOOL && mw->boolean;
}

/* How late a waiter stopped; the one that made the world wait ranks first whatever the ties. */
static double lateness(const gtr_json *w)
{
	return is_culprit(w) ? 1e300 : num_of(gtr_json_get(w, "after_ns"));
}

/*
 * A pause's waiters: with many Ps they are many, so the page keeps the
 * MAX_WAITERS that stopped last, in their order, and the stack of the one
 * that made the world wait only.
 */
static void put_waiters(gtr_out *o, const gtr_json *arr)
{
	size_t n = arr->n, keep = n < MAX_WAITERS ? n : MAX_WAITERS;
	size_t idx[MAX_WAITERS];
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		/* Insertion into the kept set, latest stop first. */
		double after = lateness(&arr->items[i]);
		size_t at = k;
		while (at > 0 && lateness(&arr->items[idx[at - 1]]) < after)
			at--;
		if (at >= keep)
			continue;
		if (k < keep)
			k++;
		memmove(idx + at + 1, idx + at, (k - 1 - at) * sizeof *idx);
		idx[at] = i;
	}
	/* Back in the report's order. */
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
			size_t tmp = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = tmp;
		}
	gtr_out_char(o, '[');
	for (size_t i = 0; i < k; i++) {
		const gtr_json *w = &arr->items[idx[i]];
		int culprit = is_culprit(w);
		gtr_out_str(o, i ? ",{" : "{");
		int first = 1;
		for (size_t m = 0; m < w->n; m++) {
			if (!culprit && strcmp(w->items[m].key, "stack") == 0)
				continue;
			if (!first)
				gtr_out_char(o, ',');
			first = 0;
			put_str(o, w->items[m].key);
			gtr_out_char(o, ':');
			put_json(o, &w->items[m]);
		}
		gtr_out_char(o, '}');
	}
	gtr_out_printf(o, "],\"waited_for_total\":%zu", n);
}

/*
 * GOMAXPROCS as the trace set it: a v1 trace repeats it at every start of
 * the world, so only the changes are kept, at most MAX_PROCS_CHANGES.
 */
#define MAX_PROCS_CHANGES 256

static void put_procs_changes(gtr_out *o, const gtr_json *arr)
{
	gtr_out_char(o, '[');
	double last = -1;
	size_t kept = 0;
	for (size_t i = 0; i < arr->n && kept < MAX_PROCS_CHANGES; i++) {
		double procs = num_of(gtr_json_get(&arr->items[i], "procs"));
		if (procs == last)
			continue;
		last = procs;
		if (kept++)
			gtr_out_char(o, ',');
		put_json(o, &arr->items[i]);
	}
	gtr_out_printf(o, "],\"changes_total\":%zu", arr->n);
}

/* Writes a parsed JSON value back, with the page's escaping. */
static void put_json(gtr_out *o, const gtr_json *v)
{
	switch (v->type) {
	case GTR_JSON_NULL:
		gtr_out_str(o, "null");
		break;
	case GTR_JSON_BOOL:
		gtr_out_str(o, v->boolean ? "true" : "false");
		break;
	case GTR_JSON_NUM:
		if (v->is_uint)
			gtr_out_u64(o, v->uint);
		else if (v->num == (double)(int64_t)v->num)
			gtr_out_i64(o, (int64_t)v->num);
		else
			gtr_out_printf(o, "%.15g", v->num);
		break;
	case GTR_JSON_STR:
		put_strn(o, v->str, v->len);
		break;
	case GTR_JSON_ARR:
		gtr_out_char(o, '[');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				gtr_out_char(o, ',');
			put_json(o, &v->items[i]);
		}
		gtr_out_char(o, ']');
		break;
	case GTR_JSON_OBJ:
		gtr_out_char(o, '{');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				gtr_out_char(o, ',');
			put_str(o, v->items[i].key);
			gtr_out_char(o, ':');
			if (strcmp(v->items[i].key, "waited_for") == 0 && v->items[i].type == GTR_JSON_ARR)
				put_waiters(o, &v->items[i]);
			else if (strcmp(v->items[i].key, "changes") == 0 && v->items[i].type == GTR_JSON_ARR)
				put_procs_changes(o, &v->items[i]);
			else
				put_json(o, &v->items[i]);
		}
		gtr_out_char(o, '}');
		break;
	}
}

/* One report written by a gtr_report_* function, captured in memory. */
typedef struct embedded {
	int kind;
	const gtr_html_trace *tr;
	const gtr_html_opts *opts;
} embedded;

enum { EMBED_GREEDY, EMBED_STATS, EMBED_DIFF };

static int write_embedded(const embedded *e, gtr_out *o, gtr_error *err)
{
	if (e->kind == EMBED_GREEDY) {
		gtr_greedy_report_opts g = {.file = e->tr->file, .json = 1,
					    .stack_depth = e->opts->stack_depth};
		return gtr_report_greedy(e->tr->trace, e->tr->greedy, &g, o, err);
	}
	if (e->kind == EMBED_STATS) {
		gtr_stats_report_opts s = {.file = e->tr->file, .format = GTR_STATS_JSON,
					   .by = GTR_STATS_BY_FUNC, .sort = GTR_SK_EXEC,
					   .top = e->opts->func_rows ? e->opts->func_rows : GTR_HTML_FUNC_ROWS};
		return gtr_report_stats(e->tr->trace, e->tr->stats, &s, o, err);
	}
	gtr_diff_opts d = *e->opts->diff;
	d.json = 1;
	gtr_verdict v;
	return gtr_report_diff(e->opts->diff_a, e->opts->diff_b, &d, o, &v, err);
}

/*
 * Runs a JSON report into an anonymous memory file, then copies it into
 * the page: the reports write to a gtr_out, and the page must escape
 * what they write. The greedy report is trimmed on the way, so that the
 * page stays small with many Ps or a long trace (put_waiters,
 * put_procs_changes); its schema is otherwise gtr.greedy.v1.
 */
static int embed(gtr_out *o, const embedded *e, gtr_error *err)
{
	int fd = memfd_create("gtr-report", MFD_CLOEXEC);
	if (fd < 0)
		return gtr_error_set(err, GTR_E_IO, 0, "scratch memory for the page: %s", strerror(errno));
	gtr_out *m = malloc(sizeof *m);
	if (!m) {
		close(fd);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	gtr_out_init(m, fd);
	int rc = write_embedded(e, m, err);
	int werr = gtr_out_flush(m);
	free(m);
	if (rc == 0 && werr)
		rc = gtr_error_set(err, GTR_E_IO, 0, "scratch memory for the page: %s", strerror(werr));
	off_t size = rc == 0 ? lseek(fd, 0, SEEK_END) : 0;
	char *text = NULL;
	if (rc == 0 && size > 0) {
		text = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (text == MAP_FAILED) {
			text = NULL;
			rc = gtr_error_set(err, GTR_E_IO, 0, "scratch memory for the page: %s",
					   strerror(errno));
		}
	}
	close(fd);
	if (rc < 0)
		return rc;
	gtr_json *tree = NULL;
	gtr_error perr;
	gtr_error_clear(&perr);
	/* The greedy report is trimmed (see put_waiters); the others go in as written. */
	if (e->kind == EMBED_GREEDY && text && gtr_json_parse(text, (size_t)size, &tree, &perr) == 0) {
		put_json(o, tree);
		gtr_json_free(tree);
	} else if (text) {
		put_safe(o, text, (size_t)size);
	} else {
		gtr_out_str(o, "null");
	}
	if (text)
		munmap(text, (size_t)size);
	return 0;
}

static int cmp_pause_dur(const void *a, const void *b)
{
	const gtr_stw *x = *(const gtr_stw *const *)a, *y = *(const gtr_stw *const *)b;
	uint64_t dx = x->end - x->start, dy = y->end - y->start;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_pause_start(const void *a, const void *b)
{
	const gtr_stw *x = *(const gtr_stw *const *)a, *y = *(const gtr_stw *const *)b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Every pause as [start, end, kind]: the longest `max` when there are more, in time order. */
static int put_pauses(gtr_out *o, const gtr_greedy *g, size_t max, gtr_error *err)
{
	size_t n = g->nstw;
	const gtr_stw **p = malloc((n ? n : 1) * sizeof *p);
	if (!p)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	for (size_t i = 0; i < n; i++)
		p[i] = &g->stw[i];
	if (n > max) {
		qsort(p, n, sizeof *p, cmp_pause_dur);
		n = max;
		qsort(p, n, sizeof *p, cmp_pause_start);
	}
	/* Kinds are few ("GC mark termination", ...): a small table, the rest as "other". */
	enum { MAX_KINDS = 32 };
	gtr_str kinds[MAX_KINDS];
	size_t nk = 0;
	gtr_out_str(o, "\"pauses\":{\"total\":");
	gtr_out_u64(o, g->nstw);
	gtr_out_str(o, ",\"list\":[");
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < nk && !(kinds[k].n == p[i]->kind.n && memcmp(kinds[k].p, p[i]->kind.p, kinds[k].n) == 0))
			k++;
		if (k == nk && nk < MAX_KINDS)
			kinds[nk++] = p[i]->kind;
		gtr_out_printf(o, "%s[%llu,%llu,%zu]", i ? "," : "", (unsigned long long)p[i]->start,
			       (unsigned long long)p[i]->end, k);
	}
	gtr_out_str(o, "],\"kinds\":[");
	for (size_t k = 0; k < nk; k++) {
		if (k)
			gtr_out_char(o, ',');
		put_gstr(o, kinds[k].n ? kinds[k] : GTR_STR("stop-the-world"));
	}
	gtr_out_str(o, nk == MAX_KINDS ? ",\"other\"]}" : "]}");
	free(p);
	return 0;
}

/* Busy fraction of buckets [b, b + k) of a row, over the part of them inside the trace. */
static double merged_frac(const gtr_timeline *tl, const gtr_timeline_row *row, size_t b, size_t k)
{
	double busy = 0;
	size_t e = b + k < tl->nbuckets ? b + k : tl->nbuckets;
	for (size_t i = b; i < e; i++)
		busy += row->busy[i];
	double from = (double)b * (double)tl->bucket_ns, to = (double)e * (double)tl->bucket_ns;
	if (to > (double)tl->end_ns + 1)
		to = (double)tl->end_ns + 1;
	double f = to > from ? busy / (to - from) : 0;
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

static int cmp_busy_desc(const void *a, const void *b)
{
	const gtr_timeline_row *x = *(const gtr_timeline_row *const *)a, *y = *(const gtr_timeline_row *const *)b;
	if (x->busy_ns != y->busy_ns)
		return x->busy_ns > y->busy_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_row_id(const void *a, const void *b)
{
	const gtr_timeline_row *x = *(const gtr_timeline_row *const *)a, *y = *(const gtr_timeline_row *const *)b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void put_row(gtr_out *o, const gtr_timeline *tl, const gtr_timeline_row *row, size_t k,
		    size_t nout, int first)
{
	static const char *const kinds[] = {"P", "M", "GC"};
	gtr_out_printf(o, "%s{\"kind\":\"%s\",\"id\":%lld,\"slices\":%llu,\"busy_ns\":%.0f,\"busy\":\"",
		       first ? "" : ",", kinds[row->kind], (long long)row->id,
		       (unsigned long long)row->slices, row->busy_ns);
	for (size_t b = 0; row->busy && b < nout; b++) {
		double f = merged_frac(tl, row, b * k, k);
		/* Any work at all shows: the first level is kept for none. */
		int lv = f <= 0 ? 0 : (int)(f * (double)(sizeof levels - 2) + 0.5);
		if (f > 0 && lv == 0)
			lv = 1;
		gtr_out_char(o, levels[lv]);
	}
	gtr_out_str(o, "\"}");
}

/*
 * The rows drawn: every P (an idle one too, up to GOMAXPROCS), the
 * MAX_M_ROWS busiest Ms, the GC row; buckets merged by a whole factor
 * when rows x buckets would pass MAX_CELLS.
 */
static int put_timeline(gtr_out *o, const gtr_timeline *tl, uint64_t maxprocs, gtr_error *err)
{
	size_t np = 0, nm = 0;
	const gtr_timeline_row **rows = malloc((tl->nrows + GTR_TIMELINE_MAX_ROWS + 1) * sizeof *rows);
	const gtr_timeline_row **ms = malloc((tl->nrows + 1) * sizeof *ms);
	gtr_timeline_row *idle = calloc(GTR_TIMELINE_MAX_ROWS, sizeof *idle);
	if (!rows || !ms || !idle) {
		free(rows);
		free(ms);
		free(idle);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	const gtr_timeline_row *gc = NULL;
	for (size_t i = 0; i < tl->nrows; i++) {
		const gtr_timeline_row *r = &tl->rows[i];
		if (r->kind == GTR_ROW_P)
			rows[np++] = r;
		else if (r->kind == GTR_ROW_M)
			ms[nm++] = r;
		else
			gc = r;
	}
	size_t nidle = 0;
	for (uint64_t id = 0; id < maxprocs && np + nidle < GTR_TIMELINE_MAX_ROWS; id++) {
		int seen = 0;
		for (size_t i = 0; i < np && !seen; i++)
			seen = rows[i]->id == (int64_t)id;
		if (!seen)
			idle[nidle++] = (gtr_timeline_row){.kind = GTR_ROW_P, .id = (int64_t)id};
	}
	for (size_t i = 0; i < nidle; i++)
		rows[np++] = &idle[i];
	qsort(rows, np, sizeof *rows, cmp_row_id);
	size_t hidden = 0;
	if (nm > MAX_M_ROWS) {
		qsort(ms, nm, sizeof *ms, cmp_busy_desc);
		hidden = nm - MAX_M_ROWS;
		nm = MAX_M_ROWS;
	}
	qsort(ms, nm, sizeof *ms, cmp_row_id);
	memcpy(rows + np, ms, nm * sizeof *rows);
	size_t n = np + nm;
	if (gc)
		rows[n++] = gc;

	size_t k = 1;
	while (n && tl->nbuckets / k > 1 && (tl->nbuckets + k - 1) / k * n > MAX_CELLS)
		k++;
	size_t nout = (tl->nbuckets + k - 1) / k;
	gtr_out_printf(o, "\"timeline\":{\"bucket_ns\":%llu,\"buckets\":%zu,\"end_ns\":%llu,\"levels\":%d,"
			  "\"dropped_slices\":%llu,\"hidden_m_rows\":%zu,\"rows\":[",
		       (unsigned long long)(tl->bucket_ns * k), nout, (unsigned long long)tl->end_ns,
		       (int)sizeof levels - 2, (unsigned long long)tl->dropped_slices, hidden);
	for (size_t i = 0; i < n; i++)
		put_row(o, tl, rows[i], k, nout, i == 0);
	gtr_out_str(o, "]}");
	free(rows);
	free(ms);
	free(idle);
	return 0;
}

/* ---- the viewer's data (core/analysis/zoom.h) ---- */

/* Residual busy cells (P rows x buckets) in the page at most: past this, buckets are merged. */
#define MAX_ZOOM_CELLS (1u << 20)

/* Characters a number takes in the page's compact text: base-32 digits, least significant first. */
static size_t vlen(uint64_t v)
{
	size_t n = 1;
	for (; v >= 32; v >>= 5)
		n++;
	return n;
}

static void put_v(gtr_out *o, uint64_t v)
{
	char b[16];
	size_t n = 0;
	for (; v >= 32; v >>= 5)
		b[n++] = levels[32 + (v & 31)];
	b[n++] = levels[v];
	gtr_out_write(o, b, n);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int in_page(const gtr_zoom_slice *s, int cut, uint64_t above)
{
	return !cut || s->end - s->start > above;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Goroutines of the slices in the page, sorted, each once: their number. */
static size_t page_goroutines(const gtr_zoom *z, int cut, uint64_t above, uint64_t *gs, size_t *bytes)
{
	size_t n = 0;
	for (size_t i = 0; i < z->nslices; i++)
		if (in_page(&z->slices[i], cut, above))
			gs[n++] = (uint64_t)z->slices[i].g;
	if (gtr_sort_u64(gs, n) < 0)
		qsort(gs, n, sizeof *gs, cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!u || gs[u - 1] != gs[i])
			gs[u++] = gs[i];
	*bytes = 0;
	for (size_t i = 0; i < u; i++)
		*bytes += vlen(i ? gs[i] - gs[i - 1] : gs[i]) + 3;
	return u;
}

/* Characters of the slices' text with the slices longer than `above` (all when !cut). */
static size_t slices_bytes(const gtr_zoom *z, int cut, uint64_t above, size_t *count)
{
	size_t bytes = 0, n = 0;
	int64_t p = INT64_MIN;
	uint64_t prev = 0;
	for (size_t i = 0; i < z->nslices; i++) {
		const gtr_zoom_slice *s = &z->slices[i];
		if (!in_page(s, cut, above))
			continue;
		if (s->p != p) {
			p = s->p;
			prev = 0;
			bytes += 32;
		}
		bytes += vlen(s->start - prev) + vlen(s->end - s->start) + vlen((uint64_t)s->g) + vlen(s->ended);
		prev = s->start;
		n++;
	}
	*count = n;
	return bytes;
}

static void put_counters(gtr_out *o, const gtr_zoom *z)
{
	gtr_out_printf(o, "\"counters\":{\"bucket_ns\":%llu,\"buckets\":%zu,\"series\":[",
		       (unsigned long long)z->cbucket_ns, z->ncbuckets);
	int first = 1;
	for (int c = 0; c < GTR_ZC_N; c++) {
		const gtr_zoom_series *s = &z->counters[c];
		if (!s->seen)
			continue;
		gtr_out_printf(o, "%s{\"name\":\"%s\",\"points\":", first ? "" : ",",
			       gtr_zoom_counter_name((gtr_zoom_counter)c));
		first = 0;
		if (s->overflow) {
			gtr_out_str(o, "null");
		} else {
			gtr_out_char(o, '"');
			uint64_t pt = 0, pv = 0;
			for (size_t i = 0; i < s->n; i++) {
				put_v(o, s->ts[i] - pt);
				put_v(o, zigzag((int64_t)(s->val[i] - pv)));
				pt = s->ts[i];
				pv = s->val[i];
			}
			gtr_out_char(o, '"');
		}
		size_t from = 0;
		while (from < z->ncbuckets && !s->set[from])
			from++;
		gtr_out_printf(o, ",\"from\":%zu,\"min\":\"", from);
		uint64_t carry = 0, prev = 0;
		for (size_t b = from; b < z->ncbuckets; b++) {
			uint64_t v = s->set[b] ? s->min[b] : carry;
			put_v(o, zigzag((int64_t)(v - prev)));
			prev = v;
			if (s->set[b])
				carry = s->last[b];
		}
		gtr_out_str(o, "\",\"max\":\"");
		carry = 0;
		prev = 0;
		for (size_t b = from; b < z->ncbuckets; b++) {
			uint64_t v = s->set[b] ? s->max[b] : carry;
			put_v(o, zigzag((int64_t)(v - prev)));
			prev = v;
			if (s->set[b])
				carry = s->last[b];
		}
		gtr_out_str(o, "\"}");
	}
	gtr_out_str(o, "]}");
}

/* The busy time of the slices left out of the page, per P, as busy levels. */
static int put_residual(gtr_out *o, const gtr_zoom *z, int cut, uint64_t above, gtr_error *err)
{
	if (!cut || !z->nrows || !z->nbuckets) {
		gtr_out_str(o, "\"residual\":null");
		return 0;
	}
	size_t nb = z->nbuckets, k = 1;
	while (nb / k > 1 && (nb + k - 1) / k * z->nrows > MAX_ZOOM_CELLS)
		k++;
	size_t nout = (nb + k - 1) / k;
	double *left = malloc(nb * sizeof *left);
	if (!left)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	uint64_t w = z->bucket_ns;
	gtr_out_printf(o, "\"residual\":{\"bucket_ns\":%llu,\"buckets\":%zu,\"rows\":[",
		       (unsigned long long)(w * k), nout);
	size_t si = 0;
	for (size_t r = 0; r < z->nrows; r++) {
		const gtr_zoom_row *row = &z->rows[r];
		for (size_t b = 0; b < nb; b++)
			left[b] = (double)row->busy[b];
		while (si < z->nslices && z->slices[si].p < row->p)
			si++;
		for (; si < z->nslices && z->slices[si].p == row->p; si++) {
			const gtr_zoom_slice *s = &z->slices[si];
			if (!in_page(s, cut, above))
				continue;
			uint64_t a = s->start, e = s->end;
			for (uint64_t b = a / w; a < e && b < nb; b++) {
				uint64_t bend = b + 1 > UINT64_MAX / w ? UINT64_MAX : (b + 1) * w;
				uint64_t upto = e < bend ? e : bend;
				left[b] -= (double)(upto - a);
				a = upto;
			}
		}
		gtr_out_printf(o, "%s{\"p\":%lld,\"busy\":\"", r ? "," : "", (long long)row->p);
		for (size_t b = 0; b < nout; b++) {
			double sum = 0;
			for (size_t i = b * k; i < (b + 1) * k && i < nb; i++)
				sum += left[i] > 0 ? left[i] : 0;
			double f = sum / ((double)w * (double)k);
			f = f < 0 ? 0 : f > 1 ? 1 : f;
			int lv = f <= 0 ? 0 : (int)(f * (double)(sizeof levels - 2) + 0.5);
			if (f > 0 && lv == 0)
				lv = 1;
			gtr_out_char(o, levels[lv]);
		}
		gtr_out_str(o, "\"}");
	}
	gtr_out_str(o, "]}");
	free(left);
	return 0;
}

/*
 * The viewer's data of one trace. The slices go in longest first: when
 * their text would pass `budget` bytes, the shortest are left out, a
 * quarter at a time, and "exact_above_ns" says which are all there.
 */
static int put_zoom(gtr_out *o, const gtr_zoom *z, size_t budget, gtr_error *err)
{
	if (!z) {
		gtr_out_str(o, "\"zoom\":null");
		return 0;
	}
	/* Per slice, only gs (8 bytes, and as much for its sort) and, when
	 * the page is over its budget, durs: a million slices are 40 MB
	 * already (gtr_zoom). */
	size_t n = z->nslices;
	uint64_t *gs = malloc((n ? n : 1) * sizeof *gs), *durs = NULL;
	uint32_t *remap = malloc((z->nfuncs ? z->nfuncs : 1) * sizeof *remap);
	uint32_t *gfn = NULL;
	if (!gs || !remap)
		goto nomem;
	int cut = 0;
	uint64_t above = 0;
	size_t kept = n, gbytes = 0, ng;
	for (;;) {
		size_t bytes = slices_bytes(z, cut, above, &kept);
		ng = page_goroutines(z, cut, above, gs, &gbytes);
		if (bytes + gbytes <= budget || kept == 0)
			break;
		if (!durs) {
			if (!(durs = malloc((n ? n : 1) * sizeof *durs)))
				goto nomem;
			for (size_t i = 0; i < n; i++)
				durs[i] = z->slices[i].end - z->slices[i].start;
			if (gtr_sort_u64(durs, n) < 0)
				qsort(durs, n, sizeof *durs, cmp_u64);
		}
		size_t want = kept / 4 * 3;
		cut = 1;
		above = durs[n - want - 1];
	}
	free(durs);
	durs = NULL;
	/* Each goroutine's function: that of its first slice in the zoom's
	 * order (all of a goroutine's slices have its one start function);
	 * then the functions in the page numbered anew, in first use. */
	uint64_t *pg = gs; /* gs[0..ng): the goroutines in the page, sorted */
	if (!(gfn = malloc((ng ? ng : 1) * sizeof *gfn)))
		goto nomem;
	for (size_t i = 0; i < ng; i++)
		gfn[i] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		uint64_t g = (uint64_t)z->slices[i].g;
		size_t lo = 0, hi = ng;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (pg[mid] < g)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < ng && pg[lo] == g && gfn[lo] == UINT32_MAX)
			gfn[lo] = z->slices[i].fn < z->nfuncs ? z->slices[i].fn : 0;
	}
	for (size_t f = 0; f < z->nfuncs; f++)
		remap[f] = UINT32_MAX;
	uint32_t nf = 0;
	for (size_t i = 0; i < ng; i++) {
		uint32_t f = gfn[i] < z->nfuncs ? gfn[i] : 0;
		if (remap[f] == UINT32_MAX)
			remap[f] = nf++;
	}
	uint64_t exact = z->exact_above > above ? z->exact_above : above;
	gtr_out_printf(o, "\"zoom\":{\"slices_total\":%llu,\"slices\":%zu,\"exact_above_ns\":%llu,"
			  "\"no_p\":%llu,\"dropped_rows\":%llu,\"end_ns\":%llu,\"budget_bytes\":%zu,\"funcs\":[",
		       (unsigned long long)z->total, kept, (unsigned long long)(kept < z->total ? exact : 0),
		       (unsigned long long)z->no_p, (unsigned long long)z->dropped_rows,
		       (unsigned long long)z->end_ns, budget);
	/* In the new order: remap is increasing in first use, so walk the goroutines again. */
	uint32_t written = 0;
	for (size_t i = 0; i < ng; i++) {
		uint32_t f = gfn[i] < z->nfuncs ? gfn[i] : 0;
		if (remap[f] != written)
			continue;
		if (written)
			gtr_out_char(o, ',');
		put_gstr(o, z->funcs[f]);
		written++;
	}
	for (size_t i = 0; i < ng; i++)
		gfn[i] = remap[gfn[i] < z->nfuncs ? gfn[i] : 0];
	gtr_out_str(o, "],\"ends\":[");
	for (size_t e = 0; e < z->nends; e++) {
		char buf[256];
		const gtr_zoom_end *ze = &z->ends[e];
		if (e)
			gtr_out_char(o, ',');
		put_gstr(o, gtr_fmt_ending(ze->state, ze->reason, ze->truncated, buf, sizeof buf));
	}
	gtr_out_str(o, "],\"gs\":\"");
	for (size_t i = 0; i < ng; i++) {
		put_v(o, i ? pg[i] - pg[i - 1] : pg[i]);
		put_v(o, gfn[i]);
	}
	gtr_out_str(o, "\",\"rows\":[");
	int64_t p = INT64_MIN;
	uint64_t prev = 0;
	int rows = 0;
	for (size_t i = 0; i < n; i++) {
		const gtr_zoom_slice *s = &z->slices[i];
		if (!in_page(s, cut, above))
			continue;
		if (s->p != p) {
			gtr_out_printf(o, "%s{\"p\":%lld,\"s\":\"", rows++ ? "\"}," : "", (long long)s->p);
			p = s->p;
			prev = 0;
		}
		put_v(o, s->start - prev);
		put_v(o, s->end - s->start);
		put_v(o, (uint64_t)s->g);
		put_v(o, s->ended);
		prev = s->start;
	}
	gtr_out_str(o, rows ? "\"}]," : "],");
	free(gfn);
	free(gs);
	free(remap);
	int rc = put_residual(o, z, cut, above, err);
	if (rc < 0)
		return rc;
	gtr_out_char(o, ',');
	put_counters(o, z);
	gtr_out_char(o, '}');
	return 0;
nomem:
	free(gfn);
	free(durs);
	free(gs);
	free(remap);
	return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
}

/* ---- tasks and regions (core/analysis/tasks.h) and the MMU (core/analysis/mmu.h) ---- */

/* Bytes of a task or region type's name in the page at most: a name is the program's, of any length. */
#define MAX_TYPE_NAME 256

static void put_type_name(gtr_out *o, gtr_str name)
{
	if (name.n > MAX_TYPE_NAME) {
		/* Cut at a character's start, so that the page stays UTF-8. */
		size_t n = MAX_TYPE_NAME;
		while (n > 0 && ((unsigned char)name.p[n] & 0xc0) == 0x80)
			n--;
		name.n = n;
	}
	put_gstr(o, name);
}

static int cmp_type_count(const void *a, const void *b)
{
	const gtr_annot_type *x = *(const gtr_annot_type *const *)a, *y = *(const gtr_annot_type *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_type_ptr(const void *a, const void *b)
{
	const gtr_annot_type *x = *(const gtr_annot_type *const *)a, *y = *(const gtr_annot_type *const *)b;
	return x < y ? -1 : x > y;
}

static int cmp_gstr(gtr_str a, gtr_str b)
{
	size_t n = a.n < b.n ? a.n : b.n;
	int c = n ? memcmp(a.p, b.p, n) : 0;
	return c ? c : a.n < b.n ? -1 : a.n > b.n;
}

/*
 * The types of one kind: all, or the GTR_HTML_ANNOT_TYPES most frequent,
 * in the analysis's (name) order. *kept gets them; returns their number.
 */
static size_t put_types(gtr_out *o, const char *key, const gtr_annot_type *v, size_t n,
			const gtr_annot_type **kept)
{
	for (size_t i = 0; i < n; i++)
		kept[i] = &v[i];
	size_t k = n;
	if (n > GTR_HTML_ANNOT_TYPES) {
		qsort(kept, n, sizeof *kept, cmp_type_count);
		k = GTR_HTML_ANNOT_TYPES;
		qsort(kept, k, sizeof *kept, cmp_type_ptr);
	}
	gtr_out_printf(o, "\"%s\":[", key);
	for (size_t i = 0; i < k; i++) {
		const gtr_annot_type *t = kept[i];
		gtr_out_str(o, i ? ",[" : "[");
		put_type_name(o, t->name);
		gtr_out_printf(o, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu]", (unsigned long long)t->count,
			       (unsigned long long)t->complete, (unsigned long long)t->total_ns,
			       (unsigned long long)t->p50_ns, (unsigned long long)t->p90_ns,
			       (unsigned long long)t->p99_ns, (unsigned long long)t->max_ns);
	}
	gtr_out_printf(o, "],\"%s_total\":%zu", key, n);
	return k;
}

/* An instance's type: its index among the kept types (sorted by name), or its name when left out. */
static void put_type_ref(gtr_out *o, gtr_str name, const gtr_annot_type *const *kept, size_t k)
{
	size_t lo = 0, hi = k;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cmp_gstr(kept[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < k && cmp_gstr(kept[lo]->name, name) == 0)
		gtr_out_printf(o, "%zu", lo);
	else
		put_type_name(o, name);
}

/* A stack as ["func file:line", ...], at most `depth` frames (0: all that fit). */
static void put_stack_lines(gtr_out *o, const gtr_trace *t, uint32_t table, uint64_t stack, size_t depth)
{
	enum { MAX_STACK = 64 };
	gtr_frame f[MAX_STACK];
	size_t n = 0;
	gtr_error e;
	gtr_error_clear(&e);
	if (stack && gtr_trace_stack(t, table, stack, f, MAX_STACK, &n, &e) < 0)
		n = 0;
	if (depth && n > depth)
		n = depth;
	gtr_out_char(o, '[');
	for (size_t i = 0; i < n; i++) {
		char line[48];
		if (i)
			gtr_out_char(o, ',');
		if (!f[i].func.n) {
			snprintf(line, sizeof line, "0x%llx", (unsigned long long)f[i].pc);
			put_str(o, line);
			continue;
		}
		/* One string: the function, then where. */
		size_t need = f[i].func.n + 1 + f[i].file.n + 24;
		char *buf = malloc(need);
		if (!buf) {
			put_gstr(o, f[i].func);
			continue;
		}
		int len = snprintf(buf, need, "%.*s %.*s:%llu", (int)f[i].func.n, f[i].func.p, (int)f[i].file.n,
				   f[i].file.p, (unsigned long long)f[i].line);
		put_strn(o, buf, len > 0 ? (size_t)len : 0);
		free(buf);
	}
	gtr_out_char(o, ']');
}

static int put_annot(gtr_out *o, const gtr_trace *t, const gtr_annot *a, size_t depth, gtr_error *err)
{
	if (!a) {
		gtr_out_str(o, "\"annot\":null");
		return 0;
	}
	size_t most = a->ntask_types > a->nregion_types ? a->ntask_types : a->nregion_types;
	const gtr_annot_type **tk = malloc((most ? most : 1) * sizeof *tk);
	const gtr_annot_type **rk = malloc((most ? most : 1) * sizeof *rk);
	if (!tk || !rk) {
		free(tk);
		free(rk);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	gtr_out_printf(o, "\"annot\":{\"top\":%d,\"tasks\":%llu,\"regions\":%llu,\"logs\":%llu,\"logs_without_task\":%llu,",
		       GTR_HTML_ANNOT_TOP, (unsigned long long)a->ntasks, (unsigned long long)a->nregions,
		       (unsigned long long)a->nlogs, (unsigned long long)a->nlogs_notask);
	size_t nt = put_types(o, "task_types", a->task_types, a->ntask_types, tk);
	gtr_out_char(o, ',');
	size_t nr = put_types(o, "region_types", a->region_types, a->nregion_types, rk);
	size_t ntop = a->ntop_tasks < GTR_HTML_ANNOT_TOP ? a->ntop_tasks : GTR_HTML_ANNOT_TOP;
	/* [id, parent, type, start, end, g, end g, logs, regions, subtasks] */
	gtr_out_str(o, ",\"top_tasks\":[");
	for (size_t i = 0; i < ntop; i++) {
		const gtr_task *k = &a->top_tasks[i];
		gtr_out_printf(o, "%s[%llu,%llu,", i ? "," : "", (unsigned long long)k->id,
			       (unsigned long long)k->parent);
		put_type_ref(o, k->type, tk, nt);
		gtr_out_printf(o, ",%lld,%lld,%lld,%lld,%llu,%llu,%llu]", (long long)k->start, (long long)k->end,
			       (long long)k->g, (long long)k->end_g, (unsigned long long)k->nlogs,
			       (unsigned long long)k->nregions, (unsigned long long)k->nchildren);
	}
	gtr_out_str(o, "],\"task_stacks\":[");
	for (size_t i = 0; i < ntop && i < GTR_HTML_ANNOT_STACKS; i++) {
		if (i)
			gtr_out_char(o, ',');
		put_stack_lines(o, t, a->top_tasks[i].table, a->top_tasks[i].stack, depth);
	}
	/* [type, task, g, start, end, depth, how] */
	size_t nrtop = a->ntop_regions < GTR_HTML_ANNOT_TOP ? a->ntop_regions : GTR_HTML_ANNOT_TOP;
	gtr_out_str(o, "],\"top_regions\":[");
	for (size_t i = 0; i < nrtop; i++) {
		const gtr_region *r = &a->top_regions[i];
		gtr_out_str(o, i ? ",[" : "[");
		put_type_ref(o, r->type, rk, nr);
		gtr_out_printf(o, ",%llu,%lld,%lld,%lld,%u,%u]", (unsigned long long)r->task, (long long)r->g,
			       (long long)r->start, (long long)r->end, (unsigned)r->depth, (unsigned)r->how);
	}
	gtr_out_str(o, "],\"region_stacks\":[");
	for (size_t i = 0; i < nrtop && i < GTR_HTML_ANNOT_STACKS; i++) {
		if (i)
			gtr_out_char(o, ',');
		put_stack_lines(o, t, a->top_regions[i].table, a->top_regions[i].stack, depth);
	}
	gtr_out_str(o, "]}");
	free(tk);
	free(rk);
	return 0;
}

/* The MMU curve: [[window, mmu, worst window's start], ...], and what it counts. */
static void put_mmu(gtr_out *o, const gtr_mmu *m)
{
	if (!m) {
		gtr_out_str(o, "\"mmu\":null");
		return;
	}
	static const struct { unsigned flag; const char *name; } names[] = {
		{GTR_MMU_STW, "stw"}, {GTR_MMU_BACKGROUND, "background"}, {GTR_MMU_ASSIST, "assist"},
		{GTR_MMU_SWEEP, "sweep"},
	};
	gtr_out_str(o, "\"mmu\":{\"flags\":[");
	int first = 1;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (m->flags & names[i].flag) {
			gtr_out_printf(o, "%s\"%s\"", first ? "" : ",", names[i].name);
			first = 0;
		}
	gtr_out_printf(o, "],\"view\":\"%s\",\"start_ns\":%llu,\"end_ns\":%llu,\"changes\":%zu,\"points\":[",
		       m->flags & GTR_MMU_PER_P ? "per-p" : "system", (unsigned long long)m->start_ns,
		       (unsigned long long)m->end_ns, m->changes);
	for (size_t i = 0; i < m->npoints && i < GTR_MMU_MAX_WINDOWS; i++)
		gtr_out_printf(o, "%s[%llu,%.9f,%llu]", i ? "," : "", (unsigned long long)m->points[i].window_ns,
			       m->points[i].mmu, (unsigned long long)m->points[i].worst_ns);
	gtr_out_str(o, "]}");
}

/* floor(4 * log2(v)), -1 for 0: the coarse bin of a value. */
static long quarter_octave(uint64_t v)
{
	if (!v)
		return -1;
	int k = 63 - __builtin_clzll(v);
	double frac = (double)v / (double)(1ull << k); /* in [1, 2) */
	int sub = frac >= 1.6817928305074290 ? 3 : frac >= 1.4142135623730951 ? 2
		: frac >= 1.1892071150027210 ? 1 : 0;
	return (long)k * HIST_PER_OCTAVE + sub;
}

/* The slice histogram, coarsened to HIST_PER_OCTAVE bins per power of two: [[bin, count], ...]. */
static void put_hist(gtr_out *o, const gtr_hist *h)
{
	gtr_out_printf(o, "\"hist\":{\"per_octave\":%d,\"count\":%llu,\"min_ns\":%llu,\"max_ns\":%llu,\"bins\":[",
		       HIST_PER_OCTAVE, (unsigned long long)h->count, (unsigned long long)h->min,
		       (unsigned long long)h->max);
	long cur = LONG_MIN;
	uint64_t count = 0;
	int first = 1;
	for (uint32_t i = 0; i <= h->nbins; i++) {
		long c = cur;
		if (i < h->nbins) {
			c = quarter_octave(gtr_hist_lower(h->bins[i].idx));
		}
		if (i == h->nbins || c != cur) {
			if (count) {
				gtr_out_printf(o, "%s[%ld,%llu]", first ? "" : ",", cur, (unsigned long long)count);
				first = 0;
			}
			if (i == h->nbins)
				break;
			cur = c;
			count = 0;
		}
		count += h->bins[i].count;
	}
	gtr_out_str(o, "]}");
}

static int put_trace(gtr_out *o, const gtr_html_trace *tr, const gtr_html_opts *opts, gtr_error *err)
{
	const gtr_trace_info *info = gtr_trace_get_info(tr->trace);
	gtr_out_str(o, "{\"file\":");
	put_name(o, tr->file);
	gtr_out_printf(o, ",\"version\":\"1.%d\",\"format\":\"%s\",\"bytes\":%llu,\"batches\":%llu,"
			  "\"generations\":%llu,",
		       info->version, info->family == GTR_FAMILY_V1 ? "v1" : "v2",
		       (unsigned long long)info->bytes, (unsigned long long)info->batches,
		       (unsigned long long)info->generations);
	gtr_out_str(o, "\"warning\":");
	if (tr->warning)
		put_str(o, tr->warning);
	else
		gtr_out_str(o, "null");
	gtr_out_char(o, ',');
	embedded e = {.tr = tr, .opts = opts};
	gtr_out_str(o, "\"greedy\":");
	e.kind = EMBED_GREEDY;
	int rc = embed(o, &e, err);
	if (rc < 0)
		return rc;
	gtr_out_str(o, ",\"stats\":");
	e.kind = EMBED_STATS;
	if ((rc = embed(o, &e, err)) < 0)
		return rc;
	gtr_out_char(o, ',');
	if ((rc = put_timeline(o, tr->timeline, tr->greedy->maxprocs, err)) < 0)
		return rc;
	gtr_out_char(o, ',');
	if ((rc = put_pauses(o, tr->greedy, opts->max_pauses ? opts->max_pauses : GTR_HTML_MAX_PAUSES,
			     err)) < 0)
		return rc;
	gtr_out_char(o, ',');
	if ((rc = put_zoom(o, tr->zoom, opts->zoom_bytes ? opts->zoom_bytes : GTR_HTML_ZOOM_BYTES, err)) < 0)
		return rc;
	gtr_out_char(o, ',');
	if ((rc = put_annot(o, tr->trace, tr->annot, opts->stack_depth, err)) < 0)
		return rc;
	gtr_out_char(o, ',');
	put_mmu(o, tr->mmu);
	gtr_out_char(o, ',');
	put_hist(o, &tr->stats->slices);
	gtr_out_char(o, '}');
	return 0;
}

int gtr_report_html(const gtr_html_trace *traces, size_t n, const gtr_html_opts *opts, gtr_out *o,
		    gtr_error *err)
{
	size_t tlen;
	const char *tpl = gtr_html_template(&tlen);
	const char *mark = memmem(tpl, tlen, DATA_MARK, sizeof DATA_MARK - 1);
	if (!mark)
		return gtr_error_set(err, GTR_E_CORRUPT, 0, "the page template has no data mark");
	gtr_out_write(o, tpl, (size_t)(mark - tpl));
	gtr_out_str(o, "{\"schema\":\"gtr.report.v1\",\"generator\":");
	put_str(o, opts->generator ? opts->generator : "gtr");
	gtr_out_str(o, ",\"traces\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			gtr_out_char(o, ',');
		int rc = put_trace(o, &traces[i], opts, err);
		if (rc < 0)
			return rc;
	}
	gtr_out_str(o, "],\"diff\":");
	if (opts->diff_a && opts->diff_b && opts->diff) {
		embedded e = {.kind = EMBED_DIFF, .opts = opts};
		int rc = embed(o, &e, err);
		if (rc < 0)
			return rc;
	} else {
		gtr_out_str(o, "null");
	}
	gtr_out_char(o, '}');
	const char *rest = mark + sizeof DATA_MARK - 1;
	gtr_out_write(o, rest, tlen - (size_t)(rest - tpl));
	return 0;
}
