#!/usr/bin/env bash
# tests/oracle/build.sh GO_DIR OUTDIR
#
# Builds the programs that ask Go's own trace reader about tasks, regions
# and mutator utilization: tests/oracle/views with Go 1.27 (v2 traces, and
# tasks and regions of v1 traces through Go's conversion) and
# tests/oracle/viewsv1 with Go 1.21 (mutator utilization of v1 traces).
# Both import internal/trace, which only the standard library's own
# commands may import, so each is built as a command of a copy of the
# toolchain's tree made of symbolic links (OUTDIR/goroot-VERSION): the
# toolchain itself is not written to. Prints nothing on success; the
# binaries are OUTDIR/views and OUTDIR/viewsv1. A binary newer than its
# source is kept.
set -euo pipefail
godir=$1 out=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"

build() { # VERSION NAME
	local v=$1 name=$2 gobin=$godir/go-$1/bin/go
	[ -x "$gobin" ] || { echo "build.sh: Go $v is not installed in $godir" >&2; return 1; }
	if [ -x "$out/$name" ] && [ "$out/$name" -nt "$here/$name/main.go" ]; then
		return 0
	fi
	local goroot root=$out/goroot-$v
	goroot=$(GOTOOLCHAIN=local "$gobin" env GOROOT)
	if [ ! -d "$root/src/cmd" ]; then
		rm -rf "$root"
		cp -rs "$goroot" "$root"
	fi
	mkdir -p "$root/src/cmd/gtr$name"
	ln -sf "$here/$name/main.go" "$root/src/cmd/gtr$name/main.go"
	(cd "$root/src" && env -u GOFLAGS -u GOOS -u GOARCH GOROOT="$root" GOTOOLCHAIN=local \
		GOCACHE="$out/cache-$v" GOPROXY=off CGO_ENABLED=0 \
		"$root/bin/go" build -o "$out/$name.tmp" "./cmd/gtr$name")
	mv -f "$out/$name.tmp" "$out/$name"
}

build 1.27 views
build 1.21 viewsv1
