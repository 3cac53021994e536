#!/usr/bin/env bash
# tests/checktest.sh GTR TRACE...
#
# `gtr check` as CI meets it, on a copy of the given corpus traces:
#  - a baseline round trip: --update-baseline writes one, the unchanged
#    corpus then passes (exit 0, every trace "unchanged"), and the JSON
#    report, itself a valid baseline, agrees with gtr greedy on each trace;
#  - a seeded regression: greedy-fine-go1.26.trace replaced by the coarse
#    one under the same name fails with exit 3, naming that trace and the
#    max_slice metric, in the text, the JSON and the JUnit XML reports,
#    while the other traces still pass; a raised threshold lets it pass;
#  - an unreadable file: an error of that trace (exit 1), the others still
#    checked; together with the regression, exit 3;
#  - -j 1 and -j 8 give the same reports; progress appears on a terminal
#    only; usage mistakes exit 2.
set -uo pipefail
gtr=$1
shift
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
has "every trace is new" "$tmp/out" "^$n traces: 0 ok, 0 regressed, 0 errors, $n new"
jq -e ".schema == \"gtr.baseline.v1\" and (.traces | length) == $n" "$base" >/dev/null &&
	ok "baseline holds $n traces" || bad "baseline: $(head -c 200 "$base")"
expect "unchanged corpus passes" 0 "$gtr" check --baseline "$base" -j 8 "$tmp/corpus" --report-json "$tmp/r8.json" --junit "$tmp/r8.xml"
has "every trace ok and unchanged" "$tmp/out" "^$n traces: $n ok, 0 regressed, 0 errors, 0 new; $n unchanged, 0 changed"
[ "$(grep -c '^ok  .* unchanged$' "$tmp/out")" -eq "$n" ] && ok "one ok line per trace" || bad "ok lines: $(grep -c '^ok ' "$tmp/out") of $n"
expect "unchanged corpus, one thread" 0 "$gtr" check --baseline "$base" -j 1 "$tmp/corpus" --report-json "$tmp/r1.json" --junit "$tmp/r1.xml"
# Reports differ only in timings between thread counts.
strip() { sed -E 's/"(seconds|jobs)":[0-9.]+/"\1":0/g; s/time="[0-9.]+"/time=""/g' "$1"; }
cmp -s <(strip "$tmp/r1.json") <(strip "$tmp/r8.json") && ok "-j 1 and -j 8 give the same JSON report" || bad "-j 1 and -j 8 JSON reports differ"
cmp -s <(strip "$tmp/r1.xml") <(strip "$tmp/r8.xml") && ok "-j 1 and -j 8 give the same JUnit report" || bad "-j 1 and -j 8 JUnit reports differ"
jq -e '.result == "ok" and .exit_status == 0 and .summary.ok == .summary.traces' "$tmp/r8.json" >/dev/null &&
	ok "JSON report: ok" || bad "JSON report summary: $(jq -c .summary "$tmp/r8.json")"
if command -v xmllint >/dev/null; then
	xmllint --noout "$tmp/r8.xml" 2>"$tmp/xerr" && ok "JUnit report is well-formed XML" || bad "JUnit XML: $(head -3 "$tmp/xerr")"
fi
has "JUnit: no failures" "$tmp/r8.xml" "<testsuite name=\"gtr check\" tests=\"$n\" failures=\"0\" errors=\"0\""

# The JSON report agrees with gtr greedy, trace by trace (differential).
agree=1
for f in "$tmp"/corpus/*.trace; do
	nm=$(basename "$f")
	# check reads in Go's order, as greedy --ordered does.
	want=$("$gtr" greedy --ordered --json -n 1 "$f" | jq -c '[.tmax_stw.ns, .stw.count, .stw.p50_ns, .stw.p99_ns, .stw.max_ns, (.top[0].duration_ns // 0), .slices_total]')
	got=$(jq -c --arg n "$nm" '.traces[] | select(.name == $n) | .metrics | [.tmax_stw_ns, .stw_count, .stw_p50_ns, .stw_p99_ns, .stw_max_ns, .max_slice_ns, .slices]' "$tmp/r8.json")
	if [ "$want" != "$got" ]; then bad "check metrics of $nm: greedy $want, check $got"; agree=0; fi
	fp=$(jq -r --arg n "$nm" '.traces[] | select(.name == $n) | .fingerprint' "$tmp/r8.json")
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

# The seeded regression.
cp "$coarse" "$fine"
expect "seeded regression fails with 3" 3 "$gtr" check --baseline "$base" "$tmp/corpus" --report-json "$tmp/rr.json" --junit "$tmp/rr.xml"
has "names the trace and max slice" "$tmp/out" '^REGRESSED +greedy-fine-go1\.26\.trace +go 1\.26 +changed: .*max slice \+[0-9.]+% \(12\.081 ms -> 42\.816 ms, over \+20%\)'
has "summary: one regressed" "$tmp/out" "^$n traces: $((n - 1)) ok, 1 regressed, 0 errors, 0 new; $((n - 1)) unchanged, 1 changed"
jq -e '.result == "regressed" and .exit_status == 3 and ([.traces[] | select(.status == "regressed") | .name] == ["greedy-fine-go1.26.trace"])
	and ([.traces[] | select(.name == "greedy-fine-go1.26.trace") | .changes[] | select(.change == "worse") | .metric] | index("max_slice") != null)
	and ([.traces[] | select(.name == "greedy-fine-go1.26.trace") | .changed] == [true])' "$tmp/rr.json" >/dev/null &&
	ok "JSON report: the regression, its trace and metric" || bad "JSON report: $(jq -c '[.result, .exit_status, .summary]' "$tmp/rr.json")"
has "JUnit: one failure" "$tmp/rr.xml" 'failures="1" errors="0"'
has "JUnit: the failing test case" "$tmp/rr.xml" '<failure type="regression" message="[^"]*max slice \+[0-9.]+%[^"]*">'
has "JUnit: the regression in full" "$tmp/rr.xml" '^max slice \+[0-9.]+% \(12\.081 ms -&gt; 42\.816 ms, over \+20%\)'
expect "quiet lists only the regression" 3 "$gtr" check -q --baseline "$base" "$tmp/corpus"
[ "$(grep -c '^\(ok\|REGRESSED\|ERROR\|new\) ' "$tmp/out")" -eq 1 ] && ok "-q: one line" || bad "-q printed $(grep -c '^\(ok\|REGRESSED\) ' "$tmp/out") lines"
expect "a raised threshold lets it pass" 0 "$gtr" check --baseline "$base" --threshold max_slice=300,tmax_stw=300,stw_p99=400 "$tmp/corpus"
expect "an added threshold catches more" 3 "$gtr" check --baseline "$base" --threshold max_slice=off,tmax_stw=off,stw_p99=off,func_max_slice=50 "$tmp/corpus"
has "per-function regression named" "$tmp/out" 'max slice of runtime\.gcBgMarkWorker \+'
expect "--min-delta above the growth lets it pass" 0 "$gtr" check --baseline "$base" --min-delta 100ms "$tmp/corpus"
expect "file arguments are matched by base name" 3 "$gtr" check --baseline "$base" "$fine" "$tmp/corpus/churn-go1.26.trace"
has "two files, one regressed" "$tmp/out" '^2 traces: 1 ok, 1 regressed, 0 errors, 0 new; 1 unchanged, 1 changed; [0-9]+ in the baseline not checked'

# An unreadable trace: an error of that trace, the others checked.
cp "$base" "$tmp/base-before.json"
cp "$tmp/corpus/churn-go1.26.trace" "$tmp/good.trace"
head -c 3000 "$tmp/good.trace" >"$tmp/corpus/churn-go1.26.trace"
printf 'not a trace at all\n' >"$tmp/corpus/zz-text.trace"
expect "regression and errors: 3 wins" 3 "$gtr" check --baseline "$base" "$tmp/corpus" --report-json "$tmp/re.json" --junit "$tmp/re.xml"
has "the cut trace is an error" "$tmp/out" '^ERROR +churn-go1\.26\.trace +- +at byte [0-9]+: '
has "the text file is an error" "$tmp/out" '^ERROR +zz-text\.trace +- +at byte [0-9]+: not a Go execution trace'
has "the others are still checked" "$tmp/out" "^$((n + 1)) traces: $((n - 2)) ok, 1 regressed, 2 errors, 0 new"
has "JUnit: two errors" "$tmp/re.xml" 'failures="1" errors="2"'
has "JUnit: the error case" "$tmp/re.xml" '<error type="unreadable" message="at byte [0-9]+: not a Go execution trace'
jq -e '[.traces[] | select(.status == "error") | .name] == ["churn-go1.26.trace", "zz-text.trace"]' "$tmp/re.json" >/dev/null &&
	ok "JSON report: the errors" || bad "JSON report errors: $(jq -c '[.traces[] | select(.status == "error")]' "$tmp/re.json" | head -c 300)"
cp "$fine_orig" "$fine"
expect "errors alone: exit 1" 1 "$gtr" check --baseline "$base" "$tmp/corpus"
has "only the errors" "$tmp/out" "^$((n + 1)) traces: $((n - 1)) ok, 0 regressed, 2 errors, 0 new"
expect "a missing file is an error of that trace" 1 "$gtr" check --baseline "$base" "$tmp/good.trace" "$tmp/nope.trace"
has "missing file" "$tmp/out" '^ERROR +nope\.trace +- +cannot read it: No such file or directory'

# --update-baseline accepts a regression; unreadable traces keep their entries.
cp "$coarse" "$fine"
expect "update with a regression and errors: exit 1 for the errors" 1 "$gtr" check --baseline "$base" --update-baseline "$tmp/corpus"
jq -e --slurpfile old "$tmp/base-before.json" '
	(.traces | map(.name)) as $names
	| ($names | index("churn-go1.26.trace")) != null
	and ([.traces[] | select(.name == "churn-go1.26.trace")] == [$old[0].traces[] | select(.name == "churn-go1.26.trace")])
	and ([.traces[] | select(.name == "greedy-fine-go1.26.trace") | .metrics.max_slice_ns] == [42815808])
	and ($names | index("zz-text.trace")) == null' "$base" >/dev/null &&
	ok "updated baseline: the regression accepted, the unreadable trace's entry kept" ||
	bad "updated baseline: $(jq -c '[.traces[] | {name, fingerprint}]' "$base" | head -c 300)"
rm -f "$tmp/corpus/zz-text.trace"
cp "$tmp/good.trace" "$tmp/corpus/churn-go1.26.trace"
expect "after the update the corpus passes" 0 "$gtr" check --baseline "$base" "$tmp/corpus"

# Progress: on a terminal only.
if command -v script >/dev/null; then
	script -qec "'$gtr' check --baseline '$base' -q '$tmp/corpus' >/dev/null" /dev/null >"$tmp/tty" 2>&1
	grep -q "\[$n/$n\]" "$tmp/tty" && ok "progress on a terminal" || bad "no progress on a terminal: $(head -c 200 "$tmp/tty" | od -c | head -3)"
fi
"$gtr" check --baseline "$base" -q "$tmp/corpus" >/dev/null 2>"$tmp/err"
[ ! -s "$tmp/err" ] && ok "no progress when stderr is not a terminal" || bad "stderr not empty: $(head -c 200 "$tmp/err")"

echo "checktest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
