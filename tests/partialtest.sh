#!/usr/bin/env bash
# tests/partialtest.sh GTR TRACE...
#
# Every machine output says when its numbers come from a partial read:
# real corpus traces cut short with head -c, read strictly (the report of
# the complete part, status 1) and with --lenient (status 0), and whole.
#
#   stats --json, greedy --json, diff --json (per side): a "loss" member,
#     only on a partial read, the same member in all three;
#   stats --jsonl: "partial" on every row;
#   stats --csv: a last column "partial" on every row, read by Python's
#     csv module (a column, not a comment line, so that any reader copes).
#
# Then files that shrink while they are read (a writer truncating the
# biggest trace given at several moments):
# whenever gtr says so and still reports, the JSON says "shrank".
set -uo pipefail
gtr=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gtr-partial.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
if ! command -v jq >/dev/null; then
	echo "partialtest: jq is missing (make deps)"
	echo "0 passed, 1 failed"
	exit 1
fi
if [ $# -eq 0 ]; then
	echo "partialtest: no traces given"
	echo "0 passed, 1 failed"
	exit 1
fi

# csv_partial FILE: prints the set of values of the partial column (or why not).
csv_partial() {
	python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
if not rows or list(rows[0].keys())[-1] != "partial":
    print("no partial column"); sys.exit()
print(" ".join(sorted({r["partial"] for r in rows})))' "$1"
}

for f in "$@"; do
	name=$(basename "$f")
	size=$(stat -c %s "$f")
	# The cuts on the small traces (each is read a dozen times); the biggest serves below.
	[ "$size" -gt 262144 ] && continue

	# Whole: no loss member, partial false everywhere.
	"$gtr" stats --json "$f" >"$tmp/s.json" 2>"$tmp/err" &&
		jq -e 'has("loss") | not' "$tmp/s.json" >/dev/null &&
		ok "$name whole: stats --json has no loss" || bad "$name whole: stats --json [$(head -c 200 "$tmp/err")]"
	"$gtr" stats --jsonl "$f" >"$tmp/s.jsonl" 2>/dev/null
	jq -e -s 'length > 1 and all(.partial == false)' "$tmp/s.jsonl" >/dev/null &&
		ok "$name whole: stats --jsonl rows say partial false" || bad "$name whole: stats --jsonl partial"
	"$gtr" stats --csv "$f" >"$tmp/s.csv" 2>/dev/null
	got=$(csv_partial "$tmp/s.csv")
	[ "$got" = false ] && ok "$name whole: stats --csv partial column false" ||
		bad "$name whole: stats --csv partial column: $got"

	for frac in 2/3 1/3; do
		cut=$((size * ${frac%/*} / ${frac#*/}))
		head -c "$cut" "$f" >"$tmp/cut.trace"
		what="$name cut at $cut of $size bytes"
		for mode in strict lenient; do
			flag=$([ $mode = lenient ] && echo --lenient)
			want=$([ $mode = lenient ] && echo 0 || echo 1)
			# shellcheck disable=SC2086
			"$gtr" stats --json $flag "$tmp/cut.trace" >"$tmp/c.json" 2>"$tmp/err"
			st=$?
			if [ ! -s "$tmp/c.json" ] && [ $st -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
				# Too little left for a report: one error line is the right answer.
				ok "$what, $mode: no report, one error line"
				continue
			fi
			if [ $st -eq "$want" ] &&
				jq -e '.loss.truncated == true and (.loss.truncated_at | type == "number")
					and .loss.truncated_at <= '"$cut"' and (.loss.lines | length) >= 1' "$tmp/c.json" >/dev/null; then
				ok "$what, $mode: stats --json says loss.truncated (status $st)"
			else
				bad "$what, $mode: stats --json status $st, loss $(jq -c .loss "$tmp/c.json" 2>&1 | head -c 200)"
			fi
			# shellcheck disable=SC2086
			"$gtr" stats --jsonl $flag "$tmp/cut.trace" >"$tmp/c.jsonl" 2>/dev/null
			jq -e -s 'length > 1 and all(.partial == true)' "$tmp/c.jsonl" >/dev/null &&
				ok "$what, $mode: every stats --jsonl row says partial" || bad "$what, $mode: stats --jsonl partial"
			# shellcheck disable=SC2086
			"$gtr" stats --csv $flag "$tmp/cut.trace" >"$tmp/c.csv" 2>/dev/null
			got=$(csv_partial "$tmp/c.csv")
			[ "$got" = true ] && ok "$what, $mode: every stats --csv row says partial" ||
				bad "$what, $mode: stats --csv partial column: $got"
			# greedy's loss member and stats': the same keys, the same cut.
			# shellcheck disable=SC2086
			"$gtr" greedy --json $flag "$tmp/cut.trace" >"$tmp/g.json" 2>/dev/null
			if jq -e -n --slurpfile g "$tmp/g.json" --slurpfile s "$tmp/c.json" \
				'($g[0].loss | keys) == ($s[0].loss | keys) and $g[0].loss.truncated_at == $s[0].loss.truncated_at' >/dev/null 2>&1; then
				ok "$what, $mode: greedy --json and stats --json say the same loss"
			else
				bad "$what, $mode: greedy's loss $(jq -c '.loss | keys' "$tmp/g.json" 2>&1 | head -c 200)"
			fi
		done
		# diff: the cut side, and only it, carries the loss.
		if "$gtr" diff --json --lenient "$f" "$tmp/cut.trace" >"$tmp/d.json" 2>"$tmp/err"; then
			jq -e '(.a | has("loss") | not) and .b.loss.truncated == true and .b.loss.truncated_at <= '"$cut" \
				"$tmp/d.json" >/dev/null && ok "$what: diff --json A whole, B cut: b.loss only" ||
				bad "$what: diff --json A whole, B cut: $(jq -c '[.a.loss, .b.loss.truncated]' "$tmp/d.json" 2>&1 | head -c 200)"
			"$gtr" diff --json --lenient "$tmp/cut.trace" "$f" 2>/dev/null |
				jq -e '(.b | has("loss") | not) and .a.loss.truncated == true' >/dev/null &&
				ok "$what: diff --json A cut, B whole: a.loss only" || bad "$what: diff --json A cut: no a.loss"
		elif [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
			ok "$what: diff --lenient: too little to compare, one error line"
		else
			bad "$what: diff --json --lenient [$(head -c 200 "$tmp/err")]"
		fi
	done
done

# A file that shrinks while it is read: when gtr says so and reports
# anyway (--lenient), its JSON says shrank, with both sizes.
mapfile -t bysize < <(ls -S "$@")
big=${bysize[0]}
bigsize=$(stat -c %s "$big")
said=0 marked=0
for delay in 0.002 0.01 0.05; do
	for cmd in "stats --json" "greedy --json" "diff --json $big"; do
		cp "$big" "$tmp/v.trace"
		# shellcheck disable=SC2086
		"$gtr" $cmd --lenient "$tmp/v.trace" >"$tmp/v.json" 2>"$tmp/err" &
		p=$!
		(sleep "$delay"; truncate -s $((bigsize / 2)) "$tmp/v.trace") &
		wait $p
		st=$?
		wait
		grep -q 'shrank while it was read' "$tmp/err" || continue
		[ $st -eq 0 ] && [ -s "$tmp/v.json" ] || continue
		said=$((said + 1))
		sel=$([ "${cmd%% *}" = diff ] && echo .b.loss || echo .loss)
		if jq -e "$sel.shrank.size_was == $bigsize and $sel.shrank.size_now == $((bigsize / 2))
			and ($sel.lines[0] | startswith(\"the file shrank\"))" "$tmp/v.json" >/dev/null; then
			marked=$((marked + 1))
		else
			bad "$cmd --lenient, shrunk after ${delay}s: said so on stderr, not in the JSON: $(jq -c "$sel" "$tmp/v.json" 2>&1 | head -c 300)"
		fi
	done
done
echo "     (a shrink under a --lenient report $said times, marked in the JSON $marked times)"
[ $said -eq $marked ] && ok "a file that shrank: every JSON that follows says so ($marked of $said)"

echo "partialtest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
