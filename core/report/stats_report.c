/* core/report/stats_report.c: `gtr stats` as text tables, JSON and CSV. */
#include "core/analysis/stats.h"
#include "core/report/report.h"
#include "io/name.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const key_names[GTR_SK_N] = {
	"exec", "sched", "block", "chan", "select", "sync", "net", "sleep", "gc", "other",
	"syscall", "assist", "slices", "p50", "p99", "max", "goroutines", "id", "name",
};

int gtr_stats_key_parse(const char *name)
{
	for (int i = 0; i < GTR_SK_N; i++)
		if (strcmp(name, key_names[i]) == 0)
			return i;
	/* A few spellings people reach for. */
	if (strcmp(name, "sched_wait") == 0 || strcmp(name, "wait") == 0)
		return GTR_SK_SCHED;
	if (strcmp(name, "gc_assist") == 0)
		return GTR_SK_ASSIST;
	if (strcmp(name, "g") == 0 || strcmp(name, "goid") == 0)
		return GTR_SK_ID;
	if (strcmp(name, "function") == 0 || strcmp(name, "func") == 0)
		return GTR_SK_NAME;
	if (strcmp(name, "max_slice") == 0)
		return GTR_SK_MAX;
	return -1;
}

const char *gtr_stats_key_name(gtr_stats_key k)
{
	return (unsigned)k < GTR_SK_N ? key_names[k] : "?";
}

/* One row of a table: a goroutine or a function. */
typedef struct row {
	gtr_str func;
	int64_t id;         /* -1 for a function */
	size_t goroutines;
	const gtr_times *t;
	const gtr_hist *h;
	uint64_t key;       /* the sort value */
	gtr_stats_key k;    /* of this key */
} row;

static int cmp_row(const void *pa, const void *pb)
{
	const row *a = pa, *b = pb;
	return gtr_stats_row_order(a->k, a->key, a->func, a->id, b->key, b->func, b->id);
}

/* The rows of one table, sorted and cut to opts->top. */
static row *make_rows(const gtr_stats *s, int funcs, const gtr_stats_report_opts *opts, size_t *n)
{
	size_t total = funcs ? s->nfs : s->ngs;
	row *rows = malloc((total ? total : 1) * sizeof *rows);
	if (!rows)
		return NULL;
	gtr_stats_key k = gtr_stats_table_key(opts->sort, funcs);
	for (size_t i = 0; i < total; i++) {
		row *r = &rows[i];
		if (funcs) {
			const gtr_fstats *f = &s->fs[i];
			*r = (row){.func = f->func, .id = -1, .goroutines = f->goroutines, .t = &f->t,
				   .h = &f->slices};
		} else {
			const gtr_gstats *g = &s->gs[i];
			*r = (row){.func = g->func, .id = g->id, .goroutines = 1, .t = &g->t,
				   .h = &g->slices};
		}
		r->k = k;
		r->key = gtr_stats_key_value(k, r->t, r->h, r->goroutines, r->id);
	}
	qsort(rows, total, sizeof *rows, cmp_row);
	*n = opts->top && opts->top < total ? opts->top : total;
	return rows;
}

/* A duration for a table cell: "950ns", "120.5µs", "7.486ms", "1.234s", "-" for none. */
static void cell_dur(char *buf, size_t cap, uint64_t ns)
{
	if (ns == 0)
		snprintf(buf, cap, "-");
	else
		gtr_fmt_dur(buf, cap, ns, "", "\xc2\xb5s");
}

/* Columns as printed on a terminal: UTF-8 continuation bytes take none. */
static size_t display_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

enum { NCOLS = 18, CELL = 32 };

static const char *const text_heads[NCOLS] = {
	"G", "GS", "EXEC", "SCHED", "CHAN", "SELECT", "SYNC", "NET", "SLEEP", "GC", "OTHER",
	"SYSCALL", "ASSIST", "SLICES", "P50", "P99", "MAX", "FUNCTION",
};

/* The cells of a row; the first is the goroutine id (goroutine tables) or the count. */
static void row_cells(const row *r, int funcs, char cells[NCOLS][CELL])
{
	const gtr_times *t = r->t;
	if (funcs) {
		cells[0][0] = 0;
		snprintf(cells[1], CELL, "%zu", r->goroutines);
	} else {
		snprintf(cells[0], CELL, "G%lld", (long long)r->id);
		cells[1][0] = 0;
	}
	cell_dur(cells[2], CELL, t->exec);
	cell_dur(cells[3], CELL, t->sched_wait);
	for (int b = 0; b < GTR_BLOCK_N; b++)
		cell_dur(cells[4 + b], CELL, t->block[b]);
	cell_dur(cells[11], CELL, t->syscall);
	cell_dur(cells[12], CELL, t->gc_assist);
	snprintf(cells[13], CELL, "%llu", (unsigned long long)r->h->count);
	cell_dur(cells[14], CELL, gtr_hist_percentile(r->h, 50));
	cell_dur(cells[15], CELL, gtr_hist_percentile(r->h, 99));
	cell_dur(cells[16], CELL, r->h->max);
	cells[17][0] = 0; /* the function, written as is */
}

static void pad(gtr_out *o, size_t n)
{
	while (n--)
		gtr_out_char(o, ' ');
}

static void text_table(const row *rows, size_t n, int funcs, gtr_out *o)
{
	size_t width[NCOLS];
	char cells[NCOLS][CELL];
	for (int c = 0; c < NCOLS; c++)
		width[c] = strlen(text_heads[c]);
	for (size_t i = 0; i < n; i++) {
		row_cells(&rows[i], funcs, cells);
		for (int c = 0; c < NCOLS - 1; c++) {
			size_t w = display_width(cells[c]);
			if (w > width[c])
				width[c] = w;
		}
	}
	/* Goroutine tables have no GS column, function tables no G column. */
	int skip = funcs ? 0 : 1;
	for (int c = 0; c < NCOLS; c++) {
		if (c == skip)
			continue;
		if (c == NCOLS - 1) {
			gtr_out_str(o, text_heads[c]);
			break;
		}
		/* The id column is left-aligned, the numbers right-aligned. */
		if (c == 0) {
			gtr_out_str(o, text_heads[c]);
			pad(o, width[c] - strlen(text_heads[c]) + 2);
		} else {
			pad(o, width[c] - strlen(text_heads[c]));
			gtr_out_str(o, text_heads[c]);
			gtr_out_str(o, "  ");
		}
	}
	gtr_out_char(o, '\n');
	for (size_t i = 0; i < n; i++) {
		row_cells(&rows[i], funcs, cells);
		for (int c = 0; c < NCOLS - 1; c++) {
			if (c == skip)
				continue;
			size_t w = display_width(cells[c]);
			if (c == 0) {
				gtr_out_str(o, cells[c]);
				pad(o, width[c] - w + 2);
			} else {
				pad(o, width[c] - w);
				gtr_out_str(o, cells[c]);
				gtr_out_str(o, "  ");
			}
		}
		gtr_out_write(o, rows[i].func.p, rows[i].func.n);
		gtr_out_char(o, '\n');
	}
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void text_times(const gtr_times *t, gtr_out *o)
{
	gtr_out_str(o, "exec ");
	gtr_out_dur(o, t->exec);
	gtr_out_str(o, ", sched wait ");
	gtr_out_dur(o, t->sched_wait);
	gtr_out_str(o, ", syscall ");
	gtr_out_dur(o, t->syscall);
	gtr_out_str(o, ", GC assist ");
	gtr_out_dur(o, t->gc_assist);
	gtr_out_str(o, "\n  blocked     ");
	gtr_out_dur(o, gtr_times_block(t));
	for (int b = 0; b < GTR_BLOCK_N; b++) {
		gtr_out_str(o, b ? ", " : ": ");
		gtr_out_printf(o, "%s ", gtr_block_name((gtr_block)b));
		gtr_out_dur(o, t->block[b]);
	}
	gtr_out_char(o, '\n');
}

static int text_report(const gtr_trace *t, const gtr_stats *s, const gtr_stats_report_opts *opts,
		       gtr_out *o)
{
	const gtr_trace_info *info = gtr_trace_get_info(t);
	gtr_out_str(o, "gtr stats: ");
	gtr_out_name(o, opts->file, strlen(opts->file));
	gtr_out_char(o, '\n');
	gtr_out_printf(o, "  trace       go 1.%d (%s format), ", info->version,
		       info->family == GTR_FAMILY_V1 ? "v1" : "v2");
	gtr_out_dur(o, s->last_ts - s->first_ts);
	gtr_out_printf(o, ", %llu events", (unsigned long long)s->events);
	if (s->runtime_version[0])
		gtr_out_printf(o, ", runtime %s", s->runtime_version);
	gtr_out_printf(o, "\n  goroutines  %zu %s, %zu start %s\n", s->goroutines,
		       plural(s->goroutines, "goroutine", "goroutines"), s->nfs,
		       plural(s->nfs, "function", "functions"));
	gtr_out_str(o, "  time        ");
	text_times(&s->total, o);
	gtr_out_printf(o, "  slices      %llu, p50 ", (unsigned long long)s->slices.count);
	gtr_out_dur(o, gtr_hist_percentile(&s->slices, 50));
	gtr_out_str(o, ", p99 ");
	gtr_out_dur(o, gtr_hist_percentile(&s->slices, 99));
	gtr_out_str(o, ", max ");
	gtr_out_dur(o, s->slices.max);
	gtr_out_str(o, " (p50 and p99 within 0.8%)\n");

	for (int pass = 0; pass < 2; pass++) {
		int funcs = pass == 0;
		if ((funcs && opts->by == GTR_STATS_BY_G) || (!funcs && opts->by == GTR_STATS_BY_FUNC))
			continue;
		size_t n, total = funcs ? s->nfs : s->goroutines;
		row *rows = make_rows(s, funcs, opts, &n);
		if (!rows)
			return GTR_E_NOMEM;
		gtr_out_printf(o, "\n%s by %s", funcs ? "start functions" : "goroutines",
			       gtr_stats_key_name(opts->sort));
		if (n < total)
			gtr_out_printf(o, ", top %zu of %zu\n", n, total);
		else
			gtr_out_printf(o, ", all %zu\n", total);
		text_table(rows, n, funcs, o);
		free(rows);
	}
	return 0;
}

static void json_times(const gtr_times *t, const gtr_hist *h, gtr_out *o)
{
	gtr_out_printf(o, "\"exec_ns\":%llu,\"sched_wait_ns\":%llu,\"block_ns\":{",
		       (unsigned long long)t->exec, (unsigned long long)t->sched_wait);
	for (int b = 0; b < GTR_BLOCK_N; b++)
		gtr_out_printf(o, "%s\"%s\":%llu", b ? "," : "", b == GTR_BLOCK_GC ? "gc" : gtr_block_name((gtr_block)b),
			       (unsigned long long)t->block[b]);
	gtr_out_printf(o, "},\"block_total_ns\":%llu,\"syscall_ns\":%llu,\"gc_assist_ns\":%llu,"
			  "\"slices\":%llu,\"slice_p50_ns\":%llu,\"slice_p99_ns\":%llu,\"slice_max_ns\":%llu",
		       (unsigned long long)gtr_times_block(t), (unsigned long long)t->syscall,
		       (unsigned long long)t->gc_assist, (unsigned long long)h->count,
		       (unsigned long long)gtr_hist_percentile(h, 50),
		       (unsigned long long)gtr_hist_percentile(h, 99), (unsigned long long)h->max);
}

static int json_report(const gtr_trace *t, const gtr_stats *s, const gtr_stats_report_opts *opts,
		       gtr_out *o)
{
	const gtr_trace_info *info = gtr_trace_get_info(t);
	gtr_out_str(o, "{\"schema\":\"gtr.stats.v1\",\"trace\":{\"file\":");
	gtr_out_json_str(o, (gtr_str){opts->file, strlen(opts->file)});
	gtr_out_printf(o, ",\"version\":\"1.%d\",\"format\":\"%s\",\"span_ns\":%llu,\"events\":%llu,"
			  "\"runtime\":",
		       info->version, info->family == GTR_FAMILY_V1 ? "v1" : "v2",
		       (unsigned long long)(s->last_ts - s->first_ts), (unsigned long long)s->events);
	if (s->runtime_version[0])
		gtr_out_printf(o, "\"%s\"", s->runtime_version);
	else
		gtr_out_str(o, "null");
	gtr_out_str(o, "},");
	/* As greedy's: only on a partial read, so that whole reads keep their output. */
	gtr_partial part;
	gtr_partial_get(&part, t, opts->input);
	if (gtr_out_loss_json(o, &part))
		gtr_out_char(o, ',');
	gtr_out_printf(o, "\"slice_percentiles\":{\"method\":\"log histogram\",\"bins_per_octave\":%d,"
			  "\"max_rel_error\":%.7f},\"sort\":\"%s\",\"goroutines_total\":%zu,"
			  "\"functions_total\":%zu,\"total\":{",
		       GTR_HIST_SUB, 0.5 / GTR_HIST_SUB, gtr_stats_key_name(opts->sort), s->goroutines, s->nfs);
	json_times(&s->total, &s->slices, o);
	gtr_out_char(o, '}');
	for (int pass = 0; pass < 2; pass++) {
		int funcs = pass == 0;
		if ((funcs && opts->by == GTR_STATS_BY_G) || (!funcs && opts->by == GTR_STATS_BY_FUNC))
			continue;
		size_t n;
		row *rows = make_rows(s, funcs, opts, &n);
		if (!rows)
			return GTR_E_NOMEM;
		gtr_out_str(o, funcs ? ",\"functions\":[" : ",\"goroutines\":[");
		for (size_t i = 0; i < n; i++) {
			const row *r = &rows[i];
			gtr_out_str(o, i ? ",{" : "{");
			if (funcs) {
				gtr_out_str(o, "\"function\":");
				gtr_out_json_str(o, r->func);
				gtr_out_printf(o, ",\"goroutines\":%zu,", r->goroutines);
			} else {
				gtr_out_printf(o, "\"g\":%lld,\"function\":", (long long)r->id);
				gtr_out_json_str(o, r->func);
				gtr_out_char(o, ',');
			}
			json_times(r->t, r->h, o);
			gtr_out_char(o, '}');
		}
		gtr_out_char(o, ']');
		free(rows);
	}
	gtr_out_str(o, "}\n");
	return 0;
}

/*
 * JSON Lines: one self-contained object per row (the total, then the
 * function and goroutine rows), each naming its trace, for tables in a
 * warehouse. Schema gtr.stats.row.v1.
 */
static int jsonl_report(const gtr_trace *t, const gtr_stats *s, const gtr_stats_report_opts *opts,
			gtr_out *o)
{
	const gtr_trace_info *info = gtr_trace_get_info(t);
	gtr_partial part;
	int partial = gtr_partial_get(&part, t, opts->input);
	for (int pass = -1; pass < 2; pass++) {
		int funcs = pass == 0;
		if ((pass == 0 && opts->by == GTR_STATS_BY_G) || (pass == 1 && opts->by == GTR_STATS_BY_FUNC))
			continue;
		size_t n = 1;
		row total = {.id = -1, .goroutines = s->goroutines, .t = &s->total, .h = &s->slices};
		row *rows = pass < 0 ? &total : make_rows(s, funcs, opts, &n);
		if (!rows)
			return GTR_E_NOMEM;
		for (size_t i = 0; i < n; i++) {
			const row *r = &rows[i];
			gtr_out_str(o, "{\"schema\":\"gtr.stats.row.v1\",\"file\":");
			gtr_out_json_str(o, (gtr_str){opts->file, strlen(opts->file)});
			gtr_out_printf(o, ",\"version\":\"1.%d\",\"format\":\"%s\",\"runtime\":", info->version,
				       info->family == GTR_FAMILY_V1 ? "v1" : "v2");
			if (s->runtime_version[0])
				gtr_out_printf(o, "\"%s\"", s->runtime_version);
			else
				gtr_out_str(o, "null");
			gtr_out_printf(o, ",\"partial\":%s", partial ? "true" : "false");
			gtr_out_printf(o, ",\"scope\":\"%s\",\"g\":",
				       pass < 0 ? "total" : funcs ? "function" : "goroutine");
			if (pass == 1)
				gtr_out_printf(o, "%lld", (long long)r->id);
			else
				gtr_out_str(o, "null");
			gtr_out_str(o, ",\"function\":");
			if (pass < 0)
				gtr_out_str(o, "null");
			else
				gtr_out_json_str(o, r->func);
			if (pass == 1)
				gtr_out_str(o, ",\"goroutines\":null,");
			else
				gtr_out_printf(o, ",\"goroutines\":%zu,", r->goroutines);
			json_times(r->t, r->h, o);
			gtr_out_str(o, "}\n");
		}
		if (pass >= 0)
			free(rows);
	}
	return 0;
}

/* A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
static void csv_str(gtr_out *o, gtr_str s)
{
	int quote = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.p[i] == ',' || s.p[i] == '"' || s.p[i] == '\n' || s.p[i] == '\r')
			quote = 1;
	if (!quote) {
		gtr_out_write(o, s.p, s.n);
		return;
	}
	gtr_out_char(o, '"');
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] == '"')
			gtr_out_char(o, '"');
		gtr_out_char(o, s.p[i]);
	}
	gtr_out_char(o, '"');
}

static void csv_times(const gtr_times *t, const gtr_hist *h, int partial, gtr_out *o)
{
	gtr_out_printf(o, "%llu,%llu", (unsigned long long)t->exec, (unsigned long long)t->sched_wait);
	for (int b = 0; b < GTR_BLOCK_N; b++)
		gtr_out_printf(o, ",%llu", (unsigned long long)t->block[b]);
	gtr_out_printf(o, ",%llu,%llu,%llu,%llu,%llu,%llu,%s\n", (unsigned long long)t->syscall,
		       (unsigned long long)t->gc_assist, (unsigned long long)h->count,
		       (unsigned long long)gtr_hist_percentile(h, 50),
		       (unsigned long long)gtr_hist_percentile(h, 99), (unsigned long long)h->max,
		       partial ? "true" : "false");
}

/*
 * The last column, partial, is true on every row when the read was
 * partial (a cut or damaged trace, a file that shrank): a column rather
 * than a comment line, so that every CSV reader takes the file as it is.
 */
static int csv_report(const gtr_trace *t, const gtr_stats *s, const gtr_stats_report_opts *opts,
		      gtr_out *o)
{
	gtr_partial part;
	int partial = gtr_partial_get(&part, t, opts->input);
	gtr_out_str(o, "scope,g,function,goroutines,exec_ns,sched_wait_ns,block_chan_ns,"
		       "block_select_ns,block_sync_ns,block_net_ns,block_sleep_ns,block_gc_ns,"
		       "block_other_ns,syscall_ns,gc_assist_ns,slices,slice_p50_ns,slice_p99_ns,"
		       "slice_max_ns,partial\n");
	gtr_out_printf(o, "total,,,%zu,", s->goroutines);
	csv_times(&s->total, &s->slices, partial, o);
	for (int pass = 0; pass < 2; pass++) {
		int funcs = pass == 0;
		if ((funcs && opts->by == GTR_STATS_BY_G) || (!funcs && opts->by == GTR_STATS_BY_FUNC))
			continue;
		size_t n;
		row *rows = make_rows(s, funcs, opts, &n);
		if (!rows)
			return GTR_E_NOMEM;
		for (size_t i = 0; i < n; i++) {
			const row *r = &rows[i];
			if (funcs)
				gtr_out_str(o, "function,,");
			else
				gtr_out_printf(o, "goroutine,%lld,", (long long)r->id);
			csv_str(o, r->func);
			gtr_out_printf(o, ",%zu,", r->goroutines);
			csv_times(r->t, r->h, partial, o);
		}
		free(rows);
	}
	return 0;
}

int gtr_report_stats(const gtr_trace *t, const gtr_stats *s, const gtr_stats_report_opts *opts,
		     gtr_out *o, gtr_error *err)
{
	int rc;
	if (opts->format == GTR_STATS_JSON)
		rc = json_report(t, s, opts, o);
	else if (opts->format == GTR_STATS_JSONL)
		rc = jsonl_report(t, s, opts, o);
	else if (opts->format == GTR_STATS_CSV)
		rc = csv_report(t, s, opts, o);
	else
		rc = text_report(t, s, opts, o);
	if (rc < 0)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	return 0;
}
