#!/usr/bin/env bash
# tests/difftest.sh GTR GO_DIR TRACE...
#
# Differential tests against Go's own trace readers, per trace:
#  - go 1.11 and later: the goroutine state transitions of
#    `gtr dump --transitions` against the StateTransition lines of Go 1.27's
#    `go tool trace -d=parsed`: the same goroutines, the same transitions
#    (from->to and reason) in the same order for each goroutine, and times
#    within 1 us once both are put on the same time base;
#  - go 1.5 to 1.11: the events of `gtr dump` against Go 1.15's
#    `go tool trace -d`: the same events (name, P, G) in the same order
#    (events at the same nanosecond in any order), times within 1 us;
#  - v2 (go 1.22 and later): `gtr footprint` counts and bytes equal to Go 1.27's
#    `go tool trace -d=footprint`.
# Prints one line per check and a closing "N passed, N failed" line.
set -uo pipefail
gtr=$1 godir=$2
shift 2
out=${TMPDIR:-/tmp}/gtr-difftest.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
pass=0 fail=0 skip=0

# Go 1.15 reads go 1.5 traces only with the traced program's binary as an
# argument, for symbols; any file will do when only events are printed.
go15_binary_arg() { [ "$1" -le 6 ] && echo /bin/true; }

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

# Canonical transition lines, "KIND ID FROM->TO REASON TIME", from either tool.
canon_go() {
	awk '/^M=.* StateTransition / {
		t = ""; id = ""; kind = ""; tr = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^Time=/) t = substr($i, 6)
			else if ($i ~ /^GoID=/) { kind = "G"; id = substr($i, 6) }
			else if ($i ~ /^ProcID=/) { kind = "P"; id = substr($i, 8) }
			else if ($i ~ /->/ && tr == "") tr = $i
		}
		r = $0; sub(/.* Reason=/, "", r)
		if (kind == "G") print kind, id, tr, r, t
	}'
}
canon_gtr() {
	awk '$2 ~ /^G=/ { r = $0; sub(/.* reason=/, "", r); print "G", substr($2, 3), $3, r, $1 }'
}

# Compares two canonical files: per goroutine, the same sequence, and
# times within 1000 ns after aligning the first transitions.
compare_transitions() {
	awk -v tol=1000 '
	{ f = FILENAME == ARGV[1] ? 1 : 2 }
	{ k = $1 " " $2; n = $NF; $NF = ""; line = $0
	  if (f == 1) { if (!ob) { ob = n; obs = 1 } o[k, ++no[k]] = line; ot[k, no[k]] = n - ob; keys[k] = 1 }
	  else        { if (!gb) { gb = n; gbs = 1 } g[k, ++ng[k]] = line; gt[k, ng[k]] = n - gb; keys[k] = 1 } }
	END {
		bad = 0; total = 0
		for (k in keys) {
			if (no[k] != ng[k]) { if (bad++ < 5) printf "%s: %d transitions in go, %d in gtr\n", k, no[k], ng[k] }
			m = no[k] < ng[k] ? no[k] : ng[k]
			for (i = 1; i <= m; i++) {
				total++
				if (o[k, i] != g[k, i]) { if (bad++ < 5) printf "%s #%d: go [%s] gtr [%s]\n", k, i, o[k, i], g[k, i]; break }
				d = ot[k, i] - gt[k, i]; if (d < 0) d = -d
				if (d > tol) { if (bad++ < 5) printf "%s #%d %s: time differs by %d ns\n", k, i, o[k, i], d; break }
			}
		}
		if (total == 0) { print "no transitions compared"; bad++ }
		exit bad > 0
	}' "$1" "$2"
}

# Canonical events "NAME P G TIME": Go 1.15 prints "TS Name p=P g=G off=...".
canon_go15() {
	awk '/^[0-9]+ [A-Za-z]+ p=/ { p = substr($3, 3); g = substr($4, 3); print $2, p, g, $1 }'
}
# Go 1.15's parser reports the P-local variants of GoStart, GoUnblock and
# GoSysExit under the plain names; gtr dump prints the names on the wire.
canon_gtr_events() {
	awk '$2 ~ /^P=/ { p = substr($2, 3); g = substr($4, 3); if (p == "-") p = -1; if (g == "-") g = 0
		name = $5; sub(/Local$/, "", name); print name, p, g, $1 }'
}
compare_events() {
	awk -v tol=1000 '
	{ f = FILENAME == ARGV[1] ? 1 : 2 }
	{ n = $NF; $NF = ""; if (f == 1) { o[++no] = $0; ot[no] = n } else { g[++ng] = $0; gt[ng] = n } }
	END {
		if (no != ng) { printf "%d events in go, %d in gtr\n", no, ng; exit 1 }
		if (no == 0) { print "no events compared"; exit 1 }
		for (i = 1; i <= no; i++) {
			if (o[i] != g[i]) { printf "event #%d: go [%s] gtr [%s]\n", i, o[i], g[i]; exit 1 }
			d = ot[i] - gt[i]; if (d < 0) d = -d
			if (d > tol) { printf "event #%d [%s]: time differs by %d ns\n", i, o[i], d; exit 1 }
		}
	}' "$1" "$2"
}

# Go's tabwriter pads columns with two spaces or more; names may hold one.
canon_footprint() { awk -F'  +' 'NR > 2 && $4 != 0 { print $1 "|" $2 "|" $4 }' | sort; }

for f in "$@"; do
	name=$(basename "$f")
	v=$(version_of "$f")
	if [ -z "$v" ]; then
		result "$name" fail "no trace header"
		continue
	fi
	if [ "$v" -ge 11 ] && [ -x "$godir/go-1.27/bin/go" ]; then
		"$godir/go-1.27/bin/go" tool trace -d=parsed "$f" 2>/dev/null | canon_go >"$out/go.t"
		if ! "$gtr" dump --transitions "$f" 2>"$out/err" | canon_gtr >"$out/gtr.t"; then :; fi
		if [ -s "$out/err" ]; then
			result "transitions $name (go 1.$v)" fail "$(head -1 "$out/err")"
		elif msg=$(compare_transitions "$out/go.t" "$out/gtr.t"); then
			result "transitions $name (go 1.$v, $(wc -l <"$out/go.t") transitions)" ok
		else
			result "transitions $name (go 1.$v)" fail "$(echo "$msg" | head -3 | tr '\n' ';')"
		fi
	fi
	if [ "$v" -le 11 ] && [ -x "$godir/go-1.15/bin/go" ]; then
		# Events with equal timestamps have no defined order: both lists
		# are put in (time, event) order, and gtr's must already be in
		# time order.
		"$godir/go-1.15/bin/go" tool trace -d $(go15_binary_arg "$v") "$f" 2>/dev/null | canon_go15 | sort -k4,4n -k1,3 >"$out/go.e"
		"$gtr" dump "$f" 2>"$out/err" | canon_gtr_events >"$out/gtr.raw"
		sort -s -k4,4n "$out/gtr.raw" | cmp -s - "$out/gtr.raw" || echo "gtr dump is not in time order" >>"$out/err"
		sort -k4,4n -k1,3 "$out/gtr.raw" >"$out/gtr.e"
		if [ -s "$out/err" ]; then
			result "events $name (go 1.$v)" fail "$(head -1 "$out/err")"
		elif msg=$(compare_events "$out/go.e" "$out/gtr.e"); then
			result "events $name (go 1.$v, $(wc -l <"$out/go.e") events)" ok
		else
			result "events $name (go 1.$v)" fail "$msg"
		fi
	fi
	if [ "$v" -ge 22 ] && [ -x "$godir/go-1.27/bin/go" ]; then
		"$godir/go-1.27/bin/go" tool trace -d=footprint "$f" 2>/dev/null | canon_footprint >"$out/go.f"
		"$gtr" footprint "$f" 2>"$out/err" | canon_footprint >"$out/gtr.f"
		if [ -s "$out/err" ]; then
			result "footprint $name (go 1.$v)" fail "$(head -1 "$out/err")"
		elif cmp -s "$out/go.f" "$out/gtr.f"; then
			result "footprint $name (go 1.$v)" ok
		else
			result "footprint $name (go 1.$v)" fail "$(diff "$out/go.f" "$out/gtr.f" | head -4 | tr '\n' ';')"
		fi
	fi
done
echo "difftest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
