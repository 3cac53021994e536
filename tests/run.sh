#!/usr/bin/env bash
# tests/run.sh TEST_BINARY...
#
# Runs every test of `make test`: the Criterion unit tests given as
# arguments, the CLI tests, and the differential tests against Go's own
# trace readers over corpora/traces and the Go test traces that the
# installed toolchains ship. Ends with one "N passed, N failed" line.
set -uo pipefail
BUILD=${BUILD:-build}
GO_DIR=${GO_DIR:-/opt/gtr-go}
export GTR_ROOT=$PWD GTR_GO_DIR=$GO_DIR
# Leaks inside Criterion's own runner are not ours (tests/lsan.supp).
export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$PWD/tests/lsan.supp
gtr=$BUILD/gtr
pass=0 fail=0
log=${TMPDIR:-/tmp}/gtr-test.$$.log
trap 'rm -f "$log"' EXIT

tally() { # runs a suite, adds its "N passed, N failed" line to the totals
	local name=$1
	shift
	echo "== $name"
	"$@" 2>&1 | tee "$log" | grep -v '^ok '
	local st=${PIPESTATUS[0]}
	local line
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	if [ -n "$line" ]; then
		pass=$((pass + $(echo "$line" | sed -E 's/^(.* )?([0-9]+) passed.*/\2/')))
		fail=$((fail + $(echo "$line" | sed -E 's/^(.* )?([0-9]+) failed.*/\2/')))
	fi
	# A suite that failed without saying how many counts as one failure.
	if [ "$st" -ne 0 ] && ! grep -qE '[1-9][0-9]* failed' <<<"$line"; then
		fail=$((fail + 1))
	fi
}

for t in "$@"; do
	# Criterion closes with "Synthesis: Tested: N | Passing: N | Failing: N | Crashing: N".
	echo "== $(basename "$t")"
	"$t" --jobs 2 >"$log" 2>&1
	st=$?
	grep -v '^\[----\]\|^\[====\] Running' "$log" | tail -n 20
	s=$(grep -E 'Synthesis: Tested' "$log" | tail -1)
	if [ -n "$s" ]; then
		pass=$((pass + $(echo "$s" | sed -E 's/.*Passing: ([0-9]+).*/\1/')))
		fail=$((fail + $(echo "$s" | sed -E 's/.*Failing: ([0-9]+) \| Crashing: ([0-9]+).*/\1 \2/' | awk '{ print $1 + $2 }')))
	fi
	if [ $st -ne 0 ] && ! grep -qE 'Failing: [1-9]|Crashing: [1-9]' <<<"$s"; then
		fail=$((fail + 1))
	fi
done

corpus=()
for f in corpora/traces/*.trace; do [ -e "$f" ] && corpus+=("$f"); done
gotraces=()
for f in "$GO_DIR"/go-1.15/src/internal/trace/testdata/*_good \
	"$GO_DIR"/go-1.27/src/internal/trace/internal/tracev1/testdata/*_good; do
	[ -e "$f" ] && gotraces+=("$f")
done
# GTR_TEST_SHORT=1 (CI's run under the sanitizers): the corpus of three
# Go versions (1.15, 1.21: v1; 1.26: v2), three of Go's test traces, and
# neither Go's test programs nor the Slurm cluster; `make test` runs all.
if [ "${GTR_TEST_SHORT:-0}" = 1 ]; then
	short=()
	for f in "${corpus[@]}"; do
		case $f in *-go1.15.trace | *-go1.21.trace | *-go1.26.trace) short+=("$f") ;; esac
	done
	corpus=("${short[@]}")
	gotraces=("${gotraces[@]:0:3}")
fi
skip() { # skip NAME: in the short run, said as such
	[ "${GTR_TEST_SHORT:-0}" = 1 ] && echo "== $1: skipped in the short run (GTR_TEST_SHORT=1; make test runs it)"
}
small=()
for f in corpora/traces/churn-go1.15.trace corpora/traces/churn-go1.21.trace \
	corpora/traces/churn-go1.22.trace corpora/traces/churn-go1.26.trace; do
	[ -e "$f" ] && small+=("$f")
done

tally layers tests/layers.sh
tally cli tests/cli.sh "$gtr" "${small[@]}"
tally malformed tests/malformed.sh "$gtr"
tally difftest tests/difftest.sh "$gtr" "$GO_DIR" "${corpus[@]}" tests/data/*.trace "${gotraces[@]}"
tally greedytest tests/greedytest.sh "$gtr" "$GO_DIR" "${corpus[@]}" "${gotraces[@]}"
tally scantest tests/scantest.sh "$gtr" "${corpus[@]}" tests/data/*.trace "${gotraces[@]}"
tally statstest tests/statstest.sh "$gtr" "$GO_DIR" "${corpus[@]}" "${gotraces[@]}"
tally statsfast tests/statsfast.sh "$gtr" "${corpus[@]}" tests/data/*.trace "${gotraces[@]}"
# Partial reads said in every machine output: cut traces, and a file that shrinks (the biggest).
tally partialtest tests/partialtest.sh "$gtr" "${small[@]}" $(ls -S "${corpus[@]}" 2>/dev/null | head -1)
tally diffcmdtest tests/diffcmdtest.sh "$gtr" "${corpus[@]}"
tally checktest tests/checktest.sh "$gtr" "${corpus[@]}"
# Every command on the engine, with the read on one thread and run ahead
# on a second: the same bytes (the corpus, and Go's own test traces).
tally enginetest tests/enginetest.sh "$gtr" "${corpus[@]}" tests/data/*.trace "${gotraces[@]}"
tally shardtest tests/shardtest.sh "$gtr" "${corpus[@]}"
# The CI gate on real programs, short form: 3 programs run 2 x 5 times
# unchanged (no false alarm) and changed 5 times (3 regressions caught);
# make gatetest runs the full form.
skip gatetest || tally gatetest env GTR_ROOT="$PWD" tests/gatetest.sh "$gtr" "$GO_DIR"
# A real single-node Slurm cluster; skipped, with the reason, where it cannot run.
skip slurmtest || tally slurmtest tests/slurmtest.sh "$gtr" "${corpus[@]}"
# Tasks, regions, MMU and goroutines against internal/trace: the short form
# (`make viewstest` runs every trace and every MMU variant).
views=()
for f in corpora/traces/annotations-*.trace corpora/traces/tasks-*.trace corpora/traces/gcpressure-*.trace \
	corpora/traces/greedy-go1.21.trace corpora/traces/greedy-go1.26.trace \
	"$GO_DIR"/go-1.15/src/internal/trace/testdata/stress_1_*_good \
	"$GO_DIR"/go-1.15/src/internal/trace/testdata/user_task_span_1_11_good \
	"$GO_DIR"/go-1.27/src/internal/trace/internal/tracev1/testdata/user_task_region_1_*_good; do
	[ -e "$f" ] && views+=("$f")
done
# Go programs, not built with the sanitizers: one copy serves every build.
export GTR_ORACLE_DIR=${GTR_ORACLE_DIR:-$PWD/build/oracle}
tally viewstest tests/viewstest.sh "$gtr" "$GO_DIR" "${views[@]}"
tally viewscli tests/viewscli.sh "$gtr"
# pprof against go tool trace -pprof: the short form (make pproftest runs every corpus trace).
pp=()
for f in corpora/traces/syscalls-go1.*.trace corpora/traces/churn-go1.21.trace \
	corpora/traces/churn-go1.26.trace corpora/traces/gcpressure-go1.23.trace; do
	[ -e "$f" ] && pp+=("$f")
done
tally pproftest tests/pproftest.sh "$gtr" "$GO_DIR" "${pp[@]}"
inputs=()
for f in corpora/traces/churn-go1.21.trace corpora/traces/churn-go1.26.trace; do
	[ -e "$f" ] && inputs+=("$f")
done
tally inputtest tests/inputtest.sh "$gtr" "$GO_DIR" "${inputs[@]}"
# Go's own trace test programs, plainly and in stress mode, built and run
# with Go 1.22 and 1.26 (make gotraces-test: every program, every toolchain).
skip gotraces || tally gotraces tests/gotraces.sh "$gtr" "$GO_DIR" quick
tally golden tests/golden.sh "$gtr"
tally faults tests/faults.sh "$gtr" "${corpus[@]}"
# The report page in headless Chromium: a greedy/fixed pair (also the diff), a v1 trace.
pages=()
for f in corpora/traces/greedy-coarse-go1.26.trace corpora/traces/greedy-fine-go1.26.trace \
	corpora/traces/gcpressure-go1.15.trace corpora/traces/churn-go1.21.trace; do
	[ -e "$f" ] && pages+=("$f")
done
tally htmltest tests/htmltest.sh "$gtr" "$BUILD/htmltest" "${pages[@]}"
# The page as a viewer: 1 ms windows against gtr dump, keys, wheel, selection (v2 and v1 traces);
# tasks, regions and the MMU against gtr tasks, regions and mmu.
views=()
for f in corpora/traces/procs-go1.26.trace corpora/traces/gcpressure-go1.15.trace corpora/traces/tasks-go1.26.trace \
	corpora/traces/gcpressure-go1.26.trace corpora/traces/tasks-go1.15.trace; do
	[ -e "$f" ] && views+=("$f")
done
tally viewertest tests/viewertest.sh "$gtr" "$BUILD/viewertest" "${views[@]}"

echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
