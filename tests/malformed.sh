#!/usr/bin/env bash
# tests/malformed.sh GTR
#
# Hostile input through the command line, as CI meets it: real corpus
# traces (v1 and v2, several versions) cut at many offsets, with bits
# flipped, bytes changed, lengths made huge, varints longer than 10
# bytes, event types out of range, a generation's frequency removed,
# headers of a newer Go; empty files, directories, /dev/null, text,
# gzip; and every input of tests/regress. Each runs through greedy (text
# and JSON, and --fast), dump --stacks, footprint and stats (and
# --fast), strictly and with --lenient, and must:
#  - give the same results with the index of a v1 trace split between
#    two threads, whatever its size (footprint and greedy, strictly);
#  - end with status 0 or 1 within 20 s;
#  - strictly, on status 1, say one line on stderr naming the problem
#    and its byte offset ("at byte N");
#  - leniently, say only "gtr: warning:" lines, or end with such an error;
#  - leave no sanitizer report;
#  - stay under a fixed memory limit far below what a hostile length would
#    ask for (ulimit -v; under ASan/TSan, whose shadow memory rules that
#    out, the sanitizer's own hard_rss_limit_mb).
# The library-level half of the suite is tests/test_malformed.c.
set -uo pipefail
gtr=$1
root=${GTR_ROOT:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gtr-malformed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
mem_kb=$((1024 * 1024)) # 1 GiB of address space

sanitized=0
if ldd "$gtr" 2>/dev/null | grep -q 'libasan\|libtsan'; then
	sanitized=1
	export ASAN_OPTIONS=${ASAN_OPTIONS:-}:hard_rss_limit_mb=1024:allocator_may_return_null=1
	export TSAN_OPTIONS=${TSAN_OPTIONS:-}:hard_rss_limit_mb=1024
fi

bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# run NAME ARGS...: one command over one input, checked as above.
run() {
	local name=$1
	shift
	local lenient=0
	case " $* " in *" --lenient "*) lenient=1 ;; esac
	(
		[ $sanitized -eq 0 ] && ulimit -v $mem_kb
		exec timeout 20 "$gtr" "$@"
	) >"$tmp/out" 2>"$tmp/err"
	local st=$?
	if grep -q 'Sanitizer\|runtime error:\|LeakSanitizer\|allocation-size-too-big' "$tmp/err"; then
		bad "$name: gtr $*: sanitizer report: $(grep -m1 'Sanitizer\|runtime error' "$tmp/err")"
		return
	fi
	if [ $st -ne 0 ] && [ $st -ne 1 ]; then
		bad "$name: gtr $*: exit status $st ($(head -c 300 "$tmp/err"))"
		return
	fi
	if [ $lenient -eq 0 ] && [ $st -eq 1 ]; then
		if [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q 'at byte [0-9]\|: Is a directory$' "$tmp/err"; then
			bad "$name: gtr $*: stderr is not one line with a byte offset: [$(head -c 300 "$tmp/err")]"
			return
		fi
	fi
	if [ $lenient -eq 0 ] && [ $st -eq 0 ] && [ -s "$tmp/err" ]; then
		bad "$name: gtr $*: status 0 with something on stderr: [$(head -c 300 "$tmp/err")]"
		return
	fi
	if [ $lenient -eq 1 ]; then
		# Warnings, then at most one error line at the end.
		local others
		others=$(grep -vc '^gtr: warning: ' "$tmp/err")
		if [ "$others" -gt 1 ] || { [ "$others" -eq 1 ] && [ $st -ne 1 ]; } ||
			{ [ $st -eq 1 ] && ! tail -1 "$tmp/err" | grep -q 'at byte [0-9]\|: No such\|: Is a dir'; }; then
			bad "$name: gtr $*: lenient stderr: [$(head -c 400 "$tmp/err")]"
			return
		fi
		# What was not decoded is part of the file: bytes skipped twice
		# (by the index and again by the read) once made it more.
		local lost
		lost=$(sed -n 's/.*partial result: \([0-9]*\) of \([0-9]*\) bytes.*/\1 \2/p' "$tmp/err" | head -1)
		if [ -n "$lost" ] && [ "${lost% *}" -gt "${lost#* }" ]; then
			bad "$name: gtr $*: more bytes not decoded than the file has: [$(grep -m1 'partial result' "$tmp/err")]"
			return
		fi
	fi
	pass=$((pass + 1))
}

# split NAME ARGS...: the index split between two threads whatever the
# trace's size (GTR_INDEX_SPLIT=1; v1 traces only) must change nothing:
# the same output, the same words on stderr, the same status.
split() {
	local name=$1
	shift
	timeout 20 "$gtr" "$@" >"$tmp/one.out" 2>"$tmp/one.err"
	local a=$?
	GTR_INDEX_SPLIT=1 timeout 20 "$gtr" "$@" >"$tmp/two.out" 2>"$tmp/two.err"
	local b=$?
	if [ $a -ne $b ] || ! cmp -s "$tmp/one.out" "$tmp/two.out" || ! cmp -s "$tmp/one.err" "$tmp/two.err"; then
		bad "$name: gtr $*: the split index differs (status $a, $b): $(diff "$tmp/one.err" "$tmp/two.err" | head -3)"
		return
	fi
	pass=$((pass + 1))
}

# every NAME FILE: every command, strict and lenient.
every() {
	local name=$1 f=$2
	for mode in "" --lenient; do
		run "$name" greedy -n 3 $mode "$f"
		run "$name" greedy --json -n 3 $mode "$f"
		run "$name" greedy --fast --json -n 3 $mode "$f"
		run "$name" dump --stacks $mode "$f"
		run "$name" footprint $mode "$f"
		run "$name" stats $mode "$f"
		run "$name" stats --fast -j2 $mode "$f"
	done
	split "$name" footprint "$f"
	split "$name" greedy --json -n 3 "$f"
}

# A few commands only, for the many cut and damaged variants.
some() {
	local name=$1 f=$2
	run "$name" greedy -n 3 "$f"
	run "$name" dump --stacks --lenient "$f"
	run "$name" greedy --json --lenient "$f"
	split "$name" footprint "$f"
	split "$name" greedy --json -n 3 "$f"
}

# ---- not traces at all
: >"$tmp/empty"
printf 'hello, this is text, not a trace\n' >"$tmp/text"
printf 'go 1.22 trace\0\0\0' >"$tmp/header-only"
every "empty file" "$tmp/empty"
every "text file" "$tmp/text"
every "header only" "$tmp/header-only"
every "directory" "$tmp"
every "/dev/null" /dev/null

traces=()
for f in corpora/traces/churn-go1.15.trace corpora/traces/syscalls-go1.19.trace \
	corpora/traces/annotations-go1.21.trace tests/data/multigen-go1.22.trace \
	corpora/traces/syscalls-go1.23.trace corpora/traces/timers-go1.25.trace \
	tests/data/multigen-go1.26.trace; do
	[ -f "$root/$f" ] && traces+=("$root/$f")
done

# The damaged variants, made in one go with a fixed seed: bit flips, byte
# changes, huge values, varints of 12 bytes, event types out of range.
python3 - "$tmp" "${traces[@]}" <<'EOF'
import os, random, sys
out = sys.argv[1]
for k, src in enumerate(sys.argv[2:]):
    name = os.path.basename(src)[:-len('.trace')]
    base = open(src, 'rb').read()
    for kind in ('flip', 'byte', 'huge', 'long', 'type'):
        for rnd in (1, 2, 3):
            r = random.Random(k * 1000 + rnd * 10 + len(kind))
            d = bytearray(base)
            for _ in range(r.randint(1, 6)):
                at = r.randrange(16, len(d))
                if kind == 'flip':
                    d[at] ^= 1 << r.randrange(8)
                elif kind == 'byte':
                    d[at] = r.randrange(256)
                elif kind == 'huge':   # a 10-byte varint of 2^64-1 where a value was
                    d[at:at + 1] = b'\xff' * 9 + b'\x01'
                elif kind == 'long':   # a varint of 12 bytes
                    d[at:at + 1] = b'\x80' * 11 + b'\x01'
                else:                  # event types out of range
                    d[at] = r.choice([0x3f, 0x7f, 0xc8, 0xff, 0x35, 0x00])
            open(os.path.join(out, 'bad-%s-%s-%d' % (name, kind, rnd)), 'wb').write(d)
EOF

for f in "${traces[@]}"; do
	name=$(basename "$f" .trace)
	size=$(stat -c %s "$f")
	case $name in *go1.15* | *go1.26*)
		gzip -c "$f" >"$tmp/$name.gz"
		every "$name gzipped" "$tmp/$name.gz"
		;;
	esac
	# A newer Go's header (Go 1.27 still writes "go 1.26"): refused, naming
	# both versions; lenient reads it as go 1.26 and says so.
	case $name in *go1.26*)
		for v in 27 30; do
			{ printf 'go 1.%d trace\0\0\0' $v; tail -c +17 "$f"; } >"$tmp/v$v"
			run "$name as go 1.$v" greedy "$tmp/v$v"
			grep -q "go 1\.$v.*go 1\.26" "$tmp/err" || bad "$name as go 1.$v: [$(cat "$tmp/err")]"
			run "$name as go 1.$v" greedy --lenient "$tmp/v$v"
			grep -q "warning: .*go 1\.$v trace.*read as go 1\.26" "$tmp/err" ||
				bad "$name as go 1.$v lenient: [$(head -c 300 "$tmp/err")]"
		done
		;;
	esac
	# Cut at 12 offsets spread over the file.
	for i in $(seq 1 12); do
		cut=$((16 + (size - 16) * i / 13))
		head -c "$cut" "$f" >"$tmp/cut"
		some "$name cut at $cut" "$tmp/cut"
	done
	for b in "$tmp"/bad-"$name"-*; do
		some "$name ${b##*/bad-$name-}" "$b"
	done
done

# ---- a v2 generation without its frequency (the second of three)
python3 - "$root/tests/data/multigen-go1.22.trace" "$tmp/nofreq" <<'EOF'
import sys
d = open(sys.argv[1], 'rb').read()
def uv(p):
    v = s = 0
    while True:
        b = d[p]; p += 1; v |= (b & 0x7f) << s; s += 7
        if b < 0x80: return v, p
p, seen, out = 16, 0, None
while p < len(d):
    q = p + 1
    for _ in range(3): _, q = uv(q)
    n, q = uv(q)
    if n and d[q] == 8:
        seen += 1
        if seen == 2:
            out = d[:p] + d[q + n:]
            break
    p = q + n
open(sys.argv[2], 'wb').write(out)
EOF
every "generation without frequency" "$tmp/nofreq"
"$gtr" greedy "$tmp/nofreq" >/dev/null 2>"$tmp/err"
grep -q 'has no frequency' "$tmp/err" || bad "generation without frequency: [$(cat "$tmp/err")]"
"$gtr" greedy --lenient "$tmp/nofreq" >/dev/null 2>"$tmp/err"
grep -q 'warning: .*skipped 1 generation ' "$tmp/err" || bad "lenient generation without frequency: [$(cat "$tmp/err")]"

# ---- a truncated multi-generation trace: the report of the complete part, and the cut
f=$root/tests/data/multigen-go1.26.trace
head -c $(($(stat -c %s "$f") - 300)) "$f" >"$tmp/cut"
"$gtr" greedy "$tmp/cut" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q '^  partial     truncated at byte' "$tmp/out" && grep -q 'truncated trace' "$tmp/err" &&
	pass=$((pass + 1)) || bad "truncated: strict greedy: status $st, [$(head -c 300 "$tmp/err")]"
"$gtr" greedy --lenient "$tmp/cut" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 0 ] && grep -q '^gtr: warning: .*truncated at byte' "$tmp/err" && grep -q 'partial result' "$tmp/err" &&
	pass=$((pass + 1)) || bad "truncated: lenient greedy: status $st, [$(head -c 300 "$tmp/err")]"
{ "$gtr" greedy --json "$tmp/cut" 2>/dev/null || true; } | jq -e '.loss.truncated == true' >/dev/null &&
	pass=$((pass + 1)) || bad "truncated: greedy --json has no loss.truncated"

# ---- one generation cut in half: what was read is right, and the loss is said
# Every slice the cut trace reports as ended (not cut, not lost) must be a
# slice of the whole trace: same goroutine, same length. A v1 trace cut
# before its Frequency event has times in ticks: the lengths then keep one
# ratio to the real ones.
for f in "$root/corpora/traces/greedy-go1.26.trace" "$root/corpora/traces/greedy-go1.21.trace"; do
	[ -f "$f" ] || continue
	name=$(basename "$f")
	head -c $(($(stat -c %s "$f") / 2)) "$f" >"$tmp/half"
	"$gtr" greedy --json -n 100000 "$f" >"$tmp/full.json" 2>/dev/null
	for mode in strict lenient; do
		flag=; [ $mode = lenient ] && flag=--lenient
		"$gtr" greedy $flag --json -n 20 "$tmp/half" >"$tmp/half.json" 2>"$tmp/err"
		st=$?
		want=1; [ $mode = lenient ] && want=0
		if [ $st -ne $want ] || ! jq -e '.loss.truncated == true and (.top | length) > 0' \
			"$tmp/half.json" >/dev/null; then
			bad "$name cut in half, $mode: status $st, [$(head -c 300 "$tmp/err")]"
			continue
		fi
		if python3 - "$tmp/full.json" "$tmp/half.json" <<'PY'; then
import json, sys
full = json.load(open(sys.argv[1]))
half = json.load(open(sys.argv[2]))
ticks = half["loss"].get("times_in_ticks", False)
whole = {}
for s in full["top"]:
    whole.setdefault(s["g"], []).append(s["duration_ns"])
ratios, bad = [], []
for s in half["top"]:
    if s["truncated"]:
        continue
    cands = whole.get(s["g"], [])
    if ticks:
        ratios.append([d / max(s["duration_ns"], 1) for d in cands])
    elif not any(abs(d - s["duration_ns"]) <= 1000 for d in cands):
        bad.append((s["g"], s["duration_ns"]))
if ticks:
    # One ns-per-tick ratio must explain every slice (within 0.1%).
    ok = False
    for r in (ratios[0] if ratios else []):
        if all(any(abs(x - r) <= r * 1e-3 for x in rs) for rs in ratios):
            ok = True
    if ratios and not ok:
        bad.append("no single tick length fits every slice")
if bad:
    print("not slices of the whole trace:", bad[:5])
    sys.exit(1)
PY
			pass=$((pass + 1))
		else
			bad "$name cut in half, $mode: the report has slices the whole trace does not"
		fi
	done
done

# ---- diff and check: a cut trace is an error unless --lenient
good=$root/tests/data/multigen-go1.22.trace
head -c $(($(stat -c %s "$good") - 500)) "$good" >"$tmp/cut22"
run "diff of a cut trace" diff "$good" "$tmp/cut22"
[ -s "$tmp/err" ] && grep -q 'truncated' "$tmp/err" || bad "diff of a cut trace: [$(cat "$tmp/err")]"
run "diff of a cut trace" diff --lenient "$good" "$tmp/cut22"
grep -q '^gtr: warning: .*cut22: truncated at byte' "$tmp/err" || bad "diff --lenient: [$(head -c 300 "$tmp/err")]"
mkdir -p "$tmp/dir"
cp "$good" "$tmp/dir/a.trace"
cp "$tmp/cut22" "$tmp/dir/b.trace"
run "check of a cut trace" check --lenient --update-baseline --baseline "$tmp/base.json" "$tmp/dir"
grep -q '^gtr: warning: b.trace: partial result' "$tmp/err" || bad "check --lenient: [$(head -c 300 "$tmp/err")]"
# A report written to a device is written in place: renaming a temporary
# file over /dev/null once replaced the device with a regular file.
if mknod "$tmp/null" c 1 3 2>/dev/null; then
	"$gtr" check --lenient --baseline "$tmp/base.json" --junit "$tmp/null" --report-json "$tmp/null" \
		"$tmp/dir" >/dev/null 2>&1
	[ -c "$tmp/null" ] && pass=$((pass + 1)) || bad "check --junit to a device replaced the device"
fi

# ---- what once broke
for f in "$root"/tests/regress/*.trace; do
	[ -f "$f" ] || continue
	every "regress $(basename "$f")" "$f"
	# The report's analyses and page, the MMU and the comparison's
	# metrics too (fuzz_scan found some of these inputs through them).
	for mode in "" --lenient; do
		run "regress $(basename "$f")" report $mode -o "$tmp/page.html" "$f"
		run "regress $(basename "$f")" mmu $mode "$f"
		run "regress $(basename "$f")" diff $mode "$f" "$f"
	done
done

echo "malformed: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
