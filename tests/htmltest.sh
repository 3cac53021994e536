#!/usr/bin/env bash
# tests/htmltest.sh GTR OUTDIR TRACE...
#
# `gtr report` as a person meets it, in headless Chromium (Debian's
# package, installed by tests/browser-deps.sh when missing). For each
# TRACE, and for a pair of them, the page is written, loaded from the file
# with #gtr-selftest (the page then drives its own zoom, pan, buttons and
# hover), and its DOM is dumped after its scripts ran: the page must
# report no error (window.onerror and console.error are caught in the
# page, and Chromium's own log must hold no console message), the
# timeline must draw one row per row of its data, every top slice and
# every pause, the histogram every bin and its marks, and the page must
# stay small and fetch nothing. Screenshots go to OUTDIR. Also the
# command line of `report`, progress on stderr and colour.
set -uo pipefail
gtr=$(realpath "$1")
out=$2
shift 2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gtr-htmltest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

if ! "$here/browser-deps.sh" >"$tmp/deps.log" 2>&1; then
	echo "FAIL chromium could not be installed: $(tail -3 "$tmp/deps.log")"
	echo "htmltest: 0 passed, 1 failed"
	exit 1
fi
chromium=$(command -v chromium || command -v chromium-browser)

# browse ARGS...: headless Chromium, isolated and offline, with a time limit.
browse() {
	local profile
	profile=$(mktemp -d "$tmp/profile.XXXXXX")
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--hide-scrollbars --user-data-dir="$profile" --window-size=1400,1000 "$@"
}

# attr FILE TAG ATTR: the value of ATTR on the first TAG element of the dumped DOM.
attr() { grep -o "<$2[^>]*>" "$1" | head -1 | grep -o " $3=\"[^\"]*\"" | sed -E 's/.*="(.*)"/\1/'; }
data_json() { sed -n '/id="gtr-data">/,/<\/script>/p' "$1" | sed -e '1s/.*id="gtr-data">//' -e '$s/<\/script>.*//'; }

# page NAME TRACE [B]: writes the page, loads it, checks what it drew.
page() {
	local name=$1
	shift
	local html=$tmp/$name.html
	if ! "$gtr" report -o "$html" "$@" 2>"$tmp/err"; then
		bad "$name: gtr report failed: $(head -c 300 "$tmp/err")"
		return
	fi
	ok
	local size
	size=$(stat -c %s "$html")
	[ "$size" -lt 2000000 ] && ok || bad "$name: the page is $size bytes"
	# Self-contained: nothing loaded from anywhere, and a policy that forbids it.
	if grep -Eq '(src|href)="(https?:)?//|@import|url\(' "$html"; then
		bad "$name: the page refers to something outside itself"
	else
		ok
	fi
	grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$html" && ok || bad "$name: no content security policy"
	data_json "$html" >"$tmp/$name.json"
	jq -e '.schema == "gtr.report.v1"' "$tmp/$name.json" >/dev/null && ok || bad "$name: the embedded data is not gtr.report.v1 JSON"

	browse --enable-logging=stderr --v=0 --dump-dom "file://$html#gtr-selftest" >"$tmp/dom" 2>"$tmp/log"
	local st=$?
	[ $st -eq 0 ] && [ -s "$tmp/dom" ] && ok || { bad "$name: chromium failed ($st): $(grep -v dbus "$tmp/log" | tail -3)"; return; }
	[ "$(attr "$tmp/dom" body data-ready)" = 1 ] && ok || bad "$name: the page did not finish rendering"
	local errs
	errs=$(attr "$tmp/dom" body data-errors)
	[ "$errs" = 0 ] && ok || bad "$name: $errs errors in the page: $(sed -n '/id="gtr-errors"/,/<\/pre>/p' "$tmp/dom" | head -c 400)"
	if grep -q ':CONSOLE' "$tmp/log"; then
		bad "$name: console messages: $(grep ':CONSOLE' "$tmp/log" | head -3)"
	else
		ok
	fi
	local selftest
	selftest=$(attr "$tmp/dom" body data-selftest)
	[ "$selftest" = ok ] && ok || bad "$name: interaction self-test: $selftest"

	# What was drawn against what the data holds, for each trace of the page.
	local n
	n=$(jq '.traces | length' "$tmp/$name.json")
	[ "$(attr "$tmp/dom" body data-timelines)" = "$n" ] && ok || bad "$name: $(attr "$tmp/dom" body data-timelines) timelines for $n traces"
	[ "$(attr "$tmp/dom" body data-histograms)" = "$n" ] && ok || bad "$name: $(attr "$tmp/dom" body data-histograms) histograms for $n traces"
	local k=0
	grep -o '<canvas class="timeline"[^>]*>' "$tmp/dom" >"$tmp/tl"
	grep -o '<canvas class="histogram"[^>]*>' "$tmp/dom" >"$tmp/hi"
	while [ "$k" -lt "$n" ]; do
		local tl hi rows slices pauses bins marks procs
		tl=$(sed -n "$((k + 1))p" "$tmp/tl")
		hi=$(sed -n "$((k + 1))p" "$tmp/hi")
		get() { grep -o " $2=\"[^\"]*\"" <<<"$1" | sed -E 's/.*="(.*)"/\1/'; }
		rows=$(jq ".traces[$k].timeline.rows | length" "$tmp/$name.json")
		procs=$(jq ".traces[$k].greedy.gomaxprocs.max" "$tmp/$name.json")
		slices=$(jq ".traces[$k].greedy.top | length" "$tmp/$name.json")
		pauses=$(jq ".traces[$k].pauses.list | length" "$tmp/$name.json")
		bins=$(jq ".traces[$k].hist.bins | length" "$tmp/$name.json")
		marks=$(jq ".traces[$k] | (if .greedy.tmax_stw.ns > 0 then 1 else 0 end) + (if .greedy.stw.count > 0 then 2 else 0 end)" "$tmp/$name.json")
		[ "$rows" -ge "$procs" ] && [ "$rows" -gt 0 ] && ok || bad "$name[$k]: $rows timeline rows for GOMAXPROCS $procs"
		[ "$(get "$tl" data-rows)" = "$rows" ] && ok || bad "$name[$k]: timeline drew $(get "$tl" data-rows) rows, the data has $rows"
		[ "$(get "$tl" data-slices)" = "$slices" ] && [ "$slices" -gt 0 ] && ok || bad "$name[$k]: timeline drew $(get "$tl" data-slices) top slices of $slices"
		[ "$(get "$tl" data-pauses)" = "$pauses" ] && ok || bad "$name[$k]: timeline drew $(get "$tl" data-pauses) pauses of $pauses"
		[ "$(get "$tl" data-busy-runs)" -gt 0 ] && ok || bad "$name[$k]: the timeline shows no busy time"
		[ "$(get "$hi" data-bars)" = "$bins" ] && [ "$bins" -gt 0 ] && ok || bad "$name[$k]: histogram drew $(get "$hi" data-bars) bars of $bins"
		[ "$(get "$hi" data-marks)" = "$marks" ] && ok || bad "$name[$k]: histogram drew $(get "$hi" data-marks) marks, want $marks"
		k=$((k + 1))
	done

	# What gtr greedy says is what the page shows.
	if [ $# -eq 1 ]; then
		"$gtr" greedy --json "$1" >"$tmp/greedy.json" 2>/dev/null
		[ "$(jq -c '[.top[] | [.g, .duration_ns]]' "$tmp/greedy.json")" = "$(jq -c '[.traces[0].greedy.top[] | [.g, .duration_ns]]' "$tmp/$name.json")" ] &&
			ok || bad "$name: the page's slices differ from gtr greedy's"
		[ "$(jq '.stw.count' "$tmp/greedy.json")" = "$(jq '.traces[0].pauses.total' "$tmp/$name.json")" ] &&
			ok || bad "$name: the page's pause count differs from gtr greedy's"
	else
		[ "$(attr "$tmp/dom" body data-diff)" = 1 ] && ok || bad "$name: no diff view"
		"$gtr" diff --json "$@" >"$tmp/diffcmd.json" 2>/dev/null
		[ "$(jq -c .verdict "$tmp/diffcmd.json")" = "$(jq -c .diff.verdict "$tmp/$name.json")" ] &&
			ok || bad "$name: the page's verdict differs from gtr diff's"
	fi

	browse --screenshot="$out/$name.png" "file://$html" >/dev/null 2>&1
	[ -s "$out/$name.png" ] && [ "$(head -c 8 "$out/$name.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		ok || bad "$name: no screenshot"
}

traces=("$@")
for f in "${traces[@]}"; do
	page "$(basename "$f" .trace)" "$f"
done
if [ ${#traces[@]} -ge 2 ]; then
	page diff "${traces[0]}" "${traces[1]}"
fi

# ---- the command line of report --------------------------------------------
expect() { # STATUS NAME -- CMD...
	local want=$1 name=$2
	shift 3
	timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
	local st=$?
	[ $st -eq "$want" ] && ok || bad "$name: status $st, want $want ($(head -c 200 "$tmp/err"))"
}
f=$(realpath "${traces[0]}")
expect 0 "report --help" -- "$gtr" report --help
grep -q -- '--buckets' "$tmp/out" && ok || bad "report --help does not describe --buckets"
expect 2 "report without a file" -- "$gtr" report
expect 2 "report with three files" -- "$gtr" report "$f" "$f" "$f"
expect 2 "report --buckets 3" -- "$gtr" report --buckets 3 "$f"
expect 2 "report -n 0" -- "$gtr" report -n 0 "$f"
expect 2 "report --frob" -- "$gtr" report --frob "$f"
expect 0 "report -o -" -- "$gtr" report -o - "$f"
head -c 15 "$tmp/out" | grep -q '<!DOCTYPE html>' && ok || bad "report -o - does not write the page to stdout"
(cd "$tmp" && "$gtr" report "$f" 2>/dev/null) && [ -s "$tmp/report.html" ] && ok || bad "report without -o does not write report.html"
expect 1 "report of a missing file" -- "$gtr" report -o "$tmp/missing.html" "$tmp/nope.trace"
[ ! -e "$tmp/missing.html" ] && ! ls "$tmp"/missing.html.tmp.* >/dev/null 2>&1 && ok || bad "a failed report left a file behind"
expect 1 "report into a missing directory" -- "$gtr" report -o "$tmp/no/such/dir.html" "$f"
size=$(stat -c %s "$f")
head -c $((size * 2 / 3)) "$f" >"$tmp/cut.trace"
expect 1 "report of a cut trace" -- "$gtr" report -o "$tmp/cut.html" "$tmp/cut.trace"
grep -q truncated "$tmp/err" && ok || bad "report of a cut trace does not say it is cut"
[ -s "$tmp/cut.html" ] && data_json "$tmp/cut.html" | jq -e '.traces[0].warning | test("partial|trunc")' >/dev/null &&
	ok || bad "the page of a cut trace does not say it was read in part"
expect 0 "report --lenient of a cut trace" -- "$gtr" report --lenient -o "$tmp/cut.html" "$tmp/cut.trace"
expect 0 "report from stdin" -- sh -c "'$gtr' report -o '$tmp/stdin.html' - < '$f'"
cmp -s <(data_json "$tmp/stdin.html" | jq -c '.traces[0].timeline') <(data_json "$tmp/report.html" | jq -c '.traces[0].timeline') &&
	ok || bad "the page of stdin differs from the page of the file"

# ---- damaged traces: status 0 or 1, one line when strict, no sanitizer report
damaged() { # NAME FILE
	local mode st
	for mode in strict --lenient; do
		local args=(report -o "$tmp/d.html")
		[ "$mode" = --lenient ] && args+=(--lenient)
		timeout 60 "$gtr" "${args[@]}" "$2" >/dev/null 2>"$tmp/err"
		st=$?
		if grep -q 'Sanitizer\|runtime error:' "$tmp/err"; then
			bad "$1 ($mode): sanitizer report: $(grep -m1 'Sanitizer\|runtime error' "$tmp/err")"
		elif [ $st -ne 0 ] && [ $st -ne 1 ]; then
			bad "$1 ($mode): exit status $st ($(head -c 200 "$tmp/err"))"
		elif [ "$mode" = strict ] && [ $st -eq 1 ] && { [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q 'at byte [0-9]' "$tmp/err"; }; then
			bad "$1 ($mode): stderr is not one line with a byte offset: $(head -c 300 "$tmp/err")"
		else
			ok
		fi
	done
}
for src in "${traces[@]:0:3}"; do
	name=$(basename "$src" .trace)
	size=$(stat -c %s "$src")
	for cut in 17 40 100 $((size / 5)) $((size / 2)) $((size - 3)); do
		head -c "$cut" "$src" >"$tmp/damaged.trace"
		damaged "$name cut at $cut" "$tmp/damaged.trace"
	done
	for seed in 1 2 3 4; do
		python3 - "$src" "$tmp/damaged.trace" "$seed" <<'EOF2'
import random, sys
d = bytearray(open(sys.argv[1], 'rb').read())
r = random.Random(int(sys.argv[3]))
for _ in range(r.randint(1, 8)):
    i = r.randrange(16, len(d))
    d[i] ^= 1 << r.randrange(8)
open(sys.argv[2], 'wb').write(d)
EOF2
		damaged "$name with bits flipped (seed $seed)" "$tmp/damaged.trace"
	done
done

# ---- progress and colour ---------------------------------------------------
"$gtr" greedy "$f" >/dev/null 2>"$tmp/err"
[ ! -s "$tmp/err" ] && ok || bad "greedy in a pipe printed on stderr: $(head -c 100 "$tmp/err")"
"$gtr" --progress greedy "$f" >/dev/null 2>"$tmp/err"
grep -q 'decode' "$tmp/err" && grep -q $'\r' "$tmp/err" && ok || bad "--progress shows no decode progress"
# One read feeds every part of the page: its decode phase is "analyses".
"$gtr" report --progress -o "$tmp/p.html" "$f" 2>"$tmp/err"
grep -q 'index' "$tmp/err" && grep -q 'decode analyses' "$tmp/err" && ok || bad "report --progress does not name its phases"
"$gtr" --progress --no-progress greedy "$f" >/dev/null 2>"$tmp/err"
[ ! -s "$tmp/err" ] && ok || bad "--no-progress still shows progress"
# On a terminal (a pseudo-terminal, read to its end), headings are
# coloured unless NO_COLOR or --color=never.
tty_run() {
	TERM=xterm python3 -c '
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        b = os.read(fd, 65536)
    except OSError:
        break
    if not b:
        break
    out += b
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)' "$@"
}
tty_run "$gtr" greedy -n 1 "$f" | grep -q $'\e\\[1m' && ok || bad "no colour on a terminal"
NO_COLOR=1 tty_run "$gtr" greedy -n 1 "$f" | grep -q $'\e\\[' && bad "NO_COLOR is not honoured" || ok
tty_run "$gtr" greedy --color=never -n 1 "$f" | grep -q $'\e\\[' && bad "--color=never still colours" || ok
tty_run "$gtr" --progress greedy -n 1 "$f" | grep -q 'decode' && ok || bad "no progress on a terminal with --progress"
"$gtr" greedy -n 1 "$f" | grep -q $'\e\\[' && bad "colour in a pipe" || ok
"$gtr" --color=always greedy -n 1 "$f" | grep -q $'\e\\[1m' && ok || bad "--color=always does not colour"
expect 2 "--color=sometimes" -- "$gtr" --color=sometimes greedy "$f"
"$gtr" --help | grep -q -- '--no-progress' && ok || bad "gtr --help does not describe --no-progress"
"$gtr" --version | grep -q '1\.26' && ok || bad "gtr --version does not name the trace versions"

echo "htmltest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
