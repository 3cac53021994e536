#!/usr/bin/env bash
# tests/gatetest.sh GTR GODIR
#
# The CI gate on real programs: does `gtr check` (and `gtr diff` of sets
# of runs) stay quiet when nothing changed, and fail when something did?
#
# Programs of corpora/programs are built with a real Go toolchain (the
# newest installed of GODIR/go-1.NN, 1.22 or later) and run R times
# unchanged, twice over (sets a and b, their runs interleaved, as two CI
# jobs on one quiet runner would be). With the default thresholds:
#
# - false alarms: a baseline made from set a, set b checked against it
#   (and the other way round), every case; `gtr diff --fail-on-regression`
#   of the two sets of each program, both ways; and single-run pairs, both
#   ways (full: every run of a against every run of b; short: run i of a
#   against run i of b). Each comparison that
#   exits 3 is a false alarm; the count is printed and must be 0. The
#   same pairs under the single-run tails gated before (max_slice,
#   tmax_stw, stw_p99 at 20%) are counted too, for comparison (not gated).
#   In the short form, programs that raised a false alarm are run again
#   into fresh sets (a2, b2) and compared again: a false alarm fails the
#   test when it recurs there (a burst of load on a shared machine can move
#   one program's figures between two sets of 5 runs); the full form fails
#   on any.
# - regressions, at R = 5: the coarse yielding of the greedy example
#   against the fine one; cpufunc with one function doing twice the work
#   (GTR_SLOW_FACTOR=2); stwpause with a long stop-the-world pause added
#   (GTR_HEAP_DUMP=1). Each must be REGRESSED in check (exit 3), and the
#   check's JSON (jq) and JUnit (xmllint against tests/junit.xsd) must
#   say so.
# - fewer runs: with 3 runs a side the verdict says the test needs more
#   (not statistical), and one run a side is said not to be statistical.
#
# Short form (make test): greedy, cpufunc and stwpause, R = 5. Full form
# (GATETEST_FULL=1, `make gatetest`): also churn and gcpressure, R = 10,
# a second split (the first halves of both sets against the second
# halves), and the regressions checked against 10 baseline runs too. GATETEST_R
# overrides R. Ends with "gatetest: N passed, N failed".
set -uo pipefail
gtr=$1
godir=${2:-/opt/gtr-go}
root=${GTR_ROOT:-$PWD}
full=${GATETEST_FULL:-0}
if [ "$full" = 1 ]; then
	R=${GATETEST_R:-10}
	programs=(greedy cpufunc stwpause churn gcpressure)
else
	R=${GATETEST_R:-5}
	programs=(greedy cpufunc stwpause)
fi
pass=0 fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
finish() {
	echo "gatetest: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

gobin=
for v in 1.27 1.26 1.25 1.24 1.23 1.22; do
	if [ -x "$godir/go-$v/bin/go" ]; then
		gobin=$godir/go-$v/bin/go
		gover=$v
		break
	fi
done
if [ -z "$gobin" ]; then
	echo "gatetest: skipped: no Go toolchain 1.22 or later under $godir (make go)"
	bad "no Go toolchain to run the programs with"
	finish
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gtr-gatetest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cache=${GTR_GATETEST_CACHE:-${TMPDIR:-/tmp}/gtr-gatetest-cache}/go-$gover
mkdir -p "$cache" "$tmp/bin"

# The environment of corpora/make-traces.sh: no network, no toolchain
# switching, no cgo, a private cache kept between runs.
build() {
	(cd "$root/corpora/programs/$1" &&
		env -u GOROOT -u GOBIN -u GOOS -u GOARCH -u GOEXPERIMENT -u GODEBUG GOENV=off \
			GOTOOLCHAIN=local GO111MODULE=on GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off \
			GOWORK=off CGO_ENABLED=0 GOPATH="$cache/gopath" GOCACHE="$cache/cache" \
			"$gobin" build -trimpath -o "$tmp/bin/$1" main.go)
}
for p in "${programs[@]}"; do
	build "$p" || {
		bad "building $p with Go $gover"
		finish
	}
done

# run PROGRAM DIR N [VAR=VALUE...]: N runs, DIR/1.trace to DIR/N.trace
# (RUN_FROM=K: DIR/K.trace to DIR/N.trace).
run() {
	local p=$1 dir=$2 n=$3
	shift 3
	mkdir -p "$dir"
	for i in $(seq "${RUN_FROM:-1}" "$n"); do
		if ! env -i PATH=/usr/bin:/bin TMPDIR="$tmp" GOMAXPROCS=2 "$@" \
			timeout 120 "$tmp/bin/$p" "$dir/$i.trace" >/dev/null 2>"$tmp/run.err"; then
			bad "$p run $i: $(head -c 300 "$tmp/run.err")"
			return 1
		fi
	done
}

# The unchanged programs' settings (the greedy example as its fine variant).
settings() {
	case $1 in
	greedy) echo GTR_YIELD_EVERY=20000 GODEBUG=asyncpreemptoff=1 ;;
	# The corpus's churn and gcpressure run 5 and 35 ms of execution:
	# repeated to 0.1 s and more, long enough to be measured.
	churn) echo GTR_REPEAT=30 ;;
	gcpressure) echo GTR_REPEAT=8 ;;
	*) echo GTR_UNCHANGED=1 ;;
	esac
}

echo "Go $gover, R = $R runs a set, programs: ${programs[*]}"
# make_sets A B PROGRAM...: R unchanged runs of each program into sets A
# and B, made interleaved, run i of A then run i of B, so that a change
# in the machine's load while they run falls on both alike: the gate
# assumes runs and baseline made under the same conditions (README, "Same
# machine, same load"), and this measures the gate, not the load.
make_sets() {
	local sa=$1 sb=$2 i set p
	shift 2
	for i in $(seq 1 "$R"); do
		for set in "$sa" "$sb"; do
			for p in "$@"; do
				# shellcheck disable=SC2046
				RUN_FROM=$i run "$p" "$tmp/$set/$p" "$i" $(settings "$p") || finish
			done
		done
	done
}
make_sets a b "${programs[@]}"
# The regressions, R = 5.
run greedy "$tmp/reg/greedy" 5 GTR_YIELD_EVERY=0 GODEBUG=asyncpreemptoff=1 || finish
run cpufunc "$tmp/reg/cpufunc" 5 GTR_SLOW_FACTOR=2 || finish
run stwpause "$tmp/reg/stwpause" 5 GTR_HEAP_DUMP=1 || finish
ok "ran ${#programs[@]} programs 2 x $R times unchanged, and 3 changed 5 times"

# --- false alarms ---
alarms=0 comparisons=0 alarmed=()
alarm() { # STATUS WHAT PROGRAM: a comparison of unchanged runs; 3 is a false alarm
	comparisons=$((comparisons + 1))
	case $1 in
	0) ;;
	3) alarms=$((alarms + 1)); alarmed+=("$3"); echo "false alarm: $2" ;;
	*) bad "$2: exit $1" ;;
	esac
}

# sets A B PROGRAM...: the comparisons of two sets of unchanged runs (the
# directories $tmp/A and $tmp/B): check both ways, diff of the sets both
# ways, single-run pairs both ways.
cases=0 pairs=0 old_alarms=0
old=(--threshold max_slice=20,tmax_stw=20,stw_p99=20)
sets() {
	local sa=$1 sb=$2
	shift 2
	local progs=("$@") from to p i j dir x y st n
	for from in "$sa" "$sb"; do
		to=$([ "$from" = "$sa" ] && echo "$sb" || echo "$sa")
		"$gtr" check --baseline "$tmp/base-$from.json" --update-baseline --max-runs "$R" "$tmp/$from" \
			>/dev/null 2>"$tmp/err" || bad "baseline of set $from: $(head -3 "$tmp/err")"
		"$gtr" check --baseline "$tmp/base-$from.json" --report-json "$tmp/rep-$to.json" "$tmp/$to" \
			>"$tmp/check-$to.txt" 2>"$tmp/err"
		st=$?
		n=$(jq '[.cases[] | select(.status == "regressed")] | length' "$tmp/rep-$to.json" 2>/dev/null)
		if [ "$st" -ne 0 ] && [ "$st" -ne 3 ]; then
			bad "check of set $to against set $from: exit $st: $(head -3 "$tmp/err")"
		fi
		for p in "${progs[@]}"; do
			comparisons=$((comparisons + 1))
			cases=$((cases + 1))
			if grep -q "^REGRESSED  $p " "$tmp/check-$to.txt"; then
				alarms=$((alarms + 1))
				alarmed+=("$p")
				echo "false alarm: check, set $to against a baseline of set $from: $(grep "^REGRESSED  $p " "$tmp/check-$to.txt")"
			fi
		done
		[ "${n:-x}" = "$(grep -c '^REGRESSED' "$tmp/check-$to.txt")" ] ||
			bad "check's JSON report counts $n regressed cases, its text $(grep -c '^REGRESSED' "$tmp/check-$to.txt")"
		# Every case was compared with the test, not guessed at.
		grep -q "; $R vs $R runs\|, $R vs $R runs" "$tmp/check-$to.txt" || bad "check did not compare $R vs $R runs"
	done
	for p in "${progs[@]}"; do
		"$gtr" diff --fail-on-regression "$tmp/$sa/$p" "$tmp/$sb/$p" >"$tmp/d.txt" 2>&1
		alarm $? "diff of sets $sa and $sb of $p" "$p"
		grep -q "^verdict: ($R vs $R runs, Mann-Whitney U test, alpha 0.05)" "$tmp/d.txt" ||
			bad "diff of two sets of $p: the verdict does not state the test: $(grep '^verdict' "$tmp/d.txt")"
		"$gtr" diff --fail-on-regression "$tmp/$sb/$p" "$tmp/$sa/$p" >/dev/null 2>&1
		alarm $? "diff of sets $sb and $sa of $p" "$p"
	done
	for p in "${progs[@]}"; do
		for i in $(seq 1 "$R"); do
			for j in $(seq 1 "$R"); do
				# Short form: run i of a against run i of b; full: every pair.
				[ "$full" = 1 ] || [ "$i" = "$j" ] || continue
				for dir in ab ba; do
					x=$tmp/$sa/$p/$i.trace y=$tmp/$sb/$p/$j.trace
					[ $dir = ba ] && { x=$tmp/$sb/$p/$j.trace; y=$tmp/$sa/$p/$i.trace; }
					"$gtr" diff --fail-on-regression "$x" "$y" >"$tmp/d.txt" 2>&1
					alarm $? "diff of single runs ${x#"$tmp"/} ${y#"$tmp"/}" "$p"
					pairs=$((pairs + 1))
					"$gtr" diff --fail-on-regression "${old[@]}" "$x" "$y" >/dev/null 2>&1
					[ $? -eq 3 ] && old_alarms=$((old_alarms + 1))
				done
			done
		done
	done
	grep -q "^verdict: (1 vs 1 run, not statistical" "$tmp/d.txt" ||
		bad "one run a side: the verdict does not say it is not statistical: $(grep '^verdict' "$tmp/d.txt")"
}
sets a b "${programs[@]}"

if [ "$full" = 1 ]; then
	# Another split: the first halves of both sets against the second halves.
	h=$((R / 2))
	for p in "${programs[@]}"; do
		mkdir -p "$tmp/x/$p" "$tmp/y/$p"
		for i in $(seq 1 "$h"); do
			ln -s "$tmp/a/$p/$i.trace" "$tmp/x/$p/$i.trace"
			ln -s "$tmp/b/$p/$i.trace" "$tmp/x/$p/$((i + h)).trace"
			ln -s "$tmp/a/$p/$((i + h)).trace" "$tmp/y/$p/$i.trace"
			ln -s "$tmp/b/$p/$((i + h)).trace" "$tmp/y/$p/$((i + h)).trace"
		done
	done
	for from in x y; do
		to=$([ $from = x ] && echo y || echo x)
		"$gtr" check --baseline "$tmp/base-$from.json" --update-baseline --max-runs "$R" "$tmp/$from" >/dev/null 2>&1
		"$gtr" check --baseline "$tmp/base-$from.json" "$tmp/$to" >"$tmp/check-$to.txt" 2>&1
		for p in "${programs[@]}"; do
			comparisons=$((comparisons + 1))
			cases=$((cases + 1))
			if grep -q "^REGRESSED  $p " "$tmp/check-$to.txt"; then
				alarms=$((alarms + 1))
				echo "false alarm: check, halves $to against $from: $(grep "^REGRESSED  $p " "$tmp/check-$to.txt")"
			fi
		done
	done
fi

echo "false alarms: $alarms of $comparisons comparisons of unchanged runs ($cases checked cases, $((2 * ${#programs[@]})) diffs of sets, $pairs single-run pairs)"
echo "for comparison, single-run tails at +20% (max_slice, tmax_stw, stw_p99): $old_alarms of $pairs single-run pairs would fail"
if [ "$alarms" -eq 0 ]; then
	ok "no false alarm with the defaults"
elif [ "$full" = 1 ]; then
	bad "$alarms false alarms with the defaults"
else
	# Short form: 5 runs a side on a shared machine, where a burst of
	# load can move one program's figures between two sets (README, "Same
	# machine, same load"). A false alarm counts when it recurs on fresh
	# sets of the programs that raised it; the full form counts every one.
	mapfile -t again < <(printf '%s\n' "${alarmed[@]}" | sort -u)
	echo "again, on fresh sets: ${again[*]} (a false alarm counts when it recurs)"
	first=$alarms
	alarms=0 alarmed=()
	make_sets a2 b2 "${again[@]}"
	sets a2 b2 "${again[@]}"
	echo "false alarms on fresh sets: $alarms (first sets: $first)"
	if [ "$alarms" -eq 0 ]; then
		ok "no false alarm with the defaults that recurs on fresh sets"
	else
		bad "$alarms false alarms with the defaults, on the first sets and again on fresh ones"
	fi
fi

# --- regressions, R = 5 ---
mkdir -p "$tmp/b5"
for p in greedy cpufunc stwpause; do
	mkdir -p "$tmp/b5/$p"
	for i in 1 2 3 4 5; do cp "$tmp/a/$p/$i.trace" "$tmp/b5/$p/"; done
done
"$gtr" check --baseline "$tmp/base5.json" --update-baseline "$tmp/b5" >/dev/null 2>&1 ||
	bad "baseline of 5 runs"
"$gtr" check --baseline "$tmp/base5.json" --report-json "$tmp/reg.json" --junit "$tmp/reg.xml" \
	"$tmp/reg" >"$tmp/reg.txt" 2>&1
st=$?
[ $st -eq 3 ] && ok "regressions: check exits 3" || bad "regressions: check exit $st, want 3"
caught=0
for p in greedy cpufunc stwpause; do
	what=$(case $p in greedy) echo "coarse yielding against fine" ;; cpufunc) echo "a function 2x slower" ;;
		stwpause) echo "a long stop-the-world pause added" ;; esac)
	line=$(grep -E "^[A-Za-z]+ +$p " "$tmp/reg.txt")
	if [[ $line == REGRESSED* ]]; then
		caught=$((caught + 1))
		ok "caught at R = 5: $p, $what: ${line#*changed, }"
	else
		bad "not caught at R = 5: $p, $what: $line"
	fi
done
echo "regressions caught at R = 5: $caught of 3"
if [ "$full" = 1 ]; then
	# Against a baseline of every run of both sets.
	"$gtr" check --baseline "$tmp/base-a.json" "$tmp/reg" >"$tmp/reg10.txt" 2>&1
	for p in greedy cpufunc stwpause; do
		grep -q "^REGRESSED  $p " "$tmp/reg10.txt" && ok "caught against $R baseline runs: $p" ||
			bad "not caught against $R baseline runs: $(grep -E " $p " "$tmp/reg10.txt")"
	done
fi

# The machine outputs of the regressions.
if jq -e '.schema == "gtr.check.v2" and (.cases | length) == 3 and
	([.cases[] | select(.status == "regressed")] | length) == 3 and
	all(.cases[]; .comparison.mode == "statistical" and .comparison.runs == [5, 5])' \
	"$tmp/reg.json" >/dev/null 2>"$tmp/err"; then
	ok "JSON report: 3 regressed cases, compared statistically, 5 runs a side"
else
	bad "JSON report: $(head -c 300 "$tmp/err") $(jq -c '.cases[] | {name, status, comparison}' "$tmp/reg.json" 2>&1 | head -c 600)"
fi
if xmllint --noout --schema "$root/tests/junit.xsd" "$tmp/reg.xml" 2>"$tmp/err"; then
	ok "JUnit report validates against tests/junit.xsd"
else
	bad "JUnit report: $(head -3 "$tmp/err")"
fi
grep -q 'failures="3"' "$tmp/reg.xml" && ok "JUnit: 3 failures" || bad "JUnit: want failures=\"3\""

# --- too few runs ---
mkdir -p "$tmp/few/greedy"
for i in 1 2 3; do cp "$tmp/reg/greedy/$i.trace" "$tmp/few/greedy/"; done
"$gtr" diff "$tmp/b5/greedy" "$tmp/few/greedy" >"$tmp/few.txt" 2>&1
if grep -q "^verdict: (5 vs 3 runs, not statistical: need >= 5 runs a side" "$tmp/few.txt"; then
	ok "5 vs 3 runs: not enough for the test, and said so"
else
	bad "5 vs 3 runs: $(grep '^verdict' "$tmp/few.txt")"
fi
finish
