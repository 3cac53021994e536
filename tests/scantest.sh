#!/usr/bin/env bash
# tests/scantest.sh GTR TRACE...
#
# The parallel greedy path against the ordered one: for every trace,
# `gtr greedy --json -n 20` with -j1, -j2 and -j3 must print exactly
# what `gtr greedy --ordered --json -n 20` prints (the parallel path
# runs the ordered one itself wherever it cannot vouch for its times;
# `-v` says which ran, and the count of traces the parallel path
# answered on its own is printed at the end). Also the text report,
# once, at -j2.
set -uo pipefail
gtr=$1
shift
out=${TMPDIR:-/tmp}/gtr-scantest.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
pass=0 fail=0 parallel=0

for f in "$@"; do
	name=$(basename "$f")
	if ! "$gtr" greedy --ordered --json -n 20 "$f" >"$out/ordered" 2>"$out/ordered.err"; then
		# A trace the ordered path refuses must be refused alike.
		for j in 1 2 3; do
			if "$gtr" greedy -j"$j" --json -n 20 "$f" >/dev/null 2>"$out/err"; then
				fail=$((fail + 1))
				echo "FAIL scan $name -j$j: succeeds where --ordered fails"
				continue
			fi
			if cmp -s "$out/err" "$out/ordered.err"; then
				pass=$((pass + 1))
				echo "ok   scan $name -j$j (refused alike)"
			else
				fail=$((fail + 1))
				echo "FAIL scan $name -j$j: a different error"
				diff "$out/ordered.err" "$out/err" | head -4
			fi
		done
		continue
	fi
	for j in 1 2 3; do
		"$gtr" -v greedy -j"$j" --json -n 20 "$f" >"$out/par" 2>"$out/err"
		path=$(sed -n 's/^gtr: greedy: //p' "$out/err")
		if cmp -s "$out/ordered" "$out/par"; then
			pass=$((pass + 1))
			echo "ok   scan $name -j$j ($path)"
			case $path in parallel*) [ "$j" = 2 ] && parallel=$((parallel + 1)) ;; esac
		else
			fail=$((fail + 1))
			echo "FAIL scan $name -j$j ($path): differs from --ordered"
			diff <(jq -S . "$out/ordered" 2>/dev/null) <(jq -S . "$out/par" 2>/dev/null) | head -10
		fi
	done
	"$gtr" greedy --ordered -n 20 "$f" >"$out/ordered.txt" 2>/dev/null
	"$gtr" greedy -j2 -n 20 "$f" >"$out/par.txt" 2>/dev/null
	if cmp -s "$out/ordered.txt" "$out/par.txt"; then
		pass=$((pass + 1))
		echo "ok   scan $name text"
	else
		fail=$((fail + 1))
		echo "FAIL scan $name text: differs from --ordered"
		diff "$out/ordered.txt" "$out/par.txt" | head -6
	fi
done
echo "scan: the parallel path answered $parallel of $# traces itself"
echo "scantest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
