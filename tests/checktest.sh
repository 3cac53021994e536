#!/usr/bin/env bash
# tests/checktest.sh GTR TRACE...
#
# `gtr check` as CI meets it, on a copy of the given corpus traces:
#  - a baseline round trip: --update-baseline writes one, the unchanged
#    corpus then passes (exit 0, every trace "unchanged"), and the JSON
#    report, itself a valid baseline, agrees with gtr greedy on each trace;
#  - one run a case: the comparison is said not to be statistical, and by
#    default no metric is gated (the unchanged corpus passes whatever);
#  - a seeded regression, gated with thresholds given: greedy-fine-go1.26
#    replaced by the coarse one under the same name fails with exit 3,
#    naming that trace and the max_slice metric, in the text, the JSON and
#    the JUnit XML reports (valid against tests/junit.xsd), while the other
#    traces still pass; a raised threshold lets it pass;
#  - a baseline case with no trace given is MISSING: exit 1, its own line
#    and status in text, JSON and JUnit; --no-fail-on-missing lists it;
#  - baselines validated on reading: a wrong type, a missing field, an
#    unknown schema, a bad version, a byte order mark: exit 1 and the JSON
#    path named; --lenient with nothing readable is an error;
#  - an unreadable file: an error of that trace (exit 1), the others still
#    checked; together with the regression, exit 3;
#  - -j 1 and -j 8 give the same reports; progress appears on a terminal
#    only; usage mistakes exit 2.
set -uo pipefail
gtr=$1
shift
root=${GTR_ROOT:-$PWD}
# The thresholds gated before cases had several runs: single-run tails.
th=(--threshold max_slice=20,tmax_stw=20,stw_p99=20)
tmp=${TMPDIR:-/tmp}/gtr-checktest.$$
mkdir -p "$tmp/corpus"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# expect NAME STATUS CMD...: runs CMD, stdout in $tmp/out, stderr in $tmp/err.
expect() {
	local name=$1 want=$2
	shift 2
	timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
	local st=$?
	if [ "$st" -eq "$want" ]; then ok "$name"; else bad "$name: exit status $st, want $want ($(head -c 300 "$tmp/err"))"; fi
}
has() { # NAME FILE PATTERN: FILE has a line matching PATTERN
	if grep -Eq -- "$3" "$2"; then ok "$1"; else bad "$1: no line matches /$3/ in $(basename "$2")"; fi
}

for f in "$@"; do cp "$f" "$tmp/corpus/"; done
n=$(ls "$tmp/corpus" | wc -l)
base=$tmp/base.json
coarse=$tmp/corpus/greedy-coarse-go1.26.trace fine=$tmp/corpus/greedy-fine-go1.26.trace
fine_orig=$tmp/fine-orig.trace
[ -e "$fine" ] && cp "$fine" "$fine_orig"
if [ ! -e "$coarse" ] || [ ! -e "$fine" ]; then
	echo "checktest: the greedy coarse/fine pair is needed"
	echo "checktest: 0 passed, 1 failed"
	exit 1
fi

# Usage mistakes.
expect "no --baseline" 2 "$gtr" check "$tmp/corpus"
expect "no traces" 2 "$gtr" check --baseline "$base"
expect "bad threshold" 2 "$gtr" check --baseline "$base" --threshold max_slice=lots "$tmp/corpus"
expect "unknown metric" 2 "$gtr" check --baseline "$base" --threshold frobs=3 "$tmp/corpus"
expect "bad -j" 2 "$gtr" check --baseline "$base" -j 0 "$tmp/corpus"
expect "empty directory" 2 "$gtr" check --baseline "$base" "$tmp/corpus" --pattern '*.none'
expect "stdin" 2 "$gtr" check --baseline "$base" -
expect "check --help" 0 "$gtr" check --help
expect "missing baseline" 1 "$gtr" check --baseline "$base" "$tmp/corpus"
has "missing baseline says how to make one" "$tmp/err" 'create it with --update-baseline'

# The baseline round trip.
expect "create the baseline" 0 "$gtr" check --baseline "$base" --update-baseline "$tmp/corpus"
has "every trace is new" "$tmp/out" "^$n cases: 0 ok, 0 regressed, 0 errors, $n new, 0 missing"
jq -e ".schema == \"gtr.baseline.v2\" and (.cases | length) == $n and all(.cases[]; (.runs | length) == 1)" "$base" >/dev/null &&
	ok "baseline holds $n cases of one run" || bad "baseline: $(head -c 200 "$base")"
expect "unchanged corpus passes" 0 "$gtr" check --baseline "$base" "${th[@]}" -j 8 "$tmp/corpus" --report-json "$tmp/r8.json" --junit "$tmp/r8.xml"
has "every trace ok and unchanged" "$tmp/out" "^$n cases: $n ok, 0 regressed, 0 errors, 0 new, 0 missing; $n unchanged, 0 changed; $n compared without statistics"
[ "$(grep -c '^ok  .* unchanged, 1 vs 1 run, not statistical (need >= [0-9]* runs a side): ' "$tmp/out")" -eq "$n" ] && ok "one ok line per trace, not statistical" || bad "ok lines: $(grep -c '^ok ' "$tmp/out") of $n"
expect "unchanged corpus, one thread" 0 "$gtr" check --baseline "$base" "${th[@]}" -j 1 "$tmp/corpus" --report-json "$tmp/r1.json" --junit "$tmp/r1.xml"
# Reports differ only in timings between thread counts.
strip() { sed -E 's/"(seconds|jobs)":[0-9.]+/"\1":0/g; s/time="[0-9.]+"/time=""/g' "$1"; }
cmp -s <(strip "$tmp/r1.json") <(strip "$tmp/r8.json") && ok "-j 1 and -j 8 give the same JSON report" || bad "-j 1 and -j 8 JSON reports differ"
cmp -s <(strip "$tmp/r1.xml") <(strip "$tmp/r8.xml") && ok "-j 1 and -j 8 give the same JUnit report" || bad "-j 1 and -j 8 JUnit reports differ"
jq -e '.result == "ok" and .exit_status == 0 and .summary.ok == .summary.cases and .summary.not_statistical == .summary.cases' "$tmp/r8.json" >/dev/null &&
	ok "JSON report: ok" || bad "JSON report summary: $(jq -c .summary "$tmp/r8.json")"
junit_valid() { # NAME FILE
	if xmllint --noout --schema "$root/tests/junit.xsd" "$2" 2>"$tmp/xerr"; then ok "$1"; else bad "$1: $(head -3 "$tmp/xerr")"; fi
}
junit_valid "JUnit report validates against tests/junit.xsd" "$tmp/r8.xml"
has "JUnit: no failures" "$tmp/r8.xml" "<testsuite name=\"gtr check\" tests=\"$n\" failures=\"0\" errors=\"0\""

# The JSON report agrees with gtr greedy, trace by trace (differential).
agree=1
for f in "$tmp"/corpus/*.trace; do
	nm=$(basename "$f")
	# check reads in Go's order, as greedy --ordered does.
	want=$("$gtr" greedy --ordered --json -n 1 "$f" | jq -c '[.tmax_stw.ns, .stw.count, .stw.p50_ns, .stw.p99_ns, .stw.max_ns, (.top[0].duration_ns // 0), .slices_total]')
	got=$(jq -c --arg n "$nm" '.cases[] | select(.name == $n) | .runs[0].metrics | [.tmax_stw_ns, .stw_count, .stw_p50_ns, .stw_p99_ns, .stw_max_ns, .max_slice_ns, .slices]' "$tmp/r8.json")
	if [ "$want" != "$got" ]; then bad "check metrics of $nm: greedy $want, check $got"; agree=0; fi
	fp=$(jq -r --arg n "$nm" '.cases[] | select(.name == $n) | .runs[0].fingerprint' "$tmp/r8.json")
	# The fingerprint is XXH3 64-bit of the file; xxhsum says so too, when installed.
	if command -v xxhsum >/dev/null && xxhsum -H3 "$f" >/dev/null 2>&1; then
		# From stdin, so that no file name is printed; 0.8.1 says "XXH3 (stdin) = HEX",
		# later releases "HEX  stdin".
		x=$(xxhsum -H3 <"$f" | grep -oE '\b[0-9a-f]{16}\b' | head -1)
		[ "$x" = "$fp" ] || { bad "fingerprint of $nm: xxhsum $x, gtr $fp"; agree=0; }
	fi
done
[ $agree -eq 1 ] && ok "check's metrics equal gtr greedy's on every trace"
# The report reads back as a baseline.
expect "a JSON report serves as a baseline" 0 "$gtr" check --baseline "$tmp/r8.json" "$tmp/corpus"

# The seeded regression, one run a side.
cp "$coarse" "$fine"
expect "one run a side, default thresholds: not gated" 0 "$gtr" check --baseline "$base" "$tmp/corpus"
has "and said so" "$tmp/out" '^ok +greedy-fine-go1\.26\.trace +go 1\.26 +changed, 1 vs 1 run, not statistical \(need >= 5 runs a side\): no metric gated'
expect "seeded regression fails with 3" 3 "$gtr" check --baseline "$base" "${th[@]}" "$tmp/corpus" --report-json "$tmp/rr.json" --junit "$tmp/rr.xml"
has "names the trace and max slice" "$tmp/out" '^REGRESSED +greedy-fine-go1\.26\.trace +go 1\.26 +changed, 1 vs 1 run, not statistical .*max slice \+[0-9.]+% \(12\.081 ms -> 42\.816 ms, over \+20%\)'
has "summary: one regressed" "$tmp/out" "^$n cases: $((n - 1)) ok, 1 regressed, 0 errors, 0 new, 0 missing; $((n - 1)) unchanged, 1 changed"
jq -e '.result == "regressed" and .exit_status == 3 and ([.cases[] | select(.status == "regressed") | .name] == ["greedy-fine-go1.26.trace"])
	and ([.cases[] | select(.name == "greedy-fine-go1.26.trace") | .changes[] | select(.change == "worse") | .metric] | index("max_slice") != null)
	and ([.cases[] | select(.name == "greedy-fine-go1.26.trace") | .comparison.mode] == ["not_statistical"])
	and ([.cases[] | select(.name == "greedy-fine-go1.26.trace") | .changed] == [true])' "$tmp/rr.json" >/dev/null &&
	ok "JSON report: the regression, its trace and metric" || bad "JSON report: $(jq -c '[.result, .exit_status, .summary]' "$tmp/rr.json")"
has "JUnit: one failure" "$tmp/rr.xml" 'failures="1" errors="0"'
has "JUnit: the failing test case" "$tmp/rr.xml" '<failure type="regression" message="[^"]*max slice \+[0-9.]+%[^"]*">'
has "JUnit: the regression in full" "$tmp/rr.xml" '^max slice \+[0-9.]+% \(12\.081 ms -&gt; 42\.816 ms, over \+20%\)'
junit_valid "JUnit with a failure validates" "$tmp/rr.xml"
expect "quiet lists only the regression" 3 "$gtr" check -q --baseline "$base" "${th[@]}" "$tmp/corpus"
[ "$(grep -c '^\(ok\|REGRESSED\|ERROR\|new\|MISSING\) ' "$tmp/out")" -eq 1 ] && ok "-q: one line" || bad "-q printed $(grep -c '^\(ok\|REGRESSED\) ' "$tmp/out") lines"
expect "a raised threshold lets it pass" 0 "$gtr" check --baseline "$base" --threshold max_slice=300,tmax_stw=300,stw_p99=400 "$tmp/corpus"
expect "an added threshold catches more" 3 "$gtr" check --baseline "$base" --threshold func_max_slice=50 "$tmp/corpus"
has "per-function regression named" "$tmp/out" 'max slice of runtime\.gcBgMarkWorker \+'
expect "--min-delta above the growth lets it pass" 0 "$gtr" check --baseline "$base" "${th[@]}" --min-delta 100ms "$tmp/corpus"
expect "file arguments are matched by base name; 3 wins over missing" 3 "$gtr" check --baseline "$base" "${th[@]}" "$fine" "$tmp/corpus/churn-go1.26.trace"
has "two files, one regressed, the rest missing" "$tmp/out" "^$n cases: 1 ok, 1 regressed, 0 errors, 0 new, $((n - 2)) missing; 1 unchanged, 1 changed"

# Missing cases: a job that stopped writing its trace does not pass.
expect "a missing case fails: exit 1" 1 "$gtr" check --baseline "$base" "$tmp/corpus/churn-go1.26.trace" --report-json "$tmp/rm.json" --junit "$tmp/rm.xml"
has "its own line" "$tmp/out" '^MISSING +churn-go1\.21\.trace +- +in the baseline \(1 run\), but no trace of it was given'
jq -e --argjson m $((n - 1)) '.result == "missing" and .exit_status == 1 and .summary.missing == $m and ([.cases[] | select(.status == "missing")] | length) == $m' "$tmp/rm.json" >/dev/null &&
	ok "JSON report: missing cases" || bad "JSON report of missing cases: $(jq -c '[.result, .exit_status, .summary]' "$tmp/rm.json")"
has "JUnit: missing cases fail" "$tmp/rm.xml" "failures=\"$((n - 1))\" errors=\"0\""
has "JUnit: the missing case" "$tmp/rm.xml" '<failure type="missing" message="in the baseline, but no trace of it was given"/>'
junit_valid "JUnit with missing cases validates" "$tmp/rm.xml"
expect "--no-fail-on-missing: exit 0" 0 "$gtr" check --no-fail-on-missing --baseline "$base" "$tmp/corpus/churn-go1.26.trace"
has "missing, listed" "$tmp/out" '^missing +churn-go1\.21\.trace '
expect "--fail-on-missing said again: exit 1" 1 "$gtr" check --fail-on-missing --baseline "$base" "$tmp/corpus/churn-go1.26.trace"

# The baseline is validated on reading: what is wrong, and where.
one=$tmp/corpus/churn-go1.26.trace
"$gtr" check --baseline "$tmp/b1.json" --update-baseline "$one" >/dev/null 2>&1
bval() { # NAME SED-EXPR PATTERN: the baseline edited so is refused with PATTERN on stderr
	sed -E "$2" "$tmp/b1.json" >"$tmp/bad.json"
	expect "baseline: $1: exit 1" 1 "$gtr" check --baseline "$tmp/bad.json" "$one"
	has "baseline: $1: said" "$tmp/err" "$3"
}
bval "a string for a number" 's/"max_slice_ns":[0-9]+/"max_slice_ns":"1000"/' '^gtr: .*bad\.json: at byte [0-9]+: \$\.cases\[0\]\.runs\[0\]\.metrics\.max_slice_ns: want a non-negative integer, got a string$'
bval "a fraction" 's/"max_slice_ns":[0-9]+/"max_slice_ns":1000.5/' '\$\.cases\[0\]\.runs\[0\]\.metrics\.max_slice_ns: want a non-negative integer'
bval "null" 's/"exec_ns":[0-9]+/"exec_ns":null/' '\$\.cases\[0\]\.runs\[0\]\.metrics\.exec_ns: want a non-negative integer, got null'
bval "a metric removed" 's/"max_slice_ns":[0-9]+,//' '\$\.cases\[0\]\.runs\[0\]\.metrics\.max_slice_ns: missing'
bval "a name that is a number" 's/"name":"churn-go1.26.trace"/"name":42/' '\$\.cases\[0\]\.name: want a string, got an integer'
bval "an unknown schema" 's/gtr\.baseline\.v2/gtr.baseline.v9/' '\$\.schema: unknown schema "gtr\.baseline\.v9"'
bval "a bad trace version" 's/"trace":"1\.26"/"trace":"2.6"/' '\$\.cases\[0\]\.runs\[0\]\.go\.trace: want a trace version'
jq '.cases[0].runs = {"x": 1}' "$tmp/b1.json" >"$tmp/bad.json"
expect "baseline: runs that are no array: exit 1" 1 "$gtr" check --baseline "$tmp/bad.json" "$one"
has "baseline: runs that are no array: said" "$tmp/err" '\$\.cases\[0\]\.runs: want an array, got an object'
printf '\357\273\277' | cat - "$tmp/b1.json" >"$tmp/bad.json"
expect "baseline: a byte order mark: exit 1" 1 "$gtr" check --baseline "$tmp/bad.json" "$one"
has "baseline: a byte order mark: said" "$tmp/err" 'at byte 0: the baseline starts with a UTF-8 byte order mark'

# --lenient with nothing readable: an error, never ok.
mkdir -p "$tmp/len"
head -c 16 "$tmp/corpus/churn-go1.15.trace" >"$tmp/len/churn-go1.15.trace"
head -c 4000 /dev/zero >>"$tmp/len/churn-go1.15.trace"
expect "--lenient, nothing readable: exit 1" 1 "$gtr" check --lenient --no-fail-on-missing --baseline "$base" "${th[@]}" "$tmp/len"
has "--lenient, nothing readable: an error" "$tmp/out" '^ERROR +churn-go1\.15\.trace +- +at byte 16: no event could be read'
expect "diff --lenient, nothing readable: exit 1" 1 "$gtr" diff --lenient "$tmp/corpus/churn-go1.15.trace" "$tmp/len/churn-go1.15.trace"
has "diff --lenient, nothing readable: said" "$tmp/err" 'no event could be read: nothing to compare'

# An unreadable trace: an error of that trace, the others checked.
cp "$base" "$tmp/base-before.json"
cp "$tmp/corpus/churn-go1.26.trace" "$tmp/good.trace"
head -c 3000 "$tmp/good.trace" >"$tmp/corpus/churn-go1.26.trace"
printf 'not a trace at all\n' >"$tmp/corpus/zz-text.trace"
expect "regression and errors: 3 wins" 3 "$gtr" check --baseline "$base" "${th[@]}" "$tmp/corpus" --report-json "$tmp/re.json" --junit "$tmp/re.xml"
has "the cut trace is an error" "$tmp/out" '^ERROR +churn-go1\.26\.trace +- +at byte [0-9]+: '
has "the text file is an error" "$tmp/out" '^ERROR +zz-text\.trace +- +at byte [0-9]+: not a Go execution trace'
has "the others are still checked" "$tmp/out" "^$((n + 1)) cases: $((n - 2)) ok, 1 regressed, 2 errors, 0 new, 0 missing"
has "JUnit: two errors" "$tmp/re.xml" 'failures="1" errors="2"'
has "JUnit: the error case" "$tmp/re.xml" '<error type="unreadable" message="at byte [0-9]+: not a Go execution trace'
jq -e '[.cases[] | select(.status == "error") | .name] == ["churn-go1.26.trace", "zz-text.trace"]' "$tmp/re.json" >/dev/null &&
	ok "JSON report: the errors" || bad "JSON report errors: $(jq -c '[.cases[] | select(.status == "error")]' "$tmp/re.json" | head -c 300)"
junit_valid "JUnit with errors validates" "$tmp/re.xml"
cp "$fine_orig" "$fine"
expect "errors alone: exit 1" 1 "$gtr" check --baseline "$base" "${th[@]}" "$tmp/corpus"
has "only the errors" "$tmp/out" "^$((n + 1)) cases: $((n - 1)) ok, 0 regressed, 2 errors, 0 new, 0 missing"
expect "a missing file is an error of that trace" 1 "$gtr" check --no-fail-on-missing --baseline "$base" "$tmp/good.trace" "$tmp/nope.trace"
has "missing file" "$tmp/out" '^ERROR +nope\.trace +- +cannot read it: No such file or directory'

# --update-baseline accepts a regression and adds the run to its case;
# unreadable traces keep their runs.
cp "$coarse" "$fine"
expect "update with a regression and errors: exit 1 for the errors" 1 "$gtr" check --baseline "$base" "${th[@]}" --update-baseline "$tmp/corpus"
jq -e --slurpfile old "$tmp/base-before.json" '
	(.cases | map(.name)) as $names
	| ($names | index("churn-go1.26.trace")) != null
	and ([.cases[] | select(.name == "churn-go1.26.trace")] == [$old[0].cases[] | select(.name == "churn-go1.26.trace")])
	and ([.cases[] | select(.name == "greedy-fine-go1.26.trace") | .runs | length, .[1].metrics.max_slice_ns] == [2, 42815808])
	and ($names | index("zz-text.trace")) == null' "$base" >/dev/null &&
	ok "updated baseline: the regression accepted as a new run, the unreadable trace's runs kept" ||
	bad "updated baseline: $(jq -c '[.cases[] | {name, runs: [.runs[].fingerprint]}]' "$base" | head -c 300)"
# A case of several runs (gf/1.trace, gf/2.trace), of traces the short run
# has too: updates keep its newest
# --max-runs runs; a trace already among its runs is not added again.
mkdir -p "$tmp/mr/gf"
i=0
for t in greedy-fine-go1.26 greedy-coarse-go1.26 greedy-go1.26 greedy-go1.21; do
	i=$((i + 1))
	rm -f "$tmp/mr/gf/"*
	cp "$tmp/corpus/$t.trace" "$tmp/mr/gf/$i.trace"
	[ $i = 2 ] && cp "$tmp/corpus/$t.trace" "$tmp/mr/gf/$((i + 10)).trace" # the same bytes twice
	"$gtr" check --no-fail-on-missing --baseline "$base" --update-baseline --max-runs 2 "$tmp/mr" >/dev/null 2>&1
done
want=$(for t in greedy-go1.26 greedy-go1.21; do jq -c .metrics.max_slice_ns <<<"$("$gtr" check --baseline "$tmp/x.json" --update-baseline "$tmp/corpus/$t.trace" >/dev/null 2>&1; jq -c '.cases[0].runs[0]' "$tmp/x.json"; rm -f "$tmp/x.json")"; done | paste -sd, -)
jq -e --argjson want "[$want]" '[.cases[] | select(.name == "gf") | .runs[].metrics.max_slice_ns] == $want' "$base" >/dev/null &&
	ok "--max-runs 2: the newest runs kept, the oldest dropped" || bad "--max-runs: $(jq -c '[.cases[] | select(.name == "gf") | .runs[].metrics.max_slice_ns]' "$base"), want [$want]"
rm -f "$tmp/corpus/zz-text.trace"
cp "$tmp/good.trace" "$tmp/corpus/churn-go1.26.trace"
expect "after the update the corpus passes" 0 "$gtr" check --no-fail-on-missing --baseline "$base" "$tmp/corpus"

# Progress: on a terminal only.
if command -v script >/dev/null; then
	script -qec "'$gtr' check --baseline '$base' -q '$tmp/corpus' >/dev/null" /dev/null >"$tmp/tty" 2>&1
	grep -q "\[$n/$n\]" "$tmp/tty" && ok "progress on a terminal" || bad "no progress on a terminal: $(head -c 200 "$tmp/tty" | od -c | head -3)"
fi
"$gtr" check --baseline "$base" -q "$tmp/corpus" >/dev/null 2>"$tmp/err"
[ ! -s "$tmp/err" ] && ok "no progress when stderr is not a terminal" || bad "stderr not empty: $(head -c 200 "$tmp/err")"

echo "checktest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
