#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD SECONDS TARGET...
#
# Runs each libFuzzer target for SECONDS, seeded from corpora/traces,
# tests/data, the Go test traces under $GO_DIR (when installed) and
# tests/regress. The corpus each target grows is kept in
# BUILD/fuzz-corpus/TARGET between runs; what a target finds is written to
# BUILD/fuzz-findings/ (turn each finding into a tests/regress/NAME.trace
# named after what broke). Prints the inputs each target ran and ends with
# "fuzz: N passed, N failed".
set -uo pipefail
build=$1 seconds=$2
shift 2
GO_DIR=${GO_DIR:-/opt/gtr-go}
max_len=65536
pass=0 fail=0

seeds() { # target: seed files of at most max_len bytes
	local f pat
	case $1 in
	fuzz_v1) pat='go1\.(15|19|21)\.trace$|_1_[0-9]+_(good|unordered)$|/v1-[^/]*\.trace$' ;;
	fuzz_v2) pat='go1\.2[2-9]\.trace$|/v2-[^/]*\.trace$' ;;
	*) pat='.' ;;
	esac
	for f in corpora/traces/*.trace tests/data/*.trace tests/regress/*.trace \
		"$GO_DIR"/go-1.15/src/internal/trace/testdata/*_good \
		"$GO_DIR"/go-1.27/src/internal/trace/internal/tracev1/testdata/*_good; do
		[ -f "$f" ] && [ "$(stat -c %s "$f")" -le $max_len ] && grep -Eq "$pat" <<<"$f" && echo "$f"
	done
}

for target in "$@"; do
	bin=$build/fuzz/$target
	corpus=$build/fuzz-corpus/$target
	seed=$build/fuzz-seeds/$target
	findings=$build/fuzz-findings
	rm -rf "$seed"
	mkdir -p "$corpus" "$seed" "$findings"
	seeds "$target" | while read -r f; do cp "$f" "$seed/$(echo "$f" | tr / _)"; done
	log=$build/fuzz-$target.log
	echo "== $target: $seconds s, $(ls "$seed" | wc -l) seeds, corpus $corpus"
	# -timeout: an input that takes 10 s is a hang; -rss_limit_mb: memory
	# that does not depend on numbers read from the file stays far below.
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
		"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -malloc_limit_mb=512 \
		-max_len=$max_len -print_final_stats=1 -artifact_prefix="$findings/$target-" \
		"$corpus" "$seed" >"$log" 2>&1
	st=$?
	runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
	cov=$(grep -E '#[0-9]+.*cov: [0-9]+' "$log" | tail -1 | sed -E 's/.*cov: ([0-9]+).*/\1/')
	echo "$target: ${runs:-?} inputs in $seconds s, coverage ${cov:-?} edges, corpus $(ls "$corpus" | wc -l) files, exit $st"
	if [ $st -eq 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $target: a finding (see $log and $findings/):"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -10
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
