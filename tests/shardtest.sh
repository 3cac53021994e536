#!/usr/bin/env bash
# tests/shardtest.sh GTR TRACE...
#
# `gtr check --shard K/N` and `--merge` without a batch system: the shards
# run as plain processes over a copy of the given traces, arranged so that
# every status occurs (ok, regressed, new, error, and a baseline case not
# checked). One shard is killed before it has written its part; the merge
# then names it missing; it is run again; and the merge of the three parts
# must give what one unsharded check gives: the same exit status, the same
# text, and the same JSON, JSON Lines and JUnit reports byte for byte once
# the timings are taken out, and the same updated baseline byte for byte.
# A case of several runs (multi/1.trace to multi/5.trace, judged with the
# U test) is measured whole on one shard, and its runs' samples travel in
# the parts.
# Also: each shard holds exactly the cases whose name hashes to it
# (XXH3-64 of the name mod N, computed here by xxhsum, xxHash's own
# command), whatever the order the inputs are listed in; Slurm's and
# Kubernetes' variables pick the shard; parts that do not belong together
# are refused by name. Last, the JSON Lines of `gtr stats --jsonl` hold
# the content of `stats --json`, one row per line.
set -uo pipefail
gtr=$1
shift
tmp=${TMPDIR:-/tmp}/gtr-shardtest.$$
mkdir -p "$tmp/corpus" "$tmp/parts"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# expect NAME STATUS CMD...: runs CMD, stdout in $tmp/out, stderr in $tmp/err.
expect() {
	local name=$1 want=$2
	shift 2
	timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
	local st=$?
	if [ "$st" -eq "$want" ]; then ok "$name"; else bad "$name: exit status $st, want $want ($(head -c 300 "$tmp/err"))"; fi
}
has() { # NAME FILE PATTERN: FILE has a line matching PATTERN
	if grep -Eq -- "$3" "$2"; then ok "$1"; else bad "$1: no line matches /$3/ in $(basename "$2")"; fi
}
# Timings differ from run to run; everything else must not.
untimed() { sed -E 's/"seconds":[0-9.]+/"seconds":T/g; s/ time="[0-9.]+"/ time="T"/g' "$1"; }
same() { # NAME A B: A and B equal once untimed
	if cmp -s <(untimed "$2") <(untimed "$3"); then
		ok "$1"
	else
		bad "$1: $(diff <(untimed "$2") <(untimed "$3") | head -5)"
	fi
}

for f in "$@"; do cp "$f" "$tmp/corpus/"; done
corpus=$tmp/corpus
coarse=$corpus/greedy-coarse-go1.26.trace fine=$corpus/greedy-fine-go1.26.trace
if [ ! -e "$coarse" ] || [ ! -e "$fine" ] || [ "$#" -lt 6 ]; then
	echo "shardtest: the greedy coarse/fine pair and a few more traces are needed"
	echo "shardtest: 0 passed, 1 failed"
	exit 1
fi

# The baseline: every trace, and one that will not be checked; a case of 5 runs.
cp "$coarse" "$corpus/retired.trace"
mkdir -p "$corpus/multi"
# Its runs come from the repository's corpus, whatever traces were given
# (the short run under the sanitizers gives only three Go versions).
i=0
for f in "$(dirname "$0")"/../corpora/traces/greedy-go1.2[2-6].trace; do
	i=$((i + 1))
	cp "$f" "$corpus/multi/$i.trace"
done
if [ "$i" -ne 5 ]; then
	echo "shardtest: want the 5 traces corpora/traces/greedy-go1.22 to 1.26, found $i"
	echo "shardtest: 0 passed, 1 failed"
	exit 1
fi
base=$tmp/base.json
expect "baseline made" 0 "$gtr" check --baseline "$base" --update-baseline -j 2 "$corpus"
rm "$corpus/retired.trace"
# The case of runs, changed: the coarse trace five times.
for k in 1 2 3 4 5; do cp "$coarse" "$corpus/multi/$k.trace"; done
# A regression (fine replaced by coarse), a new trace, two unreadable ones.
cp "$coarse" "$fine"
first=$(ls "$corpus" | head -1)
cp "$corpus/$first" "$corpus/brand-new.trace"
head -c 3000 "$corpus/$first" >"$corpus/cut-short.trace"
echo "not a trace" >"$corpus/junk.trace"
# A name that is not UTF-8 text, with a backslash-x in it: written escaped
# (io/name.h), it must come back from a part as the same bytes.
odd=$(printf 'caf\351 \\x41.trace')
cp "$corpus/$first" "$corpus/$odd"
n=$(find "$corpus" -type f | wc -l)

# One run, the reference.
cp "$base" "$tmp/base-one.json"
# The threshold is given, so that one run a side is gated on it in any case.
gate=(--threshold max_slice=20)
timeout 300 "$gtr" check --baseline "$base" "${gate[@]}" -j 2 "$corpus" --report-json "$tmp/one.json" \
	--junit "$tmp/one.xml" --jsonl "$tmp/one.jsonl" >"$tmp/one.txt" 2>"$tmp/one.err"
one_st=$?
if [ "$one_st" -eq 3 ]; then ok "unsharded run: exit 3 (a regression)"; else bad "unsharded run: exit $one_st, want 3"; fi
has "unsharded run: the regression" "$tmp/one.txt" "^REGRESSED +greedy-fine-go1.26.trace "
has "unsharded run: an unreadable trace" "$tmp/one.txt" "^ERROR +junk.trace "
has "unsharded run: a new trace" "$tmp/one.txt" "^new +brand-new.trace "
has "unsharded run: a baseline entry not checked" "$tmp/one.txt" "1 in the baseline not checked|^MISSING +retired.trace "
has "unsharded run: the case of 5 runs, judged by the test" "$tmp/one.txt" "^[A-Za-z]+ +multi +go 1\.2[0-9] +changed, 5 vs 5 runs: "
timeout 300 "$gtr" check --baseline "$tmp/base-one.json" "${gate[@]}" --update-baseline -j 2 "$corpus" >/dev/null 2>&1
one_upd=$?

# Three shards as three processes at once; shard 1's part is a FIFO that
# nobody reads, so it measures its share, blocks opening its output, and
# is killed there, before it has written anything.
mkfifo "$tmp/parts/1.json"
pids=()
for k in 0 1 2; do
	"$gtr" check --shard "$k/3" --part "$tmp/parts/$k.json" -j 2 "$corpus" >"$tmp/shard$k.out" 2>&1 &
	pids+=($!)
done
wait "${pids[0]}"
st0=$?
wait "${pids[2]}"
st2=$?
if [ $st0 -eq 0 ] && [ $st2 -eq 0 ]; then ok "shards 0 and 2 done"; else bad "shards 0 and 2: exit $st0, $st2"; fi
sleep 0.5
{
	kill -KILL "${pids[1]}"
	wait "${pids[1]}"
	st1=$?
} 2>/dev/null
if [ $st1 -eq 137 ]; then ok "shard 1 killed (status $st1)"; else bad "shard 1: exit $st1, want 137 (killed)"; fi
rm -f "$tmp/parts/1.json"
[ -z "$(ls "$tmp/parts" | grep -v '^[02]\.json$')" ] && ok "the killed shard left no part and no temporary file" ||
	bad "the killed shard left $(ls "$tmp/parts")"
expect "merge without the killed shard: exit 1" 1 "$gtr" check --merge "$tmp/parts/0.json" "$tmp/parts/2.json" --baseline "$base"
has "the missing shard is named" "$tmp/err" "shard 1/3 is missing"

# Shard 1 again, its inputs listed file by file in reverse order.
mapfile -t files < <(cd "$corpus" && find . -type f | sed 's|^\./||' | sort -r)
expect "shard 1 rerun" 0 "$gtr" check --shard 1/3 --part "$tmp/parts/1.json" -j 2 "${files[@]/#/$corpus/}"
has "the rerun says what it did" "$tmp/out" "^gtr check: shard 1/3: [0-9]+ of $n traces measured"

# The share is xxh3_64(name) mod 3, as xxHash's own command computes it.
# (xxh3_64 as 16 hex digits, taken mod N in two 32-bit halves: bash's numbers are signed.)
mod_hex() { # HEX N
	local hi=$((16#${1:0:8})) lo=$((16#${1:8:8}))
	echo $((((hi % $2) * ((1 << 32) % $2) + lo % $2) % $2))
}
if command -v xxhsum >/dev/null && command -v jq >/dev/null; then
	good=1
	for k in 0 1 2; do jq -r '.traces[].name' "$tmp/parts/$k.json" >"$tmp/names$k"; done
	while IFS= read -r name; do
		# The parts hold names escaped; this one's share is checked by the merge.
		[ "$name" = "$odd" ] && continue
		# The runs of a case (multi/N.trace) go by the case's name.
		key=$name
		[[ $name == multi/* ]] && key=multi
		h=$(printf '%s' "$key" | xxhsum -H3 | grep -oE '[0-9a-f]{16}$')
		want=$(mod_hex "$h" 3)
		if ! grep -qFx -- "$name" "$tmp/names$want"; then
			bad "$name (xxh3 $h) is not in part $want"
			good=0
		fi
	done < <(cd "$corpus" && find . -type f | sed 's|^\./||')
	total=$(cat "$tmp"/names? | wc -l)
	grep -qFx 'caf\xe9 \x5cx41.trace' "$tmp"/names? && ok "a name that is not text is written escaped in its part" ||
		bad "the name that is not text: not in a part as caf\\xe9 \\x5cx41.trace"
	[ "$total" -eq "$n" ] || { bad "the parts hold $total traces, not $n"; good=0; }
	[ $good -eq 1 ] && ok "each trace is in the part of xxh3_64(name) mod 3, once"
else
	bad "xxhsum and jq are needed (apt-get install xxhash jq)"
fi

# The merge is the unsharded run.
timeout 120 "$gtr" check --merge "$tmp/parts/"*.json --baseline "$base" "${gate[@]}" --report-json "$tmp/m.json" \
	--junit "$tmp/m.xml" --jsonl "$tmp/m.jsonl" >"$tmp/m.txt" 2>"$tmp/m.err"
m_st=$?
if [ $m_st -eq $one_st ]; then ok "merge: exit $m_st, as the unsharded run"; else bad "merge: exit $m_st, unsharded $one_st"; fi
same "merge: the same text" "$tmp/one.txt" "$tmp/m.txt"
same "merge: the same warnings and errors on stderr" "$tmp/one.err" "$tmp/m.err"
same "merge: the same JSON report" "$tmp/one.json" "$tmp/m.json"
same "merge: the same JUnit report" "$tmp/one.xml" "$tmp/m.xml"
same "merge: the same JSON Lines" "$tmp/one.jsonl" "$tmp/m.jsonl"
if command -v jq >/dev/null; then
	rows=$(jq '(.traces // .cases) | length' "$tmp/m.json")
	[ "$(grep -c . "$tmp/m.jsonl")" -eq "$rows" ] &&
		ok "JSON Lines: one row per row of the report ($rows)" || bad "JSON Lines: $(grep -c . "$tmp/m.jsonl") rows, the report $rows"
	jq -e -s "length == $rows and all(.schema | startswith(\"gtr.check.row.v\"))" "$tmp/m.jsonl" >/dev/null &&
		ok "JSON Lines: each line a JSON object of schema gtr.check.row" || bad "JSON Lines rows do not parse"
fi
cp "$base" "$tmp/base-merge.json"
timeout 120 "$gtr" check --merge "$tmp/parts/"*.json --baseline "$tmp/base-merge.json" "${gate[@]}" --update-baseline >/dev/null 2>&1
m_upd=$?
if [ $m_upd -eq $one_upd ] && cmp -s "$tmp/base-one.json" "$tmp/base-merge.json"; then
	ok "merge --update-baseline: the same baseline, byte for byte (exit $m_upd)"
else
	bad "merge --update-baseline: exit $m_upd (unsharded $one_upd), $(cmp "$tmp/base-one.json" "$tmp/base-merge.json")"
fi
expect "merge, parts in another order" 3 "$gtr" check --merge "$tmp/parts/2.json" "$tmp/parts/0.json" "$tmp/parts/1.json" --baseline "$base" "${gate[@]}"
same "merge, parts in another order: the same text" "$tmp/one.txt" "$tmp/out"

# Parts that do not make one run.
p=$tmp/parts
expect "a shard given twice" 1 "$gtr" check --merge "$p/0.json" "$p/1.json" "$p/1.json" "$p/2.json" --baseline "$base"
has "... is named" "$tmp/err" "shard 1/3 is given twice: .*1\.json and .*1\.json"
expect "two shards missing" 1 "$gtr" check --merge "$p/2.json" --baseline "$base"
has "... are named" "$tmp/err" "shards 0/3, 1/3 are missing"
expect "a part of another split" 0 "$gtr" check --shard 0/2 --part "$tmp/other.json" -j 1 "$corpus"
expect "... is refused" 1 "$gtr" check --merge "$p/0.json" "$p/1.json" "$tmp/other.json" --baseline "$base"
has "... by name" "$tmp/err" "other.json is shard 0/2 but .*0\.json is shard 0/3"
mkdir "$tmp/fewer" && cp "$corpus"/*go1.2*.trace "$tmp/fewer/"
expect "a part cut from another list" 0 "$gtr" check --shard 2/3 --part "$tmp/fewer.json" -j 1 "$tmp/fewer"
expect "... is refused" 1 "$gtr" check --merge "$p/0.json" "$p/1.json" "$tmp/fewer.json" --baseline "$base"
has "... by name" "$tmp/err" "fewer.json and .*0\.json were cut from different lists of traces"
expect "parts measured with other options" 0 "$gtr" check --shard 2/3 --part "$tmp/n5.json" -n 5 -j 1 "$corpus"
expect "... are refused" 1 "$gtr" check --merge "$p/0.json" "$p/1.json" "$tmp/n5.json" --baseline "$base"
has "... by name" "$tmp/err" "n5.json and .*0\.json were measured with different options"
head -c 2000 "$p/2.json" >"$tmp/torn.json"
expect "a torn part" 1 "$gtr" check --merge "$p/0.json" "$p/1.json" "$tmp/torn.json" --baseline "$base"
has "... says where" "$tmp/err" "torn.json: at byte [0-9]+: "
expect "a report is not a part" 1 "$gtr" check --merge "$tmp/one.json" --baseline "$base"
has "... and says so" "$tmp/err" "this is a check report"
# A part whose trace was moved to another part's share.
if command -v jq >/dev/null; then
	jq -c '.traces[0].name = "moved-" + .traces[0].name' "$p/0.json" >"$tmp/moved.json"
	expect "a trace in the wrong part" 1 "$gtr" check --merge "$tmp/moved.json" "$p/1.json" "$p/2.json" --baseline "$base"
	has "... is named" "$tmp/err" "traces\[0\] \(moved-.*\) belongs to shard [0-9]/3, not to this part's 0/3|not the list they were cut from"
fi

# The shard from the environment of a batch system.
shard_of() { jq -r '"\(.shard.index)/\(.shard.count)"' "$1"; }
expect "Slurm array task 7 of 5..9" 0 env SLURM_ARRAY_TASK_ID=7 SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_COUNT=5 \
	"$gtr" check --shard env --part "$tmp/env.json" -j 1 "$corpus"
[ "$(shard_of "$tmp/env.json")" = "2/5" ] && ok "... is shard 2/5" || bad "... is shard $(shard_of "$tmp/env.json"), want 2/5"
expect "Slurm array with a step (--array=0-8:4, task 8)" 0 env SLURM_ARRAY_TASK_ID=8 SLURM_ARRAY_TASK_MIN=0 \
	SLURM_ARRAY_TASK_STEP=4 SLURM_ARRAY_TASK_COUNT=3 "$gtr" check --shard env --part "$tmp/env.json" -j 1 "$corpus"
[ "$(shard_of "$tmp/env.json")" = "2/3" ] && ok "... is shard 2/3" || bad "... is shard $(shard_of "$tmp/env.json"), want 2/3"
expect "Kubernetes Indexed Job, index 1 of 4" 0 env JOB_COMPLETION_INDEX=1 \
	"$gtr" check --shard env/4 --part "$tmp/env.json" -j 1 "$corpus"
[ "$(shard_of "$tmp/env.json")" = "1/4" ] && ok "... is shard 1/4" || bad "... is shard $(shard_of "$tmp/env.json"), want 1/4"
expect "Kubernetes without a count" 2 env JOB_COMPLETION_INDEX=1 "$gtr" check --shard env --part "$tmp/env.json" "$corpus"
expect "no batch system" 2 env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX "$gtr" check --shard env --part "$tmp/env.json" "$corpus"
has "... says which variables" "$tmp/err" "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set"
expect "a Slurm task outside its array" 2 env SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_COUNT=2 \
	"$gtr" check --shard env --part "$tmp/env.json" "$corpus"
expect "a Slurm count that disagrees with env/N" 2 env SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=2 \
	"$gtr" check --shard env/3 --part "$tmp/env.json" "$corpus"

# Usage.
expect "--shard without --part" 2 "$gtr" check --shard 0/2 "$corpus"
expect "--shard K/N out of range" 2 "$gtr" check --shard 2/2 --part "$tmp/x.json" "$corpus"
expect "--shard with --baseline" 2 "$gtr" check --shard 0/2 --part "$tmp/x.json" --baseline "$base" "$corpus"
expect "--merge with -n" 2 "$gtr" check --merge -n 3 "$p/0.json" --baseline "$base"
expect "--merge without parts" 2 "$gtr" check --merge --baseline "$base"
expect "--part without --shard" 2 "$gtr" check --part "$tmp/x.json" --baseline "$base" "$corpus"
# The one trace given belongs to shard 0 or 1 of 2: the other share is empty.
expect "shard 0/2 of one trace" 0 "$gtr" check --shard 0/2 --part "$tmp/s0.json" "$corpus/$first"
expect "shard 1/2 of one trace" 0 "$gtr" check --shard 1/2 --part "$tmp/s1.json" "$corpus/$first"
if command -v jq >/dev/null; then
	[ "$(jq -s 'map(.traces | length) | sort' -c "$tmp/s0.json" "$tmp/s1.json")" = "[0,1]" ] &&
		ok "an empty share still writes its part" || bad "shares of one trace: $(jq -s -c 'map(.traces | length)' "$tmp/s0.json" "$tmp/s1.json")"
fi

# The rows for a warehouse: stats --jsonl holds what stats --json holds,
# one object per line, each naming its schema and its trace.
if command -v jq >/dev/null; then
	for f in "$corpus"/churn-go1.15.trace "$corpus"/gcpressure-go1.26.trace "$coarse"; do
		[ -e "$f" ] || continue
		"$gtr" stats --jsonl "$f" >"$tmp/rows.jsonl" 2>"$tmp/err" && "$gtr" stats --json "$f" >"$tmp/stats.json" 2>>"$tmp/err" ||
			{ bad "stats --jsonl/--json $(basename "$f"): $(head -c 200 "$tmp/err")"; continue; }
		a=$(jq -S -c -s 'map(del(.schema, .file, .version, .format, .runtime, .partial, .scope) | with_entries(select(.value != null)))' "$tmp/rows.jsonl")
		b=$(jq -S -c '[({goroutines: .goroutines_total} + .total)] + .functions + .goroutines | map(with_entries(select(.value != null)))' "$tmp/stats.json")
		c=$(jq -s -c --arg f "$f" 'map([.schema, .file, .scope]) | unique_by(.[2]) | map(.[0] == "gtr.stats.row.v1" and .[1] == $f) | all' "$tmp/rows.jsonl")
		if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$c" = true ]; then
			ok "stats --jsonl $(basename "$f"): $(grep -c . "$tmp/rows.jsonl") rows, the content of stats --json"
		else
			bad "stats --jsonl $(basename "$f") differs from stats --json"
		fi
	done
fi

echo "shardtest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
