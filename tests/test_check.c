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
#include "core/base/samplestat.h"

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
	/* Ratios and shares are gated; single-run tails and absolute totals are not. */
	cr_assert_float_eq(th.pct[GTR_M_STW_PER_EXEC], 20, 1e-9);
	cr_assert_float_eq(th.pct[GTR_M_ASSIST_PER_EXEC], 20, 1e-9);
	cr_assert_float_eq(th.pct[GTR_M_WAIT_PER_EXEC], 20, 1e-9);
	cr_assert_float_eq(th.pct[GTR_FM_SHARE], 20, 1e-9);
	cr_assert_lt(th.pct[GTR_M_MAX_SLICE], 0);
	cr_assert_lt(th.pct[GTR_M_TMAX_STW], 0);
	cr_assert_lt(th.pct[GTR_M_STW_P99], 0);
	cr_assert_lt(th.pct[GTR_M_EXEC], 0);
	cr_assert_lt(th.pct[GTR_FM_EXEC], 0);
	cr_assert_float_eq(th.alpha, 0.05, 1e-12);
	for (int m = 0; m < GTR_METRICS_ALL; m++)
		cr_assert_not(th.few[m], "nothing is gated between too few runs by default");
	cr_assert_eq(gtr_thresholds_min_runs(&th), 5, "3 metrics at 0.05: 0.05/3 needs 5 runs a side");
	char why[200];
	cr_assert_eq(gtr_thresholds_parse(&th, "max_slice=50,stw_p99=off", why, sizeof why), 0, "%s", why);
	cr_assert_float_eq(th.pct[GTR_M_MAX_SLICE], 50, 1e-9);
	cr_assert(th.few[GTR_M_MAX_SLICE], "a threshold given applies with any number of runs");
	cr_assert_lt(th.pct[GTR_M_STW_P99], 0);
	cr_assert_eq(gtr_thresholds_parse(&th, "func_exec=12.5%", why, sizeof why), 0, "%s", why);
	cr_assert_float_eq(th.pct[GTR_FM_EXEC], 12.5, 1e-9);
	const char *bad[] = {"max_slice", "nope=3", "max_slice=-1", "max_slice=abc", "max_slice=",
			     "=5", "max_slice=5x"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(gtr_thresholds_parse(&th, bad[i], why, sizeof why), -1, "%s", bad[i]);
	for (int m = 0; m < GTR_METRICS_ALL; m++)
		cr_assert_eq(gtr_metric_lookup(gtr_metric_name(m)), m);
	double a;
	cr_assert_eq(gtr_alpha_parse("0.01", &a), 0);
	cr_assert_float_eq(a, 0.01, 1e-12);
	cr_assert_eq(gtr_alpha_parse("0", &a), -1);
	cr_assert_eq(gtr_alpha_parse("0.6", &a), -1);
	cr_assert_eq(gtr_alpha_parse("x", &a), -1);
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

/* The single-run tails at +20%, no minimum change: thresholds of one run a side. */
static void tails(gtr_thresholds *th)
{
	char why[100];
	gtr_thresholds_default(th);
	cr_assert_eq(gtr_thresholds_parse(th, "max_slice=20,tmax_stw=20,stw_p99=20,stw_per_exec=off,"
					  "gc_assist_per_exec=off,sched_wait_per_exec=off,func_share=off",
					  why, sizeof why), 0, "%s", why);
	th->min_delta = 0;
}

Test(compare, thresholds_decide)
{
	gtr_thresholds th;
	tails(&th);
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
	/* The defaults gate nothing between single runs. */
	gtr_thresholds def;
	gtr_thresholds_default(&def);
	cr_assert_eq(verdict(&a, &worse, &def), GTR_SAME);
	cr_assert_eq(verdict(&worse, &a, &def), GTR_SAME);
	cr_assert_eq(verdict(&a, &worse, &th), GTR_WORSE);
	th.min_delta = 300000;
	cr_assert_eq(verdict(&a, &worse, &th), GTR_SAME, "200 us of growth is below --min-delta");
	/* A metric a baseline does not know is not compared. */
	tails(&th);
	a.known[GTR_M_MAX_SLICE] = 0;
	cr_assert_eq(verdict(&a, &worse, &th), GTR_SAME);
}

Test(compare, per_function_thresholds)
{
	gtr_thresholds th;
	tails(&th);
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

/*
 * Run r of 10 of a program with 9 start functions, f0 the largest (20 ms)
 * down to f8 (12 ms), 1 ms apart, with noise under 0.5 ms; `slow` is
 * doubled in every run.
 * Funcs are named f0..f8, so they come sorted by name.
 */
static gtr_metrics nine_funcs(gtr_func_metrics *f, int r, int slow)
{
	static const char *const names[9] = {"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8"};
	gtr_metrics m;
	memset(&m, 0, sizeof m);
	m.known[GTR_M_EXEC] = 1;
	for (int i = 0; i < 9; i++) {
		/* A little noise, different for each run and function. */
		uint64_t e = 20000000 - (uint64_t)i * 1000000 + (uint64_t)((r * 7 + i * 3) % 11) * 40000;
		f[i] = (gtr_func_metrics){.func = (char *)names[i], .exec = i == slow ? 2 * e : e};
		m.v[GTR_M_EXEC] += f[i].exec;
	}
	m.funcs = f;
	m.nfuncs = 9;
	return m;
}

static int compare_nine(size_t nruns, int slow, gtr_cmp_info *info, int *f_worse)
{
	gtr_func_metrics fb[10][9], fc[10][9];
	gtr_metrics b[10], c[10];
	const gtr_metrics *pb[10], *pc[10];
	for (size_t r = 0; r < nruns; r++) {
		b[r] = nine_funcs(fb[r], (int)r, -1);
		c[r] = nine_funcs(fc[r], (int)r + 3, slow);
		pb[r] = &b[r];
		pc[r] = &c[r];
	}
	gtr_thresholds th;
	gtr_thresholds_default(&th);
	gtr_change *ch;
	size_t n;
	int v = gtr_compare_runs(pb, nruns, pc, nruns, &th, &ch, &n, info);
	*f_worse = 0;
	for (size_t i = 0; i < n; i++)
		if (ch[i].func && ch[i].verdict == GTR_WORSE)
			*f_worse = 1;
	free(ch);
	return v;
}

/*
 * 5 vs 5 runs give no p below 2/252: Holm's first level at 0.05 over more
 * than 6 functions could never be met, and no function could ever be
 * called. The 6 largest in the baseline are tested, the rest said not to be.
 */
Test(compare, functions_past_what_the_runs_can_test)
{
	gtr_cmp_info info;
	int fw;
	cr_assert_eq(compare_nine(5, 0, &info, &fw), GTR_WORSE, "the largest function 2x slower is caught at 5 runs");
	cr_assert(fw);
	cr_assert_eq(info.funcs_untested, 3, "9 functions, 6 tested at 5 vs 5 runs: %zu", info.funcs_untested);
	cr_assert_eq(compare_nine(5, -1, &info, &fw), GTR_SAME, "unchanged");
	cr_assert_not(fw);
	/* f8, among the smallest (by the baseline), is not tested at 5 runs... */
	cr_assert_eq(compare_nine(5, 8, &info, &fw), GTR_SAME);
	cr_assert_eq(info.funcs_untested, 3);
	/* ...and is at 10, where all 9 are. */
	cr_assert_eq(compare_nine(10, 8, &info, &fw), GTR_WORSE);
	cr_assert(fw);
	cr_assert_eq(info.funcs_untested, 0);
}

/* The runtime's goroutines are reported, not gated, unless asked for. */
Test(compare, runtime_functions_gated_only_when_asked)
{
	gtr_func_metrics fb[5][2], fc[5][2];
	gtr_metrics b[5], c[5];
	const gtr_metrics *pb[5], *pc[5];
	for (int r = 0; r < 5; r++) {
		uint64_t noise = (uint64_t)r * 30000;
		fb[r][0] = (gtr_func_metrics){.func = "main.work", .exec = 60000000 + noise};
		fb[r][1] = (gtr_func_metrics){.func = "runtime.gcBgMarkWorker", .exec = 10000000 + noise};
		fc[r][0] = fb[r][0];
		fc[r][1] = (gtr_func_metrics){.func = "runtime.gcBgMarkWorker", .exec = 30000000 + noise};
		b[r] = (gtr_metrics){.funcs = fb[r], .nfuncs = 2};
		c[r] = (gtr_metrics){.funcs = fc[r], .nfuncs = 2};
		b[r].known[GTR_M_EXEC] = c[r].known[GTR_M_EXEC] = 1;
		b[r].v[GTR_M_EXEC] = fb[r][0].exec + fb[r][1].exec;
		c[r].v[GTR_M_EXEC] = fc[r][0].exec + fc[r][1].exec;
		pb[r] = &b[r];
		pc[r] = &c[r];
	}
	gtr_thresholds th;
	gtr_thresholds_default(&th);
	gtr_change *ch;
	size_t n;
	/* main.work's share falls (86% -> 67%): better, not a regression. */
	cr_assert_eq(gtr_compare_runs(pb, 5, pc, 5, &th, &ch, &n, NULL), GTR_BETTER);
	for (size_t i = 0; i < n; i++)
		cr_assert(!ch[i].func || strcmp(ch[i].func, "main.work") == 0, "%s is gated", ch[i].func);
	free(ch);
	char why[100];
	cr_assert_eq(gtr_thresholds_parse(&th, "func_share=20", why, sizeof why), 0, "%s", why);
	cr_assert_eq(gtr_compare_runs(pb, 5, pc, 5, &th, &ch, &n, NULL), GTR_WORSE);
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
	gtr_check_case *c;
	size_t n;
	const gtr_baseline *old;
	size_t max_runs;
} runargs;

static void write_baseline(void *p, gtr_out *o)
{
	runargs *a = p;
	gtr_check_write_baseline(a->c, a->n, a->old, a->max_runs, o);
}

static gtr_check_input *inputs(const char *const *rel, size_t n)
{
	gtr_check_input *in = calloc(n, sizeof *in);
	for (size_t i = 0; i < n; i++) {
		const char *slash = strrchr(rel[i], '/');
		in[i].name = strdup(slash ? slash + 1 : rel[i]);
		in[i].path = strdup(root_path(rel[i]));
		cr_assert_eq(gtr_check_input_case(&in[i]), 0);
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

static const gtr_check_case *case_named(const gtr_check_case *c, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i].name, name) == 0)
			return &c[i];
	return NULL;
}

Test(check, parallel_runs_equal_a_sequential_one_and_baselines_round_trip)
{
	struct stat st;
	if (stat(root_path(corpus[0]), &st) < 0)
		cr_skip_test("corpus missing");
	gtr_check_input *in = inputs(corpus, NCORPUS);
	gtr_thresholds th;
	tails(&th);
	gtr_check_opts o1 = {.th = &th, .ntop = 5, .jobs = 1};
	gtr_check_opts o4 = {.th = &th, .ntop = 5, .jobs = 4};
	gtr_check_result *r1, *r4;
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_check_measure(in, NCORPUS, &o1, &r1, &e), 0);
	cr_assert_eq(gtr_check_measure(in, NCORPUS, &o4, &r4, &e), 0);
	for (size_t i = 0; i < NCORPUS; i++) {
		cr_assert_eq(r1[i].status, r4[i].status, "%s", in[i].name);
		cr_assert_eq(r1[i].fingerprint, r4[i].fingerprint);
		cr_assert_eq(memcmp(r1[i].m.v, r4[i].m.v, sizeof r1[i].m.v), 0, "%s", in[i].name);
		cr_assert_eq(r1[i].m.nfuncs, r4[i].m.nfuncs);
	}
	cr_assert_eq(r1[NCORPUS - 1].status, GTR_CHECK_ERROR);
	cr_assert_neq(strstr(r1[NCORPUS - 1].error, "No such file"), NULL, "%s", r1[NCORPUS - 1].error);
	/* Same bytes, same fingerprint; different bytes, different fingerprints. */
	cr_assert_neq(r1[2].fingerprint, r1[3].fingerprint);
	/* The ratios are derived from the totals. */
	const gtr_metrics *m = &r1[3].m;
	cr_assert(m->known[GTR_M_WAIT_PER_EXEC]);
	cr_assert_eq(m->v[GTR_M_WAIT_PER_EXEC],
		     (uint64_t)((double)m->v[GTR_M_SCHED_WAIT] / (double)m->v[GTR_M_EXEC] * 1e6 + 0.5));

	gtr_check_case *c1;
	size_t nc1;
	cr_assert_eq(gtr_check_judge(r1, NCORPUS, NULL, &th, &c1, &nc1), 0);
	cr_assert_eq(nc1, NCORPUS);
	cr_assert_eq(case_named(c1, nc1, "churn-go1.15.trace")->status, GTR_CHECK_NEW);

	/* Write a baseline, read it back: every metric and function survives. */
	runargs ra = {.c = c1, .n = nc1};
	size_t len;
	char *text = capture(write_baseline, &ra, &len);
	gtr_baseline *b;
	cr_assert_eq(gtr_baseline_parse(text, len, &b, &e), 0, "%s", e.msg);
	cr_assert_eq(b->n, NCORPUS - 1, "the unreadable trace has no entry");
	for (size_t i = 0; i + 1 < NCORPUS; i++) {
		const gtr_baseline_case *bc = gtr_baseline_find(b, in[i].name);
		cr_assert_not_null(bc, "%s", in[i].name);
		cr_assert_eq(bc->nruns, 1);
		const gtr_baseline_entry *be = &bc->runs[0];
		cr_assert(be->have_fingerprint);
		cr_assert_eq(be->fingerprint, r1[i].fingerprint);
		cr_assert_eq(be->bytes, r1[i].bytes);
		cr_assert_eq(be->m.version, r1[i].m.version);
		cr_assert_eq(memcmp(be->m.v, r1[i].m.v, sizeof be->m.v), 0, "%s", in[i].name);
		cr_assert_eq(be->m.nfuncs, r1[i].m.nfuncs);
		for (size_t k = 0; k < be->m.nfuncs; k++) {
			cr_assert_str_eq(be->m.funcs[k].func, r1[i].m.funcs[k].func);
			cr_assert_eq(be->m.funcs[k].exec, r1[i].m.funcs[k].exec);
			cr_assert_eq(be->m.funcs[k].max_slice, r1[i].m.funcs[k].max_slice);
		}
		cr_assert_eq(be->m.ntop, r1[i].m.ntop);
	}

	/* Against that baseline everything passes, unchanged. */
	gtr_check_case *c2;
	size_t nc2;
	gtr_check_summary s;
	cr_assert_eq(gtr_check_judge(r4, NCORPUS, b, &th, &c2, &nc2), 0);
	gtr_check_summarize(c2, nc2, &s);
	cr_assert_eq(s.ok, NCORPUS - 1);
	cr_assert_eq(s.errors, 1);
	cr_assert_eq(s.unchanged, NCORPUS - 1);
	cr_assert_eq(s.regressed, 0);
	cr_assert_eq(s.few, NCORPUS - 1, "one run a side: not statistical");
	cr_assert_eq(gtr_check_exit_status(c2, nc2, 1), 1, "the unreadable trace");

	/* The coarse trace under the fine one's name: a regression of that case. */
	free(in[3].path);
	in[3].path = strdup(root_path(corpus[2]));
	gtr_check_result *r3;
	gtr_check_case *c3;
	size_t nc3;
	cr_assert_eq(gtr_check_measure(in, NCORPUS, &o4, &r3, &e), 0);
	cr_assert_eq(gtr_check_judge(r3, NCORPUS, b, &th, &c3, &nc3), 0);
	const gtr_check_case *fine = case_named(c3, nc3, "greedy-fine-go1.26.trace");
	cr_assert_eq(fine->status, GTR_CHECK_REGRESSED);
	cr_assert(fine->changed);
	int saw_max_slice = 0;
	for (size_t k = 0; k < fine->nchanges; k++)
		saw_max_slice |= fine->changes[k].metric == GTR_M_MAX_SLICE && fine->changes[k].verdict == GTR_WORSE;
	cr_assert(saw_max_slice);
	gtr_check_summarize(c3, nc3, &s);
	cr_assert_eq(s.regressed, 1);
	cr_assert_eq(s.ok, NCORPUS - 2);
	cr_assert_eq(gtr_check_exit_status(c3, nc3, 1), 3, "3 wins over 1");

	/* Only some traces given: the others are MISSING, and fail the check when asked. */
	gtr_check_case *c4;
	size_t nc4;
	cr_assert_eq(gtr_check_judge(r3 + 3, 1, b, &th, &c4, &nc4), 0);
	cr_assert_eq(nc4, b->n);
	gtr_check_summarize(c4, nc4, &s);
	cr_assert_eq(s.missing, b->n - 1);
	cr_assert_eq(case_named(c4, nc4, "churn-go1.15.trace")->status, GTR_CHECK_MISSING);
	cr_assert_eq(gtr_check_exit_status(c4, nc4, 1), 3);
	gtr_check_case *c5;
	size_t nc5;
	cr_assert_eq(gtr_check_judge(r3 + 4, 1, b, &th, &c5, &nc5), 0);
	cr_assert_eq(gtr_check_exit_status(c5, nc5, 1), 1, "missing cases fail");
	cr_assert_eq(gtr_check_exit_status(c5, nc5, 0), 0, "unless told not to");

	/* A baseline rewritten from a partial check keeps the cases it did not check, and adds the new run. */
	ra = (runargs){.c = c4, .n = nc4, .old = b};
	char *text2 = capture(write_baseline, &ra, &len);
	gtr_baseline *b2;
	cr_assert_eq(gtr_baseline_parse(text2, len, &b2, &e), 0, "%s", e.msg);
	cr_assert_eq(b2->n, b->n);
	const gtr_baseline_case *bf = gtr_baseline_find(b2, in[3].name);
	cr_assert_eq(bf->nruns, 2);
	cr_assert_eq(bf->runs[0].fingerprint, r1[3].fingerprint, "the older run first");
	cr_assert_eq(bf->runs[1].fingerprint, r3[3].fingerprint);
	cr_assert_eq(gtr_baseline_find(b2, in[0].name)->runs[0].fingerprint, r1[0].fingerprint);
	/* At most max_runs runs a case: the oldest go. */
	ra.max_runs = 1;
	char *text3 = capture(write_baseline, &ra, &len);
	gtr_baseline *b3;
	cr_assert_eq(gtr_baseline_parse(text3, len, &b3, &e), 0, "%s", e.msg);
	bf = gtr_baseline_find(b3, in[3].name);
	cr_assert_eq(bf->nruns, 1);
	cr_assert_eq(bf->runs[0].fingerprint, r3[3].fingerprint);

	gtr_baseline_free(b3);
	gtr_baseline_free(b2);
	gtr_baseline_free(b);
	free(text);
	free(text2);
	free(text3);
	gtr_check_cases_free(c1, nc1);
	gtr_check_cases_free(c2, nc2);
	gtr_check_cases_free(c3, nc3);
	gtr_check_cases_free(c4, nc4);
	gtr_check_cases_free(c5, nc5);
	gtr_check_results_free(r1, NCORPUS);
	gtr_check_results_free(r4, NCORPUS);
	gtr_check_results_free(r3, NCORPUS);
	gtr_check_inputs_free(in, NCORPUS);
}

Test(check, baselines_that_are_not_are_refused)
{
	const char *bad[] = {
		"", "[]", "{}", "{\"schema\":\"other\",\"traces\":[]}", "{\"schema\":\"gtr.baseline.v1\"}",
		"{\"schema\":\"gtr.baseline.v1\",\"traces\":{}}",
		"{\"schema\":\"gtr.baseline.v2\",\"cases\":[{\"name\":\"a\"}]}",
		"{\"schema\":\"gtr.baseline.v2\",\"cases\":[{\"name\":\"a\",\"runs\":[]}]}",
		"{\"schema\":\"gtr.baseline.v2\",\"cases\":[{\"name\":7,\"runs\":[]}]}",
		"\xef\xbb\xbf{\"schema\":\"gtr.baseline.v2\",\"cases\":[]}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		gtr_baseline *b = (gtr_baseline *)1;
		gtr_error e;
		gtr_error_clear(&e);
		cr_assert_lt(gtr_baseline_parse(bad[i], strlen(bad[i]), &b, &e), 0, "%s", bad[i]);
		cr_assert_neq(e.msg[0], 0, "%s: a reason", bad[i]);
	}
	/* The path of the wrong value, and its offset. */
	const char *wrong = "{\"schema\":\"gtr.baseline.v2\",\"cases\":[{\"name\":\"x\",\"runs\":[{\"fingerprint\":"
			    "\"00000000000000ff\",\"bytes\":1,\"go\":{\"trace\":\"1.26\"},\"metrics\":{\"max_slice_ns\":\"1000\"}}]}]}";
	gtr_baseline *b;
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_lt(gtr_baseline_parse(wrong, strlen(wrong), &b, &e), 0);
	cr_assert_neq(strstr(e.msg, "$.cases[0].runs[0]."), NULL, "%s", e.msg);
	/* Entries without metrics (errors in a report) are skipped. */
	const char *ok = "{\"schema\":\"gtr.check.v1\",\"traces\":[{\"name\":\"x\",\"status\":\"error\"}]}";
	gtr_error_clear(&e);
	cr_assert_eq(gtr_baseline_parse(ok, strlen(ok), &b, &e), 0, "%s", e.msg);
	cr_assert_eq(b->n, 0);
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
