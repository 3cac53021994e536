#!/usr/bin/env bash
# tests/pproftest.sh GTR GO_DIR TRACE...
#
# `gtr pprof --type=T` against `go tool trace -pprof=T`, for the four
# types (sched, sync, net, syscall), both profiles read back by `go tool
# pprof -raw`. v2 traces (go 1.22 and later) are compared with Go 1.27's
# go tool trace (it reads every v2 version, and profiles as Go 1.26 and
# later do); v1 traces (go 1.11 to 1.21) with Go 1.21's. Older traces
# are skipped: without symbols, Go 1.21 needs the program's binary.
#
# Checks, per trace and type:
#  - go tool pprof reads gtr's profile, and its sample types are
#    contentions/count and delay/nanoseconds;
#  - the total delay within 0.1% (+1 us) of Go's, the total count within
#    0.1% (+1);
#  - per leaf function (the innermost frame of each sample), the same
#    functions, each delay within 0.1% (+1 us) and count within 0.1% (+1).
# Go converts times from ticks with float arithmetic; gtr with integers,
# so a sample's length may differ by a nanosecond or so.
set -uo pipefail
gtr=$1 godir=$2
shift 2
out=${TMPDIR:-/tmp}/gtr-pproftest.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
pass=0 fail=0

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

# go tool pprof -raw's text into "types T", "total COUNT NS" and
# "leaf FUNC COUNT NS" lines (a sample's leaf is its first location).
summarize() {
	awk '
	/^Samples:/ { mode = "types"; next }
	/^Locations/ { mode = "locs"; next }
	/^Mappings/ { mode = ""; next }
	mode == "types" { types = $0; gsub(/^ +| +$/, "", types); mode = "samples"; next }
	mode == "samples" && $2 ~ /^[0-9]+:$/ {
		n++; cnt[n] = $1; ns[n] = substr($2, 1, length($2) - 1); first[n] = NF >= 3 ? $3 : ""
		next
	}
	mode == "locs" && $1 ~ /^[0-9]+:$/ && $2 ~ /^0x/ {
		id = substr($1, 1, length($1) - 1); i = 3
		if ($3 ~ /^M=/) i = 4
		fn[id] = $i
	}
	END {
		print "types", types
		for (k = 1; k <= n; k++) {
			tc += cnt[k]; tn += ns[k]
			f = first[k] == "" ? "<none>" : fn[first[k]]
			lc[f] += cnt[k]; ln[f] += ns[k]
		}
		printf "total %d %d\n", tc, tn
		for (f in lc) printf "leaf %s %d %d\n", f, lc[f], ln[f]
	}'
}

# Compares two summaries: prints nothing when they agree, else what differs.
compare() {
	awk '
	function near(a, b, slack, d) { d = a - b; if (d < 0) d = -d; return d <= (b < 0 ? -b : b) * 0.001 + slack }
	FNR == 1 { side++ }
	$1 == "types" { t = $0; sub(/^types /, "", t); types[side] = t }
	$1 == "total" { tc[side] = $2; tn[side] = $3 }
	$1 == "leaf" { f = $2; for (i = 3; i <= NF - 2; i++) f = f " " $i; c[side, f] = $(NF - 1); d[side, f] = $NF; seen[f] = 1 }
	END {
		if (types[1] != "contentions/count delay/nanoseconds") bad = bad "; sample types " types[1]
		if (!near(tc[1], tc[2], 1)) bad = bad "; count " tc[1] " vs go " tc[2]
		if (!near(tn[1], tn[2], 1000)) bad = bad "; delay " tn[1] " ns vs go " tn[2] " ns"
		for (f in seen) {
			if (!((1, f) in c)) { bad = bad "; leaf " f " only in go"; continue }
			if (!((2, f) in c)) { bad = bad "; leaf " f " only in gtr"; continue }
			if (!near(c[1, f], c[2, f], 1) || !near(d[1, f], d[2, f], 1000))
				bad = bad "; leaf " f ": " c[1, f] "/" d[1, f] " ns vs go " c[2, f] "/" d[2, f] " ns"
		}
		if (bad != "") print substr(bad, 3, 600)
	}' "$1" "$2"
}

# A tool of a toolchain, as a binary: Go 1.24 and later build trace and
# pprof on first use and `go tool -n` names the cached binary; running it
# directly spares the go command's start-up on every call.
tool() { # GO NAME
	local d
	d=$("$1" env GOTOOLDIR 2>/dev/null)
	if [ -x "$d/$2" ]; then
		echo "$d/$2"
	else
		"$1" tool -n "$2" 2>/dev/null || echo "$1 tool $2"
	fi
}
declare -A tools

for f in "$@"; do
	v=$(version_of "$f")
	[ -n "$v" ] || continue
	if [ "$v" -ge 22 ]; then
		go=$godir/go-1.27/bin/go
	elif [ "$v" -ge 11 ]; then
		go=$godir/go-1.21/bin/go
	else
		continue
	fi
	[ -x "$go" ] || continue
	if [ -z "${tools[$go]:-}" ]; then
		tools[$go]="$(tool "$go" trace)|$(tool "$go" pprof)"
	fi
	trace=${tools[$go]%%|*} pprof=${tools[$go]#*|}
	name=$(basename "$f")
	for ty in sched sync net syscall; do
		if ! $trace -pprof=$ty "$f" >"$out/go.pb" 2>"$out/go.err"; then
			echo "skip $name $ty: go tool trace failed: $(head -1 "$out/go.err")"
			continue
		fi
		if ! "$gtr" pprof --type=$ty -o "$out/gtr.pb.gz" "$f" 2>"$out/gtr.err"; then
			result "$name $ty" fail "gtr pprof failed: $(head -1 "$out/gtr.err")"
			continue
		fi
		if ! $pprof -raw "$out/gtr.pb.gz" 2>"$out/pp.err" | summarize >"$out/g.sum" ||
			! grep -q '^total' "$out/g.sum"; then
			result "$name $ty" fail "go tool pprof cannot read gtr's profile: $(head -1 "$out/pp.err")"
			continue
		fi
		$pprof -raw "$out/go.pb" 2>/dev/null | summarize >"$out/o.sum"
		d=$(compare "$out/g.sum" "$out/o.sum")
		if [ -z "$d" ]; then
			result "$name $ty ($(awk '/^total/ { print $2 " intervals, " $3 " ns" }' "$out/g.sum"))" ok ""
		else
			result "$name $ty" fail "$d"
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
