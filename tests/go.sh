#!/usr/bin/env bash
# tests/go.sh SHARED GO_DIR VERSION...
# Installs the Go toolchains the differential tests use as oracles, through
# the shared installer, when they are not there yet.
set -euo pipefail
shared=$1 dir=$2
shift 2
missing=()
for v in "$@"; do
	[ -x "$dir/go-$v/bin/go" ] || missing+=("$v")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ ! -x "$shared/tools/install-go.sh" ]; then
	echo "tests/go.sh: $shared/tools/install-go.sh not found; cannot install Go ${missing[*]}" >&2
	exit 1
fi
echo "installing Go ${missing[*]} into $dir"
"$shared/tools/install-go.sh" "$dir" "${missing[@]}"
