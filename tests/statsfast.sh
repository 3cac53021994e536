#!/usr/bin/env bash
# tests/statsfast.sh GTR TRACE...
#
# `gtr stats --fast` (core/analysis/stats_fast.c) against the ordered
# path. For every trace:
#  - `stats --fast --json` prints the same thing with -j1, -j2 and -j3;
#  - against `stats --ordered --json`: the same events, goroutines,
#    functions, each goroutine's function and slice count; every time of
#    a goroutine, a function and the total within 1 us + 2 ns per slice
#    of that row plus one (the intervals it sums: each end may be pushed
#    by Go's reader by the events that share its nanosecond, or that it
#    takes out of time order in a generation's first pile; the same in
#    Go's stress mode, where piles are many); p50 and
#    p99 within one histogram bin (1/64) of that, the longest slice
#    within the same bound. The largest difference seen is printed;
#  - every v2 trace read without loss takes the parallel path (`-v` says
#    which ran) unless `-v` says only Go's order can tell; v1 traces take
#    the ordered one;
#  - a trace the ordered path refuses is refused alike, with the same
#    words and byte offset: damaged copies of the two largest Go 1.23+
#    traces given (12 bytes of 0xff at seven places), beside those given;
#  - copies of the Go 1.22+ syscalls traces whose stealing Ms' batches are
#    written 1000 clock ticks later (Go's reader then puts what the robbed
#    M does after the steal): the bound holds, or -v says why not;
#  - `diff --fast` (greedy --fast's slices, stats --fast's times) against
#    `diff` of each v2 trace with itself: every count the same, every time
#    within the bound above (the slices of the whole trace), percentiles
#    within one bin more, ratios within 0.1%, the top slices' durations
#    within the bound, the same
#    functions; and `check --fast` of two traces against a baseline the
#    ordered `check` wrote: every case unchanged.
set -uo pipefail
gtr=$1
shift
out=${TMPDIR:-/tmp}/gtr-statsfast.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
pass=0 fail=0 parallel=0 eligible=0
ok() { pass=$((pass + 1)); echo "ok   statsfast $1"; }
bad() { fail=$((fail + 1)); echo "FAIL statsfast $1"; }

cat >"$out/cmp.py" <<'PY'
import json, sys
o = json.load(open(sys.argv[1])); f = json.load(open(sys.argv[2])); base = int(sys.argv[3])
bad, worst = [], [0, ""]
TIMES = ("exec_ns", "sched_wait_ns", "block_total_ns", "syscall_ns", "gc_assist_ns")
def row(what, a, b):
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k), b.get(k)
        if k in TIMES or k == "block_ns" or k.startswith("slice_"):
            continue
        if x != y:
            bad.append("%s %s: %r vs %r" % (what, k, x, y))
    lim = base + 2 * (a.get("slices", 0) + 1)
    pairs = [(k, a[k], b[k]) for k in TIMES] + \
            [("block " + r, a["block_ns"][r], b["block_ns"][r]) for r in a["block_ns"]] + \
            [("slice_max_ns", a["slice_max_ns"], b["slice_max_ns"])]
    for k, x, y in pairs:
        d = abs(x - y)
        if d > worst[0]:
            worst[:] = [d, "%s %s" % (what, k)]
        if d > lim:
            bad.append("%s %s: %d vs %d (bound %d)" % (what, k, x, y, lim))
    for k in ("slice_p50_ns", "slice_p99_ns"):
        x, y = a[k], b[k]
        if abs(x - y) > lim + max(x, y) // 64:
            bad.append("%s %s: %d vs %d" % (what, k, x, y))
for k in ("schema", "goroutines_total", "functions_total", "sort"):
    if o.get(k) != f.get(k):
        bad.append("%s: %r vs %r" % (k, o.get(k), f.get(k)))
if o["trace"] != f["trace"]:
    bad.append("trace: %r vs %r" % (o["trace"], f["trace"]))
row("total", o["total"], f["total"])
og = {g["g"]: g for g in o["goroutines"]}; fg = {g["g"]: g for g in f["goroutines"]}
if set(og) != set(fg):
    bad.append("goroutines differ: %r" % sorted(set(og) ^ set(fg))[:5])
for g in sorted(set(og) & set(fg)):
    row("G%d" % g, og[g], fg[g])
of = {x["function"]: x for x in o["functions"]}; ff = {x["function"]: x for x in f["functions"]}
if set(of) != set(ff):
    bad.append("functions differ: %r" % sorted(set(of) ^ set(ff))[:5])
for n in sorted(set(of) & set(ff)):
    row(n, of[n], ff[n])
for b in bad[:5]:
    print("  " + b)
print("worst %d ns (%s)" % (worst[0], worst[1]))
sys.exit(1 if bad else 0)
PY

. "$(dirname "$0")/fastcopies.sh"
fast_copies "$@"

cat >"$out/dcmp.py" <<'PY'
import json, sys
o = json.load(open(sys.argv[1])); f = json.load(open(sys.argv[2])); base = int(sys.argv[3])
bad = []
om = {m["metric"]: m for m in o["metrics"]}; fm = {m["metric"]: m for m in f["metrics"]}
lim = base + 2 * (om.get("slices", {}).get("a", 0) + 1)
if set(om) != set(fm):
    bad.append("metrics differ")
for k in sorted(set(om) & set(fm)):
    x, y = om[k]["a"], fm[k]["a"]
    if x is None or y is None or om[k]["unit"] not in ("ns", "ppm"):
        if x != y:
            bad.append("%s: %r vs %r" % (k, x, y))
        continue
    if om[k]["unit"] == "ppm":  # a ratio of two times: within 0.1%
        if abs(x - y) > max(x, y) / 1000 + 1:
            bad.append("%s: %d vs %d" % (k, x, y))
        continue
    slack = max(x, y) // 64 if k.endswith(("_p50", "_p99")) else 0
    if abs(x - y) > lim + slack:
        bad.append("%s: %d vs %d (bound %d)" % (k, x, y, lim + slack))
od = sorted(s["duration_ns"] for s in o["top_slices"]["a"])
fd = sorted(s["duration_ns"] for s in f["top_slices"]["a"])
if len(od) != len(fd) or any(abs(x - y) > lim for x, y in zip(od, fd)):
    bad.append("top slices: %r vs %r" % (od[-3:], fd[-3:]))
if sorted(x["function"] for x in o["functions"]) != sorted(x["function"] for x in f["functions"]):
    bad.append("functions differ")
for b in bad[:5]:
    print("  " + b)
sys.exit(1 if bad else 0)
PY

worst=0
v2ok=()
for f in "$@" "${damaged[@]}"; do
	name=$(basename "$f")
	if ! "$gtr" stats --ordered --json "$f" >"$out/ordered" 2>"$out/ordered.err"; then
		for j in 1 2 3; do
			refused_alike "$name -j$j" "$gtr" stats --fast -j"$j" --json "$f"
		done
		continue
	fi
	if ! "$gtr" -v stats --fast -j2 --json "$f" >"$out/fast" 2>"$out/fast.err"; then
		bad "$name: --fast fails where --ordered succeeds"
		head -3 "$out/fast.err"
		continue
	fi
	same=1
	for j in 1 3; do
		"$gtr" stats --fast -j"$j" --json "$f" >"$out/fast$j" 2>/dev/null
		cmp -s "$out/fast" "$out/fast$j" || same=0
	done
	[ $same = 1 ] && ok "$name -j1 -j2 -j3 alike" || bad "$name: -j1, -j2 and -j3 differ"
	v1=0
	grep -q '"format":"v1"' "$out/ordered" && v1=1
	if grep -q 'stats: parallel path' "$out/fast.err"; then
		[ $v1 = 0 ] && parallel=$((parallel + 1))
		[ $v1 = 1 ] && bad "$name: a v1 trace on the parallel path"
	elif [ $v1 = 1 ]; then
		grep -q 'ordered path: a v1 trace' "$out/fast.err" && ok "$name (v1: ordered path)" ||
			bad "$name: v1, but -v says: $(grep 'stats:' "$out/fast.err")"
		cmp -s "$out/ordered" "$out/fast" && ok "$name (v1: the same)" || bad "$name: v1 output differs"
		continue
	elif grep -q 'only Go.s order can tell' "$out/fast.err"; then
		ok "$name ($(grep -o 'ordered path: .*' "$out/fast.err"))"
	elif [[ $name != late-steal-* ]] && ! grep -q 'lost\|partial\|broken' "$out/fast.err"; then
		bad "$name: ordered path: $(grep -o 'ordered path: .*' "$out/fast.err")"
	fi
	[ $v1 = 0 ] && eligible=$((eligible + 1))
	bound=1000
	if r=$(python3 "$out/cmp.py" "$out/ordered" "$out/fast" "$bound"); then
		ok "$name ($(tail -1 <<<"$r"))"
	else
		bad "$name: beyond the bound"
		echo "$r"
	fi
	w=$(tail -1 <<<"$r" | awk '{print $2}')
	[ "${w:-0}" -gt "$worst" ] && worst=$w
	case $f in "$out"/*) continue ;; esac
	v2ok+=("$f")
	if "$gtr" diff --json "$f" "$f" >"$out/d-ordered" 2>/dev/null &&
		"$gtr" diff --fast --json "$f" "$f" >"$out/d-fast" 2>"$out/d-fast.err"; then
		if r=$(python3 "$out/dcmp.py" "$out/d-ordered" "$out/d-fast" "$bound"); then
			ok "$name (diff --fast)"
		else
			bad "$name: diff --fast beyond the bound"
			echo "$r"
		fi
	else
		bad "$name: diff or diff --fast failed"
	fi
done

# check --fast against a baseline of the ordered check: nothing changed.
if [ "${#v2ok[@]}" -ge 2 ]; then
	mkdir -p "$out/check"
	cp "${v2ok[0]}" "${v2ok[1]}" "$out/check/"
	if "$gtr" check -q --update-baseline --baseline "$out/base.json" "$out/check" >/dev/null 2>&1 &&
		"$gtr" check --fast --baseline "$out/base.json" "$out/check" >"$out/check.txt" 2>&1 &&
		grep -q '2 ok, 0 regressed, 0 errors, 0 new, 0 missing' "$out/check.txt"; then
		ok "check --fast against the ordered check's baseline"
	else
		bad "check --fast against the ordered check's baseline"
		tail -3 "$out/check.txt"
	fi
fi
echo "statsfast: $parallel of $eligible v2 traces on the parallel path; largest difference ${worst} ns"
echo "statsfast: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
