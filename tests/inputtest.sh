#!/usr/bin/env bash
# tests/inputtest.sh GTR GO_DIR TRACE...
#
# What gtr is handed besides a plain trace file:
#  - gzip and zstd traces, from files and from standard input (a pipe and
#    a redirected file), every --io mode, with and without io_uring: the
#    output of greedy, stats and footprint is byte for byte that of the
#    plain trace from standard input, and that of the plain file but for
#    the line that names the file (only footprint's output does not
#    name it); an input cut inside the magic number (1 byte of gzip, 3 of
#    zstd) is not recognized as compressed, and is refused as no trace; gzip of several members and zstd of
#    several frames read as their concatenation; gtr pprof's profile of
#    a compressed trace is the plain trace's;
#  - broken compressed input: cut at many offsets, bytes changed, bytes
#    after the end, a gzip bomb past --max-input: status 1 and one line
#    naming the compression and the compressed byte offset, or a report
#    (a change the checksum cannot see is a trace problem, also one line),
#    never a crash, within 20 s and 1 GiB of address space;
#  - files that are not traces, each named: pprof profiles (gtr's, go
#    tool trace's, and a CPU profile written by runtime/pprof when a Go
#    toolchain is at hand), a trace viewer's JSON, tar and zip archives,
#    an ELF binary, bzip2 and xz, HTML, text, an empty file;
#  - gtr pprof's usage mistakes.
set -uo pipefail
gtr=$1 godir=$2
shift 2
tmp=${TMPDIR:-/tmp}/gtr-inputtest.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# 1 GiB of address space; under ASan/TSan (shadow memory rules that out) their RSS limit.
sanitized=0
if ldd "$gtr" 2>/dev/null | grep 'libasan\|libtsan' >/dev/null; then
	sanitized=1
	export ASAN_OPTIONS=${ASAN_OPTIONS:-}:hard_rss_limit_mb=1024:allocator_may_return_null=1
	export TSAN_OPTIONS=${TSAN_OPTIONS:-}:hard_rss_limit_mb=1024
fi
limit() { [ $sanitized -eq 1 ] || ulimit -v 1048576 2>/dev/null; }

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# expect STATUS PATTERN NAME -- CMD...: the status, and for status 1 one stderr line matching PATTERN.
expect() {
	local want=$1 pat=$2 name=$3
	shift 4
	(limit; timeout 20 "$@") >"$tmp/out" 2>"$tmp/err"
	local st=$?
	if [ $st -ne "$want" ]; then
		bad "$name: exit status $st, want $want ($(head -c 300 "$tmp/err"))"
		return
	fi
	if [ "$want" -eq 1 ]; then
		local lines
		lines=$(wc -l <"$tmp/err")
		if [ "$lines" -ne 1 ]; then
			bad "$name: $lines lines on stderr, want 1: $(head -c 300 "$tmp/err")"
			return
		fi
		if ! grep -Eq -- "$pat" "$tmp/err"; then
			bad "$name: stderr [$(cat "$tmp/err")] does not match /$pat/"
			return
		fi
	fi
	ok
}

# same NAME A B: files A and B are equal.
same() {
	if cmp -s "$2" "$3"; then ok; else bad "$1: output differs ($(diff "$2" "$3" | head -3 | tr '\n' ' '))"; fi
}

# The report of a file, but for the line that names it.
unnamed() { grep -v -- "$1" "$2"; }

for f in "$@"; do
	name=$(basename "$f")
	gzip -c "$f" >"$tmp/t.gz"
	zstd -q -c "$f" >"$tmp/t.zst"
	for cmd in greedy stats footprint; do
		"$gtr" $cmd - <"$f" >"$tmp/want" 2>&1
		"$gtr" $cmd "$f" >"$tmp/wantf" 2>&1
		unnamed "$f" "$tmp/wantf" >"$tmp/want1"
		for z in gz zst; do
			c="gzip -c"
			[ $z = zst ] && c="zstd -q -c"
			$c "$f" | "$gtr" $cmd - >"$tmp/got" 2>&1
			same "$name $cmd, $z from a pipe" "$tmp/want" "$tmp/got"
			"$gtr" $cmd "$tmp/t.$z" >"$tmp/got" 2>&1
			unnamed "$tmp/t.$z" "$tmp/got" >"$tmp/got1"
			same "$name $cmd, $z file" "$tmp/want1" "$tmp/got1"
		done
	done
	"$gtr" footprint - <"$f" >"$tmp/want" 2>&1
	zstd -q -c "$f" | GTR_IO_URING_DISABLE=1 "$gtr" footprint - >"$tmp/got" 2>&1
	same "$name footprint, zst from a pipe without io_uring" "$tmp/want" "$tmp/got"
	for z in gz zst; do
		"$gtr" footprint - <"$tmp/t.$z" >"$tmp/got" 2>&1
		same "$name footprint, $z from a redirected file" "$tmp/want" "$tmp/got"
		for io in mmap read uring; do
			"$gtr" footprint --io=$io "$tmp/t.$z" >"$tmp/got" 2>&1
			same "$name footprint, $z file, --io=$io" "$tmp/want" "$tmp/got"
		done
	done
	# -v says it was compressed and how big it was.
	v=$("$gtr" footprint -v "$tmp/t.zst" 2>&1 >/dev/null)
	grep -q "io: zstd-compressed, $(stat -c %s "$tmp/t.zst") bytes decompressed into $(stat -c %s "$f")" <<<"$v" &&
		ok || bad "$name: -v does not say how the zstd input was read: $v"
	# Several gzip members, several zstd frames: their concatenation.
	size=$(stat -c %s "$f")
	half=$((size / 2))
	head -c $half "$f" | gzip -c >"$tmp/m.gz"
	tail -c +$((half + 1)) "$f" | gzip -c >>"$tmp/m.gz"
	head -c $half "$f" | zstd -q -c >"$tmp/m.zst"
	tail -c +$((half + 1)) "$f" | zstd -q -c >>"$tmp/m.zst"
	"$gtr" footprint - <"$f" >"$tmp/want" 2>&1
	for z in gz zst; do
		"$gtr" footprint - <"$tmp/m.$z" >"$tmp/got" 2>&1
		same "$name two-part $z" "$tmp/want" "$tmp/got"
	done
	# gtr pprof of a compressed trace: the same profile.
	"$gtr" pprof --type=sched -o "$tmp/p1" "$f" && "$gtr" pprof --type=sched "$tmp/t.zst" >"$tmp/p2" &&
		same "$name pprof of zstd" "$tmp/p1" "$tmp/p2" || bad "$name: gtr pprof failed"

	# Broken compressed input.
	gz=$(stat -c %s "$tmp/t.gz")
	for cut in 2 10 $((gz / 3)) $((gz / 2)) $((gz - 9)) $((gz - 1)); do
		head -c $cut "$tmp/t.gz" >"$tmp/cut.gz"
		expect 1 "cut.gz: gzip: .*(ends early|corrupt data at compressed byte [0-9]+)" \
			"$name gzip cut at $cut" -- "$gtr" greedy "$tmp/cut.gz"
		expect 1 "-: gzip: .*(ends early|corrupt data at compressed byte [0-9]+)" \
			"$name gzip cut at $cut, a pipe" -- sh -c "cat '$tmp/cut.gz' | '$gtr' stats -"
	done
	zs=$(stat -c %s "$tmp/t.zst")
	for cut in 4 10 $((zs / 3)) $((zs / 2)) $((zs - 4)) $((zs - 1)); do
		head -c $cut "$tmp/t.zst" >"$tmp/cut.zst"
		expect 1 "cut.zst: zstd: .*(ends early|corrupt data between compressed bytes [0-9]+ and [0-9]+)" \
			"$name zstd cut at $cut" -- "$gtr" greedy "$tmp/cut.zst"
	done
	for seed in 1 2 3 4; do
		for z in gz zst; do
			python3 -c '
import random, sys
d = bytearray(open(sys.argv[1], "rb").read())
r = random.Random(int(sys.argv[3]))
for _ in range(4):
    i = r.randrange(10, len(d))
    d[i] = r.randrange(256)
open(sys.argv[2], "wb").write(d)' "$tmp/t.$z" "$tmp/bad.$z" $seed
			(limit; timeout 20 "$gtr" greedy "$tmp/bad.$z") >/dev/null 2>"$tmp/err"
			st=$?
			if [ $st -gt 1 ]; then
				bad "$name $z with changed bytes (seed $seed): status $st: $(head -c 200 "$tmp/err")"
			elif [ $st -eq 1 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
				bad "$name $z with changed bytes (seed $seed): $(wc -l <"$tmp/err") lines on stderr"
			else
				ok
			fi
		done
	done
	{ cat "$tmp/t.gz"; printf 'garbage'; } >"$tmp/trail.gz"
	expect 1 "gzip: bytes after the end of the compressed stream, at compressed byte $gz" \
		"$name gzip with bytes after it" -- "$gtr" greedy "$tmp/trail.gz"
done

# A gzip bomb: 16 MiB of zeros in 16 KiB (zstd: in 1 KiB). The limit is --max-input (default 4 GiB).
head -c 16777216 /dev/zero | gzip -9 >"$tmp/bomb.gz"
head -c 16777216 /dev/zero | zstd -q >"$tmp/bomb.zst"
for z in gz zst; do
	expect 1 "decompresses to more than 1048576 bytes, the limit" "$z bomb, file" -- \
		"$gtr" --max-input=1M greedy "$tmp/bomb.$z"
	expect 1 "decompresses to more than 1048576 bytes, the limit" "$z bomb, pipe" -- \
		sh -c "cat '$tmp/bomb.$z' | '$gtr' greedy --max-input 1M -"
done
expect 1 'bomb.gz: at byte 0: not a Go execution trace' "gzip bomb within the limit" -- "$gtr" greedy "$tmp/bomb.gz"
expect 2 '' "bad --max-input" -- "$gtr" --max-input=lots greedy "$tmp/bomb.gz"

# Not traces, named.
f=${1:-}
if [ -n "$f" ]; then
	"$gtr" pprof --type=sync -o "$tmp/prof.pb.gz" "$f"
	expect 1 'at byte 0: not a Go execution trace: this is a pprof profile: use go tool pprof' \
		"gtr's pprof profile" -- "$gtr" greedy "$tmp/prof.pb.gz"
	gzip -dc "$tmp/prof.pb.gz" >"$tmp/prof.pb"
	expect 1 'this is a pprof profile: use go tool pprof' "a pprof profile, not compressed" -- \
		"$gtr" stats "$tmp/prof.pb"
	expect 1 'this is a pprof profile: use go tool pprof' "a pprof profile from a pipe" -- \
		sh -c "cat '$tmp/prof.pb.gz' | '$gtr' dump -"
	go=$godir/go-1.27/bin/go
	if [ -x "$go" ] && "$go" tool trace -pprof=sched "$f" >"$tmp/goprof.pb" 2>/dev/null; then
		expect 1 'this is a pprof profile: use go tool pprof' "go tool trace's profile" -- \
			"$gtr" greedy "$tmp/goprof.pb"
	fi
	if [ -x "$go" ]; then
		mkdir -p "$tmp/cpu"
		cat >"$tmp/cpu/main.go" <<'EOF'
package main

import (
	"os"
	"runtime/pprof"
	"time"
)

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	pprof.StartCPUProfile(f)
	x, t := 0, time.Now()
	for time.Since(t) < 100*time.Millisecond {
		x++
	}
	pprof.StopCPUProfile()
	f.Close()
	if x < 0 {
		println(x)
	}
}
EOF
		if (cd "$tmp/cpu" && GO111MODULE=off GOFLAGS= timeout 120 "$go" run main.go "$tmp/cpu.pprof") >/dev/null 2>&1; then
			expect 1 'this is a pprof profile: use go tool pprof' "a CPU profile of runtime/pprof" -- \
				"$gtr" greedy "$tmp/cpu.pprof"
		else
			echo "skip a CPU profile of runtime/pprof: go run failed"
		fi
	fi
	tar -cf "$tmp/t.tar" -C "$(dirname "$f")" "$(basename "$f")"
	expect 1 'this is a tar archive' "tarball" -- "$gtr" greedy "$tmp/t.tar"
	gzip -c "$tmp/t.tar" >"$tmp/t.tgz"
	expect 1 'this is a tar archive' "compressed tarball" -- "$gtr" greedy "$tmp/t.tgz"
	python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "w").write(sys.argv[2])' "$tmp/t.zip" "$f"
	expect 1 'this is a zip archive' "zip" -- "$gtr" greedy "$tmp/t.zip"
	bzip2 -c "$f" >"$tmp/t.bz2" 2>/dev/null && expect 1 'this is bzip2-compressed' "bzip2" -- "$gtr" greedy "$tmp/t.bz2"
	xz -c "$f" >"$tmp/t.xz" 2>/dev/null && expect 1 'this is xz-compressed' "xz" -- "$gtr" greedy "$tmp/t.xz"
fi
expect 1 'this is an ELF binary' "ELF binary" -- "$gtr" greedy "$gtr"
printf '{"traceEvents":[{"name":"G1","ph":"X","ts":1,"dur":2,"pid":0,"tid":1}],"displayTimeUnit":"ns"}\n' >"$tmp/view.json"
expect 1 "this is a JSON trace in the trace viewer's format" "trace viewer JSON" -- "$gtr" greedy "$tmp/view.json"
printf '[{"name":"G1","ph":"B","ts":1,"pid":0,"tid":1}]\n' >"$tmp/view2.json"
expect 1 "this is a JSON trace in the trace viewer's format" "trace viewer JSON array" -- "$gtr" greedy "$tmp/view2.json"
printf '<!DOCTYPE html>\n<html><body>502 Bad Gateway</body></html>\n' >"$tmp/page.html"
expect 1 'this is an HTML page' "HTML" -- "$gtr" greedy "$tmp/page.html"
printf 'panic: runtime error: index out of range\n\ngoroutine 1 [running]:\n' >"$tmp/log.txt"
expect 1 'this is a text file' "text" -- "$gtr" greedy "$tmp/log.txt"
: >"$tmp/empty"
expect 1 'at byte 0: empty input' "empty" -- "$gtr" greedy "$tmp/empty"
gzip -c "$tmp/empty" >"$tmp/empty.gz"
expect 1 'at byte 0: empty input' "empty, compressed" -- "$gtr" greedy "$tmp/empty.gz"

# gtr pprof's usage mistakes, and where the profile goes.
if [ -n "$f" ]; then
	expect 2 '' "pprof without --type" -- "$gtr" pprof "$f"
	expect 2 '' "pprof --type=cpu" -- "$gtr" pprof --type=cpu "$f"
	expect 2 '' "pprof without a file" -- "$gtr" pprof --type=sched
	expect 2 '' "pprof, two files" -- "$gtr" pprof --type=sched "$f" "$f"
	expect 2 '' "pprof -o without a name" -- "$gtr" pprof --type=sched "$f" -o
	expect 0 '' "pprof --help" -- "$gtr" pprof --help
	expect 1 'not a Go execution trace' "pprof of a profile" -- "$gtr" pprof --type=sched -o "$tmp/x" "$tmp/prof.pb.gz"
	[ ! -e "$tmp/x" ] && ok || bad "pprof left an output file after an error"
	if command -v script >/dev/null; then
		# A terminal on stdout gets no binary: a usage error, status 2.
		script -qec "'$gtr' pprof --type=sched '$f'" /dev/null >"$tmp/tty" 2>&1
		grep -q 'the profile is binary' "$tmp/tty" && ok || bad "pprof to a terminal: $(head -c 200 "$tmp/tty")"
	fi
	for ty in sched sync net syscall io block; do
		"$gtr" pprof --type=$ty "$f" >"$tmp/p.gz" && gzip -t "$tmp/p.gz" && ok || bad "pprof --type=$ty to stdout is not gzip"
	done
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
