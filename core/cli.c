/* core/cli.c: subcommands, flags, and turning errors into one line. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "../io/map.h"
#include "../io/out.h"

#define GTR_VERSION_STRING "0.1.0"

enum { EXIT_OK = 0, EXIT_ERR = 1, EXIT_USAGE = 2, EXIT_THRESHOLD = 3 };

static const char usage_main[] =
	"usage: gtr COMMAND [flags] FILE\n"
	"\n"
	"Reads Go execution traces (go 1.5 to go 1.26 formats) and answers from the\n"
	"command line. FILE may be - for standard input.\n"
	"\n"
	"commands:\n"
	"  footprint FILE   count and bytes of each event type\n"
	"  dump FILE        every event, one line each, in time order\n"
	"  greedy FILE      the longest on-processor slices, the Tmax_stw estimate and\n"
	"                   the measured stop-the-world pauses (alias: diagreedy)\n"
	"\n"
	"Run 'gtr COMMAND --help' for a command's flags.\n"
	"\n"
	"exit status: 0 ok, 1 error (bad or unreadable trace), 2 usage,\n"
	"             3 a --fail-over or --stw-fail-over threshold was exceeded\n";

static const char usage_footprint[] =
	"usage: gtr footprint [flags] FILE\n"
	"\n"
	"For each event type: the bytes its events take and their count, with\n"
	"their shares of the file and of all events, sorted by bytes.\n"
	"\n"
	"flags:\n"
	"  --io=mmap|read   how to read FILE (default: mmap for files)\n";

static const char usage_dump[] =
	"usage: gtr dump [flags] FILE\n"
	"\n"
	"Every event, one line each, in the order Go's trace reader gives them:\n"
	"  TIME P=p M=m G=g Name arg=value ...\n"
	"TIME is in ns since the trace's first event; - means none.\n"
	"\n"
	"flags:\n"
	"  --stacks         add each event's stack, one \"func file:line\" per line\n"
	"  --transitions    print goroutine and P state transitions instead:\n"
	"                     TIME G=id From->To reason=\"...\"\n"
	"  -g GOID          only events of (or transitions of) goroutine GOID\n"
	"  --from T         only events at or after T (ns, or with a unit: 1.5ms, 2s)\n"
	"  --to T           only events at or before T\n"
	"  --io=mmap|read   how to read FILE (default: mmap for files)\n";

static const char usage_greedy[] =
	"usage: gtr greedy [flags] FILE      (also: gtr diagreedy)\n"
	"\n"
	"The N longest on-processor slices of the trace (a slice: a goroutine\n"
	"running on a P until it stops, blocks, yields, is preempted, enters a\n"
	"syscall or exits), with goroutine, P, times, how each ended, the\n"
	"goroutine's function, its recent events and the stacks where it started\n"
	"and stopped; the estimate Tmax_stw = the sum of the top GOMAXPROCS\n"
	"slices; and the stop-the-world pauses the trace recorded, each with the\n"
	"goroutines it had to wait for and the one that stopped last.\n"
	"\n"
	"flags:\n"
	"  -n N                 how many slices and pauses to list (default 10)\n"
	"  --json               the same content as JSON (schema in README.md)\n"
	"  --depth N            at most N frames per stack (default: all)\n"
	"  --fail-over D        exit 3 if a slice lasted longer than D (e.g. 10ms)\n"
	"  --stw-fail-over D    exit 3 if a measured pause lasted longer than D\n"
	"  --io=mmap|read       how to read FILE (default: mmap for files)\n";

static void say(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "gtr: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
}

/* Parses "123", "1.5ms", "20us", "2s" into ns. Returns 0 or -1. */
static int parse_duration(const char *s, uint64_t *ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	double mul = 1;
	if (*end == 0 || strcmp(end, "ns") == 0)
		mul = 1;
	else if (strcmp(end, "us") == 0 || strcmp(end, "\xc2\xb5s") == 0)
		mul = 1e3;
	else if (strcmp(end, "ms") == 0)
		mul = 1e6;
	else if (strcmp(end, "s") == 0)
		mul = 1e9;
	else
		return -1;
	double x = v * mul;
	if (x >= 1.8e19)
		return -1;
	*ns = (uint64_t)(x + 0.5);
	return 0;
}

typedef struct args {
	int argc, i;
	char **argv;
	const char *cmd;
} args;

/*
 * Matches flag `name` at the current position, with its value either
 * joined ("--to=5ms") or next ("--to 5ms"). Returns 1 and sets *val on a
 * match, 0 when the arg is something else, -1 when the value is missing.
 */
static int flag_value(args *a, const char *name, const char **val)
{
	const char *arg = a->argv[a->i];
	size_t n = strlen(name);
	if (strncmp(arg, name, n) != 0)
		return 0;
	if (arg[n] == '=') {
		*val = arg + n + 1;
		return 1;
	}
	if (arg[n] != 0)
		return 0;
	if (a->i + 1 >= a->argc)
		return -1;
	*val = a->argv[++a->i];
	return 1;
}

typedef struct opened {
	gtr_map map;
	gtr_trace *trace;
} opened;

static int open_trace(opened *op, const char *path, gtr_io_mode io)
{
	memset(op, 0, sizeof *op);
	int rc = gtr_map_open(&op->map, path, io);
	if (rc < 0) {
		say("%s: %s", path, strerror(-rc));
		return EXIT_ERR;
	}
	gtr_kernels k;
	const char *isa = getenv("GTR_ISA");
	if (gtr_kernels_init(&k, isa) < 0) {
		say("GTR_ISA=%s: unknown, or not supported by this CPU%s", isa, "");
		gtr_map_close(&op->map);
		return EXIT_USAGE;
	}
	gtr_error err;
	gtr_error_clear(&err);
	rc = gtr_trace_open(&op->trace, op->map.data, op->map.size, &k, &err);
	if (rc < 0) {
		fprintf(stderr, "gtr: %s: at byte %llu: %s\n", path, (unsigned long long)err.off,
			err.msg[0] ? err.msg : gtr_strerror(err.code));
		gtr_map_close(&op->map);
		return EXIT_ERR;
	}
	return EXIT_OK;
}

static void close_trace(opened *op)
{
	gtr_trace_free(op->trace);
	gtr_map_close(&op->map);
}

static int finish(const char *path, int rc, gtr_error *err, gtr_out *o)
{
	int werr = gtr_out_flush(o);
	if (rc < 0) {
		fprintf(stderr, "gtr: %s: at byte %llu: %s\n", path, (unsigned long long)err->off,
			err->msg[0] ? err->msg : gtr_strerror(err->code));
		return EXIT_ERR;
	}
	if (werr && werr != EPIPE) {
		say("writing output: %s%s", strerror(werr), "");
		return EXIT_ERR;
	}
	return EXIT_OK;
}

static void fmt_ns(char *buf, size_t cap, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, cap, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, cap, "%.1fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, cap, "%.3fms", (double)ns / 1e6);
	else
		snprintf(buf, cap, "%.3fs", (double)ns / 1e9);
}

/* Exit status 3, with one line saying why, when a limit is exceeded. */
static int check_thresholds(const gtr_greedy *g, int have_fail, uint64_t fail_over,
			    int have_stw_fail, uint64_t stw_fail_over)
{
	char a[32], b[32];
	if (have_fail && g->ntop && gtr_slice_dur(&g->top[0]) > fail_over) {
		fmt_ns(a, sizeof a, gtr_slice_dur(&g->top[0]));
		fmt_ns(b, sizeof b, fail_over);
		fprintf(stderr, "gtr: threshold exceeded: G%lld ran %s without leaving its P (--fail-over %s)\n",
			(long long)g->top[0].g, a, b);
		return EXIT_THRESHOLD;
	}
	if (have_stw_fail) {
		const gtr_stw *worst = NULL;
		for (size_t i = 0; i < g->nstw; i++)
			if (!worst || g->stw[i].end - g->stw[i].start > worst->end - worst->start)
				worst = &g->stw[i];
		if (worst && worst->end - worst->start > stw_fail_over) {
			fmt_ns(a, sizeof a, worst->end - worst->start);
			fmt_ns(b, sizeof b, stw_fail_over);
			fprintf(stderr, "gtr: threshold exceeded: a %.*s pause lasted %s (--stw-fail-over %s)\n",
				(int)worst->kind.n, worst->kind.p, a, b);
			return EXIT_THRESHOLD;
		}
	}
	return EXIT_OK;
}

enum { CMD_FOOTPRINT, CMD_DUMP, CMD_GREEDY };

static int parse_count(const char *val, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(val, &end, 10);
	if (*val == 0 || *end || errno || v == 0 || v > 1000000 || *val == '-')
		return -1;
	*out = (size_t)v;
	return 0;
}

static int run_command(args *a, int cmd)
{
	int dump = cmd == CMD_DUMP, greedy = cmd == CMD_GREEDY;
	gtr_greedy_report_opts gopts = {.json = 0};
	size_t top = 10;
	uint64_t fail_over = 0, stw_fail_over = 0;
	int have_fail = 0, have_stw_fail = 0;
	gtr_dump_opts d = {.goid = -1, .from = 0, .to = UINT64_MAX};
	gtr_io_mode io = GTR_IO_AUTO;
	const char *path = NULL;
	const char *usage = dump ? usage_dump : greedy ? usage_greedy : usage_footprint;
	for (; a->i < a->argc; a->i++) {
		const char *arg = a->argv[a->i], *val = NULL;
		int m;
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			fputs(usage, stdout);
			return EXIT_OK;
		}
		if ((m = flag_value(a, "--io", &val)) != 0) {
			if (m < 0 || (strcmp(val, "mmap") && strcmp(val, "read"))) {
				say("%s: --io takes mmap or read%s", a->cmd, "");
				return EXIT_USAGE;
			}
			io = strcmp(val, "mmap") == 0 ? GTR_IO_MMAP : GTR_IO_READ;
			continue;
		}
		if (greedy && strcmp(arg, "--json") == 0) {
			gopts.json = 1;
			continue;
		}
		if (greedy && ((m = flag_value(a, "-n", &val)) != 0 ||
			       (m = flag_value(a, "--depth", &val)) != 0)) {
			int n = arg[1] == 'n';
			if (m < 0 || parse_count(val, n ? &top : &gopts.stack_depth) < 0) {
				say("greedy: %s takes a positive count%s", n ? "-n" : "--depth", "");
				return EXIT_USAGE;
			}
			continue;
		}
		if (greedy && ((m = flag_value(a, "--fail-over", &val)) != 0 ||
			       (m = flag_value(a, "--stw-fail-over", &val)) != 0)) {
			int stw = strncmp(arg, "--stw", 5) == 0;
			if (m < 0 || parse_duration(val, stw ? &stw_fail_over : &fail_over) < 0) {
				say("greedy: %s takes a duration such as 500us, 10ms or 1s%s",
				    stw ? "--stw-fail-over" : "--fail-over", "");
				return EXIT_USAGE;
			}
			*(stw ? &have_stw_fail : &have_fail) = 1;
			continue;
		}
		if (dump && strcmp(arg, "--stacks") == 0) {
			d.stacks = 1;
			continue;
		}
		if (dump && strcmp(arg, "--transitions") == 0) {
			d.transitions = 1;
			continue;
		}
		if (dump && (m = flag_value(a, "-g", &val)) != 0) {
			char *end;
			long long g = m > 0 ? strtoll(val, &end, 10) : -1;
			if (m < 0 || *val == 0 || *end || g < 0) {
				say("dump: -g takes a goroutine id%s%s", "", "");
				return EXIT_USAGE;
			}
			d.goid = g;
			continue;
		}
		if (dump && ((m = flag_value(a, "--from", &val)) != 0 ||
			     (m = flag_value(a, "--to", &val)) != 0)) {
			int from = strncmp(arg, "--from", 6) == 0;
			if (m < 0 || parse_duration(val, from ? &d.from : &d.to) < 0) {
				say("dump: %s takes a time such as 1500, 20us, 1.5ms or 2s%s",
				    from ? "--from" : "--to", "");
				return EXIT_USAGE;
			}
			continue;
		}
		if (arg[0] == '-' && arg[1] != 0) {
			say("%s: unknown flag %s", a->cmd, arg);
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
		if (path) {
			say("%s: one trace file, please (got %s)", a->cmd, arg);
			return EXIT_USAGE;
		}
		path = arg;
	}
	if (!path) {
		say("%s: no trace file given%s", a->cmd, "");
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	opened op;
	int st = open_trace(&op, path, io);
	if (st != EXIT_OK)
		return st;
	static gtr_out o;
	gtr_out_init(&o, STDOUT_FILENO);
	gtr_error err;
	gtr_error_clear(&err);
	int rc;
	gtr_greedy *g = NULL;
	if (greedy) {
		gopts.file = path;
		rc = gtr_greedy_run(op.trace, top, &g, &err);
		if (rc == 0)
			rc = gtr_report_greedy(op.trace, g, &gopts, &o, &err);
	} else if (dump) {
		rc = gtr_report_dump(op.trace, &d, &o, &err);
	} else {
		rc = gtr_report_footprint(op.trace, &o, &err);
	}
	st = finish(path, rc, &err, &o);
	if (st == EXIT_OK && g)
		st = check_thresholds(g, have_fail, fail_over, have_stw_fail, stw_fail_over);
	gtr_greedy_free(g);
	close_trace(&op);
	return st;
}

int gtr_cli_main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_main, stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage_main, stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("gtr %s (reads go 1.5, 1.7, 1.8, 1.9, 1.10, 1.11, 1.19, 1.21, 1.22, 1.23, "
		       "1.25 and 1.26 traces)\n",
		       GTR_VERSION_STRING);
		return EXIT_OK;
	}
	args a = {.argc = argc, .argv = argv, .i = 2, .cmd = cmd};
	if (strcmp(cmd, "footprint") == 0)
		return run_command(&a, CMD_FOOTPRINT);
	if (strcmp(cmd, "dump") == 0)
		return run_command(&a, CMD_DUMP);
	if (strcmp(cmd, "greedy") == 0 || strcmp(cmd, "diagreedy") == 0)
		return run_command(&a, CMD_GREEDY);
	say("unknown command %s%s", cmd, "");
	fputs(usage_main, stderr);
	return EXIT_USAGE;
}
