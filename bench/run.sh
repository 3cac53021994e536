#!/usr/bin/env bash
# bench/run.sh: the body of `make bench` (bench/README.md explains the output).
#
# 1. Generates, once, the big traces the benchmarks read, into bench/cache/
#    (git-ignored): bench/gen/main.go, built with Go 1.26 and Go 1.21 from
#    GO_DIR, runs the corpus workloads under runtime/trace until the trace
#    is big enough:
#      v2-go1.26-1g.trace    >= BENCH_BIG bytes (default 1 GiB), Go 1.26 (v2)
#      v1-go1.21-1g.trace    >= BENCH_BIG bytes, Go 1.21 (v1)
#      v2-go1.26-200m.trace  >= BENCH_MID bytes (default 200 MiB), Go 1.26
#    A trace made for the same size is reused (its .meta file says which);
#    BENCH_REGEN=1 makes them again.
# 2. Times the uvarint kernels (bench/kernels.c).
# 3. On each trace: the floor (bench/floor.c, one plain pass over the
#    mapped file on every CPU) for each ISA; then for each ISA the CPU
#    runs and each -j: gtr greedy (also as a fraction of the floor),
#    gtr footprint and gtr dump > /dev/null, best of BENCH_RUNS (5) runs;
#    gtr stats on the best ISA alone (it reads events in time order, where
#    the ISA changes little, and takes the longest).
# 4. Times Go's own readers on the same files: go tool trace -d=footprint
#    on the v2 traces and go tool trace -pprof=sched on the 200 MiB one,
#    and prints gtr's speed and memory against theirs.
# 5. Every command (greedy, greedy --fast, footprint, stats, stats --fast, report, check,
#    diff) against one pass of Go's reader over the same trace
#    (bench/onepass: Go 1.26's internal/trace, the reader of
#    golang.org/x/exp/trace; "command" lines; BENCH_SKIP_COMMANDS=1 skips
#    them).
#
# Environment: BUILD (build), GO_DIR (/opt/gtr-go), BENCH_RUNS (5),
# BENCH_GO_RUNS (BENCH_RUNS), BENCH_BIG, BENCH_MID, BENCH_REGEN,
# BENCH_ISAS (every ISA the CPU runs), BENCH_CMDS (greedy greedy-fast
# footprint dump stats; greedy-fast is `gtr greedy --fast`),
# BENCH_TRACES (all three names, without .trace), BENCH_SKIP_GO=1,
# BENCH_CACHE (bench/cache: where traces, tools and results go),
# BENCH_GEN_ONLY=1 (make the traces, measure nothing).
set -euo pipefail

BUILD=${BUILD:-build}
GO_DIR=${GO_DIR:-/opt/gtr-go}
RUNS=${BENCH_RUNS:-5}
GO_RUNS=${BENCH_GO_RUNS:-$RUNS}
BIG=${BENCH_BIG:-1073741824}
MID=${BENCH_MID:-209715200}
CMDS=${BENCH_CMDS:-greedy greedy-fast footprint dump stats}
TRACES=${BENCH_TRACES:-v2-go1.26-1g v1-go1.21-1g v2-go1.26-200m}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cache=${BENCH_CACHE:-$here/cache}
small=$root/corpora/traces/churn-go1.26.trace

die() {
	echo "bench: $*" >&2
	exit 1
}
note() { echo "# $*"; }

for b in gtr bench/measure bench/kernels bench/floor; do
	[ -x "$root/$BUILD/$b" ] || die "build first: make bench"
done
mkdir -p "$cache/bin"
# Private copies: a rebuild of the tree during a long run must not swap
# the binary under the benchmark.
cp -f "$root/$BUILD/gtr" "$root/$BUILD/bench/measure" "$root/$BUILD/bench/kernels" "$root/$BUILD/bench/floor" "$cache/bin/"
gtr=$cache/bin/gtr
measure=$cache/bin/measure
kernels=$cache/bin/kernels
floor=$cache/bin/floor
log=$cache/results-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$log")

# go_env VERSION COMMAND...: offline, isolated, like corpora/make-traces.sh.
go_env() {
	local v=$1
	shift
	env -u GOROOT -u GOBIN -u GOOS -u GOARCH -u GOEXPERIMENT -u GODEBUG \
		GOENV=off GOTOOLCHAIN=local GO111MODULE=on GOFLAGS=-mod=mod GOPROXY=off \
		GOSUMDB=off GOWORK=off CGO_ENABLED=0 \
		GOPATH="$cache/go-$v/gopath" GOCACHE="$cache/go-$v/cache" \
		GOMODCACHE="$cache/go-$v/gopath/pkg/mod" "$@"
}

gobin() {
	local g=$GO_DIR/go-$1/bin/go
	[ -x "$g" ] || die "Go $1 is not installed in $GO_DIR (make go)"
	echo "$g"
}

# kv LINE KEY: the value of KEY=VALUE in LINE.
kv() { sed -E "s/.*(^| )$2=([^ ]*).*/\\2/" <<<"$1"; }

# ---- the machine ----------------------------------------------------------
note "gtr bench, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
note "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) online, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
note "kernel: $(uname -r); gtr built with: $(grep -E '^OPT|^CC ' "$root/Makefile" | tr -s ' \t' ' ' | tr '\n' ';')"
note "best of $RUNS runs for gtr, $GO_RUNS for Go's tools; times are wall-clock seconds"

# ---- traces ---------------------------------------------------------------
trace_bytes() {
	case $1 in
	*-1g) echo "$BIG" ;;
	*-200m) echo "$MID" ;;
	*) die "unknown trace $1" ;;
	esac
}
trace_go() { sed -E 's/.*-go(1\.[0-9]+)-.*/\1/' <<<"$1"; }

# cached NAME: whether NAME.trace was made for the size asked now.
cached() {
	[ -s "$cache/$1.trace" ] && [ "${BENCH_REGEN:-0}" != 1 ] &&
		grep -q " target=$(trace_bytes "$1")\( \|$\)" "$cache/$1.trace.meta" 2>/dev/null
}

need=0
for t in $TRACES; do
	cached "$t" || need=$((need + $(trace_bytes "$t")))
done
if [ "$need" -gt 0 ]; then
	avail=$(df --output=avail -B1 "$cache" | tail -1)
	# The traces, plus room for Go's build caches and the rest of the machine.
	[ "$avail" -gt $((need + 4 * 1024 * 1024 * 1024)) ] ||
		die "$cache: $avail bytes free, the traces need $need and 4 GiB to spare"
fi

for t in $TRACES; do
	f=$cache/$t.trace
	cached "$t" && continue
	v=$(trace_go "$t")
	gen=$cache/bin/gen-go$v
	if [ ! -x "$gen" ] || [ "$here/gen/main.go" -nt "$gen" ]; then
		note "building bench/gen with Go $v"
		(cd "$here/gen" && go_env "$v" "$(gobin "$v")" build -trimpath -o "$gen" main.go)
	fi
	note "generating $t ($(trace_bytes "$t") bytes or more, with Go $v; once, then cached)"
	start=$(date +%s)
	env -i PATH=/usr/bin:/bin TMPDIR="${TMPDIR:-/tmp}" GOMAXPROCS=2 \
		"$gen" -o "$f.tmp" -bytes "$(trace_bytes "$t")" -max-seconds 3600
	mv -f "$f.tmp" "$f"
	echo "generated input=$t seconds=$(($(date +%s) - start)) bytes=$(stat -c %s "$f") target=$(trace_bytes "$t")" >"$f.meta"
	cat "$f.meta"
done

[ "${BENCH_GEN_ONLY:-0}" = 1 ] && exit 0

# Outputs go to a null device. A /dev/null that is not one (replaced by a
# regular file) would take every byte a dump writes: use a private one.
sink=/dev/null
if [ ! -c /dev/null ]; then
	sink=$cache/null
	[ -c "$sink" ] || mknod -m 666 "$sink" c 1 3 ||
		die "/dev/null is not a character device and mknod $sink failed"
	note "/dev/null is not the null device here: outputs go to $sink"
fi

# ---- kernels --------------------------------------------------------------
note "uvarint kernels on synthetic streams (bench/kernels.c)"
"$kernels"

# ---- what this gtr and this CPU can do ------------------------------------
isas=()
for isa in ${BENCH_ISAS:-scalar sse4 avx2 avx512 neon}; do
	if GTR_ISA=$isa "$gtr" footprint "$small" >"$sink" 2>&1; then
		isas+=("$isa")
	else
		note "isa $isa: not run by this CPU, skipped"
	fi
done
best_isa=$("$gtr" footprint -v "$small" 2>&1 >"$sink" | sed -n 's/^gtr: simd: \([a-z0-9]*\) kernels/\1/p')
# cmd_words CMD: gtr's arguments for a name of BENCH_CMDS.
cmd_words() {
	case $1 in
	greedy-fast) echo "greedy --fast" ;;
	*) echo "$1" ;;
	esac
}
# jobs_of CMD: the -j values to measure CMD at (1 and every CPU when it
# takes -j; an empty -j when it has no threads).
jobs_of() {
	local w
	read -r -a w <<<"$(cmd_words "$1")"
	if [ "$(nproc)" -gt 1 ] && "$gtr" "${w[@]}" -j 1 "$small" >"$sink" 2>&1; then
		echo "1 $(nproc)"
	else
		echo "-"
	fi
}
for cmd in $CMDS; do
	note "gtr $cmd: -j values measured: $(jobs_of "$cmd") (- : single-threaded, no -j)"
done

# best LABEL RUNS MEASURE-ARGS...: the fastest of RUNS runs, with the
# largest memory figures seen over all of them. Fails on a failed run.
best() {
	local runs=$1
	shift
	local line s bs="" bl="" anon=0 hwm=0 st
	for _ in $(seq "$runs"); do
		line=$("$measure" "$@")
		st=$(kv "$line" status)
		if [ "$st" != 0 ]; then
			echo "$line"
			return 1
		fi
		s=$(kv "$line" seconds)
		if [ -z "$bs" ] || awk -v a="$s" -v b="$bs" 'BEGIN { exit !(a < b) }'; then
			bs=$s
			bl=$line
		fi
		[ "$(kv "$line" peak_anon_kb)" -gt "$anon" ] && anon=$(kv "$line" peak_anon_kb)
		[ "$(kv "$line" hwm_kb)" -gt "$hwm" ] && hwm=$(kv "$line" hwm_kb)
	done
	echo "seconds=$bs peak_anon_kb=$anon hwm_kb=$hwm peak_file_kb=$(kv "$bl" peak_file_kb)"
}

# row KIND INPUT CMD ISA J BYTES EVENTS RESULT: one result line.
row() {
	local r=$8
	awk -v kind="$1" -v input="$2" -v cmd="$3" -v isa="$4" -v j="$5" -v bytes="$6" -v events="$7" \
		-v s="$(kv "$r" seconds)" -v anon="$(kv "$r" peak_anon_kb)" -v hwm="$(kv "$r" hwm_kb)" \
		-v file="$(kv "$r" peak_file_kb)" 'BEGIN {
		printf "%s input=%s cmd=%s isa=%s j=%s bytes=%d events=%d seconds=%.3f GB/s=%.3f events/s=%.0f peak_anon_MB=%.1f hwm_MB=%.1f file_MB=%.1f\n",
			kind, input, cmd, isa, j, bytes, events, s, bytes / s / 1e9, events / s, anon / 1024, hwm / 1024, file / 1024
	}'
}

declare -A gtr_s gtr_anon gtr_j1 floor_s isa_s
go_version=1.26
gotrace=$cache/bin/trace-go$go_version
if [ "${BENCH_SKIP_GO:-0}" != 1 ] && [ ! -x "$gotrace" ]; then
	# go tool trace would build it on every call; build it once.
	note "building cmd/trace of Go $go_version"
	go_env "$go_version" "$(gobin "$go_version")" build -o "$gotrace" cmd/trace
fi
# One pass of Go's own reader (internal/trace, which golang.org/x/exp/trace
# copies), bench/onepass/main.go: built inside the toolchain's tree through
# an overlay, as only that tree may import an internal package; the tree
# is not written to. It reads v1 traces (Go 1.11 on) too.
onepass=$cache/bin/onepass-go$go_version
if [ "${BENCH_SKIP_GO:-0}" != 1 ] && { [ ! -x "$onepass" ] || [ "$onepass" -ot "$here/onepass/main.go" ]; }; then
	note "building bench/onepass with Go $go_version"
	goroot=$(go_env "$go_version" "$(gobin "$go_version")" env GOROOT)
	printf '{"Replace": {"%s/src/cmd/gtronepass/main.go": "%s/onepass/main.go"}}\n' "$goroot" "$here" \
		>"$cache/onepass-overlay.json"
	go_env "$go_version" "$(gobin "$go_version")" build -overlay "$cache/onepass-overlay.json" \
		-o "$onepass" cmd/gtronepass
fi

for t in $TRACES; do
	f=$cache/$t.trace
	bytes=$(stat -c %s "$f")
	events=$("$gtr" footprint "$f" | awk 'NR > 2 { n += $4 } END { print n + 0 }')
	note "$t: $bytes bytes, $events events ($f)"
	echo "trace input=$t bytes=$bytes events=$events"
	# The floor: one plain pass over the mapped file on every CPU
	# (bench/floor.c), on each ISA; greedy is given as a fraction of the
	# best ISA's.
	for isa in "${isas[@]}"; do
		r=$(best "$RUNS" -o "$sink" -e GTR_ISA="$isa" -- "$floor" -j "$(nproc)" "$f") ||
			die "floor failed on $t: $r"
		row floor "$t" floor "$isa" "$(nproc)" "$bytes" "$events" "$r"
		[ "$isa" = "$best_isa" ] && floor_s[$t]=$(kv "$r" seconds)
	done
	for cmd in $CMDS; do
		read -r -a words <<<"$(cmd_words "$cmd")"
		for isa in "${isas[@]}"; do
			[ "$cmd" = stats ] && [ "$isa" != "$best_isa" ] && continue
			for j in $(jobs_of "$cmd"); do
				jarg=()
				[ "$j" != - ] && jarg=(-j "$j")
				r=$(best "$RUNS" -o "$sink" -e GTR_ISA="$isa" -- "$gtr" "${words[@]}" "${jarg[@]}" "$f") ||
					die "gtr $cmd failed on $t: $r"
				row bench "$t" "$cmd" "$isa" "${j/-/1}" "$bytes" "$events" "$r"
				isa_s[$isa/$j]=$(kv "$r" seconds)
				if [ "${cmd%-fast}" = greedy ] && [ -n "${floor_s[$t]:-}" ]; then
					awk -v input="$t" -v cmd="$cmd" -v isa="$isa" -v j="${j/-/1}" -v bytes="$bytes" -v s="$(kv "$r" seconds)" \
						-v fs="${floor_s[$t]}" -v fisa="$best_isa" 'BEGIN {
						printf "of_floor input=%s cmd=%s isa=%s j=%s GB/s=%.3f floor_isa=%s floor_GB/s=%.3f fraction=%.1f%%\n",
							input, cmd, isa, j, bytes / s / 1e9, fisa, bytes / fs / 1e9, 100 * fs / s
					}'
				fi
				[ "$isa" = "$best_isa" ] || continue
				s=$(kv "$r" seconds)
				# Against Go: gtr's fastest -j on the best ISA.
				if [ -z "${gtr_s[$t/$cmd]:-}" ] ||
					awk -v a="$s" -v b="${gtr_s[$t/$cmd]}" 'BEGIN { exit !(a < b) }'; then
					gtr_s[$t/$cmd]=$s
					gtr_anon[$t/$cmd]=$(kv "$r" peak_anon_kb)
				fi
				if [ "$j" = 1 ]; then
					gtr_j1[$t/$cmd]=$s
				elif [ "$j" != - ]; then
					awk -v input="$t" -v cmd="$cmd" -v isa="$isa" -v j="$j" -v a="${gtr_j1[$t/$cmd]}" -v b="$s" 'BEGIN {
						printf "scaling input=%s cmd=%s isa=%s j=%s seconds_j1=%.3f seconds=%.3f speedup=%.2fx\n", input, cmd, isa, j, a, b, a / b
					}'
				fi
			done
		done
		# Each ISA's throughput as a fraction of the best ISA's, same -j.
		[ "$cmd" = stats ] && continue
		for j in $(jobs_of "$cmd"); do
			[ -n "${isa_s[$best_isa/$j]:-}" ] || continue
			for isa in "${isas[@]}"; do
				[ -n "${isa_s[$isa/$j]:-}" ] || continue
				awk -v input="$t" -v cmd="$cmd" -v isa="$isa" -v j="${j/-/1}" -v s="${isa_s[$isa/$j]}" \
					-v bs="${isa_s[$best_isa/$j]}" -v bisa="$best_isa" 'BEGIN {
					printf "of_isa input=%s cmd=%s isa=%s j=%s seconds=%.3f best_isa=%s best_seconds=%.3f fraction=%.1f%%\n",
						input, cmd, isa, j, s, bisa, bs, 100 * bs / s
				}'
			done
		done
		isa_s=()
	done
	[ "${BENCH_SKIP_GO:-0}" = 1 ] && continue
	# Go's readers. -d=footprint reads v2 traces only; -pprof=sched keeps
	# the whole parsed trace in memory (some 75 bytes per trace byte), so
	# it runs on the 200 MiB trace only.
	go_cmds=()
	case $t in v2-*) go_cmds+=("footprint:-d=footprint") ;; esac
	case $t in *-200m) go_cmds+=("pprof-sched:-pprof=sched") ;; esac
	for gc in "${go_cmds[@]}"; do
		name=${gc%%:*} flag=${gc#*:}
		if [ "$name" = pprof-sched ]; then
			# It needs about 75 bytes of memory per trace byte: do not run
			# the machine out of memory (it is shared) to prove that.
			availkb=$(awk '/MemAvailable/ { print $2 }' /proc/meminfo)
			if [ $((bytes / 1024 * 85)) -gt "$availkb" ]; then
				note "go tool trace $flag on $t skipped: it needs ~$((bytes * 80 >> 30)) GiB, $((availkb >> 20)) GiB available"
				continue
			fi
		fi
		r=$(best "$GO_RUNS" -o "$sink" -- "$gotrace" "$flag" "$f") || {
			note "go tool trace $flag failed on $t: $r"
			continue
		}
		row go "$t" "go-tool-trace$flag" "go$go_version" 1 "$bytes" "$events" "$r"
		ours=footprint
		[ "$name" = pprof-sched ] && ours=greedy
		if [ -n "${gtr_s[$t/$ours]:-}" ]; then
			awk -v input="$t" -v ours="$ours" -v theirs="$flag" -v gs="${gtr_s[$t/$ours]}" \
				-v ts="$(kv "$r" seconds)" -v ga="${gtr_anon[$t/$ours]}" -v ta="$(kv "$r" peak_anon_kb)" \
				-v isa="$best_isa" 'BEGIN {
				printf "ratio input=%s gtr=%s isa=%s go=go-tool-trace%s gtr_seconds=%.3f go_seconds=%.3f speedup=%.1fx gtr_anon_MB=%.1f go_anon_MB=%.1f go_memory_over_gtr=%.1fx\n",
					input, ours, isa, theirs, gs, ts, ts / gs, ga / 1024, ta / 1024, ta / (ga > 0 ? ga : 1)
			}'
		fi
	done
done
# ---- every command against Go's one pass ------------------------------------
# What a person or a CI job runs, each at its default threads on the best
# ISA, against one pass of Go's own reader over the same file: bench/onepass
# (Go 1.26's internal/trace, the reader of golang.org/x/exp/trace, events
# in order and nothing done with them), on v2 and v1 traces alike. diff
# reads the trace twice (against itself); check reads one trace.
if [ "${BENCH_SKIP_COMMANDS:-0}" != 1 ] && [ "${BENCH_SKIP_GO:-0}" != 1 ]; then
	for t in $TRACES; do
		f=$cache/$t.trace
		bytes=$(stat -c %s "$f")
		goname=go$go_version-reader-onepass gocmd=("$onepass" "$f")
		r=$(best "$GO_RUNS" -o "$sink" -- "${gocmd[@]}") || {
			note "Go's pass failed on $t: $r"
			continue
		}
		go_s=$(kv "$r" seconds)
		go_anon=$(kv "$r" peak_anon_kb)
		echo "onepass input=$t go=$goname seconds=$go_s peak_anon_MB=$(awk -v a="$go_anon" 'BEGIN { printf "%.1f", a / 1024 }')"
		# greedy --fast, the command the ISA shows in, on every ISA; the
		# others on the best.
		for c in "greedy" "greedy --fast" "footprint" "stats" "stats --fast" "report -o $cache/page.html" \
			"check --update-baseline --baseline $cache/bench-base.json" \
			"check --fast --update-baseline --baseline $cache/bench-base.json" "diff $f" "diff --fast $f"; do
			read -r -a args <<<"$c"
			cisas=("$best_isa")
			[ "$c" = "greedy --fast" ] && cisas=("${isas[@]}")
			for isa in "${cisas[@]}"; do
				r=$(best "$RUNS" -o "$sink" -e GTR_ISA="$isa" -- "$gtr" "${args[@]}" "$f") || {
					note "gtr $c failed on $t: $r"
					continue
				}
				awk -v input="$t" -v cmd="${args[0]}${args[1]:+ ${args[1]}}" -v isa="$isa" -v gs="$(kv "$r" seconds)" \
					-v ts="$go_s" -v ga="$(kv "$r" peak_anon_kb)" -v go="$goname" 'BEGIN {
					sub(/ -o$/, "", cmd); sub(/ --update-baseline$/, "", cmd); sub(/ \/.*/, "", cmd)
					printf "command input=%s cmd=\"%s\" isa=%s seconds=%.3f go=%s go_seconds=%.3f faster_than_go=%.1fx peak_anon_MB=%.1f\n",
						input, cmd, isa, gs, go, ts, ts / gs, ga / 1024
				}'
			done
		done
		rm -f "$cache/page.html" "$cache/bench-base.json"
	done
fi
note "results saved in $log"
