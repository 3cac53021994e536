/* tests/test_opt.c: core/cli/opt, getopt_long's conventions over tables of options. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/cli/opt.h"

enum { TOP, JSON, VERBOSE, QUIET, JOBS, COLOR, OUT };

static const gtr_opt cmd[] = {
	{"top", 'n', GTR_OPT_REQUIRED, TOP, "N", "a positive count"},
	{"json", 0, GTR_OPT_NONE, JSON, NULL, NULL},
	{"quiet", 'q', GTR_OPT_NONE, QUIET, NULL, NULL},
	{"jobs", 'j', GTR_OPT_REQUIRED, JOBS, "N", "a number of threads"},
	{NULL, 'o', GTR_OPT_REQUIRED, OUT, "FILE", "a file name"},
	{0},
};
static const gtr_opt global[] = {
	{"verbose", 'v', GTR_OPT_NONE, VERBOSE, NULL, NULL},
	{"color", 0, GTR_OPT_OPTIONAL, COLOR, "WHEN", NULL},
	{0},
};

/*
 * Parses argv (a NULL-ended list) and writes what was found, one item
 * after another: "TOP=5 op:F VERBOSE end", or the error that stopped it.
 */
static const char *parse(const char *const *args)
{
	static char out[1024];
	static const char *const names[] = {"TOP", "JSON", "VERBOSE", "QUIET", "JOBS", "COLOR", "OUT"};
	char *argv[32];
	int argc = 0;
	while (args[argc]) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	gtr_opt_parser p;
	gtr_opt_init(&p, argc, argv, 0, cmd, global, NULL);
	size_t len = 0;
	out[0] = 0;
	for (;;) {
		int id = gtr_opt_next(&p);
		char item[128];
		if (id >= 0)
			snprintf(item, sizeof item, "%s%s%s", names[id], p.val ? "=" : "", p.val ? p.val : "");
		else if (id == GTR_OPT_OPERAND)
			snprintf(item, sizeof item, "op:%s", p.val);
		else if (id == GTR_OPT_END)
			snprintf(item, sizeof item, "end");
		else if (id == GTR_OPT_UNKNOWN)
			snprintf(item, sizeof item, "unknown:%s", p.flag);
		else if (id == GTR_OPT_MISSING)
			snprintf(item, sizeof item, "missing:%s", p.flag);
		else
			snprintf(item, sizeof item, "novalue:%s=%s", p.flag, p.val);
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%s", len ? " " : "", item);
		if (id < 0 && id != GTR_OPT_OPERAND)
			break;
	}
	return out;
}

#define PARSES(want, ...) cr_assert_str_eq(parse((const char *const[]){__VA_ARGS__, NULL}), want)

Test(opt, a_value_attached_or_next)
{
	PARSES("TOP=5 op:F end", "-n5", "F");
	PARSES("TOP=5 op:F end", "-n", "5", "F");
	PARSES("TOP=5 op:F end", "--top=5", "F");
	PARSES("TOP=5 op:F end", "--top", "5", "F");
	PARSES("TOP= op:F end", "--top=", "F");
	PARSES("JOBS=4 JOBS=8 JOBS=2 end", "-j4", "-j", "8", "--jobs=2");
}

Test(opt, a_required_value_may_start_with_a_dash)
{
	PARSES("TOP=-1 end", "-n", "-1");
	PARSES("OUT=- op:F end", "-o", "-", "F");
	PARSES("TOP=--json end", "--top", "--json");
}

Test(opt, the_old_parsers_short_equals)
{
	PARSES("TOP=5 end", "-n=5");
}

Test(opt, grouped_short_flags)
{
	PARSES("QUIET VERBOSE op:F end", "-qv", "F");
	PARSES("VERBOSE QUIET TOP=5 end", "-vqn5");
	PARSES("VERBOSE TOP=5 op:F end", "-vn", "5", "F");
	PARSES("VERBOSE unknown:-x", "-vx");
}

Test(opt, operands_anywhere)
{
	PARSES("op:A JSON op:B VERBOSE end", "A", "--json", "B", "-v");
	PARSES("op:- JSON end", "-", "--json");
}

Test(opt, double_dash_ends_options)
{
	PARSES("JSON op:-x.trace op:--json op:-- end", "--json", "--", "-x.trace", "--json", "--");
	PARSES("op:-n end", "--", "-n");
}

Test(opt, errors)
{
	PARSES("unknown:--frob", "--frob", "F");
	PARSES("unknown:--frob", "--frob=1");
	PARSES("unknown:-x", "-x");
	PARSES("op:F missing:--top", "F", "--top");
	PARSES("missing:-n", "-n");
	PARSES("novalue:--json=1", "--json=1");
	PARSES("novalue:--json=", "--json=");
	/* Long names are spelled in full: no abbreviations. */
	PARSES("unknown:--to", "--to", "5");
	PARSES("unknown:--jso", "--jso");
}

Test(opt, an_optional_value_is_never_the_next_argument)
{
	PARSES("COLOR op:never end", "--color", "never");
	PARSES("COLOR=never end", "--color=never");
}

Test(opt, the_first_table_wins_and_every_table_is_searched)
{
	static const gtr_opt over[] = {{"verbose", 0, GTR_OPT_REQUIRED, TOP, "N", NULL}, {0}};
	char *argv[] = {"--verbose", "3", "-v", "--json"};
	gtr_opt_parser p;
	gtr_opt_init(&p, 4, argv, 0, over, global, cmd);
	cr_assert_eq(gtr_opt_next(&p), TOP);
	cr_assert_str_eq(p.val, "3");
	cr_assert_eq(gtr_opt_next(&p), VERBOSE);
	cr_assert_eq(gtr_opt_next(&p), JSON);
	cr_assert_eq(gtr_opt_next(&p), GTR_OPT_END);
	cr_assert_eq(gtr_opt_next(&p), GTR_OPT_END);
}

Test(opt, find)
{
	cr_assert_eq(gtr_opt_find(cmd, "top", 3, 0)->id, TOP);
	cr_assert_eq(gtr_opt_find(cmd, NULL, 0, 'j')->id, JOBS);
	cr_assert_null(gtr_opt_find(cmd, "to", 2, 0));
	cr_assert_null(gtr_opt_find(cmd, NULL, 0, 'x'));
}
