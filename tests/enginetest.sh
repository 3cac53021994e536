#!/usr/bin/env bash
# tests/enginetest.sh GTR TRACE...
#
# The engine (core/analysis/engine.h) reads on one thread, or runs the
# read ahead on a thread of its own and the analyses on one thread (a
# single analysis) or several (diff and report
# have several analyses: GTR_JOBS=2 and 3 spread them). Every analysis
# must not see the difference: for each trace, every command that runs
# on the engine (dump, stats, greedy --ordered, diff, report, tasks,
# regions, mmu, goroutine) must print the same bytes, on stdout and
# stderr, and exit with the same code, with GTR_JOBS=1, 2 and 3. Traces that
# the reader refuses must be refused the same way, after the same output.
# Ends with "N passed, N failed".
set -uo pipefail
gtr=$1
shift
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # run JOBS NAME ARGS...: output in $tmp/NAME.JOBS.{out,err,rc}
	local jobs=$1 name=$2
	shift 2
	GTR_JOBS=$jobs "$@" >"$tmp/$name.$jobs.out" 2>"$tmp/$name.$jobs.err"
	echo $? >"$tmp/$name.$jobs.rc"
}

same() { # same NAME ARGS...
	local name=$1
	shift
	run 1 "$name" "$@"
	local k j
	for j in 2 3; do
		run $j "$name" "$@"
		for k in out err rc; do
			if ! cmp -s "$tmp/$name.1.$k" "$tmp/$name.$j.$k"; then
				echo "FAIL $*: $k differs with GTR_JOBS=1 and $j"
				diff "$tmp/$name.1.$k" "$tmp/$name.$j.$k" | head -5
				fail=$((fail + 1))
				return
			fi
		done
	done
	echo "ok   $* (exit $(cat "$tmp/$name.1.rc"), $(wc -c <"$tmp/$name.1.out") bytes)"
	pass=$((pass + 1))
}

for t in "$@"; do
	same dump "$gtr" dump "$t"
	same stats "$gtr" stats --json "$t"
	same greedy "$gtr" greedy --ordered -n 20 "$t"
	same diff "$gtr" diff --json "$t" "$t"
	same tasks "$gtr" tasks --json "$t"
	same regions "$gtr" regions --json "$t"
	same mmu "$gtr" mmu --json --include stw,background,assist,sweep "$t"
	same goroutine "$gtr" goroutine --json 1 "$t"
	# The page holds greedy, stats and the timeline: compare it whole.
	for j in 1 2 3; do
		GTR_JOBS=$j "$gtr" report -o "$tmp/page.$j.html" "$t" >"$tmp/page.$j.out" 2>&1
		echo $? >>"$tmp/page.$j.out"
	done
	if cmp -s "$tmp/page.1.html" "$tmp/page.2.html" && cmp -s "$tmp/page.1.out" "$tmp/page.2.out" &&
		cmp -s "$tmp/page.1.html" "$tmp/page.3.html" && cmp -s "$tmp/page.1.out" "$tmp/page.3.out"; then
		echo "ok   report $t"
		pass=$((pass + 1))
	else
		echo "FAIL report $t: the pages differ with GTR_JOBS=1, 2 and 3"
		fail=$((fail + 1))
	fi
	rm -f "$tmp"/page.*
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
