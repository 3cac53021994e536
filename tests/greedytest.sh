#!/usr/bin/env bash
# tests/greedytest.sh GTR GO_DIR TRACE...
#
# The top slices of `gtr greedy` against slices computed independently
# from Go's own readers: from the goroutine transitions of Go 1.27's
# `go tool trace -d=parsed` (go 1.11 and later: a slice runs from a
# transition to Running to the next transition out of it), and from the
# events of Go 1.15's `go tool trace -d` (go 1.5 to 1.10). The same
# goroutines, in the same order, with durations within 1 us.
set -uo pipefail
gtr=$1 godir=$2
shift 2
N=10
out=${TMPDIR:-/tmp}/gtr-greedytest.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
pass=0 fail=0

version_of() { head -c 16 "$1" | sed -n 's/^go 1\.\([0-9]*\) trace.*/\1/p' | tr -d '\0'; }

# "DURATION START G" per slice; a slice still open at the end is cut at
# the last timestamp.
slices_go_parsed() {
	awk '/^M=/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^Time=/) { t = substr($i, 6) + 0; if (t > last) last = t }
	}
	/^M=.* StateTransition .*GoID=/ {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^GoID=/) g = substr($i, 6)
			else if ($i ~ /->/) { split($i, st, "->"); break }
		}
		# A status at a generation boundary (Running->Running) is no
		# transition: the slice goes on.
		if (st[1] == st[2]) next
		if (st[1] == "Running" && (g in start)) { print t - start[g], start[g], g; delete start[g] }
		if (st[2] == "Running") start[g] = t
	}
	END { for (g in start) print last - start[g], start[g], g }'
}

# Go 1.15 prints "TS Name p=P g=G off=..."; a goroutine runs from
# GoStart/GoStartLabel to its next event that takes it off the P, and a
# syscall (GoSysCall) ends a slice as DESIGN.md defines it.
slices_go15() {
	awk '/^[0-9]+ [A-Za-z]+ p=/ {
		t = $1 + 0; if (t > last) last = t; name = $2; g = substr($4, 3)
		if (name == "GoStart" || name == "GoStartLabel") {
			for (i = 5; i <= NF; i++) if ($i ~ /^g=/) { ng = substr($i, 3); break }
			start[ng] = t
			next
		}
		# A GoSysBlock right after GoSysCall says that syscall blocked:
		# the goroutine did not run on after it.
		if (name == "GoSysBlock" && insys[g]) { delete start[g]; delete insys[g]; next }
		delete insys[g]
		if (name ~ /^(GoEnd|GoStop|GoSched|GoPreempt|GoBlock.*|GoSleep|GoSysCall|GoSysBlock|GoWaiting|GoInSyscall)$/ && (g in start)) {
			print t - start[g], start[g], g; delete start[g]
			# A syscall that did not block ends the slice; the goroutine
			# runs on in a new one.
			if (name == "GoSysCall") { start[g] = t; insys[g] = 1 }
		}
	}
	END { for (g in start) print last - start[g], start[g], g }'
}

# Go's side lists 10 more than gtr's: a slice at the cut may tie with one
# just past it, and either is right.
top_n() { sort -k1,1nr -k2,2n -k3,3n | head -n "$((N + 10))"; }

for f in "$@"; do
	name=$(basename "$f")
	v=$(version_of "$f")
	[ -n "$v" ] || continue
	if [ "$v" -ge 11 ] && [ -x "$godir/go-1.27/bin/go" ]; then
		"$godir/go-1.27/bin/go" tool trace -d=parsed "$f" 2>/dev/null | slices_go_parsed | top_n >"$out/go"
		oracle="go 1.27 -d=parsed"
	elif [ -x "$godir/go-1.15/bin/go" ]; then
		bin=""
		# Go 1.15 reads go 1.5 traces only with a binary argument, for symbols.
		[ "$v" -le 6 ] && bin=/bin/true
		"$godir/go-1.15/bin/go" tool trace -d $bin "$f" 2>/dev/null | slices_go15 | top_n >"$out/go"
		oracle="go 1.15 -d"
	else
		continue
	fi
	if ! "$gtr" greedy --json -n "$N" "$f" >"$out/json" 2>"$out/err"; then
		fail=$((fail + 1))
		echo "FAIL greedy $name: $(head -1 "$out/err")"
		continue
	fi
	grep -o '"rank":[0-9]*,"duration_ns":[0-9]*,"duration_s":[0-9.]*,"g":[0-9]*' "$out/json" |
		sed -E 's/.*"duration_ns":([0-9]+).*"g":([0-9]+)/\1 \2/' >"$out/gtr"
	if msg=$(awk -v tol=1000 -v n="$N" '
			{ f = FILENAME == ARGV[1] ? 1 : 2 }
		f == 1 { gd[++n1] = $1; gg[n1] = $3 }
		f == 2 { td[++n2] = $1; tg[n2] = $2 }
		END {
			want = n1 < n ? n1 : n
			if (n2 != want) { printf "%d slices from go, %d from gtr", want, n2; exit 1 }
			if (n2 == 0) { print "no slices"; exit 1 }
			for (i = 1; i <= n2; i++) {
				d = gd[i] - td[i]; if (d < 0) d = -d
				if (d > tol) { printf "#%d: go G%s %d ns, gtr G%s %d ns", i, gg[i], gd[i], tg[i], td[i]; exit 1 }
				if (gg[i] == tg[i])
					continue
				# Equal durations may list goroutines in either order,
				# at the cut too: gtr G must have a slice as long in go.
				tie = 0
				for (j = 1; j <= n1 && !tie; j++) {
					d = gd[j] - td[i]; if (d < 0) d = -d
					tie = gg[j] == tg[i] && d <= tol
				}
				if (!tie) { printf "#%d: go G%s, gtr G%s (%d ns)", i, gg[i], tg[i], gd[i]; exit 1 }
			}
		}' "$out/go" "$out/gtr"); then
		pass=$((pass + 1))
		echo "ok   greedy $name (go 1.$v, against $oracle, top $(wc -l <"$out/gtr"))"
	else
		fail=$((fail + 1))
		echo "FAIL greedy $name (go 1.$v, against $oracle): $msg"
	fi
done
echo "greedytest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
