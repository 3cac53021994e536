#!/usr/bin/env bash
# tests/diffcmdtest.sh GTR TRACE...
#
# `gtr diff` against gtr's own single-trace analyses, for pairs of the
# given traces (each with the next, each with itself, and the greedy
# coarse/fine pair both ways):
#  - every figure of each side equals what `gtr greedy --json` (Tmax_stw,
#    pauses, longest slice, slice count, top slices) and `gtr stats
#    --json` (time totals, slice percentiles, per-function execution time
#    and longest slice) say of that trace alone;
#  - each delta is B - A, each percentage (B - A) / A;
#  - a trace against itself: every delta 0, verdict "same";
#  - swapping A and B swaps "better" and "worse";
#  - the coarse -> fine example is "better" on Tmax_stw, STW p99 and max
#    slice, fine -> coarse "worse", and --fail-on-regression exits 3.
set -uo pipefail
gtr=$1
shift
tmp=${TMPDIR:-/tmp}/gtr-diffcmdtest.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

result() { # name status detail
	if [ "$2" = ok ]; then
		pass=$((pass + 1))
		echo "ok   $1"
	else
		fail=$((fail + 1))
		echo "FAIL $1: $3"
	fi
}

# One side of a diff against greedy and stats of that trace.
side_agrees() { # DIFF_JSON SIDE TRACE
	local d=$1 side=$2 f=$3
	# diff reads in Go's order, as greedy --ordered does (the parallel path
	# may differ by a few ns: see core/analysis/scan.h).
	"$gtr" greedy --ordered --json -n 50 "$f" >"$tmp/g.json" 2>/dev/null || return 1
	"$gtr" stats --json "$f" >"$tmp/s.json" 2>/dev/null || return 1
	jq -n -e --arg s "$side" --slurpfile d "$d" --slurpfile g "$tmp/g.json" --slurpfile st "$tmp/s.json" '
		($d[0]) as $d | ($g[0]) as $g | ($st[0]) as $st
		| ($d.metrics | map({(.metric): .[$s]}) | add) as $m
		| [$m.tmax_stw == $g.tmax_stw.ns,
		   $m.stw_count == $g.stw.count, $m.stw_p50 == $g.stw.p50_ns, $m.stw_p99 == $g.stw.p99_ns,
		   $m.stw_max == $g.stw.max_ns, $m.max_slice == ($g.top[0].duration_ns // 0),
		   $m.slices == $g.slices_total, $m.slices == $st.total.slices,
		   $m.slice_p50 == $st.total.slice_p50_ns, $m.slice_p99 == $st.total.slice_p99_ns,
		   $m.exec == $st.total.exec_ns, $m.sched_wait == $st.total.sched_wait_ns,
		   $m.block == $st.total.block_total_ns, $m.syscall == $st.total.syscall_ns,
		   $m.gc_assist == $st.total.gc_assist_ns,
		   ($d.top_slices[$s] | map([.duration_ns, .g])) == ($g.top | map([.duration_ns, .g])),
		   ($d.a.file | length) > 0,
		   # Per function: the rows shown, against stats by function.
		   all($d.functions[] | select(.[$s] != null); . as $f
		       | ($st.functions[] | select(.function == $f.function)) as $sf
		       | $f[$s].exec_ns == $sf.exec_ns and $f[$s].max_slice_ns == $sf.slice_max_ns
		         and $f[$s].goroutines == $sf.goroutines)
		  ] | all' >/dev/null
}

deltas_agree() { # DIFF_JSON
	jq -e '([.metrics[] | (.delta == (.b - .a)) and
		(if .a == 0 then (.b != 0 or .pct == 0) else ((.pct - ((.b - .a) / .a * 100)) | fabs) < 0.001 end)] | all)
		and ([.functions[] | select(.a != null and .b != null)
		      | .exec_delta_ns == (.b.exec_ns - .a.exec_ns) and .max_slice_delta_ns == (.b.max_slice_ns - .a.max_slice_ns)] | all)' \
		"$1" >/dev/null
}

check_pair() { # A B
	local a=$1 b=$2 name
	name="$(basename "$a") -> $(basename "$b")"
	if ! "$gtr" diff --json -n 50 "$a" "$b" >"$tmp/d.json" 2>"$tmp/err"; then
		result "diff $name" fail "$(head -1 "$tmp/err")"
		return
	fi
	if side_agrees "$tmp/d.json" a "$a" && side_agrees "$tmp/d.json" b "$b"; then
		result "diff $name: both sides equal greedy and stats" ok
	else
		result "diff $name: both sides equal greedy and stats" fail "$(jq -c '[.metrics[] | {(.metric): [.a, .b]}] | add' "$tmp/d.json" | head -c 300)"
	fi
	deltas_agree "$tmp/d.json" && result "diff $name: deltas and percentages" ok ||
		result "diff $name: deltas and percentages" fail "$(jq -c '.metrics[0]' "$tmp/d.json")"
	# Swapped: the verdicts swap.
	"$gtr" diff --json "$b" "$a" >"$tmp/r.json" 2>/dev/null
	local v1 v2
	v1=$(jq -r .verdict.result "$tmp/d.json")
	v2=$(jq -r .verdict.result "$tmp/r.json")
	local want=$v1
	# A mixed diff (worse somewhere, better elsewhere) is worse both ways.
	if [ "$v1" = better ]; then want=worse; elif [ "$v1" = worse ]; then
		if jq -e '[.changes[] | select(.change == "better")] | length > 0' "$tmp/d.json" >/dev/null; then want=worse; else want=better; fi
	fi
	[ "$v2" = "$want" ] && result "diff $name: swapped, $v1 becomes $v2" ok ||
		result "diff $name: swapped" fail "A->B $v1, B->A $v2, want $want"
}

traces=("$@")
for ((i = 0; i < ${#traces[@]}; i++)); do
	a=${traces[$i]}
	# Against itself: nothing changes.
	if "$gtr" diff --json "$a" "$a" >"$tmp/d.json" 2>"$tmp/err" &&
		jq -e '.verdict.result == "same" and ([.metrics[].delta] | all(. == 0)) and ([.changes[]] | length == 0)' "$tmp/d.json" >/dev/null; then
		result "diff $(basename "$a") against itself: same" ok
	else
		result "diff $(basename "$a") against itself" fail "$(jq -c .verdict "$tmp/d.json" 2>/dev/null; head -1 "$tmp/err")"
	fi
	if [ $((i + 1)) -lt ${#traces[@]} ]; then
		check_pair "$a" "${traces[$((i + 1))]}"
	fi
done

coarse= fine=
for f in "${traces[@]}"; do
	case $f in
	*greedy-coarse-go1.26.trace) coarse=$f ;;
	*greedy-fine-go1.26.trace) fine=$f ;;
	esac
done
if [ -n "$coarse" ] && [ -n "$fine" ]; then
	check_pair "$coarse" "$fine"
	# One run a side: not statistical; nothing gated unless asked.
	"$gtr" diff --fail-on-regression "$fine" "$coarse" >"$tmp/out" 2>&1
	st=$?
	if [ $st -eq 0 ] && tail -1 "$tmp/out" | grep -q '^verdict: (1 vs 1 run, not statistical: need >= 5 runs a side for the test) no metric is gated'; then
		result "diff of single runs: not statistical, nothing gated by default" ok
	else
		result "diff of single runs by default" fail "exit $st, $(tail -1 "$tmp/out")"
	fi
	# The single-run tails, gated when asked for.
	th=(--threshold max_slice=20,tmax_stw=20,stw_p99=20)
	"$gtr" diff --json "${th[@]}" "$coarse" "$fine" >"$tmp/d.json"
	jq -e '.verdict.result == "better" and ([.changes[] | select(.change == "better") | .metric] | sort) == ["max_slice", "stw_p99", "tmax_stw"]' "$tmp/d.json" >/dev/null &&
		result "diff coarse -> fine: better on Tmax_stw, STW p99, max slice" ok ||
		result "diff coarse -> fine" fail "$(jq -c .verdict "$tmp/d.json")"
	"$gtr" diff --fail-on-regression "${th[@]}" "$fine" "$coarse" >"$tmp/out" 2>&1
	st=$?
	if [ $st -eq 3 ] && tail -1 "$tmp/out" | grep -q '^verdict: (1 vs 1 run, not statistical: need >= [0-9]* runs a side for the test) B is worse: .*max slice +254\.4% (12\.081 ms -> 42\.816 ms, over +20%)'; then
		result "diff fine -> coarse --fail-on-regression: exit 3, verdict worse" ok
	else
		result "diff fine -> coarse --fail-on-regression" fail "exit $st, $(tail -1 "$tmp/out")"
	fi
	grep -Eq '^  max slice +12\.081ms +42\.816ms +\+30\.735ms +\+254\.4% +worse \(over \+20%\)$' "$tmp/out" &&
		result "diff table: a regression's row says worse, over its threshold" ok || result "diff table row" fail "$(grep '^  max slice' "$tmp/out")"
	"$gtr" diff "${th[@]}" "$coarse" "$fine" >"$tmp/out" 2>&1
	grep -Eq '^  max slice +42\.816ms +12\.081ms +-30\.735ms +-71\.8% +better \(under -16\.7%\)$' "$tmp/out" &&
		result "diff table: an improvement's row says better, under the mirrored threshold" ok || result "diff table row" fail "$(grep '^  max slice' "$tmp/out")"
	"$gtr" diff --fail-on-regression "${th[@]}" "$coarse" "$fine" >/dev/null 2>&1 &&
		result "diff coarse -> fine --fail-on-regression: exit 0" ok || result "diff coarse -> fine --fail-on-regression" fail "exit $?"
	"$gtr" diff --threshold max_slice=300,tmax_stw=300,stw_p99=300 "$fine" "$coarse" | tail -1 | grep -q '^verdict: (1 vs 1 run, not statistical: .*) no change past the thresholds: ' &&
		result "diff with raised thresholds: no change past them" ok || result "diff with raised thresholds" fail "$("$gtr" diff --threshold max_slice=300,tmax_stw=300,stw_p99=300 "$fine" "$coarse" | tail -1)"
	# Sets of runs: a directory a side.
	mkdir -p "$tmp/sa" "$tmp/sb"
	for i in 1 2 3; do cp "$fine" "$tmp/sa/$i.trace"; cp "$coarse" "$tmp/sb/$i.trace"; done
	"$gtr" diff "$tmp/sa" "$tmp/sb" >"$tmp/out" 2>&1
	grep -q '^          medians of 3 and 3 runs' "$tmp/out" && tail -1 "$tmp/out" | grep -q '^verdict: (3 vs 3 runs, not statistical: need >= 5 runs a side for the test)' &&
		result "diff of two directories of 3 runs: medians, not enough runs for the test" ok || result "diff of directories" fail "$(tail -1 "$tmp/out")"
	for i in 4 5; do cp "$fine" "$tmp/sa/$i.trace"; cp "$coarse" "$tmp/sb/$i.trace"; done
	"$gtr" diff --fail-on-regression "$tmp/sa" "$tmp/sb" >"$tmp/out" 2>&1
	st=$?
	[ $st -eq 3 ] && tail -1 "$tmp/out" | grep -q '^verdict: (5 vs 5 runs, Mann-Whitney U test, alpha 0.05) B is worse: .*p=0\.008, over +20%' &&
		result "diff of 5 runs a side: the test calls it, exit 3" ok || result "diff of 5 runs a side" fail "exit $st, $(tail -1 "$tmp/out")"
	"$gtr" diff --json "$tmp/sa" "$tmp/sb" | jq -e '.comparison.mode == "statistical" and .comparison.runs.a == 5 and .comparison.runs.b == 5 and .verdict.result == "worse"' >/dev/null &&
		result "diff --json of sets: the comparison stated" ok || result "diff --json of sets" fail "$("$gtr" diff --json "$tmp/sa" "$tmp/sb" | jq -c .comparison)"
fi

for args in "diff" "diff $coarse" "diff --threshold x=1 $coarse $fine" "diff -n 0 $coarse $fine" "diff --frob $coarse $fine" "diff a b c"; do
	# shellcheck disable=SC2086
	"$gtr" $args >/dev/null 2>&1
	st=$?
	[ $st -eq 2 ] && result "usage: gtr $args" ok || result "usage: gtr $args" fail "exit $st"
done
"$gtr" diff "$tmp/nope.trace" "$coarse" >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && result "diff of a missing file: exit 1, one line" ok || result "diff of a missing file" fail "exit $st: $(cat "$tmp/err")"

echo "diffcmdtest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
