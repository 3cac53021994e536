#!/usr/bin/env bash
# docs/shots.sh [GTR]: the README's pictures of `gtr report`, made from
# corpus traces in headless Chromium by tests/viewer.js, clipped to one
# section of the page each.
#   docs/report-zoom.png   the timeline of procs-go1.26 zoomed to 2 ms
#                          where GOMAXPROCS goes from 2 to 4, G39 selected
#   docs/report-tasks.png  the timeline of tasks-go1.26 with its tasks and
#                          regions lanes
#   docs/report-mmu.png    the MMU curve of gcpressure-go1.26
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gtr=$(realpath "${1:-$root/build/gtr}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gtr-shots.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$root/tests/browser-deps.sh" >"$tmp/deps.log" 2>&1 || { cat "$tmp/deps.log"; exit 1; }
chromium=$(command -v chromium || command -v chromium-browser)
t=$root/corpora/traces

# shot TRACE PNG SECTION [FROM TO [G]]
shot() {
	local trace=$1 png=$2
	shift 2
	"$gtr" report -o "$tmp/page.html" "$t/$trace.trace"
	node "$root/tests/viewer.js" shot "$chromium" "$tmp/page.html" "$root/docs/$png" "$@"
	echo "docs/$png: $(stat -c %s "$root/docs/$png") bytes"
}
shot procs-go1.26 report-zoom.png timeline 24300000 26300000 39
shot tasks-go1.26 report-tasks.png timeline 2700000 7300000
shot gcpressure-go1.26 report-mmu.png mmu
