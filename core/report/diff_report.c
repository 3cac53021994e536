/* core/report/diff_report.c: `gtr diff` in words, tables and JSON. */
#include "core/report/diff_report.h"
#include "io/name.h"
#include "core/report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- words and numbers --- */

static void out_value(gtr_out *o, int metric, uint64_t v)
{
	if (gtr_metric_is_time(metric))
		gtr_out_dur(o, v);
	else if (gtr_metric_is_share(metric))
		gtr_out_printf(o, "%.1f%%", (double)v / 1e4);
	else
		gtr_out_u64(o, v);
}

/* The shrink that mirrors a growth of pct: -16.7% for +20%. */
static double mirror_pct(double pct)
{
	return (1.0 / (1.0 + pct / 100.0) - 1.0) * 100.0;
}

void gtr_out_pct(gtr_out *o, uint64_t base, uint64_t cur)
{
	if (base == 0) {
		gtr_out_str(o, cur ? "n/a" : "0.0%");
		return;
	}
	double p = gtr_pct_of(base, cur);
	gtr_out_printf(o, "%s%.1f%%", p > 0 ? "+" : "", p);
}

void gtr_out_change(gtr_out *o, const gtr_change *c)
{
	gtr_out_str(o, gtr_metric_label(c->metric));
	if (c->func) {
		gtr_out_char(o, ' ');
		gtr_out_name(o, c->func, strlen(c->func));
	}
	if (c->base == 0 && c->cur != 0) {
		/* No percentage of nothing: say where it went. */
		gtr_out_str(o, " from 0 to ");
		out_value(o, c->metric, c->cur);
		return;
	}
	gtr_out_char(o, ' ');
	gtr_out_pct(o, c->base, c->cur);
	gtr_out_str(o, " (");
	out_value(o, c->metric, c->base);
	gtr_out_str(o, " -> ");
	out_value(o, c->metric, c->cur);
	if (c->p >= 0) {
		if (c->p < 0.001)
			gtr_out_str(o, ", p<0.001");
		else
			gtr_out_printf(o, ", p=%.3f", c->p);
	}
	if (c->verdict == GTR_WORSE)
		gtr_out_printf(o, ", over +%g%%", c->threshold);
	else if (c->verdict == GTR_BETTER)
		gtr_out_printf(o, ", under %.1f%%", mirror_pct(c->threshold));
	gtr_out_char(o, ')');
}

/* A compact duration for table cells ("42.816ms"); "-" for none. */
static void cell_dur(char *buf, size_t cap, uint64_t ns)
{
	if (ns == 0)
		snprintf(buf, cap, "0");
	else
		gtr_fmt_dur(buf, cap, ns, "", "\xc2\xb5s");
}

/* time: 1 a duration, 2 a share in ppm (shown in percent), 0 a count. */
static void cell_value(char *buf, size_t cap, int time, uint64_t v)
{
	if (time == 2)
		snprintf(buf, cap, "%.2f%%", (double)v / 1e4);
	else if (time)
		cell_dur(buf, cap, v);
	else
		snprintf(buf, cap, "%llu", (unsigned long long)v);
}

static void cell_delta(char *buf, size_t cap, int time, uint64_t a, uint64_t b)
{
	if (a == b) {
		snprintf(buf, cap, "0");
		return;
	}
	buf[0] = b > a ? '+' : '-';
	cell_value(buf + 1, cap - 1, time, b > a ? b - a : a - b);
}

static void cell_pct(char *buf, size_t cap, uint64_t a, uint64_t b)
{
	if (a == 0)
		snprintf(buf, cap, b ? "n/a" : "0.0%%");
	else
		snprintf(buf, cap, "%+.1f%%", gtr_pct_of(a, b));
	if (a && b == a)
		snprintf(buf, cap, "0.0%%");
}

static size_t width_of(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void pad(gtr_out *o, size_t n)
{
	while (n--)
		gtr_out_char(o, ' ');
}

/* A table of text cells: column 0 left-aligned, `right` columns right-aligned. */
enum { TCOLS = 10, TCELL = 160 };
typedef struct table {
	char (*cells)[TCOLS][TCELL];
	size_t rows, cap;
	int cols;
	unsigned right; /* bit c: column c right-aligned */
} table;

static char (*table_row(table *t))[TCELL]
{
	if (t->rows == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 32;
		void *nc = realloc(t->cells, ncap * sizeof *t->cells);
		if (!nc)
			return NULL;
		t->cells = nc;
		t->cap = ncap;
	}
	memset(t->cells[t->rows], 0, sizeof t->cells[t->rows]);
	return t->cells[t->rows++];
}

static void table_write(const table *t, gtr_out *o, const char *indent)
{
	size_t w[TCOLS] = {0};
	for (size_t r = 0; r < t->rows; r++)
		for (int c = 0; c < t->cols; c++) {
			size_t x = width_of(t->cells[r][c]);
			if (x > w[c])
				w[c] = x;
		}
	for (size_t r = 0; r < t->rows; r++) {
		gtr_out_str(o, indent);
		int last = t->cols - 1;
		while (last > 0 && !t->cells[r][last][0])
			last--;
		for (int c = 0; c <= last; c++) {
			const char *s = t->cells[r][c];
			size_t x = width_of(s);
			if (t->right & (1u << c)) {
				pad(o, w[c] - x);
				gtr_out_str(o, s);
			} else {
				gtr_out_str(o, s);
				if (c < last)
					pad(o, w[c] - x);
			}
			if (c < last)
				gtr_out_str(o, "  ");
		}
		gtr_out_char(o, '\n');
	}
}

/* The median of metric m over runs (the value itself for one run). */
static uint64_t median_of(const gtr_metrics *const *runs, size_t n, int m)
{
	uint64_t v[64];
	size_t k = n < 64 ? n : 64;
	for (size_t i = 0; i < k; i++) {
		uint64_t x = runs[n - k + i]->v[m];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	if (k == 0)
		return 0;
	return k % 2 ? v[k / 2] : v[k / 2 - 1] / 2 + v[k / 2] / 2 + (v[k / 2 - 1] % 2 + v[k / 2] % 2) / 2;
}

/* The order metrics are shown in. */
static const int shown[] = {
	GTR_M_TMAX_STW, GTR_M_STW_COUNT, GTR_M_STW_P50, GTR_M_STW_P99, GTR_M_STW_MAX,
	GTR_M_SLICES, GTR_M_MAX_SLICE, GTR_M_SLICE_P50, GTR_M_SLICE_P99, GTR_M_EXEC,
	GTR_M_SCHED_WAIT, GTR_M_BLOCK, GTR_M_SYSCALL, GTR_M_GC_ASSIST, GTR_M_STW_TIME,
	GTR_M_STW_PER_EXEC, GTR_M_ASSIST_PER_EXEC, GTR_M_WAIT_PER_EXEC,
};

static const gtr_change *change_of(const gtr_change *ch, size_t n, int metric)
{
	for (size_t i = 0; i < n; i++)
		if (ch[i].metric == metric && !ch[i].func)
			return &ch[i];
	return NULL;
}

/* One function's row of the per-function table: a name from either side. */
typedef struct frow {
	const char *func;
	const gtr_func_metrics *a, *b;
	uint64_t key;
} frow;

static int cmp_frow(const void *pa, const void *pb)
{
	const frow *x = pa, *y = pb;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return strcmp(x->func, y->func);
}

/* Functions of a and b merged by name, by the larger execution time first. */
static frow *func_rows(const gtr_metrics *a, const gtr_metrics *b, size_t *n)
{
	frow *rows = malloc((a->nfuncs + b->nfuncs + 1) * sizeof *rows);
	if (!rows)
		return NULL;
	size_t i = 0, j = 0, k = 0;
	while (i < a->nfuncs || j < b->nfuncs) {
		int c = i == a->nfuncs ? 1 : j == b->nfuncs ? -1 : strcmp(a->funcs[i].func, b->funcs[j].func);
		frow *r = &rows[k++];
		r->a = c <= 0 ? &a->funcs[i++] : NULL;
		r->b = c >= 0 ? &b->funcs[j++] : NULL;
		r->func = r->a ? r->a->func : r->b->func;
		uint64_t ea = r->a ? r->a->exec : 0, eb = r->b ? r->b->exec : 0;
		r->key = ea > eb ? ea : eb;
	}
	qsort(rows, k, sizeof *rows, cmp_frow);
	*n = k;
	return rows;
}

static void verdict_text(gtr_out *o, gtr_verdict v, const gtr_change *ch, size_t n,
			 const gtr_cmp_info *info)
{
	gtr_out_printf(o, "(%zu vs %zu run%s, ", info->nb, info->nc, info->nc == 1 ? "" : "s");
	if (info->mode == GTR_CMP_STAT && info->funcs_untested)
		gtr_out_printf(o, "Mann-Whitney U test, alpha %g; %zu smaller function figure%s not tested: "
				  "more runs test more) ",
			       info->alpha, info->funcs_untested, info->funcs_untested == 1 ? "" : "s");
	else if (info->mode == GTR_CMP_STAT)
		gtr_out_printf(o, "Mann-Whitney U test, alpha %g) ", info->alpha);
	else
		gtr_out_printf(o, "not statistical: need >= %zu runs a side for the test) ", info->need);
	if (v == GTR_SAME) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (ch[i].func)
				continue;
			gtr_out_str(o, k++ ? ", " : info->mode == GTR_CMP_STAT ? "no significant change: "
									 : "no change past the thresholds: ");
			gtr_out_printf(o, "%s ", gtr_metric_label(ch[i].metric));
			gtr_out_pct(o, ch[i].base, ch[i].cur);
			if (ch[i].p >= 0 && !ch[i].significant)
				gtr_out_str(o, " ~");
		}
		if (!k)
			gtr_out_str(o, info->mode == GTR_CMP_STAT
					       ? "no metric is gated"
					       : "no metric is gated: none holds still enough between runs to be "
						 "judged without the test (give --threshold METRIC=PCT to gate one anyway)");
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		gtr_verdict want = pass == 0 ? v : (gtr_verdict)-v;
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (ch[i].verdict != want)
				continue;
			if (k++ == 0)
				gtr_out_str(o, pass == 0 ? (v == GTR_WORSE ? "B is worse: " : "B is better: ")
							 : (v == GTR_WORSE ? "; better: " : "; worse: "));
			else
				gtr_out_str(o, ", ");
			gtr_out_change(o, &ch[i]);
		}
	}
}

static void json_side(gtr_out *o, const char *file, const gtr_metrics *m, const gtr_partial *part)
{
	gtr_out_str(o, "{\"file\":");
	gtr_out_json_str(o, (gtr_str){file, strlen(file)});
	gtr_out_printf(o, ",\"version\":\"1.%d\",\"format\":\"%s\",\"written_by\":\"%s\",\"runtime\":",
		       m->version, m->family == GTR_FAMILY_V1 ? "v1" : "v2",
		       gtr_version_writers(m->version));
	if (m->runtime[0])
		gtr_out_printf(o, "\"%s\"", m->runtime);
	else
		gtr_out_str(o, "null");
	gtr_out_printf(o, ",\"span_ns\":%llu,\"events\":%llu,\"gomaxprocs\":%llu",
		       (unsigned long long)m->span_ns, (unsigned long long)m->events,
		       (unsigned long long)m->maxprocs);
	/* As greedy's and stats': only for a side read in part. */
	if (part && (part->shrank || gtr_loss_any(&part->loss))) {
		gtr_out_char(o, ',');
		gtr_out_loss_json(o, part);
	}
	gtr_out_char(o, '}');
}

static void json_delta(gtr_out *o, uint64_t a, uint64_t b)
{
	if (b >= a)
		gtr_out_u64(o, b - a);
	else
		gtr_out_printf(o, "-%llu", (unsigned long long)(a - b));
}

static void json_pct(gtr_out *o, uint64_t a, uint64_t b)
{
	if (a == 0 && b != 0)
		gtr_out_str(o, "null");
	else
		gtr_out_printf(o, "%.3f", gtr_pct_of(a, b));
}

static const char *verdict_name(gtr_verdict v)
{
	return v == GTR_WORSE ? "worse" : v == GTR_BETTER ? "better" : "same";
}

/* The runs of side b (1) or a (0): the opts' sets, or the one run given. */
typedef struct sides {
	const gtr_metrics *const *r[2];
	size_t n[2];
	const gtr_metrics *one[2];
} sides;

static uint64_t side_v(const sides *sd, int side, int m)
{
	return median_of(sd->r[side], sd->n[side], m);
}

static void json_diff(const gtr_metrics *a, const gtr_metrics *b, const gtr_diff_opts *opts,
		      const gtr_change *ch, size_t nch, const frow *fr, size_t nfr, gtr_verdict v,
		      const sides *sd, const gtr_cmp_info *info, gtr_out *o)
{
	gtr_out_str(o, "{\"schema\":\"gtr.diff.v1\",\"a\":");
	json_side(o, opts->file_a, a, opts->partial_a);
	gtr_out_str(o, ",\"b\":");
	json_side(o, opts->file_b, b, opts->partial_b);
	int pa = 0, pb = 0;
	for (size_t i = 0; i < sd->n[0]; i++)
		pa += sd->r[0][i]->partial != 0;
	for (size_t i = 0; i < sd->n[1]; i++)
		pb += sd->r[1][i]->partial != 0;
	gtr_out_printf(o, ",\"partial\":%s,\"partial_runs\":{\"a\":%d,\"b\":%d}", pa || pb ? "true" : "false", pa, pb);
	gtr_out_printf(o, ",\"comparison\":{\"mode\":\"%s\",\"test\":\"Mann-Whitney U, two-sided; Holm\","
			  "\"alpha\":%g,\"runs\":{\"a\":%zu,\"b\":%zu},\"need\":%zu,\"tested\":%zu,"
			  "\"funcs_untested\":%zu,\"min_delta_ns\":%llu}",
		       info->mode == GTR_CMP_STAT ? "statistical" : "not_statistical", info->alpha, info->nb,
		       info->nc, info->need, info->tested, info->funcs_untested,
		       (unsigned long long)opts->th->min_delta);
	gtr_out_str(o, ",\"metrics\":[");
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
		int m = shown[i];
		const gtr_change *c = change_of(ch, nch, m);
		uint64_t va = side_v(sd, 0, m), vb = side_v(sd, 1, m);
		gtr_out_printf(o, "%s{\"metric\":\"%s\",\"label\":\"%s\",\"unit\":\"%s\",\"a\":%llu,\"b\":%llu,"
				  "\"delta\":",
			       i ? "," : "", gtr_metric_name(m), gtr_metric_label(m), gtr_metric_unit(m),
			       (unsigned long long)va, (unsigned long long)vb);
		json_delta(o, va, vb);
		gtr_out_str(o, ",\"pct\":");
		json_pct(o, va, vb);
		if (c && c->p >= 0)
			gtr_out_printf(o, ",\"p\":%.6g,\"significant\":%s", c->p, c->significant ? "true" : "false");
		else
			gtr_out_str(o, ",\"p\":null,\"significant\":null");
		if (c)
			gtr_out_printf(o, ",\"threshold_pct\":%g,\"change\":\"%s\"}", c->threshold,
				       verdict_name(c->verdict));
		else
			gtr_out_str(o, ",\"threshold_pct\":null,\"change\":null}");
	}
	gtr_out_str(o, "],\"top_slices\":{");
	for (int side = 0; side < 2; side++) {
		const gtr_metrics *m = side ? b : a;
		gtr_out_str(o, side ? ",\"b\":[" : "\"a\":[");
		size_t n = m->ntop < opts->rows ? m->ntop : opts->rows;
		for (size_t i = 0; i < n; i++) {
			gtr_out_printf(o, "%s{\"rank\":%zu,\"duration_ns\":%llu,\"g\":%lld,\"truncated\":%s,"
					  "\"function\":",
				       i ? "," : "", i + 1, (unsigned long long)m->top[i].duration,
				       (long long)m->top[i].g, m->top[i].truncated ? "true" : "false");
			gtr_out_json_str(o, (gtr_str){m->top[i].func, strlen(m->top[i].func)});
			gtr_out_char(o, '}');
		}
		gtr_out_char(o, ']');
	}
	gtr_out_printf(o, "},\"functions_total\":%zu,\"functions\":[", nfr);
	size_t nf = nfr < opts->rows ? nfr : opts->rows;
	for (size_t i = 0; i < nf; i++) {
		const frow *r = &fr[i];
		gtr_out_str(o, i ? ",{\"function\":" : "{\"function\":");
		gtr_out_json_str(o, (gtr_str){r->func, strlen(r->func)});
		for (int side = 0; side < 2; side++) {
			const gtr_func_metrics *f = side ? r->b : r->a;
			gtr_out_str(o, side ? ",\"b\":" : ",\"a\":");
			if (!f)
				gtr_out_str(o, "null");
			else
				gtr_out_printf(o, "{\"goroutines\":%llu,\"exec_ns\":%llu,\"max_slice_ns\":%llu,"
						  "\"slices\":%llu}",
					       (unsigned long long)f->goroutines, (unsigned long long)f->exec,
					       (unsigned long long)f->max_slice, (unsigned long long)f->slices);
		}
		uint64_t ea = r->a ? r->a->exec : 0, eb = r->b ? r->b->exec : 0;
		uint64_t ma = r->a ? r->a->max_slice : 0, mb = r->b ? r->b->max_slice : 0;
		gtr_out_str(o, ",\"exec_delta_ns\":");
		json_delta(o, ea, eb);
		gtr_out_str(o, ",\"exec_pct\":");
		json_pct(o, ea, eb);
		gtr_out_str(o, ",\"max_slice_delta_ns\":");
		json_delta(o, ma, mb);
		gtr_out_str(o, ",\"max_slice_pct\":");
		json_pct(o, ma, mb);
		gtr_out_char(o, '}');
	}
	gtr_out_str(o, "],\"changes\":[");
	for (size_t i = 0, k = 0; i < nch; i++) {
		if (ch[i].verdict == GTR_SAME)
			continue;
		gtr_out_printf(o, "%s{\"metric\":\"%s\",\"function\":", k++ ? "," : "",
			       gtr_metric_name(ch[i].metric));
		if (ch[i].func)
			gtr_out_json_str(o, (gtr_str){ch[i].func, strlen(ch[i].func)});
		else
			gtr_out_str(o, "null");
		gtr_out_printf(o, ",\"a\":%llu,\"b\":%llu,\"pct\":", (unsigned long long)ch[i].base,
			       (unsigned long long)ch[i].cur);
		json_pct(o, ch[i].base, ch[i].cur);
		gtr_out_printf(o, ",\"threshold_pct\":%g,\"change\":\"%s\"}", ch[i].threshold,
			       verdict_name(ch[i].verdict));
	}
	gtr_out_printf(o, "],\"verdict\":{\"result\":\"%s\",\"text\":", verdict_name(v));
	/* The same words as the text report, gathered in a writer of their own. */
	gtr_out *tmp = malloc(sizeof *tmp);
	if (tmp) {
		gtr_out_init(tmp, -1);
		verdict_text(tmp, v, ch, nch, info);
		gtr_out_json_str(o, (gtr_str){tmp->buf, tmp->err ? 0 : tmp->len});
		free(tmp);
	} else {
		gtr_out_str(o, "\"\"");
	}
	gtr_out_str(o, "}}\n");
}

static int text_diff(const gtr_metrics *a, const gtr_metrics *b, const gtr_diff_opts *opts,
		     const gtr_change *ch, size_t nch, const frow *fr, size_t nfr, gtr_verdict v,
		     const sides *sd, const gtr_cmp_info *info, gtr_out *o)
{
	gtr_out_str(o, "gtr diff: A ");
	gtr_out_name(o, opts->file_a, strlen(opts->file_a));
	gtr_out_str(o, "\n          B ");
	gtr_out_name(o, opts->file_b, strlen(opts->file_b));
	gtr_out_char(o, '\n');
	if (sd->n[0] > 1 || sd->n[1] > 1)
		gtr_out_printf(o, "          medians of %zu and %zu runs; the slices and functions of the last run\n",
			       sd->n[0], sd->n[1]);
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < sd->n[side]; i++)
			if (sd->r[side][i]->partial) {
				gtr_out_printf(o, "          partial: %c was read in part (see the warnings)\n",
					       side ? 'B' : 'A');
				break;
			}
	gtr_out_char(o, '\n');
	table t = {.cols = 6, .right = 0x1e};
	char (*r)[TCELL];
	if (!(r = table_row(&t)))
		goto nomem;
	snprintf(r[1], TCELL, "A");
	snprintf(r[2], TCELL, "B");
	snprintf(r[3], TCELL, "B - A");
	snprintf(r[4], TCELL, "change");
	if (!(r = table_row(&t)))
		goto nomem;
	snprintf(r[0], TCELL, "trace");
	snprintf(r[1], TCELL, "go 1.%d (%s)", a->version, a->family == GTR_FAMILY_V1 ? "v1" : "v2");
	snprintf(r[2], TCELL, "go 1.%d (%s)", b->version, b->family == GTR_FAMILY_V1 ? "v1" : "v2");
	if (a->runtime[0] || b->runtime[0]) {
		if (!(r = table_row(&t)))
			goto nomem;
		snprintf(r[0], TCELL, "runtime");
		snprintf(r[1], TCELL, "%s", a->runtime[0] ? a->runtime : "?");
		snprintf(r[2], TCELL, "%s", b->runtime[0] ? b->runtime : "?");
	}
	struct {
		const char *label;
		int time;
		uint64_t a, b;
	} rows0[] = {
		{"span", 1, a->span_ns, b->span_ns},
		{"events", 0, a->events, b->events},
		{"GOMAXPROCS", 0, a->maxprocs, b->maxprocs},
	};
	for (size_t i = 0; i < sizeof rows0 / sizeof rows0[0]; i++) {
		if (!(r = table_row(&t)))
			goto nomem;
		snprintf(r[0], TCELL, "%s", rows0[i].label);
		cell_value(r[1], TCELL, rows0[i].time, rows0[i].a);
		cell_value(r[2], TCELL, rows0[i].time, rows0[i].b);
		cell_delta(r[3], TCELL, rows0[i].time, rows0[i].a, rows0[i].b);
		cell_pct(r[4], TCELL, rows0[i].a, rows0[i].b);
	}
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
		int m = shown[i], time = gtr_metric_is_time(m) ? 1 : gtr_metric_is_share(m) ? 2 : 0;
		if (!(r = table_row(&t)))
			goto nomem;
		snprintf(r[0], TCELL, "%s", gtr_metric_label(m));
		uint64_t va = side_v(sd, 0, m), vb = side_v(sd, 1, m);
		cell_value(r[1], TCELL, time, va);
		cell_value(r[2], TCELL, time, vb);
		cell_delta(r[3], TCELL, time, va, vb);
		cell_pct(r[4], TCELL, va, vb);
		const gtr_change *c = change_of(ch, nch, m);
		if (c && c->verdict == GTR_WORSE)
			snprintf(r[5], TCELL, "worse (over +%g%%)", c->threshold);
		else if (c && c->verdict == GTR_BETTER)
			snprintf(r[5], TCELL, "better (under %.1f%%)", mirror_pct(c->threshold));
		else if (c && c->p >= 0 && !c->significant)
			snprintf(r[5], TCELL, "~ (p=%.3f)", c->p);
		else if (c)
			snprintf(r[5], TCELL, "within %g%%", c->threshold);
	}
	table_write(&t, o, "  ");

	size_t na = a->ntop < opts->rows ? a->ntop : opts->rows;
	size_t nb = b->ntop < opts->rows ? b->ntop : opts->rows;
	gtr_out_printf(o, "\ntop %zu slices\n", na > nb ? na : nb);
	t.rows = 0;
	t.cols = 7;
	t.right = 0x02 | 0x10;
	if (!(r = table_row(&t)))
		goto nomem;
	snprintf(r[0], TCELL, "#");
	snprintf(r[1], TCELL, "A");
	snprintf(r[4], TCELL, "B");
	for (size_t i = 0; i < na || i < nb; i++) {
		if (!(r = table_row(&t)))
			goto nomem;
		snprintf(r[0], TCELL, "%zu", i + 1);
		for (int side = 0; side < 2; side++) {
			const gtr_metrics *m = side ? b : a;
			if (i >= (side ? nb : na))
				continue;
			const gtr_top_slice *s = &m->top[i];
			int c = side ? 4 : 1;
			cell_dur(r[c], TCELL, s->duration);
			snprintf(r[c + 1], TCELL, "G%lld", (long long)s->g);
			snprintf(r[c + 2], TCELL, "%.*s%s", 120, s->func, s->truncated ? " (truncated)" : "");
		}
	}
	table_write(&t, o, "  ");

	size_t nf = nfr < opts->rows ? nfr : opts->rows;
	gtr_out_printf(o, "\nstart functions by execution time, ");
	if (nf < nfr)
		gtr_out_printf(o, "top %zu of %zu\n", nf, nfr);
	else
		gtr_out_printf(o, "all %zu\n", nfr);
	t.rows = 0;
	t.cols = 9;
	t.right = 0xff;
	if (!(r = table_row(&t)))
		goto nomem;
	const char *heads[9] = {"EXEC A", "EXEC B", "DELTA", "CHANGE", "MAX A", "MAX B", "DELTA", "CHANGE",
				"FUNCTION"};
	for (int c = 0; c < 9; c++)
		snprintf(r[c], TCELL, "%s", heads[c]);
	for (size_t i = 0; i < nf; i++) {
		const frow *f = &fr[i];
		if (!(r = table_row(&t)))
			goto nomem;
		for (int pass = 0; pass < 2; pass++) {
			uint64_t va = f->a ? (pass ? f->a->max_slice : f->a->exec) : 0;
			uint64_t vb = f->b ? (pass ? f->b->max_slice : f->b->exec) : 0;
			int c = pass * 4;
			if (f->a)
				cell_dur(r[c], TCELL, va);
			else
				snprintf(r[c], TCELL, "-");
			if (f->b)
				cell_dur(r[c + 1], TCELL, vb);
			else
				snprintf(r[c + 1], TCELL, "-");
			cell_delta(r[c + 2], TCELL, 1, va, vb);
			if (!f->a)
				snprintf(r[c + 3], TCELL, "new");
			else if (!f->b)
				snprintf(r[c + 3], TCELL, "gone");
			else
				cell_pct(r[c + 3], TCELL, va, vb);
		}
		snprintf(r[8], TCELL, "%.*s", TCELL - 1, f->func);
	}
	table_write(&t, o, "  ");
	free(t.cells);

	gtr_out_str(o, "\nverdict: ");
	verdict_text(o, v, ch, nch, info);
	gtr_out_char(o, '\n');
	return 0;
nomem:
	free(t.cells);
	return GTR_E_NOMEM;
}

int gtr_report_diff(const gtr_metrics *a, const gtr_metrics *b, const gtr_diff_opts *opts,
		    gtr_out *o, gtr_verdict *verdict, gtr_error *err)
{
	gtr_change *ch = NULL;
	size_t nch = 0, nfr = 0;
	sides sd = {.one = {a, b}};
	sd.r[0] = opts->runs_a && opts->na ? opts->runs_a : &sd.one[0];
	sd.n[0] = opts->runs_a && opts->na ? opts->na : 1;
	sd.r[1] = opts->runs_b && opts->nb ? opts->runs_b : &sd.one[1];
	sd.n[1] = opts->runs_b && opts->nb ? opts->nb : 1;
	gtr_cmp_info info;
	int v = gtr_compare_runs(sd.r[0], sd.n[0], sd.r[1], sd.n[1], opts->th, &ch, &nch, &info);
	frow *fr = v < GTR_BETTER ? NULL : func_rows(a, b, &nfr);
	if (v < GTR_BETTER || !fr) {
		free(ch);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	int rc = 0;
	if (opts->json)
		json_diff(a, b, opts, ch, nch, fr, nfr, (gtr_verdict)v, &sd, &info, o);
	else
		rc = text_diff(a, b, opts, ch, nch, fr, nfr, (gtr_verdict)v, &sd, &info, o);
	free(ch);
	free(fr);
	if (rc < 0)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	*verdict = (gtr_verdict)v;
	return 0;
}
