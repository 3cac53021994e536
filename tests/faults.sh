#!/usr/bin/env bash
# tests/faults.sh GTR TRACE...
#
# gtr as a user's machines try it: files that shrink while they are read
# (a writer process truncating them at several moments, repeated), kill -9
# and signals during baseline and report writes, concurrent
# --update-baseline runs, baselines behind symbolic links and with their
# own mode, closed and full standard output, FIFOs and looping links in a
# check directory, names that are not UTF-8 (the JSON checked by Python's
# json, the JUnit by xmllint), endless streams. Each case checks exit
# codes, messages, and that nothing is lost or left behind: the old or
# the new baseline, never a mix; no temporary file.
#
# Short by default (a few rounds each, for make test); FAULTS_FULL=1 (make
# faults) repeats the timing-dependent cases many more times.
set -uo pipefail
gtr=$(realpath "$1")
shift
traces=("$@")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gtr-faults.XXXXXX")
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
# Under make asan, ubsan or sanitize, a sanitizer's report is a failure even
# where the case accepts status 1 or a killed process: each report goes to
# a file of its own, counted at the end (a plain build writes none).
mkdir -p "$tmp/san"
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$tmp/san/asan
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$tmp/san/ubsan
pass=0 fail=0
full=${FAULTS_FULL:-0}
reps=$([ "$full" = 1 ] && echo 20 || echo 1)
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { # check DESCRIPTION COMMAND...: passes when the command succeeds
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}

if [ ${#traces[@]} -lt 3 ]; then
	echo "faults: need three traces or more"
	echo "0 passed, 1 failed"
	exit 1
fi
# The biggest traces make the longest reads, so shrinks land mid-read.
mapfile -t bysize < <(ls -S "${traces[@]}" | xargs realpath)
big=${bysize[0]} t2=${bysize[1]} t3=${bysize[2]}
bigsize=$(stat -c %s "$big")
json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$1" 2>/dev/null; }
no_tmp() { ! find "$1" -name '*.tmp.*' | grep -q .; }

# ---- 1. a file that shrinks while it is read ---------------------------------

# Deterministic: dump writes while it reads; with its pipe full it waits,
# the file is cut then, and what it reads next is past the new end.
for lenient in "" --lenient; do
	cp "$big" "$tmp/s.trace"
	{ "$gtr" dump $lenient "$tmp/s.trace"; echo "rc=$?" >"$tmp/rc"; } 2>"$tmp/err" |
		{ head -c 1 >/dev/null; truncate -s 100000 "$tmp/s.trace"; sleep 0.3; cat >/dev/null; }
	rc=$(sed 's/rc=//' "$tmp/rc")
	check "dump $lenient: a file cut mid-read is an error, not SIGBUS (status $rc)" [ "$rc" = 1 ]
	check "dump $lenient: says it shrank, with both sizes" \
		grep -q "the file shrank while it was read: now 100000 bytes, was $bigsize" "$tmp/err"
done

# A writer process truncating the file at several moments, repeated, under
# every command that reads a trace: never a signal, always words.
cmds=("greedy -j1" "greedy -j2" "greedy --ordered" "greedy --lenient" "stats" "stats --lenient"
	"footprint" "dump" "report -o $tmp/r.html" "diff $t2")
shrank=0
for c in "${cmds[@]}"; do
	died=0 silent=0
	for r in $(seq "$reps"); do
		for delay in $([ "$full" = 1 ] && echo 0 0.001 0.003 0.01 0.03 || echo 0 0.003); do
			cp "$big" "$tmp/v.trace"
			# shellcheck disable=SC2086
			"$gtr" $c "$tmp/v.trace" >/dev/null 2>"$tmp/err" &
			p=$!
			(sleep "$delay"; truncate -s $((bigsize / (r + 2))) "$tmp/v.trace"; truncate -s 0 "$tmp/v.trace") &
			w=$!
			wait $p
			rc=$?
			wait $w
			[ $rc -ge 128 ] && died=$((died + 1))
			[ $rc -ne 0 ] && ! grep -q '^gtr: ' "$tmp/err" && silent=$((silent + 1))
			grep -q 'shrank while it was read' "$tmp/err" && shrank=$((shrank + 1))
		done
	done
	check "$c: a file truncated by a writer never kills gtr ($died deaths)" [ $died = 0 ]
	check "$c: every failure says why ($silent silent)" [ $silent = 0 ]
done
echo "     (the shrink was caught mid-read $shrank times)"

# check -j2 over a directory where one trace is being cut: the run goes on.
mkdir -p "$tmp/cdir"
cp "$t2" "$tmp/cdir/a.trace"
cp "$t3" "$tmp/cdir/b.trace"
for r in $(seq "$reps"); do
	cp "$big" "$tmp/cdir/v.trace"
	"$gtr" check -j2 --baseline "$tmp/cb.json" --update-baseline --report-json "$tmp/cr.json" "$tmp/cdir" \
		>"$tmp/out" 2>"$tmp/err" &
	p=$!
	(truncate -s $((bigsize / 3)) "$tmp/cdir/v.trace"; sleep 0.002; truncate -s 4096 "$tmp/cdir/v.trace") &
	wait $p
	rc=$?
	wait
	check "check -j2 with a trace cut under it: status 0 or 1 (got $rc)" [ $rc -le 1 ]
	check "check -j2 with a trace cut under it: the others are reported" \
		grep -Eq '^(ok|new) +a\.trace' "$tmp/out"
	check "check -j2: its JSON report and baseline are written and valid" json_ok "$tmp/cr.json"
	check "check -j2: the baseline is valid JSON" json_ok "$tmp/cb.json"
done

# ---- 2. kill -9 and signals while a baseline or a report is written -----------

mkdir -p "$tmp/k"
cp "$t2" "$t3" "$big" "$tmp/k/"
"$gtr" check --baseline "$tmp/k.json" --update-baseline "$tmp/k" >/dev/null 2>&1
cp "$tmp/k.json" "$tmp/k.old"
cp "$big" "$tmp/k/extra.trace" # the next update adds an entry
"$gtr" check --baseline "$tmp/k.new" --update-baseline "$tmp/k" >/dev/null 2>&1
mixed=0 leftover=0
for sig in KILL INT TERM; do
	for r in $(seq $((reps * 3))); do
		cp "$tmp/k.old" "$tmp/k.json"
		"$gtr" check --baseline "$tmp/k.json" --update-baseline "$tmp/k" >/dev/null 2>&1 &
		p=$!
		sleep "0.0$((RANDOM % 10))"
		kill -$sig $p 2>/dev/null
		wait $p 2>/dev/null
		cmp -s "$tmp/k.json" "$tmp/k.old" || cmp -s "$tmp/k.json" "$tmp/k.new" ||
			mixed=$((mixed + 1))
		no_tmp "$tmp" || leftover=$((leftover + 1))
		"$gtr" report -o "$tmp/k.html" "$big" >/dev/null 2>&1 &
		p=$!
		sleep "0.0$((RANDOM % 10))"
		kill -$sig $p 2>/dev/null
		wait $p 2>/dev/null
		no_tmp "$tmp" || leftover=$((leftover + 1))
	done
	check "SIG$sig during --update-baseline: the old or the new baseline, never a mix ($mixed)" [ $mixed = 0 ]
	check "SIG$sig during writes: no temporary file left ($leftover)" [ $leftover = 0 ]
done

# ---- 3. concurrent --update-baseline: no entry lost ----------------------------

mkdir -p "$tmp/c1" "$tmp/c2"
cp "$t2" "$tmp/c1/one.trace"
cp "$t3" "$tmp/c2/two.trace"
lost=0
for r in $(seq 20); do
	rm -f "$tmp/cc.json"
	[ $((r % 2)) = 0 ] && printf '{"schema":"gtr.baseline.v1","traces":[]}\n' >"$tmp/cc.json"
	"$gtr" check --baseline "$tmp/cc.json" --update-baseline "$tmp/c1" >/dev/null 2>&1 &
	a=$!
	"$gtr" check --baseline "$tmp/cc.json" --update-baseline "$tmp/c2" >/dev/null 2>&1 &
	b=$!
	wait $a $b
	{ grep -q '"one.trace"' "$tmp/cc.json" && grep -q '"two.trace"' "$tmp/cc.json"; } || lost=$((lost + 1))
done
check "20 pairs of concurrent --update-baseline: no entry lost ($lost runs lost one)" [ $lost = 0 ]
check "concurrent updates: no temporary file left" no_tmp "$tmp"

# ---- 4. symbolic links, modes, outputs that are inputs ------------------------

mkdir -p "$tmp/shared"
cp "$tmp/k.old" "$tmp/shared/base.json"
chmod 600 "$tmp/shared/base.json"
ln -s shared/base.json "$tmp/link.json"
"$gtr" check --baseline "$tmp/link.json" --update-baseline "$tmp/c1" >/dev/null 2>&1
check "--update-baseline through a symlink: the link stays" [ -L "$tmp/link.json" ]
check "--update-baseline through a symlink: its target is updated" grep -q '"one.trace"' "$tmp/shared/base.json"
check "--update-baseline keeps the mode (0600)" [ "$(stat -c %a "$tmp/shared/base.json")" = 600 ]
: >"$tmp/shared/page.html"
chmod 640 "$tmp/shared/page.html"
ln -s shared/page.html "$tmp/page.html"
"$gtr" report -o "$tmp/page.html" "$t2" >/dev/null 2>&1
check "report -o through a symlink: the link stays, the target is written" \
	[ -L "$tmp/page.html" -a -s "$tmp/shared/page.html" ]
check "report -o keeps the mode (0640)" [ "$(stat -c %a "$tmp/shared/page.html")" = 640 ]
cp "$tmp/shared/base.json" "$tmp/before.json"
"$gtr" check --baseline "$tmp/link.json" --junit "$tmp/shared/base.json" "$tmp/c1" >/dev/null 2>"$tmp/err"
rc=$?
check "--junit naming the baseline is refused (status 2, got $rc)" [ $rc = 2 ]
check "--junit naming the baseline: the baseline is untouched" cmp -s "$tmp/before.json" "$tmp/shared/base.json"
check "--junit naming the baseline: says so" grep -q 'refusing to write over an input' "$tmp/err"
cp "$t2" "$tmp/in.trace"
"$gtr" report -o "$tmp/in.trace" "$tmp/in.trace" >/dev/null 2>&1
rc=$?
check "report -o naming its input is refused (status $rc), the trace kept" \
	[ $rc = 2 ] && cmp -s "$t2" "$tmp/in.trace"

# ---- 5. closed and full standard output ---------------------------------------

rm -f "$tmp/closed.html"
( cd "$tmp" && "$gtr" report -o closed.html "$t2" >&- 2>"$tmp/err" )
rc=$?
check "report -o FILE with stdout closed: status 0 (got $rc) and the page is there" [ $rc = 0 -a -s "$tmp/closed.html" ]
check "report -o FILE with stdout closed: no temporary file" no_tmp "$tmp"
cp "$tmp/k.old" "$tmp/cl.json"
"$gtr" check --baseline "$tmp/cl.json" --update-baseline "$tmp/c1" >&- 2>"$tmp/err"
rc=$?
check "check --update-baseline with stdout closed: the baseline is JSON, not the text report" \
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(t["name"]=="one.trace" for t in d["cases"])' "$tmp/cl.json"
check "check with stdout closed: status 1 and says the write failed (got $rc)" \
	[ $rc = 1 ] && grep -q 'writing standard output' "$tmp/err"
if [ -w /dev/full ]; then
	for c in "report -o - $t2" "check --baseline $tmp/k.old $tmp/c1" "--help" "greedy $t2" "stats $t2" \
		"check --help" "--version"; do
		# shellcheck disable=SC2086
		"$gtr" $c >/dev/full 2>"$tmp/err"
		rc=$?
		check "$c >/dev/full: status 1 (got $rc), with the reason" \
			[ $rc = 1 ] && grep -q 'No space left on device' "$tmp/err"
	done
fi

# ---- 6. check's walk: FIFOs, loops, unreadable directories, big non-traces -----

mkdir -p "$tmp/w/sub"
cp "$t2" "$tmp/w/a.trace"
cp "$t3" "$tmp/w/sub/b.trace"
mkfifo "$tmp/w/fifo.trace"
ln -s . "$tmp/w/a"
ln -s . "$tmp/w/b"
ln -s .. "$tmp/w/sub/up"
timeout 20 "$gtr" check --baseline "$tmp/w.json" --update-baseline "$tmp/w" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a FIFO and links that loop in a check directory: ends (status $rc)" [ $rc = 0 ]
check "the FIFO is reported and skipped" grep -q 'fifo.trace: a FIFO, not a regular file: skipped' "$tmp/err"
check "each trace once, whatever the loops (2 cases, 2 runs)" grep -q '^gtr check: 2 cases (2 runs)' "$tmp/out"
# A FIFO named on the command line is read, as asked.
cat "$t2" >"$tmp/w/fifo.trace" &
# (the baseline's other cases are not given: listed as missing, not failed)
timeout 20 "$gtr" check --baseline "$tmp/w.json" --no-fail-on-missing "$tmp/w/fifo.trace" >"$tmp/out" 2>&1
rc=$?
wait
check "a FIFO named on the command line is read (status $rc)" [ $rc = 0 ]
# An unreadable directory is an error of that entry (as root, run as nobody).
mkdir -p "$tmp/u/locked"
cp "$t2" "$tmp/u/a.trace"
cp "$t3" "$tmp/u/locked/b.trace"
chmod -R o+rX "$tmp/u" 2>/dev/null
chmod 000 "$tmp/u/locked"
chmod o+rx "$tmp"
as=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	chmod o+rwx "$tmp"
fi
if [ "$(id -u)" != 0 ] || [ ${#as[@]} -gt 0 ]; then
	"${as[@]}" "$gtr" check --baseline "$tmp/nobody.json" --update-baseline "$tmp/u" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "an unreadable subdirectory: status 1, not usage (got $rc)" [ $rc = 1 ]
	check "an unreadable subdirectory is an error of its entry; the rest is checked" \
		grep -q 'ERROR.*locked.*cannot read the directory: Permission denied' "$tmp/out"
	check "  ... and the readable trace is in the new baseline" grep -q '"a.trace"' "$tmp/nobody.json"
fi
chmod 755 "$tmp/u/locked"
# The header before the hash: a 20 GB file of zeros is refused at once.
mkdir -p "$tmp/h"
truncate -s 20G "$tmp/h/huge.trace"
cp "$t2" "$tmp/h/a.trace"
s=$(date +%s%N)
"$gtr" check --baseline "$tmp/h.json" "$tmp/h" >"$tmp/out" 2>&1
e=$(( ($(date +%s%N) - s) / 1000000 ))
check "a 20 GB non-trace in check: an error of its own, found in ${e} ms (not hashed)" \
	[ $e -lt 10000 ] && grep -q 'huge.trace.*not a Go execution trace' "$tmp/out"

# ---- 7. names that are not UTF-8 ----------------------------------------------

mkdir -p "$tmp/n"
cp "$t2" "$tmp/n/$(printf 'caf\xe9-latin1.trace')"
cp "$t3" "$tmp/n/$(printf 'ctl\x01\x1b[31m.trace')"
cp "$t2" "$tmp/n/$(printf 'back\\\\x41slash.trace')"
cp "$t2" "$tmp/n/plain-$(printf '\xc3\xa9').trace"
"$gtr" check --baseline "$tmp/n.json" --update-baseline --report-json "$tmp/n-report.json" \
	--junit "$tmp/n.xml" "$tmp/n" >"$tmp/out" 2>"$tmp/err"
check "non-UTF-8 names: the baseline is valid JSON" json_ok "$tmp/n.json"
check "non-UTF-8 names: --report-json is valid JSON" json_ok "$tmp/n-report.json"
if command -v xmllint >/dev/null; then
	check "non-UTF-8 names: the JUnit is valid XML" xmllint --noout "$tmp/n.xml"
fi
check "non-UTF-8 names: the text has no raw control character" \
	python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); sys.exit(any(c<32 and c not in (9,10) or c==127 for c in d))' "$tmp/out"
check "non-UTF-8 names: escaped as \\xHH in the text" grep -qF 'caf\xe9-latin1.trace' "$tmp/out"
"$gtr" check --baseline "$tmp/n.json" "$tmp/n" >"$tmp/out" 2>&1
rc=$?
check "non-UTF-8 names: a second run matches every entry of the baseline (status $rc)" \
	[ $rc = 0 ] && grep -q '4 ok' "$tmp/out"
"$gtr" greedy --json "$tmp/n/$(printf 'caf\xe9-latin1.trace')" >"$tmp/g.json" 2>/dev/null
check "greedy --json of a non-UTF-8 file name is valid JSON" json_ok "$tmp/g.json"
# The report page: its data is valid UTF-8 JSON and holds the names as io/name.h writes them.
"$gtr" report -o "$tmp/n.html" "$tmp/n/$(printf 'caf\xe9-latin1.trace')" "$tmp/n/$(printf 'ctl\x01\x1b[31m.trace')" \
	>/dev/null 2>&1
page_names() { # the file names in a report page's data, one a line
	python3 -c '
import json, re, sys
page = open(sys.argv[1], "rb").read().decode("utf-8")
m = re.search(r"<script[^>]*id=\"gtr-data\"[^>]*>(.*?)</script>", page, re.S)
data = json.loads(m.group(1))
for t in data["traces"]:
    print(t["file"].rsplit("/", 1)[-1])' "$1" 2>&1
}
names=$(page_names "$tmp/n.html")
check "report of non-UTF-8 and control-character names: the page's data names them escaped [${names//$'\n'/, }]" \
	[ "$names" = "$(printf '%s\n%s' 'caf\xe9-latin1.trace' 'ctl\x01\x1b[31m.trace')" ]

# ---- 8. streams --------------------------------------------------------------

s=$(date +%s%N)
head -c 4G /dev/zero | "$gtr" greedy - >/dev/null 2>"$tmp/err"
rc=$?
e=$(( ($(date +%s%N) - s) / 1000000 ))
check "4 GB of zeros on stdin: refused on its first bytes (status $rc, ${e} ms)" \
	[ $rc = 1 ] && grep -q 'not a Go execution trace' "$tmp/err"
{ cat "$t2"; cat /dev/zero; } | timeout 60 "$gtr" --max-input 16M greedy - >/dev/null 2>"$tmp/err"
rc=$?
check "an endless stream past --max-input: refused (status $rc)" \
	[ $rc = 1 ] && grep -q 'more than 16777216 bytes (--max-input)' "$tmp/err"
"$gtr" greedy - <"$t2" >"$tmp/a.out" 2>/dev/null
"$gtr" greedy "$t2" >"$tmp/b.out" 2>/dev/null
check "a trace on stdin reads as the file does" cmp -s <(tail -n +2 "$tmp/a.out") <(tail -n +2 "$tmp/b.out")

reports=$(find "$tmp/san" -type f | wc -l)
if [ "$reports" -eq 0 ]; then
	ok "no sanitizer report from any case"
else
	bad "$reports sanitizer reports; the first: $(head -c 1500 "$(find "$tmp/san" -type f | head -1)")"
fi

echo "faults: $pass passed, $fail failed"
[ $fail = 0 ]
