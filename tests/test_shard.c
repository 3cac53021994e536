/* tests/test_shard.c: the share of a shard, its environment, and part files read back. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/gate/check.h"
#include "core/gate/shard.h"

static char *root_path(const char *rel)
{
	static char path[4096];
	const char *root = getenv("GTR_ROOT");
	snprintf(path, sizeof path, "%s/%s", root ? root : ".", rel);
	return path;
}

Test(shard, parse)
{
	gtr_shard s;
	char why[200];
	cr_assert_eq(gtr_shard_parse("0/1", &s, why, sizeof why), 0, "%s", why);
	cr_assert(s.index == 0 && s.count == 1);
	cr_assert_eq(gtr_shard_parse("41/100000", &s, why, sizeof why), 0, "%s", why);
	cr_assert(s.index == 41 && s.count == 100000);
	const char *bad[] = {"", "3", "1/1", "2/1", "-1/3", "1/0", "1/-3", "a/3", "1/3x", "1/", "/3",
			     "0/100001", "1/3/4", " 1/3", "99999999999999999999/3"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(gtr_shard_parse(bad[i], &s, why, sizeof why), -1, "%s", bad[i]);
}

Test(shard, environment)
{
	gtr_shard s;
	char why[200];
	/* --array=0-2, task 1 */
	gtr_shard_env e = {.slurm_id = "1", .slurm_min = "0", .slurm_count = "3"};
	cr_assert_eq(gtr_shard_from_env(&e, 0, &s, why, sizeof why), 0, "%s", why);
	cr_assert(s.index == 1 && s.count == 3);
	cr_assert_eq(gtr_shard_from_env(&e, 3, &s, why, sizeof why), 0, "%s", why);
	cr_assert_eq(gtr_shard_from_env(&e, 4, &s, why, sizeof why), -1, "a count that disagrees");
	/* --array=10-30:10, task 30 */
	gtr_shard_env st = {.slurm_id = "30", .slurm_min = "10", .slurm_step = "10", .slurm_count = "3"};
	cr_assert_eq(gtr_shard_from_env(&st, 0, &s, why, sizeof why), 0, "%s", why);
	cr_assert(s.index == 2 && s.count == 3);
	/* Tasks that are not one of a contiguous range. */
	gtr_shard_env off = {.slurm_id = "25", .slurm_min = "10", .slurm_step = "10", .slurm_count = "3"};
	cr_assert_eq(gtr_shard_from_env(&off, 0, &s, why, sizeof why), -1);
	gtr_shard_env past = {.slurm_id = "3", .slurm_count = "3"};
	cr_assert_eq(gtr_shard_from_env(&past, 0, &s, why, sizeof why), -1);
	gtr_shard_env nocount = {.slurm_id = "0"};
	cr_assert_eq(gtr_shard_from_env(&nocount, 0, &s, why, sizeof why), -1);
	/* Slurm wins over Kubernetes when both are set. */
	gtr_shard_env both = {.slurm_id = "2", .slurm_count = "4", .job_index = "0"};
	cr_assert_eq(gtr_shard_from_env(&both, 0, &s, why, sizeof why), 0, "%s", why);
	cr_assert(s.index == 2 && s.count == 4);
	gtr_shard_env k8s = {.job_index = "4"};
	cr_assert_eq(gtr_shard_from_env(&k8s, 0, &s, why, sizeof why), -1, "no count");
	cr_assert_eq(gtr_shard_from_env(&k8s, 4, &s, why, sizeof why), -1, "index past the count");
	cr_assert_eq(gtr_shard_from_env(&k8s, 5, &s, why, sizeof why), 0, "%s", why);
	cr_assert(s.index == 4 && s.count == 5);
	gtr_shard_env none = {0};
	cr_assert_eq(gtr_shard_from_env(&none, 3, &s, why, sizeof why), -1);
}

/* n inputs named case-0000.trace ... */
static gtr_check_input *names(size_t n)
{
	gtr_check_input *in = calloc(n, sizeof *in);
	for (size_t i = 0; i < n; i++) {
		char buf[64];
		snprintf(buf, sizeof buf, "case-%04zu.trace", i);
		in[i].name = strdup(buf);
		in[i].path = strdup(buf);
		cr_assert_eq(gtr_check_input_case(&in[i]), 0);
	}
	return in;
}

Test(shard, select_partitions_whatever_the_order)
{
	const size_t n = 1000;
	const unsigned count = 7;
	unsigned *home = calloc(n, sizeof *home);
	size_t sizes[7] = {0};
	for (unsigned k = 0; k < count; k++) {
		gtr_check_input *in = names(n);
		/* Listed backwards: the share must not depend on it. */
		for (size_t i = 0; i < n / 2; i++) {
			gtr_check_input t = in[i];
			in[i] = in[n - 1 - i];
			in[n - 1 - i] = t;
		}
		size_t m = n;
		gtr_shard_select(in, &m, (gtr_shard){k, count});
		sizes[k] = m;
		for (size_t i = 0; i < m; i++) {
			size_t id = (size_t)atoi(in[i].name + 5);
			cr_assert_eq(home[id], 0, "%s is in two shards", in[i].name);
			home[id] = k + 1;
			cr_assert_eq(gtr_shard_of(in[i].name, count), k);
		}
		gtr_check_inputs_free(in, m);
	}
	for (size_t i = 0; i < n; i++)
		cr_assert_neq(home[i], 0, "case %zu is in no shard", i);
	/* A hash spreads them: no share is empty or holds most. */
	for (unsigned k = 0; k < count; k++)
		cr_assert(sizes[k] > n / count / 2 && sizes[k] < n / count * 2, "shard %u has %zu", k, sizes[k]);
	free(home);
}

/* The text written to o's memory file, NUL-terminated. */
static char *contents(int fd, size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	char *buf = malloc((size_t)end + 1);
	cr_assert_eq(pread(fd, buf, (size_t)end, 0), end);
	buf[end] = 0;
	*len = (size_t)end;
	return buf;
}

static gtr_out out;

/* Measures the corpus traces into shards of 3, and gives back the parts' texts. */
static void write_parts(gtr_check_input *in, size_t n, char *text[3], size_t len[3], gtr_check_result **whole)
{
	gtr_thresholds th;
	gtr_thresholds_default(&th);
	gtr_check_opts opts = {.th = &th, .ntop = 10, .jobs = 2};
	gtr_error err;
	gtr_error_clear(&err);
	cr_assert_eq(gtr_check_measure(in, n, &opts, whole, &err), 0);
	gtr_shard_list all;
	gtr_shard_list_of(in, n, &all);
	for (unsigned k = 0; k < 3; k++) {
		gtr_check_result *share = calloc(n, sizeof *share);
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (gtr_shard_of(in[i].name, 3) == k)
				share[m++] = (*whole)[i];
		int fd = memfd_create("part", 0);
		gtr_out_init(&out, fd);
		gtr_part_info info = {.shard = {k, 3}, .all = all, .ntop = 10, .jobs = 2, .seconds = 1};
		gtr_part_write(share, m, &info, &out);
		cr_assert_eq(gtr_out_flush(&out), 0);
		text[k] = contents(fd, &len[k]);
		close(fd);
		free(share); /* the results stay owned by *whole */
	}
}

Test(part, round_trip_and_merge)
{
	const char *files[] = {"corpora/traces/greedy-coarse-go1.26.trace", "corpora/traces/churn-go1.15.trace",
			       "corpora/traces/gcpressure-go1.22.trace", "corpora/traces/procs-go1.21.trace",
			       "corpora/traces/syscalls-go1.15.trace", "tests/data/nope.trace"};
	const size_t n = sizeof files / sizeof files[0];
	char *args[6];
	for (size_t i = 0; i < n; i++)
		args[i] = strdup(root_path(files[i]));
	gtr_check_input *in;
	size_t nin;
	char why[300];
	cr_assert_eq(gtr_check_collect(args, n, "*.trace", &in, &nin, why, sizeof why), 0, "%s", why);
	char *text[3];
	size_t len[3];
	gtr_check_result *whole;
	write_parts(in, nin, text, len, &whole);

	gtr_part *parts[3];
	gtr_error err;
	gtr_error_clear(&err);
	for (int k = 0; k < 3; k++)
		cr_assert_eq(gtr_part_read(text[k], len[k], &parts[k], &err), 0, "part %d: %s", k, err.msg);
	const char *pn[3] = {"c.json", "a.json", "b.json"};
	gtr_part *order[3] = {parts[2], parts[0], parts[1]};
	gtr_merged mg;
	cr_assert_eq(gtr_part_merge(order, pn, 3, &mg, &err), 0, "%s", err.msg);
	cr_assert_eq(mg.n, nin);
	cr_assert_eq(mg.info.jobs, 2);
	for (size_t i = 0; i < nin; i++) {
		const gtr_check_result *a = &whole[i], *b = &mg.res[i];
		cr_assert_str_eq(b->in->name, in[i].name);
		cr_assert_str_eq(b->in->path, in[i].path);
		cr_assert_eq(a->status == GTR_CHECK_ERROR, b->status == GTR_CHECK_ERROR, "%s", in[i].name);
		cr_assert_str_eq(a->error, b->error);
		if (a->status == GTR_CHECK_ERROR)
			continue;
		cr_assert_eq(a->fingerprint, b->fingerprint);
		cr_assert_eq(a->bytes, b->bytes);
		cr_assert_eq(a->m.version, b->m.version);
		cr_assert_str_eq(a->m.runtime, b->m.runtime);
		for (int m = 0; m < GTR_M_N; m++) {
			cr_assert_eq(a->m.known[m], b->m.known[m]);
			cr_assert_eq(a->m.v[m], b->m.v[m], "%s: %s", in[i].name, gtr_metric_name(m));
		}
		cr_assert_eq(a->m.ntop, b->m.ntop);
		for (size_t k = 0; k < a->m.ntop; k++) {
			cr_assert_str_eq(a->m.top[k].func, b->m.top[k].func);
			cr_assert_eq(a->m.top[k].duration, b->m.top[k].duration);
			cr_assert_eq(a->m.top[k].g, b->m.top[k].g);
		}
		cr_assert_eq(a->m.nfuncs, b->m.nfuncs);
		for (size_t k = 0; k < a->m.nfuncs; k++) {
			cr_assert_str_eq(a->m.funcs[k].func, b->m.funcs[k].func);
			cr_assert_eq(a->m.funcs[k].exec, b->m.funcs[k].exec);
			cr_assert_eq(a->m.funcs[k].max_slice, b->m.funcs[k].max_slice);
			cr_assert_eq(a->m.funcs[k].slices, b->m.funcs[k].slices);
			cr_assert_eq(a->m.funcs[k].goroutines, b->m.funcs[k].goroutines);
		}
	}
	gtr_merged_free(&mg);
	for (int k = 0; k < 3; k++)
		gtr_part_free(parts[k]);

	/* Missing and repeated shards are errors that name them. */
	for (int k = 0; k < 3; k++)
		cr_assert_eq(gtr_part_read(text[k], len[k], &parts[k], &err), 0);
	gtr_part *two[2] = {parts[0], parts[2]};
	gtr_error_clear(&err);
	cr_assert_eq(gtr_part_merge(two, pn, 2, &mg, &err), GTR_E_CORRUPT);
	cr_assert_str_eq(err.msg, "shard 1/3 is missing");
	gtr_part *dup[4] = {parts[0], parts[1], parts[1], parts[2]};
	const char *dn[4] = {"p0", "p1", "again", "p2"};
	gtr_error_clear(&err);
	cr_assert_eq(gtr_part_merge(dup, dn, 4, &mg, &err), GTR_E_CORRUPT);
	cr_assert_str_eq(err.msg, "shard 1/3 is given twice: p1 and again");
	for (int k = 0; k < 3; k++)
		gtr_part_free(parts[k]);

	/* A torn part says where. */
	gtr_part *p;
	gtr_error_clear(&err);
	cr_assert_eq(gtr_part_read(text[0], len[0] / 2, &p, &err), GTR_E_CORRUPT);
	cr_assert_leq(err.off, len[0] / 2);
	for (int k = 0; k < 3; k++)
		free(text[k]);
	gtr_check_results_free(whole, nin);
	gtr_check_inputs_free(in, nin);
	for (size_t i = 0; i < n; i++)
		free(args[i]);
}
