#!/usr/bin/env bash
# make-traces.sh GODIR OUTDIR [VERSION...]
#
# Builds every program under corpora/programs/ with each installed Go
# toolchain and runs it to write OUTDIR/NAME-goVERSION.trace, plus the two
# variants of the greedy example (greedy-coarse-go1.26.trace, which never
# yields, and greedy-fine-go1.26.trace, which yields every
# GREEDY_FINE_EVERY iterations) under Go 1.26 only, both with asynchronous
# preemption off (GODEBUG=asyncpreemptoff=1) as in the proposal's setting.
#
#   corpora/make-traces.sh /opt/gtr-go corpora/traces          # all versions
#   corpora/make-traces.sh /opt/gtr-go corpora/traces 1.22 1.26
#   GTR_CORPORA_PROGRAMS=longwait corpora/make-traces.sh   # one program
#
# GODIR holds toolchains as GODIR/go-VERSION/bin/go, as installed by
# install-go.sh; a version that is not installed is skipped with a
# message. Defaults: GODIR=/opt/gtr-go, OUTDIR=corpora/traces, every
# version below.
#
# Nothing is downloaded: the programs use only the standard library, and
# module proxies and toolchain switching are turned off. Each toolchain
# gets a private GOPATH and build cache under
# ${GTR_CORPORA_CACHE:-${TMPDIR:-/tmp}/gtr-corpora-cache}/go-VERSION, kept
# between runs so that a second run does not rebuild the standard library.
#
# The script is idempotent: every trace is rewritten (through a temporary
# file, renamed into place), nothing else in OUTDIR is touched. It prints
# one line per trace (name, bytes), checks each trace's 16-byte header
# against the version that toolchain writes, and fails if a trace is over
# MAX_TRACE_BYTES or all traces in OUTDIR together are over
# MAX_TOTAL_BYTES.
set -euo pipefail

readonly MAX_TRACE_BYTES=2000000  # 2 MB per trace
readonly MAX_TOTAL_BYTES=40000000 # 40 MB for the whole of OUTDIR
readonly RUN_TIMEOUT=120          # seconds a program may run
readonly GREEDY_VERSION=1.26      # toolchain of the coarse/fine greedy pair
readonly GREEDY_FINE_EVERY=20000  # yield granularity of greedy-fine (~30us of work)
readonly ALL_VERSIONS=(1.15 1.19 1.21 1.22 1.23 1.24 1.25 1.26 1.27)
readonly PROGRAMS=(greedy churn syscalls timers gcpressure annotations tasks procs longwait)
# longwait's traces are about 1 MB: made with the newest toolchain of
# each format only.
readonly LONGWAIT_VERSIONS=" 1.21 1.26 "
# GTR_CORPORA_PROGRAMS="NAME..." makes the traces of these programs only.
programs=(${GTR_CORPORA_PROGRAMS:-${PROGRAMS[@]}})

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
godir=${1:-/opt/gtr-go}
outdir=${2:-$here/traces}
if [ $# -gt 2 ]; then
	shift 2
	versions=("$@")
else
	versions=("${ALL_VERSIONS[@]}")
fi
cache_root=${GTR_CORPORA_CACHE:-${TMPDIR:-/tmp}/gtr-corpora-cache}

die() {
	echo "make-traces.sh: $*" >&2
	exit 1
}

# expected_header VERSION prints the trace version ("1.N") that Go VERSION
# writes in its header, or nothing for a toolchain not in the table.
expected_header() {
	case $1 in
	1.15) echo 1.11 ;;
	1.19 | 1.20) echo 1.19 ;;
	1.21) echo 1.21 ;;
	1.22) echo 1.22 ;;
	1.23 | 1.24) echo 1.23 ;;
	1.25) echo 1.25 ;;
	1.26 | 1.27) echo 1.26 ;;
	*) ;;
	esac
}

# header_version FILE prints "1.N" if FILE starts with the 16-byte header
# "go 1.N trace" padded with NUL bytes, and fails otherwise.
header_version() {
	local hdr
	# od prints the 16 bytes as characters; NULs show as \0.
	hdr=$(head -c 16 "$1" | od -An -c | tr -d ' \n')
	[[ $hdr =~ ^go1\.([0-9]+)trace(\\0)+$ ]] || return 1
	[ "$(head -c 16 "$1" | wc -c)" -eq 16 ] || return 1
	echo "1.${BASH_REMATCH[1]}"
}

file_size() {
	wc -c <"$1" | tr -d ' '
}

[ -d "$godir" ] || die "GODIR $godir is not a directory"
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
build_dir=$(mktemp -d "${TMPDIR:-/tmp}/gtr-corpora-build.XXXXXX")
trap 'rm -rf "$build_dir"' EXIT

# go_env VERSION COMMAND... runs COMMAND with the environment for
# toolchain VERSION: its own GOPATH and cache, no network, no toolchain
# switching, no cgo (the net package uses its pure Go resolver, so no C
# compiler is needed and no cgo threads appear in the traces), and no
# settings inherited from the caller's go env.
go_env() {
	local v=$1
	shift
	env -u GOROOT -u GOBIN -u GOOS -u GOARCH -u GOEXPERIMENT -u GODEBUG \
		GOENV=off \
		GOTOOLCHAIN=local \
		GO111MODULE=on \
		GOFLAGS=-mod=mod \
		GOPROXY=off \
		GOSUMDB=off \
		GOWORK=off \
		CGO_ENABLED=0 \
		GOPATH="$cache_root/go-$v/gopath" \
		GOCACHE="$cache_root/go-$v/cache" \
		GOMODCACHE="$cache_root/go-$v/gopath/pkg/mod" \
		"$@"
}

# run_program BINARY TRACE [VAR=VALUE...] runs a corpus program with a
# minimal, fixed environment (GOMAXPROCS=2, no GODEBUG/GOGC from the
# caller) and writes TRACE through a temporary file.
run_program() {
	local bin=$1 trace=$2
	shift 2
	local tmp=$outdir/.${trace##*/}.tmp
	rm -f "$tmp"
	if ! env -i PATH=/usr/bin:/bin TMPDIR="${TMPDIR:-/tmp}" GOMAXPROCS=2 "$@" \
		timeout "$RUN_TIMEOUT" "$bin" "$tmp"; then
		rm -f "$tmp"
		die "${bin##*/} failed while writing ${trace##*/}"
	fi
	mv -f "$tmp" "$trace"
}

# check_trace TRACE VERSION checks the header and the size limit and
# prints the trace's line.
check_trace() {
	local trace=$1 v=$2 name=${1##*/} got want size
	got=$(header_version "$trace") || die "$name: no 'go 1.N trace' header"
	want=$(expected_header "$v")
	if [ -n "$want" ] && [ "$got" != "$want" ]; then
		die "$name: header says go $got trace, Go $v writes go $want"
	fi
	size=$(file_size "$trace")
	printf '%-34s %9d\n' "$name" "$size"
	if [ "$size" -gt "$MAX_TRACE_BYTES" ]; then
		die "$name is $size bytes, over the limit of $MAX_TRACE_BYTES: shorten the program"
	fi
}

made=0
for v in "${versions[@]}"; do
	gobin=$godir/go-$v/bin/go
	if [ ! -x "$gobin" ]; then
		echo "make-traces.sh: skipping Go $v: $gobin is not installed" >&2
		continue
	fi
	mkdir -p "$cache_root/go-$v"
	for prog in "${programs[@]}"; do
		if [ "$prog" = longwait ] && [[ $LONGWAIT_VERSIONS != *" $v "* ]]; then
			continue
		fi
		src=$here/programs/$prog
		[ -f "$src/main.go" ] || die "missing $src/main.go"
		bin=$build_dir/$prog-go$v
		# Building the file rather than a package needs no go.mod: the
		# program is the package command-line-arguments and imports
		# only the standard library. -trimpath keeps machine-specific
		# directories out of the stack frames recorded in the traces.
		(cd "$src" && go_env "$v" "$gobin" build -trimpath -o "$bin" main.go) ||
			die "building $prog with Go $v failed"

		if [ "$prog" = greedy ] && [ "$v" = "$GREEDY_VERSION" ]; then
			# Asynchronous preemption off: the spinners then behave as
			# tight loops did before Go 1.14, and as non-preemptible code
			# still does, so a stop-the-world must wait for them.
			run_program "$bin" "$outdir/greedy-coarse-go$v.trace" GTR_YIELD_EVERY=0 GODEBUG=asyncpreemptoff=1
			check_trace "$outdir/greedy-coarse-go$v.trace" "$v"
			run_program "$bin" "$outdir/greedy-fine-go$v.trace" GTR_YIELD_EVERY=$GREEDY_FINE_EVERY GODEBUG=asyncpreemptoff=1
			check_trace "$outdir/greedy-fine-go$v.trace" "$v"
			made=$((made + 2))
		fi
		run_program "$bin" "$outdir/$prog-go$v.trace"
		check_trace "$outdir/$prog-go$v.trace" "$v"
		made=$((made + 1))
	done
done

[ "$made" -gt 0 ] || die "no toolchain found under $godir for versions: ${versions[*]}"

total=0
count=0
for f in "$outdir"/*.trace; do
	[ -e "$f" ] || continue
	total=$((total + $(file_size "$f")))
	count=$((count + 1))
done
printf '%-34s %9d\n' "total ($count traces in ${outdir##*/})" "$total"
if [ "$total" -gt "$MAX_TOTAL_BYTES" ]; then
	die "traces in $outdir total $total bytes, over the limit of $MAX_TOTAL_BYTES"
fi
