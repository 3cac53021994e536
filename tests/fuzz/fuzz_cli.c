/*
 * tests/fuzz/fuzz_cli.c: the analyses the command line runs, end to end,
 * into writers on /dev/null: greedy (text and JSON, stacks resolved),
 * dump (events with stacks, then transitions), footprint and stats, over
 * the input opened strictly and then leniently. Seeds: every corpus trace.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "core/report/report.h"
#include "core/analysis/stats.h"

#include "fuzz_modes.h"

static void run_all(const gtr_trace *t, size_t salt)
{
	gtr_error err;
	gtr_greedy *g = NULL;
	gtr_error_clear(&err);
	if (gtr_greedy_run(t, 5, &g, &err) == 0) {
		gtr_greedy_report_opts text = {.file = "fuzz", .json = 0, .stack_depth = 0};
		gtr_greedy_report_opts json = {.file = "fuzz", .json = 1, .stack_depth = 3};
		gtr_out_init(&out, devnull);
		gtr_report_greedy(t, g, &text, &out, &err);
		gtr_out_flush(&out);
		gtr_out_init(&out, devnull);
		gtr_report_greedy(t, g, &json, &out, &err);
		gtr_out_flush(&out);
		gtr_greedy_free(g);
	}
	gtr_dump_opts events = {.stacks = 1, .goid = -1, .from = 0, .to = UINT64_MAX};
	gtr_dump_opts trans = {.stacks = 1, .transitions = 1, .goid = 1, .from = 0, .to = UINT64_MAX};
	gtr_error_clear(&err);
	gtr_out_init(&out, devnull);
	gtr_report_dump(t, &events, &out, &err);
	gtr_out_flush(&out);
	gtr_error_clear(&err);
	gtr_out_init(&out, devnull);
	gtr_report_dump(t, &trans, &out, &err);
	gtr_out_flush(&out);
	gtr_error_clear(&err);
	gtr_out_init(&out, devnull);
	gtr_report_footprint(t, &out, &err);
	gtr_out_flush(&out);
	gtr_stats *s = NULL;
	gtr_error_clear(&err);
	if (gtr_stats_run(t, NULL, &s, &err) == 0) {
		gtr_stats_report_opts so = {.file = "fuzz", .format = GTR_STATS_JSON,
					    .by = GTR_STATS_BY_BOTH, .sort = GTR_SK_EXEC};
		gtr_out_init(&out, devnull);
		gtr_report_stats(t, s, &so, &out, &err);
		gtr_out_flush(&out);
		gtr_stats_free(s);
	}
	/* As `gtr stats --top 2 --sort KEY` runs it (the key varies with the input). */
	gtr_stats_keep keep = {.top = 2, .sort = (gtr_stats_key)(salt % GTR_SK_N)};
	gtr_error_clear(&err);
	if (gtr_stats_run(t, &keep, &s, &err) == 0) {
		gtr_stats_report_opts so = {.file = "fuzz", .format = GTR_STATS_TEXT,
					    .by = GTR_STATS_BY_BOTH, .sort = keep.sort, .top = 2};
		gtr_out_init(&out, devnull);
		gtr_report_stats(t, s, &so, &out, &err);
		gtr_out_flush(&out);
		gtr_stats_free(s);
	}
}
