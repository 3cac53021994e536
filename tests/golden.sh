#!/usr/bin/env bash
# tests/golden.sh GTR [--update]
#
# Golden tests: gtr's output on corpus traces against the expected files
# in corpora/expected/. Each line of corpora/expected/CASES is
#   NAME  ARGS...
# and corpora/expected/NAME.out holds the output of `gtr ARGS...` run from
# the repository root ($GO_DIR in ARGS is the Go toolchains' directory). --update rewrites the expected files (review the
# diff before committing it).
set -uo pipefail
gtr=$1
update=${2:-}
dir=corpora/expected
pass=0 fail=0
GO_DIR=${GO_DIR:-/opt/gtr-go}
while read -r name args; do
	case $name in '' | '#'*) continue ;; esac
	# Cases may name Go's own test traces under $GO_DIR.
	args=${args//\$GO_DIR/$GO_DIR}
	case $args in *"$GO_DIR"*) [ -d "$GO_DIR" ] || { echo "skip golden $name: no $GO_DIR"; continue; } ;; esac
	# shellcheck disable=SC2086
	"$gtr" $args >"$dir/$name.got" 2>&1
	echo "exit status $?" >>"$dir/$name.got"
	if [ "$update" = --update ]; then
		mv "$dir/$name.got" "$dir/$name.out"
		echo "updated $name"
		continue
	fi
	if [ -f "$dir/$name.out" ] && cmp -s "$dir/$name.out" "$dir/$name.got"; then
		pass=$((pass + 1))
		echo "ok   golden $name"
	else
		fail=$((fail + 1))
		echo "FAIL golden $name: gtr $args"
		diff "$dir/$name.out" "$dir/$name.got" 2>&1 | head -10
	fi
	rm -f "$dir/$name.got"
done <"$dir/CASES"
echo "golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
