#!/usr/bin/env bash
# tests/gotraces.sh GTR GO_DIR [quick|full]
#
# The trace test programs of Go's own reader (internal/trace/testdata/
# testprog in each toolchain's sources, run by its trace_test.go) are
# built with each installed Go 1.22 to 1.27 and run as that test runs
# them: once plainly and once in stress mode (GODEBUG=traceadvanceperiod=0,
# a new generation all the time), their traces written to stdout. On
# every trace:
#  - the engine: every command prints the same bytes with one thread and
#    two (tests/enginetest.sh);
#  - against Go: greedy's top slices (tests/greedytest.sh) and the
#    goroutine statistics (tests/statstest.sh) equal what the same
#    toolchain's `go tool trace -d=parsed` gives;
#  - greedy --fast against the default: its bound (tests/scantest.sh);
#  - stats --fast against the ordered stats, and diff --fast against
#    diff: their bound (tests/statsfast.sh), stress mode included.
# `quick` (make test) runs four programs with two toolchains; `full`
# (make gotraces-test) every program with every toolchain. The traces are
# kept in $GTR_GOTRACES (default build/gotraces) and made again only when
# missing. Ends with "N passed, N failed".
set -uo pipefail
gtr=$1 godir=$2 mode=${3:-quick}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${GTR_GOTRACES:-$root/build/gotraces}
mkdir -p "$out"
pass=0 fail=0
if [ "$mode" = full ]; then
	versions="1.22 1.23 1.24 1.25 1.26 1.27"
	progs=""
else
	versions="1.22 1.26"
	progs="stress.go wait-on-pipe.go gc-stress.go many-start-stop.go"
fi

made=()
for v in $versions; do
	goroot=$godir/go-$v
	[ -x "$goroot/bin/go" ] || { echo "skip Go $v: not installed in $godir"; continue; }
	dir=$goroot/src/internal/trace/testdata/testprog
	[ -d "$dir" ] || dir=$goroot/src/internal/trace/v2/testdata/testprog # Go 1.22
	[ -d "$dir" ] || continue
	list=$progs
	[ -n "$list" ] || list=$(cd "$dir" && ls *.go)
	for p in $list; do
		[ -f "$dir/$p" ] || continue
		grep -q '^import "C"' "$dir/$p" && continue # cgo: not built here
		name=${p%.go}
		bin=$out/$name-go$v
		for stress in 0 1; do
			f=$out/$name-go$v$([ $stress = 1 ] && echo -stress).trace
			if [ ! -s "$f" ]; then
				if [ ! -x "$bin" ]; then
					# Built where the test builds it: inside GOROOT, offline.
					(cd "$dir/../.." && env -u GOROOT GOENV=off GOTOOLCHAIN=local GOFLAGS=-mod=mod \
						GOPROXY=off CGO_ENABLED=0 GOCACHE="$out/gocache-$v" \
						"$goroot/bin/go" build -o "$bin" "./testdata/testprog/$p") >"$out/build.log" 2>&1 || {
						echo "skip $name with Go $v: it does not build ($(head -c 200 "$out/build.log"))"
						break
					}
				fi
				godebug=tracecheckstackownership=1
				[ $stress = 1 ] && godebug=$godebug,traceadvanceperiod=0
				if ! GODEBUG=$godebug GOMAXPROCS=4 timeout 120 "$bin" >"$f.tmp" 2>"$out/run.log"; then
					# Some programs end with a non-zero status on purpose
					# only when broken: keep what they wrote if it parses.
					:
				fi
				mv -f "$f.tmp" "$f"
			fi
			[ -s "$f" ] && made+=("$f")
		done
	done
done
echo "go test programs: ${#made[@]} traces in $out"
[ ${#made[@]} -gt 0 ] || { echo "0 passed, 0 failed"; exit 0; }

tally() { # tally NAME CMD...: adds a suite's "N passed, N failed"
	local log=$out/$1.log
	shift
	"$@" >"$log" 2>&1
	grep '^FAIL' "$log" | head -20
	local line
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	echo "$line"
	pass=$((pass + $(sed -E 's/.*[^0-9]?([0-9]+) passed.*/\1/' <<<"$line")))
	fail=$((fail + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
}
tally engine "$root/tests/enginetest.sh" "$gtr" "${made[@]}"
tally greedy "$root/tests/greedytest.sh" "$gtr" "$godir" "${made[@]}"
tally stats "$root/tests/statstest.sh" "$gtr" "$godir" "${made[@]}"
# In stress mode a generation ends every few us, and --fast puts the events
# a generation's start pushes later a little apart from where Go's order
# puts them (README, gtr greedy): its bound here is 10 us, not 1 us.
export GTR_FAST_BOUND_NS=10000
tally fast "$root/tests/scantest.sh" "$gtr" "${made[@]}"
unset GTR_FAST_BOUND_NS
tally statsfast "$root/tests/statsfast.sh" "$gtr" "${made[@]}"
grep '^scan: ' "$out/fast.log"
grep '^statsfast: .* parallel path' "$out/statsfast.log"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
