#!/usr/bin/env bash
# tests/cli.sh GTR TRACE...
#
# The command line as a user meets it: bad input of every kind gets exit
# status 1 and one line on stderr naming the problem and the byte offset;
# usage mistakes get status 2; good traces give output and status 0.
# The TRACE arguments are real corpus traces to cut up.
set -uo pipefail
gtr=$1
shift
tmp=${TMPDIR:-/tmp}/gtr-clitest.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# expect STATUS PATTERN NAME -- CMD...: status, one stderr line matching PATTERN.
expect() {
	local want=$1 pat=$2 name=$3
	shift 4
	timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"
	local st=$?
	if [ $st -ne "$want" ]; then
		bad "$name: exit status $st, want $want ($(head -c 200 "$tmp/err"))"
		return
	fi
	if [ "$want" -eq 1 ]; then
		local lines
		lines=$(wc -l <"$tmp/err")
		if [ "$lines" -ne 1 ]; then
			bad "$name: $lines lines on stderr, want 1"
			return
		fi
		if ! grep -Eq "$pat" "$tmp/err"; then
			bad "$name: stderr [$(cat "$tmp/err")] does not match /$pat/"
			return
		fi
	fi
	ok
}

printf 'hello, this is not a trace at all\n' >"$tmp/text"
: >"$tmp/empty"
printf 'go 1.99 trace\0\0\0' >"$tmp/v99"
printf 'go 1.26 tr' >"$tmp/shorthdr"
expect 1 'at byte [0-9]+: not a Go execution trace' "text file" -- "$gtr" dump "$tmp/text"
expect 1 'at byte 0: empty input' "empty file" -- "$gtr" dump "$tmp/empty"
expect 1 'empty input' "/dev/null" -- "$gtr" footprint /dev/null
expect 1 'Is a directory' "directory" -- "$gtr" dump "$tmp"
expect 1 'No such file' "missing file" -- "$gtr" dump "$tmp/nope"
expect 1 'go 1\.99.*go 1\.26' "unknown version" -- "$gtr" dump "$tmp/v99"
expect 1 'truncated' "cut header" -- "$gtr" dump "$tmp/shorthdr"
expect 2 '' "no command" -- "$gtr"
expect 2 '' "unknown command" -- "$gtr" frobnicate x
expect 2 '' "unknown flag" -- "$gtr" dump --frob x
expect 2 '' "no file" -- "$gtr" dump
expect 2 '' "bad -g" -- "$gtr" dump -g x y
expect 2 '' "bad --from" -- "$gtr" dump --from 5parsecs y
expect 0 '' "help" -- "$gtr" --help
expect 0 '' "dump help" -- "$gtr" dump --help
expect 0 '' "version" -- "$gtr" --version
expect 2 '' "bad --io" -- "$gtr" footprint --io=carrier-pigeon x

for f in "$@"; do
	name=$(basename "$f")
	gzip -c "$f" >"$tmp/gz"
	expect 0 '' "$name gzipped" -- "$gtr" dump "$tmp/gz"
	expect 0 '' "$name footprint" -- "$gtr" footprint "$f"
	expect 0 '' "$name dump --stacks" -- "$gtr" dump --stacks "$f"
	expect 0 '' "$name dump --transitions" -- "$gtr" dump --transitions "$f"
	expect 0 '' "$name from stdin" -- sh -c "'$gtr' footprint - < '$f'"
	expect 0 '' "$name --io=read" -- "$gtr" footprint --io=read "$f"
	# io_uring, from stdin as a file and as a pipe: the file's output; -v says how.
	want=$("$gtr" footprint "$f" 2>&1)
	[ "$("$gtr" footprint --io=uring - <"$f" 2>&1)" = "$want" ] && ok || bad "$name: footprint --io=uring - differs from the file's"
	[ "$(cat "$f" | "$gtr" footprint - 2>&1)" = "$want" ] && ok || bad "$name: footprint of a pipe differs from the file's"
	[ "$(cat "$f" | GTR_IO_URING_DISABLE=1 "$gtr" footprint - 2>&1)" = "$want" ] && ok || bad "$name: footprint of a pipe without io_uring differs"
	v=$("$gtr" footprint -v --io=uring - <"$f" 2>&1 >/dev/null)
	grep -q '^gtr: io: io_uring, [0-9]* bytes' <<<"$v" && ok || bad "$name: footprint -v --io=uring said [$v]"
	v=$(cat "$f" | GTR_IO_URING_DISABLE=1 "$gtr" -v footprint - 2>&1 >/dev/null)
	grep -qx 'gtr: io: io_uring unavailable (Operation not permitted), reading with read(2)' <<<"$v" &&
		ok || bad "$name: footprint -v with io_uring refused said [$v]"
	v=$("$gtr" greedy "$f" -v 2>&1 >/dev/null)
	grep -q '^gtr: io: mmap, [0-9]* bytes' <<<"$v" && ok || bad "$name: greedy -v said [$v]"
	expect 1 'needs a regular file' "$name --io=mmap on a pipe" -- sh -c "cat '$f' | '$gtr' footprint --io=mmap -"
	cmp -s <("$gtr" dump "$f" 2>&1) <("$gtr" dump - <"$f" 2>&1) && ok || bad "$name: dump of stdin differs from dump of the file"
	# The filters: every line of -g N mentions N; --from/--to bound the times.
	g=$("$gtr" dump "$f" | awk '$4 ~ /^G=[0-9]/ { print substr($4, 3); exit }')
	if [ -n "$g" ]; then
		"$gtr" dump -g "$g" "$f" | awk -v g="$g" '$4 != "G=" g && $0 !~ (" g=" g "( |$)") { bad = 1 } END { exit bad }' &&
			ok || bad "$name: dump -g $g printed other goroutines' events"
	fi
	"$gtr" dump --from 1ms --to 2ms "$f" | awk '$1 < 1000000 || $1 > 2000000 { bad = 1 } END { exit bad }' &&
		ok || bad "$name: dump --from 1ms --to 2ms printed times outside the window"
	# Truncated anywhere: status 0 is not allowed unless the cut is at a
	# boundary the format cannot tell apart; never a crash, always one line.
	size=$(stat -c %s "$f")
	for cut in 17 20 33 64 100 $((size / 3)) $((size / 2)) $((size - 7)) $((size - 1)); do
		[ "$cut" -lt "$size" ] || continue
		head -c "$cut" "$f" >"$tmp/cut"
		timeout 20 "$gtr" dump "$tmp/cut" >/dev/null 2>"$tmp/err"
		st=$?
		if [ $st -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q 'at byte [0-9]' "$tmp/err"; then
			bad "$name cut at $cut: status $st, stderr [$(head -c 200 "$tmp/err")]"
		else
			ok
		fi
	done
done
# Go's own test of a go 1.5 trace whose sequence order is not its time
# order (internal/trace's parser_test.go expects ErrTimeOrder): refused by
# every command, one line with the offset; read with a warning under --lenient.
unordered=${GTR_GO_DIR:-/opt/gtr-go}/go-1.15/src/internal/trace/testdata/stress_1_5_unordered
if [ -e "$unordered" ]; then
	for cmd in greedy "greedy --fast" stats dump report; do
		out=/dev/null
		[ "$cmd" = report ] && out=$tmp/u.html
		"$gtr" $cmd $([ "$cmd" = report ] && echo "-o $out") "$unordered" >/dev/null 2>"$tmp/err"
		st=$?
		if [ $st -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'at byte [0-9]*: time stamps out of order' "$tmp/err"; then
			ok
		else
			bad "$cmd stress_1_5_unordered: status $st, stderr [$(head -c 200 "$tmp/err")]"
		fi
	done
	if "$gtr" greedy --lenient "$unordered" >/dev/null 2>"$tmp/err" && grep -q 'warning: .*time stamps out of order' "$tmp/err"; then
		ok
	else
		bad "greedy --lenient stress_1_5_unordered: [$(head -c 200 "$tmp/err")]"
	fi
fi
# Durations, as Go's time.ParseDuration reads them, the same for every
# option that takes one: a unit is required (but for 0), decimals and
# sequences are fine; anything else is status 2 and one line that names
# the command, the flag and the value.
if [ $# -gt 0 ]; then
	f=$1
	# usage2 NAME PATTERN CMD...: status 2, one stderr line matching PATTERN.
	usage2() {
		local name=$1 pat=$2
		shift 2
		timeout 20 "$@" >/dev/null 2>"$tmp/err"
		local st=$?
		if [ $st -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -Eq "$pat" "$tmp/err"; then
			ok
		else
			bad "$name: status $st, stderr [$(head -c 300 "$tmp/err")], want 2 and /$pat/"
		fi
	}
	for opt in "greedy --fail-over" "greedy --stw-fail-over" "dump --from" "dump --to" "mmu --window" \
		"diff --min-delta" "check --min-delta"; do
		set -- $opt
		usage2 "$opt 10" "^gtr: $1: $2: missing unit in duration \"10\" \(units: ns, us, µs, ms, s, m, h" \
			"$gtr" $opt 10 "$f" "$f"
		usage2 "$opt 1.5" "^gtr: $1: $2: missing unit in duration \"1.5\"" "$gtr" $opt 1.5 "$f" "$f"
		usage2 "$opt=5parsecs" "^gtr: $1: $2: unknown unit in duration \"5parsecs\": \"parsecs\"" \
			"$gtr" "$1" "$2=5parsecs" "$f" "$f"
		usage2 "$opt -1s" "^gtr: $1: $2: duration \"-1s\" is negative" "$gtr" $opt -1s "$f" "$f"
		usage2 "$opt 3000000h" "^gtr: $1: $2: duration \"3000000h\" is out of range" "$gtr" $opt 3000000h "$f" "$f"
		usage2 "$opt ''" "^gtr: $1: $2: invalid duration \"\"" "$gtr" $opt "" "$f" "$f"
		usage2 "$opt (no value)" "^gtr: $1: $2: needs a duration" "$gtr" $opt
	done
	set -- "$f"
	# Accepted: each form gives what its value in ns gives.
	for pair in "1h2m3.5s 3723500000000ns" "1.5ms 1500000ns" ".5s 500ms" "20µs 20us" "20μs 20000ns" "1s1s 2s"; do
		set -- $pair
		a=$("$gtr" dump --transitions --to "$1" "$f" 2>&1 | md5sum)
		b=$("$gtr" dump --transitions --to "$2" "$f" 2>&1 | md5sum)
		[ "$a" = "$b" ] && ok || bad "dump --to $1 differs from --to $2"
	done
	set -- "$f"
	# 0 alone needs no unit: from the trace's start, a slice over 0 fails.
	"$gtr" dump --from 0 --to 0ns "$f" >/dev/null 2>"$tmp/err" && ok || bad "dump --from 0: [$(head -c 200 "$tmp/err")]"
	"$gtr" greedy --fail-over 0 "$f" >/dev/null 2>&1
	[ $? -eq 3 ] && ok || bad "greedy --fail-over 0: want status 3"
	usage2 "mmu --window 0" "^gtr: mmu: --window: a window is a duration above 0" "$gtr" mmu --window 0 "$f"
fi
# Options as getopt_long reads them (core/cli/opt.h), the same for every
# command: -n5, -n 5, --top=5 and --top 5 are one option; short flags
# group (-qj2); -- ends the options; the global options go anywhere.
if [ $# -gt 0 ]; then
	f=$1
	# forms NAME CMD... -- FORM...: each FORM (words split) put in CMD's place
	# of @ gives the same stdout (stderr aside: -v times its steps) and status 0.
	forms() {
		local name=$1 cmd=() want='' st
		shift
		while [ "$1" != -- ]; do cmd+=("$1"); shift; done
		shift
		for form in "$@"; do
			local line=()
			for w in "${cmd[@]}"; do
				# shellcheck disable=SC2206
				if [ "$w" = @ ]; then line+=($form); else line+=("$w"); fi
			done
			got=$(timeout 20 "$gtr" "${line[@]}" 2>/dev/null | md5sum; echo "${PIPESTATUS[0]}")
			st=${got##*$'\n'}
			if [ "$st" != 0 ]; then
				bad "$name: gtr ${line[*]}: status $st"
				continue
			fi
			[ -z "$want" ] && want=$got
			[ "$got" = "$want" ] && ok || bad "$name: gtr ${line[*]} differs from gtr ${cmd[*]/@/$1}"
		done
	}
	forms "greedy -n" greedy @ "$f" -- "-n5" "-n 5" "-n=5" "-vn 5 --no-progress"
	forms "greedy -j" greedy -n3 @ "$f" -- "-j2" "-j 2"
	forms "stats --top" stats @ "$f" -- "-n4" "-n 4" "--top=4" "--top 4"
	forms "stats --sort" stats --top 3 @ "$f" -- "--sort=sched" "--sort sched"
	forms "diff -n" diff @ "$f" "$f" -- "-n2" "-n 2" "--top=2" "--top 2"
	forms "tasks -n" tasks @ "$f" -- "-n1" "-n 1" "--top=1" "--top 1"
	forms "dump --to" dump --transitions @ "$f" -- "--to=1ms" "--to 1ms" "--to 1ms --"
	g=$("$gtr" dump "$f" | awk '$4 ~ /^G=[0-9]/ { print substr($4, 3); exit }')
	[ -n "$g" ] && forms "dump -g" dump @ "$f" -- "-g$g" "-g $g" "-g=$g"
	# ...and the value is taken: another one gives another output.
	for pair in "greedy -n5|greedy -n6" "stats --top=4|stats -n5" "diff -n2 $f|diff --top 3 $f" "dump -g1|dump -g 2"; do
		# shellcheck disable=SC2086
		[ "$("$gtr" ${pair%|*} "$f" 2>&1 | md5sum)" != "$("$gtr" ${pair#*|} "$f" 2>&1 | md5sum)" ] &&
			ok || bad "gtr ${pair%|*} and gtr ${pair#*|} give the same output"
	done
	# Global options after the command and after the file, as before it.
	forms "global options" @ -- "-v greedy -n3 $f" "greedy -v -n3 $f" "greedy -n3 $f -v" \
		"--no-progress greedy -n3 $f --color=never" "greedy --color=never -n3 $f --no-progress"
	v=$("$gtr" footprint "$f" --verbose 2>&1 >/dev/null)
	grep -q '^gtr: io: mmap' <<<"$v" && ok || bad "footprint FILE --verbose said [$v]"
	for line in "--max-input=1K footprint -" "footprint --max-input 1K -" "footprint - --max-input=1K"; do
		# shellcheck disable=SC2086
		cat "$f" | "$gtr" $line >/dev/null 2>"$tmp/err"
		st=$?
		[ $st -eq 1 ] && grep -q 'more than 1024 bytes (--max-input)' "$tmp/err" && ok ||
			bad "gtr $line: status $st, [$(head -c 200 "$tmp/err")]"
	done
	# --color takes its value only after '=': the next word is an operand.
	expect 2 '' "greedy --color never" -- "$gtr" greedy --color never "$f"
	"$gtr" greedy --color -n1 "$f" | grep -q $'\e\[' && ok || bad "greedy --color: no colour"
	# -h and --help anywhere: the command's usage on stdout, status 0.
	for line in "greedy -h" "stats $f --help" "check -q --help" "diff -n 2 -h"; do
		# shellcheck disable=SC2086
		"$gtr" $line >"$tmp/out" 2>"$tmp/err"
		st=$?
		[ $st -eq 0 ] && grep -q "^usage: gtr ${line%% *}" "$tmp/out" && [ ! -s "$tmp/err" ] && ok ||
			bad "gtr $line: status $st, stdout [$(head -c 100 "$tmp/out")]"
	done
	# A trace named like an option: read after --, refused before it.
	gtr_abs=$(cd "$(dirname "$gtr")" && pwd)/$(basename "$gtr")
	f_abs=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
	mkdir -p "$tmp/dash"
	cp "$f" "$tmp/dash/-x.trace"
	want=$("$gtr" dump "$f" | md5sum)
	[ "$(cd "$tmp/dash" && "$gtr_abs" dump -- -x.trace | md5sum)" = "$want" ] && ok || bad "dump -- -x.trace differs from the trace's dump"
	[ "$(cd "$tmp/dash" && "$gtr_abs" dump --stacks -- -x.trace | md5sum)" = "$("$gtr" dump --stacks "$f" | md5sum)" ] &&
		ok || bad "dump --stacks -- -x.trace differs"
	[ "$(cd "$tmp/dash" && "$gtr_abs" diff -n 3 -- -x.trace "$f_abs" | sed 1,2d | md5sum)" = "$("$gtr" diff -n 3 "$f" "$f" | sed 1,2d | md5sum)" ] &&
		ok || bad "diff -- -x.trace FILE differs from diff FILE FILE"
	(cd "$tmp/dash" && "$gtr_abs" dump -x.trace >/dev/null 2>"$tmp/err")
	[ $? -eq 2 ] && head -1 "$tmp/err" | grep -q '^gtr: dump: unknown flag -x$' && ok || bad "dump -x.trace: [$(head -1 "$tmp/err")]"
	# Mistakes: status 2 and one line, or an unknown flag's line and the usage.
	usage2 "greedy --json=1" '^gtr: greedy: --json takes no value \(got --json=1\)$' "$gtr" greedy --json=1 "$f"
	usage2 "stats --lenient=yes" '^gtr: stats: --lenient takes no value' "$gtr" stats "$f" --lenient=yes
	usage2 "check --merge=" '^gtr: check: --merge takes no value' "$gtr" check --merge= "$f"
	usage2 "greedy -n (no value)" '^gtr: greedy: -n: needs a positive count$' "$gtr" greedy "$f" -n
	usage2 "stats --top (no value)" '^gtr: stats: --top: needs a positive count$' "$gtr" stats "$f" --top
	usage2 "check -j (no value)" '^gtr: check: -j: needs a number of threads' "$gtr" check --baseline x "$f" -j
	usage2 "report -o (no value)" '^gtr: report: -o: needs a file name' "$gtr" report "$f" -o
	usage2 "--max-input (no value)" '^gtr: --max-input: needs a size' "$gtr" --max-input
	usage2 "greedy -n5x" '^gtr: greedy: -n takes a positive count' "$gtr" greedy -n5x "$f"
	for line in "greedy --frob" "greedy -x" "greedy -vx" "stats --to 5" "tasks --jso" "pprof --type=sched --o x"; do
		# shellcheck disable=SC2086
		"$gtr" $line "$f" >/dev/null 2>"$tmp/err"
		st=$?
		flag=$(sed -n 's/^gtr: [a-z]*: unknown flag //p' "$tmp/err" | head -1)
		[ $st -eq 2 ] && [ -n "$flag" ] && grep -q '^usage: gtr' "$tmp/err" && ok ||
			bad "gtr $line FILE: status $st, [$(head -1 "$tmp/err")]"
	done
	expect 2 '' "gtr --frob" -- "$gtr" --frob greedy "$f"
fi
echo "clitest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
