#!/usr/bin/env bash
# tests/statstest.sh GTR GO_DIR TRACE...
#
# `gtr stats` against the goroutine analysis recomputed from Go 1.27's
# `go tool trace -d=parsed` (every trace of version 1.11 or later). The
# awk below follows Go's summarizer (internal/trace/summary.go): each
# goroutine transition closes the time of the state it leaves (Running:
# exec, Runnable: scheduler wait, Waiting: block time by reason, Syscall:
# syscall); a goroutine found in a state at a sync has been in it since
# that sync; exiting or blocking "forever" stops its clocks; the end of
# the trace stops every clock; "GC mark assist" ranges give the assist
# time. Block reasons are grouped as README.md says. A v1 syscall that did
# not block lasts 1 ns in both (Go's converter makes the instant the trace
# records 1 ns long, and gtr does the same).
#
# Checks, per trace:
#  - each time total (exec, sched wait, the seven block groups, syscall,
#    GC assist) within 0.1% of the oracle's;
#  - per goroutine, the same goroutines, each time within 0.1% (or 1 us),
#    the same number of slices and the longest within 1 us;
#  - slice p50 and p99 per goroutine within 0.8% (+1 ns) of the exact
#    nearest-rank percentiles, the histogram's stated precision.
set -uo pipefail
gtr=$1 godir=$2
shift 2
out=${TMPDIR:-/tmp}/gtr-statstest.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
pass=0 fail=0
go=$godir/go-1.27/bin/go

version_of() { head -c 16 "$1" | sed -n 's/^go 1\.\([0-9]*\) trace.*/\1/p' | tr -d '\0'; }

result() { # name status detail
	if [ "$2" = ok ]; then
		pass=$((pass + 1))
		echo "ok   $1"
	else
		fail=$((fail + 1))
		echo "FAIL $1: $3"
	fi
}

# Per goroutine "G exec sched chan select sync net sleep gc other syscall
# assist slices maxslice" into $1, and "G duration" per slice into $2.
oracle() {
	awk -v slicefile="$2" -v v1="$3" '
	function cat(r) {
		if (r == "chan send" || r == "chan receive") return 1
		if (r == "select") return 2
		if (r == "sync" || r == "sync.(*Cond).Wait") return 3
		if (r == "network") return 4
		if (r == "sleep") return 5
		if (r == "GC mark assist wait for work" || r == "GC background sweeper wait" ||
		    r == "wait until GC ends" || r == "GC weak to strong wait") return 6
		return 7
	}
	function add(g, st, c, d) {
		if (d < 0) d = 0
		if (st == "Running") exec[g] += d
		else if (st == "Runnable") sched[g] += d
		else if (st == "Waiting") blk[g, c] += d
		else if (st == "Syscall") sys[g] += d
	}
	function finalize(g, t) {
		if (open[g]) add(g, state[g], bc[g], t - since[g])
		if (g in ast) { assist[g] += t - ast[g]; delete ast[g] }
		open[g] = 0
	}
	function endslice(g, t) {
		d = t - sstart[g]; if (d < 0) d = 0
		nsl[g]++; if (d > msl[g]) msl[g] = d
		printf "%s %.0f\n", g, d > slicefile
		delete sstart[g]
	}
	/^M=/ {
		t = ""
		for (i = 5; i <= NF; i++) if ($i ~ /^Time=/) { t = substr($i, 6) + 0; break }
		if (t == "") next
		if (!started) { started = 1; sync = t }
		last = t
		kind = $4
		if (kind == "Sync") { sync = t; next }
		if (kind == "StateTransition" && $6 ~ /^GoID=/) {
			g = substr($6, 6); split($7, st, "->"); from = st[1]; to = st[2]
			r = ""; if (match($0, /Reason="[^"]*"/)) r = substr($0, RSTART + 8, RLENGTH - 9)
			if (from == to) next
			seen[g] = 1
			if (from == "Undetermined") add(g, to, cat(r), t - sync)
			else if (open[g]) { add(g, state[g], bc[g], t - since[g]); open[g] = 0 }
			if (from == "Running" && (g in sstart)) endslice(g, t)
			if (to == "NotExist" || (to == "Waiting" && r == "forever")) { finalize(g, t); next }
			open[g] = 1; state[g] = to; since[g] = t; bc[g] = (to == "Waiting") ? cat(r) : 0
			if (to == "Running") sstart[g] = t
			next
		}
		if ((kind == "RangeBegin" || kind == "RangeActive" || kind == "RangeEnd") && $0 ~ /Name="GC mark assist"/) {
			if (!match($0, /Scope=Goroutine\([0-9]+\)/)) next
			g = substr($0, RSTART + 16, RLENGTH - 17)
			if (!(g in seen)) next
			if (kind == "RangeBegin") ast[g] = t
			else if (kind == "RangeActive") { if (g in ast) assist[g] += sync - ast[g]; ast[g] = sync }
			else if (g in ast) { assist[g] += t - ast[g]; delete ast[g] }
		}
	}
	END {
		for (g in seen) {
			finalize(g, last)
			if (g in sstart) endslice(g, last)
			printf "%s %.0f %.0f", g, exec[g], sched[g]
			for (c = 1; c <= 7; c++) printf " %.0f", blk[g, c]
			printf " %.0f %.0f %d %.0f\n", sys[g], assist[g], nsl[g], msl[g]
		}
	}' | sort -n >"$1"
}

# The same columns from gtr's CSV (fields counted from the end: a
# function name may hold quoted commas; the last is partial), plus "G p50 p99".
from_gtr() {
	awk -F, -v pfile="$2" '$1 == "goroutine" {
		n = NF - 1 # the last column is partial
		printf "%s", $2
		for (i = n - 14; i <= n - 4; i++) printf " %s", $i
		printf " %s %s\n", $(n - 3), $n
		printf "%s %s %s\n", $2, $(n - 2), $(n - 1) > pfile
	}' | sort -n >"$1"
}

# Exact nearest-rank p50 and p99 per goroutine from "G duration" lines.
exact_percentiles() {
	sort -k1,1n -k2,2n "$1" | awk '
	function flush() {
		if (n == 0) return
		r50 = int(0.5 * n + 0.999999); if (r50 < 1) r50 = 1
		r99 = int(0.99 * n + 0.999999); if (r99 < 1) r99 = 1
		printf "%s %.0f %.0f\n", g, v[r50], v[r99]
	}
	$1 != g { flush(); g = $1; n = 0 }
	{ v[++n] = $2 }
	END { flush() }' | sort -n
}

for f in "$@"; do
	name=$(basename "$f")
	v=$(version_of "$f")
	[ -n "$v" ] && [ "$v" -ge 11 ] || continue
	[ -x "$go" ] || continue
	if ! "$go" tool trace -d=parsed "$f" >"$out/parsed" 2>"$out/goerr"; then
		# Go's reader refuses some traces; nothing to compare with.
		continue
	fi
	oracle "$out/go" "$out/goslices" "$([ "$v" -lt 22 ] && echo 1 || echo 0)" <"$out/parsed"
	if ! "$gtr" stats --csv --by goroutine --sort id "$f" >"$out/csv" 2>"$out/err"; then
		result "stats $name" fail "$(head -1 "$out/err")"
		continue
	fi
	from_gtr "$out/gtr" "$out/gtrpct" <"$out/csv"
	exact_percentiles "$out/goslices" >"$out/gopct"

	# Totals per column, within 0.1%.
	msg=$(awk '
		FNR == 1 { f++ }
		{ for (i = 2; i <= 12; i++) s[f, i] += $i }
		END {
			split("exec sched chan select sync net sleep GC other syscall assist", nm, " ")
			for (i = 2; i <= 12; i++) {
				a = s[1, i]; b = s[2, i]; d = a - b; if (d < 0) d = -d
				if (d > 0.001 * a && d > 0) { printf "%s total: go %.0f ns, gtr %.0f ns", nm[i - 1], a, b; exit 1 }
			}
			printf "exec %.3f ms, sched %.3f ms, block %.3f ms, syscall %.3f ms, assist %.3f ms", \
				s[1, 2] / 1e6, s[1, 3] / 1e6, (s[1,4]+s[1,5]+s[1,6]+s[1,7]+s[1,8]+s[1,9]+s[1,10]) / 1e6, s[1, 11] / 1e6, s[1, 12] / 1e6
		}' "$out/go" "$out/gtr")
	st=$?
	result "stats totals $name (go 1.$v: $msg)" "$([ $st -eq 0 ] && echo ok)" "$msg"

	# Per goroutine.
	msg=$(awk '
		FNR == 1 { f++ }
		f == 1 { for (i = 2; i <= 14; i++) o[$1, i] = $i; og[$1] = 1; next }
		{
			if (!($1 in og)) { printf "G%s in gtr, not in go", $1; bad = 1; exit 1 }
			seen[$1] = 1
			for (i = 2; i <= 12; i++) {
				d = $i - o[$1, i]; if (d < 0) d = -d
				if (d > 0.001 * o[$1, i] && d > 1000) { printf "G%s column %d: go %s, gtr %s", $1, i, o[$1, i], $i; bad = 1; exit 1 }
			}
			if ($13 != o[$1, 13]) { printf "G%s: go %s slices, gtr %s", $1, o[$1, 13], $13; bad = 1; exit 1 }
			d = $14 - o[$1, 14]; if (d < 0) d = -d
			if (d > 1000) { printf "G%s longest slice: go %s, gtr %s", $1, o[$1, 14], $14; bad = 1; exit 1 }
		}
		END {
			if (bad) exit 1
			for (g in og) if (!(g in seen)) { printf "G%s in go, not in gtr", g; exit 1 }
		}' "$out/go" "$out/gtr")
	st=$?
	result "stats per goroutine $name ($(wc -l <"$out/go") goroutines)" "$([ $st -eq 0 ] && echo ok)" "$msg"

	# Percentiles: within the histogram's precision of the exact ones.
	msg=$(awk '
		FNR == 1 { f++ }
		f == 1 { p50[$1] = $2; p99[$1] = $3; next }
		($1 in p50) {
			d = $2 - p50[$1]; if (d < 0) d = -d
			if (d > p50[$1] / 128 + 1) { printf "G%s p50: exact %s, gtr %s", $1, p50[$1], $2; exit 1 }
			d = $3 - p99[$1]; if (d < 0) d = -d
			if (d > p99[$1] / 128 + 1) { printf "G%s p99: exact %s, gtr %s", $1, p99[$1], $3; exit 1 }
			n++
		}
		END { if (n == 0 && NR > 0) { print "no goroutine with slices"; exit 1 } }' "$out/gopct" "$out/gtrpct")
	st=$?
	result "stats slice percentiles $name" "$([ $st -eq 0 ] && echo ok)" "$msg"
done
# The flags, as a user relies on them, on the first trace with goroutines enough.
f=
for t in "$@"; do case $t in *churn-go1.26.trace | *gcpressure-go1.26.trace) f=$t; break ;; esac; done
[ -z "$f" ] && [ $# -gt 0 ] && f=$1
if [ -n "$f" ]; then
	name=$(basename "$f")
	"$gtr" stats --json "$f" >"$out/all.json"
	ng=$(jq '.goroutines | length' "$out/all.json")
	nf=$(jq '.functions | length' "$out/all.json")
	jq -e ".goroutines_total == $ng and .functions_total == $nf and $ng > 1" "$out/all.json" >/dev/null &&
		result "stats --json lists every goroutine and function ($name)" ok || result "stats --json ($name)" fail "$ng goroutines"
	# Sorting: each key orders both tables, largest first (id and name ascending).
	for k in exec:exec_ns sched:sched_wait_ns block:block_total_ns chan:block_ns.chan sync:block_ns.sync \
		gc:block_ns.gc other:block_ns.other syscall:syscall_ns assist:gc_assist_ns slices:slices \
		p50:slice_p50_ns p99:slice_p99_ns max:slice_max_ns; do
		key=${k%%:*} field=${k#*:}
		"$gtr" stats --json --sort "$key" "$f" >"$out/s.json"
		jq -e "[.goroutines[].$field] as \$v | [range(1; \$v | length) | \$v[. - 1] >= \$v[.]] | all" "$out/s.json" >/dev/null &&
			jq -e "[.functions[].$field] as \$v | [range(1; \$v | length) | \$v[. - 1] >= \$v[.]] | all" "$out/s.json" >/dev/null &&
			result "stats --sort $key" ok || result "stats --sort $key" fail "not in order"
	done
	"$gtr" stats --json --sort id "$f" | jq -e '[.goroutines[].g] as $v | $v == ($v | sort)' >/dev/null &&
		result "stats --sort id" ok || result "stats --sort id" fail "goroutines not by id"
	"$gtr" stats --json --sort name "$f" | jq -e '[.functions[].function] as $v | $v == ($v | sort)' >/dev/null &&
		result "stats --sort name" ok || result "stats --sort name" fail "functions not by name"
	"$gtr" stats --json --sort goroutines "$f" | jq -e '[.functions[].goroutines] as $v | [range(1; $v | length) | $v[. - 1] >= $v[.]] | all' >/dev/null &&
		result "stats --sort goroutines" ok || result "stats --sort goroutines" fail "functions not by goroutine count"
	# --top: the first N rows of the same order, in every format.
	"$gtr" stats --json --top 3 "$f" >"$out/t.json"
	jq -e --slurpfile all "$out/all.json" '(.goroutines | length) == 3 and .goroutines == $all[0].goroutines[:3]
		and .functions == $all[0].functions[:3] and .total == $all[0].total' "$out/t.json" >/dev/null &&
		result "stats --top 3 --json: the first 3 rows" ok || result "stats --top 3 --json" fail "$(jq -c '[.goroutines[].g]' "$out/t.json")"
	rows=$("$gtr" stats --top 4 --by goroutine "$f" | awk '/^goroutines by/ { on = 1; next } on && /^G[0-9]+ / { n++ } END { print n + 0 }')
	[ "$rows" -eq 4 ] && result "stats --top 4: four goroutine rows" ok || result "stats --top 4" fail "$rows rows"
	rows=$("$gtr" stats "$f" | grep -c '^G[0-9]')
	want=$((ng < 20 ? ng : 20))
	[ "$rows" -eq "$want" ] && result "stats: 20 rows by default in text" ok || result "stats default rows" fail "$rows rows, want $want"
	"$gtr" stats --by function "$f" | grep -q '^goroutines by' && result "stats --by function" fail "goroutine table printed" ||
		result "stats --by function: no goroutine table" ok
	# CSV: a header, a total row, one row per function and goroutine, equal to the JSON.
	"$gtr" stats --csv "$f" >"$out/c.csv"
	[ "$(wc -l <"$out/c.csv")" -eq $((2 + ng + nf)) ] && result "stats --csv: header, total, every row" ok ||
		result "stats --csv rows" fail "$(wc -l <"$out/c.csv") lines, want $((2 + ng + nf))"
	want=$(jq -r '.goroutines[] | [.g, .exec_ns, .sched_wait_ns, .block_ns.chan, .syscall_ns, .slices, .slice_max_ns] | @tsv' "$out/all.json" | sort -n | md5sum)
	got=$(awk -F, '$1 == "goroutine" { n = NF - 1; print $2 "\t" $(n-14) "\t" $(n-13) "\t" $(n-12) "\t" $(n-5) "\t" $(n-3) "\t" $n }' "$out/c.csv" | sort -n | md5sum)
	[ "$want" = "$got" ] && result "stats --csv equals --json" ok || result "stats --csv equals --json" fail "rows differ"
	head -1 "$out/c.csv" | grep -q '^scope,g,function,goroutines,exec_ns,sched_wait_ns,block_chan_ns,' &&
		result "stats --csv header" ok || result "stats --csv header" fail "$(head -1 "$out/c.csv")"
	cmp -s <("$gtr" stats --json "$f") <("$gtr" stats --json - <"$f" | sed "s|\"file\":\"-\"|\"file\":\"$f\"|") &&
		result "stats of stdin equals stats of the file" ok || result "stats of stdin" fail "differs"
	# Usage and errors.
	for args in "--sort nope" "--json --csv" "--top 0" "--by what" "--frob"; do
		# shellcheck disable=SC2086
		"$gtr" stats $args "$f" >/dev/null 2>&1
		st=$?
		[ $st -eq 2 ] && result "stats $args: usage error" ok || result "stats $args" fail "exit $st"
	done
	"$gtr" stats >/dev/null 2>&1
	[ $? -eq 2 ] && result "stats without a file: usage error" ok || result "stats without a file" fail "exit $?"
	gzip -c "$f" >"$out/gz"
	# A gzip'd trace is read as the trace itself (io/unpack.c): the same
	# statistics but for the line that names the file.
	"$gtr" stats "$out/gz" 2>"$out/err" | sed 1d >"$out/gz.out"
	st=${PIPESTATUS[0]}
	"$gtr" stats "$f" 2>/dev/null | sed 1d >"$out/plain.out"
	[ $st -eq 0 ] && cmp -s "$out/gz.out" "$out/plain.out" &&
		result "stats of a gzipped trace: the plain trace's figures" ok || result "stats of a gzipped trace" fail "exit $st: $(head -c 200 "$out/err")"
	head -c 2000 "$f" >"$out/cut"
	"$gtr" stats "$out/cut" >/dev/null 2>"$out/err"
	st=$?
	[ $st -eq 1 ] && [ "$(wc -l <"$out/err")" -eq 1 ] && grep -q 'at byte [0-9]' "$out/err" &&
		result "stats of a cut trace: exit 1, one line" ok || result "stats of a cut trace" fail "exit $st: $(cat "$out/err")"
fi

echo "statstest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
