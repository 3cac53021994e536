/* core/cli/cli.c: subcommands, flags, and turning errors into one line. */
#include "core/cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "core/report/report.h"
#include "core/analysis/scan.h"
#include "core/analysis/stats.h"
#include "core/analysis/analyze.h"
#include "core/analysis/diff.h"
#include "core/report/diff_report.h"
#include "core/gate/check.h"
#include "core/gate/shard.h"
#include "core/report/html_report.h"
#include "core/analysis/timeline.h"
#include "core/report/views_report.h"
#include "core/analysis/pprof.h"
#include "core/report/pprof_proto.h"
#include "core/analysis/zoom.h"
#include "core/base/duration.h"
#include "io/map.h"
#include "io/unpack.h"
#include "io/meter.h"
#include "io/name.h"
#include "io/out.h"
#include "io/outfile.h"

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
	"  stats FILE       where each goroutine's time went, by goroutine and by\n"
	"                   start function (go tool trace's goroutine analysis)\n"
	"  diff A B         two traces side by side: pauses, slices, functions, verdict\n"
	"  check --baseline BASE.json DIR|FILES...\n"
	"                   many traces at once against a baseline, for CI\n"
	"  report FILE [B]  a self-contained HTML page: timeline per P and M, slice\n"
	"                   histogram, slices, pauses, functions; with B, the diff\n"
	"  tasks FILE       user tasks (runtime/trace.NewTask): per type count and\n"
	"                   duration percentiles, the longest, their logs\n"
	"  regions FILE     user regions (trace.WithRegion, StartRegion): the same\n"
	"  mmu FILE         minimum mutator utilization: how much of the program's\n"
	"                   time GC took at each time scale (go tool trace's MMU)\n"
	"  goroutine GOID FILE\n"
	"                   one goroutine's life: states, transitions, slices, waits\n"
	"  pprof --type=T FILE\n"
	"                   a pprof profile of scheduler latency or blocking by stack\n"
	"                   (go tool trace -pprof=TYPE), for go tool pprof\n"
	"\n"
	"Run 'gtr COMMAND --help' for a command's flags.\n"
	"\n"
	"global flags (anywhere on the line):\n"
	"  -v, --verbose    say on stderr how the input was read (mmap, io_uring or\n"
	"                   read(2), and why io_uring was not used) and which SIMD\n"
	"                   kernels run\n"
	"  --progress       always show progress on stderr: phase (index, decode,\n"
	"                   reduce), bytes, rate; by default it shows only on a\n"
	"                   terminal, after half a second (never in pipes or CI)\n"
	"  --no-progress    never show progress\n"
	"  --color[=WHEN]   colour the headings of greedy's text report: auto (the\n"
	"                   default: when stdout is a terminal and NO_COLOR is unset),\n"
	"                   always, never\n"
	"  --max-input=SIZE the most a stream (standard input, a pipe) or a gzip or\n"
	"                   zstd input once decompressed may take in memory, in bytes\n"
	"                   or with K, M, G, T (default 4G); past it gtr stops reading\n"
	"  --version        gtr's version and the trace versions it reads\n"
	"\n"
	"environment: GTR_ISA=scalar|sse4|avx2|avx512|neon forces the SIMD kernels;\n"
	"GTR_IO_URING_DISABLE=1 acts as if io_uring were refused (to test the\n"
	"fallback); GTR_SCAN_WALK=generic makes greedy's parallel path read events\n"
	"with its generic walk (to test the fast one); GTR_INDEX_SPLIT=BYTES splits\n"
	"the index of a v1 trace of that size or more between threads (default 32 MiB);\n"
	"NO_COLOR (set, not empty) turns colour off unless --color=always\n"
	"\n"
	"A gzip- or zstd-compressed FILE (or standard input) is decompressed as it is\n"
	"read.\n"
	"\n"
	"A trace cut short (the process died) is read up to the cut: the report of the\n"
	"complete part is printed, the cut is stated, and the exit status is 1; with\n"
	"--lenient it is 0 and what was lost is a warning. diff and check refuse a\n"
	"truncated trace unless --lenient is given.\n"
	"\n"
	"exit status: 0 ok, 1 error (bad or unreadable trace), 2 usage,\n"
	"             3 a threshold was exceeded (greedy --fail-over or --stw-fail-over,\n"
	"               a regression found by check, diff --fail-on-regression)\n";

static const char usage_report[] =
	"usage: gtr report [flags] FILE [B]\n"
	"\n"
	"Writes one self-contained HTML page (no network, no server: open it from\n"
	"disk) that views the trace: a timeline with one row per P (and per M for\n"
	"go 1.22 and later traces) that zooms from the whole trace down to single\n"
	"slices, each with its goroutine, function, duration and how it ended (w/s\n"
	"or the wheel to zoom, a/d or dragging to pan; click a slice to follow its\n"
	"goroutine across Ps); lanes for GOMAXPROCS, the heap, goroutines,\n"
	"threads, user tasks and regions over time; the stop-the-world pauses\n"
	"marked; a histogram of slice durations on log scales with Tmax_stw and\n"
	"the measured STW p99 and max marked; the greedy table with stacks; the\n"
	"pauses with the goroutines that made them wait; the per-function\n"
	"statistics; tasks and regions per type with the longest ones (as gtr\n"
	"tasks and gtr regions); and the MMU curve (as gtr mmu). The page embeds the\n"
	"longest slices, up to --slices and to about 14 MB of them: every slice\n"
	"longer than the shortest one left out is drawn exactly, and the rest shade\n"
	"their P. With a second trace B, the page starts with the diff of A and B\n"
	"(as gtr diff) and shows both traces.\n"
	"\n"
	"flags:\n"
	"  -o, --output FILE     where the page goes (default report.html; - for\n"
	"                        standard output)\n"
	"  -n N                  top slices drawn and listed, pauses listed (default 10)\n"
	"  --depth N             frames per stack (default 32)\n"
	"  --functions N         rows of the per-function table (default 50)\n"
	"  --buckets N           time buckets per timeline row in the overview, 16 to\n"
	"                        20000 (default 2000)\n"
	"  --slices N            slices embedded at most, the longest: 1 to 1000000\n"
	"                        (default 1000000)\n"
	"  --threshold M=PCT     with B: the diff's thresholds (see gtr diff --help)\n"
	"  --min-delta D         with B: a duration must also change by more than D\n"
	"  --alpha A             with B: the U test's level (see gtr diff --help)\n"
	"  --lenient             read what can be read of damaged traces\n"
	"  --io=MODE             how to read the files: mmap, uring or read\n"
	"  -v, --verbose         say on stderr how each file was read\n";

static const char usage_footprint[] =
	"usage: gtr footprint [flags] FILE\n"
	"\n"
	"For each event type: the bytes its events take and their count, with\n"
	"their shares of the file and of all events, sorted by bytes.\n"
	"\n"
	"flags:\n"
	"  --io=MODE        how to read FILE: mmap, uring or read (default: mmap for\n"
	"                   files, uring for pipes, read if io_uring is refused)\n"
	"  --lenient        skip what cannot be decoded (broken batches, generations\n"
	"                   without a frequency, garbage between batches, events that\n"
	"                   cannot be ordered), read a newer Go's trace as the newest\n"
	"                   known version, and report the rest with warnings (exit 0)\n"
	"  -v, --verbose    say on stderr how FILE was read and which kernels run\n";

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
	"  --io=MODE        how to read FILE: mmap, uring or read (default: mmap for\n"
	"                   files, uring for pipes, read if io_uring is refused)\n"
	"  --lenient        skip what cannot be decoded (broken batches, generations\n"
	"                   without a frequency, garbage between batches, events that\n"
	"                   cannot be ordered), read a newer Go's trace as the newest\n"
	"                   known version, and report the rest with warnings (exit 0)\n"
	"  -v, --verbose    say on stderr how FILE was read and which kernels run\n";

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
	"  -j N                 threads (default: one per CPU): the read runs ahead\n"
	"                       of the analysis on a thread of its own; with\n"
	"                       --fast, N workers walking per-thread event streams\n"
	"  --fast               skip Go's global event order: each thread's events\n"
	"                       alone, in parallel, several times faster on big\n"
	"                       traces; times may differ from Go's by a few ns (README)\n"
	"                       and what Go checks between threads is not checked\n"
	"  --ordered            Go's global event order (the default; kept for scripts)\n"
	"  --io=MODE            how to read FILE: mmap, uring or read (default: mmap\n"
	"                       for files, uring for pipes, read if io_uring is refused)\n"
	"  --lenient            skip what cannot be decoded, report the rest with\n"
	"                       warnings (see gtr dump --help)\n"
	"  -v, --verbose        say on stderr how FILE was read and which kernels run\n";

static const char usage_stats[] =
	"usage: gtr stats [flags] FILE\n"
	"\n"
	"Where each goroutine's time went, as go tool trace's goroutine analysis\n"
	"counts it, per goroutine and per start function: execution time (Running),\n"
	"scheduler wait (Runnable), block time by reason (chan, select, sync, net,\n"
	"sleep, GC, other), syscall time, GC mark assist time (which overlaps the\n"
	"others), and the on-processor slices: count, p50, p99 and max.\n"
	"\n"
	"Block reasons: chan = chan send/receive; select; sync = sync and\n"
	"sync.(*Cond).Wait; net = network; sleep; GC = mark assist wait, sweeper\n"
	"wait, wait until GC ends, weak-to-strong wait; other = anything else.\n"
	"p50 and p99 come from a log-bucketed histogram (64 bins per power of two,\n"
	"bounded memory per goroutine): within 0.8% of the exact value; max is exact.\n"
	"\n"
	"flags:\n"
	"  --sort KEY       order rows by KEY, largest first (default exec): exec,\n"
	"                   sched, block, chan, select, sync, net, sleep, gc, other,\n"
	"                   syscall, assist, slices, p50, p99, max, goroutines;\n"
	"                   id and name sort ascending\n"
	"  -n, --top N      at most N rows per table (default 20 in text, all in\n"
	"                   --json, --jsonl and --csv)\n"
	"  --by WHAT        function, goroutine or both (default both)\n"
	"  --json           the same content as JSON (schema gtr.stats.v1, README.md)\n"
	"  --jsonl          the rows as JSON Lines, one object per line: the total,\n"
	"                   then function and goroutine rows (gtr.stats.row.v1)\n"
	"  --csv            one CSV table: a total row, then function and goroutine rows\n"
	"  --fast           skip Go's global event order: each thread's events of a\n"
	"                   generation alone, in parallel, several times faster on big\n"
	"                   v2 traces; durations may differ from Go's by a few ns\n"
	"                   (README); v1 traces and lenient reads take Go's order\n"
	"  --ordered        Go's global event order (the default)\n"
	"  -j N             threads (default: one per CPU)\n"
	"  --io=MODE        how to read FILE: mmap, uring or read (default: mmap for\n"
	"                   files, uring for pipes, read if io_uring is refused)\n"
	"  --lenient        skip what cannot be decoded (broken batches, generations\n"
	"                   without a frequency, garbage between batches, events that\n"
	"                   cannot be ordered), read a newer Go's trace as the newest\n"
	"                   known version, and report the rest with warnings (exit 0)\n"
	"  -v, --verbose    say on stderr how FILE was read and which kernels run\n";

static const char usage_tasks[] =
	"usage: gtr tasks [flags] FILE\n"
	"\n"
	"User tasks (runtime/trace.NewTask, go 1.11 traces and later), as go tool\n"
	"trace's task pages count them: per task type the count, how many are\n"
	"complete (their begin and end are both in the trace), and the durations\n"
	"of the complete ones (total, p50, p90, p99, max; exact nearest-rank);\n"
	"then the longest complete tasks, each with the goroutine that began it,\n"
	"start and end, its stack and its first logs (trace.Log).\n"
	"\n"
	"flags:\n"
	"  -n, --top N      the N longest tasks (default 10)\n"
	"  --type NAME      only tasks of this type in the longest\n"
	"  --task ID        one task: its times, stack, subtasks, every region in\n"
	"                   it and every log\n"
	"  --logs N         logs shown per listed task (default 5; --json: all)\n"
	"  --depth N        frames per stack (default 8; 0 for all)\n"
	"  --json           the same content as JSON (schema gtr.tasks.v1, README.md)\n"
	"  --io=MODE        how to read FILE: mmap, uring or read\n"
	"  --lenient        skip what cannot be decoded and warn (exit 0)\n";

static const char usage_regions[] =
	"usage: gtr regions [flags] FILE\n"
	"\n"
	"User regions (runtime/trace.WithRegion and StartRegion, go 1.11 traces\n"
	"and later), as go tool trace's region pages count them: per region type\n"
	"the count, how many are complete (begun in the trace and ended, by their\n"
	"end or by their goroutine's exit), and the durations of the complete\n"
	"ones (total, p50, p90, p99, max; exact nearest-rank); then the longest\n"
	"complete regions with goroutine, task, nesting, start, end and stack.\n"
	"\n"
	"flags:\n"
	"  -n, --top N      the N longest regions (default 10)\n"
	"  --type NAME      only regions of this type in the longest\n"
	"  --depth N        frames per stack (default 8; 0 for all)\n"
	"  --json           the same content as JSON (schema gtr.regions.v1, README.md)\n"
	"  --io=MODE        how to read FILE: mmap, uring or read\n"
	"  --lenient        skip what cannot be decoded and warn (exit 0)\n";

static const char usage_mmu[] =
	"usage: gtr mmu [flags] FILE\n"
	"\n"
	"Minimum mutator utilization, go tool trace's MMU: for each window width,\n"
	"the least share of the processors the program had for itself over any\n"
	"window of that width, and where that window starts. Widths 1 us, 2 us,\n"
	"5 us, 10 us ... up to the trace's length, and the length itself.\n"
	"\n"
	"flags:\n"
	"  --include LIST   what takes time from the program, comma-separated:\n"
	"                   stw (stop-the-world), background (GC mark workers),\n"
	"                   assist (mark assists), sweep (default\n"
	"                   stw,background,assist, as go tool trace)\n"
	"  --per-p          one utilization per P, a P doing GC work having none\n"
	"                   (go tool trace's per-goroutine view); default: the\n"
	"                   system's, the share of the Ps left to the program\n"
	"  --window D       this width (20us, 1.5ms, 2s) instead of the\n"
	"                   default ones; may be repeated\n"
	"  --json           the same content as JSON (schema gtr.mmu.v1, README.md)\n"
	"  --io=MODE        how to read FILE: mmap, uring or read\n"
	"  --lenient        skip what cannot be decoded and warn (exit 0)\n";

static const char usage_goroutine[] =
	"usage: gtr goroutine [flags] GOID FILE\n"
	"\n"
	"One goroutine's life: who created it, when and where; the time it spent\n"
	"in each state (Runnable, Running, Waiting, Syscall; as gtr stats and go\n"
	"tool trace count them); its on-processor slices, the longest first; where\n"
	"it waited, grouped by reason and stack, by total time; and every state\n"
	"transition, the first N listed and all of them counted by kind.\n"
	"\n"
	"flags:\n"
	"  -n, --top N      the N longest slices (default 10)\n"
	"  --transitions N  transitions listed (default 50; 0 for none)\n"
	"  --depth N        frames per stack (default 8; 0 for all)\n"
	"  --json           the same content as JSON (schema gtr.goroutine.v1, README.md)\n"
	"  --io=MODE        how to read FILE: mmap, uring or read\n"
	"  --lenient        skip what cannot be decoded and warn (exit 0)\n";

static const char usage_diff[] =
	"usage: gtr diff [flags] A B\n"
	"\n"
	"Two sides compared, A before and B after a change. Each side is a trace, or\n"
	"a directory whose *.trace files are runs of one program (the same program\n"
	"run several times). Shown: Tmax_stw; the measured stop-the-world pauses\n"
	"(count, p50, p99, max); the slices (count, longest, p50, p99); time totals\n"
	"and their ratios to the execution time; the top slices and each start\n"
	"function's execution time and longest slice (of the last run of a side).\n"
	"With several runs a side the figures are medians, and a metric changed\n"
	"only when the Mann-Whitney U test says so (p below alpha, Holm's method\n"
	"over the metrics) and its median moved past its threshold and the\n"
	"minimum change: `~` marks a difference the test does not call. With too\n"
	"few runs for the test (5 a side for the defaults) the verdict says it is\n"
	"not statistical, and only thresholds given with --threshold are applied.\n"
	"Ends with a one-line verdict: B is worse when a metric grew past its\n"
	"threshold, better when none did and one shrank as much (going back from B\n"
	"to A would be worse): swapping A and B swaps them.\n"
	"\n"
	"flags:\n"
	"  -n, --top N           top slices and function rows to list (default 10)\n"
	"  --json                the same content as JSON (schema gtr.diff.v1, README.md)\n"
	"  --threshold M=PCT     change a metric's threshold in percent, or turn it on\n"
	"                        or off (M=off); repeatable or comma-separated; a\n"
	"                        threshold given applies with any number of runs.\n"
	"                        Default: stw_per_exec=20, gc_assist_per_exec=20,\n"
	"                        sched_wait_per_exec=20, func_share=20. Metrics:\n"
	"                        tmax_stw, stw_count, stw_p50, stw_p99, stw_max,\n"
	"                        slices, max_slice, slice_p50, slice_p99, exec,\n"
	"                        sched_wait, block, syscall, gc_assist, stw_time,\n"
	"                        stw_per_exec, gc_assist_per_exec, sched_wait_per_exec;\n"
	"                        per function: func_exec, func_max_slice, func_share\n"
	"  --min-delta D         a duration must also change by more than D (default\n"
	"                        1ms); a share or ratio by more than 1 point\n"
	"  --alpha A             the U test's level (default 0.05)\n"
	"  --fail-on-regression  exit 3 when the verdict is that B is worse\n"
	"  --fast                measure each trace without Go's global order (the\n"
	"                        slices of greedy --fast, the times of stats --fast):\n"
	"                        several times faster on big v2 traces, within a few\n"
	"                        ns of the ordered figures (README)\n"
	"  --ordered             Go's global event order (the default)\n"
	"  --io=MODE             how to read the files: mmap, uring or read (default:\n"
	"                        mmap for files, uring for pipes, read if io_uring is\n"
	"                        refused)\n"
	"  --lenient             read what can be read of damaged traces, with warnings\n"
	"                        (see gtr dump --help); without it a truncated or\n"
	"                        corrupt trace is an error; a trace of which nothing\n"
	"                        can be read is an error still\n"
	"  -v, --verbose         say on stderr how each file was read and which kernels\n"
	"                        run\n";

static const char usage_check[] =
	"usage: gtr check --baseline BASE.json [flags] DIR|FILE...\n"
	"       gtr check --shard K/N --part PART.json [-n N] [--lenient] DIR|FILE...\n"
	"       gtr check --merge --baseline BASE.json [report flags] PART.json...\n"
	"\n"
	"Checks many traces at once against a baseline, several files in parallel.\n"
	"A case is what the baseline keeps figures of: a trace, or several runs of\n"
	"one program, given as CASE/1.trace, CASE/2.trace... (a file whose name is\n"
	"a number is a run of the case named by its directory). For each run it\n"
	"records a fingerprint of its content (XXH3 64-bit), its Go version and the\n"
	"metrics of gtr diff. Cases are matched with the baseline by name (a DIR's\n"
	"files by their path below it, a FILE by its base name). With enough runs\n"
	"on both sides (5 a side for the defaults) a case is compared with the\n"
	"Mann-Whitney U test (alpha 0.05, Holm's method over its metrics): it\n"
	"regressed when a metric changed significantly and its median grew past\n"
	"its threshold and the minimum change. With fewer runs the comparison is\n"
	"said not to be statistical and only thresholds given with --threshold\n"
	"apply. A trace that cannot be read is an error of its case, and the\n"
	"others are still checked; a case of the baseline with no trace given is\n"
	"MISSING, and fails the check.\n"
	"\n"
	"flags:\n"
	"  --baseline FILE       the baseline (required; gtr.baseline.v2 JSON, or v1)\n"
	"  --update-baseline     add this check's runs to the baseline's cases,\n"
	"                        creating it if need be; a case keeps its newest runs\n"
	"                        (--max-runs); cases not checked keep theirs.\n"
	"                        Regressions are reported but accepted (no exit 3)\n"
	"  --max-runs N          runs a case keeps in the baseline (default 10)\n"
	"  --fail-on-missing     a baseline case with no trace fails the check (exit\n"
	"                        1; the default); --no-fail-on-missing only lists it\n"
	"  -j, --jobs N          traces processed at once (default: the online CPUs)\n"
	"  --threshold M=PCT     a metric's threshold in percent, or M=off; repeatable\n"
	"                        or comma-separated. Default: stw_per_exec=20,\n"
	"                        gc_assist_per_exec=20, sched_wait_per_exec=20,\n"
	"                        func_share=20. Metrics: see gtr diff --help\n"
	"  --min-delta D         a duration must also change by more than D (default\n"
	"                        1ms); a share or ratio by more than 1 point\n"
	"  --alpha A             the U test's level (default 0.05)\n"
	"  --pattern GLOB        files taken from a DIR (default *.trace)\n"
	"  --report-json FILE    write the report as JSON (gtr.check.v2; - for stdout)\n"
	"  --junit FILE          write a JUnit XML report (- for stdout)\n"
	"  --jsonl FILE          write one JSON object per case, one per line\n"
	"                        (gtr.check.row.v2; - for stdout)\n"
	"  -n N                  top slices recorded per trace (default 10)\n"
	"  -q, --quiet           list only regressions, errors and missing cases,\n"
	"                        then the summary\n"
	"  --fast                measure each trace without Go's global order (as\n"
	"                        gtr diff --fast); a baseline of either path serves\n"
	"  --ordered             Go's global event order (the default)\n"
	"  --io=MODE             how to read the files: mmap, uring or read (default:\n"
	"                        mmap)\n"
	"  --lenient             read what can be read of damaged traces; what was\n"
	"                        skipped is a warning on stderr (see gtr dump --help);\n"
	"                        a trace of which nothing can be read is an error\n";

/* The rest of check's usage (one literal would be too long for ISO C). */
static const char usage_check_more[] =
	"\n"
	"sharded, over many processes or machines (README.md, \"Sharded checks\"):\n"
	"  --shard K/N           measure only shard K of N (0 <= K < N): the traces\n"
	"                        whose name's XXH3-64 mod N is K; no baseline, no\n"
	"                        verdict. --shard env takes K and N from Slurm\n"
	"                        (SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT); env/N\n"
	"                        takes K from JOB_COMPLETION_INDEX (Kubernetes)\n"
	"  --part FILE           where a shard writes its measurements\n"
	"                        (gtr.check.part.v1); exit 0 once written\n"
	"  --merge               the arguments are the parts of every shard: judge\n"
	"                        and report them as one run over all the traces;\n"
	"                        a missing or repeated shard is an error (exit 1)\n"
	"\n"
	"Progress is shown on stderr when it is a terminal.\n"
	"\n"
	"exit status: 0 every trace read and no case regressed (new cases included);\n"
	"             1 a trace could not be read or a case is missing, and none\n"
	"               regressed; or the baseline could not be read (its errors\n"
	"               name the JSON path) or a report could not be written; 2 usage;\n"
	"             3 a metric regressed past its threshold (even if some trace\n"
	"               could not be read)\n";

static const char usage_pprof[] =
	"usage: gtr pprof --type=TYPE [-o FILE] FILE\n"
	"\n"
	"Writes a pprof profile (gzip-compressed profile.proto, as go tool trace\n"
	"-pprof=TYPE writes) of the time goroutines lost, by stack, for go tool pprof,\n"
	"speedscope or Pyroscope. Each sample has two values: contentions (intervals)\n"
	"and delay (their summed length in ns).\n"
	"\n"
	"types:\n"
	"  sched    scheduler latency: from runnable to running, charged to the stack\n"
	"           that made the goroutine runnable (unblocked, created or preempted it)\n"
	"  sync     blocked on channels, select, mutexes and other sync primitives\n"
	"  net      blocked on the network\n"
	"  syscall  in system calls (v1 traces: the syscalls that blocked)\n"
	"v2 traces (Go 1.22 and later) are profiled as Go 1.26's go tool trace does,\n"
	"v1 traces as Go 1.21's does.\n"
	"\n"
	"flags:\n"
	"  --type=TYPE      sched, sync, net or syscall (required; Go's names io and\n"
	"                   block are taken for net and sync)\n"
	"  -o FILE          write the profile to FILE (default: standard output, which\n"
	"                   must not be a terminal)\n"
	"  --io=MODE        how to read FILE: mmap, uring or read\n"
	"  --lenient        read what can be read of a damaged trace (see gtr dump --help)\n";

/* A name for a message: io/name.h's escape, so control characters never reach a terminal raw. */
static const char *nm(const char *s)
{
	static char ring[4][1024];
	static int k;
	char *b = ring[k++ & 3];
	gtr_name_escape(s, strlen(s), b, sizeof ring[0]);
	return b;
}

static void say(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "gtr: ");
	fprintf(stderr, fmt, nm(a), nm(b));
	fputc('\n', stderr);
}


/* The trace being read by a single-trace command, for the shrink check. */
static const gtr_map *cur_map;
static int shrink_said;
static uint64_t shrink_prefix; /* the bytes read again under --lenient (0: none) */

/* A stream is refused on its first bytes if they are no trace header. */
static int head_is_trace(void *ctx, const uint8_t *p, size_t n)
{
	int version;
	gtr_family family;
	return gtr_detect(p, n, &version, &family, ctx) == GTR_E_NOTTRACE ? -EILSEQ : 0;
}

/*
 * A file that shrank while it was read: strictly an error (status 1),
 * leniently a warning after the report of what was read. Returns the status.
 */
/*
 * Whether the file had shrunk when the report began to be written (-1:
 * not asked). A report reads names and stacks from the mapped file as it
 * writes them, so a shrink first met then comes after the report marked
 * itself whole or partial.
 */
static int shrank_at_report = -1;

static void report_begins(void)
{
	uint64_t now, at;
	shrank_at_report = cur_map && gtr_map_shrank(cur_map, &now, &at);
}

static int shrink_status(const char *path, const gtr_map *m, int lenient, int st)
{
	uint64_t now, at;
	if (!m || !gtr_map_shrank(m, &now, &at))
		return st;
	if (lenient && shrank_at_report == 0 && !shrink_said) {
		fprintf(stderr, "gtr: %s: the file shrank while the report was written: now %llu bytes, was "
			"%llu; the report above may be incomplete and not say so\n",
			nm(path), (unsigned long long)now, (unsigned long long)m->size);
		shrink_said = 1;
		return EXIT_ERR;
	}
	if (!shrink_said)
		fprintf(stderr, "gtr: %s%s: the file shrank while it was read: now %llu bytes, was %llu\n",
			lenient ? "warning: " : "", nm(path), (unsigned long long)now,
			(unsigned long long)m->size);
	if (shrink_prefix && !shrink_said)
		fprintf(stderr, "gtr: warning: %s: the report covers the first %llu bytes, read before the file "
			"shrank\n", nm(path), (unsigned long long)shrink_prefix);
	shrink_said = 1;
	return lenient || st == EXIT_THRESHOLD ? st : EXIT_ERR;
}

/*
 * A duration option's value, as Go's time.ParseDuration reads it
 * (core/base/duration.h): 0, or -1 after one line on stderr naming the
 * command, the flag and what is wrong (a missing value included).
 */
static int duration_arg(const char *cmd, const char *flag, int m, const char *val, uint64_t *ns)
{
	char why[200];
	if (m < 0)
		snprintf(why, sizeof why, "needs a duration such as 500us, 10ms or 1.5s");
	else if (gtr_duration_parse(val, ns, why, sizeof why) == 0)
		return 0;
	fprintf(stderr, "gtr: %s: %s: %s\n", cmd, flag, nm(why));
	return -1;
}

/* The value of an option that is missing, said as what it must be. */
#define TAKES_DURATION "a duration such as 500us, 10ms or 1.5s"
#define TAKES_IO "mmap, uring or read"

/*
 * The global options, taken by every command anywhere on its line (and
 * before the command). Their ids stay clear of the commands' (< 100).
 */
enum { G_HELP = 100, G_VERBOSE, G_MAX_INPUT, G_PROGRESS, G_NO_PROGRESS, G_COLOR, G_VERSION };
static const gtr_opt global_opts[] = {
	{"help", 'h', GTR_OPT_NONE, G_HELP, NULL, NULL},
	{"verbose", 'v', GTR_OPT_NONE, G_VERBOSE, NULL, NULL},
	{"max-input", 0, GTR_OPT_REQUIRED, G_MAX_INPUT, "SIZE", "a size in bytes, with K, M, G or T"},
	{"progress", 0, GTR_OPT_NONE, G_PROGRESS, NULL, NULL},
	{"no-progress", 0, GTR_OPT_NONE, G_NO_PROGRESS, NULL, NULL},
	{"color", 0, GTR_OPT_OPTIONAL, G_COLOR, "WHEN", NULL},
	{0},
};
/* Before the command only: gtr --version. */
static const gtr_opt main_opts[] = {
	{"version", 0, GTR_OPT_NONE, G_VERSION, NULL, NULL},
	{0},
};

struct gtr_cli_args {
	gtr_opt_parser p;
	const gtr_cli_command *c;
	const char *cmd; /* the command as typed (diagreedy for greedy) */
};
typedef struct gtr_cli_args args;

/* What next_opt returns besides an option's id or the parser's codes. */
enum { ARG_HELP = -100, ARG_USAGE = -101 };

static int apply_global(args *a, int id);
static void start_meter(const args *a);

static void print_usage(const args *a, FILE *f)
{
	fputs(a->c ? a->c->usage : usage_main, f);
	if (a->c && a->c->usage_more)
		fputs(a->c->usage_more, f);
}

/*
 * The next option of the command (its id, p.val its value) or operand
 * (GTR_OPT_OPERAND, p.val), or GTR_OPT_END. The global options are
 * applied here; -h and --help print the usage on stdout (ARG_HELP: exit
 * 0); a mistake is said in one line, an unknown flag with the usage after
 * it (ARG_USAGE: exit 2). At the end the progress meter starts.
 */
static int next_opt(args *a)
{
	for (;;) {
		int id = gtr_opt_next(&a->p);
		const char *flag = a->p.flag;
		switch (id) {
		case G_HELP:
			print_usage(a, stdout);
			return ARG_HELP;
		case G_VERBOSE:
		case G_MAX_INPUT:
		case G_PROGRESS:
		case G_NO_PROGRESS:
		case G_COLOR:
			if (apply_global(a, id) < 0)
				return ARG_USAGE;
			continue;
		case GTR_OPT_UNKNOWN:
			if (a->c)
				say("%s: unknown flag %s", a->cmd, flag);
			else
				say("unknown flag %s%s", flag, "");
			print_usage(a, stderr);
			return ARG_USAGE;
		case GTR_OPT_MISSING:
			fprintf(stderr, "gtr: %s%s%s: needs %s\n", a->c ? a->cmd : "", a->c ? ": " : "", flag,
				a->p.opt->takes ? a->p.opt->takes : "a value");
			return ARG_USAGE;
		case GTR_OPT_NO_VALUE:
			fprintf(stderr, "gtr: %s%s%s takes no value (got %s=%s)\n", a->c ? a->cmd : "",
				a->c ? ": " : "", flag, flag, nm(a->p.val));
			return ARG_USAGE;
		case GTR_OPT_END:
			if (a->c)
				start_meter(a);
			return id;
		default:
			return id;
		}
	}
}

/* -v, --verbose: a global flag, taken out of argv by gtr_cli_main. */
static int verbose;
/* --max-input: the most bytes a stream or a decompressed input may take (0: io/'s default). */
static uint64_t max_input;

/* Parses "123", "64K", "512M", "8G" (powers of 1024) into bytes. Returns 0 or -1. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || errno || s[0] == '-')
		return -1;
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	else if (*end == 'T' || *end == 't')
		shift = 40;
	else if (*end != 0)
		return -1;
	if (shift && *++end == 'i')
		end++;
	if (shift && (*end == 'B' || *end == 'b'))
		end++;
	if (*end != 0 || v == 0 || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

/* --progress, --no-progress and --color: global flags too. */
static gtr_meter_mode progress_mode = GTR_METER_AUTO;
static gtr_meter meter;
static const char *progress_pass; /* which analysis is reading, for the bar */
static enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } color_mode = COLOR_AUTO;

/* Colour on fd: --color=always|never, else a terminal and no NO_COLOR. */
static int use_color(int fd)
{
	if (color_mode != COLOR_AUTO)
		return color_mode == COLOR_ALWAYS;
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
	if ((no && *no) || (term && strcmp(term, "dumb") == 0))
		return 0;
	return isatty(fd);
}

/* A global option, wherever it is on the line. Returns 0, or -1 after saying what is wrong. */
static int apply_global(args *a, int id)
{
	const char *v = a->p.val;
	switch (id) {
	case G_VERBOSE:
		verbose = 1;
		break;
	case G_MAX_INPUT:
		if (parse_size(v, &max_input) < 0) {
			say("--max-input takes a size in bytes, with K, M, G or T (got %s)%s", v, "");
			return -1;
		}
		break;
	case G_PROGRESS:
		progress_mode = GTR_METER_ON;
		break;
	case G_NO_PROGRESS:
		progress_mode = GTR_METER_OFF;
		break;
	case G_COLOR:
		if (!v || strcmp(v, "always") == 0)
			color_mode = COLOR_ALWAYS;
		else if (strcmp(v, "auto") == 0)
			color_mode = COLOR_AUTO;
		else if (strcmp(v, "never") == 0)
			color_mode = COLOR_NEVER;
		else {
			say("--color takes auto, always or never (got %s)%s", v, "");
			return -1;
		}
		break;
	}
	return 0;
}

/* Once the line is read: the progress meter, as --progress and --no-progress say. */
static void start_meter(const args *a)
{
	/* A bar between lines of a dump on the same terminal would tear them. */
	gtr_meter_mode pm = progress_mode;
	if (pm == GTR_METER_AUTO && strcmp(a->c->name, "dump") == 0 && isatty(STDOUT_FILENO))
		pm = GTR_METER_OFF;
	gtr_meter_init(&meter, STDERR_FILENO, pm);
}

/* The library's progress, drawn on stderr; a finished pass erases it before anything is printed. */
static void on_progress(void *ctx, gtr_phase phase, uint64_t done, uint64_t total)
{
	(void)ctx;
	char what[48];
	if (progress_pass && phase == GTR_PHASE_DECODE)
		snprintf(what, sizeof what, "%s %s", gtr_phase_name(phase), progress_pass);
	else
		snprintf(what, sizeof what, "%s", gtr_phase_name(phase));
	gtr_meter_update(&meter, what, done, total);
	if (done >= total)
		gtr_meter_end(&meter);
}

/* --io=mmap|uring|read. Returns 0, or -1 for anything else. */
static int parse_io(const char *val, gtr_io_mode *io)
{
	if (strcmp(val, "mmap") == 0)
		*io = GTR_IO_MMAP;
	else if (strcmp(val, "uring") == 0)
		*io = GTR_IO_URING;
	else if (strcmp(val, "read") == 0)
		*io = GTR_IO_READ;
	else
		return -1;
	return 0;
}

typedef struct opened {
	gtr_map map;
	gtr_trace *trace;
} opened;

/*
 * Threads of the engine for the commands without -j (stats, report,
 * diff): GTR_JOBS when set (1 reads and analyses on one thread), else 0,
 * the engine's default.
 */
static unsigned engine_jobs(void)
{
	const char *v = getenv("GTR_JOBS");
	unsigned long n = v && *v ? strtoul(v, NULL, 10) : 0;
	return n > 64 ? 64 : (unsigned)n;
}

/* -v: how the engine read a trace. */
static void say_engine(const char *path, const gtr_engine_info *e)
{
	if (!verbose)
		return;
	if (e->threads > 1 && e->sink_threads > 1)
		fprintf(stderr,
			"gtr: %s: engine: %llu events in Go's order, read ahead on a thread of its own "
			"(%.3f s CPU) while the analyses ran on %u threads (%.3f s CPU, %.3f s on the "
			"busiest); they waited %llu times%s%s\n",
			path, (unsigned long long)e->events, e->read_cpu_s, e->sink_threads,
			e->sink_cpu_s, e->sink_cpu_max_s, (unsigned long long)e->waits,
			e->why[0] ? ": " : "", e->why);
	else if (e->threads > 1)
		fprintf(stderr,
			"gtr: %s: engine: %llu events in Go's order, read ahead on a second thread "
			"(%.3f s CPU) while the analyses ran (%.3f s CPU); they waited %llu times\n",
			path, (unsigned long long)e->events, e->read_cpu_s, e->sink_cpu_s,
			(unsigned long long)e->waits);
	else
		fprintf(stderr, "gtr: %s: engine: %llu events in Go's order on one thread (%.3f s CPU)%s%s\n",
			path, (unsigned long long)e->events, e->read_cpu_s, e->why[0] ? ": " : "", e->why);
	/* How far Go's order moved a time from its thread's clock
	 * (gtr_reader_pushed): what `greedy --fast`, which keeps the
	 * threads' own times, may differ from it by. */
	fprintf(stderr, "gtr: %s: order: events put up to %llu ns past their own times\n", path,
		(unsigned long long)e->pushed_ns);
}

/*
 * --lenient, and the file shrank under the analysis, which then failed on
 * the zeros: the trace is opened again over the bytes read before the
 * first fault (those are the file's), as a trace cut there. 1 if so.
 */
static int reopen_prefix(opened *op)
{
	uint64_t now, at;
	if (shrink_prefix || !gtr_map_shrank(&op->map, &now, &at) || at == 0)
		return 0;
	gtr_kernels k;
	if (gtr_kernels_init(&k, getenv("GTR_ISA")) < 0)
		return 0;
	gtr_error err;
	gtr_error_clear(&err);
	gtr_open_opts oo = {.sz = sizeof oo, .flags = GTR_OPEN_LENIENT, .kernels = &k};
	gtr_trace *t = NULL;
	if (gtr_trace_open_opts(&t, op->map.data, (size_t)at, &oo, &err) < 0)
		return 0;
	gtr_trace_free(op->trace);
	op->trace = t;
	shrink_prefix = at;
	return 1;
}

/* jobs: threads the index may use (0: one per online CPU). */
static int open_trace(opened *op, const char *path, gtr_io_mode io, unsigned open_flags, unsigned jobs)
{
	memset(op, 0, sizeof *op);
	const char *off = getenv("GTR_IO_URING_DISABLE");
	unsigned flags = off && strcmp(off, "1") == 0 ? GTR_MAP_NO_URING : 0;
	char why[256];
	why[0] = 0;
	gtr_error herr;
	gtr_error_clear(&herr);
	gtr_map_opts mo = {.mode = io, .flags = flags, .max_input = max_input, .check_head = head_is_trace,
			   .ctx = &herr, .head = 4096, .why = why, .whylen = sizeof why};
	int rc = gtr_map_open_opts(&op->map, path, &mo);
	cur_map = NULL;
	shrink_said = 0;
	if (rc == -EILSEQ) {
		fprintf(stderr, "gtr: %s: at byte %llu: %s\n", nm(path), (unsigned long long)herr.off, herr.msg);
		return EXIT_ERR;
	}
	if (rc == -EFBIG && !why[0]) {
		fprintf(stderr, "gtr: %s: more than %llu bytes (--max-input): save the stream to a file, or raise "
			"--max-input\n", nm(path), (unsigned long long)(max_input ? max_input : GTR_MAP_MAX_INPUT));
		return EXIT_ERR;
	}
	if (rc == -ESPIPE && io == GTR_IO_MMAP) {
		say("%s: --io=mmap needs a regular file (use --io=uring or --io=read for a pipe)%s", path, "");
		return EXIT_ERR;
	}
	if (rc < 0 && why[0]) {
		/* A compressed input that is corrupt, cut short, or too big once decompressed. */
		say("%s: %s", path, why);
		return EXIT_ERR;
	}
	if (rc == -EFBIG) {
		say("%s: the input is larger than the limit of --max-input (%s)", path,
		    max_input ? "as given" : "default 4 GiB");
		return EXIT_ERR;
	}
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
	if (verbose) {
		const gtr_map *m = &op->map;
		if (m->packed)
			fprintf(stderr, "gtr: io: %s-compressed, %llu bytes decompressed into %zu\n",
				gtr_pack_name((gtr_pack)m->packed), (unsigned long long)m->packed_size,
				m->size);
		if (m->uring_err)
			fprintf(stderr, "gtr: io: io_uring unavailable (%s), reading with read(2)\n",
				strerror(m->uring_err));
		else if (m->how == GTR_IO_URING)
			fprintf(stderr, "gtr: io: io_uring, %zu bytes into a memory file (%s buffers)\n",
				m->size, m->uring_fixed ? "registered" : "plain");
		else if (m->how == GTR_IO_READ)
			fprintf(stderr, "gtr: io: read(2), %zu bytes into a memory file\n", m->size);
		else
			fprintf(stderr, "gtr: io: mmap, %zu bytes\n", m->size);
		fprintf(stderr, "gtr: simd: %s kernels\n", gtr_isa_name(k.isa));
	}
	gtr_error err;
	gtr_error_clear(&err);
	const char *split = getenv("GTR_INDEX_SPLIT");
	gtr_open_opts oo = {.sz = sizeof oo, .flags = open_flags, .kernels = &k,
			    .progress = on_progress, .jobs = jobs,
			    .split_min = split ? strtoull(split, NULL, 10) : 0};
	double t0 = gtr_seconds();
	rc = gtr_trace_open_opts(&op->trace, op->map.data, op->map.size, &oo, &err);
	if (verbose && rc == 0)
		fprintf(stderr, "gtr: index: %.3f s\n", gtr_seconds() - t0);
	cur_map = &op->map;
	if (rc < 0 && (open_flags & GTR_OPEN_LENIENT) && reopen_prefix(op))
		rc = 0;
	if (rc < 0) {
		gtr_meter_end(&meter);
		if (shrink_status(path, &op->map, 0, EXIT_ERR) && !shrink_said)
			fprintf(stderr, "gtr: %s: at byte %llu: %s\n", nm(path), (unsigned long long)err.off,
				err.msg[0] ? err.msg : gtr_strerror(err.code));
		cur_map = NULL;
		gtr_map_close(&op->map);
		return EXIT_ERR;
	}
	return EXIT_OK;
}

static void close_trace(opened *op)
{
	if (cur_map == &op->map)
		cur_map = NULL;
	gtr_trace_free(op->trace);
	gtr_map_close(&op->map);
}

static int finish(const char *path, int rc, gtr_error *err, gtr_out *o)
{
	int werr = gtr_out_flush(o);
	if (rc < 0) {
		/* Zeros read where the file had shrunk: that, not the decoding error, is the news. */
		shrink_status(path, cur_map, 0, EXIT_ERR);
		if (!shrink_said)
			fprintf(stderr, "gtr: %s: at byte %llu: %s\n", nm(path), (unsigned long long)err->off,
				err->msg[0] ? err->msg : gtr_strerror(err->code));
		return EXIT_ERR;
	}
	if (werr && werr != EPIPE) {
		say("writing standard output: %s%s", strerror(werr), "");
		return EXIT_ERR;
	}
	return EXIT_OK;
}

/*
 * After a command over a trace read partially: strictly, the cut (and
 * anything lost with it) is one error line and status 1; leniently,
 * each kind of loss is a warning line, then a summary, and the status
 * stands. Returns the status.
 */
static int loss_status(const char *path, const gtr_trace *t, int lenient, int st)
{
	st = shrink_status(path, cur_map, lenient, st);
	gtr_loss l;
	gtr_trace_loss(t, &l);
	if (!gtr_loss_any(&l) || st == EXIT_ERR)
		return st;
	char lines[8][GTR_LOSS_LINE];
	size_t n = gtr_loss_lines(&l, lines, 8);
	if (lenient) {
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "gtr: warning: %s: %s\n", path, lines[i]);
		char sum[400];
		gtr_loss_summary(&l, gtr_trace_get_info(t)->bytes, sum, sizeof sum);
		fprintf(stderr, "gtr: warning: %s: %s\n", path, sum);
		return st;
	}
	fprintf(stderr, "gtr: %s: at byte %llu: %s: the complete part was read and reported; ", path,
		(unsigned long long)(l.truncated ? l.truncated_at : l.refs.first_off),
		l.truncated ? "truncated trace" : "incomplete trace");
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? "; " : "", lines[i]);
	fputc('\n', stderr);
	/* A threshold exceeded in what was read is still the finding CI asks about. */
	return st == EXIT_THRESHOLD ? st : EXIT_ERR;
}

/* Durations in one-line messages: ASCII, as thresholds are written. */
static void fmt_ns(char *buf, size_t cap, uint64_t ns)
{
	gtr_fmt_dur(buf, cap, ns, "", "us");
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

static int cmp_u64_ids(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

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

/* -j N of the command: a thread count from 1 to most. 0, or -1 when
 * it said why not. */
static int parse_jobs(const char *cmd, const char *val, size_t *jobs, size_t most)
{
	if (parse_count(val, jobs) < 0 || *jobs > most) {
		fprintf(stderr, "gtr: %s: -j takes a thread count from 1 to %zu\n", cmd, most);
		return -1;
	}
	return 0;
}

/* Options of footprint, dump and greedy (each takes those of its table). */
enum {
	O_IO, O_LENIENT, O_JSON, O_TOP, O_DEPTH, O_FAST, O_ORDERED, O_JOBS, O_FAIL_OVER, O_STW_FAIL_OVER,
	O_STACKS, O_TRANSITIONS, O_GOID, O_FROM, O_TO,
};
#define OPT_IO {"io", 0, GTR_OPT_REQUIRED, O_IO, "MODE", TAKES_IO}
#define OPT_LENIENT {"lenient", 0, GTR_OPT_NONE, O_LENIENT, NULL, NULL}
static const gtr_opt footprint_opts[] = {OPT_IO, OPT_LENIENT, {0}};
static const gtr_opt dump_opts[] = {
	OPT_IO,
	OPT_LENIENT,
	{"stacks", 0, GTR_OPT_NONE, O_STACKS, NULL, NULL},
	{"transitions", 0, GTR_OPT_NONE, O_TRANSITIONS, NULL, NULL},
	{NULL, 'g', GTR_OPT_REQUIRED, O_GOID, "GOID", "a goroutine id"},
	{"from", 0, GTR_OPT_REQUIRED, O_FROM, "T", TAKES_DURATION},
	{"to", 0, GTR_OPT_REQUIRED, O_TO, "T", TAKES_DURATION},
	{0},
};
static const gtr_opt greedy_opts[] = {
	OPT_IO,
	OPT_LENIENT,
	{"json", 0, GTR_OPT_NONE, O_JSON, NULL, NULL},
	{NULL, 'n', GTR_OPT_REQUIRED, O_TOP, "N", "a positive count"},
	{"depth", 0, GTR_OPT_REQUIRED, O_DEPTH, "N", "a positive count"},
	{"fast", 0, GTR_OPT_NONE, O_FAST, NULL, NULL},
	{"ordered", 0, GTR_OPT_NONE, O_ORDERED, NULL, NULL},
	{NULL, 'j', GTR_OPT_REQUIRED, O_JOBS, "N", "a thread count from 1 to 256"},
	{"fail-over", 0, GTR_OPT_REQUIRED, O_FAIL_OVER, "D", TAKES_DURATION},
	{"stw-fail-over", 0, GTR_OPT_REQUIRED, O_STW_FAIL_OVER, "D", TAKES_DURATION},
	{0},
};

/*
 * The options that every command reading a trace takes the same way:
 * -h/--help, a usage error of the parser, --io and --lenient. Returns
 * SHARED_TAKEN when it took `id`, SHARED_OWN when `id` is the command's
 * own, else the exit status the command returns now.
 */
enum { SHARED_OWN = -1, SHARED_TAKEN = -2 };
static int shared_opt(args *a, int id, gtr_io_mode *io, int *lenient)
{
	switch (id) {
	case ARG_HELP:
		return EXIT_OK;
	case ARG_USAGE:
		return EXIT_USAGE;
	case O_IO:
		if (parse_io(a->p.val, io) < 0) {
			say("%s: --io takes mmap, uring or read%s", a->cmd, "");
			return EXIT_USAGE;
		}
		return SHARED_TAKEN;
	case O_LENIENT:
		*lenient = 1;
		return SHARED_TAKEN;
	}
	return SHARED_OWN;
}

static int run_command(args *a)
{
	int cmd = a->c->which;
	int dump = cmd == CMD_DUMP, greedy = cmd == CMD_GREEDY;
	gtr_greedy_report_opts gopts = {.json = 0};
	size_t top = 10, jobs = 0;
	int ordered = 1; /* greedy: Go's order on the engine, unless --fast */
	uint64_t fail_over = 0, stw_fail_over = 0;
	int have_fail = 0, have_stw_fail = 0;
	gtr_dump_opts d = {.goid = -1, .from = 0, .to = UINT64_MAX, .jobs = engine_jobs()};
	gtr_io_mode io = GTR_IO_AUTO;
	int lenient = 0;
	const char *path = NULL;
	for (int id; (id = next_opt(a)) != GTR_OPT_END;) {
		int sh = shared_opt(a, id, &io, &lenient);
		if (sh == SHARED_TAKEN)
			continue;
		if (sh != SHARED_OWN)
			return sh; /* --help, or a usage error */
		const char *val = a->p.val, *flag = a->p.flag;
		switch (id) {
		case O_JSON:
			gopts.json = 1;
			break;
		case O_TOP:
		case O_DEPTH:
			if (parse_count(val, id == O_TOP ? &top : &gopts.stack_depth) < 0) {
				say("greedy: %s takes a positive count%s", id == O_TOP ? "-n" : "--depth", "");
				return EXIT_USAGE;
			}
			break;
		case O_FAST:
			ordered = 0;
			break;
		case O_ORDERED:
			ordered = 1;
			break;
		case O_JOBS:
			if (parse_jobs("greedy", val, &jobs, 256) < 0)
				return EXIT_USAGE;
			break;
		case O_FAIL_OVER:
		case O_STW_FAIL_OVER: {
			int stw = id == O_STW_FAIL_OVER;
			if (duration_arg("greedy", flag, 1, val, stw ? &stw_fail_over : &fail_over) < 0)
				return EXIT_USAGE;
			*(stw ? &have_stw_fail : &have_fail) = 1;
			break;
		}
		case O_STACKS:
			d.stacks = 1;
			break;
		case O_TRANSITIONS:
			d.transitions = 1;
			break;
		case O_GOID: {
			char *end;
			long long g = strtoll(val, &end, 10);
			if (*val == 0 || *end || g < 0) {
				say("dump: -g takes a goroutine id%s%s", "", "");
				return EXIT_USAGE;
			}
			d.goid = g;
			break;
		}
		case O_FROM:
		case O_TO:
			if (duration_arg("dump", flag, 1, val, id == O_FROM ? &d.from : &d.to) < 0)
				return EXIT_USAGE;
			break;
		case GTR_OPT_OPERAND:
			if (path) {
				say("%s: one trace file, please (got %s)", a->cmd, val);
				return EXIT_USAGE;
			}
			path = val;
			break;
		}
	}
	if (!path) {
		say("%s: no trace file given%s", a->cmd, "");
		print_usage(a, stderr);
		return EXIT_USAGE;
	}
	opened op;
	int st = open_trace(&op, path, io, lenient ? GTR_OPEN_LENIENT : GTR_OPEN_PARTIAL, (unsigned)jobs);
	if (st != EXIT_OK)
		return st;
	static gtr_out o;
	gtr_error err;
	int rc;
	gtr_greedy *g = NULL;
again:
	gtr_out_init(&o, STDOUT_FILENO);
	gtr_error_clear(&err);
	if (greedy) {
		gopts.file = path;
		gopts.input = &op.map;
		gopts.color = use_color(STDOUT_FILENO);
		if (ordered) {
			gtr_analysis an;
			rc = gtr_analyze(op.trace,
					 &(gtr_analyze_opts){.jobs = jobs ? (unsigned)jobs : engine_jobs(),
							     .greedy_top = top},
					 &an, &err);
			if (rc == 0) {
				g = an.greedy;
				say_engine(path, &an.engine);
			}
		} else {
			gtr_scan_info si;
			const char *walk = getenv("GTR_SCAN_WALK");
			unsigned sflags = walk && strcmp(walk, "generic") == 0 ? GTR_SCAN_GENERIC : 0;
			rc = gtr_scan_greedy(op.trace, top, (unsigned)jobs, sflags, &g, &si, &err);
			if (verbose && si.ordered)
				fprintf(stderr, "gtr: greedy: ordered path: %s\n", si.why);
			else if (verbose)
				fprintf(stderr,
					"gtr: greedy: parallel path, %u threads: ends %.3f s, pass 1 %.3f s, "
					"waiters %.3f s, pass 2 %.3f s (%u rounds, %.1f MB)\n",
					si.jobs, si.sec_ends, si.sec_pass1, si.sec_waiters, si.sec_pass2,
					si.rounds, (double)si.pass2_bytes / 1e6);
		}
		if (rc == 0) {
			report_begins();
			rc = gtr_report_greedy(op.trace, g, &gopts, &o, &err);
		}
	} else if (dump) {
		rc = gtr_report_dump(op.trace, &d, &o, &err);
	} else {
		rc = gtr_report_footprint(op.trace, &o, &err);
	}
	/* A dump's lines are out already: it is not read again. */
	if (rc < 0 && lenient && !dump && reopen_prefix(&op)) {
		gtr_greedy_free(g);
		g = NULL;
		goto again;
	}
	st = finish(path, rc, &err, &o);
	if (st == EXIT_OK && g)
		st = check_thresholds(g, have_fail, fail_over, have_stw_fail, stw_fail_over);
	st = loss_status(path, op.trace, lenient, st);
	gtr_greedy_free(g);
	close_trace(&op);
	return st;
}

enum { S_SORT = O_TO + 1, S_BY, S_JSONL, S_CSV };
static const gtr_opt stats_opts[] = {
	OPT_IO,
	OPT_LENIENT,
	{"json", 0, GTR_OPT_NONE, O_JSON, NULL, NULL},
	{"jsonl", 0, GTR_OPT_NONE, S_JSONL, NULL, NULL},
	{"csv", 0, GTR_OPT_NONE, S_CSV, NULL, NULL},
	{"sort", 0, GTR_OPT_REQUIRED, S_SORT, "KEY", "a sort key (see gtr stats --help)"},
	{"top", 'n', GTR_OPT_REQUIRED, O_TOP, "N", "a positive count"},
	{"by", 0, GTR_OPT_REQUIRED, S_BY, "WHAT", "function, goroutine or both"},
	{"fast", 0, GTR_OPT_NONE, O_FAST, NULL, NULL},
	{"ordered", 0, GTR_OPT_NONE, O_ORDERED, NULL, NULL},
	{NULL, 'j', GTR_OPT_REQUIRED, O_JOBS, "N", "a thread count from 1 to 256"},
	{0},
};

static int run_stats(args *a)
{
	gtr_stats_report_opts opts = {.sort = GTR_SK_EXEC};
	int have_top = 0, lenient = 0, fast = 0;
	size_t jobs = 0;
	gtr_io_mode io = GTR_IO_AUTO;
	const char *path = NULL;
	for (int id; (id = next_opt(a)) != GTR_OPT_END;) {
		int sh = shared_opt(a, id, &io, &lenient);
		if (sh == SHARED_TAKEN)
			continue;
		if (sh != SHARED_OWN)
			return sh; /* --help, or a usage error */
		const char *val = a->p.val;
		switch (id) {
		case O_JSON:
		case S_JSONL:
		case S_CSV: {
			int f = id == S_JSONL ? GTR_STATS_JSONL : id == O_JSON ? GTR_STATS_JSON : GTR_STATS_CSV;
			if (opts.format && opts.format != f) {
				say("stats: one of --json, --jsonl and --csv, please%s%s", "", "");
				return EXIT_USAGE;
			}
			opts.format = f;
			break;
		}
		case S_SORT: {
			int k = gtr_stats_key_parse(val);
			if (k < 0) {
				say("stats: --sort takes one of exec, sched, block, chan, select, sync, net, "
				    "sleep, gc, other, syscall, assist, slices, p50, p99, max, goroutines, id, "
				    "name%s%s", "", "");
				return EXIT_USAGE;
			}
			opts.sort = (gtr_stats_key)k;
			break;
		}
		case O_TOP:
			if (parse_count(val, &opts.top) < 0) {
				say("stats: --top takes a positive count%s%s", "", "");
				return EXIT_USAGE;
			}
			have_top = 1;
			break;
		case S_BY:
			if (strcmp(val, "function") == 0 || strcmp(val, "func") == 0)
				opts.by = GTR_STATS_BY_FUNC;
			else if (strcmp(val, "goroutine") == 0 || strcmp(val, "g") == 0)
				opts.by = GTR_STATS_BY_G;
			else if (strcmp(val, "both") == 0)
				opts.by = GTR_STATS_BY_BOTH;
			else {
				say("stats: --by takes function, goroutine or both%s%s", "", "");
				return EXIT_USAGE;
			}
			break;
		case O_FAST:
		case O_ORDERED:
			fast = id == O_FAST;
			break;
		case O_JOBS:
			if (parse_jobs("stats", val, &jobs, 256) < 0)
				return EXIT_USAGE;
			break;
		case GTR_OPT_OPERAND:
			if (path) {
				say("%s: one trace file, please (got %s)", a->cmd, val);
				return EXIT_USAGE;
			}
			path = val;
			break;
		}
	}
	if (!path) {
		say("%s: no trace file given%s", a->cmd, "");
		print_usage(a, stderr);
		return EXIT_USAGE;
	}
	if (!have_top && opts.format == GTR_STATS_TEXT)
		opts.top = 20;
	opts.file = path;
	opened op;
	int st = open_trace(&op, path, io, lenient ? GTR_OPEN_LENIENT : GTR_OPEN_PARTIAL, 0);
	if (st != EXIT_OK)
		return st;
	static gtr_out o;
	gtr_out_init(&o, STDOUT_FILENO);
	gtr_error err;
	gtr_error_clear(&err);
	gtr_stats *s = NULL;
	/* The goroutine rows the report prints, and no others. */
	gtr_stats_keep keep = {.all = opts.by != GTR_STATS_BY_FUNC && opts.top == 0,
			       .top = opts.by != GTR_STATS_BY_FUNC ? opts.top : 0,
			       .sort = opts.sort};
	gtr_analysis an;
	int rc;
again:
	opts.input = &op.map;
	if (fast && !lenient) {
		gtr_stats_fast_info fi;
		rc = gtr_stats_fast(op.trace, &keep, jobs ? (unsigned)jobs : engine_jobs(), &s, &fi, &err);
		if (verbose && fi.ordered)
			fprintf(stderr, "gtr: stats: ordered path: %s\n", fi.why);
		else if (verbose)
			fprintf(stderr,
				"gtr: stats: parallel path, %u threads, %llu generations: walks %.3f s, "
				"merges %.3f s\n",
				fi.jobs, (unsigned long long)fi.gens, fi.sec_walk, fi.sec_merge);
	} else {
		rc = gtr_analyze(op.trace,
				 &(gtr_analyze_opts){.jobs = jobs ? (unsigned)jobs : engine_jobs(),
						     .stats = &keep},
				 &an, &err);
		if (rc == 0) {
			s = an.stats;
			say_engine(path, &an.engine);
		}
	}
	if (rc == 0) {
		report_begins();
		rc = gtr_report_stats(op.trace, s, &opts, &o, &err);
	}
	if (rc < 0 && lenient && reopen_prefix(&op)) {
		gtr_stats_free(s);
		s = NULL;
		gtr_out_init(&o, STDOUT_FILENO);
		gtr_error_clear(&err);
		goto again;
	}
	st = finish(path, rc, &err, &o);
	st = loss_status(path, op.trace, lenient, st);
	gtr_stats_free(s);
	close_trace(&op);
	return st;
}

enum { VIEW_TASKS, VIEW_REGIONS, VIEW_MMU, VIEW_GOROUTINE };

/* Parses a count that may be 0 ("--transitions 0"). */
static int parse_count0(const char *val, size_t *out)
{
	if (strcmp(val, "0") == 0) {
		*out = 0;
		return 0;
	}
	return parse_count(val, out);
}

/* --include stw,background,assist,sweep. Returns the GTR_MMU_ bits or -1. */
static int parse_include(const char *val)
{
	int f = 0;
	const char *p = val;
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n == 3 && strncmp(p, "stw", 3) == 0)
			f |= GTR_MMU_STW;
		else if (n == 10 && strncmp(p, "background", 10) == 0)
			f |= GTR_MMU_BACKGROUND;
		else if (n == 6 && strncmp(p, "assist", 6) == 0)
			f |= GTR_MMU_ASSIST;
		else if (n == 5 && strncmp(p, "sweep", 5) == 0)
			f |= GTR_MMU_SWEEP;
		else
			return -1;
		p += n;
		if (*p == ',')
			p++;
	}
	return f ? f : -1;
}

static int parse_goid(const char *val, int64_t *out)
{
	char *end;
	errno = 0;
	if (*val == 'G' || *val == 'g')
		val++;
	long long v = strtoll(val, &end, 10);
	if (*val == 0 || *end || errno || v < 0)
		return -1;
	*out = v;
	return 0;
}

enum { V_TYPE = S_CSV + 1, V_TASK, V_LOGS, V_INCLUDE, V_PER_P, V_WINDOW, V_TRANSITIONS };
#define OPT_VIEWS_TOP {"top", 'n', GTR_OPT_REQUIRED, O_TOP, "N", "a positive count"}
#define OPT_VIEWS_DEPTH {"depth", 0, GTR_OPT_REQUIRED, O_DEPTH, "N", "a count (0 for every frame)"}
#define OPT_VIEWS_JSON {"json", 0, GTR_OPT_NONE, O_JSON, NULL, NULL}
static const gtr_opt tasks_opts[] = {
	OPT_IO, OPT_LENIENT, OPT_VIEWS_JSON, OPT_VIEWS_TOP, OPT_VIEWS_DEPTH,
	{"type", 0, GTR_OPT_REQUIRED, V_TYPE, "NAME", "a type name"},
	{"task", 0, GTR_OPT_REQUIRED, V_TASK, "ID", "a task id"},
	{"logs", 0, GTR_OPT_REQUIRED, V_LOGS, "N", "a count"},
	{0},
};
static const gtr_opt regions_opts[] = {
	OPT_IO, OPT_LENIENT, OPT_VIEWS_JSON, OPT_VIEWS_TOP, OPT_VIEWS_DEPTH,
	{"type", 0, GTR_OPT_REQUIRED, V_TYPE, "NAME", "a type name"},
	{0},
};
static const gtr_opt mmu_opts[] = {
	OPT_IO, OPT_LENIENT, OPT_VIEWS_JSON,
	{"include", 0, GTR_OPT_REQUIRED, V_INCLUDE, "LIST", "a comma-separated list of stw, background, assist, sweep"},
	{"per-p", 0, GTR_OPT_NONE, V_PER_P, NULL, NULL},
	{"window", 0, GTR_OPT_REQUIRED, V_WINDOW, "D", TAKES_DURATION},
	{0},
};
static const gtr_opt goroutine_opts[] = {
	OPT_IO, OPT_LENIENT, OPT_VIEWS_JSON, OPT_VIEWS_TOP, OPT_VIEWS_DEPTH,
	{"transitions", 0, GTR_OPT_REQUIRED, V_TRANSITIONS, "N", "a count (0 for none)"},
	{0},
};

static int run_views(args *a)
{
	int which = a->c->which;
	gtr_views_opts vo = {.stack_depth = 8, .logs = 5, .task = -1};
	size_t top = 10, max_trans = 50;
	int lenient = 0, have_goid = 0;
	int64_t goid = -1;
	const char *type = NULL, *path = NULL;
	unsigned mmu_flags = GTR_MMU_DEFAULT;
	uint64_t windows[GTR_MMU_MAX_WINDOWS];
	size_t nwindows = 0;
	gtr_io_mode io = GTR_IO_AUTO;
	for (int id; (id = next_opt(a)) != GTR_OPT_END;) {
		int sh = shared_opt(a, id, &io, &lenient);
		if (sh == SHARED_TAKEN)
			continue;
		if (sh != SHARED_OWN)
			return sh; /* --help, or a usage error */
		const char *val = a->p.val;
		switch (id) {
		case O_JSON:
			vo.json = 1;
			break;
		case O_DEPTH:
			if (parse_count0(val, &vo.stack_depth) < 0) {
				say("%s: --depth takes a count (0 for every frame)%s", a->cmd, "");
				return EXIT_USAGE;
			}
			break;
		case O_TOP:
			if (parse_count(val, &top) < 0) {
				say("%s: --top takes a positive count%s", a->cmd, "");
				return EXIT_USAGE;
			}
			break;
		case V_TYPE:
			type = val;
			break;
		case V_TASK: {
			char *end;
			errno = 0;
			unsigned long long tid = strtoull(val, &end, 10);
			if (*val == 0 || *val == '-' || *end || errno || tid > INT64_MAX) {
				say("%s: --task takes a task id%s", a->cmd, "");
				return EXIT_USAGE;
			}
			vo.task = (int64_t)tid;
			break;
		}
		case V_LOGS:
			if (parse_count0(val, &vo.logs) < 0) {
				say("%s: --logs takes a count%s", a->cmd, "");
				return EXIT_USAGE;
			}
			break;
		case V_INCLUDE: {
			int f = parse_include(val);
			if (f < 0) {
				say("mmu: --include takes a comma-separated list of stw, background, assist, "
				    "sweep%s%s", "", "");
				return EXIT_USAGE;
			}
			mmu_flags = (mmu_flags & GTR_MMU_PER_P) | (unsigned)f;
			break;
		}
		case V_PER_P:
			mmu_flags |= GTR_MMU_PER_P;
			break;
		case V_WINDOW: {
			uint64_t w;
			if (duration_arg("mmu", "--window", 1, val, &w) < 0)
				return EXIT_USAGE;
			if (w == 0) {
				say("mmu: --window: a window is a duration above 0 (got %s)%s", val, "");
				return EXIT_USAGE;
			}
			if (nwindows == GTR_MMU_MAX_WINDOWS) {
				say("mmu: at most %s windows%s", "1000", "");
				return EXIT_USAGE;
			}
			windows[nwindows++] = w;
			break;
		}
		case V_TRANSITIONS:
			if (parse_count0(val, &max_trans) < 0) {
				say("goroutine: --transitions takes a count (0 for none)%s%s", "", "");
				return EXIT_USAGE;
			}
			break;
		case GTR_OPT_OPERAND:
			if (which == VIEW_GOROUTINE && !have_goid) {
				if (parse_goid(val, &goid) < 0) {
					say("goroutine: %s is not a goroutine id (a number, such as 42 or G42)%s", val,
					    "");
					return EXIT_USAGE;
				}
				have_goid = 1;
				break;
			}
			if (path) {
				say("%s: one trace file, please (got %s)", a->cmd, val);
				return EXIT_USAGE;
			}
			path = val;
			break;
		}
	}
	if (which == VIEW_GOROUTINE && !have_goid) {
		say("goroutine: no goroutine id given%s%s", "", "");
		print_usage(a, stderr);
		return EXIT_USAGE;
	}
	if (!path) {
		say("%s: no trace file given%s", a->cmd, "");
		print_usage(a, stderr);
		return EXIT_USAGE;
	}
	vo.file = path;
	opened op;
	int st = open_trace(&op, path, io, lenient ? GTR_OPEN_LENIENT : GTR_OPEN_PARTIAL, 0);
	if (st != EXIT_OK)
		return st;
	if ((which == VIEW_TASKS || which == VIEW_REGIONS) && !gtr_annot_supported(op.trace)) {
		fprintf(stderr, "gtr: %s: a go 1.%d trace has no tasks or regions: runtime/trace's "
				"annotations came with Go 1.11\n",
			path, gtr_trace_get_info(op.trace)->version);
		close_trace(&op);
		return EXIT_ERR;
	}
	static gtr_out o;
	gtr_out_init(&o, STDOUT_FILENO);
	gtr_error err;
	gtr_error_clear(&err);
	int rc = 0;
	if (which == VIEW_TASKS || which == VIEW_REGIONS) {
		gtr_annot *an = NULL;
		gtr_annot_opts ao = {.top = top, .type = type, .jobs = engine_jobs()};
		progress_pass = which == VIEW_TASKS ? "tasks" : "regions";
		rc = gtr_annot_run(op.trace, &ao, &an, &err);
		/* A second pass keeps the logs (and regions) of the tasks shown. */
		if (rc == 0 && which == VIEW_TASKS && (vo.task >= 0 || (an->ntop_tasks && (vo.logs || vo.json)))) {
			size_t n = vo.task >= 0 ? 1 : an->ntop_tasks;
			uint64_t *ids = malloc(n * sizeof *ids);
			if (!ids) {
				rc = gtr_error_set(&err, GTR_E_NOMEM, 0, "out of memory");
			} else {
				for (size_t i = 0; i < n; i++)
					ids[i] = vo.task >= 0 ? (uint64_t)vo.task : an->top_tasks[i].id;
				qsort(ids, n, sizeof *ids, cmp_u64_ids);
				gtr_annot_opts ao2 = ao;
				ao2.collect = ids;
				ao2.ncollect = n;
				gtr_annot *an2 = NULL;
				rc = gtr_annot_run(op.trace, &ao2, &an2, &err);
				free(ids);
				gtr_annot_free(an);
				an = an2;
			}
		}
		if (rc == 0)
			rc = which == VIEW_TASKS ? gtr_report_tasks(op.trace, an, &vo, &o, &err)
						 : gtr_report_regions(op.trace, an, &vo, &o, &err);
		gtr_annot_free(an);
	} else if (which == VIEW_MMU) {
		gtr_mmu *mm = NULL;
		gtr_mmu_opts mo = {.flags = mmu_flags, .windows = nwindows ? windows : NULL,
				   .nwindows = nwindows, .jobs = engine_jobs()};
		progress_pass = "mmu";
		rc = gtr_mmu_run(op.trace, &mo, &mm, &err);
		if (rc == 0)
			rc = gtr_report_mmu(op.trace, mm, &vo, &o, &err);
		gtr_mmu_free(mm);
	} else {
		gtr_goroutine *g = NULL;
		gtr_goroutine_opts go = {.id = goid, .max_trans = max_trans, .top_slices = top,
					 .jobs = engine_jobs()};
		progress_pass = "goroutine";
		rc = gtr_goroutine_run(op.trace, &go, &g, &err);
		if (rc == 0)
			rc = gtr_report_goroutine(op.trace, g, &vo, &o, &err);
		gtr_goroutine_free(g);
	}
	st = finish(path, rc, &err, &o);
	st = loss_status(path, op.trace, lenient, st);
	close_trace(&op);
	return st;
}

/* The options of the comparison, shared by diff, check and report. */
enum { T_THRESHOLD = V_TRANSITIONS + 1, T_MIN_DELTA, T_ALPHA };
static const gtr_opt threshold_opts[] = {
	{"threshold", 0, GTR_OPT_REQUIRED, T_THRESHOLD, "M=PCT", "METRIC=PERCENT"},
	{"min-delta", 0, GTR_OPT_REQUIRED, T_MIN_DELTA, "D", TAKES_DURATION},
	{"alpha", 0, GTR_OPT_REQUIRED, T_ALPHA, "A", "the test's level, a number above 0 and at most 0.5"},
	{0},
};

/* --threshold, --min-delta and --alpha (id) into th: 0, or -1 after saying what is wrong. */
static int threshold_opt(args *a, int id, gtr_thresholds *th)
{
	const char *val = a->p.val;
	char why[200];
	switch (id) {
	case T_THRESHOLD:
		if (gtr_thresholds_parse(th, val, why, sizeof why) < 0) {
			say("%s: --threshold: %s", a->cmd, why);
			return -1;
		}
		break;
	case T_MIN_DELTA:
		return duration_arg(a->cmd, "--min-delta", 1, val, &th->min_delta);
	case T_ALPHA:
		if (gtr_alpha_parse(val, &th->alpha) < 0) {
			say("%s: --alpha takes the test's level, a number above 0 and at most 0.5 (default 0.05)%s",
			    a->cmd, "");
			return -1;
		}
		break;
	}
	return 0;
}

enum { D_FAIL_ON_REGRESSION = T_ALPHA + 1 };
static const gtr_opt diff_opts[] = {
	OPT_IO,
	OPT_LENIENT,
	{"json", 0, GTR_OPT_NONE, O_JSON, NULL, NULL},
	{"top", 'n', GTR_OPT_REQUIRED, O_TOP, "N", "a positive count"},
	{"fail-on-regression", 0, GTR_OPT_NONE, D_FAIL_ON_REGRESSION, NULL, NULL},
	{"fast", 0, GTR_OPT_NONE, O_FAST, NULL, NULL},
	{"ordered", 0, GTR_OPT_NONE, O_ORDERED, NULL, NULL},
	{0},
};

static int run_diff(args *a)
{
	gtr_thresholds th;
	gtr_thresholds_default(&th);
	gtr_diff_opts opts = {.rows = 10, .th = &th};
	int fail_worse = 0, lenient = 0, fast = 0;
	gtr_io_mode io = GTR_IO_AUTO;
	const char *paths[2] = {NULL, NULL};
	int npaths = 0;
	for (int id; (id = next_opt(a)) != GTR_OPT_END;) {
		int sh = shared_opt(a, id, &io, &lenient);
		if (sh == SHARED_TAKEN)
			continue;
		if (sh != SHARED_OWN)
			return sh; /* --help, or a usage error */
		const char *val = a->p.val;
		switch (id) {
		case O_JSON:
			opts.json = 1;
			break;
		case D_FAIL_ON_REGRESSION:
			fail_worse = 1;
			break;
		case O_FAST:
		case O_ORDERED:
			fast = id == O_FAST;
			break;
		case O_TOP:
			if (parse_count(val, &opts.rows) < 0) {
				say("diff: -n takes a positive count%s%s", "", "");
				return EXIT_USAGE;
			}
			break;
		case T_THRESHOLD:
		case T_MIN_DELTA:
		case T_ALPHA:
			if (threshold_opt(a, id, &th) < 0)
				return EXIT_USAGE;
			break;
		case GTR_OPT_OPERAND:
			if (npaths == 2) {
				say("%s: two trace files, please (got %s as a third)", a->cmd, val);
				return EXIT_USAGE;
			}
			paths[npaths++] = val;
			break;
		}
	}
	if (npaths != 2) {
		say("%s: two trace files, A and B, please%s", a->cmd, "");
		print_usage(a, stderr);
		return EXIT_USAGE;
	}
	if (strcmp(paths[0], "-") == 0 && strcmp(paths[1], "-") == 0) {
		say("%s: standard input can be only one of the two traces%s", a->cmd, "");
		return EXIT_USAGE;
	}
	/* Each side: one trace, or a directory whose traces are runs of one case. */
	gtr_metrics *runs[2] = {NULL, NULL};
	size_t nruns[2] = {0, 0};
	static gtr_partial part[2], scratch; /* a loss record is large */
	int st = EXIT_OK;
	for (int k = 0; k < 2 && st == EXIT_OK; k++) {
		gtr_check_input *in = NULL;
		size_t nin = 1;
		struct stat sb;
		if (strcmp(paths[k], "-") != 0 && stat(paths[k], &sb) == 0 && S_ISDIR(sb.st_mode)) {
			char why[512];
			char *arg[1] = {(char *)paths[k]};
			if (gtr_check_collect(arg, 1, "*.trace", &in, &nin, why, sizeof why) < 0) {
				say("%s: %s", a->cmd, why);
				st = EXIT_ERR;
				break;
			}
		}
		if (!(runs[k] = calloc(nin, sizeof *runs[k]))) {
			gtr_check_inputs_free(in, nin);
			say("%s: out of memory%s", a->cmd, "");
			st = EXIT_ERR;
			break;
		}
		for (size_t i = 0; i < nin && st == EXIT_OK; i++) {
			const char *path = in ? in[i].path : paths[k];
			if (in && in[i].error) {
				fprintf(stderr, "gtr: %s: %s\n", nm(path), in[i].error);
				st = EXIT_ERR;
				break;
			}
			opened op;
			st = open_trace(&op, path, io, lenient ? GTR_OPEN_LENIENT : 0, 0);
			if (st != EXIT_OK)
				break;
			gtr_error err;
			gtr_error_clear(&err);
			gtr_analysis an;
			memset(&an, 0, sizeof an);
			int arc;
			if (fast && !lenient) {
				gtr_metrics_fast_info fi;
				arc = gtr_metrics_compute_fast(op.trace, opts.rows ? opts.rows : 1, engine_jobs(),
							       &an.metrics, &fi, &err);
				if (verbose && arc == 0)
					fprintf(stderr, "gtr: %s: slices on the %s path, times on the %s path%s%s\n",
						path, fi.greedy_ordered ? "ordered" : "parallel",
						fi.stats_ordered ? "ordered" : "parallel", fi.why[0] ? ": " : "",
						fi.why);
			} else {
				arc = gtr_analyze(op.trace,
						  &(gtr_analyze_opts){.jobs = engine_jobs(),
								      .metrics_top = opts.rows ? opts.rows : 1},
						  &an, &err);
			}
			if (arc < 0) {
				fprintf(stderr, "gtr: %s: at byte %llu: %s\n", nm(path), (unsigned long long)err.off,
					err.msg[0] ? err.msg : gtr_strerror(err.code));
				st = EXIT_ERR;
			} else if (an.metrics.events == 0) {
				/* Read leniently, nothing of it was readable: nothing to compare. */
				fprintf(stderr, "gtr: %s: no event could be read: nothing to compare\n", nm(path));
				gtr_metrics_free(&an.metrics);
				st = EXIT_ERR;
			} else {
				runs[k][nruns[k]++] = an.metrics;
				if (!fast || lenient)
					say_engine(path, &an.engine);
				/* A side read in part: how, for its JSON (of its last run read so). */
				if (gtr_partial_get(&scratch, op.trace, &op.map)) {
					part[k] = scratch;
					*(k ? &opts.partial_b : &opts.partial_a) = &part[k];
				}
			}
			/* Leniently, what was skipped is said before the comparison. */
			st = loss_status(path, op.trace, 1, st);
			close_trace(&op);
		}
		gtr_check_inputs_free(in, in ? nin : 0);
	}
	if (st == EXIT_OK) {
		static gtr_out o;
		gtr_out_init(&o, STDOUT_FILENO);
		gtr_error err;
		gtr_error_clear(&err);
		gtr_verdict v = GTR_SAME;
		const gtr_metrics **ra = malloc((nruns[0] + nruns[1]) * sizeof *ra), **rb = ra + nruns[0];
		int rc = ra ? 0 : gtr_error_set(&err, GTR_E_NOMEM, 0, "out of memory");
		for (size_t i = 0; ra && i < nruns[0]; i++)
			ra[i] = &runs[0][i];
		for (size_t i = 0; ra && i < nruns[1]; i++)
			rb[i] = &runs[1][i];
		opts.file_a = paths[0];
		opts.file_b = paths[1];
		opts.runs_a = ra;
		opts.runs_b = rb;
		opts.na = nruns[0];
		opts.nb = nruns[1];
		/* The top slices and the functions shown: the last run of each side. */
		if (rc == 0)
			rc = gtr_report_diff(&runs[0][nruns[0] - 1], &runs[1][nruns[1] - 1], &opts, &o, &v, &err);
		free(ra);
		st = finish(paths[1], rc, &err, &o);
		if (st == EXIT_OK && fail_worse && v == GTR_WORSE)
			st = EXIT_THRESHOLD;
	}
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < nruns[k]; i++)
			gtr_metrics_free(&runs[k][i]);
		free(runs[k]);
	}
	return st;
}

/*
 * Opens `path` for a report ("-": stdout) through io/outfile.h: written
 * whole or not at all, symbolic links written through, mode kept.
 * Returns the fd, or -1 after saying why.
 */
static int open_output(const char *path, gtr_outfile *f, unsigned flags)
{
	const char *what;
	int rc = gtr_outfile_open(f, path, flags, &what);
	if (rc < 0) {
		say("%s: %s", what, strerror(-rc));
		return -1;
	}
	return f->fd;
}

/* Flushes and commits a report opened by open_output. EXIT_OK or EXIT_ERR, after saying why. */
static int close_output(gtr_out *o, gtr_outfile *f, const char *path)
{
	int werr = gtr_out_flush(o);
	if (f->is_stdout) {
		if (werr && werr != EPIPE) {
			say("writing standard output: %s%s", strerror(werr), "");
			return EXIT_ERR;
		}
		return EXIT_OK;
	}
	if (werr) {
		gtr_outfile_abort(f);
		say("%s: writing: %s", path, strerror(werr));
		return EXIT_ERR;
	}
	int rc = gtr_outfile_commit(f);
	if (rc < 0) {
		say("%s: %s", path, strerror(-rc));
		return EXIT_ERR;
	}
	return EXIT_OK;
}

/* An output that is one of the inputs would destroy it: refused. 1 if so, after saying it. */
static int output_is_input(const char *out, const char *in, const char *what)
{
	if (!out || !in || !gtr_same_file(out, in))
		return 0;
	fprintf(stderr, "gtr: %s is %s %s: refusing to write over an input\n", nm(out), what, nm(in));
	return 1;
}

/* Reads the baseline of a check; missing is fine only when it is about to be written. */
static int load_baseline(const char *path, int update, gtr_baseline **out)
{
	*out = NULL;
	gtr_map bm;
	int rc = gtr_map_open(&bm, path, GTR_IO_AUTO);
	if (rc < 0 && !(rc == -ENOENT && update)) {
		fprintf(stderr, "gtr: %s: %s%s\n", path, strerror(-rc),
			rc == -ENOENT ? " (create it with --update-baseline)" : "");
		return EXIT_ERR;
	}
	if (rc < 0)
		return EXIT_OK;
	gtr_error err;
	gtr_error_clear(&err);
	rc = gtr_baseline_parse((const char *)bm.data, bm.size, out, &err);
	gtr_map_close(&bm);
	if (rc < 0) {
		fprintf(stderr, "gtr: %s: at byte %llu: %s\n", path, (unsigned long long)err.off,
			err.msg[0] ? err.msg : gtr_strerror(err.code));
		return EXIT_ERR;
	}
	return EXIT_OK;
}

/* What a check writes, and where: the options of its reports. */
typedef struct check_out {
	const char *baseline, *report_json, *junit, *jsonl;
	int update, quiet;
	int fail_missing;  /* a baseline case with no trace fails the check */
	size_t max_runs;   /* runs a case keeps in an updated baseline */
	const gtr_thresholds *th;
} check_out;

static void check_warnings(const gtr_check_result *res, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (res[i].warning[0])
			fprintf(stderr, "gtr: warning: %s: %s\n", res[i].in->name, res[i].warning);
}

/*
 * The end of every check, sharded or not: judged results in, the
 * baseline update, the reports and the exit status out.
 */
static int check_finish(const gtr_check_result *res, size_t nin, const gtr_baseline *base,
			const check_out *co, unsigned jobs, double seconds)
{
	for (int which = 0; which < 3; which++) {
		const char *path = which == 2 ? co->jsonl : which ? co->junit : co->report_json;
		if (output_is_input(path, co->baseline, "the baseline"))
			return EXIT_USAGE;
		for (size_t i = 0; i < nin; i++)
			if (output_is_input(path, res[i].in->path, "the trace"))
				return EXIT_USAGE;
	}
	gtr_check_case *cases = NULL;
	size_t ncases = 0;
	if (gtr_check_judge(res, nin, base, co->th, &cases, &ncases) < 0) {
		say("check: out of memory%s%s", "", "");
		return EXIT_ERR;
	}
	check_warnings(res, nin);
	static gtr_out o;
	int io_failed = 0;
	if (co->update && strcmp(co->baseline, "-") == 0) {
		io_failed = 1;
		say("check: the baseline cannot be standard output%s%s", "", "");
	} else if (co->update) {
		/*
		 * Locked, then read again: another run may have updated it since
		 * it was loaded, and its entries stay (a read-modify-write).
		 */
		gtr_outfile f;
		int fd = open_output(co->baseline, &f, GTR_OUTFILE_LOCK);
		char *text = NULL;
		size_t len = 0;
		gtr_baseline *now = NULL;
		if (fd >= 0) {
			int rc = gtr_outfile_read(&f, &text, &len);
			gtr_error err;
			gtr_error_clear(&err);
			if (rc < 0) {
				say("%s: %s", co->baseline, strerror(-rc));
			} else if (text && gtr_baseline_parse(text, len, &now, &err) < 0) {
				fprintf(stderr, "gtr: %s: at byte %llu: %s\n", nm(co->baseline),
					(unsigned long long)err.off, err.msg[0] ? err.msg : gtr_strerror(err.code));
				rc = -1;
			}
			free(text);
			if (rc < 0) {
				gtr_outfile_abort(&f);
				fd = -1;
			}
		}
		if (fd < 0) {
			io_failed = 1;
		} else {
			gtr_out_init(&o, fd);
			gtr_check_write_baseline(cases, ncases, now, co->max_runs, &o);
			io_failed |= close_output(&o, &f, co->baseline) != EXIT_OK;
		}
		gtr_baseline_free(now);
	}
	gtr_check_report_opts ropts = {
		.baseline_path = co->baseline, .th = co->th, .jobs = jobs,
		.updated = co->update && !io_failed, .quiet = co->quiet,
		.fail_on_missing = co->fail_missing && !co->update, .seconds = seconds};
	/* 3 wins over 1: a regression is the finding CI is asked about. An update accepts it. */
	int st = gtr_check_exit_status(cases, ncases, ropts.fail_on_missing);
	if (co->update && st == EXIT_THRESHOLD) {
		gtr_check_summary sum;
		gtr_check_summarize(cases, ncases, &sum);
		st = sum.errors ? EXIT_ERR : EXIT_OK;
	}
	if (io_failed)
		st = st == EXIT_OK ? EXIT_ERR : st;
	ropts.exit_status = st;
	int to_stdout = 0;
	for (int which = 0; which < 3; which++) {
		const char *path = which == 2 ? co->jsonl : which ? co->junit : co->report_json;
		if (!path)
			continue;
		gtr_outfile f;
		int fd = open_output(path, &f, 0);
		if (fd < 0) {
			io_failed = 1;
			continue;
		}
		to_stdout |= f.is_stdout;
		gtr_out_init(&o, fd);
		if (which == 2)
			gtr_check_write_jsonl(cases, ncases, &o);
		else if (which)
			gtr_check_write_junit(cases, ncases, &ropts, &o);
		else
			gtr_check_write_json(cases, ncases, &ropts, &o);
		io_failed |= close_output(&o, &f, path) != EXIT_OK;
	}
	if (!to_stdout) {
		gtr_out_init(&o, STDOUT_FILENO);
		gtr_check_write_text(cases, ncases, &ropts, &o);
		int werr = gtr_out_flush(&o);
		if (werr && werr != EPIPE) {
			say("writing standard output: %s%s", strerror(werr), "");
			io_failed = 1;
		}
	}
	if (io_failed && st == EXIT_OK)
		st = EXIT_ERR;
	gtr_check_cases_free(cases, ncases);
	return st;
}

/* --shard SPEC: K/N, env or env/N (the index from the batch system's variables). */
static int shard_spec(const char *spec, gtr_shard *s, char *why, size_t cap)
{
	if (strncmp(spec, "env", 3) != 0 || (spec[3] != 0 && spec[3] != '/'))
		return gtr_shard_parse(spec, s, why, cap);
	size_t count = 0;
	if (spec[3] == '/' && (parse_count(spec + 4, &count) < 0 || count > GTR_SHARD_MAX)) {
		snprintf(why, cap, "env/N: N is the number of shards (1 to %u), not %s", GTR_SHARD_MAX,
			 spec + 4);
		return -1;
	}
	gtr_shard_env env = {.slurm_id = getenv("SLURM_ARRAY_TASK_ID"),
			     .slurm_min = getenv("SLURM_ARRAY_TASK_MIN"),
			     .slurm_step = getenv("SLURM_ARRAY_TASK_STEP"),
			     .slurm_count = getenv("SLURM_ARRAY_TASK_COUNT"),
			     .job_index = getenv("JOB_COMPLETION_INDEX")};
	return gtr_shard_from_env(&env, (unsigned)count, s, why, cap);
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* check --merge PART...: the parts' measurements, judged and reported as one run. */
static int check_merge(char **paths, size_t npaths, const check_out *co)
{
	gtr_part **parts = calloc(npaths, sizeof *parts);
	if (!parts) {
		say("out of memory%s%s", "", "");
		return EXIT_ERR;
	}
	int st = EXIT_OK;
	gtr_error err;
	for (size_t i = 0; i < npaths && st == EXIT_OK; i++) {
		gtr_map m;
		int rc = gtr_map_open(&m, paths[i], GTR_IO_AUTO);
		if (rc < 0) {
			fprintf(stderr, "gtr: %s: %s\n", paths[i], strerror(-rc));
			st = EXIT_ERR;
			break;
		}
		gtr_error_clear(&err);
		rc = gtr_part_read((const char *)m.data, m.size, &parts[i], &err);
		gtr_map_close(&m);
		if (rc < 0) {
			fprintf(stderr, "gtr: %s: at byte %llu: %s\n", paths[i], (unsigned long long)err.off,
				err.msg[0] ? err.msg : gtr_strerror(err.code));
			st = EXIT_ERR;
		}
	}
	gtr_merged mg = {0};
	if (st == EXIT_OK) {
		gtr_error_clear(&err);
		if (gtr_part_merge(parts, (const char *const *)paths, npaths, &mg, &err) < 0) {
			say("check --merge: %s%s", err.msg, "");
			st = EXIT_ERR;
		}
	}
	for (size_t i = 0; i < npaths; i++)
		gtr_part_free(parts[i]);
	free(parts);
	gtr_baseline *base = NULL;
	if (st == EXIT_OK)
		st = load_baseline(co->baseline, co->update, &base);
	/* Judged by the same code as an unsharded check's measurements. */
	if (st == EXIT_OK)
		st = check_finish(mg.res, mg.n, base, co, mg.info.jobs, mg.info.seconds);
	gtr_merged_free(&mg);
	gtr_baseline_free(base);
	return st;
}

/* What check's options set besides check_out. */
struct check_flags {
	const char *pattern, *shard, *part;
	const char *set_report; /* a flag of the judging, refused by a shard */
	int lenient, merge, set_thresholds, have_ntop, have_io, fast;
	size_t ntop, jobs;
	gtr_io_mode io;
};

enum {
	C_BASELINE = D_FAIL_ON_REGRESSION + 1, C_REPORT_JSON, C_JUNIT, C_JSONL, C_PART, C_PATTERN, C_SHARD,
	C_MERGE, C_UPDATE, C_FAIL_MISSING, C_NO_FAIL_MISSING, C_MAX_RUNS, C_QUIET,
};
static const gtr_opt check_opts[] = {
	OPT_IO,
	OPT_LENIENT,
	{"baseline", 0, GTR_OPT_REQUIRED, C_BASELINE, "FILE", "a file name"},
	{"report-json", 0, GTR_OPT_REQUIRED, C_REPORT_JSON, "FILE", "a file name"},
	{"junit", 0, GTR_OPT_REQUIRED, C_JUNIT, "FILE", "a file name"},
	{"jsonl", 0, GTR_OPT_REQUIRED, C_JSONL, "FILE", "a file name"},
	{"part", 0, GTR_OPT_REQUIRED, C_PART, "FILE", "a file name"},
	{"pattern", 0, GTR_OPT_REQUIRED, C_PATTERN, "GLOB", "a file name pattern"},
	{"shard", 0, GTR_OPT_REQUIRED, C_SHARD, "K/N", "K/N, env or env/N"},
	{"merge", 0, GTR_OPT_NONE, C_MERGE, NULL, NULL},
	{"update-baseline", 0, GTR_OPT_NONE, C_UPDATE, NULL, NULL},
	{"fail-on-missing", 0, GTR_OPT_NONE, C_FAIL_MISSING, NULL, NULL},
	{"no-fail-on-missing", 0, GTR_OPT_NONE, C_NO_FAIL_MISSING, NULL, NULL},
	{"max-runs", 0, GTR_OPT_REQUIRED, C_MAX_RUNS, "N", "a number of runs (1 to 1000)"},
	{"quiet", 'q', GTR_OPT_NONE, C_QUIET, NULL, NULL},
	{"jobs", 'j', GTR_OPT_REQUIRED, O_JOBS, "N", "a number of threads (1 to 4096)"},
	{NULL, 'n', GTR_OPT_REQUIRED, O_TOP, "N", "a positive count"},
	{"fast", 0, GTR_OPT_NONE, O_FAST, NULL, NULL},
	{"ordered", 0, GTR_OPT_NONE, O_ORDERED, NULL, NULL},
	{0},
};

/* One option of check (id, value in a->p): 0, or -1 after saying what is wrong. */
static int check_opt(args *a, int id, check_out *co, gtr_thresholds *th, struct check_flags *cf)
{
	const char *val = a->p.val;
	switch (id) {
	case O_IO:
		cf->have_io = 1;
		if (parse_io(val, &cf->io) < 0) {
			say("%s: --io takes mmap, uring or read%s", a->cmd, "");
			return -1;
		}
		break;
	case C_BASELINE:
	case C_REPORT_JSON:
	case C_JUNIT:
	case C_JSONL:
	case C_PART:
	case C_PATTERN:
		if (!*val) {
			say("%s: %s takes a file name", a->cmd, a->p.flag);
			return -1;
		}
		*(id == C_BASELINE ? &co->baseline : id == C_REPORT_JSON ? &co->report_json
			: id == C_JUNIT ? &co->junit : id == C_JSONL ? &co->jsonl
			: id == C_PART ? &cf->part : &cf->pattern) = val;
		break;
	case C_SHARD:
		if (!*val) {
			say("%s: --shard takes K/N, env or env/N%s", a->cmd, "");
			return -1;
		}
		cf->shard = val;
		break;
	case C_MERGE:
		cf->merge = 1;
		break;
	case C_UPDATE:
		co->update = 1;
		break;
	case C_FAIL_MISSING:
		co->fail_missing = 1;
		break;
	case C_NO_FAIL_MISSING:
		co->fail_missing = 0;
		cf->set_report = "--no-fail-on-missing";
		break;
	case C_MAX_RUNS:
		cf->set_report = "--max-runs";
		if (parse_count(val, &co->max_runs) < 0 || co->max_runs > 1000) {
			say("%s: --max-runs takes a number of runs (1 to 1000)%s", a->cmd, "");
			return -1;
		}
		break;
	case O_LENIENT:
		cf->lenient = 1;
		break;
	case C_QUIET:
		co->quiet = 1;
		break;
	case O_FAST:
	case O_ORDERED:
		cf->fast = id == O_FAST;
		break;
	case O_JOBS:
		if (parse_jobs(a->cmd, val, &cf->jobs, 4096) < 0)
			return -1;
		break;
	case O_TOP:
		cf->have_ntop = 1;
		if (parse_count(val, &cf->ntop) < 0) {
			say("%s: -n takes a positive count%s", a->cmd, "");
			return -1;
		}
		break;
	case T_THRESHOLD:
	case T_MIN_DELTA:
	case T_ALPHA:
		cf->set_thresholds = 1;
		return threshold_opt(a, id, th);
	}
	return 0;
}

static int run_check(args *a)
{
	gtr_thresholds th;
	gtr_thresholds_default(&th);
	check_out co = {.th = &th, .fail_missing = 1, .max_runs = GTR_BASELINE_MAX_RUNS};
	struct check_flags cf = {.ntop = 10, .io = GTR_IO_AUTO};
	char **paths = calloc((size_t)a->p.argc, sizeof *paths);
	size_t npaths = 0;
	if (!paths) {
		say("out of memory%s%s", "", "");
		return EXIT_ERR;
	}
	int st = EXIT_OK;
	for (int id; st == EXIT_OK && (id = next_opt(a)) != GTR_OPT_END;) {
		if (id == ARG_HELP) {
			free(paths);
			return EXIT_OK;
		} else if (id == ARG_USAGE) {
			st = EXIT_USAGE;
		} else if (id != GTR_OPT_OPERAND) {
			if (check_opt(a, id, &co, &th, &cf) < 0)
				st = EXIT_USAGE;
		} else if (strcmp(a->p.val, "-") == 0) {
			say("%s: traces are matched by name: standard input cannot be checked%s", a->cmd, "");
			st = EXIT_USAGE;
		} else {
			paths[npaths++] = (char *)a->p.val;
		}
	}
	const char *pattern = cf.pattern, *shard = cf.shard, *part = cf.part, *set_report = cf.set_report;
	int lenient = cf.lenient, merge = cf.merge, set_thresholds = cf.set_thresholds;
	int have_ntop = cf.have_ntop, have_io = cf.have_io;
	size_t ntop = cf.ntop, jobs = cf.jobs;
	gtr_io_mode io = cf.io;
	/* A shard measures; the merge judges and reports. Each refuses the other's flags. */
	const char *wrong = NULL;
	if (shard)
		wrong = merge ? "--merge" : co.baseline ? "--baseline" : co.update ? "--update-baseline"
			: co.report_json ? "--report-json" : co.junit ? "--junit" : co.jsonl ? "--jsonl"
			: co.quiet ? "--quiet" : set_thresholds ? "--threshold/--min-delta" : set_report;
	else if (merge)
		wrong = part ? "--part" : pattern ? "--pattern" : have_ntop ? "-n" : lenient ? "--lenient"
			: jobs ? "-j" : have_io ? "--io" : NULL;
	else if (part)
		wrong = "--part";
	if (st == EXIT_OK && wrong) {
		if (shard)
			say("%s: --shard measures its share and writes it with --part; %s belongs to the "
			    "--merge of the parts", a->cmd, wrong);
		else if (merge)
			say("%s: %s is for the shards, which measured; --merge judges their parts", a->cmd,
			    wrong);
		else
			say("%s: --part is the output of a --shard%s", a->cmd, "");
		st = EXIT_USAGE;
	}
	if (st == EXIT_OK && shard && !part) {
		say("%s: --shard needs --part FILE, where its measurements go%s", a->cmd, "");
		st = EXIT_USAGE;
	}
	if (st == EXIT_OK && !shard && !co.baseline) {
		say("%s: --baseline FILE is required%s", a->cmd, "");
		print_usage(a, stderr);
		st = EXIT_USAGE;
	}
	if (st == EXIT_OK && npaths == 0) {
		say("%s: %s", a->cmd, merge ? "no parts given (the --part files of the shards)"
					    : "no traces given (a directory or files)");
		print_usage(a, stderr);
		st = EXIT_USAGE;
	}
	int nstdout = 0;
	nstdout += co.report_json && strcmp(co.report_json, "-") == 0;
	nstdout += co.junit && strcmp(co.junit, "-") == 0;
	nstdout += co.jsonl && strcmp(co.jsonl, "-") == 0;
	if (st == EXIT_OK && nstdout > 1) {
		say("%s: only one report can go to standard output%s", a->cmd, "");
		st = EXIT_USAGE;
	}
	gtr_shard sh = {0, 1};
	char why[600];
	if (st == EXIT_OK && shard && shard_spec(shard, &sh, why, sizeof why) < 0) {
		say("%s: --shard: %s", a->cmd, why);
		st = EXIT_USAGE;
	}
	if (st == EXIT_OK && merge) {
		st = check_merge(paths, npaths, &co);
		free(paths);
		return st;
	}
	gtr_check_input *in = NULL;
	size_t nin = 0;
	gtr_check_notes notes = {0};
	if (st == EXIT_OK && gtr_check_collect_notes(paths, npaths, pattern ? pattern : "*.trace", &in, &nin,
						     &notes, why, sizeof why) < 0) {
		say("%s: %s", a->cmd, why);
		st = EXIT_USAGE;
	}
	for (size_t i = 0; i < notes.n; i++)
		fprintf(stderr, "gtr: warning: %s\n", nm(notes.line[i]));
	gtr_check_notes_free(&notes);
	free(paths);
	if (st != EXIT_OK)
		return st;
	gtr_shard_list all;
	gtr_shard_list_of(in, nin, &all);
	if (shard)
		gtr_shard_select(in, &nin, sh);

	gtr_baseline *base = NULL;
	if (!shard && load_baseline(co.baseline, co.update, &base) != EXIT_OK) {
		gtr_check_inputs_free(in, nin);
		return EXIT_ERR;
	}
	gtr_kernels k;
	const char *isa = getenv("GTR_ISA");
	if (gtr_kernels_init(&k, isa) < 0) {
		say("GTR_ISA=%s: unknown, or not supported by this CPU%s", isa, "");
		gtr_baseline_free(base);
		gtr_check_inputs_free(in, nin);
		return EXIT_USAGE;
	}
	if (jobs == 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = cpus > 0 ? (size_t)cpus : 1;
	}
	size_t asked = jobs;
	if (jobs > nin)
		jobs = nin ? nin : 1;
	gtr_progress prog;
	gtr_progress_init(&prog, STDERR_FILENO, nin);
	if (progress_mode != GTR_METER_AUTO)
		prog.on = progress_mode == GTR_METER_ON;
	gtr_check_opts copts = {.max_input = max_input, .baseline = base, .th = &th, .kernels = &k, .ntop = ntop,
				.jobs = (unsigned)jobs, .io = io, .progress = &prog,
				.open_flags = lenient ? GTR_OPEN_LENIENT : 0, .fast = cf.fast && !lenient};
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	gtr_check_result *res = NULL;
	gtr_error err;
	gtr_error_clear(&err);
	int rc = gtr_check_measure(in, nin, &copts, &res, &err);
	gtr_progress_end(&prog);
	double seconds = seconds_since(&t0);
	if (rc < 0) {
		say("%s: %s", a->cmd, err.msg);
		gtr_check_results_free(res, nin);
		gtr_baseline_free(base);
		gtr_check_inputs_free(in, nin);
		return EXIT_ERR;
	}
	if (shard) {
		/* Only the part: the verdict is the merge's, over every shard. */
		check_warnings(res, nin);
		gtr_part_info info = {.shard = sh, .all = all, .ntop = ntop, .lenient = lenient,
				      .jobs = (unsigned)asked, .seconds = seconds};
		static gtr_out o;
		gtr_outfile f;
		size_t errors = 0;
		for (size_t i = 0; i < nin; i++)
			errors += res[i].status == GTR_CHECK_ERROR;
		int fd = open_output(part, &f, 0);
		st = fd < 0 ? EXIT_ERR : EXIT_OK;
		if (fd >= 0) {
			gtr_out_init(&o, fd);
			gtr_part_write(res, nin, &info, &o);
			st = close_output(&o, &f, part);
		}
		if (st == EXIT_OK && fd != STDOUT_FILENO)
			printf("gtr check: shard %u/%u: %zu of %zu traces measured (%zu unreadable), "
			       "%zu thread%s; part written to %s\n",
			       sh.index, sh.count, nin, all.n, errors, jobs, jobs == 1 ? "" : "s", part);
	} else {
		st = check_finish(res, nin, base, &co, (unsigned)jobs, seconds);
	}
	gtr_check_results_free(res, nin);
	gtr_baseline_free(base);
	gtr_check_inputs_free(in, nin);
	return st;
}

/* One trace of `gtr report`, open with its results while the page is written. */
typedef struct report_in {
	opened op;
	int open;
	gtr_greedy *g;
	gtr_stats *s;
	gtr_timeline *tl;
	gtr_zoom *z;
	gtr_annot *an;
	gtr_mmu *mmu;
	gtr_metrics m;
	char warn[400]; /* what a partial read lost, for the page */
} report_in;

enum { R_OUTPUT = C_QUIET + 1, R_FUNCTIONS, R_BUCKETS, R_SLICES };
static const gtr_opt report_opts[] = {
	OPT_IO,
	OPT_LENIENT,
	{"output", 'o', GTR_OPT_REQUIRED, R_OUTPUT, "FILE", "a file name (- for standard output)"},
	{NULL, 'n', GTR_OPT_REQUIRED, O_TOP, "N", "a positive count"},
	{"depth", 0, GTR_OPT_REQUIRED, O_DEPTH, "N", "a positive count"},
	{"functions", 0, GTR_OPT_REQUIRED, R_FUNCTIONS, "N", "a positive count"},
	{"buckets", 0, GTR_OPT_REQUIRED, R_BUCKETS, "N", "a count from 16 to 20000"},
	{"slices", 0, GTR_OPT_REQUIRED, R_SLICES, "N", "a count from 1 to 1000000"},
	{0},
};

static int run_report(args *a)
{
	gtr_thresholds th;
	gtr_thresholds_default(&th);
	gtr_diff_opts dopts = {.rows = 10, .th = &th};
	gtr_timeline_opts topts = {.buckets = GTR_TIMELINE_BUCKETS};
	gtr_zoom_opts zopts = {.slices = GTR_ZOOM_SLICES};
	gtr_annot_opts aopts = {.top = GTR_HTML_ANNOT_TOP};
	gtr_mmu_opts mopts = {.flags = GTR_MMU_DEFAULT};
	gtr_html_opts hopts = {.stack_depth = 32, .func_rows = GTR_HTML_FUNC_ROWS,
			       .generator = "gtr " GTR_VERSION_STRING};
	size_t top = 10;
	int lenient = 0;
	gtr_io_mode io = GTR_IO_AUTO;
	const char *paths[2] = {NULL, NULL}, *out = "report.html";
	int npaths = 0;
	for (int id; (id = next_opt(a)) != GTR_OPT_END;) {
		int sh = shared_opt(a, id, &io, &lenient);
		if (sh == SHARED_TAKEN)
			continue;
		if (sh != SHARED_OWN)
			return sh; /* --help, or a usage error */
		const char *val = a->p.val;
		switch (id) {
		case R_OUTPUT:
			if (!*val) {
				say("%s: -o takes a file name (- for standard output)%s", a->cmd, "");
				return EXIT_USAGE;
			}
			out = val;
			break;
		case O_TOP:
		case O_DEPTH:
		case R_FUNCTIONS:
		case R_BUCKETS:
		case R_SLICES: {
			size_t *into = id == O_TOP ? &top : id == O_DEPTH ? &hopts.stack_depth
				       : id == R_FUNCTIONS ? &hopts.func_rows : id == R_SLICES ? &zopts.slices
				       : &topts.buckets;
			if (parse_count(val, into) < 0 ||
			    (into == &zopts.slices && *into > GTR_ZOOM_MAX_SLICES) ||
			    (into == &topts.buckets && (*into < GTR_TIMELINE_MIN_BUCKETS ||
							*into > GTR_TIMELINE_MAX_BUCKETS))) {
				if (into == &zopts.slices)
					fprintf(stderr, "gtr: %s: --slices takes a count from 1 to %d\n",
						a->cmd, GTR_ZOOM_MAX_SLICES);
				else if (into == &topts.buckets)
					fprintf(stderr, "gtr: %s: --buckets takes a count from %d to %d\n",
						a->cmd, GTR_TIMELINE_MIN_BUCKETS, GTR_TIMELINE_MAX_BUCKETS);
				else
					say("%s: %s takes a positive count", a->cmd, a->p.flag);
				return EXIT_USAGE;
			}
			break;
		}
		case T_THRESHOLD:
		case T_MIN_DELTA:
		case T_ALPHA:
			if (threshold_opt(a, id, &th) < 0)
				return EXIT_USAGE;
			break;
		case GTR_OPT_OPERAND:
			if (npaths == 2) {
				say("%s: one trace, or two to compare, please (got %s as a third)", a->cmd, val);
				return EXIT_USAGE;
			}
			paths[npaths++] = val;
			break;
		}
	}
	if (npaths == 0) {
		say("%s: no trace file given%s", a->cmd, "");
		print_usage(a, stderr);
		return EXIT_USAGE;
	}
	if (npaths == 2 && strcmp(paths[0], "-") == 0 && strcmp(paths[1], "-") == 0) {
		say("%s: standard input can be only one of the two traces%s", a->cmd, "");
		return EXIT_USAGE;
	}
	report_in in[2];
	memset(in, 0, sizeof in);
	gtr_html_trace ht[2];
	int st = EXIT_OK;
	for (int k = 0; k < npaths && st == EXIT_OK; k++) {
		report_in *r = &in[k];
		/* As stats and diff: a cut trace is reported, and said to be cut. */
		unsigned flags = lenient ? GTR_OPEN_LENIENT : npaths == 2 ? 0 : GTR_OPEN_PARTIAL;
		if ((st = open_trace(&r->op, paths[k], io, flags, 0)) != EXIT_OK)
			break;
		r->open = 1;
		gtr_error err;
		gtr_error_clear(&err);
		int rc;
		/* One read of the trace for every part of the page. */
		progress_pass = "analyses";
		gtr_analysis an;
		rc = gtr_analyze(r->op.trace,
				 &(gtr_analyze_opts){.jobs = engine_jobs(), .greedy_top = top, .stats = &(gtr_stats_keep){0},
						     .timeline = &topts,
						     .metrics_top = npaths == 2 ? dopts.rows : 0, .zoom = &zopts,
						     .annot = gtr_annot_supported(r->op.trace) ? &aopts : NULL,
						     .mmu = &mopts},
				 &an, &err);
		if (rc == 0) {
			say_engine(paths[k], &an.engine);
			r->g = an.greedy;
			r->s = an.stats;
			r->tl = an.timeline;
			if (an.has_metrics)
				r->m = an.metrics;
			r->z = an.zoom;
			r->an = an.annot;
			r->mmu = an.mmu;
		}
		progress_pass = NULL;
		gtr_meter_end(&meter);
		if (rc < 0) {
			fprintf(stderr, "gtr: %s: at byte %llu: %s\n", paths[k], (unsigned long long)err.off,
				err.msg[0] ? err.msg : gtr_strerror(err.code));
			st = EXIT_ERR;
		}
		st = loss_status(paths[k], r->op.trace, lenient || npaths == 2, st);
		ht[k] = (gtr_html_trace){.file = paths[k], .trace = r->op.trace, .greedy = r->g,
					 .stats = r->s, .timeline = r->tl, .zoom = r->z, .annot = r->an,
					 .mmu = r->mmu};
		gtr_loss l;
		gtr_trace_loss(r->op.trace, &l);
		if (gtr_loss_any(&l)) {
			gtr_loss_summary(&l, gtr_trace_get_info(r->op.trace)->bytes, r->warn, sizeof r->warn);
			ht[k].warning = r->warn;
		}
	}
	/* A trace read in part (exit 1) still gets its page, as the text reports do. */
	int pages = st == EXIT_OK || (st == EXIT_ERR && npaths == 1 && in[0].tl);
	if (pages) {
		if (npaths == 2) {
			dopts.file_a = paths[0];
			dopts.file_b = paths[1];
			hopts.diff_a = &in[0].m;
			hopts.diff_b = &in[1].m;
			hopts.diff = &dopts;
		}
		static gtr_out o;
		gtr_outfile f;
		int fd = -1;
		for (int k = 0; k < npaths; k++)
			if (output_is_input(out, paths[k], "the trace"))
				st = EXIT_USAGE;
		if (st != EXIT_USAGE)
			fd = open_output(out, &f, 0);
		if (fd < 0) {
			if (st != EXIT_USAGE)
				st = EXIT_ERR;
		} else {
			gtr_out_init(&o, fd);
			gtr_error err;
			gtr_error_clear(&err);
			/* Stacks and strings are resolved now: the last phase, said while the page is made. */
			if (fd != STDOUT_FILENO)
				gtr_meter_update(&meter, gtr_phase_name(GTR_PHASE_REDUCE), 0, 0);
			int rc = gtr_report_html(ht, (size_t)npaths, &hopts, &o, &err);
			gtr_meter_end(&meter);
			if (rc < 0) {
				gtr_out_flush(&o);
				gtr_outfile_abort(&f);
				fprintf(stderr, "gtr: %s: %s\n", out, err.msg[0] ? err.msg : gtr_strerror(err.code));
				st = EXIT_ERR;
			} else {
				off_t bytes = !f.is_stdout ? lseek(fd, 0, SEEK_CUR) + (off_t)o.len : 0;
				if (close_output(&o, &f, out) != EXIT_OK)
					st = EXIT_ERR;
				else if (!f.is_stdout && isatty(STDERR_FILENO)) {
					char sz[32];
					gtr_meter_bytes(sz, sizeof sz, (double)bytes);
					fprintf(stderr, "gtr: wrote %s (%s)\n", out, sz);
				}
			}
		}
	}
	for (int k = 0; k < 2; k++) {
		gtr_greedy_free(in[k].g);
		gtr_stats_free(in[k].s);
		gtr_timeline_free(in[k].tl);
		gtr_zoom_free(in[k].z);
		gtr_annot_free(in[k].an);
		gtr_mmu_free(in[k].mmu);
		gtr_metrics_free(&in[k].m);
		if (in[k].open)
			close_trace(&in[k].op);
	}
	return st;
}

enum { P_TYPE = R_SLICES + 1 };
static const gtr_opt pprof_opts[] = {
	OPT_IO,
	OPT_LENIENT,
	{"type", 0, GTR_OPT_REQUIRED, P_TYPE, "TYPE", "sched, sync, net or syscall"},
	{NULL, 'o', GTR_OPT_REQUIRED, R_OUTPUT, "FILE", "a file name"},
	{0},
};

/* gtr pprof: the profile of one trace, written as profile.proto.gz. */
static int run_pprof(args *a)
{
	int have_kind = 0, lenient = 0;
	gtr_pprof_kind kind = GTR_PPROF_SCHED;
	gtr_io_mode io = GTR_IO_AUTO;
	const char *path = NULL, *outp = NULL;
	for (int id; (id = next_opt(a)) != GTR_OPT_END;) {
		int sh = shared_opt(a, id, &io, &lenient);
		if (sh == SHARED_TAKEN)
			continue;
		if (sh != SHARED_OWN)
			return sh; /* --help, or a usage error */
		const char *val = a->p.val;
		switch (id) {
		case P_TYPE:
			if (gtr_pprof_kind_parse(val, &kind) < 0) {
				say("pprof: --type takes sched, sync, net or syscall%s%s", "", "");
				return EXIT_USAGE;
			}
			have_kind = 1;
			break;
		case R_OUTPUT:
			if (!val[0]) {
				say("pprof: -o takes a file name%s%s", "", "");
				return EXIT_USAGE;
			}
			outp = val;
			break;
		case GTR_OPT_OPERAND:
			if (path) {
				say("%s: one trace file, please (got %s)", a->cmd, val);
				return EXIT_USAGE;
			}
			path = val;
			break;
		}
	}
	if (!have_kind) {
		say("pprof: which profile? --type=sched, sync, net or syscall%s%s", "", "");
		return EXIT_USAGE;
	}
	if (!path) {
		say("%s: no trace file given%s", a->cmd, "");
		print_usage(a, stderr);
		return EXIT_USAGE;
	}
	if ((!outp || strcmp(outp, "-") == 0) && isatty(STDOUT_FILENO)) {
		say("pprof: the profile is binary: give -o FILE or redirect standard output%s%s", "", "");
		return EXIT_USAGE;
	}
	opened op;
	int st = open_trace(&op, path, io, lenient ? GTR_OPEN_LENIENT : GTR_OPEN_PARTIAL, 0);
	if (st != EXIT_OK)
		return st;
	gtr_error err;
	gtr_error_clear(&err);
	gtr_pprof p;
	progress_pass = "pprof";
	int rc = gtr_pprof_compute(op.trace, kind, &p, &err);
	if (rc < 0) {
		fprintf(stderr, "gtr: %s: at byte %llu: %s\n", path, (unsigned long long)err.off,
			err.msg[0] ? err.msg : gtr_strerror(err.code));
		st = EXIT_ERR;
	} else {
		gtr_outfile f;
		int fd = -1;
		if (outp && output_is_input(outp, path, "the trace"))
			st = EXIT_USAGE;
		else
			fd = open_output(outp ? outp : "-", &f, 0);
		if (fd < 0) {
			if (st != EXIT_USAGE)
				st = EXIT_ERR;
		} else {
			static gtr_out o;
			gtr_out_init(&o, fd);
			rc = gtr_pprof_write(op.trace, &p, &o, &err);
			if (rc < 0) {
				fprintf(stderr, "gtr: %s: %s\n", nm(path), err.msg[0] ? err.msg : gtr_strerror(err.code));
				st = EXIT_ERR;
				gtr_outfile_abort(&f);
			} else {
				st = close_output(&o, &f, outp ? outp : "-");
			}
		}
	}
	if (verbose && rc == 0)
		fprintf(stderr, "gtr: pprof %s: %zu stacks, %llu intervals, %llu ns\n", gtr_pprof_kind_name(kind),
			p.n, (unsigned long long)p.count, (unsigned long long)p.ns);
	gtr_pprof_release(&p);
	st = loss_status(path, op.trace, lenient, st);
	close_trace(&op);
	return st;
}

static int cli_main(int argc, char **argv);

int gtr_cli_main(int argc, char **argv)
{
	int st = cli_main(argc, argv);
	/* --help and --version into a full disk or a closed stdout: said, and not 0. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "gtr: writing standard output: %s\n", strerror(errno ? errno : EIO));
		if (st == EXIT_OK)
			st = EXIT_ERR;
	}
	return st;
}

static int run_help(args *a)
{
	(void)a;
	fputs(usage_main, stdout);
	return EXIT_OK;
}

static int run_version(args *a)
{
	(void)a;
	printf("gtr %s (reads go 1.5, 1.7, 1.8, 1.9, 1.10, 1.11, 1.19, 1.21, 1.22, 1.23, "
	       "1.25 and 1.26 traces)\n",
	       GTR_VERSION_STRING);
	return EXIT_OK;
}

/* The commands (core/README.md, "Adding a command"). */
static const gtr_cli_command commands[] = {
	{"footprint", NULL, run_command, CMD_FOOTPRINT, usage_footprint, NULL, footprint_opts, NULL},
	{"dump", NULL, run_command, CMD_DUMP, usage_dump, NULL, dump_opts, NULL},
	{"greedy", "diagreedy", run_command, CMD_GREEDY, usage_greedy, NULL, greedy_opts, NULL},
	{"stats", NULL, run_stats, 0, usage_stats, NULL, stats_opts, NULL},
	{"diff", NULL, run_diff, 0, usage_diff, NULL, diff_opts, threshold_opts},
	{"check", NULL, run_check, 0, usage_check, usage_check_more, check_opts, threshold_opts},
	{"report", NULL, run_report, 0, usage_report, NULL, report_opts, threshold_opts},
	{"tasks", NULL, run_views, VIEW_TASKS, usage_tasks, NULL, tasks_opts, NULL},
	{"regions", NULL, run_views, VIEW_REGIONS, usage_regions, NULL, regions_opts, NULL},
	{"mmu", NULL, run_views, VIEW_MMU, usage_mmu, NULL, mmu_opts, NULL},
	{"goroutine", NULL, run_views, VIEW_GOROUTINE, usage_goroutine, NULL, goroutine_opts, NULL},
	{"pprof", NULL, run_pprof, 0, usage_pprof, NULL, pprof_opts, NULL},
	/* gtr help and gtr version: what --help and --version say, whatever follows. */
	{"help", NULL, run_help, 0, usage_main, NULL, NULL, NULL},
	{"version", NULL, run_version, 0, usage_main, NULL, NULL, NULL},
};

const gtr_cli_command *gtr_cli_commands(size_t *n)
{
	*n = sizeof commands / sizeof commands[0];
	return commands;
}

const gtr_opt *gtr_cli_global_opts(void)
{
	return global_opts;
}

const char *gtr_cli_usage(void)
{
	return usage_main;
}

static int cli_main(int argc, char **argv)
{
	/* Before the command: the global options, --help and --version. */
	args a = {.cmd = NULL};
	gtr_opt_init(&a.p, argc, argv, 1, main_opts, global_opts, NULL);
	const char *cmd = NULL;
	while (!cmd) {
		switch (next_opt(&a)) {
		case ARG_HELP:
			return EXIT_OK;
		case ARG_USAGE:
			return EXIT_USAGE;
		case G_VERSION:
			return run_version(&a);
		case GTR_OPT_OPERAND:
			cmd = a.p.val;
			break;
		case GTR_OPT_END:
			fputs(usage_main, stderr);
			return EXIT_USAGE;
		}
	}
	for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
		const gtr_cli_command *c = &commands[k];
		if (strcmp(cmd, c->name) != 0 && !(c->alias && strcmp(cmd, c->alias) == 0))
			continue;
		a.c = c;
		a.cmd = cmd;
		/* The rest of the line: the command's options, and the global ones again. */
		gtr_opt_init(&a.p, argc, argv, a.p.i, c->opts, c->shared, global_opts);
		return c->run(&a);
	}
	say("unknown command %s%s", cmd, "");
	fputs(usage_main, stderr);
	return EXIT_USAGE;
}
