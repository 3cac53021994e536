#!/usr/bin/env bash
# check-traces.sh GODIR TRACEDIR
#
# Checks that the Go toolchain, the reference reader, parses every trace
# in TRACEDIR:
#   - every trace of version 1.11 or later with the newest installed
#     toolchain (GODIR/go-1.27 by default, ORACLE=VERSION to choose):
#         go tool trace -d=parsed FILE
#   - every "go 1.11 trace" file also with Go 1.15, whose own reader is
#     the one that was current when such traces were written:
#         go tool trace -http=127.0.0.1:0 -d FILE
#     (it opens a listener before parsing; this keeps it on loopback)
# Defaults: GODIR=/opt/gtr-go, TRACEDIR=corpora/traces. Prints one line
# per trace and fails if any trace is refused.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
godir=${1:-/opt/gtr-go}
tracedir=${2:-$here/traces}
oracle=${ORACLE:-1.27}
cache_root=${GTR_CORPORA_CACHE:-${TMPDIR:-/tmp}/gtr-corpora-cache}

die() {
	echo "check-traces.sh: $*" >&2
	exit 1
}

# go_env VERSION COMMAND... as in make-traces.sh: go tool trace is built
# on first use by recent toolchains, into a private cache, offline.
go_env() {
	local v=$1
	shift
	env -u GOROOT -u GOBIN -u GOOS -u GOARCH -u GOEXPERIMENT -u GODEBUG \
		GOENV=off GOTOOLCHAIN=local GO111MODULE=on GOFLAGS=-mod=mod \
		GOPROXY=off GOSUMDB=off GOWORK=off CGO_ENABLED=0 \
		GOPATH="$cache_root/go-$v/gopath" \
		GOCACHE="$cache_root/go-$v/cache" \
		GOMODCACHE="$cache_root/go-$v/gopath/pkg/mod" \
		"$@"
}

# header_minor FILE prints N for a file starting "go 1.N trace\0\0\0".
header_minor() {
	local hdr
	hdr=$(head -c 16 "$1" | od -An -c | tr -d ' \n')
	[[ $hdr =~ ^go1\.([0-9]+)trace(\\0)+$ ]] || return 1
	echo "${BASH_REMATCH[1]}"
}

newest=$godir/go-$oracle/bin/go
[ -x "$newest" ] || die "$newest is not installed (set ORACLE=VERSION)"
old=$godir/go-1.15/bin/go
[ -x "$old" ] || echo "check-traces.sh: Go 1.15 not installed: skipping its check of go 1.11 traces" >&2
mkdir -p "$cache_root/go-$oracle" "$cache_root/go-1.15"

failed=0
checked=0
for f in "$tracedir"/*.trace; do
	[ -e "$f" ] || continue
	name=${f##*/}
	if ! minor=$(header_minor "$f"); then
		echo "FAIL $name: no 'go 1.N trace' header"
		failed=$((failed + 1))
		continue
	fi
	if [ "$minor" -lt 11 ]; then
		echo "skip $name: go 1.$minor trace predates the parsed dump"
		continue
	fi
	status=ok
	if ! go_env "$oracle" "$newest" tool trace -d=parsed "$f" >/dev/null 2>"$cache_root/check.err"; then
		status="FAIL (go$oracle: $(head -c 200 "$cache_root/check.err"))"
	fi
	if [ "$status" = ok ] && [ "$minor" -eq 11 ] && [ -x "$old" ]; then
		if ! go_env 1.15 "$old" tool trace -http=127.0.0.1:0 -d "$f" >/dev/null 2>"$cache_root/check.err"; then
			status="FAIL (go1.15: $(head -c 200 "$cache_root/check.err"))"
		else
			status="ok (also go1.15)"
		fi
	fi
	printf '%-34s go 1.%-3s %s\n' "$name" "$minor" "$status"
	checked=$((checked + 1))
	[ "${status%% *}" != FAIL ] || failed=$((failed + 1))
done
rm -f "$cache_root/check.err"

[ "$checked" -gt 0 ] || die "no traces in $tracedir"
[ "$failed" -eq 0 ] || die "$failed trace(s) failed"
echo "all $checked traces parsed"
