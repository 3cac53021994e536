#!/usr/bin/env bash
# tests/viewstest.sh GTR GO_DIR TRACE...
#
# `gtr tasks`, `gtr regions`, `gtr mmu` and `gtr goroutine` against Go's
# own trace reader, internal/trace, asked by the programs of
# tests/oracle/ (built by tests/oracle/build.sh into $GTR_ORACLE_DIR,
# default ${TMPDIR:-/tmp}/gtr-oracle-$UID, kept between runs). Per trace:
#
#  - tasks (go 1.11 traces and later; Go 1.27's reader, which reads v1
#    traces through its conversion): per type the same count and number
#    of complete tasks, total, p50, p90, p99 and max within 1 us per task;
#    every complete task with the same start and end within 1 us; the
#    logs of every complete task the same (goroutine, category, message,
#    in order) at times within 1 us;
#  - regions: per type the same count and complete count; every complete
#    region (goroutine, type) with start and end within 1 us;
#  - mmu: the curve at gtr's windows within 1e-6 of Go's MMU (Go 1.27's
#    MutatorUtilizationV2 for v2 traces, Go 1.21's MutatorUtilization for
#    v1 traces), for STW only, with assists, with background workers and
#    assists (go tool trace's default), with sweeping too, each system-wide
#    and per P. For v2 traces with background workers, Go's function is
#    fed one goroutine id per run of a mark worker (tests/oracle/views:
#    oneRunPerLabel), the one difference core/analysis/mmu.h states. For
#    v1 traces with sweeping, system-wide, 0.002: Go 1.21 and gtr order
#    events of different Ps at the same nanosecond differently, and the
#    sweeps that start and end at one instant then leave a different
#    utilization behind (Go keeps the lowest at an instant);
#  - goroutine: for the first goroutines and the one that ran longest,
#    time Running, Runnable, Waiting and in syscalls within 1 us (plus
#    1 ns per v1 syscall, which Go's conversion gives a length of 1 ns),
#    and the same creation and exit times within 1 us.
#
# GTR_VIEWS_FULL=1 runs every MMU variant on every trace (by default the
# full set runs on the gcpressure and greedy traces, the default variant
# on the others). Prints one line per check and "N passed, N failed".
set -uo pipefail
gtr=$1 godir=$2
shift 2
out=${TMPDIR:-/tmp}/gtr-viewstest.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
pass=0 fail=0
oracle=${GTR_ORACLE_DIR:-${TMPDIR:-/tmp}/gtr-oracle-$(id -u)}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

result() { # name status detail
	if [ "$2" = ok ]; then
		pass=$((pass + 1))
		echo "ok   $1"
	else
		fail=$((fail + 1))
		echo "FAIL $1: $3"
	fi
}

version_of() { head -c 16 "$1" | sed -n 's/^go 1\.\([0-9]*\) trace.*/\1/p' | tr -d '\0'; }

if ! nice "$here/oracle/build.sh" "$godir" "$oracle" >"$out/build.log" 2>&1; then
	result "build the oracles" fail "$(tail -3 "$out/build.log")"
	echo
	echo "$pass passed, $fail failed"
	exit 1
fi
views=$oracle/views viewsv1=$oracle/viewsv1

# Per type "name count complete total p50 p90 p99 max" from "name start end" lines
# (start or end -1 when not in the trace), nearest-rank percentiles.
type_stats() {
	awk '{ print $1, ($2 >= 0 && $3 >= 0) ? $3 - $2 : -1 }' | sort -k1,1 -k2,2n | awk '
	function flush() {
		if (name == "") return
		printf "%s %d %d %d %d %d %d %d\n", name, cnt, nd, tot, pr(0.5), pr(0.9), pr(0.99), nd ? d[nd] : 0
	}
	function pr(q,  k) { if (!nd) return 0; k = int(q * nd); if (k < q * nd) k++; if (k < 1) k = 1; return d[k] }
	{
		if ($1 != name) { flush(); name = $1; cnt = 0; nd = 0; tot = 0 }
		cnt++
		if ($2 >= 0) { nd++; d[nd] = $2; tot += $2 }
	}
	END { flush() }' | sort
}

# Compares two "key... v1 v2 ..." files: same keys (first nkey fields), numbers within tol.
compare_num() { # A B NKEY TOL -> prints the first mismatch, status 1
	awk -v nkey="$3" -v tol="$4" '
	NR == FNR { a[FNR] = $0; na = FNR; next }
	{ b[FNR] = $0; nb = FNR }
	END {
		if (na != nb) { printf "%d lines against %d\n", na, nb; exit 1 }
		for (i = 1; i <= na; i++) {
			n = split(a[i], x, " "); m = split(b[i], y, " ")
			if (n != m) { printf "line %d: %s | %s\n", i, a[i], b[i]; exit 1 }
			for (k = 1; k <= n; k++) {
				if (k <= nkey) { if (x[k] != y[k]) { printf "line %d: %s | %s\n", i, a[i], b[i]; exit 1 } ; continue }
				dd = x[k] - y[k]; if (dd < 0) dd = -dd
				t = tol; if (t ~ /x$/) t = substr(t, 1, length(t) - 1) * (k == 4 && x[3] > 0 ? x[3] : 1)
				if (dd > t + 0) { printf "line %d field %d: %s | %s\n", i, k, a[i], b[i]; exit 1 }
			}
		}
	}' "$1" "$2"
}

check_tasks() { # TRACE NAME
	local f=$1 name=$2 msg
	"$views" tasks "$f" >"$out/o.tasks" 2>"$out/o.err" || { result "$name tasks" fail "oracle: $(head -1 "$out/o.err")"; return; }
	"$gtr" tasks --json -n 1000000 --depth 1 "$f" >"$out/g.json" 2>"$out/g.err" || { result "$name tasks" fail "gtr: $(head -1 "$out/g.err")"; return; }
	# Types: the oracle's task lines through type_stats; names quoted as Go quotes them.
	awk '$1 == "task" { n = $0; sub(/^task [0-9-]+ [0-9-]+ [0-9-]+ [0-9-]+ /, "", n); gsub(/ /, "\\x20", n); print n, $4, $5 }' \
		"$out/o.tasks" | type_stats >"$out/o.types"
	jq -r '.types[] | "\(.type | @json | gsub(" "; "\\x20")) \(.count) \(.complete) \(.total_ns) \(.p50_ns) \(.p90_ns) \(.p99_ns) \(.max_ns)"' \
		"$out/g.json" | sort >"$out/g.types"
	if ! msg=$(compare_num "$out/g.types" "$out/o.types" 3 1000x); then
		result "$name tasks: per type" fail "$msg"
		return
	fi
	# Every complete task, by id.
	awk '$1 == "task" && $4 >= 0 && $5 >= 0 { print $2, $4, $5 }' "$out/o.tasks" | sort -n >"$out/o.list"
	jq -r '.top[] | "\(.id) \(.start_ns) \(.end_ns)"' "$out/g.json" | sort -n >"$out/g.list"
	if ! msg=$(compare_num "$out/g.list" "$out/o.list" 1 1000); then
		result "$name tasks: every task" fail "$msg"
		return
	fi
	# The logs of the complete tasks.
	awk 'NR == FNR { keep[$1] = 1; next } $1 == "log" && ($2 in keep)' "$out/o.list" "$out/o.tasks" |
		awk '{ print $2, $4, $3 }' >"$out/o.logs"
	jq -r '.top[] | .task_logs[] | "\(.task) \(.g) \(.ts_ns)"' "$out/g.json" >"$out/g.logs"
	awk '$1 == "log" { c = $0; sub(/^log [0-9]+ [0-9-]+ [0-9-]+ /, "", c); print $2, c }' "$out/o.tasks" |
		awk 'NR == FNR { keep[$1] = 1; next } ($1 in keep)' "$out/o.list" - >"$out/o.text"
	jq -r '.top[] | .task_logs[] | "\(.task) \(.category | @json) \(.message | @json)"' "$out/g.json" >"$out/g.text"
	sort -k1,1n -s "$out/o.logs" >"$out/o.logs.s"
	sort -k1,1n -s "$out/g.logs" >"$out/g.logs.s"
	if ! msg=$(compare_num "$out/g.logs.s" "$out/o.logs.s" 2 1000); then
		result "$name tasks: logs" fail "$msg"
		return
	fi
	if ! cmp -s <(sort -k1,1n -s "$out/g.text") <(sort -k1,1n -s "$out/o.text"); then
		result "$name tasks: logs" fail "texts differ: $(diff <(sort -k1,1n -s "$out/g.text") <(sort -k1,1n -s "$out/o.text") | head -2 | tr '\n' ' ')"
		return
	fi
	result "$name tasks ($(wc -l <"$out/o.list") tasks, $(wc -l <"$out/g.logs") logs)" ok
}

check_regions() { # TRACE NAME
	local f=$1 name=$2 msg
	"$views" regions "$f" >"$out/o.regions" 2>"$out/o.err" || { result "$name regions" fail "oracle: $(head -1 "$out/o.err")"; return; }
	"$gtr" regions --json -n 1000000 --depth 1 "$f" >"$out/g.json" 2>"$out/g.err" || { result "$name regions" fail "gtr: $(head -1 "$out/g.err")"; return; }
	# A region Go closed at a goroutine's exit ends with a state transition; one open at the end, "none".
	awk '{ n = $0; sub(/^region [0-9]+ [0-9]+ [0-9-]+ [0-9-]+ [A-Za-z]+ /, "", n); gsub(/ /, "\\x20", n);
	       print n, $4, ($6 == "none" ? -1 : $5) }' "$out/o.regions" | type_stats >"$out/o.types"
	jq -r '.types[] | "\(.type | @json | gsub(" "; "\\x20")) \(.count) \(.complete) \(.total_ns) \(.p50_ns) \(.p90_ns) \(.p99_ns) \(.max_ns)"' \
		"$out/g.json" | sort >"$out/g.types"
	if ! msg=$(compare_num "$out/g.types" "$out/o.types" 3 1000x); then
		result "$name regions: per type" fail "$msg"
		return
	fi
	awk '$4 >= 0 && $6 != "none" { n = $0; sub(/^region [0-9]+ [0-9]+ [0-9-]+ [0-9-]+ [A-Za-z]+ /, "", n); gsub(/ /, "\\x20", n); print $2, n, $4, $5 }' \
		"$out/o.regions" | sort -k1,1n -k3,3n -k2,2 >"$out/o.list"
	jq -r '.top[] | "\(.g) \(.type | @json | gsub(" "; "\\x20")) \(.start_ns) \(.end_ns)"' "$out/g.json" |
		sort -k1,1n -k3,3n -k2,2 >"$out/g.list"
	if ! msg=$(compare_num "$out/g.list" "$out/o.list" 2 1000); then
		result "$name regions: every region" fail "$msg"
		return
	fi
	result "$name regions ($(wc -l <"$out/o.list") complete)" ok
}

check_mmu() { # TRACE NAME VERSION INCLUDE PERP
	local f=$1 name=$2 v=$3 inc=$4 perp=$5 msg tol=0.000001
	local gflags=(--include "$inc") oflags=$inc label=$inc
	if [ "$perp" = 1 ]; then
		gflags+=(--per-p)
		oflags=$oflags,perproc
		label="$label per-p"
	fi
	"$gtr" mmu --json "${gflags[@]}" "$f" >"$out/g.json" 2>"$out/g.err" || { result "$name mmu $label" fail "gtr: $(head -1 "$out/g.err")"; return; }
	local ws
	ws=$(jq -r '.curve[].window_ns' "$out/g.json" | tr '\n' ' ')
	local o=$views
	if [ "$v" -le 21 ]; then
		o=$viewsv1
		[[ $inc == *sweep* ]] && [ "$perp" != 1 ] && tol=0.002
	fi
	# shellcheck disable=SC2086 # the windows are separate arguments
	"$o" mmu "$f" "$oflags" $ws >"$out/o.mmu" 2>"$out/o.err" || { result "$name mmu $label" fail "oracle: $(head -1 "$out/o.err")"; return; }
	if grep -q '^mmu none' "$out/o.mmu"; then
		if [ "$(jq '.series' "$out/g.json")" = 0 ]; then
			result "$name mmu $label (no function)" ok
		else
			result "$name mmu $label" fail "Go finds no utilization function, gtr does"
		fi
		return
	fi
	awk '$1 == "mmu" { print $2, $3 }' "$out/o.mmu" >"$out/o.pts"
	jq -r '.curve[] | "\(.window_ns) \(.mmu)"' "$out/g.json" >"$out/g.pts"
	if ! msg=$(compare_num "$out/g.pts" "$out/o.pts" 1 "$tol"); then
		result "$name mmu $label" fail "$msg"
		return
	fi
	result "$name mmu $label ($(wc -l <"$out/g.pts") windows, within $tol)" ok
}

check_goroutines() { # TRACE NAME VERSION
	local f=$1 name=$2 v=$3 g line
	"$views" goroutines "$f" >"$out/o.gs" 2>"$out/o.err" || { result "$name goroutine" fail "oracle: $(head -1 "$out/o.err")"; return; }
	local ids
	ids=$( (awk '$1 == "g" { print $2 }' "$out/o.gs" | head -4; sort -k3,3nr "$out/o.gs" | awk '{ print $2; exit }') | sort -nu)
	local bad="" n=0
	for g in $ids; do
		line=$(awk -v g="$g" '$1 == "g" && $2 == g' "$out/o.gs")
		if ! "$gtr" goroutine --json --transitions 0 "$g" "$f" >"$out/g.json" 2>"$out/g.err"; then
			bad="G$g: gtr: $(head -1 "$out/g.err")"
			break
		fi
		# Go's syscall lengths in a v1 trace are 1 ns each for those that did not block.
		local slack=1000
		[ "$v" -le 21 ] && slack=$((1000 + $(jq '[.transition_counts[] | select(.to == "Syscall") | .count] | add // 0' "$out/g.json")))
		if ! bad=$(jq -r --arg line "$line" --argjson slack "$slack" '
			($line | split(" ")) as $o |
			def near($a; $b): (($a - $b) | fabs) <= $slack;
			if (near(.states_ns.Running; ($o[2] | tonumber)) and near(.states_ns.Runnable; ($o[3] | tonumber))
			    and near(.states_ns.Waiting; ($o[4] | tonumber)) and near(.states_ns.Syscall; ($o[5] | tonumber))
			    and (if .created_ns >= 0 then near(.created_ns; ($o[6] | tonumber)) else true end)
			    and (if ($o[7] | tonumber) >= 0 then near(.exited_ns; ($o[7] | tonumber)) else .exited_ns == -1 end))
			then empty
			else "G\(.g): gtr run/runnable/wait/syscall \(.states_ns.Running)/\(.states_ns.Runnable)/\(.states_ns.Waiting)/\(.states_ns.Syscall) created \(.created_ns) exited \(.exited_ns); Go: \($line)"
			end' "$out/g.json") || [ -n "$bad" ]; then
			[ -n "$bad" ] || bad="G$g: jq failed"
			break
		fi
		n=$((n + 1))
	done
	if [ -n "$bad" ]; then
		result "$name goroutine" fail "$bad"
	else
		result "$name goroutine ($n goroutines)" ok
	fi
}

for f in "$@"; do
	v=$(version_of "$f")
	[ -n "$v" ] || continue
	name=${f##*/}
	if [ "$v" -ge 11 ]; then
		check_tasks "$f" "$name"
		check_regions "$f" "$name"
		check_goroutines "$f" "$name" "$v"
	fi
	if [ "${GTR_VIEWS_FULL:-0}" = 1 ] || [[ $name == gcpressure-* || $name == greedy-* ]]; then
		for inc in stw stw,assist stw,background,assist stw,background,assist,sweep; do
			check_mmu "$f" "$name" "$v" "$inc" 0
			check_mmu "$f" "$name" "$v" "$inc" 1
		done
	else
		check_mmu "$f" "$name" "$v" stw,background,assist 0
		check_mmu "$f" "$name" "$v" stw,background,assist 1
	fi
done

echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
