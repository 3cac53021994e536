/* core/gate/check.c: inputs, the worker pool, baselines, and the check reports. */
#include "core/gate/check.h"
#include "core/report/diff_report.h"
#include "io/meter.h"
#include "core/base/json.h"
#include "core/report/report.h"
#include "io/name.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

/* Bytes hashed per call: big enough to stream, small enough to stay in cache. */
#define HASH_CHUNK (1u << 20)

/* --- baselines --- */

static const char *metric_key(int m, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s", gtr_metric_name(m), gtr_metric_is_time(m) ? "_ns" : "");
	return buf;
}

void gtr_baseline_free(gtr_baseline *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		free(b->e[i].name);
		gtr_metrics_free(&b->e[i].m);
	}
	free(b->e);
	free(b);
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const gtr_baseline_entry *)a)->name, ((const gtr_baseline_entry *)b)->name);
}

const gtr_baseline_entry *gtr_baseline_find(const gtr_baseline *b, const char *name)
{
	if (!b)
		return NULL;
	size_t lo = 0, hi = b->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(b->e[mid].name, name);
		if (c == 0)
			return &b->e[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int parse_hex64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = 0;
	for (; s[n]; n++) {
		char c = s[n];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0 || n >= 16)
			return 0;
		v = v << 4 | (uint64_t)d;
	}
	if (n != 16)
		return 0;
	*out = v;
	return 1;
}

int gtr_baseline_entry_read(const gtr_json *t, gtr_baseline_entry *e)
{
	memset(e, 0, sizeof *e);
	const char *name = gtr_json_string(gtr_json_get(t, "name"));
	const gtr_json *metrics = gtr_json_get(t, "metrics");
	if (!name || !metrics || metrics->type != GTR_JSON_OBJ)
		return 0; /* nothing to compare against: an error in a report, say */
	if (!(e->name = strdup(name)))
		return GTR_E_NOMEM;
	gtr_name_unescape(e->name); /* written with io/name.h's escape */
	const char *fp = gtr_json_string(gtr_json_get(t, "fingerprint"));
	e->have_fingerprint = fp && parse_hex64(fp, &e->fingerprint);
	gtr_json_uint(gtr_json_get(t, "bytes"), &e->bytes);
	const gtr_json *go = gtr_json_get(t, "go");
	const char *tv = gtr_json_string(gtr_json_get(go, "trace"));
	if (tv && strncmp(tv, "1.", 2) == 0)
		e->m.version = atoi(tv + 2);
	e->m.family = e->m.version >= 22 ? 2 : 1;
	const char *rt = gtr_json_string(gtr_json_get(go, "runtime"));
	if (rt)
		snprintf(e->m.runtime, sizeof e->m.runtime, "%s", rt);
	char key[64];
	for (int m = 0; m < GTR_M_N; m++)
		e->m.known[m] = (uint8_t)gtr_json_uint(gtr_json_get(metrics, metric_key(m, key, sizeof key)),
						       &e->m.v[m]);
	const gtr_json *top = gtr_json_get(t, "top_slices");
	if (top && top->type == GTR_JSON_ARR && top->n) {
		if (!(e->m.top = calloc(top->n, sizeof *e->m.top)))
			return GTR_E_NOMEM;
		for (size_t i = 0; i < top->n; i++) {
			const gtr_json *s = &top->items[i];
			const char *fn = gtr_json_string(gtr_json_get(s, "function"));
			gtr_top_slice *ts = &e->m.top[e->m.ntop];
			uint64_t g = 0;
			if (!fn || !gtr_json_uint(gtr_json_get(s, "duration_ns"), &ts->duration))
				continue;
			if (!(ts->func = strdup(fn)))
				return GTR_E_NOMEM;
			gtr_name_unescape(ts->func);
			ts->g = gtr_json_uint(gtr_json_get(s, "g"), &g) ? (int64_t)g : -1;
			e->m.ntop++;
		}
	}
	const gtr_json *fns = gtr_json_get(t, "functions");
	if (fns && fns->type == GTR_JSON_ARR && fns->n) {
		if (!(e->m.funcs = calloc(fns->n, sizeof *e->m.funcs)))
			return GTR_E_NOMEM;
		for (size_t i = 0; i < fns->n; i++) {
			const gtr_json *f = &fns->items[i];
			const char *fn = gtr_json_string(gtr_json_get(f, "function"));
			gtr_func_metrics *fm = &e->m.funcs[e->m.nfuncs];
			if (!fn)
				continue;
			gtr_json_uint(gtr_json_get(f, "goroutines"), &fm->goroutines);
			gtr_json_uint(gtr_json_get(f, "exec_ns"), &fm->exec);
			gtr_json_uint(gtr_json_get(f, "max_slice_ns"), &fm->max_slice);
			gtr_json_uint(gtr_json_get(f, "slices"), &fm->slices);
			if (!(fm->func = strdup(fn)))
				return GTR_E_NOMEM;
			gtr_name_unescape(fm->func);
			e->m.nfuncs++;
		}
		/* Sorted for lookups; a name given twice keeps one entry. */
		gtr_metrics_sort_funcs(&e->m);
		size_t k = 0;
		for (size_t i = 0; i < e->m.nfuncs; i++) {
			if (k && strcmp(e->m.funcs[k - 1].func, e->m.funcs[i].func) == 0) {
				free(e->m.funcs[i].func);
				continue;
			}
			e->m.funcs[k++] = e->m.funcs[i];
		}
		e->m.nfuncs = k;
	}
	return 1;
}

int gtr_baseline_parse(const char *text, size_t len, gtr_baseline **out, gtr_error *err)
{
	*out = NULL;
	gtr_json *root;
	int rc = gtr_json_parse(text, len, &root, err);
	if (rc < 0)
		return rc;
	const char *schema = gtr_json_string(gtr_json_get(root, "schema"));
	const gtr_json *traces = gtr_json_get(root, "traces");
	if (!schema || (strcmp(schema, "gtr.baseline.v1") != 0 && strcmp(schema, "gtr.check.v1") != 0) ||
	    !traces || traces->type != GTR_JSON_ARR) {
		gtr_json_free(root);
		return gtr_error_set(err, GTR_E_CORRUPT, 0,
				     "not a gtr baseline (want schema gtr.baseline.v1 with a traces array)");
	}
	gtr_baseline *b = calloc(1, sizeof *b);
	if (!b || !(b->e = calloc(traces->n ? traces->n : 1, sizeof *b->e))) {
		free(b);
		gtr_json_free(root);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	for (size_t i = 0; i < traces->n; i++) {
		rc = gtr_baseline_entry_read(&traces->items[i], &b->e[b->n]);
		if (rc < 0) {
			b->n++; /* so that its partial contents are freed */
			gtr_baseline_free(b);
			gtr_json_free(root);
			return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
		}
		b->n += rc == 1;
	}
	gtr_json_free(root);
	qsort(b->e, b->n, sizeof *b->e, cmp_entry);
	for (size_t i = 1; i < b->n; i++)
		if (strcmp(b->e[i].name, b->e[i - 1].name) == 0) {
			char name[200];
			snprintf(name, sizeof name, "%s", b->e[i].name);
			gtr_baseline_free(b);
			return gtr_error_set(err, GTR_E_CORRUPT, 0, "the baseline has two traces named %s",
					     name);
		}
	*out = b;
	return 0;
}

/* --- the pool --- */

typedef struct pool {
	const gtr_check_input *in;
	size_t n;
	const gtr_check_opts *opts;
	gtr_check_result *res;
	atomic_size_t next;
} pool;

static uint64_t fingerprint(const uint8_t *data, size_t size, int *ok)
{
	XXH3_state_t *st = XXH3_createState();
	*ok = st != NULL;
	if (!st)
		return 0;
	XXH3_64bits_reset(st);
	for (size_t off = 0; off < size; off += HASH_CHUNK) {
		size_t n = size - off < HASH_CHUNK ? size - off : HASH_CHUNK;
		XXH3_64bits_update(st, data + off, n);
	}
	uint64_t h = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	return h;
}

/* A stream given as a trace is refused on its first bytes if they are no trace header. */
static int head_is_trace(void *ctx, const uint8_t *p, size_t n)
{
	int version;
	gtr_family family;
	if (gtr_detect(p, n, &version, &family, ctx) == GTR_E_NOTTRACE)
		return -EILSEQ;
	return 0;
}

static void check_one(pool *p, size_t i)
{
	const gtr_check_opts *opts = p->opts;
	gtr_check_result *r = &p->res[i];
	r->in = &p->in[i];
	double t0 = gtr_seconds();
	if (r->in->error) {
		/* What the walk could not take: an error of this entry alone. */
		snprintf(r->error, sizeof r->error, "%s", r->in->error);
		r->status = GTR_CHECK_ERROR;
		return;
	}
	gtr_map map;
	gtr_error err;
	gtr_error_clear(&err);
	gtr_map_opts mo = {.mode = opts->io, .max_input = opts->max_input, .check_head = head_is_trace,
			   .ctx = &err, .head = 16};
	int rc = gtr_map_open_opts(&map, r->in->path, &mo);
	if (rc < 0) {
		char buf[200];
		if (rc == -EILSEQ)
			snprintf(r->error, sizeof r->error, "at byte %llu: %s", (unsigned long long)err.off,
				 err.msg);
		else if (rc == -EFBIG)
			snprintf(r->error, sizeof r->error,
				 "a stream of more than %llu bytes (--max-input): save it to a file",
				 (unsigned long long)(opts->max_input ? opts->max_input : GTR_MAP_MAX_INPUT));
		else
			snprintf(r->error, sizeof r->error, "cannot read it: %s", strerror_r(-rc, buf, sizeof buf));
		r->status = GTR_CHECK_ERROR;
		r->seconds = gtr_seconds() - t0;
		return;
	}
	int ok = 1, version;
	gtr_family family;
	gtr_trace *t = NULL;
	r->bytes = map.size;
	/* The header first: a big file that is no trace is not hashed whole. */
	rc = gtr_detect(map.data, map.size, &version, &family, &err);
	if (rc == GTR_E_NOTTRACE || rc == GTR_E_GZIP)
		goto done;
	rc = 0;
	gtr_error_clear(&err);
	r->fingerprint = fingerprint(map.data, map.size, &ok);
	if (!ok)
		rc = gtr_error_set(&err, GTR_E_NOMEM, 0, "out of memory");
	if (rc == 0)
		rc = gtr_trace_open_ex(&t, map.data, map.size, opts->kernels, opts->open_flags, &err);
	if (rc == 0)
		/* One trace at a time: its read runs ahead on a second thread;
		 * several at once: the workers already use the CPUs. */
		rc = gtr_metrics_compute_jobs(t, opts->ntop, opts->jobs > 1 ? 1 : 0, &r->m, &err);
	if (rc == 0) {
		gtr_loss loss;
		gtr_trace_loss(t, &loss);
		if (gtr_loss_any(&loss))
			gtr_loss_summary(&loss, map.size, r->warning, sizeof r->warning);
	}
done:;
	uint64_t now, at;
	if (gtr_map_shrank(&map, &now, &at)) {
		/* Whatever was decoded past `at` was zeros, not the trace. */
		char *into = opts->open_flags & GTR_OPEN_LENIENT && rc == 0 ? r->warning : r->error;
		snprintf(into, sizeof r->error,
			 "the file shrank while it was read: now %llu bytes, was %llu%s",
			 (unsigned long long)now, (unsigned long long)map.size,
			 into == r->warning ? "; what came before was reported" : "");
		if (into == r->error) {
			gtr_metrics_free(&r->m);
			rc = -1;
		}
	} else if (rc < 0) {
		snprintf(r->error, sizeof r->error, "at byte %llu: %s", (unsigned long long)err.off,
			 err.msg[0] ? err.msg : gtr_strerror(err.code));
	}
	gtr_trace_free(t);
	gtr_map_close(&map);
	if (rc < 0) {
		r->status = GTR_CHECK_ERROR;
		r->seconds = gtr_seconds() - t0;
		return;
	}
	r->status = GTR_CHECK_NEW; /* until judged */
	r->seconds = gtr_seconds() - t0;
}

static void *worker(void *arg)
{
	pool *p = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		gtr_progress_step(p->opts->progress, p->in[i].name, 0);
		check_one(p, i);
		gtr_progress_step(p->opts->progress, p->in[i].name, 1);
	}
	return NULL;
}

int gtr_check_measure(const gtr_check_input *in, size_t n, const gtr_check_opts *opts,
		      gtr_check_result **out, gtr_error *err)
{
	*out = NULL;
	pool p = {.in = in, .n = n, .opts = opts};
	atomic_init(&p.next, 0);
	p.res = calloc(n ? n : 1, sizeof *p.res);
	if (!p.res)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	size_t nt = opts->jobs ? opts->jobs : 1;
	if (nt > n)
		nt = n ? n : 1;
	pthread_t *th = malloc(nt * sizeof *th);
	size_t started = 0;
	if (th)
		for (; started < nt; started++)
			if (pthread_create(&th[started], NULL, worker, &p) != 0)
				break;
	/* With no thread at all, the calling one does the work. */
	if (started == 0)
		worker(&p);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	*out = p.res;
	return 0;
}

void gtr_check_judge(gtr_check_result *res, size_t n, const gtr_baseline *b,
		     const gtr_thresholds *th)
{
	for (size_t i = 0; i < n; i++) {
		gtr_check_result *r = &res[i];
		if (r->status == GTR_CHECK_ERROR)
			continue;
		free(r->changes);
		r->changes = NULL;
		r->nchanges = 0;
		r->changed = 0;
		r->verdict = GTR_SAME;
		r->base = gtr_baseline_find(b, r->in->name);
		if (!r->base) {
			r->status = GTR_CHECK_NEW;
			continue;
		}
		r->changed = !r->base->have_fingerprint || r->base->fingerprint != r->fingerprint;
		int v = gtr_compare(&r->base->m, &r->m, th, &r->changes, &r->nchanges);
		if (v < GTR_BETTER) {
			gtr_metrics_free(&r->m);
			snprintf(r->error, sizeof r->error, "out of memory");
			r->status = GTR_CHECK_ERROR;
		} else {
			r->verdict = (gtr_verdict)v;
			r->status = v == GTR_WORSE ? GTR_CHECK_REGRESSED : GTR_CHECK_OK;
		}
	}
}

int gtr_check_run(const gtr_check_input *in, size_t n, const gtr_check_opts *opts,
		  gtr_check_result **out, gtr_error *err)
{
	int rc = gtr_check_measure(in, n, opts, out, err);
	if (rc == 0)
		gtr_check_judge(*out, n, opts->baseline, opts->th);
	return rc;
}

void gtr_check_results_free(gtr_check_result *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++) {
		gtr_metrics_free(&r[i].m);
		free(r[i].changes);
	}
	free(r);
}

void gtr_check_summarize(const gtr_check_result *r, size_t n, const gtr_baseline *b,
			 gtr_check_summary *s)
{
	memset(s, 0, sizeof *s);
	s->traces = n;
	for (size_t i = 0; i < n; i++) {
		switch (r[i].status) {
		case GTR_CHECK_OK: s->ok++; break;
		case GTR_CHECK_NEW: s->fresh++; break;
		case GTR_CHECK_REGRESSED: s->regressed++; break;
		case GTR_CHECK_ERROR: s->errors++; break;
		}
		if (r[i].base)
			*(r[i].changed ? &s->changed : &s->unchanged) += 1;
	}
	/* Baseline entries no input matched; both lists are sorted by name. */
	for (size_t i = 0, j = 0; b && i < b->n; i++) {
		while (j < n && strcmp(r[j].in->name, b->e[i].name) < 0)
			j++;
		if (j == n || strcmp(r[j].in->name, b->e[i].name) != 0)
			s->not_checked++;
	}
}

/* --- reports --- */

static const char *status_word(gtr_check_status s)
{
	switch (s) {
	case GTR_CHECK_OK: return "ok";
	case GTR_CHECK_NEW: return "new";
	case GTR_CHECK_REGRESSED: return "regressed";
	default: return "error";
	}
}

/* Regressions first, then improvements, then the other figures checked. */
static void text_changes(const gtr_check_result *r, gtr_out *o)
{
	static const gtr_verdict order[3] = {GTR_WORSE, GTR_BETTER, GTR_SAME};
	size_t k = 0;
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < r->nchanges; i++) {
			const gtr_change *c = &r->changes[i];
			if (c->verdict != order[pass] || (c->verdict == GTR_SAME && c->func))
				continue;
			gtr_out_str(o, k++ ? ", " : "");
			if (c->verdict == GTR_SAME) {
				gtr_out_printf(o, "%s ", gtr_metric_label(c->metric));
				gtr_out_pct(o, c->base, c->cur);
			} else {
				gtr_out_change(o, c);
			}
		}
	}
}

static int metrics_moved(const gtr_check_result *r)
{
	for (size_t i = 0; i < r->nchanges; i++)
		if (r->changes[i].base != r->changes[i].cur)
			return 1;
	return 0;
}

/* "go 1.26", with the runtime release when the trace names it: "go 1.22 (go1.22.3)". */
static void version_cell(const gtr_check_result *r, char *buf, size_t cap)
{
	if (r->status == GTR_CHECK_ERROR)
		snprintf(buf, cap, "-");
	else if (r->m.runtime[0])
		snprintf(buf, cap, "go 1.%d (%s)", r->m.version, r->m.runtime);
	else
		snprintf(buf, cap, "go 1.%d", r->m.version);
}

void gtr_check_write_text(const gtr_check_result *r, size_t n, const gtr_check_report_opts *opts,
			  gtr_out *o)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = gtr_name_escape(r[i].in->name, strlen(r[i].in->name), NULL, 0);
		if (len > w)
			w = len;
	}
	if (w > 60)
		w = 60;
	size_t vw = 0;
	for (size_t i = 0; i < n; i++) {
		char ver[64];
		version_cell(&r[i], ver, sizeof ver);
		if (strlen(ver) > vw)
			vw = strlen(ver);
	}
	gtr_out_printf(o, "gtr check: %zu trace%s against ", n, n == 1 ? "" : "s");
	gtr_out_name(o, opts->baseline_path, strlen(opts->baseline_path));
	gtr_out_printf(o, ", %u thread%s\n", opts->jobs, opts->jobs == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		const gtr_check_result *x = &r[i];
		if (opts->quiet && (x->status == GTR_CHECK_OK || x->status == GTR_CHECK_NEW))
			continue;
		const char *word = x->status == GTR_CHECK_REGRESSED ? "REGRESSED"
				   : x->status == GTR_CHECK_ERROR   ? "ERROR"
								    : status_word(x->status);
		gtr_out_printf(o, "%-9s  ", word);
		gtr_out_name(o, x->in->name, strlen(x->in->name));
		size_t len = gtr_name_escape(x->in->name, strlen(x->in->name), NULL, 0);
		for (size_t k = len; k < w; k++)
			gtr_out_char(o, ' ');
		char ver[64];
		version_cell(x, ver, sizeof ver);
		gtr_out_printf(o, "  %-*s  ", (int)vw, ver);
		switch (x->status) {
		case GTR_CHECK_ERROR: gtr_out_str(o, x->error); break;
		case GTR_CHECK_NEW: gtr_out_str(o, "not in the baseline"); break;
		default:
			if (!x->changed && !metrics_moved(x)) {
				gtr_out_str(o, "unchanged");
				break;
			}
			gtr_out_str(o, x->changed ? "changed: " : "same content, other figures: ");
			text_changes(x, o);
			break;
		}
		gtr_out_char(o, '\n');
	}
	gtr_check_summary s;
	gtr_check_summarize(r, n, opts->baseline, &s);
	gtr_out_printf(o, "\n%zu trace%s: %zu ok, %zu regressed, %zu error%s, %zu new; %zu unchanged, "
			  "%zu changed",
		       s.traces, s.traces == 1 ? "" : "s", s.ok, s.regressed, s.errors,
		       s.errors == 1 ? "" : "s", s.fresh, s.unchanged, s.changed);
	if (s.not_checked)
		gtr_out_printf(o, "; %zu in the baseline not checked", s.not_checked);
	gtr_out_char(o, '\n');
	if (opts->updated) {
		gtr_out_str(o, "baseline ");
		gtr_out_name(o, opts->baseline_path, strlen(opts->baseline_path));
		gtr_out_str(o, " updated\n");
	}
}

static void json_cstr(gtr_out *o, const char *s)
{
	gtr_out_json_str(o, (gtr_str){s, strlen(s)});
}

static void json_metrics(gtr_out *o, const gtr_metrics *m)
{
	char key[64];
	gtr_out_char(o, '{');
	for (int i = 0, k = 0; i < GTR_M_N; i++) {
		if (!m->known[i])
			continue;
		gtr_out_printf(o, "%s\"%s\":%llu", k++ ? "," : "", metric_key(i, key, sizeof key),
			       (unsigned long long)m->v[i]);
	}
	gtr_out_char(o, '}');
}

void gtr_baseline_write_fields(gtr_out *o, uint64_t fp, uint64_t bytes, const gtr_metrics *m)
{
	gtr_out_printf(o, "\"fingerprint\":\"%016llx\",\"bytes\":%llu,\"go\":{\"trace\":\"1.%d\","
			  "\"written_by\":\"%s\",\"runtime\":",
		       (unsigned long long)fp, (unsigned long long)bytes, m->version,
		       gtr_version_writers(m->version));
	if (m->runtime[0])
		json_cstr(o, m->runtime);
	else
		gtr_out_str(o, "null");
	gtr_out_str(o, "},\"metrics\":");
	json_metrics(o, m);
	gtr_out_str(o, ",\"top_slices\":[");
	for (size_t i = 0; i < m->ntop; i++) {
		gtr_out_str(o, i ? ",{\"function\":" : "{\"function\":");
		json_cstr(o, m->top[i].func);
		gtr_out_printf(o, ",\"duration_ns\":%llu,\"g\":%lld}", (unsigned long long)m->top[i].duration,
			       (long long)m->top[i].g);
	}
	gtr_out_str(o, "],\"functions\":[");
	for (size_t i = 0; i < m->nfuncs; i++) {
		const gtr_func_metrics *f = &m->funcs[i];
		gtr_out_str(o, i ? ",{\"function\":" : "{\"function\":");
		json_cstr(o, f->func);
		gtr_out_printf(o, ",\"goroutines\":%llu,\"exec_ns\":%llu,\"max_slice_ns\":%llu,\"slices\":%llu}",
			       (unsigned long long)f->goroutines, (unsigned long long)f->exec,
			       (unsigned long long)f->max_slice, (unsigned long long)f->slices);
	}
	gtr_out_char(o, ']');
}

static void json_thresholds(gtr_out *o, const gtr_thresholds *th)
{
	gtr_out_char(o, '{');
	for (int m = 0, k = 0; m < GTR_METRICS_ALL; m++)
		if (th->pct[m] >= 0)
			gtr_out_printf(o, "%s\"%s\":%g", k++ ? "," : "", gtr_metric_name(m), th->pct[m]);
	gtr_out_char(o, '}');
}

/* The members of a trace's object in the report, without its braces. */
static void json_row(gtr_out *o, const gtr_check_result *x)
{
	gtr_out_str(o, "\"name\":");
	json_cstr(o, x->in->name);
	gtr_out_str(o, ",\"path\":");
	json_cstr(o, x->in->path);
	gtr_out_printf(o, ",\"status\":\"%s\",\"seconds\":%.3f,\"error\":", status_word(x->status),
		       x->seconds);
	if (x->status == GTR_CHECK_ERROR) {
		json_cstr(o, x->error);
		return;
	}
	gtr_out_str(o, "null,\"changed\":");
	gtr_out_str(o, !x->base ? "null" : x->changed ? "true" : "false");
	gtr_out_char(o, ',');
	gtr_baseline_write_fields(o, x->fingerprint, x->bytes, &x->m);
	gtr_out_str(o, ",\"baseline\":");
	if (!x->base) {
		gtr_out_str(o, "null");
	} else {
		gtr_out_str(o, "{\"fingerprint\":");
		if (x->base->have_fingerprint)
			gtr_out_printf(o, "\"%016llx\"", (unsigned long long)x->base->fingerprint);
		else
			gtr_out_str(o, "null");
		gtr_out_str(o, ",\"metrics\":");
		json_metrics(o, &x->base->m);
		gtr_out_char(o, '}');
	}
	gtr_out_str(o, ",\"changes\":[");
	for (size_t k = 0; k < x->nchanges; k++) {
		const gtr_change *c = &x->changes[k];
		gtr_out_printf(o, "%s{\"metric\":\"%s\",\"function\":", k ? "," : "",
			       gtr_metric_name(c->metric));
		if (c->func)
			json_cstr(o, c->func);
		else
			gtr_out_str(o, "null");
		gtr_out_printf(o, ",\"baseline\":%llu,\"current\":%llu,\"pct\":",
			       (unsigned long long)c->base, (unsigned long long)c->cur);
		if (c->base == 0 && c->cur != 0)
			gtr_out_str(o, "null");
		else
			gtr_out_printf(o, "%.3f", c->pct);
		gtr_out_printf(o, ",\"threshold_pct\":%g,\"change\":\"%s\"}", c->threshold,
			       c->verdict == GTR_WORSE ? "worse" : c->verdict == GTR_BETTER ? "better" : "same");
	}
	gtr_out_char(o, ']');
}

void gtr_check_write_jsonl(const gtr_check_result *r, size_t n, gtr_out *o)
{
	for (size_t i = 0; i < n; i++) {
		gtr_out_str(o, "{\"schema\":\"gtr.check.row.v1\",");
		json_row(o, &r[i]);
		gtr_out_str(o, "}\n");
	}
}

void gtr_check_write_json(const gtr_check_result *r, size_t n, const gtr_check_report_opts *opts,
			  gtr_out *o)
{
	gtr_check_summary s;
	gtr_check_summarize(r, n, opts->baseline, &s);
	const char *result = s.regressed ? "regressed" : s.errors ? "error" : "ok";
	gtr_out_str(o, "{\"schema\":\"gtr.check.v1\",\"baseline\":");
	json_cstr(o, opts->baseline_path);
	gtr_out_printf(o, ",\"baseline_updated\":%s,\"jobs\":%u,\"seconds\":%.3f,\"thresholds\":",
		       opts->updated ? "true" : "false", opts->jobs, opts->seconds);
	json_thresholds(o, opts->th);
	gtr_out_printf(o, ",\"min_delta_ns\":%llu,\"result\":\"%s\",\"exit_status\":%d,",
		       (unsigned long long)opts->th->min_delta, result, opts->exit_status);
	gtr_out_printf(o, "\"summary\":{\"traces\":%zu,\"ok\":%zu,\"regressed\":%zu,\"errors\":%zu,"
			  "\"new\":%zu,\"unchanged\":%zu,\"changed\":%zu,\"not_checked\":%zu},\n\"traces\":[\n",
		       s.traces, s.ok, s.regressed, s.errors, s.fresh, s.unchanged, s.changed,
		       s.not_checked);
	for (size_t i = 0; i < n; i++) {
		gtr_out_char(o, '{');
		json_row(o, &r[i]);
		gtr_out_str(o, i + 1 < n ? "},\n" : "}\n");
	}
	gtr_out_str(o, "],\n\"not_checked\":[");
	for (size_t i = 0, j = 0, k = 0; opts->baseline && i < opts->baseline->n; i++) {
		const char *name = opts->baseline->e[i].name;
		while (j < n && strcmp(r[j].in->name, name) < 0)
			j++;
		if (j < n && strcmp(r[j].in->name, name) == 0)
			continue;
		gtr_out_str(o, k++ ? "," : "");
		json_cstr(o, name);
	}
	gtr_out_str(o, "]}\n");
}

/*
 * Text for XML content (attr 0) or attributes (attr 1): markup escaped,
 * control characters replaced; line breaks stay literal in content.
 */
static void xml_escape(gtr_out *o, const char *s, size_t n, int attr)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '&': gtr_out_str(o, "&amp;"); break;
		case '<': gtr_out_str(o, "&lt;"); break;
		case '>': gtr_out_str(o, "&gt;"); break;
		case '"': gtr_out_str(o, "&quot;"); break;
		case '\'': gtr_out_str(o, "&apos;"); break;
		case '\n': gtr_out_str(o, attr ? "&#10;" : "\n"); break;
		case '\t': gtr_out_str(o, "&#9;"); break;
		default:
			if (c >= 0x20)
				gtr_out_char(o, (char)c);
			else
				gtr_out_char(o, '?');
		}
	}
}

static void xml_piece(void *ctx, const char *p, size_t n)
{
	xml_escape(ctx, p, n, 1);
}

/* A name or message: io/name.h's escape (XML 1.0 cannot hold most control characters), then markup. */
static void xml_cstr(gtr_out *o, const char *s)
{
	gtr_name_pieces(s, strlen(s), xml_piece, o);
}

/*
 * The regressions of r as XML text, through a scratch writer: in short
 * ("max slice +254.4%, Tmax_stw +241.2%") for a message attribute, or in
 * full, one per line, for the element's body.
 */
static void xml_regressions(gtr_out *o, const gtr_check_result *r, gtr_out *tmp, int brief)
{
	gtr_out_init(tmp, -1);
	for (size_t i = 0, k = 0; i < r->nchanges; i++) {
		const gtr_change *c = &r->changes[i];
		if (c->verdict != GTR_WORSE)
			continue;
		if (k++)
			gtr_out_str(tmp, brief ? ", " : "\n");
		if (brief) {
			gtr_out_str(tmp, gtr_metric_label(c->metric));
			if (c->func)
				gtr_out_printf(tmp, " %s", c->func);
			gtr_out_char(tmp, ' ');
			gtr_out_pct(tmp, c->base, c->cur);
		} else {
			gtr_out_change(tmp, c);
		}
	}
	xml_escape(o, tmp->buf, tmp->err ? 0 : tmp->len, brief);
}

void gtr_check_write_junit(const gtr_check_result *r, size_t n, const gtr_check_report_opts *opts,
			   gtr_out *o)
{
	gtr_check_summary s;
	gtr_check_summarize(r, n, opts->baseline, &s);
	gtr_out *tmp = malloc(sizeof *tmp);
	gtr_out_str(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	gtr_out_printf(o, "<testsuites name=\"gtr check\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
			  "time=\"%.3f\">\n",
		       s.traces, s.regressed, s.errors, opts->seconds);
	gtr_out_printf(o, "  <testsuite name=\"gtr check\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
			  "skipped=\"0\" time=\"%.3f\">\n",
		       s.traces, s.regressed, s.errors, opts->seconds);
	gtr_out_str(o, "    <properties>\n      <property name=\"baseline\" value=\"");
	xml_cstr(o, opts->baseline_path);
	gtr_out_str(o, "\"/>\n");
	for (int m = 0; m < GTR_METRICS_ALL; m++)
		if (opts->th->pct[m] >= 0)
			gtr_out_printf(o, "      <property name=\"threshold.%s\" value=\"+%g%%\"/>\n",
				       gtr_metric_name(m), opts->th->pct[m]);
	gtr_out_str(o, "    </properties>\n");
	for (size_t i = 0; i < n; i++) {
		const gtr_check_result *x = &r[i];
		gtr_out_str(o, "    <testcase classname=\"gtr.check\" name=\"");
		xml_cstr(o, x->in->name);
		gtr_out_printf(o, "\" time=\"%.3f\"", x->seconds);
		if (x->status == GTR_CHECK_ERROR) {
			gtr_out_str(o, ">\n      <error type=\"unreadable\" message=\"");
			xml_cstr(o, x->error);
			gtr_out_str(o, "\">");
			xml_cstr(o, x->in->path);
			gtr_out_str(o, ": ");
			xml_cstr(o, x->error);
			gtr_out_str(o, "</error>\n    </testcase>\n");
		} else if (x->status == GTR_CHECK_REGRESSED && tmp) {
			gtr_out_str(o, ">\n      <failure type=\"regression\" message=\"");
			xml_regressions(o, x, tmp, 1);
			gtr_out_str(o, "\">");
			xml_regressions(o, x, tmp, 0);
			gtr_out_str(o, "</failure>\n    </testcase>\n");
		} else {
			gtr_out_str(o, ">\n      <system-out>");
			if (x->status == GTR_CHECK_NEW)
				gtr_out_str(o, "not in the baseline");
			else
				gtr_out_str(o, x->changed ? "changed, within the thresholds"
							  : "unchanged, within the thresholds");
			gtr_out_str(o, "</system-out>\n    </testcase>\n");
		}
	}
	gtr_out_str(o, "  </testsuite>\n</testsuites>\n");
	free(tmp);
}

void gtr_check_write_baseline(const gtr_check_result *r, size_t n, const gtr_baseline *old,
			      gtr_out *o)
{
	gtr_out_str(o, "{\"schema\":\"gtr.baseline.v1\",\"traces\":[\n");
	size_t i = 0, j = 0, k = 0;
	size_t nold = old ? old->n : 0;
	/* Merge by name: a result with metrics replaces the old entry of its name. */
	while (i < n || j < nold) {
		int c = i == n ? 1 : j == nold ? -1 : strcmp(r[i].in->name, old->e[j].name);
		const char *name;
		uint64_t fp, bytes;
		const gtr_metrics *m;
		if (c <= 0 && r[i].status != GTR_CHECK_ERROR) {
			name = r[i].in->name;
			fp = r[i].fingerprint;
			bytes = r[i].bytes;
			m = &r[i].m;
		} else if (c >= 0) {
			name = old->e[j].name;
			fp = old->e[j].fingerprint;
			bytes = old->e[j].bytes;
			m = &old->e[j].m;
		} else {
			i++; /* an unreadable trace with no old entry: nothing to keep */
			continue;
		}
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
		gtr_out_str(o, k++ ? ",\n{\"name\":" : "{\"name\":");
		json_cstr(o, name);
		gtr_out_char(o, ',');
		gtr_baseline_write_fields(o, fp, bytes, m);
		gtr_out_char(o, '}');
	}
	gtr_out_str(o, k ? "\n]}\n" : "]}\n");
}
