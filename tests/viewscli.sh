#!/usr/bin/env bash
# tests/viewscli.sh GTR
#
# `gtr tasks`, `gtr regions`, `gtr mmu` and `gtr goroutine` as a user
# meets them (their figures are checked against Go's by viewstest.sh):
#  - usage: --help, unknown flags, missing or bad values, no file, no
#    goroutine id: status 2 with a message;
#  - bad input: text, empty, a directory, traces cut at many; a gzip'd
#    trace is read as the trace itself
#    offsets, traces with bytes changed: status 0 or 1 within 20 s under
#    a 1 GiB address-space limit, one line on stderr when 1, naming the
#    byte for a bad trace; a trace older than go 1.11 for tasks and
#    regions: status 1, one line saying why;
#  - what the output promises: --json parses; text and JSON give the same
#    counts; the longest are in order and -n bounds them; --type keeps one
#    type; --task shows that task and its logs; a region or task line of
#    the text names a type of the table; the goroutine's state times add
#    up to its life; an unknown goroutine is "not found"; the MMU is in
#    [0, 1] at windows from 1 us to the whole span, --window gives the
#    windows asked for, and counting more GC work never raises it;
#    stdin gives what the file gives.
set -uo pipefail
gtr=$1
root=${GTR_ROOT:-.}
tmp=${TMPDIR:-/tmp}/gtr-viewscli.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
# Under ASan or TSan, whose shadow memory rules out ulimit -v, the
# sanitizer's own limit bounds memory instead.
lim="ulimit -v 1048576"
if ldd "$gtr" 2>/dev/null | grep -q 'libasan\|libtsan'; then
	lim=:
	export ASAN_OPTIONS=${ASAN_OPTIONS:-}:hard_rss_limit_mb=1024:allocator_may_return_null=1
	export TSAN_OPTIONS=${TSAN_OPTIONS:-}:hard_rss_limit_mb=1024
fi
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# expect STATUS PATTERN NAME -- CMD...: the status; with 1 or 2, PATTERN in stderr (1: one line).
expect() {
	local want=$1 pat=$2 name=$3
	shift 4
	($lim 2>/dev/null; timeout 20 "$@") >"$tmp/out" 2>"$tmp/err"
	local st=$?
	if [ $st -ne "$want" ]; then
		bad "$name: exit status $st, want $want ($(head -c 200 "$tmp/err"))"
		return
	fi
	if [ "$want" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
		bad "$name: $(wc -l <"$tmp/err") lines on stderr, want 1: $(head -c 300 "$tmp/err")"
		return
	fi
	if [ "$want" -ne 0 ] && [ -n "$pat" ] && ! grep -Eq "$pat" "$tmp/err"; then
		bad "$name: stderr [$(head -c 300 "$tmp/err")] does not match /$pat/"
		return
	fi
	ok
}

tr=$root/corpora/traces
ann26=$tr/annotations-go1.26.trace ann21=$tr/annotations-go1.21.trace ann15=$tr/annotations-go1.15.trace
gc26=$tr/gcpressure-go1.26.trace gc19=$tr/gcpressure-go1.19.trace
old=$(ls "${GTR_GO_DIR:-/opt/gtr-go}"/go-1.15/src/internal/trace/testdata/http_1_9_good 2>/dev/null)

# ---- usage
for c in tasks regions mmu goroutine; do
	expect 0 '' "$c --help" -- "$gtr" $c --help
	grep -q "^usage: gtr $c" "$tmp/out" && ok || bad "$c --help: no usage line"
	expect 2 'unknown flag --frob' "$c unknown flag" -- "$gtr" $c --frob "$ann26"
	expect 2 'no trace file' "$c no file" -- "$gtr" $c $([ $c = goroutine ] && echo 1)
done
"$gtr" --help | grep -q '^  tasks FILE' && ok || bad "gtr --help does not list tasks"
"$gtr" --help | grep -q '^  goroutine GOID FILE' && ok || bad "gtr --help does not list goroutine"
expect 2 'positive count' "tasks -n 0" -- "$gtr" tasks -n 0 "$ann26"
expect 2 'positive count' "regions -n x" -- "$gtr" regions -n x "$ann26"
expect 2 'task id' "tasks --task -1" -- "$gtr" tasks --task -1 "$ann26"
expect 2 'task id' "tasks --task x" -- "$gtr" tasks --task x "$ann26"
expect 2 'type name' "tasks --type" -- "$gtr" tasks "$ann26" --type
expect 2 'stw, background' "mmu --include bad" -- "$gtr" mmu --include stw,gc "$gc26"
expect 2 'stw, background' "mmu --include empty" -- "$gtr" mmu --include= "$gc26"
expect 2 'duration' "mmu --window bad" -- "$gtr" mmu --window 5parsecs "$gc26"
expect 2 'duration' "mmu --window 0" -- "$gtr" mmu --window 0 "$gc26"
expect 2 'not a goroutine id' "goroutine bad id" -- "$gtr" goroutine x1 "$ann26"
expect 2 'no goroutine id' "goroutine no id" -- "$gtr" goroutine
expect 2 'one trace file' "goroutine two files" -- "$gtr" goroutine 1 "$ann26" "$ann26"
expect 2 'unknown flag' "mmu takes no -n" -- "$gtr" mmu -n 3 "$gc26"

# ---- not traces, and traces without annotations
printf 'hello, this is not a trace\n' >"$tmp/text"
: >"$tmp/empty"
gzip -c "$ann26" >"$tmp/gz"
for c in tasks regions mmu "goroutine 1"; do
	expect 1 'at byte [0-9]+: not a Go execution trace' "$c text" -- "$gtr" $c "$tmp/text"
	expect 1 'empty input' "$c empty" -- "$gtr" $c "$tmp/empty"
	expect 1 'Is a directory' "$c directory" -- "$gtr" $c "$tmp"
	# A gzip'd trace is read as the trace itself (io/unpack.c).
	if cmp -s <("$gtr" $c "$tmp/gz" 2>&1 | sed 1d) <("$gtr" $c "$ann26" 2>&1 | sed 1d); then
		pass=$((pass + 1))
	else
		bad "$c gzip: not what the plain trace gives"
	fi
done
if [ -n "$old" ]; then
	expect 1 'go 1\.9 trace has no tasks or regions.*Go 1\.11' "tasks on go 1.9" -- "$gtr" tasks "$old"
	expect 1 'go 1\.9 trace has no tasks or regions' "regions on go 1.9" -- "$gtr" regions "$old"
	expect 0 '' "mmu on go 1.9" -- "$gtr" mmu "$old"
	expect 0 '' "goroutine on go 1.9" -- "$gtr" goroutine 1 "$old"
fi

# ---- damaged traces: cut, and bytes changed
for f in "$ann26" "$ann21" "$gc19"; do
	name=${f##*/}
	size=$(stat -c %s "$f")
	for cut in 17 40 100 $((size / 3)) $((size / 2)) $((size - 5)); do
		head -c "$cut" "$f" >"$tmp/cut"
		for c in tasks regions mmu "goroutine 20"; do
			($lim 2>/dev/null; timeout 20 "$gtr" $c "$tmp/cut") >/dev/null 2>"$tmp/err"
			st=$?
			if [ $st -gt 1 ] || { [ $st -eq 1 ] && { [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q 'at byte [0-9]' "$tmp/err"; }; }; then
				bad "$name cut at $cut: $c: status $st [$(head -c 200 "$tmp/err")]"
			else
				ok
			fi
			(timeout 20 "$gtr" $c --lenient "$tmp/cut") >/dev/null 2>"$tmp/err"
			st=$?
			[ $st -le 1 ] && ok || bad "$name cut at $cut: $c --lenient: status $st"
		done
	done
	for seed in 1 2 3 4 5 6; do
		cp "$f" "$tmp/flip"
		# Change 8 bytes past the header at offsets from the seed.
		for k in 1 2 3 4 5 6 7 8; do
			off=$(( (seed * 7919 * k + k * 104729) % (size - 16) + 16 ))
			printf "\\x$(printf %02x $(( (seed * 37 + k * 11) % 256 )))" |
				dd of="$tmp/flip" bs=1 seek="$off" conv=notrunc status=none
		done
		for c in tasks regions mmu "goroutine 20"; do
			for mode in "" --lenient; do
				($lim 2>/dev/null; timeout 20 "$gtr" $c $mode "$tmp/flip") >/dev/null 2>"$tmp/err"
				st=$?
				if [ $st -gt 1 ] || { [ $st -eq 1 ] && [ -z "$mode" ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; }; then
					bad "$name seed $seed: $c $mode: status $st [$(head -c 200 "$tmp/err")]"
				else
					ok
				fi
			done
		done
	done
done

# ---- what the output promises
for f in "$ann26" "$ann21" "$ann15"; do
	name=${f##*/}
	"$gtr" tasks --json -n 3 "$f" >"$tmp/t.json" && jq -e . "$tmp/t.json" >/dev/null && ok || bad "$name: tasks --json is not JSON"
	"$gtr" tasks -n 3 "$f" >"$tmp/t.txt" || bad "$name: tasks failed"
	n=$(jq '.tasks' "$tmp/t.json")
	grep -q "^  tasks       $n (" "$tmp/t.txt" && ok || bad "$name: the text does not say $n tasks"
	jq -e '.top | length == 3 and (map(.duration_ns) | . == (sort | reverse))' "$tmp/t.json" >/dev/null &&
		ok || bad "$name: tasks -n 3: not the 3 longest in order"
	jq -e '[.types[].count] | add == ('"$n"')' "$tmp/t.json" >/dev/null && ok || bad "$name: type counts do not add up to the tasks"
	jq -e '[.top[] | .task_logs | length] | all(. > 0)' "$tmp/t.json" >/dev/null && ok || bad "$name: --json lists no logs of the longest tasks"
	id=$(jq '.top[0].id' "$tmp/t.json")
	"$gtr" tasks --task "$id" "$f" >"$tmp/one.txt" || bad "$name: tasks --task $id failed"
	nl=$(jq '.top[0].logs' "$tmp/t.json")
	grep -q "^logs ($nl)" "$tmp/one.txt" && ok || bad "$name: tasks --task $id does not list its $nl logs"
	"$gtr" tasks --json --task "$id" "$f" | jq -e --argjson id "$id" '.task.id == $id and (.task_logs | length) == .task.logs and (.regions | length) == .task.regions' >/dev/null &&
		ok || bad "$name: tasks --json --task $id: the task, its logs and regions do not match"
	"$gtr" tasks --task 999999999 "$f" | grep -q 'not in the trace' && ok || bad "$name: an unknown task is not reported as such"
	"$gtr" tasks --json -n 100 --type merge "$f" | jq -e '.top | length > 0 and all(.type == "merge")' >/dev/null &&
		ok || bad "$name: tasks --type merge listed other types"
	"$gtr" regions --json -n 5 "$f" >"$tmp/r.json" && jq -e . "$tmp/r.json" >/dev/null && ok || bad "$name: regions --json is not JSON"
	jq -e '.regions == ([.types[].count] | add)' "$tmp/r.json" >/dev/null && ok || bad "$name: region type counts do not add up"
	jq -e '.top | map(.duration_ns) | . == (sort | reverse)' "$tmp/r.json" >/dev/null && ok || bad "$name: regions not longest first"
	"$gtr" regions --json -n 1000 --type pass "$f" | jq -e '(.top | length) == (.types[] | select(.type == "pass") | .complete) and all(.top[]; .type == "pass" and .depth == 2)' >/dev/null &&
		ok || bad "$name: regions --type pass: not every pass region, or not at depth 2"
	cmp -s <("$gtr" regions "$f" 2>&1) <("$gtr" regions - <"$f" 2>&1 | sed "s|^gtr regions: -|gtr regions: $f|") &&
		ok || bad "$name: regions of stdin differ from the file's"
	# A goroutine that made regions: its state times add up to its life.
	g=$(jq '.top[0].g' "$tmp/r.json")
	"$gtr" goroutine --json "$g" "$f" >"$tmp/g.json" || bad "$name: goroutine $g failed"
	jq -e '.found and (.states_ns | add) > 0 and .regions > 0 and
	       ((.exited_ns - (if .created_ns >= 0 then .created_ns else .first_ns end)) - (.states_ns | add) | fabs) <= 1' "$tmp/g.json" >/dev/null &&
		ok || bad "$name: goroutine $g: state times do not add up to its life: $(jq -c '.states_ns, .created_ns, .exited_ns' "$tmp/g.json" | tr '\n' ' ')"
	jq -e '.transitions_total == ([.transition_counts[].count] | add) and (.transitions | length) == ([.transitions_total, 50] | min)' "$tmp/g.json" >/dev/null &&
		ok || bad "$name: goroutine $g: transitions do not add up"
	"$gtr" goroutine --transitions 2 "G$g" "$f" | grep -q '^  \.\.\. [0-9]* more' && ok || bad "$name: goroutine --transitions 2 does not summarize the rest"
	"$gtr" goroutine 99999999 "$f" | grep -q 'G99999999: not in the trace' && ok || bad "$name: an unknown goroutine is not reported"
done
for f in "$gc26" "$gc19"; do
	name=${f##*/}
	"$gtr" mmu --json "$f" >"$tmp/m.json" && jq -e . "$tmp/m.json" >/dev/null && ok || bad "$name: mmu --json is not JSON"
	jq -e '(.curve | length) > 5 and all(.curve[]; .mmu >= 0 and .mmu <= 1) and .curve[0].window_ns == 1000 and (.curve | map(.window_ns) | . == sort)' "$tmp/m.json" >/dev/null &&
		ok || bad "$name: mmu curve out of range or order"
	jq -e '.curve[-1].window_ns == .end_ns - .start_ns' "$tmp/m.json" >/dev/null && ok || bad "$name: mmu: the last window is not the whole span"
	"$gtr" mmu --json --window 10ms --window 2ms "$f" | jq -e '[.curve[].window_ns] == [10000000, 2000000]' >/dev/null &&
		ok || bad "$name: mmu --window: not the windows asked for"
	# Fewer things counted against the program can only leave it more.
	"$gtr" mmu --json --include stw "$f" >"$tmp/stw.json"
	jq -e --slurpfile a "$tmp/stw.json" '[range(0; .curve | length) as $i | .curve[$i].mmu <= $a[0].curve[$i].mmu + 1e-12] | all' "$tmp/m.json" >/dev/null &&
		ok || bad "$name: mmu: counting GC work besides STW raised the MMU somewhere"
	"$gtr" mmu --per-p "$f" | grep -q 'per P: a P doing GC work has none' && ok || bad "$name: mmu --per-p does not say so"
done

echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
