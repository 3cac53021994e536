#!/usr/bin/env bash
# tests/viewertest.sh GTR OUTDIR TRACE...
#
# The report page as a viewer, in headless Chromium driven through the
# DevTools protocol by tests/viewer.js (Node, no packages): for each
# TRACE, the page of `gtr report` is zoomed with the keys (w/s, a/d) and
# the mouse wheel, then set to a 1 ms window where the trace is busiest,
# and the slices drawn there are compared with those of `gtr dump
# --transitions --from --to` over the same window: every slice, with its
# goroutine, start and end, and none more. A slice is hovered and clicked
# (its goroutine selected across Ps), the axis labels must all differ,
# and the page must log nothing and fetch nothing. The first trace is
# also reported with --slices 300, and a trace of more than 10,000 slices
# with --slices 5000, so that the page holds only its longest slices:
# then they must be the longest, and every slice longer than the page's
# bound must be drawn. The task and region lanes must draw what `gtr
# tasks` and `gtr regions` list, and the MMU plot the points of `gtr mmu`.
# Screenshots go to OUTDIR.
set -uo pipefail
gtr=$(realpath "$1")
out=$2
shift 2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gtr-viewertest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

if ! "$here/browser-deps.sh" >"$tmp/deps.log" 2>&1; then
	echo "FAIL chromium could not be installed: $(tail -3 "$tmp/deps.log")"
	echo "viewertest: 0 passed, 1 failed"
	exit 1
fi
chromium=$(command -v chromium || command -v chromium-browser)
if ! command -v node >/dev/null 2>&1; then
	echo "FAIL node is needed to drive chromium (apt-get install nodejs)"
	echo "viewertest: 0 passed, 1 failed"
	exit 1
fi

# view NAME TRACE [REPORT FLAGS...]
view() {
	local name=$1 trace=$2
	shift 2
	if ! "$gtr" report "$@" -o "$tmp/$name.html" "$trace" 2>"$tmp/err"; then
		echo "FAIL $name: gtr report failed: $(head -c 300 "$tmp/err")"
		fail=$((fail + 1))
		return
	fi
	timeout 300 node "$here/viewer.js" check "$chromium" "$gtr" "$trace" "$tmp/$name.html" "$out/$name.png" >"$tmp/log" 2>&1
	local st=$?
	pass=$((pass + $(grep -c '^ok ' "$tmp/log")))
	fail=$((fail + $(grep -c '^FAIL ' "$tmp/log")))
	grep '^FAIL ' "$tmp/log" | sed "s/^FAIL /FAIL $name: /"
	if [ $st -ne 0 ] && ! grep -q '^FAIL ' "$tmp/log"; then
		echo "FAIL $name: the driver stopped ($st): $(tail -3 "$tmp/log")"
		fail=$((fail + 1))
	fi
}

first=1
for f in "$@"; do
	name=$(basename "$f" .trace)
	view "$name" "$f"
	if [ $first = 1 ]; then
		view "$name-longest" "$f" --slices 300
		first=0
	fi
	# A trace with many slices is also viewed with a cap the kept slices
	# grow past in steps (core/analysis/zoom.c allocates 4096 at first).
	if [ "$("$gtr" greedy --json "$f" 2>/dev/null | jq .slices_total)" -gt 10000 ] 2>/dev/null; then
		view "$name-5000" "$f" --slices 5000
	fi
done
echo "viewertest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
