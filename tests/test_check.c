/* tests/test_check.c: thresholds, comparison, baselines, inputs, and the worker pool. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gate/check.h"
#include "core/analysis/diff.h"

static char *root_path(const char *rel)
{
	static char path[4096];
	const char *root = getenv("GTR_ROOT");
	snprintf(path, sizeof path, "%s/%s", root ? root : ".", rel);
	return path;
}

Test(thresholds, defaults_and_parsing)
{
	gtr_thresholds th;
	gtr_thresholds_default(&th);
	cr_assert_float_eq(th.pct[GTR_M_MAX_SLICE], 20, 1e-9);
	cr_assert_float_eq(th.pct[GTR_M_TMAX_STW], 20, 1e-9);
	cr_assert_float_eq(th.pct[GTR_M_STW_P99], 20, 1e-9);
	cr_assert_lt(th.pct[GTR_M_STW_P50], 0);
	cr_assert_lt(th.pct[GTR_FM_EXEC], 0);
	char why[200];
	cr_assert_eq(gtr_thresholds_parse(&th, "max_slice=50,stw_p99=off", why, sizeof why), 0, "%s", why);
	cr_assert_float_eq(th.pct[GTR_M_MAX_SLICE], 50, 1e-9);
	cr_assert_lt(th.pct[GTR_M_STW_P99], 0);
	cr_assert_eq(gtr_thresholds_parse(&th, "func_exec=12.5%", why, sizeof why), 0, "%s", why);
	cr_assert_float_eq(th.pct[GTR_FM_EXEC], 12.5, 1e-9);
	const char *bad[] = {"max_slice", "nope=3", "max_slice=-1", "max_slice=abc", "max_slice=",
			     "=5", "max_slice=5x"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(gtr_thresholds_parse(&th, bad[i], why, sizeof why), -1, "%s", bad[i]);
	for (int m = 0; m < GTR_METRICS_ALL; m++)
		cr_assert_eq(gtr_metric_lookup(gtr_metric_name(m)), m);
}

static gtr_metrics metrics_with(uint64_t max_slice, uint64_t tmax, uint64_t p99)
{
	gtr_metrics m;
	memset(&m, 0, sizeof m);
	memset(m.known, 1, sizeof m.known);
	m.v[GTR_M_MAX_SLICE] = max_slice;
	m.v[GTR_M_TMAX_STW] = tmax;
	m.v[GTR_M_STW_P99] = p99;
	return m;
}

static int verdict(const gtr_metrics *a, const gtr_metrics *b, const gtr_thresholds *th)
{
	gtr_change *ch;
	size_t n;
	int v = gtr_compare(a, b, th, &ch, &n);
	free(ch);
	return v;
}

Test(compare, thresholds_decide)
{
	gtr_thresholds th;
	gtr_thresholds_default(&th);
	gtr_metrics a = metrics_with(1000000, 2000000, 500000);
	gtr_metrics same = metrics_with(1199999, 2000000, 500000);
	gtr_metrics worse = metrics_with(1200001, 2000000, 500000);
	gtr_metrics better = metrics_with(833333, 2000000, 500000);
	gtr_metrics not_better = metrics_with(833334, 2000000, 500000);
	cr_assert_eq(verdict(&a, &a, &th), GTR_SAME);
	cr_assert_eq(verdict(&a, &same, &th), GTR_SAME, "+19.9999%% is within +20%%");
	cr_assert_eq(verdict(&a, &worse, &th), GTR_WORSE);
	cr_assert_eq(verdict(&a, &better, &th), GTR_BETTER);
	cr_assert_eq(verdict(&a, &not_better, &th), GTR_SAME, "better means: going back is worse");
	cr_assert_eq(verdict(&better, &a, &th), GTR_WORSE);
	cr_assert_eq(verdict(&not_better, &a, &th), GTR_SAME);
	/* A regression outweighs an improvement elsewhere. */
	gtr_metrics mixed = metrics_with(700000, 3000000, 500000);
	cr_assert_eq(verdict(&a, &mixed, &th), GTR_WORSE);
	/* From zero, any growth past the minimum delta regresses. */
	gtr_metrics zero = metrics_with(1000000, 2000000, 0), some = metrics_with(1000000, 2000000, 10);
	cr_assert_eq(verdict(&zero, &some, &th), GTR_WORSE);
	th.min_delta = 100;
	cr_assert_eq(verdict(&zero, &some, &th), GTR_SAME);
	cr_assert_eq(verdict(&a, &worse, &th), GTR_WORSE);
	th.min_delta = 300000;
	cr_assert_eq(verdict(&a, &worse, &th), GTR_SAME, "200 us of growth is below --min-delta");
	/* A metric a baseline does not know is not compared. */
	gtr_thresholds_default(&th);
	a.known[GTR_M_MAX_SLICE] = 0;
	cr_assert_eq(verdict(&a, &worse, &th), GTR_SAME);
}

Test(compare, per_function_thresholds)
{
	gtr_thresholds th;
	gtr_thresholds_default(&th);
	char why[100];
	cr_assert_eq(gtr_thresholds_parse(&th, "func_max_slice=10", why, sizeof why), 0);
	gtr_metrics a = metrics_with(5, 5, 5), b = metrics_with(5, 5, 5);
	gtr_func_metrics fa[2] = {{.func = "main.a", .max_slice = 1000}, {.func = "main.b", .max_slice = 1000}};
	gtr_func_metrics fb[2] = {{.func = "main.b", .max_slice = 1200}, {.func = "main.c", .max_slice = 99999}};
	a.funcs = fa;
	a.nfuncs = 2;
	b.funcs = fb;
	b.nfuncs = 2;
	gtr_change *ch;
	size_t n;
	cr_assert_eq(gtr_compare(&a, &b, &th, &ch, &n), GTR_WORSE);
	size_t funcs = 0;
	for (size_t i = 0; i < n; i++)
		if (ch[i].func) {
			funcs++;
			cr_assert_str_eq(ch[i].func, "main.b", "main.c is new: not a regression");
			cr_assert_eq(ch[i].verdict, GTR_WORSE);
		}
	cr_assert_eq(funcs, 1);
	free(ch);
}

/* Writes through a gtr_out into a temporary file and reads it back. */
static char *capture(void (*fn)(void *, gtr_out *), void *arg, size_t *len)
{
	FILE *f = tmpfile();
	cr_assert_not_null(f);
	static gtr_out o;
	gtr_out_init(&o, fileno(f));
	fn(arg, &o);
	cr_assert_eq(gtr_out_flush(&o), 0);
	long n = lseek(fileno(f), 0, SEEK_END);
	char *buf = malloc((size_t)n + 1);
	cr_assert_eq(pread(fileno(f), buf, (size_t)n, 0), n);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

typedef struct runargs {
	gtr_check_result *r;
	size_t n;
	const gtr_baseline *old;
} runargs;

static void write_baseline(void *p, gtr_out *o)
{
	runargs *a = p;
	gtr_check_write_baseline(a->r, a->n, a->old, o);
}

static gtr_check_input *inputs(const char *const *rel, size_t n)
{
	gtr_check_input *in = calloc(n, sizeof *in);
	for (size_t i = 0; i < n; i++) {
		const char *slash = strrchr(rel[i], '/');
		in[i].name = strdup(slash ? slash + 1 : rel[i]);
		in[i].path = strdup(root_path(rel[i]));
	}
	return in;
}

static const char *const corpus[] = {
	"corpora/traces/churn-go1.15.trace",        "corpora/traces/gcpressure-go1.21.trace",
	"corpora/traces/greedy-coarse-go1.26.trace", "corpora/traces/greedy-fine-go1.26.trace",
	"corpora/traces/procs-go1.22.trace",        "corpora/traces/syscalls-go1.25.trace",
	"corpora/traces/timers-go1.27.trace",       "corpora/traces/no-such-file.trace",
};
enum { NCORPUS = sizeof corpus / sizeof corpus[0] };

Test(check, parallel_runs_equal_a_sequential_one_and_baselines_round_trip)
{
	struct stat st;
	if (stat(root_path(corpus[0]), &st) < 0)
		cr_skip_test("corpus missing");
	gtr_check_input *in = inputs(corpus, NCORPUS);
	gtr_thresholds th;
	gtr_thresholds_default(&th);
	gtr_check_opts o1 = {.th = &th, .ntop = 5, .jobs = 1};
	gtr_check_opts o4 = {.th = &th, .ntop = 5, .jobs = 4};
	gtr_check_result *r1, *r4;
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_check_run(in, NCORPUS, &o1, &r1, &e), 0);
	cr_assert_eq(gtr_check_run(in, NCORPUS, &o4, &r4, &e), 0);
	for (size_t i = 0; i < NCORPUS; i++) {
		cr_assert_eq(r1[i].status, r4[i].status, "%s", in[i].name);
		cr_assert_eq(r1[i].fingerprint, r4[i].fingerprint);
		cr_assert_eq(memcmp(r1[i].m.v, r4[i].m.v, sizeof r1[i].m.v), 0, "%s", in[i].name);
		cr_assert_eq(r1[i].m.nfuncs, r4[i].m.nfuncs);
	}
	cr_assert_eq(r1[NCORPUS - 1].status, GTR_CHECK_ERROR);
	cr_assert_neq(strstr(r1[NCORPUS - 1].error, "No such file"), NULL, "%s", r1[NCORPUS - 1].error);
	cr_assert_eq(r1[0].status, GTR_CHECK_NEW);
	/* Same bytes, same fingerprint; different bytes, different fingerprints. */
	cr_assert_neq(r1[2].fingerprint, r1[3].fingerprint);

	/* Write a baseline, read it back: every metric and function survives. */
	runargs ra = {.r = r1, .n = NCORPUS};
	size_t len;
	char *text = capture(write_baseline, &ra, &len);
	gtr_baseline *b;
	cr_assert_eq(gtr_baseline_parse(text, len, &b, &e), 0, "%s", e.msg);
	cr_assert_eq(b->n, NCORPUS - 1, "the unreadable trace has no entry");
	for (size_t i = 0; i + 1 < NCORPUS; i++) {
		const gtr_baseline_entry *be = gtr_baseline_find(b, in[i].name);
		cr_assert_not_null(be, "%s", in[i].name);
		cr_assert(be->have_fingerprint);
		cr_assert_eq(be->fingerprint, r1[i].fingerprint);
		cr_assert_eq(be->bytes, r1[i].bytes);
		cr_assert_eq(be->m.version, r1[i].m.version);
		cr_assert_eq(memcmp(be->m.v, r1[i].m.v, sizeof be->m.v), 0);
		cr_assert_eq(be->m.nfuncs, r1[i].m.nfuncs);
		for (size_t k = 0; k < be->m.nfuncs; k++) {
			cr_assert_str_eq(be->m.funcs[k].func, r1[i].m.funcs[k].func);
			cr_assert_eq(be->m.funcs[k].exec, r1[i].m.funcs[k].exec);
			cr_assert_eq(be->m.funcs[k].max_slice, r1[i].m.funcs[k].max_slice);
		}
		cr_assert_eq(be->m.ntop, r1[i].m.ntop);
	}

	/* Against that baseline everything passes, unchanged. */
	gtr_check_opts ob = {.th = &th, .ntop = 5, .jobs = 3, .baseline = b};
	gtr_check_result *r2;
	cr_assert_eq(gtr_check_run(in, NCORPUS, &ob, &r2, &e), 0);
	gtr_check_summary s;
	gtr_check_summarize(r2, NCORPUS, b, &s);
	cr_assert_eq(s.ok, NCORPUS - 1);
	cr_assert_eq(s.errors, 1);
	cr_assert_eq(s.unchanged, NCORPUS - 1);
	cr_assert_eq(s.regressed, 0);

	/* The coarse trace under the fine one's name: a regression of that trace. */
	free(in[3].path);
	in[3].path = strdup(root_path(corpus[2]));
	gtr_check_result *r3;
	cr_assert_eq(gtr_check_run(in, NCORPUS, &ob, &r3, &e), 0);
	cr_assert_eq(r3[3].status, GTR_CHECK_REGRESSED);
	cr_assert(r3[3].changed);
	int saw_max_slice = 0;
	for (size_t k = 0; k < r3[3].nchanges; k++)
		saw_max_slice |= r3[3].changes[k].metric == GTR_M_MAX_SLICE &&
				 r3[3].changes[k].verdict == GTR_WORSE;
	cr_assert(saw_max_slice);
	gtr_check_summarize(r3, NCORPUS, b, &s);
	cr_assert_eq(s.regressed, 1);
	cr_assert_eq(s.ok, NCORPUS - 2);

	/* A baseline rewritten from a partial run keeps the entries it did not replace. */
	ra = (runargs){.r = r3 + 3, .n = 1, .old = b};
	char *text2 = capture(write_baseline, &ra, &len);
	gtr_baseline *b2;
	cr_assert_eq(gtr_baseline_parse(text2, len, &b2, &e), 0, "%s", e.msg);
	cr_assert_eq(b2->n, b->n);
	cr_assert_eq(gtr_baseline_find(b2, in[3].name)->fingerprint, r3[3].fingerprint);
	cr_assert_eq(gtr_baseline_find(b2, in[0].name)->fingerprint, r1[0].fingerprint);

	gtr_baseline_free(b2);
	gtr_baseline_free(b);
	free(text);
	free(text2);
	gtr_check_results_free(r1, NCORPUS);
	gtr_check_results_free(r4, NCORPUS);
	gtr_check_results_free(r2, NCORPUS);
	gtr_check_results_free(r3, NCORPUS);
	gtr_check_inputs_free(in, NCORPUS);
}

Test(check, baselines_that_are_not_are_refused)
{
	const char *bad[] = {
		"", "[]", "{}", "{\"schema\":\"other\",\"traces\":[]}", "{\"schema\":\"gtr.baseline.v1\"}",
		"{\"schema\":\"gtr.baseline.v1\",\"traces\":{}}",
		"{\"schema\":\"gtr.baseline.v1\",\"traces\":[{\"name\":\"a\",\"metrics\":{}},"
		"{\"name\":\"a\",\"metrics\":{}}]}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		gtr_baseline *b = (gtr_baseline *)1;
		gtr_error e;
		gtr_error_clear(&e);
		cr_assert_lt(gtr_baseline_parse(bad[i], strlen(bad[i]), &b, &e), 0, "%s", bad[i]);
	}
	/* Entries without metrics (errors in a report) are skipped, unknown metrics left unknown. */
	const char *ok = "{\"schema\":\"gtr.check.v1\",\"traces\":[{\"name\":\"x\",\"status\":\"error\"},"
			 "{\"name\":\"y\",\"fingerprint\":\"00000000000000ff\",\"metrics\":{\"max_slice_ns\":7}}]}";
	gtr_baseline *b;
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_baseline_parse(ok, strlen(ok), &b, &e), 0, "%s", e.msg);
	cr_assert_eq(b->n, 1);
	cr_assert_eq(b->e[0].fingerprint, 255);
	cr_assert(b->e[0].m.known[GTR_M_MAX_SLICE]);
	cr_assert_eq(b->e[0].m.v[GTR_M_MAX_SLICE], 7);
	cr_assert_not(b->e[0].m.known[GTR_M_TMAX_STW]);
	gtr_baseline_free(b);
}

static void touch(const char *dir, const char *name)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0, "%s", p);
	close(fd);
}

Test(check, inputs_from_directories_and_files)
{
	char dir[] = "/tmp/gtr-test-collect-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char sub[4200], hidden[4200];
	snprintf(sub, sizeof sub, "%s/sub", dir);
	snprintf(hidden, sizeof hidden, "%s/.git", dir);
	mkdir(sub, 0755);
	mkdir(hidden, 0755);
	touch(dir, "b.trace");
	touch(dir, "a.trace");
	touch(dir, "notes.txt");
	touch(sub, "c.trace");
	touch(hidden, "d.trace");
	char *args[] = {dir};
	gtr_check_input *in;
	size_t n;
	char why[600];
	cr_assert_eq(gtr_check_collect(args, 1, "*.trace", &in, &n, why, sizeof why), 0, "%s", why);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(in[0].name, "a.trace");
	cr_assert_str_eq(in[1].name, "b.trace");
	cr_assert_str_eq(in[2].name, "sub/c.trace");
	gtr_check_inputs_free(in, n);

	/* A file is taken whatever its name; a missing one too (its error comes later). */
	char f1[4200], f2[4200];
	snprintf(f1, sizeof f1, "%s/notes.txt", dir);
	snprintf(f2, sizeof f2, "%s/missing.trace", dir);
	char *args2[] = {f1, f2};
	cr_assert_eq(gtr_check_collect(args2, 2, "*.trace", &in, &n, why, sizeof why), 0, "%s", why);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(in[0].name, "missing.trace");
	cr_assert_str_eq(in[1].name, "notes.txt");
	gtr_check_inputs_free(in, n);

	/* Two inputs with one name cannot be matched with a baseline. */
	char f3[4200];
	snprintf(f3, sizeof f3, "%s/a.trace", dir);
	char *args3[] = {dir, f3};
	cr_assert_eq(gtr_check_collect(args3, 2, "*.trace", &in, &n, why, sizeof why), -1);
	cr_assert_neq(strstr(why, "same name"), NULL, "%s", why);
	/* A directory with nothing to check is a mistake worth reporting. */
	char *args4[] = {hidden};
	cr_assert_eq(gtr_check_collect(args4, 1, "*.nothing", &in, &n, why, sizeof why), -1);

	char cmd[4300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}
