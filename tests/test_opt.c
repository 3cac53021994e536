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

/*
 * The tables of the commands and their usage texts cannot drift apart:
 * every option a command takes is in its `gtr CMD --help`, and every
 * option that text names is one gtr takes.
 */
#include "core/cli/cli.h"

/* Whether usage names flag ("--top", "-n") as a word: not inside another word or a longer flag. */
static int names(const char *usage, const char *flag)
{
	size_t n = strlen(flag);
	for (const char *p = strstr(usage, flag); p; p = strstr(p + 1, flag)) {
		int before = p == usage || !(p[-1] == '-' || (p[-1] >= 'a' && p[-1] <= 'z') ||
					     (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
		char c = p[n];
		int after = !(c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
		if (before && after)
			return 1;
	}
	return 0;
}

static int in_table(const gtr_opt *tab, const char *flag)
{
	if (!tab)
		return 0;
	if (flag[1] == '-')
		return gtr_opt_find(tab, flag + 2, strlen(flag + 2), 0) != NULL;
	return gtr_opt_find(tab, NULL, 0, flag[1]) != NULL;
}

/* Calls fn on every flag usage names: "--word-word" and "-x", each begun after a space, '(', '[' or '`'. */
static void each_flag(const char *usage, void (*fn)(const char *flag, void *ctx), void *ctx)
{
	for (const char *p = usage; *p; p++) {
		if (*p != '-' || (p > usage && !strchr(" ([`\n", p[-1])))
			continue;
		char flag[64];
		size_t n = 0;
		if (p[1] == '-') {
			flag[n++] = '-';
			flag[n++] = '-';
			const char *q = p + 2;
			while (n < sizeof flag - 1 && ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '-'))
				flag[n++] = *q++;
			while (n > 2 && flag[n - 1] == '-')
				n--;
			if (n == 2)
				continue;
		} else {
			char c = p[1], d = p[2];
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
				continue;
			if ((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') || (d >= '0' && d <= '9') || d == '-')
				continue;
			flag[n++] = '-';
			flag[n++] = c;
		}
		flag[n] = 0;
		fn(flag, ctx);
	}
}

static void known_to(const char *flag, void *ctx)
{
	const gtr_cli_command *c = ctx;
	cr_expect(in_table(c->opts, flag) || in_table(c->shared, flag) || in_table(gtr_cli_global_opts(), flag),
		  "gtr %s --help names %s, which gtr %s does not take", c->name, flag, c->name);
}

static void known_to_any(const char *flag, void *ctx)
{
	(void)ctx;
	size_t n;
	const gtr_cli_command *cmds = gtr_cli_commands(&n);
	int found = in_table(gtr_cli_global_opts(), flag) || strcmp(flag, "--version") == 0;
	for (size_t k = 0; k < n && !found; k++)
		found = in_table(cmds[k].opts, flag) || in_table(cmds[k].shared, flag);
	cr_expect(found, "gtr --help names %s, which no command takes", flag);
}

static void expect_described(const gtr_opt *tab, const char *usage, const char *usage_more, const char *name)
{
	for (const gtr_opt *o = tab; o && (o->name || o->short_name); o++) {
		char flag[64];
		if (o->name)
			snprintf(flag, sizeof flag, "--%s", o->name);
		else
			snprintf(flag, sizeof flag, "-%c", o->short_name);
		cr_expect(names(usage, flag) || (usage_more && names(usage_more, flag)),
			  "gtr %s takes %s, which its --help does not name", name, flag);
		if (o->name && o->short_name) {
			/* Both spellings, as "-n, --top N". */
			char both[80];
			snprintf(both, sizeof both, "-%c, --%s", o->short_name, o->name);
			cr_expect(strstr(usage, both) || (usage_more && strstr(usage_more, both)),
				  "gtr %s --help does not say \"%s\"", name, both);
		}
	}
}

Test(cli_usage, every_option_of_a_command_is_in_its_usage_and_back)
{
	size_t n;
	const gtr_cli_command *cmds = gtr_cli_commands(&n);
	cr_assert_gt(n, 10);
	for (size_t k = 0; k < n; k++) {
		const gtr_cli_command *c = &cmds[k];
		if (!c->opts)
			continue; /* help and version: gtr's own usage */
		expect_described(c->opts, c->usage, c->usage_more, c->name);
		expect_described(c->shared, c->usage, c->usage_more, c->name);
		each_flag(c->usage, known_to, (void *)c);
		if (c->usage_more)
			each_flag(c->usage_more, known_to, (void *)c);
	}
}

Test(cli_usage, the_global_options_are_in_gtrs_usage_and_back)
{
	const gtr_opt *g = gtr_cli_global_opts();
	for (const gtr_opt *o = g; o->name || o->short_name; o++) {
		char flag[64];
		snprintf(flag, sizeof flag, "--%s", o->name);
		cr_expect(names(gtr_cli_usage(), flag), "gtr --help does not name the global option %s", flag);
	}
	each_flag(gtr_cli_usage(), known_to_any, NULL);
}

Test(cli_usage, the_scan_finds_flags_and_only_flags)
{
	cr_assert(names("  -n, --top N  the N", "--top"));
	cr_assert(names("  -n, --top N  the N", "-n"));
	cr_assert(!names("  --top-most", "--top"));
	cr_assert(!names("a self-contained page", "-c"));
	cr_assert(!names("go tool trace -pprof=TYPE", "-p"));
}
