/* core/gate/check.c: inputs, the worker pool, baselines, and the check reports. */
#include "core/gate/check.h"
#include "core/analysis/analyze.h"
#include "core/report/diff_report.h"
#include "io/meter.h"
#include "core/base/json.h"
#include "core/report/report.h"
#include "io/name.h"
#include "core/base/samplestat.h"

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
	snprintf(buf, cap, "%s%s", gtr_metric_name(m), gtr_metric_is_time(m) ? "_ns" : gtr_metric_is_share(m) ? "_ppm" : "");
	return buf;
}

static void entry_free(gtr_baseline_entry *e)
{
	free(e->name);
	gtr_metrics_free(&e->m);
}

void gtr_baseline_free(gtr_baseline *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		for (size_t k = 0; k < b->c[i].nruns; k++)
			entry_free(&b->c[i].runs[k]);
		free(b->c[i].runs);
		free(b->c[i].name);
	}
	free(b->c);
	free(b);
}

static int cmp_case(const void *a, const void *b)
{
	return strcmp(((const gtr_baseline_case *)a)->name, ((const gtr_baseline_case *)b)->name);
}

const gtr_baseline_case *gtr_baseline_find(const gtr_baseline *b, const char *name)
{
	if (!b)
		return NULL;
	size_t lo = 0, hi = b->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(b->c[mid].name, name);
		if (c == 0)
			return &b->c[mid];
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
	if (!metrics || metrics->type != GTR_JSON_OBJ)
		return 0; /* nothing to compare against: an error in a report, say */
	if (name && !(e->name = strdup(name)))
		return GTR_E_NOMEM;
	if (e->name)
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
	const gtr_json *partial = gtr_json_get(t, "partial");
	e->m.partial = partial && partial->type == GTR_JSON_BOOL && partial->boolean;
	char key[64];
	for (int m = 0; m < GTR_M_N; m++)
		if (!gtr_metric_is_derived(m))
			e->m.known[m] = (uint8_t)gtr_json_uint(gtr_json_get(metrics, metric_key(m, key, sizeof key)),
							       &e->m.v[m]);
	gtr_metrics_derive(&e->m);
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

/* --- validation: every field a baseline is read by, with its JSON path --- */

static const char *json_type_name(const gtr_json *v)
{
	switch (v->type) {
	case GTR_JSON_NULL: return "null";
	case GTR_JSON_BOOL: return v->boolean ? "true" : "false";
	case GTR_JSON_NUM: return v->is_uint ? "an integer" : "a number that is not a non-negative integer";
	case GTR_JSON_STR: return "a string";
	case GTR_JSON_ARR: return "an array";
	default: return "an object";
	}
}

/* A JSON path being built: "$.cases[2].runs[0]". */
typedef struct jpath {
	char s[512];
	size_t n;
} jpath;

static size_t jp_grew(jpath *p, size_t was, int k)
{
	if (k > 0)
		p->n = p->n + (size_t)k < sizeof p->s ? p->n + (size_t)k : sizeof p->s - 1;
	return was;
}

/* Adds ".key" to the path; returns its length before, for jp_pop. */
static size_t jp_key(jpath *p, const char *key)
{
	return jp_grew(p, p->n, snprintf(p->s + p->n, sizeof p->s - p->n, ".%s", key));
}

/* Adds "name[i]" (name such as ".runs") to the path. */
static size_t jp_idx(jpath *p, const char *name, size_t i)
{
	return jp_grew(p, p->n, snprintf(p->s + p->n, sizeof p->s - p->n, "%s[%zu]", name, i));
}

static void jp_pop(jpath *p, size_t was)
{
	p->n = was;
	p->s[was] = 0;
}

static int bad(gtr_error *err, const jpath *p, const gtr_json *at, const gtr_json *parent, const char *what)
{
	uint64_t off = at ? at->off : parent ? parent->off : 0;
	if (at)
		return gtr_error_set(err, GTR_E_CORRUPT, off, "%s: want %s, got %s", p->s, what,
				     json_type_name(at));
	return gtr_error_set(err, GTR_E_CORRUPT, off, "%s: missing (want %s)", p->s, what);
}

/* Member `key` of obj must be there (when required) and of the type asked. */
enum { J_UINT, J_STR, J_OBJ, J_ARR, J_BOOL, J_STR_OR_NULL };

static int want(const gtr_json *obj, const char *key, int type, int required, jpath *p,
		gtr_error *err, const gtr_json **out)
{
	static const char *const names[] = {"a non-negative integer", "a string", "an object",
					    "an array", "true or false", "a string or null"};
	const gtr_json *v = gtr_json_get(obj, key);
	if (out)
		*out = v;
	if (!v && !required)
		return 0;
	size_t was = jp_key(p, key);
	int ok = v && ((type == J_UINT && v->type == GTR_JSON_NUM && v->is_uint) ||
		       (type == J_STR && v->type == GTR_JSON_STR) || (type == J_OBJ && v->type == GTR_JSON_OBJ) ||
		       (type == J_ARR && v->type == GTR_JSON_ARR) || (type == J_BOOL && v->type == GTR_JSON_BOOL) ||
		       (type == J_STR_OR_NULL && (v->type == GTR_JSON_STR || v->type == GTR_JSON_NULL)));
	int rc = ok ? 0 : bad(err, p, v, obj, names[type]);
	jp_pop(p, was);
	return rc;
}

/* One run object: what gtr_baseline_entry_read reads, checked. */
static int validate_run(const gtr_json *r, int schema, jpath *p, gtr_error *err)
{
	if (r->type != GTR_JSON_OBJ)
		return bad(err, p, r, NULL, "an object");
	const gtr_json *v, *go, *metrics, *fns, *top;
	int rc;
	if ((rc = want(r, "fingerprint", J_STR, 1, p, err, &v)) < 0)
		return rc;
	uint64_t fp;
	if (!parse_hex64(v->str, &fp)) {
		size_t was = jp_key(p, "fingerprint");
		rc = gtr_error_set(err, GTR_E_CORRUPT, v->off, "%s: want 16 lower-case hex digits, got \"%.40s\"",
				   p->s, v->str);
		jp_pop(p, was);
		return rc;
	}
	if ((rc = want(r, "bytes", J_UINT, 1, p, err, NULL)) < 0 || (rc = want(r, "go", J_OBJ, 1, p, err, &go)) < 0 ||
	    (rc = want(r, "partial", J_BOOL, 0, p, err, NULL)) < 0 ||
	    (rc = want(r, "metrics", J_OBJ, 1, p, err, &metrics)) < 0 ||
	    (rc = want(r, "functions", J_ARR, schema >= 2, p, err, &fns)) < 0 ||
	    (rc = want(r, "top_slices", J_ARR, 0, p, err, &top)) < 0)
		return rc;
	size_t was = jp_key(p, "go");
	if ((rc = want(go, "trace", J_STR, 1, p, err, &v)) < 0 ||
	    (rc = want(go, "runtime", J_STR_OR_NULL, 0, p, err, NULL)) < 0) {
		jp_pop(p, was);
		return rc;
	}
	if (strncmp(v->str, "1.", 2) != 0 || atoi(v->str + 2) < 5 || atoi(v->str + 2) > 99) {
		jp_key(p, "trace");
		rc = gtr_error_set(err, GTR_E_CORRUPT, v->off, "%s: want a trace version such as \"1.26\", got \"%.20s\"",
				   p->s, v->str);
		jp_pop(p, was);
		return rc;
	}
	jp_pop(p, was);
	was = jp_key(p, "metrics");
	char key[64];
	for (int m = 0; m < GTR_M_N; m++) {
		if (gtr_metric_is_derived(m))
			continue; /* computed from the others on reading */
		/* A gtr.baseline.v1 predates stw_time: it is not compared there. */
		int required = schema >= 2 || m != GTR_M_STW_TIME;
		if ((rc = want(metrics, metric_key(m, key, sizeof key), J_UINT, required, p, err, NULL)) < 0) {
			jp_pop(p, was);
			return rc;
		}
	}
	jp_pop(p, was);
	for (size_t i = 0; fns && i < fns->n; i++) {
		was = jp_idx(p, ".functions", i);
		const gtr_json *f = &fns->items[i];
		if (f->type != GTR_JSON_OBJ)
			rc = bad(err, p, f, NULL, "an object");
		else if ((rc = want(f, "function", J_STR, 1, p, err, NULL)) == 0 &&
			 (rc = want(f, "exec_ns", J_UINT, 1, p, err, NULL)) == 0 &&
			 (rc = want(f, "goroutines", J_UINT, 0, p, err, NULL)) == 0 &&
			 (rc = want(f, "max_slice_ns", J_UINT, 0, p, err, NULL)) == 0)
			rc = want(f, "slices", J_UINT, 0, p, err, NULL);
		jp_pop(p, was);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int validate_name(const gtr_json *obj, jpath *p, gtr_error *err, const char **name)
{
	const gtr_json *v;
	int rc = want(obj, "name", J_STR, 1, p, err, &v);
	if (rc < 0)
		return rc;
	if (v->len == 0 || strlen(v->str) != v->len) {
		size_t was = jp_key(p, "name");
		rc = gtr_error_set(err, GTR_E_CORRUPT, v->off, "%s: want a non-empty name without NUL bytes", p->s);
		jp_pop(p, was);
		return rc;
	}
	*name = v->str;
	return 0;
}

/* Appends run object r to case c (validated first). 1 added, 0 skipped (an error in a report), < 0. */
static int add_run(gtr_baseline_case *c, const gtr_json *r, int schema, int report, jpath *p, gtr_error *err)
{
	if (report) {
		const char *st = gtr_json_string(gtr_json_get(r, "status"));
		if (r->type == GTR_JSON_OBJ && st && strcmp(st, "error") == 0)
			return 0;
	}
	int rc = validate_run(r, schema, p, err);
	if (rc < 0)
		return rc;
	gtr_baseline_entry *e = &c->runs[c->nruns];
	rc = gtr_baseline_entry_read(r, e);
	if (rc < 0) {
		entry_free(e);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	c->nruns++;
	return 1;
}

int gtr_baseline_parse(const char *text, size_t len, gtr_baseline **out, gtr_error *err)
{
	*out = NULL;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		return gtr_error_set(err, GTR_E_CORRUPT, 0,
				     "the baseline starts with a UTF-8 byte order mark: JSON is written without one");
	gtr_json *root;
	int rc = gtr_json_parse(text, len, &root, err);
	if (rc < 0)
		return rc;
	jpath p = {.s = "$", .n = 1};
	const gtr_json *sv, *list = NULL;
	int schema = 0, report = 0;
	if (root->type != GTR_JSON_OBJ) {
		rc = bad(err, &p, root, NULL, "an object with a schema");
		goto fail;
	}
	if ((rc = want(root, "schema", J_STR, 1, &p, err, &sv)) < 0)
		goto fail;
	if (strcmp(sv->str, "gtr.baseline.v2") == 0)
		schema = 2;
	else if (strcmp(sv->str, "gtr.check.v2") == 0)
		schema = 2, report = 1;
	else if (strcmp(sv->str, "gtr.baseline.v1") == 0)
		schema = 1;
	else if (strcmp(sv->str, "gtr.check.v1") == 0)
		schema = 1, report = 1;
	if (!schema) {
		rc = gtr_error_set(err, GTR_E_CORRUPT, sv->off,
				   "$.schema: unknown schema \"%.60s\" (gtr reads gtr.baseline.v2 and v1, and "
				   "gtr check's reports gtr.check.v2 and v1)",
				   sv->str);
		goto fail;
	}
	if ((rc = want(root, schema == 2 ? "cases" : "traces", J_ARR, 1, &p, err, &list)) < 0)
		goto fail;
	gtr_baseline *b = calloc(1, sizeof *b);
	if (!b || !(b->c = calloc(list->n ? list->n : 1, sizeof *b->c))) {
		free(b);
		gtr_json_free(root);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	b->schema = schema;
	for (size_t i = 0; i < list->n; i++) {
		const gtr_json *item = &list->items[i];
		size_t was = jp_idx(&p, schema == 2 ? ".cases" : ".traces", i);
		const char *name = NULL;
		gtr_baseline_case *c = &b->c[b->n];
		if (item->type != GTR_JSON_OBJ) {
			rc = bad(err, &p, item, NULL, "an object");
			goto fail_b;
		}
		if ((rc = validate_name(item, &p, err, &name)) < 0)
			goto fail_b;
		const gtr_json *runs = NULL;
		if (schema == 2 && (rc = want(item, "runs", J_ARR, 1, &p, err, &runs)) < 0)
			goto fail_b;
		size_t nr = schema == 2 ? runs->n : 1;
		if (!(c->name = strdup(name)) || !(c->runs = calloc(nr ? nr : 1, sizeof *c->runs))) {
			b->n++;
			rc = gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
			goto fail_b;
		}
		b->n++;
		gtr_name_unescape(c->name); /* written with io/name.h's escape */
		if (schema == 2) {
			for (size_t k = 0; k < runs->n; k++) {
				size_t w2 = jp_idx(&p, ".runs", k);
				rc = add_run(c, &runs->items[k], schema, report, &p, err);
				jp_pop(&p, w2);
				if (rc < 0)
					goto fail_b;
			}
		} else {
			if ((rc = add_run(c, item, schema, report, &p, err)) < 0)
				goto fail_b;
		}
		if (c->nruns == 0 && !report) {
			rc = gtr_error_set(err, GTR_E_CORRUPT, item->off, "%s.runs: a case needs at least one run", p.s);
			goto fail_b;
		}
		if (c->nruns == 0) {
			/* A report's case whose traces were all unreadable: nothing to keep. */
			free(c->name);
			free(c->runs);
			b->n--;
		}
		jp_pop(&p, was);
	}
	gtr_json_free(root);
	qsort(b->c, b->n, sizeof *b->c, cmp_case);
	for (size_t i = 1; i < b->n; i++)
		if (strcmp(b->c[i].name, b->c[i - 1].name) == 0) {
			char name[200];
			snprintf(name, sizeof name, "%s", b->c[i].name);
			gtr_baseline_free(b);
			return gtr_error_set(err, GTR_E_CORRUPT, 0, "the baseline has two cases named %s", name);
		}
	*out = b;
	return 0;
fail_b:
	gtr_baseline_free(b);
fail:
	gtr_json_free(root);
	return rc;
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
		rc = opts->fast ? gtr_metrics_compute_fast(t, opts->ntop, opts->jobs > 1 ? 1 : 0, &r->m,
							   NULL, &err)
				: gtr_metrics_compute_jobs(t, opts->ntop, opts->jobs > 1 ? 1 : 0, &r->m, &err);
	if (rc == 0) {
		gtr_loss loss;
		gtr_trace_loss(t, &loss);
		if (gtr_loss_any(&loss))
			gtr_loss_summary(&loss, map.size, r->warning, sizeof r->warning);
		if (r->m.events == 0) {
			/* Read leniently, nothing of it was readable: no figures to judge. */
			gtr_metrics_free(&r->m);
			rc = gtr_error_set(&err, GTR_E_CORRUPT, 16, "no event could be read (%s)",
					   r->warning[0] ? r->warning : "the trace holds none");
			r->warning[0] = 0;
		}
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
	r->status = GTR_CHECK_OK;
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

/* --- judging, case by case --- */

typedef struct cvec {
	gtr_check_case *v;
	size_t n, cap;
} cvec;

static gtr_check_case *cvec_add(cvec *cv)
{
	if (cv->n == cv->cap) {
		size_t ncap = cv->cap ? cv->cap * 2 : 32;
		gtr_check_case *nv = realloc(cv->v, ncap * sizeof *nv);
		if (!nv)
			return NULL;
		cv->v = nv;
		cv->cap = ncap;
	}
	gtr_check_case *c = &cv->v[cv->n++];
	memset(c, 0, sizeof *c);
	return c;
}

static int has_fingerprint(const gtr_baseline_case *b, uint64_t fp)
{
	for (size_t i = 0; i < b->nruns; i++)
		if (b->runs[i].have_fingerprint && b->runs[i].fingerprint == fp)
			return 1;
	return 0;
}

/* Compares one case's readable runs with its baseline runs. */
static int judge_case(gtr_check_case *c, const gtr_thresholds *th)
{
	size_t nc = 0;
	for (size_t i = 0; i < c->nruns; i++) {
		const gtr_check_result *r = &c->runs[i];
		if (r->status == GTR_CHECK_ERROR) {
			c->errors++;
			continue;
		}
		nc++;
		c->partial += r->m.partial != 0;
		if (c->base && !has_fingerprint(c->base, r->fingerprint))
			c->changed = 1;
	}
	if (!c->base) {
		c->status = c->errors ? GTR_CHECK_ERROR : GTR_CHECK_NEW;
		return 0;
	}
	if (nc == 0) {
		c->status = GTR_CHECK_ERROR;
		return 0;
	}
	const gtr_metrics **cur = malloc(nc * sizeof *cur);
	const gtr_metrics **base = malloc(c->base->nruns * sizeof *base);
	if (!cur || !base) {
		free(cur);
		free(base);
		return GTR_E_NOMEM;
	}
	for (size_t i = 0, k = 0; i < c->nruns; i++)
		if (c->runs[i].status != GTR_CHECK_ERROR)
			cur[k++] = &c->runs[i].m;
	for (size_t i = 0; i < c->base->nruns; i++)
		base[i] = &c->base->runs[i].m;
	int v = gtr_compare_runs(base, c->base->nruns, cur, nc, th, &c->changes, &c->nchanges, &c->info);
	free(cur);
	free(base);
	if (v < GTR_BETTER)
		return GTR_E_NOMEM;
	c->verdict = (gtr_verdict)v;
	/* A regression is what CI asks about, even when a run could not be read. */
	c->status = v == GTR_WORSE ? GTR_CHECK_REGRESSED : c->errors ? GTR_CHECK_ERROR : GTR_CHECK_OK;
	return 0;
}

static int cmp_case_name(const void *a, const void *b)
{
	return strcmp(((const gtr_check_case *)a)->name, ((const gtr_check_case *)b)->name);
}

int gtr_check_judge(const gtr_check_result *r, size_t n, const gtr_baseline *b,
		    const gtr_thresholds *th, gtr_check_case **cases, size_t *ncases)
{
	cvec cv = {0};
	*cases = NULL;
	*ncases = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && strcmp(r[j].in->case_name, r[i].in->case_name) == 0)
			j++;
		gtr_check_case *c = cvec_add(&cv);
		if (!c)
			goto nomem;
		c->name = r[i].in->case_name;
		c->runs = &r[i];
		c->nruns = j - i;
		c->base = gtr_baseline_find(b, c->name);
		if (judge_case(c, th) < 0)
			goto nomem;
		i = j;
	}
	/* Baseline cases with no trace at all. */
	for (size_t i = 0; b && i < b->n; i++) {
		int found = 0;
		for (size_t k = 0; k < cv.n && !found; k++)
			found = strcmp(cv.v[k].name, b->c[i].name) == 0;
		if (found)
			continue;
		gtr_check_case *c = cvec_add(&cv);
		if (!c)
			goto nomem;
		c->name = b->c[i].name;
		c->base = &b->c[i];
		c->status = GTR_CHECK_MISSING;
	}
	if (cv.n > 1)
		qsort(cv.v, cv.n, sizeof *cv.v, cmp_case_name);
	*cases = cv.v;
	*ncases = cv.n;
	return 0;
nomem:
	gtr_check_cases_free(cv.v, cv.n);
	return GTR_E_NOMEM;
}

void gtr_check_cases_free(gtr_check_case *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++)
		free(c[i].changes);
	free(c);
}

void gtr_check_results_free(gtr_check_result *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		gtr_metrics_free(&r[i].m);
	free(r);
}

void gtr_check_summarize(const gtr_check_case *c, size_t n, gtr_check_summary *s)
{
	memset(s, 0, sizeof *s);
	s->cases = n;
	for (size_t i = 0; i < n; i++) {
		s->runs += c[i].nruns;
		s->partial += c[i].partial;
		switch (c[i].status) {
		case GTR_CHECK_OK: s->ok++; break;
		case GTR_CHECK_NEW: s->fresh++; break;
		case GTR_CHECK_REGRESSED: s->regressed++; break;
		case GTR_CHECK_ERROR: s->errors++; break;
		case GTR_CHECK_MISSING: s->missing++; break;
		}
		if (c[i].base && c[i].nruns > c[i].errors) {
			*(c[i].changed ? &s->changed : &s->unchanged) += 1;
			*(c[i].info.mode == GTR_CMP_STAT ? &s->stat : &s->few) += 1;
		}
	}
}

int gtr_check_exit_status(const gtr_check_case *c, size_t n, int fail_on_missing)
{
	gtr_check_summary s;
	gtr_check_summarize(c, n, &s);
	if (s.regressed)
		return 3;
	return s.errors || (fail_on_missing && s.missing) ? 1 : 0;
}

/* --- reports --- */

static const char *status_word(gtr_check_status s)
{
	switch (s) {
	case GTR_CHECK_OK: return "ok";
	case GTR_CHECK_NEW: return "new";
	case GTR_CHECK_REGRESSED: return "regressed";
	case GTR_CHECK_MISSING: return "missing";
	default: return "error";
	}
}

/* "p=0.008" or, with the runs too few for the test, nothing. */
static void out_p(gtr_out *o, const gtr_change *c)
{
	if (c->p < 0)
		return;
	if (c->p < 0.001)
		gtr_out_str(o, "p<0.001");
	else
		gtr_out_printf(o, "p=%.3f", c->p);
}

/*
 * One metric in words. Changed: "exec time +98.2% (24.8 ms -> 49.1 ms,
 * p=0.008, over +20%)"; not: "exec time +3.1% ~ (p=0.42)" when the test
 * said nothing, "exec time +3.1%" when it did but the change is small.
 */
static void text_change(gtr_out *o, const gtr_change *c)
{
	if (c->verdict != GTR_SAME) {
		gtr_out_change(o, c);
		return;
	}
	gtr_out_printf(o, "%s", gtr_metric_label(c->metric));
	if (c->func) {
		gtr_out_char(o, ' ');
		gtr_out_name(o, c->func, strlen(c->func));
	}
	gtr_out_char(o, ' ');
	gtr_out_pct(o, c->base, c->cur);
	if (c->p >= 0 && !c->significant) {
		gtr_out_str(o, " ~ (");
		out_p(o, c);
		gtr_out_char(o, ')');
	} else if (c->p >= 0) {
		/* A real change, but too small to count. */
		double pct = gtr_pct_of(c->base, c->cur);
		gtr_out_str(o, " (");
		out_p(o, c);
		if (pct <= c->threshold && pct >= (1.0 / (1.0 + c->threshold / 100.0) - 1.0) * 100.0)
			gtr_out_printf(o, ", within %g%%)", c->threshold);
		else
			gtr_out_str(o, ", under the minimum change)");
	}
}

/* How the case was compared: "5 vs 5 runs" or "1 vs 1 run, not statistical". */
static void text_mode(gtr_out *o, const gtr_check_case *c)
{
	const gtr_cmp_info *in = &c->info;
	gtr_out_printf(o, "%zu vs %zu run%s", in->nb, in->nc, in->nc == 1 ? "" : "s");
	if (in->mode == GTR_CMP_FEW)
		gtr_out_printf(o, ", not statistical (need >= %zu runs a side)", in->need);
	if (in->funcs_untested)
		gtr_out_printf(o, ", %zu smaller function figure%s not tested (more runs test more)",
			       in->funcs_untested, in->funcs_untested == 1 ? "" : "s");
}

static void text_changes(const gtr_check_case *c, gtr_out *o)
{
	static const gtr_verdict order[3] = {GTR_WORSE, GTR_BETTER, GTR_SAME};
	size_t k = 0;
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < c->nchanges; i++) {
			const gtr_change *x = &c->changes[i];
			if (x->verdict != order[pass] || (x->verdict == GTR_SAME && x->func))
				continue;
			if (x->verdict == GTR_SAME && x->base == 0 && x->cur == 0)
				continue; /* nothing on either side: nothing to say */
			gtr_out_str(o, k++ ? ", " : ": ");
			text_change(o, x);
		}
	}
	if (!k && c->nchanges)
		gtr_out_str(o, ": every metric gated is 0 on both sides");
	else if (!k)
		gtr_out_str(o, ": no metric gated (give --threshold METRIC=PCT to gate one anyway)");
}

/* The newest readable run of a case, for its version cell; NULL when none. */
static const gtr_check_result *last_run(const gtr_check_case *c)
{
	for (size_t i = c->nruns; i-- > 0;)
		if (c->runs[i].status != GTR_CHECK_ERROR)
			return &c->runs[i];
	return NULL;
}

/* "go 1.26", with the runtime release when the trace names it: "go 1.22 (go1.22.3)". */
static void version_cell(const gtr_check_case *c, char *buf, size_t cap)
{
	const gtr_check_result *r = last_run(c);
	if (!r)
		snprintf(buf, cap, "-");
	else if (r->m.runtime[0])
		snprintf(buf, cap, "go 1.%d (%s)", r->m.version, r->m.runtime);
	else
		snprintf(buf, cap, "go 1.%d", r->m.version);
}

/* The first error among a case's runs: "3.trace: at byte 48: ..." */
static void text_errors(const gtr_check_case *c, gtr_out *o)
{
	size_t k = 0;
	for (size_t i = 0; i < c->nruns; i++) {
		const gtr_check_result *r = &c->runs[i];
		if (r->status != GTR_CHECK_ERROR)
			continue;
		if (k++ == 0) {
			if (c->nruns > 1) {
				gtr_out_name(o, r->in->name, strlen(r->in->name));
				gtr_out_str(o, ": ");
			}
			gtr_out_str(o, r->error);
		}
	}
	if (k > 1)
		gtr_out_printf(o, " (and %zu more unreadable runs)", k - 1);
}

void gtr_check_write_text(const gtr_check_case *c, size_t n, const gtr_check_report_opts *opts,
			  gtr_out *o)
{
	size_t w = 0, vw = 0;
	for (size_t i = 0; i < n; i++) {
		char ver[64];
		version_cell(&c[i], ver, sizeof ver);
		size_t len = gtr_name_escape(c[i].name, strlen(c[i].name), NULL, 0);
		if (len > w)
			w = len;
		if (strlen(ver) > vw)
			vw = strlen(ver);
	}
	if (w > 60)
		w = 60;
	gtr_check_summary s;
	gtr_check_summarize(c, n, &s);
	gtr_out_printf(o, "gtr check: %zu case%s (%zu run%s) against ", n, n == 1 ? "" : "s", s.runs,
		       s.runs == 1 ? "" : "s");
	gtr_out_name(o, opts->baseline_path, strlen(opts->baseline_path));
	gtr_out_printf(o, ", %u thread%s; Mann-Whitney U test, alpha %g\n", opts->jobs,
		       opts->jobs == 1 ? "" : "s", opts->th->alpha);
	for (size_t i = 0; i < n; i++) {
		const gtr_check_case *x = &c[i];
		if (opts->quiet && (x->status == GTR_CHECK_OK || x->status == GTR_CHECK_NEW ||
				    (x->status == GTR_CHECK_MISSING && !opts->fail_on_missing)))
			continue;
		const char *word = x->status == GTR_CHECK_REGRESSED ? "REGRESSED"
				   : x->status == GTR_CHECK_ERROR   ? "ERROR"
				   : x->status == GTR_CHECK_MISSING ? (opts->fail_on_missing ? "MISSING" : "missing")
								    : status_word(x->status);
		gtr_out_printf(o, "%-9s  ", word);
		gtr_out_name(o, x->name, strlen(x->name));
		for (size_t k = gtr_name_escape(x->name, strlen(x->name), NULL, 0); k < w; k++)
			gtr_out_char(o, ' ');
		char ver[64];
		version_cell(x, ver, sizeof ver);
		gtr_out_printf(o, "  %-*s  ", (int)vw, ver);
		if (x->status == GTR_CHECK_MISSING) {
			gtr_out_printf(o, "in the baseline (%zu run%s), but no trace of it was given", x->base->nruns,
				       x->base->nruns == 1 ? "" : "s");
		} else if (!x->base) {
			if (x->errors)
				text_errors(x, o);
			else
				gtr_out_printf(o, "not in the baseline (%zu run%s)", x->nruns, x->nruns == 1 ? "" : "s");
		} else if (x->errors == x->nruns) {
			text_errors(x, o);
		} else {
			gtr_out_str(o, x->changed ? "changed, " : "unchanged, ");
			text_mode(o, x);
			text_changes(x, o);
			if (x->errors) {
				gtr_out_str(o, "; ");
				text_errors(x, o);
			}
		}
		if (x->partial)
			gtr_out_printf(o, " [partial: %zu run%s read in part]", x->partial, x->partial == 1 ? "" : "s");
		gtr_out_char(o, '\n');
	}
	gtr_out_printf(o, "\n%zu case%s: %zu ok, %zu regressed, %zu error%s, %zu new, %zu missing; %zu "
			  "unchanged, %zu changed",
		       s.cases, s.cases == 1 ? "" : "s", s.ok, s.regressed, s.errors, s.errors == 1 ? "" : "s",
		       s.fresh, s.missing, s.unchanged, s.changed);
	if (s.few)
		gtr_out_printf(o, "; %zu compared without statistics (too few runs)", s.few);
	if (s.partial)
		gtr_out_printf(o, "; %zu run%s read in part", s.partial, s.partial == 1 ? "" : "s");
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
		if (!m->known[i] || gtr_metric_is_derived(i))
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
	gtr_out_printf(o, "},\"partial\":%s,\"metrics\":", m->partial ? "true" : "false");
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

static void json_thresholds(gtr_out *o, const gtr_thresholds *th, int few)
{
	gtr_out_char(o, '{');
	for (int m = 0, k = 0; m < GTR_METRICS_ALL; m++)
		if (th->pct[m] >= 0 && (!few || th->few[m]))
			gtr_out_printf(o, "%s\"%s\":%g", k++ ? "," : "", gtr_metric_name(m), th->pct[m]);
	gtr_out_char(o, '}');
}

static void json_num_or_null(gtr_out *o, int ok, double v)
{
	if (ok)
		gtr_out_printf(o, "%.17g", v);
	else
		gtr_out_str(o, "null");
}

/* The changes of a case, for the JSON report. */
static void json_changes(gtr_out *o, const gtr_change *ch, size_t n)
{
	gtr_out_char(o, '[');
	for (size_t k = 0; k < n; k++) {
		const gtr_change *c = &ch[k];
		gtr_out_printf(o, "%s{\"metric\":\"%s\",\"unit\":\"%s\",\"function\":", k ? "," : "",
			       gtr_metric_name(c->metric), gtr_metric_unit(c->metric));
		if (c->func)
			json_cstr(o, c->func);
		else
			gtr_out_str(o, "null");
		gtr_out_printf(o, ",\"baseline\":%llu,\"current\":%llu,\"pct\":", (unsigned long long)c->base,
			       (unsigned long long)c->cur);
		if (c->base == 0 && c->cur != 0)
			gtr_out_str(o, "null");
		else
			gtr_out_printf(o, "%.3f", c->pct);
		gtr_out_str(o, ",\"baseline_ci\":");
		if (c->has_ci_b)
			gtr_out_printf(o, "[%.17g,%.17g]", c->lo_b, c->hi_b);
		else
			gtr_out_str(o, "null");
		gtr_out_str(o, ",\"current_ci\":");
		if (c->has_ci_c)
			gtr_out_printf(o, "[%.17g,%.17g]", c->lo_c, c->hi_c);
		else
			gtr_out_str(o, "null");
		gtr_out_str(o, ",\"p\":");
		json_num_or_null(o, c->p >= 0, c->p);
		gtr_out_str(o, ",\"level\":");
		json_num_or_null(o, c->p >= 0, c->level);
		gtr_out_printf(o, ",\"significant\":%s,\"threshold_pct\":%g,\"change\":\"%s\"}",
			       c->p < 0 ? "null" : c->significant ? "true" : "false", c->threshold,
			       c->verdict == GTR_WORSE ? "worse" : c->verdict == GTR_BETTER ? "better" : "same");
	}
	gtr_out_char(o, ']');
}

static void json_run(gtr_out *o, const gtr_check_result *r)
{
	gtr_out_str(o, "{\"name\":");
	json_cstr(o, r->in->name);
	gtr_out_str(o, ",\"path\":");
	json_cstr(o, r->in->path);
	gtr_out_printf(o, ",\"run\":%ld,\"status\":\"%s\",\"seconds\":%.3f,\"error\":", r->in->run,
		       r->status == GTR_CHECK_ERROR ? "error" : "ok", r->seconds);
	if (r->status == GTR_CHECK_ERROR) {
		json_cstr(o, r->error);
		gtr_out_char(o, '}');
		return;
	}
	gtr_out_str(o, "null,\"warning\":");
	if (r->warning[0])
		json_cstr(o, r->warning);
	else
		gtr_out_str(o, "null");
	gtr_out_char(o, ',');
	gtr_baseline_write_fields(o, r->fingerprint, r->bytes, &r->m);
	gtr_out_char(o, '}');
}

/*
 * The members of a case's object in the report, without its braces and
 * ending inside its runs array (the caller closes it with "]"); sep goes
 * before each run ("\n" in the report, "" in JSON Lines).
 */
static void json_case(gtr_out *o, const gtr_check_case *x, const char *sep)
{
	gtr_out_str(o, "\"name\":");
	json_cstr(o, x->name);
	gtr_out_printf(o, ",\"status\":\"%s\",\"partial\":%s,\"changed\":", status_word(x->status),
		       x->partial ? "true" : "false");
	gtr_out_str(o, !x->base || !x->nruns ? "null" : x->changed ? "true" : "false");
	gtr_out_str(o, ",\"baseline_runs\":");
	if (x->base)
		gtr_out_printf(o, "%zu", x->base->nruns);
	else
		gtr_out_str(o, "null");
	gtr_out_str(o, ",\"comparison\":");
	if (x->base && x->nruns > x->errors) {
		gtr_out_printf(o, "{\"mode\":\"%s\",\"runs\":[%zu,%zu],\"need\":%zu,\"tested\":%zu,"
			       "\"funcs_untested\":%zu,\"verdict\":\"%s\"}",
			       x->info.mode == GTR_CMP_STAT ? "statistical" : "not_statistical", x->info.nb,
			       x->info.nc, x->info.need, x->info.tested, x->info.funcs_untested,
			       x->verdict == GTR_WORSE ? "worse" : x->verdict == GTR_BETTER ? "better" : "same");
	} else {
		gtr_out_str(o, "null");
	}
	gtr_out_str(o, ",\"changes\":");
	json_changes(o, x->changes, x->nchanges);
	gtr_out_str(o, ",\"runs\":[");
	for (size_t k = 0; k < x->nruns; k++) {
		gtr_out_str(o, k ? "," : "");
		gtr_out_str(o, sep);
		json_run(o, &x->runs[k]);
	}
}

void gtr_check_write_jsonl(const gtr_check_case *c, size_t n, gtr_out *o)
{
	for (size_t i = 0; i < n; i++) {
		gtr_out_str(o, "{\"schema\":\"gtr.check.row.v2\",");
		json_case(o, &c[i], "");
		gtr_out_str(o, "]}\n");
	}
}

void gtr_check_write_json(const gtr_check_case *c, size_t n, const gtr_check_report_opts *opts,
			  gtr_out *o)
{
	gtr_check_summary s;
	gtr_check_summarize(c, n, &s);
	const char *result = s.regressed ? "regressed" : s.errors ? "error"
						 : s.missing && opts->fail_on_missing ? "missing"
										      : "ok";
	gtr_out_str(o, "{\"schema\":\"gtr.check.v2\",\"baseline\":");
	json_cstr(o, opts->baseline_path);
	gtr_out_printf(o, ",\"baseline_updated\":%s,\"jobs\":%u,\"seconds\":%.3f,", opts->updated ? "true" : "false",
		       opts->jobs, opts->seconds);
	gtr_out_printf(o, "\"test\":\"Mann-Whitney U, two-sided, exact up to %d values; Holm over a case's "
			  "metrics\",\"alpha\":%g,\"min_runs\":%zu,\"thresholds\":",
		       GTR_UTEST_EXACT_MAX, opts->th->alpha, gtr_thresholds_min_runs(opts->th));
	json_thresholds(o, opts->th, 0);
	gtr_out_str(o, ",\"thresholds_few_runs\":");
	json_thresholds(o, opts->th, 1);
	gtr_out_printf(o, ",\"min_delta_ns\":%llu,\"min_share_ppm\":%llu,\"fail_on_missing\":%s,\"result\":\"%s\","
			  "\"exit_status\":%d,\"partial\":%s,",
		       (unsigned long long)opts->th->min_delta, (unsigned long long)opts->th->min_share,
		       opts->fail_on_missing ? "true" : "false", result, opts->exit_status,
		       s.partial ? "true" : "false");
	gtr_out_printf(o, "\"summary\":{\"cases\":%zu,\"runs\":%zu,\"ok\":%zu,\"regressed\":%zu,\"errors\":%zu,"
			  "\"new\":%zu,\"missing\":%zu,\"unchanged\":%zu,\"changed\":%zu,\"statistical\":%zu,"
			  "\"not_statistical\":%zu,\"partial_runs\":%zu},\n\"cases\":[\n",
		       s.cases, s.runs, s.ok, s.regressed, s.errors, s.fresh, s.missing, s.unchanged, s.changed,
		       s.stat, s.few, s.partial);
	for (size_t i = 0; i < n; i++) {
		gtr_out_char(o, '{');
		json_case(o, &c[i], "\n");
		gtr_out_str(o, i + 1 < n ? "]},\n" : "]}\n");
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
 * The regressions of a case as XML text, through a scratch writer: in
 * short ("exec time +98.2%, STW time +1200.0%") for a message attribute,
 * or in full, one per line, for the element's body.
 */
static void xml_regressions(gtr_out *o, const gtr_check_case *c, gtr_out *tmp, int brief)
{
	gtr_out_init(tmp, -1);
	for (size_t i = 0, k = 0; i < c->nchanges; i++) {
		const gtr_change *x = &c->changes[i];
		if (x->verdict != GTR_WORSE)
			continue;
		if (k++)
			gtr_out_str(tmp, brief ? ", " : "\n");
		if (brief) {
			gtr_out_str(tmp, gtr_metric_label(x->metric));
			if (x->func)
				gtr_out_printf(tmp, " %s", x->func);
			gtr_out_char(tmp, ' ');
			gtr_out_pct(tmp, x->base, x->cur);
		} else {
			gtr_out_change(tmp, x);
		}
	}
	xml_escape(o, tmp->buf, tmp->err ? 0 : tmp->len, brief);
}

/* The text line of a case, as XML. */
static void xml_line(gtr_out *o, const gtr_check_case *c, gtr_out *tmp, void (*fn)(const gtr_check_case *, gtr_out *), int attr)
{
	gtr_out_init(tmp, -1);
	fn(c, tmp);
	xml_escape(o, tmp->buf, tmp->err ? 0 : tmp->len, attr);
}

static void line_errors(const gtr_check_case *c, gtr_out *o)
{
	text_errors(c, o);
}

static void line_summary(const gtr_check_case *c, gtr_out *o)
{
	if (!c->base) {
		gtr_out_printf(o, "not in the baseline (%zu run%s)", c->nruns, c->nruns == 1 ? "" : "s");
	} else {
		gtr_out_str(o, c->changed ? "changed, " : "unchanged, ");
		text_mode(o, c);
		text_changes(c, o);
	}
	if (c->partial)
		gtr_out_printf(o, " [partial: %zu run%s read in part]", c->partial, c->partial == 1 ? "" : "s");
}

void gtr_check_write_junit(const gtr_check_case *c, size_t n, const gtr_check_report_opts *opts,
			   gtr_out *o)
{
	gtr_check_summary s;
	gtr_check_summarize(c, n, &s);
	size_t failures = s.regressed + (opts->fail_on_missing ? s.missing : 0);
	size_t skipped = opts->fail_on_missing ? 0 : s.missing;
	gtr_out *tmp = malloc(sizeof *tmp);
	gtr_out_str(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	gtr_out_printf(o, "<testsuites name=\"gtr check\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
			  "skipped=\"%zu\" time=\"%.3f\">\n",
		       s.cases, failures, s.errors, skipped, opts->seconds);
	gtr_out_printf(o, "  <testsuite name=\"gtr check\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
			  "skipped=\"%zu\" time=\"%.3f\">\n",
		       s.cases, failures, s.errors, skipped, opts->seconds);
	gtr_out_str(o, "    <properties>\n      <property name=\"baseline\" value=\"");
	xml_cstr(o, opts->baseline_path);
	gtr_out_printf(o, "\"/>\n      <property name=\"test\" value=\"Mann-Whitney U, alpha %g, Holm\"/>\n",
		       opts->th->alpha);
	for (int m = 0; m < GTR_METRICS_ALL; m++)
		if (opts->th->pct[m] >= 0)
			gtr_out_printf(o, "      <property name=\"threshold.%s\" value=\"+%g%%\"/>\n",
				       gtr_metric_name(m), opts->th->pct[m]);
	gtr_out_printf(o, "      <property name=\"partial_runs\" value=\"%zu\"/>\n", s.partial);
	gtr_out_str(o, "    </properties>\n");
	for (size_t i = 0; i < n && tmp; i++) {
		const gtr_check_case *x = &c[i];
		double secs = 0;
		for (size_t k = 0; k < x->nruns; k++)
			secs += x->runs[k].seconds;
		gtr_out_str(o, "    <testcase classname=\"gtr.check\" name=\"");
		xml_cstr(o, x->name);
		gtr_out_printf(o, "\" time=\"%.3f\">\n", secs);
		if (x->status == GTR_CHECK_REGRESSED) {
			gtr_out_str(o, "      <failure type=\"regression\" message=\"");
			xml_regressions(o, x, tmp, 1);
			gtr_out_str(o, "\">");
			xml_regressions(o, x, tmp, 0);
			gtr_out_str(o, "</failure>\n");
		} else if (x->status == GTR_CHECK_ERROR) {
			gtr_out_str(o, "      <error type=\"unreadable\" message=\"");
			xml_line(o, x, tmp, line_errors, 1);
			gtr_out_str(o, "\">");
			for (size_t k = 0; k < x->nruns; k++) {
				if (x->runs[k].status != GTR_CHECK_ERROR)
					continue;
				xml_cstr(o, x->runs[k].in->path);
				gtr_out_str(o, ": ");
				xml_cstr(o, x->runs[k].error);
				gtr_out_str(o, "\n");
			}
			gtr_out_str(o, "</error>\n");
		} else if (x->status == GTR_CHECK_MISSING) {
			gtr_out_printf(o, "      <%s type=\"missing\" message=\"in the baseline, but no trace of it was "
					  "given\"/>\n",
				       opts->fail_on_missing ? "failure" : "skipped");
		}
		if (x->status != GTR_CHECK_MISSING) {
			gtr_out_str(o, "      <system-out>");
			xml_line(o, x, tmp, line_summary, 0);
			gtr_out_str(o, "</system-out>\n");
		}
		gtr_out_str(o, "    </testcase>\n");
	}
	gtr_out_str(o, "  </testsuite>\n</testsuites>\n");
	free(tmp);
}

static void write_run_line(gtr_out *o, int first, uint64_t fp, uint64_t bytes, const gtr_metrics *m)
{
	gtr_out_str(o, first ? "\n{" : ",\n{");
	gtr_baseline_write_fields(o, fp, bytes, m);
	gtr_out_char(o, '}');
}

/*
 * Run r of a case is a new sample for the baseline: read, and not the
 * same bytes as a run the baseline has or an earlier run of this check
 * (a trace checked again is not a second run of its program).
 */
static int new_run(const gtr_check_case *cc, size_t r, const gtr_baseline_case *ob)
{
	const gtr_check_result *x = &cc->runs[r];
	if (x->status == GTR_CHECK_ERROR)
		return 0;
	for (size_t i = 0; ob && i < ob->nruns; i++)
		if (ob->runs[i].have_fingerprint && ob->runs[i].fingerprint == x->fingerprint)
			return 0;
	for (size_t i = 0; i < r; i++)
		if (cc->runs[i].status != GTR_CHECK_ERROR && cc->runs[i].fingerprint == x->fingerprint)
			return 0;
	return 1;
}

void gtr_check_write_baseline(const gtr_check_case *c, size_t n, const gtr_baseline *old,
			      size_t max_runs, gtr_out *o)
{
	if (max_runs == 0)
		max_runs = GTR_BASELINE_MAX_RUNS;
	gtr_out_printf(o, "{\"schema\":\"gtr.baseline.v2\",\"max_runs\":%zu,\"cases\":[\n", max_runs);
	size_t i = 0, j = 0, k = 0;
	size_t nold = old ? old->n : 0;
	/* Merge by name; both lists are sorted. */
	while (i < n || j < nold) {
		int cmp = i == n ? 1 : j == nold ? -1 : strcmp(c[i].name, old->c[j].name);
		const gtr_baseline_case *ob = cmp >= 0 ? &old->c[j] : NULL;
		const gtr_check_case *cc = cmp <= 0 ? &c[i] : NULL;
		if (cmp <= 0)
			i++;
		if (cmp >= 0)
			j++;
		size_t fresh = 0;
		for (size_t r = 0; cc && r < cc->nruns; r++)
			fresh += new_run(cc, r, ob);
		size_t nob = ob ? ob->nruns : 0;
		if (fresh + nob == 0)
			continue; /* nothing readable, nothing kept */
		/* The newest max_runs: this check's runs are the newest. */
		size_t keep_old = fresh >= max_runs ? 0 : nob < max_runs - fresh ? nob : max_runs - fresh;
		size_t skip_new = fresh > max_runs ? fresh - max_runs : 0;
		gtr_out_str(o, k++ ? ",\n{\"name\":" : "{\"name\":");
		json_cstr(o, cc ? cc->name : ob->name);
		gtr_out_str(o, ",\"runs\":[");
		int first = 1;
		for (size_t r = nob - keep_old; r < nob; r++, first = 0)
			write_run_line(o, first, ob->runs[r].fingerprint, ob->runs[r].bytes, &ob->runs[r].m);
		for (size_t r = 0, seen = 0; cc && r < cc->nruns; r++) {
			const gtr_check_result *x = &cc->runs[r];
			if (!new_run(cc, r, ob) || seen++ < skip_new)
				continue;
			write_run_line(o, first, x->fingerprint, x->bytes, &x->m);
			first = 0;
		}
		gtr_out_str(o, "]}");
	}
	gtr_out_str(o, k ? "\n]}\n" : "]}\n");
}
