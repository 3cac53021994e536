/* core/gate/shard.c: the share of a shard, part files, and their merge. */
#include "core/gate/shard.h"
#include "core/report/report.h"
#include "io/name.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define PART_SCHEMA "gtr.check.part.v1"

unsigned gtr_shard_of(const char *name, unsigned count)
{
	return count ? (unsigned)(XXH3_64bits(name, strlen(name)) % count) : 0;
}

/* A decimal number with nothing around it, at most max. 0, or -1. */
static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int gtr_shard_parse(const char *spec, gtr_shard *s, char *why, size_t cap)
{
	const char *slash = strchr(spec, '/');
	char k[32];
	unsigned long long kv, nv;
	if (!slash || (size_t)(slash - spec) >= sizeof k) {
		snprintf(why, cap, "want K/N, shard K of N (0 <= K < N), not %s", spec);
		return -1;
	}
	memcpy(k, spec, (size_t)(slash - spec));
	k[slash - spec] = 0;
	if (parse_uint(k, GTR_SHARD_MAX, &kv) < 0 || parse_uint(slash + 1, GTR_SHARD_MAX, &nv) < 0 ||
	    nv == 0 || kv >= nv) {
		snprintf(why, cap, "want K/N, shard K of N (0 <= K < N <= %u), not %s", GTR_SHARD_MAX,
			 spec);
		return -1;
	}
	s->index = (unsigned)kv;
	s->count = (unsigned)nv;
	return 0;
}

int gtr_shard_from_env(const gtr_shard_env *env, unsigned count, gtr_shard *s, char *why,
		       size_t cap)
{
	unsigned long long id, min = 0, step = 1, n;
	if (env->slurm_id) {
		if (parse_uint(env->slurm_id, ~0ull, &id) < 0) {
			snprintf(why, cap, "SLURM_ARRAY_TASK_ID=%s is not a task number", env->slurm_id);
			return -1;
		}
		if (!env->slurm_count || parse_uint(env->slurm_count, GTR_SHARD_MAX, &n) < 0 || n == 0) {
			snprintf(why, cap, "SLURM_ARRAY_TASK_COUNT=%s: want the number of tasks (1 to %u)",
				 env->slurm_count ? env->slurm_count : "(not set)", GTR_SHARD_MAX);
			return -1;
		}
		if (env->slurm_min && parse_uint(env->slurm_min, ~0ull, &min) < 0) {
			snprintf(why, cap, "SLURM_ARRAY_TASK_MIN=%s is not a task number", env->slurm_min);
			return -1;
		}
		if (env->slurm_step && (parse_uint(env->slurm_step, ~0ull, &step) < 0 || step == 0)) {
			snprintf(why, cap, "SLURM_ARRAY_TASK_STEP=%s is not a step", env->slurm_step);
			return -1;
		}
		if (id < min || (id - min) % step != 0 || (id - min) / step >= n) {
			snprintf(why, cap,
				 "SLURM_ARRAY_TASK_ID=%llu is not one of %llu tasks from %llu by %llu: "
				 "submit the array as one range (--array=0-%llu)",
				 id, n, min, step, n - 1);
			return -1;
		}
		if (count && count != n) {
			snprintf(why, cap, "the array has %llu tasks (SLURM_ARRAY_TASK_COUNT), not %u", n,
				 count);
			return -1;
		}
		s->index = (unsigned)((id - min) / step);
		s->count = (unsigned)n;
		return 0;
	}
	if (env->job_index) {
		if (parse_uint(env->job_index, GTR_SHARD_MAX, &id) < 0) {
			snprintf(why, cap, "JOB_COMPLETION_INDEX=%s is not an index", env->job_index);
			return -1;
		}
		if (count == 0) {
			snprintf(why, cap, "JOB_COMPLETION_INDEX gives no count: say env/N, N the "
					   "job's completions");
			return -1;
		}
		if (id >= count) {
			snprintf(why, cap, "JOB_COMPLETION_INDEX=%llu is not below the count %u", id, count);
			return -1;
		}
		s->index = (unsigned)id;
		s->count = count;
		return 0;
	}
	snprintf(why, cap, "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set");
	return -1;
}

void gtr_shard_list_of(const gtr_check_input *in, size_t n, gtr_shard_list *l)
{
	uint64_t h = 0;
	for (size_t i = 0; i < n; i++)
		h = XXH3_64bits_withSeed(in[i].name, strlen(in[i].name) + 1, h);
	l->n = n;
	l->digest = h;
}

void gtr_shard_select(gtr_check_input *in, size_t *n, gtr_shard s)
{
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		if (gtr_shard_of(in[i].case_name, s.count) == s.index) {
			in[k++] = in[i];
		} else {
			free(in[i].name);
			free(in[i].path);
			free(in[i].case_name);
		}
	}
	*n = k;
}

/* --- writing --- */

static void json_cstr(gtr_out *o, const char *s)
{
	gtr_out_json_str(o, (gtr_str){s, strlen(s)});
}

void gtr_part_write(const gtr_check_result *r, size_t n, const gtr_part_info *info, gtr_out *o)
{
	gtr_out_printf(o,
		       "{\"schema\":\"" PART_SCHEMA "\",\"shard\":{\"index\":%u,\"count\":%u,"
		       "\"by\":\"xxh3_64(name) mod count\"},\"inputs\":{\"traces\":%zu,"
		       "\"names_xxh3\":\"%016llx\"},\"options\":{\"top\":%zu,\"lenient\":%s},"
		       "\"jobs\":%u,\"seconds\":%.6f,\"traces\":[\n",
		       info->shard.index, info->shard.count, info->all.n,
		       (unsigned long long)info->all.digest, info->ntop, info->lenient ? "true" : "false",
		       info->jobs, info->seconds);
	for (size_t i = 0; i < n; i++) {
		const gtr_check_result *x = &r[i];
		gtr_out_str(o, "{\"name\":");
		json_cstr(o, x->in->name);
		gtr_out_str(o, ",\"path\":");
		json_cstr(o, x->in->path);
		gtr_out_printf(o, ",\"seconds\":%.6f,\"error\":", x->seconds);
		if (x->status == GTR_CHECK_ERROR)
			json_cstr(o, x->error);
		else
			gtr_out_str(o, "null");
		gtr_out_str(o, ",\"warning\":");
		if (x->warning[0])
			json_cstr(o, x->warning);
		else
			gtr_out_str(o, "null");
		if (x->status != GTR_CHECK_ERROR) {
			gtr_out_char(o, ',');
			gtr_baseline_write_fields(o, x->fingerprint, x->bytes, &x->m);
		}
		gtr_out_str(o, i + 1 < n ? "},\n" : "}\n");
	}
	gtr_out_str(o, "]}\n");
}

/* --- reading --- */

typedef struct row {
	gtr_check_input in;
	gtr_check_result res; /* res.in is set by the merge */
} row;

struct gtr_part {
	gtr_part_info info;
	row *rows;
	size_t n;
};

static void row_free(row *r)
{
	free(r->in.name);
	free(r->in.path);
	free(r->in.case_name);
	gtr_metrics_free(&r->res.m);
}

void gtr_part_free(gtr_part *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		row_free(&p->rows[i]);
	free(p->rows);
	free(p);
}

const gtr_part_info *gtr_part_get_info(const gtr_part *p)
{
	return &p->info;
}

static int get_uint(const gtr_json *obj, const char *key, unsigned long long max, uint64_t *out)
{
	return gtr_json_uint(gtr_json_get(obj, key), out) && *out <= max;
}

static int get_num(const gtr_json *obj, const char *key, double *out)
{
	const gtr_json *v = gtr_json_get(obj, key);
	if (!v || v->type != GTR_JSON_NUM || !(v->num >= 0))
		return 0;
	*out = v->num;
	return 1;
}

/* A string or null member into buf (null: ""). 0 when it is neither. */
static int get_text(const gtr_json *obj, const char *key, char *buf, size_t cap)
{
	const gtr_json *v = gtr_json_get(obj, key);
	buf[0] = 0;
	if (v && v->type == GTR_JSON_NULL)
		return 1;
	if (!v || v->type != GTR_JSON_STR)
		return 0;
	snprintf(buf, cap, "%s", v->str);
	return 1;
}

static int parse_hex64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = 0;
	for (; s && s[n]; n++) {
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

/* The order of an unsharded run's inputs (and results). */
static int cmp_row(const void *a, const void *b)
{
	return gtr_check_input_cmp(&((const row *)a)->in, &((const row *)b)->in);
}

static int read_header(const gtr_json *root, gtr_part_info *info, gtr_error *err)
{
	const gtr_json *shard = gtr_json_get(root, "shard"), *inputs = gtr_json_get(root, "inputs");
	const gtr_json *options = gtr_json_get(root, "options");
	const gtr_json *lenient = gtr_json_get(options, "lenient");
	uint64_t index, count, ntop, jobs;
	if (!get_uint(shard, "index", GTR_SHARD_MAX, &index) ||
	    !get_uint(shard, "count", GTR_SHARD_MAX, &count) || count == 0 || index >= count)
		return gtr_error_set(err, GTR_E_CORRUPT, 0, "shard: want index and count, index < count");
	if (!get_uint(inputs, "traces", ~0ull, &info->all.n) ||
	    !parse_hex64(gtr_json_string(gtr_json_get(inputs, "names_xxh3")), &info->all.digest))
		return gtr_error_set(err, GTR_E_CORRUPT, 0,
				     "inputs: want traces (a count) and names_xxh3 (16 hex digits)");
	if (!get_uint(options, "top", ~0ull, &ntop) || !lenient || lenient->type != GTR_JSON_BOOL)
		return gtr_error_set(err, GTR_E_CORRUPT, 0, "options: want top (a count) and lenient (true or false)");
	if (!get_uint(root, "jobs", 4096, &jobs) || jobs == 0)
		return gtr_error_set(err, GTR_E_CORRUPT, 0, "jobs: want the threads asked for (1 to 4096)");
	if (!get_num(root, "seconds", &info->seconds))
		return gtr_error_set(err, GTR_E_CORRUPT, 0, "seconds: want a number of seconds");
	info->shard.index = (unsigned)index;
	info->shard.count = (unsigned)count;
	info->ntop = (size_t)ntop;
	info->lenient = lenient->boolean;
	info->jobs = (unsigned)jobs;
	return 0;
}

static int read_row(const gtr_json *t, size_t i, const gtr_part_info *info, row *r, gtr_error *err)
{
	const char *name = gtr_json_string(gtr_json_get(t, "name"));
	const char *path = gtr_json_string(gtr_json_get(t, "path"));
	gtr_check_result *res = &r->res;
	if (!name || !name[0] || !path)
		return gtr_error_set(err, GTR_E_CORRUPT, 0, "traces[%zu]: want a name and a path", i);
	if (!(r->in.name = strdup(name)) || !(r->in.path = strdup(path)))
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	/* Written with io/name.h's escape, as every name gtr writes: the bytes back. */
	gtr_name_unescape(r->in.name);
	gtr_name_unescape(r->in.path);
	if (gtr_check_input_case(&r->in) < 0)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	name = r->in.name;
	if (!get_num(t, "seconds", &res->seconds) || !get_text(t, "error", res->error, sizeof res->error) ||
	    !get_text(t, "warning", res->warning, sizeof res->warning))
		return gtr_error_set(err, GTR_E_CORRUPT, 0,
				     "traces[%zu] (%.80s): want seconds, and error and warning as text or null",
				     i, name);
	gtr_name_unescape(res->error);
	gtr_name_unescape(res->warning);
	unsigned home = gtr_shard_of(r->in.case_name, info->shard.count);
	if (home != info->shard.index)
		return gtr_error_set(err, GTR_E_CORRUPT, 0,
				     "traces[%zu] (%.80s) belongs to shard %u/%u, not to this part's %u/%u",
				     i, name, home, info->shard.count, info->shard.index, info->shard.count);
	if (res->error[0]) {
		res->status = GTR_CHECK_ERROR;
		return 0;
	}
	gtr_baseline_entry e;
	int rc = gtr_baseline_entry_read(t, &e);
	free(e.name);
	if (rc < 0) {
		gtr_metrics_free(&e.m);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	if (rc == 0 || !e.have_fingerprint) {
		gtr_metrics_free(&e.m);
		return gtr_error_set(err, GTR_E_CORRUPT, 0,
				     "traces[%zu] (%.80s): no error, so want its fingerprint and metrics",
				     i, name);
	}
	res->status = GTR_CHECK_OK; /* measured, as gtr_check_measure leaves it */
	res->fingerprint = e.fingerprint;
	res->bytes = e.bytes;
	res->m = e.m;
	return 0;
}

int gtr_part_read(const char *text, size_t len, gtr_part **out, gtr_error *err)
{
	*out = NULL;
	gtr_json *root;
	int rc = gtr_json_parse(text, len, &root, err);
	if (rc < 0)
		return rc;
	const char *schema = gtr_json_string(gtr_json_get(root, "schema"));
	const gtr_json *traces = gtr_json_get(root, "traces");
	if (!schema || strcmp(schema, PART_SCHEMA) != 0 || !traces || traces->type != GTR_JSON_ARR) {
		int report = schema && strncmp(schema, "gtr.check.v", 11) == 0;
		gtr_json_free(root);
		return gtr_error_set(err, GTR_E_CORRUPT, 0, "not a part of a sharded check (want schema "
				     PART_SCHEMA " with a traces array)%s",
				     report ? "; this is a check report: give the files of check --shard --part" : "");
	}
	gtr_part *p = calloc(1, sizeof *p);
	if (!p || !(p->rows = calloc(traces->n ? traces->n : 1, sizeof *p->rows))) {
		free(p);
		gtr_json_free(root);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	rc = read_header(root, &p->info, err);
	for (size_t i = 0; rc == 0 && i < traces->n; i++) {
		rc = read_row(&traces->items[i], i, &p->info, &p->rows[i], err);
		p->n = i + 1; /* so that a half-read row is freed */
	}
	gtr_json_free(root);
	if (rc == 0) {
		qsort(p->rows, p->n, sizeof *p->rows, cmp_row);
		for (size_t i = 1; i < p->n && rc == 0; i++)
			if (strcmp(p->rows[i].in.name, p->rows[i - 1].in.name) == 0)
				rc = gtr_error_set(err, GTR_E_CORRUPT, 0, "traces: %.80s is there twice",
						   p->rows[i].in.name);
	}
	if (rc < 0) {
		gtr_part_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/* --- the merge --- */

void gtr_merged_free(gtr_merged *m)
{
	if (!m)
		return;
	gtr_check_results_free(m->res, m->n);
	gtr_check_inputs_free(m->in, m->n);
	memset(m, 0, sizeof *m);
}

/* "shards 1/4 and 3/4 are missing": the first few named, then how many more. */
static int missing_error(const unsigned char *seen, unsigned count, gtr_error *err)
{
	char buf[200];
	size_t len = 0, k = 0, total = 0;
	for (unsigned i = 0; i < count; i++)
		total += !seen[i];
	for (unsigned i = 0; i < count && k < 8; i++) {
		if (seen[i])
			continue;
		int w = snprintf(buf + len, sizeof buf - len, "%s%u/%u", k ? ", " : "", i, count);
		if (w < 0 || (size_t)w >= sizeof buf - len)
			break;
		len += (size_t)w;
		k++;
	}
	return gtr_error_set(err, GTR_E_CORRUPT, 0, "shard%s %s%s %s missing", total == 1 ? "" : "s",
			     buf, total > k ? ", ..." : "", total == 1 ? "is" : "are");
}

int gtr_part_merge(gtr_part *const *parts, const char *const *names, size_t n, gtr_merged *out,
		   gtr_error *err)
{
	memset(out, 0, sizeof *out);
	if (n == 0)
		return gtr_error_set(err, GTR_E_USAGE, 0, "no parts given");
	const gtr_part_info *first = &parts[0]->info;
	unsigned count = first->shard.count;
	/* Which part holds each shard: counts are at most GTR_SHARD_MAX. */
	size_t *owner = malloc(count * sizeof *owner);
	unsigned char *seen = calloc(count, 1);
	if (!owner || !seen) {
		free(owner);
		free(seen);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	int rc = 0;
	size_t total = 0;
	unsigned jobs = 0;
	double seconds = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const gtr_part_info *pi = &parts[i]->info;
		if (pi->shard.count != count)
			rc = gtr_error_set(err, GTR_E_CORRUPT, 0,
					   "%.60s is shard %u/%u but %.60s is shard %u/%u: parts of "
					   "different splits",
					   names[i], pi->shard.index, pi->shard.count, names[0],
					   first->shard.index, count);
		else if (pi->all.n != first->all.n || pi->all.digest != first->all.digest)
			rc = gtr_error_set(err, GTR_E_CORRUPT, 0,
					   "%.60s and %.60s were cut from different lists of traces "
					   "(%zu and %zu names)",
					   names[i], names[0], pi->all.n, first->all.n);
		else if (pi->ntop != first->ntop || pi->lenient != first->lenient)
			rc = gtr_error_set(err, GTR_E_CORRUPT, 0,
					   "%.60s and %.60s were measured with different options "
					   "(-n %zu%s, -n %zu%s)",
					   names[i], names[0], pi->ntop, pi->lenient ? " --lenient" : "",
					   first->ntop, first->lenient ? " --lenient" : "");
		else if (seen[pi->shard.index])
			rc = gtr_error_set(err, GTR_E_CORRUPT, 0, "shard %u/%u is given twice: %.80s and %.80s",
					   pi->shard.index, count, names[owner[pi->shard.index]], names[i]);
		if (rc < 0)
			break;
		seen[pi->shard.index] = 1;
		owner[pi->shard.index] = i;
		total += parts[i]->n;
		if (pi->jobs > jobs)
			jobs = pi->jobs;
		seconds += pi->seconds;
	}
	if (rc == 0 && n < count)
		rc = missing_error(seen, count, err);
	free(owner);
	free(seen);
	if (rc == 0 && total != first->all.n)
		rc = gtr_error_set(err, GTR_E_CORRUPT, 0,
				   "the parts hold %zu traces, but the list they were cut from has %zu",
				   total, first->all.n);
	if (rc < 0)
		return rc;

	out->in = calloc(total ? total : 1, sizeof *out->in);
	out->res = calloc(total ? total : 1, sizeof *out->res);
	if (!out->in || !out->res) {
		free(out->in);
		free(out->res);
		out->in = NULL;
		out->res = NULL;
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	/* Each part is sorted by name: an n-way merge, O(total * n). */
	size_t *pos = calloc(n, sizeof *pos);
	if (!pos) {
		gtr_merged_free(out);
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	}
	for (size_t k = 0; k < total; k++) {
		size_t best = n;
		for (size_t i = 0; i < n; i++)
			if (pos[i] < parts[i]->n &&
			    (best == n || cmp_row(&parts[i]->rows[pos[i]], &parts[best]->rows[pos[best]]) < 0))
				best = i;
		row *r = &parts[best]->rows[pos[best]++];
		out->in[k] = r->in;
		out->res[k] = r->res;
		out->res[k].in = &out->in[k];
		memset(r, 0, sizeof *r); /* moved */
	}
	free(pos);
	out->n = total;
	/* Distinct shards hold distinct names (each name has one home), so the
	 * list is whole exactly when its digest is the one the shards cut. */
	gtr_shard_list got;
	gtr_shard_list_of(out->in, total, &got);
	if (got.digest != first->all.digest) {
		gtr_merged_free(out);
		return gtr_error_set(err, GTR_E_CORRUPT, 0,
				     "the parts' traces are not the list they were cut from");
	}
	out->info = *first;
	out->info.shard.index = 0;
	out->info.jobs = jobs < total ? jobs : (unsigned)(total ? total : 1);
	out->info.seconds = seconds;
	return 0;
}
